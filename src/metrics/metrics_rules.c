#include "metrics/metrics_rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/source.h"
#include "io/textfile.h"

#define MAX_SIGNALS 256
#define MAX_RULES 256
#define MAX_CONDITIONS 16

struct rule {
	fg_metrics_rules_rule pub;
	fg_metrics_rules_condition conditions[MAX_CONDITIONS];
};

struct fg_metrics_rules {
	char *source;
	fg_metrics_rules_signal signals[MAX_SIGNALS];
	size_t nsignals;
	struct rule *rules; /* MAX_RULES */
	size_t nrules;
	/* Every string the structures point to, freed together. */
	char **strings;
	size_t nstrings, strings_cap;
	enum { IN_NOTHING, IN_SIGNAL, IN_RULE } in;
};

void fg_metrics_rules_free(fg_metrics_rules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nstrings; i++)
		free(r->strings[i]);
	free(r->strings);
	free(r->rules);
	free(r->source);
	free(r);
}


/* The rules being parsed. */
static fg_metrics_rules *mrules(const fg_textfile_rules *p)
{
	return p->ctx;
}

/* Keeps a copy of s[0..len) for the life of the rules. */
static const char *keep(fg_textfile_rules *p, const char *s, size_t len)
{
	fg_metrics_rules *r = p->ctx;
	if (r->nstrings == r->strings_cap) {
		size_t cap = r->strings_cap ? r->strings_cap * 2 : 64;
		char **n = realloc(r->strings, cap * sizeof(*n));
		if (!n)
			return NULL;
		r->strings = n;
		r->strings_cap = cap;
	}
	char *c = strndup(s, len);
	if (c)
		r->strings[r->nstrings++] = c;
	return c;
}

/* A name: letters, digits, '_', '-', '.'; copied to dst. */
static int take_name(const fg_textfile_rules *p, char *dst, const char **s, const char *end, const char *what)
{
	while (*s < end && fg_textfile_is_blank(**s))
		(*s)++;
	const char *n = *s;
	while (*s < end && fg_textfile_is_name_byte(**s))
		(*s)++;
	size_t len = (size_t)(*s - n);
	if (len == 0)
		return fg_textfile_error(p, "%s wants a name (letters, digits, '_', '-', '.')", what);
	if (len > FG_MRULES_MAX_NAME)
		return fg_textfile_error(p, "%s name longer than %d bytes", what, FG_MRULES_MAX_NAME);
	memcpy(dst, n, len);
	dst[len] = '\0';
	return 0;
}

static long find_signal(const fg_metrics_rules *r, const char *name, size_t len)
{
	for (size_t i = 0; i < r->nsignals; i++)
		if (strlen(r->signals[i].name) == len && !memcmp(r->signals[i].name, name, len))
			return (long)i;
	return -1;
}

/* A signal or rule must be complete before the next one starts. */
static int check_last(fg_textfile_rules *p)
{
	const fg_metrics_rules *r = p->ctx;
	if (r->in == IN_SIGNAL) {
		const fg_metrics_rules_signal *s = &r->signals[r->nsignals - 1];
		if (!s->query && s->kind != FG_SIGNAL_RATIO)
			return fg_textfile_error_at(p, s->line, "signal '%s' has neither 'query' nor 'ratio'", s->name);
		if (s->nby && !s->query)
			return fg_textfile_error_at(p, s->line, "signal '%s': 'by' needs a 'query'", s->name);
	} else if (r->in == IN_RULE) {
		const struct rule *rule = &r->rules[r->nrules - 1];
		if (!rule->pub.hypothesis)
			return fg_textfile_error_at(p, rule->pub.line, "rule '%s' has no 'hypothesis'", rule->pub.name);
		if (!rule->pub.nconditions)
			return fg_textfile_error_at(p, rule->pub.line, "rule '%s' has no 'when' or 'unless'",
						    rule->pub.name);
	}
	return 0;
}

static int parse_signal(fg_textfile_rules *p, const char *s, const char *end)
{
	fg_metrics_rules *r = p->ctx;
	if (r->nsignals == MAX_SIGNALS)
		return fg_textfile_error(p, "more than %d signals", MAX_SIGNALS);
	fg_metrics_rules_signal *sig = &r->signals[r->nsignals];
	memset(sig, 0, sizeof(*sig));
	int rc = take_name(p, sig->name, &s, end, "'signal'");
	if (rc)
		return rc;
	if (s < end && !fg_textfile_is_blank(*s))
		return fg_textfile_error(p, "signal name: use letters, digits, '_', '-' and '.'");
	if (find_signal(r, sig->name, strlen(sig->name)) >= 0)
		return fg_textfile_error(p, "signal '%s' is already defined", sig->name);
	sig->unit = "";
	sig->line = p->line;
	for (;;) {
		while (s < end && fg_textfile_is_blank(*s))
			s++;
		if (s == end || *s == '#')
			break;
		const char *opt = s;
		while (s < end && !fg_textfile_is_blank(*s))
			s++;
		size_t olen = (size_t)(s - opt);
		if (olen > 5 && !memcmp(opt, "unit=", 5)) {
			if (!(sig->unit = keep(p, opt + 5, olen - 5)))
				return fg_error_oom(p->err, NULL);
		} else if (olen == 12 && !memcmp(opt, "better=lower", 12)) {
			sig->better = FG_BETTER_LOWER;
		} else if (olen == 13 && !memcmp(opt, "better=higher", 13)) {
			sig->better = FG_BETTER_HIGHER;
		} else if (olen == 11 && !memcmp(opt, "better=none", 11)) {
			sig->better = FG_BETTER_NONE;
		} else {
			return fg_textfile_error(p, "unknown option '%.*s' (expected unit=UNIT, better=lower|higher|none)",
			                   (int)(olen > 40 ? 40 : olen), opt);
		}
	}
	sig->title = sig->name;
	r->nsignals++;
	r->in = IN_SIGNAL;
	return 0;
}

/* "{sel}" or "{sel," somewhere in the template. */
static bool has_selector_slot(const char *q)
{
	for (const char *at = strstr(q, "{sel"); at; at = strstr(at + 1, "{sel"))
		if (at[4] == '}' || at[4] == ',')
			return true;
	return false;
}

/* "ratio A / B [* K]" */
static int parse_ratio(fg_textfile_rules *p, fg_metrics_rules_signal *sig, const char *s, const char *end)
{
	char a[FG_MRULES_MAX_NAME + 1], b[FG_MRULES_MAX_NAME + 1];
	int rc = take_name(p, a, &s, end, "'ratio'");
	while (!rc && s < end && fg_textfile_is_blank(*s))
		s++;
	if (!rc && (s == end || *s != '/'))
		return fg_textfile_error(p, "'ratio' wants 'NUMERATOR / DENOMINATOR [* K]'");
	if (!rc)
		s++;
	if (!rc)
		rc = take_name(p, b, &s, end, "'ratio' denominator");
	if (rc)
		return rc;
	while (s < end && fg_textfile_is_blank(*s))
		s++;
	sig->scale = 1;
	if (s < end && *s == '*') {
		char num[64];
		s++;
		while (s < end && fg_textfile_is_blank(*s))
			s++;
		size_t len = (size_t)(end - s);
		while (len && fg_textfile_is_blank(s[len - 1]))
			len--;
		if (len == 0 || len >= sizeof(num))
			return fg_textfile_error(p, "'* K' wants a number");
		memcpy(num, s, len);
		num[len] = '\0';
		char *e;
		sig->scale = strtod(num, &e);
		if (*e || !isfinite(sig->scale) || sig->scale <= 0)
			return fg_textfile_error(p, "'* K' wants a positive number, not '%s'", num);
		s = end;
	}
	if (s != end)
		return fg_textfile_error(p, "unexpected text after the ratio");
	long na = find_signal(mrules(p), a, strlen(a)), nb = find_signal(mrules(p), b, strlen(b));
	if (na < 0 || nb < 0)
		return fg_textfile_error(p, "'ratio' names signal '%s', which is not defined above", na < 0 ? a : b);
	if ((size_t)na == mrules(p)->nsignals - 1 || (size_t)nb == mrules(p)->nsignals - 1)
		return fg_textfile_error(p, "a signal cannot be a ratio of itself");
	if (mrules(p)->signals[na].kind == FG_SIGNAL_BREAKDOWN || mrules(p)->signals[nb].kind == FG_SIGNAL_BREAKDOWN)
		return fg_textfile_error(p, "'ratio' takes signals without 'by'");
	sig->numerator = (size_t)na;
	sig->denominator = (size_t)nb;
	sig->kind = FG_SIGNAL_RATIO;
	return 0;
}

/* "by L1,L2" */
static int parse_by(fg_textfile_rules *p, fg_metrics_rules_signal *sig, const char *s, const char *end)
{
	if (sig->nby)
		return fg_textfile_error(p, "'by' given twice");
	while (s < end) {
		while (s < end && (fg_textfile_is_blank(*s) || *s == ','))
			s++;
		const char *l = s;
		while (s < end && !fg_textfile_is_blank(*s) && *s != ',')
			s++;
		if (s == l)
			break;
		if (sig->nby == FG_MRULES_MAX_BY)
			return fg_textfile_error(p, "'by' takes at most %d labels", FG_MRULES_MAX_BY);
		if (!(sig->by[sig->nby++] = keep(p, l, (size_t)(s - l))))
			return fg_error_oom(p->err, NULL);
	}
	if (!sig->nby)
		return fg_textfile_error(p, "'by' wants label names");
	if (sig->kind == FG_SIGNAL_RATIO)
		return fg_textfile_error(p, "a ratio cannot have 'by'");
	sig->kind = FG_SIGNAL_BREAKDOWN;
	return 0;
}

static int parse_signal_line(fg_textfile_rules *p, const char *word, size_t wlen, const char *s, const char *end)
{
	fg_metrics_rules_signal *sig = &mrules(p)->signals[mrules(p)->nsignals - 1];
	while (s < end && fg_textfile_is_blank(*s))
		s++;
	if (wlen == 5 && !memcmp(word, "title", 5)) {
		if (s == end)
			return fg_textfile_error(p, "empty title");
		return (sig->title = keep(p, s, (size_t)(end - s))) ? 0 : fg_error_oom(p->err, NULL);
	}
	if (wlen == 5 && !memcmp(word, "query", 5)) {
		if (sig->query || sig->kind == FG_SIGNAL_RATIO)
			return fg_textfile_error(p, "signal '%s' has a query or ratio already", sig->name);
		if (s == end)
			return fg_textfile_error(p, "empty query");
		if (!(sig->query = keep(p, s, (size_t)(end - s))))
			return fg_error_oom(p->err, NULL);
		if (!has_selector_slot(sig->query))
			return fg_textfile_error(p, "the query has no {sel} slot (write m{sel} or m{sel,label=\"v\"}): it "
			                      "would mix every run on the server");
		return 0;
	}
	if (wlen == 5 && !memcmp(word, "ratio", 5)) {
		if (sig->query || sig->kind == FG_SIGNAL_RATIO)
			return fg_textfile_error(p, "signal '%s' has a query or ratio already", sig->name);
		return parse_ratio(p, sig, s, end);
	}
	if (wlen == 2 && !memcmp(word, "by", 2))
		return parse_by(p, sig, s, end);
	return fg_textfile_error(p, "unknown keyword '%.*s' in a signal (expected title, query, ratio or by)",
	                   (int)(wlen > 40 ? 40 : wlen), word);
}

static int parse_rule(fg_textfile_rules *p, const char *s, const char *end)
{
	fg_metrics_rules *r = p->ctx;
	if (r->nrules == MAX_RULES)
		return fg_textfile_error(p, "more than %d rules", MAX_RULES);
	if (!r->rules && !(r->rules = calloc(MAX_RULES, sizeof(*r->rules))))
		return fg_error_oom(p->err, NULL);
	struct rule *rule = &r->rules[r->nrules];
	memset(rule, 0, sizeof(*rule));
	int rc = take_name(p, rule->pub.name, &s, end, "'rule'");
	if (rc)
		return rc;
	while (s < end && fg_textfile_is_blank(*s))
		s++;
	if (s < end && *s != '#')
		return fg_textfile_error(p, "unexpected text after the rule name");
	for (size_t i = 0; i < r->nrules; i++)
		if (!strcmp(r->rules[i].pub.name, rule->pub.name))
			return fg_textfile_error(p, "rule '%s' is already defined", rule->pub.name);
	rule->pub.line = p->line;
	rule->pub.conditions = rule->conditions;
	r->nrules++;
	r->in = IN_RULE;
	return 0;
}

/* "TERM(ARG) OP NUMBER" */
static int parse_condition(fg_textfile_rules *p, fg_metrics_rules_condition *c, const char *s, const char *end)
{
	static const struct { const char *name; fg_term_kind kind; } terms[] = {
		{ "base", FG_TERM_BASE }, { "candidate", FG_TERM_CANDIDATE }, { "ratio", FG_TERM_RATIO },
		{ "delta", FG_TERM_DELTA },
	};
	while (s < end && fg_textfile_is_blank(*s))
		s++;
	while (end > s && fg_textfile_is_blank(end[-1]))
		end--;
	if (!(c->text = keep(p, s, (size_t)(end - s))))
		return fg_error_oom(p->err, NULL);
	const char *open = memchr(s, '(', (size_t)(end - s));
	const char *close = open ? memchr(open, ')', (size_t)(end - open)) : NULL;
	if (!close)
		return fg_textfile_error(p, "a condition is TERM(NAME) OP NUMBER, e.g. ratio(cpu) >= 0.9");
	size_t tlen = (size_t)(open - s);
	bool found = false;
	for (size_t i = 0; i < sizeof(terms) / sizeof(terms[0]); i++)
		if (strlen(terms[i].name) == tlen && !memcmp(terms[i].name, s, tlen)) {
			c->term = terms[i].kind;
			found = true;
		}
	if (!found)
		return fg_textfile_error(p, "unknown term '%.*s' (expected base, candidate, ratio or delta)",
		                   (int)(tlen > 20 ? 20 : tlen), s);
	const char *arg = open + 1;
	size_t alen = (size_t)(close - arg);
	if (c->term == FG_TERM_DELTA) {
		if (alen == 1 && *arg == '*') {
			c->term = FG_TERM_DELTA_ANY;
		} else {
			if (alen == 0 || alen > FG_MRULES_MAX_NAME)
				return fg_textfile_error(p, "delta() wants a subsystem name or *");
			memcpy(c->subsystem, arg, alen);
			c->subsystem[alen] = '\0';
		}
	} else {
		long i = find_signal(mrules(p), arg, alen);
		if (i < 0)
			return fg_textfile_error(p, "no signal '%.*s' is defined above", (int)(alen > 64 ? 64 : alen), arg);
		if (mrules(p)->signals[i].kind == FG_SIGNAL_BREAKDOWN)
			return fg_textfile_error(p, "signal '%s' has 'by': a condition needs one value", mrules(p)->signals[i].name);
		c->signal = (size_t)i;
	}
	s = close + 1;
	while (s < end && fg_textfile_is_blank(*s))
		s++;
	if (end - s >= 2 && s[0] == '<' && s[1] == '=') {
		c->op = FG_OP_LE;
		s += 2;
	} else if (end - s >= 2 && s[0] == '>' && s[1] == '=') {
		c->op = FG_OP_GE;
		s += 2;
	} else if (s < end && *s == '<') {
		c->op = FG_OP_LT;
		s++;
	} else if (s < end && *s == '>') {
		c->op = FG_OP_GT;
		s++;
	} else {
		return fg_textfile_error(p, "a condition compares with <, <=, > or >=");
	}
	while (s < end && fg_textfile_is_blank(*s))
		s++;
	char num[64];
	size_t nlen = (size_t)(end - s);
	if (nlen == 0 || nlen >= sizeof(num))
		return fg_textfile_error(p, "a condition ends with a number");
	memcpy(num, s, nlen);
	num[nlen] = '\0';
	char *e;
	c->threshold = strtod(num, &e);
	if (*e || !isfinite(c->threshold))
		return fg_textfile_error(p, "'%s' is not a number", num);
	return 0;
}

static int parse_rule_line(fg_textfile_rules *p, const char *word, size_t wlen, const char *s, const char *end)
{
	struct rule *rule = &mrules(p)->rules[mrules(p)->nrules - 1];
	if (wlen == 10 && !memcmp(word, "hypothesis", 10)) {
		while (s < end && fg_textfile_is_blank(*s))
			s++;
		if (s == end)
			return fg_textfile_error(p, "empty hypothesis");
		if (rule->pub.hypothesis)
			return fg_textfile_error(p, "rule '%s' has a hypothesis already", rule->pub.name);
		return (rule->pub.hypothesis = keep(p, s, (size_t)(end - s))) ? 0 : fg_error_oom(p->err, NULL);
	}
	bool when = wlen == 4 && !memcmp(word, "when", 4), unless = wlen == 6 && !memcmp(word, "unless", 6);
	if (!when && !unless)
		return fg_textfile_error(p, "unknown keyword '%.*s' in a rule (expected when, unless or hypothesis)",
		                   (int)(wlen > 40 ? 40 : wlen), word);
	if (rule->pub.nconditions == MAX_CONDITIONS)
		return fg_textfile_error(p, "more than %d conditions in a rule", MAX_CONDITIONS);
	fg_metrics_rules_condition *c = &rule->conditions[rule->pub.nconditions];
	memset(c, 0, sizeof(*c));
	c->unless = unless;
	int rc = parse_condition(p, c, s, end);
	if (!rc)
		rule->pub.nconditions++;
	return rc;
}

static int parse_line(fg_textfile_rules *p, const char *word, size_t len, const char *s, const char *end)
{
	const fg_metrics_rules *r = p->ctx;
	if (fg_textfile_is_word(word, len, "signal"))
		return parse_signal(p, s, end);
	if (fg_textfile_is_word(word, len, "rule"))
		return parse_rule(p, s, end);
	if (r->in == IN_SIGNAL)
		return parse_signal_line(p, word, len, s, end);
	if (r->in == IN_RULE)
		return parse_rule_line(p, word, len, s, end);
	return fg_textfile_error(p, "unknown keyword '%.*s' (expected 'signal' or 'rule')", (int)(len > 40 ? 40 : len),
				 word);
}

static const char *const sections[] = { "signal", "rule", NULL };
static const fg_textfile_syntax syntax = { "metric rules file", FG_ECONFIG, sections, parse_line, check_last };

int fg_metrics_rules_parse(fg_metrics_rules **out, const char *text, size_t len, const char *source, fg_error *err)
{
	*out = NULL;
	fg_metrics_rules *r = calloc(1, sizeof(*r));
	if (!r || !(r->source = strdup(source))) {
		free(r);
		return fg_error_oom(err, NULL);
	}
	int rc = fg_textfile_rules_parse(text, len, source, &syntax, r, err);
	if (rc) {
		fg_metrics_rules_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int fg_metrics_rules_load(fg_metrics_rules **out, const char *path, fg_error *err)
{
	char *buf;
	size_t len;
	*out = NULL;
	/* Through the source layer, like the subsystem rules: a path, "-" or a
	 * URL, gzip'ed or not. */
	int rc = fg_source_read_all(&buf, &len, path, "metric rules file", (size_t)4 << 20, NULL, NULL, err);
	if (!rc)
		rc = fg_metrics_rules_parse(out, buf, len, path, err);
	free(buf);
	return rc;
}

const char *fg_metrics_rules_default_path(void)
{
#ifndef FG_METRICS_INSTALLED
#define FG_METRICS_INSTALLED NULL
#endif
	static char path[4096];
	return fg_textfile_default_path(path, sizeof(path), "FGBISECT_METRICS", FG_METRICS_INSTALLED, "zeebe.metrics");
}

const char *fg_metrics_rules_source(const fg_metrics_rules *r)
{
	return r->source;
}

size_t fg_metrics_rules_signal_count(const fg_metrics_rules *r)
{
	return r->nsignals;
}

const fg_metrics_rules_signal *fg_metrics_rules_signal_at(const fg_metrics_rules *r, size_t i)
{
	return &r->signals[i];
}

size_t fg_metrics_rules_rule_count(const fg_metrics_rules *r)
{
	return r->nrules;
}

const fg_metrics_rules_rule *fg_metrics_rules_rule_at(const fg_metrics_rules *r, size_t i)
{
	return &r->rules[i].pub;
}

int fg_metrics_rules_expand(char **out, const char *t, const char *selector, const char *range, fg_error *err)
{
	*out = NULL;
	if (!selector[0])
		return fg_error_set(err, FG_EUSAGE, NULL, "an empty selector (write label matchers: namespace=\"x\")");
	if (strpbrk(selector, "{}\r\n"))
		return fg_error_set(err, FG_EUSAGE, NULL,
		                    "selector '%s': write label matchers without braces (namespace=\"x\",pod=~\"y.*\")",
		                    selector);
	size_t sl = strlen(selector), rl = strlen(range), len = 1;
	for (const char *p = t; *p;) {
		if (!strncmp(p, "{sel}", 5) || !strncmp(p, "{sel,", 5)) {
			len += sl + 2;
			p += 4;
		} else if (!strncmp(p, "{range}", 7)) {
			len += rl;
			p += 7;
		} else {
			len++;
			p++;
		}
	}
	char *o = malloc(len), *q = o;
	if (!o)
		return fg_error_oom(err, NULL);
	for (const char *p = t; *p;) {
		if (!strncmp(p, "{sel}", 5) || !strncmp(p, "{sel,", 5)) {
			*q++ = '{';
			memcpy(q, selector, sl);
			q += sl;
			p += 4; /* the '}' or ',' is copied next */
		} else if (!strncmp(p, "{range}", 7)) {
			memcpy(q, range, rl);
			q += rl;
			p += 7;
		} else {
			*q++ = *p++;
		}
	}
	*q = '\0';
	*out = o;
	return 0;
}
