#include "model/names.h"

#include <stdlib.h>
#include <string.h>

#include "base/hashtab.h"
#include "base/idarray.h"

/* Names live in large chunks that never move, so a pointer returned by
 * fg_names_get stays valid; the hash table holds ids only. */
#define CHUNK_SIZE (1u << 20)

struct entry {
	const char *str;
	uint32_t len;
	uint32_t hash;
};

struct chunk {
	struct chunk *next;
	size_t used, size;
	char data[];
};

struct fg_names {
	struct entry *entries; /* by id */
	uint32_t count, capacity;
	fg_hashtab slots;      /* of uint32_t: id + 1, 0 = empty */
	struct chunk *chunks;
	/* fg_names_set_file: the files, interned apart from the frame names
	 * (they are no frames), and per name id its file's id + 1 (0: none). */
	fg_names *files;
	uint32_t *file_of;
	uint32_t file_cap;
};

static uint32_t hash_bytes(const char *s, size_t len)
{
	/* Eight bytes at a time, each word mixed in by a multiply (the bytes
	 * of a collapsed frame name are hashed for every frame of every line:
	 * byte-at-a-time FNV-1a was a third of reading one).  Only the slot a
	 * name probes first depends on it, never an id or an output. */
	uint64_t h = 0x9e3779b97f4a7c15u ^ len;
	for (; len >= 8; s += 8, len -= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdu;
		h ^= h >> 32;
	}
	if (len) {
		uint64_t w = 0;
		memcpy(&w, s, len);
		h = (h ^ w) * 0xff51afd7ed558ccdu;
	}
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53u;
	return (uint32_t)(h ^ (h >> 32));
}

int fg_names_new(fg_names **out, fg_error *err)
{
	fg_names *n = calloc(1, sizeof(*n));
	if (!n)
		return fg_error_oom(err, NULL);
	int rc = fg_hashtab_init(&n->slots, sizeof(uint32_t), 1024, err);
	if (rc) {
		free(n);
		return rc;
	}
	*out = n;
	return 0;
}

void fg_names_free(fg_names *names)
{
	if (!names)
		return;
	struct chunk *c = names->chunks;
	while (c) {
		struct chunk *next = c->next;
		free(c);
		c = next;
	}
	free(names->entries);
	fg_hashtab_free(&names->slots);
	fg_names_free(names->files);
	free(names->file_of);
	free(names);
}

static char *store(fg_names *n, const char *s, size_t len)
{
	struct chunk *c = n->chunks;
	if (!c || c->size - c->used < len + 1) {
		size_t size = len + 1 > CHUNK_SIZE ? len + 1 : CHUNK_SIZE;
		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->used = 0;
		c->size = size;
		/* A huge name gets its own chunk, behind the current one, so the
		 * current chunk's free space is not wasted. */
		if (n->chunks && size > CHUNK_SIZE) {
			c->next = n->chunks->next;
			n->chunks->next = c;
		} else {
			c->next = n->chunks;
			n->chunks = c;
		}
	}
	char *p = c->data + c->used;
	memcpy(p, s, len);
	p[len] = '\0';
	c->used += len + 1;
	return p;
}

static inline bool empty(const void *slot, const void *key)
{
	(void)key;
	return *(const uint32_t *)slot == 0;
}

/* Doubles the table, its ids placed again in id order from the hashes
 * kept in the entries. */
static int grow(fg_names *n, fg_error *err)
{
	fg_hashtab bigger;
	int rc = fg_hashtab_init(&bigger, sizeof(uint32_t), ((uint64_t)n->slots.mask + 1) * 2, err);
	if (rc)
		return rc;
	for (uint32_t id = 0; id < n->count; id++)
		*(uint32_t *)fg_hashtab_probe(&bigger, sizeof(uint32_t), n->entries[id].hash, empty, NULL) = id + 1;
	bigger.count = n->slots.count;
	fg_hashtab_free(&n->slots);
	n->slots = bigger;
	return 0;
}

struct key {
	const struct entry *entries;  /* as they are at the lookup (they move as they grow) */
	const char *str;
	size_t len;
	uint32_t hash;
};

static inline bool stop(const void *slot, const void *key)
{
	uint32_t s = *(const uint32_t *)slot;
	const struct key *k = key;
	if (!s)
		return true;
	const struct entry *e = &k->entries[s - 1];
	return e->hash == k->hash && e->len == k->len && memcmp(e->str, k->str, k->len) == 0;
}

int fg_names_intern(uint32_t *id, fg_names *n, const char *name, size_t len, fg_error *err)
{
	if (len > UINT32_MAX)
		return fg_error_set(err, FG_EINVALID, NULL, "frame name of %zu bytes is too long", len);
	struct key k = { n->entries, name, len, hash_bytes(name, len) };
	uint32_t *slot = fg_hashtab_probe(&n->slots, sizeof(*slot), k.hash, stop, &k);
	if (*slot) {
		*id = *slot - 1;
		return 0;
	}
	if (n->count == UINT32_MAX - 1)
		return fg_error_set(err, FG_EINVALID, NULL, "too many distinct frame names");
	if (n->count == n->capacity) {
		uint32_t cap = n->capacity ? n->capacity * 2 : 1024;
		struct entry *e = realloc(n->entries, (size_t)cap * sizeof(*e));
		if (!e)
			return fg_error_oom(err, NULL);
		n->entries = e;
		n->capacity = cap;
	}
	if (fg_hashtab_full(&n->slots)) {
		int rc = grow(n, err);
		if (rc)
			return rc;
		slot = fg_hashtab_probe(&n->slots, sizeof(*slot), k.hash, empty, NULL); /* elsewhere now */
	}
	char *copy = store(n, name, len);
	if (!copy)
		return fg_error_oom(err, NULL);
	uint32_t new_id = n->count++;
	n->entries[new_id] = (struct entry){ copy, (uint32_t)len, k.hash };
	*slot = new_id + 1;
	n->slots.count++;
	*id = new_id;
	return 0;
}

const char *fg_names_get(const fg_names *names, uint32_t id)
{
	return names->entries[id].str;
}

size_t fg_names_length(const fg_names *names, uint32_t id)
{
	return names->entries[id].len;
}

uint32_t fg_names_count(const fg_names *names)
{
	return names->count;
}

struct ranked {
	const char *str;
	size_t len;
	uint32_t id;
};

static int compare_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->str, y->str, n);
	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int fg_names_rank(uint32_t **out, const fg_names *names, fg_error *err)
{
	uint32_t n = names->count;
	struct ranked *all = malloc((n ? n : 1) * sizeof(*all));
	uint32_t *rank = malloc((n ? n : 1) * sizeof(*rank));
	if (!all || !rank) {
		free(all);
		free(rank);
		return fg_error_oom(err, NULL);
	}
	for (uint32_t i = 0; i < n; i++)
		all[i] = (struct ranked){ names->entries[i].str, names->entries[i].len, i };
	qsort(all, n, sizeof(*all), compare_ranked);
	for (uint32_t i = 0; i < n; i++)
		rank[all[i].id] = i;
	free(all);
	*out = rank;
	return 0;
}

int fg_names_set_file(fg_names *names, uint32_t id, const char *file, size_t len, fg_error *err)
{
	if (id < names->file_cap && names->file_of[id])
		return 0; /* the first file given stays */
	int rc = names->files ? 0 : fg_names_new(&names->files, err);
	uint32_t fid;
	if (rc == 0)
		rc = fg_names_intern(&fid, names->files, file, len, err);
	if (rc)
		return rc;
	if (id >= names->file_cap) {
		uint32_t cap = fg_idarray_capacity(names->file_cap, id);
		if (fg_idarray_resize(&names->file_of, sizeof(uint32_t), names->file_cap, cap, 0) < 0)
			return fg_error_oom(err, NULL);
		names->file_cap = cap;
	}
	names->file_of[id] = fid + 1;
	return 0;
}

const char *fg_names_file(const fg_names *names, uint32_t id)
{
	return id < names->file_cap && names->file_of[id] ? fg_names_get(names->files, names->file_of[id] - 1) : NULL;
}

const char *fg_names_file_by_name(void *names, const char *name)
{
	const fg_names *n = names;
	if (!n || !n->files)
		return NULL;
	size_t len = strlen(name);
	struct key k = { n->entries, name, len, hash_bytes(name, len) };
	const uint32_t *slot = fg_hashtab_probe(&n->slots, sizeof(*slot), k.hash, stop, &k);
	return *slot ? fg_names_file(n, *slot - 1) : NULL;
}
