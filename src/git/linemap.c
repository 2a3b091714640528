#include "git/linemap.h"

#include <stdlib.h>
#include <string.h>

void fg_line_set_free(fg_line_set *s)
{
	free(s->r);
	memset(s, 0, sizeof(*s));
}

/* Inserts in order and merges overlapping or adjacent ranges (git's
 * sort_and_merge_range_set). */
int fg_line_set_add(fg_line_set *s, uint32_t start, uint32_t end)
{
	if (start >= end)
		return 0;
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 4;
		fg_line_range *g = realloc(s->r, ncap * sizeof(*g));
		if (!g)
			return -1;
		s->r = g;
		s->cap = ncap;
	}
	size_t i = s->n;
	while (i > 0 && s->r[i - 1].start > start) {
		s->r[i] = s->r[i - 1];
		i--;
	}
	s->r[i] = (fg_line_range){ start, end };
	s->n++;
	size_t o = 0;
	for (size_t k = 1; k < s->n; k++) {
		if (s->r[k].start <= s->r[o].end) {
			if (s->r[k].end > s->r[o].end)
				s->r[o].end = s->r[k].end;
		} else {
			s->r[++o] = s->r[k];
		}
	}
	s->n = o + 1;
	return 0;
}

int fg_line_set_union(fg_line_set *dst, const fg_line_set *src)
{
	for (size_t i = 0; i < src->n; i++)
		if (fg_line_set_add(dst, src->r[i].start, src->r[i].end) < 0)
			return -1;
	return 0;
}

int fg_line_set_copy(fg_line_set *dst, const fg_line_set *src)
{
	dst->n = 0;
	return fg_line_set_union(dst, src);
}

/* git's ranges_overlap: an empty hunk side [s, s) overlaps only a range
 * that has lines on both sides of s. */
static bool overlaps(uint32_t as, uint32_t ae, uint32_t bs, uint32_t be)
{
	return !(ae <= bs || be <= as);
}

static bool in_set(const fg_line_set *s, uint32_t line)
{
	for (size_t i = 0; i < s->n; i++)
		if (line >= s->r[i].start && line < s->r[i].end)
			return true;
	return false;
}

static uint32_t intersection(const fg_line_set *s, uint32_t a, uint32_t b)
{
	uint32_t n = 0;
	for (size_t i = 0; i < s->n; i++) {
		uint32_t lo = s->r[i].start > a ? s->r[i].start : a, hi = s->r[i].end < b ? s->r[i].end : b;
		if (hi > lo)
			n += hi - lo;
	}
	return n;
}

/* Pieces of the set between the touching hunks: kept apart even where
 * they meet, since a pure deletion inside a range splits it and the part
 * after it moves by the deleted lines (git's range_set_difference). */
typedef struct pieces {
	fg_line_range *r;
	size_t n, cap;
} pieces;

static int piece_add(pieces *p, uint32_t start, uint32_t end)
{
	if (start >= end)
		return 0;
	if (p->n == p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 8;
		fg_line_range *g = realloc(p->r, ncap * sizeof(*g));
		if (!g)
			return -1;
		p->r = g;
		p->cap = ncap;
	}
	p->r[p->n++] = (fg_line_range){ start, end };
	return 0;
}

int fg_line_set_map(fg_line_set *out, fg_line_effect *effect, const fg_line_set *set, const fg_line_hunk *hunks,
		    size_t nhunks)
{
	memset(effect, 0, sizeof(*effect));
	out->n = 0;
	pieces rest = { 0 };
	int rc = 0;
	for (size_t k = 0; rc == 0 && k < set->n; k++)
		rc = piece_add(&rest, set->r[k].start, set->r[k].end);
	/* The touching hunks: the commit takes the blame for their new side
	 * (cut out of the set) and hands their old side on (added below). */
	for (size_t i = 0; rc == 0 && i < nhunks; i++) {
		const fg_line_hunk *h = &hunks[i];
		bool touch = false;
		for (size_t k = 0; k < set->n && !touch; k++)
			touch = overlaps(h->tstart, h->tend, set->r[k].start, set->r[k].end);
		if (!touch)
			continue;
		effect->touched = true;
		effect->added += intersection(set, h->tstart, h->tend);
		/* Removed lines "inside": a deletion that touches lies within the
		 * set; otherwise the i-th old line is paired with the i-th new one
		 * (the extra old lines with the last new one) and counts when
		 * that one is in the set. */
		uint32_t plen = h->pend - h->pstart, tlen = h->tend - h->tstart;
		for (uint32_t k = 0; k < plen; k++)
			effect->removed += !tlen || in_set(set, h->tstart + (k < tlen ? k : tlen - 1));
		pieces cut = { 0 };
		for (size_t k = 0; rc == 0 && k < rest.n; k++) {
			fg_line_range r = rest.r[k];
			if (h->tstart == h->tend) {
				/* An empty side strictly inside splits the piece. */
				if (r.start < h->tstart && h->tstart < r.end) {
					rc = piece_add(&cut, r.start, h->tstart);
					if (rc == 0)
						rc = piece_add(&cut, h->tstart, r.end);
				} else {
					rc = piece_add(&cut, r.start, r.end);
				}
				continue;
			}
			if (r.end <= h->tstart || r.start >= h->tend) {
				rc = piece_add(&cut, r.start, r.end);
				continue;
			}
			rc = piece_add(&cut, r.start, r.start < h->tstart ? h->tstart : r.start);
			if (rc == 0 && r.end > h->tend)
				rc = piece_add(&cut, h->tend, r.end);
		}
		free(rest.r);
		rest = cut;
		if (rc == 0 && fg_line_set_add(out, h->pstart, h->pend) < 0)
			rc = -1;
	}
	/* The untouched pieces move by the lines every hunk at or above them
	 * added or removed (git's range_set_shift_diff). */
	size_t j = 0;
	int64_t offset = 0;
	for (size_t k = 0; rc == 0 && k < rest.n; k++) {
		while (j < nhunks && rest.r[k].start >= hunks[j].tstart) {
			offset += (int64_t)(hunks[j].pend - hunks[j].pstart) - (int64_t)(hunks[j].tend - hunks[j].tstart);
			j++;
		}
		int64_t s = (int64_t)rest.r[k].start + offset, e = (int64_t)rest.r[k].end + offset;
		if (s < 0)
			s = 0;
		if (e > s && e <= UINT32_MAX && fg_line_set_add(out, (uint32_t)s, (uint32_t)e) < 0)
			rc = -1;
	}
	free(rest.r);
	return rc;
}
