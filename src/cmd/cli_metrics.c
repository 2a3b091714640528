#include "cmd/cli_metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "net/fetch.h"
#include "metrics/prom.h"
#include "analysis/rules.h"
#include "analysis/subsystems.h"
#include "model/tree.h"

#define DEFAULT_WINDOW (30 * 60.0)
#define DEFAULT_WARMUP (15 * 60.0)

void cli_metrics_options_init(struct cli_metrics_options *o)
{
	memset(o, 0, sizeof(*o));
	o->warmup = -1;
	o->at = -1;
	o->top = 5;
}

const char *cli_check_duration(const struct cli_option *opt, const char *arg, char *msg, size_t size)
{
	double d;
	/* No warm-up at all is a choice; a window or step of 0 is not. */
	if (fg_metrics_parse_duration(&d, arg) || (!strcmp(opt->long_name, "warmup") && !strcmp(arg, "0")))
		return NULL;
	snprintf(msg, size, "--%s wants a duration (90s, 30m, 1h30m), not '%s'", opt->long_name, arg);
	return msg;
}

const char *cli_check_time(const struct cli_option *opt, const char *arg, char *msg, size_t size)
{
	double t;
	if (fg_metrics_parse_time(&t, arg))
		return NULL;
	snprintf(msg, size, "--%s wants a time (RFC 3339 or Unix seconds), not '%s'", opt->long_name, arg);
	return msg;
}

const char *cli_check_range(const struct cli_option *opt, const char *arg, char *msg, size_t size)
{
	double start, end;
	/* A template ({date} ...) is filled and checked per run. */
	if (strchr(arg, '{') || fg_metrics_parse_range(&start, &end, arg))
		return NULL;
	snprintf(msg, size, "--%s wants START..END (RFC 3339 or Unix seconds, END after START), not '%s'",
		 opt->long_name, arg);
	return msg;
}

int cli_metrics_check(struct cli_metrics_options *o, const struct cli_command_spec *spec,
		      const struct cli_args *args, bool need_selectors)
{
	/* The arguments were checked as they were parsed. */
	if (o->window_arg)
		fg_metrics_parse_duration(&o->window, o->window_arg);
	if (o->step_arg)
		fg_metrics_parse_duration(&o->step, o->step_arg);
	if (o->warmup_arg && !fg_metrics_parse_duration(&o->warmup, o->warmup_arg))
		o->warmup = 0;
	if (o->at_arg)
		fg_metrics_parse_time(&o->at, o->at_arg);
	if (!o->url || !*o->url)
		o->url = getenv("FGBISECT_PROMETHEUS");
	if (!o->url || !*o->url)
		return cli_spec_usage_error(spec, args, "the metrics need --prometheus URL (or $FGBISECT_PROMETHEUS)");
	if (need_selectors && (!o->selector[0] || !o->selector[1]))
		return cli_spec_usage_error(spec, args, "the metrics need --base SELECTOR and --candidate SELECTOR "
					    "(label matchers, e.g. namespace=\"c8-...\")");
	if (!o->range[0] != !o->range[1])
		return cli_spec_usage_error(spec, args, "--base-range and --candidate-range go together");
	if (o->range[0] && o->at >= 0)
		return cli_spec_usage_error(spec, args,
					    "--at places a window without ranges; with ranges, use --warmup and --window");
	if (!o->range[0] && o->warmup >= 0)
		return cli_spec_usage_error(spec, args,
					    "--warmup is cut from the start of --base-range/--candidate-range");
	if (!o->rules_path && !(o->rules_path = fg_metrics_rules_default_path()))
		return cli_spec_usage_error(spec, args,
					    "no metric rules file: give --metrics-rules FILE or set $FGBISECT_METRICS");
	return CLI_PARSED;
}

/* The steady windows of both runs. */
static int windows(fg_metrics_run runs[2], const struct cli_metrics_options *o, fg_error *err)
{
	for (int s = 0; s < 2; s++) {
		runs[s].selector = o->selector[s];
		if (!o->range[s]) {
			double end = o->at >= 0 ? o->at : (double)time(NULL);
			runs[s].end = end;
			runs[s].start = end - (o->window > 0 ? o->window : DEFAULT_WINDOW);
			continue;
		}
		double start, end;
		if (!fg_metrics_parse_range(&start, &end, o->range[s]))
			return fg_error_set(err, FG_EUSAGE, NULL, "%s range '%s' is not START..END", s ? "candidate" : "base",
			                    o->range[s]);
		double warmup = o->warmup >= 0 ? o->warmup : DEFAULT_WARMUP;
		runs[s].start = start + warmup;
		runs[s].end = o->window > 0 && runs[s].start + o->window < end ? runs[s].start + o->window : end;
		if (runs[s].end <= runs[s].start)
			return fg_error_set(err, FG_EUSAGE, NULL, "the %s range %s is not longer than the warm-up (%.0f s)",
			                    s ? "candidate" : "base", o->range[s], warmup);
	}
	return 0;
}

int cli_metrics_run(fg_metrics_result **out, fg_metrics_rules **rules, const struct cli_metrics_options *o,
                    const struct cli_profile_options *po, const fg_metrics_delta *deltas, size_t ndeltas,
                    fg_error *err)
{
	*out = NULL;
	*rules = NULL;
	fg_metrics_run runs[2];
	fg_prom_options popts;
	fg_prom_options_init(&popts);
	popts.headers = po->headers.items;
	popts.nheaders = po->headers.n;
	popts.netrc = po->netrc;
	if (po->timeout_s)
		popts.timeout_s = po->timeout_s;
	fg_metrics_options mopts;
	fg_metrics_options_init(&mopts);
	mopts.step = o->step;
	mopts.top = (size_t)o->top;
	fg_prom *prom = NULL;
	int rc = windows(runs, o, err);
	if (!rc)
		rc = fg_metrics_rules_load(rules, o->rules_path, err);
	if (!rc)
		rc = fg_prom_new(&prom, o->url, &popts, err);
	if (!rc)
		rc = fg_metrics_collect(out, prom, *rules, runs, &mopts, err);
	if (!rc)
		rc = fg_metrics_interpret(*out, deltas, ndeltas, err);
	fg_prom_free(prom);
	if (rc) {
		fg_metrics_result_free(*out);
		fg_metrics_rules_free(*rules);
		*out = NULL;
		*rules = NULL;
	}
	return rc;
}

/* Subsystem shares of one tree, in percent. */
static int tree_shares(double *out, fg_rules *rules, const fg_tree *tree, const fg_names *names, fg_error *err)
{
	fg_subsystems *subs = NULL;
	int rc = fg_subsystems_new(&subs, rules, names, NULL, err);
	if (!rc)
		rc = fg_tree_visit(tree, names, fg_subsystems_frames, subs, err);
	if (!rc) {
		uint64_t total = fg_subsystems_total(subs);
		for (size_t i = 0; i < fg_subsystems_count(subs); i++)
			out[i] = total ? 100.0 * (double)fg_subsystems_samples(subs, i) / (double)total : 0;
	}
	fg_subsystems_free(subs);
	return rc;
}

int cli_metrics_deltas(struct cli_metrics_deltas *out, const fg_tree *base, const fg_tree *candidate,
                       const fg_names *names, fg_error *err)
{
	memset(out, 0, sizeof(*out));
	const char *path = fg_rules_default_path();
	if (!path)
		return fg_error_set(err, FG_EUSAGE, NULL, "no subsystem rules file for the metrics' delta() terms "
		                    "(set $FGBISECT_RULES)");
	fg_rules *rules = NULL;
	int rc = fg_rules_load(&rules, path, NULL, NULL, err);
	size_t n = rules ? fg_rules_count(rules) + 1 : 0;
	double *b = rc ? NULL : calloc(n, sizeof(double)), *c = rc ? NULL : calloc(n, sizeof(double));
	if (!rc && (!b || !c || !(out->deltas = calloc(n, sizeof(*out->deltas)))))
		rc = fg_error_oom(err, NULL);
	if (!rc)
		rc = tree_shares(b, rules, base, names, err);
	if (!rc)
		rc = tree_shares(c, rules, candidate, names, err);
	for (size_t i = 0; !rc && i < n; i++)
		out->deltas[out->n++] = (fg_metrics_delta){ fg_rules_name(rules, i), c[i] - b[i] };
	free(b);
	free(c);
	out->rules = rules;
	if (rc)
		cli_metrics_deltas_free(out);
	return rc;
}

void cli_metrics_deltas_free(struct cli_metrics_deltas *d)
{
	free(d->deltas);
	fg_rules_free(d->rules);
	memset(d, 0, sizeof(*d));
}

/* ---- text ------------------------------------------------------------ */

/* "0.970–1.290; " when the ratio's interval has a width, "too few points; "
 * when it has none. */
static void interval_prefix(char *buf, size_t len, const fg_metric_signal *s)
{
	buf[0] = '\0';
	if (s->interval == FG_INTERVAL_FEW || (s->interval == FG_INTERVAL_OK && s->ci[0] != s->ci[1])) {
		fg_metric_interval_text(buf, len, s);
		snprintf(buf + strlen(buf), len - strlen(buf), "; ");
	}
}

static void term_text(char *buf, size_t len, const fg_metrics_result *r, const fg_metrics_condition *c)
{
	const fg_metrics_rules_condition *d = c->def;
	if (c->term_known != FG_COND_TRUE) {
		if (d->term == FG_TERM_DELTA || d->term == FG_TERM_DELTA_ANY)
			snprintf(buf, len, "unknown (no profiles compared)");
		else {
			const fg_metric_signal *s = &r->signals[d->signal];
			char b[32], c2[32];
			fg_metric_value_text(b, sizeof(b), &s->side[0]);
			fg_metric_value_text(c2, sizeof(c2), &s->side[1]);
			snprintf(buf, len, "unknown (base %s, candidate %s)", b, c2);
		}
		return;
	}
	if (d->term == FG_TERM_DELTA_ANY)
		snprintf(buf, len, "%+.2f points (%s)", c->value, c->subsystem);
	else if (d->term == FG_TERM_DELTA)
		snprintf(buf, len, "%+.2f points", c->value);
	else if (d->term == FG_TERM_RATIO) {
		const fg_metric_signal *s = &r->signals[d->signal];
		char ci[48];
		interval_prefix(ci, sizeof(ci), s);
		snprintf(buf, len, "%.3f (%s%.4g \xe2\x86\x92 %.4g %s)", c->value, ci, s->side[0].value, s->side[1].value,
		         s->def->unit);
	} else
		snprintf(buf, len, "%.4g %s", c->value, r->signals[d->signal].def->unit);
}

/* An undecided rule in words: "rule efficiency: processed records per
 * second ×0.920 (0.850–0.996, within noise) for ratio(records) <= 0.95; …". */
static void undecided_text(char *buf, size_t len, const fg_metrics_result *r, const fg_metrics_rule_result *rr)
{
	size_t n = (size_t)snprintf(buf, len, "rule %s:", rr->def->name);
	const char *sep = "";
	for (size_t k = 0; k < rr->def->nconditions && n < len; k++) {
		const fg_metrics_condition *c = &rr->conditions[k];
		if (c->state != FG_STATE_UNDECIDED)
			continue;
		/* Only a ratio() term can be undecided. */
		const fg_metric_signal *s = &r->signals[c->def->signal];
		char ci[48];
		fg_metric_interval_text(ci, sizeof(ci), s);
		n += (size_t)snprintf(buf + n, len - n, "%s %s \xc3\x97%.3f (%s%s) for %s", sep,
		                      s->def->title, s->ratio, ci, s->interval == FG_INTERVAL_OK ? ", within noise" : "",
		                      c->def->text);
		sep = ";";
	}
}

/* The rules that could not be decided: before the one that fired, or all
 * when none fired. */
static bool undecided_before(const fg_metrics_result *r, size_t i)
{
	return r->rule_results[i].state == FG_STATE_UNDECIDED && (r->fired < 0 || (long)i < r->fired);
}

/* Pads s, whose display width counts UTF-8 sequences, to width columns. */
static void padded(FILE *out, const char *s, int width)
{
	int w = 0;
	for (const char *p = s; *p; p++)
		w += ((unsigned char)*p & 0xc0) != 0x80;
	fprintf(out, "%s%*s", s, width > w ? width - w : 0, "");
}

void cli_metrics_text(FILE *out, const fg_metrics_result *r, const char *url)
{
	char *shown = fg_url_redact(url);
	fprintf(out, "efficiency lens: %s, signals of %s\n", shown ? shown : "(the server)", fg_metrics_rules_source(r->rules));
	free(shown);
	for (int s = 0; s < 2; s++) {
		char a[32], b[32];
		fg_metrics_format_time(a, r->run[s].start);
		fg_metrics_format_time(b, r->run[s].end);
		fprintf(out, "%-10s {%s}  %s .. %s\n", s ? "candidate" : "base", r->run[s].selector, a, b);
	}
	fprintf(out, "means over each steady window (step %.0fs, rate range %.0fs); ratio = candidate / base\n\n",
	        r->step, r->range);
	fprintf(out, "%-44s %12s %12s  %-14s %-15s %s\n", "signal", "base", "candidate", "ratio", "95% interval", "unit");
	for (size_t i = 0; i < r->nsignals; i++) {
		const fg_metric_signal *s = &r->signals[i];
		if (s->def->kind == FG_SIGNAL_BREAKDOWN)
			continue;
		char b[32], c[32], q[48], ci[48];
		fg_metric_value_text(b, sizeof(b), &s->side[0]);
		fg_metric_value_text(c, sizeof(c), &s->side[1]);
		fg_metric_ratio_text(q, sizeof(q), s->ratio, s->def->better);
		fg_metric_interval_text(ci, sizeof(ci), s);
		fprintf(out, "%-44.44s %12s %12s  ", s->def->title, b, c);
		padded(out, q, 14);
		fputc(' ', out);
		padded(out, ci, 15);
		fprintf(out, " %s\n", s->def->unit);
	}
	for (size_t i = 0; i < r->nsignals; i++) {
		const fg_metric_signal *s = &r->signals[i];
		if (s->def->kind != FG_SIGNAL_BREAKDOWN)
			continue;
		fprintf(out, "\n%s, %s", s->def->title, s->def->unit);
		if (s->side[0].status == FG_METRIC_MISSING && s->side[1].status == FG_METRIC_MISSING) {
			fprintf(out, ": missing on both sides\n");
			continue;
		}
		fprintf(out, " (largest ratio first, %zu of %zu)%s%s\n", s->ngroups, s->ngroups_total,
		        s->side[0].status == FG_METRIC_MISSING ? ": missing for the base" : "",
		        s->side[1].status == FG_METRIC_MISSING ? ": missing for the candidate" : "");
		for (size_t k = 0; k < s->ngroups; k++) {
			const fg_metric_group *g = &s->groups[k];
			char b[32], c[32], q[48];
			fg_metric_value_text(b, sizeof(b), &g->base);
			fg_metric_value_text(c, sizeof(c), &g->candidate);
			fg_metric_ratio_text(q, sizeof(q), g->ratio, s->def->better);
			fprintf(out, "  %-42.42s %12s %12s  %s\n", g->labels, b, c, q);
		}
	}
	if (r->warning[0])
		fprintf(out, "\nserver warning: %s\n", r->warning);
	if (r->fired < 0 && r->undecided < 0) {
		fprintf(out, "\nhypothesis: none of the %zu rules of %s fits these runs; read the ratios above\n",
		        r->nrules, fg_metrics_rules_source(r->rules));
		return;
	}
	if (r->fired < 0) {
		fprintf(out, "\nhypothesis: cannot tell: no rule holds beyond the noise; these could, but rest on ratios "
		        "whose 95%% interval holds their bound:\n");
	} else {
		const fg_metrics_rule_result *rr = &r->rule_results[r->fired];
		fprintf(out, "\nhypothesis (rule %s): %s\nevidence:\n", rr->def->name, rr->def->hypothesis);
		for (size_t k = 0; k < rr->def->nconditions; k++) {
			char t[200];
			term_text(t, sizeof(t), r, &rr->conditions[k]);
			fprintf(out, "  %s %s: %s\n", rr->conditions[k].def->unless ? "unless" : "when",
			        rr->conditions[k].def->text, t);
		}
		if (r->undecided >= 0)
			fprintf(out, "rules before it that the noise leaves undecided:\n");
	}
	for (size_t i = 0; i < r->nrules; i++) {
		if (!undecided_before(r, i))
			continue;
		char t[1024];
		undecided_text(t, sizeof(t), r, &r->rule_results[i]);
		fprintf(out, "  %s\n", t);
	}
}

/* ---- JSON ------------------------------------------------------------ */

static void json_value(fg_json *j, const fg_metric_value *v)
{
	fg_json_object(j);
	fg_json_member_string(j, "status", fg_metric_status_name(v->status));
	fg_json_key(j, "value");
	fg_json_significant(j, v->status == FG_METRIC_OK ? v->value : NAN, 6);
	fg_json_key(j, "spread");
	fg_json_significant(j, v->status == FG_METRIC_OK ? v->spread : NAN, 6);
	fg_json_member_u64(j, "points", v->points);
	fg_json_key(j, "se");
	fg_json_significant(j, v->status == FG_METRIC_OK ? v->se : NAN, 6);
	fg_json_key(j, "n_eff");
	fg_json_significant(j, v->status == FG_METRIC_OK ? v->neff : NAN, 6);
	fg_json_key(j, "df");
	fg_json_significant(j, v->status == FG_METRIC_OK ? v->df : NAN, 6);
	fg_json_end(j);
}

static const char *better_name(fg_better b)
{
	return b == FG_BETTER_LOWER ? "lower" : b == FG_BETTER_HIGHER ? "higher" : "none";
}

static void json_signal(fg_json *j, const fg_metric_signal *s)
{
	static const char *const kinds[] = { "query", "ratio", "breakdown" };
	fg_json_object(j);
	fg_json_member_string(j, "name", s->def->name);
	fg_json_member_string(j, "title", s->def->title);
	fg_json_member_string(j, "unit", s->def->unit);
	fg_json_member_string(j, "better", better_name(s->def->better));
	fg_json_member_string(j, "kind", kinds[s->def->kind]);
	for (int side = 0; side < 2; side++) {
		fg_json_key(j, side ? "candidate" : "base");
		json_value(j, &s->side[side]);
	}
	fg_json_key(j, "ratio");
	fg_json_significant(j, s->ratio, 6);
	if (s->def->kind != FG_SIGNAL_BREAKDOWN) {
		static const char *const intervals[] = { "none", "ok", "too few points" };
		fg_json_key(j, "ratio_ci95");
		if (s->interval == FG_INTERVAL_OK) {
			fg_json_array(j);
			fg_json_significant(j, s->ci[0], 6);
			fg_json_significant(j, s->ci[1], 6);
			fg_json_end(j);
		} else {
			fg_json_null(j);
		}
		fg_json_member_string(j, "interval", intervals[s->interval]);
	}
	fg_json_key(j, "queries");
	if (s->query[0]) {
		fg_json_object(j);
		fg_json_member_string(j, "base", s->query[0]);
		fg_json_member_string(j, "candidate", s->query[1]);
		fg_json_end(j);
	} else {
		fg_json_null(j);
	}
	if (s->def->kind == FG_SIGNAL_BREAKDOWN) {
		fg_json_key(j, "by");
		fg_json_array(j);
		for (size_t k = 0; k < s->def->nby; k++)
			fg_json_string(j, s->def->by[k]);
		fg_json_end(j);
		fg_json_member_u64(j, "groups_total", s->ngroups_total);
		fg_json_key(j, "groups");
		fg_json_array(j);
		for (size_t k = 0; k < s->ngroups; k++) {
			fg_json_object(j);
			fg_json_member_string(j, "labels", s->groups[k].labels);
			fg_json_key(j, "base");
			json_value(j, &s->groups[k].base);
			fg_json_key(j, "candidate");
			json_value(j, &s->groups[k].candidate);
			fg_json_key(j, "ratio");
			fg_json_significant(j, s->groups[k].ratio, 6);
			fg_json_end(j);
		}
		fg_json_end(j);
	}
	fg_json_end(j);
}

static void json_rule(fg_json *j, const fg_metrics_rule_result *rr)
{
	fg_json_object(j);
	fg_json_member_string(j, "name", rr->def->name);
	fg_json_member_bool(j, "matched", rr->matched);
	fg_json_member_string(j, "state", fg_cond_state_name(rr->state));
	fg_json_member_string(j, "hypothesis", rr->def->hypothesis);
	fg_json_key(j, "conditions");
	fg_json_array(j);
	for (size_t k = 0; k < rr->def->nconditions; k++) {
		const fg_metrics_condition *c = &rr->conditions[k];
		fg_json_object(j);
		fg_json_member_string(j, "condition", c->def->text);
		fg_json_member_bool(j, "unless", c->def->unless);
		fg_json_member_bool(j, "known", c->term_known == FG_COND_TRUE);
		fg_json_key(j, "value");
		fg_json_significant(j, c->term_known == FG_COND_TRUE ? c->value : NAN, 6);
		if (c->subsystem)
			fg_json_member_string(j, "subsystem", c->subsystem);
		fg_json_member_bool(j, "holds", c->holds);
		fg_json_member_string(j, "state", fg_cond_state_name(c->state));
		fg_json_end(j);
	}
	fg_json_end(j);
	fg_json_end(j);
}

void cli_metrics_json(fg_json *j, const fg_metrics_result *r, const char *url)
{
	fg_json_object(j);
	fg_json_member_string(j, "prometheus", cli_shown(url));
	fg_json_member_string(j, "rules_file", fg_metrics_rules_source(r->rules));
	for (int s = 0; s < 2; s++) {
		char a[32], b[32];
		fg_metrics_format_time(a, r->run[s].start);
		fg_metrics_format_time(b, r->run[s].end);
		fg_json_key(j, s ? "candidate" : "base");
		fg_json_object(j);
		fg_json_member_string(j, "selector", r->run[s].selector);
		fg_json_member_string(j, "start", a);
		fg_json_member_string(j, "end", b);
		fg_json_end(j);
	}
	fg_json_member_fixed(j, "step", r->step, 0);
	fg_json_member_fixed(j, "range", r->range, 0);
	fg_json_member_bool(j, "profiles_compared", r->profiles);
	fg_json_key(j, "signals");
	fg_json_array(j);
	for (size_t i = 0; i < r->nsignals; i++)
		json_signal(j, &r->signals[i]);
	fg_json_end(j);
	fg_json_key(j, "rules");
	fg_json_array(j);
	for (size_t i = 0; i < r->nrules; i++)
		json_rule(j, &r->rule_results[i]);
	fg_json_end(j);
	fg_json_member_string(j, "fired", r->fired >= 0 ? r->rule_results[r->fired].def->name : NULL);
	char cannot[1040] = "";
	if (r->fired < 0 && r->undecided >= 0) {
		snprintf(cannot, sizeof(cannot), "cannot tell: ");
		undecided_text(cannot + strlen(cannot), sizeof(cannot) - strlen(cannot), r, &r->rule_results[r->undecided]);
	}
	fg_json_member_string(j, "hypothesis", r->fired >= 0 ? r->rule_results[r->fired].def->hypothesis
	                                       : cannot[0] ? cannot : NULL);
	fg_json_key(j, "undecided");
	fg_json_array(j);
	for (size_t i = 0; i < r->nrules; i++)
		if (undecided_before(r, i))
			fg_json_string(j, r->rule_results[i].def->name);
	fg_json_end(j);
	fg_json_member_string(j, "warning", r->warning[0] ? r->warning : NULL);
	fg_json_end(j);
}

void cli_metrics_json_member(fg_json *j, const fg_metrics_result *r, const fg_error *err, const char *url)
{
	fg_json_key(j, "metrics");
	if (r)
		cli_metrics_json(j, r, url);
	else
		cli_error_json(j, err);
}

void cli_metrics_warn(const fg_error *err)
{
	fprintf(stderr, "fgbisect: metrics: %s%s%s\n", err->source, err->source[0] ? ": " : "", err->message);
}
