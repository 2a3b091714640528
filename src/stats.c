#include "stats.h"

#include <math.h>

void fg_stats_wilson95_real(double *lo, double *hi, double k, double n)
{
	if (!(n > 0)) {
		*lo = 0.0;
		*hi = 100.0;
		return;
	}
	const double z = FG_Z95;
	double p = k / n, z2 = z * z;
	if (p < 0)
		p = 0;
	if (p > 1)
		p = 1;
	double denom = 1.0 + z2 / n;
	double centre = (p + z2 / (2.0 * n)) / denom;
	double half = z * sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom;
	double l = centre - half, h = centre + half;
	*lo = 100.0 * (l < 0.0 ? 0.0 : l);
	*hi = 100.0 * (h > 1.0 ? 1.0 : h);
}

void fg_stats_wilson95(double *lo, double *hi, uint64_t k, uint64_t n)
{
	fg_stats_wilson95_real(lo, hi, (double)k, (double)n);
}

double fg_stats_percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void fg_stats_overdispersion(fg_dispersion *out, const uint64_t *k, const uint64_t *n, size_t m)
{
	out->chi2 = 0.0;
	out->phi = 1.0;
	out->worst = SIZE_MAX;
	out->residual = 0.0;
	if (m < 2)
		return;
	double K = 0, N = 0;
	for (size_t i = 0; i < m; i++) {
		K += (double)k[i];
		N += (double)n[i];
	}
	double p = N > 0 ? K / N : 0.0;
	if (!(p > 0.0 && p < 1.0))
		return;
	for (size_t i = 0; i < m; i++) {
		if (!n[i])
			continue;
		double expected = (double)n[i] * p;
		double r = ((double)k[i] - expected) / sqrt(expected * (1.0 - p));
		out->chi2 += r * r;
		if (out->worst == SIZE_MAX || fabs(r) > fabs(out->residual)) {
			out->worst = i;
			out->residual = r;
		}
	}
	double phi = out->chi2 / (double)(m - 1);
	out->phi = phi > 1.0 ? phi : 1.0;
}

void fg_stats_share_interval(double *lo, double *hi, uint64_t k, uint64_t n, double phi, double noise)
{
	if (!n) {
		*lo = 0.0;
		*hi = 100.0;
		return;
	}
	double share = fg_stats_percent(k, n), wlo, whi;
	fg_stats_wilson95_real(&wlo, &whi, (double)k / phi, (double)n / phi);
	double below = share - wlo, above = whi - share, spread = FG_Z95 * noise;
	double l = share - sqrt(below * below + spread * spread);
	double h = share + sqrt(above * above + spread * spread);
	*lo = l < 0.0 ? 0.0 : l;
	*hi = h > 100.0 ? 100.0 : h;
}

void fg_stats_series_mean(fg_series_mean *out, const double *x, size_t n)
{
	double sum = 0, sq = 0, lag = 0, prev = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i])) {
			sum += x[i];
			k++;
		}
	*out = (fg_series_mean){ .n = k };
	if (!k)
		return;
	double mean = sum / (double)k;
	/* Deviations in order over the finite points: the lag-1 pairs are
	 * consecutive finite points (a NaN gap joins its neighbours). */
	size_t seen = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			continue;
		double d = x[i] - mean;
		sq += d * d;
		if (seen++)
			lag += prev * d;
		prev = d;
	}
	out->mean = mean;
	out->neff = (double)k;
	double sd = k < 2 ? 0 : sqrt(sq / (double)(k - 1));
	if (sd <= FG_STATS_ROUNDING * fabs(mean))
		return;
	out->sd = sd;
	if (k >= 3) {
		out->r1 = lag / sq;
		if (out->r1 > -1) {
			double neff = (double)k * (1 - out->r1) / (1 + out->r1);
			out->neff = neff < 1 ? 1 : neff > (double)k ? (double)k : neff;
		}
	}
	out->se = out->sd / sqrt(out->neff);
}

double fg_stats_ratio_se(double a, double se_a, double b, double se_b)
{
	return hypot(se_a, a / b * se_b) / fabs(b);
}

void fg_stats_ratio_interval95(double *lo, double *hi, double b, double se_b, double c, double se_c)
{
	double r = c / b;
	*lo = *hi = r;
	if (se_b == 0 && se_c == 0)
		return;
	if (b > 0 && c > 0) {
		double w = FG_Z95 * hypot(se_b / b, se_c / c);
		*lo = r * exp(-w);
		*hi = r * exp(w);
	} else {
		double w = FG_Z95 * fg_stats_ratio_se(c, se_c, b, se_b);
		*lo = r - w;
		*hi = r + w;
	}
}
