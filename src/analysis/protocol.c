#include "analysis/protocol.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/idarray.h"
#include "model/match.h"

/* The markers, REST first; the bit masks below follow this order. */
static const char *const markers[] = {
	"org/apache/coyote/",
	"org/apache/catalina/",
	"FrameworkServlet",
	"BearerTokenAuthenticationFilter",
	"org/springframework/security/web/FilterChainProxy",
	"io/grpc/",
	"io/netty/channel/nio/NioEventLoop.run", /* Netty 4.1 */
	"SingleThreadIoEventLoop",               /* Netty 4.2 */
};
#define REST_BITS UINT64_C(0x1f)
#define GRPC_BIT (UINT64_C(1) << 5)
#define LOOP_BITS (UINT64_C(3) << 6)

enum marker_kind { MARK_REST, MARK_GRPC, MARK_LOOP };

/* A marker frame on the current path. */
struct open_marker {
	uint32_t depth;
	uint32_t name;
	uint8_t kind;      /* enum marker_kind */
};

struct fg_protocol {
	const fg_names *names;
	fg_matcher *matcher;     /* caches its answer per name id */
	const fg_match_cache *cache;
	bool rest, grpc;
	/* By name id, for marker names only: */
	uint64_t *samples;       /* stacks holding the name, each counted once */
	uint32_t *open;          /* occurrences on the current path */
	uint8_t *serving;        /* an event loop with io/grpc/ frames beneath it */
	uint32_t cap;
	struct open_marker *stack;
	uint32_t nstack, stack_cap;
	uint32_t grpc_open;      /* io/grpc/ frames on the current path */
	uint32_t evidence[FG_PROTOCOL_MAX_EVIDENCE];
	size_t nevidence;
};

int fg_protocol_new(fg_protocol **out, const fg_names *names, fg_error *err)
{
	fg_protocol *p = calloc(1, sizeof(*p));
	if (!p)
		return fg_error_oom(err, NULL);
	p->names = names;
	/* Not raw: a dotted frame is matched in its normalised, slashed form. */
	fg_match_options mo = { .regex = false, .raw = false };
	int rc = fg_matcher_new(&p->matcher, markers, sizeof(markers) / sizeof(markers[0]), &mo, err);
	if (rc) {
		free(p);
		return rc;
	}
	p->cache = fg_matcher_cache(p->matcher);
	*out = p;
	return 0;
}

void fg_protocol_free(fg_protocol *p)
{
	if (!p)
		return;
	fg_matcher_free(p->matcher);
	free(p->samples);
	free(p->open);
	free(p->serving);
	free(p->stack);
	free(p);
}

void fg_protocol_reset(fg_protocol *p)
{
	p->rest = p->grpc = false;
	if (p->cap) {
		memset(p->samples, 0, (size_t)p->cap * sizeof(*p->samples));
		memset(p->open, 0, (size_t)p->cap * sizeof(*p->open));
		memset(p->serving, 0, p->cap);
	}
	p->nstack = 0;
	p->grpc_open = 0;
	p->nevidence = 0;
}

static int grow_names(fg_protocol *p, uint32_t name, fg_error *err)
{
	uint32_t cap = fg_idarray_capacity(p->cap, name);
	if (fg_idarray_resize(&p->samples, sizeof(*p->samples), p->cap, cap, 0) ||
	    fg_idarray_resize(&p->open, sizeof(*p->open), p->cap, cap, 0) ||
	    fg_idarray_resize(&p->serving, sizeof(*p->serving), p->cap, cap, 0))
		return fg_error_oom(err, NULL);
	p->cap = cap;
	return 0;
}

/* Pops the marker frames at depth >= d: they are no longer on the path. */
static inline void close_to(fg_protocol *p, uint32_t d)
{
	while (p->nstack > 0 && p->stack[p->nstack - 1].depth >= d) {
		const struct open_marker *m = &p->stack[--p->nstack];
		p->open[m->name]--;
		if (m->kind == MARK_GRPC)
			p->grpc_open--;
	}
}

static bool is_evidence(const fg_protocol *p, uint32_t name, uint64_t mask)
{
	if (p->rest)
		return mask & REST_BITS;
	return (mask & GRPC_BIT) || ((mask & LOOP_BITS) && p->serving[name]);
}

/* The evidence: the verdict's marker names with the most samples. */
static int finish(fg_protocol *p, fg_error *err)
{
	p->nevidence = 0;
	if (!p->rest && !p->grpc)
		return 0;
	for (uint32_t name = 0; name < p->cap; name++) {
		if (!p->samples[name])
			continue;
		uint64_t mask;
		int rc = fg_matcher_test(&mask, p->matcher, p->names, name, err);
		if (rc)
			return rc;
		if (!is_evidence(p, name, mask))
			continue;
		/* Insertion into the short sorted list: most samples, then bytes. */
		size_t i = p->nevidence;
		while (i > 0) {
			uint32_t prev = p->evidence[i - 1];
			if (p->samples[prev] > p->samples[name] ||
			    (p->samples[prev] == p->samples[name] &&
			     strcmp(fg_names_get(p->names, prev), fg_names_get(p->names, name)) < 0))
				break;
			if (i < FG_PROTOCOL_MAX_EVIDENCE)
				p->evidence[i] = prev;
			i--;
		}
		if (i < FG_PROTOCOL_MAX_EVIDENCE) {
			p->evidence[i] = name;
			if (p->nevidence < FG_PROTOCOL_MAX_EVIDENCE)
				p->nevidence++;
		}
	}
	return 0;
}

/* A frame at depth > 0 on the current path, its ancestors' markers open. */
static int add_frame(fg_protocol *p, uint32_t depth, uint32_t name, uint64_t total, fg_error *err)
{
	uint64_t mask;
	int rc = fg_matcher_lookup(&mask, p->matcher, p->cache, p->names, name, err);
	if (rc || !mask)
		return rc;
	if (name >= p->cap && (rc = grow_names(p, name, err)))
		return rc;
	uint8_t kind = mask & REST_BITS ? MARK_REST : mask & GRPC_BIT ? MARK_GRPC : MARK_LOOP;
	if (kind == MARK_REST) {
		p->rest = true;
	} else if (kind == MARK_GRPC) {
		p->grpc = true;
		/* The outermost io/grpc/ frame of a stack: the event loops above
		 * it serve gRPC. */
		if (!p->grpc_open++)
			for (uint32_t i = 0; i < p->nstack; i++)
				if (p->stack[i].kind == MARK_LOOP)
					p->serving[p->stack[i].name] = 1;
	}
	/* A stack counts once however often the frame recurses in it. */
	if (!p->open[name]++)
		p->samples[name] += total;
	if (p->nstack == p->stack_cap) {
		uint32_t cap = p->stack_cap ? p->stack_cap * 2 : 32;
		struct open_marker *s = realloc(p->stack, (size_t)cap * sizeof(*s));
		if (!s)
			return fg_error_oom(err, NULL);
		p->stack = s;
		p->stack_cap = cap;
	}
	p->stack[p->nstack++] = (struct open_marker){ depth, name, kind };
	return 0;
}

int fg_protocol_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	fg_protocol *p = ctx;
	if (!frames) {
		close_to(p, 0);
		return finish(p, err);
	}
	for (const fg_frame *f = frames, *end = frames + n; f < end; f++) {
		close_to(p, f->depth);
		int rc = f->depth ? add_frame(p, f->depth, f->name, f->total, err) : 0;
		if (rc)
			return rc;
	}
	return 0;
}

int fg_protocol_stack(void *ctx, const fg_stack *st, fg_error *err)
{
	fg_protocol *p = ctx;
	/* The stack is one root-to-leaf path: open its frames in turn, then
	 * close them all. */
	int rc = 0;
	for (size_t i = 1; i <= st->depth && !rc; i++)
		rc = add_frame(p, (uint32_t)i, st->names[i], st->count, err);
	close_to(p, 0);
	return rc;
}

int fg_protocol_name_seen(fg_protocol *p, uint32_t name, fg_error *err)
{
	uint64_t mask;
	int rc = fg_matcher_lookup(&mask, p->matcher, p->cache, p->names, name, err);
	if (rc)
		return rc;
	if (mask & REST_BITS)
		p->rest = true;
	if (mask & GRPC_BIT)
		p->grpc = true;
	return 0;
}

fg_protocol_kind fg_protocol_result(const fg_protocol *p)
{
	return p->rest ? FG_PROTOCOL_REST : p->grpc ? FG_PROTOCOL_GRPC : FG_PROTOCOL_UNKNOWN;
}

size_t fg_protocol_evidence_count(const fg_protocol *p)
{
	return p->nevidence;
}

const char *fg_protocol_evidence(const fg_protocol *p, size_t i)
{
	return i < p->nevidence ? fg_names_get(p->names, p->evidence[i]) : NULL;
}

const char *fg_protocol_name(fg_protocol_kind k)
{
	switch (k) {
	case FG_PROTOCOL_GRPC: return "grpc";
	case FG_PROTOCOL_REST: return "rest";
	default: return "unknown";
	}
}

const char *fg_protocol_join(const char *label, const char *next)
{
	if (!next)
		return label;
	return label && strcmp(label, next) ? "mixed" : next;
}

const char *fg_protocol_event(const fg_profile_info *info)
{
	static const struct { const char *title, *event; } events[] = {
		{ "CPU profile", "cpu" },
		{ "Allocation profile", "alloc" },
		{ "Wall clock profile", "wall" },
		{ "Lock profile", "lock" },
	};
	/* Formats that say (JFR, pprof, perf script): as a static string. */
	static const char *const known[] = { "cpu", "alloc", "wall", "lock" };
	for (size_t i = 0; info->event[0] && i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(info->event, known[i]))
			return known[i];
	const char *t = info->title;
	/* --total graphs: "<title> (<units>)". */
	const char *units = strstr(t, " (");
	size_t len = units && t[strlen(t) - 1] == ')' ? (size_t)(units - t) : strlen(t);
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (strlen(events[i].title) == len && !memcmp(t, events[i].title, len))
			return events[i].event;
	return NULL;
}
