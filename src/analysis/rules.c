#include "analysis/rules.h"

#include "formats/source.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/match.h"
#include "io/textfile.h"

struct rule {
	char name[FG_RULES_MAX_NAME + 1];
	size_t first;     /* its patterns: patterns[first .. first + n) */
	size_t n;
	size_t line;      /* where it is defined, for errors */
};

struct fg_rules {
	struct rule *rules;
	size_t nrules, rules_cap;
	/* Every pattern in file order, so that the lowest matching pattern
	 * belongs to the first matching rule. */
	char **patterns;
	size_t *rule_of;  /* by pattern */
	size_t npatterns, patterns_cap;
	/* One matcher per FG_MATCH_MAX_PATTERNS patterns (a matcher's limit). */
	fg_matcher **matchers;
	size_t nmatchers;
};

void fg_rules_free(fg_rules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nmatchers; i++)
		fg_matcher_free(r->matchers[i]);
	free(r->matchers);
	for (size_t i = 0; i < r->npatterns; i++)
		free(r->patterns[i]);
	free(r->patterns);
	free(r->rule_of);
	free(r->rules);
	free(r);
}

/* A rule without patterns would never match: most likely a mistake. */
static int check_last_rule(fg_textfile_rules *f)
{
	const fg_rules *r = f->ctx;
	if (r->nrules && r->rules[r->nrules - 1].n == 0)
		return fg_textfile_error_at(f, r->rules[r->nrules - 1].line, "subsystem '%s' has no pattern",
					    r->rules[r->nrules - 1].name);
	return 0;
}

/* "subsystem NAME [scope=stack] [# comment]": s points after the keyword. */
static int parse_subsystem(fg_textfile_rules *p, const char *s, const char *end)
{
	fg_rules *r = p->ctx;
	while (s < end && fg_textfile_is_blank(*s))
		s++;
	const char *name = s;
	while (s < end && !fg_textfile_is_blank(*s))
		s++;
	size_t len = (size_t)(s - name);
	if (len == 0 || *name == '#')
		return fg_textfile_error(p, "'subsystem' wants a name");
	for (size_t i = 0; i < len; i++)
		if (!fg_textfile_is_name_byte(name[i]))
			return fg_textfile_error(p, "subsystem name '%.*s': use letters, digits, '_', '-' and '.'",
					   (int)len, name);
	if (len > FG_RULES_MAX_NAME)
		return fg_textfile_error(p, "subsystem name longer than %d bytes", FG_RULES_MAX_NAME);
	if (len == strlen(FG_RULES_OTHER) && !memcmp(name, FG_RULES_OTHER, len))
		return fg_textfile_error(p, "'%s' is reserved for the samples no rule matches", FG_RULES_OTHER);
	for (size_t i = 0; i < r->nrules; i++)
		if (strlen(r->rules[i].name) == len && !memcmp(r->rules[i].name, name, len))
			return fg_textfile_error(p, "subsystem '%.*s' is already defined on line %zu", (int)len, name,
					   r->rules[i].line);
	for (;;) {
		while (s < end && fg_textfile_is_blank(*s))
			s++;
		if (s == end || *s == '#')
			break;
		const char *opt = s;
		while (s < end && !fg_textfile_is_blank(*s))
			s++;
		size_t olen = (size_t)(s - opt);
		if (olen == strlen("scope=stack") && !memcmp(opt, "scope=stack", olen))
			continue;
		if (olen > 6 && !memcmp(opt, "scope=", 6))
			return fg_textfile_error(p, "unknown scope '%.*s' (the only scope is 'stack')", (int)(olen - 6),
					   opt + 6);
		return fg_textfile_error(p, "unknown option '%.*s' (expected scope=stack)", (int)olen, opt);
	}
	if (r->nrules == FG_RULES_MAX)
		return fg_textfile_error(p, "more than %d subsystems", FG_RULES_MAX);
	if (r->nrules == r->rules_cap) {
		size_t cap = r->rules_cap ? r->rules_cap * 2 : 16;
		struct rule *n = realloc(r->rules, cap * sizeof(*n));
		if (!n)
			return fg_error_oom(p->err, NULL);
		r->rules = n;
		r->rules_cap = cap;
	}
	struct rule *rule = &r->rules[r->nrules++];
	memcpy(rule->name, name, len);
	rule->name[len] = '\0';
	rule->first = r->npatterns;
	rule->n = 0;
	rule->line = p->line;
	return 0;
}

/* "pattern TEXT": s points after the keyword. */
static int parse_pattern(fg_textfile_rules *p, const char *s, const char *end)
{
	fg_rules *r = p->ctx;
	if (r->nrules == 0)
		return fg_textfile_error(p, "'pattern' before any 'subsystem'");
	while (s < end && fg_textfile_is_blank(*s))
		s++;
	if (s == end)
		return fg_textfile_error(p, "empty pattern");
	if (r->npatterns == r->patterns_cap) {
		size_t cap = r->patterns_cap ? r->patterns_cap * 2 : 64;
		char **n = realloc(r->patterns, cap * sizeof(*n));
		if (!n)
			return fg_error_oom(p->err, NULL);
		r->patterns = n;
		size_t *o = realloc(r->rule_of, cap * sizeof(*o));
		if (!o)
			return fg_error_oom(p->err, NULL);
		r->rule_of = o;
		r->patterns_cap = cap;
	}
	char *pat = strndup(s, (size_t)(end - s));
	if (!pat)
		return fg_error_oom(p->err, NULL);
	r->patterns[r->npatterns] = pat;
	r->rule_of[r->npatterns++] = r->nrules - 1;
	r->rules[r->nrules - 1].n++;
	return 0;
}

static int parse_line(fg_textfile_rules *p, const char *word, size_t len, const char *s, const char *end)
{
	if (fg_textfile_is_word(word, len, "subsystem"))
		return parse_subsystem(p, s, end);
	if (fg_textfile_is_word(word, len, "pattern"))
		return parse_pattern(p, s, end);
	return fg_textfile_error(p, "unknown keyword '%.*s' (expected 'subsystem' or 'pattern')", (int)(len > 40 ? 40 : len),
			   word);
}

static int build_matchers(fg_rules *r, const char *source, fg_error *err)
{
	size_t n = (r->npatterns + FG_MATCH_MAX_PATTERNS - 1) / FG_MATCH_MAX_PATTERNS;
	r->matchers = calloc(n, sizeof(*r->matchers));
	if (!r->matchers)
		return fg_error_oom(err, NULL);
	/* Not raw: dotted frames are matched in their slashed, normalised form. */
	fg_match_options mo = { .regex = false, .raw = false };
	for (size_t i = 0; i < n; i++) {
		size_t first = i * FG_MATCH_MAX_PATTERNS;
		size_t count = r->npatterns - first < FG_MATCH_MAX_PATTERNS ? r->npatterns - first
									    : FG_MATCH_MAX_PATTERNS;
		int rc = fg_matcher_new(&r->matchers[i], (const char *const *)r->patterns + first, count, &mo, err);
		if (rc) {
			if (err)
				fg_error_set_source(err, source);
			return rc;
		}
		r->nmatchers++;
	}
	return 0;
}

static const char *const sections[] = { "subsystem", NULL };
static const fg_textfile_syntax syntax = { "rules file", FG_EUSAGE, sections, parse_line, check_last_rule };

int fg_rules_parse(fg_rules **out, const char *text, size_t len, const char *source, fg_error *err)
{
	fg_rules *r = calloc(1, sizeof(*r));
	if (!r)
		return fg_error_oom(err, NULL);
	int rc = fg_textfile_rules_parse(text, len, source, &syntax, r, err);
	if (!rc)
		rc = build_matchers(r, source, err);
	if (rc) {
		fg_rules_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int fg_rules_load(fg_rules **out, const char *source, const fg_fetch_options *fetch, char warning[256],
		  fg_error *err)
{
	*out = NULL;
	char *buf;
	size_t len;
	/* A rules file is a page of text: refuse anything huge. */
	int rc = fg_source_read_all(&buf, &len, source, "rules file", (size_t)16 << 20, fetch, warning, err);
	if (!rc)
		rc = fg_rules_parse(out, buf, len, source, err);
	free(buf);
	return rc;
}

const char *fg_rules_default_path(void)
{
#ifndef FG_RULES_INSTALLED
#define FG_RULES_INSTALLED NULL
#endif
	static char path[4096];
	return fg_textfile_default_path(path, sizeof(path), "FGBISECT_RULES", FG_RULES_INSTALLED, "zeebe.rules");
}

size_t fg_rules_count(const fg_rules *r)
{
	return r->nrules;
}

const char *fg_rules_name(const fg_rules *r, size_t rule)
{
	return rule < r->nrules ? r->rules[rule].name : FG_RULES_OTHER;
}

size_t fg_rules_pattern_count(const fg_rules *r, size_t rule)
{
	return r->rules[rule].n;
}

const char *fg_rules_pattern(const fg_rules *r, size_t rule, size_t i)
{
	return r->patterns[r->rules[rule].first + i];
}

int fg_rules_match(size_t *rule, fg_rules *r, const fg_names *names, uint32_t name, fg_error *err)
{
	for (size_t i = 0; i < r->nmatchers; i++) {
		uint64_t mask;
		int rc = fg_matcher_test(&mask, r->matchers[i], names, name, err);
		if (rc)
			return rc;
		if (mask) {
			*rule = r->rule_of[i * FG_MATCH_MAX_PATTERNS + (size_t)__builtin_ctzll(mask)];
			return 0;
		}
	}
	*rule = r->nrules;
	return 0;
}
