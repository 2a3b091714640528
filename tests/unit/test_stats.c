/* Unit tests of src/stats.h: the Wilson interval, the over-dispersion of
 * several profiles and the interval a verdict rests on.  The expected values
 * were computed independently (Python, the textbook formulas). */
#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#include "check.h"
#include "stats.h"

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
	/* Clamped to [0, 100]. */
	fg_stats_share_interval(&lo, &hi, 1, 10, 1.0, 30.0);
	CHECK_NEAR(lo, 0.0);
	CHECK(hi <= 100.0 && hi > 50.0);
}

int main(void)
{
	test_wilson();
	test_overdispersion();
	test_share_interval();
	return check_status("test_stats");
}
