#include "top.h"

#include <stdlib.h>
#include <string.h>

#include "idarray.h"

#define UNMAPPED UINT32_MAX

struct level {
	uint32_t name;      /* mapped */
	uint64_t total;
	uint64_t children;
};

struct fg_top {
	fg_name_map_fn map;
	void *map_ctx;
	uint32_t *mapped;   /* raw id -> mapped id, UNMAPPED until asked */
	uint32_t mapped_cap;
	uint64_t *incl, *self;
	uint32_t *on_path;  /* occurrences of the name on the current path */
	uint32_t cap;
	uint64_t total;
	struct level *levels;
	uint32_t depth, levels_cap;
};

int fg_top_new(fg_top **out, fg_name_map_fn map, void *map_ctx, fg_error *err)
{
	fg_top *t = calloc(1, sizeof(*t));
	if (!t)
		return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	t->map = map;
	t->map_ctx = map_ctx;
	*out = t;
	return 0;
}

void fg_top_free(fg_top *t)
{
	if (!t)
		return;
	free(t->mapped);
	free(t->incl);
	free(t->self);
	free(t->on_path);
	free(t->levels);
	free(t);
}

static int ensure_name(fg_top *t, uint32_t id, fg_error *err)
{
	if (id < t->cap)
		return 0;
	uint32_t cap = fg_idarray_capacity(t->cap, id);
	if (fg_idarray_resize(&t->incl, sizeof(*t->incl), t->cap, cap, 0) ||
	    fg_idarray_resize(&t->self, sizeof(*t->self), t->cap, cap, 0) ||
	    fg_idarray_resize(&t->on_path, sizeof(*t->on_path), t->cap, cap, 0))
		return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	t->cap = cap;
	return 0;
}

__attribute__((noinline)) static int map_name_slow(uint32_t *out, fg_top *t, uint32_t raw, fg_error *err)
{
	if (raw >= t->mapped_cap) {
		/* UNMAPPED is all ones: fill bytes 0xff. */
		uint32_t cap = fg_idarray_capacity(t->mapped_cap, raw);
		if (fg_idarray_resize(&t->mapped, sizeof(*t->mapped), t->mapped_cap, cap, 0xff))
			return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
		t->mapped_cap = cap;
	}
	if (t->mapped[raw] == UNMAPPED) {
		int rc = t->map(t->map_ctx, raw, &t->mapped[raw], err);
		if (rc)
			return rc;
	}
	*out = t->mapped[raw];
	return ensure_name(t, *out, err);
}

/* The counted name of a frame, with room for its counters.  Inline: it runs
 * once per frame and almost always hits the cache. */
static inline int map_name(uint32_t *out, fg_top *t, uint32_t raw, fg_error *err)
{
	uint32_t name = raw;
	if (t->map) {
		if (raw >= t->mapped_cap || t->mapped[raw] == UNMAPPED)
			return map_name_slow(out, t, raw, err);
		name = t->mapped[raw];
	}
	*out = name;
	return name < t->cap ? 0 : ensure_name(t, name, err);
}

static inline void pop_to(fg_top *t, uint32_t d)
{
	while (t->depth > d) {
		struct level *l = &t->levels[--t->depth];
		if (t->depth == 0)
			break; /* the root is not a frame of interest */
		t->self[l->name] += l->total - l->children;
		t->on_path[l->name]--;
	}
}

__attribute__((noinline)) static int grow_levels(fg_top *t, fg_error *err)
{
	/* Depth rises by one at most per frame: doubling makes room. */
	uint32_t cap = t->levels_cap ? t->levels_cap * 2 : 256;
	struct level *l = realloc(t->levels, (size_t)cap * sizeof(*l));
	if (!l)
		return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	t->levels = l;
	t->levels_cap = cap;
	return 0;
}

/* What a frame needs before the loop can take it: room at its depth and
 * its name mapped, with counters.  The loop's copies of the arrays are stale
 * afterwards. */
__attribute__((noinline)) static int prepare(fg_top *t, const fg_frame *f, fg_error *err)
{
	int rc = f->depth >= t->levels_cap ? grow_levels(t, err) : 0;
	uint32_t name;
	if (!rc && f->depth > 0)
		rc = map_name(&name, t, f->name, err);
	return rc;
}

int fg_top_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	fg_top *t = ctx;
	if (!frames) {
		pop_to(t, 0);
		return 0;
	}
	const fg_frame *f = frames, *const end = frames + n;
	while (f < end) {
		/* The state in locals (stores through the counters could alias
		 * the struct otherwise). */
		struct level *const levels = t->levels;
		uint64_t *const incl = t->incl, *const self = t->self;
		uint32_t *const on_path = t->on_path;
		const uint32_t *const mapped = t->map ? t->mapped : NULL;
		const uint32_t mapped_cap = t->map ? t->mapped_cap : 0, cap = t->cap, levels_cap = t->levels_cap;
		uint32_t depth = t->depth;
		for (; f < end; f++) {
			uint32_t d = f->depth, name = f->name;
			if (d > 0 && mapped)
				name = name < mapped_cap ? mapped[name] : UNMAPPED;
			if (d >= levels_cap || (d > 0 && name >= cap)) /* UNMAPPED too */
				break;
			while (depth > d) {
				if (--depth == 0)
					break; /* the root is not a frame of interest */
				const struct level *l = &levels[depth];
				self[l->name] += l->total - l->children;
				on_path[l->name]--;
			}
			if (d == 0) {
				t->total += f->total;
				name = 0;
			} else {
				if (on_path[name]++ == 0)
					incl[name] += f->total;
				levels[d - 1].children += f->total;
			}
			levels[d] = (struct level){ name, f->total, 0 };
			depth = d + 1;
		}
		t->depth = depth;
		if (f < end) {
			int rc = prepare(t, f, err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

int fg_top_stack(void *ctx, const fg_stack *st, fg_error *err)
{
	fg_top *t = ctx;
	t->total += st->count;
	if (st->depth == 0)
		return 0;
	/* A name counts once per stack however often it recurses: on_path
	 * marks the names of this stack, cleared again below. */
	uint32_t name = 0;
	for (size_t i = 1; i <= st->depth; i++) {
		int rc = map_name(&name, t, st->names[i], err);
		if (rc)
			return rc;
		if (t->on_path[name]++ == 0)
			t->incl[name] += st->count;
	}
	t->self[name] += st->count; /* the leaf's */
	for (size_t i = 1; i <= st->depth; i++)
		t->on_path[t->map ? t->mapped[st->names[i]] : st->names[i]]--;
	return 0;
}

uint64_t fg_top_total(const fg_top *t)
{
	return t->total;
}

static int compare_counts(uint64_t x1, uint64_t y1, uint64_t x2, uint64_t y2, uint32_t xn, uint32_t yn)
{
	if (x1 != y1)
		return x1 > y1 ? -1 : 1;
	if (x2 != y2)
		return x2 > y2 ? -1 : 1;
	return xn < yn ? -1 : xn > yn;
}

static int by_inclusive(const void *a, const void *b)
{
	const fg_top_entry *x = a, *y = b;
	return compare_counts(x->samples, y->samples, x->self_samples, y->self_samples, x->name, y->name);
}

static int by_self(const void *a, const void *b)
{
	const fg_top_entry *x = a, *y = b;
	return compare_counts(x->self_samples, y->self_samples, x->samples, y->samples, x->name, y->name);
}

int fg_top_entries(fg_top_entry **entries, size_t *n, const fg_top *t, bool self_order, fg_error *err)
{
	size_t count = 0;
	for (uint32_t i = 0; i < t->cap; i++)
		count += t->incl[i] > 0;
	fg_top_entry *e = malloc((count ? count : 1) * sizeof(*e));
	if (!e)
		return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	size_t k = 0;
	for (uint32_t i = 0; i < t->cap; i++)
		if (t->incl[i] > 0)
			e[k++] = (fg_top_entry){ i, t->incl[i], t->self[i] };
	qsort(e, count, sizeof(*e), self_order ? by_self : by_inclusive);
	*entries = e;
	*n = count;
	return 0;
}
