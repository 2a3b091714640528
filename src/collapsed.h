/* fgbisect — collapsed stacks: `frame;frame;frame COUNT` per line, as
 * async-profiler (plain or annotated with _[j] _[i] _[k] _[0] _[1]),
 * FlameGraph's stackcollapse scripts and inferno write them. */
#ifndef FG_COLLAPSED_H
#define FG_COLLAPSED_H

#include <stdio.h>

#include "input.h"
#include "profile.h"
#include "tree.h"

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
 * in the tree's visiting order (callers first, siblings by name bytes).
 * Samples that stopped at the root (its self count: a root wider than its
 * children) are not written: a collapsed line cannot hold an empty stack. */
int fg_collapsed_write(FILE *out, const fg_tree *tree, const fg_names *names,
		       const fg_collapsed_write_options *opts, fg_error *err);

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
