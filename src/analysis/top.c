#include "analysis/top.h"

#include <stdlib.h>
#include <string.h>

#include "base/idarray.h"

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

/* Where a name's counters are: a byte offset into counts, so that a frame
 * reaches them in one addressing mode.  counts[0] is a spare that no name
 * has (the root's children take their totals off its self), name id i has
 * counts[i + 1]. */
#define SLOT(id) (((uint64_t)(id) + 1) * sizeof(struct counts))
#define UNMAPPED UINT64_MAX

struct fg_top {
	fg_name_map_fn map;
	void *map_ctx;
	uint64_t *slots;    /* raw id -> SLOT(mapped id) (itself without a map), UNMAPPED until asked */
	uint32_t slots_cap;
	struct counts *counts; /* cap + 1: the spare, then by mapped name id */
	uint32_t cap;
	uint64_t total;     /* also where the next root starts */
	/* The frames on the current path, by depth ([0] the root), in two
	 * arrays of path_cap (one allocation), so that a frame's are reached
	 * by its depth times 8: where its next child starts, and its counted
	 * (mapped) name's counters (the root's: the spare). */
	uint64_t *next;
	uint64_t *slot;
	uint32_t path_cap;
};

int fg_top_new(fg_top **out, fg_name_map_fn map, void *map_ctx, fg_error *err)
{
	fg_top *t = calloc(1, sizeof(*t));
	if (!t)
		return fg_error_oom(err, NULL);
	t->map = map;
	t->map_ctx = map_ctx;
	*out = t;
	return 0;
}

void fg_top_free(fg_top *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t->counts);
	free(t->next);
	free(t);
}

/* Room for the counters of mapped name id (and the spare). */
static int ensure_name(fg_top *t, uint32_t id, fg_error *err)
{
	if (id < t->cap)
		return 0;
	uint32_t cap = fg_idarray_capacity(t->cap, id);
	/* One more than the names: the spare first (from nothing: cap + 1 zeroed). */
	if (fg_idarray_resize(&t->counts, sizeof(*t->counts), t->cap ? t->cap + 1 : 0, cap + 1, 0))
		return fg_error_oom(err, NULL);
	t->cap = cap;
	return 0;
}

/* The counters of a frame's name, mapped and with room: their SLOT. */
__attribute__((noinline)) static int map_name_slow(uint64_t *out, fg_top *t, uint32_t raw, fg_error *err)
{
	if (raw >= t->slots_cap) {
		/* UNMAPPED is all ones: fill bytes 0xff. */
		uint32_t cap = fg_idarray_capacity(t->slots_cap, raw);
		if (fg_idarray_resize(&t->slots, sizeof(*t->slots), t->slots_cap, cap, 0xff))
			return fg_error_oom(err, NULL);
		t->slots_cap = cap;
	}
	if (t->slots[raw] == UNMAPPED) {
		uint32_t id = raw;
		int rc = t->map ? t->map(t->map_ctx, raw, &id, err) : 0;
		if (!rc)
			rc = ensure_name(t, id, err);
		if (rc)
			return rc;
		t->slots[raw] = SLOT(id);
	}
	*out = t->slots[raw];
	return 0;
}

/* Inline: it runs once per stack frame and almost always hits. */
static inline int map_name(uint64_t *out, fg_top *t, uint32_t raw, fg_error *err)
{
	if (raw >= t->slots_cap || t->slots[raw] == UNMAPPED)
		return map_name_slow(out, t, raw, err);
	*out = t->slots[raw];
	return 0;
}

static inline struct counts *counts_at(const fg_top *t, uint64_t slot)
{
	return (struct counts *)(void *)((char *)t->counts + slot);
}

__attribute__((noinline)) static int grow_path(fg_top *t, fg_error *err)
{
	/* Depth rises by one at most per frame: doubling makes room. */
	uint32_t cap = t->path_cap ? t->path_cap * 2 : 256;
	uint64_t *p = realloc(t->next, (size_t)cap * 2 * sizeof(*p));
	if (!p)
		return fg_error_oom(err, NULL);
	/* The slots move up to their new place. */
	memmove(p + cap, p + t->path_cap, (size_t)t->path_cap * sizeof(*p));
	t->next = p;
	t->slot = p + cap;
	t->path_cap = cap;
	return 0;
}

/* What a frame needs before the loop can take it: room at its depth and
 * its name mapped, with counters.  The loop's copies of the arrays are stale
 * afterwards. */
__attribute__((noinline)) static int prepare(fg_top *t, const fg_frame *f, fg_error *err)
{
	int rc = f->depth >= t->path_cap ? grow_path(t, err) : 0;
	uint64_t slot;
	if (!rc && f->depth > 0)
		rc = map_name(&slot, t, f->name, err);
	return rc;
}

/* Per frame: inclusive where it starts past its name's end, its total to
 * its self and off its parent's self (so that a frame's self is its total
 * less its children's, with no sum kept per open frame; the root's children
 * take theirs off the spare). */
int fg_top_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	fg_top *t = ctx;
	if (!frames)
		return 0;
	const fg_frame *f = frames, *const end = frames + n;
	for (;;) {
		/* The state in locals (stores through the counters could alias
		 * the struct otherwise). */
		char *const counts = (char *)t->counts;
		uint64_t *const next = t->next;
		uint64_t *const path_slot = t->slot;
		const uint64_t *const slots = t->slots;
		const uint32_t slots_cap = t->slots_cap;
		const uint64_t room = SLOT(t->cap); /* the first slot past the counters */
		/* One compare for the root and a depth without room (before the
		 * first frame, no room at all: every frame): both leave the
		 * loop, which keeps only what a frame below the root needs. */
		const uint32_t deepest = t->path_cap ? t->path_cap - 1 : 0;
		for (; f < end; f++) {
			uint32_t d = f->depth;
			if (d - 1 >= deepest)
				break;
			uint64_t slot = f->name < slots_cap ? slots[f->name] : UNMAPPED;
			if (slot >= room) /* UNMAPPED too */
				break;
			uint64_t total = f->total, left = next[d - 1];
			next[d - 1] = left + total;
			next[d] = left;
			path_slot[d] = slot;
			struct counts *c = (struct counts *)(void *)(counts + slot);
			if (left >= c->end) {
				c->incl += total;
				c->end = left + total;
			}
			c->self += total;
			((struct counts *)(void *)(counts + path_slot[d - 1]))->self -= total;
		}
		if (f == end)
			return 0;
		if (f->depth == 0 && t->path_cap) {
			/* The root: its children start at the samples so far. */
			t->next[0] = t->total;
			t->slot[0] = 0;
			t->total += f->total;
			f++;
			continue;
		}
		int rc = prepare(t, f, err);
		if (rc)
			return rc;
	}
}

int fg_top_stack(void *ctx, const fg_stack *st, fg_error *err)
{
	fg_top *t = ctx;
	uint64_t left = t->total;
	t->total += st->count;
	if (st->depth == 0)
		return 0;
	uint64_t slot = 0;
	for (size_t i = 1; i <= st->depth; i++) {
		int rc = map_name(&slot, t, st->names[i], err);
		if (rc)
			return rc;
		struct counts *c = counts_at(t, slot);
		if (left >= c->end) {
			c->incl += st->count;
			c->end = left + st->count;
		}
	}
	counts_at(t, slot)->self += st->count; /* the leaf's */
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
		count += t->counts[i + 1].incl > 0;
	fg_top_entry *e = malloc((count ? count : 1) * sizeof(*e));
	if (!e)
		return fg_error_oom(err, NULL);
	size_t k = 0;
	for (uint32_t i = 0; i < t->cap; i++)
		if (t->counts[i + 1].incl > 0)
			e[k++] = (fg_top_entry){ i, t->counts[i + 1].incl, t->counts[i + 1].self };
	fg_top_entries_sort(e, count, self_order);
	*entries = e;
	*n = count;
	return 0;
}
