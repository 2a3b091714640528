/* fgbisect runs scan DIR [-o FILE]: a runs file from Camunda daily artifacts;
 * fgbisect runs github OWNER/REPO [...]: one from a repository's GitHub
 * Actions artifacts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "bisect/runscan.h"
#include "formats/source.h"
#include "net/github.h"

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

static const char github_description[] =
	"Writes a runs file listing the artifacts of a GitHub repository's workflow\n"
	"runs, through the REST API: one line per artifact, its location the\n"
	"artifact's download URL (a zip, which run, bisect and days read through the\n"
	"cache: the token goes to the API only, the redirect to the blob store is\n"
	"followed without it).  Node, protocol and event come from the artifact name as\n"
	"'runs scan' reads an artifact folder's name; the date and commit from its\n"
	"benchmark name medic-daily-DATE-SHA-test, else from the run (its day, head_sha).\n"
	"The token is GH_TOKEN, else GITHUB_TOKEN (or give --header 'Authorization:\n"
	"Bearer ...'); it is sent to the API's origin only, never printed or cached.\n"
	"Expired artifacts are skipped and counted.\n";

static const char github_epilogue[] =
	"  fgbisect runs github camunda/camunda --workflow camunda-daily-load-tests.yml \\\n"
	"      --artifact 'flamegraph-.*-grpc-cpu-' -o runs.txt\n"
	"With -o FILE that exists and no --since, FILE is extended: its lines before\n"
	"its last date are kept, and the runs from that date on listed again.\n"
	"See docs/runs-file.md.\n";

/* What -o's file holds already, when it is extended; NULL when it does not
 * exist. */
static int existing_runs(char **old, const char *output, fg_error *err)
{
	*old = NULL;
	size_t len;
	if (!output || access(output, F_OK) != 0)
		return 0;
	return fg_source_read_all(old, &len, output, "runs file", 64u << 20, NULL, NULL, err);
}

/* The runs file text of the artifacts listed (after old's earlier lines). */
static int github_runs_text(char **text, const fg_github_list *list, const char *old, const char *since,
			    fg_error *err)
{
	fg_runscan *scan = NULL;
	int rc = fg_runscan_new(&scan, err);
	for (size_t i = 0; !rc && i < fg_github_count(list); i++) {
		const fg_github_artifact *a = fg_github_at(list, i);
		rc = fg_runscan_add_artifact(scan, a->name, a->commit, a->date, a->url, err);
	}
	for (size_t i = 0; !rc && i < fg_runscan_skipped_count(scan); i++)
		cli_warn("%s: skipped: %s", fg_runscan_skipped_at(scan, i)->path, fg_runscan_skipped_at(scan, i)->reason);
	if (!rc && fg_runscan_count(scan) == 0 && !old)
		rc = fg_error_set(err, FG_EINVALID, NULL, "no artifact found (%zu runs listed, %zu expired artifacts)",
				  fg_github_runs(list), fg_github_expired(list));
	if (!rc) {
		fg_runscan_finish(scan);
		rc = old ? fg_runscan_format_after(text, scan, old, since, err) : fg_runscan_format(text, scan, NULL, err);
	}
	fg_runscan_free(scan);
	return rc;
}

static int runs_github(int argc, char **argv)
{
	const char *output = NULL;
	struct cli_list headers = { .n = 0 };
	fg_github_options go;
	fg_github_options_init(&go);
	const struct cli_option table[] = {
		CLI_OPT_STRING(0, "workflow", &go.workflow, "FILE|ID", "the workflow's runs only (its file name or id)"),
		CLI_OPT_STRING(0, "branch", &go.branch, "NAME", "the runs of this branch only"),
		CLI_OPT_STRING(0, "since", &go.since, "DATE", "the runs created on DATE (YYYY-MM-DD, UTC) or later"),
		CLI_OPT_STRING(0, "until", &go.until, "DATE", "the runs created on DATE (YYYY-MM-DD, UTC) or earlier"),
		CLI_OPT_STRING(0, "artifact", &go.artifact, "REGEX",
			       "the artifacts whose name matches REGEX (POSIX extended) only"),
		CLI_OPT_STRING(0, "api-url", &go.api_url, "URL",
			       "the REST API's base (default https://api.github.com;\nGitHub Enterprise: https://HOST/api/v3)"),
		CLI_OPT_LIST(0, "header", &headers, "'Name: value'",
			     "an HTTP header for the API (repeatable; never printed)"),
		CLI_OPT_STRING('o', "output", &output, "FILE",
			       "write FILE (replaced atomically); an existing FILE is\nextended from its last date"),
		CLI_OPT_END(),
	};
	const struct cli_command_spec spec = {
		.name = "runs github", .synopsis = "OWNER/REPO [--workflow FILE|ID] [--artifact REGEX] [-o FILE]",
		.description = github_description, .options = table, .epilogue = github_epilogue,
		.usage_status = FG_EXIT_USAGE,
	};
	struct cli_args args;
	int status = cli_parse(&spec, &args, argc, argv);
	if (status == CLI_PARSED && args.argc != 1)
		status = cli_spec_usage_error(&spec, &args, "one repository, OWNER/REPO (fgbisect runs github OWNER/REPO)");
	char repo[256] = "";
	if (status == CLI_PARSED)
		snprintf(repo, sizeof(repo), "%s", args.argv[0]);
	cli_args_free(&args);
	if (status != CLI_PARSED)
		return status;
	go.token = getenv("GH_TOKEN") && *getenv("GH_TOKEN") ? getenv("GH_TOKEN") : getenv("GITHUB_TOKEN");
	if (go.token && !*go.token)
		go.token = NULL;
	/* An Authorization of --header wins over the environment's token. */
	for (size_t i = 0; i < headers.n; i++)
		if (!strncasecmp(headers.items[i], "Authorization:", 14))
			go.token = NULL;
	go.headers = headers.items;
	go.nheaders = headers.n;

	fg_error err;
	fg_error_clear(&err);
	char *old = NULL, *text = NULL, since[11] = "";
	fg_github_list *list = NULL;
	int rc = existing_runs(&old, output, &err);
	if (!rc && old && !go.since) {
		fg_runscan_last_date(since, old);
		go.since = since[0] ? since : NULL;
	}
	if (!rc)
		rc = fg_github_list_artifacts(&list, repo, &go, &err);
	if (!rc)
		rc = github_runs_text(&text, list, old, go.since ? go.since : "", &err);
	if (!rc && output)
		rc = fg_runscan_write_text(output, text, &err);
	if (rc) {
		status = cli_report_error(&err, false);
	} else {
		status = FG_EXIT_OK;
		if (!output)
			fputs(text, stdout);
		fprintf(stderr, "fgbisect: %zu runs listed%s%s, %zu artifacts written, %zu expired skipped%s\n",
			fg_github_runs(list), go.since ? " since " : "", go.since ? go.since : "", fg_github_count(list),
			fg_github_expired(list),
			fg_github_expired(list) ? " (GitHub keeps artifacts 90 days by default)" : "");
	}
	fg_github_free(list);
	free(text);
	free(old);
	return status;
}

int cmd_runs(int argc, char **argv)
{
	static const struct cli_option no_options[] = { CLI_OPT_END() };
	static const struct cli_command_spec spec = {
		.name = "runs", .synopsis = "scan DIR [-o FILE]\ngithub OWNER/REPO [options] [-o FILE]",
		.description = "Runs files (docs/runs-file.md).  'fgbisect runs scan --help' and 'fgbisect runs\n"
			       "github --help' describe the two.\n",
		.options = no_options, .usage_status = FG_EXIT_USAGE,
	};
	/* The actions, which --list-actions gives bash completion. */
	static const struct { const char *name; int (*fn)(int, char **); } actions[] = {
		{ "scan", runs_scan },
		{ "github", runs_github },
	};
	for (size_t i = 0; argc >= 2 && i < sizeof(actions) / sizeof(actions[0]); i++) {
		if (!strcmp(argv[1], actions[i].name))
			return actions[i].fn(argc - 1, argv + 1);
		if (!strcmp(argv[1], "--list-actions"))
			printf("%s\n", actions[i].name);
	}
	if (argc >= 2 && !strcmp(argv[1], "--list-actions"))
		return 0;
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		cli_print_help(&spec);
		return 0;
	}
	if (argc < 2)
		return cli_spec_usage_error(&spec, NULL, "which action? (fgbisect runs scan DIR, runs github OWNER/REPO)");
	return cli_spec_usage_error(&spec, NULL, "unknown action '%s' (fgbisect runs scan DIR, runs github OWNER/REPO)",
				    argv[1]);
}
