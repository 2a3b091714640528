#include "base/stats.h"

#include <math.h>
#include <stdlib.h>

/* The grid step of fg_stats_spending_bounds, in increment standard
 * deviations. */
#define SEQ_STEP 0.05

/* The Wilson score interval at z standard deviations. */
static void wilson_real(double *lo, double *hi, double k, double n, double z)
{
	if (!(n > 0)) {
		*lo = 0.0;
		*hi = 100.0;
		return;
	}
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

void fg_stats_wilson95_real(double *lo, double *hi, double k, double n)
{
	wilson_real(lo, hi, k, n, FG_Z95);
}

void fg_stats_wilson95(double *lo, double *hi, uint64_t k, uint64_t n)
{
	fg_stats_wilson95_real(lo, hi, (double)k, (double)n);
}

double fg_stats_percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

double fg_stats_phi_moderated(double chi2, double df, double phi0, double prior_df)
{
	return fmax(1.0, (chi2 + prior_df * phi0) / (df + prior_df));
}

double fg_stats_change_noise(double xb, double nb, double xc, double nc, double phi, double c)
{
	double share = (xb + xc) / (nb + nc), r = c * share * (1.0 - share);
	return 100.0 * sqrt(phi * share * (1.0 - share) * (1.0 / nb + 1.0 / nc) + 2.0 * r * r);
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
	fg_stats_share_interval_z(lo, hi, k, n, phi, noise, FG_Z95);
}

void fg_stats_share_interval_z(double *lo, double *hi, uint64_t k, uint64_t n, double phi, double noise, double z)
{
	if (!n) {
		*lo = 0.0;
		*hi = 100.0;
		return;
	}
	double share = fg_stats_percent(k, n), wlo, whi;
	wilson_real(&wlo, &whi, (double)k / phi, (double)n / phi, z);
	double below = share - wlo, above = whi - share, spread = z * noise;
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

/* The regularised incomplete beta function I_x(a, b) by its continued
 * fraction (modified Lentz), for the t distribution. */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1);
	d = 1 / (fabs(d) < tiny ? tiny : d);
	double h = d;
	for (int m = 1; m <= 300; m++) {
		for (int odd = 0; odd < 2; odd++) {
			double num = odd ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
			                 : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
			d = 1 + num * d;
			d = 1 / (fabs(d) < tiny ? tiny : d);
			c = 1 + num / c;
			c = fabs(c) < tiny ? tiny : c;
			h *= d * c;
			if (odd && fabs(d * c - 1) < 1e-15)
				return h;
		}
	}
	return h;
}

static double incomplete_beta(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double fg_stats_t975(double df)
{
	if (!(df >= 1))
		df = 1;
	if (df > 1e7)
		return FG_Z95;
	/* P(|T| > t) = I_{df/(df+t^2)}(df/2, 1/2), falling in t; the quantile
	 * lies between z (df infinite) and 12.71 (df 1). */
	double lo = FG_Z95, hi = 12.8;
	for (int i = 0; i < 64; i++) {
		double t = (lo + hi) / 2;
		if (incomplete_beta(df / 2, 0.5, df / (df + t * t)) > 0.05)
			lo = t;
		else
			hi = t;
	}
	return (lo + hi) / 2;
}

/* P(|Z| > z) of the standard normal. */
static double normal_tail2(double z)
{
	return erfc(z / 1.4142135623730951);
}

/* P(|T| > t) of Student's t with df degrees of freedom (normal above 1e7). */
static double t_tail2(double t, double df)
{
	return df > 1e7 ? normal_tail2(t) : incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double fg_stats_t_two_sided(double p, double df)
{
	if (!(p < 1))
		return 0;
	if (!(p > 0))
		return INFINITY;
	if (!(df >= 1))
		df = 1;
	/* The tail falls in t: bracket, then bisect. */
	double lo = 0, hi = 1;
	while (hi < 1e12 && t_tail2(hi, df) > p)
		hi *= 2;
	for (int i = 0; i < 80; i++) {
		double t = (lo + hi) / 2;
		if (t_tail2(t, df) > p)
			lo = t;
		else
			hi = t;
	}
	return (lo + hi) / 2;
}

/* The sub-density of S_k (the sum of k independent N(0, 1) increments that
 * stayed inside every boundary so far) on an even grid of its continuation
 * region. */
struct seq_grid {
	double *f;
	double edge, h; /* the grid is -edge + i h, i = 0 .. m - 1 */
	size_t m;
};

/* The chance that S_k, from grid g at look k - 1, is at or beyond +-edge. */
static double seq_exit(const struct seq_grid *g, double edge)
{
	double out = 0;
	for (size_t i = 0; i < g->m; i++) {
		double s = -g->edge + (double)i * g->h, w = i == 0 || i + 1 == g->m ? 0.5 : 1;
		out += w * g->h * g->f[i] * 0.5 * (erfc((edge - s) / 1.4142135623730951) +
		                                    erfc((edge + s) / 1.4142135623730951));
	}
	return out;
}

/* Steps g from look k - 1 to the region (-edge, edge) of look k (g->m 0:
 * look 0, S_0 = 0). */
static int seq_step(struct seq_grid *g, double edge)
{
	size_t m = 2 * (size_t)ceil(edge / SEQ_STEP) + 1;
	double h = 2 * edge / (double)(m - 1), *f = malloc(m * sizeof(*f));
	if (!f)
		return -1;
	for (size_t i = 0; i < m; i++) {
		double t = -edge + (double)i * h, d = 0;
		if (!g->m)
			d = exp(-t * t / 2);
		for (size_t j = 0; j < g->m; j++) {
			double u = t + g->edge - (double)j * g->h, w = j == 0 || j + 1 == g->m ? 0.5 : 1;
			d += w * g->h * g->f[j] * exp(-u * u / 2);
		}
		f[i] = d / 2.5066282746310002; /* sqrt(2 pi) */
	}
	free(g->f);
	*g = (struct seq_grid){ f, edge, h, m };
	return 0;
}

int fg_stats_spending_bounds(double *z, size_t looks, double alpha)
{
	struct seq_grid g = { NULL, 0, 0, 0 };
	double spent = 0;
	for (size_t k = 1; k <= looks; k++) {
		double root = sqrt((double)k), t = (double)k / (double)looks;
		/* Kim and DeMets' power family, rho 3: alpha t^3 spent by
		 * information t = k / looks. */
		double target = alpha * t * t * t - spent, lo = 0, hi = 40;
		for (int i = 0; i < 60; i++) {
			double c = (lo + hi) / 2;
			if ((k == 1 ? normal_tail2(c) : seq_exit(&g, c * root)) > target)
				lo = c;
			else
				hi = c;
		}
		z[k - 1] = hi;
		spent += k == 1 ? normal_tail2(hi) : seq_exit(&g, hi * root);
		if (k < looks && seq_step(&g, hi * root)) {
			free(g.f);
			return -1;
		}
	}
	free(g.f);
	return 0;
}

/* Welch-Satterthwaite: the degrees of freedom of a sum of two variance
 * terms, each with its own. */
static double welch_df(double v1, double df1, double v2, double df2)
{
	double den = (v1 > 0 ? v1 * v1 / df1 : 0) + (v2 > 0 ? v2 * v2 / df2 : 0);
	return den > 0 ? (v1 + v2) * (v1 + v2) / den : INFINITY;
}

void fg_stats_ratio(fg_estimate *out, const fg_estimate *a, const fg_estimate *b)
{
	double r = a->value / b->value, bb = b->value * b->value;
	double va = a->se * a->se / bb, vb = r * r * b->se * b->se / bb;
	*out = (fg_estimate){ r, sqrt(va + vb), welch_df(va, a->df, vb, b->df) };
}

void fg_stats_ratio_interval95(double *lo, double *hi, const fg_estimate *b, const fg_estimate *c)
{
	double r = c->value / b->value;
	*lo = *hi = r;
	if (b->se == 0 && c->se == 0)
		return;
	if (b->value > 0 && c->value > 0) {
		double vb = (b->se / b->value) * (b->se / b->value), vc = (c->se / c->value) * (c->se / c->value);
		double w = fg_stats_t975(welch_df(vb, b->df, vc, c->df)) * sqrt(vb + vc);
		*lo = r * exp(-w);
		*hi = r * exp(w);
	} else {
		fg_estimate q;
		fg_stats_ratio(&q, c, b);
		double w = fg_stats_t975(q.df) * q.se;
		*lo = r - w;
		*hi = r + w;
	}
}

void fg_stats_ratio_series(fg_estimate *out, double *z, const double *a, const double *b, size_t n, double k)
{
	double sa = 0, sb = 0;
	for (size_t i = 0; i < n; i++) {
		sa += a[i];
		sb += b[i];
	}
	double ma = sa / (double)n, mb = sb / (double)n, r = k * ma / mb;
	for (size_t i = 0; i < n; i++)
		z[i] = r + k * (a[i] - ma) / mb - r * (b[i] - mb) / mb;
	fg_series_mean m;
	fg_stats_series_mean(&m, z, n);
	*out = (fg_estimate){ r, m.se, m.se > 0 ? m.neff - 1 : INFINITY };
}
