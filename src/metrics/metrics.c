#include "metrics/metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/stats.h"

void fg_metrics_options_init(fg_metrics_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->top = 5;
}

const char *fg_metric_status_name(fg_metric_status s)
{
	return s == FG_METRIC_OK ? "ok" : s == FG_METRIC_MISSING ? "missing" : "nan";
}

const char *fg_cond_state_name(fg_cond_state s)
{
	return s == FG_STATE_TRUE ? "true" : s == FG_STATE_FALSE ? "false" : "undecided";
}

static double ratio_of(const fg_metric_value *b, const fg_metric_value *c)
{
	if (b->status != FG_METRIC_OK || c->status != FG_METRIC_OK || b->value == 0)
		return NAN;
	return c->value / b->value;
}

static void groups_free(fg_metric_signal *s)
{
	for (size_t i = 0; i < s->ngroups; i++)
		free(s->groups[i].labels);
	free(s->groups);
	s->groups = NULL;
	s->ngroups = 0;
}

static void rule_results_free(fg_metrics_result *r)
{
	for (size_t i = 0; i < r->nrules; i++)
		free(r->rule_results[i].conditions);
	free(r->rule_results);
	r->rule_results = NULL;
	r->nrules = 0;
}

void fg_metrics_result_free(fg_metrics_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nsignals; i++) {
		for (int side = 0; side < 2; side++) {
			free(r->signals[i].query[side]);
			free(r->signals[i].times[side]);
			free(r->signals[i].series[side]);
		}
		groups_free(&r->signals[i]);
	}
	free(r->signals);
	for (int s = 0; s < 2; s++)
		free((char *)r->run[s].selector);
	rule_results_free(r);
	free(r);
}

static int result_new(fg_metrics_result **out, const fg_metrics_rules *rules, fg_error *err)
{
	fg_metrics_result *r = calloc(1, sizeof(*r));
	size_t n = fg_metrics_rules_signal_count(rules);
	if (!r || !(r->signals = calloc(n, sizeof(*r->signals)))) {
		free(r);
		return fg_error_oom(err, NULL);
	}
	r->rules = rules;
	r->nsignals = n;
	r->fired = -1;
	for (size_t i = 0; i < n; i++) {
		r->signals[i].def = fg_metrics_rules_signal_at(rules, i);
		r->signals[i].ratio = NAN;
		r->signals[i].side[0].status = r->signals[i].side[1].status = FG_METRIC_MISSING;
	}
	*out = r;
	return 0;
}

static fg_estimate estimate(const fg_metric_value *v)
{
	return (fg_estimate){ v->value, v->se, v->df };
}

/* The degrees of freedom of a mean's standard error. */
static void set_df(fg_metric_value *v)
{
	v->df = v->se > 0 ? fmax(v->neff - 1, 0) : INFINITY;
}

/* The ratio candidate / base and its interval. */
static void ratio_interval(fg_metric_signal *s)
{
	const fg_metric_value *b = &s->side[0], *c = &s->side[1];
	s->ratio = ratio_of(b, c);
	s->interval = FG_INTERVAL_NONE;
	if (isnan(s->ratio))
		return;
	if (b->points < FG_METRICS_MIN_POINTS || c->points < FG_METRICS_MIN_POINTS) {
		s->interval = FG_INTERVAL_FEW;
		return;
	}
	fg_estimate eb = estimate(b), ec = estimate(c);
	fg_stats_ratio_interval95(&s->ci[0], &s->ci[1], &eb, &ec);
	s->interval = FG_INTERVAL_OK;
}

/* A derived side from the points of its two signals at the same instants
 * (both lists ascending in time): the standard error with their covariance,
 * and the linearised series kept for a ratio of this one.  *used is false
 * when they share fewer than FG_METRICS_MIN_POINTS instants. */
static int derive_series(bool *used, fg_metric_signal *s, int side, const fg_metric_signal *sa,
                         const fg_metric_signal *sb, double scale, fg_error *err)
{
	*used = false;
	size_t na = sa->nseries[side], nb = sb->nseries[side], cap = na < nb ? na : nb, n = 0;
	if (cap < FG_METRICS_MIN_POINTS)
		return 0;
	double *t = malloc(cap * sizeof(double)), *a = malloc(cap * sizeof(double));
	double *b = malloc(cap * sizeof(double)), *z = malloc(cap * sizeof(double));
	int rc = t && a && b && z ? 0 : fg_error_oom(err, NULL);
	for (size_t i = 0, k = 0; !rc && i < na && k < nb;) {
		double ti = sa->times[side][i], tk = sb->times[side][k];
		if (ti < tk) {
			i++;
		} else if (tk < ti) {
			k++;
		} else {
			t[n] = ti;
			a[n] = sa->series[side][i++];
			b[n++] = sb->series[side][k++];
		}
	}
	double mb = 0;
	for (size_t i = 0; i < n; i++)
		mb += b[i];
	if (!rc && n >= FG_METRICS_MIN_POINTS && mb != 0) {
		fg_estimate q;
		fg_stats_ratio_series(&q, z, a, b, n, scale);
		s->side[side].se = fabs(q.se);
		s->side[side].df = q.df;
		s->times[side] = t;
		s->series[side] = z;
		s->nseries[side] = n;
		t = z = NULL;
		*used = true;
	}
	free(t);
	free(a);
	free(b);
	free(z);
	return rc;
}

/* Derived signals: the ratio of the means of two signals above them, its
 * standard error by the delta method: from their points at the same
 * instants when there are enough (their covariance kept), else with the two
 * taken as independent (docs/metrics.md). */
static int derive(fg_metrics_result *r, size_t i, fg_error *err)
{
	fg_metric_signal *s = &r->signals[i];
	const fg_metrics_rules_signal *d = s->def;
	int rc = 0;
	if (d->kind == FG_SIGNAL_RATIO) {
		for (int side = 0; side < 2 && !rc; side++) {
			const fg_metric_value *a = &r->signals[d->numerator].side[side];
			const fg_metric_value *b = &r->signals[d->denominator].side[side];
			fg_metric_value *v = &s->side[side];
			memset(v, 0, sizeof(*v));
			if (a->status == FG_METRIC_MISSING || b->status == FG_METRIC_MISSING)
				v->status = FG_METRIC_MISSING;
			else if (a->status == FG_METRIC_NAN || b->status == FG_METRIC_NAN || b->value == 0)
				v->status = FG_METRIC_NAN;
			else {
				fg_estimate ea = estimate(a), eb = estimate(b), q;
				fg_stats_ratio(&q, &ea, &eb);
				v->value = q.value * d->scale;
				v->points = a->points < b->points ? a->points : b->points;
				v->se = fabs(d->scale) * q.se;
				v->df = q.df;
				bool used;
				rc = derive_series(&used, s, side, &r->signals[d->numerator], &r->signals[d->denominator],
				                   d->scale, err);
			}
			v->neff = NAN;
		}
	}
	if (d->kind != FG_SIGNAL_BREAKDOWN)
		ratio_interval(s);
	return rc;
}

int fg_metrics_from_values(fg_metrics_result **out, const fg_metrics_rules *rules, const fg_metric_value *base,
                           const fg_metric_value *candidate, fg_error *err)
{
	int rc = result_new(out, rules, err);
	if (rc)
		return rc;
	fg_metrics_result *r = *out;
	for (size_t i = 0; i < r->nsignals; i++) {
		if (r->signals[i].def->kind == FG_SIGNAL_QUERY) {
			r->signals[i].side[0] = base[i];
			r->signals[i].side[1] = candidate[i];
			set_df(&r->signals[i].side[0]);
			set_df(&r->signals[i].side[1]);
		}
		rc = derive(r, i, err);
		if (rc) {
			fg_metrics_result_free(r);
			*out = NULL;
			return rc;
		}
		for (int s = 0; s < 2; s++)
			r->present[s] += r->signals[i].side[s].status != FG_METRIC_MISSING;
	}
	return 0;
}

/* The mean of a series' points that are numbers, its relative spread and
 * its standard error. */
static void summarise(fg_metric_value *v, const fg_prom_series *s)
{
	fg_series_mean m;
	fg_stats_series_mean(&m, s->values, s->npoints);
	memset(v, 0, sizeof(*v));
	if (!m.n) {
		v->status = FG_METRIC_NAN;
		return;
	}
	v->status = FG_METRIC_OK;
	v->value = m.mean;
	v->points = m.n;
	v->spread = m.mean != 0 ? m.sd / fabs(m.mean) : 0;
	v->se = m.se;
	v->neff = m.neff;
	set_df(v);
}

/* A query signal's finite points, for the derived signals' covariance. */
static bool keep_points(fg_metric_signal *s, int side, const fg_prom_series *p)
{
	size_t n = 0;
	if (p->npoints && (!(s->times[side] = malloc(p->npoints * sizeof(double))) ||
	                   !(s->series[side] = malloc(p->npoints * sizeof(double)))))
		return false;
	for (size_t i = 0; i < p->npoints; i++)
		if (isfinite(p->values[i])) {
			s->times[side][n] = p->times[i];
			s->series[side][n++] = p->values[i];
		}
	s->nseries[side] = n;
	return true;
}

/* "1800s" */
static void duration_text(char *buf, size_t len, double seconds)
{
	snprintf(buf, len, "%.0fs", seconds < 1 ? 1 : seconds);
}

/* A query error names the signal and its rules file line. */
static int signal_error(fg_error *err, const fg_metrics_result *r, const fg_metrics_rules_signal *d, int side)
{
	char msg[sizeof(err->message)], where[600];
	snprintf(msg, sizeof(msg), "%s", err->message);
	snprintf(where, sizeof(where), "signal '%s' (%s:%zu, %s): ", d->name, fg_metrics_rules_source(r->rules), d->line,
	         side ? "candidate" : "base");
	size_t n = strlen(where);
	memcpy(err->message, where, n < sizeof(err->message) ? n : sizeof(err->message) - 1);
	snprintf(err->message + n, sizeof(err->message) - n, "%s", msg);
	return err->code;
}

static int collect_series(fg_metrics_result *r, fg_prom *prom, size_t i, int side, fg_error *err)
{
	fg_metric_signal *s = &r->signals[i];
	const fg_metrics_run *run = &r->run[side];
	char range[32];
	duration_text(range, sizeof(range), r->range);
	int rc = fg_metrics_rules_expand(&s->query[side], s->def->query, run->selector, range, err);
	if (rc)
		return rc;
	fg_prom_result pr;
	rc = fg_prom_query_range(&pr, prom, s->query[side], run->start, run->end, r->step, err);
	if (rc)
		return signal_error(err, r, s->def, side);
	if (pr.warning[0] && !r->warning[0])
		snprintf(r->warning, sizeof(r->warning), "%s", pr.warning);
	if (pr.nseries > 1) {
		size_t n = pr.nseries;
		fg_prom_result_clear(&pr);
		fg_error_set(err, FG_ECONFIG, NULL, "the query gives %zu series, not one: aggregate it (sum, avg, max) "
		             "or make it a breakdown with 'by'", n);
		return signal_error(err, r, s->def, side);
	}
	if (pr.nseries == 1) {
		summarise(&s->side[side], &pr.series[0]);
		if (!keep_points(s, side, &pr.series[0]))
			rc = fg_error_oom(err, NULL);
	}
	fg_prom_result_clear(&pr);
	return rc;
}

/* "valueType=JOB intent=COMPLETE" */
static char *group_labels(const fg_metrics_rules_signal *d, const fg_prom_series *s)
{
	size_t len = 1;
	for (size_t k = 0; k < d->nby; k++) {
		const char *v = fg_prom_series_label(s, d->by[k]);
		len += strlen(d->by[k]) + (v ? strlen(v) : 0) + 2;
	}
	char *out = malloc(len), *q = out;
	if (!out)
		return NULL;
	*q = '\0';
	for (size_t k = 0; k < d->nby; k++) {
		const char *v = fg_prom_series_label(s, d->by[k]);
		q += sprintf(q, "%s%s=%s", k ? " " : "", d->by[k], v ? v : "");
	}
	return out;
}

static int by_ratio_desc(const void *a, const void *b)
{
	const fg_metric_group *x = a, *y = b;
	bool xn = isnan(x->ratio), yn = isnan(y->ratio);
	if (xn != yn)
		return xn ? 1 : -1;
	if (!xn && x->ratio != y->ratio)
		return x->ratio < y->ratio ? 1 : -1;
	return strcmp(x->labels, y->labels);
}

/* A breakdown: one instant query per side at the window's end, {range} the
 * whole window; rows matched by their label set. */
static int collect_breakdown(fg_metrics_result *r, fg_prom *prom, size_t i, size_t top, fg_error *err)
{
	fg_metric_signal *s = &r->signals[i];
	fg_prom_result pr[2] = { 0 };
	int rc = 0;
	for (int side = 0; side < 2 && !rc; side++) {
		const fg_metrics_run *run = &r->run[side];
		char range[32];
		duration_text(range, sizeof(range), run->end - run->start);
		rc = fg_metrics_rules_expand(&s->query[side], s->def->query, run->selector, range, err);
		if (!rc && (rc = fg_prom_query(&pr[side], prom, s->query[side], run->end, err)))
			rc = signal_error(err, r, s->def, side);
	}
	size_t cap = pr[0].nseries + pr[1].nseries;
	if (!rc && cap && !(s->groups = calloc(cap, sizeof(*s->groups))))
		rc = fg_error_oom(err, NULL);
	for (int side = 0; side < 2 && !rc; side++) {
		for (size_t k = 0; k < pr[side].nseries && !rc; k++) {
			char *labels = group_labels(s->def, &pr[side].series[k]);
			if (!labels) {
				rc = fg_error_oom(err, NULL);
				break;
			}
			fg_metric_group *g = NULL;
			for (size_t j = 0; j < s->ngroups && !g; j++)
				if (!strcmp(s->groups[j].labels, labels))
					g = &s->groups[j];
			if (g) {
				free(labels);
			} else {
				g = &s->groups[s->ngroups++];
				g->labels = labels;
				g->base.status = g->candidate.status = FG_METRIC_MISSING;
			}
			summarise(side ? &g->candidate : &g->base, &pr[side].series[k]);
		}
	}
	for (int side = 0; side < 2; side++) {
		if (!rc && pr[side].nseries)
			r->signals[i].side[side] = (fg_metric_value){ .status = FG_METRIC_OK, .points = pr[side].nseries };
		fg_prom_result_clear(&pr[side]);
	}
	if (rc)
		return rc;
	for (size_t j = 0; j < s->ngroups; j++)
		s->groups[j].ratio = ratio_of(&s->groups[j].base, &s->groups[j].candidate);
	if (s->ngroups > 1)
		qsort(s->groups, s->ngroups, sizeof(*s->groups), by_ratio_desc);
	s->ngroups_total = s->ngroups;
	while (s->ngroups > top)
		free(s->groups[--s->ngroups].labels);
	return 0;
}

int fg_metrics_collect(fg_metrics_result **out, fg_prom *prom, const fg_metrics_rules *rules, const fg_metrics_run runs[2],
                       const fg_metrics_options *opts, fg_error *err)
{
	*out = NULL;
	fg_metrics_options defaults;
	if (!opts) {
		fg_metrics_options_init(&defaults);
		opts = &defaults;
	}
	for (int s = 0; s < 2; s++)
		if (!(runs[s].end > runs[s].start) || !isfinite(runs[s].start) || !isfinite(runs[s].end))
			return fg_error_set(err, FG_EUSAGE, NULL, "the %s window is empty (its end is not after its start)",
			                    s ? "candidate" : "base");
	fg_metrics_result *r;
	int rc = result_new(&r, rules, err);
	if (rc)
		return rc;
	double shortest = fmin(runs[0].end - runs[0].start, runs[1].end - runs[1].start);
	/* A multiple of 15 s, the usual scrape interval. */
	r->step = opts->step > 0 ? opts->step : fmax(15, 15 * ceil(shortest / 120 / 15));
	r->range = opts->range > 0 ? opts->range : fmax(60, 4 * r->step);
	for (int s = 0; s < 2 && !rc; s++) {
		r->run[s] = runs[s];
		if (!(r->run[s].selector = strdup(runs[s].selector)))
			rc = fg_error_oom(err, NULL);
	}
	for (size_t i = 0; i < r->nsignals && !rc; i++) {
		switch (r->signals[i].def->kind) {
		case FG_SIGNAL_QUERY:
			for (int side = 0; side < 2 && !rc; side++)
				rc = collect_series(r, prom, i, side, err);
			break;
		case FG_SIGNAL_BREAKDOWN: rc = collect_breakdown(r, prom, i, opts->top, err); break;
		case FG_SIGNAL_RATIO: break;
		}
		if (!rc)
			rc = derive(r, i, err);
		for (int s = 0; s < 2 && !rc; s++)
			r->present[s] += r->signals[i].side[s].status != FG_METRIC_MISSING;
	}
	for (int s = 0; s < 2 && !rc; s++)
		if (!r->present[s])
			rc = fg_error_set(err, FG_EFETCH, fg_prom_shown_url(prom),
			                  "no series for any signal of %s with the %s selector {%s} in its window: is the "
			                  "selector right and the window inside the run?",
			                  fg_metrics_rules_source(rules), s ? "candidate" : "base", runs[s].selector);
	if (rc) {
		fg_metrics_result_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

const fg_metric_signal *fg_metrics_signal(const fg_metrics_result *r, const char *name)
{
	for (size_t i = 0; i < r->nsignals; i++)
		if (!strcmp(r->signals[i].def->name, name))
			return &r->signals[i];
	return NULL;
}

static bool compare(double v, fg_op op, double t)
{
	switch (op) {
	case FG_OP_LT: return v < t;
	case FG_OP_LE: return v <= t;
	case FG_OP_GT: return v > t;
	case FG_OP_GE: return v >= t;
	}
	return false;
}

/* A comparison of a ratio over its whole interval (monotone: the ends
 * decide it); no interval (too few points) decides nothing. */
static fg_cond_state decide(const fg_metric_signal *s, fg_op op, double t)
{
	if (s->interval != FG_INTERVAL_OK)
		return FG_STATE_UNDECIDED;
	bool lo = compare(s->ci[0], op, t), hi = compare(s->ci[1], op, t);
	return lo && hi ? FG_STATE_TRUE : !lo && !hi ? FG_STATE_FALSE : FG_STATE_UNDECIDED;
}

static void evaluate(fg_metrics_condition *c, const fg_metrics_result *r, const fg_metrics_delta *deltas,
                     size_t ndeltas)
{
	const fg_metrics_rules_condition *d = c->def;
	c->term_known = FG_COND_UNKNOWN;
	c->subsystem = NULL;
	const fg_metric_signal *s = d->term <= FG_TERM_RATIO ? &r->signals[d->signal] : NULL;
	switch (d->term) {
	case FG_TERM_BASE:
	case FG_TERM_CANDIDATE: {
		const fg_metric_value *v = &s->side[d->term == FG_TERM_CANDIDATE];
		if (v->status == FG_METRIC_OK) {
			c->value = v->value;
			c->term_known = FG_COND_TRUE;
		}
		break;
	}
	case FG_TERM_RATIO:
		if (!isnan(s->ratio)) {
			c->value = s->ratio;
			c->term_known = FG_COND_TRUE;
		}
		break;
	case FG_TERM_DELTA:
		for (size_t i = 0; deltas && i < ndeltas; i++)
			if (!strcmp(deltas[i].subsystem, d->subsystem)) {
				c->value = deltas[i].delta;
				c->term_known = FG_COND_TRUE;
			}
		/* With profiles, a subsystem neither side has did not change. */
		if (deltas && c->term_known != FG_COND_TRUE) {
			c->value = 0;
			c->term_known = FG_COND_TRUE;
		}
		break;
	case FG_TERM_DELTA_ANY:
		for (size_t i = 0; deltas && i < ndeltas; i++)
			if (!c->subsystem || deltas[i].delta > c->value) {
				c->value = deltas[i].delta;
				c->subsystem = deltas[i].subsystem;
				c->term_known = FG_COND_TRUE;
			}
		break;
	}
	fg_cond_state truth = FG_STATE_FALSE;
	if (c->term_known == FG_COND_TRUE)
		truth = d->term == FG_TERM_RATIO ? decide(s, d->op, d->threshold)
		        : compare(c->value, d->op, d->threshold) ? FG_STATE_TRUE : FG_STATE_FALSE;
	c->state = !d->unless || truth == FG_STATE_UNDECIDED ? truth
	           : truth == FG_STATE_TRUE ? FG_STATE_FALSE : FG_STATE_TRUE;
	c->holds = c->state == FG_STATE_TRUE;
}

int fg_metrics_interpret(fg_metrics_result *r, const fg_metrics_delta *deltas, size_t ndeltas, fg_error *err)
{
	rule_results_free(r);
	size_t n = fg_metrics_rules_rule_count(r->rules);
	r->fired = r->undecided = -1;
	r->profiles = deltas != NULL;
	if (n && !(r->rule_results = calloc(n, sizeof(*r->rule_results))))
		return fg_error_oom(err, NULL);
	for (size_t i = 0; i < n; i++) {
		fg_metrics_rule_result *rr = &r->rule_results[i];
		rr->def = fg_metrics_rules_rule_at(r->rules, i);
		r->nrules++;
		if (!(rr->conditions = calloc(rr->def->nconditions, sizeof(*rr->conditions))))
			return fg_error_oom(err, NULL);
		rr->state = FG_STATE_TRUE;
		for (size_t k = 0; k < rr->def->nconditions; k++) {
			fg_metrics_condition *c = &rr->conditions[k];
			c->def = &rr->def->conditions[k];
			evaluate(c, r, deltas, ndeltas);
			if (c->state == FG_STATE_FALSE || (c->state == FG_STATE_UNDECIDED && rr->state == FG_STATE_TRUE))
				rr->state = c->state;
		}
		rr->matched = rr->state == FG_STATE_TRUE;
		if (rr->matched && r->fired < 0)
			r->fired = (long)i;
		if (rr->state == FG_STATE_UNDECIDED && r->fired < 0 && r->undecided < 0)
			r->undecided = (long)i;
	}
	return 0;
}

static bool digits(const char *s, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

bool fg_metrics_parse_time(double *out, const char *s)
{
	char *end;
	if (!s || !*s)
		return false;
	if (strlen(s) < 19 || s[4] != '-') {
		double v = strtod(s, &end);
		if (*end || !isfinite(v) || v < 0 || s[0] < '0' || s[0] > '9')
			return false;
		*out = v;
		return true;
	}
	int y, mo, d, h, mi, se;
	if (!digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) || s[7] != '-' || !digits(s + 8, 2, &d) ||
	    (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !digits(s + 11, 2, &h) || s[13] != ':' ||
	    !digits(s + 14, 2, &mi) || s[16] != ':' || !digits(s + 17, 2, &se))
		return false;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
		return false;
	const char *p = s + 19;
	double frac = 0;
	if (*p == '.') {
		double scale = 0.1;
		if (p[1] < '0' || p[1] > '9')
			return false;
		for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
			frac += (*p - '0') * scale;
	}
	long offset = 0;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int oh, om;
		if (!digits(p + 1, 2, &oh) || p[3] != ':' || !digits(p + 4, 2, &om) || oh > 23 || om > 59)
			return false;
		offset = (oh * 3600L + om * 60L) * (*p == '-' ? -1 : 1);
		p += 6;
	} else {
		return false;
	}
	if (*p)
		return false;
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h, .tm_min = mi, .tm_sec = se };
	time_t t = timegm(&tm);
	/* timegm normalises 31 February into March: refuse it. */
	if (tm.tm_mday != d || tm.tm_mon != mo - 1)
		return false;
	*out = (double)t - (double)offset + frac;
	return true;
}

bool fg_metrics_parse_duration(double *out, const char *s)
{
	if (!s || !*s)
		return false;
	double total = 0;
	const char *p = s;
	while (*p) {
		if (*p < '0' || *p > '9')
			return false;
		char *end;
		double v = strtod(p, &end);
		double unit;
		switch (*end) {
		case '\0': unit = end == p ? 0 : 1; break;
		case 's': unit = 1; break;
		case 'm': unit = 60; break;
		case 'h': unit = 3600; break;
		case 'd': unit = 86400; break;
		default: return false;
		}
		if (!unit || !isfinite(v))
			return false;
		total += v * unit;
		p = *end ? end + 1 : end;
		if (!*end && p != s + strlen(s))
			return false;
	}
	if (!(total > 0) || total > 366 * 86400.0)
		return false;
	*out = total;
	return true;
}

bool fg_metrics_parse_range(double *start, double *end, const char *s)
{
	const char *dots = strstr(s, "..");
	if (!dots)
		return false;
	char a[64], b[64];
	size_t la = (size_t)(dots - s), lb = strlen(dots + 2);
	if (la == 0 || la >= sizeof(a) || lb == 0 || lb >= sizeof(b))
		return false;
	memcpy(a, s, la);
	a[la] = '\0';
	memcpy(b, dots + 2, lb + 1);
	return fg_metrics_parse_time(start, a) && fg_metrics_parse_time(end, b) && *end > *start;
}

void fg_metrics_format_time(char out[32], double t)
{
	time_t secs = (time_t)floor(t);
	struct tm tm;
	if (!gmtime_r(&secs, &tm) || !strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, 32, "%.0f", t);
}

int fg_metrics_fill(char **out, const char *t, const char *const *keys, const char *const *values, size_t n,
                    const char *what, fg_error *err)
{
	*out = NULL;
	size_t cap = strlen(t) + 1, len = 0;
	for (size_t i = 0; i < n; i++)
		cap += values[i] ? strlen(values[i]) * (strlen(t) / 2 + 1) : 0;
	char *o = malloc(cap);
	if (!o)
		return fg_error_oom(err, NULL);
	for (const char *p = t; *p;) {
		size_t k = n;
		if (*p == '{')
			for (k = 0; k < n; k++)
				if (!strncmp(p + 1, keys[k], strlen(keys[k])) && p[1 + strlen(keys[k])] == '}')
					break;
		if (k == n) {
			o[len++] = *p++;
			continue;
		}
		if (!values[k]) {
			free(o);
			return fg_error_set(err, FG_ECONFIG, NULL, "{%s} is not known for %s", keys[k], what);
		}
		size_t vl = strlen(values[k]);
		memcpy(o + len, values[k], vl);
		len += vl;
		p += strlen(keys[k]) + 2;
	}
	o[len] = '\0';
	*out = o;
	return 0;
}

void fg_metric_interval_text(char *buf, size_t len, const fg_metric_signal *s)
{
	if (s->interval == FG_INTERVAL_OK)
		snprintf(buf, len, "%.3f\xe2\x80\x93%.3f", s->ci[0], s->ci[1]);
	else
		snprintf(buf, len, "%s", s->interval == FG_INTERVAL_FEW ? "too few points" : "-");
}

void fg_metric_value_text(char *buf, size_t len, const fg_metric_value *v)
{
	if (v->status == FG_METRIC_MISSING)
		snprintf(buf, len, "missing");
	else if (v->status == FG_METRIC_NAN)
		snprintf(buf, len, "NaN");
	else
		snprintf(buf, len, "%.4g", v->value);
}

void fg_metric_ratio_text(char *buf, size_t len, double ratio, fg_better better)
{
	if (isnan(ratio)) {
		snprintf(buf, len, "-");
		return;
	}
	const char *judgement = "";
	if (better != FG_BETTER_NONE && fabs(ratio - 1) >= 0.05)
		judgement = (ratio > 1) == (better == FG_BETTER_LOWER) ? " worse" : " better";
	snprintf(buf, len, "%.3f\xc3\x97%s", ratio, judgement);
}
