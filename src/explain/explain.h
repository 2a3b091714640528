/* fgbisect — what explains a window (good, bad]: the frames of the --frame
 * pattern and the frames that grew beyond noise, looked up as hot files and
 * methods, and the decision over those whose change is beyond noise.  The
 * one copy behind `days --repo` and `bisect`.
 *
 * The pattern's own frames (those its matcher accepts in either pooled
 * tree) are grouped by class and method (`Cls.get`, `Cls.lambda$get$0` and
 * `Cls$Inner.get` apart; a lambda's hidden class `Cls$$Lambda.accept` left
 * out: its code is the lambda$ frame below it); a group's share is the share
 * of the samples whose stack holds one of its frames, on each side.  A
 * group enters the decision when it grew beyond noise: by at least
 * FG_DIFF_FLOOR points and by more than its noise (the sampling error of
 * the pooled shares widened by the diff's common over-dispersion) at 5%,
 * Bonferroni over the groups.  The growers of the diff (its significance
 * test, analysis/diff.h) enter it beside them only when the nodes' spread
 * could be measured, and not those on the stacks above the pattern's frames
 * beyond noise (callers: they grew by the pattern's growth; the decision
 * names their changed files as callers when the pattern's did not change):
 * with one profile a side noise cannot be separated from signal, and they
 * are shown, never weighed.  With nothing beyond noise
 * there is no decision (and `no_decision` says why): a suspect is never
 * named from a change that is within noise. */
#ifndef FG_EXPLAIN_H
#define FG_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/diff.h"
#include "explain/growers.h"
#include "explain/hotfiles.h"
#include "git/repo.h"
#include "model/match.h"

typedef struct fg_explain_options {
	const char *good, *bad;   /* the window's revisions (good NULL: no window, no decision) */
	/* The history's options (ignore-revs …); NULL: the defaults with good
	 * and bad above.  Default NULL. */
	const fg_history_options *history;
	const char *frame;        /* the --frame pattern; NULL: growers only.  Default NULL */
	fg_match_options match;   /* how the pattern matches; default substring, normalised names too */
	size_t nhot;              /* growers looked up; default 10 */
	size_t ngroups;           /* the pattern's groups looked up, largest growth first; default 10 */
} fg_explain_options;

void fg_explain_options_init(fg_explain_options *o);

/* One class and method of the pattern. */
typedef struct fg_explain_group {
	uint32_t frame;           /* the frame looked up: the group's name held by the most samples (diff's names) */
	double base, candidate;   /* pooled shares, percent */
	double noise;             /* standard error of the change, points */
	bool weighed;             /* beyond noise: enters the decision */
} fg_explain_group;

typedef struct fg_explain {
	fg_diff_result result;    /* the diff's test */
	fg_growers growers;       /* its first nhot growers */
	bool separable;           /* result.node_df > 0 */
	/* The pattern (frame set): its share on each side and the standard
	 * error of its change, points. */
	double base, candidate, noise;
	fg_explain_group *groups; /* largest growth first, at most ngroups */
	size_t ngroups, ngroups_matched; /* shown, and matched in all */
	size_t weighed;           /* frames the decision weighs: the first of hot.result's frames */
	const char *no_decision;  /* why there is none (static text), or NULL */
	fg_hotfiles hot;          /* the groups' frames, then the growers' */
} fg_explain;

/* Explains diff (its trees kept; names its names) between o->good and
 * o->bad of repo (at dir).  *out is cleared first; free it with
 * fg_explain_clear whatever the result.  Errors: a bad pattern (FG_EUSAGE),
 * the history's. */
int fg_explain_window(fg_explain *out, fg_repo *repo, const char *dir, fg_diff *diff, const fg_names *names,
		      const fg_explain_options *o, fg_error *err);
void fg_explain_clear(fg_explain *e);

/* The pattern's headline into out: "PATTERN: base X% → candidate Y%
 * (+D points ±H)", H the 95% half-width of the change under its noise. */
void fg_explain_headline(char *out, size_t size, const fg_explain *e, const char *pattern);

/* What the growers rest on with one profile a side (result.node_df 0):
 * two lines. */
extern const char fg_explain_not_separable[];

/* Why there is no decision from the growers with one profile a side (every
 * command that explains growers says it so). */
extern const char fg_explain_no_decision_one_side[];

#endif
