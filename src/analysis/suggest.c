#include "analysis/suggest.h"

#include <ctype.h>
#include <string.h>

static int fold(unsigned char c)
{
	return tolower(c);
}

/* Sellers' approximate substring matching: row j of the edit-distance
 * table of pattern against name, where any prefix of the name may be
 * skipped for free (row[0] stays 0) and the best of the last column over
 * all ends is the answer.  The table is one column over the pattern. */
size_t fg_suggest_distance(const char *pattern, const char *name, size_t name_len)
{
	size_t m = strlen(pattern);
	if (m == 0 || m > FG_SUGGEST_MAX_PATTERN)
		return SIZE_MAX;
	size_t col[FG_SUGGEST_MAX_PATTERN + 1];
	for (size_t i = 0; i <= m; i++)
		col[i] = i;
	size_t best = m;
	for (size_t j = 0; j < name_len; j++) {
		size_t diag = col[0]; /* the cell above-left: 0, a free start */
		int c = fold((unsigned char)name[j]);
		for (size_t i = 1; i <= m; i++) {
			size_t up = col[i]; /* this pattern prefix, one name byte fewer */
			size_t v = diag + (fold((unsigned char)pattern[i - 1]) != c);
			if (up + 1 < v)
				v = up + 1;
			if (col[i - 1] + 1 < v)
				v = col[i - 1] + 1;
			diag = up;
			col[i] = v;
		}
		if (col[m] < best)
			best = col[m];
	}
	return best;
}

void fg_suggest_names(uint32_t *out, size_t *n, size_t max, const fg_names *names, const char *pattern)
{
	*n = 0;
	size_t m = strlen(pattern), limit = m / 6 ? m / 6 : 1;
	size_t dist[16];
	if (max > sizeof(dist) / sizeof(dist[0]))
		max = sizeof(dist) / sizeof(dist[0]);
	uint32_t count = fg_names_count(names);
	for (uint32_t id = 0; id < count && max; id++) {
		size_t len = fg_names_length(names, id);
		size_t d = fg_suggest_distance(pattern, fg_names_get(names, id), len);
		if (d > limit)
			continue;
		/* Insertion into the kept few, nearest first, shorter first. */
		size_t at = *n;
		while (at > 0 && (dist[at - 1] > d ||
				  (dist[at - 1] == d && fg_names_length(names, out[at - 1]) > len)))
			at--;
		if (at >= max)
			continue;
		size_t keep = *n < max ? *n : max - 1;
		memmove(out + at + 1, out + at, (keep - at) * sizeof(*out));
		memmove(dist + at + 1, dist + at, (keep - at) * sizeof(*dist));
		out[at] = id;
		dist[at] = d;
		*n = keep + 1;
	}
}
