/* fgbisect tests — node profiles resampled from the stacks of real
 * profiles, with a chosen true share: the test data of the decision rule and
 * of the day search (tests/unit/test_resample.c, tests/bench/).
 *
 * The stacks of the source profiles (healthy and regressed ones) are pooled
 * in two: those holding a frame that contains the pattern, and the others,
 * each weighted by its samples.  A generated profile of n samples draws each
 * sample from the first pool with probability share, else from the second:
 * real stacks, any share, and a known truth.  Everything is seeded: the same
 * seed gives the same bytes. */
#ifndef FG_RESAMPLE_H
#define FG_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* splitmix64: a small seeded generator, the same on every platform. */
uint64_t rng_next(uint64_t *state);
double rng_uniform(uint64_t *state);          /* [0, 1) */
double rng_normal(uint64_t *state);           /* standard normal (Box-Muller) */
uint64_t rng_below(uint64_t *state, uint64_t n); /* 0 .. n-1 */

typedef struct resample resample;

/* Reads the profiles at paths (any format fgbisect reads) and pools their
 * stacks by the substring pattern. */
int resample_new(resample **out, const char *const *paths, size_t n, const char *pattern, fg_error *err);
void resample_free(resample *r);

/* Distinct stacks in the matching and the other pool. */
size_t resample_stacks(const resample *r, int matching);

/* Writes a collapsed profile of n samples to path, whose samples match with
 * probability share (percent, clamped to 0-100); *matched receives how many
 * do. */
int resample_write(const resample *r, const char *path, uint64_t n, double share, uint64_t *rng,
                   uint64_t *matched, fg_error *err);

/* One run of a build: nodes profiles of samples each, written to
 * DIR/NAME-<i>.collapsed (paths[i], malloc'ed, nodes at most 16).  The
 * run's share is the build's true share plus N(0, day_noise) shared by its
 * nodes; each node's is the run's plus N(0, node_noise) (points). */
typedef struct resample_run_options {
	size_t nodes;       /* 3 */
	uint64_t samples;   /* 5000 per node */
	double day_noise;   /* 0.2 points */
	double node_noise;  /* 0.1 points */
} resample_run_options;

void resample_run_options_init(resample_run_options *o);

int resample_run(char **paths, const resample *r, const resample_run_options *o, double share, uint64_t *rng,
                 const char *dir, const char *name, fg_error *err);

#endif
