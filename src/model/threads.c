#include "model/threads.h"

#include <stdlib.h>
#include <string.h>

#include "model/normalize.h"

struct fg_thread_merge {
	fg_visitor visitor; /* this one's */
	fg_visitor inner;
	const fg_names *names;
	bool under_thread;  /* the frames stream is inside a dropped thread frame's subtree */
	uint32_t last_name; /* the last depth-1 name asked about, and the answer: a profile's stacks */
	bool last_thread;   /* come thread by thread, so one name answers most of them */
	bool asked;
	uint32_t *stack_names; /* a stack without its thread frame, grown to the deepest */
	uint8_t *stack_types;
	size_t cap;
	fg_frame out[FG_FRAME_BATCH];
};

static bool is_thread(fg_thread_merge *m, uint32_t name)
{
	if (!m->asked || name != m->last_name) {
		m->asked = true;
		m->last_name = name;
		m->last_thread = fg_normalize_is_thread_frame(fg_names_get(m->names, name), fg_names_length(m->names, name));
	}
	return m->last_thread;
}

static int merge_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	fg_thread_merge *m = ctx;
	if (!frames)
		return m->inner.frames(m->inner.ctx, NULL, 0, err);
	size_t k = 0;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		fg_frame f = frames[i];
		if (f.depth <= 1) {
			m->under_thread = f.depth == 1 && is_thread(m, f.name);
			if (m->under_thread)
				continue;
		} else if (m->under_thread) {
			f.depth--;
		}
		m->out[k++] = f;
		if (k == FG_FRAME_BATCH) {
			rc = m->inner.frames(m->inner.ctx, m->out, k, err);
			k = 0;
		}
	}
	if (!rc && k)
		rc = m->inner.frames(m->inner.ctx, m->out, k, err);
	return rc;
}

static int merge_stack(void *ctx, const fg_stack *stack, fg_error *err)
{
	fg_thread_merge *m = ctx;
	/* A partial stack's names[1] is where it stopped, never a thread frame (merge_stop). */
	if (stack->partial || stack->depth == 0 || !is_thread(m, stack->names[1]))
		return m->inner.stack(m->inner.ctx, stack, err);
	if (stack->depth > m->cap) {
		size_t cap = stack->depth * 2;
		uint32_t *nn = realloc(m->stack_names, cap * sizeof(*nn));
		if (nn)
			m->stack_names = nn;
		uint8_t *nt = nn ? realloc(m->stack_types, cap) : NULL;
		if (!nt)
			return fg_error_oom(err, NULL);
		m->stack_types = nt;
		m->cap = cap;
	}
	/* The root, then the frames below the thread's. */
	m->stack_names[0] = stack->names[0];
	m->stack_types[0] = stack->types[0];
	memcpy(m->stack_names + 1, stack->names + 2, (stack->depth - 1) * sizeof(*m->stack_names));
	memcpy(m->stack_types + 1, stack->types + 2, stack->depth - 1);
	fg_stack merged = *stack;
	merged.names = m->stack_names;
	merged.types = m->stack_types;
	merged.depth = stack->depth - 1;
	return m->inner.stack(m->inner.ctx, &merged, err);
}

static int merge_stop(void *ctx, uint32_t name, bool *stop, fg_error *err)
{
	fg_thread_merge *m = ctx;
	if (fg_normalize_is_thread_frame(fg_names_get(m->names, name), fg_names_length(m->names, name))) {
		*stop = false;
		return 0;
	}
	return m->inner.stop(m->inner.ctx, name, stop, err);
}

static int merge_inert(void *ctx, uint32_t name, bool *inert, fg_error *err)
{
	fg_thread_merge *m = ctx;
	return m->inner.inert(m->inner.ctx, name, inert, err);
}

int fg_thread_merge_new(fg_thread_merge **out, const fg_names *names, const fg_visitor *inner, fg_error *err)
{
	fg_thread_merge *m = calloc(1, sizeof(*m));
	if (!m)
		return fg_error_oom(err, NULL);
	m->inner = *inner;
	m->names = names;
	m->visitor = (fg_visitor){ .frames = merge_frames, .ctx = m };
	m->visitor.stack = inner->stack ? merge_stack : NULL;
	m->visitor.stop = inner->stop ? merge_stop : NULL;
	m->visitor.inert = inner->inert ? merge_inert : NULL;
	*out = m;
	return 0;
}

void fg_thread_merge_free(fg_thread_merge *m)
{
	if (!m)
		return;
	free(m->stack_names);
	free(m->stack_types);
	free(m);
}

const fg_visitor *fg_thread_merge_visitor(const fg_thread_merge *m)
{
	return &m->visitor;
}
