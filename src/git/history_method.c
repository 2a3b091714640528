#include "git/history_internal.h"

#include <stdio.h>

#include "git/javaclass.h"
#include "git/native.h"

/* ---- method histories: git log -L :METHOD:PATH, inside the chain walk ------------- */

void fg_history_mwalk_free(mwalk *mw)
{
	for (size_t i = 0; i < mw->nt; i++) {
		fg_line_set_free(&mw->t[i].start);
		free(mw->t[i].window);
	}
	free(mw->t);
	for (size_t i = 0; i < mw->ns; i++)
		fg_line_set_free(&mw->s[i].lines);
	free(mw->s);
	for (size_t i = 0; i < mw->nrenamed; i++) {
		free(mw->renamed[i].comps);
		free(mw->renamed[i].comp);
		free(mw->renamed_paths[i]);
	}
	free(mw->renamed);
	free(mw->renamed_paths);
	for (size_t i = 0; i < HUNK_CACHE; i++)
		free(mw->cache[i].hunks);
}

static const qfile *mpath(const qfile *files, size_t nfiles, const mwalk *mw, size_t path)
{
	return path < nfiles ? &files[path] : &mw->renamed[path - nfiles];
}

static bool in_window(const fg_history *h, size_t ni)
{
	return h->has_good && (h->nodes[ni].flags & N_POPPED) && !(h->nodes[ni].flags & N_UNINTERESTING);
}

typedef struct hunk_acc {
	fg_line_hunk *h;
	size_t n, cap;
	bool oom;
} hunk_acc;

static int hunk_cb(const git_diff_delta *delta, const git_diff_hunk *hunk, void *payload)
{
	(void)delta;
	hunk_acc *a = payload;
	if (fg_history_grow(&a->h, &a->cap, a->n + 1, sizeof(*a->h)) < 0) {
		a->oom = true;
		return -1;
	}
	/* libgit2 gives 1-based starts; an empty side names the line before. */
	uint32_t ps = (uint32_t)(hunk->old_lines ? hunk->old_start - 1 : hunk->old_start);
	uint32_t ts = (uint32_t)(hunk->new_lines ? hunk->new_start - 1 : hunk->new_start);
	a->h[a->n++] = (fg_line_hunk){ ps, ps + (uint32_t)hunk->old_lines, ts, ts + (uint32_t)hunk->new_lines };
	return 0;
}

/* The hunks of the diff old → new without context, as git log -L computes
 * them (xdiff's Myers, no heuristics, binary files diffed as text); old NULL
 * for a file that is added.  Cached: the frames of one file share them.
 * Returns 1 when a blob is not in the repository (a partial clone). */
static int blob_hunks(const fg_line_hunk **out, size_t *n, fg_history *h, mwalk *mw, const git_oid *old_id,
		      const git_oid *new_id, fg_error *err)
{
	for (size_t i = 0; i < HUNK_CACHE; i++) {
		hunk_cache_slot *c = &mw->cache[i];
		if (c->used && c->has_old == (old_id != NULL) && git_oid_equal(&c->new_id, new_id) &&
		    (!old_id || git_oid_equal(&c->old_id, old_id))) {
			*out = c->hunks;
			*n = c->n;
			return 0;
		}
	}
	git_blob *a = NULL, *b = NULL;
	if ((old_id && git_blob_lookup(&a, h->blob_repo, old_id) < 0) || git_blob_lookup(&b, h->blob_repo, new_id) < 0) {
		git_blob_free(a);
		/* A blobless partial clone: the method's history cannot be
		 * told, the rest of the answer still can. */
		const git_error *ge = git_error_last();
		if (ge && ge->klass == GIT_ERROR_ODB)
			return 1;
		return fg_history_git_fail(err, NULL, "cannot read a blob of the method's file");
	}
	git_diff_options o;
	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	o.context_lines = 0;
	o.interhunk_lines = 0;
	o.flags = GIT_DIFF_FORCE_TEXT;
	hunk_acc acc = { 0 };
	int grc = git_diff_blobs(a, NULL, b, NULL, &o, NULL, NULL, hunk_cb, NULL, &acc);
	git_blob_free(a);
	git_blob_free(b);
	mw->diffs++;
	if (acc.oom) {
		free(acc.h);
		return fg_error_oom(err, NULL);
	}
	if (grc < 0) {
		free(acc.h);
		return fg_history_git_fail(err, NULL, "cannot diff the method's file");
	}
	hunk_cache_slot *c = &mw->cache[mw->cache_next];
	mw->cache_next = (mw->cache_next + 1) % HUNK_CACHE;
	free(c->hunks);
	c->used = true;
	c->has_old = old_id != NULL;
	if (old_id)
		c->old_id = *old_id;
	c->new_id = *new_id;
	c->hunks = acc.h;
	c->n = acc.n;
	*out = c->hunks;
	*n = c->n;
	return 0;
}

/* The path the file had in the parent when the commit added it under its
 * path (history_rename.c), as an index into the files and mw's renamed
 * paths, SIZE_MAX when none; 1 returned when a blob it needs is missing. */
static int rename_source(size_t *path, git_oid *blob, fg_history *h, mwalk *mw, size_t nfiles,
			 const git_oid *ptree_id, const git_oid *tree_id, const char *newpath, fg_error *err)
{
	*path = SIZE_MAX;
	char *old;
	int rc = fg_history_find_rename(&old, blob, h, ptree_id, tree_id, newpath, err);
	if (rc != 0 || !old)
		return rc;
	for (size_t k = 0; k < mw->nrenamed; k++)
		if (!strcmp(mw->renamed_paths[k], old)) {
			free(old);
			*path = nfiles + k;
			return 0;
		}
	if (fg_history_grow(&mw->renamed, &mw->caprenamed, mw->nrenamed + 1, sizeof(qfile)) < 0 ||
	    fg_history_grow(&mw->renamed_paths, &mw->caprenamed_paths, mw->nrenamed + 1, sizeof(char *)) < 0 ||
	    fg_history_qfile_set_path(&mw->renamed[mw->nrenamed], h, old) < 0) {
		free(old);
		return fg_error_oom(err, NULL);
	}
	mw->renamed_paths[mw->nrenamed] = old;
	*path = nfiles + mw->nrenamed++;
	return 0;
}

/* A method's lines arrive at a commit: joined with the lines already
 * waiting there for the same method and path (git's union of ranges). */
int fg_history_method_arrive(fg_history *h, heap *q, mwalk *mw, size_t nfiles, size_t track, size_t path,
			 fg_line_set *lines, size_t ni, fg_error *err)
{
	node *n = &h->nodes[ni];
	for (size_t k = 0; k < n->nfiles; k++) {
		size_t id = n->files[k];
		if (id < nfiles || mw->s[id - nfiles].track != track || mw->s[id - nfiles].path != path)
			continue;
		int rc = fg_line_set_union(&mw->s[id - nfiles].lines, lines);
		fg_line_set_free(lines);
		return rc < 0 ? fg_error_oom(err, NULL) : 0;
	}
	if (fg_history_grow(&mw->s, &mw->caps, mw->ns + 1, sizeof(mstate)) < 0) {
		fg_line_set_free(lines);
		return fg_error_oom(err, NULL);
	}
	mw->s[mw->ns] = (mstate){ .track = track, .path = path, .lines = *lines };
	memset(lines, 0, sizeof(*lines));
	if (in_window(h, ni))
		mw->t[track].live++;
	return fg_history_chain_move(h, q, nfiles + mw->ns++, ni, err);
}

typedef struct mcand {
	size_t node, path;
	fg_line_set lines;
	fg_line_effect effect;
} mcand;

/* One commit of a method's walk, git's process_ranges_ordinary_commit and
 * process_ranges_merge_commit: the lines carried to each parent; shown when
 * every parent's diff touches them. */
int fg_history_method_step(fg_history *h, heap *q, qfile *files, size_t nfiles, mwalk *mw, size_t si, size_t ni,
		       size_t *unresolved, fg_error *err)
{
	mstate st = mw->s[si];
	memset(&mw->s[si].lines, 0, sizeof(st.lines));
	mtrack *t = &mw->t[st.track];
	int rc = 0;
	if (in_window(h, ni))
		t->live--;
	uint32_t np = h->nodes[ni].nparents;
	mcand *c = NULL;
	git_oid tree = h->nodes[ni].tree, blob;
	bool found = false;
	if (t->done || !st.lines.n)
		goto out;
	if (np == 1) {
		/* Most commits do not touch the file: the lines move to the
		 * parent as they are, with no diff and no copy. */
		size_t pi;
		bool same;
		git_oid pid = h->nodes[ni].parents[0];
		if ((rc = fg_history_node_get(&pi, h, &pid, err)) < 0)
			goto out;
		if ((rc = fg_history_parent_same(&same, h, ni, 0, pi, mpath(files, nfiles, mw, st.path), err)) < 0)
			goto out;
		if (same) {
			rc = fg_history_method_arrive(h, q, mw, nfiles, st.track, st.path, &st.lines, pi, err);
			t = &mw->t[st.track];
			goto out;
		}
	}
	c = calloc(np ? np : 1, sizeof(*c));
	if (!c) {
		rc = fg_error_oom(err, NULL);
		goto out;
	}
	size_t follow = SIZE_MAX;
	/* The file's blob here is read when a parent's version differs: a
	 * merge whose first parent the changed-path filter settles needs none. */
	bool have_blob = false;
	for (uint32_t p = 0; p < (np ? np : 1) && rc == 0; p++) {
		c[p].path = st.path;
		const fg_line_hunk *hunks;
		size_t nh;
		bool same = false;
		git_oid ptree;
		if (np) {
			git_oid pid = h->nodes[ni].parents[p];
			if ((rc = fg_history_node_get(&c[p].node, h, &pid, err)) < 0 ||
			    (rc = fg_history_parent_same(&same, h, ni, p, c[p].node, mpath(files, nfiles, mw, st.path), err)) < 0)
				break;
			ptree = h->nodes[c[p].node].tree;
		}
		if (same) {
			if (fg_line_set_copy(&c[p].lines, &st.lines) < 0)
				rc = fg_error_oom(err, NULL);
		} else {
			if (!have_blob) {
				if ((rc = fg_history_blob_at(&blob, &found, h, &tree, mpath(files, nfiles, mw, st.path), err)) < 0 ||
				    !found)
					break;
				have_blob = true;
			}
			if (np == 0) {
				/* A root (or a shallow boundary): every line is added. */
				if ((rc = blob_hunks(&hunks, &nh, h, mw, NULL, &blob, err)) == 0 &&
				    fg_line_set_map(&c[p].lines, &c[p].effect, &st.lines, hunks, nh) < 0)
					rc = fg_error_oom(err, NULL);
				break;
			}
			git_oid pblob;
			bool pfound;
			if ((rc = fg_history_blob_at(&pblob, &pfound, h, &ptree, mpath(files, nfiles, mw, st.path), err)) < 0)
				break;
			if (!pfound) {
				size_t old;
				if ((rc = rename_source(&old, &pblob, h, mw, nfiles, &ptree, &tree,
							mpath(files, nfiles, mw, st.path)->path, err)) != 0)
					break;
				t = &mw->t[st.track];
				if (old != SIZE_MAX) {
					c[p].path = old;
					pfound = true;
				}
			}
			if ((rc = blob_hunks(&hunks, &nh, h, mw, pfound ? &pblob : NULL, &blob, err)) != 0)
				break;
			if (fg_line_set_map(&c[p].lines, &c[p].effect, &st.lines, hunks, nh) < 0)
				rc = fg_error_oom(err, NULL);
		}
		if (rc == 0 && !c[p].effect.touched) {
			follow = p; /* this parent takes all the lines: the commit is not shown */
			break;
		}
	}
	if (rc == 0 && !found && !have_blob && follow == SIZE_MAX)
		goto out; /* the file is not here: nothing to carry */
	if (rc == 1) {
		t->missing = true;
		rc = 0;
		if (!t->done) {
			t->done = true;
			(*unresolved)--;
		}
		goto out;
	}
	if (rc < 0)
		goto out;
	if (follow == SIZE_MAX) {
		bool boundary = (h->nodes[ni].flags & N_SHALLOW) != 0;
		if (!t->last_found) {
			t->last_found = true;
			t->last = ni;
			t->last_effect = c[0].effect;
			t->last_shallow = boundary;
		}
		if (!t->meaningful_found) {
			t->meaningful_found = !oidset_has(&h->ignored, &h->nodes[ni].id);
			t->has_meaningful = true;
			t->meaningful = ni;
			t->meaningful_effect = c[0].effect;
			t->meaningful_shallow = boundary;
		}
		if (in_window(h, ni)) {
			if (fg_history_grow(&t->window, &t->capwindow, t->nwindow + 1, sizeof(mchange)) < 0) {
				rc = fg_error_oom(err, NULL);
				goto out;
			}
			t->window[t->nwindow++] = (mchange){ ni, c[0].effect };
		}
	}
	for (uint32_t p = 0; p < np && rc == 0; p++) {
		if (follow != SIZE_MAX && p != follow)
			continue;
		if (c[p].lines.n)
			rc = fg_history_method_arrive(h, q, mw, nfiles, st.track, c[p].path, &c[p].lines, c[p].node, err);
		t = &mw->t[st.track];
	}
out:
	for (uint32_t p = 0; c && p < (np ? np : 1); p++)
		fg_line_set_free(&c[p].lines);
	free(c);
	fg_line_set_free(&st.lines);
	t = &mw->t[st.track];
	if (rc == 0 && !t->done && t->meaningful_found && t->live == 0) {
		t->done = true;
		(*unresolved)--;
	}
	return rc;
}

/* The frame whose method an entry's file is searched for.  A name people
 * typed (`Class.method`, `pkg.Class`) is written as a frame of the class
 * it resolved to: its slashed class (under a stand-in package when it has
 * none: the file is found already) and what follows the class's simple
 * name in the typed name (`.method`, `$Inner.method`, nothing). */
static const char *typed_frame(char *buf, size_t size, const fg_history *h, const fg_history_entry *e)
{
	const char *cp = e->class_path;
	if (!h->typed_names || !cp)
		return e->frame;
	const char *simple = strrchr(cp, '/');
	simple = simple ? simple + 1 : cp;
	size_t slen = strlen(simple);
	const char *tail = NULL;
	for (const char *at = strstr(e->frame, simple); at; at = strstr(at + 1, simple)) {
		char before = at == e->frame ? '.' : at[-1], after = at[slen];
		if ((before == '.' || before == '/') && (!after || after == '.' || after == '$' || after == '('))
			tail = at + slen;
	}
	if (!tail || snprintf(buf, size, "%s%s%s", strchr(cp, '/') ? "" : "t/", cp, tail) >= (int)size)
		return e->frame;
	return buf;
}

/* The methods of the entries: each file read at bad and scanned once, each
 * frame's declarations found, and a tracker for every method found. */
int fg_history_method_setup(fg_history *h, fg_history_result *r, qfile *files, size_t nfiles, const size_t *entry_file,
			mwalk *mw, fg_error *err)
{
	int rc = 0;
	fg_method_scan **scans = calloc(nfiles ? nfiles : 1, sizeof(*scans));
	bool *unreadable = calloc(nfiles ? nfiles : 1, sizeof(*unreadable));
	r->methods = calloc(r->count ? r->count : 1, sizeof(*r->methods));
	r->method_ranges = calloc((r->count ? r->count : 1) * FG_METHOD_MAX_RANGES, sizeof(*r->method_ranges));
	mw->t = calloc(r->count ? r->count : 1, sizeof(*mw->t));
	if (!scans || !unreadable || !r->methods || !r->method_ranges || !mw->t) {
		rc = fg_error_oom(err, NULL);
		goto out;
	}
	size_t bad_idx;
	if ((rc = fg_history_node_get(&bad_idx, h, &h->bad, err)) < 0)
		goto out;
	for (size_t i = 0; i < r->count && rc == 0; i++) {
		size_t fi = entry_file[i];
		fg_history_method *m = &r->methods[i];
		m->changed_in_window = -1;
		m->ranges = &r->method_ranges[i * FG_METHOD_MAX_RANGES];
		if (fi == SIZE_MAX)
			continue;
		r->entries[i].method = m;
		bool native = fg_native_lang_of_path(files[fi].path) != FG_NATIVE_NONE;
		if (!scans[fi] && !unreadable[fi] && !native) {
			git_oid tree = h->nodes[bad_idx].tree, id;
			bool found;
			git_blob *blob = NULL;
			fg_method_lang lang = FG_METHOD_JAVA;
			fg_method_lang_of_path(&lang, files[fi].path);
			if ((rc = fg_history_blob_at(&id, &found, h, &tree, &files[fi], err)) < 0)
				break;
			if (!found || git_blob_lookup(&blob, h->repo, &id) < 0) {
				unreadable[fi] = true; /* a blobless clone without this blob */
				if ((rc = fg_history_warn_missing(h, files[fi].path, err)) < 0)
					break;
			} else {
				rc = fg_method_scan_new(&scans[fi], git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob),
							lang, err);
				git_blob_free(blob);
				if (rc < 0)
					break;
			}
		}
		if (unreadable[fi]) {
			m->status = FG_METHOD_UNRESOLVED;
			m->reason = "the file's content is not in this clone (a partial clone: the warning says how to "
				    "fetch it)";
			continue;
		}
		fg_javaclass_parts parts;
		char typed[2 * FG_JAVACLASS_MAX_FRAME + 3];
		fg_method_match match;
		if (native) {
			git_oid tree = h->nodes[bad_idx].tree;
			if ((rc = fg_history_native_match(&match, h, &tree, &files[fi], r->entries[i].frame, err)) < 0)
				break;
		} else if (fg_javaclass_parse(&parts, typed_frame(typed, sizeof(typed), h, &r->entries[i]), err) != 1) {
			m->status = FG_METHOD_NOT_FOUND;
			m->reason = "not a Java frame";
			continue;
		} else {
			fg_method_find(&match, scans[fi], &parts);
		}
		m->status = match.status;
		m->reason = match.reason;
		m->generated = scans[fi] && fg_method_scan_generated(scans[fi]);
		m->nranges = match.count;
		m->overloads = match.overloads;
		memcpy((fg_method_range *)m->ranges, match.ranges, match.count * sizeof(match.ranges[0]));
		if (match.status != FG_METHOD_FOUND)
			continue;
		if (h->has_good)
			m->changed_in_window = 0;
		mtrack *t = &mw->t[mw->nt++];
		t->entry = i;
		t->file = fi;
		for (size_t k = 0; k < match.count && rc == 0; k++)
			if (fg_line_set_add(&t->start, match.ranges[k].first - 1, match.ranges[k].last) < 0)
				rc = fg_error_oom(err, NULL);
	}
out:
	for (size_t i = 0; scans && i < nfiles; i++)
		fg_method_scan_free(scans[i]);
	free(scans);
	free(unreadable);
	return rc;
}

/* The methods' commits, after commit_info has them all: last, and the
 * window newest first in the window walk's order. */
int fg_history_method_assemble(fg_history *h, fg_history_result *r, mwalk *mw, fg_error *err)
{
	size_t total = 0;
	for (size_t t = 0; t < mw->nt; t++)
		total += 2 + mw->t[t].nwindow;
	if (total && !(r->changes = calloc(total, sizeof(*r->changes))))
		return fg_error_oom(err, NULL);
	size_t at = 0;
	for (size_t t = 0; t < mw->nt; t++) {
		mtrack *tr = &mw->t[t];
		fg_history_method *m = &r->methods[tr->entry];
		if (tr->missing) {
			int rc = fg_history_warn_missing(h, r->entries[tr->entry].path, err);
			if (rc < 0)
				return rc;
			m->status = FG_METHOD_UNRESOLVED;
			m->reason = "a version of the file the history needs is not in this clone (a partial clone: the "
				    "warning says how to fetch it)";
			m->changed_in_window = -1;
			continue;
		}
		if (tr->last_found) {
			fg_history_method_change *c = &r->changes[at++];
			c->commit = &r->commits[h->nodes[tr->last].info];
			c->added = tr->last_effect.added;
			c->removed = tr->last_effect.removed;
			m->last = m->last_meaningful = c;
			m->last_shallow = m->meaningful_shallow = tr->last_shallow;
			m->last_ignored = oidset_has(&h->ignored, &h->nodes[tr->last].id);
			if (tr->meaningful != tr->last) {
				c = &r->changes[at++];
				c->commit = &r->commits[h->nodes[tr->meaningful].info];
				c->added = tr->meaningful_effect.added;
				c->removed = tr->meaningful_effect.removed;
				m->last_meaningful = c;
				m->meaningful_shallow = tr->meaningful_shallow;
			}
		}
		/* Newest first: the window walk's pop order (insertion sort: windows are short). */
		for (size_t i = 1; i < tr->nwindow; i++) {
			mchange x = tr->window[i];
			size_t j = i;
			while (j > 0 && h->nodes[tr->window[j - 1].node].wpos > h->nodes[x.node].wpos) {
				tr->window[j] = tr->window[j - 1];
				j--;
			}
			tr->window[j] = x;
		}
		m->window = tr->nwindow ? &r->changes[at] : NULL;
		m->window_count = tr->nwindow;
		for (size_t k = 0; k < tr->nwindow; k++) {
			fg_history_method_change *c = &r->changes[at++];
			c->commit = &r->commits[h->nodes[tr->window[k].node].info];
			c->added = tr->window[k].effect.added;
			c->removed = tr->window[k].effect.removed;
		}
		if (h->has_good)
			m->changed_in_window = tr->nwindow > 0;
	}
	return 0;
}
