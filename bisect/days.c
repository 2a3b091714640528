#include "bisect/days.h"
#include "formats/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"

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
};

void fg_days_options_init(fg_days_options *opts)
{
	opts->good = NULL;
	opts->bad = NULL;
	opts->auto_threshold = NULL;
}

void fg_days_free(fg_days *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nruns; i++)
		fg_verdict_free(d->verdicts[i]);
	free(d->verdicts);
	free(d->steps);
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

int fg_days_search_runs(fg_days **out, size_t n, size_t good, size_t bad, const fg_days_options *opts,
                        fg_days_judge_fn fn, void *ctx, fg_error *err)
{
	*out = NULL;
	fg_days *d = calloc(1, sizeof(*d));
	if (!d || !(d->verdicts = calloc(n, sizeof(*d->verdicts))) || !(d->steps = calloc(n, sizeof(*d->steps)))) {
		fg_days_free(d);
		return fg_error_oom(err, NULL);
	}
	d->nruns = n;
	d->last_fast = d->first_slow = SIZE_MAX;
	d->asked_good = d->good = good;
	d->asked_bad = d->bad = bad;
	const fg_verdict *v;
	int rc = 0;
	if (opts && opts->auto_threshold) {
		bool found;
		d->auto_on = true;
		d->auto_opts = *opts->auto_threshold;
		if ((rc = auto_threshold(&found, d, fn, ctx, err)))
			goto fail;
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
		*out = d;
		return 0;
	}
	/* Every run after the good end may be undecidable: the bad end then
	 * stops on the run next to it, the last one tried. */
	if ((rc = decidable_end(&v, &d->bad, d->good + 1, -1, d, fn, ctx, false, err)))
		goto fail;
	if (v->kind != FG_VERDICT_SLOW) {
		d->outcome = FG_DAYS_BAD_NOT_SLOW;
		*out = d;
		return 0;
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

int fg_days_search(fg_days **out, fg_verdict_judge *judge, const fg_runs_selection *sel,
                   const fg_days_options *opts, fg_error *err)
{
	*out = NULL;
	size_t n = fg_runs_selection_count(sel), good = 0, bad = 0;
	if (n < 2)
		return fg_error_set(err, FG_ECONFIG, NULL, "a day search needs at least two runs, the runs file has %zu",
		                    n);
	int rc = find_end(&good, sel, opts ? opts->good : NULL, true, err);
	if (!rc)
		rc = find_end(&bad, sel, opts ? opts->bad : NULL, false, err);
	if (!rc && good >= bad)
		rc = fg_error_set(err, FG_EUSAGE, NULL, "the good run (%s) must be older than the bad run (%s)",
		                  fg_runs_selection_at(sel, good)->date, fg_runs_selection_at(sel, bad)->date);
	if (rc)
		return rc;
	struct judge_runs ctx = { judge, sel };
	return fg_days_search_runs(out, n, good, bad, opts, judge_run, &ctx, err);
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
	int rc = fg_diff_new(&diff, names, &dopts, err);
	if (!rc)
		rc = diff_side(diff, names, FG_DIFF_BASE, fg_runs_selection_at(sel, d->last_fast), d->verdicts[d->last_fast],
		               fetch, read, err);
	if (!rc)
		rc = diff_side(diff, names, FG_DIFF_CANDIDATE, fg_runs_selection_at(sel, d->first_slow),
		               d->verdicts[d->first_slow], fetch, read, err);
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
