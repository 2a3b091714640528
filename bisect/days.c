#include "bisect/days.h"
#include "formats/source.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "base/stats.h"

struct fg_days {
	enum fg_days_outcome outcome;
	fg_verdict **verdicts; /* per run of the selection, NULL until judged */
	size_t nruns;
	fg_days_step *steps;
	size_t nsteps;
	size_t asked_good, asked_bad, good, bad, last_fast, first_slow;
	size_t fetched, downloaded;
	bool auto_on;                /* --threshold auto ... */
	bool auto_ready;             /* ... and the threshold is known: verdicts are concluded at it */
	fg_verdict_options auto_opts;
	fg_verdict_auto autot;
	bool scanned;                /* --scan: every run judged, the change points found */
	fg_days_changes changes;
	size_t *points;              /* the run of each point of the scan */
	const fg_days_change *rise;  /* the rise taken as the regression, or NULL */
	void (*judged)(void *ctx, size_t run, const fg_verdict *v); /* progress */
	void *judged_ctx;
	bool narrowed;               /* --threshold auto: the change point narrowed the window */
	bool fell_back;              /* --threshold auto: the ends did not separate, every run was scanned */
	fg_verdict_auto ends;        /* then: how the ends compared */
	size_t untold;               /* a threshold: the end that could not be told, every run scanned */
	fg_days_change span;         /* the rise between the ends, when rise points here */
	double span_noise;           /* the noise its test used */
	size_t npoints;
};

static int scan_all(fg_days *d, const fg_days_options *opts, fg_days_judge_fn fn, void *ctx, fg_error *err);
static int narrow_window(fg_days *d, const fg_days_options *opts, fg_error *err);

void fg_days_options_init(fg_days_options *opts)
{
	opts->good = NULL;
	opts->bad = NULL;
	opts->auto_threshold = NULL;
	opts->noise = -1;
	opts->auto_search_only = false;
	opts->judged = NULL;
	opts->judged_ctx = NULL;
}

void fg_days_free(fg_days *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nruns; i++)
		fg_verdict_free(d->verdicts[i]);
	free(d->verdicts);
	free(d->steps);
	free(d->points);
	fg_days_changes_clear(&d->changes);
	free(d);
}

/* Judges run i once; later calls return the first verdict. */
static int judge_once(const fg_verdict **out, fg_days *d, fg_days_judge_fn fn, void *ctx, size_t i,
                      fg_error *err)
{
	if (!d->verdicts[i]) {
		int rc = fn(ctx, &d->verdicts[i], i, err);
		if (rc)
			return rc;
		if (d->judged)
			d->judged(d->judged_ctx, i, d->verdicts[i]);
		if (d->auto_ready)
			fg_verdict_conclude(d->verdicts[i], &d->auto_opts);
		const fg_verdict *v = d->verdicts[i];
		d->fetched += v->nprofiles;
		d->downloaded += v->downloaded;
		d->steps[d->nsteps].run = i;
		d->steps[d->nsteps++].verdict = v;
	}
	*out = d->verdicts[i];
	return 0;
}

/* The untested run in (lo, hi) nearest the middle, the lower one on a tie;
 * hi when none is left. */
static size_t next_run(const fg_days *d, size_t lo, size_t hi)
{
	size_t mid = lo + (hi - lo) / 2;
	for (size_t off = 0; mid >= lo + 1 + off || mid + off < hi; off++) {
		if (mid >= lo + 1 + off && !d->verdicts[mid - off])
			return mid - off;
		if (mid + off < hi && !d->verdicts[mid + off])
			return mid + off;
	}
	return hi;
}

static int find_end(size_t *out, const fg_runs_selection *sel, const char *date, bool good, fg_error *err)
{
	size_t n = fg_runs_selection_count(sel);
	if (!date) {
		*out = good ? 0 : n - 1;
		return 0;
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = good ? n - 1 - k : k;
		int c = strcmp(fg_runs_selection_at(sel, i)->date, date);
		if (good ? c <= 0 : c >= 0) {
			*out = i;
			return 0;
		}
	}
	return fg_error_set(err, FG_EUSAGE, date, "no run dated %s %s", good ? "on or before" : "on or after",
	                    date);
}

/* Judges runs from *end towards stop (a step of +1 or -1) until one can be
 * decided (readable: one with a usable profile, whatever its verdict), and
 * leaves *end on it, or on stop when none can. */
static int decidable_end(const fg_verdict **v, size_t *end, size_t stop, int step, fg_days *d, fg_days_judge_fn fn,
                         void *ctx, bool readable, fg_error *err)
{
	for (;;) {
		int rc = judge_once(v, d, fn, ctx, *end, err);
		if (rc || *end == stop || (readable ? (*v)->basis != FG_BASIS_INPUT : (*v)->kind != FG_VERDICT_SKIP))
			return rc;
		*end = step > 0 ? *end + 1 : *end - 1;
	}
}

/* --threshold auto: the nearest readable runs from both ends give the
 * threshold, and what was judged so far is decided at it.  False when the
 * ends do not separate (the outcome is set). */
static int auto_threshold(bool *found, fg_days *d, fg_days_judge_fn fn, void *ctx, fg_error *err)
{
	const fg_verdict *vg, *vb;
	*found = false;
	int rc = decidable_end(&vg, &d->good, d->bad, +1, d, fn, ctx, true, err);
	if (!rc && d->good < d->bad) {
		size_t bad = d->bad;
		rc = decidable_end(&vb, &bad, d->good + 1, -1, d, fn, ctx, true, err);
		if (!rc)
			fg_verdict_auto_threshold(&d->autot, vg, vb, &d->auto_opts);
	}
	if (rc)
		return rc;
	if (!d->autot.separated) {
		d->outcome = FG_DAYS_ENDS_NOT_SEPARATED;
		return 0;
	}
	d->auto_opts.threshold = d->autot.threshold;
	d->auto_ready = true;
	for (size_t i = 0; i < d->nruns; i++)
		if (d->verdicts[i])
			fg_verdict_conclude(d->verdicts[i], &d->auto_opts);
	*found = true;
	return 0;
}

static int days_new(fg_days **out, fg_days **d, size_t n, size_t good, size_t bad, const fg_days_options *opts,
                    fg_error *err)
{
	*out = NULL;
	if (!(*d = calloc(1, sizeof(**d))) || !((*d)->verdicts = calloc(n, sizeof(*(*d)->verdicts))) ||
	    !((*d)->steps = calloc(n, sizeof(*(*d)->steps)))) {
		fg_days_free(*d);
		return fg_error_oom(err, NULL);
	}
	(*d)->nruns = n;
	(*d)->last_fast = (*d)->first_slow = (*d)->untold = SIZE_MAX;
	(*d)->asked_good = (*d)->good = good;
	(*d)->asked_bad = (*d)->bad = bad;
	if (opts) {
		(*d)->judged = opts->judged;
		(*d)->judged_ctx = opts->judged_ctx;
	}
	if (opts && opts->auto_threshold) {
		(*d)->auto_on = true;
		(*d)->auto_opts = *opts->auto_threshold;
	}
	return 0;
}

int fg_days_search_runs(fg_days **out, size_t n, size_t good, size_t bad, const fg_days_options *opts,
                        fg_days_judge_fn fn, void *ctx, fg_error *err)
{
	fg_days *d;
	int rc = days_new(out, &d, n, good, bad, opts, err);
	if (rc)
		return rc;
	const fg_verdict *v;
	if (d->auto_on) {
		bool found;
		if ((rc = auto_threshold(&found, d, fn, ctx, err)))
			goto fail;
		/* Ends that were read but do not separate: every run. */
		if (!found && d->autot.threshold && !opts->auto_search_only) {
			d->ends = d->autot;
			d->fell_back = true;
			if ((rc = scan_all(d, opts, fn, ctx, err)))
				goto fail;
		}
		if (!found) {
			*out = d;
			return 0;
		}
	}
	rc = decidable_end(&v, &d->good, bad, +1, d, fn, ctx, false, err);
	if (rc)
		goto fail;
	if (v->kind != FG_VERDICT_FAST) {
		d->outcome = FG_DAYS_GOOD_NOT_FAST;
		goto untold;
	}
	/* Every run after the good end may be undecidable: the bad end then
	 * stops on the run next to it, the last one tried. */
	if ((rc = decidable_end(&v, &d->bad, d->good + 1, -1, d, fn, ctx, false, err)))
		goto fail;
	if (v->kind != FG_VERDICT_SLOW) {
		d->outcome = FG_DAYS_BAD_NOT_SLOW;
		goto untold;
	}
	size_t lo = d->good, hi = d->bad;
	for (size_t mid; (mid = next_run(d, lo, hi)) != hi;) {
		if ((rc = judge_once(&v, d, fn, ctx, mid, err)))
			goto fail;
		if (v->kind == FG_VERDICT_FAST)
			lo = mid;
		else if (v->kind == FG_VERDICT_SLOW)
			hi = mid;
	}
	d->outcome = FG_DAYS_FOUND;
	d->last_fast = lo;
	d->first_slow = hi;
	if (d->auto_on && !opts->auto_search_only && hi > lo + 1 && (rc = narrow_window(d, opts, err)))
		goto fail;
	*out = d;
	return 0;
untold:
	/* An end as asked that cannot be told at the threshold (its interval
	 * holds it) says nothing against the ends: every run is scanned.  One
	 * judged on the wrong side refuses the search (a mistyped frame or
	 * threshold should not fetch every run). */
	for (size_t end = d->asked_good;; end = d->asked_bad) {
		const fg_verdict *e = d->verdicts[end];
		if (!d->auto_on && (!opts || !opts->auto_search_only) && e && e->kind == FG_VERDICT_SKIP &&
		    e->basis != FG_BASIS_INPUT) {
			d->untold = end;
			if ((rc = scan_all(d, opts, fn, ctx, err)))
				goto fail;
			break;
		}
		if (end == d->asked_bad)
			break;
	}
	*out = d;
	return 0;
fail:
	fg_days_free(d);
	return rc;
}

struct judge_runs {
	fg_verdict_judge *judge;
	const fg_runs_selection *sel;
};

static int judge_run(void *ctx, fg_verdict **out, size_t run, fg_error *err)
{
	const struct judge_runs *j = ctx;
	return fg_verdict_judge_run(out, j->judge, fg_runs_selection_at(j->sel, run), err);
}

/* The ends as asked: --good and --bad, else the oldest and newest runs. */
static int selection_ends(size_t *good, size_t *bad, const fg_runs_selection *sel, const fg_days_options *opts,
                          fg_error *err)
{
	size_t n = fg_runs_selection_count(sel);
	if (n < 2)
		return fg_error_set(err, FG_ECONFIG, NULL, "a day search needs at least two runs, the runs file has %zu",
		                    n);
	int rc = find_end(good, sel, opts ? opts->good : NULL, true, err);
	if (!rc)
		rc = find_end(bad, sel, opts ? opts->bad : NULL, false, err);
	if (!rc && *good >= *bad)
		rc = fg_error_set(err, FG_EUSAGE, NULL, "the good run (%s) must be older than the bad run (%s)",
		                  fg_runs_selection_at(sel, *good)->date, fg_runs_selection_at(sel, *bad)->date);
	return rc;
}

int fg_days_search(fg_days **out, fg_verdict_judge *judge, const fg_runs_selection *sel,
                   const fg_days_options *opts, fg_error *err)
{
	*out = NULL;
	size_t good, bad;
	int rc = selection_ends(&good, &bad, sel, opts, err);
	if (rc)
		return rc;
	struct judge_runs ctx = { judge, sel };
	return fg_days_search_runs(out, fg_runs_selection_count(sel), good, bad, opts, judge_run, &ctx, err);
}

const fg_verdict_auto *fg_days_auto(const fg_days *d)
{
	return d->auto_on ? &d->autot : NULL;
}

enum fg_days_outcome fg_days_result(const fg_days *d)
{
	return d->outcome;
}

size_t fg_days_step_count(const fg_days *d)
{
	return d->nsteps;
}

const fg_days_step *fg_days_step_at(const fg_days *d, size_t i)
{
	return &d->steps[i];
}

size_t fg_days_asked_good(const fg_days *d)
{
	return d->asked_good;
}

size_t fg_days_asked_bad(const fg_days *d)
{
	return d->asked_bad;
}

size_t fg_days_good(const fg_days *d)
{
	return d->good;
}

size_t fg_days_bad(const fg_days *d)
{
	return d->bad;
}

size_t fg_days_last_fast(const fg_days *d)
{
	return d->last_fast;
}

size_t fg_days_first_slow(const fg_days *d)
{
	return d->first_slow;
}

const fg_verdict *fg_days_verdict(const fg_days *d, size_t run)
{
	return run < d->nruns ? d->verdicts[run] : NULL;
}

size_t fg_days_fetched_profiles(const fg_days *d)
{
	return d->fetched;
}

size_t fg_days_downloaded_profiles(const fg_days *d)
{
	return d->downloaded;
}

/* Streams the profiles of one run that its verdict read into one side of
 * the diff (the verdict's profiles are the run's lines, in order). */
static int diff_side(fg_diff *diff, fg_names *names, fg_diff_side side, const fg_runs_run *run,
                     const fg_verdict *v, const fg_fetch_options *fetch, const fg_read_options *read, fg_error *err)
{
	const char **sources = calloc(run->nlines ? run->nlines : 1, sizeof(*sources));
	fg_fetch_result *fetched = calloc(run->nlines ? run->nlines : 1, sizeof(*fetched));
	int rc = !sources || !fetched ? fg_error_oom(err, NULL) : 0;
	size_t n = 0;
	for (size_t i = 0; !rc && i < run->nlines; i++)
		if (i < v->nprofiles && v->profiles[i].read)
			sources[n++] = run->lines[i]->resolved;
	if (!rc)
		fg_fetch_many(fetched, sources, n, fetch);
	for (size_t i = 0; !rc && i < n; i++) {
		fg_profile_info info;
		if (fetched[i].err.code) {
			*err = fetched[i].err;
			rc = err->code;
		}
		if (!rc)
			rc = fg_diff_begin(diff, side, err);
		if (!rc)
			rc = fg_source_read_fetched(&info, sources[i], fetched[i].path, names, read,
						    &(fg_visitor){ fg_diff_frames, NULL, diff, NULL, NULL }, err);
	}
	for (size_t i = 0; fetched && i < n; i++)
		fg_fetch_result_clear(&fetched[i]);
	free(fetched);
	free(sources);
	return rc;
}

int fg_days_diff(fg_diff **out, fg_names *names, const fg_days *d, const fg_runs_selection *sel,
                 const fg_fetch_options *fetch, const fg_read_options *read, fg_error *err)
{
	fg_diff_options dopts;
	fg_diff_options_init(&dopts);
	dopts.trees = true;
	fg_diff *diff = NULL;
	/* A rise between the ends: the runs read on each side of the window. */
	bool pooled = fg_days_window_kind(d) == FG_DAYS_WINDOW_RISE;
	size_t from[2] = { pooled ? d->points[0] : d->last_fast, d->first_slow },
	       to[2] = { d->last_fast, pooled ? d->points[d->npoints - 1] : d->first_slow };
	int rc = fg_diff_new(&diff, names, &dopts, err);
	for (int side = 0; side < 2; side++)
		for (size_t i = from[side]; !rc && i <= to[side]; i++)
			if (d->verdicts[i] && d->verdicts[i]->basis != FG_BASIS_INPUT)
				rc = diff_side(diff, names, side ? FG_DIFF_CANDIDATE : FG_DIFF_BASE,
				               fg_runs_selection_at(sel, i), d->verdicts[i], fetch, read, err);
	if (rc) {
		fg_diff_free(diff);
		return rc;
	}
	*out = diff;
	return 0;
}

int fg_days_look_up_window(fg_days_window *out, fg_repo *repo, const char *dir, fg_diff *diff, const fg_names *names,
			   const fg_explain_options *eo, fg_error *err)
{
	memset(out, 0, sizeof(*out));
	int rc = fg_repo_log_range(&out->log, repo, eo->good, eo->bad, NULL, err);
	return rc ? rc : fg_explain_window(&out->explain, repo, dir, diff, names, eo, err);
}

void fg_days_window_clear(fg_days_window *w)
{
	fg_explain_clear(&w->explain);
	fg_repo_log_free(w->log);
	memset(w, 0, sizeof(*w));
}

/* --scan: binary segmentation (days.h). */

struct segmentation {
	const fg_days_point *pts;
	double *w;     /* per point: 1 / (sampling^2 + noise^2) */
	double *z;     /* per split k (1..n-1) of the segment being searched */
	fg_days_change *changes;
	size_t n, nchanges;
};

/* z of every split of [a, b) into s->z, the largest |z| (the first on a
 * tie) into *best; 0 when the segment has no split. */
static size_t split_all(struct segmentation *s, size_t a, size_t b)
{
	double W = 0, WX = 0, wl = 0, wxl = 0;
	for (size_t i = a; i < b; i++) {
		W += s->w[i];
		WX += s->w[i] * s->pts[i].share;
	}
	size_t best = 0;
	for (size_t k = a + 1; k < b; k++) {
		wl += s->w[k - 1];
		wxl += s->w[k - 1] * s->pts[k - 1].share;
		double wr = W - wl, wxr = WX - wxl;
		s->z[k] = (wxr / wr - wxl / wl) / sqrt(1 / wl + 1 / wr);
		if (!best || fabs(s->z[k]) > fabs(s->z[best]))
			best = k;
	}
	return best;
}

static void weighted_mean(double *mean, double *se, const struct segmentation *s, size_t a, size_t b)
{
	double W = 0, WX = 0;
	for (size_t i = a; i < b; i++) {
		W += s->w[i];
		WX += s->w[i] * s->pts[i].share;
	}
	*mean = WX / W;
	*se = 1 / sqrt(W);
}

/* Finds the change points of [a, b), in the order they are found. */
static void segment(struct segmentation *s, size_t a, size_t b)
{
	size_t k = b - a >= 2 ? split_all(s, a, b) : 0;
	if (!k)
		return;
	double p = (double)(b - a - 1) * erfc(fabs(s->z[k]) / sqrt(2));
	if (p > 1 - FG_DAYS_SCAN_CONFIDENCE)
		return;
	s->changes[s->nchanges++].at = k;
	segment(s, a, k);
	segment(s, k, b);
}

/* A change at k of the segment [a, b) whose splits' z are in s->z, with
 * its p: the means either side, z, the confidence, and the location set
 * (splits of the same sign). */
static void describe_split(fg_days_change *c, const struct segmentation *s, size_t a, size_t b, size_t k, double p)
{
	double z = s->z[k];
	*c = (fg_days_change){ .at = k, .lo = k, .hi = k, .z = z, .confidence = p >= 1 ? 0 : 1 - p };
	for (size_t j = a + 1; j < b; j++)
		if (s->z[j] * z > 0 && z * z - s->z[j] * s->z[j] <= FG_DAYS_SCAN_LOCATION) {
			c->lo = j < c->lo ? j : c->lo;
			c->hi = j > c->hi ? j : c->hi;
		}
	weighted_mean(&c->before, &c->before_se, s, a, k);
	weighted_mean(&c->after, &c->after_se, s, k, b);
}

/* A change found, described in the segment between its neighbouring
 * change points [a, b), with the confidence of a step there. */
static void describe_change(fg_days_change *c, struct segmentation *s, size_t a, size_t b)
{
	split_all(s, a, b);
	describe_split(c, s, a, b, c->at, (double)(b - a - 1) * erfc(fabs(s->z[c->at]) / sqrt(2)));
}

/* The weights of pts under noise into w. */
static void noise_weights(double *w, const fg_days_point *pts, size_t n, double noise)
{
	for (size_t i = 0; i < n; i++)
		w[i] = 1 / (pts[i].sampling * pts[i].sampling + noise * noise);
}

static int by_position(const void *a, const void *b)
{
	size_t x = ((const fg_days_change *)a)->at, y = ((const fg_days_change *)b)->at;
	return x < y ? -1 : x > y;
}

/* The run-to-run noise the spread about the segments' means suggests. */
static void segments_noise(fg_days_changes *out, const struct segmentation *s)
{
	double ss = 0, sampling = 0;
	for (size_t c = 0, a = 0; c <= s->nchanges; c++) {
		size_t b = c < s->nchanges ? s->changes[c].at : s->n;
		double sum = 0, sumsq = 0;
		for (size_t i = a; i < b; i++) {
			sum += s->pts[i].share;
			sumsq += s->pts[i].share * s->pts[i].share;
			sampling += s->pts[i].sampling * s->pts[i].sampling;
		}
		ss += sumsq - sum * sum / (double)(b - a);
		a = b;
	}
	out->noise_df = s->n - s->nchanges - 1;
	double between = out->noise_df ? ss / (double)out->noise_df - sampling / (double)s->n : 0;
	out->noise_estimate = between > 0 ? sqrt(between) : 0;
}

static int by_share(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double default_noise(const fg_days_point *pts, size_t n)
{
	double *shares = malloc(n * sizeof(*shares));
	if (!shares)
		return -1;
	for (size_t i = 0; i < n; i++)
		shares[i] = pts[i].share;
	qsort(shares, n, sizeof(*shares), by_share);
	double median = n % 2 ? shares[n / 2] : (shares[n / 2 - 1] + shares[n / 2]) / 2;
	free(shares);
	return FG_VERDICT_NOISE_FRACTION * median;
}

int fg_days_rise_between(bool *rose, fg_days_change *out, double *noise, const fg_days_point *pts, size_t n,
                         double floor, fg_error *err)
{
	*rose = false;
	*noise = floor;
	if (n < 3)
		return 0;
	fg_days_changes est = { 0 };
	struct segmentation s = { pts, calloc(n, sizeof(double)), calloc(n, sizeof(double)),
		                  calloc(1, sizeof(fg_days_change)), n, 1 };
	size_t best = 0;
	int rc = s.w && s.z && s.changes ? 0 : fg_error_oom(err, NULL);
	for (int round = 0; !rc && round < FG_DAYS_SCAN_ROUNDS; round++) {
		noise_weights(s.w, pts, n, *noise);
		split_all(&s, 0, n);
		best = 0;
		for (size_t k = 1; k < n; k++)
			if (s.z[k] > 0 && (!best || s.z[k] > s.z[best]))
				best = k;
		if (!best)
			break;
		/* The noise about the two sides of the best split, never below
		 * the floor, as the segmentation's about its segments. */
		s.changes[0].at = best;
		segments_noise(&est, &s);
		if (est.noise_estimate <= *noise * (1 + 1e-9) || round + 1 == FG_DAYS_SCAN_ROUNDS) {
			/* One-sided, Bonferroni over the n - 1 splits. */
			double p = (double)(n - 1) * erfc(s.z[best] / sqrt(2)) / 2;
			if ((*rose = p <= 1 - FG_DAYS_RISE_CONFIDENCE))
				describe_split(out, &s, 0, n, best, p);
			break;
		}
		*noise = est.noise_estimate;
	}
	free(s.w);
	free(s.z);
	free(s.changes);
	return rc;
}

int fg_days_changepoints(fg_days_changes *out, const fg_days_point *pts, size_t n, double noise, fg_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!n)
		return 0;
	struct segmentation s = { pts, calloc(n, sizeof(double)), calloc(n, sizeof(double)),
		                  calloc(n, sizeof(fg_days_change)), n, 0 };
	if (noise < 0)
		noise = default_noise(pts, n);
	if (!s.w || !s.z || !s.changes || noise < 0) {
		free(s.w);
		free(s.z);
		free(s.changes);
		return fg_error_oom(err, NULL);
	}
	out->noise_floor = out->noise = noise;
	for (int round = 0; round < FG_DAYS_SCAN_ROUNDS; round++) {
		noise_weights(s.w, pts, n, out->noise);
		s.nchanges = 0;
		segment(&s, 0, n);
		qsort(s.changes, s.nchanges, sizeof(*s.changes), by_position);
		segments_noise(out, &s);
		/* Never below the floor; a larger spread is segmented again. */
		if (out->noise_estimate <= out->noise * (1 + 1e-9) || round + 1 == FG_DAYS_SCAN_ROUNDS)
			break;
		out->noise = out->noise_estimate;
	}
	for (size_t c = 0; c < s.nchanges; c++)
		describe_change(&s.changes[c], &s, c ? s.changes[c - 1].at : 0,
		                c + 1 < s.nchanges ? s.changes[c + 1].at : n);
	free(s.w);
	free(s.z);
	out->changes = s.changes;
	out->n = s.nchanges;
	return 0;
}

void fg_days_changes_clear(fg_days_changes *c)
{
	free(c->changes);
	memset(c, 0, sizeof(*c));
}

/* The standard deviation of a run's share from its counts (phi included). */
static double sampling_sd(const fg_verdict *v)
{
	double lo, hi;
	fg_stats_share_interval(&lo, &hi, v->samples, v->total, v->phi, 0);
	return (hi - lo) / (2 * FG_Z95);
}

/* --scan with --threshold auto: the threshold half way between the two
 * sides of the rise, every verdict decided at it. */
static void scan_threshold(fg_days *d)
{
	const fg_days_change *c = d->rise;
	fg_verdict_auto *a = &d->autot;
	a->threshold = round((c->before + c->after) / 2 * 100) / 100;
	a->good = c->before;
	a->bad = c->after;
	a->good_sd = c->before_se;
	a->bad_sd = c->after_se;
	a->distance = fmin((a->threshold - a->good) / a->good_sd, (a->bad - a->threshold) / a->bad_sd);
	a->separated = true;
	d->auto_opts.threshold = a->threshold;
	for (size_t i = 0; i < d->nruns; i++)
		if (d->verdicts[i])
			fg_verdict_conclude(d->verdicts[i], &d->auto_opts);
}

/* The change points of the judged runs in [from, to] that were read;
 * d->rise the rise of the largest z (a fall, a fix, or a smaller rise is
 * listed, not taken). */
static int find_rise(fg_days *d, size_t from, size_t to, double noise, fg_error *err)
{
	free(d->points);
	fg_days_changes_clear(&d->changes);
	d->rise = NULL;
	fg_days_point *pts = calloc(d->nruns, sizeof(*pts));
	if (!pts || !(d->points = calloc(d->nruns, sizeof(*d->points)))) {
		free(pts);
		return fg_error_oom(err, NULL);
	}
	size_t npoints = 0;
	for (size_t i = from; i <= to; i++) {
		const fg_verdict *v = d->verdicts[i];
		if (v && v->basis != FG_BASIS_INPUT && v->total) {
			pts[npoints] = (fg_days_point){ v->pooled, sampling_sd(v) };
			d->points[npoints++] = i;
		}
	}
	int rc = fg_days_changepoints(&d->changes, pts, npoints, noise, err);
	for (size_t c = 0; !rc && c < d->changes.n; c++)
		if (d->changes.changes[c].z > 0 && (!d->rise || d->changes.changes[c].z > d->rise->z))
			d->rise = &d->changes.changes[c];
	/* No change point rises: whether the share rose between the ends. */
	d->npoints = npoints;
	bool rose = false;
	if (!rc && !d->rise)
		rc = fg_days_rise_between(&rose, &d->span, &d->span_noise, pts, npoints, d->changes.noise_floor, err);
	if (rose)
		d->rise = &d->span;
	free(pts);
	return rc;
}

/* Judges every run between the asked ends and takes the rise as the
 * answer (fg_days_scan). */
static int scan_all(fg_days *d, const fg_days_options *opts, fg_days_judge_fn fn, void *ctx, fg_error *err)
{
	d->scanned = true;
	int rc = 0;
	for (size_t i = d->asked_good; !rc && i <= d->asked_bad; i++) {
		const fg_verdict *v;
		rc = judge_once(&v, d, fn, ctx, i, err);
	}
	if (!rc)
		rc = find_rise(d, d->asked_good, d->asked_bad, opts ? opts->noise : -1, err);
	if (rc)
		return rc;
	d->outcome = d->rise ? FG_DAYS_FOUND : FG_DAYS_NO_RISE;
	if (d->rise) {
		d->last_fast = d->points[d->rise->lo - 1];
		d->first_slow = d->points[d->rise->hi];
		if (d->auto_on)
			scan_threshold(d);
	}
	return 0;
}

/* --threshold auto, a window of several runs: the change point of the runs
 * judged narrows it when its location set lies inside (docs/bisect.md). */
static int narrow_window(fg_days *d, const fg_days_options *opts, fg_error *err)
{
	int rc = find_rise(d, d->good, d->bad, opts->noise, err);
	if (rc || !d->rise)
		return rc;
	size_t fast = d->points[d->rise->lo - 1], slow = d->points[d->rise->hi];
	if (fast >= d->last_fast && slow <= d->first_slow && slow - fast < d->first_slow - d->last_fast) {
		d->narrowed = true;
		d->last_fast = fast;
		d->first_slow = slow;
	} else { /* the search's window stands: no rise describes it */
		d->rise = NULL;
	}
	return 0;
}

int fg_days_scan_runs(fg_days **out, size_t n, size_t good, size_t bad, const fg_days_options *opts,
                      fg_days_judge_fn fn, void *ctx, fg_error *err)
{
	fg_days *d;
	int rc = days_new(out, &d, n, good, bad, opts, err);
	if (rc)
		return rc;
	if ((rc = scan_all(d, opts, fn, ctx, err))) {
		fg_days_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

int fg_days_scan(fg_days **out, fg_verdict_judge *judge, const fg_runs_selection *sel, const fg_days_options *opts,
                 const fg_fetch_options *fetch, fg_error *err)
{
	*out = NULL;
	size_t good, bad, n = 0, downloaded = 0;
	int rc = selection_ends(&good, &bad, sel, opts, err);
	if (rc)
		return rc;
	/* Every profile at once, into the cache: the judge then reads each run
	 * from it.  Without the cache (or refreshing it) each run is fetched
	 * as it is judged: fetching twice would download twice. */
	for (size_t i = good; i <= bad; i++)
		n += fg_runs_selection_at(sel, i)->nlines;
	if (!fetch->no_cache && !fetch->refresh) {
		const char **sources = calloc(n ? n : 1, sizeof(*sources));
		fg_fetch_result *fetched = calloc(n ? n : 1, sizeof(*fetched));
		if (!sources || !fetched)
			rc = fg_error_oom(err, NULL);
		for (size_t i = good, k = 0; !rc && i <= bad; i++)
			for (size_t l = 0; l < fg_runs_selection_at(sel, i)->nlines; l++)
				sources[k++] = fg_runs_selection_at(sel, i)->lines[l]->resolved;
		if (!rc)
			fg_fetch_many(fetched, sources, n, fetch);
		for (size_t k = 0; !rc && k < n; k++) {
			downloaded += fetched[k].path && fg_url_is(sources[k]) && !fetched[k].from_cache &&
			              strncmp(sources[k], "file:", 5);
			fg_fetch_result_clear(&fetched[k]);
		}
		free(sources);
		free(fetched);
	}
	struct judge_runs ctx = { judge, sel };
	if (!rc)
		rc = fg_days_scan_runs(out, fg_runs_selection_count(sel), good, bad, opts, judge_run, &ctx, err);
	if (!rc)
		(*out)->downloaded += downloaded;
	return rc;
}

const fg_days_changes *fg_days_scan_changes(const fg_days *d)
{
	return d->scanned || d->narrowed ? &d->changes : NULL;
}

bool fg_days_narrowed(const fg_days *d)
{
	return d->narrowed;
}

const fg_verdict_auto *fg_days_fallback(const fg_days *d)
{
	return d->fell_back ? &d->ends : NULL;
}

size_t fg_days_untold_end(const fg_days *d)
{
	return d->untold;
}

enum fg_days_window_kind fg_days_window_kind(const fg_days *d)
{
	if (d->rise == &d->span)
		return FG_DAYS_WINDOW_RISE;
	return d->first_slow > d->last_fast + 1 ? FG_DAYS_WINDOW_RUNS : FG_DAYS_WINDOW_DAY;
}

double fg_days_rise_noise(const fg_days *d)
{
	return d->rise == &d->span ? d->span_noise : 0;
}

const char *fg_days_window_kind_name(enum fg_days_window_kind k)
{
	return k == FG_DAYS_WINDOW_RISE ? "rise" : k == FG_DAYS_WINDOW_RUNS ? "runs" : "day";
}

size_t fg_days_scan_run(const fg_days *d, size_t point)
{
	return d->points[point];
}

const fg_days_change *fg_days_scan_rise(const fg_days *d)
{
	return d->rise;
}

size_t fg_days_scan_best(const fg_days *d)
{
	return d->rise ? d->points[d->rise->at] : SIZE_MAX;
}

void fg_days_request_init(fg_days_request *r)
{
	memset(r, 0, sizeof(*r));
	fg_days_options_init(&r->days);
	r->nhot = 10;
}

void fg_days_commit_id(char out[41], fg_repo *repo, const fg_runs_selection *sel, size_t i)
{
	fg_error err;
	const char *given = fg_runs_selection_at(sel, i)->commit;
	if (!repo || fg_repo_expand(out, repo, given, &err))
		snprintf(out, 41, "%s", given);
}

/* The noise the judged runs' spread suggests, and whether the pattern
 * matched in any of them. */
static int judged_noise(fg_days_answer *a, fg_error *err)
{
	size_t n = fg_days_step_count(a->days);
	const fg_verdict **judged = calloc(n ? n : 1, sizeof(*judged));
	if (!judged)
		return fg_error_oom(err, NULL);
	for (size_t i = 0; i < n; i++) {
		judged[i] = fg_days_step_at(a->days, i)->verdict;
		a->matched |= judged[i]->matched;
	}
	fg_verdict_noise_estimate(&a->estimate, judged, n);
	free(judged);
	return 0;
}

int fg_days_answer_find(fg_days_answer *out, const fg_runs_selection *sel, const fg_days_request *req,
                        fg_error *err)
{
	memset(out, 0, sizeof(*out));
	fg_verdict_judge *made = NULL, *judge = req->judge;
	int rc = judge ? 0 : fg_verdict_judge_new(&made, req->verdict, err);
	if (made)
		judge = made;
	if (!rc)
		rc = req->scan ? fg_days_scan(&out->days, judge, sel, &req->days, req->fetch, err)
		               : fg_days_search(&out->days, judge, sel, &req->days, err);
	fg_verdict_judge_free(made);
	if (!rc)
		rc = judged_noise(out, err);
	if (rc)
		return rc;
	fg_verdict_options used = *req->verdict;
	if (fg_days_auto(out->days))
		used.threshold = fg_days_auto(out->days)->threshold;
	out->assumed = fg_verdict_noise(&used);
	if (fg_days_result(out->days) != FG_DAYS_FOUND)
		return 0;
	fg_days_commit_id(out->fast_id, req->repo, sel, fg_days_last_fast(out->days));
	fg_days_commit_id(out->slow_id, req->repo, sel, fg_days_first_slow(out->days));
	/* The two runs' profiles again (from the cache), diffed once for the
	 * window's growers, the metrics lens and the report. */
	if (req->repo || req->diff) {
		rc = fg_names_new(&out->names, err);
		if (!rc)
			rc = fg_days_diff(&out->diff, out->names, out->days, sel, req->fetch, &req->verdict->read, err);
		if (rc && !req->repo && !req->diff_required) {
			out->diff_err = *err;
			rc = 0;
		}
	}
	if (!rc && req->repo) {
		fg_explain_options eo;
		fg_explain_options_init(&eo);
		eo.good = out->fast_id;
		eo.bad = out->slow_id;
		eo.frame = req->verdict->pattern;
		eo.match = req->verdict->match;
		eo.nhot = req->nhot;
		fg_history_options ho;
		fg_history_options_init(&ho);
		ho.good = eo.good;
		ho.bad = eo.bad;
		ho.progress = req->history_progress;
		ho.progress_ctx = req->history_progress_ctx;
		eo.history = &ho;
		rc = fg_days_look_up_window(&out->window, req->repo, req->repo_dir, out->diff, out->names, &eo, err);
	}
	return rc;
}

void fg_days_answer_clear(fg_days_answer *a)
{
	fg_days_window_clear(&a->window);
	fg_diff_free(a->diff);
	fg_names_free(a->names);
	fg_days_free(a->days);
	memset(a, 0, sizeof(*a));
}

void fg_days_refusal(char *out, size_t size, const fg_days *d, const fg_runs_selection *sel)
{
	out[0] = '\0';
	enum fg_days_outcome outcome = fg_days_result(d);
	if (outcome != FG_DAYS_GOOD_NOT_FAST && outcome != FG_DAYS_BAD_NOT_SLOW)
		return;
	bool good_end = outcome == FG_DAYS_GOOD_NOT_FAST;
	size_t asked = good_end ? d->asked_good : d->asked_bad, at = good_end ? d->good : d->bad;
	const fg_runs_run *end = fg_runs_selection_at(sel, asked), *run = fg_runs_selection_at(sel, at);
	const fg_verdict *v = d->verdicts[at];
	const char *side = good_end ? "good" : "bad";
	if (v->kind == FG_VERDICT_SKIP) {
		snprintf(out, size, "no run from the %s end %s %s to the other end can be judged (the last tried, %s: "
			 "%s): nothing to search", side, end->date, end->commit, run->date, v->reason);
		return;
	}
	char moved[128] = "", why[1700];
	if (at != asked)
		snprintf(moved, sizeof(moved), " (the %s end %s could not be judged, nor any run up to it)", side,
			 end->date);
	if (v->disagreeing != SIZE_MAX)
		snprintf(why, sizeof(why), "%s: a regression on one node only, or a noisy node?", v->reason);
	else
		snprintf(why, sizeof(why), "is --frame mistyped, --threshold too %s, or --%s too %s?",
			 good_end ? "low" : "high", side, good_end ? "late" : "early");
	snprintf(out, size, "the %s end %s %s is %s, not %s%s: nothing to search (%s)", side, run->date, run->commit,
		 fg_verdict_name(v->kind), good_end ? "fast" : "slow", moved, why);
}
