/* The suspect benchmark's day series (tests/bench/suspect.sh runs it and
 * judges them with `fgbisect days --repo`): seeded series of daily runs
 * resampled from real profiles (tests/gen/resample.h), 3 nodes x 5,000
 * samples a run, 0.2 pp day noise, 0.1 pp node noise, the planted class's
 * stacks at --base percent before the planted day and that plus a change
 * drawn from 0.5-1.5 points from it on.  Writes, for series s,
 * OUT/sS/dayD-I.collapsed (day D of --days, node I) and prints one line a
 * series: "s DAY CHANGE" (the planted day, 1-based, and the change).  With
 * --aa 1 the change is 0 (A/A series: nothing to find; the day is still
 * drawn, the same series otherwise).  Not a test.
 *
 * usage: bench_suspect --out DIR [--series N] [--days D] [--seed S] [--base PCT] [--aa 1] PROFILE... */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "resample.h"

int main(int argc, char **argv)
{
	size_t nseries = 200, ndays = 8;
	uint64_t seed = 1;
	double base = 2.9;
	bool aa = false;
	const char *out = NULL;
	int i = 1;
	for (; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--series"))
			nseries = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--days"))
			ndays = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--seed"))
			seed = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--base"))
			base = strtod(argv[i + 1], NULL);
		else if (!strcmp(argv[i], "--aa"))
			aa = !strcmp(argv[i + 1], "1");
		else if (!strcmp(argv[i], "--out"))
			out = argv[i + 1];
		else
			break;
	}
	if (i >= argc || !out || ndays < 3) {
		fprintf(stderr, "usage: bench_suspect --out DIR [--series N] [--days D>=3] [--seed S] [--base PCT] "
			"[--aa 1] PROFILE...\n");
		return 2;
	}
	fg_error err;
	resample *pool;
	if (resample_new(&pool, (const char **)argv + i, (size_t)(argc - i), "TransactionalColumnFamily", &err)) {
		fprintf(stderr, "bench_suspect: %s: %s\n", err.source, err.message);
		return 1;
	}
	resample_run_options ro;
	resample_run_options_init(&ro);
	uint64_t rng = seed * UINT64_C(0x9e3779b97f4a7c15);
	int rc = 0;
	for (size_t s = 0; s < nseries && !rc; s++) {
		char dir[4096], name[32];
		snprintf(dir, sizeof(dir), "%s/s%zu", out, s);
		if (mkdir(dir, 0755) && errno != EEXIST) {
			perror(dir);
			rc = 1;
			break;
		}
		/* The planted day: neither end (the ends must be fast and slow). */
		size_t day = 2 + rng_below(&rng, ndays - 2);
		double change = aa ? 0 * rng_uniform(&rng) : 0.5 + rng_uniform(&rng);
		for (size_t d = 1; d <= ndays && !rc; d++) {
			char *paths[16];
			snprintf(name, sizeof(name), "day%zu", d);
			rc = resample_run(paths, pool, &ro, base + (d >= day ? change : 0), &rng, dir, name, &err);
			for (size_t k = 0; k < ro.nodes; k++)
				free(paths[k]);
		}
		printf("%zu %zu %.4f\n", s, day, change);
	}
	if (rc)
		fprintf(stderr, "bench_suspect: %s: %s\n", err.source, err.message);
	resample_free(pool);
	return rc ? 1 : 0;
}
