/* fgbisect share: the share of frame patterns in each profile. */
#include <getopt.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "names.h"
#include "share.h"
#include "stats.h"

static const char usage[] =
	"usage: fgbisect share --frame PAT [--frame PAT...] [--regex] [--self] [options] PROFILE...\n"
	"\n"
	"Prints, for each profile, the share of samples whose stack holds a frame\n"
	"matching each pattern (inclusive, a stack counted once), or whose leaf\n"
	"matches (--self), with its 95% Wilson interval.  A pattern is a case-\n"
	"sensitive substring of the raw or normalised frame name.\n"
	"PROFILE: an async-profiler HTML flame graph (2.x-4.x) or collapsed stacks,\n"
	"plain or gzip, a path or - for stdin.\n"
	"\n"
	"  -f, --frame PAT     a frame pattern (repeatable)\n"
	"  -E, --regex         patterns are POSIX extended regular expressions\n"
	"      --self          self share (the leaf matches) instead of inclusive\n"
	CLI_PROFILE_OPTIONS_HELP;

struct result {
	const char *source;
	fg_profile_info info;
	uint64_t *samples; /* per pattern: inclusive or self */
};

int cmd_share(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "frame", required_argument, NULL, 'f' },
		{ "regex", no_argument, NULL, 'E' },
		{ "self", no_argument, NULL, 's' },
		CLI_PROFILE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	struct cli_profile_options po = { 0 };
	fg_match_options mo = { 0 };
	bool self = false;
	const char **patterns = calloc((size_t)argc, sizeof(*patterns));
	size_t npatterns = 0;
	int status = 0, opt;
	if (!patterns)
		return 1;
	while (!status && (opt = getopt_long(argc, argv, "f:Eh", longopts, NULL)) != -1) {
		if (cli_profile_option(&po, opt, optarg, "share", &status))
			continue;
		switch (opt) {
		case 'f': patterns[npatterns++] = optarg; break;
		case 'E': mo.regex = true; break;
		case 's': self = true; break;
		case 'h': fputs(usage, stdout); free(patterns); return 0;
		default: status = cli_usage_error("share", "unknown option"); break;
		}
	}
	if (!status && npatterns == 0)
		status = cli_usage_error("share", "give at least one --frame PATTERN");
	if (!status && optind == argc)
		status = cli_usage_error("share", "give at least one PROFILE");
	if (status) {
		free(patterns);
		return status;
	}
	mo.raw = po.raw;

	fg_error err;
	fg_error_clear(&err);
	fg_names *names = NULL;
	fg_matcher *matcher = NULL;
	fg_share *share = NULL;
	size_t nprofiles = (size_t)(argc - optind);
	struct result *results = calloc(nprofiles, sizeof(*results));
	uint64_t *counts = calloc(nprofiles * npatterns, sizeof(*counts));
	uint64_t matched = 0;
	int rc = !results || !counts ? fg_error_set(&err, FG_ENOMEM, NULL, "out of memory") : 0;
	if (!rc)
		rc = fg_names_new(&names, &err);
	if (!rc)
		rc = fg_matcher_new(&matcher, patterns, npatterns, &mo, &err);
	if (!rc)
		rc = fg_share_new(&share, matcher, names, &err);
	for (size_t i = 0; !rc && i < nprofiles; i++) {
		struct result *r = &results[i];
		r->source = argv[optind + (int)i];
		r->samples = counts + i * npatterns;
		fg_share_reset(share);
		rc = cli_read_profile(&r->info, r->source, names, &po,
				      &(fg_visitor){ fg_share_frames, fg_share_stack, share }, &err);
		for (size_t p = 0; !rc && p < npatterns; p++) {
			r->samples[p] = self ? fg_share_self(share, p) : fg_share_samples(share, p);
			if (fg_share_matched(share, p))
				matched |= UINT64_C(1) << p;
		}
	}
	if (rc) {
		status = cli_report_error(&err, po.json);
		goto out;
	}
	for (size_t p = 0; p < npatterns; p++)
		if (!(matched >> p & 1))
			cli_warn("pattern '%s' matches no frame in any profile: is it mistyped?", patterns[p]);

	const char *kind = self ? "self" : "inclusive";
	if (po.json) {
		fputs("{\"kind\":", stdout);
		cli_json_string(stdout, kind);
		fputs(",\"profiles\":[", stdout);
	}
	for (size_t i = 0; i < nprofiles; i++) {
		const struct result *r = &results[i];
		uint64_t total = r->info.total;
		if (po.json) {
			fputs(i ? ",{\"source\":" : "{\"source\":", stdout);
			cli_json_string(stdout, r->source);
			fputs(",\"format\":", stdout);
			cli_json_string(stdout, fg_format_name(r->info.format));
			printf(",\"gzip\":%s,\"total\":%llu,\"matches\":[", r->info.gzip ? "true" : "false",
			       (unsigned long long)total);
		} else {
			printf("%s  %s%s  %llu samples\n", r->source, fg_format_name(r->info.format),
			       r->info.gzip ? "+gzip" : "", (unsigned long long)total);
		}
		for (size_t p = 0; p < npatterns; p++) {
			double lo, hi, pct = fg_percent(r->samples[p], total);
			fg_wilson95(&lo, &hi, r->samples[p], total);
			if (po.json) {
				fputs(p ? ",{\"pattern\":" : "{\"pattern\":", stdout);
				cli_json_string(stdout, patterns[p]);
				printf(",\"samples\":%llu,\"share\":%.4f,\"ci95\":[%.4f,%.4f]}",
				       (unsigned long long)r->samples[p], pct, lo, hi);
			} else {
				printf("  %-40s %10llu  %6.2f%%  (95%% CI %.2f-%.2f%%)%s\n", patterns[p],
				       (unsigned long long)r->samples[p], pct, lo, hi, self ? "  self" : "");
			}
		}
		if (po.json)
			fputs("]}", stdout);
	}
	if (po.json)
		fputs("]}\n", stdout);
out:
	fg_share_free(share);
	fg_matcher_free(matcher);
	fg_names_free(names);
	free(results);
	free(counts);
	free(patterns);
	return status;
}
