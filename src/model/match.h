/* fgbisect — frame patterns.
 *
 * A pattern is a case-sensitive substring or, with regex set, a POSIX
 * extended regular expression.  A frame matches when the pattern matches its
 * raw name or its normalised name (src/model/normalize.h), so a name pasted from a
 * tooltip works and so does a stable one.  Each distinct name is tested once:
 * the answer is cached by name id. */
#ifndef FG_MATCH_H
#define FG_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/names.h"

/* Pattern i is bit i of a mask; bit 63 marks a cached answer. */
#define FG_MATCH_MAX_PATTERNS 63

typedef struct fg_match_options {
	bool regex; /* POSIX ERE instead of substring; default false */
	bool raw;   /* match raw names only, no normalised form; default false */
} fg_match_options;

/* Cost: each pattern is tested once per distinct name (raw and normalised),
 * the answer cached by name id; a lookup is then O(1).  Not thread-safe: the
 * cache fills on lookup. */
typedef struct fg_matcher fg_matcher;

/* Limits on a regular expression, checked before regcomp: glibc expands a
 * bounded repetition into copies of its operand, so x{0,32767} took 12.8 s
 * and 8.5 GB to compile, and nested bounds multiply. */
#define FG_MATCH_MAX_REPEAT 255     /* a count in {m,n} (POSIX's RE_DUP_MAX minimum) */
#define FG_MATCH_MAX_NESTING 32     /* parentheses inside parentheses */
#define FG_MATCH_MAX_EXPANDED 10000 /* positions once every {m,n} is expanded */

/* Fails with FG_EUSAGE on an empty pattern, a bad regex, a regex beyond the
 * limits above (the message says which) or too many patterns. */
int fg_matcher_new(fg_matcher **out, const char *const *patterns, size_t npatterns,
		   const fg_match_options *opts, fg_error *err);
void fg_matcher_free(fg_matcher *m);

/* Bit i is set when pattern i matches the name.  Returns 0 or FG_ENOMEM. */
int fg_matcher_test(uint64_t *mask, fg_matcher *m, const fg_names *names, uint32_t name, fg_error *err);

/* The answers computed so far, by name id: what a per-frame loop reads
 * inline (fg_matcher_lookup) instead of calling fg_matcher_test. */
typedef struct fg_match_cache {
	uint64_t *masks;  /* by name id: the answer | FG_MATCH_KNOWN once computed, else 0 */
	uint32_t cap;
} fg_match_cache;

#define FG_MATCH_KNOWN (UINT64_C(1) << 63)

const fg_match_cache *fg_matcher_cache(const fg_matcher *m);

static inline int fg_matcher_lookup(uint64_t *mask, fg_matcher *m, const fg_match_cache *cache,
				    const fg_names *names, uint32_t name, fg_error *err)
{
	/* One load per frame: the answer and its "known" bit share a word. */
	uint64_t cached = name < cache->cap ? cache->masks[name] : 0;
	if (cached & FG_MATCH_KNOWN) {
		*mask = cached & ~FG_MATCH_KNOWN;
		return 0;
	}
	return fg_matcher_test(mask, m, names, name, err);
}

const char *fg_matcher_pattern(const fg_matcher *m, size_t i);
size_t fg_matcher_count(const fg_matcher *m);

#endif
