#include "stats.h"

#include <math.h>

void fg_wilson95(double *lo, double *hi, uint64_t k, uint64_t n)
{
	if (n == 0) {
		*lo = 0.0;
		*hi = 100.0;
		return;
	}
	const double z = 1.959963984540054;
	double nn = (double)n, p = (double)k / nn, z2 = z * z;
	double denom = 1.0 + z2 / nn;
	double centre = (p + z2 / (2.0 * nn)) / denom;
	double half = z * sqrt(p * (1.0 - p) / nn + z2 / (4.0 * nn * nn)) / denom;
	double l = centre - half, h = centre + half;
	*lo = 100.0 * (l < 0.0 ? 0.0 : l);
	*hi = 100.0 * (h > 1.0 ? 1.0 : h);
}

double fg_percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}
