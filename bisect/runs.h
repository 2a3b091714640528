/* fgbisect — the runs file: which profiles belong to which daily build.
 *
 * One profile per line, whitespace-separated:
 *
 *     date        commit   node      protocol  event  location
 *     2026-11-01  4f1c2a9  broker-0  grpc      cpu    2026-11-01/broker-0.html
 *
 * `#` at the start of a line or after whitespace starts a comment; blank
 * lines are ignored.  node, protocol and event may be `-`.  A relative
 * location is resolved against the folder or URL of the runs file (see
 * docs/runs-file.md for the exact rules).  A run is the set of lines with the
 * same date and commit. */
#ifndef FG_RUNS_H
#define FG_RUNS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/* A parsed runs file.  Opaque; every string it hands out lives as long as it. */
typedef struct fg_runs fg_runs;

/* One line of the runs file. */
typedef struct fg_runs_line {
	size_t lineno;        /* 1-based line number in the runs file */
	const char *date;     /* YYYY-MM-DD, a real calendar date */
	const char *commit;   /* 4-40 hex digits, lowercased, abbreviated as the file writes it */
	const char *node;     /* NULL for `-` */
	const char *protocol; /* "grpc", "rest", or NULL for `-` (detect from the profile) */
	const char *event;    /* as written ("cpu", "wall", "alloc", "lock", ...), NULL for `-` */
	const char *location; /* as written */
	const char *resolved; /* location resolved against the base: the path or URL to read */
} fg_runs_line;

/* Reads and parses the runs file at the local path.  base is the path or URL
 * relative locations are relative to (the runs file's own path or URL: its
 * folder is used); NULL means path.  base also names the file in error
 * messages, so a runs file downloaded from a URL is reported by its URL.
 *
 * Errors: FG_EFETCH when the file cannot be read, FG_ECONFIG for a malformed
 * line, with source "NAME:LINE" ("runs.txt:7", message "expected 6 fields,
 * got 5"), FG_ENOMEM. */
int fg_runs_load(fg_runs **out, const char *path, const char *base, fg_error *err);

/* Parses a runs file held in memory (len bytes, need not be NUL-terminated).
 * base as for fg_runs_load, but required. */
int fg_runs_parse_buffer(fg_runs **out, const char *buf, size_t len, const char *base, fg_error *err);

void fg_runs_free(fg_runs *runs);

/* The base the locations were resolved against, as given. */
const char *fg_runs_base(const fg_runs *runs);

/* A runs file fetched over HTTP(S) (its base an http:// or https:// URL)
 * may name only HTTP(S) locations, as a web page may not make the browser
 * read a local file: a local file could decide a verdict.  0 when it does
 * (or when the runs file is local); else FG_ECONFIG naming the first line
 * whose resolved location is a local file (a file:// URL), "BASE:LINE". */
int fg_runs_check_remote(const fg_runs *runs, fg_error *err);

/* The lines in file order. */
size_t fg_runs_line_count(const fg_runs *runs);
const fg_runs_line *fg_runs_line_at(const fg_runs *runs, size_t i);

/* Which lines take part in a bisection.  Defaults (fg_runs_filter_init):
 * node NULL and protocol NULL (any), event "cpu".
 *
 * - node: lines of that node only; a `-` node matches no named node.
 * - protocol: lines of that protocol, and lines whose protocol is `-` (the
 *   caller detects their protocol from the profile and must skip the ones
 *   that contradict the filter).
 * - event: lines of that event.  async-profiler profiles cpu unless told
 *   otherwise, so `-`, "itimer" and "ctimer" count as "cpu".  NULL means any
 *   event. */
typedef struct fg_runs_filter {
	const char *node;
	const char *protocol;
	const char *event;
} fg_runs_filter;

void fg_runs_filter_init(fg_runs_filter *filter);

/* The lines of one run that passed the filter, in file order. */
typedef struct fg_runs_run {
	const char *date;
	const char *commit;            /* as its first line writes it */
	const fg_runs_line *const *lines;
	size_t nlines;
} fg_runs_run;

/* The runs that keep at least one line after filtering, sorted by date, then
 * by the line order of their first line.  Points into the fg_runs it was
 * selected from, which must outlive it. */
typedef struct fg_runs_selection fg_runs_selection;

/* Applies the filter.  FG_ECONFIG (the same answer for every commit, so that
 * run mode can abort a bisection) when:
 * - no line passes the filter (a mistyped --node would otherwise skip every
 *   commit);
 * - no protocol filter is given and the selected lines name both grpc and
 *   rest, or no event filter is given and they name two events: shares of
 *   different protocols or events cannot be compared with one threshold, so
 *   the check covers the whole selection, not only each run. */
int fg_runs_select(fg_runs_selection **out, const fg_runs *runs, const fg_runs_filter *filter,
                   fg_error *err);

void fg_runs_selection_free(fg_runs_selection *sel);

size_t fg_runs_selection_count(const fg_runs_selection *sel);
const fg_runs_run *fg_runs_selection_at(const fg_runs_selection *sel, size_t i);

/* The run of a commit.  commit is a full or abbreviated id (4-40 hex digits);
 * a runs-file id matches when either is a prefix of the other, so a short id
 * in the file matches HEAD's full id and an abbreviated query matches a full
 * id in the file.  When the commit has runs on several dates, the newest is
 * used (on one date, the run whose first line comes first).
 *
 * *out is NULL, with 0 returned, when no run matches.  FG_EUSAGE when commit
 * is not a hex id; FG_ECONFIG when it matches runs-file ids that are not
 * prefixes of one another (they name different commits). */
int fg_runs_selection_find(const fg_runs_run **out, const fg_runs_selection *sel, const char *commit,
                           fg_error *err);

/* True when s (len bytes) is an ISO date YYYY-MM-DD of the proleptic
 * Gregorian calendar (2026-02-30 is not). */
bool fg_runs_valid_date(const char *s, size_t len);

#endif
