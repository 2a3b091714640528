/* fgbisect — what `run`, `bisect` and `days` set up before judging a
 * commit or a run: the repository, the runs file and the lines it selects,
 * the judge, and where a commit's profiles come from (fg_verdict_source).
 * One call, so that the three commands cannot drift apart; and the run-mode
 * verdict on HEAD, with its checks of a fixed --profile and of a pattern
 * that matches nothing. */
#ifndef FG_JUDGING_H
#define FG_JUDGING_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "git/repo.h"
#include "bisect/runs.h"
#include "bisect/verdict.h"

/* Which repository the command needs. */
enum fg_judging_repo {
	FG_JUDGING_REPO_NONE,     /* none: repo_dir when given, else no repository */
	FG_JUDGING_REPO_REQUIRED, /* the one holding repo_dir (NULL: the current directory) */
	/* run mode: as REQUIRED, but a fixed --profile (one file for every
	 * commit) needs none and is judged outside a repository too */
	FG_JUDGING_REPO_HEAD,
};

typedef struct fg_judging_options {
	/* The judge's options (copied); its fetch must point to fetch. */
	fg_verdict_options verdict;
	/* The caller's fetch options: a runs file fetched by URL becomes their
	 * header_origin (its credentials go to its own origin only). */
	fg_fetch_options *fetch;
	enum fg_judging_repo repo; /* FG_JUDGING_REPO_NONE */
	const char *repo_dir;      /* NULL */
	/* The runs file when profile and capture are NULL: runs, else
	 * runs_env (the caller's $FGBISECT_RUNS), else `git config
	 * fgbisect.runs` of the repository.  runs_local: a runs file fetched
	 * over HTTP may name local files. */
	const char *runs, *runs_env;
	bool runs_local;
	fg_runs_filter filter;     /* fg_runs_filter_init */
	const char *profile;       /* fg_verdict_source's */
	const char *capture;
	double capture_timeout;    /* 0: none */
	size_t capture_repeats;    /* 0: FG_VERDICT_CAPTURE_REPEATS */
	/* Each capture judged (fg_verdict_source's on_capture); NULL: none. */
	void (*on_capture)(void *ctx, size_t k, size_t max, const fg_verdict *v);
	void *capture_ctx;
	/* NULL, or 256 bytes that receive the runs file's fetch warning (an
	 * unusable cache; "" when none), failure or not. */
	char *warning;
} fg_judging_options;

void fg_judging_options_init(fg_judging_options *opts);

typedef struct fg_judging fg_judging;

/* Opens the repository, loads and selects the runs file, makes the judge.
 * FG_EUSAGE when no source is given at all; the repository's, the runs
 * file's and the judge's errors as they come. */
int fg_judging_new(fg_judging **out, const fg_judging_options *opts, fg_error *err);
void fg_judging_free(fg_judging *jd);

/* NULL when none was opened. */
fg_repo *fg_judging_repo(const fg_judging *jd);
/* NULL without a runs file. */
const fg_runs_selection *fg_judging_selection(const fg_judging *jd);
fg_verdict_judge *fg_judging_judge(const fg_judging *jd);
/* Where each commit's profiles come from; lives as long as jd. */
const fg_verdict_source *fg_judging_source(const fg_judging *jd);

/* Run mode: the verdict on HEAD (*head filled; zeroed outside a repository
 * with a fixed --profile).  FG_ECONFIG when a fixed --profile cannot be
 * used (the same for every commit).  With check_pattern, a pattern that
 * matches no frame at HEAD is looked for at the slow end of the bisection
 * in progress (refs/bisect/slow, else refs/bisect/bad) when its profiles
 * can be read without a checkout (runs file, --profile): matching nothing
 * there either is FG_ECONFIG, the message naming the nearest frame names
 * (fg_verdict_judge_suggest). */
int fg_judging_judge_head(fg_verdict **out, fg_repo_commit *head, fg_judging *jd, bool check_pattern,
                          fg_error *err);

#endif
