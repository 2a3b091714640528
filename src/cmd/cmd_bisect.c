/* fgbisect bisect: the options, the arguments of the `fgbisect run` that
 * git bisect run starts, one call of the driver (bisect/gitbisect.h), the
 * summary.  git's own bisect owns the bisection state (refs/bisect, the
 * checkouts, the log). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli_bisect.h"
#include "cmd/cli_diff.h"
#include "cmd/cli_history.h"
#include "cmd/commands.h"
#include "base/exitcode.h"
#include "bisect/gitbisect.h"
#include "model/names.h"
#include "bisect/search_report.h"

static const char description[] =
	"Judges GOOD and BAD first and refuses to start unless GOOD is fast and BAD slow\n"
	"(a mistyped --frame shows up here).  Then runs\n"
	"  git bisect start --term-old fast --term-new slow BAD GOOD\n"
	"  git bisect run fgbisect run OPTIONS...\n"
	"prints the first slow commit with its share against its parent's, and the\n"
	"bisect log, and ends with git bisect reset.  git's output goes to stderr.\n"
	"The first slow commit is explained as days --repo explains its window: the\n"
	"--frame pattern's frames and the frames that grew, its parent's profiles against\n"
	"its own, looked up in (parent, first slow], the decision over those beyond noise.\n"
	"\n"
	"An end that cannot be judged moves inward along the first-parent line, at most\n"
	"--end-steps commits; --threshold auto puts the threshold where the judged ends\n"
	"separate best.\n"
	"\n"
	"Exit status: 0 the first slow commit was found; 1 GOOD is not fast or BAD not\n"
	"slow (or cannot be judged, or with --threshold auto the ends do not differ\n"
	"beyond their noise); 2 usage or configuration error; 3 only undecidable commits\n"
	"are left between the last fast and the first slow one; 4 git failed.\n";

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
	if (arg[0] == '/' || fg_url_is(arg) || f->nowned == sizeof(f->owned) / sizeof(f->owned[0]))
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
		/* The driver hands on the threshold the ends gave. */
		if (!strcmp(o->long_name, "threshold") && !strcmp(arg, "auto"))
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
	for (size_t i = 2; i < f->argc; i++) /* after this program and "run": the options */
		free(f->argv[i]);
	free(f->argv);
	for (size_t i = 0; i < f->nowned; i++)
		free(f->owned[i]);
}

/* The driver's callbacks: progress on stderr, signals forwarded to git
 * bisect run's process group. */
struct progress {
	struct cli_bisect_options *o;
	const fg_verdict_judge *judge;
	bool matched; /* the pattern matched a frame at a judged commit */
	bool read;    /* a judged commit had a profile read */
};

static void on_verdict(void *ctx, const fg_repo_commit *c, const fg_verdict *v)
{
	struct progress *p = ctx;
	/* The mistyped-pattern warning is said once, after the ends (below). */
	cli_verdict_warnings(v, p->judge, NULL);
	p->matched |= v->matched;
	p->read |= v->nread > 0;
	fputs("fgbisect: ", stderr);
	cli_verdict_line(stderr, c->id, v, p->o->threshold);
}

static void on_threshold(void *ctx, const fg_verdict_auto *a)
{
	struct progress *p = ctx;
	char why[512];
	fg_verdict_auto_describe(why, sizeof(why), a);
	p->o->threshold = a->threshold;
	fprintf(stderr, "fgbisect bisect: threshold auto: %s\n", why);
}

static void on_move(void *ctx, bool good_end, const char *id)
{
	(void)ctx;
	fprintf(stderr, "fgbisect bisect: the %s end %.12s cannot be judged; trying %s\n", good_end ? "good" : "bad",
		id, good_end ? "its child on the first-parent line" : "its first parent");
}

static void on_git_output(void *ctx, const char *data, size_t len)
{
	(void)ctx;
	fwrite(data, 1, len, stderr);
	fflush(stderr);
}

static bool on_run_prepare(void *ctx)
{
	const struct progress *p = ctx;
	/* From here to git bisect reset a signal must not end the process
	 * before the bisection is reset: it stops git bisect run (forwarded)
	 * or, outside it, is acted on when the step in progress ends. */
	cli_signals_defer(true);
	/* The ends told whether the pattern may be mistyped: the run mode git
	 * starts at each commit does not say it again (at a healthy commit the
	 * regressed frame may well match nothing). */
	return setenv(CLI_QUIET_PATTERN_ENV, "1", 1) == 0 && cli_bisect_secrets_to_env(p->o);
}

static void on_run_start(void *ctx, pid_t pid)
{
	(void)ctx;
	cli_signals_forward(pid);
	if (cli_signal_pending()) /* it came just before: forward it now */
		kill(-pid, SIGTERM);
}

static void on_run_end(void *ctx, pid_t pid)
{
	(void)ctx;
	cli_signals_forward(0);
	if (cli_signal_pending() && pid > 0)
		cli_wait_group(pid); /* the fgbisect run it started cleans up */
}

static bool interrupted(void *ctx)
{
	(void)ctx;
	return cli_signal_pending() != 0;
}

static const char *signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

/* What explains the first slow commit: its parent's profiles against its
 * own (the report's flame graph), looked up in the window (parent, first
 * slow] (explain/explain.h); nothing when they were not judged or cannot
 * be read again (a warning). */
struct explained {
	fg_names *names;
	fg_diff *diff;
	const char **sources[2];
	fg_svg_options so;
	fg_explain e;
	bool done;
};

static fg_diff *parent_diff(const fg_gitbisect_result *r, fg_names *names, const struct cli_bisect_options *o,
			    const char **sources[2], fg_svg_options *so);

static void explain_first_slow(struct explained *x, const fg_gitbisect_result *r, fg_repo *repo,
			       const struct cli_bisect_options *o)
{
	fg_svg_options_init(&x->so);
	fg_error err;
	if (r->outcome != FG_GITBISECT_FOUND || !r->vparent || !r->vfirst_slow || r->vparent->kind == FG_VERDICT_SKIP)
		return;
	if (fg_names_new(&x->names, &err) || !(x->diff = parent_diff(r, x->names, o, x->sources, &x->so)))
		return;
	fg_explain_options eo;
	fg_explain_options_init(&eo);
	eo.good = r->parent.id;
	eo.bad = r->first_slow.id;
	eo.frame = o->frame;
	eo.match.regex = o->regex;
	fg_history_options ho;
	fg_history_options_init(&ho);
	ho.good = eo.good;
	ho.bad = eo.bad;
	eo.history = &ho;
	cli_history_progress hp;
	cli_history_progress_begin(&hp, &ho.progress, &ho.progress_ctx);
	int rc = fg_explain_window(&x->e, repo, NULL, x->diff, x->names, &eo, &err);
	cli_history_progress_end(&hp);
	if (rc)
		cli_warn("the first slow commit is not explained: %s", err.message);
	else
		x->done = true;
	cli_history_warn(x->e.hot.history, x->e.hot.result);
}

static void explained_clear(struct explained *x)
{
	fg_explain_clear(&x->e);
	fg_diff_free(x->diff);
	fg_names_free(x->names);
	free(x->sources[0]);
	free(x->sources[1]);
}

static void print_json(const fg_gitbisect_result *r, const struct cli_bisect_options *o, const struct explained *x)
{
	fg_json j;
	fg_json_init(&j, stdout);
	fg_json_object(&j);
	fg_json_key(&j, "first_slow");
	if (r->vfirst_slow)
		cli_verdict_json(&j, r->first_slow.id, r->vfirst_slow, o->threshold);
	else
		fg_json_string(&j, r->first_slow_id);
	fg_json_key(&j, "parent");
	if (r->vparent)
		cli_verdict_json(&j, r->parent.id, r->vparent, o->threshold);
	else
		fg_json_null(&j);
	fg_json_key(&j, "good");
	cli_verdict_json(&j, r->good.id, r->vgood, o->threshold);
	fg_json_key(&j, "bad");
	cli_verdict_json(&j, r->bad.id, r->vbad, o->threshold);
	fg_json_key(&j, "skipped_ends");
	fg_json_array(&j);
	for (size_t i = 0; i < r->nskipped; i++) {
		fg_json_object(&j);
		fg_json_member_string(&j, "commit", r->skipped[i].id);
		fg_json_member_string(&j, "reason", r->skipped[i].reason);
		fg_json_end(&j);
	}
	fg_json_end(&j);
	cli_auto_threshold_json(&j, r->auto_on ? &r->autot : NULL);
	fg_json_member_string(&j, "log", r->log);
	if (x->done)
		cli_explain_json(&j, &x->e, o->frame, x->names);
	fg_json_end(&j);
}

static void print_text(const fg_gitbisect_result *r, const struct cli_bisect_options *o, const struct explained *x)
{
	for (size_t i = 0; i < r->nskipped; i++)
		printf("undecidable end moved past: %.12s (%s)\n", r->skipped[i].id, r->skipped[i].reason);
	printf("first slow commit: %s %s %s\n", r->first_slow.id, r->first_slow.date, cli_text(r->first_slow.subject));
	const fg_verdict *vs = r->vfirst_slow, *vp = r->vparent;
	if (vs)
		printf("  share %.2f%% (95%% interval %.2f-%.2f%%), %s\n", vs->share, vs->interval_lo, vs->interval_hi,
		       fg_verdict_name(vs->kind));
	if (vp && vp->kind != FG_VERDICT_SKIP)
		printf("  its parent %.12s: %.2f%% (95%% interval %.2f-%.2f%%), %s\n", r->parent.id, vp->share,
		       vp->interval_lo, vp->interval_hi, fg_verdict_name(vp->kind));
	else if (vp)
		printf("  its parent %.12s: undecidable (%s)\n", r->parent.id, vp->reason);
	if (x->done)
		cli_explain_text(stdout, &x->e, o->frame, x->names);
	printf("\n%s", r->log);
}

/* The differential flame graph of the first slow commit's parent against
 * it, from the profiles their verdicts read; NULL (and a warning) when they
 * cannot be read again. */
static fg_diff *parent_diff(const fg_gitbisect_result *r, fg_names *names, const struct cli_bisect_options *o,
			    const char **sources[2], fg_svg_options *so)
{
	const fg_verdict *side[2] = { r->vparent, r->vfirst_slow };
	/* A capture's profiles are read again from the captures kept. */
	const fg_capture_kept *kept[2] = { r->kept_parent, r->kept_first_slow };
	size_t n = 0;
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; side[s] && i < side[s]->nprofiles; i++)
			n += side[s]->profiles[i].read;
	if (!side[0] || !side[1] || !n)
		return NULL;
	fg_compare_input *in = calloc(n, sizeof(*in));
	sources[0] = calloc(n, sizeof(*sources[0]));
	sources[1] = calloc(n, sizeof(*sources[1]));
	fg_diff_options dopts;
	fg_diff_options_init(&dopts);
	dopts.trees = true;
	dopts.raw = o->po.raw;
	fg_diff *d = NULL;
	fg_error err;
	int rc = in && sources[0] && sources[1] ? fg_diff_new(&d, names, &dopts, &err)
						 : fg_error_oom(&err, NULL);
	size_t k = 0, count[2] = { 0, 0 };
	for (int s = 0; !rc && s < 2; s++)
		for (size_t i = 0; i < side[s]->nprofiles; i++) {
			const fg_verdict_profile *p = &side[s]->profiles[i];
			if (!p->read)
				continue;
			const char *at = kept[s] ? fg_capture_kept_path(kept[s], i) : p->source;
			in[k++] = (fg_compare_input){ .location = at, .source = p->source, .side = (fg_diff_side)s };
			sources[s][count[s]++] = p->source;
		}
	if (!rc)
		rc = cli_diff_read(in, k, d, names, &o->po, 1, true, &err);
	if (!rc) {
		so->base = (fg_svg_side){ sources[0], count[0], side[0]->profiles[0].detected, NULL };
		so->candidate = (fg_svg_side){ sources[1], count[1], side[1]->profiles[0].detected, NULL };
	}
	free(in);
	if (rc) {
		cli_warn("the profiles of the first slow commit and its parent cannot be read again (no explanation, no flame graph): %s", err.message);
		fg_diff_free(d);
		return NULL;
	}
	return d;
}

/* --html: the report of the bisection (bisect/search_report.h), with the
 * flame graph of the first slow commit's parent against it. */
static int write_report(const char *path, const fg_gitbisect_result *r, const struct cli_bisect_options *o,
			const char *good, const char *bad, size_t end_steps, const struct explained *x, fg_error *err)
{
	char *decision = NULL;
	const char *input;
	fg_search_report_options ro;
	if (cli_search_report_options(&ro, &decision, &input, o, x->done ? &x->e : NULL, err))
		return FG_ENOMEM;
	int rc = fg_search_report_bisect(path, r, good, bad, end_steps, x->diff, &x->so, x->names, &ro, err);
	free(decision);
	return rc;
}

/* The outcome's status, with what it means on stderr. */
static int report_outcome(const fg_gitbisect_result *r, const char *good, const char *bad, size_t end_steps)
{
	char why[4096];
	fg_gitbisect_refusal(why, sizeof(why), r, good, bad, end_steps);
	if (why[0]) {
		fprintf(stderr, "fgbisect bisect: refusing to start: ");
		cli_put_text(stderr, why);
		fputc('\n', stderr);
		return FG_EXIT_FAILED;
	}
	switch (r->outcome) {
	case FG_GITBISECT_START_FAILED:
		fprintf(stderr, "fgbisect bisect: git bisect start failed (is a bisection already running? "
			"'git bisect reset' ends it)\n");
		return FG_EXIT_GIT;
	case FG_GITBISECT_INTERRUPTED: {
		int sig = cli_signal_pending();
		fprintf(stderr, "fgbisect bisect: interrupted by %s: stopped git bisect run and reset the bisection "
			"(git bisect reset)\n", signal_name(sig));
		return 128 + sig;
	}
	case FG_GITBISECT_STOPPED: {
		int sig = cli_signal_pending();
		fprintf(stderr, "fgbisect bisect: interrupted by %s while judging the ends: stopped the capture",
			signal_name(sig));
		if (r->restored[0])
			fprintf(stderr, " and checked out %s again; no bisection was started\n", cli_text(r->restored));
		else
			fputs("; HEAD could not be checked out again (see git's message above)\n", stderr);
		return 128 + sig;
	}
	case FG_GITBISECT_INCONCLUSIVE:
		fprintf(stderr, "fgbisect bisect: the bisection did not conclude (only undecidable commits left, or "
			"fgbisect run failed); the log follows\n%s", r->log ? r->log : "");
		return FG_EXIT_INCONCLUSIVE;
	default: /* FOUND */
		break;
	}
	return FG_EXIT_OK;
}

/* The arguments of the `fgbisect run` git bisect run starts: this
 * program, "run" and the forwarded options.  False with a usage error's
 * status in *status. */
static bool forward_make(struct forward *fw, const struct cli_command_spec *spec, const struct cli_args *args,
			 const struct cli_bisect_options *o, int *status)
{
	static char self[4096];
	ssize_t selflen = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[selflen > 0 ? selflen : 0] = '\0';
	*fw = (struct forward){ .argv = calloc(args->ngiven + 4, sizeof(char *)) };
	if (fw->argv) {
		fw->argv[fw->argc++] = self;
		fw->argv[fw->argc++] = "run";
	}
	if (selflen <= 0)
		*status = cli_spec_usage_error(spec, args, "cannot find this program's path in /proc/self/exe");
	else if (!fw->argv || !forward_options(fw, args))
		*status = cli_report_error(&(fg_error){ .code = FG_ENOMEM, .message = "out of memory" }, o->po.json);
	else
		return true;
	return false;
}

/* The driver's options: the ends, the run command, the callbacks. */
static void driver_options(fg_gitbisect_options *go, const char *good, const char *bad, uint64_t end_steps,
			   const struct forward *fw, struct progress *p, fg_judging *jd, const fg_verdict_options *vo)
{
	fg_gitbisect_options_init(go);
	go->good = good;
	go->bad = bad;
	go->end_steps = (size_t)end_steps;
	go->run_argv = (const char *const *)fw->argv;
	go->ctx = p;
	go->on_verdict = on_verdict;
	go->on_move = on_move;
	go->on_threshold = on_threshold;
	go->auto_threshold = p->o->threshold_auto ? vo : NULL;
	go->on_git_output = on_git_output;
	go->on_run_prepare = on_run_prepare;
	go->on_run_start = on_run_start;
	go->on_run_end = on_run_end;
	go->interrupted = interrupted;
	if (jd) {
		go->source = fg_judging_source(jd);
		go->judge = fg_judging_judge(jd);
		p->judge = go->judge;
	}
}

int cmd_bisect(int argc, char **argv)
{
	struct cli_bisect_options o;
	cli_bisect_options_init(&o);
	const char *good = NULL, *bad = NULL, *html = NULL;
	uint64_t end_steps = FG_GITBISECT_END_STEPS;
	const struct cli_option table[] = {
		CLI_OPT_STRING(0, "good", &good, "REV", "a fast revision"),
		CLI_OPT_STRING(0, "bad", &bad, "REV", "a slow revision"),
		CLI_OPT_U64(0, "end-steps", &end_steps, "N", 0, 100000,
			    "commits tried past an undecidable end, each end, before\n"
			    "stopping with the reasons (default 5)"),
		CLI_OPT_STRING(0, "html", &html, "OUT",
			       "also write the report: one self-contained HTML page with the\njudged commits' shares "
			       "against the threshold, the first slow\ncommit, and the flame graph of its parent "
			       "against it"),
		CLI_JUDGE_OPTIONS(&o),
		CLI_SOURCE_OPTIONS(&o),
		CLI_JUDGED_PROFILE_OPTIONS(&o.po),
		CLI_OPT_END(),
	};
	const struct cli_command_spec spec = {
		.name = "bisect", .synopsis = "--good REV --bad REV --frame PAT --threshold PCT\n"
					      " [--runs FILE|URL | --profile P | --capture CMD] [options]",
		.description = description, .options = table, .usage_status = FG_EXIT_USAGE,
	};
	struct cli_args args;
	struct forward fw = { 0 };
	int status = cli_parse(&spec, &args, argc, argv);
	if (status != CLI_PARSED)
		return status;
	status = cli_bisect_check(&o, &spec, &args);
	if (status == CLI_PARSED && (!good || !bad))
		status = cli_spec_usage_error(&spec, &args, "--good REV and --bad REV are required");
	if (status == CLI_PARSED)
		forward_make(&fw, &spec, &args, &o, &status);
	cli_args_free(&args);
	if (status != CLI_PARSED) {
		forward_free(&fw);
		return status;
	}
	/* The environment's runs file must survive git's change of folder too. */
	const char *env_runs = getenv("FGBISECT_RUNS");
	if (!o.runs && !o.profile && !o.capture && env_runs && env_runs[0])
		setenv("FGBISECT_RUNS", absolute(&fw, env_runs), 1);

	fg_error err;
	fg_error_clear(&err);
	fg_fetch_options fo;
	fg_verdict_options vo;
	fg_judging *jd = NULL;
	fg_gitbisect_result res = { 0 };
	struct explained explained = { 0 };
	struct progress progress = { &o, NULL, false, false };
	fg_gitbisect_options go;
	int rc = cli_bisect_judging(&jd, &o, &vo, &fo, FG_JUDGING_REPO_REQUIRED, NULL, &err);
	driver_options(&go, good, bad, end_steps, &fw, &progress, jd, &vo);
	/* A capture checks the ends out: a signal then stops the capture and
	 * lets the driver check HEAD out again before the command exits.
	 * Without one, a signal while the ends are judged (downloads) ends the
	 * process at once, with its temporary files removed. */
	cli_signals_defer(o.capture != NULL);
	if (!rc)
		rc = fg_gitbisect_run(&res, fg_judging_repo(jd), &go, &err);
	cli_signals_defer(false);
	if (rc) {
		status = cli_report_error(&err, o.po.json);
	} else if (res.outcome == FG_GITBISECT_STOPPED) {
		status = report_outcome(&res, good, bad, go.end_steps);
	} else {
		if (progress.read && !progress.matched)
			cli_warn_pattern(o.frame, "at either end", go.judge);
		status = report_outcome(&res, good, bad, go.end_steps);
		explain_first_slow(&explained, &res, fg_judging_repo(jd), &o);
		/* The report first: when it cannot be written, that is the error. */
		if (html && res.outcome != FG_GITBISECT_START_FAILED && res.outcome != FG_GITBISECT_INTERRUPTED &&
		    write_report(html, &res, &o, good, bad, go.end_steps, &explained, &err))
			status = cli_report_error(&err, o.po.json);
		else if (res.outcome == FG_GITBISECT_FOUND && o.po.json)
			print_json(&res, &o, &explained);
		else if (res.outcome == FG_GITBISECT_FOUND)
			print_text(&res, &o, &explained);
	}
	int sig = cli_signal_pending();
	if (sig && res.outcome != FG_GITBISECT_STOPPED && res.outcome != FG_GITBISECT_INTERRUPTED) {
		/* It came while git bisect log or reset ran: the answer is whole. */
		fprintf(stderr, "fgbisect bisect: interrupted by %s as the bisection ended\n", signal_name(sig));
		status = 128 + sig;
	}
	explained_clear(&explained);
	fg_gitbisect_result_clear(&res);
	fg_judging_free(jd);
	forward_free(&fw);
	return status;
}
