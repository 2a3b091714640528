#include "cmd/cli_bisect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cli_bisect_options_init(struct cli_bisect_options *o)
{
	memset(o, 0, sizeof(*o));
	o->threshold = -1;
	o->margin = -1;
	o->noise = -1;
	o->aggregate = FG_AGGREGATE_POOLED;
	o->min_samples = UINT64_MAX;
	o->event = "cpu";
}

const char *cli_check_aggregate(const struct cli_option *opt, const char *arg, char *msg, size_t size)
{
	(void)opt;
	enum fg_aggregate a;
	if (fg_aggregate_parse(&a, arg))
		return NULL;
	snprintf(msg, size, "--aggregate wants pooled, median, mean, min or max, not '%s'", arg);
	return msg;
}

const char *cli_check_threshold(const struct cli_option *opt, const char *arg, char *msg, size_t size)
{
	(void)opt;
	double t;
	if (!strcmp(arg, "auto") || cli_parse_percent(arg, &t))
		return NULL;
	snprintf(msg, size, "--threshold wants a percentage (0-100) or auto, not '%s'", arg);
	return msg;
}

int cli_bisect_check(struct cli_bisect_options *o, const struct cli_command_spec *spec,
		     const struct cli_args *args)
{
	if (o->threshold_arg) {
		o->threshold_auto = !strcmp(o->threshold_arg, "auto");
		if (!o->threshold_auto)
			cli_parse_percent(o->threshold_arg, &o->threshold);
		else
			o->threshold = 0; /* until the ends give it */
		if (o->threshold_auto && !strcmp(spec->name, "run"))
			return cli_spec_usage_error(spec, args, "--threshold auto needs two ends to judge: "
						    "'fgbisect days' or 'fgbisect bisect'");
	}
	if (args->argc > 0)
		return cli_spec_usage_error(spec, args, "unexpected argument '%s'", args->argv[0]);
	if (!o->frame)
		return cli_spec_usage_error(spec, args, "--frame PATTERN is required");
	if (o->threshold < 0 && !o->threshold_auto)
		return cli_spec_usage_error(spec, args, "--threshold PERCENT is required");
	/* A fraction typed for a percentage (0.04 for 4 %) would judge nearly
	 * every build slow: questioned unless written with its % sign. */
	const char *given = cli_given_arg(args, "threshold");
	if (o->threshold > 0 && o->threshold < 0.1 && given && !strchr(given, '%'))
		return cli_spec_usage_error(spec, args,
					    "--threshold %s is %s percent: did you mean %g? (write %s%% to mean %s percent)",
					    given, given, o->threshold * 100, given, given);
	if (!!o->runs + !!o->profile + !!o->capture > 1)
		return cli_spec_usage_error(spec, args, "give one source: --runs, --profile or --capture");
	if (o->capture_timeout > 0 && !o->capture)
		return cli_spec_usage_error(spec, args, "--capture-timeout goes with --capture");
	if (o->capture_repeats && !o->capture)
		return cli_spec_usage_error(spec, args, "--capture-repeats goes with --capture");
	if (o->aggregate_name)
		fg_aggregate_parse(&o->aggregate, o->aggregate_name);
	o->have_min_samples = o->min_samples != UINT64_MAX;
	return CLI_PARSED;
}

void cli_bisect_verdict_options(fg_verdict_options *vo, fg_fetch_options *fo, const struct cli_bisect_options *o)
{
	cli_fetch_options(fo, &o->po);
	fg_verdict_options_init(vo);
	vo->pattern = o->frame;
	vo->match.regex = o->regex;
	vo->match.raw = o->po.raw;
	vo->threshold = o->threshold;
	vo->margin = o->margin;
	vo->aggregate = o->aggregate;
	vo->noise = o->noise;
	/* The interval widens by itself for a small profile; a point share
	 * has no such defence. */
	vo->min_samples = o->have_min_samples ? o->min_samples
	                  : o->aggregate == FG_AGGREGATE_POOLED ? 0 : CLI_POINT_MIN_SAMPLES;
	vo->min_nodes = (size_t)o->min_nodes;
	vo->protocol = o->protocol;
	vo->event = o->event;
	vo->jobs = (size_t)o->jobs;
	cli_read_options(&vo->read, &o->po);
	/* A JFR recording holds several events: judge the one the runs file
	 * names (cpu by default). */
	vo->read.event = o->event && (!strcmp(o->event, "itimer") || !strcmp(o->event, "ctimer")) ? "cpu" : o->event;
	vo->fetch = fo;
}

/* Each capture as it is judged: its share, and whether another follows. */
static void on_capture(void *ctx, size_t k, size_t max, const fg_verdict *v)
{
	(void)ctx;
	const fg_verdict_profile *p = &v->profiles[k - 1];
	bool again = v->kind == FG_VERDICT_SKIP && v->basis != FG_BASIS_INPUT && k < max;
	if (p->read)
		fprintf(stderr, "fgbisect: %.12s capture %zu of at most %zu: %.2f%% of %llu samples; %zu pooled: %s%s\n",
		        v->commit, k, max, p->share, (unsigned long long)p->total, v->nread, fg_verdict_name(v->kind),
		        again ? ", capturing again" : "");
	else
		fprintf(stderr, "fgbisect: %.12s capture %zu of at most %zu: not read (%s)%s\n", v->commit, k, max,
		        p->error, again ? "; capturing again" : "");
}

int cli_bisect_judging(fg_judging **out, const struct cli_bisect_options *o, fg_verdict_options *vo,
                       fg_fetch_options *fo, enum fg_judging_repo repo, const char *repo_dir, fg_error *err)
{
	cli_bisect_verdict_options(vo, fo, o);
	fg_judging_options jo;
	fg_judging_options_init(&jo);
	char warning[256];
	jo.verdict = *vo;
	jo.fetch = fo;
	jo.repo = repo;
	jo.repo_dir = repo_dir;
	jo.runs = o->runs;
	jo.runs_env = getenv("FGBISECT_RUNS");
	jo.runs_local = o->runs_local;
	jo.filter.node = o->node;
	jo.filter.protocol = o->protocol;
	jo.filter.event = o->event;
	jo.profile = o->profile;
	jo.capture = o->capture;
	jo.capture_timeout = o->capture_timeout;
	jo.capture_repeats = (size_t)o->capture_repeats;
	jo.on_capture = on_capture;
	jo.warning = warning;
	int rc = fg_judging_new(out, &jo, err);
	if (warning[0])
		cli_warn("%s", warning);
	return rc;
}

bool cli_bisect_secrets_to_env(const struct cli_bisect_options *o)
{
	size_t len = 1;
	const struct cli_list *h = &o->po.headers;
	for (size_t i = 0; i < h->n; i++)
		len += strlen(h->items[i]) + 1;
	char *joined = malloc(len), *p = joined;
	if (!joined)
		return false;
	for (size_t i = 0; i < h->n; i++)
		p += sprintf(p, "%s%s", i ? "\n" : "", h->items[i]);
	*p = '\0';
	bool ok = !h->n ? unsetenv("FGBISECT_HEADERS") == 0 : setenv("FGBISECT_HEADERS", joined, 1) == 0;
	free(joined);
	if (ok && o->profile && cli_has_credentials(o->profile))
		ok = setenv("FGBISECT_PROFILE", o->profile, 1) == 0;
	if (ok && o->runs && cli_has_credentials(o->runs))
		ok = setenv("FGBISECT_RUNS", o->runs, 1) == 0;
	return ok;
}

int cli_bisect_secrets_from_env(struct cli_bisect_options *o, const struct cli_command_spec *spec,
				const struct cli_args *args)
{
	/* Kept for the life of the process: o->po.headers point into it. */
	static char *headers;
	const char *env = getenv("FGBISECT_HEADERS");
	if (env && env[0] && !headers) {
		if (!(headers = strdup(env)))
			return cli_spec_usage_error(spec, args, "out of memory");
		unsetenv("FGBISECT_HEADERS");
		for (char *h = strtok(headers, "\n"); h; h = strtok(NULL, "\n")) {
			if (o->po.headers.n == CLI_LIST_MAX)
				return cli_spec_usage_error(spec, args, "too many headers in $FGBISECT_HEADERS");
			o->po.headers.items[o->po.headers.n++] = h;
		}
	}
	const char *profile = getenv("FGBISECT_PROFILE");
	if (!o->runs && !o->profile && !o->capture && profile && profile[0])
		o->profile = profile;
	return CLI_PARSED;
}

void cli_verdict_line(FILE *final, const char *commit, const fg_verdict *v, double threshold)
{
	/* Labels and reasons come from runs files and profiles: the line is
	 * made first, then written with its control characters escaped. */
	char *line = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&line, &size);
	if (!out) {
		fputs("(out of memory)\n", final);
		return;
	}
	fprintf(out, "%.12s %s:", commit[0] ? commit : "?", v->date[0] ? v->date : "-");
	size_t read = 0;
	for (size_t i = 0; i < v->nprofiles; i++) {
		const fg_verdict_profile *p = &v->profiles[i];
		if (p->read)
			fprintf(out, "%s %s %.2f%%", read++ ? "," : "", fg_verdict_profile_label(p), p->share);
		else if (v->nprofiles > 1)
			fprintf(out, "%s %s not read", read++ ? "," : "", fg_verdict_profile_label(p));
	}
	if (v->total && (v->kind != FG_VERDICT_SKIP || v->basis != FG_BASIS_INPUT)) {
		char noise[160];
		if (v->noise_estimate >= 0)
			snprintf(noise, sizeof(noise), " for %zu captures pooled, their spread %.2f pp a capture",
			         v->nread, v->noise_estimate);
		else
			snprintf(noise, sizeof(noise), "%s", v->noise_given ? "" : " assumed");
		/* Captures: each is a look of a sequential test, whose
		 * boundary is not the 95% interval's z. */
		char look[64] = "";
		if (v->looks > 1)
			snprintf(look, sizeof(look), " at look %zu of %zu, z %.2f", v->captures, v->looks, v->z);
		fprintf(out, "%s %s %.2f%% (%sinterval %.2f-%.2f%%%s: sampling %.2f-%.2f%%, phi %.2f, noise %.2f pp%s)",
		        read ? ";" : "", fg_aggregate_name(v->aggregate), v->share, look[0] ? "" : "95% ",
		        v->interval_lo, v->interval_hi, look, v->lo, v->hi, v->phi, v->noise, noise);
		fprintf(out, ", threshold %g%%: %s", threshold, fg_verdict_name(v->kind));
	} else {
		fprintf(out, "%s %s", read ? ";" : "", fg_verdict_name(v->kind));
	}
	fprintf(out, " (%s)", v->reason);
	fclose(out);
	cli_put_text(final, line);
	fputc('\n', final);
	free(line);
}

void cli_warn_pattern(const char *pattern, const char *where, const fg_verdict_judge *judge)
{
	cli_warn("pattern '%s' matches no frame %s: is it mistyped?", pattern, where);
	char near[1024];
	if (fg_verdict_judge_suggest(near, sizeof(near), judge))
		cli_warn("frames near '%s': %s", pattern, near);
}

void cli_verdict_warnings(const fg_verdict *v, const fg_verdict_judge *judge, const char *pattern)
{
	for (size_t i = 0; i < v->nprofiles; i++) {
		const fg_verdict_profile *p = &v->profiles[i];
		if (p->warning[0])
			cli_warn("%s: %s", p->source, p->warning);
	}
	if (pattern && v->nread && !v->matched)
		cli_warn_pattern(pattern, "in any profile", judge);
}

void cli_verdict_json(fg_json *j, const char *commit, const fg_verdict *v, double threshold)
{
	fg_json_object(j);
	fg_json_member_string(j, "commit", commit);
	fg_json_member_string(j, "date", v->date[0] ? v->date : NULL);
	fg_json_key(j, "share");
	if (v->total)
		fg_json_fixed(j, v->share, 4);
	else
		fg_json_null(j);
	fg_json_key(j, "ci95");
	fg_json_array(j);
	fg_json_fixed(j, v->lo, 4);
	fg_json_fixed(j, v->hi, 4);
	fg_json_end(j);
	fg_json_member_fixed(j, "threshold", threshold, 4);
	fg_json_member_string(j, "verdict", fg_verdict_name(v->kind));
	fg_json_member_string(j, "reason", v->reason);
	fg_json_member_string(j, "basis", fg_verdict_basis_name(v->basis));
	/* What the decision rested on: null when no input was usable. */
	if (v->total && v->basis != FG_BASIS_INPUT) {
		fg_json_member_fixed(j, "pooled", v->pooled, 4);
		fg_json_key(j, "interval");
		fg_json_array(j);
		fg_json_fixed(j, v->interval_lo, 4);
		fg_json_fixed(j, v->interval_hi, 4);
		fg_json_end(j);
		fg_json_member_fixed(j, "phi", v->phi, 4);
		fg_json_member_fixed(j, "noise", v->noise, 4);
		fg_json_member_string(j, "noise_source", v->noise_estimate >= 0 ? "captures"
		                                         : v->noise_given ? "option" : "default");
		fg_json_key(j, "noise_estimate");
		if (v->noise_estimate >= 0)
			fg_json_fixed(j, v->noise_estimate, 4);
		else
			fg_json_null(j);
		fg_json_key(j, "noise_df");
		if (v->noise_df > 0)
			fg_json_fixed(j, v->noise_df, 1);
		else
			fg_json_null(j);
		fg_json_member_fixed(j, "z", v->z, 4);
		/* What would decide a "cannot tell": null when decided, or
		 * when more samples cannot (samples_needed). */
		fg_json_key(j, "samples_needed");
		if (v->samples_needed > 0 && isfinite(v->samples_needed))
			fg_json_fixed(j, v->samples_needed, 0);
		else
			fg_json_null(j);
		fg_json_key(j, "captures_needed");
		if (v->captures_needed)
			fg_json_u64(j, v->captures_needed);
		else
			fg_json_null(j);
	} else {
		static const char *const absent[] = { "pooled", "interval", "phi", "noise", "noise_source",
						      "noise_estimate", "noise_df", "z", "samples_needed",
						      "captures_needed" };
		for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++) {
			fg_json_key(j, absent[i]);
			fg_json_null(j);
		}
	}
	fg_json_member_string(j, "disagreeing", v->disagreeing != SIZE_MAX && v->basis != FG_BASIS_INPUT
					       ? fg_verdict_profile_label(&v->profiles[v->disagreeing]) : NULL);
	fg_json_member_u64(j, "samples", v->samples);
	fg_json_member_u64(j, "total", v->total);
	fg_json_member_u64(j, "captures", v->captures);
	fg_json_member_u64(j, "looks", v->looks);
	fg_json_key(j, "profiles");
	fg_json_array(j);
	for (size_t i = 0; i < v->nprofiles; i++) {
		const fg_verdict_profile *p = &v->profiles[i];
		fg_json_object(j);
		fg_json_member_string(j, "source", p->source);
		fg_json_member_string(j, "node", p->node);
		fg_json_member_string(j, "protocol", p->detected);
		fg_json_member_bool(j, "read", p->read);
		fg_json_member_string(j, "error", p->read ? NULL : p->error);
		if (p->read) {
			fg_json_member_u64(j, "total", p->total);
			fg_json_member_u64(j, "samples", p->samples);
			fg_json_member_fixed(j, "share", p->share, 4);
		}
		fg_json_end(j);
	}
	fg_json_end(j);
	fg_json_end(j);
}

void cli_auto_threshold_json(fg_json *j, const fg_verdict_auto *a)
{
	fg_json_key(j, "threshold_auto");
	if (!a) {
		fg_json_null(j);
		return;
	}
	fg_json_object(j);
	fg_json_member_fixed(j, "threshold", a->threshold, 4);
	fg_json_member_fixed(j, "good", a->good, 4);
	fg_json_member_fixed(j, "bad", a->bad, 4);
	fg_json_member_fixed(j, "good_sd", a->good_sd, 4);
	fg_json_member_fixed(j, "bad_sd", a->bad_sd, 4);
	fg_json_member_fixed(j, "distance", a->distance, 4);
	fg_json_end(j);
}

