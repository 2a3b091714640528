/* fgbisect — the one open-addressing hash table: a power-of-two array of
 * fixed-size slots, linear probing, doubled before an insertion would fill
 * it past one half.
 *
 * The table knows slots, not keys: what a slot holds is its user's (a key
 * inline, as the tree's and the binary readers' maps keep it so that a probe
 * touches the table only, or an id into the user's own array, as the
 * interner does), and a slot of zero bytes is empty.  The probe and the
 * grow are inline and take the user's test and hash as functions: with
 * constant functions, declared inline too, the compiler writes each
 * table's loop as if by hand (the interner and the tree are on every
 * frame's path).  Slots are never removed one by one;
 * fg_hashtab_clear forgets all of them and keeps the memory. */
#ifndef FG_HASHTAB_H
#define FG_HASHTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/error.h"

/* A zeroed struct is an empty table with nothing allocated. */
typedef struct fg_hashtab {
	void *slots;
	uint32_t mask;   /* capacity - 1; 0 while nothing is allocated */
	uint32_t count;  /* slots in use: the user counts the slot it fills */
} fg_hashtab;

/* Empties every slot, keeping the memory. */
void fg_hashtab_clear(fg_hashtab *t, size_t size);

void fg_hashtab_free(fg_hashtab *t);

/* True when slot is empty or holds the key: the probe stops there. */
typedef bool (*fg_hashtab_stop_fn)(const void *slot, const void *key);

/* False when slot is empty; else true, *hash the hash of the key it holds
 * (ctx as given to the grow). */
typedef bool (*fg_hashtab_hash_fn)(uint64_t *hash, const void *slot, const void *ctx);

/* Allocates capacity (a power of two, 2 to 2^31) slots of size bytes in an
 * empty table.  FG_ENOMEM when out of memory. */
int fg_hashtab_init(fg_hashtab *t, size_t size, uint64_t capacity, fg_error *err);

/* True when one more used slot would fill the table past one half. */
static inline bool fg_hashtab_full(const fg_hashtab *t)
{
	return (uint64_t)(t->count + 1) * 2 > (uint64_t)t->mask + 1;
}

/* Slots of size bytes for a table of capacity slots (2^31 at most),
 * zeroed; NULL with err set when there cannot be so many. */
void *fg_hashtab_alloc(uint64_t capacity, size_t size, fg_error *err);

/* Doubles the table (from 1024 slots when nothing is allocated), placing
 * every used slot again at its hash.  FG_ENOMEM past 2^31 slots or out of
 * memory (the table is then unchanged).  Inline like the probe: the hash
 * function is then called directly.  (A user that keeps its keys' hashes
 * in an array of its own, as the interner does, may rather fg_hashtab_init
 * a table twice the size and probe each key's empty slot in it: one
 * sequential pass instead of one lookup a slot.) */
static inline int fg_hashtab_grow(fg_hashtab *t, size_t size, fg_hashtab_hash_fn hash, const void *ctx,
				  fg_error *err)
{
	uint32_t old_cap = t->slots ? t->mask + 1 : 0;
	uint64_t cap = old_cap ? (uint64_t)old_cap * 2 : 1024;
	char *slots = fg_hashtab_alloc(cap, size, err);
	if (!slots)
		return FG_ENOMEM;
	fg_hashtab grown = { slots, (uint32_t)(cap - 1), t->count };
	for (uint32_t k = 0; k < old_cap; k++) {
		const char *s = (const char *)t->slots + (size_t)k * size;
		uint64_t h, e;
		if (!hash(&h, s, ctx))
			continue;
		uint32_t i = (uint32_t)h & grown.mask;
		while (hash(&e, slots + (size_t)i * size, ctx))
			i = (i + 1) & grown.mask;
		memcpy(slots + (size_t)i * size, s, size);
	}
	fg_hashtab_free(t);
	*t = grown;
	return 0;
}

/* Makes room for one more slot: grows when one more would pass half load.
 * 1 when it grew (slots found before have moved), 0 when not, or an error. */
static inline int fg_hashtab_reserve(fg_hashtab *t, size_t size, fg_hashtab_hash_fn hash, const void *ctx,
				     fg_error *err)
{
	if (!fg_hashtab_full(t)) /* (an unallocated table is: its mask is 0) */
		return 0;
	int rc = fg_hashtab_grow(t, size, hash, ctx, err);
	return rc ? rc : 1;
}

/* The slot holding key, or the empty slot where it belongs: the first slot
 * from hash on where stop is true.  The table must be allocated and not
 * full (fg_hashtab_reserve keeps it so). */
__attribute__((always_inline)) static inline void *fg_hashtab_probe(const fg_hashtab *t, size_t size, uint64_t hash, fg_hashtab_stop_fn stop,
				     const void *key)
{
	for (uint32_t i = (uint32_t)hash & t->mask;; i = (i + 1) & t->mask) {
		void *slot = (char *)t->slots + (size_t)i * size;
		if (stop(slot, key))
			return slot;
	}
}

/* Slots for iteration: 0 .. capacity - 1 (0 while nothing is allocated). */
static inline uint32_t fg_hashtab_capacity(const fg_hashtab *t)
{
	return t->slots ? t->mask + 1 : 0;
}


#endif
