#include "bisect/gitbisect.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/process.h"
#include "base/utf8.h"

void fg_gitbisect_options_init(fg_gitbisect_options *o)
{
	memset(o, 0, sizeof(*o));
}

void fg_gitbisect_result_clear(fg_gitbisect_result *r)
{
	fg_verdict_free(r->vgood);
	fg_verdict_free(r->vbad);
	fg_verdict_free(r->vfirst_slow);
	fg_verdict_free(r->vparent);
	fg_capture_kept_free(r->kept_first_slow);
	fg_capture_kept_free(r->kept_parent);
	free(r->skipped);
	free(r->log);
	memset(r, 0, sizeof(*r));
}

size_t fg_gitbisect_skipped_from(const fg_gitbisect_result *r, bool good_end)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nskipped; i++)
		n += r->skipped[i].good_end == good_end;
	return n;
}

/* Appends to a line that stops growing when full. */
struct line {
	char *s;
	size_t size, len;
};

__attribute__((format(printf, 2, 3))) static void add(struct line *l, const char *fmt, ...)
{
	if (l->len >= l->size)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(l->s + l->len, l->size - l->len, fmt, ap);
	va_end(ap);
	l->len = k < 0 ? l->size : l->len + (size_t)k;
}

/* "ID (reason; N samples)" of one undecidable commit ("ID (reason)" when
 * nothing was read, or when the reason already says how few). */
static void add_undecidable(struct line *l, const char *sep, const char *id, const char *reason, uint64_t total)
{
	if (total >= FG_VERDICT_FEW_SAMPLES)
		add(l, "%s%.12s (%s; %llu samples)", sep, id, reason, (unsigned long long)total);
	else
		add(l, "%s%.12s (%s)", sep, id, reason);
}

void fg_gitbisect_refusal(char *out, size_t size, const fg_gitbisect_result *r, const char *good_rev,
			  const char *bad_rev, size_t end_steps)
{
	struct line l = { out, size, 0 };
	out[0] = '\0';
	if (r->outcome == FG_GITBISECT_ENDS_NOT_SEPARATED) {
		char why[512];
		fg_verdict_auto_describe(why, sizeof(why), &r->autot);
		add(&l, "--threshold auto: %s (--good %s, --bad %s)", why, good_rev, bad_rev);
		return;
	}
	bool good = r->outcome == FG_GITBISECT_GOOD_NOT_FAST || r->outcome == FG_GITBISECT_GOOD_UNDECIDABLE;
	bool undecidable = r->outcome == FG_GITBISECT_GOOD_UNDECIDABLE || r->outcome == FG_GITBISECT_BAD_UNDECIDABLE;
	if (!good && !undecidable && r->outcome != FG_GITBISECT_BAD_NOT_SLOW)
		return;
	const fg_verdict *v = good ? r->vgood : r->vbad;
	const fg_repo_commit *c = good ? &r->good : &r->bad;
	const char *rev = good ? good_rev : bad_rev, *want = good ? "fast" : "slow";
	size_t moved = fg_gitbisect_skipped_from(r, good);
	if (!moved && !undecidable) {
		add(&l, "--%s %s is %s, not %s (%s)", good ? "good" : "bad", rev, fg_verdict_name(v->kind), want,
		    v->reason);
		return;
	}
	/* Never "the good end is slow" of an end that was never judged slow. */
	add(&l, "--%s %s cannot be judged", good ? "good" : "bad", rev);
	size_t tried = undecidable ? moved : moved - 1;
	if (tried)
		add(&l, ", nor the %zu commit%s %s it on the first-parent line", tried, tried == 1 ? "" : "s",
		    good ? "after" : "before");
	const char *sep = ": ";
	for (size_t i = 0; i < r->nskipped; i++)
		if (r->skipped[i].good_end == good) {
			add_undecidable(&l, sep, r->skipped[i].id, r->skipped[i].reason, r->skipped[i].total);
			sep = ", ";
		}
	if (undecidable) {
		add_undecidable(&l, sep, c->id, v->reason, v->total);
		size_t steps = end_steps ? end_steps : FG_GITBISECT_END_STEPS;
		if (moved >= steps)
			add(&l, "; stopped after %zu commits (--end-steps)", moved);
		/* The fewest samples of a commit that was read. */
		uint64_t few = v->total ? v->total : UINT64_MAX;
		for (size_t i = 0; i < r->nskipped; i++)
			if (r->skipped[i].good_end == good && r->skipped[i].total && r->skipped[i].total < few)
				few = r->skipped[i].total;
		if (few < FG_VERDICT_FEW_SAMPLES)
			add(&l, "; so few samples give intervals too wide to decide: profile longer or at a higher "
			    "rate (more samples a capture), or repeat the benchmark inside one capture");
		else if (few == UINT64_MAX)
			add(&l, "; their profiles cannot be used: fix them, or give another --%s", good ? "good" : "bad");
		else
			add(&l, "; their shares are too near the threshold for their interval: choose a threshold "
			    "between the ends' shares (--threshold auto), measure --noise, or add nodes");
		return;
	}
	add(&l, "; the first that can, %.12s, is %s, not %s (%s): the regression is %s it, among commits that "
	    "cannot be judged", c->id, fg_verdict_name(v->kind), want, v->reason, good ? "at or before" : "after");
}

/* One bisection's state. */
struct run {
	const fg_gitbisect_options *o;
	fg_repo *repo;
	const char *work_tree;
	bool own_group; /* the git being run is git bisect run */
	/* --threshold auto before the ends gave it: a verdict that rests on
	 * the threshold is reported (on_verdict) once decided at it. */
	bool deferring;
	bool readable;  /* move_inward stops at a commit with a usable profile, whatever its verdict */
	/* Non-NULL: a capture's verdict is on the captures kept of the commit
	 * (no checkout, no capture), loaded into *kept. */
	fg_capture_kept **kept;
	fg_verdict_options auto_opts;
	char threshold_arg[64];
};

/* git's output as it comes; *last keeps its last byte. */
struct relay {
	const struct run *r;
	char last;
};

static void relay_output(void *ctx, const char *data, size_t len)
{
	struct relay *rl = ctx;
	if (rl->r->o->on_git_output)
		rl->r->o->on_git_output(rl->r->o->ctx, data, len);
	rl->last = data[len - 1];
}

static void run_started(void *ctx, pid_t pid)
{
	const struct run *r = ctx;
	if (r->o->on_run_start)
		r->o->on_run_start(r->o->ctx, pid);
}

/* Runs git with args at the top of the work tree.  With output NULL, its
 * stdout and stderr go to on_git_output in order, ended with a newline when
 * git left the last line open (git bisect's "bisect found first bad commit"
 * has none); else its stdout goes into *output (malloc'ed).  Returns git's
 * exit status (128 + N for a signal), or -1 when it could not run; *pid
 * (may be NULL) receives the child's pid. */
static int git(const struct run *r, char **output, pid_t *pid, const char *const *args)
{
	size_t n = 0;
	while (args[n])
		n++;
	const char **argv = calloc(n + 4, sizeof(*argv));
	if (!argv)
		return -1;
	argv[0] = "git";
	argv[1] = "-C";
	argv[2] = r->work_tree;
	memcpy(argv + 3, args, n * sizeof(*argv));
	fg_process_options po;
	fg_process_options_init(&po);
	po.out = FG_PROCESS_STDOUT_CAPTURE;
	struct relay rl = { r, '\n' };
	if (!output) {
		po.merge_stderr = true;
		po.on_output = relay_output;
		po.on_output_ctx = &rl;
	}
	if (r->own_group) {
		po.own_process_group = true;
		po.on_start = run_started;
		po.on_start_ctx = (void *)r;
	}
	fg_process_result pr;
	fg_error err;
	int status = -1;
	if (fg_process_run(&pr, argv, &po, &err) == 0) {
		status = pr.signal ? 128 + pr.signal : pr.exit_status;
		if (output) {
			*output = pr.output;
			pr.output = NULL;
		}
	}
	if (!output && rl.last != '\n' && r->o->on_git_output)
		r->o->on_git_output(r->o->ctx, "\n", 1);
	if (pid)
		*pid = pr.pid;
	fg_process_result_clear(&pr);
	free(argv);
	return status;
}

/* The caller asked to stop. */
static bool stopped(const struct run *r)
{
	return r->o->interrupted && r->o->interrupted(r->o->ctx);
}

/* Judges a revision; a capture needs its tree checked out, so git checks it
 * out first (the caller restores HEAD). */
static int judge_rev(fg_verdict **v, fg_repo_commit *c, const struct run *r, const char *rev, fg_error *err)
{
	int rc = fg_repo_commit_info(c, r->repo, rev, err);
	if (rc)
		return rc;
	if (r->kept && r->o->source->capture) {
		rc = fg_verdict_load_kept(r->kept, r->o->judge, r->o->source, c->id, err);
		if (!rc)
			rc = fg_verdict_judge_kept(v, r->o->judge, *r->kept, c, err);
	} else if (r->o->source->capture &&
		 git(r, NULL, NULL, (const char *[]){ "checkout", "-q", "--detach", c->id, NULL }) != 0)
		return fg_error_set(err, FG_EGIT, rev, "git checkout failed: the work tree must be clean for --capture");
	else
		rc = fg_verdict_judge_commit(v, r->o->judge, r->o->source, c, err);
	if (!rc && r->o->on_verdict && !(r->deferring && (*v)->basis != FG_BASIS_INPUT))
		r->o->on_verdict(r->o->ctx, c, *v);
	return rc;
}

/* An undecidable end moves inward along the first-parent line from good to
 * bad to its nearest decidable commit, as `days` does with runs (a commit
 * before a fast one is fast, one after a slow one slow: the answer stays
 * right).  *v, *c and *at (its index in line) are replaced by the new
 * end's; the line is good..bad newest first (line[0] is bad); the bad end
 * stays below index stop (the good end's).  At most end_steps commits are
 * tried.  Returns 0 with *v decidable, or still a skip when no commit was. */
static bool undecided(const struct run *r, const fg_verdict *v)
{
	return r->readable ? v->basis == FG_BASIS_INPUT : v->kind == FG_VERDICT_SKIP;
}

static int move_inward(fg_verdict **v, fg_repo_commit *c, size_t *at, const struct run *r, const fg_repo_log *line,
		       bool good_end, size_t stop, fg_gitbisect_result *res, fg_error *err)
{
	size_t n = fg_repo_log_count(line);
	size_t steps = r->o->end_steps ? r->o->end_steps : FG_GITBISECT_END_STEPS;
	steps -= fg_gitbisect_skipped_from(res, good_end) < steps ? fg_gitbisect_skipped_from(res, good_end) : steps;
	size_t k = good_end ? n - *at : *at;
	for (k++; undecided(r, *v) && k < (good_end ? n : stop) && steps && !stopped(r); k++, steps--) {
		size_t i = good_end ? n - k : k;
		fg_gitbisect_skip *s = realloc(res->skipped, (res->nskipped + 1) * sizeof(*s));
		if (!s)
			return fg_error_oom(err, NULL);
		res->skipped = s;
		s += res->nskipped++;
		snprintf(s->id, sizeof(s->id), "%s", c->id);
		snprintf(s->reason, sizeof(s->reason), "%.*s", (int)fg_utf8_fit((*v)->reason, sizeof(s->reason) - 1),
			 (*v)->reason);
		s->good_end = good_end;
		s->total = (*v)->total;
		if (r->o->on_move)
			r->o->on_move(r->o->ctx, good_end, c->id);
		fg_verdict_free(*v);
		*v = NULL;
		int rc = judge_rev(v, c, r, fg_repo_log_at(line, i)->id, err);
		if (rc)
			return rc;
		*at = i;
	}
	return 0;
}

/* Moves the ends inward while undecided (r->readable: while they have no
 * usable profile); the bad end only once the good one is settled. */
static int walk_ends(fg_gitbisect_result *res, const struct run *r, const fg_repo_log *line, size_t *at_good,
		     size_t *at_bad, fg_error *err)
{
	int rc = move_inward(&res->vgood, &res->good, at_good, r, line, true, SIZE_MAX, res, err);
	if (!rc && (r->readable ? res->vgood->basis != FG_BASIS_INPUT : res->vgood->kind == FG_VERDICT_FAST))
		rc = move_inward(&res->vbad, &res->bad, at_bad, r, line, false, *at_good, res, err);
	return rc;
}

/* --threshold auto, once both ends have a usable profile: the threshold,
 * the ends decided at it and reported, the judge and run mode set to it.
 * False when the ends do not separate (the outcome is set). */
static bool take_auto_threshold(fg_gitbisect_result *res, struct run *r)
{
	r->deferring = false;
	res->auto_on = true;
	if (res->vgood->basis == FG_BASIS_INPUT || res->vbad->basis == FG_BASIS_INPUT)
		return true; /* an end that cannot be read: refused as undecidable */
	fg_verdict_auto_threshold(&res->autot, res->vgood, res->vbad, &r->auto_opts);
	if (!res->autot.separated) {
		res->outcome = FG_GITBISECT_ENDS_NOT_SEPARATED;
		return false;
	}
	r->auto_opts.threshold = res->autot.threshold;
	fg_verdict_judge_set_threshold(r->o->judge, res->autot.threshold);
	snprintf(r->threshold_arg, sizeof(r->threshold_arg), "--threshold=%.2f", res->autot.threshold);
	fg_verdict_conclude(res->vgood, &r->auto_opts);
	fg_verdict_conclude(res->vbad, &r->auto_opts);
	if (r->o->on_threshold)
		r->o->on_threshold(r->o->ctx, &res->autot);
	if (r->o->on_verdict) {
		r->o->on_verdict(r->o->ctx, &res->good, res->vgood);
		r->o->on_verdict(r->o->ctx, &res->bad, res->vbad);
	}
	return true;
}

/* Judges both ends, moving an undecidable one inward; the outcome is
 * STOPPED when the caller asks to stop on the way. */
static int judge_ends(fg_gitbisect_result *res, struct run *r, fg_error *err)
{
	/* Both revisions resolved first: a capture checks the good end out,
	 * and "--bad HEAD" must still name the HEAD the user gave. */
	int rc = fg_repo_commit_info(&res->good, r->repo, r->o->good, err);
	if (!rc)
		rc = fg_repo_commit_info(&res->bad, r->repo, r->o->bad, err);
	char bad[41];
	snprintf(bad, sizeof(bad), "%s", res->bad.id);
	r->deferring = r->o->auto_threshold != NULL;
	if (r->deferring)
		r->auto_opts = *r->o->auto_threshold;
	if (!rc && !stopped(r))
		rc = judge_rev(&res->vgood, &res->good, r, res->good.id, err);
	if (!rc && !stopped(r))
		rc = judge_rev(&res->vbad, &res->bad, r, bad, err);
	if (!rc && stopped(r))
		res->outcome = FG_GITBISECT_STOPPED;
	if (rc || res->outcome == FG_GITBISECT_STOPPED ||
	    (!r->deferring && res->vgood->kind != FG_VERDICT_SKIP && res->vbad->kind != FG_VERDICT_SKIP))
		return rc;
	fg_repo_log *line = NULL;
	fg_repo_log_options lo;
	fg_repo_log_options_init(&lo);
	lo.first_parent = true;
	rc = fg_repo_log_range(&line, r->repo, res->good.id, res->bad.id, &lo, err);
	size_t at_good = line ? fg_repo_log_count(line) : 0, at_bad = 0;
	if (!rc && r->deferring) {
		r->readable = true;
		rc = walk_ends(res, r, line, &at_good, &at_bad, err);
		r->readable = false;
		if (!rc && !stopped(r) && !take_auto_threshold(res, r)) {
			fg_repo_log_free(line);
			return 0;
		}
	}
	if (!rc && !stopped(r))
		rc = walk_ends(res, r, line, &at_good, &at_bad, err);
	fg_repo_log_free(line);
	if (!rc && stopped(r))
		res->outcome = FG_GITBISECT_STOPPED;
	return rc;
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

/* git bisect start .. run .. log: the outcome, and the log. */
static int bisect(fg_gitbisect_result *res, struct run *r, fg_error *err)
{
	if (git(r, NULL, NULL, (const char *[]){ "bisect", "start", "--term-old", "fast", "--term-new", "slow",
						 res->bad.id, res->good.id, NULL }) != 0) {
		res->outcome = FG_GITBISECT_START_FAILED;
		return 0;
	}
	int rc = 0;
	if (stopped(r)) /* a signal while git bisect start ran */
		res->outcome = FG_GITBISECT_INTERRUPTED;
	else if (r->o->on_run_prepare && !r->o->on_run_prepare(r->o->ctx))
		rc = fg_error_oom(err, NULL);
	size_t n = 0;
	while (!rc && r->o->run_argv[n])
		n++;
	bool run = !rc && res->outcome != FG_GITBISECT_INTERRUPTED;
	const char **argv = run ? calloc(n + 4, sizeof(*argv)) : NULL;
	if (run && !argv)
		rc = fg_error_oom(err, NULL);
	if (run && argv) {
		argv[0] = "bisect";
		argv[1] = "run";
		memcpy(argv + 2, r->o->run_argv, n * sizeof(*argv));
		if (r->threshold_arg[0])
			argv[2 + n] = r->threshold_arg;
		pid_t pid = 0;
		r->own_group = true;
		git(r, NULL, &pid, argv);
		r->own_group = false;
		if (r->o->on_run_end)
			r->o->on_run_end(r->o->ctx, pid);
		if (stopped(r))
			res->outcome = FG_GITBISECT_INTERRUPTED;
	}
	free(argv);
	if (!rc && res->outcome != FG_GITBISECT_INTERRUPTED &&
	    git(r, &res->log, NULL, (const char *[]){ "bisect", "log", NULL }) != 0)
		rc = fg_error_set(err, FG_EGIT, NULL, "git bisect log failed");
	if (!rc && res->outcome != FG_GITBISECT_INTERRUPTED) {
		first_slow(res->first_slow_id, res->log);
		res->outcome = res->first_slow_id[0] ? FG_GITBISECT_FOUND : FG_GITBISECT_INCONCLUSIVE;
	}
	/* The first slow commit and its parent, judged again: what the summary
	 * shows.  A capture's are the captures git bisect run kept. */
	if (!rc && res->outcome == FG_GITBISECT_FOUND) {
		r->kept = &res->kept_first_slow;
		rc = judge_rev(&res->vfirst_slow, &res->first_slow, r, res->first_slow_id, err);
		r->kept = &res->kept_parent;
		char parent[48];
		snprintf(parent, sizeof(parent), "%s^", res->first_slow_id);
		fg_error perr;
		res->parent_found = !rc && fg_repo_commit_info(&res->parent, r->repo, parent, &perr) == 0;
		if (res->parent_found)
			rc = judge_rev(&res->vparent, &res->parent, r, parent, err);
	}
	r->kept = NULL;
	/* Whatever happened, the bisection this started ends here. */
	git(r, NULL, NULL, (const char *[]){ "bisect", "reset", NULL });
	return rc;
}

int fg_gitbisect_run(fg_gitbisect_result *out, fg_repo *repo, const fg_gitbisect_options *opts, fg_error *err)
{
	memset(out, 0, sizeof(*out));
	struct run r = { .o = opts, .repo = repo, .work_tree = fg_repo_workdir(repo) };
	if (!r.work_tree)
		return fg_error_set(err, FG_ECONFIG, NULL, "git bisect needs a work tree, not a bare repository");
	fg_repo_commit orig;
	int rc = fg_repo_head(&orig, repo, err);
	/* Judging the ends of a capture checks them out: remember the branch
	 * (empty on a detached HEAD) to come back to. */
	char *branch = NULL;
	if (!rc && opts->source->capture &&
	    git(&r, &branch, NULL, (const char *[]){ "symbolic-ref", "-q", "--short", "HEAD", NULL }) < 0)
		rc = fg_error_set(err, FG_EGIT, NULL, "cannot run git");
	if (branch)
		branch[strcspn(branch, "\n")] = '\0';
	if (!rc)
		rc = judge_ends(out, &r, err);
	/* A signal from the terminal also reaches the git checkout in
	 * progress: its failure is the stop's doing. */
	if (rc && stopped(&r)) {
		rc = 0;
		out->outcome = FG_GITBISECT_STOPPED;
	}
	if (opts->source->capture && branch) {
		const char *head = branch[0] ? branch : orig.id;
		if (git(&r, NULL, NULL, (const char *[]){ "checkout", "-q", head, NULL }) == 0)
			snprintf(out->restored, sizeof(out->restored), "%s", head);
	}
	free(branch);
	if (!rc && out->outcome != FG_GITBISECT_STOPPED && out->outcome != FG_GITBISECT_ENDS_NOT_SEPARATED) {
		if (out->vgood->kind == FG_VERDICT_SKIP)
			out->outcome = FG_GITBISECT_GOOD_UNDECIDABLE;
		else if (out->vgood->kind != FG_VERDICT_FAST)
			out->outcome = FG_GITBISECT_GOOD_NOT_FAST;
		else if (out->vbad->kind == FG_VERDICT_SKIP)
			out->outcome = FG_GITBISECT_BAD_UNDECIDABLE;
		else if (out->vbad->kind != FG_VERDICT_SLOW)
			out->outcome = FG_GITBISECT_BAD_NOT_SLOW;
		else
			rc = bisect(out, &r, err);
	}
	if (rc)
		fg_gitbisect_result_clear(out);
	return rc;
}
