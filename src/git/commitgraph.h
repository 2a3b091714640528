/* fgbisect — git's commit-graph file (gitformat-commit-graph(5)), read
 * directly.  libgit2 1.5 reads it too, in its revision walk (commit_list.c
 * takes parents and commit times from it), but not its changed-path
 * filters, and the history walk (src/git/history*.c) is not libgit2's
 * revwalk: it needs each commit's tree and the filters.  For each commit it holds,
 * the root tree, the parents and the committer time, and — when the graph
 * was written with `--changed-paths` — the Bloom filter of the paths its
 * diff against its first parent changed.
 *
 * objects/info/commit-graph, else a split chain (objects/info/commit-graphs/
 * commit-graph-chain and its layers), SHA-1.  A graph that is not usable
 * (another format or hash version, chunks out of bounds, sizes that disagree
 * with the commit count; in a chain, a layer missing, not named by its own
 * hash, or not naming the layers below it) is ignored as a whole;
 * changed-path filters with an unknown hash version or settings (in a
 * chain: other than the top layer's) are ignored alone, and a filter whose
 * index entry does not fit the data answers "maybe".  A filter
 * only ever says that a path did NOT change: every other answer means "look
 * at the trees".
 *
 * The library never prints and never exits. */
#ifndef FG_COMMITGRAPH_H
#define FG_COMMITGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct fg_commitgraph fg_commitgraph;

#define FG_COMMITGRAPH_NONE UINT32_MAX

/* Maps `objects/info/commit-graph` under git's common directory, or the
 * layers of its split chain.  *out is NULL, and 0 returned, when there is no
 * graph or it is not usable; errors only for out of memory. */
int fg_commitgraph_open(fg_commitgraph **out, const char *commondir, fg_error *err);
/* The same over a copy of `size` bytes of one graph file (tests, fuzzing). */
int fg_commitgraph_from_buffer(fg_commitgraph **out, const void *data, size_t size, fg_error *err);
void fg_commitgraph_free(fg_commitgraph *g);

/* How many commits the graph holds. */
uint32_t fg_commitgraph_count(const fg_commitgraph *g);
/* The position of a commit (20-byte SHA-1), FG_COMMITGRAPH_NONE when the
 * graph does not hold it (a commit newer than the graph). */
uint32_t fg_commitgraph_find(const fg_commitgraph *g, const unsigned char id[20]);

typedef struct fg_commitgraph_commit {
	unsigned char tree[20];
	int64_t time;      /* committer time, seconds since the epoch */
	size_t nparents;
} fg_commitgraph_commit;

/* The commit at pos: tree, time, and its parents' ids in order into
 * parents (room for max).  FG_EINVALID when the entry is malformed (a
 * parent position out of range or the commit itself, a parent whose
 * topological level is not below the commit's, an unterminated octopus
 * list) or has more than max parents.  The level check makes every walk
 * over entries this accepts go down: no cycle, whatever the file says
 * (levels of 0, written before git had them, and the capped 2^30 - 1 are
 * not compared).  The tree id is as written: the caller finds out by
 * reading it whether it names a tree. */
int fg_commitgraph_commit_at(fg_commitgraph_commit *c, unsigned char (*parents)[20], size_t max,
			     const fg_commitgraph *g, uint32_t pos, fg_error *err);

/* The changed-path filter hash: 32-bit murmur3 of data under seed.  git's
 * filter version 1 read the bytes as C `char`, which is signed where git
 * is usually built: with signed_bytes, bytes of 0x80 and above are taken
 * sign-extended, as version 1 on those machines; version 2 (and version 1
 * on machines with unsigned char) takes them as they are. */
uint32_t fg_commitgraph_murmur3(uint32_t seed, const void *data, size_t len, bool signed_bytes);

/* A path's key in the graph's filters: the two seeded hashes of every
 * reading of the bytes the filters' version allows (two for a version-1
 * filter and a path with a byte of 0x80 or above: the writer's char may
 * have been signed or not; else one).  variants is 0 when the graph has
 * no usable filters. */
typedef struct fg_bloom_key {
	uint32_t h[2][2];
	unsigned variants;
} fg_bloom_key;

/* The key of path (len bytes, no trailing slash) under the graph's filter
 * settings. */
void fg_commitgraph_bloom_key(fg_bloom_key *key, const fg_commitgraph *g, const char *path, size_t len);
/* Whether the graph has changed-path filters it can read (hash version 1
 * or 2). */
bool fg_commitgraph_has_filters(const fg_commitgraph *g);
/* false only when the filter of the commit at pos says that the path of
 * key is not among the paths its first-parent diff changed; true ("maybe")
 * otherwise: the path's bits are all set, the commit has no filter (not
 * computed, or more changes than git puts in one), or the filter or key is
 * unusable. */
bool fg_commitgraph_maybe_changed(const fg_commitgraph *g, uint32_t pos, const fg_bloom_key *key);

#endif
