#include "top.h"

#include <stdlib.h>
#include <string.h>

#include "idarray.h"

#define UNMAPPED UINT32_MAX

/* Inclusive samples count a stack once however often a name recurses in
 * it, without a per-path count to keep up: frames are laid out as the
 * flame graph draws them, each over the samples [left, left + total) inside
 * its parent (here children from the parent's left, self to the right), and
 * a name's `end` is the end of its last counted frame.  A frame counts when
 * it starts at or past that end: inside it, it has that frame as an ancestor
 * (frames come in DFS order, so the last counted frame of a name is the
 * outermost one still open, if any is).  Stacks are such intervals too, one
 * after the other, so a name counts at its first frame in each. */

/* A name's counters, together: a frame touches them at once. */
struct counts {
	uint64_t incl;      /* inclusive: samples of the stacks holding the name */
	uint64_t self;      /* the frames' totals less their children's */
	uint64_t end;       /* the end of the name's last counted frame */
};

/* A frame on the current path. */
struct open {
	uint64_t next;      /* where its next child starts */
	uint32_t name;      /* counted (mapped) name */
};

struct fg_top {
	fg_name_map_fn map;
	void *map_ctx;
	uint32_t *mapped;   /* raw id -> mapped id (itself without a map), UNMAPPED until asked */
	uint32_t mapped_cap;
	struct counts *counts;
	uint32_t cap;
	uint64_t total;     /* also where the next root starts */
	struct open *path;  /* by depth; [0] the root */
	uint32_t path_cap;
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
	free(t->counts);
	free(t->path);
	free(t);
}

static int ensure_name(fg_top *t, uint32_t id, fg_error *err)
{
	if (id < t->cap)
		return 0;
	uint32_t cap = fg_idarray_capacity(t->cap, id);
	if (fg_idarray_resize(&t->counts, sizeof(*t->counts), t->cap, cap, 0))
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
		int rc = t->map ? t->map(t->map_ctx, raw, &t->mapped[raw], err) : 0;
		if (rc)
			return rc;
		if (!t->map)
			t->mapped[raw] = raw;
	}
	*out = t->mapped[raw];
	return ensure_name(t, *out, err);
}

/* The counted name of a frame, with room for its counters.  Inline: it runs
 * once per frame and almost always hits the cache. */
static inline int map_name(uint32_t *out, fg_top *t, uint32_t raw, fg_error *err)
{
	if (raw >= t->mapped_cap || t->mapped[raw] == UNMAPPED)
		return map_name_slow(out, t, raw, err);
	*out = t->mapped[raw];
	return *out < t->cap ? 0 : ensure_name(t, *out, err);
}

__attribute__((noinline)) static int grow_path(fg_top *t, fg_error *err)
{
	/* Depth rises by one at most per frame: doubling makes room. */
	uint32_t cap = t->path_cap ? t->path_cap * 2 : 256;
	struct open *p = realloc(t->path, (size_t)cap * sizeof(*p));
	if (!p)
		return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	t->path = p;
	t->path_cap = cap;
	return 0;
}

/* What a frame needs before the loop can take it: room at its depth and
 * its name mapped, with counters.  The loop's copies of the arrays are stale
 * afterwards. */
__attribute__((noinline)) static int prepare(fg_top *t, const fg_frame *f, fg_error *err)
{
	int rc = f->depth >= t->path_cap ? grow_path(t, err) : 0;
	uint32_t name;
	if (!rc && f->depth > 0)
		rc = map_name(&name, t, f->name, err);
	return rc;
}

/* Per frame: inclusive where it starts past its name's end, its total to
 * its self and off its parent's self (so that a frame's self is its total
 * less its children's, with no sum kept per open frame). */
int fg_top_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	fg_top *t = ctx;
	if (!frames)
		return 0;
	const fg_frame *f = frames, *const end = frames + n;
	while (f < end) {
		/* The state in locals (stores through the counters could alias
		 * the struct otherwise). */
		struct counts *const counts = t->counts;
		struct open *const path = t->path;
		const uint32_t *const mapped = t->mapped;
		const uint32_t mapped_cap = t->mapped_cap, cap = t->cap, path_cap = t->path_cap;
		/* One compare for the root and a depth without room: before
		 * the first frame (no room at all) every frame takes it. */
		const uint32_t deepest = path_cap ? path_cap - 1 : 0;
		for (; f < end; f++) {
			uint32_t d = f->depth;
			if (d - 1 >= deepest) {
				if (d >= path_cap)
					break;
				path[0].next = t->total; /* d == 0: the root */
				t->total += f->total;
				continue;
			}
			uint32_t name = f->name < mapped_cap ? mapped[f->name] : UNMAPPED;
			if (name >= cap) /* UNMAPPED too */
				break;
			uint64_t left = path[d - 1].next;
			path[d - 1].next = left + f->total;
			path[d] = (struct open){ left, name };
			struct counts *c = &counts[name];
			if (left >= c->end) {
				c->incl += f->total;
				c->end = left + f->total;
			}
			c->self += f->total;
			if (d > 1)
				counts[path[d - 1].name].self -= f->total;
		}
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
	uint64_t left = t->total;
	t->total += st->count;
	if (st->depth == 0)
		return 0;
	uint32_t name = 0;
	for (size_t i = 1; i <= st->depth; i++) {
		int rc = map_name(&name, t, st->names[i], err);
		if (rc)
			return rc;
		struct counts *c = &t->counts[name];
		if (left >= c->end) {
			c->incl += st->count;
			c->end = left + st->count;
		}
	}
	t->counts[name].self += st->count; /* the leaf's */
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

void fg_top_entries_sort(fg_top_entry *entries, size_t n, bool self_order)
{
	qsort(entries, n, sizeof(*entries), self_order ? by_self : by_inclusive);
}

int fg_top_entries(fg_top_entry **entries, size_t *n, const fg_top *t, bool self_order, fg_error *err)
{
	size_t count = 0;
	for (uint32_t i = 0; i < t->cap; i++)
		count += t->counts[i].incl > 0;
	fg_top_entry *e = malloc((count ? count : 1) * sizeof(*e));
	if (!e)
		return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	size_t k = 0;
	for (uint32_t i = 0; i < t->cap; i++)
		if (t->counts[i].incl > 0)
			e[k++] = (fg_top_entry){ i, t->counts[i].incl, t->counts[i].self };
	fg_top_entries_sort(e, count, self_order);
	*entries = e;
	*n = count;
	return 0;
}
