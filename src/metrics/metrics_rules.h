/* fgbisect — metric rules files: the signals of the efficiency lens and the
 * rules that read them (docs/metrics.md; contrib/zeebe.metrics is the
 * default).
 *
 *     # a comment (a line whose first non-blank byte is '#')
 *     signal records unit=records/s better=higher
 *         title processed records per second
 *         query sum(rate(zeebe_stream_processor_records_total{sel,action="processed"}[{range}]))
 *     signal cpu_per_record unit=s/record better=lower
 *         ratio cpu / records
 *     signal processing_p99_by_type unit=s better=lower
 *         query histogram_quantile(0.99, sum by (le, valueType, intent) (rate(X_bucket{sel}[{range}])))
 *         by valueType,intent
 *     rule efficiency
 *         when ratio(cpu) >= 0.9
 *         unless delta(*) < 1.5
 *         hypothesis more CPU per unit of work
 *
 * A signal is a PromQL template (`query`) or the ratio of two signals
 * defined above it (`ratio A / B [* K]`: mean of A over mean of B, times
 * K).  In a template, `{sel}` written as the first item of a label list
 * stands for the run's selector (`m{sel}` → `m{namespace="x"}`,
 * `m{sel,a="b"}` → `m{namespace="x",a="b"}`); every query needs at least one;
 * `{range}` is the time each point averages over.  A query without `by`
 * must give one series (aggregate it); it is a range query over the steady
 * window whose mean is the value.  A query with `by L1,L2` is a breakdown:
 * one instant query over the whole window, one value per label set.
 * unit is free text ("" by default); better is lower, higher or none (the
 * default): which way is worse.
 *
 * A rule is a list of conditions and a hypothesis; the first rule (file
 * order) whose conditions all hold fires.  `when TERM OP NUMBER` holds when
 * the term is known and the comparison is true; `unless TERM OP NUMBER` holds
 * when the term is unknown or the comparison false.  OP is < <= > >=.  TERM
 * is base(S), candidate(S) or ratio(S) (candidate / base) of a signal S
 * without `by`, or delta(SUBSYSTEM) — the change of a subsystem's share of the
 * flame graph in percentage points (known only when profiles are compared),
 * delta(*) the largest such change. */
#ifndef FG_METRICS_RULES_H
#define FG_METRICS_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

#define FG_MRULES_MAX_NAME 64 /* bytes of a signal, rule or subsystem name */
#define FG_MRULES_MAX_BY 8    /* labels of a breakdown */

typedef enum { FG_BETTER_NONE = 0, FG_BETTER_LOWER, FG_BETTER_HIGHER } fg_better;

typedef enum { FG_SIGNAL_QUERY, FG_SIGNAL_RATIO, FG_SIGNAL_BREAKDOWN } fg_signal_kind;

typedef struct fg_metrics_rules_signal {
	char name[FG_MRULES_MAX_NAME + 1];
	const char *title;    /* the name when not given */
	const char *unit;     /* "" when not given */
	fg_better better;
	fg_signal_kind kind;
	const char *query;    /* QUERY, BREAKDOWN: the template */
	size_t numerator;     /* RATIO: signal indices, both defined above */
	size_t denominator;
	double scale;         /* RATIO: 1 unless `* K` */
	const char *by[FG_MRULES_MAX_BY]; /* BREAKDOWN: the labels */
	size_t nby;
	size_t line;
} fg_metrics_rules_signal;

typedef enum { FG_TERM_BASE, FG_TERM_CANDIDATE, FG_TERM_RATIO, FG_TERM_DELTA, FG_TERM_DELTA_ANY } fg_term_kind;
typedef enum { FG_OP_LT, FG_OP_LE, FG_OP_GT, FG_OP_GE } fg_op;

typedef struct fg_metrics_rules_condition {
	bool unless;          /* holds when unknown or false */
	fg_term_kind term;
	size_t signal;        /* BASE, CANDIDATE, RATIO */
	char subsystem[FG_MRULES_MAX_NAME + 1]; /* DELTA */
	fg_op op;
	double threshold;
	const char *text;     /* as written, "ratio(cpu) >= 0.9" */
} fg_metrics_rules_condition;

typedef struct fg_metrics_rules_rule {
	char name[FG_MRULES_MAX_NAME + 1];
	const fg_metrics_rules_condition *conditions;
	size_t nconditions;
	const char *hypothesis;
	size_t line;
} fg_metrics_rules_rule;

typedef struct fg_metrics_rules fg_metrics_rules;

/* Parses text[0..len) (source names it in errors).  FG_ECONFIG with
 * "SOURCE:LINE" as the error's source on a malformed file. */
int fg_metrics_rules_parse(fg_metrics_rules **out, const char *text, size_t len, const char *source, fg_error *err);

/* Reads (through the source layer: a path, "-" or a URL) and parses the
 * rules; FG_EFETCH when they cannot be read, as for any input. */
int fg_metrics_rules_load(fg_metrics_rules **out, const char *source, fg_error *err);

void fg_metrics_rules_free(fg_metrics_rules *r);

/* The rules file to use when none is given: $FGBISECT_METRICS when set and
 * not empty, else the installed contrib/zeebe.metrics, else the source
 * tree's, else NULL. */
const char *fg_metrics_rules_default_path(void);

/* The file it was read from. */
const char *fg_metrics_rules_source(const fg_metrics_rules *r);

size_t fg_metrics_rules_signal_count(const fg_metrics_rules *r);
const fg_metrics_rules_signal *fg_metrics_rules_signal_at(const fg_metrics_rules *r, size_t i);
size_t fg_metrics_rules_rule_count(const fg_metrics_rules *r);
const fg_metrics_rules_rule *fg_metrics_rules_rule_at(const fg_metrics_rules *r, size_t i);

/* The query of a template for one run: {sel} → the selector, {range} →
 * range.  *out is malloc'ed.  FG_EUSAGE when the selector holds a brace or a
 * line break (it is label matchers, as inside {…}) or is empty. */
int fg_metrics_rules_expand(char **out, const char *template_text, const char *selector, const char *range,
                     fg_error *err);

#endif
