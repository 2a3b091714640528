#include "git/history_internal.h"

/* ---- the chain walk: last and last meaningful commit ------------------------ */

int fg_history_chain_move(fg_history *h, heap *q, size_t fi, size_t to, fg_error *err)
{
	node *n = &h->nodes[to];
	if (fg_history_grow(&n->files, &n->capfiles, n->nfiles + 1, sizeof(size_t)) < 0)
		return fg_error_oom(err, NULL);
	n->files[n->nfiles++] = fi;
	if (!(n->flags & N_Q_CHAIN)) {
		n->flags |= N_Q_CHAIN;
		if (fg_history_heap_push(q, h, to) < 0)
			return fg_error_oom(err, NULL);
	}
	return 0;
}

/* The chain walk's bound, whatever the repository's files say.  In a
 * history without cycles a file's chain, and a method's lines under one
 * path, visit each commit once (again only when clock skew brings lines to
 * a commit already popped): the pops stay below the commits read times the
 * files and paths followed.  A cycle (a commit-graph or a damaged object
 * naming a descendant as a parent; the graph's own entries are checked by
 * fg_commitgraph_commit_at) would pop the same commits forever and grow the
 * method states with each pop: at four times that bound the walk stops
 * with an error, and the query is answered again without the commit-graph
 * (history.c). */
static int walk_bound(const fg_history *h, size_t pops, size_t nfiles, const mwalk *mw, fg_error *err)
{
	size_t units = nfiles + (mw ? mw->nt * (1 + mw->nrenamed) : 0);
	if (pops / 4 <= units * (h->nnodes + 1))
		return 0;
	return fg_error_set(err, FG_EGIT, h->bad_hex,
			    "the history walk went round a cycle (%zu visits of %zu commits): a commit or the "
			    "commit-graph names a descendant as its parent (git fsck tells which)",
			    pops, h->nnodes);
}

/* git log -1 -- PATH at bad, for every file at once.  Under git's default
 * simplification a TREESAME commit keeps exactly one parent (its only one,
 * or at a merge the first parent the path is TREESAME to), so until the
 * first commit that is shown each file follows a single chain; files whose
 * chains share commits are handled together, commits popped newest first
 * like git's queue, and the walk stops when every file is resolved. */
int fg_history_chain_walk(fg_history *h, qfile *files, size_t nfiles, mwalk *mw, size_t *visited, fg_error *err)
{
	heap q = { 0 };
	int rc = 0;
	size_t unresolved = nfiles; /* files, then methods too */
	size_t files_unresolved = nfiles;
	size_t bad_idx;
	if ((rc = fg_history_node_get(&bad_idx, h, &h->bad, err)) < 0)
		return rc;
	for (size_t i = 0; i < nfiles; i++)
		if ((rc = fg_history_chain_move(h, &q, i, bad_idx, err)) < 0)
			goto out;
	/* Methods ride the same walk: their lines wait at commits like the
	 * files do, and a method is resolved once its last change is found and
	 * no lines of it wait in the window. */
	for (size_t t = 0; mw && t < mw->nt; t++) {
		fg_line_set lines = { 0 };
		if (fg_line_set_copy(&lines, &mw->t[t].start) < 0) {
			rc = fg_error_oom(err, NULL);
			goto out;
		}
		unresolved++;
		if ((rc = fg_history_method_arrive(h, &q, mw, nfiles, t, mw->t[t].file, &lines, bad_idx, err)) < 0)
			goto out;
	}

	size_t *pending = NULL, npending = 0, cappending = 0, pops = 0;
	while (unresolved && q.n) {
		if ((rc = walk_bound(h, ++pops, nfiles, mw, err)) < 0)
			break;
		size_t ni = fg_history_heap_pop(&q, h);
		fg_history_tick(h, visited, "history walk");
		node *n = &h->nodes[ni];
		n->flags &= ~N_Q_CHAIN;
		/* Take the waiting files: moves below may append to this node
		 * again only through another visit. */
		if (fg_history_grow(&pending, &cappending, n->nfiles, sizeof(size_t)) < 0) {
			rc = fg_error_oom(err, NULL);
			break;
		}
		npending = n->nfiles;
		if (npending)
			memcpy(pending, n->files, npending * sizeof(size_t));
		n->nfiles = 0;

		for (size_t k = 0; k < npending && rc == 0; k++) {
			if (pending[k] >= nfiles) {
				rc = fg_history_method_step(h, &q, files, nfiles, mw, pending[k] - nfiles, ni, &unresolved, err);
				continue;
			}
			qfile *f = &files[pending[k]];
			uint32_t np = h->nodes[ni].nparents;
			size_t next = SIZE_MAX;
			for (uint32_t pi = 0; pi < np; pi++) {
				size_t pidx;
				git_oid pid = h->nodes[ni].parents[pi];
				bool same;
				if ((rc = fg_history_node_get(&pidx, h, &pid, err)) < 0)
					break;
				if ((rc = fg_history_parent_same(&same, h, ni, pi, pidx, f, err)) < 0)
					break;
				if (same) {
					next = pidx;
					break;
				}
			}
			if (rc < 0)
				break;
			if (next != SIZE_MAX) {
				rc = fg_history_chain_move(h, &q, pending[k], next, err);
				continue;
			}
			/* Shown: the path differs from every parent (or this is a
			 * root that holds it; the chain only visits commits that
			 * hold the file). */
			bool boundary = (h->nodes[ni].flags & N_SHALLOW) != 0;
			if (f->phase == 0) {
				f->last = ni;
				f->last_shallow = boundary;
				f->phase = 1;
			}
			/* An ignored bulk commit hands over to its first parent, as
			 * git blame passes lines through ignored commits, when the
			 * file is there; otherwise (not ignored, a root, or the file
			 * starts here) this is its meaningful change. */
			bool hand_over = oidset_has(&h->ignored, &h->nodes[ni].id) && np > 0;
			size_t p0 = 0;
			if (hand_over) {
				git_oid pid = h->nodes[ni].parents[0];
				if ((rc = fg_history_node_get(&p0, h, &pid, err)) < 0)
					break;
				git_oid ptree = h->nodes[p0].tree;
				if ((rc = fg_history_present_at(&hand_over, h, &ptree, f, err)) < 0)
					break;
			}
			if (!hand_over) {
				f->meaningful = ni;
				f->meaningful_shallow = boundary;
				f->phase = 2;
				unresolved--;
				files_unresolved--;
				continue;
			}
			rc = fg_history_chain_move(h, &q, pending[k], p0, err);
		}
		if (rc < 0)
			break;
	}
	free(pending);
out:
	/* Leave no file lists behind for the next query. */
	for (size_t i = 0; i < q.n; i++) {
		h->nodes[q.v[i]].nfiles = 0;
		h->nodes[q.v[i]].flags &= ~N_Q_CHAIN;
	}
	free(q.v);
	if (rc == 0 && files_unresolved)
		rc = fg_error_set(err, FG_EINTERNAL, h->bad_hex, "history walk ended with %zu files unresolved",
				  files_unresolved);
	return rc;
}
