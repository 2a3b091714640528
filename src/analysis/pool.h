/* fgbisect — several profiles read as one (a day of three brokers looked at
 * as one): each profile is streamed into the same visitor, so its counts
 * add to the others' (sample counts added: the pooled tree, the pooled
 * counts), while the protocol detector sees the same frames; then the pairs
 * that must not be pooled (gRPC with REST, different events or units) are
 * found by fg_compare_find_conflict, the guard of `diff`.  The reading is
 * the caller's (the command layer's), one profile at a time:
 * fg_pool_begin, the reader with fg_pool_visitor, fg_pool_end. */
#ifndef FG_POOL_H
#define FG_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/compare.h"
#include "model/profile.h"

typedef struct fg_pool fg_pool;

/* inner: the analysis every profile is streamed into (frames, and stack
 * when it takes whole stacks); its stop and inert are not used, since the
 * detector sees every frame.  names and inner's context must outlive the
 * pool. */
int fg_pool_new(fg_pool **out, const fg_names *names, const fg_visitor *inner, fg_error *err);
void fg_pool_free(fg_pool *p);

/* The visitor to give the reader for each profile (ctx = the pool). */
fg_visitor fg_pool_visitor(fg_pool *p);

/* Starts the next profile: location is what is read, source what is shown
 * (both must outlive the pool). */
int fg_pool_begin(fg_pool *p, const char *location, const char *source, fg_error *err);

/* Ends the profile begun, as its reading found it (info): its protocol,
 * event, unit and total recorded as a fg_compare_input.  Fails
 * (FG_EINVALID) when the pooled total would overflow. */
int fg_pool_end(fg_pool *p, const fg_profile_info *info, fg_error *err);

/* The profiles ended, in order. */
size_t fg_pool_count(const fg_pool *p);
const fg_compare_input *fg_pool_inputs(const fg_pool *p);

/* The pooled info: the first profile's, its total the sum of the totals
 * and its frames the sum of the frames visited.  Only after one fg_pool_end
 * at least. */
const fg_profile_info *fg_pool_info(const fg_pool *p);

#endif
