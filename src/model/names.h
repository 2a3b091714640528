/* fgbisect — the name interner.
 *
 * Every frame name is stored once; the rest of the program handles 32-bit
 * ids, so per-name state is an array indexed by id and comparing two names
 * is comparing two integers. */
#ifndef FG_NAMES_H
#define FG_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* Cost: interning is one hash lookup (amortised O(length)); ids are dense
 * from 0 and strings stay at their address until fg_names_free.  Not
 * thread-safe: one fg_names per thread, or a lock around interning. */
typedef struct fg_names fg_names;

int fg_names_new(fg_names **out, fg_error *err);
void fg_names_free(fg_names *names);

/* Finds or adds name[0..len) (any bytes but NUL) and sets *id. */
int fg_names_intern(uint32_t *id, fg_names *names, const char *name, size_t len, fg_error *err);

/* The NUL-terminated name and its length; valid until fg_names_free. */
const char *fg_names_get(const fg_names *names, uint32_t id);
size_t fg_names_length(const fg_names *names, uint32_t id);

/* Number of distinct names; ids run from 0 to count - 1. */
uint32_t fg_names_count(const fg_names *names);

/* Every name's rank in byte order of the names (shorter first on a common
 * prefix): (*rank)[id], malloc'ed (free).  Sorting by rank is sorting by
 * name bytes with integer compares. */
int fg_names_rank(uint32_t **rank, const fg_names *names, fg_error *err);

#endif
