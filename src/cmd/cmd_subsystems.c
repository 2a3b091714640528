/* fgbisect subsystems: every sample attributed to a subsystem by rules. */
#include <getopt.h>
#include <stdlib.h>

#include "cli.h"
#include "fetch.h"
#include "commands.h"
#include "namemap.h"
#include "names.h"
#include "rules.h"
#include "stats.h"
#include "subsystems.h"

#define TOP_FRAMES 5

static const char usage[] =
	"usage: fgbisect subsystems [--rules FILE] [-v] [options] PROFILE\n"
	"\n"
	"Attributes every sample to a subsystem: each frame's self samples go to\n"
	"the first rule (in file order) with a pattern matching any frame of its\n"
	"stack, the rest to 'other', so the shares add up to 100%.  Subsystems are\n"
	"listed in the rules' order, 'other' last; the printed shares are rounded\n"
	"to add up to exactly 100.00 (largest remainder), the sample counts are exact.\n"
	"Rules: --rules FILE, else $FGBISECT_RULES, else the installed Zeebe rules\n"
	"(contrib/zeebe.rules); docs/subsystems.md describes the format.\n"
	"\n"
	"      --rules FILE    the rules file\n"
	"  -v, --verbose       each subsystem's 5 frames with the most self samples\n"
	"                      (names normalised unless --raw)\n"
	CLI_PROFILE_OPTIONS_HELP;

enum { OPT_RULES = CLI_OPT_FIRST_FREE };

/* 1234 hundredths of a percent -> "12.34". */
static void print_hundredths(uint32_t h)
{
	printf("%u.%02u", h / 100, h % 100);
}

int cmd_subsystems(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "rules", required_argument, NULL, OPT_RULES },
		{ "verbose", no_argument, NULL, 'v' },
		CLI_PROFILE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	struct cli_profile_options po = { 0 };
	const char *rules_path = NULL;
	bool verbose = false;
	int status = 0, opt;
	while (!status && (opt = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		if (cli_profile_option(&po, opt, optarg, "subsystems", &status))
			continue;
		switch (opt) {
		case OPT_RULES: rules_path = optarg; break;
		case 'v': verbose = true; break;
		case 'h': fputs(usage, stdout); return 0;
		default: status = cli_usage_error("subsystems", "unknown option"); break;
		}
	}
	if (!status && optind != argc - 1)
		status = cli_usage_error("subsystems", "give exactly one PROFILE");
	if (!status && !rules_path && !(rules_path = fg_rules_default_path()))
		status = cli_usage_error("subsystems", "no rules file found: give --rules FILE or set FGBISECT_RULES");
	if (status)
		return status;
	const char *source = argv[optind];

	fg_error err;
	fg_error_clear(&err);
	fg_rules *rules = NULL;
	fg_names *names = NULL;
	fg_namemap *map = NULL;
	fg_subsystems *subs = NULL;
	uint32_t *shares = NULL;
	fg_profile_info info;
	fg_subsystems_options so;
	fg_subsystems_options_init(&so);
	fg_fetch_options fo;
	cli_fetch_options(&fo, &po);
	char warning[256];
	int rc = fg_rules_load(&rules, rules_path, &fo, warning, &err);
	if (warning[0])
		cli_warn("%s", warning);
	if (!rc)
		rc = fg_names_new(&names, &err);
	if (!rc && verbose && !po.raw)
		rc = fg_namemap_new(&map, names, &err);
	if (!rc) {
		so.top_frames = verbose ? TOP_FRAMES : 0;
		so.map = map ? fg_namemap_get : NULL;
		so.map_ctx = map;
		rc = fg_subsystems_new(&subs, rules, names, &so, &err);
	}
	if (!rc)
		rc = cli_read_profile(&info, source, names, &po,
					      &(fg_visitor){ fg_subsystems_frames, fg_subsystems_stack, subs }, &err);
	size_t n = subs ? fg_subsystems_count(subs) : 0;
	if (!rc && !(shares = calloc(n, sizeof(*shares))))
		rc = fg_error_set(&err, FG_ENOMEM, NULL, "out of memory");
	if (rc) {
		status = cli_report_error(&err, po.json);
		goto out;
	}
	fg_subsystems_shares(shares, subs);

	uint64_t total = fg_subsystems_total(subs);
	if (po.json) {
		fputs("{\"source\":", stdout);
		cli_json_string(stdout, cli_shown(source));
		printf(",\"total\":%llu,\"rules\":", (unsigned long long)total);
		cli_json_string(stdout, rules_path);
		fputs(",\"subsystems\":[", stdout);
	} else {
		printf("%s  %s%s  %llu samples  rules %s\n", cli_shown(source), fg_format_name(info.format),
		       info.gzip ? "+gzip" : "", (unsigned long long)total, rules_path);
		printf("%-20s %10s %9s\n", "subsystem", "samples", "share");
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t samples = fg_subsystems_samples(subs, i);
		if (po.json) {
			fputs(i ? ",{\"name\":" : "{\"name\":", stdout);
			cli_json_string(stdout, fg_subsystems_name(subs, i));
			printf(",\"samples\":%llu,\"share\":", (unsigned long long)samples);
			print_hundredths(shares[i]);
		} else {
			printf("%-20s %10llu %5u.%02u%%\n", fg_subsystems_name(subs, i), (unsigned long long)samples,
			       shares[i] / 100, shares[i] % 100);
		}
		if (verbose) {
			fg_subsystems_entry top[TOP_FRAMES];
			size_t k = fg_subsystems_top_frames(top, TOP_FRAMES, subs, i);
			if (po.json)
				fputs(",\"frames\":[", stdout);
			for (size_t j = 0; j < k; j++) {
				const char *frame = fg_names_get(names, top[j].name);
				if (po.json) {
					fputs(j ? ",{\"frame\":" : "{\"frame\":", stdout);
					cli_json_string(stdout, frame);
					printf(",\"samples\":%llu}", (unsigned long long)top[j].samples);
				} else {
					printf("    %10llu %6.2f%%  %s\n", (unsigned long long)top[j].samples,
					       fg_percent(top[j].samples, total), frame);
				}
			}
			if (po.json)
				fputc(']', stdout);
		}
		if (po.json)
			fputc('}', stdout);
	}
	if (po.json)
		fputs("]}\n", stdout);
out:
	free(shares);
	fg_subsystems_free(subs);
	fg_namemap_free(map);
	fg_names_free(names);
	fg_rules_free(rules);
	return status;
}
