/* fgbisect — arrays indexed by name id, grown as new names appear.
 *
 * Analyses keep per-name state in plain arrays (a name id is an index), and
 * names are interned while a profile streams, so every such array grows on
 * demand the same way. */
#ifndef FG_IDARRAY_H
#define FG_IDARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The capacity that holds index id: cap doubled (from 1024) until id fits. */
uint32_t fg_idarray_capacity(uint32_t cap, uint32_t id);

/* Reallocates the array *array points to (elements of elem bytes) from old
 * to cap elements, filling the new ones with the byte fill.  Returns 0, or
 * -1 when out of memory (the array is then unchanged). */
int fg_idarray_resize(void *array, size_t elem, uint32_t old, uint32_t cap, int fill);

/* Grows a plain array *buf of *cap elements (elem bytes each) to hold need,
 * doubling from 64; the binary readers' tables.  False when out of memory
 * (the array is then unchanged). */
bool fg_array_reserve(void **buf, size_t *cap, size_t need, size_t elem);

#endif
