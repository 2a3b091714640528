/* Shared by the profile fuzz targets: one frame stream feeds share (also
 * without the self share, whose inclusive counts must be the same), top
 * (through the name normaliser) and a tree that is then written as
 * collapsed stacks, so the analyses see every frame sequence the readers
 * let through; the same frames (or the tree's, for stacks) go to the
 * sorter of `collapse`, whose bytes must be the tree's. */
#ifndef FG_FUZZ_ANALYSES_H
#define FG_FUZZ_ANALYSES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/collapsed.h"
#include "model/match.h"
#include "model/namemap.h"
#include "model/profile.h"
#include "formats/reader.h"
#include "analysis/share.h"
#include "analysis/top.h"
#include "model/tree.h"

/* The fuzzer's input is capped well below the default, so that a bomb costs
 * milliseconds, not gigabytes. */
#define FUZZ_MAX_SIZE (UINT64_C(8) << 20)

struct analyses {
	fg_names *names;
	bool own_names;
	fg_matcher *matcher;
	fg_share *share;
	fg_share *inclusive; /* fg_share_inclusive_only */
	fg_namemap *map;
	fg_top *top;
	fg_tree *tree;
	fg_collapsed_sorter *sorter;
	bool sorted_frames; /* the sorter was given the stream's frames */
};

static inline int analyses_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	struct analyses *a = ctx;
	int rc = fg_share_frames(a->share, frames, n, err);
	if (!rc)
		rc = fg_share_frames(a->inclusive, frames, n, err);
	if (!rc)
		rc = fg_top_frames(a->top, frames, n, err);
	if (!rc)
		rc = fg_tree_add_frames(a->tree, frames, n, err);
	if (!rc && n)
		a->sorted_frames = true;
	if (!rc)
		rc = fg_collapsed_sorter_frames(a->sorter, frames, n, err);
	return rc;
}

/* The stack path of stack-based formats: the same analyses, stack by stack
 * (the tree is finished by the frames end call). */
static inline int analyses_stack(void *ctx, const fg_stack *st, fg_error *err)
{
	struct analyses *a = ctx;
	int rc = fg_share_stack(a->share, st, err);
	if (!rc)
		rc = fg_share_stack(a->inclusive, st, err);
	if (!rc)
		rc = fg_top_stack(a->top, st, err);
	if (!rc)
		rc = fg_tree_add_stack(a->tree, st->names + 1, st->types + 1, st->depth, st->count, err);
	return rc;
}

/* names: another analyses' interner to share (ids then agree), or NULL for
 * a new one. */
static inline int analyses_new(struct analyses *a, fg_names *names, fg_error *err)
{
	/* Patterns that hit common fixture names, a normalised form and a
	 * regex-free catch-all. */
	static const char *const patterns[] = { "run", "Lambda", "/", "java" };
	uint32_t root;
	a->names = names;
	a->own_names = !names;
	int rc = names ? 0 : fg_names_new(&a->names, err);
	if (!rc)
		rc = fg_names_intern(&root, a->names, "all", 3, err);
	if (!rc)
		rc = fg_matcher_new(&a->matcher, patterns, 4, NULL, err);
	if (!rc)
		rc = fg_share_new(&a->share, a->matcher, a->names, err);
	if (!rc)
		rc = fg_share_new(&a->inclusive, a->matcher, a->names, err);
	if (!rc) {
		fg_share_inclusive_only(a->inclusive);
		rc = fg_namemap_new(&a->map, a->names, err);
	}
	if (!rc)
		rc = fg_top_new(&a->top, fg_namemap_get, a->map, err);
	if (!rc)
		rc = fg_tree_new(&a->tree, root, err);
	if (!rc)
		rc = fg_collapsed_sorter_new(&a->sorter, NULL, NULL, err);
	return rc;
}

/* The tree's collapsed bytes against the sorter's (given the stream's frames,
 * or for stacks the tree's); traps when they differ. */
static inline void analyses_same_collapsed(struct analyses *a, const fg_collapsed_write_options *wo)
{
	fg_error err;
	char *bytes[2] = { NULL, NULL };
	size_t len[2] = { 0, 0 };
	FILE *f[2] = { open_memstream(&bytes[0], &len[0]), open_memstream(&bytes[1], &len[1]) };
	if (f[0] && f[1]) {
		int rc0 = fg_collapsed_write(f[0], a->tree, a->names, wo, &err);
		int rc1 = a->sorted_frames ? 0 : fg_tree_visit(a->tree, a->names, fg_collapsed_sorter_frames, a->sorter, &err);
		if (!rc1)
			rc1 = fg_collapsed_sorter_write(f[1], a->sorter, a->names, wo, &err);
		fflush(f[0]);
		fflush(f[1]);
		if ((rc0 == 0) != (rc1 == 0) || len[0] != len[1] || memcmp(bytes[0], bytes[1], len[0]) ||
		    fg_tree_node_at(a->tree, 0)->self != fg_collapsed_sorter_root_samples(a->sorter))
			__builtin_trap();
	}
	for (int k = 0; k < 2; k++) {
		if (f[k])
			fclose(f[k]);
		free(bytes[k]);
	}
}

/* After a successful read: the results the commands would print. */
static inline void analyses_report(struct analyses *a, FILE *sink)
{
	fg_error err;
	fg_top_entry *entries = NULL;
	size_t n;
	if (!fg_top_entries(&entries, &n, a->top, false, &err))
		free(entries);
	if (!fg_top_entries(&entries, &n, a->top, true, &err))
		free(entries);
	for (size_t p = 0; p < 4; p++)
		if (fg_share_samples(a->inclusive, p) != fg_share_samples(a->share, p) ||
		    fg_share_self(a->inclusive, p) != 0 ||
		    fg_share_matched(a->inclusive, p) != fg_share_matched(a->share, p))
			__builtin_trap();
	fg_collapsed_write_options wo = { .annotate = true };
	fg_collapsed_write(sink, a->tree, a->names, &wo, &err);
	analyses_same_collapsed(a, &wo);
}

static inline void analyses_same_top(const fg_top *x, const fg_top *y, bool self_order)
{
	fg_error err;
	fg_top_entry *ex = NULL, *ey = NULL;
	size_t nx = 0, ny = 0;
	if (!fg_top_entries(&ex, &nx, x, self_order, &err) && !fg_top_entries(&ey, &ny, y, self_order, &err)) {
		if (nx != ny || fg_top_total(x) != fg_top_total(y))
			__builtin_trap();
		for (size_t i = 0; i < nx; i++)
			if (ex[i].name != ey[i].name || ex[i].samples != ey[i].samples ||
			    ex[i].self_samples != ey[i].self_samples)
				__builtin_trap();
	}
	free(ex);
	free(ey);
}

/* Traps unless two analyses (names shared or interned in the same order)
 * hold the same shares and the same top entries in both orders. */
static inline void analyses_same(const struct analyses *x, const struct analyses *y)
{
	for (size_t p = 0; p < 4; p++)
		if (fg_share_samples(x->share, p) != fg_share_samples(y->share, p) ||
		    fg_share_self(x->share, p) != fg_share_self(y->share, p) ||
		    fg_share_matched(x->share, p) != fg_share_matched(y->share, p))
			__builtin_trap();
	analyses_same_top(x->top, y->top, false);
	analyses_same_top(x->top, y->top, true);
}

static inline void analyses_free(struct analyses *a)
{
	fg_collapsed_sorter_free(a->sorter);
	fg_tree_free(a->tree);
	fg_top_free(a->top);
	fg_namemap_free(a->map);
	fg_share_free(a->inclusive);
	fg_share_free(a->share);
	fg_matcher_free(a->matcher);
	if (a->own_names)
		fg_names_free(a->names);
}

/* Reads data as a profile, with these options, into every analysis: as
 * frames, or through the stack path when stacks is set. */
static inline void analyses_run_with(const void *data, size_t size, const fg_read_options *o, bool stacks,
				     FILE *sink)
{
	struct analyses a = { 0 };
	fg_error err;
	fg_error_clear(&err);
	if (!analyses_new(&a, NULL, &err)) {
		fg_profile_info info;
		fg_visitor v = { analyses_frames, stacks ? analyses_stack : NULL, &a, NULL, NULL };
		if (!fg_reader_read_memory(&info, data, size, "fuzz", a.names, o, &v, &err))
			analyses_report(&a, sink);
	}
	analyses_free(&a);
}

/* Reads data as a profile into every analysis. */
static inline void analyses_run(const void *data, size_t size, bool reversed, FILE *sink)
{
	fg_read_options o;
	fg_read_options_init(&o);
	o.reversed = reversed;
	o.max_size = FUZZ_MAX_SIZE;
	analyses_run_with(data, size, &o, false, sink);
}

/* Both paths of a stack-based reader with the default options: frames
 * through a tree, and stack by stack. */
static inline void analyses_run_paths(const void *data, size_t size, FILE *sink)
{
	fg_read_options o;
	fg_read_options_init(&o);
	o.max_size = FUZZ_MAX_SIZE;
	analyses_run_with(data, size, &o, false, sink);
	analyses_run_with(data, size, &o, true, sink);
}

/* share with its stop function (readers of leaf-first stacks then cut a
 * stack at a frame matching every pattern), with its inert function (they
 * may leave out frames that match no pattern) and with both, against share
 * over whole stacks: the same outcome, message and answers, or a trap.
 * patterns 0: one pattern that many names match; 1: two that one name may
 * match both.  (One set a call: four readings each, a target calls it once
 * per set with other options, not eight readings twice.) */
static inline void analyses_same_share_stop(const void *data, size_t size, const fg_read_options *o, size_t set)
{
	static const char *const patterns[][2] = { { "/", NULL }, { "a", "e" } };
	enum { WAYS = 4 }; /* bit 0: stop, bit 1: inert */
	const size_t k = set & 1;
	size_t np = patterns[k][1] ? 2 : 1;
	fg_names *names[WAYS] = { NULL };
	fg_matcher *m[WAYS] = { NULL };
	fg_share *sh[WAYS] = { NULL };
	fg_error err[WAYS];
	int rc[WAYS] = { -1, -1, -1, -1 };
	bool ready = true;
	for (int i = 0; i < WAYS; i++) {
		fg_error_clear(&err[i]);
		ready = ready && !fg_names_new(&names[i], &err[i]) &&
			!fg_matcher_new(&m[i], patterns[k], np, NULL, &err[i]) &&
			!fg_share_new(&sh[i], m[i], names[i], &err[i]);
	}
	if (ready) {
		fg_profile_info info;
		for (int i = 0; i < WAYS; i++)
			rc[i] = fg_reader_read_memory(&info, data, size, "fuzz", names[i], o,
						      &(fg_visitor){ fg_share_frames, fg_share_stack, sh[i],
								     i & 1 ? fg_share_stop : NULL,
								     i & 2 ? fg_share_inert : NULL },
						      &err[i]);
		for (int i = 1; i < WAYS; i++) {
			if (rc[0] != rc[i] || (rc[0] && strcmp(err[0].message, err[i].message)))
				__builtin_trap();
			for (size_t p = 0; !rc[0] && p < np; p++)
				if (fg_share_samples(sh[0], p) != fg_share_samples(sh[i], p) ||
				    fg_share_self(sh[0], p) != fg_share_self(sh[i], p) ||
				    fg_share_matched(sh[0], p) != fg_share_matched(sh[i], p))
					__builtin_trap();
		}
	}
	for (int i = 0; i < WAYS; i++) {
		fg_share_free(sh[i]);
		fg_matcher_free(m[i]);
		fg_names_free(names[i]);
	}
}

/* Output goes nowhere, but through stdio like the commands' output. */
static inline FILE *analyses_sink(void)
{
	static FILE *sink;
	if (!sink)
		sink = fopen("/dev/null", "w");
	return sink;
}

#endif
