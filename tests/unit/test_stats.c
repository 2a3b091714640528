/* Unit tests of src/base/stats.h: the Wilson interval, the over-dispersion of
 * several profiles, the interval a verdict rests on, and the mean of an
 * autocorrelated series with the interval of a ratio of two.  The expected
 * values were computed independently (Python, the textbook formulas). */
#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#include "check.h"
#include "base/stats.h"

#define CHECK_NEAR(actual, expected) CHECK(fabs((actual) - (expected)) < 1e-9)

static void test_wilson(void)
{
	double lo, hi;
	/* The bundled example: healthy 145 of 5,108, regressed 390 of 5,489. */
	fg_stats_wilson95(&lo, &hi, 145, 5108);
	CHECK_NEAR(lo, 2.417482512005);
	CHECK_NEAR(hi, 3.330768117202);
	fg_stats_wilson95(&lo, &hi, 390, 5489);
	CHECK_NEAR(lo, 6.455047457608);
	CHECK_NEAR(hi, 7.815188898148);
	/* The ends: never outside [0, 100], never empty. */
	fg_stats_wilson95(&lo, &hi, 0, 10);
	CHECK_NEAR(lo, 0.0);
	CHECK_NEAR(hi, 27.753279986289);
	fg_stats_wilson95(&lo, &hi, 10, 10);
	CHECK_NEAR(lo, 72.246720013711);
	CHECK_NEAR(hi, 100.0);
	fg_stats_wilson95(&lo, &hi, 0, 0);
	CHECK_NEAR(lo, 0.0);
	CHECK_NEAR(hi, 100.0);
	CHECK_NEAR(fg_stats_percent(145, 5108), 100.0 * 145 / 5108);
	CHECK_NEAR(fg_stats_percent(3, 0), 0.0);
}

static void test_overdispersion(void)
{
	fg_dispersion d;
	const uint64_t k[] = { 10, 20, 40 }, n[] = { 100, 100, 100 };
	fg_stats_overdispersion(&d, k, n, 3);
	CHECK_NEAR(d.chi2, 26.086956521739);
	CHECK_NEAR(d.phi, 13.043478260870);
	CHECK_U64(d.worst, 2);
	CHECK_NEAR(d.residual, 3.940552031195504);
	/* Agreeing profiles: no over-dispersion below sampling. */
	const uint64_t k2[] = { 20, 20 }, n2[] = { 100, 100 };
	fg_stats_overdispersion(&d, k2, n2, 2);
	CHECK_NEAR(d.chi2, 0.0);
	CHECK_NEAR(d.phi, 1.0);
	/* One profile: nothing to compare. */
	fg_stats_overdispersion(&d, k, n, 1);
	CHECK_NEAR(d.phi, 1.0);
	CHECK_U64(d.worst, SIZE_MAX);
	/* A share of 0: phi stays 1. */
	const uint64_t k0[] = { 0, 0 };
	fg_stats_overdispersion(&d, k0, n2, 2);
	CHECK_NEAR(d.phi, 1.0);
}

static void test_share_interval(void)
{
	double lo, hi, wlo, whi;
	/* phi 1 and no noise: the Wilson interval itself. */
	fg_stats_share_interval(&lo, &hi, 145, 5108, 1.0, 0.0);
	fg_stats_wilson95(&wlo, &whi, 145, 5108);
	CHECK_NEAR(lo, wlo);
	CHECK_NEAR(hi, whi);
	/* phi 2: the counts halved; noise 0.5 pp: each side widened in
	 * quadrature by z * 0.5 around the pooled share. */
	fg_stats_share_interval(&lo, &hi, 145, 5108, 2.0, 0.5);
	CHECK_NEAR(lo, 1.701627287291);
	CHECK_NEAR(hi, 4.053732171561);
	/* At another z: the same at FG_Z95, wider at 3. */
	fg_stats_share_interval_z(&wlo, &whi, 145, 5108, 2.0, 0.5, FG_Z95);
	CHECK_NEAR(wlo, lo);
	CHECK_NEAR(whi, hi);
	fg_stats_share_interval_z(&wlo, &whi, 145, 5108, 2.0, 0.5, 3.0);
	CHECK(wlo < lo - 0.3 && whi > hi + 0.3);
	/* Clamped to [0, 100]. */
	fg_stats_share_interval(&lo, &hi, 1, 10, 1.0, 30.0);
	CHECK_NEAR(lo, 0.0);
	CHECK(hi <= 100.0 && hi > 50.0);
}

static void series_is(const double *x, size_t n, size_t k, double mean, double sd, double r1, double neff, double se)
{
	fg_series_mean m;
	fg_stats_series_mean(&m, x, n);
	CHECK_U64(m.n, k);
	CHECK_NEAR(m.mean, mean);
	CHECK_NEAR(m.sd, sd);
	CHECK_NEAR(m.r1, r1);
	CHECK_NEAR(m.neff, neff);
	CHECK_NEAR(m.se, se);
}

/* Python: n = len(x); m = sum(x)/n; d = [v - m for v in x]; sq = sum(v*v for v in d);
 * sd = sqrt(sq/(n-1)); r = sum(d[i]*d[i+1] for i in range(n-1))/sq;
 * neff = min(n, max(1, n*(1-r)/(1+r))); se = sd/sqrt(neff). */
static void test_series_mean(void)
{
	/* Positively autocorrelated: r 27/56, neff 8 (29/56)/(83/56) = 232/83. */
	static const double up[] = { 1, 2, 4, 3, 5, 7, 6, 8 };
	series_is(up, 8, 8, 4.5, sqrt(6.0), 0.48214285714285715, 2.7951807228915659, 1.4651115057011637);
	/* NaN and infinities are skipped; their neighbours become lag-1 pairs. */
	static const double gaps[] = { 1, NAN, 2, 4, INFINITY, 3, 5, 7, -INFINITY, 6, 8 };
	series_is(gaps, 11, 8, 4.5, sqrt(6.0), 0.48214285714285715, 2.7951807228915659, 1.4651115057011637);
	/* Alternating: r = -5/6 would give neff 66 for 6 points: clamped to n. */
	static const double alt[] = { 1, 3, 1, 3, 1, 3 };
	series_is(alt, 6, 6, 2, 1.0954451150103321, -0.83333333333333337, 6, 0.44721359549995793);
	/* A trend: r 0.7, neff 10 (0.3/1.7). */
	static const double trend[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	series_is(trend, 10, 10, 5.5, 3.0276503540974917, 0.7, 1.7647058823529416, 2.2791323885295571);
	/* Two points: no lag-1 estimate, neff = n. */
	static const double two[] = { 2, 4 };
	series_is(two, 2, 2, 3, sqrt(2.0), 0, 2, 1);
	/* Constant, and constant up to float rounding: exactly no spread. */
	static const double flat[] = { 3, 3, 3, 3, 3 };
	series_is(flat, 5, 5, 3, 0, 0, 5, 0);
	static const double rounded[] = { 3, 3 + 3e-12, 3, 3 - 3e-12, 3 };
	fg_series_mean m;
	fg_stats_series_mean(&m, rounded, 5);
	CHECK(m.sd == 0 && m.se == 0 && m.r1 == 0 && m.neff == 5);
	static const double none[] = { NAN, NAN };
	fg_stats_series_mean(&m, none, 2);
	CHECK(m.n == 0 && m.mean == 0 && m.neff == 0 && m.se == 0);
	/* The most autocorrelated shape (half a cosine): neff falls towards 1,
	 * not below; the clamp at 1 is a guard for this estimator. */
	double cosine[100];
	for (int i = 0; i < 100; i++)
		cosine[i] = 10 + cos(M_PI * (i + 0.5) / 100);
	fg_stats_series_mean(&m, cosine, 100);
	CHECK_NEAR(m.neff, 1.0350283538205882);
	CHECK(m.neff >= 1);
}

/* Python, independently of the C: t975 by bisection on 1/2 - the integral of
 * Student's density (Simpson, 20000 steps); welch(v1, d1, v2, d2) =
 * (v1 + v2)^2 / (v1^2/d1 + v2^2/d2). */
static void test_t(void)
{
	/* The table: 12.7062047361747, 4.30265272974946, 3.18244630528371, 2.22813885198627. */
	CHECK_NEAR(fg_stats_t975(1), 12.7062047361747);
	CHECK_NEAR(fg_stats_t975(2), 4.30265272974946);
	CHECK_NEAR(fg_stats_t975(3), 3.18244630528371);
	CHECK_NEAR(fg_stats_t975(10), 2.22813885198627);
	CHECK_NEAR(fg_stats_t975(2.5), 3.5746548420037385);
	/* Below 1 (and NaN) as 1; infinite: z. */
	CHECK_NEAR(fg_stats_t975(0.5), 12.7062047361747);
	CHECK_NEAR(fg_stats_t975(NAN), 12.7062047361747);
	CHECK(fg_stats_t975(INFINITY) == FG_Z95);
	/* Any two-sided p: t975 itself, the tables' t(0.01, 5) 4.0321 and
	 * t(0.001, 10) 4.5869, the normal's z(0.01) 2.5758; the ends. */
	CHECK_NEAR(fg_stats_t_two_sided(0.05, 10), 2.22813885198627);
	CHECK(fabs(fg_stats_t_two_sided(0.01, 5) - 4.032143) < 1e-5);
	CHECK(fabs(fg_stats_t_two_sided(0.001, 10) - 4.586894) < 1e-5);
	CHECK(fabs(fg_stats_t_two_sided(0.01, INFINITY) - 2.575829) < 1e-5);
	CHECK(fg_stats_t_two_sided(1, 5) == 0 && isinf(fg_stats_t_two_sided(0, 5)));
}

static uint64_t rng_state = 42;

static double rng_normal(void)
{
	double u[2];
	for (int i = 0; i < 2; i++) {
		uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
		z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
		z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
		u[i] = ((double)((z ^ (z >> 31)) >> 11) + 0.5) / 9007199254740992.0;
	}
	return sqrt(-2 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

/* The boundaries against a simulation of the test they make: 400,000 sums
 * of three N(0, 1) increments, each look's |S_k| / sqrt(k) against z[k-1]:
 * 5% stop in all (standard error 0.03%), alpha / 27 of them at the first
 * look (the power family's t^3), and one look is z itself. */
static void test_spending(void)
{
	double z[3];
	CHECK(fg_stats_spending_bounds(z, 1, 0.05) == 0);
	CHECK_NEAR(z[0], FG_Z95);
	CHECK(fg_stats_spending_bounds(z, 3, 0.05) == 0);
	CHECK(fabs(z[0] - 3.1130) < 1e-3 && fabs(z[1] - 2.4619) < 1e-3 && fabs(z[2] - 2.0087) < 1e-3);
	size_t stopped[3] = { 0, 0, 0 }, n = 400000;
	for (size_t r = 0; r < n; r++) {
		double s = 0;
		for (size_t k = 1; k <= 3; k++) {
			s += rng_normal();
			if (fabs(s) / sqrt((double)k) >= z[k - 1]) {
				stopped[k - 1]++;
				break;
			}
		}
	}
	double all = (double)(stopped[0] + stopped[1] + stopped[2]) / (double)n;
	CHECK(fabs(all - 0.05) < 0.0015);
	CHECK(fabs((double)stopped[0] / (double)n - 0.05 / 27) < 0.0003);
}

static void test_ratio_interval(void)
{
	double lo, hi;
	/* Log scale: 1.2 exp(±t975(welch(0.02^2, 9, 0.025^2, 19)) hypot(0.02, 0.025)),
	 * Welch df 27.404995709791216. */
	fg_stats_ratio_interval95(&lo, &hi, &(fg_estimate){ 100, 2, 9 }, &(fg_estimate){ 120, 3, 19 });
	CHECK_NEAR(lo, 1.1237556363110839);
	CHECK_NEAR(hi, 1.2814173771150472);
	/* No uncertainty: exactly the ratio. */
	fg_stats_ratio_interval95(&lo, &hi, &(fg_estimate){ 12, 0, INFINITY }, &(fg_estimate){ 15, 0, INFINITY });
	CHECK(lo == 15.0 / 12 && hi == 15.0 / 12);
	/* A zero or negative mean: the delta method on the ratio itself; with
	 * exact degrees of freedom (infinite), z. */
	fg_stats_ratio_interval95(&lo, &hi, &(fg_estimate){ 100, 2, INFINITY }, &(fg_estimate){ 0, 1, INFINITY });
	CHECK_NEAR(lo, -0.01959963984540054);
	CHECK_NEAR(hi, 0.01959963984540054);
	/* -0.5 ± t975(5.882352941176471) sqrt(0.01 + 0.0025). */
	fg_stats_ratio_interval95(&lo, &hi, &(fg_estimate){ -50, 5, 4 }, &(fg_estimate){ 25, 5, 4 });
	CHECK_NEAR(lo, -0.77490484797876924);
	CHECK_NEAR(hi, -0.22509515202123076);
	/* A / B: se sqrt(0.3^2 + (15/12 0.2)^2) / 12, df welch(0.3^2/144, 9, (1.25 0.2)^2/144, 4). */
	fg_estimate q;
	fg_stats_ratio(&q, &(fg_estimate){ 15, 0.3, 9 }, &(fg_estimate){ 12, 0.2, 4 });
	CHECK(q.value == 1.25);
	CHECK_NEAR(q.se, 0.032542706982944397);
	CHECK_NEAR(q.df, 12.393005828476269);
	fg_stats_ratio(&q, &(fg_estimate){ 15, 0, INFINITY }, &(fg_estimate){ 12, 0, INFINITY });
	CHECK(q.se == 0 && isinf(q.df));
	/* Two series that move together: K mean(a) / mean(b) with the se of the
	 * linearised series z = R + K (a - ma)/mb - R (b - mb)/mb (Python as in
	 * test_series_mean on z: r -1/2, neff clamped to 8); taken as
	 * independent the se would be 146.022. */
	static const double sa[] = { 10, 12, 11, 13, 12, 14, 13, 15 }, sb[] = { 5, 6, 5.5, 6.4, 6, 7.1, 6.4, 7.6 };
	double z[8];
	fg_stats_ratio_series(&q, z, sa, sb, 8, 1000);
	CHECK_NEAR(q.value, 2000);
	CHECK_NEAR(q.se, 8.5523597411975647);
	CHECK_NEAR(q.df, 7);
	CHECK_NEAR(z[0], 2000);
	static const double flat_a[] = { 3, 3, 3, 3, 3 }, flat_b[] = { 2, 2, 2, 2, 2 };
	fg_stats_ratio_series(&q, z, flat_a, flat_b, 5, 1);
	CHECK(q.value == 1.5 && q.se == 0 && isinf(q.df));
	/* One exact side: the other's degrees of freedom. */
	fg_stats_ratio(&q, &(fg_estimate){ 15, 0.3, 9 }, &(fg_estimate){ 12, 0, INFINITY });
	CHECK_NEAR(q.df, 9);
}

int main(void)
{
	test_series_mean();
	test_t();
	test_spending();
	test_ratio_interval();
	test_wilson();
	test_overdispersion();
	test_share_interval();
	return check_status("test_stats");
}
