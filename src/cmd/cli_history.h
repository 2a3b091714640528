/* fgbisect command layer: source history and the decision as `hotfiles`,
 * `diff --repo` and `days --repo` show them. */
#ifndef FG_CLI_HISTORY_H
#define FG_CLI_HISTORY_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "analysis/diff.h"
#include "explain/decision.h"
#include "git/history.h"
#include "explain/explain.h"
#include "explain/hotfiles.h"
#include "output/json_writer.h"

/* The history's warnings (fg_history_warning), and one for each file whose
 * history walk reached a shallow clone's boundary (either may be NULL). */
void cli_history_warn(const fg_history *h, const fg_history_result *r);

/* The progress line of a history query ("history: N commits read"): drawn
 * on stderr when it is a terminal, once the query has taken more than a
 * second (a quick one draws nothing). */
typedef struct cli_history_progress {
	struct timespec start;
	bool shown;
} cli_history_progress;
/* Starts p's clock; *fn and *ctx: the callback to hand the history query
 * (fg_history_options.progress), NULL when stderr is not a terminal. */
void cli_history_progress_begin(cli_history_progress *p, fg_history_progress_fn *fn, void **ctx);
/* Erases the line when it was drawn. */
void cli_history_progress_end(const cli_history_progress *p);

/* fg_hotfiles_look_up with the progress line, then cli_history_warn. */
int cli_history_look_up(fg_hotfiles *out, const char *repo, const fg_history_options *opts, bool methods,
			const char *const *frames, size_t nframes, size_t hot_frames, const char *const *stack,
			size_t nstack, fg_error *err);

/* The entries of one frame: [*first, *end) of r, starting at *end. */
void cli_history_next_frame(const fg_history_result *r, size_t *first, size_t *end);

/* One entry as `hotfiles --json` writes it: {"frame","class","path",…}. */
void cli_history_entry_json(fg_json *j, const fg_history_entry *e);
/* One entry in words: the file (or "not in repository"), its last and last
 * meaningful commit, and the window; every line starts with indent. */
void cli_history_entry_text(FILE *out, const fg_history_entry *e, const char *indent);
/* "repo","good","bad","shallow" members (no braces). */
void cli_history_json_members(fg_json *j, const fg_history *h);

/* The decision object {"kind","suspects","callers","build_files","text"},
 * or null. */
void cli_decision_json(fg_json *j, const fg_decision *d);
/* A blank line and the decision's text, or nothing. */
void cli_decision_text(FILE *out, const fg_decision *d);

/* What the growers of r (the first weighed of them looked up, or weighed
 * by the decision) rest on: with one profile a side (r->node_df 0),
 * that noise cannot be separated from signal; the grown frames beyond
 * noise left out by --hot.  Text: nothing when neither holds; JSON: the
 * members "separable" and "not_looked_up" (no braces). */
void cli_growers_note_text(FILE *out, const fg_diff_result *r, size_t weighed);
void cli_growers_note_json(fg_json *j, const fg_diff_result *r, size_t weighed);

/* Why the growers of r decide nothing (one profile a side: they may be
 * differences between nodes), or NULL when they may. */
const char *cli_growers_no_decision(const fg_diff_result *r);

/* What explains a window (explain/explain.h) for `days --repo` and
 * `bisect`: the pattern's share on both sides with its noise and its
 * groups, the hot files, the decision or why there is none, and the
 * growers' note.  Text: each part after a blank line; JSON: the members
 * "pattern" (null without one), "hotfiles", "decision", "no_decision",
 * "separable" and "not_looked_up" (no braces). */
void cli_explain_text(FILE *out, const fg_explain *e, const char *pattern, const fg_names *names);
void cli_explain_json(fg_json *j, const fg_explain *e, const char *pattern, const fg_names *names);
/* Their pattern's part: the headline and the groups (text, after a blank
 * line), the "pattern" member (JSON). */
void cli_explain_pattern_text(FILE *out, const fg_explain *e, const char *pattern, const fg_names *names);
void cli_explain_pattern_json(fg_json *j, const fg_explain *e, const char *pattern, const fg_names *names);

/* The report options (bisect/search_report.h) of a search with options o,
 * explained by e (NULL: not explained): the pattern and threshold, the
 * decision's words (*decision: malloc'ed, free it), the input searched
 * (*input: the runs file, profile or capture command).  0 or FG_ENOMEM. */
struct fg_search_report_options;
struct cli_bisect_options;
int cli_search_report_options(struct fg_search_report_options *ro, char **decision, const char **input,
			      const struct cli_bisect_options *o, const fg_explain *e, fg_error *err);

#endif
