/* The verdict benchmark: error, skip and fetch rates of the old rule (the
 * median of the node shares against the threshold, ends that must be
 * decided) beside the new one (the pooled share's interval, ends that move
 * inward), on seeded builds and day series resampled from real profiles
 * (tests/gen/resample.h).  Prints figures; it is not a test.
 *
 * usage: bench_verdicts [--builds N] [--series N] [--seed S] HEALTHY... -- REGRESSED...
 * (tests/bench/verdicts.sh gives it the shared daily profiles). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bisect/days.h"
#include "resample.h"
#include "bisect/verdict.h"
#include "base/stats.h"

static const char *pattern = "TransactionalColumnFamily";
static char dir[256];
static resample *pool;

struct tally {
	size_t n, wrong, skipped;
	size_t skipped_phi; /* skips whose nodes' phi is above 2: the node spread widened the interval */
};

static void remove_files(char **files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (files[i])
			unlink(files[i]);
		free(files[i]);
	}
}

static int judge_files(fg_verdict **v, fg_verdict_judge *judge, char **files, size_t n, fg_error *err)
{
	fg_verdict_input in[16] = { { 0 } };
	for (size_t i = 0; i < n; i++)
		in[i].source = files[i];
	return fg_verdict_judge_inputs(v, judge, in, n, NULL, NULL, err);
}

static void count(struct tally *t, const fg_verdict *v, bool slow)
{
	t->n++;
	t->skipped += v->kind == FG_VERDICT_SKIP;
	t->skipped_phi += v->kind == FG_VERDICT_SKIP && v->phi > 2;
	t->wrong += v->kind == (slow ? FG_VERDICT_FAST : FG_VERDICT_SLOW);
}

static double pct(size_t part, size_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Builds lo-hi points either side of the 4% threshold, half below. */
static void bench_builds(double lo, double hi, uint64_t samples, size_t nbuilds, uint64_t seed,
                         fg_verdict_judge **judges, const fg_verdict_options *old)
{
	struct tally t[3] = { { 0 } };
	resample_run_options ro;
	resample_run_options_init(&ro);
	ro.samples = samples;
	fg_error err;
	for (size_t b = 0; b < nbuilds; b++) {
		double d = lo + (hi - lo) * rng_uniform(&seed), truth = b % 2 ? 4 + d : 4 - d;
		char *files[16];
		if (resample_run(files, pool, &ro, truth, &seed, dir, "b", &err)) {
			fprintf(stderr, "bench_verdicts: %s\n", err.message);
			exit(1);
		}
		for (int rule = 1; rule < 3; rule++) {
			fg_verdict *v;
			if (judge_files(&v, judges[rule - 1], files, ro.nodes, &err)) {
				fprintf(stderr, "bench_verdicts: %s: %s\n", err.source, err.message);
				exit(1);
			}
			count(&t[rule], v, truth >= 4);
			if (rule == 1) {
				fg_verdict_decide(v, old);
				count(&t[0], v, truth >= 4);
			}
			fg_verdict_free(v);
		}
		remove_files(files, ro.nodes);
	}
	static const char *const names[] = { "old: median of the nodes", "new: default noise (0.24 pp)",
		                              "new: --noise 0.2 (the true noise)" };
	for (int rule = 0; rule < 3; rule++)
		printf("  %-10s %-6llu %-36s %6.1f%% %8.1f%% %9.1f%%\n", "", (unsigned long long)samples,
		       names[rule], pct(t[rule].wrong, t[rule].n), pct(t[rule].skipped, t[rule].n),
		       pct(t[rule].skipped_phi, t[rule].n));
}

/* Clear and near builds as the old rule (phi of the nodes' counts taken at
 * face value, the interval before this change) and the new one judge
 * them: three nodes of `samples` each, day noise 0.2 pp, node noise
 * 0.1 pp, and in a third of the builds one node off the others by
 * 0.5-1.0 pp (the build's truth is the nodes' mean). */
struct rule_tally {
	size_t n, wrong[2], skipped[2];
};

/* The old rule's verdict on v: its interval with phi = chi2 / df. */
static enum fg_verdict_kind old_kind(const fg_verdict *v, const fg_verdict_options *o)
{
	uint64_t k[16], n[16];
	size_t m = 0;
	for (size_t i = 0; i < v->nprofiles && m < 16; i++)
		if (v->profiles[i].read) {
			k[m] = v->profiles[i].samples;
			n[m++] = v->profiles[i].total;
		}
	fg_dispersion d;
	fg_stats_overdispersion(&d, k, n, m);
	double lo, hi;
	fg_stats_share_interval(&lo, &hi, v->samples, v->total, d.phi, fg_verdict_noise(o));
	return hi < o->threshold ? FG_VERDICT_FAST : lo >= o->threshold ? FG_VERDICT_SLOW : FG_VERDICT_SKIP;
}

static void bench_clear(double lo, double hi, uint64_t samples, double disagree, size_t nbuilds, uint64_t seed,
                        fg_verdict_judge *judge, const fg_verdict_options *o)
{
	struct rule_tally t = { 0 };
	fg_error err;
	for (size_t b = 0; b < nbuilds; b++) {
		double d = lo + (hi - lo) * rng_uniform(&seed), truth = b % 2 ? 4 + d : 4 - d;
		double run = truth + 0.2 * rng_normal(&seed);
		double off = rng_uniform(&seed) < disagree ? (rng_uniform(&seed) < 0.5 ? -1 : 1) *
		             (0.5 + 0.5 * rng_uniform(&seed)) : 0;
		char *files[3] = { NULL, NULL, NULL };
		for (size_t i = 0; i < 3; i++) {
			uint64_t matched;
			double share = run + 0.1 * rng_normal(&seed) + (i == 0 ? off * 2 / 3 : -off / 3);
			if (asprintf(&files[i], "%s/c-%zu.collapsed", dir, i) < 0 ||
			    resample_write(pool, files[i], samples, share, &seed, &matched, &err)) {
				fprintf(stderr, "bench_verdicts: cannot write a build\n");
				exit(1);
			}
		}
		fg_verdict *v;
		if (judge_files(&v, judge, files, 3, &err)) {
			fprintf(stderr, "bench_verdicts: %s: %s\n", err.source, err.message);
			exit(1);
		}
		enum fg_verdict_kind kinds[2] = { old_kind(v, o), v->kind }, wrong = truth >= 4 ? FG_VERDICT_FAST
		                                                                                 : FG_VERDICT_SLOW;
		t.n++;
		for (int r = 0; r < 2; r++) {
			t.wrong[r] += kinds[r] == wrong;
			t.skipped[r] += kinds[r] == FG_VERDICT_SKIP;
		}
		fg_verdict_free(v);
		remove_files(files, 3);
	}
	printf("  %.1f-%.1f pp  %-7llu %-10s %8.1f%% %6.1f%%   %8.1f%% %6.1f%%\n", lo, hi, (unsigned long long)samples,
	       disagree > 0 ? "a third" : "none", pct(t.wrong[0], t.n), pct(t.skipped[0], t.n), pct(t.wrong[1], t.n),
	       pct(t.skipped[1], t.n));
}

/* Capture mode: a build 0.2-0.5 pp from the threshold, captured by a real
 * command (sh, cp) that emits the build's next resampled profile (a run of
 * its own: the truth plus 0.2 pp day noise), judged by
 * fg_verdict_judge_commit with up to `repeats` captures. */
static void bench_captures(uint64_t samples, size_t repeats, size_t nbuilds, uint64_t seed, fg_verdict_judge *judge)
{
	size_t n = 0, wrong = 0, decided = 0, captures = 0;
	fg_error err;
	fg_verdict_source src = {
		.capture = "k=$(($(cat ctr) + 1)); echo $k >ctr; cp cap-$k.collapsed \"$FGBISECT_OUT\"",
		.capture_repeats = repeats,
	};
	fg_capture_options_init(&src.capture_opts);
	src.capture_opts.dir = dir;
	fg_repo_commit commit = { .id = "0000000000000000000000000000000000000000", .short_id = "0000000",
		                  .date = "2026-11-01" };
	char path[300];
	for (size_t b = 0; b < nbuilds; b++) {
		double d = 0.2 + 0.3 * rng_uniform(&seed), truth = b % 2 ? 4 + d : 4 - d;
		for (size_t k = 1; k <= repeats; k++) {
			uint64_t matched;
			snprintf(path, sizeof(path), "%s/cap-%zu.collapsed", dir, k);
			if (resample_write(pool, path, samples, truth + 0.2 * rng_normal(&seed), &seed, &matched, &err)) {
				fprintf(stderr, "bench_verdicts: %s\n", err.message);
				exit(1);
			}
		}
		snprintf(path, sizeof(path), "%s/ctr", dir);
		FILE *f = fopen(path, "w");
		if (!f)
			exit(1);
		fputs("0\n", f);
		fclose(f);
		fg_verdict *v;
		if (fg_verdict_judge_commit(&v, judge, &src, &commit, &err)) {
			fprintf(stderr, "bench_verdicts: %s\n", err.message);
			exit(1);
		}
		n++;
		decided += v->kind != FG_VERDICT_SKIP;
		wrong += v->kind == (truth >= 4 ? FG_VERDICT_FAST : FG_VERDICT_SLOW);
		captures += v->captures;
		fg_verdict_free(v);
		for (size_t k = 1; k <= repeats; k++) {
			snprintf(path, sizeof(path), "%s/cap-%zu.collapsed", dir, k);
			unlink(path);
		}
	}
	snprintf(path, sizeof(path), "%s/ctr", dir);
	unlink(path);
	printf("  %-7llu %7zu %9.1f%% %7.1f%% %14.2f\n", (unsigned long long)samples, repeats, pct(decided, n),
	       pct(wrong, n), (double)captures / (double)n);
}

/* One day series: N runs, the first slow one K, the healthy share h and
 * the regressed h + effect, the threshold between them; each node's profile
 * may be missing or broken. */
struct series {
	size_t n, k;
	double healthy, effect;
	double missing, broken;          /* chance that a profile is missing, broken */
	uint64_t seed;
	fg_verdict_judge *judge;
	const fg_verdict_options *rule;  /* the verdict of a read run is re-decided by it */
	bool whole;                      /* a run with a profile left out is a skip (before partial runs) */
	fg_verdict *judged[64];          /* each run read once for every rule */
};

/* A copy of v that the search may own. */
static fg_verdict *clone(const fg_verdict *v)
{
	fg_verdict *c = malloc(sizeof(*c));
	*c = *v;
	c->profiles = calloc(v->nprofiles, sizeof(*c->profiles));
	for (size_t i = 0; i < v->nprofiles; i++) {
		c->profiles[i] = v->profiles[i];
		c->profiles[i].source = strdup(v->profiles[i].source);
	}
	return c;
}

/* Reads run `run` of the series: its node profiles generated, some missing
 * or broken, judged. */
static int read_day(fg_verdict **out, struct series *s, size_t run, fg_error *err)
{
	uint64_t rng = s->seed ^ (UINT64_C(0x9e3779b97f4a7c15) * (run + 1));
	resample_run_options ro;
	resample_run_options_init(&ro);
	double truth = run >= s->k ? s->healthy + s->effect : s->healthy;
	char *files[16];
	int rc = resample_run(files, pool, &ro, truth, &rng, dir, "d", err);
	for (size_t i = 0; !rc && i < ro.nodes; i++) {
		double u = rng_uniform(&rng);
		if (u < s->missing) {
			unlink(files[i]); /* a missing profile */
		} else if (u < s->missing + s->broken) {
			FILE *f = fopen(files[i], "w"); /* a broken one */
			if (f) {
				fputs("<html><body>502 Bad Gateway</body></html>\n", f);
				fclose(f);
			}
		}
	}
	if (!rc)
		rc = judge_files(out, s->judge, files, ro.nodes, err);
	remove_files(files, ro.nodes);
	return rc;
}

static int judge_day(void *ctx, fg_verdict **out, size_t run, fg_error *err)
{
	struct series *s = ctx;
	if (!s->judged[run]) {
		int rc = read_day(&s->judged[run], s, run, err);
		if (rc)
			return rc;
	}
	fg_verdict *v = *out = clone(s->judged[run]);
	if (s->whole && v->nread < v->nprofiles) {
		v->kind = FG_VERDICT_SKIP;
		v->basis = FG_BASIS_INPUT;
	} else if (v->basis != FG_BASIS_INPUT) {
		fg_verdict_decide(v, s->rule);
	}
	return 0;
}

struct days_tally {
	size_t series, wrong, exact, window, no_answer, wrong_verdicts, judged;
	size_t clean, over_budget, max_over;
};

static void days_count(struct days_tally *t, const struct series *s, const fg_days *d, bool old)
{
	t->series++;
	size_t judged = fg_days_step_count(d), budget = (size_t)ceil(log2((double)s->n)) + 2, skipped = 0;
	/* The verdicts as the search took them (--threshold auto decides them
	 * at the threshold it found). */
	for (size_t i = 0; i < judged; i++) {
		const fg_days_step *st = fg_days_step_at(d, i);
		bool slow = st->run >= s->k;
		t->wrong_verdicts += st->verdict->kind == (slow ? FG_VERDICT_FAST : FG_VERDICT_SLOW);
		skipped += st->verdict->kind == FG_VERDICT_SKIP;
	}
	t->judged += judged;
	if (!skipped) {
		t->clean++;
		t->over_budget += judged > budget;
		if (judged > budget && judged - budget > t->max_over)
			t->max_over = judged - budget;
	}
	enum fg_days_outcome o = fg_days_result(d);
	if (o == FG_DAYS_ENDS_NOT_SEPARATED || o == FG_DAYS_NO_RISE) {
		t->no_answer++;
		return;
	}
	/* The old search stopped on an undecidable end. */
	bool moved = fg_days_good(d) != 0 || fg_days_bad(d) != s->n - 1;
	if (o == FG_DAYS_FOUND && !(old && moved)) {
		size_t f = fg_days_last_fast(d), sl = fg_days_first_slow(d);
		if (!(f < s->k && s->k <= sl))
			t->wrong++;
		else if (sl == s->k && f + 1 == s->k)
			t->exact++;
		else
			t->window++;
		return;
	}
	size_t at = o == FG_DAYS_GOOD_NOT_FAST ? fg_days_good(d) : fg_days_bad(d);
	const fg_verdict *v = fg_days_verdict(d, at);
	bool slow = at >= s->k;
	if (v && v->kind == (slow ? FG_VERDICT_FAST : FG_VERDICT_SLOW))
		t->wrong++;
	else
		t->no_answer++;
}

static void bench_days(size_t nseries, uint64_t seed, double missing, double broken, fg_verdict_judge *judge,
                       const fg_verdict_options *old)
{
	enum { RULES = 6, AUTO_BEFORE = 3, AUTO = 4, SCAN = 5 };
	struct days_tally t[RULES] = { { 0 } };
	fg_error err;
	for (size_t i = 0; i < nseries; i++) {
		struct series s = { 0 };
		s.n = 10 + rng_below(&seed, 51); /* at most 60 */
		s.k = 1 + rng_below(&seed, s.n - 1);
		s.healthy = 2.5;
		s.effect = 0.8 + 4.2 * rng_uniform(&seed);
		s.seed = rng_next(&seed);
		s.missing = missing;
		s.broken = broken;
		s.judge = judge;
		fg_verdict_options o = *old, n;
		o.threshold = s.healthy + s.effect / 2;
		/* The judge's threshold is fixed: judge with 4% and re-decide. */
		fg_verdict_options_init(&n);
		n.pattern = pattern;
		n.threshold = o.threshold;
		for (int rule = 0; rule < RULES; rule++) {
			s.rule = rule ? &n : &o;
			s.whole = rule < 2;
			fg_days_options dopts;
			fg_days_options_init(&dopts);
			dopts.auto_threshold = rule == AUTO_BEFORE || rule == AUTO ? &n : NULL;
			/* The old rule and the search alone never scan; the others
			 * scan every run when the ends cannot be told apart. */
			dopts.auto_search_only = rule == 0 || rule == AUTO_BEFORE;
			fg_days *d;
			if ((rule == SCAN ? fg_days_scan_runs : fg_days_search_runs)(&d, s.n, 0, s.n - 1, &dopts, judge_day, &s,
										       &err)) {
				fprintf(stderr, "bench_verdicts: %s\n", err.message);
				exit(1);
			}
			days_count(&t[rule], &s, d, rule == 0);
			fg_days_free(d);
		}
		for (size_t r = 0; r < s.n; r++)
			fg_verdict_free(s.judged[r]);
	}
	static const char *const names[] = { "old: median, ends must decide", "interval, ends move inward",
		                              "+ partial runs (2 of 3 nodes)", "+ --threshold auto (search only)",
		                              "+ --threshold auto (+ change point)", "--scan (every run)" };
	for (int r = 0; r < RULES; r++)
		printf("  %-36s %5.1f%% %6.1f%% %6.1f%% %9.1f%% %7zu %8.2f %5zu/%zu (+%zu)\n", names[r],
		       pct(t[r].wrong, t[r].series), pct(t[r].exact, t[r].series), pct(t[r].window, t[r].series),
		       pct(t[r].no_answer, t[r].series), t[r].wrong_verdicts, (double)t[r].judged / (double)t[r].series,
		       t[r].over_budget, t[r].clean, t[r].max_over);
}

int main(int argc, char **argv)
{
	size_t nbuilds = 200, nseries = 150;
	uint64_t seed = 9;
	int i = 1;
	for (; i + 1 < argc && argv[i][0] == '-' && argv[i][1] == '-' && argv[i][2]; i += 2) {
		if (!strcmp(argv[i], "--builds"))
			nbuilds = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--series"))
			nseries = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--seed"))
			seed = strtoull(argv[i + 1], NULL, 10);
		else
			break;
	}
	const char **paths = (const char **)argv + i;
	size_t npaths = (size_t)(argc - i);
	if (!npaths) {
		fprintf(stderr, "usage: bench_verdicts [--builds N] [--series N] [--seed S] PROFILE...\n");
		return 2;
	}
	fg_error err;
	if (resample_new(&pool, paths, npaths, pattern, &err)) {
		fprintf(stderr, "bench_verdicts: %s: %s\n", err.source, err.message);
		return 1;
	}
	const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(dir, sizeof(dir), "%s/fg-bench-XXXXXX", tmp);
	if (!mkdtemp(dir))
		return 1;
	fg_verdict_options def, given, old;
	fg_verdict_options_init(&def);
	def.pattern = pattern;
	def.threshold = 4;
	given = def;
	given.noise = 0.2;
	old = def;
	old.aggregate = FG_AGGREGATE_MEDIAN;
	fg_fetch_options fo; /* the captures are not kept: the user's cache stays as it is */
	fg_fetch_options_init(&fo);
	fo.no_cache = true;
	def.fetch = &fo;
	given.fetch = &fo;
	fg_verdict_judge *judges[2];
	if (fg_verdict_judge_new(&judges[0], &def, &err) || fg_verdict_judge_new(&judges[1], &given, &err))
		return 1;
	clock_t start = clock();
	printf("builds: %zu a band, half below and half above the threshold 4%%; 3 nodes, 0.2 pp day noise, "
	       "0.1 pp node noise;\nstacks resampled from %zu profiles (seed %llu)\n\n", nbuilds, npaths,
	       (unsigned long long)seed);
	printf("  %-10s %-6s %-36s %7s %9s %10s\n", "distance", "samples", "rule", "wrong", "skipped", "phi > 2");
	static const double bands[][2] = { { 0.1, 0.5 }, { 0.5, 1.0 }, { 1.0, 2.0 }, { 2.0, 4.0 } };
	for (size_t b = 0; b < 4; b++) {
		printf("  %.1f-%.1f pp\n", bands[b][0], bands[b][1]);
		bench_builds(bands[b][0], bands[b][1], 5000, nbuilds, seed + b, judges, &old);
	}
	printf("  0.1-0.5 pp\n");
	bench_builds(0.1, 0.5, 1000, nbuilds, seed + 10, judges, &old);
	printf("  1.0-2.0 pp\n");
	bench_builds(1.0, 2.0, 1000, nbuilds, seed + 11, judges, &old);
	printf("\nclear and near builds, old rule (phi of 3 nodes at face value) beside the new one; default noise,\n"
	       "day noise 0.2 pp, node noise 0.1 pp; \"a third\": one node 0.5-1.0 pp off the others in a third of\n"
	       "the builds (%zu builds a row, half below the threshold)\n", nbuilds);
	printf("  %-10s %-7s %-10s %9s %7s   %9s %7s\n", "distance", "samples", "disagree", "old wrong", "skipped",
	       "new wrong", "skipped");
	static const double clear_bands[][2] = { { 0.1, 0.5 }, { 1.0, 2.0 } };
	static const uint64_t clear_samples[] = { 1000, 2500, 5000 };
	for (size_t b = 0; b < 2; b++)
		for (size_t k = 0; k < 3; k++)
			for (int dis = 0; dis < 2; dis++)
				bench_clear(clear_bands[b][0], clear_bands[b][1], clear_samples[k], dis ? 1.0 / 3 : 0,
				            nbuilds, seed + 30 + 6 * b + 2 * k + (uint64_t)dis, judges[0], &def);
	printf("\ncaptures: builds 0.2-0.5 pp from the threshold, each capture a run of its own (day noise 0.2 pp),\n"
	       "captured by a command until decided (--capture-repeats); default noise (%zu builds a row)\n", nbuilds);
	printf("  %-7s %7s %10s %8s %14s\n", "samples", "repeats", "decided", "wrong", "captures/build");
	static const uint64_t capture_samples[] = { 5000, 20000 };
	for (size_t k = 0; k < 2; k++)
		for (size_t r = 1; r <= 5; r += 4)
			bench_captures(capture_samples[k], r, nbuilds, seed + 50 + 2 * k + r, judges[0]);
	printf("\ndays: %zu series of 10-60 runs, the first slow one at random, healthy 2.5%%, effect 0.8-5 pp,\n"
	       "threshold half way; 3 nodes x 5000 samples, day noise 0.2 pp, node noise 0.1 pp; default noise\n",
	       nseries);
	static const double faults[][2] = { { 0.05, 0.03 }, { 0, 0 } };
	for (int f = 0; f < 2; f++) {
		if (faults[f][0] > 0)
			printf("\n  each profile missing (%.0f%%) or broken (%.0f%%):\n", 100 * faults[f][0],
			       100 * faults[f][1]);
		else
			printf("\n  no missing or broken profile:\n");
		printf("  %-36s %6s %7s %7s %10s %7s %8s %s\n", "rule", "wrong", "exact", "window", "no answer",
		       "wrong v", "judged", "over ceil(log2 N)+2 (clean series)");
		bench_days(nseries, seed + 20 + (uint64_t)f, faults[f][0], faults[f][1], judges[0], &old);
	}
	printf("\n(wrong v: confidently wrong run verdicts in all searches; judged: runs fetched a series on average;\n"
	       "clean: series where no judged run was undecidable; %.1f s CPU)\n",
	       (double)(clock() - start) / CLOCKS_PER_SEC);
	fg_verdict_judge_free(judges[0]);
	fg_verdict_judge_free(judges[1]);
	resample_free(pool);
	rmdir(dir);
	return 0;
}
