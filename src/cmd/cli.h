/* fgbisect command layer: shared helpers for the one-file-per-subcommand
 * commands.  This layer is the only code that prints or exits. */
#ifndef FG_CLI_H
#define FG_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "base/error.h"
#include "base/exitcode.h"
#include "output/json_writer.h"
#include "cmd/options.h"
#include "model/profile.h"

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

/* s as cli_put_text writes it, for a printf argument: s itself when it holds
 * no control character, else an escaped copy that lives until exit.  NULL
 * gives "". */
const char *cli_text(const char *s);

/* Prints "fgbisect: SOURCE: MESSAGE" on stderr and, when json is set, the
 * design's {"error":{"code","message","source"}} object on stdout.  Returns
 * the exit status the design gives for the error. */
int cli_report_error(const fg_error *err, bool json);

/* The design's error object, {"error":{"code","message","source"}}, as the
 * next value of j (the whole output under --json, or a member's value). */
void cli_error_json(fg_json *j, const fg_error *err);

/* Prints "fgbisect: warning: ..." on stderr, or into the calling thread's
 * sink (cli_warn_to). */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The calling thread's warnings go to sink instead of stderr until
 * cli_warn_to(NULL): a command reading inputs on several threads keeps each
 * input's warnings and prints them in the order the inputs were given. */
void cli_warn_to(FILE *sink);

/* Options every profile-reading command takes. */
struct cli_profile_options {
	bool json;
	bool raw;          /* --raw: no name normalisation */
	bool reversed;     /* --reversed: stacks are leaf-first */
	bool merge_threads; /* --merge-threads: async-profiler's thread frames dropped */
	uint64_t max_size; /* --max-size */
	uint64_t max_line; /* --max-line */
	uint64_t max_depth; /* --max-depth */
	/* Fetching URLs: --header (repeatable), --netrc, --no-cache, --refresh,
	 * --timeout; the headers point into argv. */
	struct cli_list headers;
	struct cli_list header_hosts; /* --header-host */
	bool netrc, no_cache, refresh;
	uint64_t timeout_s; /* 0 = the fetch default */
	/* Formats with more than one graph in them (docs/formats.md); the
	 * strings point into argv. */
	bool threads;            /* --threads: JFR thread frames */
	const char *event;       /* --event: which JFR event */
	const char *sample_type; /* --sample-type: which pprof sample type */
	const char *from, *to;   /* --from, --to: a JFR time window (checked by cli_check_time_bound) */
	bool base_column;        /* --base-column: of collapsed stacks with two counts, the first */
	struct cli_list labels;  /* --label: pprof label keys as frames */
	/* A core is free for this read (no other profile is read at the same
	 * time): a large HTML page (html.h) or a JFR recording of several
	 * chunks (jfr.h) may be read on two threads. */
	bool split;
	/* Where the second thread's part starts (fg_read_options.split_permille;
	 * 0 = the reader's default): set by a command measured to gain from
	 * another cut. */
	uint16_t split_permille;
};

/* The reader options these command-line options give. */
void cli_read_options(fg_read_options *ro, const struct cli_profile_options *o);

/* The fetch options these command-line options give. */
struct fg_fetch_options;
void cli_fetch_options(struct fg_fetch_options *fo, const struct cli_profile_options *o);

/* Table entries (src/cmd/options.h) of the options above.  Every option but
 * --json, --event and --threads is handed on by bisect to run
 * (CLI_OPT_FORWARD). */
const char *cli_check_header_host(const struct cli_option *opt, const char *arg, char *msg, size_t size);
/* --event (cpu, wall, alloc, lock) and --from/--to (seconds "10", "2.5s",
 * "500ms", or a percentage "20%" of the recording). */
const char *cli_check_time_bound(const struct cli_option *opt, const char *arg, char *msg, size_t size);
/* The options of formats that hold more than one graph (docs/formats.md).
 * --event, --threads and --label are not among them (CLI_GRAPH_OPTIONS):
 * run, bisect and days have their own --event (the runs file's, which
 * chooses the JFR event too), and thread or label frames do not change a
 * judged frame's share. */
#define CLI_FORMAT_OPTIONS(po) \
	CLI_OPT_CHECKED(0, "from", &(po)->from, "T", cli_check_time_bound, \
			"JFR: only events from T on, in seconds from the start (10, 2.5s,\n" \
			"500ms) or percent of the recording (20%): --from 20% cuts warm-up", \
			.flags = CLI_OPT_FORWARD | CLI_OPT_COMMON), \
	CLI_OPT_CHECKED(0, "to", &(po)->to, "T", cli_check_time_bound, "JFR: only events before T (as --from)", \
			.flags = CLI_OPT_FORWARD | CLI_OPT_COMMON), \
	CLI_OPT_STRING(0, "sample-type", &(po)->sample_type, "T", \
		       "pprof: the sample type to read (TYPE or TYPE/UNIT; default the\nfirst samples/count or cpu type)", \
		       .flags = CLI_OPT_FORWARD | CLI_OPT_COMMON), \
	CLI_OPT_BOOL(0, "base-column", &(po)->base_column, \
		     "collapsed stacks of two counts a line (stack BASE CURRENT, as\nasync-profiler --diff and " \
		     "difffolded.pl write): read BASE\n(default: CURRENT)", \
		     .flags = CLI_OPT_FORWARD | CLI_OPT_COMMON)
#define CLI_GRAPH_OPTIONS(po) \
	CLI_OPT_CHOICE(0, "event", &(po)->event, "E", "cpu|wall|alloc|lock", \
			"JFR: read the cpu, wall, alloc or lock events (default: the first\npresent)", \
			.flags = CLI_OPT_COMMON), \
	CLI_OPT_BOOL(0, "threads", &(po)->threads, "JFR: a thread frame [name tid=N] under the root, as -t graphs have", \
		     .flags = CLI_OPT_COMMON), \
	CLI_OPT_LIST(0, "label", &(po)->labels, "KEY", \
		     "pprof: a frame [KEY=VALUE] under the root from each sample's\nlabel KEY ([no KEY] without one), " \
		     "as pprof -tagroot;\nrepeatable, the first nearest the root", \
		     .flags = CLI_OPT_COMMON)
#define CLI_FETCH_OPTIONS(po) \
	CLI_OPT_LIST(0, "header", &(po)->headers, "'Name: value'", \
		     "an HTTP header for URLs (repeatable; never printed or cached),\nsent only to the origin " \
		     "of the runs file, the --profile template\nor the URL given", \
		     .flags = CLI_OPT_FORWARD | CLI_OPT_COMMON), \
	CLI_OPT_LIST(0, "header-host", &(po)->header_hosts, "H", "send the headers to host H too (repeatable)", \
		     .cb = cli_check_header_host, .flags = CLI_OPT_FORWARD | CLI_OPT_COMMON), \
	CLI_OPT_BOOL(0, "netrc", &(po)->netrc, "use ~/.netrc credentials for URLs", .flags = CLI_OPT_FORWARD | CLI_OPT_COMMON), \
	CLI_OPT_BOOL(0, "no-cache", &(po)->no_cache, "neither read nor write the download cache", \
		     .flags = CLI_OPT_FORWARD | CLI_OPT_COMMON), \
	CLI_OPT_BOOL(0, "refresh", &(po)->refresh, "download again even when cached", .flags = CLI_OPT_FORWARD | CLI_OPT_COMMON), \
	CLI_OPT_U64(0, "timeout", &(po)->timeout_s, "S", 1, 86400, "give up a download after S seconds (default 300)", \
		    .flags = CLI_OPT_FORWARD | CLI_OPT_COMMON)
/* The reader's buffer starts at 256 KiB: a smaller --max-line could not be
 * told from it. */
#define CLI_READ_OPTIONS(po) \
	CLI_OPT_BOOL(0, "reversed", &(po)->reversed, "the graph holds leaf-first (--reverse) stacks", \
		     .flags = CLI_OPT_FORWARD | CLI_OPT_COMMON), \
	CLI_OPT_BOOL(0, "merge-threads", &(po)->merge_threads, \
		     "drop async-profiler's thread frames [NAME tid=N] (-t profiles):\nthe same code adds up once, " \
		     "not once per thread", .flags = CLI_OPT_FORWARD | CLI_OPT_COMMON), \
	CLI_OPT_SIZE(0, "max-size", &(po)->max_size, "N", \
		     "refuse inputs larger than N bytes decompressed (K, M, G; default 4G)", .flags = CLI_OPT_FORWARD | CLI_OPT_COMMON), \
	CLI_OPT_SIZE(0, "max-line", &(po)->max_line, "N", \
		     "refuse a line longer than N bytes (at least 256K; default 64M)", .min = 256u << 10, \
		     .flags = CLI_OPT_FORWARD | CLI_OPT_COMMON), \
	CLI_OPT_U64(0, "max-depth", &(po)->max_depth, "N", 1, UINT32_MAX, \
		    "refuse a stack of more than N frames (default 1000000)", \
		    .flags = CLI_OPT_FORWARD | CLI_OPT_COMMON), \
	CLI_FORMAT_OPTIONS(po)
/* The profile options of run, bisect and days (no CLI_GRAPH_OPTIONS: their
 * --event is the runs file's, CLI_JUDGE_OPTIONS, and chooses the JFR event). */
#define CLI_JUDGED_PROFILE_OPTIONS(po) \
	CLI_OPT_BOOL(0, "json", &(po)->json, "one JSON object on stdout", .flags = CLI_OPT_COMMON), \
	CLI_OPT_BOOL(0, "raw", &(po)->raw, "compare raw frame names (no normalisation of per-run ids)", \
		     .flags = CLI_OPT_FORWARD | CLI_OPT_COMMON), \
	CLI_READ_OPTIONS(po), \
	CLI_FETCH_OPTIONS(po)
/* -j for a command that reads one profile at a time: with N >= 2 a large
 * HTML page or a JFR recording of several chunks is read on two threads
 * (cli_profile_options.split). */
#define CLI_OPT_READ_JOBS(jobs) \
	CLI_OPT_U64('j', "jobs", jobs, "N", 1, 4096, \
		    "threads to read with (default: one per core; a large\nHTML page or a JFR recording of several chunks is read\non two)")

/* The profile options of a command that reads the profiles it is given. */
#define CLI_PROFILE_OPTIONS(po) \
	CLI_JUDGED_PROFILE_OPTIONS(po), \
	CLI_GRAPH_OPTIONS(po)

/* Reads one profile (a path, "-", or a file://, http:// or https:// URL,
 * downloaded through the cache with a progress line when stderr is a
 * terminal) and streams it to the visitor; warns on stderr
 * about an inverted graph (it may hold reversed stacks) and a collapsed file
 * without a final newline (it may be cut short). */
int cli_read_profile(fg_profile_info *info, const char *source, fg_names *names,
		     const struct cli_profile_options *o, const fg_visitor *visitor, fg_error *err);

/* Warns that pattern matches no frame in any profile and, when source has
 * frame names near it (src/analysis/suggest.h; source is read again: only a
 * mistake pays for it), names the nearest three. */
void cli_warn_unmatched(const char *pattern, const char *source, const struct cli_profile_options *o);

/* SIGINT, SIGTERM and SIGHUP: the registered temporary files are removed
 * and capture process groups killed (src/base/cleanup.h), then the process
 * exits 128 + the signal (130, 143), never dying by the signal itself. */
void cli_signals_install(void);

/* While pgid > 0, such a signal is instead forwarded to process group pgid
 * (SIGTERM) and remembered for cli_signal_pending: the caller then stops
 * what it started and exits.  0 ends the forwarding. */
void cli_signals_forward(pid_t pgid);
/* While on (and nothing is forwarded), such a signal is remembered for
 * cli_signal_pending and the registered process groups (a capture) get
 * SIGTERM: what runs fails soon, and the caller undoes what it changed (a
 * checkout) before it exits. */
void cli_signals_defer(bool on);
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

/* The line that names a profile in text output: "SOURCE  FORMAT[+gzip]
 * TOTAL UNIT", then "  event E" when the profile says and its <h1> title in
 * quotes when it has one (terminal-safe, cli_text). */
void cli_print_profile_line(const char *source, const fg_profile_info *info);

/* The same as members of the object j is in: "unit", "event" (null when the
 * profile does not say), "title" (null without one). */
void cli_json_profile_fields(fg_json *j, const fg_profile_info *info);

/* The progress line fetches draw on a terminal. */
void cli_progress(void *ctx, const char *url, uint64_t done, uint64_t total);


/* Writes the report (src/output/report.h) to the file at path, created or
 * replaced; errors name path. */
struct fg_report;
int cli_write_report(const char *path, const struct fg_report *r, const fg_names *names, fg_error *err);

#endif
