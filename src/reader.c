#include "reader.h"

#include <stdlib.h>
#include <string.h>

#include "collapsed.h"
#include "flamesvg.h"
#include "html.h"
#include "input.h"
#include "jfr.h"
#include "perfscript.h"
#include "pprof.h"
#include "tree.h"

enum kind { KIND_HTML, KIND_COLLAPSED, KIND_JFR, KIND_PPROF, KIND_SVG, KIND_PERF_SCRIPT };

/* Decides by content what the input is; binary formats get a message that
 * says what to do with them. */
static int sniff(enum kind *kind, fg_input *in, fg_error *err)
{
	const char *d;
	size_t n;
	int rc = fg_input_peek(&d, &n, in, 512, err);
	if (rc)
		return rc;
	const char *name = fg_input_name(in);
	if (n == 0)
		return fg_error_set(err, FG_EINVALID, name, "empty file, not a profile");
	if (n >= 4 && !memcmp(d, "FLR\0", 4)) {
		*kind = KIND_JFR;
		return 0;
	}
	if (fg_pprof_sniff((const unsigned char *)d, n)) {
		*kind = KIND_PPROF;
		return 0;
	}
	unsigned char c0 = (unsigned char)d[0];
	if (c0 < 0x09 || (c0 > 0x0d && c0 < 0x20))
		return fg_error_set(err, FG_EINVALID, name, "binary data, not a flame graph or collapsed stacks");
	size_t i = 0;
	if (n >= 3 && !memcmp(d, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n'))
		i++;
	if (i < n && d[i] == '<') {
		if (memmem(d, n, "<svg", 4) && !memmem(d, n, "<html", 5) && !memmem(d, n, "<!DOCTYPE html", 14)) {
			*kind = KIND_SVG;
			return 0;
		}
		*kind = KIND_HTML;
	} else {
		*kind = fg_perfscript_sniff(d, n) ? KIND_PERF_SCRIPT : KIND_COLLAPSED;
	}
	return 0;
}

/* --reversed: the file's paths run leaf-first.  Every stack (a node with
 * self samples) is turned around and added to a root-first tree. */
static int unreverse(fg_tree **out, const fg_tree *rev, uint32_t root_name, fg_error *err)
{
	fg_tree *t;
	int rc = fg_tree_new(&t, root_name, err);
	uint32_t *names = NULL;
	uint8_t *types = NULL;
	size_t cap = 0;
	for (uint32_t id = 1; !rc && id < fg_tree_size(rev); id++) {
		const fg_tree_node *n = fg_tree_node_at(rev, id);
		if (n->self == 0)
			continue;
		if (n->depth > cap) {
			cap = n->depth * 2;
			uint32_t *nn = realloc(names, cap * sizeof(*nn));
			uint8_t *nt = nn ? realloc(types, cap) : NULL;
			if (nn)
				names = nn;
			if (nt)
				types = nt;
			if (!nn || !nt) {
				rc = fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
				break;
			}
		}
		/* Walking up from the node gives the original root-first order. */
		size_t k = 0;
		for (uint32_t p = id; p != 0; p = fg_tree_node_at(rev, p)->parent, k++) {
			names[k] = fg_tree_node_at(rev, p)->name;
			types[k] = fg_tree_node_at(rev, p)->type;
		}
		rc = fg_tree_add_stack(t, names, types, k, n->self, err);
	}
	/* Samples that stopped at the root stay there. */
	if (!rc && fg_tree_node_at(rev, 0)->self)
		rc = fg_tree_add_stack(t, NULL, NULL, 0, fg_tree_node_at(rev, 0)->self, err);
	if (!rc)
		rc = fg_tree_finish(t, err);
	free(names);
	free(types);
	if (rc) {
		fg_tree_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

/* Stacks into a tree, for a visitor that takes frames only. */
static int add_stack(void *tree, const fg_stack *stack, fg_error *err)
{
	return fg_tree_add_stack(tree, stack->names + 1, stack->types + 1, stack->depth, stack->count, err);
}

/* The stack-based readers, one way in. */
static int read_stacks(enum kind kind, fg_profile_info *info, fg_input *in, fg_names *names,
		       const fg_read_options *opts, fg_stack_fn fn, void *ctx, fg_error *err)
{
	switch (kind) {
	case KIND_JFR: return fg_jfr_read(info, in, names, opts, fn, ctx, err);
	case KIND_PPROF: return fg_pprof_read(info, in, names, opts, fn, ctx, err);
	case KIND_SVG: return fg_flamesvg_read(info, in, names, fn, ctx, err);
	case KIND_PERF_SCRIPT: return fg_perfscript_read(info, in, names, fn, ctx, err);
	default: return fg_collapsed_read(info, in, names, opts, fn, ctx, err);
	}
}

static int read_input(fg_profile_info *info, fg_input *in, fg_names *names, const fg_read_options *opts,
		      const fg_visitor *v, fg_error *err)
{
	memset(info, 0, sizeof(*info));
	enum kind kind = KIND_COLLAPSED;
	int rc = sniff(&kind, in, err);
	if (rc)
		return rc;
	if (kind != KIND_JFR && kind != KIND_PPROF)
		fg_input_reject_nul(in);
	uint32_t root;
	if ((rc = fg_names_intern(&root, names, "all", 3, err)) != 0)
		return rc;
	bool reversed = opts && opts->reversed;
	if (kind == KIND_HTML && !reversed) {
		rc = fg_html_read(info, in, names, v->frames, v->ctx, err);
		info->gzip = fg_input_is_gzip(in);
		return rc;
	}
	if (kind != KIND_HTML && v->stack) {
		/* Stack by stack: memory bounded by the longest stack (and, for
		 * JFR, a chunk; for pprof, the message). */
		rc = read_stacks(kind, info, in, names, opts, v->stack, v->ctx, err);
		if (!rc)
			rc = v->frames(v->ctx, NULL, 0, err);
		info->gzip = fg_input_is_gzip(in);
		return rc;
	}
	/* Otherwise the visitor wants frames in DFS order, which collapsed
	 * stacks (in any order) and reversed stacks (to be turned around)
	 * give only once the whole tree is built. */
	fg_tree *tree = NULL, *fixed = NULL;
	fg_jfr_typing *typing = NULL;
	if ((rc = fg_tree_new(&tree, root, err)) != 0)
		return rc;
	/* JFR frames get their types as async-profiler's converter merges them. */
	if (kind == KIND_JFR && (rc = fg_jfr_typing_new(&typing, tree, err)) != 0) {
		fg_tree_free(tree);
		return rc;
	}
	if (kind == KIND_HTML) {
		rc = fg_html_read(info, in, names, fg_tree_add_frames, tree, err);
		if (!rc)
			rc = unreverse(&fixed, tree, root, err);
	} else {
		rc = read_stacks(kind, info, in, names, opts, typing ? fg_jfr_typing_add_stack : add_stack,
				 typing ? (void *)typing : tree, err);
		if (!rc && typing)
			fg_jfr_typing_apply(typing);
		if (!rc)
			rc = fg_tree_finish(tree, err);
	}
	if (!rc) {
		const fg_tree *t = fixed ? fixed : tree;
		info->frames = fg_tree_size(t);
		info->total = fg_tree_node_at(t, 0)->total;
		rc = fg_tree_visit(t, names, v->frames, v->ctx, err);
	}
	info->gzip = fg_input_is_gzip(in);
	fg_jfr_typing_free(typing);
	fg_tree_free(tree);
	fg_tree_free(fixed);
	return rc;
}

/* Reads an opened input and closes it; errors name the input. */
static int read_and_close(fg_profile_info *info, fg_input *in, fg_names *names, const fg_read_options *opts,
			  const fg_visitor *v, fg_error *err)
{
	fg_input_set_max_line(in, opts ? opts->max_line : 0);
	int rc = read_input(info, in, names, opts, v, err);
	if (rc && !err->source[0])
		snprintf(err->source, sizeof(err->source), "%s", fg_input_name(in));
	fg_input_free(in);
	return rc;
}

int fg_reader_read(fg_profile_info *info, const char *path, fg_names *names, const fg_read_options *opts,
		    const fg_visitor *v, fg_error *err)
{
	fg_input *in;
	int rc = fg_input_open(&in, path, opts ? opts->max_size : 0, err);
	return rc ? rc : read_and_close(info, in, names, opts, v, err);
}

int fg_reader_read_memory(fg_profile_info *info, const void *data, size_t len, const char *name,
			   fg_names *names, const fg_read_options *opts, const fg_visitor *v,
			   fg_error *err)
{
	fg_input *in;
	int rc = fg_input_open_memory(&in, data, len, name, opts ? opts->max_size : 0, err);
	return rc ? rc : read_and_close(info, in, names, opts, v, err);
}
