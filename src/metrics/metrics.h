/* fgbisect — the efficiency lens: the signals of a metric rules file
 * (src/metrics/metrics_rules.h) for a base and a candidate run, read from Prometheus
 * (src/metrics/prom.h), side by side with their ratio, and the interpretation: the
 * first rule whose conditions hold, as one hypothesis with its evidence
 * (docs/metrics.md).
 *
 * A signal the server has no series for is MISSING, never 0; one whose every
 * point is NaN (a quantile or a ratio over a window without events) is NAN.
 * Neither is a number a rule can compare: a `when` on it does not hold.
 *
 * Each mean carries its standard error (src/base/stats.h: lag-1 autocorrelation,
 * effective sample size), each ratio candidate / base its 95% interval, and
 * a rule condition on ratio(S) is decided on the interval, not the point
 * estimate: TRUE when the whole interval satisfies the comparison, FALSE
 * when none of it does, UNDECIDED (within noise) when the interval holds
 * the bound, or when the ratio has no interval (fewer than
 * FG_METRICS_MIN_POINTS points on a side).  A rule with an undecided
 * condition does not fire. */
#ifndef FG_METRICS_H
#define FG_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "metrics/metrics_rules.h"
#include "metrics/prom.h"

/* One run: its selector (label matchers) and its steady window. */
typedef struct fg_metrics_run {
	const char *selector; /* namespace="c8-medic-daily-2026-11-21-b1bd400-test" */
	double start, end;    /* Unix seconds, the warm-up already excluded */
} fg_metrics_run;

typedef struct fg_metrics_options {
	double step;  /* 0: the window / 120, at least 15 s: range query resolution */
	double range; /* 0: 4 × step, at least 60 s: {range} of the range queries */
	size_t top;   /* 5: breakdown rows kept (the largest ratios) */
} fg_metrics_options;

void fg_metrics_options_init(fg_metrics_options *opts);

typedef enum { FG_METRIC_OK = 0, FG_METRIC_MISSING, FG_METRIC_NAN } fg_metric_status;

const char *fg_metric_status_name(fg_metric_status s); /* "ok", "missing", "nan" */

/* Points a side needs for its ratio to get an interval. */
#define FG_METRICS_MIN_POINTS 5

typedef struct fg_metric_value {
	fg_metric_status status;
	double value;   /* the mean over the window (OK only) */
	double spread;  /* relative standard deviation of the points (0 for one point or a ratio) */
	size_t points;  /* points averaged (not NaN); a ratio: the fewer of its two signals' */
	double se;      /* standard error of value (0: exact, e.g. a constant series) */
	double neff;    /* effective sample size of the points (fg_series_mean); NaN for a ratio */
	double df;      /* degrees of freedom of se: neff - 1, for a ratio Welch-Satterthwaite's; INFINITY when se
	                   is 0 (derived from se and neff for the values fg_metrics_from_values takes) */
} fg_metric_value;

/* One row of a breakdown: a label set and its value on both sides. */
typedef struct fg_metric_group {
	char *labels;   /* "valueType=JOB intent=COMPLETE" in `by` order */
	fg_metric_value base, candidate;
	double ratio;   /* candidate / base; NaN when either is not OK or base is 0 */
} fg_metric_group;

typedef enum {
	FG_INTERVAL_NONE = 0, /* no ratio (a side not OK, or base 0) */
	FG_INTERVAL_OK,       /* ci holds the 95% interval */
	FG_INTERVAL_FEW       /* a side has fewer than FG_METRICS_MIN_POINTS points */
} fg_interval_status;

typedef struct fg_metric_signal {
	const fg_metrics_rules_signal *def;
	char *query[2];            /* as sent, base and candidate (NULL for a ratio) */
	fg_metric_value side[2];   /* base, candidate */
	double ratio;              /* candidate / base, NaN when not both OK or base is 0 */
	fg_interval_status interval;
	double ci[2];              /* the ratio's 95% interval (fg_stats_ratio_interval95: Student's t), when OK */
	/* Per side, the finite points of a query signal (times, values), or a
	 * derived signal's linearised series (fg_stats_ratio_series): a derived
	 * signal's standard error keeps the covariance of its two signals from
	 * their points at the same instants.  Empty for fg_metrics_from_values. */
	double *times[2], *series[2];
	size_t nseries[2];
	fg_metric_group *groups;   /* breakdowns: the rows with the largest ratios first */
	size_t ngroups;
	size_t ngroups_total;      /* label sets found on either side */
} fg_metric_signal;

/* A subsystem's change of share in the flame graph diff, for delta(). */
typedef struct fg_metrics_delta {
	const char *subsystem;
	double delta;  /* percentage points, candidate - base */
} fg_metrics_delta;

typedef enum { FG_COND_FALSE = 0, FG_COND_TRUE = 1, FG_COND_UNKNOWN = -1 } fg_cond_value;

/* A condition's, or a rule's, state.  UNDECIDED: a ratio(S) comparison the
 * interval of S does not decide (see above); a rule is UNDECIDED when none
 * of its conditions is FALSE and one is UNDECIDED. */
typedef enum { FG_STATE_FALSE = 0, FG_STATE_TRUE, FG_STATE_UNDECIDED } fg_cond_state;

const char *fg_cond_state_name(fg_cond_state s); /* "false", "true", "undecided" */

typedef struct fg_metrics_condition {
	const fg_metrics_rules_condition *def;
	fg_cond_value term_known;  /* TRUE when the term has a value */
	double value;              /* the term's value when known */
	const char *subsystem;     /* delta(*): the subsystem that grew most */
	fg_cond_state state;       /* with unless, TRUE when the term is unknown or the comparison FALSE */
	bool holds;                /* state == FG_STATE_TRUE */
} fg_metrics_condition;

typedef struct fg_metrics_rule_result {
	const fg_metrics_rules_rule *def;
	fg_metrics_condition *conditions;
	fg_cond_state state;       /* TRUE: every condition holds */
	bool matched;              /* state == FG_STATE_TRUE */
} fg_metrics_rule_result;

typedef struct fg_metrics_result {
	const fg_metrics_rules *rules;
	fg_metrics_run run[2];     /* base, candidate (selector copied) */
	double step, range;
	fg_metric_signal *signals; /* in file order */
	size_t nsignals;
	size_t present[2];         /* signals with a value (OK or NAN) per side */
	char warning[256];         /* the server's first warning, or empty */
	/* The interpretation (fg_metrics_interpret). */
	fg_metrics_rule_result *rule_results; /* in file order */
	size_t nrules;
	bool profiles;             /* delta() terms were known */
	long fired;                /* the first matched rule, or -1 */
	long undecided;            /* the first UNDECIDED rule before fired (or anywhere when none fired), or -1:
	                              with fired < 0, the lens cannot tell */
} fg_metrics_result;

/* Queries every signal of rules for both runs.  A query error fails the
 * call (prom.h's codes, the signal and the rules file named in the message);
 * a side for which no signal has any series fails with FG_EFETCH: its
 * selector or window matches nothing.  *out must be freed. */
int fg_metrics_collect(fg_metrics_result **out, fg_prom *prom, const fg_metrics_rules *rules, const fg_metrics_run runs[2],
                       const fg_metrics_options *opts, fg_error *err);

/* A result without queries: the values given per signal (base[i],
 * candidate[i], in file order: status, value, points, se, neff; breakdowns are
 * left empty), as collect would have found them; ratios and intervals are
 * derived from them.  For tests and for callers with values from
 * elsewhere. */
int fg_metrics_from_values(fg_metrics_result **out, const fg_metrics_rules *rules, const fg_metric_value *base,
                           const fg_metric_value *candidate, fg_error *err);

/* Evaluates every rule against the signals and the subsystem deltas
 * (deltas NULL: no profiles, delta() terms are unknown), and sets fired and
 * undecided.  base()/candidate() and delta() terms are compared as values;
 * ratio() terms on their interval.  May be called again with other
 * deltas. */
int fg_metrics_interpret(fg_metrics_result *r, const fg_metrics_delta *deltas, size_t ndeltas, fg_error *err);

/* The signal named name, or NULL. */
const fg_metric_signal *fg_metrics_signal(const fg_metrics_result *r, const char *name);

void fg_metrics_result_free(fg_metrics_result *r);

/* Fills a run template: each {KEY} of keys[0..n) becomes values[i]; other
 * text (braces included) is kept.  A key whose value is NULL fails with
 * FG_ECONFIG ("{benchmark} is not known for ..."), what naming the run.
 * *out is malloc'ed. */
int fg_metrics_fill(char **out, const char *template_text, const char *const *keys, const char *const *values,
                    size_t n, const char *what, fg_error *err);

/* Times and durations as the options give them.  A time is RFC 3339
 * (2026-11-20T04:00:00Z, fractions and ±HH:MM offsets allowed) or decimal
 * Unix seconds; a duration is 90s, 30m, 1h30m, 2d or plain seconds.  Both
 * return false when malformed. */
bool fg_metrics_parse_time(double *out, const char *s);
bool fg_metrics_parse_duration(double *out, const char *s);
/* "START..END" (either form of time). */
bool fg_metrics_parse_range(double *start, double *end, const char *s);
/* "2026-11-20T04:00:00Z" (UTC, whole seconds). */
void fg_metrics_format_time(char out[32], double t);

/* A signal's ratio interval as text: "0.970-1.290" (an en dash), "too few
 * points" or "-". */
void fg_metric_interval_text(char *buf, size_t len, const fg_metric_signal *s);

/* A value as text: "missing", "NaN" or "%.4g". */
void fg_metric_value_text(char *buf, size_t len, const fg_metric_value *v);

/* A ratio as text: "1.250×", with " worse"/" better" when the signal says
 * which way is worse and the change is 5% or more; "-" for NaN. */
void fg_metric_ratio_text(char *buf, size_t len, double ratio, fg_better better);

#endif
