/* fgbisect — the day search: a binary search over the runs of a runs file,
 * in date order, for the last fast and the first slow run.
 *
 * The good end (default: the oldest run) must be fast and the bad end
 * (default: the newest) slow.  An end that cannot be judged (a skip
 * verdict) moves inward to its nearest decidable neighbour; then each step
 * judges the untested run nearest the middle of the window.  A run that
 * cannot be judged is set aside the way `git bisect skip` does it: the next
 * step takes the run nearest the middle among those left, so the search
 * still ends, with a wider window when only skipped runs separate the two
 * ends.  Without skips it judges at most ceil(log2 N) + 2 runs, each once. */
#ifndef FG_DAYS_H
#define FG_DAYS_H

#include <stddef.h>

#include "analysis/diff.h"
#include "explain/explain.h"
#include "git/repo.h"
#include "bisect/runs.h"
#include "bisect/verdict.h"

typedef struct fg_days_options {
	const char *good; /* NULL: the oldest run; else the newest run dated on or before this date */
	const char *bad;  /* NULL: the newest run; else the oldest run dated on or after this date */
	/* NULL: the judge's threshold.  Else --threshold auto: the ends (moved
	 * inward past runs with no usable profile) are judged first, the
	 * threshold put where they separate best (fg_verdict_auto_threshold
	 * under these options), and every verdict of the search decided at it
	 * (fg_verdict_conclude); when the ends do not separate, the outcome is
	 * FG_DAYS_ENDS_NOT_SEPARATED. */
	const fg_verdict_options *auto_threshold;
} fg_days_options;

void fg_days_options_init(fg_days_options *opts);

enum fg_days_outcome {
	FG_DAYS_FOUND,         /* last fast and first slow are set */
	/* The nearest decidable run from the good end is slow, or no run up to
	 * the bad end can be judged (fg_days_good's verdict says which). */
	FG_DAYS_GOOD_NOT_FAST,
	/* The nearest decidable run from the bad end is fast, or none after the
	 * good end can be judged. */
	FG_DAYS_BAD_NOT_SLOW,
	/* --threshold auto: the ends' shares do not differ beyond their noise
	 * (fg_days_auto says how far apart they are). */
	FG_DAYS_ENDS_NOT_SEPARATED,
};

/* One judged run, in the order the search judged them. */
typedef struct fg_days_step {
	size_t run;               /* index in the selection */
	const fg_verdict *verdict;
} fg_days_step;

typedef struct fg_days fg_days;

/* Runs the search.  FG_EUSAGE when --good/--bad name no run or the good end
 * is not older than the bad end, FG_ECONFIG when fewer than two runs are
 * selected; judging errors as fg_verdict_judge_run gives them. */
int fg_days_search(fg_days **out, fg_verdict_judge *judge, const fg_runs_selection *sel,
                   const fg_days_options *opts, fg_error *err);

/* Judges run i of a search into *out (a verdict the search then owns);
 * called at most once per run.  An error stops the search. */
typedef int (*fg_days_judge_fn)(void *ctx, fg_verdict **out, size_t run, fg_error *err);

/* The search itself over runs 0..nruns-1 in date order, from good to bad
 * (good < bad < nruns), each run judged by fn: what fg_days_search runs,
 * and what a test or a benchmark drives with verdicts of its own. */
int fg_days_search_runs(fg_days **out, size_t nruns, size_t good, size_t bad, const fg_days_options *opts,
                        fg_days_judge_fn fn, void *ctx, fg_error *err);

/* --threshold auto: how the threshold was chosen (threshold 0 when no end
 * could be read); NULL without it. */
const fg_verdict_auto *fg_days_auto(const fg_days *d);
void fg_days_free(fg_days *d);

enum fg_days_outcome fg_days_result(const fg_days *d);

size_t fg_days_step_count(const fg_days *d);
const fg_days_step *fg_days_step_at(const fg_days *d, size_t i);

/* The indices of the ends as asked (--good, --bad), of the ends the search
 * used (an undecidable end moved inward: every run between the two was
 * judged and skipped; when the outcome is not FOUND, the run whose verdict
 * refused the search), and when found, of the last fast and first slow
 * runs: every run between those two was skipped. */
size_t fg_days_asked_good(const fg_days *d);
size_t fg_days_asked_bad(const fg_days *d);
size_t fg_days_good(const fg_days *d);
size_t fg_days_bad(const fg_days *d);
size_t fg_days_last_fast(const fg_days *d);
size_t fg_days_first_slow(const fg_days *d);

/* Why a search that did not find the two runs cannot start, in one line
 * into out: the end's nearest decidable run has the wrong verdict, or no
 * run can be judged.  A mistyped --frame or a wrong threshold is only
 * suggested when the run was decided; a node that disagrees with the
 * others is named instead.  "" when the outcome is FOUND. */
void fg_days_refusal(char *out, size_t size, const fg_days *d, const fg_runs_selection *sel);

/* The verdict of a judged run, NULL when it was not judged. */
const fg_verdict *fg_days_verdict(const fg_days *d, size_t run);

/* Profiles read for the judged runs, and those of them that came over the
 * network (0 when the cache held them all). */
size_t fg_days_fetched_profiles(const fg_days *d);
size_t fg_days_downloaded_profiles(const fg_days *d);

/* The diff (with its trees, for the differential flame graph and the
 * growers) of the pooled profiles of the last fast run of a found search
 * against those of its first slow run (runs of sel), read with names,
 * default diff options: the profiles their verdicts read (one left out of
 * a partial run stays out).  They are fetched again, from the cache after
 * a search; one that fails now fails the call.  Made once after a search
 * and shared by the window, the metrics lens and the report.  Free it with
 * fg_diff_free. */
int fg_days_diff(fg_diff **out, fg_names *names, const fg_days *d, const fg_runs_selection *sel,
                 const fg_fetch_options *fetch, const fg_read_options *read, fg_error *err);

/* What `days --repo` shows between the last fast run and the first slow
 * one: the commits of (eo->good, eo->bad] in repo, and what explains the
 * change (explain/explain.h: the --frame pattern's own frames and the
 * eo->nhot frames that grew most in diff, fg_days_diff's, names its names,
 * looked up as hot files in the repository at dir, and the decision over
 * those beyond noise).  Free with fg_days_window_clear whatever the result. */
typedef struct fg_days_window {
	fg_repo_log *log;
	fg_explain explain;
} fg_days_window;

int fg_days_look_up_window(fg_days_window *out, fg_repo *repo, const char *dir, fg_diff *diff, const fg_names *names,
			   const fg_explain_options *eo, fg_error *err);
void fg_days_window_clear(fg_days_window *w);

#endif
