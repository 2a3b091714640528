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
	/* What the search does when the ends were read but cannot be told
	 * apart (with auto_threshold: they do not separate; with a threshold:
	 * an end as asked cannot be told, its interval holding the threshold),
	 * or it ends with a window of several runs: false (the default), it
	 * scans every run as fg_days_scan does and takes its answer (and with
	 * auto_threshold its threshold; fg_days_fallback, fg_days_untold_end),
	 * and with auto_threshold narrows a window with the change point of
	 * the runs judged when its location set lies inside
	 * (fg_days_narrowed); true, the search alone (exit 1 on such ends, the
	 * window as it is: the benchmark's old rule). */
	bool auto_search_only;
	/* --scan: the floor of the run-to-run noise in points (--noise); -1:
	 * the default (fg_days_changepoints). */
	double noise;
	/* NULL: called with judged_ctx after each run is judged (the verdict
	 * as judged, before --threshold auto concludes it): progress. */
	void (*judged)(void *ctx, size_t run, const fg_verdict *v);
	void *judged_ctx;
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
	/* --scan: no rise of the share is a change point (fg_days_scan_changes
	 * says what was found). */
	FG_DAYS_NO_RISE,
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
 * against those of its first slow run (runs of sel) — for a window of kind
 * FG_DAYS_WINDOW_RISE, of every run read from the first to the last fast
 * one against every run read from the first slow one to the end: the
 * runs known on each side, pooled, their days' spread the nodes' — read with names,
 * default diff options: the profiles their verdicts read (one left out of
 * a partial run stays out).  They are fetched again, from the cache after
 * a search; one that fails now fails the call.  Made once after a search
 * and shared by the window, the metrics lens and the report.  Free it with
 * fg_diff_free. */
int fg_days_diff(fg_diff **out, fg_names *names, const fg_days *d, const fg_runs_selection *sel,
                 const fg_fetch_options *fetch, const fg_read_options *read, fg_error *err);

/* --scan: the change points of a series of run shares, by binary
 * segmentation with each run's interval (docs/bisect.md, "days --scan").
 *
 * Each point is a run's pooled share with its sampling standard deviation
 * (the nodes' phi included); its variance is that plus noise^2, the
 * run-to-run noise.  A segment's best split is the one whose two weighted
 * means differ most in standard errors, z = (after - before) /
 * sqrt(1/W_before + 1/W_after) (W: the sums of the weights 1/variance):
 * the likelihood-ratio statistic of one step in a Gaussian series of known
 * variances is z^2.  The split is a change point when its two-sided p,
 * multiplied by the number of splits tried (Bonferroni over the m - 1
 * splits of m points), is at most 1 - FG_DAYS_SCAN_CONFIDENCE; then both
 * halves are searched again.  Each change found is then described in the
 * segment between its neighbouring change points: the means either side,
 * its z and confidence there, and its location set, the splits whose z has
 * its sign and whose z^2 is within FG_DAYS_SCAN_LOCATION (chi-square, one
 * degree of freedom, 99%) of its own: the profile likelihood's interval for
 * where the step is.
 *
 * The noise is never smaller than the floor (--noise, or
 * FG_VERDICT_NOISE_FRACTION of the median share): after a segmentation, the
 * spread of the points about their segments' means less their sampling
 * variance (the method of moments, as fg_verdict_noise_estimate) estimates
 * it; when that is larger, the series is segmented again with it (at most
 * FG_DAYS_SCAN_ROUNDS times).  Deterministic: the same points give the same
 * change points. */
#define FG_DAYS_SCAN_CONFIDENCE 0.99
#define FG_DAYS_SCAN_LOCATION 6.634896601021214
#define FG_DAYS_SCAN_ROUNDS 5

typedef struct fg_days_point {
	double share;    /* percent */
	double sampling; /* standard deviation of the share from its counts, points */
} fg_days_point;

typedef struct fg_days_change {
	size_t at;            /* the first point after the step */
	size_t lo, hi;        /* the location set: the first point after the step is one of lo..hi */
	double before, after; /* the weighted means of the segment's two sides, percent */
	double before_se, after_se; /* their standard errors, points */
	double z;             /* (after - before) in standard errors; > 0 for a rise */
	double confidence;    /* 1 - the Bonferroni-corrected p */
} fg_days_change;

typedef struct fg_days_changes {
	fg_days_change *changes; /* in the order of their points */
	size_t n;
	double noise;          /* the run-to-run noise the segmentation used, points */
	double noise_floor;    /* the floor it started from */
	double noise_estimate; /* the spread about the segments suggests, points */
	size_t noise_df;       /* degrees of freedom of the estimate: points less segments */
} fg_days_changes;

/* The rise between the ends, when binary segmentation finds none: is the
 * share after some split larger than before it, beyond noise, wherever the
 * step is?  The same statistic z_k over the splits of all n points, with
 * the noise the segmentation settled on, tested one-sided (days asks
 * whether the share rose from the good end to the bad one, never whether it
 * fell): the largest z_k is a rise when (n - 1) times its one-sided p,
 * Bonferroni over the splits, is at most 1 - FG_DAYS_RISE_CONFIDENCE (the
 * scan's 99%: at 95% it claimed a rise in 4-6% of flat series, and named a
 * commit that changed nothing in up to 2.5%).  The noise starts at floor (the segmentation's) and is,
 * as after a segmentation, the spread of the points about the two sides of
 * the best split less their sampling variance when that is larger (at most
 * FG_DAYS_SCAN_ROUNDS rounds; the segmentation's own estimate about one
 * segment would count the step as noise); the noise used into *noise.
 * Weaker evidence than a change point, so it says less:
 * the location set (FG_DAYS_SCAN_LOCATION of the largest z, as a change
 * point's) is the window, often many runs, at worst every one between the
 * ends.  *rose says whether it rose; then *out describes it as
 * fg_days_changepoints describes a change.  0, or an error (out of memory). */
#define FG_DAYS_RISE_CONFIDENCE 0.99

int fg_days_rise_between(bool *rose, fg_days_change *out, double *noise, const fg_days_point *pts, size_t n,
                         double floor, fg_error *err);

/* The change points of pts[0..n).  noise: the floor in points, or -1 for
 * the default.  Free with fg_days_changes_clear. */
int fg_days_changepoints(fg_days_changes *out, const fg_days_point *pts, size_t n, double noise, fg_error *err);
void fg_days_changes_clear(fg_days_changes *c);

/* days --scan: judges every run from the good end to the bad end (their
 * profiles fetched first, all at once and through the cache), makes a
 * point of each run that could be read (a skip of an input is left out,
 * named by its verdict), and finds the change points.  The search's result
 * is then FOUND with the rise of the largest z: last fast is the run of the
 * point before its location set, first slow the run of its last point, and
 * every run between them may be the first slow one (fg_days_scan_best
 * names the most likely); FG_DAYS_BAD_NOT_SLOW when no rise is found.
 * With opts->auto_threshold the verdicts are decided half way between the
 * two sides' means (fg_days_auto). */
int fg_days_scan(fg_days **out, fg_verdict_judge *judge, const fg_runs_selection *sel, const fg_days_options *opts,
                 const fg_fetch_options *fetch, fg_error *err);

/* The same over runs 0..nruns-1 judged by fn (a test, a benchmark). */
int fg_days_scan_runs(fg_days **out, size_t nruns, size_t good, size_t bad, const fg_days_options *opts,
                      fg_days_judge_fn fn, void *ctx, fg_error *err);

/* After a scan: its change points (points are the readable runs in order,
 * fg_days_scan_run maps them back), NULL after a binary search; the rise
 * taken as the regression (NULL when none); the most likely first slow
 * run. */
const fg_days_changes *fg_days_scan_changes(const fg_days *d);
size_t fg_days_scan_run(const fg_days *d, size_t point);
const fg_days_change *fg_days_scan_rise(const fg_days *d);
size_t fg_days_scan_best(const fg_days *d);

/* --threshold auto: whether the change point of the runs judged narrowed
 * the window (then fg_days_scan_changes gives it); and when the ends did
 * not separate and every run was scanned, how the ends compared (else
 * NULL; fg_days_auto is then the scan's threshold). */
bool fg_days_narrowed(const fg_days *d);
const fg_verdict_auto *fg_days_fallback(const fg_days *d);

/* With a threshold (not auto): the end as asked that could not be told
 * (its interval holds the threshold) and made the search scan every run
 * (fg_days_options.auto_search_only); SIZE_MAX when none did. */
size_t fg_days_untold_end(const fg_days *d);

/* What the window of a found search is. */
enum fg_days_window_kind {
	FG_DAYS_WINDOW_DAY,  /* one run: the first slow run was found */
	/* Several runs: runs between the two that could not be judged, or a
	 * change point's location set of several runs. */
	FG_DAYS_WINDOW_RUNS,
	/* No change point and no single day: the share rose between the ends
	 * (fg_days_rise_between), the window is where the step may be.  The
	 * window's diff then pools the runs read before it against those
	 * after it (fg_days_diff). */
	FG_DAYS_WINDOW_RISE,
};

enum fg_days_window_kind fg_days_window_kind(const fg_days *d);
/* FG_DAYS_WINDOW_RISE: the noise its test used, points (else 0). */
double fg_days_rise_noise(const fg_days *d);
const char *fg_days_window_kind_name(enum fg_days_window_kind k); /* "day", "runs", "rise" */

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

/* What `fgbisect days` does between parsing and printing: one call. */
typedef struct fg_days_request {
	fg_days_options days;           /* the ends, --threshold auto, the noise floor of --scan */
	bool scan;                      /* --scan: every run (fg_days_scan), not the binary search */
	const fg_verdict_options *verdict; /* the judge's options (threshold 0 with auto) */
	fg_verdict_judge *judge;        /* the judge (fg_judging's); NULL: one made from verdict */
	const fg_fetch_options *fetch;
	fg_repo *repo;                  /* NULL: without --repo */
	const char *repo_dir;           /* the repository's directory, for the hot files */
	size_t nhot;                    /* frames to look up in the repository */
	/* The diff of the last fast and the first slow run is made when the
	 * repository is given or diff is set; its failure is an error then
	 * when the repository is given or diff_required, else kept in
	 * diff_err (the metrics lens explains the search, never decides it). */
	bool diff, diff_required;
	/* The history query's progress (fg_history_options.progress), NULL:
	 * none. */
	fg_history_progress_fn history_progress;
	void *history_progress_ctx;
} fg_days_request;

void fg_days_request_init(fg_days_request *r);

typedef struct fg_days_answer {
	fg_days *days;
	bool matched;                   /* the pattern matched a frame in a judged run */
	/* The run-to-run noise the judged runs' spread suggests beside the one
	 * assumed (fg_verdict_noise at the threshold used). */
	fg_noise_estimate estimate;
	double assumed;
	char fast_id[41], slow_id[41];  /* found: the two runs' commits, full ids when the repository has them */
	fg_names *names;                /* with diff: its names */
	fg_diff *diff;                  /* the last fast against the first slow run, or NULL */
	fg_error diff_err;              /* why diff is NULL when it was wanted and not required */
	fg_days_window window;          /* with a repository, found */
} fg_days_answer;

/* Judges the runs of sel as the request says (the search, or the scan),
 * and when a first slow run is found, diffs it against the last fast one
 * and looks up the window in the repository.  Errors as fg_days_search,
 * fg_days_diff and fg_days_look_up_window give them; an outcome other than
 * FOUND is no error (out->days says it).  Clear out whatever the result. */
int fg_days_answer_find(fg_days_answer *out, const fg_runs_selection *sel, const fg_days_request *req,
                        fg_error *err);
void fg_days_answer_clear(fg_days_answer *a);

/* The commit of run i as it is shown: the full id when repo (may be NULL)
 * knows it, else as the runs file writes it. */
void fg_days_commit_id(char out[41], fg_repo *repo, const fg_runs_selection *sel, size_t i);

#endif
