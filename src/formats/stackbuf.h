/* fgbisect — the stack a stack-based reader assembles for one sample, and
 * the one way such readers hand stacks on.
 *
 * Collapsed stacks, JFR, pprof, perf script and SVG readers push a sample's
 * frames into an fg_stackbuf (one buffer for every sample: no allocation per
 * frame), then emit it as an fg_stack (src/model/profile.h) to an fg_stack_fn:
 * names[0] is the root "all", the frames follow root first. */
#ifndef FG_STACKBUF_H
#define FG_STACKBUF_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/names.h"
#include "model/profile.h"

typedef struct fg_stackbuf {
	uint32_t *names;  /* names[0]: the root */
	uint8_t *types;   /* enum fg_frame_type */
	size_t len, cap;  /* len counts the root */
	uint64_t total;   /* sum of the counts emitted */
	uint64_t stacks;  /* stacks emitted */
	size_t max_depth; /* 0: no limit (a zeroed struct); else frames below the root, fg_stackbuf_limit */
	const char *source; /* the input's name, for the error */
} fg_stackbuf;

/* Refuses (FG_EINVALID, naming source) to grow past the read options'
 * --max-depth frames below the root: a stack far deeper than any profiler
 * writes costs memory out of proportion to its bytes (a 10 KB gzip'd pprof
 * holds a 10^7-frame sample). */
static inline void fg_stackbuf_limit(fg_stackbuf *b, const fg_read_options *opts, const char *source)
{
	b->max_depth = opts && opts->max_depth ? (size_t)opts->max_depth : FG_READ_DEFAULT_MAX_DEPTH;
	b->source = source;
}

/* An empty stack holding the root ("all", interned in names).  A zeroed
 * struct before; fg_stackbuf_free after. */
int fg_stackbuf_init(fg_stackbuf *b, fg_names *names, fg_error *err);

/* Back to the root alone, for the next sample. */
static inline void fg_stackbuf_reset(fg_stackbuf *b)
{
	b->len = 1;
}

int fg_stackbuf_grow(fg_stackbuf *b, size_t n, fg_error *err);

/* The error of a stack deeper than b's --max-depth (FG_EINVALID). */
int fg_stackbuf_too_deep(const fg_stackbuf *b, fg_error *err);

/* Room for n entries (root included) in names[] and types[]; inline, as
 * readers call it per frame. */
static inline int fg_stackbuf_reserve(fg_stackbuf *b, size_t n, fg_error *err)
{
	return n <= b->cap ? 0 : fg_stackbuf_grow(b, n, err);
}

/* Appends a frame (inline: readers call it per frame). */
static inline int fg_stackbuf_push(fg_stackbuf *b, uint32_t name, uint8_t type, fg_error *err)
{
	int rc = fg_stackbuf_reserve(b, b->len + 1, err);
	if (rc)
		return rc;
	b->names[b->len] = name;
	b->types[b->len++] = type;
	return 0;
}

/* Turns the frames from index `from` on around (1: every frame, for
 * leaf-first sources). */
void fg_stackbuf_reverse(fg_stackbuf *b, size_t from);

/* Hands the stack with count samples to fn; fails when the total would
 * overflow 64 bits. */
int fg_stackbuf_emit(fg_stackbuf *b, uint64_t count, fg_stack_fn fn, void *ctx, fg_error *err);

/* fg_stackbuf_emit() of a partial stack (fg_stack.partial, for a visitor
 * with a stop function): the frames from index `from` (> 1) to the end, the
 * first of them one that ends the stack; the slot before them is given the
 * root. */
int fg_stackbuf_emit_partial(fg_stackbuf *b, size_t from, uint64_t count, fg_stack_fn fn, void *ctx,
			     fg_error *err);

/* fg_stackbuf_emit() of a whole stack some of whose frames are left out (for
 * a visitor with an inert function: fg_stack, fg_inert_fn): the frames from
 * index `from` (>= 1) to the end, the ones before them left out; the slot
 * before them is given the root. */
int fg_stackbuf_emit_short(fg_stackbuf *b, size_t from, uint64_t count, fg_stack_fn fn, void *ctx,
			   fg_error *err);

void fg_stackbuf_free(fg_stackbuf *b);

#endif
