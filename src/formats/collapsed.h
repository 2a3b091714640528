/* fgbisect — collapsed stacks: `frame;frame;frame COUNT` per line, as
 * async-profiler (plain or annotated with _[j] _[i] _[k] _[0] _[1]),
 * FlameGraph's stackcollapse scripts and inferno write them. */
#ifndef FG_COLLAPSED_H
#define FG_COLLAPSED_H

#include <stdio.h>

#include "io/input.h"
#include "model/profile.h"
#include "model/tree.h"

/* Streams every line of `in` to fn as a stack (root-first; the file's
 * stacks are leaf-first when opts->reversed is set), in file order, in
 * memory bounded by the longest line.  A file of two counts a line, `stack
 * BASE CURRENT` (async-profiler's --diff, difffolded.pl), gives the CURRENT
 * counts, or the BASE ones under opts->base_column, and sets
 * info->differential.  opts may be NULL (the defaults).  Sets info->total
 * (the samples) and info->frames (the stacks).  Fails with FG_EINVALID on a
 * malformed line, counts that overflow, a file that mixes one- and
 * two-count lines, or a file without samples; with FG_EUSAGE when
 * opts->base_column asks for a column a one-count file does not have. */
int fg_collapsed_read(fg_profile_info *info, fg_input *in, fg_names *names, const fg_read_options *opts,
		      fg_stack_fn fn, void *ctx, fg_error *err);

/* Splits a type suffix off a frame name: returns the name's length without
 * it and sets *type; without a suffix the type is guessed from the name the
 * way async-profiler's converter does. */
size_t fg_collapsed_frame_type(const char *name, size_t len, uint8_t *type);

typedef struct fg_collapsed_write_options {
	bool annotate; /* every type suffix (_[j], _[i], _[0], _[1], _[k]); default false: only _[k], as async-profiler's plain output */
} fg_collapsed_write_options;

/* Writes the tree as collapsed stacks, one line per stack with self samples,
 * in the tree's visiting order (callers first, siblings by name bytes): the
 * reference the sorter below is checked against.
 * Samples that stopped at the root (its self count: a root wider than its
 * children) are not written: a collapsed line cannot hold an empty stack. */
int fg_collapsed_write(FILE *out, const fg_tree *tree, const fg_names *names,
		       const fg_collapsed_write_options *opts, fg_error *err);

/* The sorted output of `collapse` without a call tree: the frames of a DFS
 * stream kept as they come, 17 bytes a frame (name, type, count, where the
 * frame's subtree ends) against a tree's 48-byte node and its index; when
 * written, the siblings of one name and kernel-ness are merged level by
 * level (their subtrees together), which gives fg_collapsed_write's bytes
 * for the tree the same frames build (fuzz_collapsed checks it).  Cost: the
 * frames streamed (for an HTML page, its frames; for stack input, the
 * reader's tree's nodes), plus, while written, the children of the frames
 * merged along the current stack. */
typedef struct fg_collapsed_sorter fg_collapsed_sorter;

/* map: optional, as fg_tree_add_mapped_frames takes it (--normalise: every
 * name but the root's replaced by what map gives, so that the siblings
 * whose names normalise alike merge). */
int fg_collapsed_sorter_new(fg_collapsed_sorter **out, fg_name_map_fn map, void *map_ctx, fg_error *err);
void fg_collapsed_sorter_free(fg_collapsed_sorter *s);

/* The fg_frames_fn (ctx = the sorter). */
int fg_collapsed_sorter_frames(void *s, const fg_frame *frames, size_t n, fg_error *err);

/* Writes the frames streamed as fg_collapsed_write writes their tree. */
int fg_collapsed_sorter_write(FILE *out, const fg_collapsed_sorter *s, const fg_names *names,
			      const fg_collapsed_write_options *opts, fg_error *err);

/* The samples that stopped at the root (its self count): not written. */
uint64_t fg_collapsed_sorter_root_samples(const fg_collapsed_sorter *s);

/* Collapsed stacks written as the profile streams, in the input's order
 * (--unsorted): memory is the longest stack, whatever the input's size.
 * From frames (DFS), a stack is written when its leaf closes, so callees
 * come before their callers and same-named siblings of the input give two
 * lines; from stacks, each line as it comes (the same stack may recur).
 * What was written before an error stays written. */
typedef struct fg_collapsed_stream fg_collapsed_stream;

int fg_collapsed_stream_new(fg_collapsed_stream **out, FILE *f, const fg_names *names,
			    const fg_collapsed_write_options *opts, fg_error *err);
void fg_collapsed_stream_free(fg_collapsed_stream *s);

/* The visitor (ctx = the stream). */
int fg_collapsed_stream_frames(void *s, const fg_frame *frames, size_t n, fg_error *err);
int fg_collapsed_stream_stack(void *s, const fg_stack *stack, fg_error *err);

/* The samples streamed so far that stopped at the root (empty stacks): not
 * written, as fg_collapsed_write leaves them out. */
uint64_t fg_collapsed_stream_root_samples(const fg_collapsed_stream *s);

#endif
