/* The day search with verdicts given by a pattern ('F' fast, 'S' slow, '?'
 * undecidable, one letter a run): undecidable ends move inward, undecidable
 * middles are skipped like git skips, the answer always holds the true first
 * slow run, and without skips at most ceil(log2 N) + 2 runs are judged, for
 * every N up to 64 and every position of the first slow run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "bisect/days.h"

struct pattern {
	const char *kinds;
	size_t calls;
};

static int judge(void *ctx, fg_verdict **out, size_t run, fg_error *err)
{
	struct pattern *p = ctx;
	fg_verdict *v = calloc(1, sizeof(*v));
	if (!v)
		return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	char c = p->kinds[run];
	v->kind = c == 'F' ? FG_VERDICT_FAST : c == 'S' ? FG_VERDICT_SLOW : FG_VERDICT_SKIP;
	p->calls++;
	*out = v;
	return 0;
}

/* Searches the whole pattern; returns the outcome, sets the answer. */
static enum fg_days_outcome search(const char *kinds, size_t *fast, size_t *slow, size_t *judged)
{
	struct pattern p = { kinds, 0 };
	fg_days *d;
	fg_error err;
	size_t n = strlen(kinds);
	int rc = fg_days_search_runs(&d, n, 0, n - 1, NULL, judge, &p, &err);
	CHECK(rc == 0);
	if (rc)
		return FG_DAYS_GOOD_NOT_FAST;
	enum fg_days_outcome o = fg_days_result(d);
	*fast = o == FG_DAYS_FOUND ? fg_days_last_fast(d) : fg_days_good(d);
	*slow = o == FG_DAYS_FOUND ? fg_days_first_slow(d) : fg_days_bad(d);
	*judged = fg_days_step_count(d);
	CHECK_U64(p.calls, *judged); /* each run judged once */
	fg_days_free(d);
	return o;
}

static void test_cases(void)
{
	size_t f, s, j;
	CHECK(search("FFFFSSSS", &f, &s, &j) == FG_DAYS_FOUND && f == 3 && s == 4);
	/* Undecidable good end: the search starts at the first decidable run. */
	CHECK(search("??FFFSSS", &f, &s, &j) == FG_DAYS_FOUND && f == 4 && s == 5);
	/* Undecidable bad end, and both. */
	CHECK(search("FFFSSS??", &f, &s, &j) == FG_DAYS_FOUND && f == 2 && s == 3);
	CHECK(search("?FFFSSS?", &f, &s, &j) == FG_DAYS_FOUND && f == 3 && s == 4);
	/* Undecidable middles: a window of several runs. */
	CHECK(search("FFF??SSS", &f, &s, &j) == FG_DAYS_FOUND && f == 2 && s == 5);
	/* The good side's first decidable run is slow: refused, on that run. */
	CHECK(search("??SSSSSS", &f, &s, &j) == FG_DAYS_GOOD_NOT_FAST && f == 2 && j == 3);
	/* Nothing decidable at all: refused on the last tried, the bad end. */
	CHECK(search("????????", &f, &s, &j) == FG_DAYS_GOOD_NOT_FAST && f == 7 && j == 8);
	/* The bad side's first decidable run is fast, or only the good end is
	 * decidable. */
	CHECK(search("FFFFFF??", &f, &s, &j) == FG_DAYS_BAD_NOT_SLOW && s == 5);
	CHECK(search("F???????", &f, &s, &j) == FG_DAYS_BAD_NOT_SLOW && s == 1 && j == 8);
	CHECK(search("FS", &f, &s, &j) == FG_DAYS_FOUND && f == 0 && s == 1 && j == 2);
}

/* Every N and first slow position without skips; then every pattern of
 * skips of a few sizes: the answer holds the truth, every run between the
 * two answer runs is undecidable. */
static void test_exhaustive(void)
{
	char kinds[65];
	for (size_t n = 2; n <= 64; n++) {
		size_t budget = (size_t)ceil(log2((double)n)) + 2;
		for (size_t k = 1; k < n; k++) {
			for (size_t i = 0; i < n; i++)
				kinds[i] = i < k ? 'F' : 'S';
			kinds[n] = '\0';
			size_t f, s, j;
			enum fg_days_outcome o = search(kinds, &f, &s, &j);
			if (o != FG_DAYS_FOUND || f != k - 1 || s != k || j > budget) {
				CHECK(!"exact answer within the budget");
				fprintf(stderr, "N=%zu K=%zu: outcome %d, %zu-%zu, %zu judged (budget %zu)\n", n, k, o, f, s,
				        j, budget);
				return;
			}
		}
	}
	srand(9);
	for (size_t round = 0; round < 20000; round++) {
		size_t n = 2 + (size_t)rand() % 40, k = 1 + (size_t)rand() % (n - 1);
		for (size_t i = 0; i < n; i++)
			kinds[i] = rand() % 4 == 0 ? '?' : i < k ? 'F' : 'S';
		kinds[n] = '\0';
		size_t f, s, j;
		enum fg_days_outcome o = search(kinds, &f, &s, &j);
		bool ok;
		if (o == FG_DAYS_FOUND) {
			ok = f < k && k <= s && kinds[f] == 'F' && kinds[s] == 'S';
			for (size_t i = f + 1; i < s; i++)
				ok = ok && kinds[i] == '?';
		} else {
			/* Refused only when the side's nearest decidable run is wrong
			 * or none is decidable. */
			size_t first = 0, last = n - 1;
			while (first < n && kinds[first] == '?')
				first++;
			while (last > 0 && kinds[last] == '?')
				last--;
			ok = first == n || kinds[first] == 'S' || kinds[last] == 'F' || last <= first;
		}
		if (!ok) {
			CHECK(!"the answer holds the truth");
			fprintf(stderr, "%s: outcome %d, %zu-%zu\n", kinds, o, f, s);
			return;
		}
	}
}


static bool near(double a, double b)
{
	return fabs(a - b) < 1e-6;
}

/* Change points of series worked by hand (docs/bisect.md's method). */
static void test_changepoints(void)
{
	fg_days_changes c;
	fg_error err;
	fg_days_point p[12];
	/* 2.0 2.2 2.0 2.2 | 3.0 3.2 3.0 3.2, no sampling error, floor 0.05:
	 * the step at 4; the spread about the means 2.1 and 3.1 is 0.08 on
	 * 8 - 2 = 6 df, noise sqrt(0.08 / 6) = 0.11547 > 0.05, so segmented
	 * again at it: weights 75, z = 1 / sqrt(2 / 300) = sqrt(150). */
	static const double a[] = { 2.0, 2.2, 2.0, 2.2, 3.0, 3.2, 3.0, 3.2 };
	for (size_t i = 0; i < 8; i++)
		p[i] = (fg_days_point){ a[i], 0 };
	CHECK(fg_days_changepoints(&c, p, 8, 0.05, &err) == 0);
	CHECK_U64(c.n, 1);
	CHECK(near(c.noise, sqrt(0.08 / 6)) && near(c.noise_floor, 0.05) && c.noise_df == 6);
	CHECK(c.n == 1 && c.changes[0].at == 4 && c.changes[0].lo == 4 && c.changes[0].hi == 4);
	CHECK(c.n == 1 && near(c.changes[0].z, sqrt(150)) && near(c.changes[0].before, 2.1) &&
	      near(c.changes[0].after, 3.1) && near(c.changes[0].before_se, sqrt(0.08 / 6 / 4)));
	fg_days_changes_clear(&c);
	/* 2.0 2.1 2.0 | 2.5 2.1 2.6 2.5 2.6 2.5, floor 0.1: noise sqrt(0.18 / 7)
	 * (var 0.025714); z at 3 = 0.43333 / sqrt(0.025714 (1/3 + 1/6)) =
	 * 3.8216, confidence 1 - 8 erfc(3.8216 / sqrt 2) = 0.99894; z at 4 is
	 * 0.31 / 0.10757 = 2.8819 and at 5 0.41 / 0.10757 = 3.8115 (z^2 within
	 * 6.635 of 14.605), at 2 and 6 2.72 and 2.79 (not): the step is at 3,
	 * 4 or 5. */
	static const double b[] = { 2.0, 2.1, 2.0, 2.5, 2.1, 2.6, 2.5, 2.6, 2.5 };
	for (size_t i = 0; i < 9; i++)
		p[i] = (fg_days_point){ b[i], 0 };
	CHECK(fg_days_changepoints(&c, p, 9, 0.1, &err) == 0);
	CHECK(c.n == 1 && c.changes[0].at == 3 && c.changes[0].lo == 3 && c.changes[0].hi == 5);
	CHECK(c.n == 1 && fabs(c.changes[0].z - 3.8216408) < 1e-6 && fabs(c.changes[0].confidence - 0.9989395) < 1e-6);
	CHECK(near(c.noise, sqrt(0.18 / 7)) && c.noise_df == 7);
	fg_days_changes_clear(&c);
	/* No step: 2.0 2.0 2.0 2.1 2.0 2.1 at 0.1 (the best split's p is not
	 * small enough); the spread suggests 0.0516, under the floor. */
	static const double n0[] = { 2.0, 2.0, 2.0, 2.1, 2.0, 2.1 };
	for (size_t i = 0; i < 6; i++)
		p[i] = (fg_days_point){ n0[i], 0 };
	CHECK(fg_days_changepoints(&c, p, 6, 0.1, &err) == 0);
	CHECK(c.n == 0 && near(c.noise, 0.1) && c.noise_df == 5 && fabs(c.noise_estimate - 0.0516398) < 1e-6);
	fg_days_changes_clear(&c);
	/* A rise and a fix: 4 x 2.0, 4 x 3.0 (sampling 0.1), 4 x 2.0; each step
	 * described between its neighbours: z = 1 / sqrt(0.05^2 ... ) = 11.094. */
	for (size_t i = 0; i < 12; i++)
		p[i] = (fg_days_point){ i >= 4 && i < 8 ? 3.0 : 2.0, i >= 4 && i < 8 ? 0.1 : 0.05 };
	CHECK(fg_days_changepoints(&c, p, 12, 0.1, &err) == 0);
	CHECK(c.n == 2 && c.changes[0].at == 4 && c.changes[1].at == 8 && c.changes[0].lo == 4 && c.changes[0].hi == 4);
	CHECK(c.n == 2 && fabs(c.changes[0].z - 11.0940039) < 1e-6 && fabs(c.changes[1].z + 11.0940039) < 1e-6);
	fg_days_changes_clear(&c);
	CHECK(fg_days_changepoints(&c, p, 0, -1, &err) == 0 && c.n == 0);
}

/* Shares a run, negative for a run that cannot be read. */
static int judge_share(void *ctx, fg_verdict **out, size_t run, fg_error *err)
{
	const double *shares = ctx;
	fg_verdict *v = calloc(1, sizeof(*v));
	if (!v)
		return fg_error_oom(err, NULL);
	v->kind = FG_VERDICT_SKIP;
	v->basis = shares[run] < 0 ? FG_BASIS_INPUT : FG_BASIS_INTERVAL;
	v->total = shares[run] < 0 ? 0 : 1000000000;
	v->samples = (uint64_t)(shares[run] * 1e7);
	v->pooled = shares[run];
	v->phi = 1;
	*out = v;
	return 0;
}

/* --scan over runs: every run judged once, an unreadable run left out of
 * the points and inside the window when it is next to the step. */
static void test_scan(void)
{
	static const double shares[] = { 2.0, 2.1, 2.0, -1, 3.0, 3.1, 3.0, 3.1 };
	fg_days_options o;
	fg_days_options_init(&o);
	o.noise = 0.1;
	fg_days *d;
	fg_error err;
	CHECK(fg_days_scan_runs(&d, 8, 0, 7, &o, judge_share, (void *)shares, &err) == 0);
	CHECK(fg_days_result(d) == FG_DAYS_FOUND && fg_days_step_count(d) == 8);
	CHECK(fg_days_last_fast(d) == 2 && fg_days_first_slow(d) == 4 && fg_days_scan_best(d) == 4);
	CHECK(fg_days_scan_changes(d)->n == 1 && fg_days_scan_run(d, 3) == 4 && fg_days_scan_rise(d)->at == 3);
	fg_days_free(d);
	/* A fall alone is no regression. */
	static const double fall[] = { 3.0, 3.1, 3.0, 3.1, 2.0, 2.1, 2.0, 2.1 };
	CHECK(fg_days_scan_runs(&d, 8, 0, 7, &o, judge_share, (void *)fall, &err) == 0);
	CHECK(fg_days_result(d) == FG_DAYS_NO_RISE && fg_days_scan_changes(d)->n == 1 && !fg_days_scan_rise(d));
	fg_days_free(d);
}

/* The rise between the ends: exact on a clean step, none for a fall or a
 * series whose spread about the two sides is the noise. */
static void test_rise_between(void)
{
	static const fg_days_point step[] = { { 0, 0 }, { 0, 0 }, { 1, 0 }, { 1, 0 } };
	fg_days_change c;
	double noise;
	bool rose;
	fg_error err;
	/* Equal weights 1 / 0.09: z = 1 / sqrt(0.09 / 2 + 0.09 / 2) = 3.333;
	 * p = 3 erfc(3.333 / sqrt 2) / 2; the splits 1 and 3 have z 1.925,
	 * 11.11 - 3.70 > 6.63 from it: the location set is split 2 alone. */
	CHECK(!fg_days_rise_between(&rose, &c, &noise, step, 4, 0.3, &err) && rose);
	CHECK(c.at == 2 && c.lo == 2 && c.hi == 2 && noise == 0.3);
	CHECK(fabs(c.z - 1 / 0.3) < 1e-12 && fabs(c.confidence - (1 - 1.5 * erfc(1 / 0.3 / sqrt(2)))) < 1e-12);
	CHECK(c.before == 0 && c.after == 1);
	static const fg_days_point fall[] = { { 1, 0 }, { 1, 0 }, { 0, 0 }, { 0, 0 } };
	CHECK(!fg_days_rise_between(&rose, &c, &noise, fall, 4, 0.3, &err) && !rose);
	/* 0, 2, 0, 2: the best split (3) leaves a spread of 0.94 points
	 * about its sides, far above the floor: no rise at that noise. */
	static const fg_days_point zigzag[] = { { 0, 0 }, { 2, 0 }, { 0, 0 }, { 2, 0 } };
	CHECK(!fg_days_rise_between(&rose, &c, &noise, zigzag, 4, 0.1, &err) && !rose && noise > 0.9);
	CHECK(!fg_days_rise_between(&rose, &c, &noise, step, 2, 0.3, &err) && !rose);
}

/* A threshold's end that cannot be told (judge_share: every run "cannot
 * tell") scans every run; with auto_search_only it refuses. */
static void test_untold_end(void)
{
	static const double shares[] = { 2.0, 2.1, 2.0, 2.05, 3.0, 3.1, 3.0, 3.1 };
	fg_days_options o;
	fg_days_options_init(&o);
	o.noise = 0.1;
	fg_days *d;
	fg_error err;
	CHECK(fg_days_search_runs(&d, 8, 0, 7, &o, judge_share, (void *)shares, &err) == 0);
	CHECK(fg_days_result(d) == FG_DAYS_FOUND && fg_days_untold_end(d) == 0 && fg_days_step_count(d) == 8);
	CHECK(fg_days_last_fast(d) == 3 && fg_days_first_slow(d) == 4 && fg_days_window_kind(d) == FG_DAYS_WINDOW_DAY);
	fg_days_free(d);
	o.auto_search_only = true;
	CHECK(fg_days_search_runs(&d, 8, 0, 7, &o, judge_share, (void *)shares, &err) == 0);
	CHECK(fg_days_result(d) == FG_DAYS_GOOD_NOT_FAST && fg_days_untold_end(d) == SIZE_MAX);
	fg_days_free(d);
}

/* Runs of two nodes: per run the two nodes' matching samples of 7500. */
struct nodes_series {
	const uint64_t (*k)[2];
};

static int judge_nodes(void *ctx, fg_verdict **out, size_t run, fg_error *err)
{
	const struct nodes_series *ns = ctx;
	fg_verdict *v = calloc(1, sizeof(*v));
	if (!v || !(v->profiles = calloc(2, sizeof(*v->profiles))))
		return free(v), fg_error_oom(err, NULL);
	v->nprofiles = v->nread = 2;
	for (size_t i = 0; i < 2; i++) {
		v->profiles[i] = (fg_verdict_profile){ .source = strdup("n"), .read = true, .total = 7500,
			                               .samples = ns->k[run][i] };
		v->samples += ns->k[run][i];
		v->total += 7500;
	}
	fg_verdict_options o;
	fg_verdict_options_init(&o);
	o.threshold = 100; /* the judge's before --threshold auto: concluded again */
	fg_verdict_conclude(v, &o);
	*out = v;
	return 0;
}

/* --threshold auto: ends that do not separate fall back to the scan; a
 * window left by a run whose nodes disagree is narrowed by the change
 * point of the runs judged. */
static void test_auto_fallback(void)
{
	/* 10 runs at 2.5%, 10 at 3.2% (375 and 480 of 15,000): the ends are
	 * 0.35 points from the point between them, with sd about 0.21 (1.6
	 * sd, not separated); the two sides' means 0.7 apart with 10 runs
	 * each are (moving the step by one costs 0.49 / 0.046 = 10.6 > 6.63). */
	uint64_t k[20][2];
	for (size_t i = 0; i < 20; i++)
		k[i][0] = k[i][1] = i < 10 ? 375 / 2 : 240;
	for (size_t i = 0; i < 10; i++)
		k[i][1] = 375 - 375 / 2;
	struct nodes_series ns = { (const uint64_t (*)[2])k };
	fg_verdict_options vo;
	fg_verdict_options_init(&vo);
	vo.pattern = "x";
	fg_days_options o;
	fg_days_options_init(&o);
	o.auto_threshold = &vo;
	fg_days *d;
	fg_error err;
	CHECK(fg_days_search_runs(&d, 20, 0, 19, &o, judge_nodes, &ns, &err) == 0);
	CHECK(fg_days_result(d) == FG_DAYS_FOUND && fg_days_fallback(d) && !fg_days_fallback(d)->separated);
	CHECK(fg_days_last_fast(d) == 9 && fg_days_first_slow(d) == 10 && fg_days_step_count(d) == 20);
	/* Half way; each run alone is undecidable there (2.5% ± 0.42). */
	CHECK(fabs(fg_days_auto(d)->threshold - 2.85) < 1e-9 && fg_days_verdict(d, 0)->kind == FG_VERDICT_SKIP);
	fg_days_free(d);
	o.auto_search_only = true;
	CHECK(fg_days_search_runs(&d, 20, 0, 19, &o, judge_nodes, &ns, &err) == 0);
	CHECK(fg_days_result(d) == FG_DAYS_ENDS_NOT_SEPARATED && fg_days_step_count(d) == 2);
	fg_days_free(d);
	/* 8 runs at 2.0%, run 8 with nodes at 0.27% and 3.84% (phi about 48
	 * moderated: undecidable at any threshold near 3.5), 7 runs at 5.0%:
	 * the search leaves the window (7, 9]; run 8's share, 2.05%, is 2.95
	 * points from the slow side's mean against a standard deviation of
	 * about 0.8, so the change point puts the step after it. */
	uint64_t m[16][2];
	for (size_t i = 0; i < 16; i++)
		m[i][0] = m[i][1] = i < 8 ? 150 : 375;
	m[8][0] = 20;
	m[8][1] = 288;
	ns.k = (const uint64_t (*)[2])m;
	o.auto_search_only = false;
	CHECK(fg_days_search_runs(&d, 16, 0, 15, &o, judge_nodes, &ns, &err) == 0);
	CHECK(fg_days_result(d) == FG_DAYS_FOUND && fg_days_narrowed(d) && fg_days_verdict(d, 8)->kind == FG_VERDICT_SKIP);
	CHECK(fg_days_last_fast(d) == 8 && fg_days_first_slow(d) == 9 && !fg_days_fallback(d));
	fg_days_free(d);
	o.auto_search_only = true;
	CHECK(fg_days_search_runs(&d, 16, 0, 15, &o, judge_nodes, &ns, &err) == 0);
	CHECK(fg_days_result(d) == FG_DAYS_FOUND && !fg_days_narrowed(d));
	CHECK(fg_days_last_fast(d) == 7 && fg_days_first_slow(d) == 9);
	fg_days_free(d);
}

int main(void)
{
	test_auto_fallback();
	test_changepoints();
	test_scan();
	test_rise_between();
	test_untold_end();
	test_cases();
	test_exhaustive();
	return check_status("test_days");
}
