/* fgbisect command layer: the efficiency lens options and output, shared by
 * `metrics`, `diff --metrics` and `days --metrics`. */
#ifndef FG_CLI_METRICS_H
#define FG_CLI_METRICS_H

#include <stdbool.h>
#include <stdio.h>

#include "cmd/cli.h"
#include "metrics/metrics.h"

struct cli_metrics_options {
	const char *url;          /* --prometheus (default $FGBISECT_PROMETHEUS) */
	const char *selector[2];  /* --base / --candidate (metrics), or expanded templates */
	const char *range[2];     /* --base-range / --candidate-range START..END */
	const char *rules_path;   /* --metrics-rules (default fg_metrics_rules_default_path) */
	/* --window, --warmup, --at, --step as given; cli_metrics_check reads them
	 * into the numbers below. */
	const char *window_arg, *warmup_arg, *at_arg, *step_arg;
	double window;            /* the steady window's length; 0 = default */
	double warmup;            /* with ranges: 15 min */
	double at;                /* the window's end without ranges (default now) */
	double step;              /* 0 = default */
	uint64_t top;             /* --top: breakdown rows (default 5) */
};

/* Checks of the arguments of the options below (CLI_OPT_CHECKED). */
const char *cli_check_duration(const struct cli_option *opt, const char *arg, char *msg, size_t size);
const char *cli_check_time(const struct cli_option *opt, const char *arg, char *msg, size_t size);
const char *cli_check_range(const struct cli_option *opt, const char *arg, char *msg, size_t size);

/* The lens options of `metrics`, `diff --metrics` and `days --metrics`. */
#define CLI_METRICS_OPTIONS(mo) \
	CLI_OPT_STRING(0, "prometheus", &(mo)->url, "URL", \
		       "the Prometheus server, or Grafana's data-source proxy\n" \
		       ".../api/datasources/proxy/uid/UID (default $FGBISECT_PROMETHEUS)"), \
	CLI_OPT_CHECKED(0, "window", &(mo)->window_arg, "D", cli_check_duration, \
			"the steady window's length (default 30m): the last D before\n" \
			"--at, or with ranges the first D after the warm-up"), \
	CLI_OPT_CHECKED(0, "at", &(mo)->at_arg, "TIME", cli_check_time, \
			"the window's end when no ranges are given (default now)"), \
	CLI_OPT_CHECKED(0, "base-range", &(mo)->range[0], "A..B", cli_check_range, \
			"the base run's own time range (RFC 3339 or Unix seconds)"), \
	CLI_OPT_CHECKED(0, "candidate-range", &(mo)->range[1], "A..B", cli_check_range, \
			"the candidate run's own time range"), \
	CLI_OPT_CHECKED(0, "warmup", &(mo)->warmup_arg, "D", cli_check_duration, \
			"excluded from the start of a range (default 15m)"), \
	CLI_OPT_CHECKED(0, "step", &(mo)->step_arg, "D", cli_check_duration, \
			"range-query resolution (default window/120, at least 15s)"), \
	CLI_OPT_STRING(0, "metrics-rules", &(mo)->rules_path, "FILE", \
		       "signals and interpretation rules (default: Zeebe's,\ncontrib/zeebe.metrics; $FGBISECT_METRICS)"), \
	CLI_OPT_U64(0, "top", &(mo)->top, "N", 0, 1000, "rows of each breakdown (default 5)")

void cli_metrics_options_init(struct cli_metrics_options *o);

/* Checks what is required (--prometheus, both selectors when need_selectors)
 * and fills the defaults; CLI_PARSED or the usage error's status. */
int cli_metrics_check(struct cli_metrics_options *o, const struct cli_command_spec *spec,
		      const struct cli_args *args, bool need_selectors);

/* Loads the rules, queries both runs and interprets them with the
 * subsystem deltas (NULL: no profiles).  On success *rules and *out are set
 * (free both; the result points into the rules). */
int cli_metrics_run(fg_metrics_result **out, fg_metrics_rules **rules, const struct cli_metrics_options *o,
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

/* The lens as one JSON object, the next value of j. */
void cli_metrics_json(fg_json *j, const fg_metrics_result *r, const char *url);

/* For diff and days: the member "metrics": the lens, or when it failed the
 * design's error object for err. */
void cli_metrics_json_member(fg_json *j, const fg_metrics_result *r, const fg_error *err, const char *url);

/* The lens failed: "fgbisect: metrics: SOURCE: MESSAGE" on stderr. */
void cli_metrics_warn(const fg_error *err);

#endif
