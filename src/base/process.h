/* fgbisect — the one process launcher (git for `fgbisect bisect`, the
 * capture command).  posix_spawn, never fork: the parent may hold large
 * mappings and libcurl/libgit2 state.  The child gets SIGPIPE back at its
 * default (fgbisect ignores it); it never inherits a pipe end it should not.
 * Reentrant; one child at a time per call, waited for before returning. */
#ifndef FG_PROCESS_H
#define FG_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"

enum fg_process_stdout {
	FG_PROCESS_STDOUT_INHERIT = 0, /* the child writes to our stdout */
	FG_PROCESS_STDOUT_TO_STDERR,   /* the child's stdout goes to our stderr (our stdout is the result) */
	FG_PROCESS_STDOUT_CAPTURE,     /* collected into fg_process_result.output, or handed to
	                              * fg_process_options.on_output as it comes */
};

typedef struct fg_process_options {
	const char *dir;              /* NULL: the child starts in our folder */
	char *const *env;             /* NULL: our environment */
	enum fg_process_stdout out;     /* FG_PROCESS_STDOUT_INHERIT */
	bool own_process_group;       /* false: the child leads a process group of its own, so that
	                               * a timeout reaches what it started too */
	double timeout_s;             /* 0 = none: then SIGTERM to the child's group (or the child),
	                               * SIGKILL a second later */
	bool merge_stderr;            /* false: with CAPTURE, the child's stderr goes into the same pipe */
	/* NULL: with CAPTURE, called with each piece of output as it arrives
	 * (from the calling thread) instead of collecting it. */
	void (*on_output)(void *ctx, const char *data, size_t len);
	void *on_output_ctx;
	/* NULL: called with the child's pid right after it started, while
	 * SIGINT, SIGTERM and SIGHUP are blocked, so that a signal handler the
	 * caller arms here (to forward a signal to the child) cannot miss it. */
	void (*on_start)(void *ctx, pid_t pid);
	void *on_start_ctx;
} fg_process_options;

void fg_process_options_init(fg_process_options *o);

typedef struct fg_process_result {
	int exit_status;   /* the child's exit status, or -1 when killed by a signal */
	int signal;        /* the signal that ended it, or 0 */
	pid_t pid;         /* the child's pid (its process group with own_process_group) */
	bool timed_out;
	char *output;      /* FG_PROCESS_STDOUT_CAPTURE: what it wrote, NUL-terminated (malloc'ed) */
	size_t output_len;
} fg_process_result;

/* Runs argv[0] (searched in PATH when it has no '/') with argv and waits for
 * it.  Returns 0 when the child ran (whatever its status: see *result), or
 * FG_EFETCH when it could not be started or waited for (the message names
 * argv[0]), FG_ENOMEM.  Free result->output with fg_process_result_clear. */
int fg_process_run(fg_process_result *result, const char *const *argv, const fg_process_options *opts, fg_error *err);

void fg_process_result_clear(fg_process_result *r);

#endif
