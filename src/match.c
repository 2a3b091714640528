#include "match.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "idarray.h"
#include "normalize.h"

struct fg_matcher {
	size_t n;
	const char *const *patterns;
	size_t *lengths;
	regex_t *regexes;   /* NULL for substring patterns */
	bool raw;
	fg_match_cache cache;
	char *scratch;      /* normalised name */
	size_t scratch_cap;
};

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
		return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	m->n = n;
	m->patterns = patterns;
	m->raw = opts && opts->raw;
	m->lengths = calloc(n, sizeof(*m->lengths));
	if (!m->lengths) {
		free(m);
		return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		m->lengths[i] = strlen(patterns[i]);
	if (opts && opts->regex) {
		m->regexes = calloc(n, sizeof(*m->regexes));
		if (!m->regexes) {
			fg_matcher_free(m);
			return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
		}
		for (size_t i = 0; i < n; i++) {
			int rc = regcomp(&m->regexes[i], patterns[i], REG_EXTENDED | REG_NOSUB);
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
	free(m->cache.masks);
	free(m->scratch);
	free(m);
}

size_t fg_matcher_count(const fg_matcher *m)
{
	return m->n;
}

const fg_match_cache *fg_matcher_cache(const fg_matcher *m)
{
	return &m->cache;
}

const char *fg_matcher_pattern(const fg_matcher *m, size_t i)
{
	return m->patterns[i];
}

static uint64_t test_string(const fg_matcher *m, const char *s, size_t len)
{
	uint64_t mask = 0;
	for (size_t i = 0; i < m->n; i++) {
		bool hit = m->regexes ? regexec(&m->regexes[i], s, 0, NULL, 0) == 0
				      : memmem(s, len, m->patterns[i], m->lengths[i]) != NULL;
		if (hit)
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
			return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
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
					return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
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
