/* fgbisect — the report of a search: what `days --html` and `bisect --html`
 * write, assembled from the search's results into one fg_report
 * (src/output/report.h) and written to a file.  The one copy of the page's
 * assembly: the runs (or commits) judged with their marks, the title, the
 * one-line answer and the inputs at the top, the window, the hot files and
 * the decision, the diff of the two sides.  The decision's words come from
 * the caller (the command layer words decisions for the terminal too). */
#ifndef FG_SEARCH_REPORT_H
#define FG_SEARCH_REPORT_H

#include <stddef.h>

#include "analysis/diff.h"
#include "base/error.h"
#include "bisect/days.h"
#include "bisect/gitbisect.h"
#include "explain/explain.h"
#include "metrics/metrics.h"
#include "output/chart.h"
#include "output/svg.h"

typedef struct fg_search_report_options {
	const char *frame;         /* the --frame pattern (required): the flame graph opens searching for it */
	bool regex;                /* frame is a POSIX ERE, not a substring; default false */
	double threshold;          /* percent (required) */
	/* The decision in words (cli_decision_text's: it starts with a blank
	 * line), after the search's own words and a newline; NULL: none.
	 * Default NULL. */
	const char *decision;
	const fg_metrics_result *metrics; /* the efficiency lens (days --metrics); default NULL */
	/* What explains the two sides (explain/explain.h): the pattern's
	 * headline, the separability note, why there is no decision; its hot
	 * files with the window.  NULL: none.  Default NULL. */
	const fg_explain *explain;
	/* What was searched (the runs file, the profile template, the capture
	 * command), shown by name at the top; default none. */
	const char *const *inputs;
	size_t ninputs;
} fg_search_report_options;

void fg_search_report_options_init(fg_search_report_options *o);

/* The chart row of a verdict: its mark, share and interval, with label and
 * note as given (the terminal chart and the report draw the same rows). */
fg_chart_row fg_search_report_row(const fg_verdict *v, const char *label, const char *note);

/* `days --html` to path: the judged runs of sel in date order (their
 * commits expanded through repo when it is not NULL), the last fast and
 * first slow run, or why the search did not start; w: the window (--repo)
 * or NULL; diff: the last fast run against the first slow one (names its
 * names), or NULL.  Returns 0, FG_ENOMEM or FG_EOUTPUT (path the source). */
int fg_search_report_days(const char *path, const fg_days *days, const fg_runs_selection *sel, fg_repo *repo,
			  const fg_days_window *w, fg_diff *diff, const fg_names *names,
			  const fg_search_report_options *o, fg_error *err);

/* `bisect --html` to path: the ends, the first slow commit and its parent
 * as judged, the ends moved past; the first slow commit, or the commits
 * still candidates of an inconclusive bisection (the "possible first slow
 * commit" lines of git's log), or why it did not start (good, bad,
 * end_steps as given); diff: the parent against the first slow commit with
 * its svg options (sources), or NULL.  Errors as fg_search_report_days. */
int fg_search_report_bisect(const char *path, const fg_gitbisect_result *r, const char *good, const char *bad,
			    size_t end_steps, fg_diff *diff, const fg_svg_options *so, const fg_names *names,
			    const fg_search_report_options *o, fg_error *err);

#endif
