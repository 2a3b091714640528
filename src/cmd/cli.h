/* fgbisect command layer: shared helpers for the one-file-per-subcommand
 * commands.  This layer is the only code that prints or exits. */
#ifndef FG_CLI_H
#define FG_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "error.h"
#include "profile.h"

/* Every subcommand: int cmd_NAME(int argc, char **argv), argv[0] = its name.
 * Returns the process exit status. */
typedef int (*cli_command_fn)(int argc, char **argv);

struct cli_command {
	const char *name;
	cli_command_fn fn;
	const char *summary; /* one line for `fgbisect --help` */
};

/* Writes text from inputs (frame names, runs-file fields, titles, messages
 * that quote them) for a terminal: control characters (C0, DEL, C1) become
 * \xNN, so that a name cannot move the cursor, clear the screen or retitle
 * the window; everything else, UTF-8 included, as it is. */
void cli_put_text(FILE *out, const char *s);

/* Prints "fgbisect: SOURCE: MESSAGE" on stderr and, when json is set, the
 * design's {"error":{"code","message","source"}} object on stdout.  Returns
 * the exit status the design gives for the error. */
int cli_report_error(const fg_error *err, bool json);

/* Prints "fgbisect CMD: MESSAGE" plus a hint to --help on stderr; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "fgbisect: warning: ..." on stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parses a non-negative decimal / a percentage; false when malformed. */
bool cli_parse_u64(const char *s, uint64_t *out);
bool cli_parse_percent(const char *s, double *out);

/* Options every profile-reading command takes. */
struct cli_profile_options {
	bool json;
	bool raw;          /* --raw: no name normalisation */
	bool reversed;     /* --reversed: stacks are leaf-first */
	uint64_t max_size; /* --max-size */
	uint64_t max_line; /* --max-line */
	/* Fetching URLs: --header (repeatable), --netrc, --no-cache, --refresh,
	 * --timeout; the headers point into argv. */
	const char *headers[16];
	size_t nheaders;
	const char *header_hosts[16]; /* --header-host */
	size_t nheader_hosts;
	bool netrc, no_cache, refresh;
	long timeout_s;    /* 0 = the fetch default */
};

/* The fetch options these command-line options give. */
struct fg_fetch_options;
void cli_fetch_options(struct fg_fetch_options *fo, const struct cli_profile_options *o);

/* Handles --json, --raw, --reversed and --max-size (getopt_long values
 * CLI_OPT_*); returns false when opt is not one of them.  *status is set to
 * 2 when the argument is malformed. */
enum {
	CLI_OPT_JSON = 1000, CLI_OPT_RAW, CLI_OPT_REVERSED, CLI_OPT_MAX_SIZE, CLI_OPT_HEADER, CLI_OPT_NETRC,
	CLI_OPT_NO_CACHE, CLI_OPT_REFRESH, CLI_OPT_TIMEOUT, CLI_OPT_MAX_LINE, CLI_OPT_HEADER_HOST,
	CLI_OPT_FIRST_FREE
};
#define CLI_FETCH_LONG_OPTIONS \
	{ "header", required_argument, NULL, CLI_OPT_HEADER }, \
	{ "header-host", required_argument, NULL, CLI_OPT_HEADER_HOST }, \
	{ "netrc", no_argument, NULL, CLI_OPT_NETRC }, \
	{ "no-cache", no_argument, NULL, CLI_OPT_NO_CACHE }, \
	{ "refresh", no_argument, NULL, CLI_OPT_REFRESH }, \
	{ "timeout", required_argument, NULL, CLI_OPT_TIMEOUT }
#define CLI_PROFILE_LONG_OPTIONS \
	{ "json", no_argument, NULL, CLI_OPT_JSON }, \
	{ "raw", no_argument, NULL, CLI_OPT_RAW }, \
	{ "reversed", no_argument, NULL, CLI_OPT_REVERSED }, \
	{ "max-size", required_argument, NULL, CLI_OPT_MAX_SIZE }, \
	{ "max-line", required_argument, NULL, CLI_OPT_MAX_LINE }, \
	CLI_FETCH_LONG_OPTIONS, \
	{ "help", no_argument, NULL, 'h' }
#define CLI_FETCH_OPTIONS_HELP \
	"      --header 'Name: value'  an HTTP header for URLs (repeatable; never printed or cached),\n" \
	"                      sent only to the origin of the runs file, the --profile template\n" \
	"                      or the URL given\n" \
	"      --header-host H  send the headers to host H too (repeatable)\n" \
	"      --netrc         use ~/.netrc credentials for URLs\n" \
	"      --no-cache      neither read nor write the download cache\n" \
	"      --refresh       download again even when cached\n" \
	"      --timeout S     give up a download after S seconds (default 300)\n"
#define CLI_PROFILE_OPTIONS_HELP \
	"      --json          one JSON object on stdout\n" \
	"      --raw           compare raw frame names (no normalisation of per-run ids)\n" \
	"      --reversed      the graph holds leaf-first (--reverse) stacks\n" \
	"      --max-size N    refuse inputs larger than N bytes decompressed (K, M, G; default 4G)\n" \
	"      --max-line N    refuse a line longer than N bytes (at least 256K; default 64M)\n" \
	CLI_FETCH_OPTIONS_HELP \
	"  -h, --help          this help\n"
bool cli_profile_option(struct cli_profile_options *o, int opt, const char *arg, const char *cmd, int *status);

/* Reads one profile (a path, "-", or a file://, http:// or https:// URL,
 * downloaded through the cache with a progress line when stderr is a
 * terminal) and streams it to the visitor; warns on stderr
 * about an inverted graph (it may hold reversed stacks) and a collapsed file
 * without a final newline (it may be cut short). */
int cli_read_profile(fg_profile_info *info, const char *source, fg_names *names,
		     const struct cli_profile_options *o, const fg_visitor *visitor, fg_error *err);

/* SIGINT, SIGTERM and SIGHUP: the registered temporary files are removed
 * and capture process groups killed (src/cleanup.h), then the process
 * exits 128 + the signal (130, 143), never dying by the signal itself. */
void cli_signals_install(void);

/* While pgid > 0, such a signal is instead forwarded to process group pgid
 * (SIGTERM) and remembered for cli_signal_pending: the caller then stops
 * what it started and exits.  0 ends the forwarding. */
void cli_signals_forward(pid_t pgid);
int cli_signal_pending(void);

/* Waits (at most a few seconds, then SIGKILL) until process group pgid is
 * empty. */
void cli_wait_group(pid_t pgid);

/* True when source is a URL with a user:password@ (or user@) part. */
bool cli_has_credentials(const char *source);

/* A source as it may be shown (printed, put in JSON, an SVG, a warning):
 * any user:password@ removed from a URL.  The string lives until exit.
 * Never NULL (on out of memory: "(source)"). */
const char *cli_shown(const char *source);

/* The progress line fetches draw on a terminal. */
void cli_progress(void *ctx, const char *url, uint64_t done, uint64_t total);

/* JSON output: a string literal with escapes (invalid UTF-8 bytes become
 * U+FFFD so the output is always valid JSON), and a number with fixed
 * decimals (null when it is not finite: JSON has no NaN). */
void cli_json_string(FILE *out, const char *s);
/* A string, or null when s is NULL. */
void cli_json_string_or_null(FILE *out, const char *s);
void cli_json_number(FILE *out, double v, int decimals);

#endif
