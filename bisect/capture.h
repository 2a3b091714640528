/* fgbisect — capture mode: a user command that profiles the build at hand.
 *
 * The command runs with `/bin/sh -c` in its own process group, with
 * FGBISECT_OUT naming a fresh empty file in a private temporary folder
 * (mode 0700) where it must write one profile (HTML or collapsed, plain or
 * gzip).  Its standard output goes to the caller's standard error, so that a
 * build's chatter never mixes with fgbisect's own output (--json).  SIGPIPE
 * is restored to its default in the command, whatever the caller ignores. */
#ifndef FG_CAPTURE_H
#define FG_CAPTURE_H

#include <stddef.h>

#include "base/error.h"

typedef struct fg_capture_options {
	double timeout_s;      /* 0: no limit (default); else the process group is killed after it */
	const char *dir;       /* NULL: the current directory; else the command's working directory */
	const char *const *env; /* NULL: "NAME=value" entries added to the command's environment */
	size_t nenv;
} fg_capture_options;

void fg_capture_options_init(fg_capture_options *opts);

/* A finished capture: the profile file the command wrote. */
typedef struct fg_capture fg_capture;

/* Runs the command and waits for it.  FG_EFETCH (the profile could not be
 * obtained; run mode skips the commit) when the command cannot be started,
 * exits non-zero, dies by a signal, outlives the timeout or writes nothing;
 * the message says which.  FG_ENOMEM; FG_EFETCH too when no temporary
 * folder can be made. */
int fg_capture_run(fg_capture **out, const char *command, const fg_capture_options *opts, fg_error *err);

/* The profile the command wrote. */
const char *fg_capture_path(const fg_capture *c);

/* Deletes the profile and its folder. */
void fg_capture_free(fg_capture *c);

/* The profiles captured of one commit, kept in the download cache
 * (src/net/cache.h, in cache_dir; NULL: the default) under keys made of the
 * command, the commit and each capture's number, with their count: what
 * the summary and the report of a capture bisection read again once git
 * bisect run has moved on (no checkout, no second capture).  A later
 * capture of the same commit by the same command replaces them.  FG_EFETCH
 * when the cache cannot be opened or written (the caller may go on
 * without). */
int fg_capture_keep(const char *cache_dir, const char *command, const char *commit, const char *const *paths,
                    size_t n, fg_error *err);

/* The profiles kept of a commit by fg_capture_keep: private copies (each
 * registered with cleanup) that fg_capture_kept_free deletes.  *out NULL
 * and 0 when none is kept (or one is damaged); FG_ENOMEM. */
typedef struct fg_capture_kept fg_capture_kept;

int fg_capture_kept_load(fg_capture_kept **out, const char *cache_dir, const char *command, const char *commit,
                         fg_error *err);
size_t fg_capture_kept_count(const fg_capture_kept *k);
const char *fg_capture_kept_path(const fg_capture_kept *k, size_t i);
void fg_capture_kept_free(fg_capture_kept *k);

#endif
