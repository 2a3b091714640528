/* The decision rule with exact expectations: the interval (Wilson, widened
 * by the over-dispersion phi and by the run-to-run noise), every verdict and
 * every reason.  The expected numbers come from an independent
 * implementation of the same formulas (docs/bisect.md, "The decision"). */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "base/stats.h"
#include "bisect/verdict.h"

#define CHECK_NEAR(actual, expected) do { \
	double a_ = (actual), e_ = (expected); \
	check_count++; \
	if (!(fabs(a_ - e_) < 1e-8)) { \
		check_failures++; \
		fprintf(stderr, "%s:%d: %s: expected %.10f, got %.10f\n", __FILE__, __LINE__, #actual, e_, a_); \
	} \
} while (0)

static const char *const nodes[] = { "broker-0", "broker-1", "broker-2", "broker-3" };

/* A verdict of m profiles with these counts, decided with opts; a profile
 * of no samples is one left out (not read). */
static fg_verdict *decide(const uint64_t *k, const uint64_t *n, size_t m, const fg_verdict_options *o)
{
	fg_verdict *v = calloc(1, sizeof(*v));
	v->profiles = calloc(m, sizeof(*v->profiles));
	v->nprofiles = m;
	for (size_t i = 0; i < m; i++) {
		fg_verdict_profile *p = &v->profiles[i];
		p->source = strdup("x.collapsed");
		p->node = nodes[i];
		p->read = n[i] > 0;
		p->samples = k[i];
		p->total = n[i];
		p->share = fg_stats_percent(k[i], n[i]);
		v->samples += k[i];
		v->total += n[i];
	}
	fg_verdict_decide(v, o);
	return v;
}

static fg_verdict_options options(double threshold, double noise)
{
	fg_verdict_options o;
	fg_verdict_options_init(&o);
	o.pattern = "TransactionalColumnFamily";
	o.threshold = threshold;
	o.noise = noise;
	return o;
}

static void test_stats(void)
{
	double lo, hi;
	fg_stats_wilson95(&lo, &hi, 145, 5108);
	CHECK_NEAR(lo, 2.4174825120048586);
	CHECK_NEAR(hi, 3.330768117201541);
	fg_stats_wilson95(&lo, &hi, 0, 0);
	CHECK(lo == 0 && hi == 100);
	fg_dispersion d;
	fg_stats_overdispersion(&d, (const uint64_t[]){ 148, 139, 127 }, (const uint64_t[]){ 5616, 5714, 5504 }, 3);
	CHECK_NEAR(d.chi2, 1.271698728121978);
	CHECK(d.phi == 1.0);
	CHECK_U64(d.worst, 0);
	CHECK_NEAR(d.residual, 0.8516750103840262);
	/* One profile, or a share of 0: nothing to disagree about. */
	fg_stats_overdispersion(&d, (const uint64_t[]){ 5 }, (const uint64_t[]){ 10 }, 1);
	CHECK(d.phi == 1.0 && d.worst == SIZE_MAX);
	fg_stats_overdispersion(&d, (const uint64_t[]){ 0, 0 }, (const uint64_t[]){ 10, 20 }, 2);
	CHECK(d.phi == 1.0 && d.chi2 == 0.0);
	/* The interval: Wilson only, then widened by noise in quadrature. */
	fg_stats_share_interval(&lo, &hi, 525, 15000, 1.0, 0.0);
	CHECK_NEAR(lo, 3.2175987590);
	CHECK_NEAR(hi, 3.8062121878);
	fg_stats_share_interval(&lo, &hi, 525, 15000, 1.0, 0.24);
	CHECK_NEAR(lo, 2.9513484813);
	CHECK_NEAR(hi, 4.0612788362);
	/* No sample at all: anything is possible. */
	fg_stats_share_interval(&lo, &hi, 0, 0, 1.0, 0.24);
	CHECK(lo == 0 && hi == 100);
	/* A share of 0 stays at 0 below. */
	fg_stats_share_interval(&lo, &hi, 0, 5000, 1.0, 0.24);
	CHECK(lo == 0 && hi > 0.47);
}

static void test_fast_slow(void)
{
	fg_verdict_options o = options(4, -1);
	CHECK_NEAR(fg_verdict_noise(&o), 0.24);
	/* The real day-1 nodes (2.64%, 2.43%): fast. */
	fg_verdict *v = decide((const uint64_t[]){ 148, 139 }, (const uint64_t[]){ 5616, 5714 }, 2, &o);
	CHECK(v->kind == FG_VERDICT_FAST && v->basis == FG_BASIS_INTERVAL);
	CHECK_NEAR(v->share, 2.5330979700);
	CHECK_NEAR(v->pooled, 2.5330979700);
	CHECK_NEAR(v->phi, 1.0);
	CHECK_NEAR(v->interval_lo, 1.9889062592);
	CHECK_NEAR(v->interval_hi, 3.0941588273);
	CHECK(!v->noise_given && v->disagreeing == SIZE_MAX);
	CHECK_STR(v->reason, "the whole interval is below 4%");
	fg_verdict_free(v);
	/* A regressed pair (6.57%, 7.11%): slow; chi2 1.38 on one degree of freedom,
	 * phi 1.08 moderated toward 1 (FG_VERDICT_PHI_PRIOR_DF 4: (1.38 + 4) / 5). */
	v = decide((const uint64_t[]){ 445, 390 }, (const uint64_t[]){ 6775, 5489 }, 2, &o);
	CHECK(v->kind == FG_VERDICT_SLOW && v->basis == FG_BASIS_INTERVAL);
	CHECK_NEAR(v->phi, 1.0754747356);
	CHECK_NEAR(v->interval_lo, 6.1589993063);
	CHECK_NEAR(v->interval_hi, 7.4784834082);
	CHECK_STR(v->reason, "the whole interval is at or above 4%");
	fg_verdict_free(v);
	/* At the threshold: cannot tell. */
	v = decide((const uint64_t[]){ 200, 200, 200 }, (const uint64_t[]){ 5000, 5000, 5000 }, 3, &o);
	CHECK(v->kind == FG_VERDICT_SKIP && v->basis == FG_BASIS_INTERVAL);
	CHECK_STR(v->reason, "cannot tell: the interval 3.44-4.57% holds the threshold 4%");
	CHECK(fg_verdict_exit_status(v) == 125);
	fg_verdict_free(v);
}

static void test_noise(void)
{
	/* 3.5%: fast on sampling alone, undecidable once a run's shared noise
	 * of 0.24 points is allowed for. */
	const uint64_t k[] = { 175, 175, 175 }, n[] = { 5000, 5000, 5000 };
	fg_verdict_options o = options(4, 0);
	fg_verdict *v = decide(k, n, 3, &o);
	CHECK(v->kind == FG_VERDICT_FAST && v->noise_given && v->noise == 0);
	CHECK_NEAR(v->interval_hi, 3.8062121878);
	fg_verdict_free(v);
	o = options(4, 0.24);
	v = decide(k, n, 3, &o);
	CHECK(v->kind == FG_VERDICT_SKIP && v->basis == FG_BASIS_INTERVAL && v->noise_given);
	/* What would decide it 0.50 points from 4% (Python: z = 1.959964;
	 * ceil(z^2 * 3.5 * 96.5 / (0.5^2 - z^2 * 0.24^2)) = 45158); 0.40 points
	 * from 3.9% the noise alone holds the threshold. */
	CHECK_STR(v->reason, "cannot tell: the interval 2.95-4.06% holds the threshold 4%; 0.50 pp from the threshold: "
	                     "about 45158 samples in all would decide");
	CHECK_NEAR(v->samples_needed, 45158);
	CHECK(v->captures_needed == 0);
	fg_verdict_free(v);
	o = options(3.9, 0.24);
	v = decide(k, n, 3, &o);
	CHECK(v->kind == FG_VERDICT_SKIP && isinf(v->samples_needed));
	CHECK_STR(v->reason, "cannot tell: the interval 2.95-4.06% holds the threshold 3.9%; 0.40 pp from the threshold: "
	                     "more samples cannot decide (the run-to-run noise 0.24 pp alone holds it)");
	fg_verdict_free(v);
	/* The default is 6% of the threshold: 0.24 at 4%, the same verdict. */
	o = options(4, -1);
	v = decide(k, n, 3, &o);
	CHECK(v->kind == FG_VERDICT_SKIP && !v->noise_given);
	CHECK_NEAR(v->noise, 0.24);
	fg_verdict_free(v);
}

/* Three captures of one commit at look 3 of 3: their spread moderates the
 * assumed noise, and the look's boundary becomes a t.  Python: shares 3.50,
 * 3.77, 3.52 of 20,000; between = var(shares) - mean(p (100 - p) / n) =
 * 0.072784^2; tau^2 = (4 * 0.24^2 + 2 between) / 6; noise = tau / sqrt(3) =
 * 0.1157092; df = 6^2 / 2 = 18 (the spread's chi-square of 2 weighted 2/6). */
static void test_captures(void)
{
	fg_verdict_options o = options(4, -1);
	const uint64_t k[] = { 700, 754, 704 }, n[] = { 20000, 20000, 20000 };
	double z[3];
	CHECK(fg_stats_spending_bounds(z, 3, 0.05) == 0);
	fg_verdict *v = decide(k, n, 3, &o); /* as nodes of one run, then as captures */
	v->nread = v->captures = v->looks = 3;
	v->look_z = z[2];
	fg_verdict_decide(v, &o);
	CHECK(fabs(v->noise_estimate - 0.0727843) < 1e-6);
	CHECK(fabs(v->noise - 0.1157092) < 1e-6);
	CHECK_NEAR(v->noise_df, 18);
	CHECK(fabs(v->z - fg_stats_t_two_sided(erfc(z[2] / sqrt(2.0)), 18)) < 1e-9);
	CHECK(v->z > z[2] && v->z > fg_stats_t975(18)); /* the look is stricter than 95% */
	CHECK(v->kind == FG_VERDICT_FAST && v->phi == 1);
	/* At 3.8% (the noise given as 0.24, as the default was at 4%) it
	 * cannot tell; about ceil(1.96^2 (3.59667 * 96.40333 / 20000 + 3 *
	 * 0.1157092^2) / 0.20333^2) = ceil(5.34) = 6 captures would decide. */
	o = options(3.8, 0.24);
	fg_verdict_decide(v, &o);
	CHECK(v->kind == FG_VERDICT_SKIP && v->captures_needed == 6 && v->samples_needed == 0);
	CHECK(strstr(v->reason, "; 0.20 pp from the threshold: about 6 captures would decide") != NULL);
	fg_verdict_free(v);
}

static void test_nodes(void)
{
	/* One broker at 5.2% and two at 2.6%: pooled 3.47%, fast on sampling
	 * alone (hi 3.76%), but chi2 67.3 (phi (67.3 + 4) / (2 + 4) = 11.9) widens
	 * the interval over 4%, and the reason names the node. */
	fg_verdict_options o = options(4, 0);
	fg_verdict *v = decide((const uint64_t[]){ 130, 130, 260 }, (const uint64_t[]){ 5000, 5000, 5000 }, 3, &o);
	CHECK(v->kind == FG_VERDICT_SKIP && v->basis == FG_BASIS_NODES);
	CHECK_NEAR(v->phi, 11.8890423573);
	CHECK_NEAR(v->interval_lo, 2.5901853231);
	CHECK_NEAR(v->interval_hi, 4.6256526903);
	CHECK_U64(v->disagreeing, 2);
	CHECK_STR(v->reason, "broker-2 5.20% disagrees with the other nodes (2.60%, phi 11.9): the interval 2.59-4.63% "
	                     "holds the threshold 4%");
	fg_verdict_free(v);
	/* Decided all the same far from the threshold: the verdict says so. */
	o = options(1, 0);
	v = decide((const uint64_t[]){ 130, 130, 260 }, (const uint64_t[]){ 5000, 5000, 5000 }, 3, &o);
	CHECK(v->kind == FG_VERDICT_SLOW);
	CHECK_STR(v->reason, "the whole interval is at or above 1%; broker-2 5.20% disagrees with the other nodes "
	                     "(2.60%, phi 11.9)");
	fg_verdict_free(v);
	/* Two nodes that disagree: the interval widens, no node is named. */
	o = options(4, 0);
	v = decide((const uint64_t[]){ 130, 260 }, (const uint64_t[]){ 5000, 5000 }, 2, &o);
	CHECK(v->kind == FG_VERDICT_SKIP && v->basis == FG_BASIS_INTERVAL && v->disagreeing == SIZE_MAX);
	CHECK_NEAR(v->phi, 9.8183836282);
	/* Python: ceil(z^2 * 9.8183836282 * 3.9 * 96.1 / 0.1^2) = 1413593. */
	CHECK_STR(v->reason, "cannot tell: the interval 2.87-5.27% holds the threshold 4%; 0.10 pp from the threshold: "
	                     "about 1413593 samples in all would decide");
	fg_verdict_free(v);
}

/* Three nodes whose chi2 on two degrees of freedom is 7.94 (sampling alone
 * gives that one build in fifty): phi 3.97 at face value skipped this
 * build 1.2 points below 4% at 1,000 samples a node; moderated, phi is
 * 1.99 and it is fast. */
static void test_phi_moderated(void)
{
	fg_verdict_options o = options(4, -1);
	const uint64_t k[] = { 16, 34, 34 }, n[] = { 1000, 1000, 1000 };
	fg_dispersion d;
	fg_stats_overdispersion(&d, k, n, 3);
	CHECK_NEAR(d.chi2, 7.9365079365);
	fg_verdict *v = decide(k, n, 3, &o);
	CHECK_NEAR(v->phi, (d.chi2 + 4) / 6);
	CHECK(v->kind == FG_VERDICT_FAST && v->disagreeing == SIZE_MAX);
	double lo, hi;
	fg_stats_share_interval(&lo, &hi, 84, 3000, d.phi, 0.24);
	CHECK(hi >= 4); /* face value: cannot tell */
	fg_verdict_free(v);
}

/* Partial runs: how many profiles a verdict needs, and a decision on the
 * profiles read that skips the one left out (its counts, its index). */
static void test_partial(void)
{
	fg_verdict_options o = options(4, 0);
	size_t want[][2] = { { 1, 1 }, { 2, 2 }, { 3, 2 }, { 4, 3 }, { 5, 3 }, { 6, 4 }, { 9, 5 } };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK_U64(fg_verdict_min_nodes(&o, want[i][0]), want[i][1]);
	o.min_nodes = 1;
	CHECK_U64(fg_verdict_min_nodes(&o, 3), 1);
	o.min_nodes = 5;
	CHECK_U64(fg_verdict_min_nodes(&o, 3), 3);
	/* test_nodes' three brokers with a fourth, left out, second in line:
	 * the same phi and interval, and the node named is the fourth entry. */
	o = options(4, 0);
	fg_verdict *v = decide((const uint64_t[]){ 130, 0, 130, 260 }, (const uint64_t[]){ 5000, 0, 5000, 5000 }, 4,
	                       &o);
	CHECK(v->kind == FG_VERDICT_SKIP && v->basis == FG_BASIS_NODES);
	CHECK_NEAR(v->phi, 11.8890423573);
	CHECK_NEAR(v->interval_hi, 4.6256526903);
	CHECK_U64(v->disagreeing, 3);
	/* A point aggregate: the median of the three read, not of four. */
	o.aggregate = FG_AGGREGATE_MEDIAN;
	fg_verdict_decide(v, &o);
	CHECK_NEAR(v->share, 2.6);
	fg_verdict_free(v);
}

static void test_margin_and_point(void)
{
	/* The slow pair's interval starts 2.12 points above 4%: a margin of 3
	 * makes it a skip, a margin of 2 does not. */
	const uint64_t k[] = { 445, 390 }, n[] = { 6775, 5489 };
	fg_verdict_options o = options(4, -1);
	o.margin = 3;
	fg_verdict *v = decide(k, n, 2, &o);
	CHECK(v->kind == FG_VERDICT_SKIP && v->basis == FG_BASIS_MARGIN);
	CHECK_STR(v->reason, "the interval 6.16-7.48% is within the margin 3 of the threshold 4%");
	fg_verdict_free(v);
	o.margin = 2;
	v = decide(k, n, 2, &o);
	CHECK(v->kind == FG_VERDICT_SLOW);
	fg_verdict_free(v);
	/* A point aggregate: the median alone, as the old rule judged. */
	o = options(4, -1);
	CHECK(fg_aggregate_parse(&o.aggregate, "median") && o.aggregate == FG_AGGREGATE_MEDIAN);
	v = decide((const uint64_t[]){ 200, 190, 210 }, (const uint64_t[]){ 5000, 5000, 5000 }, 3, &o);
	CHECK(v->kind == FG_VERDICT_SLOW && v->basis == FG_BASIS_POINT);
	CHECK_NEAR(v->share, 4.0);
	CHECK_STR(v->reason, "median share 4.00% >= threshold 4%");
	fg_verdict_free(v);
	CHECK(fg_aggregate_parse(&o.aggregate, "min"));
	o.margin = 0.5;
	v = decide((const uint64_t[]){ 200, 190, 210 }, (const uint64_t[]){ 5000, 5000, 5000 }, 3, &o);
	CHECK(v->kind == FG_VERDICT_SKIP && v->basis == FG_BASIS_MARGIN);
	CHECK_STR(v->reason, "min share 3.80% is within the margin 0.5 of the threshold 4%");
	fg_verdict_free(v);
	CHECK(!fg_aggregate_parse(&o.aggregate, "average"));
	CHECK_STR(fg_aggregate_name(FG_AGGREGATE_POOLED), "pooled");
	CHECK_STR(fg_verdict_basis_name(FG_BASIS_NODES), "nodes");
}

static void test_noise_estimate(void)
{
	/* Three fast runs at 2.0, 2.5 and 3.0% of 10,000 samples: variance 0.25
	 * between them, less their sampling variance; the one slow run and the
	 * skip add nothing. */
	fg_verdict_options o = options(4, 0);
	const uint64_t n[] = { 10000 };
	fg_verdict *v[5] = {
		decide((const uint64_t[]){ 200 }, n, 1, &o), decide((const uint64_t[]){ 250 }, n, 1, &o),
		decide((const uint64_t[]){ 300 }, n, 1, &o), decide((const uint64_t[]){ 700 }, n, 1, &o),
		decide((const uint64_t[]){ 400 }, n, 1, &o),
	};
	CHECK(v[3]->kind == FG_VERDICT_SLOW && v[4]->kind == FG_VERDICT_SKIP);
	fg_noise_estimate e;
	fg_verdict_noise_estimate(&e, (const fg_verdict *const *)v, 5);
	CHECK_NEAR(e.noise, 0.4749362141030704);
	CHECK_U64(e.runs, 3);
	CHECK_U64(e.df, 2);
	/* One run a side: no estimate. */
	const fg_verdict *two[] = { v[0], v[3] };
	fg_verdict_noise_estimate(&e, two, 2);
	CHECK(e.df == 0 && e.noise == 0);
	/* Runs that agree better than sampling: 0, not a negative variance. */
	const fg_verdict *same[] = { v[1], v[1], v[1] };
	fg_verdict_noise_estimate(&e, same, 3);
	CHECK(e.df == 2 && e.noise == 0);
	for (int i = 0; i < 5; i++)
		fg_verdict_free(v[i]);
}

int main(void)
{
	test_noise_estimate();
	test_stats();
	test_fast_slow();
	test_noise();
	test_captures();
	test_nodes();
	test_phi_moderated();
	test_partial();
	test_margin_and_point();
	return check_status("test_verdict");
}
