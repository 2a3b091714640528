#include "formats/reader.h"

#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/archive.h"

#include "formats/collapsed.h"
#include "formats/flamesvg.h"
#include "formats/html.h"
#include "io/input.h"
#include "formats/jfr.h"
#include "formats/perfscript.h"
#include "formats/pprof.h"
#include "model/threads.h"
#include "model/tree.h"

enum kind { KIND_HTML, KIND_COLLAPSED, KIND_JFR, KIND_PPROF, KIND_SVG, KIND_PERF_SCRIPT, KIND_ARCHIVE };

/* Formats fgbisect does not read, told by their first bytes: what the file
 * is and what to do with it, for the ecosystem that writes it. */
#define READ_FORMATS "async-profiler HTML, collapsed stacks, JFR, pprof, perf script text, SVG flame graphs"
#define CALLGRIND "callgrind output (valgrind --tool=callgrind): costs per function and call arcs, not whole " \
		  "stacks: not read; profile with 'perf record -g' and read its 'perf script' text"
#define PPROF_TEXT(how) "pprof's text output (go tool pprof " how "): give fgbisect the profile itself (the " \
			"profile.proto file, e.g. .pb.gz), which it reads"
#define CHROME_TRACE "Chrome trace event JSON (chrome://tracing, Perfetto's JSON export): a timeline of " \
		     "events, not sampled stacks: not read"
struct foreign {
	const char *magic;
	size_t len;
	const char *message;
};

static const struct foreign binary_formats[] = {
	{ "PERFILE2", 8, "a perf.data file (perf record's binary output): not read; write its text with "
			 "'perf script -i FILE > FILE.txt' and read that" },
	{ "\x28\xb5\x2f\xfd", 4, "zstd-compressed data: not read (gzip is); decompress it first ('zstd -d FILE')" },
	{ "\xfd" "7zXZ\0", 6, "xz-compressed data: not read (gzip is); decompress it first ('xz -d FILE')" },
	{ "BZh91AY&SY", 10, "bzip2-compressed data: not read (gzip is); decompress it first ('bzip2 -d FILE')" },
	{ "\x04\x22\x4d\x18", 4, "lz4-compressed data: not read (gzip is); decompress it first ('lz4 -d FILE')" },
	{ "JAVA PROFILE 1.0.", 17, "a Java heap dump (hprof), not a CPU profile: record one with async-profiler "
				   "(HTML, collapsed or -o jfr) or the JDK's Flight Recorder (.jfr), which fgbisect reads" },
	{ "Nettrace\x14\0\0\0!FastSerialization", 30, "a .NET EventPipe trace (.nettrace): not read (dotnet-trace converts only to speedscope "
			 "and Chromium JSON, which fgbisect does not read either); record with 'perf record -g' "
			 "under DOTNET_PerfMapEnabled=1 and read its 'perf script' text" },
};

/* Text formats, by what their start holds (within the first 512 bytes; a
 * mark that starts with a newline starts a line, the first one too). */
static const struct foreign text_formats[] = {
	{ "https://www.speedscope.app/file-format-schema.json", 50,
	  "speedscope JSON: not read; ask the profiler for collapsed stacks instead (py-spy record --format raw, "
	  "rbspy record --format collapsed), or for pprof (Go, Node.js's pprof package), which fgbisect reads" },
	{ "\"traceEvents\"", 13, CHROME_TRACE },
	{ "\"ph\":", 5, CHROME_TRACE }, /* its array form: [{"name": ..., "ph": "X", ...}] */
	{ "\"callFrame\"", 11, "a V8 CPU profile (.cpuprofile, node --cpu-prof, Chrome DevTools): not read; for "
			      "Node.js record pprof instead (the pprof npm package) or 'perf record -g' with node "
			      "--perf-basic-prof, and read that" },
	{ "\n# Samples: ", 12, "perf report text: a summary, not the stacks: read 'perf script' text instead "
			      "('perf script -i perf.data > out.txt')" },
	{ "# callgrind format", 18, CALLGRIND },
	{ "\nevents: ", 9, CALLGRIND },
	{ "\nPeriodType: ", 13, PPROF_TEXT("-raw") },
	{ "\nShowing nodes accounting for ", 30, PPROF_TEXT("-top, -text, -tree") },
};

static const char *foreign_format(const struct foreign *table, size_t n, const char *d, size_t len, bool anywhere)
{
	for (size_t i = 0; i < n; i++) {
		const struct foreign *f = &table[i];
		bool line = anywhere && f->magic[0] == '\n';
		if ((anywhere && memmem(d, len, f->magic, f->len)) ||
		    (len >= f->len - line && !memcmp(d, f->magic + line, f->len - line)))
			return f->message;
	}
	return NULL;
}

/* JSON: an object, or an array of objects, whose first member is a string
 * ("[zb-actors-0 tid=1];..." is a collapsed stack, "[{" ... is not). */
static bool looks_like_json(const char *d, size_t n, size_t i)
{
	if (i < n && d[i] == '[') {
		for (i++; i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n'); i++)
			;
	}
	if (i >= n || d[i] != '{')
		return false;
	for (i++; i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n'); i++)
		;
	return i < n && (d[i] == '"' || d[i] == '}');
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* How far a '#' header is looked through for perf script's first sample. */
#define PERF_HEADER_PEEK (256u * 1024)

/* Decides by content what the input is; formats it does not read get a
 * message that says what to do with them. */
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
	if (fg_archive_sniff(d, n)) {
		*kind = KIND_ARCHIVE;
		return 0;
	}
	const char *foreign = foreign_format(binary_formats, COUNT(binary_formats), d, n, false);
	if (foreign)
		return fg_error_set(err, FG_EINVALID, name, "%s", foreign);
	unsigned char c0 = (unsigned char)d[0];
	if (c0 < 0x09 || (c0 > 0x0d && c0 < 0x20))
		return fg_error_set(err, FG_EINVALID, name, "binary data, not a profile fgbisect reads (" READ_FORMATS ")");
	size_t i = 0;
	if (n >= 3 && !memcmp(d, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n'))
		i++;
	/* Text formats of other tools: each names what converts it. */
	if ((foreign = foreign_format(text_formats, COUNT(text_formats), d, n, true)) != NULL ||
	    (foreign = looks_like_json(d, n, i) ? "JSON, not a profile fgbisect reads (" READ_FORMATS ")" : NULL) != NULL)
		return fg_error_set(err, FG_EINVALID, name, "%s", foreign);
	if (i < n && d[i] == '<') {
		if (memmem(d, n, "<svg", 4) && !memmem(d, n, "<html", 5) && !memmem(d, n, "<!DOCTYPE html", 14)) {
			*kind = KIND_SVG;
			return 0;
		}
		*kind = KIND_HTML;
	} else {
		/* perf script --header (and perf 3.x by default) writes a
		 * '#' header of a kilobyte or more (a cmdline, an id list
		 * per event and CPU) before the first sample. */
		if (d[i] == '#' && (rc = fg_input_peek(&d, &n, in, PERF_HEADER_PEEK, err)) != 0)
			return rc;
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
				rc = fg_error_oom(err, NULL);
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
		       const fg_read_options *opts, fg_stack_fn fn, fg_stop_fn stop, fg_inert_fn inert, void *ctx,
		       fg_error *err)
{
	switch (kind) {
	case KIND_JFR: return fg_jfr_read(info, in, names, opts, fn, stop, inert, ctx, err);
	case KIND_PPROF: return fg_pprof_read(info, in, names, opts, fn, stop, ctx, err);
	case KIND_SVG: return fg_flamesvg_read(info, in, names, fn, ctx, err);
	case KIND_PERF_SCRIPT: return fg_perfscript_read(info, in, names, opts, fn, ctx, err);
	default: return fg_collapsed_read(info, in, names, opts, fn, ctx, err);
	}
}

static int read_archive(fg_profile_info *info, fg_input *in, const char *member, fg_names *names,
			const fg_read_options *opts, const fg_visitor *v, fg_error *err);

/* Reads one input: a profile, or (unless it is an archive's member,
 * in_archive) the member of an archive that member names.  *kind: what the
 * input was sniffed as. */
static int read_input(enum kind *kind_out, fg_profile_info *info, fg_input *in, const char *member, bool in_archive,
		      fg_names *names, const fg_read_options *opts, const fg_visitor *v, fg_error *err)
{
	memset(info, 0, sizeof(*info));
	enum kind kind = KIND_COLLAPSED;
	int rc = sniff(&kind, in, err);
	*kind_out = kind;
	if (rc)
		return rc;
	if (kind == KIND_ARCHIVE && in_archive)
		return fg_error_set(err, FG_EINVALID, fg_input_name(in),
				    "an archive inside an archive: not read; unpack the outer one first");
	if (kind == KIND_ARCHIVE)
		return read_archive(info, in, member, names, opts, v, err);
	if (member)
		return fg_error_set(err, FG_ECONFIG, fg_input_name(in),
				    "not an archive (zip, tar, tar.gz), so it has no member '%s'", member);
	if (kind != KIND_JFR && kind != KIND_PPROF)
		fg_input_reject_nul(in);
	else
		/* A pprof message or a JFR chunk is read whole, and has no lines:
		 * its bound is --max-size (async-profiler's chunks reach 100 MB),
		 * which then stops it first, with its own message. */
		fg_input_set_max_line(in, (opts && opts->max_size ? opts->max_size : FG_INPUT_DEFAULT_MAX_SIZE) + 1);
	uint32_t root;
	if ((rc = fg_names_intern(&root, names, "all", 3, err)) != 0)
		return rc;
	bool reversed = opts && opts->reversed;
	if (kind == KIND_HTML && !reversed) {
		rc = fg_html_read(info, in, names, opts, v->frames, v->ctx, err);
		info->gzip = fg_input_is_gzip(in);
		return rc;
	}
	if (kind != KIND_HTML && v->stack) {
		/* Stack by stack: memory bounded by the longest stack (and, for
		 * JFR, a chunk; for pprof, the message). */
		rc = read_stacks(kind, info, in, names, opts, v->stack, v->stop, v->inert, v->ctx, err);
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
		rc = fg_html_read(info, in, names, opts, fg_tree_add_frames, tree, err);
		if (!rc)
			rc = unreverse(&fixed, tree, root, err);
	} else {
		rc = read_stacks(kind, info, in, names, opts, typing ? fg_jfr_typing_add_stack : add_stack, NULL,
				 NULL, typing ? (void *)typing : tree, err);
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

/* A text reader's "line N: ..." error on the last line of an input that
 * ends without a newline is a cut file (a download or a copy stopped
 * early), not a syntax error: the message says so and where.  The input is
 * read again to find its last line (error path only); when it cannot be,
 * the reader's message stays. */
static void explain_cut(fg_input *in, fg_error *err)
{
	unsigned long long at;
	if (err->code != FG_EINVALID || sscanf(err->message, "line %llu:", &at) != 1 || !fg_input_can_rewind(in))
		return;
	fg_error scratch;
	if (fg_input_rewind(in, &scratch) || fg_input_set_limit(in, UINT64_MAX, &scratch))
		return;
	char *line;
	size_t len;
	int rc;
	while ((rc = fg_input_line(&line, &len, in, &scratch)) > 0)
		;
	if (rc < 0 || !fg_input_missing_final_newline(in) || fg_input_line_number(in) != at)
		return;
	char found[256];
	snprintf(found, sizeof(found), "%s", strchr(err->message, ':') + 1);
	fg_error_set(err, FG_EINVALID, err->source[0] ? err->source : fg_input_name(in),
		     "truncated: the data ends in the middle of line %llu, after %llu bytes%s (the cut line:%.200s)",
		     at, (unsigned long long)fg_input_offset(in), fg_input_is_gzip(in) ? " uncompressed" : "", found);
}

/* Reads an opened input and closes it; errors name the input. */
static int read_and_close(fg_profile_info *info, fg_input *in, const char *member, bool in_archive,
			  fg_names *names, const fg_read_options *opts, const fg_visitor *v, fg_error *err)
{
	fg_input_set_max_line(in, opts ? opts->max_line : 0);
	enum kind kind = KIND_COLLAPSED;
	/* --merge-threads: once, around the outermost read (an archive's member is read through it). */
	fg_thread_merge *merge = NULL;
	int rc = opts && opts->merge_threads && !in_archive ? fg_thread_merge_new(&merge, names, v, err) : 0;
	if (!rc)
		rc = read_input(&kind, info, in, member, in_archive, names, opts,
				merge ? fg_thread_merge_visitor(merge) : v, err);
	fg_thread_merge_free(merge);
	/* An archive's error is its member's, explained there (or not, when a
	 * member cannot be read again): the archive's own bytes have no lines. */
	if (rc == FG_EINVALID && kind != KIND_ARCHIVE)
		explain_cut(in, err);
	if (rc && !err->source[0])
		fg_error_set_source(err, fg_input_name(in));
	fg_input_free(in);
	return rc;
}

/* The names of an archive's entries, for a message: the first ones, as
 * many as fit. */
struct listing {
	char text[400];
	size_t count, shown;
};

static void list_add(struct listing *l, const char *name)
{
	size_t len = strlen(l->text);
	if (l->count++ == l->shown && len + strlen(name) + 3 < sizeof(l->text)) {
		snprintf(l->text + len, sizeof(l->text) - len, "%s%s", len ? ", " : "", name);
		l->shown++;
	}
}

/* "a, b, c" or "a, b, … (12 in all)". */
static const char *list_text(struct listing *l)
{
	size_t len = strlen(l->text);
	if (l->shown < l->count)
		snprintf(l->text + len, sizeof(l->text) - len, ", … (%zu in all)", l->count);
	return l->text;
}

/* A member named by member: the whole path in the archive or its last
 * component, as given or as a glob. */
static bool member_matches(const char *member, const char *path)
{
	const char *base = strrchr(path, '/');
	return !fnmatch(member, path, 0) || (base && !fnmatch(member, base + 1, 0));
}

/* The archive's one profile (or the one member names) read as a profile;
 * the rest of the archive is still passed over, so that a second match is
 * an error (the archive is read once, as it comes: a pipe, a gunzipped
 * cache entry). */
static int read_archive(fg_profile_info *info, fg_input *in, const char *member, fg_names *names,
			const fg_read_options *opts, const fg_visitor *v, fg_error *err)
{
	fg_archive *a;
	int rc = fg_archive_open(&a, in, err);
	if (rc)
		return rc;
	const char *archive = fg_input_name(in), *path;
	struct listing all = { .count = 0 }, chosen = { .count = 0 };
	while ((rc = fg_archive_next(&path, a, err)) == 1) {
		list_add(&all, path);
		if (member && !member_matches(member, path))
			continue;
		list_add(&chosen, path);
		if (chosen.count > 1)
			continue;
		char shown[1024];
		snprintf(shown, sizeof(shown), "%s#%s", archive, path);
		fg_input *m;
		if ((rc = fg_archive_member(&m, a, shown, opts ? opts->max_size : 0, err)) != 0 ||
		    (rc = read_and_close(info, m, NULL, true, names, opts, v, err)) != 0)
			break;
	}
	fg_archive_free(a);
	if (rc)
		return rc;
	if (chosen.count > 1)
		return fg_error_set(err, FG_ECONFIG, archive,
				    "the archive holds %zu profiles%s%s%s: %s; name one as ARCHIVE#MEMBER (a name or "
				    "a glob)", chosen.count, member ? " that match '" : "", member ? member : "",
				    member ? "'" : "", list_text(&chosen));
	if (chosen.count == 0 && all.count == 0)
		return fg_error_set(err, FG_EINVALID, archive, "the archive holds no profile (no file in it)");
	if (chosen.count == 0)
		return fg_error_set(err, FG_EINVALID, archive, "no member of the archive matches '%s'; it holds: %s",
				    member, list_text(&all));
	return 0;
}

int fg_reader_read_member(fg_profile_info *info, const char *path, const char *name, const char *member,
			  fg_names *names, const fg_read_options *opts, const fg_visitor *v, fg_error *err)
{
	fg_input *in;
	int rc = fg_input_open(&in, path, opts ? opts->max_size : 0, err);
	if (rc) {
		if (name)
			fg_error_set_source(err, name);
		return rc;
	}
	if (name)
		fg_input_set_name(in, name);
	return read_and_close(info, in, member, false, names, opts, v, err);
}

int fg_reader_read(fg_profile_info *info, const char *path, fg_names *names, const fg_read_options *opts,
		    const fg_visitor *v, fg_error *err)
{
	return fg_reader_read_member(info, path, NULL, NULL, names, opts, v, err);
}

int fg_reader_read_memory(fg_profile_info *info, const void *data, size_t len, const char *name,
			   fg_names *names, const fg_read_options *opts, const fg_visitor *v,
			   fg_error *err)
{
	fg_input *in;
	int rc = fg_input_open_memory(&in, data, len, name, opts ? opts->max_size : 0, err);
	return rc ? rc : read_and_close(info, in, NULL, false, names, opts, v, err);
}
