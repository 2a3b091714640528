#include "formats/keymap.h"

#include <stdlib.h>
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

static fg_keymap_entry *find(const fg_keymap *m, uint64_t a, uint64_t b, uint64_t c)
{
	for (uint32_t i = (uint32_t)hash3(a, b, c) & m->mask;; i = (i + 1) & m->mask) {
		fg_keymap_entry *e = &m->entries[i];
		if (!e->used || (e->key[0] == a && e->key[1] == b && e->key[2] == c))
			return e;
	}
}

uint64_t *fg_keymap_get(const fg_keymap *map, uint64_t a, uint64_t b, uint64_t c)
{
	if (!map->entries)
		return NULL;
	fg_keymap_entry *e = find(map, a, b, c);
	return e->used ? &e->value : NULL;
}

static int grow(fg_keymap *m, fg_error *err)
{
	uint32_t cap = m->entries ? (m->mask + 1) * 2 : 1024;
	if (cap == 0 || cap > (UINT32_C(1) << 31))
		return fg_error_set(err, FG_ENOMEM, NULL, "out of memory (hash map full)");
	fg_keymap_entry *old = m->entries;
	uint32_t old_cap = m->entries ? m->mask + 1 : 0;
	m->entries = calloc(cap, sizeof(*m->entries));
	if (!m->entries) {
		m->entries = old;
		return fg_error_oom(err, NULL);
	}
	m->mask = cap - 1;
	for (uint32_t i = 0; i < old_cap; i++)
		if (old[i].used)
			*find(m, old[i].key[0], old[i].key[1], old[i].key[2]) = old[i];
	free(old);
	return 0;
}

int fg_keymap_put(uint64_t **value, bool *added, fg_keymap *map, uint64_t a, uint64_t b, uint64_t c,
		  fg_error *err)
{
	if (!map->entries || (uint64_t)(map->count + 1) * 2 > (uint64_t)map->mask + 1) {
		int rc = grow(map, err);
		if (rc)
			return rc;
	}
	fg_keymap_entry *e = find(map, a, b, c);
	*added = !e->used;
	if (!e->used) {
		*e = (fg_keymap_entry){ .key = { a, b, c }, .used = true };
		map->count++;
	}
	*value = &e->value;
	return 0;
}

uint32_t fg_keymap_capacity(const fg_keymap *map)
{
	return map->entries ? map->mask + 1 : 0;
}

void fg_keymap_clear(fg_keymap *map)
{
	if (map->entries)
		memset(map->entries, 0, ((size_t)map->mask + 1) * sizeof(*map->entries));
	map->count = 0;
}

void fg_keymap_free(fg_keymap *map)
{
	free(map->entries);
	*map = (fg_keymap){ 0 };
}
