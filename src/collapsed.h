/* fgbisect — collapsed stacks: `frame;frame;frame COUNT` per line, as
 * async-profiler (plain or annotated with _[j] _[i] _[k] _[0] _[1]),
 * FlameGraph's stackcollapse scripts and inferno write them. */
#ifndef FG_COLLAPSED_H
#define FG_COLLAPSED_H

#include <stdio.h>

#include "input.h"
#include "profile.h"
#include "tree.h"

/* Adds every line of `in` to tree (root-first stacks; leaf-first when
 * reversed is set). */
int fg_collapsed_read(fg_profile_info *info, fg_tree *tree, fg_input *in, fg_names *names,
		      bool reversed, fg_error *err);

/* Splits a type suffix off a frame name: returns the name's length without
 * it and sets *type; without a suffix the type is guessed from the name the
 * way async-profiler's converter does. */
size_t fg_collapsed_frame_type(const char *name, size_t len, uint8_t *type);

typedef struct fg_collapsed_write_options {
	bool annotate; /* every type suffix (_[j], _[i], _[0], _[1], _[k]); default false: only _[k], as async-profiler's plain output */
} fg_collapsed_write_options;

/* Writes the tree as collapsed stacks, one line per stack with self samples,
 * in the tree's visiting order (callers first, siblings by name bytes). */
int fg_collapsed_write(FILE *out, const fg_tree *tree, const fg_names *names,
		       const fg_collapsed_write_options *opts, fg_error *err);

#endif
