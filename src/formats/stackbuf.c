#include "formats/stackbuf.h"

#include <stdlib.h>

int fg_stackbuf_too_deep(const fg_stackbuf *b, fg_error *err)
{
	return fg_error_set(err, FG_EINVALID, b->source,
			    "a stack deeper than --max-depth (%zu frames; profilers write thousands at most): "
			    "refused (a larger --max-depth reads it)",
			    b->max_depth);
}

int fg_stackbuf_grow(fg_stackbuf *b, size_t n, fg_error *err)
{
	if (b->max_depth && n - 1 > b->max_depth)
		return fg_stackbuf_too_deep(b, err);
	size_t cap = b->cap ? b->cap * 2 : 256;
	while (cap < n)
		cap *= 2;
	if (b->max_depth && cap - 1 > b->max_depth)
		cap = b->max_depth + 1; /* so that one frame more comes back here */
	uint32_t *names = realloc(b->names, cap * sizeof(*names));
	if (!names)
		return fg_error_oom(err, NULL);
	b->names = names;
	uint8_t *types = realloc(b->types, cap);
	if (!types)
		return fg_error_oom(err, NULL);
	b->types = types;
	b->cap = cap;
	return 0;
}

int fg_stackbuf_init(fg_stackbuf *b, fg_names *names, fg_error *err)
{
	int rc = fg_stackbuf_reserve(b, 1, err);
	if (!rc)
		rc = fg_names_intern(&b->names[0], names, "all", 3, err);
	b->types[0] = FG_FRAME_NATIVE;
	b->len = 1;
	return rc;
}

void fg_stackbuf_reverse(fg_stackbuf *b, size_t from)
{
	for (size_t i = from, j = b->len; i + 1 < j; i++, j--) {
		uint32_t t = b->names[i];
		b->names[i] = b->names[j - 1];
		b->names[j - 1] = t;
		uint8_t y = b->types[i];
		b->types[i] = b->types[j - 1];
		b->types[j - 1] = y;
	}
}

/* The stack from slot `from` - 1 (the root's) on. */
static int emit(fg_stackbuf *b, size_t from, uint64_t count, bool partial, fg_stack_fn fn, void *ctx,
		fg_error *err)
{
	if (b->total > UINT64_MAX - count)
		return fg_error_set(err, FG_EINVALID, NULL, "sample counts overflow 64 bits");
	b->total += count;
	b->stacks++;
	b->names[from - 1] = b->names[0];
	b->types[from - 1] = b->types[0];
	fg_stack s = { b->names + from - 1, b->types + from - 1, b->len - from, count, partial };
	return fn(ctx, &s, err);
}

int fg_stackbuf_emit(fg_stackbuf *b, uint64_t count, fg_stack_fn fn, void *ctx, fg_error *err)
{
	return emit(b, 1, count, false, fn, ctx, err);
}

int fg_stackbuf_emit_partial(fg_stackbuf *b, size_t from, uint64_t count, fg_stack_fn fn, void *ctx,
			     fg_error *err)
{
	return emit(b, from, count, true, fn, ctx, err);
}

int fg_stackbuf_emit_short(fg_stackbuf *b, size_t from, uint64_t count, fg_stack_fn fn, void *ctx,
			   fg_error *err)
{
	return emit(b, from, count, false, fn, ctx, err);
}

void fg_stackbuf_free(fg_stackbuf *b)
{
	free(b->names);
	free(b->types);
	*b = (fg_stackbuf){ 0 };
}
