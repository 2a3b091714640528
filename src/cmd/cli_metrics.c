#include "cli_metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fetch.h"
#include "prom.h"
#include "rules.h"
#include "subsystems.h"
#include "tree.h"

#define DEFAULT_WINDOW (30 * 60.0)
#define DEFAULT_WARMUP (15 * 60.0)

void cli_metrics_options_init(struct cli_metrics_options *o)
{
	memset(o, 0, sizeof(*o));
	o->warmup = -1;
	o->at = -1;
	o->top = 5;
}

bool cli_metrics_option(struct cli_metrics_options *o, int opt, const char *arg, const char *cmd, int *status)
{
	double start, end;
	switch (opt) {
	case CLI_METRICS_OPT_PROMETHEUS: o->url = arg; return true;
	case CLI_METRICS_OPT_BASE_RANGE:
	case CLI_METRICS_OPT_CANDIDATE_RANGE:
		if (!strchr(arg, '{') && !fg_metrics_parse_range(&start, &end, arg))
			*status = cli_usage_error(cmd, "--%s wants START..END (RFC 3339 or Unix seconds, END after "
			                          "START), not '%s'",
			                          opt == CLI_METRICS_OPT_BASE_RANGE ? "base-range" : "candidate-range", arg);
		o->range[opt == CLI_METRICS_OPT_CANDIDATE_RANGE] = arg;
		return true;
	case CLI_METRICS_OPT_WINDOW:
	case CLI_METRICS_OPT_WARMUP:
	case CLI_METRICS_OPT_STEP: {
		double *dst = opt == CLI_METRICS_OPT_WINDOW ? &o->window : opt == CLI_METRICS_OPT_WARMUP ? &o->warmup
		                                                                                       : &o->step;
		if (opt == CLI_METRICS_OPT_WARMUP && !strcmp(arg, "0"))
			*dst = 0;
		else if (!fg_metrics_parse_duration(dst, arg))
			*status = cli_usage_error(cmd, "--%s wants a duration (90s, 30m, 1h30m), not '%s'",
			                          opt == CLI_METRICS_OPT_WINDOW ? "window"
			                          : opt == CLI_METRICS_OPT_WARMUP ? "warmup" : "step", arg);
		return true;
	}
	case CLI_METRICS_OPT_AT:
		if (!fg_metrics_parse_time(&o->at, arg))
			*status = cli_usage_error(cmd, "--at wants a time (RFC 3339 or Unix seconds), not '%s'", arg);
		return true;
	case CLI_METRICS_OPT_RULES: o->rules_path = arg; return true;
	case CLI_METRICS_OPT_TOP:
		if (!cli_parse_u64(arg, &o->top) || o->top > 1000)
			*status = cli_usage_error(cmd, "--top wants a number (0-1000), not '%s'", arg);
		return true;
	default: return false;
	}
}

int cli_metrics_check(struct cli_metrics_options *o, const char *cmd, bool need_selectors)
{
	if (!o->url || !*o->url)
		o->url = getenv("FGBISECT_PROMETHEUS");
	if (!o->url || !*o->url)
		return cli_usage_error(cmd, "the metrics need --prometheus URL (or $FGBISECT_PROMETHEUS)");
	if (need_selectors && (!o->selector[0] || !o->selector[1]))
		return cli_usage_error(cmd, "the metrics need --base SELECTOR and --candidate SELECTOR "
		                       "(label matchers, e.g. namespace=\"c8-...\")");
	if (!o->range[0] != !o->range[1])
		return cli_usage_error(cmd, "--base-range and --candidate-range go together");
	if (o->range[0] && o->at >= 0)
		return cli_usage_error(cmd, "--at places a window without ranges; with ranges, use --warmup and --window");
	if (!o->range[0] && o->warmup >= 0)
		return cli_usage_error(cmd, "--warmup is cut from the start of --base-range/--candidate-range");
	if (!o->rules_path && !(o->rules_path = fg_mrules_default_path()))
		return cli_usage_error(cmd, "no metric rules file: give --metrics-rules FILE or set $FGBISECT_METRICS");
	return 0;
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

int cli_metrics_run(fg_metrics_result **out, fg_mrules **rules, const struct cli_metrics_options *o,
                    const struct cli_profile_options *po, const fg_metrics_delta *deltas, size_t ndeltas,
                    fg_error *err)
{
	*out = NULL;
	*rules = NULL;
	fg_metrics_run runs[2];
	fg_prom_options popts;
	fg_prom_options_init(&popts);
	popts.headers = po->headers;
	popts.nheaders = po->nheaders;
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
		rc = fg_mrules_load(rules, o->rules_path, err);
	if (!rc)
		rc = fg_prom_new(&prom, o->url, &popts, err);
	if (!rc)
		rc = fg_metrics_collect(out, prom, *rules, runs, &mopts, err);
	if (!rc)
		rc = fg_metrics_interpret(*out, deltas, ndeltas, err);
	fg_prom_free(prom);
	if (rc) {
		fg_metrics_result_free(*out);
		fg_mrules_free(*rules);
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
		rc = fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
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

static void value_text(char *buf, size_t len, const fg_metric_value *v)
{
	if (v->status == FG_METRIC_MISSING)
		snprintf(buf, len, "missing");
	else if (v->status == FG_METRIC_NAN)
		snprintf(buf, len, "NaN");
	else
		snprintf(buf, len, "%.4g", v->value);
}

/* "1.25×", with "worse"/"better" when the signal says which way is worse
 * and the change is 5% or more. */
static void ratio_text(char *buf, size_t len, double ratio, fg_better better)
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

static void term_text(char *buf, size_t len, const fg_metrics_result *r, const fg_metrics_condition *c)
{
	const fg_mrules_condition *d = c->def;
	if (c->term_known != FG_COND_TRUE) {
		if (d->term == FG_TERM_DELTA || d->term == FG_TERM_DELTA_ANY)
			snprintf(buf, len, "unknown (no profiles compared)");
		else {
			const fg_metric_signal *s = &r->signals[d->signal];
			char b[32], c2[32];
			value_text(b, sizeof(b), &s->side[0]);
			value_text(c2, sizeof(c2), &s->side[1]);
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
		snprintf(buf, len, "%.3f (%.4g \xe2\x86\x92 %.4g %s)", c->value, s->side[0].value, s->side[1].value,
		         s->def->unit);
	} else
		snprintf(buf, len, "%.4g %s", c->value, r->signals[d->signal].def->unit);
}

void cli_metrics_text(FILE *out, const fg_metrics_result *r, const char *url)
{
	char *shown = fg_source_redact(url);
	fprintf(out, "efficiency lens: %s, signals of %s\n", shown ? shown : "(the server)", fg_mrules_source(r->rules));
	free(shown);
	for (int s = 0; s < 2; s++) {
		char a[32], b[32];
		fg_metrics_format_time(a, r->run[s].start);
		fg_metrics_format_time(b, r->run[s].end);
		fprintf(out, "%-10s {%s}  %s .. %s\n", s ? "candidate" : "base", r->run[s].selector, a, b);
	}
	fprintf(out, "means over each steady window (step %.0fs, rate range %.0fs); ratio = candidate / base\n\n",
	        r->step, r->range);
	fprintf(out, "%-44s %12s %12s  %-14s %s\n", "signal", "base", "candidate", "ratio", "unit");
	for (size_t i = 0; i < r->nsignals; i++) {
		const fg_metric_signal *s = &r->signals[i];
		if (s->def->kind == FG_SIGNAL_BREAKDOWN)
			continue;
		char b[32], c[32], q[48];
		value_text(b, sizeof(b), &s->side[0]);
		value_text(c, sizeof(c), &s->side[1]);
		ratio_text(q, sizeof(q), s->ratio, s->def->better);
		fprintf(out, "%-44.44s %12s %12s  %-14s %s\n", s->def->title, b, c, q, s->def->unit);
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
			value_text(b, sizeof(b), &g->base);
			value_text(c, sizeof(c), &g->candidate);
			ratio_text(q, sizeof(q), g->ratio, s->def->better);
			fprintf(out, "  %-42.42s %12s %12s  %s\n", g->labels, b, c, q);
		}
	}
	if (r->warning[0])
		fprintf(out, "\nserver warning: %s\n", r->warning);
	if (r->fired < 0) {
		fprintf(out, "\nhypothesis: none of the %zu rules of %s fits these runs; read the ratios above\n",
		        r->nrules, fg_mrules_source(r->rules));
		return;
	}
	const fg_metrics_rule_result *rr = &r->rule_results[r->fired];
	fprintf(out, "\nhypothesis (rule %s): %s\nevidence:\n", rr->def->name, rr->def->hypothesis);
	for (size_t k = 0; k < rr->def->nconditions; k++) {
		char t[160];
		term_text(t, sizeof(t), r, &rr->conditions[k]);
		fprintf(out, "  %s %s: %s\n", rr->conditions[k].def->unless ? "unless" : "when", rr->conditions[k].def->text, t);
	}
}

/* ---- JSON ------------------------------------------------------------ */

static void json_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.6g", v);
	else
		fputs("null", out);
}

static void json_value(FILE *out, const fg_metric_value *v)
{
	fputs("{\"status\":", out);
	cli_json_string(out, fg_metric_status_name(v->status));
	fputs(",\"value\":", out);
	json_num(out, v->status == FG_METRIC_OK ? v->value : NAN);
	fputs(",\"spread\":", out);
	json_num(out, v->status == FG_METRIC_OK ? v->spread : NAN);
	fprintf(out, ",\"points\":%zu}", v->points);
}

static const char *better_name(fg_better b)
{
	return b == FG_BETTER_LOWER ? "lower" : b == FG_BETTER_HIGHER ? "higher" : "none";
}

static void json_signal(FILE *out, const fg_metric_signal *s)
{
	static const char *const kinds[] = { "query", "ratio", "breakdown" };
	fputs("{\"name\":", out);
	cli_json_string(out, s->def->name);
	fputs(",\"title\":", out);
	cli_json_string(out, s->def->title);
	fputs(",\"unit\":", out);
	cli_json_string(out, s->def->unit);
	fprintf(out, ",\"better\":\"%s\",\"kind\":\"%s\"", better_name(s->def->better), kinds[s->def->kind]);
	for (int side = 0; side < 2; side++) {
		fprintf(out, ",\"%s\":", side ? "candidate" : "base");
		json_value(out, &s->side[side]);
	}
	fputs(",\"ratio\":", out);
	json_num(out, s->ratio);
	fputs(",\"queries\":", out);
	if (s->query[0]) {
		fputs("{\"base\":", out);
		cli_json_string(out, s->query[0]);
		fputs(",\"candidate\":", out);
		cli_json_string(out, s->query[1]);
		fputc('}', out);
	} else {
		fputs("null", out);
	}
	if (s->def->kind == FG_SIGNAL_BREAKDOWN) {
		fputs(",\"by\":[", out);
		for (size_t k = 0; k < s->def->nby; k++) {
			if (k)
				fputc(',', out);
			cli_json_string(out, s->def->by[k]);
		}
		fprintf(out, "],\"groups_total\":%zu,\"groups\":[", s->ngroups_total);
		for (size_t k = 0; k < s->ngroups; k++) {
			fputs(k ? ",{\"labels\":" : "{\"labels\":", out);
			cli_json_string(out, s->groups[k].labels);
			fputs(",\"base\":", out);
			json_value(out, &s->groups[k].base);
			fputs(",\"candidate\":", out);
			json_value(out, &s->groups[k].candidate);
			fputs(",\"ratio\":", out);
			json_num(out, s->groups[k].ratio);
			fputc('}', out);
		}
		fputc(']', out);
	}
	fputc('}', out);
}

static void json_rule(FILE *out, const fg_metrics_rule_result *rr)
{
	fputs("{\"name\":", out);
	cli_json_string(out, rr->def->name);
	fprintf(out, ",\"matched\":%s,\"hypothesis\":", rr->matched ? "true" : "false");
	cli_json_string(out, rr->def->hypothesis);
	fputs(",\"conditions\":[", out);
	for (size_t k = 0; k < rr->def->nconditions; k++) {
		const fg_metrics_condition *c = &rr->conditions[k];
		fputs(k ? ",{\"condition\":" : "{\"condition\":", out);
		cli_json_string(out, c->def->text);
		fprintf(out, ",\"unless\":%s,\"known\":%s,\"value\":", c->def->unless ? "true" : "false",
		        c->term_known == FG_COND_TRUE ? "true" : "false");
		json_num(out, c->term_known == FG_COND_TRUE ? c->value : NAN);
		if (c->subsystem) {
			fputs(",\"subsystem\":", out);
			cli_json_string(out, c->subsystem);
		}
		fprintf(out, ",\"holds\":%s}", c->holds ? "true" : "false");
	}
	fputs("]}", out);
}

void cli_metrics_json(FILE *out, const fg_metrics_result *r, const char *url)
{
	char *shown = fg_source_redact(url);
	fputs("{\"prometheus\":", out);
	cli_json_string(out, shown ? shown : "");
	free(shown);
	fputs(",\"rules_file\":", out);
	cli_json_string(out, fg_mrules_source(r->rules));
	for (int s = 0; s < 2; s++) {
		char a[32], b[32];
		fg_metrics_format_time(a, r->run[s].start);
		fg_metrics_format_time(b, r->run[s].end);
		fprintf(out, ",\"%s\":{\"selector\":", s ? "candidate" : "base");
		cli_json_string(out, r->run[s].selector);
		fprintf(out, ",\"start\":\"%s\",\"end\":\"%s\"}", a, b);
	}
	fprintf(out, ",\"step\":%.0f,\"range\":%.0f,\"profiles_compared\":%s,\"signals\":[", r->step, r->range,
	        r->profiles ? "true" : "false");
	for (size_t i = 0; i < r->nsignals; i++) {
		if (i)
			fputc(',', out);
		json_signal(out, &r->signals[i]);
	}
	fputs("],\"rules\":[", out);
	for (size_t i = 0; i < r->nrules; i++) {
		if (i)
			fputc(',', out);
		json_rule(out, &r->rule_results[i]);
	}
	fputs("],\"fired\":", out);
	cli_json_string_or_null(out, r->fired >= 0 ? r->rule_results[r->fired].def->name : NULL);
	fputs(",\"hypothesis\":", out);
	cli_json_string_or_null(out, r->fired >= 0 ? r->rule_results[r->fired].def->hypothesis : NULL);
	fputs(",\"warning\":", out);
	cli_json_string_or_null(out, r->warning[0] ? r->warning : NULL);
	fputc('}', out);
}

void cli_metrics_json_member(FILE *out, const fg_metrics_result *r, const fg_error *err, const char *url)
{
	fputs(",\"metrics\":", out);
	if (r) {
		cli_metrics_json(out, r, url);
		return;
	}
	fputs("{\"error\":{\"code\":", out);
	cli_json_string(out, fg_error_code_name(err->code));
	fputs(",\"message\":", out);
	cli_json_string(out, err->message);
	fputs(",\"source\":", out);
	cli_json_string(out, err->source);
	fputs("}}", out);
}

void cli_metrics_warn(const fg_error *err)
{
	fprintf(stderr, "fgbisect: metrics: %s%s%s\n", err->source, err->source[0] ? ": " : "", err->message);
}
