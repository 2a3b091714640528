#include "cli_bisect.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void cli_bisect_options_init(struct cli_bisect_options *o)
{
	memset(o, 0, sizeof(*o));
	o->margin = -1;
	o->noise = -1;
	o->aggregate = FG_AGGREGATE_POOLED;
	o->event = "cpu";
}

static bool parse_seconds(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = s ? strtod(s, &end) : 0;
	if (!s || errno || end == s || *end || !(v > 0 && v <= 86400 * 7))
		return false;
	*out = v;
	return true;
}

bool cli_bisect_option(struct cli_bisect_options *o, int opt, const char *arg, const char *cmd, int *status)
{
	if (cli_profile_option(&o->po, opt, arg, cmd, status))
		return true;
	switch (opt) {
	case 'f':
		if (o->frame)
			*status = cli_usage_error(cmd, "give one --frame (a regular expression with -E can "
			                               "match several frames)");
		o->frame = arg;
		return true;
	case 'E': o->regex = true; return true;
	case CLI_OPT_THRESHOLD:
		if (!cli_parse_percent(arg, &o->threshold))
			*status = cli_usage_error(cmd, "--threshold wants a percentage (0-100), not '%s'", arg);
		o->have_threshold = true;
		return true;
	case CLI_OPT_MARGIN:
		if (!cli_parse_percent(arg, &o->margin))
			*status = cli_usage_error(cmd, "--margin wants percentage points (0-100), not '%s'", arg);
		return true;
	case CLI_OPT_AGGREGATE:
		if (!fg_aggregate_parse(&o->aggregate, arg))
			*status = cli_usage_error(cmd, "--aggregate wants pooled, median, mean, min or max, not '%s'",
			                          arg);
		return true;
	case CLI_OPT_NOISE:
		if (!cli_parse_percent(arg, &o->noise))
			*status = cli_usage_error(cmd, "--noise wants percentage points (0-100), not '%s'", arg);
		return true;
	case CLI_OPT_MIN_SAMPLES:
		if (!cli_parse_u64(arg, &o->min_samples))
			*status = cli_usage_error(cmd, "--min-samples wants a number, not '%s'", arg);
		o->have_min_samples = true;
		return true;
	case CLI_OPT_NODE: o->node = arg; return true;
	case CLI_OPT_PROTOCOL:
		if (strcmp(arg, "grpc") && strcmp(arg, "rest"))
			*status = cli_usage_error(cmd, "--protocol wants grpc or rest, not '%s'", arg);
		o->protocol = arg;
		return true;
	case CLI_OPT_EVENT: o->event = arg; return true;
	case CLI_OPT_RUNS: o->runs = arg; return true;
	case CLI_OPT_PROFILE: o->profile = arg; return true;
	case CLI_OPT_CAPTURE: o->capture = arg; return true;
	case CLI_OPT_CAPTURE_TIMEOUT:
		if (!parse_seconds(arg, &o->capture_timeout))
			*status = cli_usage_error(cmd, "--capture-timeout wants seconds, not '%s'", arg);
		return true;
	default:
		return false;
	}
}

int cli_bisect_check(const struct cli_bisect_options *o, const char *cmd, int argc, char **argv)
{
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (!o->frame)
		return cli_usage_error(cmd, "--frame PATTERN is required");
	if (!o->have_threshold)
		return cli_usage_error(cmd, "--threshold PERCENT is required");
	if (!!o->runs + !!o->profile + !!o->capture > 1)
		return cli_usage_error(cmd, "give one source: --runs, --profile or --capture");
	if (o->capture_timeout > 0 && !o->capture)
		return cli_usage_error(cmd, "--capture-timeout goes with --capture");
	return 0;
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
	vo->protocol = o->protocol;
	vo->event = o->event;
	vo->read.reversed = o->po.reversed;
	vo->read.max_size = o->po.max_size;
	vo->read.max_line = o->po.max_line;
	vo->fetch = fo;
	/* A --profile template's headers are for its own host only. */
	if (o->profile && fg_source_is_url(o->profile))
		fo->header_origin = o->profile;
}

int cli_bisect_load_runs(fg_runs **runs, fg_runs_selection **sel, fg_repo *repo,
                         const struct cli_bisect_options *o, fg_fetch_options *fo, fg_error *err)
{
	*runs = NULL;
	*sel = NULL;
	char *configured = NULL;
	const char *location = o->runs;
	const char *env = getenv("FGBISECT_RUNS");
	int rc = 0;
	if (!location && env && env[0])
		location = env;
	if (!location && repo) {
		if ((rc = fg_repo_config_path(&configured, repo, "fgbisect.runs", err)))
			return rc;
		location = configured;
	}
	if (!location) {
		free(configured);
		return fg_error_set(err, FG_EUSAGE, NULL,
		                    "no profiles: give --runs, --profile or --capture, set FGBISECT_RUNS, "
		                    "or 'git config fgbisect.runs FILE'");
	}
	char warning[256];
	rc = fg_verdict_load_runs(runs, location, fo, warning, err);
	if (warning[0])
		cli_warn("%s", warning);
	bool by_url = fg_source_is_url(location) && strncasecmp(location, "file:", 5) != 0;
	free(configured);
	if (rc)
		return rc;
	if (by_url)
		fo->header_origin = fg_runs_base(*runs); /* the URL, credentials removed */
	fg_runs_filter filter;
	fg_runs_filter_init(&filter);
	filter.node = o->node;
	filter.protocol = o->protocol;
	filter.event = o->event;
	rc = fg_runs_select(sel, *runs, &filter, err);
	if (rc) {
		fg_runs_free(*runs);
		*runs = NULL;
	}
	return rc;
}

bool cli_bisect_secrets_to_env(const struct cli_bisect_options *o)
{
	size_t len = 1;
	for (size_t i = 0; i < o->po.nheaders; i++)
		len += strlen(o->po.headers[i]) + 1;
	char *joined = malloc(len), *p = joined;
	if (!joined)
		return false;
	for (size_t i = 0; i < o->po.nheaders; i++)
		p += sprintf(p, "%s%s", i ? "\n" : "", o->po.headers[i]);
	*p = '\0';
	bool ok = !o->po.nheaders ? unsetenv("FGBISECT_HEADERS") == 0 : setenv("FGBISECT_HEADERS", joined, 1) == 0;
	free(joined);
	if (ok && o->profile && cli_has_credentials(o->profile))
		ok = setenv("FGBISECT_PROFILE", o->profile, 1) == 0;
	if (ok && o->runs && cli_has_credentials(o->runs))
		ok = setenv("FGBISECT_RUNS", o->runs, 1) == 0;
	return ok;
}

int cli_bisect_secrets_from_env(struct cli_bisect_options *o, const char *cmd)
{
	/* Kept for the life of the process: o->po.headers point into it. */
	static char *headers;
	const char *env = getenv("FGBISECT_HEADERS");
	if (env && env[0] && !headers) {
		if (!(headers = strdup(env)))
			return cli_usage_error(cmd, "out of memory");
		unsetenv("FGBISECT_HEADERS");
		for (char *h = strtok(headers, "\n"); h; h = strtok(NULL, "\n")) {
			if (o->po.nheaders == sizeof(o->po.headers) / sizeof(o->po.headers[0]))
				return cli_usage_error(cmd, "too many headers in $FGBISECT_HEADERS");
			o->po.headers[o->po.nheaders++] = h;
		}
	}
	const char *profile = getenv("FGBISECT_PROFILE");
	if (!o->runs && !o->profile && !o->capture && profile && profile[0])
		o->profile = profile;
	return 0;
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
	}
	if (v->total && (v->kind != FG_VERDICT_SKIP || v->basis != FG_BASIS_INPUT)) {
		fprintf(out, "%s %s %.2f%% (95%% interval %.2f-%.2f%%: sampling %.2f-%.2f%%, phi %.2f, noise %.2f pp%s)",
		        read ? ";" : "", fg_aggregate_name(v->aggregate),
		        v->share, v->interval_lo, v->interval_hi, v->lo, v->hi, v->phi, v->noise,
		        v->noise_given ? "" : " assumed");
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

void cli_verdict_warnings(const fg_verdict *v, const char *pattern)
{
	size_t read = 0;
	for (size_t i = 0; i < v->nprofiles; i++) {
		const fg_verdict_profile *p = &v->profiles[i];
		read += p->read;
		if (p->warning[0])
			cli_warn("%s: %s", p->source, p->warning);
	}
	if (read && !v->matched)
		cli_warn("pattern '%s' matches no frame in any profile: is it mistyped?", pattern);
}

void cli_verdict_json(FILE *out, const char *commit, const fg_verdict *v, double threshold)
{
	fputs("{\"commit\":", out);
	cli_json_string(out, commit);
	fputs(",\"date\":", out);
	cli_json_string_or_null(out, v->date[0] ? v->date : NULL);
	fputs(",\"share\":", out);
	if (v->total)
		cli_json_number(out, v->share, 4);
	else
		fputs("null", out);
	fputs(",\"ci95\":[", out);
	cli_json_number(out, v->lo, 4);
	fputc(',', out);
	cli_json_number(out, v->hi, 4);
	fputs("],\"threshold\":", out);
	cli_json_number(out, threshold, 4);
	fputs(",\"verdict\":", out);
	cli_json_string(out, fg_verdict_name(v->kind));
	fputs(",\"reason\":", out);
	cli_json_string(out, v->reason);
	fputs(",\"basis\":", out);
	cli_json_string(out, fg_verdict_basis_name(v->basis));
	/* What the decision rested on: null when no input was usable. */
	if (v->total && v->basis != FG_BASIS_INPUT) {
		const double nums[] = { v->pooled, v->interval_lo, v->interval_hi, v->phi, v->noise };
		static const char *const before[] = { ",\"pooled\":", ",\"interval\":[", ",", "],\"phi\":",
		                                      ",\"noise\":" };
		for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
			fputs(before[i], out);
			cli_json_number(out, nums[i], 4);
		}
		fprintf(out, ",\"noise_source\":\"%s\"", v->noise_given ? "option" : "default");
	} else {
		fputs(",\"pooled\":null,\"interval\":null,\"phi\":null,\"noise\":null,\"noise_source\":null", out);
	}
	fputs(",\"disagreeing\":", out);
	if (v->disagreeing != SIZE_MAX && v->basis != FG_BASIS_INPUT)
		cli_json_string(out, fg_verdict_profile_label(&v->profiles[v->disagreeing]));
	else
		fputs("null", out);
	fprintf(out, ",\"samples\":%llu,\"total\":%llu,\"profiles\":[", (unsigned long long)v->samples,
	        (unsigned long long)v->total);
	for (size_t i = 0; i < v->nprofiles; i++) {
		const fg_verdict_profile *p = &v->profiles[i];
		fputs(i ? ",{\"source\":" : "{\"source\":", out);
		cli_json_string(out, p->source);
		fputs(",\"node\":", out);
		cli_json_string_or_null(out, p->node);
		fputs(",\"protocol\":", out);
		cli_json_string_or_null(out, p->detected);
		fprintf(out, ",\"read\":%s", p->read ? "true" : "false");
		if (p->read) {
			fprintf(out, ",\"total\":%llu,\"samples\":%llu,\"share\":", (unsigned long long)p->total,
			        (unsigned long long)p->samples);
			cli_json_number(out, p->share, 4);
		}
		fputc('}', out);
	}
	fputs("]}", out);
}
