/* The history walk's internals, shared by its files (src/git/history*.c):
 * the repository handle with its caches, the commit nodes, the query's
 * files and the methods' walk.  Not a public header: history.h is. */
#ifndef FG_GIT_HISTORY_INTERNAL_H
#define FG_GIT_HISTORY_INTERNAL_H

#include "git/history.h"

#include <git2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashtab.h"
#include "git/commitgraph.h"
#include "git/linemap.h"
#include "git/method.h"
#include "git/pack.h"
#include "git/rawtree.h"
#include "git/repo.h"

/* ---- small helpers ------------------------------------------------------- */

/* An error from the last libgit2 call: its message, and for an object a
 * partial clone left out, how to get it. */
int fg_history_git_fail(fg_error *err, const char *source, const char *what);

/* Grows *arr (of elem bytes) so that it holds at least need elements. */
int fg_history_grow(void *arr, size_t *cap, size_t need, size_t elem);

static inline uint64_t oid_hash(const git_oid *id)
{
	uint64_t h;
	memcpy(&h, id->id, sizeof(h));
	return h;
}

static inline int oid_cmp_qsort(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

/* A sorted array of ids (shallow boundary, ignored revisions). */
typedef struct oidset {
	git_oid *ids;
	size_t count, cap;
} oidset;

static inline bool oidset_has(const oidset *s, const git_oid *id)
{
	return s->count && bsearch(id, s->ids, s->count, sizeof(git_oid), oid_cmp_qsort) != NULL;
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
	git_oid blob;          /* its content at bad (the native definition search reads it) */
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
	const char *(*frame_file)(void *ctx, const char *frame); /* the options' */
	void *frame_file_ctx;
	fg_repo_grafts *grafts; /* replace refs and info/grafts, NULL: none (src/git/repo.h) */
	char **warnings;       /* fg_history_warning */
	size_t nwarnings;

	srcfile *src;
	size_t nsrc, capsrc;

	fg_history_progress_fn progress;
	void *progress_ctx;

	/* The last tree diff rename detection made (history_rename.c): the
	 * methods of files that one commit moved all ask for it. */
	git_oid rename_a, rename_b;
	git_diff *rename_diff;

	node *nodes;
	size_t nnodes, capnodes;
	fg_hashtab map;        /* of size_t: node index + 1, 0 empty */

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

#define MAX_RAW_PARENTS 256

/* The commit git reads for id: its replacement (refs/replace), or itself. */
static inline const git_oid *fg_history_replaced(const fg_history *h, const git_oid *id)
{
	/* git_oid is its 20 bytes (libgit2 1.5; SHA-1 only, src/git/repo.c). */
	const unsigned char *r = fg_repo_grafts_replacement(h->grafts, id->id);
	return r ? (const git_oid *)(const void *)r : id;
}

/* Adds a warning (fg_history_warning) unless it is there already. */
int fg_history_warn(fg_history *h, fg_error *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A warning for a file whose versions the method walk needs and the
 * object database lacks: in a partial clone, the git command that fetches
 * them through its promisor remote; else, that the repository is damaged. */
int fg_history_warn_missing(fg_history *h, const char *path, fg_error *err);
/* The commit-graph no longer used: closed, and the commits read from it
 * forgotten (the trees read are objects: they stay). */
void fg_history_graph_drop(fg_history *h);

/* A max-heap of node indices by committer time; ties go to the node seen
 * first, as in git's date-ordered queue. */
typedef struct heap {
	size_t *v;
	size_t n, cap;
} heap;

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

static inline int stem_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);
	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
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

/* One more commit read by a walk: the progress callback every 1,024. */
static inline void fg_history_tick(fg_history *h, size_t *visited, const char *what)
{
	if (!(++*visited & 1023) && h->progress)
		h->progress(h->progress_ctx, what, *visited);
}

/* ---- tree cache (history_tree.c) ------------------------------------------ */

void fg_history_tcache_clear(fg_history *h);
/* The tree of id, from the cache or read and indexed; valid until the next
 * call (which may clear the cache). */
int fg_history_tree_get(const fg_rawtree **out, fg_history *h, const git_oid *idp, fg_error *err);

/* ---- nodes (history_node.c) ----------------------------------------------- */

/* The node index of a commit already read, SIZE_MAX when none. */
size_t fg_history_map_find(const fg_history *h, const git_oid *id);
/* The node of commit id, read on first use.  Node indices stay valid;
 * pointers do not (the array grows). */
int fg_history_node_get(size_t *out, fg_history *h, const git_oid *id, fg_error *err);
/* -1 when out of memory. */
int fg_history_heap_push(heap *q, const fg_history *h, size_t idx);
size_t fg_history_heap_pop(heap *q, const fg_history *h);

/* ---- path comparison (history_path.c) ------------------------------------- */

/* Splits path into the components path_same compares; -1 when out of memory. */
int fg_history_qfile_set_path(qfile *qf, const fg_history *h, const char *path);
/* Whether the file is at its path in the tree of tree_id. */
int fg_history_present_at(bool *out, fg_history *h, const git_oid *tree_id, const qfile *f, fg_error *err);
/* Whether the file's path is TREESAME between commit ni and its p-th parent pi. */
int fg_history_parent_same(bool *same, fg_history *h, size_t ni, uint32_t p, size_t pi, const qfile *f, fg_error *err);
/* The blob at a path of a commit's tree. */
int fg_history_blob_at(git_oid *out, bool *found, fg_history *h, const git_oid *root, const qfile *f, fg_error *err);

/* ---- native frames (history_native.c) ------------------------------------ */

/* The native frames of a query and the files that define their functions. */
typedef struct fg_history_native fg_history_native;
/* For the frames with searched[i] set (no Java file answers for them):
 * those that name a native function get their candidate files, from the
 * profile's file (opts->frame_file) or a definition search over the
 * C/C++/Rust/Go files of the bad tree (one pass, bounded: a warning says
 * so).  *out is set whatever the result (fg_history_native_free). */
int fg_history_native_resolve(fg_history_native **out, fg_history *h, const char *const *frames,
			      const bool *searched, size_t count, fg_error *err);
/* Frame i's candidates (indices of h->src, best first), at most max. */
size_t fg_history_native_candidates(const fg_history_native *nat, size_t frame, size_t *out, size_t max);
/* The function frame i names, NULL when it is not a native frame searched. */
const char *fg_history_native_function(const fg_history_native *nat, size_t frame);
void fg_history_native_free(fg_history_native *nat);
/* The frame's function in file f at the tree: its lines by git's driver
 * for the file's language (src/git/native.h). */
int fg_history_native_match(fg_method_match *out, fg_history *h, const git_oid *tree, const qfile *f,
			    const char *frame, fg_error *err);

/* ---- the walks (history_chain.c, history_method.c, history_window.c) ------- */

/* Queues file (or method state) fi at node to. */
int fg_history_chain_move(fg_history *h, heap *q, size_t fi, size_t to, fg_error *err);
/* git log -1 -- PATH at bad for every file, and the methods' walks with it. */
int fg_history_chain_walk(fg_history *h, qfile *files, size_t nfiles, mwalk *mw, size_t *visited, fg_error *err);
/* git log good..bad -- PATH for every file at once. */
int fg_history_window_walk(fg_history *h, qfile *files, size_t nfiles, size_t *visited, fg_error *err);
void fg_history_mwalk_free(mwalk *mw);
/* A method's lines arrive at commit ni (joined with those waiting there). */
int fg_history_method_arrive(fg_history *h, heap *q, mwalk *mw, size_t nfiles, size_t track, size_t path,
			 fg_line_set *lines, size_t ni, fg_error *err);
/* One commit of a method's walk (git log -L's ranges carried to the parents). */
int fg_history_method_step(fg_history *h, heap *q, qfile *files, size_t nfiles, mwalk *mw, size_t si, size_t ni,
		       size_t *unresolved, fg_error *err);
/* The methods of the entries found in the files at bad, a tracker each. */
int fg_history_method_setup(fg_history *h, fg_history_result *r, qfile *files, size_t nfiles, const size_t *entry_file,
			mwalk *mw, fg_error *err);
/* git log -L's rename detection for the file newpath that the commit of
 * tree_id adds (history_rename.c): its path in the parent (malloc'ed) and
 * blob there, *old_path NULL when none; 1 when a blob is not in the clone. */
int fg_history_find_rename(char **old_path, git_oid *old_blob, fg_history *h, const git_oid *ptree_id,
			   const git_oid *tree_id, const char *newpath, fg_error *err);
/* The methods' commits into the result, after commit_info has them all. */
int fg_history_method_assemble(fg_history *h, fg_history_result *r, mwalk *mw, fg_error *err);

#endif
