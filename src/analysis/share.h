/* fgbisect — the share of frame patterns in a profile, streamed.
 *
 * Inclusive samples of a pattern: samples whose stack holds at least one
 * matching frame, counted once per stack (the widths of the outermost
 * matching frames).  Self samples: samples whose leaf matches.  Memory is
 * per name and per depth, never per frame. */
#ifndef FG_SHARE_H
#define FG_SHARE_H

#include "model/match.h"
#include "model/profile.h"

typedef struct fg_share fg_share;

/* The matcher must outlive the analysis. */
int fg_share_new(fg_share **out, fg_matcher *matcher, const fg_names *names, fg_error *err);
void fg_share_free(fg_share *share);

/* Forgets the counts, for the next profile. */
void fg_share_reset(fg_share *share);

/* Only the inclusive share is wanted, from now on: fg_share_self then
 * answers 0, and the frames under a matching frame that match nothing
 * themselves are not looked at (their totals are summed only for the
 * self share). */
void fg_share_inclusive_only(fg_share *share);

/* The visitor to give the reader (ctx = the fg_share): frames, or whole
 * stacks (a stack counts once per pattern, its leaf for the self share). */
int fg_share_frames(void *share, const fg_frame *frames, size_t n, fg_error *err);
int fg_share_stack(void *share, const fg_stack *stack, fg_error *err);
/* The visitor's stop function (fg_stop_fn): a name that matches every
 * pattern ends what a stack needs from the leaf up.  fg_share_stack takes
 * the partial stacks a reader then hands it. */
int fg_share_stop(void *share, uint32_t name, bool *stop, fg_error *err);
/* The visitor's inert function (fg_inert_fn): a name that matches no
 * pattern changes nothing but as a stack's leaf (where it matches nothing
 * either), so a reader may leave it out of the stacks it hands. */
int fg_share_inert(void *share, uint32_t name, bool *inert, fg_error *err);

uint64_t fg_share_samples(const fg_share *share, size_t pattern);
uint64_t fg_share_self(const fg_share *share, size_t pattern);
/* False when the pattern matched no frame at all (a typo?). */
bool fg_share_matched(const fg_share *share, size_t pattern);

#endif
