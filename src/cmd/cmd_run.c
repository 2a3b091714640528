/* fgbisect [run]: the `git bisect run` script — the verdict on HEAD.
 *
 * Every status is git bisect's: 0 fast, 1 slow, 125 skip, and 255 for what
 * is wrong with the configuration, so that git aborts instead of marking
 * every commit. */
#include <stdlib.h>

#include "cmd/cli_bisect.h"
#include "cmd/commands.h"
#include "base/exitcode.h"

static const char description[] =
	"Judges the commit at HEAD for `git bisect run`: the share of samples whose stack\n"
	"holds a frame matching PAT, in the commit's profiles, against the threshold.\n"
	"\n"
	"  git config fgbisect.runs runs.txt\n"
	"  git bisect start --term-old fast --term-new slow BAD GOOD\n"
	"  git bisect run fgbisect --frame TransactionalColumnFamily --threshold 4\n"
	"\n"
	"A profile that cannot be used (fetch failed, unreadable or truncated, fewer than\n"
	"--min-samples samples, protocol or event contradicting the runs file) is left\n"
	"out and named; the run is judged on the others when --min-nodes remain.\n"
	"\n"
	"Exit status: 0 fast (below the threshold), 1 slow (at or above it), 125 cannot\n"
	"decide for this commit (no run for it, fewer than --min-nodes usable profiles,\n"
	"capture failed or timed out, within --margin of the threshold, out of memory),\n"
	"255 configuration error (bad option, unreadable runs file, mixed protocols or\n"
	"events, not in a git repository).  One line on stderr explains the verdict.\n";

int cmd_run(int argc, char **argv)
{
	struct cli_bisect_options o;
	cli_bisect_options_init(&o);
	const struct cli_option table[] = {
		CLI_JUDGE_OPTIONS(&o),
		CLI_SOURCE_OPTIONS(&o),
		CLI_JUDGED_PROFILE_OPTIONS(&o.po),
		CLI_OPT_END(),
	};
	const struct cli_command_spec spec = {
		.name = "run", .usage_name = "[run]",
		.synopsis = "--frame PAT --threshold PCT [--runs FILE|URL | --profile P | --capture CMD]\n"
			    " [options]",
		.description = description, .options = table, .usage_status = FG_EXIT_ABORT,
	};
	struct cli_args args;
	int status = cli_parse(&spec, &args, argc, argv);
	/* `fgbisect TransactionalColumnFamily --threshold 4`: a word that is
	 * no command and no option.  git bisect must abort, not mark. */
	if (status == CLI_PARSED && args.argc > 0 && !o.frame)
		status = cli_spec_usage_error(&spec, &args, "'%s' is not a command%s; in run mode the pattern goes after "
					      "--frame ('fgbisect --help' lists the commands)", args.argv[0],
					      args.argv[0][0] ? "" : " (an empty argument)");
	if (status == CLI_PARSED)
		status = cli_bisect_secrets_from_env(&o, &spec, &args);
	if (status == CLI_PARSED)
		status = cli_bisect_check(&o, &spec, &args);
	cli_args_free(&args);
	if (status != CLI_PARSED)
		return status;
	status = 0;

	fg_error err;
	fg_error_clear(&err);
	fg_fetch_options fo;
	fg_verdict_options vo;
	fg_judging *jd = NULL;
	fg_verdict *v = NULL;
	fg_repo_commit head;
	/* Under `fgbisect bisect`, the ends told whether the pattern may be
	 * mistyped. */
	bool quiet = getenv(CLI_QUIET_PATTERN_ENV) != NULL;
	int rc = cli_bisect_judging(&jd, &o, &vo, &fo, FG_JUDGING_REPO_HEAD, NULL, &err);
	if (!rc)
		rc = fg_judging_judge_head(&v, &head, jd, !quiet, &err);
	if (rc) {
		cli_report_error(&err, o.po.json);
		/* Out of memory is this machine at this moment (a larger build, a
		 * busy host), not the configuration: skip the commit, do not
		 * abort the bisection. */
		status = err.code == FG_ENOMEM ? FG_EXIT_SKIP : FG_EXIT_ABORT;
		goto out;
	}
	cli_verdict_warnings(v, fg_judging_judge(jd), quiet ? NULL : o.frame);
	fputs("fgbisect: ", stderr);
	cli_verdict_line(stderr, head.id, v, o.threshold);
	if (o.po.json) {
		fg_json j;
		fg_json_init(&j, stdout);
		cli_verdict_json(&j, head.id, v, o.threshold);
	}
	/* A verdict nobody could read must not pass for "slow" (main's
	 * fallback for a failed stdout is 1). */
	status = fflush(stdout) || ferror(stdout) ? FG_EXIT_ABORT : fg_verdict_exit_status(v);
out:
	fg_verdict_free(v);
	fg_judging_free(jd);
	return status;
}
