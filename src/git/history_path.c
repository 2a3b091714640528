#include "git/history_internal.h"

/* ---- path comparison -------------------------------------------------------- */

static bool comp_find(fg_rawtree_entry *e, const fg_rawtree *t, const qfile *f, size_t i)
{
	return fg_rawtree_find(e, t, f->comp[i].name, f->comp[i].len);
}

/* Whether the path components from `from` on exist below tree. */
static int path_exists(bool *out, fg_history *h, const fg_rawtree *tree, const qfile *f, size_t from,
		       fg_error *err)
{
	for (size_t i = from; i < f->ncomps; i++) {
		fg_rawtree_entry e;
		if (!comp_find(&e, tree, f, i)) {
			*out = false;
			return 0;
		}
		if (i + 1 == f->ncomps) {
			*out = true;
			return 0;
		}
		if (!fg_rawtree_is_dir(e.mode)) {
			*out = false;
			return 0;
		}
		git_oid sub;
		git_oid_fromraw(&sub, e.id);
		int rc = fg_history_tree_get(&tree, h, &sub, err);
		if (rc < 0)
			return rc;
	}
	*out = false;
	return 0;
}

int fg_history_present_at(bool *out, fg_history *h, const git_oid *tree_id, const qfile *f, fg_error *err)
{
	const fg_rawtree *t;
	int rc = fg_history_tree_get(&t, h, tree_id, err);
	if (rc < 0)
		return rc;
	return path_exists(out, h, t, f, 0, err);
}

/* TREESAME for one path, as git's pathspec-limited tree diff decides it:
 * the entry at the path (id and mode, or absence) is the same on both sides.
 * Compares entry ids from the root down and stops at the first equal
 * subtree, so a commit that touched other directories costs one lookup per
 * level at most — no diff is computed. */
static int path_same(bool *same, fg_history *h, const git_oid *a_root, const git_oid *b_root, const qfile *f,
		     fg_error *err)
{
	if (git_oid_equal(a_root, b_root)) {
		*same = true;
		return 0;
	}
	size_t memo = h->same_memo.len;
	if (memo && memo < (size_t)(f->comp[f->ncomps - 1].name - f->comps) && !f->comps[memo] &&
	    !memcmp(f->comps, h->same_memo.prefix, memo) && git_oid_equal(a_root, &h->same_memo.a) &&
	    git_oid_equal(b_root, &h->same_memo.b)) {
		*same = true;
		return 0;
	}
	const fg_rawtree *ta, *tb;
	int rc;
	/* Fetching tb may clear the cache and free ta: fetch ta again (a hit,
	 * or an insert into a cache just cleared). */
	if ((rc = fg_history_tree_get(&ta, h, a_root, err)) < 0 || (rc = fg_history_tree_get(&tb, h, b_root, err)) < 0 ||
	    (rc = fg_history_tree_get(&ta, h, a_root, err)) < 0)
		return rc;
	for (size_t i = 0; i < f->ncomps; i++) {
		fg_rawtree_entry ea, eb;
		bool in_ta = comp_find(&ea, ta, f, i), in_tb = comp_find(&eb, tb, f, i);
		if (!in_ta || !in_tb) {
			/* A component missing on one side: the path is absent there,
			 * so the two agree when it is absent on the other side too
			 * (a commit that only creates or removes a directory of the
			 * path, or puts a submodule there, leaves the file alone). */
			bool in_other = false;
			if ((in_ta || in_tb) && (rc = path_exists(&in_other, h, in_ta ? ta : tb, f, i, err)) < 0)
				return rc;
			*same = !in_other;
			return 0;
		}
		bool last = i + 1 == f->ncomps;
		if (!memcmp(ea.id, eb.id, GIT_OID_RAWSZ) &&
		    (!last || fg_rawtree_canonical_mode(ea.mode) == fg_rawtree_canonical_mode(eb.mode))) {
			size_t len = (size_t)(f->comp[i].name + f->comp[i].len - f->comps);
			if (!last && len < sizeof(h->same_memo.prefix)) {
				h->same_memo.a = *a_root;
				h->same_memo.b = *b_root;
				memcpy(h->same_memo.prefix, f->comps, len);
				h->same_memo.len = len;
			}
			*same = true;
			return 0;
		}
		if (last) {
			*same = false;
			return 0;
		}
		bool a_dir = fg_rawtree_is_dir(ea.mode), b_dir = fg_rawtree_is_dir(eb.mode);
		/* Copies: a lookup below may clear the cache and free ta, tb. */
		git_oid ida, idb;
		git_oid_fromraw(&ida, ea.id);
		git_oid_fromraw(&idb, eb.id);
		if (!a_dir || !b_dir) {
			/* A file stands where a directory of the path was: the path
			 * is absent on that side. */
			bool in_a = false, in_b = false;
			if (a_dir) {
				const fg_rawtree *sub;
				if ((rc = fg_history_tree_get(&sub, h, &ida, err)) < 0 ||
				    (rc = path_exists(&in_a, h, sub, f, i + 1, err)) < 0)
					return rc;
			}
			if (b_dir) {
				const fg_rawtree *sub;
				if ((rc = fg_history_tree_get(&sub, h, &idb, err)) < 0 ||
				    (rc = path_exists(&in_b, h, sub, f, i + 1, err)) < 0)
					return rc;
			}
			*same = in_a == in_b;
			return 0;
		}
		if ((rc = fg_history_tree_get(&ta, h, &ida, err)) < 0)
			return rc;
		if ((rc = fg_history_tree_get(&tb, h, &idb, err)) < 0)
			return rc;
		/* fg_history_tree_get(&tb) may have cleared the cache and freed ta. */
		if ((rc = fg_history_tree_get(&ta, h, &ida, err)) < 0)
			return rc;
	}
	*same = true;
	return 0;
}

/* path_same for a commit and its p-th parent.  For the first parent, the
 * commit-graph's changed-path filter first: when it says that the commit's
 * first-parent diff did not change the path, no tree is read.  A "maybe"
 * (a false positive, or a real change) is decided by the trees. */
int fg_history_parent_same(bool *same, fg_history *h, size_t ni, uint32_t p, size_t pi, const qfile *f, fg_error *err)
{
	if (p == 0 && f->key.variants && h->nodes[ni].gpos != FG_COMMITGRAPH_NONE) {
		if (!fg_commitgraph_maybe_changed(h->graph, h->nodes[ni].gpos, &f->key)) {
			h->filter_skipped++;
			*same = true;
			return 0;
		}
		h->filter_maybe++;
	}
	git_oid tree = h->nodes[ni].tree, ptree = h->nodes[pi].tree;
	return path_same(same, h, &tree, &ptree, f, err);
}

/* Splits path into the components path_same compares; -1 when out of memory. */
int fg_history_qfile_set_path(qfile *qf, const fg_history *h, const char *path)
{
	memset(qf, 0, sizeof(*qf));
	qf->path = path;
	if (h->filters)
		fg_commitgraph_bloom_key(&qf->key, h->graph, path, strlen(path));
	qf->comps = strdup(path);
	size_t ncomp = 1;
	for (const char *c = path; *c; c++)
		ncomp += *c == '/';
	qf->comp = malloc(ncomp * sizeof(*qf->comp));
	if (!qf->comps || !qf->comp) {
		free(qf->comps);
		free(qf->comp);
		qf->comps = NULL;
		qf->comp = NULL;
		return -1;
	}
	qf->comp[0].name = qf->comps;
	qf->ncomps = 1;
	char *c = qf->comps;
	for (; *c; c++)
		if (*c == '/') {
			*c = '\0';
			qf->comp[qf->ncomps - 1].len = (size_t)(c - qf->comp[qf->ncomps - 1].name);
			qf->comp[qf->ncomps++].name = c + 1;
		}
	qf->comp[qf->ncomps - 1].len = (size_t)(c - qf->comp[qf->ncomps - 1].name);
	return 0;
}

/* The blob at a path of a commit's tree. */
int fg_history_blob_at(git_oid *out, bool *found, fg_history *h, const git_oid *root, const qfile *f, fg_error *err)
{
	const fg_rawtree *t;
	int rc = fg_history_tree_get(&t, h, root, err);
	*found = false;
	for (size_t i = 0; rc == 0 && i < f->ncomps; i++) {
		fg_rawtree_entry e;
		if (!comp_find(&e, t, f, i))
			return 0;
		bool last = i + 1 == f->ncomps;
		if (last ? !fg_rawtree_is_blob(e.mode) : !fg_rawtree_is_dir(e.mode))
			return 0;
		if (last) {
			git_oid_fromraw(out, e.id);
			*found = true;
			return 0;
		}
		git_oid sub;
		git_oid_fromraw(&sub, e.id);
		rc = fg_history_tree_get(&t, h, &sub, err);
	}
	return rc;
}
