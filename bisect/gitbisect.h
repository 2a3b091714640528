/* fgbisect — the git-bisect driver behind `fgbisect bisect`: judges both
 * ends (an undecidable end moves inward along the first-parent line to its
 * nearest decidable commit, at most end_steps commits), starts `git bisect` with the terms fast and
 * slow, lets `git bisect run` run the given command (`fgbisect run` with
 * the forwarded options) over the commits in between, reads the first slow
 * commit from `git bisect log`, judges it and its parent, and resets the
 * bisection it started.  It returns data and reports progress through
 * callbacks; it never prints.
 *
 * git runs as a child process (src/base/process.h) at the top of the work tree;
 * `git bisect run` leads a process group of its own so that a signal the
 * caller forwards (on_run_start) reaches the commands it starts.  Not
 * thread-safe: one bisection per process, in the repository's work tree. */
#ifndef FG_GITBISECT_H
#define FG_GITBISECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"
#include "git/repo.h"
#include "bisect/verdict.h"

typedef struct fg_gitbisect_options {
	const char *good, *bad;          /* the revisions the user gave */
	const char *const *run_argv;     /* after "git bisect run": the command and its arguments */
	fg_verdict_judge *judge;
	/* Commits tried past an undecidable end (each a fetch, or a build and
	 * a capture), each end: then the bisection stops with the end
	 * undecidable.  0: FG_GITBISECT_END_STEPS. */
	size_t end_steps;
	/* NULL: the judge's threshold.  Else --threshold auto (the judge's
	 * options): the ends are moved inward past commits with no usable
	 * profile, the threshold put where they separate best
	 * (fg_verdict_auto_threshold), the ends decided at it, the judge set to
	 * it, and "--threshold=T" appended to run_argv; when the ends do not
	 * separate, the outcome is ENDS_NOT_SEPARATED. */
	const fg_verdict_options *auto_threshold;
	const fg_verdict_source *source; /* a capture checks each judged end out (the branch is restored) */
	void *ctx;                       /* handed to every callback */
	/* Each commit judged here (ends, moved ends, the first slow one and its
	 * parent), in order; NULL: none. */
	void (*on_verdict)(void *ctx, const fg_repo_commit *c, const fg_verdict *v);
	/* --threshold auto: the threshold the ends gave, before their verdicts
	 * at it (on_verdict); NULL: none. */
	void (*on_threshold)(void *ctx, const fg_verdict_auto *a);
	/* An undecidable end is moved past; NULL: none. */
	void (*on_move)(void *ctx, bool good_end, const char *id);
	/* git's output (stdout and stderr, and those of what git bisect run
	 * starts) as it comes; NULL: dropped. */
	void (*on_git_output)(void *ctx, const char *data, size_t len);
	/* Just before git bisect run starts: the caller may set what its
	 * children inherit in the environment (secrets that must not reach the
	 * ends' capture commands); false stops the bisection with FG_ENOMEM.
	 * NULL: nothing. */
	bool (*on_run_prepare)(void *ctx);
	/* git bisect run started as process group pid (signals blocked while
	 * this runs, so forwarding armed here cannot miss one); NULL: none. */
	void (*on_run_start)(void *ctx, pid_t pid);
	/* git bisect run returned (the caller ends its signal forwarding and
	 * waits for what the run left); NULL: nothing.  Then interrupted()
	 * says whether the run was stopped: the bisection is reset and the
	 * outcome is INTERRUPTED. */
	void (*on_run_end)(void *ctx, pid_t pid);
	/* Whether the caller was interrupted (a signal came).  Asked before and
	 * after each end is judged (true stops there: the checkout is undone
	 * and the outcome is STOPPED), after git bisect start and after git
	 * bisect run (INTERRUPTED).  NULL: never. */
	bool (*interrupted)(void *ctx);
} fg_gitbisect_options;

void fg_gitbisect_options_init(fg_gitbisect_options *o);

/* The default end_steps: enough to step over a broken build or a missing
 * run or two, not so many that a capture too short to decide anything
 * builds and profiles the whole range one commit at a time. */
#define FG_GITBISECT_END_STEPS 5

typedef enum {
	FG_GITBISECT_FOUND = 0,      /* first_slow is the first slow commit */
	FG_GITBISECT_GOOD_NOT_FAST,  /* refused to start: the good end is slow or undecidable */
	FG_GITBISECT_BAD_NOT_SLOW,   /* refused to start: the bad end is fast or undecidable */
	FG_GITBISECT_START_FAILED,   /* git bisect start failed (a bisection already running?) */
	FG_GITBISECT_INTERRUPTED,    /* interrupted() after git bisect start or run; the bisection was reset */
	FG_GITBISECT_INCONCLUSIVE,   /* git's log names no first slow commit (only skips left) */
	FG_GITBISECT_STOPPED,        /* interrupted() said so while the ends were judged; no bisection started */
	/* Refused to start: the good (bad) end and the end_steps commits tried
	 * past it could not be judged, or none was left (skipped names them);
	 * good (bad) is the last one tried. */
	FG_GITBISECT_GOOD_UNDECIDABLE,
	FG_GITBISECT_BAD_UNDECIDABLE,
	/* --threshold auto: the ends' shares do not differ beyond their noise
	 * (autot says how far apart they are). */
	FG_GITBISECT_ENDS_NOT_SEPARATED,
} fg_gitbisect_outcome;

/* An end that could not be judged and was moved past. */
typedef struct fg_gitbisect_skip {
	char id[41];
	char reason[256];
	bool good_end;     /* moved past from the good end (else the bad one) */
	uint64_t total;    /* the samples its verdict read (0: none read) */
} fg_gitbisect_skip;


typedef struct fg_gitbisect_result {
	/* FOUND, GOOD_NOT_FAST, BAD_NOT_SLOW: the ends' verdicts are decided;
	 * when an end was moved past (skipped), the decided one is another
	 * commit than the one asked for, and says nothing of it. */
	fg_gitbisect_outcome outcome;
	fg_repo_commit good, bad;        /* the ends judged last (moved inward when undecidable) */
	fg_verdict *vgood, *vbad;        /* NULL for an end not judged when STOPPED */
	/* A capture checks the ends out: what HEAD was given back (the branch,
	 * or the commit of a detached HEAD); "" without a capture. */
	char restored[256];
	fg_gitbisect_skip *skipped;      /* in the order they were moved past */
	size_t nskipped;
	char *log;                       /* `git bisect log` (FOUND, INCONCLUSIVE) */
	char first_slow_id[41];          /* FOUND */
	fg_repo_commit first_slow;       /* FOUND */
	/* FOUND: the first slow commit's verdict, and its first parent's
	 * (parent_found false for a root); with a capture, judged on the
	 * captures kept of them (fg_verdict_judge_kept: no checkout, no second
	 * capture; a skip when none is kept). */
	fg_verdict *vfirst_slow, *vparent;
	/* With a capture: the captures their verdicts read (profile i is
	 * capture i), NULL when none was kept. */
	fg_capture_kept *kept_first_slow, *kept_parent;
	bool parent_found;
	fg_repo_commit parent;
	bool auto_on;                    /* --threshold auto ... */
	fg_verdict_auto autot;           /* ... and how it was chosen */
} fg_gitbisect_result;

/* How many of r's skipped ends were moved past from the good (bad) end. */
size_t fg_gitbisect_skipped_from(const fg_gitbisect_result *r, bool good_end);

/* Why a bisection refused to start (GOOD_NOT_FAST, BAD_NOT_SLOW,
 * GOOD_UNDECIDABLE, BAD_UNDECIDABLE, ENDS_NOT_SEPARATED), in one line into
 * out: the end as
 * given (good_rev, bad_rev), its verdict, and when it was moved past, the
 * commits that could not be judged with their reasons and sample counts,
 * the commit that was judged instead and what it does and does not say,
 * and what to change.  "" for another outcome. */
void fg_gitbisect_refusal(char *out, size_t size, const fg_gitbisect_result *r, const char *good_rev,
			  const char *bad_rev, size_t end_steps);

/* Runs the whole bisection in repo's work tree.  Returns 0 with *out filled
 * (free with fg_gitbisect_result_clear) whatever the outcome, or an error:
 * FG_ECONFIG for a bare repository, FG_EGIT when git cannot run, a checkout
 * for --capture fails or git bisect log fails, the judge's errors. */
int fg_gitbisect_run(fg_gitbisect_result *out, fg_repo *repo, const fg_gitbisect_options *opts, fg_error *err);

void fg_gitbisect_result_clear(fg_gitbisect_result *r);

#endif
