/* The diff benchmark: how the planted frame ranks and how many frames an
 * unchanged pair lists, by the significance rule of `diff` (docs/diff.md:
 * "new", with the run-to-run noise term) beside the same rule without it
 * ("last", --run-noise 0) and the old rule (|delta| > 1.5 points and > the
 * spread among the base profiles, ranked by delta), on seeded pairs of runs
 * resampled from real
 * profiles (tests/gen/resample.h): 3 nodes x 5,000 samples a run, 0.2 pp day
 * noise, 0.1 pp node noise, the planted class's stacks at --base percent in
 * the base run and that plus 0.5-1.5 points in the candidate.  Prints
 * figures; it is not a test.
 *
 * usage: bench_diff [--pairs N] [--seed S] [--base PCT] PROFILE...
 * (tests/bench/diff.sh gives it the shared daily profiles). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/diff.h"
#include "analysis/top.h"
#include "formats/reader.h"
#include "model/match.h"
#include "model/namemap.h"
#include "resample.h"

static const char *pattern = "TransactionalColumnFamily";
static char dir[256];
static resample *pool;

#define NODES 3

/* One pair read: the diffs (the new rule, and the last one: no run noise)
 * and each profile's counts per normalised name (the old rule's spread). */
struct pair {
	fg_names *names;
	fg_namemap *map;
	fg_matcher *ignore;
	fg_diff *diff, *last;
	fg_top_entry *entries[2 * NODES];
	size_t n[2 * NODES];
	uint64_t total[2 * NODES];
};

struct fanout {
	fg_diff *diff, *last;
	fg_top *top;
};

static int fan_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	struct fanout *f = ctx;
	int rc = fg_diff_frames(f->diff, frames, n, err);
	if (!rc)
		rc = fg_diff_frames(f->last, frames, n, err);
	return rc ? rc : fg_top_frames(f->top, frames, n, err);
}

static void pair_free(struct pair *p)
{
	for (size_t i = 0; i < 2 * NODES; i++)
		free(p->entries[i]);
	fg_diff_free(p->diff);
	fg_diff_free(p->last);
	fg_matcher_free(p->ignore);
	fg_namemap_free(p->map);
	fg_names_free(p->names);
	memset(p, 0, sizeof(*p));
}

static int pair_read(struct pair *p, char **files, fg_error *err)
{
	memset(p, 0, sizeof(*p));
	fg_diff_options o;
	fg_diff_options_init(&o);
	/* Every frame over the floor in the lists, ranked; those the default
	 * lists are those of q <= 5% (the q-values do not depend on fdr). */
	o.fdr = 1.0;
	fg_match_options mo = { .regex = false };
	int rc = fg_names_new(&p->names, err);
	if (!rc)
		rc = fg_namemap_new(&p->map, p->names, err);
	if (!rc)
		rc = fg_matcher_new(&p->ignore, o.ignore, o.nignore, &mo, err);
	if (!rc)
		rc = fg_diff_new(&p->diff, p->names, &o, err);
	o.run_noise = 0.0;
	if (!rc)
		rc = fg_diff_new(&p->last, p->names, &o, err);
	for (size_t i = 0; i < 2 * NODES && !rc; i++) {
		struct fanout f = { p->diff, p->last, NULL };
		fg_profile_info info;
		fg_diff_side side = i < NODES ? FG_DIFF_BASE : FG_DIFF_CANDIDATE;
		rc = fg_top_new(&f.top, fg_namemap_get, p->map, err);
		if (!rc)
			rc = fg_diff_begin(p->diff, side, err);
		if (!rc)
			rc = fg_diff_begin(p->last, side, err);
		if (!rc)
			rc = fg_reader_read(&info, files[i], p->names, NULL, &(fg_visitor){ fan_frames, NULL, &f, NULL, NULL },
					    err);
		if (!rc)
			rc = fg_top_entries(&p->entries[i], &p->n[i], f.top, false, err);
		p->total[i] = f.top ? fg_top_total(f.top) : 0;
		fg_top_free(f.top);
	}
	return rc;
}

static bool planted(const fg_names *names, uint32_t name)
{
	return strstr(fg_names_get(names, name), pattern) != NULL;
}

/* The old rule for one name (its counts s[], the profiles' in order): the
 * pooled delta, listed when |delta| > 1.5 and > the spread among the base
 * profiles (0% where a profile lacks it); *ignored: on the ignore list. */
static bool old_listed(double *delta, bool *ignored, const struct pair *p, const double *s, const uint64_t tot[2],
		       uint32_t name, fg_error *err)
{
	double pooled[2] = { 0, 0 }, lo = 100, hi = 0;
	for (size_t i = 0; i < 2 * NODES; i++) {
		pooled[i >= NODES] += s[i];
		if (i < NODES) {
			double v = 100.0 * s[i] / (double)p->total[i];
			lo = fmin(lo, v);
			hi = fmax(hi, v);
		}
	}
	*delta = 100.0 * pooled[1] / (double)tot[1] - 100.0 * pooled[0] / (double)tot[0];
	uint64_t mask = 0;
	*ignored = fg_matcher_test(&mask, p->ignore, p->names, name, err) || mask;
	return fabs(*delta) > 1.5 && fabs(*delta) > hi - lo && !*ignored;
}

/* The old rule over every name, ranked by delta.  *rank: the planted
 * class's first place among all grown frames not ignored, *hit: whether it
 * is listed; returns the frames listed. */
static size_t old_rule(const struct pair *p, size_t *rank, bool *hit, fg_error *err)
{
	uint32_t nn = fg_names_count(p->names);
	double *share = calloc((size_t)nn * 2 * NODES, sizeof(*share)), *delta = calloc(nn ? nn : 1, sizeof(*delta));
	bool *listed = calloc(nn ? nn : 1, sizeof(*listed)), *ignored = calloc(nn ? nn : 1, sizeof(*ignored));
	uint64_t tot[2] = { 0, 0 };
	for (size_t i = 0; share && i < 2 * NODES; i++) {
		tot[i >= NODES] += p->total[i];
		for (size_t k = 0; k < p->n[i]; k++)
			share[(size_t)p->entries[i][k].name * 2 * NODES + i] = (double)p->entries[i][k].samples;
	}
	size_t n = 0, better = 0;
	double best = -1.0;
	*hit = false;
	bool ok = share && delta && listed && ignored;
	for (uint32_t name = 0; ok && name < nn; name++) {
		listed[name] = old_listed(&delta[name], &ignored[name], p, &share[(size_t)name * 2 * NODES], tot, name, err);
		n += listed[name];
		if (!ignored[name] && delta[name] > 0 && planted(p->names, name) && delta[name] > best) {
			best = delta[name];
			*hit = listed[name];
		}
	}
	for (uint32_t name = 0; ok && name < nn; name++)
		better += !ignored[name] && delta[name] > best;
	*rank = best > 0 ? better + 1 : 0;
	free(share);
	free(delta);
	free(listed);
	free(ignored);
	return n;
}

struct tally {
	size_t pairs, first, top3, listed_planted, frames;
	size_t any; /* pairs listing any frame */
};

static void count(struct tally *t, size_t rank, bool hit, size_t frames)
{
	t->pairs++;
	t->first += rank == 1;
	t->top3 += rank >= 1 && rank <= 3;
	t->listed_planted += hit;
	t->frames += frames;
	t->any += frames > 0;
}

static double pct(size_t part, size_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print(const char *level, const char *rule, const struct tally *t, bool aa)
{
	if (aa)
		printf("  %-8s %-4s %5zu %8s %8s %9s %10.2f %11.1f%%\n", level, rule, t->pairs, "-", "-", "-",
		       20.0 * (double)t->frames / (double)(t->pairs ? t->pairs : 1), pct(t->any, t->pairs));
	else
		printf("  %-8s %-4s %5zu %7.1f%% %7.1f%% %8.1f%% %10.2f %11.1f%%\n", level, rule, t->pairs,
		       pct(t->first, t->pairs), pct(t->top3, t->pairs), pct(t->listed_planted, t->pairs),
		       20.0 * (double)t->frames / (double)(t->pairs ? t->pairs : 1), pct(t->any, t->pairs));
}

/* The significance rule of d over one pair: the planted class's first
 * place among the grown frames (in the list's order, or with by_z, the last
 * session's, by z), whether it is listed (q <= 5%), and the frames listed. */
static int sig_rule(struct tally *t, const struct pair *p, fg_diff *d, bool by_z, fg_error *err)
{
	fg_diff_result r = { 0 };
	int rc = fg_diff_compute(&r, d, err);
	size_t rank = 0, frames = 0;
	bool hit = false;
	for (size_t i = 0; !rc && i < r.ngrew; i++) {
		if (!rank && planted(p->names, r.grew[i].name)) {
			rank = i + 1;
			hit = r.grew[i].q <= 0.05;
		}
		frames += r.grew[i].q <= 0.05;
	}
	/* By z: the planted class's best z, and how many grown frames beat it. */
	double best = 0.0;
	for (size_t i = 0; !rc && by_z && i < r.ngrew; i++)
		if (planted(p->names, r.grew[i].name) && r.grew[i].z > best) {
			best = r.grew[i].z;
			hit = r.grew[i].q <= 0.05;
		}
	if (by_z && best > 0.0) {
		rank = 1;
		for (size_t i = 0; i < r.ngrew; i++)
			rank += r.grew[i].z > best;
	}
	for (size_t i = 0; !rc && i < r.nshrank; i++)
		frames += r.shrank[i].q <= 0.05;
	if (!rc)
		count(t, rank, hit, frames);
	fg_diff_result_free(&r);
	return rc;
}

/* What the generator made, to check it against what it was asked: per run
 * the planted class's pooled share, and per node its share's distance from
 * the run's (sums and sums of squares, points). */
struct made {
	double n, sum, sq;           /* the base runs' pooled planted share */
	double nodes, node_sq;       /* node share - run share */
};

/* The planted class's samples and the total of a collapsed file. */
static void planted_count(const char *path, double *hit, double *total)
{
	FILE *f = fopen(path, "r");
	char line[1 << 16];
	*hit = *total = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char *sp = strrchr(line, ' ');
		double n = sp ? strtod(sp + 1, NULL) : 0;
		*total += n;
		*hit += strstr(line, pattern) ? n : 0;
	}
	if (f)
		fclose(f);
}

static void made_add(struct made *m, char **files)
{
	double hit[NODES], total[NODES], h = 0, t = 0;
	for (size_t i = 0; i < NODES; i++) {
		planted_count(files[i], &hit[i], &total[i]);
		h += hit[i], t += total[i];
	}
	double run = 100.0 * h / t;
	m->n++, m->sum += run, m->sq += run * run;
	for (size_t i = 0; i < NODES; i++) {
		double d = 100.0 * hit[i] / total[i] - run;
		m->nodes++, m->node_sq += d * d;
	}
}

/* One pair at base and base + delta; adds to the tallies (new, last, old)
 * and, its base run, to what the generator made. */
static int bench_pair(struct tally t[3], struct made *m, double base, double delta, uint64_t *rng, fg_error *err)
{
	resample_run_options ro;
	resample_run_options_init(&ro);
	char *files[2 * NODES] = { 0 };
	int rc = resample_run(files, pool, &ro, base, rng, dir, "b", err);
	if (!rc)
		rc = resample_run(files + NODES, pool, &ro, base + delta, rng, dir, "c", err);
	if (!rc)
		made_add(m, files);
	struct pair p;
	if (!rc)
		rc = pair_read(&p, files, err);
	if (!rc)
		rc = sig_rule(&t[0], &p, p.diff, false, err);
	if (!rc)
		rc = sig_rule(&t[1], &p, p.last, true, err);
	if (!rc) {
		size_t rank;
		bool hit;
		size_t frames = old_rule(&p, &rank, &hit, err);
		count(&t[2], rank, hit, frames);
	}
	pair_free(&p);
	for (size_t i = 0; i < 2 * NODES; i++) {
		if (files[i])
			unlink(files[i]);
		free(files[i]);
	}
	return rc;
}

int main(int argc, char **argv)
{
	size_t npairs = 200;
	uint64_t seed = 1;
	double base = 2.9;
	int i = 1;
	for (; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--pairs"))
			npairs = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--seed"))
			seed = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--base"))
			base = strtod(argv[i + 1], NULL);
		else
			break;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: bench_diff [--pairs N] [--seed S] [--base PCT] PROFILE...\n");
		return 2;
	}
	fg_error err;
	if (resample_new(&pool, (const char **)argv + i, (size_t)(argc - i), pattern, &err)) {
		fprintf(stderr, "bench_diff: %s: %s\n", err.source, err.message);
		return 1;
	}
	const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(dir, sizeof(dir), "%s/fg-bench-XXXXXX", tmp);
	if (!mkdtemp(dir))
		return 1;
	printf("pairs of runs: %d nodes x 5000 samples, 0.2 pp day noise, 0.1 pp node noise; %s stacks at %.2f%% in\n"
	       "the base, + the planted change in the candidate; stacks resampled from %d profiles (seed %llu)\n"
	       "new: significance with the run-to-run noise (%.1f%% of p(1-p) a run; BH 5%%, floor 0.25 pp), ranked\n"
	       "by |delta| - noise; last (the last rule): without it (--run-noise 0), ranked by z; old: |delta| >\n"
	       "1.5 pp and > the bases' spread, ranked by delta.  first, top 3: the planted class's best frame among\n"
	       "all grown frames (listed or not); listed: it is listed; frames/20: frames listed per 20 diffs; any\n"
	       "listed: pairs listing any\n\n",
	       NODES, pattern, base, argc - i, (unsigned long long)seed, FG_DIFF_RUN_NOISE);
	printf("  %-8s %-4s %5s %8s %8s %9s %10s %12s\n", "planted", "rule", "pairs", "first", "top 3", "listed",
	       "frames/20", "any listed");
	static const double levels[] = { 0.0, 0.5, 0.75, 1.0, 1.25, 1.5 };
	static const char *const rules[3] = { "new", "last", "old" };
	struct tally hi[3] = { { 0 } };
	struct made made = { 0 };
	int rc = 0;
	for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]) && !rc; l++) {
		struct tally t[3] = { { 0 } };
		uint64_t rng = seed * UINT64_C(0x9e3779b97f4a7c15) + l;
		for (size_t k = 0; k < npairs && !rc; k++)
			rc = bench_pair(t, &made, base, levels[l], &rng, &err);
		char name[16];
		snprintf(name, sizeof(name), l ? "%.2f pp" : "A/A", levels[l]);
		for (int r = 0; r < 3; r++) {
			print(r ? "" : name, rules[r], &t[r], l == 0);
			if (levels[l] < 1.0)
				continue;
			hi[r].pairs += t[r].pairs, hi[r].first += t[r].first, hi[r].top3 += t[r].top3;
			hi[r].listed_planted += t[r].listed_planted, hi[r].frames += t[r].frames, hi[r].any += t[r].any;
		}
	}
	if (!rc) {
		for (int r = 0; r < 3; r++)
			print(r ? "" : "1.0-1.5", rules[r], &hi[r], false);
		/* A run's pooled share: day noise, a third of the node noise's
		 * variance and sampling; a node's from its run's: node noise and
		 * sampling (less the run's own, a third). */
		double p = base / 100.0, mean = made.sum / made.n;
		double run_sd = sqrt(made.sq / made.n - mean * mean);
		double want_run = sqrt(0.04 + 0.01 / NODES + 1e4 * p * (1 - p) / (NODES * 5000.0));
		double want_node = sqrt((0.01 + 1e4 * p * (1 - p) / 5000.0) * (NODES - 1) / NODES);
		printf("\ngenerator check over the %.0f base runs: the planted share %.3f%% (asked %.2f%%), between runs\n"
		       "sd %.3f pp (day, node and sampling noise asked: %.3f), a node from its run sd %.3f pp (%.3f)\n",
		       made.n, mean, base, run_sd, want_run, sqrt(made.node_sq / made.nodes), want_node);
	} else {
		fprintf(stderr, "bench_diff: %s: %s\n", err.source, err.message);
	}
	rmdir(dir);
	resample_free(pool);
	return rc ? 1 : 0;
}
