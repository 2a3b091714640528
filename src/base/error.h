/* fgbisect — one error record shared by every library function.
 *
 * Library functions return 0 on success or a negative FG_E* code, and fill
 * the caller's fg_error with the code, a one-line message and the input it
 * concerns.  Only the command layer turns a record into stderr text and an
 * exit status (see fg_error_exit_status). */
#ifndef FG_ERROR_H
#define FG_ERROR_H

#include <stddef.h>

enum fg_error_code {
	FG_OK = 0,
	FG_EUSAGE = -1,    /* bad option or argument, refused comparison */
	FG_EINVALID = -2,  /* input is not a valid profile: foreign, truncated, inconsistent, too large */
	FG_EFETCH = -3,    /* could not read or download an input (profile, runs file, rules file) */
	FG_ENOMEM = -4,    /* out of memory */
	FG_EGIT = -5,      /* repository problem (libgit2) */
	FG_ECONFIG = -6,   /* configuration problem (runs file, git config) */
	FG_EINTERNAL = -7, /* a bug */
	FG_EOUTPUT = -8,   /* cannot write the output (a closed pipe, a full disk) */
};

typedef struct fg_error {
	int code;          /* one of enum fg_error_code */
	char source[512];  /* the input the error concerns (path or URL), may be empty */
	char message[1024];/* one line, no trailing newline, no source prefix */
} fg_error;

/* Clears the record. */
void fg_error_clear(fg_error *err);

/* Fills the record (printf-style message) and returns code, so that callers
 * can write `return fg_error_set(err, FG_EINVALID, src, "...")`.  err may be
 * NULL.  source may be NULL. */
int fg_error_set(fg_error *err, int code, const char *source, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Names source as the input the error concerns, keeping the message (cut
 * at a whole UTF-8 character, as fg_error_set cuts).  source may be NULL. */
void fg_error_set_source(fg_error *err, const char *source);

/* fg_error_set(err, FG_ENOMEM, source, "out of memory"): the one message
 * for an allocation that failed.  source may be NULL. */
int fg_error_oom(fg_error *err, const char *source);

/* The exit status (src/base/exitcode.h) for a failure of a non-run command: usage
 * and configuration FG_EXIT_USAGE (2), invalid input FG_EXIT_INVALID (3),
 * fetch and git FG_EXIT_FETCH (4), output FG_EXIT_FAILED (1), other 3. */
int fg_error_exit_status(const fg_error *err);

/* A short name of the code ("usage", "invalid", "fetch", ...), for JSON. */
const char *fg_error_code_name(int code);

#endif
