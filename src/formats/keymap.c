#include "formats/keymap.h"

#include <string.h>

static uint64_t hash3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t h = a * UINT64_C(0x9e3779b97f4a7c15) ^ (b + UINT64_C(0x632be59bd9b4e019)) * UINT64_C(0xc2b2ae3d27d4eb4f) ^
		     c * UINT64_C(0x165667b19e3779f9);
	/* murmur3's finaliser: keys are often small consecutive ids. */
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return h;
}

static inline bool entry_hash(uint64_t *hash, const void *slot, const void *ctx)
{
	(void)ctx;
	const fg_keymap_entry *e = slot;
	if (e->used)
		*hash = hash3(e->key[0], e->key[1], e->key[2]);
	return e->used;
}

static inline bool stop(const void *slot, const void *key)
{
	const fg_keymap_entry *e = slot;
	const uint64_t *k = key;
	return !e->used || (e->key[0] == k[0] && e->key[1] == k[1] && e->key[2] == k[2]);
}

static fg_keymap_entry *find(const fg_keymap *m, uint64_t a, uint64_t b, uint64_t c)
{
	const uint64_t key[3] = { a, b, c };
	return fg_hashtab_probe(&m->table, sizeof(fg_keymap_entry), hash3(a, b, c), stop, key);
}

uint64_t *fg_keymap_get(const fg_keymap *map, uint64_t a, uint64_t b, uint64_t c)
{
	if (!map->table.slots)
		return NULL;
	fg_keymap_entry *e = find(map, a, b, c);
	return e->used ? &e->value : NULL;
}

int fg_keymap_put(uint64_t **value, bool *added, fg_keymap *map, uint64_t a, uint64_t b, uint64_t c,
		  fg_error *err)
{
	int rc = fg_hashtab_reserve(&map->table, sizeof(fg_keymap_entry), entry_hash, NULL, err);
	if (rc < 0)
		return rc;
	fg_keymap_entry *e = find(map, a, b, c);
	*added = !e->used;
	if (!e->used) {
		*e = (fg_keymap_entry){ .key = { a, b, c }, .used = true };
		map->table.count++;
	}
	*value = &e->value;
	return 0;
}

uint32_t fg_keymap_capacity(const fg_keymap *map)
{
	return fg_hashtab_capacity(&map->table);
}

void fg_keymap_clear(fg_keymap *map)
{
	fg_hashtab_clear(&map->table, sizeof(fg_keymap_entry));
}

void fg_keymap_free(fg_keymap *map)
{
	fg_hashtab_free(&map->table);
}
