/* fgbisect — a text chart of shares against a threshold, for a terminal.
 *
 * One row per run: its label, its mark (fast, slow, skip), a bar of its
 * share on a scale common to all rows, its 95% interval drawn past the bar
 * end, and a column for the threshold:
 *
 *     2026-11-01 4f1c2a9e3b  fast   2.64% ██████████▌ ···       │
 *     2026-11-09 77aa01be20  slow   7.11% ███████████████████████┃███████·· 
 *     2026-11-06 5b1c09d3aa  skip      -                        │  fetch failed
 *
 * Unicode block elements (eighths) by default, plain ASCII ('#', '|', '.')
 * with `ascii`; ANSI colours (green fast, red slow, yellow skip) only with
 * `color`: the caller decides (a terminal, and NO_COLOR unset). */
#ifndef FG_CHART_H
#define FG_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/error.h"

enum fg_chart_mark { FG_CHART_FAST, FG_CHART_SLOW, FG_CHART_SKIP };

typedef struct fg_chart_row {
	const char *label;        /* e.g. "2026-11-01 4f1c2a9e3b" */
	enum fg_chart_mark mark;
	bool has_share;           /* false: nothing was measured (a skip before reading) */
	double share, lo, hi;     /* percent; lo..hi the interval */
	const char *note;         /* written after the bar (a skip's reason), or NULL */
} fg_chart_row;

typedef struct fg_chart_options {
	double threshold;  /* percent (required) */
	unsigned width;    /* bar cells; default 40 */
	bool ascii;        /* default false: Unicode */
	bool color;        /* default false */
} fg_chart_options;

void fg_chart_options_init(fg_chart_options *opts);

/* The top of a scale for values up to max_value and a threshold: a round
 * number (1, 2, 2.5 or 5 times a power of ten, at most 100) holding both and
 * leaving the threshold well inside (at least 1.5 times it). */
double fg_chart_scale(double max_value, double threshold);

/* Writes the rows and a scale line.  FG_EOUTPUT when out fails. */
int fg_chart_write(FILE *out, const fg_chart_row *rows, size_t n, const fg_chart_options *opts, fg_error *err);

/* One run of the picture below: its date and commit under its column, its
 * verdict's reason in its tooltip, its mark, share and interval (the row's
 * note, "last fast" or "first slow", labels its point; its label is unused). */
typedef struct fg_chart_run {
	const char *date;        /* or "" */
	const char *commit;      /* the first 10 characters are shown */
	const char *reason;      /* or NULL */
	const fg_chart_row *row;
} fg_chart_run;

/* The same chart as a static SVG for the HTML report (no script): one
 * column per run in the order given, each run's share a point with its
 * interval, the threshold a dashed line labelled in the right margin, the
 * y axis at 0..fg_chart_scale.  No two texts overlap however many runs: the
 * rotated date-and-commit labels under the columns are thinned to one per
 * 17 px (a marked run's label takes the place of its neighbours'), a
 * point's word (fast, slow, skip) only where a column is wide enough for
 * the longest word, a note (last fast, first slow) always.  FG_EOUTPUT when
 * out fails. */
int fg_chart_write_svg(FILE *out, const fg_chart_run *runs, size_t n, double threshold, fg_error *err);

#endif
