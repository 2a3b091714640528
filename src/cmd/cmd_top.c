/* fgbisect top: the hottest frames of a profile. */
#include <getopt.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "namemap.h"
#include "names.h"
#include "stats.h"
#include "top.h"

static const char usage[] =
	"usage: fgbisect top [-n N] [--self] [options] PROFILE\n"
	"\n"
	"Lists the hottest frames by inclusive share (stacks holding the frame,\n"
	"each counted once however deep it recurses) or, with --self, by self\n"
	"share (stacks whose leaf it is).  Names that differ only by per-run ids\n"
	"(lambdas, thread ids, temp library names) count as one unless --raw.\n"
	"\n"
	"  -n, --count N       how many frames (default 20; 0 = all)\n"
	"      --self          sort by self share\n"
	CLI_PROFILE_OPTIONS_HELP;

int cmd_top(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "self", no_argument, NULL, 's' },
		CLI_PROFILE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	struct cli_profile_options po = { 0 };
	bool self = false;
	uint64_t count = 20;
	int status = 0, opt;
	while (!status && (opt = getopt_long(argc, argv, "n:h", longopts, NULL)) != -1) {
		if (cli_profile_option(&po, opt, optarg, "top", &status))
			continue;
		switch (opt) {
		case 'n':
			if (!cli_parse_u64(optarg, &count))
				status = cli_usage_error("top", "-n wants a number, not '%s'", optarg);
			break;
		case 's': self = true; break;
		case 'h': fputs(usage, stdout); return 0;
		default: status = cli_usage_error("top", "unknown option"); break;
		}
	}
	if (!status && optind != argc - 1)
		status = cli_usage_error("top", "give exactly one PROFILE");
	if (status)
		return status;
	const char *source = argv[optind];

	fg_error err;
	fg_error_clear(&err);
	fg_names *names = NULL;
	fg_namemap *map = NULL;
	fg_top *top = NULL;
	fg_top_entry *entries = NULL;
	size_t n = 0;
	fg_profile_info info;
	int rc = fg_names_new(&names, &err);
	if (!rc && !po.raw)
		rc = fg_namemap_new(&map, names, &err);
	if (!rc)
		rc = fg_top_new(&top, map ? fg_namemap_get : NULL, map, &err);
	if (!rc)
		rc = cli_read_profile(&info, source, names, &po, &(fg_visitor){ fg_top_frames, fg_top_stack, top }, &err);
	if (!rc)
		rc = fg_top_entries(&entries, &n, top, self, &err);
	if (rc) {
		status = cli_report_error(&err, po.json);
		goto out;
	}
	if (count && n > count)
		n = count;
	uint64_t total = info.total;
	if (po.json) {
		fputs("{\"source\":", stdout);
		cli_json_string(stdout, cli_shown(source));
		printf(",\"total\":%llu,\"order\":\"%s\",\"frames\":[", (unsigned long long)total,
		       self ? "self" : "inclusive");
	} else {
		printf("%s  %s%s  %llu samples\n", cli_shown(source), fg_format_name(info.format), info.gzip ? "+gzip" : "",
		       (unsigned long long)total);
		printf("%8s %10s %8s %10s  %s\n", "incl%", "samples", "self%", "samples", "frame");
	}
	for (size_t i = 0; i < n; i++) {
		const fg_top_entry *e = &entries[i];
		const char *frame = fg_names_get(names, e->name);
		double incl = fg_percent(e->samples, total), selfp = fg_percent(e->self_samples, total);
		if (po.json) {
			fputs(i ? ",{\"frame\":" : "{\"frame\":", stdout);
			cli_json_string(stdout, frame);
			printf(",\"samples\":%llu,\"share\":%.4f,\"self_samples\":%llu,\"self_share\":%.4f}",
			       (unsigned long long)e->samples, incl, (unsigned long long)e->self_samples, selfp);
		} else {
			printf("%7.2f%% %10llu %7.2f%% %10llu  ", incl, (unsigned long long)e->samples, selfp,
			       (unsigned long long)e->self_samples);
			cli_put_text(stdout, frame);
			putchar('\n');
		}
	}
	if (po.json)
		fputs("]}\n", stdout);
out:
	free(entries);
	fg_top_free(top);
	fg_namemap_free(map);
	fg_names_free(names);
	return status;
}
