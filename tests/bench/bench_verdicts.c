/* The verdict benchmark: error, skip and fetch rates of the old rule (the
 * median of the node shares against the threshold, ends that must be
 * decided) beside the new one (the pooled share's interval, ends that move
 * inward), on seeded builds and day series resampled from real profiles
 * (tests/gen/resample.h).  Clear builds and captures have beside them the
 * bound (an oracle that knows the true noise, at the same 2.5% a side) and
 * why the new rule skipped; captures, the error of their looks at the
 * threshold itself.  Prints figures; it is not a test.
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
 * 0.5-1.0 pp (the build's truth is the nodes' mean).  Beside them the
 * bound: the oracle that knows the true standard deviation of the pooled
 * share and decides when the share is beyond FG_Z95 of them from the
 * threshold (the same 2.5% a side at the threshold as the rule's interval);
 * and why the new rule skipped, each skip counted once, in this order:
 * sampling (the counts' Wilson interval alone holds the threshold), the
 * true noise (the oracle skips too), the assumed noise above the true one
 * (the interval with phi 1 holds it), phi (the nodes' over-dispersion;
 * "named": a disagreeing node named). */
struct rule_tally {
	size_t n, wrong[2], skipped[2];
	size_t oracle_wrong, oracle_skipped;
	size_t sampling, noise, assumed, phi, named;
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

static bool holds(double lo, double hi, double t)
{
	return !(hi < t || lo >= t);
}

/* The oracle's verdict on a share of standard deviation sd (points). */
static enum fg_verdict_kind oracle_kind(double share, double sd, double t)
{
	return share + FG_Z95 * sd < t ? FG_VERDICT_FAST : share - FG_Z95 * sd >= t ? FG_VERDICT_SLOW : FG_VERDICT_SKIP;
}

static void clear_why(struct rule_tally *t, const fg_verdict *v, bool oracle_skips, const fg_verdict_options *o)
{
	double lo, hi;
	fg_stats_wilson95(&lo, &hi, v->samples, v->total);
	if (holds(lo, hi, o->threshold)) {
		t->sampling++;
		return;
	}
	if (oracle_skips) {
		t->noise++;
		return;
	}
	fg_stats_share_interval(&lo, &hi, v->samples, v->total, 1, fg_verdict_noise(o));
	if (holds(lo, hi, o->threshold)) {
		t->assumed++;
		return;
	}
	t->phi++;
	t->named += v->disagreeing != SIZE_MAX;
}

static void bench_clear(double lo, double hi, uint64_t samples, double disagree, size_t nbuilds, uint64_t seed,
                        fg_verdict_judge *judge, const fg_verdict_options *o, struct rule_tally *t)
{
	*t = (struct rule_tally){ 0 };
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
		/* The pooled share's variance: the day's, the nodes' mean of
		 * their own, and sampling of all 3 x samples at the truth. */
		double p = truth / 100, sd = sqrt(0.2 * 0.2 + 0.1 * 0.1 / 3 + 1e4 * p * (1 - p) / (3.0 * (double)samples));
		enum fg_verdict_kind oracle = oracle_kind(v->pooled, sd, o->threshold);
		t->n++;
		for (int r = 0; r < 2; r++) {
			t->wrong[r] += kinds[r] == wrong;
			t->skipped[r] += kinds[r] == FG_VERDICT_SKIP;
		}
		t->oracle_wrong += oracle == wrong;
		t->oracle_skipped += oracle == FG_VERDICT_SKIP;
		if (v->kind == FG_VERDICT_SKIP)
			clear_why(t, v, oracle == FG_VERDICT_SKIP, o);
		fg_verdict_free(v);
		remove_files(files, 3);
	}
	printf("  %.1f-%.1f pp  %-7llu %-10s %8.1f%% %6.1f%%   %8.1f%% %6.1f%%   %8.1f%% %6.1f%%\n", lo, hi,
	       (unsigned long long)samples, disagree > 0 ? "a third" : "none", pct(t->wrong[0], t->n),
	       pct(t->skipped[0], t->n), pct(t->wrong[1], t->n), pct(t->skipped[1], t->n), pct(t->oracle_wrong, t->n),
	       pct(t->oracle_skipped, t->n));
}

static void print_clear_why(double lo, double hi, uint64_t samples, double disagree, const struct rule_tally *t)
{
	printf("  %.1f-%.1f pp  %-7llu %-10s %7.1f%% %9.1f%% %8.1f%% %9.1f%% %6.1f%% (%.1f%%)\n", lo, hi,
	       (unsigned long long)samples, disagree > 0 ? "a third" : "none", pct(t->skipped[1], t->n),
	       pct(t->sampling, t->n), pct(t->noise, t->n), pct(t->assumed, t->n), pct(t->phi, t->n),
	       pct(t->named, t->n));
}

/* Capture mode.  The old rule (before the looks were a group-sequential
 * test): the noise of k captures the larger of the assumed one and their
 * spread's estimate, times sqrt(sum of squared sample weights), FG_Z95 at
 * every look.  Counts of the first m captures: k[i] matching of n[i]. */
static enum fg_verdict_kind old_capture_kind(const uint64_t *k, const uint64_t *n, size_t m, double assumed, double t)
{
	uint64_t K = 0, N = 0;
	double sum = 0, sumsq = 0, sampling = 0, w2 = 0, noise = assumed, lo, hi;
	for (size_t i = 0; i < m; i++) {
		K += k[i];
		N += n[i];
	}
	for (size_t i = 0; i < m && m > 1; i++) {
		double share = fg_stats_percent(k[i], n[i]), w = (double)n[i] / (double)N;
		sum += share;
		sumsq += share * share;
		sampling += share * (100 - share) / (double)n[i];
		w2 += w * w;
	}
	if (m > 1) {
		double between = (sumsq - sum * sum / (double)m) / (double)(m - 1) - sampling / (double)m;
		noise = fmax(assumed, between > 0 ? sqrt(between) : 0) * sqrt(w2);
	}
	fg_stats_share_interval(&lo, &hi, K, N, 1, noise);
	return hi < t ? FG_VERDICT_FAST : lo >= t ? FG_VERDICT_SLOW : FG_VERDICT_SKIP;
}

/* The new rule on the counts of the first m of `looks` captures, as
 * fg_verdict_judge_commit decides them (bounds: the looks' boundaries). */
static fg_verdict *new_capture_verdict(const uint64_t *k, const uint64_t *n, size_t m, size_t looks,
                                       const double *bounds, const fg_verdict_options *o)
{
	fg_verdict *v = calloc(1, sizeof(*v));
	v->profiles = calloc(m, sizeof(*v->profiles));
	v->nprofiles = v->nread = v->captures = m;
	v->looks = looks;
	v->look_z = bounds[m - 1];
	for (size_t i = 0; i < m; i++) {
		fg_verdict_profile *p = &v->profiles[i];
		p->read = true;
		p->samples = k[i];
		p->total = n[i];
		p->share = fg_stats_percent(k[i], n[i]);
		v->samples += k[i];
		v->total += n[i];
	}
	fg_verdict_decide(v, o);
	return v;
}

struct capture_tally {
	size_t n, decided[2], wrong[2], captures[2], oracle_decided, oracle_wrong;
	size_t sampling, noise, used, looks; /* why the new rule skipped */
};

/* The oracle of `repeats` captures (a fixed number, no looks): the pooled
 * share against the threshold with FG_Z95 of its true standard deviation,
 * each capture's day noise and sampling at the truth. */
static enum fg_verdict_kind oracle_captures(uint64_t K, uint64_t N, size_t repeats, uint64_t samples, double truth,
                                            double noise)
{
	double p = truth / 100, sd = sqrt((noise * noise + 1e4 * p * (1 - p) / (double)samples) / (double)repeats);
	return oracle_kind(fg_stats_percent(K, N), sd, 4);
}

/* Why the new rule's final verdict v (all captures) is a skip, in order:
 * sampling (the pooled counts' Wilson interval holds the threshold), the
 * true noise (the oracle skips too), the noise the rule used (the interval
 * with it at FG_Z95 holds it), the looks (the boundary above FG_Z95 did). */
static void capture_why(struct capture_tally *t, const fg_verdict *v, enum fg_verdict_kind oracle)
{
	double lo, hi;
	fg_stats_wilson95(&lo, &hi, v->samples, v->total);
	if (holds(lo, hi, 4))
		t->sampling++;
	else if (oracle == FG_VERDICT_SKIP)
		t->noise++;
	else if (fg_stats_share_interval(&lo, &hi, v->samples, v->total, 1, v->noise), holds(lo, hi, 4))
		t->used++;
	else
		t->looks++;
}

/* A build lo-hi pp from the threshold, captured by a real command (sh,
 * cp) that emits the build's next resampled profile (a run of its own: the
 * truth plus 0.2 pp day noise), judged by fg_verdict_judge_commit with up
 * to `repeats` captures; the old rule on the same captures' counts. */
static void bench_captures(double lo, double hi, uint64_t samples, size_t repeats, size_t nbuilds, uint64_t seed,
                           fg_verdict_judge *judge, const fg_verdict_options *o, struct capture_tally *t)
{
	*t = (struct capture_tally){ 0 };
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
		double d = lo + (hi - lo) * rng_uniform(&seed), truth = b % 2 ? 4 + d : 4 - d;
		uint64_t k[8], n[8], K = 0, N = 0;
		for (size_t i = 1; i <= repeats; i++) {
			snprintf(path, sizeof(path), "%s/cap-%zu.collapsed", dir, i);
			if (resample_write(pool, path, samples, truth + 0.2 * rng_normal(&seed), &seed, &k[i - 1], &err)) {
				fprintf(stderr, "bench_verdicts: %s\n", err.message);
				exit(1);
			}
			n[i - 1] = samples;
			K += k[i - 1];
			N += samples;
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
		enum fg_verdict_kind wrong = truth >= 4 ? FG_VERDICT_FAST : FG_VERDICT_SLOW, old = FG_VERDICT_SKIP;
		size_t m = 0;
		while (old == FG_VERDICT_SKIP && m < repeats)
			old = old_capture_kind(k, n, ++m, fg_verdict_noise(o), 4);
		enum fg_verdict_kind oracle = oracle_captures(K, N, repeats, samples, truth, 0.2);
		t->n++;
		t->decided[0] += old != FG_VERDICT_SKIP;
		t->wrong[0] += old == wrong;
		t->captures[0] += m;
		t->decided[1] += v->kind != FG_VERDICT_SKIP;
		t->wrong[1] += v->kind == wrong;
		t->captures[1] += v->captures;
		t->oracle_decided += oracle != FG_VERDICT_SKIP;
		t->oracle_wrong += oracle == wrong;
		if (v->kind == FG_VERDICT_SKIP)
			capture_why(t, v, oracle);
		fg_verdict_free(v);
		for (size_t i = 1; i <= repeats; i++) {
			snprintf(path, sizeof(path), "%s/cap-%zu.collapsed", dir, i);
			unlink(path);
		}
	}
	snprintf(path, sizeof(path), "%s/ctr", dir);
	unlink(path);
	printf("  %.1f-%.1f pp  %-7llu %7zu   %6.1f%% %5.1f%% %5.2f   %6.1f%% %5.1f%% %5.2f   %6.1f%% %5.1f%%\n", lo, hi,
	       (unsigned long long)samples, repeats, pct(t->decided[0], t->n), pct(t->wrong[0], t->n),
	       (double)t->captures[0] / (double)t->n, pct(t->decided[1], t->n), pct(t->wrong[1], t->n),
	       (double)t->captures[1] / (double)t->n, pct(t->oracle_decided, t->n), pct(t->oracle_wrong, t->n));
}

/* The error at the threshold itself: commits whose true share is the
 * threshold less a hair (fast), captured until decided, each capture the
 * truth plus N(0, noise) and binomial sampling (normal approximation): the
 * share judged slow is the error a side of the whole sequence of looks,
 * of the old rule and the new one. */
static void bench_capture_error(uint64_t samples, size_t repeats, double noise, size_t ncommits, uint64_t seed,
                                const fg_verdict_options *o)
{
	double bounds[8];
	fg_stats_spending_bounds(bounds, repeats, 0.05);
	size_t slow[2] = { 0, 0 }, decided[2] = { 0, 0 };
	for (size_t c = 0; c < ncommits; c++) {
		uint64_t k[8], n[8];
		for (size_t i = 0; i < repeats; i++) {
			double p = (4 - 1e-9 + noise * rng_normal(&seed)) / 100, x;
			p = p < 0 ? 0 : p;
			x = round((double)samples * p + sqrt((double)samples * p * (1 - p)) * rng_normal(&seed));
			k[i] = x < 0 ? 0 : x > (double)samples ? samples : (uint64_t)x;
			n[i] = samples;
		}
		enum fg_verdict_kind kind[2] = { FG_VERDICT_SKIP, FG_VERDICT_SKIP };
		for (size_t m = 1; m <= repeats && kind[0] == FG_VERDICT_SKIP; m++)
			kind[0] = old_capture_kind(k, n, m, fg_verdict_noise(o), 4);
		for (size_t m = 1; m <= repeats && kind[1] == FG_VERDICT_SKIP; m++) {
			fg_verdict *v = new_capture_verdict(k, n, m, repeats, bounds, o);
			kind[1] = v->kind;
			fg_verdict_free(v);
		}
		for (int r = 0; r < 2; r++) {
			slow[r] += kind[r] == FG_VERDICT_SLOW;
			decided[r] += kind[r] != FG_VERDICT_SKIP;
		}
	}
	printf("  %-7llu %7zu %8.1f pp %9.2f%% %9.2f%%   %9.2f%% %9.2f%%\n", (unsigned long long)samples, repeats,
	       noise, pct(slow[0], ncommits), pct(decided[0], ncommits), pct(slow[1], ncommits),
	       pct(decided[1], ncommits));
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
	       "the builds (%zu builds a row, half below the threshold); bound: the oracle that knows the pooled\n"
	       "share's true standard deviation and decides beyond 1.96 of them (2.5%% a side, as the interval)\n",
	       nbuilds);
	printf("  %-10s %-7s %-10s %9s %7s   %9s %7s   %9s %7s\n", "distance", "samples", "disagree", "old wrong",
	       "skipped", "new wrong", "skipped", "bound: wrong", "skipped");
	static const double clear_bands[][2] = { { 0.1, 0.5 }, { 1.0, 2.0 } };
	static const uint64_t clear_samples[] = { 1000, 2500, 5000 };
	struct rule_tally clear[12];
	for (size_t b = 0; b < 2; b++)
		for (size_t k = 0; k < 3; k++)
			for (int dis = 0; dis < 2; dis++)
				bench_clear(clear_bands[b][0], clear_bands[b][1], clear_samples[k], dis ? 1.0 / 3 : 0,
				            nbuilds, seed + 30 + 6 * b + 2 * k + (uint64_t)dis, judges[0], &def,
				            &clear[6 * b + 2 * k + (size_t)dis]);
	printf("\n  why the new rule skipped (share of all builds; each skip once, in this order):\n"
	       "  sampling: the counts' Wilson interval alone holds the threshold; true noise: the oracle skips\n"
	       "  too; assumed > true: the default noise 0.24 pp, not the true 0.2, holds it; phi: the nodes'\n"
	       "  over-dispersion does (in brackets: a disagreeing node named).  The few-samples note changes no\n"
	       "  verdict and a build has one look: neither skips one\n");
	printf("  %-10s %-7s %-10s %8s %9s %11s %9s %6s\n", "distance", "samples", "disagree", "skipped", "sampling",
	       "true noise", "assumed > true", "phi");
	for (size_t b = 0; b < 2; b++)
		for (size_t k = 0; k < 3; k++)
			for (int dis = 0; dis < 2; dis++)
				print_clear_why(clear_bands[b][0], clear_bands[b][1], clear_samples[k], dis ? 1.0 / 3 : 0,
				                &clear[6 * b + 2 * k + (size_t)dis]);
	printf("\ncaptures: builds 0.2-0.5 pp from the threshold (and 0.5-1.5 pp: what the looks cost clear of it),\n"
	       "each capture a run of its own (day noise 0.2 pp), captured by a command until decided\n"
	       "(--capture-repeats); default noise (%zu builds a row; caps: captures a build).  New: the captures'\n"
	       "noise is the assumed one moderated by their spread (4 and k - 1 df, a t quantile), each capture a\n"
	       "look of a group-sequential test spending 5%% (2.5%% a side) as alpha t^3\n", nbuilds);
	printf("  %-10s %-7s %7s   %-21s   %-21s   %s\n", "", "", "", "old: max(assumed, est),",
	       "new: moderated noise,", "bound: the oracle,");
	printf("  %-10s %-7s %7s   %-21s   %-21s   %s\n", "", "", "", "z 1.96 every look", "spending boundary",
	       "true noise, all captures");
	printf("  %-10s %-7s %7s   %7s %6s %5s   %7s %6s %5s   %7s %6s\n", "distance", "samples", "repeats", "decided",
	       "wrong", "caps", "decided", "wrong", "caps", "decided", "wrong");
	static const uint64_t capture_samples[] = { 5000, 20000 };
	static const size_t capture_repeats[] = { 1, 3, 5 };
	struct capture_tally caps[6];
	for (size_t k = 0; k < 2; k++)
		for (size_t r = 0; r < 3; r++)
			bench_captures(0.2, 0.5, capture_samples[k], capture_repeats[r], nbuilds,
			               seed + 50 + 2 * k + capture_repeats[r], judges[0], &def, &caps[3 * k + r]);
	/* What the looks cost where most commits of a bisection are: clear of
	 * the threshold. */
	for (size_t k = 0; k < 2; k++) {
		struct capture_tally far;
		bench_captures(0.5, 1.5, capture_samples[k], 5, nbuilds, seed + 60 + k, judges[0], &def, &far);
	}
	printf("\n  why the new rule skipped (share of all builds; each skip once, in this order): sampling: the\n"
	       "  pooled counts' Wilson interval holds the threshold; true noise: the oracle skips too; noise used:\n"
	       "  the interval with the rule's noise at z 1.96 holds it; looks: the boundary above 1.96 did\n");
	printf("  %-7s %7s %8s %9s %11s %11s %6s\n", "samples", "repeats", "skipped", "sampling", "true noise",
	       "noise used", "looks");
	for (size_t k = 0; k < 6; k++) {
		const struct capture_tally *t = &caps[k];
		printf("  %-7llu %7zu %7.1f%% %8.1f%% %10.1f%% %10.1f%% %5.1f%%\n",
		       (unsigned long long)capture_samples[k / 3], capture_repeats[k % 3], pct(t->n - t->decided[1], t->n),
		       pct(t->sampling, t->n), pct(t->noise, t->n), pct(t->used, t->n), pct(t->looks, t->n));
	}
	printf("\n  the error at the threshold: %zu commits a row whose truth is 4%% (less a hair), captured until\n"
	       "  decided; \"slow\" is the error a side of the whole sequence of looks (nominal 2.5%%)\n",
	       20 * nbuilds);
	printf("  %-7s %7s %11s %10s %10s   %10s %10s\n", "samples", "repeats", "true noise", "old slow", "decided",
	       "new slow", "decided");
	for (size_t k = 0; k < 2; k++)
		for (size_t r = 0; r < 3; r++)
			for (int nz = 0; nz < 2; nz++)
				bench_capture_error(capture_samples[k], capture_repeats[r], nz ? 0.4 : 0.2, 20 * nbuilds,
				                    seed + 70 + 6 * k + 2 * r + (uint64_t)nz, &def);
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
