/* fgbisect metrics: the efficiency lens for two runs from Prometheus. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cli_metrics.h"
#include "cmd/commands.h"

static const char description[] =
	"Reads the signals of a metric rules file (Zeebe's by default: CPU and its limit,\n"
	"processed records per second, CPU per record and per MiB appended, dropped\n"
	"requests, backpressure, journal append and flush, flush latency, processing\n"
	"p50/p99 and by record type, RocksDB size and keys, GC) for a base and a candidate\n"
	"run from Prometheus, side by side with their ratio and its 95% interval (from\n"
	"the noise of the points, their autocorrelation counted), and ends with one\n"
	"hypothesis: the first interpretation rule of the file whose conditions hold,\n"
	"with its evidence.  A condition on a ratio holds only when its whole interval\n"
	"is beyond the bound; when the interval holds the bound it is undecided (within\n"
	"noise) and the rule does not fire: \"cannot tell\" names such rules when no\n"
	"other fits.  A SELECTOR is label matchers without braces, e.g.\n"
	"namespace=\"c8-medic-daily-2026-11-21-b1bd400-test\".  A metric the server does\n"
	"not have is shown as missing, never as 0.  docs/metrics.md has the details.\n"
	"\n"
	"Exit status: 0 shown; 2 usage, rules file or a query the server refuses\n"
	"(bad_data); 3 an answer that is not Prometheus's; 4 the server cannot be\n"
	"reached, answers with an error, has no series for a side at all, or the rules\n"
	"file cannot be read.\n";

int cmd_metrics(int argc, char **argv)
{
	struct cli_profile_options po = { 0 };
	struct cli_metrics_options mo;
	cli_metrics_options_init(&mo);
	const struct cli_option table[] = {
		CLI_OPT_STRING(0, "base", &mo.selector[0], "SELECTOR", "the healthy run"),
		CLI_OPT_STRING(0, "candidate", &mo.selector[1], "SELECTOR", "the suspect run"),
		CLI_METRICS_OPTIONS(&mo),
		CLI_OPT_LIST(0, "header", &po.headers, "'Name: value'", "an HTTP header (repeatable; never printed or cached)"),
		CLI_OPT_BOOL(0, "netrc", &po.netrc, "use ~/.netrc credentials"),
		CLI_OPT_U64(0, "timeout", &po.timeout_s, "S", 1, 86400, "give up a query after S seconds (default 60)"),
		CLI_OPT_BOOL(0, "json", &po.json, "one JSON object on stdout: every signal, every rule"),
		CLI_OPT_END(),
	};
	const struct cli_command_spec spec = {
		.name = "metrics", .synopsis = "--prometheus URL --base SELECTOR --candidate SELECTOR [options]",
		.description = description, .options = table, .usage_status = FG_EXIT_USAGE,
	};
	struct cli_args args;
	int status = cli_parse(&spec, &args, argc, argv);
	if (status == CLI_PARSED && args.argc > 0)
		status = cli_spec_usage_error(&spec, &args, "unexpected argument '%s'", args.argv[0]);
	if (status == CLI_PARSED)
		status = cli_metrics_check(&mo, &spec, &args, true);
	cli_args_free(&args);
	if (status != CLI_PARSED)
		return status;

	fg_error err;
	fg_error_clear(&err);
	fg_metrics_result *r;
	fg_metrics_rules *rules;
	if (cli_metrics_run(&r, &rules, &mo, &po, NULL, 0, &err))
		return cli_report_error(&err, po.json);
	if (po.json) {
		fg_json j;
		fg_json_init(&j, stdout);
		cli_metrics_json(&j, r, mo.url);
	} else {
		cli_metrics_text(stdout, r, mo.url);
	}
	fg_metrics_result_free(r);
	fg_metrics_rules_free(rules);
	return 0;
}
