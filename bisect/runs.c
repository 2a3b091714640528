#include "bisect/runs.h"

#include "formats/source.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/fetch.h"
#include "net/url.h"
#include "git/repo.h"

/* A runs file lists a few thousand profiles at most; anything far larger is
 * not a runs file, and reading it whole would only waste memory. */
#define RUNS_MAX_SIZE (64u << 20)

#define RUNS_FIELDS 6

struct fg_runs {
	char *base;
	char *text;          /* a copy of the input, tokenised in place */
	fg_runs_line *lines;
	size_t nlines;
	size_t cap;
};

struct fg_runs_selection {
	const char *base;           /* the runs file's, for messages */
	const fg_runs_line **lines; /* the selected lines, grouped by run */
	fg_runs_run *runs;
	size_t nruns;
};

bool fg_runs_valid_date(const char *s, size_t len)
{
	if (len != 10 || s[4] != '-' || s[7] != '-')
		return false;
	for (size_t i = 0; i < 10; i++)
		if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
			return false;
	int year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
	int month = (s[5] - '0') * 10 + (s[6] - '0');
	int day = (s[8] - '0') * 10 + (s[9] - '0');
	static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (year < 1 || month < 1 || month > 12 || day < 1)
		return false;
	bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
	return day <= days[month - 1] + (month == 2 && leap);
}


void fg_runs_free(fg_runs *runs)
{
	if (!runs)
		return;
	for (size_t i = 0; i < runs->nlines; i++)
		free((char *)runs->lines[i].resolved);
	free(runs->lines);
	free(runs->text);
	free(runs->base);
	free(runs);
}

/* An error about one line: source "BASE:LINE", as compilers write it. */
static int line_error(fg_error *err, const char *base, size_t lineno, const char *fmt, const char *field)
{
	char source[sizeof(err->source)];
	snprintf(source, sizeof(source), "%s:%zu", base, lineno);
	return fg_error_set(err, FG_ECONFIG, source, fmt, field);
}

static int parse_line(fg_runs *runs, char *line, size_t lineno, fg_error *err)
{
	char *field[RUNS_FIELDS];
	size_t n = 0;
	char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			break;
		char *start = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (n < RUNS_FIELDS)
			field[n] = start;
		n++;
		if (*p)
			*p++ = '\0';
	}
	if (n == 0)
		return 0;
	if (n != RUNS_FIELDS) {
		char count[32];
		snprintf(count, sizeof(count), "%zu", n);
		return line_error(err, runs->base, lineno, "expected 6 fields, got %s", count);
	}
	if (!fg_runs_valid_date(field[0], strlen(field[0])))
		return line_error(err, runs->base, lineno, "'%s' is not a date (YYYY-MM-DD)", field[0]);
	if (!fg_repo_valid_id(field[1], strlen(field[1])))
		return line_error(err, runs->base, lineno, "'%s' is not a commit id (4 to 40 hex digits)",
		                  field[1]);
	for (char *c = field[1]; *c; c++)
		if (*c >= 'A' && *c <= 'F')
			*c = (char)(*c - 'A' + 'a');
	if (strcmp(field[3], "grpc") && strcmp(field[3], "rest") && strcmp(field[3], "-"))
		return line_error(err, runs->base, lineno, "protocol must be grpc, rest or -, not '%s'",
		                  field[3]);
	if (!strcmp(field[5], "-"))
		return line_error(err, runs->base, lineno, "a location is required, not '%s'", "-");

	if (runs->nlines == runs->cap) {
		size_t cap = runs->cap ? runs->cap * 2 : 64;
		fg_runs_line *lines = realloc(runs->lines, cap * sizeof(*lines));
		if (!lines)
			return fg_error_oom(err, runs->base);
		runs->lines = lines;
		runs->cap = cap;
	}
	char *resolved;
	int rc = fg_url_resolve(&resolved, runs->base, field[5], err);
	if (rc == FG_ECONFIG) {
		char where[sizeof(err->source) + 24];
		snprintf(where, sizeof(where), "%s:%zu", runs->base, lineno);
		fg_error_set_source(err, where);
	}
	if (rc)
		return rc;
	fg_runs_line *l = &runs->lines[runs->nlines++];
	l->lineno = lineno;
	l->date = field[0];
	l->commit = field[1];
	l->node = strcmp(field[2], "-") ? field[2] : NULL;
	l->protocol = strcmp(field[3], "-") ? field[3] : NULL;
	l->event = strcmp(field[4], "-") ? field[4] : NULL;
	l->location = field[5];
	l->resolved = resolved;
	return 0;
}

int fg_runs_parse_buffer(fg_runs **out, const char *buf, size_t len, const char *base, fg_error *err)
{
	*out = NULL;
	fg_runs *runs = calloc(1, sizeof(*runs));
	if (!runs)
		return fg_error_oom(err, base);
	runs->base = strdup(base ? base : "");
	runs->text = malloc(len + 1);
	if (!runs->base || !runs->text) {
		fg_runs_free(runs);
		return fg_error_oom(err, base);
	}
	memcpy(runs->text, buf, len);
	runs->text[len] = '\0';

	char *p = runs->text;
	char *end = runs->text + len;
	/* Editors on some systems start UTF-8 files with a byte-order mark. */
	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	for (size_t lineno = 1; p < end; lineno++) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *eol = nl ? nl : end;
		if (memchr(p, '\0', (size_t)(eol - p))) {
			int rc = line_error(err, runs->base, lineno, "%s", "NUL byte: not a text file");
			fg_runs_free(runs);
			return rc;
		}
		*eol = '\0';
		if (eol > p && eol[-1] == '\r')
			eol[-1] = '\0';
		int rc = parse_line(runs, p, lineno, err);
		if (rc) {
			fg_runs_free(runs);
			return rc;
		}
		p = eol + 1;
	}
	*out = runs;
	return 0;
}

int fg_runs_load(fg_runs **out, const char *path, const char *base, fg_error *err)
{
	*out = NULL;
	const char *name = base ? base : path;
	char *buf;
	size_t len;
	/* Through the source layer: a cached download is stored gzip'ed, and a
	 * runs file may be gzip'ed itself.  A corrupt one is a configuration
	 * problem (what the user pointed at is no runs file), not an invalid
	 * profile. */
	int rc = fg_source_read_all(&buf, &len, path, "runs file", RUNS_MAX_SIZE, NULL, NULL, err);
	if (rc == FG_EINVALID) {
		char why[sizeof(err->message)];
		snprintf(why, sizeof(why), "%s", err->message);
		rc = fg_error_set(err, FG_ECONFIG, name, "not a runs file: %s", why);
	}
	if (rc) {
		fg_error_set_source(err, name);
		return rc;
	}
	rc = fg_runs_parse_buffer(out, buf, len, name, err);
	free(buf);
	return rc;
}

const char *fg_runs_base(const fg_runs *runs)
{
	return runs->base;
}

int fg_runs_check_remote(const fg_runs *runs, fg_error *err)
{
	if (!fg_url_is_http(runs->base))
		return 0;
	for (size_t i = 0; i < runs->nlines; i++) {
		const fg_runs_line *l = &runs->lines[i];
		if (!fg_url_is_http(l->resolved))
			return line_error(err, runs->base, l->lineno,
					  "a runs file fetched over HTTP names a local file ('%s'): refused, as a web "
					  "page's file:// links are (--runs-local reads it)",
					  l->location);
	}
	return 0;
}

size_t fg_runs_line_count(const fg_runs *runs)
{
	return runs->nlines;
}

const fg_runs_line *fg_runs_line_at(const fg_runs *runs, size_t i)
{
	return i < runs->nlines ? &runs->lines[i] : NULL;
}

void fg_runs_filter_init(fg_runs_filter *filter)
{
	filter->node = NULL;
	filter->protocol = NULL;
	filter->event = "cpu";
}

/* The event a line's profile holds for filtering: async-profiler's default
 * event is cpu, and itimer/ctimer are its cpu fallbacks (older Zeebe
 * profiles are itimer). */
static const char *event_class(const char *event)
{
	if (!event || !strcmp(event, "itimer") || !strcmp(event, "ctimer"))
		return "cpu";
	return event;
}

static bool line_passes(const fg_runs_line *l, const fg_runs_filter *f)
{
	if (f->node && (!l->node || strcmp(l->node, f->node)))
		return false;
	if (f->protocol && l->protocol && strcmp(l->protocol, f->protocol))
		return false;
	if (f->event && strcmp(event_class(l->event), event_class(f->event)))
		return false;
	return true;
}

static int by_date_commit_line(const void *a, const void *b)
{
	const fg_runs_line *x = *(const fg_runs_line *const *)a;
	const fg_runs_line *y = *(const fg_runs_line *const *)b;
	int c = strcmp(x->date, y->date);
	if (!c)
		c = strcmp(x->commit, y->commit);
	if (!c)
		c = (x->lineno > y->lineno) - (x->lineno < y->lineno);
	return c;
}

static int by_date_first_line(const void *a, const void *b)
{
	const fg_runs_run *x = a;
	const fg_runs_run *y = b;
	int c = strcmp(x->date, y->date);
	if (!c)
		c = (x->lines[0]->lineno > y->lines[0]->lineno) - (x->lines[0]->lineno < y->lines[0]->lineno);
	return c;
}

void fg_runs_selection_free(fg_runs_selection *sel)
{
	if (!sel)
		return;
	free(sel->lines);
	free(sel->runs);
	free(sel);
}

/* FG_ECONFIG when the selected lines (file order) hold two values of a
 * field: the first line against the first that differs. */
static int check_mixed(const fg_runs *runs, const fg_runs_line **lines, size_t n, bool protocol,
                       fg_error *err)
{
	const fg_runs_line *first = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *v = protocol ? lines[i]->protocol : event_class(lines[i]->event);
		if (!v)
			continue;
		if (!first) {
			first = lines[i];
			continue;
		}
		const char *w = protocol ? first->protocol : event_class(first->event);
		if (strcmp(v, w)) {
			char source[sizeof(err->source)];
			snprintf(source, sizeof(source), "%s:%zu", runs->base, lines[i]->lineno);
			return fg_error_set(err, FG_ECONFIG, source,
			                    "lines %zu and %zu mix %s %s and %s; choose one with --%s",
			                    first->lineno, lines[i]->lineno, protocol ? "protocols" : "events",
			                    w, v, protocol ? "protocol" : "event");
		}
	}
	return 0;
}

int fg_runs_select(fg_runs_selection **out, const fg_runs *runs, const fg_runs_filter *filter,
                   fg_error *err)
{
	*out = NULL;
	if (filter->protocol && strcmp(filter->protocol, "grpc") && strcmp(filter->protocol, "rest"))
		return fg_error_set(err, FG_EUSAGE, NULL, "protocol must be grpc or rest, not '%s'",
		                    filter->protocol);
	if (runs->nlines == 0)
		return fg_error_set(err, FG_ECONFIG, runs->base, "the runs file lists no profile");

	fg_runs_selection *sel = calloc(1, sizeof(*sel));
	if (sel)
		sel->lines = malloc(runs->nlines * sizeof(*sel->lines));
	if (!sel || !sel->lines) {
		fg_runs_selection_free(sel);
		return fg_error_oom(err, runs->base);
	}
	size_t n = 0;
	for (size_t i = 0; i < runs->nlines; i++)
		if (line_passes(&runs->lines[i], filter))
			sel->lines[n++] = &runs->lines[i];
	sel->base = runs->base;
	int rc = 0;
	if (n == 0)
		rc = fg_error_set(err, FG_ECONFIG, runs->base,
		                  "no line matches node %s, protocol %s, event %s",
		                  filter->node ? filter->node : "(any)",
		                  filter->protocol ? filter->protocol : "(any)",
		                  filter->event ? filter->event : "(any)");
	if (!rc && !filter->protocol)
		rc = check_mixed(runs, sel->lines, n, true, err);
	if (!rc && !filter->event)
		rc = check_mixed(runs, sel->lines, n, false, err);
	if (rc) {
		fg_runs_selection_free(sel);
		return rc;
	}

	qsort(sel->lines, n, sizeof(*sel->lines), by_date_commit_line);
	sel->runs = malloc(n * sizeof(*sel->runs));
	if (!sel->runs) {
		fg_runs_selection_free(sel);
		return fg_error_oom(err, runs->base);
	}
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && !strcmp(sel->lines[j]->date, sel->lines[i]->date) &&
		       !strcmp(sel->lines[j]->commit, sel->lines[i]->commit))
			j++;
		fg_runs_run *r = &sel->runs[sel->nruns++];
		r->date = sel->lines[i]->date;
		r->commit = sel->lines[i]->commit;
		r->lines = &sel->lines[i];
		r->nlines = j - i;
		i = j;
	}
	qsort(sel->runs, sel->nruns, sizeof(*sel->runs), by_date_first_line);
	*out = sel;
	return 0;
}

size_t fg_runs_selection_count(const fg_runs_selection *sel)
{
	return sel->nruns;
}

const fg_runs_run *fg_runs_selection_at(const fg_runs_selection *sel, size_t i)
{
	return i < sel->nruns ? &sel->runs[i] : NULL;
}

/* Whether one id is a prefix of the other (ids are lowercase). */
static bool ids_agree(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	return !strncmp(a, b, la < lb ? la : lb);
}

int fg_runs_selection_find(const fg_runs_run **out, const fg_runs_selection *sel, const char *commit,
                           fg_error *err)
{
	*out = NULL;
	size_t len = strlen(commit);
	if (!fg_repo_valid_id(commit, len))
		return fg_error_set(err, FG_EUSAGE, NULL, "'%s' is not a commit id (4 to 40 hex digits)",
		                    commit);
	char id[41];
	for (size_t i = 0; i <= len; i++)
		id[i] = (commit[i] >= 'A' && commit[i] <= 'F') ? (char)(commit[i] - 'A' + 'a') : commit[i];

	/* Every match agrees with the query; they name one commit only when
	 * each is a prefix of the longest. */
	const fg_runs_run *best = NULL, *longest = NULL;
	for (size_t i = 0; i < sel->nruns; i++) {
		const fg_runs_run *r = &sel->runs[i];
		if (!ids_agree(r->commit, id))
			continue;
		if (longest && !ids_agree(r->commit, longest->commit)) {
			return fg_error_set(err, FG_ECONFIG, sel->base,
			                    "commit %s is ambiguous in the runs file: %s (line %zu) and %s (line %zu)",
			                    id, longest->commit, longest->lines[0]->lineno, r->commit,
			                    r->lines[0]->lineno);
		}
		if (!longest || strlen(r->commit) > strlen(longest->commit))
			longest = r;
		/* Runs are sorted by date: a later date replaces, the same keeps the first. */
		if (!best || strcmp(r->date, best->date) > 0)
			best = r;
	}
	*out = best;
	return 0;
}
