/* fgbisect — several profiles read as one (pool.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pool.h"
#include "analysis/protocol.h"
#include "base/error.h"

struct fg_pool {
	fg_visitor inner;
	fg_protocol *protocol;
	fg_compare_input *in;
	size_t n, cap;
	fg_profile_info info;
};

int fg_pool_new(fg_pool **out, const fg_names *names, const fg_visitor *inner, fg_error *err)
{
	*out = NULL;
	fg_pool *p = calloc(1, sizeof(*p));
	if (!p)
		return fg_error_oom(err, NULL);
	p->inner = *inner;
	int rc = fg_protocol_new(&p->protocol, names, err);
	if (rc) {
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void fg_pool_free(fg_pool *p)
{
	if (!p)
		return;
	fg_protocol_free(p->protocol);
	free(p->in);
	free(p);
}

static int pool_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	fg_pool *p = ctx;
	int rc = fg_protocol_frames(p->protocol, frames, n, err);
	return rc ? rc : p->inner.frames(p->inner.ctx, frames, n, err);
}

static int pool_stack(void *ctx, const fg_stack *stack, fg_error *err)
{
	fg_pool *p = ctx;
	int rc = fg_protocol_stack(p->protocol, stack, err);
	return rc ? rc : p->inner.stack(p->inner.ctx, stack, err);
}

fg_visitor fg_pool_visitor(fg_pool *p)
{
	return (fg_visitor){ pool_frames, p->inner.stack ? pool_stack : NULL, p, NULL, NULL };
}

int fg_pool_begin(fg_pool *p, const char *location, const char *source, fg_error *err)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 4;
		fg_compare_input *in = realloc(p->in, cap * sizeof(*in));
		if (!in)
			return fg_error_oom(err, source);
		p->in = in;
		p->cap = cap;
	}
	p->in[p->n] = (fg_compare_input){ .location = location, .source = source, .side = FG_DIFF_BASE };
	fg_protocol_reset(p->protocol);
	return 0;
}

int fg_pool_end(fg_pool *p, const fg_profile_info *info, fg_error *err)
{
	fg_compare_input *x = &p->in[p->n];
	if (p->n && info->total > UINT64_MAX - p->info.total)
		return fg_error_set(err, FG_EINVALID, x->source, "the pooled sample counts overflow 64 bits");
	fg_compare_input_seen(x, fg_protocol_result(p->protocol), info);
	if (!p->n) {
		p->info = *info;
	} else {
		p->info.total += info->total;
		p->info.frames += info->frames;
	}
	p->n++;
	return 0;
}

size_t fg_pool_count(const fg_pool *p)
{
	return p->n;
}

const fg_compare_input *fg_pool_inputs(const fg_pool *p)
{
	return p->in;
}

const fg_profile_info *fg_pool_info(const fg_pool *p)
{
	return &p->info;
}
