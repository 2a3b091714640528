#include "model/namemap.h"

#include <stdlib.h>
#include <string.h>

#include "base/idarray.h"
#include "model/normalize.h"

#define UNKNOWN UINT32_MAX

struct fg_namemap {
	fg_names *names;
	uint32_t *ids;
	uint32_t cap;
	char *scratch;
	size_t scratch_cap;
	fg_namemap_cache *cache;
};

struct fg_namemap_cache {
	fg_names *raw, *normal;
	uint32_t *normal_of; /* by raw id */
	uint32_t cap;
};

int fg_namemap_cache_new(fg_namemap_cache **out, fg_error *err)
{
	fg_namemap_cache *c = calloc(1, sizeof(*c));
	if (!c)
		return fg_error_oom(err, NULL);
	int rc = fg_names_new(&c->raw, err);
	if (!rc)
		rc = fg_names_new(&c->normal, err);
	if (rc) {
		fg_namemap_cache_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void fg_namemap_cache_free(fg_namemap_cache *c)
{
	if (!c)
		return;
	fg_names_free(c->raw);
	fg_names_free(c->normal);
	free(c->normal_of);
	free(c);
}

int fg_namemap_new_cached(fg_namemap **out, fg_names *names, fg_namemap_cache *cache, fg_error *err)
{
	fg_namemap *m = calloc(1, sizeof(*m));
	if (!m)
		return fg_error_oom(err, NULL);
	m->names = names;
	m->cache = cache;
	*out = m;
	return 0;
}

int fg_namemap_new(fg_namemap **out, fg_names *names, fg_error *err)
{
	return fg_namemap_new_cached(out, names, NULL, err);
}

/* name[0..len)'s normal form in the map's scratch buffer (its length). */
static int normal_form(size_t *out, fg_namemap *m, const char *name, size_t len, fg_error *err)
{
	if (len + 1 > m->scratch_cap) {
		size_t cap = (len + 1) * 2;
		char *s = realloc(m->scratch, cap);
		if (!s)
			return fg_error_oom(err, NULL);
		m->scratch = s;
		m->scratch_cap = cap;
	}
	*out = fg_normalize_name(m->scratch, name, len);
	return 0;
}

/* The normal form of name[0..len), from the cache or computed (and kept). */
static int cached_form(const char **out, size_t *out_len, fg_namemap *m, const char *name, size_t len,
		       fg_error *err)
{
	fg_namemap_cache *c = m->cache;
	uint32_t known = fg_names_count(c->raw), k, id;
	int rc = fg_names_intern(&k, c->raw, name, len, err);
	if (rc)
		return rc;
	if (k >= known) {
		size_t nl = 0;
		if (k >= c->cap) {
			uint32_t cap = fg_idarray_capacity(c->cap, k);
			if (fg_idarray_resize(&c->normal_of, sizeof(*c->normal_of), c->cap, cap, 0xff))
				return fg_error_oom(err, NULL);
			c->cap = cap;
		}
		if ((rc = normal_form(&nl, m, name, len, err)) || (rc = fg_names_intern(&id, c->normal, m->scratch, nl, err)))
			return rc;
		c->normal_of[k] = id;
	}
	*out = fg_names_get(c->normal, c->normal_of[k]);
	*out_len = fg_names_length(c->normal, c->normal_of[k]);
	return 0;
}

void fg_namemap_free(fg_namemap *m)
{
	if (!m)
		return;
	free(m->ids);
	free(m->scratch);
	free(m);
}

int fg_namemap_get(void *ctx, uint32_t name, uint32_t *out, fg_error *err)
{
	fg_namemap *m = ctx;
	if (name >= m->cap) {
		/* UNKNOWN is all ones: fill bytes 0xff. */
		uint32_t cap = fg_idarray_capacity(m->cap, name);
		if (fg_idarray_resize(&m->ids, sizeof(*m->ids), m->cap, cap, 0xff))
			return fg_error_oom(err, NULL);
		m->cap = cap;
	}
	if (m->ids[name] == UNKNOWN) {
		const char *raw = fg_names_get(m->names, name), *normal = NULL;
		size_t len = fg_names_length(m->names, name), nl = 0;
		int rc = m->cache ? cached_form(&normal, &nl, m, raw, len, err) : normal_form(&nl, m, raw, len, err);
		if (!rc && !m->cache)
			normal = m->scratch; /* after normal_form, which may move it */
		uint32_t id;
		if (!rc)
			rc = fg_names_intern(&id, m->names, normal, nl, err);
		if (rc)
			return rc;
		m->ids[name] = id;
		/* Normalising is idempotent: the normal form maps to itself. */
		if (id < m->cap)
			m->ids[id] = id;
	}
	*out = m->ids[name];
	return 0;
}
