/* fgbisect command layer: option tables, in the spirit of git's
 * parse-options.  One table per command drives parsing, `--help`, the
 * `--list-options` listing that bash completion (contrib/fgbisect.bash) and
 * the man-page check (tests/sh/options_docs.sh) read, and what `bisect`
 * forwards to `run`.  A command writes its table as a local array (the
 * entries point at its variables) ending in CLI_OPT_END():
 *
 *     bool self = false;
 *     uint64_t count = 20;
 *     struct cli_profile_options po = { 0 };
 *     const struct cli_option table[] = {
 *         CLI_OPT_U64('n', "count", &count, "N", 0, UINT64_MAX, "how many frames (default 20; 0 = all)"),
 *         CLI_OPT_BOOL(0, "self", &self, "sort by self share"),
 *         CLI_PROFILE_OPTIONS(&po),
 *         CLI_OPT_END(),
 *     };
 *     struct cli_command_spec spec = { "top", "[-n N] [--self] [options] PROFILE", description, table };
 *     int status = cli_parse(&spec, &args, argc, argv);   // CLI_PARSED, or an exit status
 *
 * Values are checked where they are parsed (a number, a range, a percentage)
 * and a bad one is a usage error naming the option.  Under --json a usage
 * error also prints {"error":...} on stdout, as every other error does. */
#ifndef FG_CLI_OPTIONS_H
#define FG_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cli_opt_kind {
	CLI_OPT_KIND_END = 0,
	CLI_OPT_KIND_BOOL,      /* bool *: set true */
	CLI_OPT_KIND_CLEAR,     /* bool *: set false (--no-...) */
	CLI_OPT_KIND_STRING,    /* const char **: the argument (a later one wins) */
	CLI_OPT_KIND_LIST,      /* struct cli_list *: appended (repeatable); cb, when set, checks each */
	CLI_OPT_KIND_U64,       /* uint64_t *, in [min, max] */
	CLI_OPT_KIND_PERCENT,   /* double *, 0-100, a trailing % allowed */
	CLI_OPT_KIND_SIZE,      /* uint64_t *: bytes, K/M/G suffixes, > 0 and at least min */
	CLI_OPT_KIND_SECONDS,   /* double *: seconds, > 0, at most max */
	CLI_OPT_KIND_CALLBACK,  /* cb(opt, arg) returns 0 or an error message */
};

enum {
	CLI_OPT_FORWARD = 1 << 0, /* bisect hands the option on to `fgbisect run` */
	CLI_OPT_PATH = 1 << 1,    /* its argument is a path relative to the current folder */
	CLI_OPT_ONCE = 1 << 2,    /* given twice is a usage error */
	CLI_OPT_HIDDEN = 1 << 3,  /* an old spelling kept working: not in --help nor --list-options */
	CLI_OPT_COMMON = 1 << 4,  /* a profile or fetch option: the man page describes it once */
};

struct cli_option;
/* Returns NULL when arg is fine, else the usage error's message (a static
 * string or one written into msg). */
typedef const char *(*cli_option_fn)(const struct cli_option *opt, const char *arg, char *msg, size_t size);

struct cli_option {
	enum cli_opt_kind kind;
	char short_name;        /* 0: none */
	const char *long_name;  /* NULL: none (END) */
	void *value;
	const char *argname;    /* the argument in --help ("PAT"); NULL: takes none */
	const char *help;       /* one line; "\n" continues it on the next */
	uint64_t min, max;      /* U64 bounds; SIZE: min; SECONDS: max */
	cli_option_fn cb;
	unsigned flags;
	const char *values;     /* CHOICE: the accepted values, "|"-separated ("self|inclusive") */
};

/* Repeatable arguments, in order; items point into argv.  No allocation, so
 * nothing to free whatever way a command ends (more than CLI_LIST_MAX of one
 * option is a usage error). */
#define CLI_LIST_MAX 256
struct cli_list {
	const char *items[CLI_LIST_MAX];
	size_t n;
};

#define CLI_OPT_END() { .kind = CLI_OPT_KIND_END }
#define CLI_OPT_BOOL(s, l, v, h, ...) \
	{ .kind = CLI_OPT_KIND_BOOL, .short_name = (s), .long_name = (l), .value = (v), .help = (h), __VA_ARGS__ }
#define CLI_OPT_CLEAR(s, l, v, h, ...) \
	{ .kind = CLI_OPT_KIND_CLEAR, .short_name = (s), .long_name = (l), .value = (v), .help = (h), __VA_ARGS__ }
#define CLI_OPT_STRING(s, l, v, a, h, ...) \
	{ .kind = CLI_OPT_KIND_STRING, .short_name = (s), .long_name = (l), .value = (v), .argname = (a), \
	  .help = (h), __VA_ARGS__ }
#define CLI_OPT_LIST(s, l, v, a, h, ...) \
	{ .kind = CLI_OPT_KIND_LIST, .short_name = (s), .long_name = (l), .value = (v), .argname = (a), \
	  .help = (h), __VA_ARGS__ }
#define CLI_OPT_U64(s, l, v, a, lo, hi, h, ...) \
	{ .kind = CLI_OPT_KIND_U64, .short_name = (s), .long_name = (l), .value = (v), .argname = (a), \
	  .min = (lo), .max = (hi), .help = (h), __VA_ARGS__ }
#define CLI_OPT_PERCENT(s, l, v, a, h, ...) \
	{ .kind = CLI_OPT_KIND_PERCENT, .short_name = (s), .long_name = (l), .value = (v), .argname = (a), \
	  .help = (h), __VA_ARGS__ }
#define CLI_OPT_SIZE(s, l, v, a, h, ...) \
	{ .kind = CLI_OPT_KIND_SIZE, .short_name = (s), .long_name = (l), .value = (v), .argname = (a), \
	  .help = (h), __VA_ARGS__ }
#define CLI_OPT_SECONDS(s, l, v, a, hi, h, ...) \
	{ .kind = CLI_OPT_KIND_SECONDS, .short_name = (s), .long_name = (l), .value = (v), .argname = (a), \
	  .max = (hi), .help = (h), __VA_ARGS__ }
/* A string checked by cb (enumerations: --aggregate, --protocol, dates). */
#define CLI_OPT_CHECKED(s, l, v, a, fn, h, ...) \
	{ .kind = CLI_OPT_KIND_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), .argname = (a), \
	  .cb = (fn), .help = (h), __VA_ARGS__ }

/* One of a fixed set of words (--color self|inclusive): checked against
 * values, listed by --list-values for completion, named in the usage error. */
#define CLI_OPT_CHOICE(s, l, v, a, vals, h, ...) \
	{ .kind = CLI_OPT_KIND_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), .argname = (a), \
	  .cb = cli_check_choice, .values = (vals), .help = (h), __VA_ARGS__ }
const char *cli_check_choice(const struct cli_option *opt, const char *arg, char *msg, size_t size);

struct cli_command_spec {
	const char *name;          /* "top", or "runs scan" */
	const char *usage_name;    /* NULL, or the name the usage lines show ("[run]") */
	const char *synopsis;      /* usage lines after "usage: fgbisect NAME ", "\n"-separated;
	                            * a line starting with a blank continues the one before */
	const char *description;   /* paragraphs of --help between usage and options */
	const struct cli_option *options;
	const char *epilogue;      /* NULL, or text after the options */
	bool in_order;             /* profiles before "--" are returned in args->before (diff, hotfiles) */
	int usage_status;          /* the status of a usage error: FG_EXIT_USAGE, or FG_EXIT_ABORT in run mode */
};

struct cli_args {
	int argc;                  /* the operands: what follows the options */
	char **argv;
	const char **before;       /* in_order: the operands before "--" (nbefore of them) */
	size_t nbefore;
	bool separated;            /* in_order: "--" was given */
	bool json;                 /* --json was among the options (set even when parsing fails) */
	/* The options given, in order (bisect forwards some to run). */
	const struct cli_option **given;
	const char **given_arg;    /* NULL for an option without argument */
	size_t ngiven;
};

/* Hidden options every command answers (for tools, not users):
 *   --list-options   one option a line ("--frame PAT"), for bash completion;
 *   --man-options    the command's options as man-page source (roff), which
 *                    `fgbisect --man-options` gathers for docs/fgbisect.1;
 *   --man-common     the CLI_OPT_COMMON options of the table as roff;
 *   --list-values O  the values option --O accepts, one a line (none for a
 *                    free-form argument), for bash completion. */

/* The value cli_parse returns when the command should go on. */
#define CLI_PARSED (-1)

/* Parses argv (argv[0] the command's name) by spec.  Returns CLI_PARSED with
 * the operands in *args, or the exit status the command returns at once:
 * 0 after --help or --list-options (printed on stdout), spec->usage_status
 * after a usage error (on stderr "fgbisect NAME: MESSAGE" and a hint; under
 * --json also {"error":...} on stdout). */
int cli_parse(const struct cli_command_spec *spec, struct cli_args *args, int argc, char **argv);
void cli_args_free(struct cli_args *args);

/* "4", "4.5", "4%": a percentage 0-100 into *out; false for anything else. */
bool cli_parse_percent(const char *s, double *out);

/* A usage error found after parsing (a missing operand, options that do not
 * go together): as cli_parse reports one; returns spec->usage_status. */
int cli_spec_usage_error(const struct cli_command_spec *spec, const struct cli_args *args, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The --help text of spec on stdout. */
void cli_print_help(const struct cli_command_spec *spec);

/* The argument of the last given option of that long name, as typed, or
 * NULL when it was not given. */
const char *cli_given_arg(const struct cli_args *args, const char *long_name);

/* The option of spec that has the given long name, or NULL. */
const struct cli_option *cli_find_option(const struct cli_option *table, const char *long_name);

#endif
