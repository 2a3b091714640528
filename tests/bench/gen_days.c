/* fgbisect benchmark data — a day series for `days`: one run a day of
 * resampled node profiles (tests/gen/resample.h), healthy before day K and
 * regressed from it, and the runs file that lists them, each day on the
 * commit given for it.  contrib/bench-days-real.sh maps the days to real
 * camunda/zeebe commits.  Prints nothing but errors; it is not a test.
 *
 * usage: gen_days DIR PATTERN HEALTHY EFFECT K SEED PROFILE... <DAYS
 *   DAYS: one line a day, oldest first: "YYYY-MM-DD COMMIT".
 *   Writes DIR/runs.txt and DIR/<day>-<node>.collapsed (3 nodes of 5,000
 *   samples); the share of PATTERN is HEALTHY percent before day K (1-based),
 *   HEALTHY + EFFECT from it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resample.h"

int main(int argc, char **argv)
{
	if (argc < 8) {
		fprintf(stderr, "usage: gen_days DIR PATTERN HEALTHY EFFECT K SEED PROFILE... <DAYS\n");
		return 2;
	}
	const char *dir = argv[1], *pattern = argv[2];
	double healthy = strtod(argv[3], NULL), effect = strtod(argv[4], NULL);
	size_t k = strtoul(argv[5], NULL, 10);
	uint64_t rng = strtoull(argv[6], NULL, 10);
	fg_error err;
	resample *pool;
	if (resample_new(&pool, (const char *const *)argv + 7, (size_t)(argc - 7), pattern, &err)) {
		fprintf(stderr, "gen_days: %s: %s\n", err.source, err.message);
		return 1;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/runs.txt", dir);
	FILE *runs = fopen(path, "w");
	if (!runs) {
		perror(path);
		resample_free(pool);
		return 1;
	}
	fputs("# date  commit  node  protocol  event  location\n", runs);
	resample_run_options ro;
	resample_run_options_init(&ro);
	char date[32], commit[64];
	int rc = 0;
	for (size_t day = 1; !rc && scanf("%31s %63s", date, commit) == 2; day++) {
		char *files[16];
		if ((rc = resample_run(files, pool, &ro, day >= k ? healthy + effect : healthy, &rng, dir, date, &err))) {
			fprintf(stderr, "gen_days: %s: %s\n", err.source, err.message);
			break;
		}
		for (size_t i = 0; i < ro.nodes; i++) {
			const char *name = strrchr(files[i], '/');
			fprintf(runs, "%s %s broker-%zu grpc cpu %s\n", date, commit, i, name ? name + 1 : files[i]);
			free(files[i]);
		}
	}
	if (fclose(runs) && !rc) {
		perror(path);
		rc = 1;
	}
	resample_free(pool);
	return rc ? 1 : 0;
}
