/* fgbisect bisect: judges both ends, then lets git bisect drive `fgbisect
 * run` over the commits between them, and summarises.  git's own bisect
 * runs as a subprocess: it owns the bisection state (refs/bisect, the
 * checkouts, the log). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_bisect.h"
#include "commands.h"
#include "exitcode.h"
#include "process.h"

static const char description[] =
	"Judges GOOD and BAD first and refuses to start unless GOOD is fast and BAD slow\n"
	"(a mistyped --frame shows up here).  Then runs\n"
	"  git bisect start --term-old fast --term-new slow BAD GOOD\n"
	"  git bisect run fgbisect run OPTIONS...\n"
	"prints the first slow commit with its share against its parent's, and the\n"
	"bisect log, and ends with git bisect reset.  git's output goes to stderr.\n"
	"\n"
	"Exit status: 0 the first slow commit was found; 1 GOOD is not fast or BAD not\n"
	"slow; 2 usage or configuration error; 3 only undecidable commits are left\n"
	"between the last fast and the first slow one; 4 git failed.\n";

/* The arguments handed on to `fgbisect run`. */
struct forward {
	char **argv;
	size_t argc;
	char *owned[4]; /* absolute paths made here */
	size_t nowned;
};

/* git bisect run starts the script at the top of the work tree: a relative
 * path must be made absolute first. */
static const char *absolute(struct forward *f, const char *arg)
{
	if (arg[0] == '/' || fg_source_is_url(arg) || f->nowned == sizeof(f->owned) / sizeof(f->owned[0]))
		return arg;
	char cwd[4096];
	char *s;
	if (!getcwd(cwd, sizeof(cwd)) || asprintf(&s, "%s/%s", cwd, arg) < 0)
		return arg;
	return f->owned[f->nowned++] = s;
}

/* Appends `--name[=arg]` for every option given that run takes too
 * (CLI_OPT_FORWARD), paths made absolute. */
static bool forward_options(struct forward *f, const struct cli_args *args)
{
	/* Secrets never go into the argv of git bisect run, its shell and
	 * fgbisect run (anyone can read /proc/PID/cmdline, and git echoes the
	 * command): they travel in the environment, which only the user sees
	 * (cli_bisect_secrets_to_env, cli_bisect_secrets_from_env). */
	for (size_t i = 0; i < args->ngiven; i++) {
		const struct cli_option *o = args->given[i];
		const char *arg = args->given_arg[i];
		if (!(o->flags & CLI_OPT_FORWARD) || !strcmp(o->long_name, "header"))
			continue;
		if ((!strcmp(o->long_name, "runs") || !strcmp(o->long_name, "profile")) && cli_has_credentials(arg))
			continue;
		if (o->flags & CLI_OPT_PATH)
			arg = absolute(f, arg);
		char *s;
		int n = arg ? asprintf(&s, "--%s=%s", o->long_name, arg) : asprintf(&s, "--%s", o->long_name);
		if (n < 0)
			return false;
		f->argv[f->argc++] = s;
	}
	return true;
}

static void forward_free(struct forward *f)
{
	for (size_t i = 0; i < f->argc; i++)
		if (i >= 4)
			free(f->argv[i]);
	free(f->argv);
	for (size_t i = 0; i < f->nowned; i++)
		free(f->owned[i]);
}

/* The top of the work tree: `git bisect` runs only there. */
static const char *work_tree;

/* Copies git's output to our stderr as it comes; *ctx keeps its last byte. */
static void relay(void *ctx, const char *data, size_t len)
{
	fwrite(data, 1, len, stderr);
	fflush(stderr);
	*(char *)ctx = data[len - 1];
}

/* Runs git with args at the top of the work tree.  With output NULL, its
 * stdout and stderr (and those of the scripts git bisect run starts) are
 * relayed in order to our stderr, ended with a newline when git left the
 * last line open (git bisect's "bisect found first bad commit" has none, and
 * our next line would be glued to it); else its stdout goes into *output
 * (malloc'ed, NUL-terminated).  Returns git's exit status, or -1 when it
 * could not run. */
/* Set for git bisect run: it gets its own process group, and a SIGINT or
 * SIGTERM to us is forwarded to that group (cli_signals_forward) so that
 * the bisection stops with us instead of going on re-parented. */
static bool git_own_group;

static void forward_signals(void *ctx, pid_t pid)
{
	(void)ctx;
	cli_signals_forward(pid);
}

static int git(char **output, const char *const *args)
{
	size_t n = 0;
	while (args[n])
		n++;
	const char **argv = calloc(n + 4, sizeof(*argv));
	if (!argv)
		return -1;
	argv[0] = "git";
	argv[1] = "-C";
	argv[2] = work_tree ? work_tree : ".";
	memcpy(argv + 3, args, n * sizeof(*argv));
	fg_process_options po;
	fg_process_options_init(&po);
	po.out = FG_PROCESS_STDOUT_CAPTURE;
	if (git_own_group) {
		po.own_process_group = true;
		po.on_start = forward_signals;
	}
	char last = '\n';
	if (!output) {
		po.merge_stderr = true;
		po.on_output = relay;
		po.on_output_ctx = &last;
	}
	fg_process_result r;
	fg_error err;
	int status = -1;
	if (fg_process_run(&r, argv, &po, &err) == 0) {
		status = r.signal ? 128 + r.signal : r.exit_status;
		if (output) {
			*output = r.output;
			r.output = NULL;
		}
	}
	if (!output && last != '\n')
		fputc('\n', stderr);
	if (git_own_group) {
		cli_signals_forward(0);
		if (r.pid > 0 && cli_signal_pending())
			cli_wait_group(r.pid); /* the fgbisect run it started cleans up */
	}
	fg_process_result_clear(&r);
	free(argv);
	return status;
}

/* Judges a revision; a capture needs its tree checked out, so git checks it
 * out first (the caller restores HEAD). */
static int judge_rev(fg_verdict **v, fg_repo_commit *c, fg_verdict_judge *judge, const fg_verdict_source *src,
                     const struct cli_bisect_options *o, fg_repo *repo, const char *rev, fg_error *err)
{
	int rc = fg_repo_commit_info(c, repo, rev, err);
	if (rc)
		return rc;
	if (src->capture && git(NULL, (const char *[]){ "checkout", "-q", "--detach", c->id, NULL }) != 0)
		return fg_error_set(err, FG_EGIT, rev, "git checkout failed: the work tree must be clean for "
		                    "--capture");
	rc = fg_verdict_judge_commit(v, judge, src, c, err);
	if (!rc) {
		cli_verdict_warnings(*v, o->frame);
		fputs("fgbisect: ", stderr);
		cli_verdict_line(stderr, c->id, *v, o->threshold);
	}
	return rc;
}

/* Ends that could not be judged and were moved past. */
struct skipped_ends {
	char (*ids)[41];
	char (*reasons)[256];
	size_t n;
};

/* An undecidable end moves inward along the first-parent line from good to
 * bad to its nearest decidable commit, as `days` does with runs (a commit
 * before a fast one is fast, one after a slow one slow: the answer stays
 * right).  *v, *c and *at (its index in line) are replaced by the new
 * end's; the line is good..bad newest first (line[0] is bad); the bad end
 * stays below index stop (the good end's).  Returns 0 with *v decidable, or
 * still a skip when no commit was. */
static int move_inward(fg_verdict **v, fg_repo_commit *c, size_t *at, fg_verdict_judge *judge,
                       const fg_verdict_source *src, const struct cli_bisect_options *o, fg_repo *repo,
                       const fg_repo_log *line, bool good_end, size_t stop, struct skipped_ends *skipped,
                       fg_error *err)
{
	size_t n = fg_repo_log_count(line);
	for (size_t k = 1; (*v)->kind == FG_VERDICT_SKIP && k < (good_end ? n : stop); k++) {
		size_t i = good_end ? n - k : k;
		char (*ids)[41] = realloc(skipped->ids, (skipped->n + 1) * sizeof(*ids));
		if (ids)
			skipped->ids = ids;
		char (*reasons)[256] = realloc(skipped->reasons, (skipped->n + 1) * sizeof(*reasons));
		if (reasons)
			skipped->reasons = reasons;
		if (!ids || !reasons)
			return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
		snprintf(skipped->ids[skipped->n], 41, "%s", c->id);
		snprintf(skipped->reasons[skipped->n++], 256, "%.*s", (int)fg_utf8_fit((*v)->reason, 255), (*v)->reason);
		fprintf(stderr, "fgbisect bisect: the %s end %.12s cannot be judged; trying %s\n",
		        good_end ? "good" : "bad", c->id, good_end ? "its child on the first-parent line"
		                                           : "its first parent");
		fg_verdict_free(*v);
		*v = NULL;
		int rc = judge_rev(v, c, judge, src, o, repo, fg_repo_log_at(line, i)->id, err);
		if (rc)
			return rc;
		*at = i;
	}
	return 0;
}

/* The first slow commit as git's log names it, "" when the bisection did
 * not conclude. */
static void first_slow(char id[41], const char *log)
{
	const char *p = log ? strstr(log, "# first slow commit: [") : NULL;
	id[0] = '\0';
	if (p)
		sscanf(p + strlen("# first slow commit: ["), "%40[0-9a-f]", id);
}

int cmd_bisect(int argc, char **argv)
{
	struct cli_bisect_options o;
	cli_bisect_options_init(&o);
	const char *good = NULL, *bad = NULL;
	const struct cli_option table[] = {
		CLI_OPT_STRING(0, "good", &good, "REV", "a fast revision"),
		CLI_OPT_STRING(0, "bad", &bad, "REV", "a slow revision"),
		CLI_JUDGE_OPTIONS(&o),
		CLI_SOURCE_OPTIONS(&o),
		CLI_PROFILE_OPTIONS(&o.po),
		CLI_OPT_END(),
	};
	const struct cli_command_spec spec = {
		.name = "bisect", .synopsis = "--good REV --bad REV --frame PAT --threshold PCT\n"
					      " [--runs FILE|URL | --profile P | --capture CMD] [options]",
		.description = description, .options = table, .usage_status = FG_EXIT_USAGE,
	};
	struct cli_args args;
	int status = cli_parse(&spec, &args, argc, argv);
	if (status != CLI_PARSED)
		return status;
	struct forward fw = { .argv = calloc(args.ngiven + 8, sizeof(char *)) };
	char self[4096];
	ssize_t selflen = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[selflen > 0 ? selflen : 0] = '\0';
	if (fw.argv) {
		fw.argv[fw.argc++] = "bisect";
		fw.argv[fw.argc++] = "run";
		fw.argv[fw.argc++] = self;
		fw.argv[fw.argc++] = "run";
	}
	status = cli_bisect_check(&o, &spec, &args);
	if (status == CLI_PARSED && (!good || !bad))
		status = cli_spec_usage_error(&spec, &args, "--good REV and --bad REV are required");
	if (status == CLI_PARSED && selflen <= 0)
		status = cli_spec_usage_error(&spec, &args, "cannot find this program's path in /proc/self/exe");
	if (status == CLI_PARSED && (!fw.argv || !forward_options(&fw, &args)))
		status = cli_report_error(&(fg_error){ .code = FG_ENOMEM, .message = "out of memory" }, o.po.json);
	cli_args_free(&args);
	if (status != CLI_PARSED) {
		forward_free(&fw);
		return status;
	}
	status = 0;
	/* The environment's runs file must survive git's change of folder too. */
	const char *env_runs = getenv("FGBISECT_RUNS");
	if (!o.runs && !o.profile && !o.capture && env_runs && env_runs[0])
		setenv("FGBISECT_RUNS", absolute(&fw, env_runs), 1);

	fg_error err;
	fg_error_clear(&err);
	fg_fetch_options fo;
	fg_verdict_options vo;
	cli_bisect_verdict_options(&vo, &fo, &o);
	fg_repo *repo = NULL;
	fg_runs *runs = NULL;
	fg_runs_selection *sel = NULL;
	fg_verdict_judge *judge = NULL;
	fg_verdict *vgood = NULL, *vbad = NULL, *vslow = NULL, *vparent = NULL;
	fg_repo_commit cgood, cbad, cslow, cparent, orig;
	char *log = NULL;
	bool started = false;
	fg_repo_log *line = NULL;
	struct skipped_ends skipped = { 0 };
	fg_verdict_source src = { .profile = o.profile, .capture = o.capture };
	fg_capture_options_init(&src.capture_opts);
	src.capture_opts.timeout_s = o.capture_timeout;

	int rc = fg_repo_open(&repo, NULL, &err);
	if (!rc)
		rc = fg_repo_head(&orig, repo, &err);
	work_tree = repo ? fg_repo_workdir(repo) : NULL;
	/* Judging the ends of a capture checks them out: remember the branch
	 * (empty on a detached HEAD) to come back to. */
	char *branch = NULL;
	if (!rc && o.capture && git(&branch, (const char *[]){ "symbolic-ref", "-q", "--short", "HEAD", NULL }) < 0)
		rc = fg_error_set(&err, FG_EGIT, NULL, "cannot run git");
	if (branch)
		branch[strcspn(branch, "\n")] = '\0';
	if (!rc && !o.profile && !o.capture) {
		rc = cli_bisect_load_runs(&runs, &sel, repo, &o, &fo, &err);
		src.runs = sel;
	}
	src.capture_opts.dir = work_tree = repo ? fg_repo_workdir(repo) : NULL;
	if (!rc && !work_tree)
		rc = fg_error_set(&err, FG_ECONFIG, NULL, "git bisect needs a work tree, not a bare repository");
	if (!rc)
		rc = fg_verdict_judge_new(&judge, &vo, &err);
	if (!rc)
		rc = judge_rev(&vgood, &cgood, judge, &src, &o, repo, good, &err);
	if (!rc)
		rc = judge_rev(&vbad, &cbad, judge, &src, &o, repo, bad, &err);
	if (!rc && (vgood->kind == FG_VERDICT_SKIP || vbad->kind == FG_VERDICT_SKIP)) {
		fg_repo_log_options lo;
		fg_repo_log_options_init(&lo);
		lo.first_parent = true;
		rc = fg_repo_log_range(&line, repo, cgood.id, cbad.id, &lo, &err);
		size_t at_good = line ? fg_repo_log_count(line) : 0, at_bad = 0;
		if (!rc)
			rc = move_inward(&vgood, &cgood, &at_good, judge, &src, &o, repo, line, true, SIZE_MAX, &skipped,
			                 &err);
		if (!rc && vgood->kind == FG_VERDICT_FAST)
			rc = move_inward(&vbad, &cbad, &at_bad, judge, &src, &o, repo, line, false, at_good, &skipped,
			                 &err);
	}
	if (o.capture && branch)
		git(NULL, (const char *[]){ "checkout", "-q", branch[0] ? branch : orig.id, NULL });
	if (rc) {
		status = cli_report_error(&err, o.po.json);
		goto out;
	}
	if (!vgood->matched && !vbad->matched)
		cli_warn("pattern '%s' matches no frame at either end: is it mistyped?", o.frame);
	if (vgood->kind != FG_VERDICT_FAST || vbad->kind != FG_VERDICT_SLOW) {
		bool good_wrong = vgood->kind != FG_VERDICT_FAST;
		const fg_verdict *v = good_wrong ? vgood : vbad;
		fprintf(stderr, "fgbisect bisect: refusing to start: --%s %s is %s, not %s (%s)\n",
		        good_wrong ? "good" : "bad", good_wrong ? good : bad, fg_verdict_name(v->kind),
		        good_wrong ? "fast" : "slow", v->reason);
		status = FG_EXIT_FAILED;
		goto out;
	}

	if (git(NULL, (const char *[]){ "bisect", "start", "--term-old", "fast", "--term-new", "slow", cbad.id,
	                                cgood.id, NULL }) != 0) {
		fprintf(stderr, "fgbisect bisect: git bisect start failed (is a bisection already running? "
		        "'git bisect reset' ends it)\n");
		status = FG_EXIT_GIT;
		goto out;
	}
	started = true;
	fw.argv[fw.argc] = NULL;
	if (!cli_bisect_secrets_to_env(&o)) {
		fprintf(stderr, "fgbisect bisect: out of memory\n");
		status = 4;
		goto out;
	}
	git_own_group = true;
	git(NULL, (const char *const *)fw.argv);
	git_own_group = false;
	if (cli_signal_pending()) {
		int sig = cli_signal_pending();
		git(NULL, (const char *[]){ "bisect", "reset", NULL });
		started = false;
		fprintf(stderr, "fgbisect bisect: interrupted by %s: stopped git bisect run and reset the bisection "
		        "(git bisect reset)\n", sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal");
		status = 128 + sig;
		goto out;
	}
	if (git(&log, (const char *[]){ "bisect", "log", NULL }) != 0) {
		fprintf(stderr, "fgbisect bisect: git bisect log failed\n");
		status = FG_EXIT_GIT;
		goto out;
	}
	char slow_id[41];
	first_slow(slow_id, log);
	if (!slow_id[0]) {
		fprintf(stderr, "fgbisect bisect: the bisection did not conclude (only undecidable commits left, or "
		        "fgbisect run failed); the log follows\n%s", log);
		status = FG_EXIT_INCONCLUSIVE;
		goto out;
	}
	/* A capture would need the checkouts again: its shares are in the log
	 * of git bisect run above. */
	if (!o.capture) {
		rc = judge_rev(&vslow, &cslow, judge, &src, &o, repo, slow_id, &err);
		char parent[48];
		snprintf(parent, sizeof(parent), "%s^", slow_id);
		if (!rc && fg_repo_commit_info(&cparent, repo, parent, &err) == 0)
			rc = judge_rev(&vparent, &cparent, judge, &src, &o, repo, parent, &err);
		if (rc) {
			status = cli_report_error(&err, o.po.json);
			goto out;
		}
	} else {
		fg_repo_commit_info(&cslow, repo, slow_id, &err);
	}
	if (o.po.json) {
		fg_json j;
		fg_json_init(&j, stdout);
		fg_json_object(&j);
		fg_json_key(&j, "first_slow");
		if (vslow)
			cli_verdict_json(&j, cslow.id, vslow, o.threshold);
		else
			fg_json_string(&j, slow_id);
		fg_json_key(&j, "parent");
		if (vparent)
			cli_verdict_json(&j, cparent.id, vparent, o.threshold);
		else
			fg_json_null(&j);
		fg_json_key(&j, "good");
		cli_verdict_json(&j, cgood.id, vgood, o.threshold);
		fg_json_key(&j, "bad");
		cli_verdict_json(&j, cbad.id, vbad, o.threshold);
		fg_json_key(&j, "skipped_ends");
		fg_json_array(&j);
		for (size_t i = 0; i < skipped.n; i++) {
			fg_json_object(&j);
			fg_json_member_string(&j, "commit", skipped.ids[i]);
			fg_json_member_string(&j, "reason", skipped.reasons[i]);
			fg_json_end(&j);
		}
		fg_json_end(&j);
		fg_json_member_string(&j, "log", log);
		fg_json_end(&j);
	} else {
		for (size_t i = 0; i < skipped.n; i++)
			printf("undecidable end moved past: %.12s (%s)\n", skipped.ids[i], skipped.reasons[i]);
		printf("first slow commit: %s %s %s\n", cslow.id, cslow.date, cslow.subject);
		if (vslow)
			printf("  share %.2f%% (95%% interval %.2f-%.2f%%), %s\n", vslow->share, vslow->interval_lo,
			       vslow->interval_hi, fg_verdict_name(vslow->kind));
		if (vparent && vparent->kind != FG_VERDICT_SKIP)
			printf("  its parent %.12s: %.2f%% (95%% interval %.2f-%.2f%%), %s\n", cparent.id, vparent->share,
			       vparent->interval_lo, vparent->interval_hi, fg_verdict_name(vparent->kind));
		else if (vparent)
			printf("  its parent %.12s: undecidable (%s)\n", cparent.id, vparent->reason);
		printf("\n%s", log);
	}
out:
	if (started)
		git(NULL, (const char *[]){ "bisect", "reset", NULL });
	fg_repo_log_free(line);
	free(skipped.ids);
	free(skipped.reasons);
	free(log);
	free(branch);
	fg_verdict_free(vgood);
	fg_verdict_free(vbad);
	fg_verdict_free(vslow);
	fg_verdict_free(vparent);
	fg_verdict_judge_free(judge);
	fg_runs_selection_free(sel);
	fg_runs_free(runs);
	fg_repo_free(repo);
	forward_free(&fw);
	return status;
}
