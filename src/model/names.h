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

/* The source file a profile names for the frame name id (pprof's
 * Function.filename, perf script -F +srcline): the first one given stays.
 * Files are interned apart from the names (they are not frames, and ids and
 * counts of names do not change): one copy each, nothing per frame. */
int fg_names_set_file(fg_names *names, uint32_t id, const char *file, size_t len, fg_error *err);
/* The file set for id, NULL when none; valid until fg_names_free. */
const char *fg_names_file(const fg_names *names, uint32_t id);
/* The same for a name given as text (names: an fg_names), NULL when it is
 * not a name of the table or has no file: the shape of
 * fg_history_options.frame_file. */
const char *fg_names_file_by_name(void *names, const char *name);

/* Every name's rank in byte order of the names (shorter first on a common
 * prefix): (*rank)[id], malloc'ed (free).  Sorting by rank is sorting by
 * name bytes with integer compares. */
int fg_names_rank(uint32_t **rank, const fg_names *names, fg_error *err);

#endif
