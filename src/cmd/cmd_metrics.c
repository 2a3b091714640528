/* fgbisect metrics: the efficiency lens for two runs from Prometheus. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_metrics.h"
#include "commands.h"

static const char usage[] =
	"usage: fgbisect metrics --prometheus URL --base SELECTOR --candidate SELECTOR [options]\n"
	"\n"
	"Reads the signals of a metric rules file (Zeebe's by default: CPU and its limit,\n"
	"processed records per second, CPU per record and per MiB appended, dropped\n"
	"requests, backpressure, journal append and flush, flush latency, processing\n"
	"p50/p99 and by record type, RocksDB size and keys, GC) for a base and a candidate\n"
	"run from Prometheus, side by side with their ratio, and ends with one\n"
	"hypothesis: the first interpretation rule of the file whose conditions hold,\n"
	"with its evidence.  A SELECTOR is label matchers without braces, e.g.\n"
	"namespace=\"c8-medic-daily-2026-11-21-b1bd400-test\".  A metric the server does\n"
	"not have is shown as missing, never as 0.  docs/metrics.md has the details.\n"
	"\n"
	"Exit status: 0 shown; 2 usage, rules file or a query the server refuses\n"
	"(bad_data); 3 an answer that is not Prometheus's; 4 the server cannot be\n"
	"reached, answers with an error, or has no series for a side at all.\n"
	"\n"
	"      --base SELECTOR       the healthy run\n"
	"      --candidate SELECTOR  the suspect run\n"
	CLI_METRICS_OPTIONS_HELP
	"      --header 'Name: value'  an HTTP header (repeatable; never printed or cached)\n"
	"      --netrc               use ~/.netrc credentials\n"
	"      --timeout S           give up a query after S seconds (default 60)\n"
	"      --json                one JSON object on stdout: every signal, every rule\n"
	"  -h, --help                this help\n";

enum { OPT_BASE = CLI_OPT_FIRST_FREE, OPT_CANDIDATE };

int cmd_metrics(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "base", required_argument, NULL, OPT_BASE },
		{ "candidate", required_argument, NULL, OPT_CANDIDATE },
		CLI_METRICS_LONG_OPTIONS,
		{ "json", no_argument, NULL, CLI_OPT_JSON },
		{ "header", required_argument, NULL, CLI_OPT_HEADER },
		{ "netrc", no_argument, NULL, CLI_OPT_NETRC },
		{ "timeout", required_argument, NULL, CLI_OPT_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct cli_profile_options po = { 0 };
	struct cli_metrics_options mo;
	cli_metrics_options_init(&mo);
	int status = 0, opt;
	optind = 1;
	while (!status && (opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (cli_profile_option(&po, opt, optarg, "metrics", &status) ||
		    cli_metrics_option(&mo, opt, optarg, "metrics", &status))
			continue;
		switch (opt) {
		case OPT_BASE: mo.selector[0] = optarg; break;
		case OPT_CANDIDATE: mo.selector[1] = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default: status = cli_usage_error("metrics", "unknown option"); break;
		}
	}
	if (!status && optind < argc)
		status = cli_usage_error("metrics", "unexpected argument '%s'", argv[optind]);
	if (!status)
		status = cli_metrics_check(&mo, "metrics", true);
	if (status)
		return status;

	fg_error err;
	fg_error_clear(&err);
	fg_metrics_result *r;
	fg_mrules *rules;
	if (cli_metrics_run(&r, &rules, &mo, &po, NULL, 0, &err))
		return cli_report_error(&err, po.json);
	if (po.json) {
		cli_metrics_json(stdout, r, mo.url);
		fputc('\n', stdout);
	} else {
		cli_metrics_text(stdout, r, mo.url);
	}
	fg_metrics_result_free(r);
	fg_mrules_free(rules);
	return 0;
}
