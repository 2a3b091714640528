#include "git/history.h"

#include "io/textfile.h"

#include <errno.h>
#include <git2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "git/commitgraph.h"
#include "git/javaclass.h"
#include "git/linemap.h"
#include "git/method.h"
#include "git/pack.h"
#include "git/rawtree.h"
#include "git/repo.h"

/* ---- small helpers ------------------------------------------------------- */

static int git_fail(fg_error *err, const char *source, const char *what)
{
	const git_error *e = git_error_last();
	const char *msg = e && e->message ? e->message : "libgit2 error";
	/* A partial clone (--filter) leaves objects out and libgit2 1.5 cannot
	 * fetch them on demand: say how to get them rather than just "not found". */
	bool missing = e && e->klass == GIT_ERROR_ODB && strstr(msg, "not found");
	return fg_error_set(err, FG_EGIT, source, "%s: %s%s", what, msg,
			    missing ? " (a partial clone? libgit2 cannot fetch the objects it left out: "
				      "clone with --filter=blob:none, which is enough, or without --filter)" : "");
}

/* Grows *arr (of elem bytes) so that it holds at least need elements. */
static int grow(void *arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 8;
	while (n < need)
		n *= 2;
	void *p = realloc(*(void **)arr, n * elem);
	if (!p)
		return -1;
	*(void **)arr = p;
	*cap = n;
	return 0;
}

static uint64_t oid_hash(const git_oid *id)
{
	uint64_t h;
	memcpy(&h, id->id, sizeof(h));
	return h;
}

static int oid_cmp_qsort(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

/* A sorted array of ids (shallow boundary, ignored revisions). */
typedef struct oidset {
	git_oid *ids;
	size_t count, cap;
} oidset;

static bool oidset_has(const oidset *s, const git_oid *id)
{
	return s->count && bsearch(id, s->ids, s->count, sizeof(git_oid), oid_cmp_qsort) != NULL;
}

static void oidset_sort(oidset *s)
{
	if (s->count)
		qsort(s->ids, s->count, sizeof(git_oid), oid_cmp_qsort);
}

/* Parses git blame's ignore-revs format (also the shallow file's): one full
 * id per line, `#` starts a comment, blank lines skipped. */
static int oidset_parse(oidset *s, const char *text, size_t len, const char *source, fg_error *err)
{
	size_t lineno = 0;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		lineno++;
		const char *a = p, *b = eol;
		const char *hash = memchr(a, '#', (size_t)(b - a));
		if (hash)
			b = hash;
		while (a < b && (*a == ' ' || *a == '\t' || *a == '\r'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r'))
			b--;
		if (a < b) {
			git_oid id;
			char hex[GIT_OID_HEXSZ + 1];
			if ((size_t)(b - a) != GIT_OID_HEXSZ)
				return fg_error_set(err, FG_ECONFIG, source, "line %zu: not a full commit id: %.*s", lineno,
						    (int)(b - a > 60 ? 60 : b - a), a);
			memcpy(hex, a, GIT_OID_HEXSZ);
			hex[GIT_OID_HEXSZ] = '\0';
			if (git_oid_fromstr(&id, hex) < 0)
				return fg_error_set(err, FG_ECONFIG, source, "line %zu: not a full commit id: %s", lineno, hex);
			if (grow(&s->ids, &s->cap, s->count + 1, sizeof(git_oid)) < 0)
				return fg_error_oom(err, NULL);
			s->ids[s->count++] = id;
		}
		p = eol + 1;
	}
	return 0;
}

/* Reads a whole file (at most 64 MiB: these are lists of commit ids); *missing
 * is set (and 0 returned) when it does not exist. */
static int read_file(char **out, size_t *len, bool *missing, const char *path, int code, fg_error *err)
{
	*out = NULL;
	*len = 0;
	struct stat st;
	*missing = stat(path, &st) < 0 && errno == ENOENT;
	if (*missing)
		return 0;
	return fg_textfile_read(out, len, path, (size_t)64 << 20, "list of commits", code, err);
}

/* ---- commits of the walks ------------------------------------------------ */

enum node_flags {
	N_SHALLOW = 1 << 0,      /* on the shallow boundary: its parents are not in the clone */
	N_Q_CHAIN = 1 << 1,      /* queued in the chain walk */
	N_Q_LIMIT = 1 << 2,      /* queued in the window limiting walk */
	N_SEEN = 1 << 3,         /* reached by the limiting walk */
	N_POPPED = 1 << 4,       /* processed by the limiting walk */
	N_UNINTERESTING = 1 << 5,/* an ancestor of good */
	N_IN_WINDOW = 1 << 6,    /* in (good, bad] */
	N_PARSED = 1 << 7,       /* the window walk has read its parents (git's "parsed") */
};
#define N_WALK_FLAGS (N_Q_CHAIN | N_Q_LIMIT | N_SEEN | N_POPPED | N_UNINTERESTING | N_IN_WINDOW | N_PARSED)

typedef struct node {
	git_oid id;
	git_oid tree;
	int64_t time;          /* committer time: the order git's walks pop commits in */
	git_oid *parents;      /* NULL when none (root or shallow) */
	uint32_t nparents;
	uint32_t flags;
	size_t *files;         /* chain walk: files waiting at this commit */
	size_t nfiles, capfiles;
	size_t wpos;           /* window walk: position in pop order */
	size_t indeg;          /* window walk: offset of the node's file bits, SIZE_MAX none */
	size_t info;           /* index in the result's commit table, or SIZE_MAX */
	uint32_t gpos;         /* position in the commit-graph, FG_COMMITGRAPH_NONE */
} node;

/* ---- source index ---------------------------------------------------------- */

typedef struct srcfile {
	char *path;
	const char *stem;      /* points into path: the file name without extension */
	size_t stem_len;
	size_t ext_len;        /* without the dot */
	size_t file_id;        /* the query's file index, SIZE_MAX when not asked for */
} srcfile;

/* ---- tree cache ------------------------------------------------------------- */

/* Trees along the files' paths are read again at every commit the walk
 * visits; libgit2's object cache skips trees over 4 KiB by default, which are
 * exactly the big directories, so keep our own.  Cleared when full: the walk
 * moves down history and old trees are not needed again (1,024 slots: the
 * trees of the walk's frontier; more only kept memory, whose page faults
 * cost more CPU time than the few trees read again).  A tree is read raw
 * and indexed (src/git/rawtree.h), not parsed by libgit2: the walk asks each tree
 * for one name per path, and libgit2's parse of every entry was two thirds
 * of the cost of a tree. */
#define TCACHE_SLOTS 1024
typedef struct tcache_slot {
	git_oid id;
	fg_pack_object *pobj; /* the tree object: read from a pack (src/git/pack.h) */
	git_odb_object *obj;  /* or by libgit2 */
	fg_rawtree *tree;     /* indexes its bytes */
} tcache_slot;

struct fg_history {
	git_repository *repo;    /* borrowed from the fg_repo (src/git/repo.h) */
	fg_repo *owned_repo;     /* fg_history_open's own, NULL when borrowed */
	git_odb *odb;
	git_repository *blob_repo;
	fg_pack *pack;         /* the packs read directly, NULL: none (src/git/pack.h) */
	fg_commitgraph *graph; /* NULL: none, or not usable */
	bool filters;          /* its changed-path filters are read */
	size_t filter_skipped, filter_maybe; /* how they answered in the last query */
	char *repo_path;
	git_oid bad, good;
	bool has_good;
	char bad_hex[41], good_hex[41];
	bool shallow;
	oidset shallow_ids;
	oidset ignored;
	bool typed_names;      /* the options' */

	srcfile *src;
	size_t nsrc, capsrc;

	node *nodes;
	size_t nnodes, capnodes;
	size_t *map;           /* open addressing: node index + 1, 0 empty */
	size_t mapcap;

	tcache_slot *tcache;
	size_t tcache_used;

	/* path_same's last "same" that an equal directory entry decided: the
	 * next file below that directory, compared between the same two root
	 * trees, is the same too and needs no lookup (a query's hot files share
	 * modules and packages).  A fact about immutable trees: never stale. */
	struct {
		git_oid a, b;
		char prefix[1024]; /* the path's components up to that directory, NUL-separated */
		size_t len;        /* 0: none */
	} same_memo;
};

struct fg_history_result {
	fg_history_entry *entries;
	size_t count, cap;
	fg_history_commit *commits; /* the commit table; entries point into it after assembly */
	size_t ncommits, capcommits;
	const fg_history_commit **window_ptrs;
	char **strings;
	size_t nstrings, capstrings;
	size_t visited;
	size_t filter_skipped, filter_maybe;
	fg_history_method *methods;     /* per entry (fg_history_query_methods) */
	fg_method_range *method_ranges; /* FG_METHOD_MAX_RANGES per entry */
	fg_history_method_change *changes;
};

static void tcache_clear(fg_history *h)
{
	for (size_t i = 0; i < TCACHE_SLOTS; i++) {
		if (h->tcache[i].tree) {
			fg_rawtree_free(h->tcache[i].tree);
			fg_pack_object_free(h->tcache[i].pobj);
			git_odb_object_free(h->tcache[i].obj);
		}
		h->tcache[i].tree = NULL;
		h->tcache[i].pobj = NULL;
		h->tcache[i].obj = NULL;
	}
	h->tcache_used = 0;
}

static int tree_get(const fg_rawtree **out, fg_history *h, const git_oid *idp, fg_error *err)
{
	/* idp often points into a cached tree's entry, which a clear frees. */
	git_oid idcopy = *idp;
	const git_oid *id = &idcopy;
	size_t mask = TCACHE_SLOTS - 1;
	size_t i = (size_t)oid_hash(id) & mask;
	while (h->tcache[i].tree) {
		if (git_oid_equal(&h->tcache[i].id, id)) {
			*out = h->tcache[i].tree;
			return 0;
		}
		i = (i + 1) & mask;
	}
	if (h->tcache_used >= TCACHE_SLOTS * 3 / 4) {
		tcache_clear(h);
		i = (size_t)oid_hash(id) & mask;
	}
	char hex[41];
	/* The packs read directly first (src/git/pack.h); libgit2 reads (or
	 * reports) what they cannot give. */
	const unsigned char *bytes;
	size_t len;
	fg_pack_object *pobj = NULL;
	git_odb_object *obj = NULL;
	if (h->pack && fg_pack_read(&pobj, h->pack, id->id) && fg_pack_object_type(pobj) == FG_PACK_TREE) {
		bytes = fg_pack_object_data(pobj);
		len = fg_pack_object_size(pobj);
	} else {
		fg_pack_object_free(pobj);
		pobj = NULL;
		if (git_odb_read(&obj, h->odb, id) < 0)
			return git_fail(err, git_oid_tostr(hex, sizeof(hex), id), "cannot read tree");
		if (git_odb_object_type(obj) != GIT_OBJECT_TREE) {
			int rc = fg_error_set(err, FG_EGIT, git_oid_tostr(hex, sizeof(hex), id),
					      "cannot read tree: a %s, not a tree",
					      git_object_type2string(git_odb_object_type(obj)));
			git_odb_object_free(obj);
			return rc;
		}
		bytes = git_odb_object_data(obj);
		len = git_odb_object_size(obj);
	}
	fg_rawtree *t;
	int rc = fg_rawtree_parse(&t, bytes, len, err);
	if (rc < 0) {
		if (rc == FG_EGIT && err)
			git_oid_tostr(err->source, sizeof(err->source), id); /* only now: costly for every tree read */
		fg_pack_object_free(pobj);
		git_odb_object_free(obj);
		return rc;
	}
	h->tcache[i].id = *id;
	h->tcache[i].pobj = pobj;
	h->tcache[i].obj = obj;
	h->tcache[i].tree = t;
	h->tcache_used++;
	*out = t;
	return 0;
}

/* ---- nodes ---------------------------------------------------------------- */

static int map_insert(fg_history *h, size_t idx)
{
	if ((h->nnodes + 1) * 2 > h->mapcap) {
		size_t ncap = h->mapcap ? h->mapcap * 2 : 1024;
		size_t *nmap = calloc(ncap, sizeof(size_t));
		if (!nmap)
			return -1;
		for (size_t k = 0; k < h->mapcap; k++) {
			if (!h->map[k])
				continue;
			size_t j = (size_t)oid_hash(&h->nodes[h->map[k] - 1].id) & (ncap - 1);
			while (nmap[j])
				j = (j + 1) & (ncap - 1);
			nmap[j] = h->map[k];
		}
		free(h->map);
		h->map = nmap;
		h->mapcap = ncap;
	}
	size_t j = (size_t)oid_hash(&h->nodes[idx].id) & (h->mapcap - 1);
	while (h->map[j])
		j = (j + 1) & (h->mapcap - 1);
	h->map[j] = idx + 1;
	return 0;
}

static size_t map_find(const fg_history *h, const git_oid *id)
{
	if (!h->mapcap)
		return SIZE_MAX;
	size_t j = (size_t)oid_hash(id) & (h->mapcap - 1);
	while (h->map[j]) {
		if (git_oid_equal(&h->nodes[h->map[j] - 1].id, id))
			return h->map[j] - 1;
		j = (j + 1) & (h->mapcap - 1);
	}
	return SIZE_MAX;
}

#define MAX_RAW_PARENTS 256

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
 * (the number after the last `>` of the `committer` line).  false when
 * they are not in git's usual form. */
static bool raw_commit_headers(node *n, git_oid *parents, unsigned *np, const void *data, size_t size)
{
	const char *p = data, *end = p + size;
	bool tree = false, time = false;
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
			time = true;
		}
		p = eol + 1;
	}
	return tree && time;
}

/* The node of commit id, read on first use.  Node indices stay valid;
 * pointers do not (the array grows). */
static int node_get(size_t *out, fg_history *h, const git_oid *id, fg_error *err)
{
	size_t idx = map_find(h, id);
	if (idx != SIZE_MAX) {
		*out = idx;
		return 0;
	}
	if (grow(&h->nodes, &h->capnodes, h->nnodes + 1, sizeof(node)) < 0)
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
	uint32_t gpos = h->graph ? fg_commitgraph_find(h->graph, id->id) : FG_COMMITGRAPH_NONE;
	n->gpos = FG_COMMITGRAPH_NONE;
	fg_commitgraph_commit gc;
	fg_pack_object *pobj = NULL;
	if (gpos != FG_COMMITGRAPH_NONE &&
	    fg_commitgraph_commit_at(&gc, (unsigned char (*)[20])parents, MAX_RAW_PARENTS, h->graph, gpos, NULL) == 0) {
		memcpy(n->tree.id, gc.tree, sizeof(gc.tree));
		n->time = gc.time;
		np = (unsigned)gc.nparents;
		n->gpos = gpos;
	} else if (h->pack && fg_pack_read(&pobj, h->pack, id->id) && fg_pack_object_type(pobj) == FG_PACK_COMMIT &&
		   raw_commit_headers(n, parents, &np, fg_pack_object_data(pobj), fg_pack_object_size(pobj))) {
		/* read from the pack directly (src/git/pack.h) */
	} else if (git_odb_read(&obj, h->odb, id) < 0 || git_odb_object_type(obj) != GIT_OBJECT_COMMIT ||
		   !raw_commit_headers(n, parents, &np, git_odb_object_data(obj), git_odb_object_size(obj))) {
		git_odb_object_free(obj);
		obj = NULL;
		git_commit *c;
		if (git_commit_lookup(&c, h->repo, id) < 0) {
			char hex[41];
			git_oid_tostr(hex, sizeof(hex), id);
			return git_fail(err, hex, "cannot read commit");
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
	fg_pack_object_free(pobj);
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
	if (map_insert(h, h->nnodes) < 0) {
		free(n->parents);
		return fg_error_oom(err, NULL);
	}
	*out = h->nnodes++;
	return 0;
}

/* A max-heap of node indices by committer time; ties go to the node seen
 * first, as in git's date-ordered queue. */
typedef struct heap {
	size_t *v;
	size_t n, cap;
} heap;

static bool heap_before(const fg_history *h, size_t a, size_t b)
{
	if (h->nodes[a].time != h->nodes[b].time)
		return h->nodes[a].time > h->nodes[b].time;
	return a < b;
}

static int heap_push(heap *q, const fg_history *h, size_t idx)
{
	if (grow(&q->v, &q->cap, q->n + 1, sizeof(size_t)) < 0)
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

static size_t heap_pop(heap *q, const fg_history *h)
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

/* ---- path comparison -------------------------------------------------------- */

/* A path component of a query's file. */
typedef struct qcomp {
	const char *name;      /* into qfile.comps, NUL-terminated */
	size_t len;
} qcomp;

/* A file of the query: its path split into NUL-terminated components. */
typedef struct qfile {
	const char *path;
	char *comps;           /* components, each NUL-terminated, back to back */
	size_t ncomps;
	qcomp *comp;
	fg_bloom_key key;      /* the path's key in the commit-graph's filters (variants 0: none) */
	int phase;             /* 0 seeking last, 1 seeking meaningful, 2 done */
	size_t last, meaningful; /* node indices */
	bool last_shallow, meaningful_shallow;
	size_t *window;        /* node indices */
	size_t nwindow, capwindow;
} qfile;

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
		int rc = tree_get(&tree, h, &sub, err);
		if (rc < 0)
			return rc;
	}
	*out = false;
	return 0;
}

static int present_at(bool *out, fg_history *h, const git_oid *tree_id, const qfile *f, fg_error *err)
{
	const fg_rawtree *t;
	int rc = tree_get(&t, h, tree_id, err);
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
	if ((rc = tree_get(&ta, h, a_root, err)) < 0 || (rc = tree_get(&tb, h, b_root, err)) < 0 ||
	    (rc = tree_get(&ta, h, a_root, err)) < 0)
		return rc;
	for (size_t i = 0; i < f->ncomps; i++) {
		fg_rawtree_entry ea, eb;
		bool in_ta = comp_find(&ea, ta, f, i), in_tb = comp_find(&eb, tb, f, i);
		if (!in_ta || !in_tb) {
			*same = !in_ta && !in_tb;
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
				if ((rc = tree_get(&sub, h, &ida, err)) < 0 ||
				    (rc = path_exists(&in_a, h, sub, f, i + 1, err)) < 0)
					return rc;
			}
			if (b_dir) {
				const fg_rawtree *sub;
				if ((rc = tree_get(&sub, h, &idb, err)) < 0 ||
				    (rc = path_exists(&in_b, h, sub, f, i + 1, err)) < 0)
					return rc;
			}
			*same = in_a == in_b;
			return 0;
		}
		if ((rc = tree_get(&ta, h, &ida, err)) < 0)
			return rc;
		if ((rc = tree_get(&tb, h, &idb, err)) < 0)
			return rc;
		/* tree_get(&tb) may have cleared the cache and freed ta. */
		if ((rc = tree_get(&ta, h, &ida, err)) < 0)
			return rc;
	}
	*same = true;
	return 0;
}

/* path_same for a commit and its p-th parent.  For the first parent, the
 * commit-graph's changed-path filter first: when it says that the commit's
 * first-parent diff did not change the path, no tree is read.  A "maybe"
 * (a false positive, or a real change) is decided by the trees. */
static int parent_same(bool *same, fg_history *h, size_t ni, uint32_t p, size_t pi, const qfile *f, fg_error *err)
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

/* ---- open ------------------------------------------------------------------- */

static int resolve_rev(git_oid *out, fg_history *h, const char *spec, fg_error *err)
{
	git_object *obj = NULL, *peeled = NULL;
	int rc = git_revparse_single(&obj, h->repo, spec);
	if (rc == GIT_EAMBIGUOUS)
		return fg_error_set(err, FG_EUSAGE, spec, "ambiguous revision in %s", h->repo_path);
	if (rc < 0)
		return fg_error_set(err, FG_EUSAGE, spec, "unknown revision in %s", h->repo_path);
	rc = git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (rc < 0)
		return fg_error_set(err, FG_EUSAGE, spec, "not a commit in %s", h->repo_path);
	*out = *git_object_id(peeled);
	git_object_free(peeled);
	return 0;
}

/* NAME under git's common directory (malloc'ed), NULL when out of memory. */
static char *common_path(const fg_history *h, const char *name)
{
	const char *common = git_repository_commondir(h->repo);
	size_t len = strlen(common), cap = len + 1 + strlen(name) + 1;
	char *path = malloc(cap);
	/* commondir ends with a slash in libgit2, but do not rely on it. */
	if (path)
		snprintf(path, cap, "%s%s%s", common, len && common[len - 1] == '/' ? "" : "/", name);
	return path;
}

static int read_shallow(fg_history *h, fg_error *err)
{
	char *path = common_path(h, "shallow");
	if (!path)
		return fg_error_oom(err, NULL);
	char *text;
	size_t n;
	bool missing;
	int rc = read_file(&text, &n, &missing, path, FG_EGIT, err);
	if (rc == 0 && !missing) {
		rc = oidset_parse(&h->shallow_ids, text, n, path, err);
		if (rc < 0)
			rc = fg_error_set(err, FG_EGIT, path, "malformed shallow file");
		h->shallow = h->shallow_ids.count > 0;
		oidset_sort(&h->shallow_ids);
	}
	free(text);
	free(path);
	return rc;
}

static int read_ignore_revs(fg_history *h, const fg_history_options *opts, git_tree *bad_tree, fg_error *err)
{
	char *text;
	size_t n;
	bool missing;
	int rc;
	if (opts->ignore_revs_file) {
		if ((rc = read_file(&text, &n, &missing, opts->ignore_revs_file, FG_ECONFIG, err)) < 0)
			return rc;
		if (missing)
			return fg_error_set(err, FG_ECONFIG, opts->ignore_revs_file, "no such file");
		rc = oidset_parse(&h->ignored, text, n, opts->ignore_revs_file, err);
		free(text);
		if (rc < 0)
			return rc;
	}
	if (opts->use_repo_ignore_revs) {
		/* The list as committed at bad, so that bare repositories and
		 * checkouts of other commits give the same answer… */
		const git_tree_entry *e = git_tree_entry_byname(bad_tree, ".git-blame-ignore-revs");
		if (e && git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
			git_blob *blob;
			/* A blobless partial clone may lack it: the working tree's copy
			 * below still counts, and history needs no blob. */
			if (git_blob_lookup(&blob, h->repo, git_tree_entry_id(e)) < 0) {
				const git_error *ge = git_error_last();
				if (!ge || ge->klass != GIT_ERROR_ODB)
					return git_fail(err, ".git-blame-ignore-revs", "cannot read");
				blob = NULL;
			}
			rc = blob ? oidset_parse(&h->ignored, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob),
						 ".git-blame-ignore-revs (committed)", err) : 0;
			git_blob_free(blob);
			if (rc < 0)
				return rc;
		}
		/* …plus what the working tree adds before it is committed. */
		const char *wd = git_repository_workdir(h->repo);
		if (wd) {
			size_t len = strlen(wd) + sizeof(".git-blame-ignore-revs") + 1;
			char *path = malloc(len);
			if (!path)
				return fg_error_oom(err, NULL);
			snprintf(path, len, "%s%s.git-blame-ignore-revs", wd, wd[strlen(wd) - 1] == '/' ? "" : "/");
			rc = read_file(&text, &n, &missing, path, FG_ECONFIG, err);
			if (rc == 0 && !missing)
				rc = oidset_parse(&h->ignored, text, n, path, err);
			free(text);
			free(path);
			if (rc < 0)
				return rc;
		}
	}
	oidset_sort(&h->ignored);
	return 0;
}

static bool source_ext(const char *name, size_t len, size_t *ext_len)
{
	static const char *const exts[] = { ".java", ".kt", ".scala" };
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t el = strlen(exts[i]);
		if (len > el && !memcmp(name + len - el, exts[i], el)) {
			*ext_len = el - 1;
			return true;
		}
	}
	return false;
}

typedef struct walk_ctx {
	fg_history *h;
	fg_error *err;
	int rc;
} walk_ctx;

static int index_cb(const char *root, const git_tree_entry *entry, void *payload)
{
	walk_ctx *ctx = payload;
	fg_history *h = ctx->h;
	if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB || git_tree_entry_filemode(entry) == GIT_FILEMODE_LINK)
		return 0;
	const char *name = git_tree_entry_name(entry);
	size_t nlen = strlen(name), ext_len;
	if (!source_ext(name, nlen, &ext_len))
		return 0;
	size_t rlen = strlen(root);
	if (grow(&h->src, &h->capsrc, h->nsrc + 1, sizeof(srcfile)) < 0)
		goto nomem;
	char *path = malloc(rlen + nlen + 1);
	if (!path)
		goto nomem;
	memcpy(path, root, rlen);
	memcpy(path + rlen, name, nlen + 1);
	srcfile *s = &h->src[h->nsrc++];
	s->path = path;
	s->stem = path + rlen;
	s->ext_len = ext_len;
	s->stem_len = nlen - ext_len - 1;
	s->file_id = SIZE_MAX;
	return 0;
nomem:
	ctx->rc = fg_error_oom(ctx->err, NULL);
	return -1;
}

static int stem_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);
	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

static int src_cmp(const void *pa, const void *pb)
{
	const srcfile *a = pa, *b = pb;
	int c = stem_cmp(a->stem, a->stem_len, b->stem, b->stem_len);
	return c ? c : strcmp(a->path, b->path);
}

/* The commit-graph, as git uses it: not in a shallow clone (its parents
 * are the full history's), not when core.commitGraph is false; its
 * changed-path filters not when commitGraph.readChangedPaths is false. */
static int graph_open(fg_history *h, fg_error *err)
{
	bool use = !h->shallow, filters = true;
	git_config *cfg;
	if (use && git_repository_config_snapshot(&cfg, h->repo) == 0) {
		int v;
		if (git_config_get_bool(&v, cfg, "core.commitGraph") == 0 && !v)
			use = false;
		if (git_config_get_bool(&v, cfg, "commitGraph.readChangedPaths") == 0 && !v)
			filters = false;
		git_config_free(cfg);
	}
	int rc = use ? fg_commitgraph_open(&h->graph, git_repository_commondir(h->repo), err) : 0;
	h->filters = rc == 0 && filters && fg_commitgraph_has_filters(h->graph);
	return rc;
}

/* The repository's packs, read directly for the walks' commits and trees
 * (src/git/pack.h): those of its own object directory, where libgit2 finds them
 * too.  Not when GIT_OBJECT_DIRECTORY names another directory (an object of
 * the packs here might then not be the repository's). */
static int pack_open(fg_history *h, fg_error *err)
{
	if (getenv("GIT_OBJECT_DIRECTORY"))
		return 0;
	char *dir = common_path(h, "objects");
	if (!dir)
		return fg_error_oom(err, NULL);
	int rc = fg_pack_open(&h->pack, dir, err);
	free(dir);
	return rc;
}

/* A graph that says otherwise than the objects about the bad commit (its
 * tree or parents) is not this repository's: it is not used. */
static void graph_check(fg_history *h, const git_commit *bad)
{
	uint32_t pos = h->graph ? fg_commitgraph_find(h->graph, h->bad.id) : FG_COMMITGRAPH_NONE;
	if (pos == FG_COMMITGRAPH_NONE)
		return;
	fg_commitgraph_commit c;
	unsigned char parents[MAX_RAW_PARENTS][20];
	bool same = fg_commitgraph_commit_at(&c, parents, MAX_RAW_PARENTS, h->graph, pos, NULL) == 0 &&
		    !memcmp(c.tree, git_commit_tree_id(bad)->id, 20) && c.nparents == git_commit_parentcount(bad);
	for (unsigned i = 0; same && i < c.nparents; i++)
		same = !memcmp(parents[i], git_commit_parent_id(bad, i)->id, 20);
	if (!same) {
		fg_commitgraph_free(h->graph);
		h->graph = NULL;
		h->filters = false;
	}
}

int fg_history_open(fg_history **out, const char *dir, const fg_history_options *opts, fg_error *err)
{
	*out = NULL;
	fg_repo *repo;
	int rc = fg_repo_open(&repo, dir, err);
	if (rc == FG_ECONFIG)
		return fg_error_set(err, FG_EUSAGE, dir, "not a git repository (nor inside one)");
	if (rc)
		return rc;
	if ((rc = fg_history_open_repo(out, repo, opts, err)) < 0) {
		fg_repo_free(repo);
		return rc;
	}
	(*out)->owned_repo = repo;
	return 0;
}

int fg_history_open_repo(fg_history **out, fg_repo *repo, const fg_history_options *opts, fg_error *err)
{
	fg_history_options defaults;
	if (!opts) {
		fg_history_options_init(&defaults);
		opts = &defaults;
	}
	*out = NULL;
	/* libgit2 hashes every object it reads again to verify it (with the
	 * collision-detecting SHA-1): a third of a history walk.  git itself
	 * does not on reads (fsck does), and a corrupt object still fails to
	 * inflate or parse. */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	/* A method's walk diffs a file's versions pairwise down its history:
	 * each parent's blob is the child of the next diff.  libgit2 caches no
	 * blobs by default; source files are small. */
	git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_BLOB, (size_t)256 * 1024);
	fg_history *h = calloc(1, sizeof(*h));
	if (!h)
		return fg_error_oom(err, NULL);
	h->typed_names = opts->typed_names;
	int rc;
	git_commit *bad_commit = NULL;
	git_tree *bad_tree = NULL;
	h->tcache = calloc(TCACHE_SLOTS, sizeof(tcache_slot));
	if (!h->tcache) {
		rc = fg_error_oom(err, NULL);
		goto fail;
	}
	h->repo = fg_repo_git(repo);
	if (git_repository_odb(&h->odb, h->repo) < 0 || git_repository_wrap_odb(&h->blob_repo, h->odb) < 0) {
		rc = git_fail(err, fg_repo_workdir(repo) ? fg_repo_workdir(repo) : "", "cannot open the object database");
		goto fail;
	}
	if ((rc = pack_open(h, err)) < 0)
		goto fail;
	const char *p = git_repository_workdir(h->repo);
	if (!p)
		p = git_repository_path(h->repo);
	h->repo_path = strdup(p);
	if (!h->repo_path) {
		rc = fg_error_oom(err, NULL);
		goto fail;
	}
	size_t plen = strlen(h->repo_path);
	if (plen > 1 && h->repo_path[plen - 1] == '/')
		h->repo_path[plen - 1] = '\0';

	if ((rc = read_shallow(h, err)) < 0)
		goto fail;
	if ((rc = graph_open(h, err)) < 0)
		goto fail;
	if ((rc = resolve_rev(&h->bad, h, opts->bad ? opts->bad : "HEAD", err)) < 0)
		goto fail;
	git_oid_tostr(h->bad_hex, sizeof(h->bad_hex), &h->bad);
	if (opts->good) {
		if ((rc = resolve_rev(&h->good, h, opts->good, err)) < 0)
			goto fail;
		h->has_good = true;
		git_oid_tostr(h->good_hex, sizeof(h->good_hex), &h->good);
	}
	if (git_commit_lookup(&bad_commit, h->repo, &h->bad) < 0 || git_commit_tree(&bad_tree, bad_commit) < 0) {
		rc = git_fail(err, h->bad_hex, "cannot read the bad commit's tree");
		goto fail;
	}
	graph_check(h, bad_commit);
	if ((rc = read_ignore_revs(h, opts, bad_tree, err)) < 0)
		goto fail;

	walk_ctx ctx = { h, err, 0 };
	if (git_tree_walk(bad_tree, GIT_TREEWALK_PRE, index_cb, &ctx) < 0) {
		rc = ctx.rc ? ctx.rc : git_fail(err, h->bad_hex, "cannot read the tree");
		goto fail;
	}
	if (h->nsrc)
		qsort(h->src, h->nsrc, sizeof(srcfile), src_cmp);
	git_tree_free(bad_tree);
	git_commit_free(bad_commit);
	*out = h;
	return 0;
fail:
	git_tree_free(bad_tree);
	git_commit_free(bad_commit);
	fg_history_free(h);
	return rc;
}

void fg_history_free(fg_history *h)
{
	if (!h)
		return;
	if (h->tcache)
		tcache_clear(h);
	free(h->tcache);
	for (size_t i = 0; i < h->nnodes; i++) {
		free(h->nodes[i].parents);
		free(h->nodes[i].files);
	}
	free(h->nodes);
	free(h->map);
	for (size_t i = 0; i < h->nsrc; i++)
		free(h->src[i].path);
	free(h->src);
	free(h->shallow_ids.ids);
	free(h->ignored.ids);
	free(h->repo_path);
	fg_commitgraph_free(h->graph);
	fg_pack_free(h->pack);
	git_odb_free(h->odb);
	git_repository_free(h->blob_repo);
	fg_repo_free(h->owned_repo);
	free(h);
}

const char *fg_history_repo_path(const fg_history *h) { return h->repo_path; }
const char *fg_history_bad_id(const fg_history *h) { return h->bad_hex; }
const char *fg_history_good_id(const fg_history *h) { return h->has_good ? h->good_hex : NULL; }
bool fg_history_is_shallow(const fg_history *h) { return h->shallow; }
/* ---- the chain walk: last and last meaningful commit ------------------------ */

static int chain_move(fg_history *h, heap *q, size_t fi, size_t to, fg_error *err)
{
	node *n = &h->nodes[to];
	if (grow(&n->files, &n->capfiles, n->nfiles + 1, sizeof(size_t)) < 0)
		return fg_error_oom(err, NULL);
	n->files[n->nfiles++] = fi;
	if (!(n->flags & N_Q_CHAIN)) {
		n->flags |= N_Q_CHAIN;
		if (heap_push(q, h, to) < 0)
			return fg_error_oom(err, NULL);
	}
	return 0;
}

/* ---- method histories: git log -L :METHOD:PATH, inside the chain walk ------------- */

/* Splits path into the components path_same compares; -1 when out of memory. */
static int qfile_set_path(qfile *qf, const fg_history *h, const char *path)
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
static int blob_at(git_oid *out, bool *found, fg_history *h, const git_oid *root, const qfile *f, fg_error *err)
{
	const fg_rawtree *t;
	int rc = tree_get(&t, h, root, err);
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
		rc = tree_get(&t, h, &sub, err);
	}
	return rc;
}

typedef struct mchange {
	size_t node;
	fg_line_effect effect;
} mchange;

/* One frame's method, followed from bad. */
typedef struct mtrack {
	size_t entry;
	size_t file;           /* the query's file at bad */
	fg_line_set start;     /* its lines at bad */
	bool last_found, done;
	bool missing;          /* a blob it needs is not in the clone */
	size_t last;
	fg_line_effect last_effect;
	bool last_shallow;
	/* The last change that is not an ignored revision (found), else the
	 * oldest ignored one so far. */
	bool meaningful_found, has_meaningful;
	size_t meaningful;
	fg_line_effect meaningful_effect;
	bool meaningful_shallow;
	size_t live;           /* states waiting at commits of the window */
	mchange *window;
	size_t nwindow, capwindow;
} mtrack;

/* A method's lines waiting at a commit (git's line range of a commit). */
typedef struct mstate {
	size_t track;
	size_t path;           /* < nfiles: files[path]; else renamed[path - nfiles] */
	fg_line_set lines;
} mstate;

#define HUNK_CACHE 8
typedef struct hunk_cache_slot {
	git_oid old_id, new_id;
	bool has_old, used;
	fg_line_hunk *hunks;
	size_t n;
} hunk_cache_slot;

typedef struct mwalk {
	mtrack *t;
	size_t nt;
	mstate *s;
	size_t ns, caps;
	qfile *renamed;        /* older paths of files found by rename detection */
	char **renamed_paths;
	size_t nrenamed, caprenamed, caprenamed_paths;
	hunk_cache_slot cache[HUNK_CACHE];
	size_t cache_next;
	size_t diffs;          /* blob diffs computed (for benchmarks) */
} mwalk;

static void mwalk_free(mwalk *mw)
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
	if (grow(&a->h, &a->cap, a->n + 1, sizeof(*a->h)) < 0) {
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
		return git_fail(err, NULL, "cannot read a blob of the method's file");
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
		return git_fail(err, NULL, "cannot diff the method's file");
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
 * path: git log -L's rename detection (the whole trees' diff, renames only,
 * libgit2's default similarity of 50%, as git's). */
static int rename_source(size_t *path, git_oid *blob, fg_history *h, mwalk *mw, size_t nfiles,
			 const git_oid *ptree_id, const git_oid *tree_id, const char *newpath, fg_error *err)
{
	*path = SIZE_MAX;
	git_tree *a = NULL, *b = NULL;
	git_diff *d = NULL;
	int rc = 0;
	if (git_tree_lookup(&a, h->repo, ptree_id) < 0 || git_tree_lookup(&b, h->repo, tree_id) < 0 ||
	    git_diff_tree_to_tree(&d, h->repo, a, b, NULL) < 0) {
		rc = git_fail(err, newpath, "cannot diff trees to find a rename");
		goto out;
	}
	git_diff_find_options fo;
	git_diff_find_options_init(&fo, GIT_DIFF_FIND_OPTIONS_VERSION);
	fo.flags = GIT_DIFF_FIND_RENAMES;
	if (git_diff_find_similar(d, &fo) < 0) {
		rc = git_fail(err, newpath, "cannot detect renames");
		goto out;
	}
	for (size_t i = 0; i < git_diff_num_deltas(d); i++) {
		const git_diff_delta *dl = git_diff_get_delta(d, i);
		if (dl->status != GIT_DELTA_RENAMED || strcmp(dl->new_file.path, newpath))
			continue;
		*blob = dl->old_file.id;
		for (size_t k = 0; k < mw->nrenamed; k++)
			if (!strcmp(mw->renamed_paths[k], dl->old_file.path)) {
				*path = nfiles + k;
				goto out;
			}
		char *copy = strdup(dl->old_file.path);
		if (!copy || grow(&mw->renamed, &mw->caprenamed, mw->nrenamed + 1, sizeof(qfile)) < 0 ||
		    grow(&mw->renamed_paths, &mw->caprenamed_paths, mw->nrenamed + 1, sizeof(char *)) < 0 ||
		    qfile_set_path(&mw->renamed[mw->nrenamed], h, copy) < 0) {
			free(copy);
			rc = fg_error_oom(err, NULL);
			goto out;
		}
		mw->renamed_paths[mw->nrenamed] = copy;
		*path = nfiles + mw->nrenamed++;
		break;
	}
out:
	git_diff_free(d);
	git_tree_free(a);
	git_tree_free(b);
	return rc;
}

/* A method's lines arrive at a commit: joined with the lines already
 * waiting there for the same method and path (git's union of ranges). */
static int method_arrive(fg_history *h, heap *q, mwalk *mw, size_t nfiles, size_t track, size_t path,
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
	if (grow(&mw->s, &mw->caps, mw->ns + 1, sizeof(mstate)) < 0) {
		fg_line_set_free(lines);
		return fg_error_oom(err, NULL);
	}
	mw->s[mw->ns] = (mstate){ .track = track, .path = path, .lines = *lines };
	memset(lines, 0, sizeof(*lines));
	if (in_window(h, ni))
		mw->t[track].live++;
	return chain_move(h, q, nfiles + mw->ns++, ni, err);
}

typedef struct mcand {
	size_t node, path;
	fg_line_set lines;
	fg_line_effect effect;
} mcand;

/* One commit of a method's walk, git's process_ranges_ordinary_commit and
 * process_ranges_merge_commit: the lines carried to each parent; shown when
 * every parent's diff touches them. */
static int method_step(fg_history *h, heap *q, qfile *files, size_t nfiles, mwalk *mw, size_t si, size_t ni,
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
		if ((rc = node_get(&pi, h, &pid, err)) < 0)
			goto out;
		if ((rc = parent_same(&same, h, ni, 0, pi, mpath(files, nfiles, mw, st.path), err)) < 0)
			goto out;
		if (same) {
			rc = method_arrive(h, q, mw, nfiles, st.track, st.path, &st.lines, pi, err);
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
			if ((rc = node_get(&c[p].node, h, &pid, err)) < 0 ||
			    (rc = parent_same(&same, h, ni, p, c[p].node, mpath(files, nfiles, mw, st.path), err)) < 0)
				break;
			ptree = h->nodes[c[p].node].tree;
		}
		if (same) {
			if (fg_line_set_copy(&c[p].lines, &st.lines) < 0)
				rc = fg_error_oom(err, NULL);
		} else {
			if (!have_blob) {
				if ((rc = blob_at(&blob, &found, h, &tree, mpath(files, nfiles, mw, st.path), err)) < 0 ||
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
			if ((rc = blob_at(&pblob, &pfound, h, &ptree, mpath(files, nfiles, mw, st.path), err)) < 0)
				break;
			if (!pfound) {
				size_t old;
				if ((rc = rename_source(&old, &pblob, h, mw, nfiles, &ptree, &tree,
							mpath(files, nfiles, mw, st.path)->path, err)) < 0)
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
			if (grow(&t->window, &t->capwindow, t->nwindow + 1, sizeof(mchange)) < 0) {
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
			rc = method_arrive(h, q, mw, nfiles, st.track, c[p].path, &c[p].lines, c[p].node, err);
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

/* git log -1 -- PATH at bad, for every file at once.  Under git's default
 * simplification a TREESAME commit keeps exactly one parent (its only one,
 * or at a merge the first parent the path is TREESAME to), so until the
 * first commit that is shown each file follows a single chain; files whose
 * chains share commits are handled together, commits popped newest first
 * like git's queue, and the walk stops when every file is resolved. */
static int chain_walk(fg_history *h, qfile *files, size_t nfiles, mwalk *mw, size_t *visited, fg_error *err)
{
	heap q = { 0 };
	int rc = 0;
	size_t unresolved = nfiles; /* files, then methods too */
	size_t files_unresolved = nfiles;
	size_t bad_idx;
	if ((rc = node_get(&bad_idx, h, &h->bad, err)) < 0)
		return rc;
	for (size_t i = 0; i < nfiles; i++)
		if ((rc = chain_move(h, &q, i, bad_idx, err)) < 0)
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
		if ((rc = method_arrive(h, &q, mw, nfiles, t, mw->t[t].file, &lines, bad_idx, err)) < 0)
			goto out;
	}

	size_t *pending = NULL, npending = 0, cappending = 0;
	while (unresolved && q.n) {
		size_t ni = heap_pop(&q, h);
		(*visited)++;
		node *n = &h->nodes[ni];
		n->flags &= ~N_Q_CHAIN;
		/* Take the waiting files: moves below may append to this node
		 * again only through another visit. */
		if (grow(&pending, &cappending, n->nfiles, sizeof(size_t)) < 0) {
			rc = fg_error_oom(err, NULL);
			break;
		}
		npending = n->nfiles;
		if (npending)
			memcpy(pending, n->files, npending * sizeof(size_t));
		n->nfiles = 0;

		for (size_t k = 0; k < npending && rc == 0; k++) {
			if (pending[k] >= nfiles) {
				rc = method_step(h, &q, files, nfiles, mw, pending[k] - nfiles, ni, &unresolved, err);
				continue;
			}
			qfile *f = &files[pending[k]];
			uint32_t np = h->nodes[ni].nparents;
			size_t next = SIZE_MAX;
			for (uint32_t pi = 0; pi < np; pi++) {
				size_t pidx;
				git_oid pid = h->nodes[ni].parents[pi];
				bool same;
				if ((rc = node_get(&pidx, h, &pid, err)) < 0)
					break;
				if ((rc = parent_same(&same, h, ni, pi, pidx, f, err)) < 0)
					break;
				if (same) {
					next = pidx;
					break;
				}
			}
			if (rc < 0)
				break;
			if (next != SIZE_MAX) {
				rc = chain_move(h, &q, pending[k], next, err);
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
			if (!oidset_has(&h->ignored, &h->nodes[ni].id) || np == 0) {
				/* Not ignored, or ignored but the file starts here:
				 * nothing older to hand the blame to. */
				f->meaningful = ni;
				f->meaningful_shallow = boundary;
				f->phase = 2;
				unresolved--;
				files_unresolved--;
				continue;
			}
			/* An ignored bulk commit hands over to its first parent, as
			 * git blame passes lines through ignored commits. */
			size_t p0;
			git_oid pid = h->nodes[ni].parents[0];
			bool there;
			if ((rc = node_get(&p0, h, &pid, err)) < 0)
				break;
			git_oid ptree = h->nodes[p0].tree;
			if ((rc = present_at(&there, h, &ptree, f, err)) < 0)
				break;
			if (!there) {
				f->meaningful = ni;
				f->meaningful_shallow = boundary;
				f->phase = 2;
				unresolved--;
				files_unresolved--;
				continue;
			}
			rc = chain_move(h, &q, pending[k], p0, err);
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

/* ---- the window walk: git log good..bad -- PATH ----------------------------- */

#define LIMIT_SLOP 5

/* Marks a node and its known ancestors as ancestors of good. */
static int mark_uninteresting(fg_history *h, size_t start, size_t *interesting_queued, fg_error *err)
{
	size_t *stack = NULL, n = 0, cap = 0;
	int rc = 0;
	if (grow(&stack, &cap, 1, sizeof(size_t)) < 0)
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
			if ((rc = node_get(&pi, h, &pid, err)) < 0)
				goto out;
			if (grow(&stack, &cap, n + 1, sizeof(size_t)) < 0) {
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
static int window_walk(fg_history *h, qfile *files, size_t nfiles, size_t *visited, fg_error *err)
{
	heap q = { 0 };
	size_t interesting_queued = 0;
	size_t bad_idx, good_idx;
	size_t words = (nfiles + 63) / 64;
	uint64_t *bits = NULL;
	size_t nbits = 0, capbits = 0; /* in words */
	size_t popped = 0;
	int rc;
	if ((rc = node_get(&bad_idx, h, &h->bad, err)) < 0 || (rc = node_get(&good_idx, h, &h->good, err)) < 0)
		return rc;
	for (size_t i = 0; i < h->nnodes; i++)
		h->nodes[i].indeg = SIZE_MAX; /* offset of the node's bits, none yet */
#define NODE_BITS(ni) (h->nodes[ni].indeg)
	if (grow(&bits, &capbits, words, sizeof(uint64_t)) < 0)
		return fg_error_oom(err, NULL);
	memset(bits, 0, words * sizeof(uint64_t));
	nbits = words;
	NODE_BITS(bad_idx) = 0;
	for (size_t f = 0; f < nfiles; f++)
		bits[f / 64] |= (uint64_t)1 << (f % 64);

	/* As git sets up a negative revision: good is read, and its parents
	 * are known to be uninteresting from the start. */
	h->nodes[bad_idx].flags |= N_PARSED;
	rc = mark_uninteresting(h, good_idx, &interesting_queued, err);
	h->nodes[good_idx].flags |= N_SEEN | N_Q_LIMIT | N_PARSED;
	for (uint32_t p = 0; rc == 0 && p < h->nodes[good_idx].nparents; p++) {
		size_t pi;
		git_oid pid = h->nodes[good_idx].parents[p];
		if ((rc = node_get(&pi, h, &pid, err)) == 0)
			rc = mark_uninteresting(h, pi, &interesting_queued, err);
	}
	if (rc < 0 || heap_push(&q, h, good_idx) < 0) {
		free(bits);
		return rc < 0 ? rc : fg_error_oom(err, NULL);
	}
	if (!(h->nodes[bad_idx].flags & N_SEEN)) {
		h->nodes[bad_idx].flags |= N_SEEN | N_Q_LIMIT;
		interesting_queued++;
		if (heap_push(&q, h, bad_idx) < 0) {
			free(q.v);
			free(bits);
			return fg_error_oom(err, NULL);
		}
	}
	int slop = LIMIT_SLOP;
	int64_t oldest_interesting = INT64_MAX;
	while (q.n && rc == 0) {
		size_t ni = heap_pop(&q, h);
		(*visited)++;
		h->nodes[ni].flags &= ~N_Q_LIMIT;
		h->nodes[ni].flags |= N_POPPED;
		bool unint = (h->nodes[ni].flags & N_UNINTERESTING) != 0;
		uint32_t np = h->nodes[ni].nparents;
		for (uint32_t p = 0; p < np && rc == 0; p++) {
			size_t pi;
			git_oid pid = h->nodes[ni].parents[p];
			if ((rc = node_get(&pi, h, &pid, err)) < 0)
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
				if ((rc = node_get(&gi, h, &gid, err)) == 0)
					rc = mark_uninteresting(h, gi, &interesting_queued, err);
			}
			if (rc == 0 && !(h->nodes[pi].flags & N_SEEN)) {
				h->nodes[pi].flags |= N_SEEN | N_Q_LIMIT;
				if (!(h->nodes[pi].flags & N_UNINTERESTING))
					interesting_queued++;
				if (heap_push(&q, h, pi) < 0)
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
		if (NODE_BITS(ni) == SIZE_MAX)
			continue; /* no file's simplified walk reaches it */
		git_oid tree = h->nodes[ni].tree;
		for (size_t f = 0; f < nfiles && rc == 0; f++) {
			if (!(bits[NODE_BITS(ni) + f / 64] & ((uint64_t)1 << (f % 64))))
				continue;
			bool shown = false;
			size_t follow = SIZE_MAX;
			if (np == 0) {
				/* A root (or shallow boundary) is shown when it has
				 * the path. */
				if ((rc = present_at(&shown, h, &tree, &files[f], err)) < 0)
					break;
			} else {
				unsigned relevant_parents = 0;
				bool relevant_change = false, irrelevant_change = false;
				for (uint32_t p = 0; p < np; p++) {
					size_t pi = map_find(h, &h->nodes[ni].parents[p]);
					bool relevant = !(h->nodes[pi].flags & N_UNINTERESTING) || pi == good_idx;
					relevant_parents += relevant;
					bool same;
					if ((rc = parent_same(&same, h, ni, p, pi, &files[f], err)) < 0)
						break;
					if (same && relevant) {
						follow = pi;
						break;
					}
					if (!same && relevant)
						relevant_change = true;
					else if (!same)
						irrelevant_change = true;
				}
				if (rc < 0)
					break;
				shown = follow == SIZE_MAX && (relevant_parents ? relevant_change : irrelevant_change);
				for (uint32_t p = 0; p < np; p++) {
					size_t pi = map_find(h, &h->nodes[ni].parents[p]);
					if (follow != SIZE_MAX && pi != follow)
						continue;
					if (NODE_BITS(pi) == SIZE_MAX) {
						if (grow(&bits, &capbits, nbits + words, sizeof(uint64_t)) < 0) {
							rc = fg_error_oom(err, NULL);
							break;
						}
						memset(bits + nbits, 0, words * sizeof(uint64_t));
						NODE_BITS(pi) = nbits;
						nbits += words;
					}
					bits[NODE_BITS(pi) + f / 64] |= (uint64_t)1 << (f % 64);
				}
			}
			if (rc == 0 && shown) {
				qfile *qf = &files[f];
				if (grow(&qf->window, &qf->capwindow, qf->nwindow + 1, sizeof(size_t)) < 0)
					rc = fg_error_oom(err, NULL);
				else
					qf->window[qf->nwindow++] = ni;
			}
		}
	}
#undef NODE_BITS
	free(q.v);
	free(bits);
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
	if (grow(&r->strings, &r->capstrings, r->nstrings + 1, sizeof(char *)) < 0)
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
	if (git_commit_lookup(&c, h->repo, &h->nodes[ni].id) < 0)
		return git_fail(err, NULL, "cannot read commit");
	if (grow(&r->commits, &r->capcommits, r->ncommits + 1, sizeof(fg_history_commit)) < 0) {
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
static int method_setup(fg_history *h, fg_history_result *r, qfile *files, size_t nfiles, const size_t *entry_file,
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
	if ((rc = node_get(&bad_idx, h, &h->bad, err)) < 0)
		goto out;
	for (size_t i = 0; i < r->count && rc == 0; i++) {
		size_t fi = entry_file[i];
		fg_history_method *m = &r->methods[i];
		m->changed_in_window = -1;
		m->ranges = &r->method_ranges[i * FG_METHOD_MAX_RANGES];
		if (fi == SIZE_MAX)
			continue;
		r->entries[i].method = m;
		if (!scans[fi] && !unreadable[fi]) {
			git_oid tree = h->nodes[bad_idx].tree, id;
			bool found;
			git_blob *blob = NULL;
			fg_method_lang lang = FG_METHOD_JAVA;
			fg_method_lang_of_path(&lang, files[fi].path);
			if ((rc = blob_at(&id, &found, h, &tree, &files[fi], err)) < 0)
				break;
			if (!found || git_blob_lookup(&blob, h->repo, &id) < 0) {
				unreadable[fi] = true; /* a blobless clone without this blob */
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
			m->reason = "the file's content is not in this clone (a partial clone?)";
			continue;
		}
		fg_javaclass_parts parts;
		char typed[2 * FG_JAVACLASS_MAX_FRAME + 3];
		const char *frame = typed_frame(typed, sizeof(typed), h, &r->entries[i]);
		if (fg_javaclass_parse(&parts, frame, err) != 1) {
			m->status = FG_METHOD_NOT_FOUND;
			m->reason = "not a Java frame";
			continue;
		}
		fg_method_match match;
		fg_method_find(&match, scans[fi], &parts);
		m->status = match.status;
		m->reason = match.reason;
		m->generated = fg_method_scan_generated(scans[fi]);
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
static int method_assemble(fg_history *h, fg_history_result *r, mwalk *mw, fg_error *err)
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
			m->status = FG_METHOD_UNRESOLVED;
			m->reason = "a version of the file the history needs is not in this clone (a blobless partial "
				    "clone: clone without --filter)";
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
		char *fcopy = result_strdup(r, frame);
		char *ccopy = jc == 1 ? result_strdup(r, cls) : NULL;
		if (!fcopy || (jc == 1 && !ccopy)) {
			rc = fg_error_oom(err, NULL);
			break;
		}
		size_t nent = ncand ? ncand : 1;
		if (grow(&r->entries, &r->cap, r->count + nent, sizeof(fg_history_entry)) < 0 ||
		    grow(&entry_file, &cap_entry_file, r->count + nent, sizeof(size_t)) < 0) {
			rc = fg_error_oom(err, NULL);
			break;
		}
		for (size_t k = 0; k < nent; k++) {
			fg_history_entry *e = &r->entries[r->count];
			memset(e, 0, sizeof(*e));
			e->frame = fcopy;
			e->class_path = ccopy;
			e->candidates = ncand;
			e->changed_in_window = -1;
			entry_file[r->count] = SIZE_MAX;
			if (ncand) {
				srcfile *s = &h->src[cand[k]];
				e->path = s->path;
				if (s->file_id == SIZE_MAX) {
					if (grow(&files, &capfiles, nfiles + 1, sizeof(qfile)) < 0) {
						rc = fg_error_oom(err, NULL);
						break;
					}
					if (qfile_set_path(&files[nfiles], h, s->path) < 0) {
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

	mwalk mw = { 0 };
	if (rc == 0 && methods)
		rc = method_setup(h, r, files, nfiles, entry_file, &mw, err);
	/* The window first: the methods' walk needs to know which commits are
	 * in it. */
	if (rc == 0 && nfiles && h->has_good)
		rc = window_walk(h, files, nfiles, &r->visited, err);
	if (rc == 0 && nfiles)
		rc = chain_walk(h, files, nfiles, methods ? &mw : NULL, &r->visited, err);
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
		rc = method_assemble(h, r, &mw, err);
	r->filter_skipped = h->filter_skipped;
	r->filter_maybe = h->filter_maybe;
	mwalk_free(&mw);
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

int fg_history_query(fg_history_result **out, fg_history *h, const char *const *frames, size_t count,
		     fg_error *err)
{
	return query(out, h, frames, count, false, err);
}

int fg_history_query_methods(fg_history_result **out, fg_history *h, const char *const *frames, size_t count,
			     fg_error *err)
{
	return query(out, h, frames, count, true, err);
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
	if (git_commit_lookup(&gc, h->repo, &h->good) < 0 || git_commit_tree(&gt, gc) < 0 ||
	    git_commit_lookup(&bc, h->repo, &h->bad) < 0 || git_commit_tree(&bt, bc) < 0)
		rc = git_fail(err, NULL, "cannot read the window's trees");
	else if (git_diff_tree_to_tree(&diff, h->repo, gt, bt, NULL) < 0)
		rc = git_fail(err, NULL, "cannot diff the window's trees");
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
