/* fgbisect — sample statistics: the Wilson interval of a share, the
 * over-dispersion of several profiles' counts, and the interval a verdict
 * rests on (sampling, disagreement between nodes, run-to-run noise). */
#ifndef FG_STATS_H
#define FG_STATS_H

#include <stddef.h>
#include <stdint.h>

/* z of a two-sided 95% interval. */
#define FG_Z95 1.959963984540054

/* The 95% Wilson score interval of k successes in n trials, in percent.
 * n == 0 gives [0, 100]. */
void fg_stats_wilson95(double *lo, double *hi, uint64_t k, uint64_t n);

/* The same for fractional (effective) counts: k = K/phi, n = N/phi is the
 * Wilson interval widened by about sqrt(phi).  n <= 0 gives [0, 100]. */
void fg_stats_wilson95_real(double *lo, double *hi, double k, double n);

/* 100 * part / whole, 0 when whole is 0. */
double fg_stats_percent(uint64_t part, uint64_t whole);

/* Pearson's chi-square of m profiles' counts (k[i] matching of n[i]) against
 * their pooled share, and the over-dispersion phi = max(1, chi2 / (m - 1)):
 * how much more the profiles disagree than sampling alone explains.  phi is
 * 1 for fewer than two profiles, or when the pooled share is 0 or 100%. */
typedef struct fg_dispersion {
	double chi2;
	double phi;
	size_t worst;     /* the profile with the largest standardised residual, SIZE_MAX when m < 2 */
	double residual;  /* its residual (k - n p) / sqrt(n p (1 - p)), signed */
} fg_dispersion;

void fg_stats_overdispersion(fg_dispersion *out, const uint64_t *k, const uint64_t *n, size_t m);

/* The 95% interval of a run's share, in percent, around the pooled share
 * 100 K / N: the Wilson interval of the counts divided by phi, each side
 * widened in quadrature by z * noise (noise: the standard deviation of a
 * run's share around the build's, in percentage points), clamped to
 * [0, 100]. */
void fg_stats_share_interval(double *lo, double *hi, uint64_t k, uint64_t n, double phi, double noise);

#endif
