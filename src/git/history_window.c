#include "git/history_internal.h"

/* ---- the window walk: git log good..bad -- PATH ----------------------------- */

#define LIMIT_SLOP 5

/* Marks a node and its known ancestors as ancestors of good. */
static int mark_uninteresting(fg_history *h, size_t start, size_t *interesting_queued, fg_error *err)
{
	size_t *stack = NULL, n = 0, cap = 0;
	int rc = 0;
	if (fg_history_grow(&stack, &cap, 1, sizeof(size_t)) < 0)
		return fg_error_oom(err, NULL);
	stack[n++] = start;
	while (n) {
		size_t i = stack[--n];
		node *nd = &h->nodes[i];
		if (nd->flags & N_UNINTERESTING)
			continue;
		nd->flags |= N_UNINTERESTING;
		if (nd->flags & N_Q_LIMIT)
			(*interesting_queued)--;
		/* Like git's mark_parents_uninteresting: go on through the
		 * commits whose parents the walk has read; the others get their
		 * parents marked when they are popped. */
		if (!(nd->flags & N_PARSED))
			continue;
		/* node_get may move the node array: index, never nd, below. */
		for (uint32_t p = 0; p < h->nodes[i].nparents; p++) {
			size_t pi;
			git_oid pid = h->nodes[i].parents[p];
			if ((rc = fg_history_node_get(&pi, h, &pid, err)) < 0)
				goto out;
			if (fg_history_grow(&stack, &cap, n + 1, sizeof(size_t)) < 0) {
				rc = fg_error_oom(err, NULL);
				goto out;
			}
			stack[n++] = pi;
		}
	}
out:
	free(stack);
	return rc;
}

/* The files' simplified walks: a file's bit on a commit says that the
 * file's walk reaches it (bits at the node's indeg offset, in words). */
typedef struct wbits {
	uint64_t *bits;
	size_t nbits, capbits, words;
	size_t *redo;            /* (node, file) pairs whose bit came after the node was popped */
	size_t nredo, capredo;
} wbits;

static bool has_bit(const fg_history *h, const wbits *w, size_t ni, size_t f)
{
	size_t at = h->nodes[ni].indeg;
	return at != SIZE_MAX && (w->bits[at + f / 64] & ((uint64_t)1 << (f % 64)));
}

/* Sets file f's bit on node ni.  A node already popped as interesting gets
 * the file's step now (queued in redo): with equal committer times (or
 * skew) a parent can leave the queue before its child hands it the file. */
static int set_bit(fg_history *h, wbits *w, size_t ni, size_t f, fg_error *err)
{
	if (has_bit(h, w, ni, f))
		return 0;
	if (h->nodes[ni].indeg == SIZE_MAX) {
		if (fg_history_grow(&w->bits, &w->capbits, w->nbits + w->words, sizeof(uint64_t)) < 0)
			return fg_error_oom(err, NULL);
		memset(w->bits + w->nbits, 0, w->words * sizeof(uint64_t));
		h->nodes[ni].indeg = w->nbits;
		w->nbits += w->words;
	}
	w->bits[h->nodes[ni].indeg + f / 64] |= (uint64_t)1 << (f % 64);
	if ((h->nodes[ni].flags & (N_POPPED | N_UNINTERESTING)) == N_POPPED) {
		if (fg_history_grow(&w->redo, &w->capredo, w->nredo + 2, sizeof(size_t)) < 0)
			return fg_error_oom(err, NULL);
		w->redo[w->nredo++] = ni;
		w->redo[w->nredo++] = f;
	}
	return 0;
}

/* One interesting commit of file f's walk, as git's try_to_simplify_commit
 * decides it: follow the first relevant TREESAME parent only (not shown);
 * else follow every parent, and the commit is shown when it differs from a
 * relevant parent (or, with no relevant parent, from an irrelevant one). */
static int file_step(fg_history *h, qfile *files, wbits *w, size_t ni, size_t f, size_t good_idx, fg_error *err)
{
	uint32_t np = h->nodes[ni].nparents;
	git_oid tree = h->nodes[ni].tree;
	bool shown = false;
	size_t follow = SIZE_MAX;
	int rc = 0;
	if (np == 0) {
		/* A root (or shallow boundary) is shown when it has the path. */
		if ((rc = fg_history_present_at(&shown, h, &tree, &files[f], err)) < 0)
			return rc;
	} else {
		unsigned relevant_parents = 0;
		bool relevant_change = false, irrelevant_change = false;
		for (uint32_t p = 0; p < np; p++) {
			size_t pi = fg_history_map_find(h, &h->nodes[ni].parents[p]);
			bool relevant = !(h->nodes[pi].flags & N_UNINTERESTING) || pi == good_idx;
			relevant_parents += relevant;
			bool same;
			if ((rc = fg_history_parent_same(&same, h, ni, p, pi, &files[f], err)) < 0)
				return rc;
			if (same && relevant) {
				follow = pi;
				break;
			}
			if (!same && relevant)
				relevant_change = true;
			else if (!same)
				irrelevant_change = true;
		}
		shown = follow == SIZE_MAX && (relevant_parents ? relevant_change : irrelevant_change);
		for (uint32_t p = 0; p < np && rc == 0; p++) {
			size_t pi = fg_history_map_find(h, &h->nodes[ni].parents[p]);
			if (follow == SIZE_MAX || pi == follow)
				rc = set_bit(h, w, pi, f, err);
		}
	}
	if (rc == 0 && shown) {
		qfile *qf = &files[f];
		if (fg_history_grow(&qf->window, &qf->capwindow, qf->nwindow + 1, sizeof(size_t)) < 0)
			rc = fg_error_oom(err, NULL);
		else
			qf->window[qf->nwindow++] = ni;
	}
	return rc;
}

/* The window walk, git log good..bad -- PATH for every file at once.  Like
 * git's limit_list: pop commits newest first from both ends, propagate
 * "ancestor of good" (uninteresting) down, and stop when only ancestors of
 * good older than every commit taken are left, plus a little slop for clock
 * skew.  Each interesting commit is simplified per file when it is popped,
 * as git's try_to_simplify_commit does: follow the first relevant TREESAME
 * parent only (not shown); else follow every parent, and the commit is shown
 * when it differs from a relevant parent (or, with no relevant parent, from
 * an irrelevant one).  A parent is relevant unless it is already known to be
 * an ancestor of good — good itself (the bottom) stays relevant.  "Already
 * known" is what git knows at that moment too, so the answers match git's
 * even where its walk has not yet found out that a merge's parent is an
 * ancestor of good.  A file's bit on a commit says that the file's
 * simplified walk reaches it. */
int fg_history_window_walk(fg_history *h, qfile *files, size_t nfiles, size_t *visited, fg_error *err)
{
	heap q = { 0 };
	size_t interesting_queued = 0;
	size_t bad_idx, good_idx;
	wbits w = { .words = (nfiles + 63) / 64 };
	size_t popped = 0;
	int rc;
	if ((rc = fg_history_node_get(&bad_idx, h, &h->bad, err)) < 0 ||
	    (rc = fg_history_node_get(&good_idx, h, &h->good, err)) < 0)
		return rc;
	for (size_t i = 0; i < h->nnodes; i++)
		h->nodes[i].indeg = SIZE_MAX; /* offset of the node's bits, none yet */
	for (size_t f = 0; f < nfiles && rc == 0; f++)
		rc = set_bit(h, &w, bad_idx, f, err);
	if (rc < 0) {
		free(w.bits);
		return rc;
	}

	/* As git sets up a negative revision: good is read, and its parents
	 * are known to be uninteresting from the start. */
	h->nodes[bad_idx].flags |= N_PARSED;
	rc = mark_uninteresting(h, good_idx, &interesting_queued, err);
	h->nodes[good_idx].flags |= N_SEEN | N_Q_LIMIT | N_PARSED;
	for (uint32_t p = 0; rc == 0 && p < h->nodes[good_idx].nparents; p++) {
		size_t pi;
		git_oid pid = h->nodes[good_idx].parents[p];
		if ((rc = fg_history_node_get(&pi, h, &pid, err)) == 0)
			rc = mark_uninteresting(h, pi, &interesting_queued, err);
	}
	if (rc < 0 || fg_history_heap_push(&q, h, good_idx) < 0) {
		free(w.bits);
		return rc < 0 ? rc : fg_error_oom(err, NULL);
	}
	if (!(h->nodes[bad_idx].flags & N_SEEN)) {
		h->nodes[bad_idx].flags |= N_SEEN | N_Q_LIMIT;
		interesting_queued++;
		if (fg_history_heap_push(&q, h, bad_idx) < 0) {
			free(q.v);
			free(w.bits);
			return fg_error_oom(err, NULL);
		}
	}
	int slop = LIMIT_SLOP;
	int64_t oldest_interesting = INT64_MAX;
	while (q.n && rc == 0) {
		size_t ni = fg_history_heap_pop(&q, h);
		fg_history_tick(h, visited, "window walk");
		h->nodes[ni].flags &= ~N_Q_LIMIT;
		h->nodes[ni].flags |= N_POPPED;
		bool unint = (h->nodes[ni].flags & N_UNINTERESTING) != 0;
		uint32_t np = h->nodes[ni].nparents;
		for (uint32_t p = 0; p < np && rc == 0; p++) {
			size_t pi;
			git_oid pid = h->nodes[ni].parents[p];
			if ((rc = fg_history_node_get(&pi, h, &pid, err)) < 0)
				break;
			/* git's process_parents for an uninteresting commit: the
			 * parent is marked and read, and its own parents are
			 * marked right away. */
			if (unint)
				rc = mark_uninteresting(h, pi, &interesting_queued, err);
			h->nodes[pi].flags |= N_PARSED;
			for (uint32_t gp = 0; unint && rc == 0 && gp < h->nodes[pi].nparents; gp++) {
				size_t gi;
				git_oid gid = h->nodes[pi].parents[gp];
				if ((rc = fg_history_node_get(&gi, h, &gid, err)) == 0)
					rc = mark_uninteresting(h, gi, &interesting_queued, err);
			}
			if (rc == 0 && !(h->nodes[pi].flags & N_SEEN)) {
				h->nodes[pi].flags |= N_SEEN | N_Q_LIMIT;
				if (!(h->nodes[pi].flags & N_UNINTERESTING))
					interesting_queued++;
				if (fg_history_heap_push(&q, h, pi) < 0)
					rc = fg_error_oom(err, NULL);
			}
		}
		if (rc < 0)
			break;
		if (unint) {
			if (!q.n)
				break;
			if (interesting_queued || h->nodes[q.v[0]].time >= oldest_interesting)
				slop = LIMIT_SLOP;
			else if (--slop == 0)
				break;
			continue;
		}
		interesting_queued--;
		oldest_interesting = h->nodes[ni].time;
		h->nodes[ni].wpos = popped++;
		if (h->nodes[ni].indeg == SIZE_MAX)
			continue; /* no file's simplified walk reaches it */
		for (size_t f = 0; f < nfiles && rc == 0; f++)
			if (has_bit(h, &w, ni, f))
				rc = file_step(h, files, &w, ni, f, good_idx, err);
		while (rc == 0 && w.nredo) {
			w.nredo -= 2;
			rc = file_step(h, files, &w, w.redo[w.nredo], w.redo[w.nredo + 1], good_idx, err);
		}
	}
	free(q.v);
	free(w.bits);
	free(w.redo);
	if (rc < 0)
		return rc;
	/* A commit taken as interesting may have turned out to be an ancestor
	 * of good later (clock skew): git does not show it either. */
	for (size_t f = 0; f < nfiles; f++) {
		size_t m = 0;
		for (size_t k = 0; k < files[f].nwindow; k++)
			if (!(h->nodes[files[f].window[k]].flags & N_UNINTERESTING))
				files[f].window[m++] = files[f].window[k];
		files[f].nwindow = m;
	}
	return 0;
}
