#include "model/match.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "base/idarray.h"
#include "model/normalize.h"

struct fg_matcher {
	size_t n;
	const char *const *patterns;
	size_t *lengths;
	/* Substring patterns of two bytes or more: three of their byte pairs
	 * (the first, a middle and the last), as pair_bit() numbers them. */
	uint16_t (*pairs)[3];
	regex_t *regexes;   /* NULL for substring patterns */
	bool raw;
	fg_match_cache cache;
	char *scratch;      /* normalised name */
	size_t scratch_cap;
};

/* A byte pair's bit in a set of PAIR_BITS: a hash, so that a set is small
 * enough to clear for every name. */
enum { PAIR_BITS = 1024 };

/* The pairs cost about what two or three memmem calls do (the set cleared
 * and filled from the name): from four patterns on they are worth it. */
enum { PAIRS_FROM = 4 };

static inline unsigned pair_bit(unsigned char a, unsigned char b)
{
	return ((unsigned)a << 5 ^ b) & (PAIR_BITS - 1);
}

/* The length of the bracket expression at p ('['), or 0 when it does not
 * close (regcomp then reports it). */
static size_t bracket_length(const char *p)
{
	size_t i = 1;
	if (p[i] == '^')
		i++;
	if (p[i] == ']')
		i++;
	for (; p[i]; i++) {
		if (p[i] == '[' && (p[i + 1] == ':' || p[i + 1] == '.' || p[i + 1] == '=')) {
			const char *end = strchr(p + i + 2, p[i + 1]);
			while (end && end[1] != ']')
				end = strchr(end + 1, p[i + 1]);
			if (!end)
				return 0;
			i = (size_t)(end - p) + 1;
		} else if (p[i] == ']') {
			return i + 1;
		}
	}
	return 0;
}

/* Refuses an ERE whose compiled form would be huge (see FG_MATCH_MAX_*):
 * the cost of each item is 1 for an atom, a group's the sum of its items,
 * and {m,n} multiplies the item before it by max(m, n) (m + 1 when n is
 * open).  Costs saturate just above the limit. */
static int check_regex(const char *pattern, fg_error *err)
{
	struct { uint32_t sum, last; } stack[FG_MATCH_MAX_NESTING + 1];
	size_t depth = 0;
	stack[0].sum = stack[0].last = 0;
	const uint32_t cap = FG_MATCH_MAX_EXPANDED + 1;
	for (const char *p = pattern; *p;) {
		uint32_t item = 1;
		if (*p == '(') {
			if (depth == FG_MATCH_MAX_NESTING)
				return fg_error_set(err, FG_EUSAGE, NULL,
						    "regular expression '%s' nests parentheses more than %d deep", pattern,
						    FG_MATCH_MAX_NESTING);
			depth++;
			stack[depth].sum = stack[depth].last = 0;
			p++;
			continue;
		}
		if (*p == ')' && depth > 0) {
			item = stack[depth].sum ? stack[depth].sum : 1;
			depth--;
			p++;
		} else if (*p == '{' && p > pattern && p[1] >= '0' && p[1] <= '9') {
			unsigned long m = 0, n = 0;
			const char *q = p + 1;
			while (*q >= '0' && *q <= '9' && m <= FG_MATCH_MAX_REPEAT)
				m = m * 10 + (unsigned long)(*q++ - '0');
			n = m;
			bool open = false;
			if (*q == ',') {
				q++;
				open = !(*q >= '0' && *q <= '9');
				for (n = 0; *q >= '0' && *q <= '9' && n <= FG_MATCH_MAX_REPEAT;)
					n = n * 10 + (unsigned long)(*q++ - '0');
			}
			if (m > FG_MATCH_MAX_REPEAT || n > FG_MATCH_MAX_REPEAT)
				return fg_error_set(err, FG_EUSAGE, NULL,
						    "regular expression '%s': a repetition count above %d is refused "
						    "(it would take minutes and gigabytes to compile)", pattern,
						    FG_MATCH_MAX_REPEAT);
			uint32_t times = (uint32_t)(open ? m + 1 : (n > m ? n : m));
			uint64_t grown = (uint64_t)stack[depth].last * (times ? times : 1);
			uint64_t sum = (uint64_t)stack[depth].sum - stack[depth].last + grown;
			stack[depth].last = grown < cap ? (uint32_t)grown : cap;
			stack[depth].sum = sum < cap ? (uint32_t)sum : cap;
			p = *q ? q + 1 : q;
			continue;
		} else if (*p == '[') {
			size_t len = bracket_length(p);
			p += len ? len : 1;
		} else if (*p == '\\' && p[1]) {
			p += 2;
		} else {
			p++;
		}
		stack[depth].last = item;
		stack[depth].sum = stack[depth].sum + item < cap ? stack[depth].sum + item : cap;
		if (stack[depth].sum >= cap)
			break;
	}
	while (depth > 0) {
		uint32_t inner = stack[depth--].sum;
		stack[depth].sum = stack[depth].sum + inner < cap ? stack[depth].sum + inner : cap;
	}
	if (stack[0].sum > FG_MATCH_MAX_EXPANDED)
		return fg_error_set(err, FG_EUSAGE, NULL,
				    "regular expression '%s' is too large once its repetitions are expanded (more "
				    "than %d positions): nest fewer {m,n}", pattern, FG_MATCH_MAX_EXPANDED);
	return 0;
}

int fg_matcher_new(fg_matcher **out, const char *const *patterns, size_t n, const fg_match_options *opts,
		   fg_error *err)
{
	if (n == 0)
		return fg_error_set(err, FG_EUSAGE, NULL, "no frame pattern given");
	if (n > FG_MATCH_MAX_PATTERNS)
		return fg_error_set(err, FG_EUSAGE, NULL, "at most %d frame patterns", FG_MATCH_MAX_PATTERNS);
	for (size_t i = 0; i < n; i++)
		if (!patterns[i][0])
			return fg_error_set(err, FG_EUSAGE, NULL, "empty frame pattern");
	fg_matcher *m = calloc(1, sizeof(*m));
	if (!m)
		return fg_error_oom(err, NULL);
	m->n = n;
	m->patterns = patterns;
	m->raw = opts && opts->raw;
	m->lengths = calloc(n, sizeof(*m->lengths));
	if (!m->lengths) {
		free(m);
		return fg_error_oom(err, NULL);
	}
	m->pairs = calloc(n, sizeof(*m->pairs));
	if (!m->pairs) {
		fg_matcher_free(m);
		return fg_error_oom(err, NULL);
	}
	for (size_t i = 0; i < n; i++) {
		const unsigned char *p = (const unsigned char *)patterns[i];
		size_t len = m->lengths[i] = strlen(patterns[i]);
		size_t mid = len / 2 - (len >= 2);
		if (len >= 2) {
			m->pairs[i][0] = (uint16_t)pair_bit(p[0], p[1]);
			m->pairs[i][1] = (uint16_t)pair_bit(p[mid], p[mid + 1]);
			m->pairs[i][2] = (uint16_t)pair_bit(p[len - 2], p[len - 1]);
		}
	}
	if (opts && opts->regex) {
		m->regexes = calloc(n, sizeof(*m->regexes));
		if (!m->regexes) {
			fg_matcher_free(m);
			return fg_error_oom(err, NULL);
		}
		for (size_t i = 0; i < n; i++) {
			int rc = check_regex(patterns[i], err);
			if (rc) {
				for (size_t j = 0; j < i; j++)
					regfree(&m->regexes[j]);
				free(m->regexes);
				m->regexes = NULL;
				fg_matcher_free(m);
				return rc;
			}
			rc = regcomp(&m->regexes[i], patterns[i], REG_EXTENDED | REG_NOSUB);
			if (rc) {
				char msg[256];
				regerror(rc, &m->regexes[i], msg, sizeof(msg));
				for (size_t j = 0; j < i; j++)
					regfree(&m->regexes[j]);
				free(m->regexes);
				m->regexes = NULL;
				fg_matcher_free(m);
				return fg_error_set(err, FG_EUSAGE, NULL, "bad regular expression '%s': %s",
						    patterns[i], msg);
			}
		}
	}
	*out = m;
	return 0;
}

void fg_matcher_free(fg_matcher *m)
{
	if (!m)
		return;
	if (m->regexes) {
		for (size_t i = 0; i < m->n; i++)
			regfree(&m->regexes[i]);
		free(m->regexes);
	}
	free(m->lengths);
	free(m->pairs);
	free(m->cache.masks);
	free(m->scratch);
	free(m);
}

const fg_match_cache *fg_matcher_cache(const fg_matcher *m)
{
	return &m->cache;
}

size_t fg_matcher_count(const fg_matcher *m)
{
	return m->n;
}

const char *fg_matcher_pattern(const fg_matcher *m, size_t i)
{
	return m->patterns[i];
}

static uint64_t test_string(const fg_matcher *m, const char *s, size_t len)
{
	uint64_t mask = 0;
	if (m->regexes) {
		for (size_t i = 0; i < m->n; i++)
			if (regexec(&m->regexes[i], s, 0, NULL, 0) == 0)
				mask |= UINT64_C(1) << i;
		return mask;
	}
	if (m->n < PAIRS_FROM) {
		for (size_t i = 0; i < m->n; i++)
			if (memmem(s, len, m->patterns[i], m->lengths[i]))
				mask |= UINT64_C(1) << i;
		return mask;
	}
	/* A substring occurs only where each of its byte pairs does: the
	 * name's pairs in one pass, then memmem only for the patterns whose
	 * three pairs all occur (rules files hold dozens of patterns, of which
	 * a name matches one or none; memmem costs some 200 instructions a
	 * call even when it fails at once). */
	uint64_t present[PAIR_BITS / 64] = { 0 };
	for (size_t i = 0; i + 1 < len; i++) {
		unsigned b = pair_bit((unsigned char)s[i], (unsigned char)s[i + 1]);
		present[b >> 6] |= UINT64_C(1) << (b & 63);
	}
	for (size_t i = 0; i < m->n; i++) {
		const uint16_t *p = m->pairs[i];
		bool maybe = m->lengths[i] < 2 || (present[p[0] >> 6] >> (p[0] & 63) & present[p[1] >> 6] >> (p[1] & 63) &
						   present[p[2] >> 6] >> (p[2] & 63) & 1);
		if (maybe && memmem(s, len, m->patterns[i], m->lengths[i]))
			mask |= UINT64_C(1) << i;
	}
	return mask;
}

int fg_matcher_test(uint64_t *mask, fg_matcher *m, const fg_names *names, uint32_t name, fg_error *err)
{
	fg_match_cache *c = &m->cache;
	if (name >= c->cap) {
		uint32_t cap = fg_idarray_capacity(c->cap, name);
		if (fg_idarray_resize(&c->masks, sizeof(*c->masks), c->cap, cap, 0))
			return fg_error_oom(err, NULL);
		c->cap = cap;
	}
	if (!(c->masks[name] & FG_MATCH_KNOWN)) {
		const char *s = fg_names_get(names, name);
		size_t len = fg_names_length(names, name);
		uint64_t bits = test_string(m, s, len);
		if (!m->raw && bits != (UINT64_C(1) << (m->n - 1) << 1) - 1) {
			if (len + 1 > m->scratch_cap) {
				size_t cap = (len + 1) * 2;
				char *b = realloc(m->scratch, cap);
				if (!b)
					return fg_error_oom(err, NULL);
				m->scratch = b;
				m->scratch_cap = cap;
			}
			size_t nl = fg_normalize_name(m->scratch, s, len);
			if (nl != len || memcmp(m->scratch, s, len))
				bits |= test_string(m, m->scratch, nl);
		}
		c->masks[name] = bits | FG_MATCH_KNOWN;
	}
	*mask = c->masks[name] & ~FG_MATCH_KNOWN;
	return 0;
}
