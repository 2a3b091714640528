/* fgbisect — a materialised call tree with total and self counts per node.
 *
 * Built only by what needs one (collapse, diff, the SVG, collapsed input):
 * from a DFS frame stream (same-named siblings merge, which is how
 * normalised names pool) or from whole stacks. */
#ifndef FG_TREE_H
#define FG_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

#define FG_TREE_NONE UINT32_MAX

typedef struct fg_tree_node {
	uint64_t total;
	uint64_t self;         /* valid after fg_tree_finish */
	uint32_t name;
	uint32_t parent;       /* FG_TREE_NONE for the root */
	uint32_t first_child;  /* newest first; FG_TREE_NONE when a leaf */
	uint32_t next_sibling;
	uint32_t depth;
	uint32_t nchildren;
	uint8_t type;
} fg_tree_node;

/* Cost: one node per distinct path (calls) of the profile, children found
 * by hash; memory grows with the distinct paths, not with the samples.
 * Not thread-safe while built; read-only walks may share it. */
typedef struct fg_tree fg_tree;

/* root_name: the interned name of the root ("all"). */
int fg_tree_new(fg_tree **out, uint32_t root_name, fg_error *err);
void fg_tree_free(fg_tree *tree);

/* An fg_frames_fn (ctx = the tree): adds a batch of frames of a DFS stream.
 * The end call (frames == NULL) finishes the tree. */
int fg_tree_add_frames(void *tree, const fg_frame *frames, size_t n, fg_error *err);

/* The same with every name but the root's (depth 0) replaced by what map
 * gives (e.g. fg_namemap_get: normalised names, so that the siblings whose
 * names normalise alike merge).  The end call is passed on. */
int fg_tree_add_mapped_frames(fg_tree *tree, const fg_frame *frames, size_t n, fg_name_map_fn map, void *map_ctx,
			      fg_error *err);

/* Adds count samples of a stack of n frames, root-first, root excluded. */
int fg_tree_add_stack(fg_tree *tree, const uint32_t *names, const uint8_t *types, size_t n,
		      uint64_t count, fg_error *err);

/* Adds every path of from to tree (as if from's frames were added to it):
 * from's node names renumbered by names[] (from's name id -> tree's), its
 * root's counts added to tree's root.  from's nodes are taken in the order
 * they were made, so tree's new nodes get the ids adding the frames would
 * have given them.  Then finish tree again. */
int fg_tree_merge(fg_tree *tree, const fg_tree *from, const uint32_t *names, fg_error *err);

/* Renumbers every node's name, root's included, by names[] (as
 * fg_tree_merge into an empty tree would, without copying it). */
int fg_tree_rename(fg_tree *tree, const uint32_t *names, fg_error *err);

/* True while nothing was added to the tree. */
bool fg_tree_is_empty(const fg_tree *tree);

/* Computes self counts; fails when children outweigh a parent. */
int fg_tree_finish(fg_tree *tree, fg_error *err);

/* Streams the tree in DFS pre-order, siblings in byte order of their names,
 * in batches, then makes the end call fn(ctx, NULL, 0).  No recursion: depth
 * is unbounded. */
int fg_tree_visit(const fg_tree *tree, const fg_names *names, fg_frames_fn fn, void *ctx, fg_error *err);

/* Calls fn with every node id in the same order as fg_tree_visit. */
typedef int (*fg_tree_walk_fn)(void *ctx, uint32_t node, fg_error *err);
int fg_tree_walk(const fg_tree *tree, const fg_names *names, fg_tree_walk_fn fn, void *ctx, fg_error *err);

/* Node access; node 0 is the root. */
uint32_t fg_tree_size(const fg_tree *tree);
const fg_tree_node *fg_tree_node_at(const fg_tree *tree, uint32_t id);

/* Sets a node's frame type (a reader that merges frame types per node, as
 * async-profiler's converter does, decides them once the tree is whole).
 * The kernel-ness of the type must not change: it is part of the key. */
void fg_tree_set_type(fg_tree *tree, uint32_t id, uint8_t type);

/* Child of parent with this name (and kernel-ness of type), or FG_TREE_NONE. */
uint32_t fg_tree_find_child(const fg_tree *tree, uint32_t parent, uint32_t name, uint8_t type);

#endif
