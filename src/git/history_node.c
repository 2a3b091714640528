#include "git/history_internal.h"

/* ---- nodes ---------------------------------------------------------------- */

static inline bool node_hash(uint64_t *hash, const void *slot, const void *ctx)
{
	const fg_history *h = ctx;
	size_t s = *(const size_t *)slot;
	if (s)
		*hash = oid_hash(&h->nodes[s - 1].id);
	return s != 0;
}

struct key {
	const fg_history *h;
	const git_oid *id;
};

static inline bool node_stop(const void *slot, const void *key)
{
	size_t s = *(const size_t *)slot;
	const struct key *k = key;
	return !s || git_oid_equal(&k->h->nodes[s - 1].id, k->id);
}

static int map_insert(fg_history *h, size_t idx, fg_error *err)
{
	int rc = fg_hashtab_reserve(&h->map, sizeof(size_t), node_hash, h, err);
	if (rc < 0)
		return rc;
	struct key k = { h, &h->nodes[idx].id };
	*(size_t *)fg_hashtab_probe(&h->map, sizeof(size_t), oid_hash(k.id), node_stop, &k) = idx + 1;
	h->map.count++;
	return 0;
}

size_t fg_history_map_find(const fg_history *h, const git_oid *id)
{
	if (!h->map.slots)
		return SIZE_MAX;
	struct key k = { h, id };
	size_t s = *(const size_t *)fg_hashtab_probe(&h->map, sizeof(size_t), oid_hash(id), node_stop, &k);
	return s ? s - 1 : SIZE_MAX;
}

/* 40 hex digits (either case, as libgit2's git_oid_fromstrn takes them) as
 * an id: a walk without a commit-graph decodes two or three a commit
 * (libgit2's decoder took twice the instructions). */
static bool hex_oid(git_oid *out, const char *hex)
{
	static const signed char val[256] = {
		['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9,
		['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11,
		['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
	};
	for (size_t i = 0; i < GIT_OID_RAWSZ; i++) {
		int hi = val[(unsigned char)hex[2 * i]], lo = val[(unsigned char)hex[2 * i + 1]];
		if (!hi || !lo)
			return false;
		out->id[i] = (unsigned char)((hi - 1) << 4 | (lo - 1));
	}
	return true;
}

/* A commit object's headers: `tree`, `parent`s, and the committer's time
 * (the number after the last `>` of the first `committer` line, where
 * git reads it; nothing after that line is looked at: the pack reader
 * inflates no further).  false when they are not in git's usual form. */
static bool raw_commit_headers(node *n, git_oid *parents, unsigned *np, const void *data, size_t size)
{
	const char *p = data, *end = p + size;
	bool tree = false;
	*np = 0;
	while (p < end && *p != '\n') {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			return false;
		size_t len = (size_t)(eol - p);
		if (len == 45 && !memcmp(p, "tree ", 5)) {
			if (!hex_oid(&n->tree, p + 5))
				return false;
			tree = true;
		} else if (len == 47 && !memcmp(p, "parent ", 7)) {
			if (*np == MAX_RAW_PARENTS || !hex_oid(&parents[*np], p + 7))
				return false;
			(*np)++;
		} else if (len > 10 && !memcmp(p, "committer ", 10)) {
			const char *gt = NULL;
			for (const char *q = p; q < eol; q++)
				if (*q == '>')
					gt = q;
			if (!gt || gt + 2 >= eol || gt[1] != ' ')
				return false;
			int64_t t = 0;
			const char *q = gt + 2;
			bool digits = false;
			while (q < eol && *q >= '0' && *q <= '9' && t < INT64_MAX / 10) {
				t = t * 10 + (*q++ - '0');
				digits = true;
			}
			if (!digits)
				return false;
			n->time = t;
			return tree;
		}
		p = eol + 1;
	}
	return false;
}

/* The node of commit id, read on first use.  Node indices stay valid;
 * pointers do not (the array grows). */
int fg_history_node_get(size_t *out, fg_history *h, const git_oid *id, fg_error *err)
{
	size_t idx = fg_history_map_find(h, id);
	if (idx != SIZE_MAX) {
		*out = idx;
		return 0;
	}
	if (fg_history_grow(&h->nodes, &h->capnodes, h->nnodes + 1, sizeof(node)) < 0)
		return fg_error_oom(err, NULL);
	node *n = &h->nodes[h->nnodes];
	memset(n, 0, sizeof(*n));
	n->id = *id;
	n->info = SIZE_MAX;
	n->indeg = SIZE_MAX;
	git_oid parents[MAX_RAW_PARENTS];
	unsigned np = 0;
	/* The walks read thousands of commits for their tree, parents and
	 * time only: from the commit-graph when there is one, else from the
	 * raw object's headers, not libgit2's whole parse (signatures,
	 * message).  Unusual objects take libgit2's parser. */
	git_odb_object *obj = NULL;
	/* What git log reads for this commit: its replacement's tree,
	 * parents and time (there is no commit-graph then, as in git). */
	git_oid read_id = *fg_history_replaced(h, id);
	uint32_t gpos = h->graph ? fg_commitgraph_find(h->graph, id->id) : FG_COMMITGRAPH_NONE;
	n->gpos = FG_COMMITGRAPH_NONE;
	fg_commitgraph_commit gc;
	const unsigned char *head;
	size_t headlen;
	if (gpos != FG_COMMITGRAPH_NONE) {
		/* An entry the graph cannot give whole makes the whole graph
		 * suspect: the query is answered again without it (history.c). */
		int grc = fg_commitgraph_commit_at(&gc, (unsigned char (*)[20])parents, MAX_RAW_PARENTS, h->graph, gpos,
						   err);
		if (grc < 0)
			return grc;
		memcpy(n->tree.id, gc.tree, sizeof(gc.tree));
		n->time = gc.time;
		np = (unsigned)gc.nparents;
		n->gpos = gpos;
	} else if (h->pack && fg_pack_read_commit_head(&head, &headlen, h->pack, read_id.id) &&
		   raw_commit_headers(n, parents, &np, head, headlen)) {
		/* read from the pack directly (src/git/pack.h) */
	} else if (git_odb_read(&obj, h->odb, &read_id) < 0 || git_odb_object_type(obj) != GIT_OBJECT_COMMIT ||
		   !raw_commit_headers(n, parents, &np, git_odb_object_data(obj), git_odb_object_size(obj))) {
		git_odb_object_free(obj);
		obj = NULL;
		git_commit *c;
		if (git_commit_lookup(&c, h->repo, &read_id) < 0) {
			char hex[41];
			git_oid_tostr(hex, sizeof(hex), &read_id);
			return fg_history_git_fail(err, hex, "cannot read commit");
		}
		n->tree = *git_commit_tree_id(c);
		n->time = (int64_t)git_commit_time(c);
		np = git_commit_parentcount(c);
		if (np > MAX_RAW_PARENTS) {
			git_commit_free(c);
			return fg_error_set(err, FG_EGIT, NULL, "a merge of more than %d parents", MAX_RAW_PARENTS);
		}
		for (unsigned i = 0; i < np; i++)
			parents[i] = *git_commit_parent_id(c, i);
		git_commit_free(c);
	}
	git_odb_object_free(obj);
	const unsigned char (*grafted)[20];
	size_t ngrafted;
	if (fg_repo_grafts_parents(&grafted, &ngrafted, h->grafts, id->id)) {
		if (ngrafted > MAX_RAW_PARENTS)
			return fg_error_set(err, FG_EGIT, "info/grafts", "a graft of more than %d parents", MAX_RAW_PARENTS);
		np = (unsigned)ngrafted;
		for (unsigned i = 0; i < np; i++)
			memcpy(parents[i].id, grafted[i], GIT_OID_RAWSZ);
	}
	/* libgit2 1.5 does not read the shallow file: a boundary commit still
	 * lists parents the clone does not have.  Treat it as a root, as git
	 * does, and remember that the answer may lie beyond. */
	if (oidset_has(&h->shallow_ids, id)) {
		n->flags |= N_SHALLOW;
	} else if (np) {
		n->parents = malloc(np * sizeof(git_oid));
		if (!n->parents)
			return fg_error_oom(err, NULL);
		memcpy(n->parents, parents, np * sizeof(git_oid));
		n->nparents = np;
	}
	int rc = map_insert(h, h->nnodes, err);
	if (rc) {
		free(n->parents);
		return rc;
	}
	*out = h->nnodes++;
	return 0;
}

static bool heap_before(const fg_history *h, size_t a, size_t b)
{
	if (h->nodes[a].time != h->nodes[b].time)
		return h->nodes[a].time > h->nodes[b].time;
	return a < b;
}

int fg_history_heap_push(heap *q, const fg_history *h, size_t idx)
{
	if (fg_history_grow(&q->v, &q->cap, q->n + 1, sizeof(size_t)) < 0)
		return -1;
	size_t i = q->n++;
	q->v[i] = idx;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!heap_before(h, q->v[i], q->v[p]))
			break;
		size_t t = q->v[i];
		q->v[i] = q->v[p];
		q->v[p] = t;
		i = p;
	}
	return 0;
}

size_t fg_history_heap_pop(heap *q, const fg_history *h)
{
	size_t top = q->v[0];
	q->v[0] = q->v[--q->n];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < q->n && heap_before(h, q->v[l], q->v[m]))
			m = l;
		if (r < q->n && heap_before(h, q->v[r], q->v[m]))
			m = r;
		if (m == i)
			break;
		size_t t = q->v[i];
		q->v[i] = q->v[m];
		q->v[m] = t;
		i = m;
	}
	return top;
}
