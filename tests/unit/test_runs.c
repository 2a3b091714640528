/* The runs file: parsing, errors with line numbers, location resolution,
 * filters, and finding the run of a commit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "net/fetch.h"
#include "bisect/runs.h"


static fg_runs *parse(const char *text, const char *base)
{
	fg_runs *runs = NULL;
	fg_error err;
	fg_error_clear(&err);
	if (fg_runs_parse_buffer(&runs, text, strlen(text), base, &err)) {
		fprintf(stderr, "unexpected error: %s: %s\n", err.source, err.message);
		check_failures++;
	}
	return runs;
}

/* Parses text expecting a failure; checks the code, source and message. */
static void parse_fails(const char *text, int code, const char *source, const char *message)
{
	fg_runs *runs = NULL;
	fg_error err;
	fg_error_clear(&err);
	int rc = fg_runs_parse_buffer(&runs, text, strlen(text), "runs.txt", &err);
	CHECK(rc == code);
	CHECK(runs == NULL);
	CHECK(err.code == code);
	CHECK_STR(err.source, source);
	if (!strstr(err.message, message)) {
		fprintf(stderr, "message '%s' lacks '%s'\n", err.message, message);
		check_failures++;
	}
}

static void test_parse(void)
{
	fg_runs *runs = parse("# date commit node protocol event location\n"
	                      "\n"
	                      "   \t \n"
	                      "2026-11-01 4F1C2A9E3B broker-0 grpc cpu a.html # trailing comment\n"
	                      "2026-11-01\t4f1c2a9e3b\t-\t-\t-\tb.html#not-a-comment\r\n"
	                      "  # indented comment\n"
	                      "2026-11-02 abcd - rest alloc https://example.org/x.html.gz",
	                      "runs.txt");
	CHECK(runs != NULL);
	if (!runs)
		return;
	CHECK(fg_runs_line_count(runs) == 3);
	const fg_runs_line *l = fg_runs_line_at(runs, 0);
	CHECK(l->lineno == 4);
	CHECK_STR(l->date, "2026-11-01");
	CHECK_STR(l->commit, "4f1c2a9e3b"); /* lowercased */
	CHECK_STR(l->node, "broker-0");
	CHECK_STR(l->protocol, "grpc");
	CHECK_STR(l->event, "cpu");
	CHECK_STR(l->location, "a.html");
	CHECK_STR(l->resolved, "a.html");
	l = fg_runs_line_at(runs, 1);
	CHECK(l->lineno == 5);
	CHECK(l->node == NULL && l->protocol == NULL && l->event == NULL);
	CHECK_STR(l->location, "b.html#not-a-comment");
	l = fg_runs_line_at(runs, 2);
	CHECK(l->lineno == 7);
	CHECK_STR(l->resolved, "https://example.org/x.html.gz");
	CHECK(fg_runs_line_at(runs, 3) == NULL);
	fg_runs_free(runs);

	/* A byte-order mark and an empty file. */
	runs = parse("\xef\xbb\xbf" "2026-01-01 abcd - - - x.html\n", "runs.txt");
	CHECK(runs && fg_runs_line_count(runs) == 1);
	fg_runs_free(runs);
	runs = parse("", "runs.txt");
	CHECK(runs && fg_runs_line_count(runs) == 0);
	fg_runs_free(runs);
}

static void test_bad_lines(void)
{
	parse_fails("# header\n2026-11-01 abcd node grpc cpu\n", FG_ECONFIG, "runs.txt:2",
	            "expected 6 fields, got 5");
	parse_fails("2026-11-01 abcd node grpc cpu a.html extra\n", FG_ECONFIG, "runs.txt:1",
	            "expected 6 fields, got 7");
	parse_fails("\n\n2026-02-30 abcd - - - a.html\n", FG_ECONFIG, "runs.txt:3", "'2026-02-30' is not a date");
	parse_fails("2026-13-01 abcd - - - a.html\n", FG_ECONFIG, "runs.txt:1", "not a date");
	parse_fails("2026-1-01 abcd - - - a.html\n", FG_ECONFIG, "runs.txt:1", "not a date");
	parse_fails("2026/11/01 abcd - - - a.html\n", FG_ECONFIG, "runs.txt:1", "not a date");
	parse_fails("2025-02-29 abcd - - - a.html\n", FG_ECONFIG, "runs.txt:1", "not a date");
	parse_fails("2026-11-01 abc - - - a.html\n", FG_ECONFIG, "runs.txt:1", "'abc' is not a commit id");
	parse_fails("2026-11-01 abcz - - - a.html\n", FG_ECONFIG, "runs.txt:1", "not a commit id");
	parse_fails("2026-11-01 0123456789012345678901234567890123456789a - - - a.html\n", FG_ECONFIG,
	            "runs.txt:1", "not a commit id");
	parse_fails("2026-11-01 abcd - http - a.html\n", FG_ECONFIG, "runs.txt:1",
	            "protocol must be grpc, rest or -, not 'http'");
	parse_fails("2026-11-01 abcd - - - -\n", FG_ECONFIG, "runs.txt:1", "a location is required");

	/* Leap days that exist. */
	fg_runs *runs = parse("2024-02-29 abcd - - - a\n2000-02-29 abcd - - - a\n", "r");
	CHECK(runs && fg_runs_line_count(runs) == 2);
	fg_runs_free(runs);
	CHECK(!fg_runs_valid_date("1900-02-29", 10));
	CHECK(!fg_runs_valid_date("0000-01-01", 10));
	CHECK(fg_runs_valid_date("2026-12-31", 10));
	CHECK(!fg_runs_valid_date("2026-04-31", 10));
}

static void test_nul_in_buffer(void)
{
	/* strlen would stop at the NUL: pass the length explicitly. */
	static const char text[] = "2026-11-01 abcd - - - a.html\n2026-11-01 ab\0cd - - - a.html\n";
	fg_runs *runs = NULL;
	fg_error err;
	fg_error_clear(&err);
	CHECK(fg_runs_parse_buffer(&runs, text, sizeof(text) - 1, "runs.txt", &err) == FG_ECONFIG);
	CHECK_STR(err.source, "runs.txt:2");
}

static void resolves(const char *base, const char *location, const char *expected)
{
	char *out = NULL;
	fg_error err;
	fg_error_clear(&err);
	CHECK(fg_url_resolve(&out, base, location, &err) == 0);
	CHECK_STR(out, expected);
	free(out);
}

static void test_resolve(void)
{
	resolves("runs.txt", "a/b.html", "a/b.html");
	resolves("dir/runs.txt", "a/b.html", "dir/a/b.html");
	resolves("/srv/runs/runs.txt", "../x.html", "/srv/runs/../x.html");
	resolves("/runs.txt", "x.html", "/x.html");
	resolves("dir/runs.txt", "/abs/x.html", "/abs/x.html");
	resolves("dir/runs.txt", "https://h/x.html", "https://h/x.html");
	resolves("top/", "runs.txt", "top/runs.txt");
	resolves("https://example.org/runs/runs.txt", "2026-11-01/b.html",
	         "https://example.org/runs/2026-11-01/b.html");
	resolves("https://example.org/runs/runs.txt", "../other/b.html", "https://example.org/other/b.html");
	resolves("https://example.org/runs/runs.txt", "./a/./b/../c.html", "https://example.org/runs/a/c.html");
	resolves("https://example.org/runs/runs.txt", "../../../b.html", "https://example.org/b.html");
	resolves("https://example.org/runs/runs.txt?token=1#top", "b.html?x=1", "https://example.org/runs/b.html?x=1");
	resolves("https://example.org", "b.html", "https://example.org/b.html");
	resolves("https://example.org/a/", "b/", "https://example.org/a/b/");
	/* Against a URL every location is a URL reference: "/abs" is on its host. */
	resolves("https://example.org/a/runs.txt", "/abs/b.html", "https://example.org/abs/b.html");
	resolves("file:///srv/runs.txt", "b.html", "file:///srv/b.html");
	resolves("https://example.org/a/runs.txt", "file:///x.html", "file:///x.html");

	/* Through the parser: resolved is what gets fetched, location is kept. */
	fg_runs *runs = parse("2026-11-01 abcd - - - ../d/x.html\n", "https://h.example/r/runs.txt");
	if (runs) {
		CHECK_STR(fg_runs_line_at(runs, 0)->resolved, "https://h.example/d/x.html");
		CHECK_STR(fg_runs_line_at(runs, 0)->location, "../d/x.html");
		CHECK_STR(fg_runs_base(runs), "https://h.example/r/runs.txt");
	}
	fg_runs_free(runs);
}

static void test_load(void)
{
	char path[] = "/tmp/fg-test-runs-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	static const char text[] = "2026-11-01 abcd n - cpu x.html\n2026-11-01 abcd n - cpu\n";
	CHECK(write(fd, text, sizeof(text) - 1) == (ssize_t)(sizeof(text) - 1));
	close(fd);

	fg_runs *runs = NULL;
	fg_error err;
	fg_error_clear(&err);
	/* A runs file fetched from a URL: errors name the URL. */
	CHECK(fg_runs_load(&runs, path, "https://h/runs.txt", &err) == FG_ECONFIG);
	CHECK_STR(err.source, "https://h/runs.txt:2");
	CHECK_STR(err.message, "expected 6 fields, got 5");
	fg_error_clear(&err);
	CHECK(fg_runs_load(&runs, path, NULL, &err) == FG_ECONFIG);
	char expected[64];
	snprintf(expected, sizeof(expected), "%s:2", path);
	CHECK_STR(err.source, expected);
	unlink(path);

	fg_error_clear(&err);
	CHECK(fg_runs_load(&runs, path, NULL, &err) == FG_EFETCH);
	CHECK_STR(err.source, path);
}

static fg_runs_selection *select_ok(const fg_runs *runs, const fg_runs_filter *f)
{
	fg_runs_selection *sel = NULL;
	fg_error err;
	fg_error_clear(&err);
	if (fg_runs_select(&sel, runs, f, &err)) {
		fprintf(stderr, "unexpected error: %s: %s\n", err.source, err.message);
		check_failures++;
	}
	return sel;
}

static const char mixed[] =
	"2026-11-02 bbbbbbb camunda-0 grpc cpu b0-grpc-cpu.html\n"   /* 1 */
	"2026-11-01 aaaaaaa camunda-0 grpc cpu a0-grpc-cpu.html\n"   /* 2 */
	"2026-11-01 aaaaaaa camunda-1 grpc cpu a1-grpc-cpu.html\n"   /* 3 */
	"2026-11-01 aaaaaaa camunda-0 rest cpu a0-rest-cpu.html\n"   /* 4 */
	"2026-11-01 aaaaaaa camunda-0 grpc alloc a0-grpc-alloc.html\n" /* 5 */
	"2026-11-01 aaaaaaa camunda-0 - - a0-none.html\n"            /* 6 */
	"2026-11-02 bbbbbbb camunda-0 grpc itimer b0-itimer.html\n"  /* 7 */
	"2026-10-31 ccccccc - grpc wall c-wall.html\n";              /* 8 */

static void test_filters(void)
{
	fg_runs *runs = parse(mixed, "runs.txt");
	if (!runs)
		return;
	fg_runs_filter f;
	fg_runs_filter_init(&f);
	CHECK(f.node == NULL && f.protocol == NULL);
	CHECK_STR(f.event, "cpu");

	/* Defaults: cpu, but grpc and rest both remain → configuration error. */
	fg_runs_selection *sel = NULL;
	fg_error err;
	fg_error_clear(&err);
	CHECK(fg_runs_select(&sel, runs, &f, &err) == FG_ECONFIG);
	CHECK(sel == NULL);
	CHECK_STR(err.source, "runs.txt:4");
	CHECK_STR(err.message, "lines 1 and 4 mix protocols grpc and rest; choose one with --protocol");

	/* grpc, cpu: lines with `-` protocol stay; `-` and itimer events count as cpu. */
	f.protocol = "grpc";
	sel = select_ok(runs, &f);
	if (sel) {
		CHECK(fg_runs_selection_count(sel) == 2);
		const fg_runs_run *r = fg_runs_selection_at(sel, 0);
		CHECK_STR(r->date, "2026-11-01");
		CHECK_STR(r->commit, "aaaaaaa");
		CHECK(r->nlines == 3);
		CHECK(r->lines[0]->lineno == 2 && r->lines[1]->lineno == 3 && r->lines[2]->lineno == 6);
		r = fg_runs_selection_at(sel, 1);
		CHECK_STR(r->date, "2026-11-02");
		CHECK(r->nlines == 2);
		CHECK(r->lines[0]->lineno == 1 && r->lines[1]->lineno == 7);
		CHECK(fg_runs_selection_at(sel, 2) == NULL);
	}
	fg_runs_selection_free(sel);

	/* A node: lines without a node do not match it. */
	f.node = "camunda-1";
	sel = select_ok(runs, &f);
	if (sel) {
		CHECK(fg_runs_selection_count(sel) == 1);
		CHECK(fg_runs_selection_at(sel, 0)->nlines == 1);
		CHECK(fg_runs_selection_at(sel, 0)->lines[0]->lineno == 3);
	}
	fg_runs_selection_free(sel);

	/* Nothing matches: a configuration error, not an empty list. */
	f.node = "camunda-9";
	fg_error_clear(&err);
	CHECK(fg_runs_select(&sel, runs, &f, &err) == FG_ECONFIG);
	CHECK(strstr(err.message, "no line matches node camunda-9") != NULL);

	/* Wall: the one line that has it, nodeless. */
	f.node = NULL;
	f.event = "wall";
	sel = select_ok(runs, &f);
	if (sel) {
		CHECK(fg_runs_selection_count(sel) == 1);
		CHECK_STR(fg_runs_selection_at(sel, 0)->commit, "ccccccc");
	}
	fg_runs_selection_free(sel);

	/* Any event: cpu and alloc mix. */
	f.event = NULL;
	fg_error_clear(&err);
	CHECK(fg_runs_select(&sel, runs, &f, &err) == FG_ECONFIG);
	CHECK_STR(err.source, "runs.txt:5");
	CHECK_STR(err.message, "lines 1 and 5 mix events cpu and alloc; choose one with --event");

	/* A protocol that does not exist is a usage error. */
	f.event = "cpu";
	f.protocol = "http";
	fg_error_clear(&err);
	CHECK(fg_runs_select(&sel, runs, &f, &err) == FG_EUSAGE);
	fg_runs_free(runs);

	/* An empty runs file is a configuration error too. */
	runs = parse("# nothing yet\n", "runs.txt");
	fg_runs_filter_init(&f);
	fg_error_clear(&err);
	CHECK(fg_runs_select(&sel, runs, &f, &err) == FG_ECONFIG);
	CHECK_STR(err.source, "runs.txt");
	fg_runs_free(runs);

	/* A run mixing protocols within itself, the only run in the file. */
	runs = parse("2026-11-01 abcd n0 grpc - a\n2026-11-01 abcd n1 rest - b\n", "runs.txt");
	fg_error_clear(&err);
	CHECK(fg_runs_select(&sel, runs, &f, &err) == FG_ECONFIG);
	CHECK_STR(err.source, "runs.txt:2");
	fg_runs_free(runs);
}

static const fg_runs_run *find(const fg_runs_selection *sel, const char *commit)
{
	const fg_runs_run *r = NULL;
	fg_error err;
	fg_error_clear(&err);
	if (fg_runs_selection_find(&r, sel, commit, &err)) {
		fprintf(stderr, "unexpected error: %s\n", err.message);
		check_failures++;
	}
	return r;
}

static void test_find(void)
{
	fg_runs *runs = parse("2026-11-01 4f1c2a9 camunda-0 - cpu a.html\n"
	                      "2026-11-03 4f1c2a9e camunda-0 - cpu c.html\n" /* same commit, longer id, newer */
	                      "2026-11-02 4f1c2a9 camunda-0 - cpu b.html\n"
	                      "2026-11-02 9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d camunda-0 - cpu d.html\n"
	                      "2026-11-04 deadbee1 camunda-0 - cpu e.html\n"
	                      "2026-11-04 deadbee2 camunda-0 - cpu f.html\n",
	                      "runs.txt");
	fg_runs_filter f;
	fg_runs_filter_init(&f);
	fg_runs_selection *sel = select_ok(runs, &f);
	if (!sel) {
		fg_runs_free(runs);
		return;
	}
	CHECK(fg_runs_selection_count(sel) == 6);
	CHECK_STR(fg_runs_selection_at(sel, 0)->date, "2026-11-01");
	CHECK_STR(fg_runs_selection_at(sel, 5)->date, "2026-11-04");

	/* A short id in the file matches the full HEAD id; the newest date wins. */
	const fg_runs_run *r = find(sel, "4f1c2a9e3b5d7f90123456789abcdef012345678");
	CHECK(r && !strcmp(r->date, "2026-11-03"));
	/* Uppercase and abbreviated queries. */
	r = find(sel, "4F1C2A9");
	CHECK(r && !strcmp(r->date, "2026-11-03"));
	/* Another full id sharing the 7-digit prefix matches only the 7-digit lines. */
	r = find(sel, "4f1c2a9f00000000000000000000000000000000");
	CHECK(r && !strcmp(r->date, "2026-11-02") && r->lines[0]->lineno == 3);
	/* An abbreviated query matches a full id in the file. */
	r = find(sel, "9e8d7c6");
	CHECK(r && !strcmp(r->commit, "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d"));
	/* No run: not an error. */
	r = find(sel, "0123456");
	CHECK(r == NULL);

	/* Ambiguous: the query agrees with two different commits. */
	fg_error err;
	fg_error_clear(&err);
	CHECK(fg_runs_selection_find(&r, sel, "deadbee", &err) == FG_ECONFIG);
	CHECK(r == NULL);
	CHECK(strstr(err.message, "deadbee1") && strstr(err.message, "deadbee2"));
	fg_error_clear(&err);
	CHECK(fg_runs_selection_find(&r, sel, "deadbee2", &err) == 0 && r && r->lines[0]->lineno == 6);
	/* Not an id. */
	fg_error_clear(&err);
	CHECK(fg_runs_selection_find(&r, sel, "HEAD", &err) == FG_EUSAGE);
	CHECK(fg_runs_selection_find(&r, sel, "abc", &err) == FG_EUSAGE);
	CHECK(fg_runs_selection_find(&r, sel, "4f1c2a90000000000000000000000000000000000", &err) ==
	      FG_EUSAGE);
	fg_runs_selection_free(sel);
	fg_runs_free(runs);
}

int main(void)
{
	test_parse();
	test_bad_lines();
	test_nul_in_buffer();
	test_resolve();
	test_load();
	test_filters();
	test_find();
	if (check_failures) {
		fprintf(stderr, "%d check(s) failed\n", check_failures);
		return 1;
	}
	return 0;
}
