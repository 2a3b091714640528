/* fgbisect: dispatch to one subcommand. */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "base/exitcode.h"

static const struct cli_command commands[] = {
	{ "share", cmd_share, "share of frames matching patterns in each profile" },
	{ "top", cmd_top, "hottest frames by inclusive or self share" },
	{ "collapse", cmd_collapse, "the profile as sorted collapsed stacks" },
	{ "protocol", cmd_protocol, "grpc / rest / unknown per profile, with the evidence frames" },
	{ "subsystems", cmd_subsystems, "every sample attributed to a subsystem by rules (Zeebe by default)" },
	{ "diff", cmd_diff, "inclusive-% diff of base and candidate profiles, differential SVG, --peers outlier" },
	{ "runs", cmd_runs, "runs files: 'runs scan DIR' lists Camunda daily flame graphs, 'runs github\n"
			    "              OWNER/REPO' a repository's Actions artifacts" },
	{ "hotfiles", cmd_hotfiles, "hot frames → source files → last commit, changed in the window" },
	{ "run", cmd_run, "the git bisect run script: fast (0), slow (1) or skip (125) for HEAD" },
	{ "bisect", cmd_bisect, "checks both ends, then git bisect run over fgbisect run, and a summary" },
	{ "days", cmd_days, "binary search over daily runs: last fast and first slow run, window" },
	{ "metrics", cmd_metrics, "the efficiency lens: Prometheus signals of two runs and a hypothesis" },
};

static void usage(FILE *out)
{
	fputs("usage: fgbisect COMMAND [OPTIONS] [ARGS]\n"
	      "       fgbisect --version\n\n"
	      "Turns CPU profiles into answers for performance regressions.  It reads, by\n"
	      "content (gzip too): async-profiler HTML flame graphs (2.0-4.x, differential\n"
	      "and inverted), collapsed stacks, JFR recordings (async-profiler's, the JDK's),\n"
	      "pprof profiles, `perf script` text and SVG flame graphs (flamegraph.pl,\n"
	      "inferno, async-profiler 1.x), and any of them inside a zip, tar or tar.gz\n"
	      "archive (a CI artifact).\n\ncommands:\n", out);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
	fputs("\n'fgbisect COMMAND --help' describes a command; 'man fgbisect' has the rest.\n", out);
}

/* Every command's options as man-page source, then the common ones once. */
static int man_options(void)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		/* runs has two actions, scan and github, whose options are the ones
		 * to show. */
		bool runs = !strcmp(commands[i].name, "runs");
		for (int k = 0; k < (runs ? 2 : 1); k++) {
			char *argv[] = { (char *)commands[i].name, runs ? (k ? "github" : "scan") : "--man-options",
					 "--man-options", NULL };
			int status = commands[i].fn(runs ? 3 : 2, argv);
			if (status)
				return status;
		}
	}
	fputs(".SS \"Common options\"\n"
	      "Every command that reads profiles takes these (collapse all but \\-\\-json and \\-\\-raw):\n", stdout);
	return cmd_share(2, (char *[]){ "share", "--man-common", NULL });
}

int main(int argc, char **argv)
{
	/* A closed pipe (| head) must end us with an error status, never a signal. */
	signal(SIGPIPE, SIG_IGN);
	/* Ctrl-C and SIGTERM clean up (temporary files, capture groups, a
	 * bisection we started) and exit 130 / 143. */
	cli_signals_install();

	/* A bare call is run mode without options: `git bisect run fgbisect`
	 * must abort (255), not mark every commit slow (2). */
	if (argc < 2) {
		usage(stderr);
		fputs("\nfgbisect: no command and no --frame: nothing to judge (run mode exits 255)\n", stderr);
		return FG_EXIT_ABORT;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		usage(stdout);
		return FG_EXIT_OK;
	}
	/* For docs/fgbisect.1 (contrib/update-man.sh, checked by
	 * tests/sh/options_docs.sh) and bash completion (contrib/fgbisect.bash). */
	if (!strcmp(name, "--man-options"))
		return man_options();
	if (!strcmp(name, "--list-commands")) {
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			printf("%s\n", commands[i].name);
		return FG_EXIT_OK;
	}
	if (!strcmp(name, "--version")) {
		printf("fgbisect %s\n", FG_VERSION);
		return FG_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name)) {
			int status = commands[i].fn(argc - 1, argv + 1);
			if (fflush(stdout) != 0 || ferror(stdout)) {
				/* EPIPE from `| head` is not worth a message; the status says it. */
				return status ? status : FG_EXIT_FAILED;
			}
			return status;
		}
	/* Anything else is run mode, as `git bisect run fgbisect ...` calls it:
	 * a bare call, a forgotten --frame, an empty argument or a mistyped
	 * command must abort the bisection (255), never exit 2, which git reads
	 * as "slow" and marks every commit with. */
	return cmd_run(argc, argv);
}
