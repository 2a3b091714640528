/* fgbisect — the report: one self-contained HTML page of a search or a diff.
 *
 * Everything is inline (CSS, the SVG pictures and the flame graph's script):
 * nothing is fetched, so the file can be mailed, attached to an issue or
 * opened offline, and it prints (the buttons are hidden on paper, the
 * tables do not break inside a row).  Sections, each only when there is
 * something to show:
 *
 *  - the decision in words, and the summary lines;
 *  - the share of the frame over the tested runs as a chart: each run's
 *    share with its 95% interval, the threshold line, fast / slow / skipped
 *    marked, the last fast and the first slow run named; and as a table
 *    with each verdict's reason;
 *  - the commits of the window with their subjects;
 *  - the hot files and whether they changed in the window;
 *  - the frames that grew and shrank (a diff);
 *  - the differential flame graph (src/output/svg.h) of a diff, e.g. of the last
 *    fast against the first slow run;
 *  - the metrics of the two runs (src/metrics/metrics.h): each signal on both
 *    sides with its ratio, and the hypothesis of the rule that fired.
 *
 * Every string is escaped (src/output/markup.h). */
#ifndef FG_REPORT_H
#define FG_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "output/chart.h"
#include "analysis/diff.h"
#include "metrics/metrics.h"
#include "output/svg.h"

typedef struct fg_report_run {
	const char *date;          /* or "" */
	const char *commit;        /* as it is to be shown */
	const char *reason;        /* the verdict's reason, or NULL */
	/* The mark, share and interval as the terminal chart takes them; its
	 * note is "last fast", "first slow" or NULL, its label unused. */
	fg_chart_row measure;
} fg_report_run;

typedef struct fg_report_commit {
	const char *id, *date, *subject;
} fg_report_commit;

typedef struct fg_report_file {
	const char *path;
	const char *frame;         /* the hot frame it was found from */
	int changed;               /* 1 changed in the window, 0 not, -1 unknown (no window) */
	const char *last_id, *last_date, *last_subject; /* its last commit, or NULL */
} fg_report_file;

typedef struct fg_report {
	const char *title;         /* the page's title and heading (required) */
	/* The top lines, under the title: the answer in one line (NULL: a
	 * diff's, from its lists: how many frames grew and shrank beyond noise
	 * and the largest change), the inputs (shown by name: a URL by the last
	 * part of its path; NULL: a diff's sources from svg) and the date the
	 * page was written (NULL: now, UTC). */
	const char *answer;
	const char *const *inputs;
	size_t ninputs;
	const char *date;
	const char *decision;      /* the answer in words (may hold newlines), or NULL */
	const char *const *summary; /* lines under the decision */
	size_t nsummary;
	const char *frame;         /* the frame pattern of a search, or NULL */
	double threshold;          /* percent, with runs */
	const fg_report_run *runs; /* in date order */
	size_t nruns;
	const fg_report_commit *commits;
	size_t ncommits;
	const char *commits_heading; /* NULL: "Commits in the window" */
	bool commits_truncated;
	const fg_report_file *files;
	size_t nfiles;
	const char *files_note;    /* what the hot files are of; NULL: the frames that grew most */
	const char *const *notes;  /* cautions shown after the summary (e.g. one profile a side) */
	size_t nnotes;
	/* A diff to show: its lists (grew / shrank, at most 25 each) and, with
	 * trees, its differential flame graph drawn with svg (NULL: defaults;
	 * `fragment` is set by the report). */
	fg_diff *diff;
	const fg_svg_options *svg;
	const char *diff_heading;  /* e.g. "last fast → first slow"; NULL: "base → candidate" */
	const fg_metrics_result *metrics; /* the efficiency lens of the two runs, or NULL */
	const char *generator;     /* the footer, e.g. "fgbisect 0.4 days --runs …", or NULL */
} fg_report;

/* Writes the page to out.  names: the diff's.  Returns 0, FG_ENOMEM, or
 * FG_EOUTPUT when out fails. */
int fg_report_write(FILE *out, const fg_report *r, const fg_names *names, fg_error *err);

/* The same into a file created at path: FG_EOUTPUT (path the error's
 * source) when it cannot be created or written. */
int fg_report_write_file(const char *path, const fg_report *r, const fg_names *names, fg_error *err);

/* An input as the report names it, into out: a URL by the last part of its
 * path (no query, no credentials), anything else as it is. */
void fg_report_input_name(char *out, size_t size, const char *source);

#endif
