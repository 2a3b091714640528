/* fgbisect — the frame names nearest a pattern that matched none: what a
 * mistyped --frame meant.
 *
 * A name's distance to the pattern is the fewest single-character edits
 * (insert, delete, replace; letters compared without case) that make the
 * pattern a substring of the name: a pattern is a substring of the frames
 * it matches, so a typo in the middle of a long name costs what the typo
 * costs, not the length of the rest. */
#ifndef FG_SUGGEST_H
#define FG_SUGGEST_H

#include <stddef.h>
#include <stdint.h>

#include "model/names.h"

/* The longest pattern suggestions are looked for (longer: none). */
#define FG_SUGGEST_MAX_PATTERN 256

/* Up to max names of the table whose distance to pattern is at most a
 * sixth of its length (at least 1), the nearest first (ties: the shorter
 * name, then the first interned), into out; *n how many.  No allocation. */
void fg_suggest_names(uint32_t *out, size_t *n, size_t max, const fg_names *names, const char *pattern);

/* The distance defined above (for tests); SIZE_MAX when the pattern is
 * empty or longer than FG_SUGGEST_MAX_PATTERN. */
size_t fg_suggest_distance(const char *pattern, const char *name, size_t name_len);

#endif
