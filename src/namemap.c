#include "namemap.h"

#include <stdlib.h>
#include <string.h>

#include "idarray.h"
#include "normalize.h"

#define UNKNOWN UINT32_MAX

struct fg_namemap {
	fg_names *names;
	uint32_t *ids;
	uint32_t cap;
	char *scratch;
	size_t scratch_cap;
};

int fg_namemap_new(fg_namemap **out, fg_names *names, fg_error *err)
{
	fg_namemap *m = calloc(1, sizeof(*m));
	if (!m)
		return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	m->names = names;
	*out = m;
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
			return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
		m->cap = cap;
	}
	if (m->ids[name] == UNKNOWN) {
		size_t len = fg_names_length(m->names, name);
		if (len + 1 > m->scratch_cap) {
			size_t cap = (len + 1) * 2;
			char *s = realloc(m->scratch, cap);
			if (!s)
				return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
			m->scratch = s;
			m->scratch_cap = cap;
		}
		size_t nl = fg_normalize_name(m->scratch, fg_names_get(m->names, name), len);
		uint32_t id;
		int rc = fg_names_intern(&id, m->names, m->scratch, nl, err);
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
