/* fgbisect [run]: the `git bisect run` script — the verdict on HEAD.
 *
 * Every status is git bisect's: 0 fast, 1 slow, 125 skip, and 255 for what
 * is wrong with the configuration, so that git aborts instead of marking
 * every commit. */
#include <stdlib.h>
#include <string.h>

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
	cli_bisect_verdict_options(&vo, &fo, &o);
	fg_repo *repo = NULL;
	fg_runs *runs = NULL;
	fg_runs_selection *sel = NULL;
	fg_verdict_judge *judge = NULL;
	fg_verdict *v = NULL;
	fg_repo_commit head;
	fg_verdict_source src = { .profile = o.profile, .capture = o.capture };
	fg_capture_options_init(&src.capture_opts);
	src.capture_opts.timeout_s = o.capture_timeout;

	/* A fixed --profile is one file for every commit: it needs no
	 * repository, and an unusable one is a configuration error. */
	bool fixed = o.profile && fg_verdict_profile_is_fixed(o.profile);
	int rc = fg_repo_open(&repo, NULL, &err);
	if (rc == FG_ECONFIG && fixed) {
		rc = 0;
		memset(&head, 0, sizeof(head));
	} else if (!rc) {
		rc = fg_repo_head(&head, repo, &err);
	}
	if (!rc && !o.profile && !o.capture) {
		rc = cli_bisect_load_runs(&runs, &sel, repo, &o, &fo, &err);
		src.runs = sel;
	}
	src.capture_opts.dir = repo ? fg_repo_workdir(repo) : NULL;
	if (!rc)
		rc = fg_verdict_judge_new(&judge, &vo, &err);
	if (!rc)
		rc = fg_verdict_judge_commit(&v, judge, &src, &head, &err);
	if (!rc && fixed && v->basis == FG_BASIS_INPUT) {
		rc = fg_error_set(&err, FG_ECONFIG, NULL, "--profile %s names one file for every commit, and it cannot "
		                  "be used (%s)", v->profiles[0].source, v->reason);
	}
	if (rc) {
		cli_report_error(&err, o.po.json);
		/* Out of memory is this machine at this moment (a larger build, a
		 * busy host), not the configuration: skip the commit, do not
		 * abort the bisection. */
		status = err.code == FG_ENOMEM ? FG_EXIT_SKIP : FG_EXIT_ABORT;
		goto out;
	}
	cli_verdict_warnings(v, getenv(CLI_QUIET_PATTERN_ENV) ? NULL : o.frame);
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
	fg_verdict_judge_free(judge);
	fg_runs_selection_free(sel);
	fg_runs_free(runs);
	fg_repo_free(repo);
	return status;
}
