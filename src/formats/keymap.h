/* fgbisect — a hash map from keys of up to three 64-bit words to a 64-bit
 * value, for the binary readers: constant-pool entries by (type, key),
 * memoised names by id, samples aggregated by (stack, thread, class).
 *
 * A table of base/hashtab.h with the key inline.  Entries are never
 * removed one by one; fg_keymap_clear forgets all of them and keeps the
 * memory (one map serves every chunk of a recording). */
#ifndef FG_KEYMAP_H
#define FG_KEYMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "base/hashtab.h"

typedef struct fg_keymap_entry {
	uint64_t key[3];
	uint64_t value;
	bool used;
} fg_keymap_entry;

/* A zeroed struct is an empty map. */
typedef struct fg_keymap {
	fg_hashtab table;  /* of fg_keymap_entry */
} fg_keymap;

/* The value of key (a, b, c), or NULL. */
uint64_t *fg_keymap_get(const fg_keymap *map, uint64_t a, uint64_t b, uint64_t c);

/* The value of key (a, b, c), added with value 0 when absent (*added says
 * which).  The pointer is valid until the next insertion. */
int fg_keymap_put(uint64_t **value, bool *added, fg_keymap *map, uint64_t a, uint64_t b, uint64_t c,
		  fg_error *err);

/* Entry slots for iteration: fg_keymap_at(map, 0 .. fg_keymap_capacity - 1),
 * those with .used. */
uint32_t fg_keymap_capacity(const fg_keymap *map);
static inline const fg_keymap_entry *fg_keymap_at(const fg_keymap *map, uint32_t i)
{
	return (const fg_keymap_entry *)map->table.slots + i;
}

void fg_keymap_clear(fg_keymap *map);
void fg_keymap_free(fg_keymap *map);

#endif
