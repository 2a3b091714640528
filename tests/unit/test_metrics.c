/* The efficiency lens without a server: the metric rules parser, template
 * expansion, times and durations, answer decoding, and every interpretation
 * rule of contrib/zeebe.metrics firing on its own case and on no other. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "metrics/metrics.h"
#include "metrics/metrics_rules.h"
#include "metrics/prom.h"
#include "bisect/runscan.h"

static void parse_fails(const char *text, const char *where, const char *message)
{
	fg_metrics_rules *r = NULL;
	fg_error err;
	fg_error_clear(&err);
	CHECK(fg_metrics_rules_parse(&r, text, strlen(text), "t.metrics", &err) == FG_ECONFIG);
	CHECK(r == NULL);
	CHECK_STR(err.source, where);
	if (!strstr(err.message, message))
		CHECK_STR(err.message, message);
}

static void test_parser(void)
{
	const char *ok = "# c\nsignal a unit=x/s better=lower\n\ttitle A things\n\tquery sum(m{sel})\n"
	                 "signal b\n\tquery sum(n{sel,x=\"y\"}[{range}])\nsignal c unit=u\n\tratio a / b * 1000\n"
	                 "signal d\n\tquery sum by (t) (m{sel})\n\tby t,u\n"
	                 "rule r1\n\twhen ratio(c) >= 1.5\n\tunless delta(*) < 2\n\thypothesis it is so\n";
	fg_metrics_rules *r;
	fg_error err;
	CHECK(fg_metrics_rules_parse(&r, ok, strlen(ok), "t.metrics", &err) == 0);
	CHECK_U64(fg_metrics_rules_signal_count(r), 4);
	const fg_metrics_rules_signal *a = fg_metrics_rules_signal_at(r, 0), *c = fg_metrics_rules_signal_at(r, 2), *d = fg_metrics_rules_signal_at(r, 3);
	CHECK_STR(a->title, "A things");
	CHECK_STR(a->unit, "x/s");
	CHECK(a->better == FG_BETTER_LOWER);
	CHECK(c->kind == FG_SIGNAL_RATIO && c->numerator == 0 && c->denominator == 1 && c->scale == 1000);
	CHECK(d->kind == FG_SIGNAL_BREAKDOWN && d->nby == 2);
	CHECK_STR(d->by[1], "u");
	CHECK_U64(fg_metrics_rules_rule_count(r), 1);
	const fg_metrics_rules_rule *rule = fg_metrics_rules_rule_at(r, 0);
	CHECK_U64(rule->nconditions, 2);
	CHECK(rule->conditions[0].term == FG_TERM_RATIO && rule->conditions[0].op == FG_OP_GE &&
	      rule->conditions[0].threshold == 1.5 && !rule->conditions[0].unless);
	CHECK(rule->conditions[1].term == FG_TERM_DELTA_ANY && rule->conditions[1].unless);
	CHECK_STR(rule->hypothesis, "it is so");
	fg_metrics_rules_free(r);

	parse_fails("signal a\n\tquery sum(m)\n", "t.metrics:2", "no {sel} slot");
	parse_fails("signal a\n\tquery m{sel}\nsignal a\n\tquery n{sel}\n", "t.metrics:3", "already defined");
	parse_fails("signal a\nsignal b\n\tquery m{sel}\n", "t.metrics:1", "neither 'query' nor 'ratio'");
	parse_fails("signal a\n\tratio x / y\n", "t.metrics:2", "'x', which is not defined above");
	parse_fails("signal a better=worse\n", "t.metrics:1", "unknown option 'better=worse'");
	parse_fails("signal a\n\tquery m{sel}\nrule r\n\twhen ratio(b) > 1\n", "t.metrics:4", "no signal 'b'");
	parse_fails("signal a\n\tquery m{sel}\nrule r\n\twhen ratio(a) = 1\n", "t.metrics:4", "compares with");
	parse_fails("signal a\n\tquery m{sel}\nrule r\n\twhen ratio(a) > x\n", "t.metrics:4", "'x' is not a number");
	parse_fails("signal a\n\tquery m{sel}\nrule r\n\twhen ratio(a) > 1\n", "t.metrics:3", "no 'hypothesis'");
	parse_fails("signal a\n\tquery m{sel}\nrule r\n\thypothesis h\n", "t.metrics:3", "no 'when' or 'unless'");
	parse_fails("signal a\n\tquery m{sel}\n\tby p\nrule r\n\twhen ratio(a) > 1\n\thypothesis h\n", "t.metrics:5",
	            "has 'by'");
	parse_fails("pattern x\n", "t.metrics:1", "expected 'signal' or 'rule'");
	parse_fails("# nothing\n", "t.metrics", "no signal defined");
	static const char nul[] = "signal a\n\tquery m{sel}\0\n";
	fg_error err2;
	CHECK(fg_metrics_rules_parse(&r, nul, sizeof(nul) - 1, "t.metrics", &err2) == FG_ECONFIG);
	CHECK(strstr(err2.message, "NUL byte") != NULL);
}

static void expands(const char *t, const char *sel, const char *expected)
{
	char *out = NULL;
	fg_error err;
	CHECK(fg_metrics_rules_expand(&out, t, sel, "60s", &err) == 0);
	CHECK_STR(out, expected);
	free(out);
}

static void test_expand(void)
{
	expands("sum(m{sel})", "namespace=\"x\"", "sum(m{namespace=\"x\"})");
	expands("rate(m{sel,a=\"b\"}[{range}]) / n{sel}", "ns=~\"y.*\"",
	        "rate(m{ns=~\"y.*\",a=\"b\"}[60s]) / n{ns=~\"y.*\"}");
	expands("m{selx}", "a=\"b\"", "m{selx}");
	char *out;
	fg_error err;
	CHECK(fg_metrics_rules_expand(&out, "m{sel}", "{a=\"b\"}", "60s", &err) == FG_EUSAGE && !out);
	CHECK(fg_metrics_rules_expand(&out, "m{sel}", "", "60s", &err) == FG_EUSAGE && !out);
}

static void test_times(void)
{
	double t, s, e;
	CHECK(fg_metrics_parse_time(&t, "2026-11-20T04:00:00Z") && t == 1795147200);
	CHECK(fg_metrics_parse_time(&t, "2026-11-20T05:30:00.5+01:30") && t == 1795147200.5);
	CHECK(fg_metrics_parse_time(&t, "1795147200") && t == 1795147200);
	CHECK(!fg_metrics_parse_time(&t, "2026-02-31T00:00:00Z"));
	CHECK(!fg_metrics_parse_time(&t, "2026-11-20T04:00:00"));
	CHECK(!fg_metrics_parse_time(&t, "yesterday"));
	CHECK(fg_metrics_parse_duration(&t, "1h30m") && t == 5400);
	CHECK(fg_metrics_parse_duration(&t, "90") && t == 90);
	CHECK(fg_metrics_parse_duration(&t, "15m") && t == 900);
	CHECK(!fg_metrics_parse_duration(&t, "15x"));
	CHECK(!fg_metrics_parse_duration(&t, "m"));
	CHECK(!fg_metrics_parse_duration(&t, "0s"));
	CHECK(fg_metrics_parse_range(&s, &e, "2026-11-20T04:00:00Z..2026-11-20T05:00:00Z") && e - s == 3600);
	CHECK(!fg_metrics_parse_range(&s, &e, "2026-11-20T05:00:00Z..2026-11-20T04:00:00Z"));
	char buf[32];
	fg_metrics_format_time(buf, 1795147200.9);
	CHECK_STR(buf, "2026-11-20T04:00:00Z");
}

static int decodes(const char *body, long status, fg_prom_result *r, fg_error *err)
{
	return fg_prom_decode(r, body, strlen(body), status, "test", err);
}

static void test_decode(void)
{
	fg_prom_result r;
	fg_error err;
	CHECK(decodes("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{\"b\":\"2\","
	              "\"a\":\"1\"},\"values\":[[10,\"1.5\"],[20,\"NaN\"],[30,\"+Inf\"]]}]},\"warnings\":[\"w\"]}",
	              200, &r, &err) == 0);
	CHECK_U64(r.nseries, 1);
	CHECK_U64(r.series[0].npoints, 3);
	CHECK_STR(r.series[0].labels[0].name, "a");
	CHECK_STR(fg_prom_series_label(&r.series[0], "b"), "2");
	CHECK(r.series[0].values[0] == 1.5 && isnan(r.series[0].values[1]) && isinf(r.series[0].values[2]));
	CHECK_STR(r.warning, "w");
	fg_prom_result_clear(&r);
	CHECK(decodes("{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[5,\"2\"]}}", 200, &r,
	              &err) == 0);
	CHECK(r.nseries == 1 && r.series[0].values[0] == 2);
	fg_prom_result_clear(&r);
	CHECK(decodes("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}", 200, &r, &err) == 0);
	CHECK_U64(r.nseries, 0);
	CHECK(decodes("{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"parse error\"}", 400, &r, &err) ==
	      FG_ECONFIG);
	CHECK_STR(err.message, "query error (bad_data, HTTP status 400): parse error");
	CHECK(decodes("{\"status\":\"error\",\"errorType\":\"timeout\",\"error\":\"too slow\"}", 503, &r, &err) ==
	      FG_EFETCH);
	CHECK(decodes("<html>", 200, &r, &err) == FG_EINVALID && strstr(err.message, "HTML page"));
	CHECK(decodes("{\"status\":\"success\",\"data\":{\"resultType\":\"string\",\"result\":[1,\"x\"]}}", 200, &r,
	              &err) == FG_EINVALID);
	CHECK(decodes("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},"
	              "\"value\":[1,\"abc\"]}]}}", 200, &r, &err) == FG_EINVALID);
	CHECK(decodes("{\"status\":\"success\",\"status\":\"x\"}", 200, &r, &err) == FG_EINVALID);
	CHECK(decodes("{\"status\":\"succ", 200, &r, &err) == FG_EINVALID);
	CHECK(decodes("oops", 502, &r, &err) == FG_EFETCH && !strcmp(err.message, "HTTP status 502"));
}

static void benchmark_is(const char *path, const char *expected)
{
	char out[128] = "";
	bool found = fg_runscan_benchmark(out, sizeof(out), path);
	CHECK(found == (expected != NULL));
	if (expected)
		CHECK_STR(out, expected);
}

static void test_run_templates(void)
{
	benchmark_is("flamegraph-medic-daily-2026-08-31-abc1234-test-grpc-cpu-camunda-0-20260831/x.html",
	             "medic-daily-2026-08-31-abc1234-test-grpc");
	benchmark_is("https://h/runs/c8-medic-daily-2026-08-31-abc1234-test-camunda-0-flamegraph-cpu-20260831.html",
	             "medic-daily-2026-08-31-abc1234-test");
	benchmark_is("a/flamegraph-medic-daily-2026-08-31-bd6cbb8f-test-cpu-camunda-1-20260831/f.html",
	             "medic-daily-2026-08-31-bd6cbb8f-test");
	benchmark_is("c8-medic-daily-2026-08-31-abc1234-test-none-camunda-2-flamegraph-cpu-20260831.html",
	             "medic-daily-2026-08-31-abc1234-test-none");
	benchmark_is("medic-daily-2026-08-31-abc1234-test-grpc.html", "medic-daily-2026-08-31-abc1234-test");
	benchmark_is("2026-08-31/broker-0.html", NULL);
	benchmark_is("medic-daily-2026-02-30-abc1234-test/x.html", NULL);

	static const char *const keys[] = { "date", "short", "benchmark" };
	const char *values[] = { "2026-11-20", "abc1234", NULL };
	char *out;
	fg_error err;
	CHECK(fg_metrics_fill(&out, "namespace=\"c8-{date}-{short}\",x=~\"a{2}\",{nokey}", keys, values, 2, "r", &err) == 0);
	CHECK_STR(out, "namespace=\"c8-2026-11-20-abc1234\",x=~\"a{2}\",{nokey}");
	free(out);
	CHECK(fg_metrics_fill(&out, "namespace=\"c8-{benchmark}\"", keys, values, 3, "the run X", &err) == FG_ECONFIG);
	CHECK_STR(err.message, "{benchmark} is not known for the run X");
}

/* ---- interpretation: contrib/zeebe.metrics, case by case ---- */

struct value { const char *signal; double base, candidate; };
struct delta { const char *subsystem; double delta; };

struct rule_case {
	const char *name;
	const char *expect; /* the rule that fires, NULL for none */
	struct value changes[4];
	const struct delta *deltas; /* NULL: no profiles */
	size_t ndeltas;
	const char *missing; /* a signal missing in the candidate */
};

/* Healthy values on both sides unless a case changes them. */
static const struct value healthy[] = {
	{ "cpu", 3.6, 3.6 }, { "cpu_limit", 6, 6 }, { "records", 300, 300 }, { "append_data", 150, 150 },
	{ "append_rate", 120, 120 }, { "flush_rate", 30, 30 }, { "flush_mean", 0.002, 0.002 },
	{ "flush_p99", 0.005, 0.005 }, { "dropped", 1.5, 1.5 }, { "backpressure_inflight", 60, 60 },
	{ "backpressure_limit", 300, 300 }, { "processing_p50", 0.0007, 0.0007 }, { "processing_p99", 0.01, 0.01 },
	{ "live_size", 6e8, 6e8 }, { "num_keys", 3e6, 3e6 }, { "sst_size", 9e8, 9e8 }, { "gc_pause", 0.03, 0.03 },
	{ "alloc_rate", 6e8, 6e8 },
};

static const struct delta flat[] = { { "processing", 0.4 }, { "rocksdb-state", -0.3 }, { "journal-flush", 0.2 } };
static const struct delta state[] = { { "processing", -1.0 }, { "rocksdb-state", 3.0 } };
static const struct delta flush[] = { { "journal-flush", 2.5 }, { "processing", -2.5 } };
static const struct delta exporter[] = { { "exporter", 4.0 }, { "processing", -4.0 } };
static const struct delta grown[] = { { "processing", 3.5 }, { "other", -3.5 } };

#define N(a) (sizeof(a) / sizeof(a[0]))

static const struct rule_case cases[] = {
	{ "healthy", "healthy", { { 0 } }, NULL, 0, NULL },
	{ "healthy, flat profiles", "healthy", { { 0 } }, flat, N(flat), NULL },
	{ "saturated with a longer tail", "queueing",
	  { { "cpu", 3.6, 5.82 }, { "records", 300, 291 }, { "processing_p99", 0.01, 0.09 } }, NULL, 0, NULL },
	{ "saturated", "saturated", { { "cpu", 3.6, 5.82 }, { "records", 300, 240 } }, NULL, 0, NULL },
	{ "data growth", "data-growth", { { "live_size", 6e8, 1.2e9 }, { "records", 300, 270 } }, NULL, 0, NULL },
	{ "state operations", "state-operations", { { 0 } }, state, N(state), NULL },
	{ "heavier flushes", "heavier-flush", { { 0 } }, flush, N(flush), NULL },
	{ "exporter", "exporter", { { 0 } }, exporter, N(exporter), NULL },
	{ "allocation", "allocation", { { "gc_pause", 0.03, 0.06 }, { "alloc_rate", 6e8, 7.2e8 } }, NULL, 0, NULL },
	{ "efficiency, metrics only", "efficiency", { { "records", 300, 240 } }, NULL, 0, NULL },
	{ "efficiency, a subsystem grew", "efficiency", { { "records", 300, 240 } }, grown, N(grown), NULL },
	{ "shape unchanged", "shape-unchanged", { { "records", 300, 240 } }, flat, N(flat), NULL },
	/* The data-growth case without RocksDB metrics cannot claim data growth. */
	{ "data growth, live size missing", "efficiency", { { "live_size", 6e8, 1.2e9 }, { "records", 300, 270 } },
	  NULL, 0, "live_size" },
	{ "more CPU, same throughput: no signature", NULL, { { "cpu", 3.6, 4.5 } }, NULL, 0, NULL },
};

static long run_case(const fg_metrics_rules *rules, const struct rule_case *c)
{
	size_t n = fg_metrics_rules_signal_count(rules);
	fg_metric_value *b = calloc(n, sizeof(*b)), *cand = calloc(n, sizeof(*cand));
	for (size_t i = 0; i < n; i++) {
		const char *name = fg_metrics_rules_signal_at(rules, i)->name;
		b[i].status = cand[i].status = FG_METRIC_MISSING;
		for (size_t k = 0; k < N(healthy); k++)
			if (!strcmp(healthy[k].signal, name)) {
				b[i] = (fg_metric_value){ .status = FG_METRIC_OK, .value = healthy[k].base, .points = 90, .neff = 90 };
				cand[i] = (fg_metric_value){ .status = FG_METRIC_OK, .value = healthy[k].candidate, .points = 90, .neff = 90 };
			}
		for (size_t k = 0; k < N(c->changes) && c->changes[k].signal; k++)
			if (!strcmp(c->changes[k].signal, name)) {
				b[i].value = c->changes[k].base;
				cand[i].value = c->changes[k].candidate;
			}
		if (c->missing && !strcmp(c->missing, name))
			cand[i].status = FG_METRIC_MISSING;
	}
	fg_metrics_delta d[8];
	for (size_t k = 0; k < c->ndeltas; k++)
		d[k] = (fg_metrics_delta){ c->deltas[k].subsystem, c->deltas[k].delta };
	fg_metrics_result *r = NULL;
	fg_error err;
	CHECK(fg_metrics_from_values(&r, rules, b, cand, &err) == 0);
	CHECK(fg_metrics_interpret(r, c->deltas ? d : NULL, c->ndeltas, &err) == 0);
	long fired = r->fired;
	const char *got = fired >= 0 ? r->rule_results[fired].def->name : "(none)";
	if (strcmp(got, c->expect ? c->expect : "(none)"))
		fprintf(stderr, "case '%s': expected rule %s, fired %s\n", c->name, c->expect ? c->expect : "(none)", got);
	CHECK_STR(got, c->expect ? c->expect : "(none)");
	fg_metrics_result_free(r);
	free(b);
	free(cand);
	return fired;
}

static void test_zeebe_rules(void)
{
	const char *dir = getenv("FG_SOURCE_DIR");
	char path[4096];
	snprintf(path, sizeof(path), "%s/contrib/zeebe.metrics", dir ? dir : ".");
	fg_metrics_rules *rules;
	fg_error err;
	if (fg_metrics_rules_load(&rules, path, &err)) {
		fprintf(stderr, "%s: %s\n", err.source, err.message);
		CHECK(!"contrib/zeebe.metrics loads");
		return;
	}
	size_t nrules = fg_metrics_rules_rule_count(rules);
	int *fired_in = calloc(nrules, sizeof(int));
	for (size_t i = 0; i < N(cases); i++) {
		long f = run_case(rules, &cases[i]);
		if (f >= 0)
			fired_in[f]++;
	}
	/* Every rule fires on some case, and only on the cases that name it. */
	for (size_t i = 0; i < nrules; i++) {
		int expected = 0;
		for (size_t k = 0; k < N(cases); k++)
			expected += cases[k].expect && !strcmp(cases[k].expect, fg_metrics_rules_rule_at(rules, i)->name);
		if (!expected)
			fprintf(stderr, "rule %s has no case\n", fg_metrics_rules_rule_at(rules, i)->name);
		CHECK(expected > 0);
		CHECK(fired_in[i] == expected);
	}
	free(fired_in);
	fg_metrics_rules_free(rules);
}

/* ---- interpretation on intervals ---- */

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static fg_metrics_result *interpreted(const fg_metrics_rules *rules, const fg_metric_value *b, const fg_metric_value *c)
{
	fg_metrics_result *r = NULL;
	fg_error err;
	CHECK(fg_metrics_from_values(&r, rules, b, c, &err) == 0);
	CHECK(r && fg_metrics_interpret(r, NULL, 0, &err) == 0);
	return r;
}

static void test_uncertainty(void)
{
	static const char text[] = "signal a\n\tquery m{sel}\nsignal b\n\tquery n{sel}\nsignal c\n\tratio a / b * 1000\n"
	                           "rule up\n\twhen ratio(a) > 1.1\n\thypothesis a rose\n"
	                           "rule not-up\n\tunless ratio(a) > 1.1\n\thypothesis a did not rise\n"
	                           "rule derived\n\twhen ratio(c) > 1.1\n\twhen base(a) >= 100\n\thypothesis c rose\n"
	                           "rule derived-more\n\twhen ratio(c) > 1.2\n\thypothesis c rose 20%\n"
	                           "rule level\n\twhen candidate(a) > 110\n\thypothesis a is high\n";
	fg_metrics_rules *rules;
	fg_error err;
	CHECK(fg_metrics_rules_parse(&rules, text, strlen(text), "t.metrics", &err) == 0);
	/* a: 100 (se 2) -> 115 (se 4), b: 50 (se 1) -> 50 (se 0), 90 points, n_eff
	 * 20 (19 degrees of freedom).  Python (tests/unit/test_stats.c's t975 and
	 * welch): vb, vc = (2/100)^2, (4/115)^2; w = t975(welch(vb, 19, vc, 19)) *
	 * sqrt(vb + vc); 1.15*exp(-w), 1.15*exp(w). */
	fg_metric_value b[3] = { { .status = FG_METRIC_OK, .value = 100, .points = 90, .se = 2, .neff = 20 },
		                 { .status = FG_METRIC_OK, .value = 50, .points = 90, .se = 1, .neff = 20 } };
	fg_metric_value c[3] = { { .status = FG_METRIC_OK, .value = 115, .points = 90, .se = 4, .neff = 20 },
		                 { .status = FG_METRIC_OK, .value = 50, .points = 90, .se = 0, .neff = 90 } };
	fg_metrics_result *r = interpreted(rules, b, c);
	const fg_metric_signal *a = fg_metrics_signal(r, "a"), *d = fg_metrics_signal(r, "c");
	CHECK(a->interval == FG_INTERVAL_OK && NEAR(a->ci[0], 1.0595638658209934) && NEAR(a->ci[1], 1.2481550595114648));
	CHECK(a->side[0].df == 19 && isinf(fg_metrics_signal(r, "b")->side[1].df));
	/* 1.15 > 1.1, but the interval holds 1.1: undecided, both ways. */
	CHECK(r->rule_results[0].conditions[0].state == FG_STATE_UNDECIDED && !r->rule_results[0].conditions[0].holds);
	CHECK(r->rule_results[0].state == FG_STATE_UNDECIDED && !r->rule_results[0].matched);
	CHECK(r->rule_results[1].conditions[0].state == FG_STATE_UNDECIDED);
	/* c = a / b * 1000: base 2000, se 1000 hypot(2, 2 * 1) / 50, df
	 * welch(0.0016, 19, 0.0016, 19) = 38; candidate 2300, se 1000 * 4 / 50, df
	 * 19 (b exact); interval as above: above 1.1 and 1.2 undecided. */
	CHECK(NEAR(d->side[0].value, 2000) && NEAR(d->side[0].se, 56.568542494923804) && isnan(d->side[0].neff));
	CHECK(NEAR(d->side[0].df, 38) && NEAR(d->side[1].df, 19));
	CHECK(NEAR(d->side[1].se, 80) && d->side[1].points == 90);
	CHECK(NEAR(d->ci[0], 1.0505912215913449) && NEAR(d->ci[1], 1.2588150108438856));
	CHECK(r->rule_results[2].state == FG_STATE_UNDECIDED && r->rule_results[3].state == FG_STATE_UNDECIDED);
	/* candidate() keeps its meaning (the point value): the last rule fires,
	 * the first undecided rule before it is named. */
	CHECK(r->rule_results[4].state == FG_STATE_TRUE);
	CHECK(r->fired == 4 && r->undecided == 0);
	char buf[64];
	fg_metric_interval_text(buf, sizeof(buf), a);
	CHECK_STR(buf, "1.060\xe2\x80\x93" "1.248");
	fg_metrics_result_free(r);

	/* Less noise, the same shift: decided.  Python as above with se 0.5. */
	b[0].se = c[0].se = 0.5;
	r = interpreted(rules, b, c);
	a = fg_metrics_signal(r, "a");
	CHECK(NEAR(a->ci[0], 1.1346677210874161) && NEAR(a->ci[1], 1.1655394574303863));
	CHECK(r->rule_results[0].state == FG_STATE_TRUE && r->rule_results[1].state == FG_STATE_FALSE);
	CHECK(r->fired == 0 && r->undecided == -1);
	/* The derived signal: se 1000 hypot(0.5, 2) / 50 (df 21.365758754863812)
	 * and 1000 * 0.5 / 50 (df 19): above 1.1, and 1.2 within the interval. */
	d = fg_metrics_signal(r, "c");
	CHECK(NEAR(d->side[0].se, 41.231056256176608) && NEAR(d->side[1].se, 10));
	CHECK(NEAR(d->side[0].df, 21.365758754863812));
	CHECK(NEAR(d->ci[0], 1.1009836238236159) && NEAR(d->ci[1], 1.2011986112991198));
	CHECK(r->rule_results[2].state == FG_STATE_TRUE && r->rule_results[3].state == FG_STATE_UNDECIDED);
	fg_metrics_result_free(r);

	/* No noise at all (constant series): zero width, decided on the ratio exactly. */
	b[0].se = c[0].se = b[1].se = 0;
	c[0].value = 110;
	r = interpreted(rules, b, c);
	a = fg_metrics_signal(r, "a");
	CHECK(a->ci[0] == 1.1 && a->ci[1] == 1.1);
	CHECK(r->rule_results[0].state == FG_STATE_FALSE && r->rule_results[1].state == FG_STATE_TRUE);
	CHECK(r->fired == 1);
	fg_metrics_result_free(r);

	/* Too few points on one side: no interval, every ratio condition on it
	 * undecided (a derived signal has the fewer points of its two). */
	c[0].value = 200;
	c[1].points = FG_METRICS_MIN_POINTS - 1;
	r = interpreted(rules, b, c);
	a = fg_metrics_signal(r, "a");
	d = fg_metrics_signal(r, "c");
	CHECK(a->interval == FG_INTERVAL_OK && r->rule_results[0].state == FG_STATE_TRUE);
	CHECK(d->interval == FG_INTERVAL_FEW && d->side[1].points == FG_METRICS_MIN_POINTS - 1 && NEAR(d->ratio, 2));
	CHECK(r->rule_results[2].conditions[0].state == FG_STATE_UNDECIDED);
	fg_metric_interval_text(buf, sizeof(buf), d);
	CHECK_STR(buf, "too few points");
	CHECK(r->fired == 0 && r->undecided == -1);
	fg_metrics_result_free(r);
	c[0].value = 100;
	r = interpreted(rules, b, c);
	CHECK(r->fired == 1 && r->rule_results[1].state == FG_STATE_TRUE);
	fg_metrics_result_free(r);
	/* Too few points for a: nothing can be decided, nothing fires. */
	c[0].points = 3;
	c[1].points = 90;
	r = interpreted(rules, b, c);
	CHECK(fg_metrics_signal(r, "a")->interval == FG_INTERVAL_FEW);
	CHECK(r->fired == -1 && r->undecided == 0);
	CHECK(r->rule_results[1].state == FG_STATE_UNDECIDED && r->rule_results[2].state == FG_STATE_UNDECIDED);
	CHECK(r->rule_results[4].state == FG_STATE_FALSE);
	/* A missing side: no ratio, no interval, the condition false (unless: true). */
	fg_metrics_result_free(r);
	c[0].status = FG_METRIC_MISSING;
	r = interpreted(rules, b, c);
	CHECK(fg_metrics_signal(r, "a")->interval == FG_INTERVAL_NONE);
	CHECK(r->rule_results[0].state == FG_STATE_FALSE && r->rule_results[1].state == FG_STATE_TRUE && r->fired == 1);
	CHECK_STR(fg_cond_state_name(r->rule_results[0].state), "false");
	CHECK_STR(fg_cond_state_name(FG_STATE_UNDECIDED), "undecided");
	fg_metrics_result_free(r);
	fg_metrics_rules_free(rules);
}

int main(void)
{
	test_parser();
	test_expand();
	test_times();
	test_decode();
	test_run_templates();
	test_zeebe_rules();
	test_uncertainty();
	return check_status("test_metrics");
}
