/* Native frames in the history query: the files that define their
 * functions (the profile's own file name, else a definition search over the
 * C/C++/Rust/Go files of the bad tree, one pass for every frame), and the
 * function's lines in a file by git's funcname drivers (src/git/native.h). */
#include "git/history_internal.h"

#include <stdio.h>

#include "git/native.h"

/* The definition search reads at most so many files and bytes of the bad
 * tree: beyond, a frame without a file of its own in the profile is said to
 * be not found, and a warning says the search was cut. */
#define NATIVE_MAX_FILES 20000
#define NATIVE_MAX_BYTES ((size_t)256 << 20)
#define NATIVE_MAX_CAND 64

typedef struct nframe {
	bool native;             /* searched for: not a Java frame with a file */
	fg_native_function fn;
	const char *hint;        /* the profile's file for it, NULL: none */
	bool hinted;             /* candidates come from the hint */
	fg_native_rank rank;     /* of the candidates kept */
	size_t cand[NATIVE_MAX_CAND];
	size_t ncand;            /* may exceed NATIVE_MAX_CAND: counted, not kept */
} nframe;

struct fg_history_native {
	nframe *frames;
	size_t count;
};

static bool is_header(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot && dot[1] == 'h';
}

/* Whether path (a file of the tree) is the file the profile names: the hint
 * ends with it at a component boundary (`/build/jq/src/jv.c` names
 * `src/jv.c`), or, for a bare name, has its name. */
static size_t hint_match(const char *hint, const char *path)
{
	size_t hl = strlen(hint), pl = strlen(path);
	while (hl > 2 && hint[0] == '.' && hint[1] == '/') {
		hint += 2;
		hl -= 2;
	}
	if (pl <= hl && !memcmp(hint + hl - pl, path, pl) && (pl == hl || hint[hl - pl - 1] == '/'))
		return pl;
	/* A hint longer in the tree than in the profile: `jv.c` for `src/jv.c`. */
	if (hl < pl && !memcmp(path + pl - hl, hint, hl) && path[pl - hl - 1] == '/')
		return hl;
	return 0;
}

static void add_cand(nframe *f, size_t src, fg_native_rank rank)
{
	if (rank < f->rank)
		return;
	if (rank > f->rank) {
		f->rank = rank;
		f->ncand = 0;
	}
	if (f->ncand < NATIVE_MAX_CAND)
		f->cand[f->ncand] = src;
	f->ncand++;
}

static int cand_order(const fg_history *h, size_t a, size_t b)
{
	bool ha = is_header(h->src[a].path), hb = is_header(h->src[b].path);
	if (ha != hb)
		return ha ? 1 : -1; /* a definition in a source file before one in a header */
	return strcmp(h->src[a].path, h->src[b].path);
}

/* Reads one file of the bad tree and ranks it for every frame that wants it. */
static void search_file(fg_history_native *nat, fg_history *h, size_t si, fg_native_driver *const *drivers,
			size_t *missing, size_t *bytes)
{
	srcfile *s = &h->src[si];
	fg_native_lang lang = fg_native_lang_of_path(s->path);
	bool wanted = false;
	for (size_t i = 0; i < nat->count && !wanted; i++) {
		nframe *f = &nat->frames[i];
		wanted = f->native && (f->hinted ? hint_match(f->hint, s->path) > 0 : true);
	}
	if (!wanted)
		return;
	git_blob *blob;
	if (git_blob_lookup(&blob, h->repo, &s->blob) < 0) {
		(*missing)++; /* a partial clone without this blob */
		return;
	}
	const char *text = git_blob_rawcontent(blob);
	size_t len = (size_t)git_blob_rawsize(blob);
	*bytes += len;
	for (size_t i = 0; i < nat->count; i++) {
		nframe *f = &nat->frames[i];
		if (!f->native || (f->hinted && !hint_match(f->hint, s->path)))
			continue;
		if (!memmem(text, len, f->fn.name, strlen(f->fn.name))) {
			if (f->hinted)
				add_cand(f, si, FG_NATIVE_RANK_NONE);
			continue;
		}
		fg_method_match m;
		fg_native_rank r = fg_native_find(&m, drivers[lang], text, len, &f->fn);
		if (r != FG_NATIVE_RANK_NONE || f->hinted)
			add_cand(f, si, r);
	}
	git_blob_free(blob);
}

int fg_history_native_resolve(fg_history_native **out, fg_history *h, const char *const *frames,
			      const bool *searched, size_t count, fg_error *err)
{
	*out = NULL;
	fg_history_native *nat = calloc(1, sizeof(*nat));
	if (!nat || !(nat->frames = calloc(count ? count : 1, sizeof(nframe)))) {
		free(nat);
		return fg_error_oom(err, NULL);
	}
	nat->count = count;
	*out = nat;
	bool any = false;
	for (size_t i = 0; i < count; i++) {
		nframe *f = &nat->frames[i];
		f->native = searched[i] && frames[i] && fg_native_parse(&f->fn, frames[i]) == 1;
		if (!f->native)
			continue;
		any = true;
		f->hint = h->frame_file ? h->frame_file(h->frame_file_ctx, frames[i]) : NULL;
		if (f->hint && !*f->hint)
			f->hint = NULL;
		/* A hint that names no file of the tree (a system header, a
		 * dependency's source) leaves the definition search. */
		for (size_t k = 0; f->hint && k < h->nsrc && !f->hinted; k++)
			f->hinted = fg_native_lang_of_path(h->src[k].path) && hint_match(f->hint, h->src[k].path);
	}
	if (!any)
		return 0;
	fg_native_driver *drivers[FG_NATIVE_GO + 1] = { NULL };
	int rc = 0;
	for (int l = FG_NATIVE_CPP; l <= FG_NATIVE_GO && !rc; l++)
		rc = fg_native_driver_new(&drivers[l], (fg_native_lang)l, err);
	size_t files = 0, read = 0, missing = 0, bytes = 0;
	for (size_t si = 0; si < h->nsrc; si++)
		files += fg_native_lang_of_path(h->src[si].path) != FG_NATIVE_NONE;
	for (size_t si = 0; si < h->nsrc && !rc; si++) {
		if (!fg_native_lang_of_path(h->src[si].path))
			continue;
		if (read >= NATIVE_MAX_FILES || bytes >= NATIVE_MAX_BYTES)
			break;
		read++;
		search_file(nat, h, si, drivers, &missing, &bytes);
	}
	for (int l = FG_NATIVE_CPP; l <= FG_NATIVE_GO; l++)
		fg_native_driver_free(drivers[l]);
	if (!rc && read < files)
		rc = fg_history_warn(h, err,
				     "the definition search of native functions read %zu of the %zu C/C++/Rust/Go files of "
				     "the tree (%zu MiB; its bound is %d files or %zu MiB): a function defined only in the "
				     "others is reported not in repository; give the profile's file names (perf script "
				     "-F +srcline, pprof with file names)",
				     read, files, bytes >> 20, NATIVE_MAX_FILES, NATIVE_MAX_BYTES >> 20);
	if (!rc && missing)
		rc = fg_history_warn(h, err,
				     "the definition search of native functions could not read %zu file%s whose content "
				     "is not in this clone (a partial clone: `git fetch` the blobs, or run `git log -p` "
				     "once)", missing, missing == 1 ? "" : "s");
	/* Candidates in order: a source file before a header, then by path. */
	for (size_t i = 0; i < count; i++) {
		nframe *f = &nat->frames[i];
		size_t n = f->ncand < NATIVE_MAX_CAND ? f->ncand : NATIVE_MAX_CAND;
		for (size_t a = 1; a < n; a++)
			for (size_t b = a; b > 0 && cand_order(h, f->cand[b - 1], f->cand[b]) > 0; b--) {
				size_t t = f->cand[b];
				f->cand[b] = f->cand[b - 1];
				f->cand[b - 1] = t;
			}
	}
	return rc;
}

size_t fg_history_native_candidates(const fg_history_native *nat, size_t frame, size_t *out, size_t max)
{
	if (!nat || frame >= nat->count || !nat->frames[frame].native)
		return 0;
	const nframe *f = &nat->frames[frame];
	size_t n = f->ncand < max ? f->ncand : max;
	n = n < NATIVE_MAX_CAND ? n : NATIVE_MAX_CAND;
	memcpy(out, f->cand, n * sizeof(size_t));
	return n;
}

const char *fg_history_native_function(const fg_history_native *nat, size_t frame)
{
	return nat && frame < nat->count && nat->frames[frame].native ? nat->frames[frame].fn.name : NULL;
}

void fg_history_native_free(fg_history_native *nat)
{
	if (!nat)
		return;
	free(nat->frames);
	free(nat);
}

int fg_history_native_match(fg_method_match *out, fg_history *h, const git_oid *tree, const qfile *f,
			    const char *frame, fg_error *err)
{
	memset(out, 0, sizeof(*out));
	fg_native_function fn;
	fg_native_lang lang = fg_native_lang_of_path(f->path);
	out->status = FG_METHOD_NOT_FOUND;
	out->reason = "not a function of C, C++, Rust or Go source";
	if (!lang || fg_native_parse(&fn, frame) != 1)
		return 0;
	git_oid id;
	bool found;
	git_blob *blob = NULL;
	int rc = fg_history_blob_at(&id, &found, h, tree, f, err);
	if (rc < 0)
		return rc;
	if (!found || git_blob_lookup(&blob, h->repo, &id) < 0) {
		out->status = FG_METHOD_UNRESOLVED;
		out->reason = "the file's content is not in this clone (a partial clone: the warning says how to fetch it)";
		return fg_history_warn_missing(h, f->path, err);
	}
	fg_native_driver *d;
	rc = fg_native_driver_new(&d, lang, err);
	if (rc == 0) {
		fg_native_find(out, d, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), &fn);
		fg_native_driver_free(d);
	}
	git_blob_free(blob);
	return rc;
}

bool fg_history_jvm_sources(const fg_history *h)
{
	for (size_t i = 0; i < h->nsrc; i++)
		if (!fg_native_lang_of_path(h->src[i].path))
			return true;
	return false;
}
