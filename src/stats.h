/* fgbisect — sample statistics. */
#ifndef FG_STATS_H
#define FG_STATS_H

#include <stdint.h>

/* The 95% Wilson score interval of k successes in n trials, in percent.
 * n == 0 gives [0, 100]. */
void fg_wilson95(double *lo, double *hi, uint64_t k, uint64_t n);

/* 100 * part / whole, 0 when whole is 0. */
double fg_percent(uint64_t part, uint64_t whole);

#endif
