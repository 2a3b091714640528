/* fgbisect command layer: shared helpers for the one-file-per-subcommand
 * commands.  This layer is the only code that prints or exits. */
#ifndef FG_CLI_H
#define FG_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

/* Every subcommand: int cmd_NAME(int argc, char **argv), argv[0] = its name.
 * Returns the process exit status. */
typedef int (*cli_command_fn)(int argc, char **argv);

struct cli_command {
	const char *name;
	cli_command_fn fn;
	const char *summary; /* one line for `fgbisect --help` */
};

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

/* JSON output: a string literal with escapes (invalid UTF-8 bytes become
 * U+FFFD so the output is always valid JSON), and a number with fixed
 * decimals. */
void cli_json_string(FILE *out, const char *s);
void cli_json_number(FILE *out, double v, int decimals);

#endif
