/* fgbisect — the one table of exit statuses (design.md, "Exit codes").
 *
 * Every status fgbisect exits with is named here; the command layer returns
 * these names, the library maps its error codes to them through
 * fg_error_exit_status (src/base/error.h) and its verdicts through
 * fg_verdict_exit_status (bisect/verdict.h).  docs/fgbisect.1, README.md and
 * every --help text give the same table; tests/sh/exit_codes.sh checks that
 * the man page lists each value. */
#ifndef FG_EXITCODE_H
#define FG_EXITCODE_H

enum fg_exit {
	/* Analysis commands (share, top, collapse, protocol, subsystems, diff,
	 * hotfiles, runs, days, bisect). */
	FG_EXIT_OK = 0,
	FG_EXIT_FAILED = 1,     /* the output could not be written; days/bisect: an end is not
	                         * fast or not slow */
	FG_EXIT_USAGE = 2,      /* usage or configuration error, a refused comparison (gRPC vs
	                         * REST, cpu vs alloc), a malformed runs, rules or ignore-revs file,
	                         * a --repo that is no repository, an unknown revision */
	FG_EXIT_INVALID = 3,    /* an input that is not a valid profile (foreign, truncated,
	                         * inconsistent, too large); bisect: only undecidable commits
	                         * are left between the last fast and the first slow one */
	FG_EXIT_FETCH = 4,      /* an input (profile, runs file, rules file) that cannot be read
	                         * or fetched; bisect: git itself failed */

	/* Run mode (fgbisect [run], the git bisect run script). */
	FG_EXIT_FAST = 0,       /* old: below the threshold */
	FG_EXIT_SLOW = 1,       /* new: at or above the threshold */
	FG_EXIT_SKIP = 125,     /* cannot decide for this commit */
	FG_EXIT_ABORT = 255,    /* configuration error, the same for every commit: git bisect run
	                         * aborts (>= 128) instead of marking every commit */
};

/* bisect: only undecidable commits left (the same value as FG_EXIT_INVALID,
 * named for what it says there). */
#define FG_EXIT_INCONCLUSIVE FG_EXIT_INVALID
/* bisect: git failed (the value of FG_EXIT_FETCH, "an input cannot be read"). */
#define FG_EXIT_GIT FG_EXIT_FETCH

#endif
