/* fgbisect — a hash map from keys of up to three 64-bit words to a 64-bit
 * value, for the binary readers: constant-pool entries by (type, key),
 * memoised names by id, samples aggregated by (stack, thread, class).
 *
 * Open addressing, linear probing, grown at 50% load.  Entries are never
 * removed one by one; fg_keymap_clear forgets all of them and keeps the
 * memory (one map serves every chunk of a recording). */
#ifndef FG_KEYMAP_H
#define FG_KEYMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"

typedef struct fg_keymap_entry {
	uint64_t key[3];
	uint64_t value;
	bool used;
} fg_keymap_entry;

/* A zeroed struct is an empty map. */
typedef struct fg_keymap {
	fg_keymap_entry *entries;
	uint32_t mask;   /* capacity - 1; 0 while nothing is allocated */
	uint32_t count;
} fg_keymap;

/* The value of key (a, b, c), or NULL. */
uint64_t *fg_keymap_get(const fg_keymap *map, uint64_t a, uint64_t b, uint64_t c);

/* The value of key (a, b, c), added with value 0 when absent (*added says
 * which).  The pointer is valid until the next insertion. */
int fg_keymap_put(uint64_t **value, bool *added, fg_keymap *map, uint64_t a, uint64_t b, uint64_t c,
		  fg_error *err);

/* Entry slots for iteration: 0 .. fg_keymap_capacity - 1, those with .used. */
uint32_t fg_keymap_capacity(const fg_keymap *map);

void fg_keymap_clear(fg_keymap *map);
void fg_keymap_free(fg_keymap *map);

#endif
