/* fgbisect — the frames that grew: from a computed diff, the names of the
 * frames that grew most and the names on their stacks (their callers in the
 * candidate's tree) — what the source history looks up and what the decision
 * weighs.  The one copy behind `hotfiles BASE CANDIDATE`, `diff --repo` and
 * `days --repo`.  Reentrant; cost: one walk of the candidate's tree. */
#ifndef FG_GROWERS_H
#define FG_GROWERS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/diff.h"
#include "base/error.h"
#include "model/names.h"

typedef struct fg_growers {
	uint32_t *frame_ids;  /* the first nframes grown entries, largest growth first */
	const char **frames;  /* their names (owned by the names table) */
	size_t nframes;
	uint32_t *stack_ids;  /* the distinct names on the stacks above the first nhot of them */
	const char **stack;   /* (fg_decision_stack_names), in increasing id order */
	size_t nstack;
} fg_growers;

/* Fills out from r, the result of fg_diff_compute on d, whose options had
 * trees set (the stacks come from the candidate's tree): nframes and nhot
 * are capped at the number of grown frames.  Returns 0, FG_EUSAGE when d
 * kept no trees, or FG_ENOMEM; out is always initialised. */
int fg_growers_find(fg_growers *out, const fg_diff *d, const fg_diff_result *r, const fg_names *names,
		    size_t nframes, size_t nhot, fg_error *err);

void fg_growers_clear(fg_growers *g);

#endif
