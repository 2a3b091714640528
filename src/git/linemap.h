/* fgbisect — sets of line ranges carried across a diff, as `git log -L`
 * carries them (git's line-log.c): a hunk whose new side overlaps the set
 * "touches" it (the commit takes the blame for those lines), the set's
 * untouched lines are shifted to their places in the parent, and the old
 * sides of the touching hunks join the set.  Lines are 0-based, ranges
 * half-open [start, end), as in git.  Pure data: no I/O. */
#ifndef FG_LINEMAP_H
#define FG_LINEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fg_line_range {
	uint32_t start, end;
} fg_line_range;

/* Sorted, disjoint, non-adjacent, non-empty ranges. */
typedef struct fg_line_set {
	fg_line_range *r;
	size_t n, cap;
} fg_line_set;

/* One hunk of a diff without context: lines [pstart, pend) of the parent
 * became [tstart, tend) of the target (either side may be empty). */
typedef struct fg_line_hunk {
	uint32_t pstart, pend, tstart, tend;
} fg_line_hunk;

/* What a diff did to a set. */
typedef struct fg_line_effect {
	bool touched;      /* a hunk overlaps the set */
	uint32_t added;    /* target lines of the touching hunks inside the set */
	uint32_t removed;  /* parent lines of the touching hunks that stood inside it (see linemap.c) */
} fg_line_effect;

void fg_line_set_free(fg_line_set *s);
/* Adds [start, end) and keeps the set normal; -1 when out of memory. */
int fg_line_set_add(fg_line_set *s, uint32_t start, uint32_t end);
/* dst |= src; -1 when out of memory. */
int fg_line_set_union(fg_line_set *dst, const fg_line_set *src);
int fg_line_set_copy(fg_line_set *dst, const fg_line_set *src);

/* Maps `set` (lines of the target) across the hunks (in target order) of the
 * diff parent → target: *out (empty on entry) gets the parent's lines the set
 * came from.  -1 when out of memory. */
int fg_line_set_map(fg_line_set *out, fg_line_effect *effect, const fg_line_set *set, const fg_line_hunk *hunks,
		    size_t nhunks);

#endif
