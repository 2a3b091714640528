/* fgbisect command layer: the efficiency lens options and output, shared by
 * `metrics`, `diff --metrics` and `days --metrics`. */
#ifndef FG_CLI_METRICS_H
#define FG_CLI_METRICS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "metrics.h"

struct cli_metrics_options {
	const char *url;          /* --prometheus (default $FGBISECT_PROMETHEUS) */
	const char *selector[2];  /* --base / --candidate (metrics), or expanded templates */
	const char *range[2];     /* --base-range / --candidate-range START..END */
	const char *rules_path;   /* --metrics-rules (default fg_mrules_default_path) */
	double window;            /* --window: the steady window's length; 0 = default */
	double warmup;            /* --warmup, with ranges: 15 min */
	double at;                /* --at: the window's end without ranges (default now) */
	double step;              /* --step: 0 = default */
	uint64_t top;             /* --top: breakdown rows (default 5) */
};

enum {
	CLI_METRICS_OPT_PROMETHEUS = 1500, CLI_METRICS_OPT_BASE_RANGE, CLI_METRICS_OPT_CANDIDATE_RANGE,
	CLI_METRICS_OPT_WINDOW, CLI_METRICS_OPT_WARMUP, CLI_METRICS_OPT_AT, CLI_METRICS_OPT_STEP,
	CLI_METRICS_OPT_RULES, CLI_METRICS_OPT_TOP
};

#define CLI_METRICS_LONG_OPTIONS \
	{ "prometheus", required_argument, NULL, CLI_METRICS_OPT_PROMETHEUS }, \
	{ "base-range", required_argument, NULL, CLI_METRICS_OPT_BASE_RANGE }, \
	{ "candidate-range", required_argument, NULL, CLI_METRICS_OPT_CANDIDATE_RANGE }, \
	{ "window", required_argument, NULL, CLI_METRICS_OPT_WINDOW }, \
	{ "warmup", required_argument, NULL, CLI_METRICS_OPT_WARMUP }, \
	{ "at", required_argument, NULL, CLI_METRICS_OPT_AT }, \
	{ "step", required_argument, NULL, CLI_METRICS_OPT_STEP }, \
	{ "metrics-rules", required_argument, NULL, CLI_METRICS_OPT_RULES }, \
	{ "top", required_argument, NULL, CLI_METRICS_OPT_TOP }

#define CLI_METRICS_OPTIONS_HELP \
	"      --prometheus URL  the Prometheus server, or Grafana's data-source proxy\n" \
	"                        .../api/datasources/proxy/uid/UID (default $FGBISECT_PROMETHEUS)\n" \
	"      --window D        the steady window's length (default 30m): the last D before\n" \
	"                        --at, or with ranges the first D after the warm-up\n" \
	"      --at TIME         the window's end when no ranges are given (default now)\n" \
	"      --base-range A..B, --candidate-range A..B\n" \
	"                        each run's own time range (RFC 3339 or Unix seconds)\n" \
	"      --warmup D        excluded from the start of a range (default 15m)\n" \
	"      --step D          range-query resolution (default window/120, at least 15s)\n" \
	"      --metrics-rules FILE  signals and interpretation rules (default: Zeebe's,\n" \
	"                        contrib/zeebe.metrics; $FGBISECT_METRICS)\n" \
	"      --top N           rows of each breakdown (default 5)\n"

/* The same options in two lines, for diff and days (whose help must stay
 * short: a help text larger than a pipe buffer fails `| grep -q`). */
#define CLI_METRICS_OPTIONS_BRIEF_HELP \
	"      --prometheus URL, --window D, --warmup D, --step D, --metrics-rules FILE,\n" \
	"      --top N           as for 'fgbisect metrics' (see its --help)\n"

void cli_metrics_options_init(struct cli_metrics_options *o);

/* Handles the CLI_METRICS_OPT_* options; false when opt is not one. */
bool cli_metrics_option(struct cli_metrics_options *o, int opt, const char *arg, const char *cmd, int *status);

/* Checks what is required (--prometheus, both selectors when given already)
 * and fills the defaults; 0 or the usage status. */
int cli_metrics_check(struct cli_metrics_options *o, const char *cmd, bool need_selectors);

/* Loads the rules, queries both runs and interprets them with the
 * subsystem deltas (NULL: no profiles).  On success *rules and *out are set
 * (free both; the result points into the rules). */
int cli_metrics_run(fg_metrics_result **out, fg_mrules **rules, const struct cli_metrics_options *o,
                    const struct cli_profile_options *po, const fg_metrics_delta *deltas, size_t ndeltas,
                    fg_error *err);

struct fg_tree;
struct fg_names;
/* The change of each subsystem's share (contrib/zeebe.rules, or
 * $FGBISECT_RULES) from the base tree to the candidate tree, in points:
 * what the delta() terms of the interpretation read.  *out (malloc'ed,
 * pointing into out->rules: a result interpreted with them must be freed
 * or printed before cli_metrics_deltas_free). */
struct cli_metrics_deltas {
	fg_metrics_delta *deltas;
	size_t n;
	void *rules;
};
int cli_metrics_deltas(struct cli_metrics_deltas *out, const struct fg_tree *base, const struct fg_tree *candidate,
                       const struct fg_names *names, fg_error *err);
void cli_metrics_deltas_free(struct cli_metrics_deltas *d);

/* The lens as text: the signals side by side, the breakdowns, then the
 * hypothesis and its evidence. */
void cli_metrics_text(FILE *out, const fg_metrics_result *r, const char *url);

/* The lens as one JSON object (no newline). */
void cli_metrics_json(FILE *out, const fg_metrics_result *r, const char *url);

/* For diff and days: `,"metrics":` and the lens, or when it failed the
 * design's error object for err. */
void cli_metrics_json_member(FILE *out, const fg_metrics_result *r, const fg_error *err, const char *url);

/* The lens failed: "fgbisect: metrics: SOURCE: MESSAGE" on stderr. */
void cli_metrics_warn(const fg_error *err);

#endif
