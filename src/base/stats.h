/* fgbisect — sample statistics: the Wilson interval of a share, the
 * over-dispersion of several profiles' counts, the interval a verdict
 * rests on (sampling, disagreement between nodes, run-to-run noise), and the
 * mean of an autocorrelated series with its standard error and the interval
 * of a ratio of two such means (the metrics, docs/metrics.md). */
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

/* An over-dispersion estimate chi2 / df moderated toward phi0 as if phi0
 * came with prior_df degrees of freedom of its own (the empirical-Bayes
 * variance of Smyth's limma): (chi2 + prior_df phi0) / (df + prior_df), at
 * least 1.  Few profiles give a phi that is large by chance; this keeps it
 * near phi0 unless they disagree clearly. */
double fg_stats_phi_moderated(double chi2, double df, double phi0, double prior_df);

/* The standard error, in points, of the change of a share from xb of nb
 * samples to xc of nc: sqrt(phi p (1 - p) (1/nb + 1/nc) + 2 (c p (1 - p))^2),
 * p = (xb + xc) / (nb + nc) the pooled share, phi the over-dispersion and c
 * the run-to-run noise as a fraction of p (1 - p) a side (0: none).  Both
 * sides must have samples. */
double fg_stats_change_noise(double xb, double nb, double xc, double nc, double phi, double c);

/* The 95% interval of a run's share, in percent, around the pooled share
 * 100 K / N: the Wilson interval of the counts divided by phi, each side
 * widened in quadrature by z * noise (noise: the standard deviation of a
 * run's share around the build's, in percentage points), clamped to
 * [0, 100]. */
void fg_stats_share_interval(double *lo, double *hi, uint64_t k, uint64_t n, double phi, double noise);

/* fg_stats_share_interval at z standard deviations instead of FG_Z95 (a
 * group-sequential look's boundary, a t quantile). */
void fg_stats_share_interval_z(double *lo, double *hi, uint64_t k, uint64_t n, double phi, double noise, double z);

/* The mean of the finite values of x[0..n) (NaN and infinities skipped)
 * and its standard error under lag-1 autocorrelation: points of a
 * Prometheus range query of rate() overlap in time, so n points carry the
 * information of fewer independent ones.  neff = n (1 - r1) / (1 + r1),
 * clamped to [1, n] (a negative r1 does not make the mean more precise than
 * independent points); se = sd / sqrt(neff).  A constant series has sd = 0,
 * r1 = 0, neff = n, se = 0 exactly; so has one whose points agree to within
 * FG_STATS_ROUNDING of its mean (a relative SD that small is the rounding of
 * the float arithmetic that made the points, e.g. rate() over a counter). */
#define FG_STATS_ROUNDING 1e-9
typedef struct fg_series_mean {
	size_t n;    /* finite points */
	double mean; /* 0 when n is 0 */
	double sd;   /* sample standard deviation (divisor n - 1); 0 for n < 2 */
	double r1;   /* lag-1 autocorrelation of the finite points in order; 0 for n < 3 or sd = 0 */
	double neff; /* effective sample size, in [1, n] (0 when n is 0) */
	double se;   /* standard error of the mean */
} fg_series_mean;

void fg_stats_series_mean(fg_series_mean *out, const double *x, size_t n);

/* An estimate, its standard error and the degrees of freedom of that error
 * (INFINITY when se is exact; a series' mean: neff - 1). */
typedef struct fg_estimate {
	double value, se, df;
} fg_estimate;

/* The 0.975 quantile of Student's t with df degrees of freedom (df real;
 * below 1, or NaN, taken as 1: 12.706; infinite: FG_Z95). */
double fg_stats_t975(double df);

/* The t with P(|T| > t) = p for Student's t with df degrees of freedom (df
 * real; below 1 taken as 1; above 1e7 or infinite: the normal's z).  p >= 1
 * gives 0, p <= 0 infinity. */
double fg_stats_t_two_sided(double p, double df);

/* The two-sided boundaries z[0..looks) of a group-sequential test of a
 * normal mean with equal information at each look (alpha spending, Kim
 * and DeMets' power family with rho 3: alpha t^3 spent by information
 * t = k / looks, near O'Brien-Fleming's): a standardised statistic beyond
 * +-z[k-1] at look k stops, and the chance of stopping at any look when
 * the mean is 0 is alpha (alpha / 2 a side).  Early looks are strict, the
 * last one near z_(alpha/2) (1 look: exactly it; 3 at 0.05: 3.11, 2.46,
 * 2.01).  Computed by recursive numerical integration (Armitage, McPherson
 * and Rowe), O(looks^3) for looks <= 100; -1 when out of memory. */
int fg_stats_spending_bounds(double *z, size_t looks, double alpha);

/* a / b (b != 0) from independent estimates, by the delta method:
 * se = sqrt(se_a^2 + (a/b)^2 se_b^2) / |b|, df by Welch-Satterthwaite of the
 * two terms (INFINITY when se is 0). */
void fg_stats_ratio(fg_estimate *out, const fg_estimate *a, const fg_estimate *b);

/* K mean(a) / mean(b) of two series observed at the same instants (a[i] and
 * b[i] together, n pairs, finite, mean(b) != 0), with the delta method's
 * standard error that keeps their covariance: that of the mean of the
 * linearised series z[i] = R + K (a[i] - mean a) / mean b - R (b[i] - mean b)
 * / mean b, its autocorrelation counted as in fg_stats_series_mean (df =
 * neff - 1, INFINITY when se is 0).  z (n values) is written: the series of
 * the ratio, for a ratio of it. */
void fg_stats_ratio_series(fg_estimate *out, double *z, const double *a, const double *b, size_t n, double k);

/* The 95% interval of the ratio c / b (b != 0) of two independent
 * estimates.  When both are positive, the delta method on log(c / b):
 * (c/b) exp(±t sqrt((se_b/b)^2 + (se_c/c)^2)), which stays positive and is
 * asymmetric as a ratio is; otherwise the delta method on c / b itself,
 * c/b ± t se (fg_stats_ratio).  t = fg_stats_t975 of the Welch-Satterthwaite
 * degrees of freedom of the two terms.  Zero standard errors give
 * lo = hi = c / b exactly. */
void fg_stats_ratio_interval95(double *lo, double *hi, const fg_estimate *b, const fg_estimate *c);

#endif
