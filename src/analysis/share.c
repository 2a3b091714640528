#include "analysis/share.h"

#include <stdlib.h>
#include <string.h>

/* The matching frames on the current path, outermost first.  Frames that
 * match nothing leave no state, so the common frame costs a comparison. */
struct open_match {
	uint32_t depth;
	uint64_t mask;      /* patterns this frame matches */
	uint64_t active;    /* patterns matched by this frame or an ancestor */
	uint64_t total;
	uint64_t children;  /* sum of the children's totals */
};

struct fg_share {
	fg_matcher *matcher;
	const fg_names *names;
	uint64_t total;
	uint64_t samples[FG_MATCH_MAX_PATTERNS];
	uint64_t self[FG_MATCH_MAX_PATTERNS];
	uint64_t matched;                      /* patterns that matched any frame */
	uint64_t all;                          /* every pattern's bit */
	bool self_wanted;                      /* false: fg_share_inclusive_only */
	const fg_match_cache *cache;           /* the matcher's answers by name id */
	struct open_match *open;
	uint32_t nopen, open_cap;
	int64_t top_depth;                     /* depth of open[nopen - 1], or -1 */
};

int fg_share_new(fg_share **out, fg_matcher *matcher, const fg_names *names, fg_error *err)
{
	fg_share *s = calloc(1, sizeof(*s));
	if (!s)
		return fg_error_oom(err, NULL);
	s->matcher = matcher;
	s->cache = fg_matcher_cache(matcher);
	s->names = names;
	s->all = (UINT64_C(1) << fg_matcher_count(matcher)) - 1;
	s->self_wanted = true;
	fg_share_reset(s);
	*out = s;
	return 0;
}

void fg_share_free(fg_share *s)
{
	if (!s)
		return;
	free(s->open);
	free(s);
}

void fg_share_reset(fg_share *s)
{
	s->total = 0;
	memset(s->samples, 0, sizeof(s->samples));
	memset(s->self, 0, sizeof(s->self));
	s->matched = 0;
	s->nopen = 0;
	s->top_depth = -1;
}

/* Closes the matching frames at depth >= d: their self samples are known. */
static inline void close_to(fg_share *s, uint32_t d)
{
	while (s->nopen > 0 && s->open[s->nopen - 1].depth >= d) {
		const struct open_match *o = &s->open[--s->nopen];
		uint64_t self = o->total - o->children;
		for (uint64_t m = s->self_wanted ? o->mask : 0; m; m &= m - 1)
			s->self[__builtin_ctzll(m)] += self;
	}
	s->top_depth = s->nopen ? (int64_t)s->open[s->nopen - 1].depth : -1;
}

/* A frame that matches: count it where it is outermost, keep it open. */
__attribute__((noinline)) static int open_frame(fg_share *s, const fg_frame *f, uint64_t mask, fg_error *err)
{
	uint64_t active = s->nopen ? s->open[s->nopen - 1].active : 0;
	/* A stack counts once: only the outermost match of a pattern adds. */
	for (uint64_t m = mask & ~active; m; m &= m - 1)
		s->samples[__builtin_ctzll(m)] += f->total;
	s->matched |= mask;
	if (s->nopen == s->open_cap) {
		uint32_t cap = s->open_cap ? s->open_cap * 2 : 64;
		struct open_match *o = realloc(s->open, (size_t)cap * sizeof(*o));
		if (!o)
			return fg_error_oom(err, NULL);
		s->open = o;
		s->open_cap = cap;
	}
	s->open[s->nopen++] = (struct open_match){ f->depth, mask, active | mask, f->total, 0 };
	s->top_depth = f->depth;
	return 0;
}

int fg_share_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	fg_share *s = ctx;
	if (!frames) {
		close_to(s, 0);
		return 0;
	}
	const fg_match_cache *cache = s->cache;
	const fg_frame *f = frames, *const end = frames + n;
	for (;;) {
		/* The cache as it is (a miss may grow it), and top_depth in a
		 * local (the stores into open[] could alias s). */
		const uint64_t *const masks = cache->masks;
		const uint32_t cap = cache->cap;
		const int64_t top = s->top_depth;
		/* Most frames match nothing and have no matching ancestor:
		 * their answer is FG_MATCH_KNOWN alone and they lie deeper than
		 * top + 1 (neither a child of an open match nor closing one), so
		 * they change nothing.  Without the self share a child of an
		 * open match changes nothing either (its total is summed only
		 * for its parent's self): then only the frames at top or above
		 * close one.  The loop keeps only what those need; the root
		 * (depth 0, top >= -1) and every other frame leave it. */
		int64_t looked_at = top + s->self_wanted;
		if (looked_at < 0)
			looked_at = 0; /* the root, whatever its name's answer */
		for (; f < end; f++) {
			uint64_t cached = f->name < cap ? masks[f->name] : 0;
			if (cached != FG_MATCH_KNOWN || (int64_t)f->depth <= looked_at)
				break;
		}
		if (f == end)
			return 0;
		int64_t depth = f->depth;
		if (top >= depth - 1) {
			if (depth == 0) {
				close_to(s, 0);
				s->total += f->total;
				f++;
				continue;
			}
			if (top >= depth)
				close_to(s, (uint32_t)depth);
			if (s->top_depth == depth - 1)
				s->open[s->nopen - 1].children += f->total;
		}
		uint64_t mask;
		int rc = fg_matcher_lookup(&mask, s->matcher, cache, s->names, f->name, err);
		if (!rc && mask)
			rc = open_frame(s, f, mask, err);
		if (rc)
			return rc;
		f++;
	}
}

int fg_share_stack(void *ctx, const fg_stack *st, fg_error *err)
{
	fg_share *s = ctx;
	const fg_match_cache *cache = s->cache;
	/* The cache as it is, reloaded after a miss (which may grow it): per
	 * frame a load and the "known" bit's test, the answers ORed with it
	 * (cleared below). */
	const uint64_t *masks = cache->masks;
	uint32_t cap = cache->cap;
	uint64_t any = 0, mask = 0;
	const uint32_t *names = st->names;
	size_t i = 1, depth = st->depth;
	/* A partial stack starts at a frame fg_share_stop() answered for: it
	 * matches every pattern, so only the leaf's answer is left to know
	 * (the self share). */
	if (st->partial) {
		any = s->all;
		i = depth;
	}
	/* Two frames a round while both are known (once the names are seen,
	 * every frame); from an unknown one on, one at a time. */
	for (; i < depth; i += 2) {
		uint32_t a = names[i], b = names[i + 1];
		uint64_t ma = a < cap ? masks[a] : 0, mb = b < cap ? masks[b] : 0;
		if (!(ma & mb & FG_MATCH_KNOWN))
			break;
		any |= ma | mb;
		mask = mb;
	}
	for (; i <= depth; i++) {
		uint32_t name = names[i];
		mask = name < cap ? masks[name] : 0;
		if (!(mask & FG_MATCH_KNOWN)) {
			uint64_t m; /* (its address taken: mask stays in a register) */
			int rc = fg_matcher_lookup(&m, s->matcher, cache, s->names, name, err);
			if (rc)
				return rc;
			mask = m;
			masks = cache->masks;
			cap = cache->cap;
		}
		any |= mask;
	}
	any &= ~FG_MATCH_KNOWN;
	/* mask: the leaf's (none for a stack of the root alone). */
	mask = st->depth ? mask & ~FG_MATCH_KNOWN : 0;
	s->matched |= any;
	s->total += st->count;
	for (uint64_t m = any; m; m &= m - 1)
		s->samples[__builtin_ctzll(m)] += st->count;
	for (uint64_t m = s->self_wanted ? mask : 0; m; m &= m - 1)
		s->self[__builtin_ctzll(m)] += st->count;
	return 0;
}

int fg_share_stop(void *ctx, uint32_t name, bool *stop, fg_error *err)
{
	fg_share *s = ctx;
	uint64_t mask;
	int rc = fg_matcher_lookup(&mask, s->matcher, s->cache, s->names, name, err);
	/* Every pattern matched here: the stack counts for each, whatever
	 * lies nearer the root, and its leaf (the self share) is below. */
	*stop = !rc && mask == s->all;
	return rc;
}

int fg_share_inert(void *ctx, uint32_t name, bool *inert, fg_error *err)
{
	fg_share *s = ctx;
	uint64_t mask;
	int rc = fg_matcher_lookup(&mask, s->matcher, s->cache, s->names, name, err);
	*inert = !rc && mask == 0;
	return rc;
}

void fg_share_inclusive_only(fg_share *s)
{
	s->self_wanted = false;
}

uint64_t fg_share_samples(const fg_share *s, size_t p)
{
	return s->samples[p];
}

uint64_t fg_share_self(const fg_share *s, size_t p)
{
	return s->self[p];
}

bool fg_share_matched(const fg_share *s, size_t p)
{
	return s->matched >> p & 1;
}
