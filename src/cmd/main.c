/* fgbisect: dispatch to one subcommand. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static const struct cli_command commands[] = {
	{ "share", cmd_share, "share of frames matching patterns in each profile" },
	{ "top", cmd_top, "hottest frames by inclusive or self share" },
	{ "collapse", cmd_collapse, "the profile as sorted collapsed stacks" },
	{ "protocol", cmd_protocol, "grpc / rest / unknown per profile, with the evidence frames" },
	{ "subsystems", cmd_subsystems, "every sample attributed to a subsystem by rules (Zeebe by default)" },
	{ "diff", cmd_diff, "inclusive-% diff of base and candidate profiles, differential SVG, --peers outlier" },
	{ "runs", cmd_runs, "runs files: 'runs scan DIR' lists Camunda daily flame graphs" },
	{ "hotfiles", cmd_hotfiles, "hot frames → source files → last commit, changed in the window" },
	{ "run", cmd_run, "the git bisect run script: fast (0), slow (1) or skip (125) for HEAD" },
	{ "bisect", cmd_bisect, "checks both ends, then git bisect run over fgbisect run, and a summary" },
	{ "days", cmd_days, "binary search over daily runs: last fast and first slow run, window" },
};

static void usage(FILE *out)
{
	fputs("usage: fgbisect COMMAND [OPTIONS] [ARGS]\n"
	      "       fgbisect --version\n\n"
	      "Turns async-profiler flame graphs (HTML 2.x-4.x) and collapsed stacks into\n"
	      "answers for performance regressions.\n\ncommands:\n", out);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
	fputs("\n'fgbisect COMMAND --help' describes a command; 'man fgbisect' has the rest.\n", out);
}

int main(int argc, char **argv)
{
	/* A closed pipe (| head) must end us with an error status, never a signal. */
	signal(SIGPIPE, SIG_IGN);

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "--version")) {
		printf("fgbisect %s\n", FG_VERSION);
		return 0;
	}
	/* `git bisect run fgbisect --frame ...`: options without a command are run mode. */
	if (name[0] == '-')
		return cmd_run(argc, argv);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name)) {
			int status = commands[i].fn(argc - 1, argv + 1);
			if (fflush(stdout) != 0 || ferror(stdout)) {
				/* EPIPE from `| head` is not worth a message; the status says it. */
				return status ? status : 1;
			}
			return status;
		}
	fprintf(stderr, "fgbisect: '%s' is not a command. See 'fgbisect --help'.\n", name);
	return 2;
}
