/* fgbisect runs scan DIR [-o FILE]: a runs file from Camunda daily artifacts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "bisect/runscan.h"

static const char description[] =
	"Writes a runs file listing the Camunda daily-load-test flame graphs under DIR:\n"
	"artifact folders\n"
	"  flamegraph-medic-daily-DATE-SHA-test[-VARIANT]-EVENT-camunda-N-YYYYMMDD/\n"
	"holding POD-flamegraph[-TYPE]-EVENT-YYYYMMDD.html (or .html.gz), or such files\n"
	"side by side.  The date and commit come from the benchmark name\n"
	"medic-daily-DATE-SHA-test in the file or folder names (not from the capture\n"
	"date); a grpc or rest variant or test type gives the protocol, other variants\n"
	"give '-'; the node is the pod (camunda-N).  Lines are sorted by date, commit,\n"
	"node, protocol and event.  Flame graphs whose names name no build are skipped\n"
	"with a warning; other files are ignored.\n";

static const char epilogue[] =
	"Without -o the runs file goes to standard output with locations relative to\n"
	"DIR: save it in DIR, or use -o.  See docs/runs-file.md.\n";

static int runs_scan(int argc, char **argv)
{
	const char *output = NULL;
	const struct cli_option table[] = {
		CLI_OPT_STRING('o', "output", &output, "FILE",
			       "write FILE (replaced atomically); locations are relative\nto FILE's folder"),
		CLI_OPT_END(),
	};
	const struct cli_command_spec spec = {
		.name = "runs scan", .synopsis = "DIR [-o FILE]", .description = description, .options = table,
		.epilogue = epilogue, .usage_status = FG_EXIT_USAGE,
	};
	struct cli_args args;
	int status = cli_parse(&spec, &args, argc, argv);
	if (status == CLI_PARSED && args.argc == 0)
		status = cli_spec_usage_error(&spec, &args, "which folder? (fgbisect runs scan DIR)");
	else if (status == CLI_PARSED && args.argc > 1)
		status = cli_spec_usage_error(&spec, &args, "one folder only, got '%s' and '%s'", args.argv[0],
					      args.argv[1]);
	else if (status == CLI_PARSED && output && !*output)
		status = cli_spec_usage_error(&spec, &args, "-o needs a file name");
	const char *dir = status == CLI_PARSED ? args.argv[0] : NULL;
	cli_args_free(&args);
	if (status != CLI_PARSED)
		return status;

	fg_error err;
	fg_error_clear(&err);
	fg_runscan *scan = NULL;
	if (fg_runscan_dir(&scan, dir, &err))
		return cli_report_error(&err, false);
	int dirlen = (int)strlen(dir);
	while (dirlen > 1 && dir[dirlen - 1] == '/')
		dirlen--;
	for (size_t i = 0; i < fg_runscan_skipped_count(scan); i++) {
		const fg_runscan_skip *s = fg_runscan_skipped_at(scan, i);
		cli_warn("%.*s/%s: skipped: %s", dirlen, dir, s->path, s->reason);
	}
	status = 0;
	char *text = NULL;
	if (fg_runscan_count(scan) == 0) {
		fg_error_set(&err, FG_EINVALID, dir, "no Camunda daily flame graph found");
		status = cli_report_error(&err, false);
	} else if (output ? fg_runscan_write(scan, output, &err) : fg_runscan_format(&text, scan, NULL, &err)) {
		status = cli_report_error(&err, false);
	} else if (!output) {
		fputs(text, stdout);
	}
	free(text);
	fg_runscan_free(scan);
	return status;
}

int cmd_runs(int argc, char **argv)
{
	static const struct cli_option no_options[] = { CLI_OPT_END() };
	static const struct cli_command_spec spec = {
		.name = "runs", .synopsis = "scan DIR [-o FILE]",
		.description = "Runs files (docs/runs-file.md).  'fgbisect runs scan --help' describes scan.\n",
		.options = no_options, .usage_status = FG_EXIT_USAGE,
	};
	if (argc >= 2 && !strcmp(argv[1], "scan"))
		return runs_scan(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		cli_print_help(&spec);
		return 0;
	}
	if (argc < 2)
		return cli_spec_usage_error(&spec, NULL, "which action? (fgbisect runs scan DIR)");
	return cli_spec_usage_error(&spec, NULL, "unknown action '%s' (fgbisect runs scan DIR)", argv[1]);
}
