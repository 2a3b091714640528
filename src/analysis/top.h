/* fgbisect — the hottest frames of a profile, streamed.
 *
 * Per name: inclusive samples (stacks holding the name, each counted once
 * however deep it recurses) and self samples (stacks whose leaf it is).
 * With a name map (normalised names), names that normalise alike pool. */
#ifndef FG_TOP_H
#define FG_TOP_H

#include "model/profile.h"

typedef struct fg_top fg_top;

typedef struct fg_top_entry {
	uint32_t name;
	uint64_t samples;      /* inclusive */
	uint64_t self_samples;
} fg_top_entry;

/* map: optional (fg_name_map_fn, src/model/profile.h), translates each frame's
 * name id before counting (e.g. to its normalised name); it is called once
 * per distinct name. */
int fg_top_new(fg_top **out, fg_name_map_fn map, void *map_ctx, fg_error *err);
void fg_top_free(fg_top *top);

/* The visitor to give the reader (ctx = the fg_top): frames, or whole
 * stacks. */
int fg_top_frames(void *top, const fg_frame *frames, size_t n, fg_error *err);
int fg_top_stack(void *top, const fg_stack *stack, fg_error *err);

uint64_t fg_top_total(const fg_top *top);

/* The names with samples, sorted by self samples when self_order is set, else by
 * inclusive samples (ties: the other count, then name id).  *entries is
 * owned by the caller (free). */
int fg_top_entries(fg_top_entry **entries, size_t *n, const fg_top *top, bool self_order, fg_error *err);

/* Sorts entries as fg_top_entries does (after their names were renumbered). */
void fg_top_entries_sort(fg_top_entry *entries, size_t n, bool self_order);

#endif
