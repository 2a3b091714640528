#include "git/history_internal.h"

#include <stdio.h>
#include <time.h>

#include "git/javaclass.h"
#include "git/native.h"

/* ---- query -------------------------------------------------------------------- */

static int wpos_cmp_ctx_sort(fg_history *h, size_t *v, size_t n)
{
	/* Insertion sort by pop order: windows are short. */
	for (size_t i = 1; i < n; i++) {
		size_t x = v[i], j = i;
		while (j > 0 && h->nodes[v[j - 1]].wpos > h->nodes[x].wpos) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
	return 0;
}

static char *result_strdup(fg_history_result *r, const char *s)
{
	if (fg_history_grow(&r->strings, &r->capstrings, r->nstrings + 1, sizeof(char *)) < 0)
		return NULL;
	char *d = strdup(s);
	if (d)
		r->strings[r->nstrings++] = d;
	return d;
}

/* The commit table index for a node: id, author date as %aI, subject as %s. */
static int commit_info(size_t *out, fg_history *h, fg_history_result *r, size_t ni, fg_error *err)
{
	if (h->nodes[ni].info != SIZE_MAX) {
		*out = h->nodes[ni].info;
		return 0;
	}
	git_commit *c;
	if (git_commit_lookup(&c, h->repo, fg_history_replaced(h, &h->nodes[ni].id)) < 0)
		return fg_history_git_fail(err, NULL, "cannot read commit");
	if (fg_history_grow(&r->commits, &r->capcommits, r->ncommits + 1, sizeof(fg_history_commit)) < 0) {
		git_commit_free(c);
		return fg_error_oom(err, NULL);
	}
	fg_history_commit *ci = &r->commits[r->ncommits];
	git_oid_tostr(ci->id, sizeof(ci->id), &h->nodes[ni].id);
	const git_signature *a = git_commit_author(c);
	time_t t = (time_t)(a->when.time + (git_time_t)a->when.offset * 60);
	struct tm tm;
	int off = a->when.offset < 0 ? -a->when.offset : a->when.offset;
	size_t dl = gmtime_r(&t, &tm) ? strftime(ci->date, sizeof(ci->date), "%Y-%m-%dT%H:%M:%S", &tm) : 0;
	snprintf(ci->date + dl, sizeof(ci->date) - dl, "%c%02u:%02u", a->when.sign == '-' ? '-' : '+',
		 (unsigned)(off / 60) % 100u, (unsigned)(off % 60));
	const char *summary = git_commit_summary(c);
	ci->subject = result_strdup(r, summary ? summary : "");
	git_commit_free(c);
	if (!ci->subject)
		return fg_error_oom(err, NULL);
	h->nodes[ni].info = r->ncommits++;
	*out = h->nodes[ni].info;
	return 0;
}

/* Candidate files for a class: every indexed file whose path ends with
 * `/<class>.<ext>` (or is it).  Kotlin's file facade `FooKt` lives in
 * `Foo.kt`. */
static size_t find_candidates(const fg_history *h, const char *cls, size_t *out, size_t max)
{
	size_t clen = strlen(cls);
	const char *simple = strrchr(cls, '/');
	simple = simple ? simple + 1 : cls;
	size_t found = 0;
	for (int pass = 0; pass < 2 && found == 0; pass++) {
		size_t slen = strlen(simple);
		size_t want_clen = clen;
		if (pass == 1) {
			if (slen <= 2 || strcmp(simple + slen - 2, "Kt"))
				break;
			slen -= 2;
			want_clen -= 2;
		}
		/* lower bound of the stem */
		size_t lo = 0, hi = h->nsrc;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (stem_cmp(h->src[mid].stem, h->src[mid].stem_len, simple, slen) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t i = lo; i < h->nsrc && !stem_cmp(h->src[i].stem, h->src[i].stem_len, simple, slen); i++) {
			const srcfile *s = &h->src[i];
			if (fg_native_lang_of_path(s->path))
				continue; /* native frames' files (history_native.c) */
			if (pass == 1 && s->ext_len != 2)
				continue; /* only .kt */
			size_t plen = strlen(s->path);
			size_t body = plen - s->ext_len - 1;
			if (body < want_clen || memcmp(s->path + body - want_clen, cls, want_clen))
				continue;
			if (body > want_clen && s->path[body - want_clen - 1] != '/')
				continue;
			if (found < max)
				out[found] = i;
			found++;
		}
	}
	return found;
}

static void qfiles_free(qfile *files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(files[i].comps);
		free(files[i].comp);
		free(files[i].window);
	}
	free(files);
}

/* A profile's frame whose class is named by Java's convention (its simple
 * name upper-case: `java/util/concurrent/locks/AbstractQueuedSynchronizer`)
 * is a Java frame even when no file of the tree holds its class (the JDK's,
 * a dependency's): it never names a native function (the JDK's
 * `AbstractQueuedSynchronizer.enqueue` once found Go's `enqueue` in a
 * vendored gRPC).  A lower-case one (`mymod/pkg.Func`) may be Go's; a name
 * typed by the user (`server.New`) is left to the definitions found. */
static bool java_by_convention(const fg_history *h, const char *cls)
{
	const char *simple = strrchr(cls, '/');
	simple = simple ? simple + 1 : cls;
	return !h->typed_names && *simple >= 'A' && *simple <= 'Z';
}

static int query(fg_history_result **out, fg_history *h, const char *const *frames, size_t count, bool methods,
		 fg_error *err)
{
	*out = NULL;
	fg_history_result *r = calloc(1, sizeof(*r));
	if (!r)
		return fg_error_oom(err, NULL);
	qfile *files = NULL;
	size_t nfiles = 0, capfiles = 0;
	size_t *entry_file = NULL; /* entry → file index or SIZE_MAX */
	size_t cap_entry_file = 0;
	int rc = 0;

	for (size_t i = 0; i < h->nnodes; i++) {
		h->nodes[i].flags &= ~(uint32_t)N_WALK_FLAGS;
		h->nodes[i].info = SIZE_MAX;
		h->nodes[i].nfiles = 0;
	}
	for (size_t i = 0; i < h->nsrc; i++)
		h->src[i].file_id = SIZE_MAX;
	h->filter_skipped = h->filter_maybe = 0;

	/* Frames no Java file answers for may name native functions: their
	 * definitions are searched in one pass (history_native.c). */
	fg_history_native *native = NULL;
	bool *javaless = calloc(count ? count : 1, sizeof(bool));
	if (!javaless)
		rc = fg_error_oom(err, NULL);
	for (size_t fr = 0; fr < count && rc == 0; fr++) {
		char cls[FG_JAVACLASS_MAX_FRAME];
		int jc = (h->typed_names ? fg_javaclass_from_name : fg_javaclass_from_frame)(cls, sizeof(cls),
											     frames[fr] ? frames[fr] : "", err);
		size_t one;
		rc = jc < 0 ? jc : 0;
		javaless[fr] = jc == 0 || (jc == 1 && !java_by_convention(h, cls) && find_candidates(h, cls, &one, 1) == 0);
	}
	if (rc == 0)
		rc = fg_history_native_resolve(&native, h, frames, javaless, count, err);
	free(javaless);

	/* Frames → classes → files, deduplicated. */
	for (size_t fr = 0; fr < count && rc == 0; fr++) {
		char cls[FG_JAVACLASS_MAX_FRAME];
		const char *frame = frames[fr] ? frames[fr] : "";
		int jc = (h->typed_names ? fg_javaclass_from_name : fg_javaclass_from_frame)(cls, sizeof(cls), frame, err);
		if (jc < 0) {
			rc = jc;
			break;
		}
		size_t cand[64];
		size_t ncand = jc == 1 ? find_candidates(h, cls, cand, 64) : 0;
		if (ncand > 64)
			ncand = 64; /* a class path held by more modules than that is not a hot file */
		const char *function = ncand ? NULL : fg_history_native_function(native, fr);
		if (function)
			ncand = fg_history_native_candidates(native, fr, cand, 64);
		if (jc == 1 && !ncand)
			function = NULL; /* a Java class without a file is said as the class */
		char *fcopy = result_strdup(r, frame);
		char *function_copy = function ? result_strdup(r, function) : NULL;
		if (function && !function_copy) {
			rc = fg_error_oom(err, NULL);
			break;
		}
		char *ccopy = jc == 1 ? result_strdup(r, cls) : NULL;
		if (!fcopy || (jc == 1 && !ccopy)) {
			rc = fg_error_oom(err, NULL);
			break;
		}
		size_t nent = ncand ? ncand : 1;
		if (fg_history_grow(&r->entries, &r->cap, r->count + nent, sizeof(fg_history_entry)) < 0 ||
		    fg_history_grow(&entry_file, &cap_entry_file, r->count + nent, sizeof(size_t)) < 0) {
			rc = fg_error_oom(err, NULL);
			break;
		}
		for (size_t k = 0; k < nent; k++) {
			fg_history_entry *e = &r->entries[r->count];
			memset(e, 0, sizeof(*e));
			e->frame = fcopy;
			e->class_path = function_copy ? NULL : ccopy; /* a Go `pkg/path.Func` is no class */
			e->function = function_copy;
			e->candidates = ncand;
			e->changed_in_window = -1;
			entry_file[r->count] = SIZE_MAX;
			if (ncand) {
				srcfile *s = &h->src[cand[k]];
				e->path = s->path;
				if (s->file_id == SIZE_MAX) {
					if (fg_history_grow(&files, &capfiles, nfiles + 1, sizeof(qfile)) < 0) {
						rc = fg_error_oom(err, NULL);
						break;
					}
					if (fg_history_qfile_set_path(&files[nfiles], h, s->path) < 0) {
						rc = fg_error_oom(err, NULL);
						break;
					}
					s->file_id = nfiles++;
				}
				entry_file[r->count] = s->file_id;
			}
			r->count++;
		}
	}

	fg_history_native_free(native);
	mwalk mw = { 0 };
	if (rc == 0 && methods)
		rc = fg_history_method_setup(h, r, files, nfiles, entry_file, &mw, err);
	/* The window first: the methods' walk needs to know which commits are
	 * in it. */
	if (rc == 0 && nfiles && h->has_good)
		rc = fg_history_window_walk(h, files, nfiles, &r->visited, err);
	if (rc == 0 && nfiles)
		rc = fg_history_chain_walk(h, files, nfiles, methods ? &mw : NULL, &r->visited, err);
	for (size_t t = 0; rc == 0 && t < mw.nt; t++) {
		size_t dummy;
		if (mw.t[t].last_found)
			rc = commit_info(&dummy, h, r, mw.t[t].last, err);
		if (rc == 0 && mw.t[t].has_meaningful)
			rc = commit_info(&dummy, h, r, mw.t[t].meaningful, err);
		for (size_t k = 0; rc == 0 && k < mw.t[t].nwindow; k++)
			rc = commit_info(&dummy, h, r, mw.t[t].window[k].node, err);
	}

	/* Assemble: the commit table first (it may move), then pointers. */
	size_t total_window = 0;
	for (size_t i = 0; i < nfiles && rc == 0; i++) {
		qfile *qf = &files[i];
		size_t dummy;
		if ((rc = commit_info(&dummy, h, r, qf->last, err)) < 0 ||
		    (rc = commit_info(&dummy, h, r, qf->meaningful, err)) < 0)
			break;
		wpos_cmp_ctx_sort(h, qf->window, qf->nwindow);
		for (size_t k = 0; k < qf->nwindow && rc == 0; k++)
			rc = commit_info(&dummy, h, r, qf->window[k], err);
		total_window += qf->nwindow;
	}
	if (rc == 0 && total_window) {
		r->window_ptrs = malloc(total_window * sizeof(*r->window_ptrs));
		if (!r->window_ptrs)
			rc = fg_error_oom(err, NULL);
	}
	/* Each file's window list, laid out once and shared by its entries. */
	size_t *win_start = NULL;
	if (rc == 0 && nfiles) {
		win_start = malloc(nfiles * sizeof(size_t));
		if (!win_start)
			rc = fg_error_oom(err, NULL);
	}
	if (rc == 0) {
		size_t at = 0;
		for (size_t i = 0; i < nfiles; i++) {
			win_start[i] = at;
			for (size_t k = 0; k < files[i].nwindow; k++)
				r->window_ptrs[at++] = &r->commits[h->nodes[files[i].window[k]].info];
		}
		for (size_t i = 0; i < r->count; i++) {
			fg_history_entry *e = &r->entries[i];
			size_t fi = entry_file[i];
			if (fi == SIZE_MAX)
				continue;
			qfile *qf = &files[fi];
			e->last = &r->commits[h->nodes[qf->last].info];
			e->last_meaningful = &r->commits[h->nodes[qf->meaningful].info];
			e->last_ignored = oidset_has(&h->ignored, &h->nodes[qf->last].id);
			e->last_shallow = qf->last_shallow;
			e->meaningful_shallow = qf->meaningful_shallow;
			if (h->has_good) {
				e->changed_in_window = qf->nwindow > 0;
				e->window = qf->nwindow ? r->window_ptrs + win_start[fi] : NULL;
				e->window_count = qf->nwindow;
			}
		}
	}
	if (rc == 0 && methods)
		rc = fg_history_method_assemble(h, r, &mw, err);
	r->filter_skipped = h->filter_skipped;
	r->filter_maybe = h->filter_maybe;
	fg_history_mwalk_free(&mw);
	free(win_start);
	free(entry_file);
	qfiles_free(files, nfiles);
	if (rc < 0) {
		fg_history_result_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

/* query(), and when it fails with a commit-graph in use, query() again
 * without it: the graph is an accelerator, the objects are the authority.
 * Whatever the graph said that stopped the walk (an entry refused by
 * fg_commitgraph_commit_at, a tree id that names no tree, a cycle the walk
 * bound caught, a chain that never ends) is then either gone, and the
 * answer is the objects', or said again by libgit2 about the objects. */
static int query_checked(fg_history_result **out, fg_history *h, const char *const *frames, size_t count,
			 bool methods, fg_error *err)
{
	int rc = query(out, h, frames, count, methods, err);
	if (rc == 0 || rc == FG_ENOMEM || !h->graph)
		return rc;
	char why[sizeof(err->message)];
	snprintf(why, sizeof(why), "%s", err ? err->message : "");
	fg_history_graph_drop(h);
	if ((rc = query(out, h, frames, count, methods, err)) == 0)
		rc = fg_history_warn(h, err, "the commit-graph disagrees with the objects (%s): not used; git "
				     "commit-graph write --reachable writes it again", why);
	return rc;
}

int fg_history_query(fg_history_result **out, fg_history *h, const char *const *frames, size_t count,
		     fg_error *err)
{
	return query_checked(out, h, frames, count, false, err);
}

int fg_history_query_methods(fg_history_result **out, fg_history *h, const char *const *frames, size_t count,
			     fg_error *err)
{
	return query_checked(out, h, frames, count, true, err);
}

void fg_history_result_free(fg_history_result *r)
{
	if (!r)
		return;
	free(r->methods);
	free(r->method_ranges);
	free(r->changes);
	for (size_t i = 0; i < r->nstrings; i++)
		free(r->strings[i]);
	free(r->strings);
	free(r->entries);
	free(r->commits);
	free(r->window_ptrs);
	free(r);
}

size_t fg_history_result_count(const fg_history_result *r) { return r->count; }
const fg_history_entry *fg_history_result_entry(const fg_history_result *r, size_t i)
{
	return i < r->count ? &r->entries[i] : NULL;
}
size_t fg_history_result_visited(const fg_history_result *r) { return r->visited; }
void fg_history_result_filters(size_t *skipped, size_t *maybe, const fg_history_result *r)
{
	*skipped = r->filter_skipped;
	*maybe = r->filter_maybe;
}

/* ---- paths changed in the window ------------------------------------------------ */

void fg_history_paths_free(char **paths, size_t n)
{
	for (size_t i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}

int fg_history_changed_paths(char ***out, size_t *n, fg_history *h, fg_error *err)
{
	*out = NULL;
	*n = 0;
	if (!h->has_good)
		return fg_error_set(err, FG_EUSAGE, NULL, "no window: give the good revision");
	git_commit *gc = NULL, *bc = NULL;
	git_tree *gt = NULL, *bt = NULL;
	git_diff *diff = NULL;
	char **paths = NULL;
	size_t count = 0;
	int rc = 0;
	if (git_commit_lookup(&gc, h->repo, fg_history_replaced(h, &h->good)) < 0 || git_commit_tree(&gt, gc) < 0 ||
	    git_commit_lookup(&bc, h->repo, fg_history_replaced(h, &h->bad)) < 0 || git_commit_tree(&bt, bc) < 0)
		rc = fg_history_git_fail(err, NULL, "cannot read the window's trees");
	else if (git_diff_tree_to_tree(&diff, h->repo, gt, bt, NULL) < 0)
		rc = fg_history_git_fail(err, NULL, "cannot diff the window's trees");
	size_t ndeltas = rc ? 0 : git_diff_num_deltas(diff);
	if (ndeltas && !(paths = calloc(ndeltas, sizeof(*paths))))
		rc = fg_error_oom(err, NULL);
	for (size_t i = 0; !rc && i < ndeltas; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const char *path = d->status == GIT_DELTA_DELETED ? d->old_file.path : d->new_file.path;
		if (!(paths[count] = strdup(path)))
			rc = fg_error_oom(err, NULL);
		else
			count++;
	}
	git_diff_free(diff);
	git_tree_free(gt);
	git_tree_free(bt);
	git_commit_free(gc);
	git_commit_free(bc);
	if (rc) {
		fg_history_paths_free(paths, count);
		return rc;
	}
	*out = paths;
	*n = count;
	return 0;
}
