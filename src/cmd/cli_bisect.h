/* fgbisect command layer: what `run`, `bisect` and `days` share — the
 * judging and source options, where the runs file comes from, and how a
 * verdict is shown. */
#ifndef FG_CLI_BISECT_H
#define FG_CLI_BISECT_H

#include "output/chart.h"
#include "cmd/cli.h"
#include "output/json_writer.h"
#include "net/fetch.h"
#include "git/repo.h"
#include "bisect/judging.h"
#include "bisect/runs.h"
#include "bisect/verdict.h"

struct cli_bisect_options {
	struct cli_profile_options po; /* --json, --raw, --reversed, --max-size, fetching */
	const char *frame;
	bool regex;
	double threshold;              /* -1 until given (or --threshold auto, until the ends give it) */
	const char *threshold_arg;     /* --threshold as given: a percentage or "auto" */
	bool threshold_auto;           /* --threshold auto */
	double margin;                 /* -1: none */
	double noise;                  /* -1: the default */
	const char *aggregate_name;    /* --aggregate as given, NULL: pooled */
	enum fg_aggregate aggregate;
	uint64_t min_samples;          /* UINT64_MAX until given */
	bool have_min_samples;
	uint64_t min_nodes;            /* 0: the default (fg_verdict_options) */
	const char *node, *protocol, *event;
	const char *runs, *profile, *capture;
	bool runs_local;               /* --runs-local: a runs file fetched over HTTP may name local files */
	double capture_timeout;        /* 0: none */
	uint64_t capture_repeats;      /* 0: the default (FG_VERDICT_CAPTURE_REPEATS) */
	uint64_t jobs;                 /* --jobs; 0: one per core */
};

void cli_bisect_options_init(struct cli_bisect_options *o);

/* Check --aggregate and --threshold (a percentage or auto) values (CLI_OPT_CHECKED). */
const char *cli_check_aggregate(const struct cli_option *opt, const char *arg, char *msg, size_t size);
const char *cli_check_threshold(const struct cli_option *opt, const char *arg, char *msg, size_t size);

/* --min-samples when a point --aggregate is given without it. */
#define CLI_POINT_MIN_SAMPLES 1000

/* The judging options; every one takes the same meaning in run, bisect and
 * days, and bisect hands them on to run (CLI_OPT_FORWARD). */
#define CLI_JUDGE_OPTIONS(o) \
	CLI_OPT_STRING('f', "frame", &(o)->frame, "PAT", \
		       "the frame pattern (a substring of the raw or normalised name)", \
		       .flags = CLI_OPT_FORWARD | CLI_OPT_ONCE), \
	CLI_OPT_BOOL('E', "regex", &(o)->regex, "PAT is a POSIX extended regular expression", \
		     .flags = CLI_OPT_FORWARD), \
	CLI_OPT_CHECKED(0, "threshold", &(o)->threshold_arg, "PCT", cli_check_threshold, \
			"slow when the share is PCT percent or more (required)\n" \
			"fast when the whole 95% interval of the pooled share is below\n" \
			"it, slow when it is at or above, else undecidable (skip);\n" \
			"auto (days, bisect): where the judged ends separate best", .flags = CLI_OPT_FORWARD), \
	CLI_OPT_PERCENT(0, "noise", &(o)->noise, "PP", \
			"run-to-run noise of a run's share (standard deviation, points;\n" \
			"default 6% of the threshold): widens the interval", .flags = CLI_OPT_FORWARD), \
	CLI_OPT_PERCENT(0, "margin", &(o)->margin, "PP", \
			"also undecidable when the interval is less than PP points\nfrom the threshold", \
			.flags = CLI_OPT_FORWARD), \
	CLI_OPT_CHECKED(0, "aggregate", &(o)->aggregate_name, "HOW", cli_check_aggregate, \
			"pooled (default: decided with its interval), or the median,\n" \
			"mean, min or max of the profiles' shares as a bare point", .flags = CLI_OPT_FORWARD), \
	CLI_OPT_U64(0, "min-samples", &(o)->min_samples, "N", 0, UINT64_MAX - 1, \
		    "leave out a profile with fewer samples (default: none;\n1000 with a point --aggregate)", \
		    .flags = CLI_OPT_FORWARD), \
	CLI_OPT_U64(0, "min-nodes", &(o)->min_nodes, "N", 1, 4096, \
		    "judge a run on the profiles read when at least N were (a\n" \
		    "missing or broken one is left out and named); default: a\n" \
		    "majority of those listed and at least 2 (all when fewer)", .flags = CLI_OPT_FORWARD), \
	CLI_OPT_STRING(0, "node", &(o)->node, "N", "only the runs-file lines of node N", .flags = CLI_OPT_FORWARD), \
	CLI_OPT_CHOICE(0, "protocol", &(o)->protocol, "P", "grpc|rest", \
			"only grpc or rest lines (and `-` lines whose profile is P)", .flags = CLI_OPT_FORWARD), \
	CLI_OPT_STRING(0, "event", &(o)->event, "E", "only lines of event E (default cpu)", .flags = CLI_OPT_FORWARD), \
	CLI_OPT_U64('j', "jobs", &(o)->jobs, "N", 1, 4096, \
		    "read N of a build's profiles at a time (default: one per core)", .flags = CLI_OPT_FORWARD)
#define CLI_RUNS_OPTION(o, help) \
	CLI_OPT_STRING(0, "runs", &(o)->runs, "FILE|URL", help, .flags = CLI_OPT_FORWARD | CLI_OPT_PATH), \
	CLI_OPT_BOOL(0, "runs-local", &(o)->runs_local, \
		     "a runs file fetched over HTTP may name local files (file:// URLs);\nrefused without it", \
		     .flags = CLI_OPT_FORWARD)
/* The sources of run and bisect: --runs, --profile, --capture. */
#define CLI_SOURCE_OPTIONS(o) \
	CLI_RUNS_OPTION(o, "a runs file (default $FGBISECT_RUNS, then git config fgbisect.runs)"), \
	CLI_OPT_STRING(0, "profile", &(o)->profile, "P", \
		       "one profile per commit: a path or URL where {commit}, {short}\n" \
		       "and {date} expand to the commit's id, short id and date", \
		       .flags = CLI_OPT_FORWARD | CLI_OPT_PATH), \
	CLI_OPT_STRING(0, "capture", &(o)->capture, "CMD", \
		       "run CMD (/bin/sh -c, at the top of the work tree) to profile\n" \
		       "the commit; it writes the profile to the file $FGBISECT_OUT names", .flags = CLI_OPT_FORWARD), \
	CLI_OPT_SECONDS(0, "capture-timeout", &(o)->capture_timeout, "S", 86400 * 7, \
			"kill CMD's process group after S seconds (a skip)", .flags = CLI_OPT_FORWARD), \
	CLI_OPT_U64(0, "capture-repeats", &(o)->capture_repeats, "N", 1, 100, \
		    "capture an undecidable commit again, up to N captures in all,\n" \
		    "pooled as the nodes of one run (default 3)", .flags = CLI_OPT_FORWARD)

/* After parsing: no operand left, --frame and --threshold given, at most one
 * source, --aggregate resolved: CLI_PARSED, else the usage error's status. */
int cli_bisect_check(struct cli_bisect_options *o, const struct cli_command_spec *spec,
		     const struct cli_args *args);

/* The verdict and fetch options the command line gives; vo->fetch points to
 * fo. */
void cli_bisect_verdict_options(fg_verdict_options *vo, fg_fetch_options *fo,
                                const struct cli_bisect_options *o);

/* The command line's judging set-up (fg_judging_new): *vo and *fo filled
 * from o (vo->fetch points to fo, which a runs file by URL or a --profile
 * URL gives its header_origin), the runs file from --runs, else
 * $FGBISECT_RUNS, else `git config fgbisect.runs`; its fetch warning
 * printed. */
int cli_bisect_judging(fg_judging **out, const struct cli_bisect_options *o, fg_verdict_options *vo,
                       fg_fetch_options *fo, enum fg_judging_repo repo, const char *repo_dir, fg_error *err);

/* `fgbisect bisect` hands the secrets of its options to the `fgbisect run`
 * that git bisect run starts through the environment, never through argv:
 * FGBISECT_HEADERS (the --header values, one per line), and a --profile or
 * --runs URL with credentials as FGBISECT_PROFILE / FGBISECT_RUNS.  False
 * on out of memory. */
bool cli_bisect_secrets_to_env(const struct cli_bisect_options *o);

/* In run mode: takes them back (FGBISECT_HEADERS is then removed from the
 * environment, so that a --capture command does not inherit it).  Returns
 * CLI_PARSED, or the usage error's status when they do not fit. */
int cli_bisect_secrets_from_env(struct cli_bisect_options *o, const struct cli_command_spec *spec,
				const struct cli_args *args);

/* Prints one verdict on one line: "COMMIT DATE: node share, ...; pooled
 * share (95% interval lo-hi%: sampling lo-hi%, phi F, noise N pp),
 * threshold T%: VERDICT (reason)"; commit as given. */
void cli_verdict_line(FILE *out, const char *commit, const fg_verdict *v, double threshold);

/* Warnings the verdict carries (fetch, reader), and the mistyped pattern
 * (pattern NULL: not that one) with the frame names near it. */
void cli_verdict_warnings(const fg_verdict *v, const fg_verdict_judge *judge, const char *pattern);

/* "pattern 'P' matches no frame WHERE: is it mistyped?", and the frame
 * names near it of every profile the judge read. */
void cli_warn_pattern(const char *pattern, const char *where, const fg_verdict_judge *judge);

/* Set by `fgbisect bisect` for the run mode git bisect run starts: the
 * mistyped-pattern warning was said once for the bisection. */
#define CLI_QUIET_PATTERN_ENV "FGBISECT_QUIET_PATTERN"

/* "threshold_auto": {"threshold","good","bad","good_sd","bad_sd","distance"}, or null without
 * --threshold auto (a NULL). */
void cli_auto_threshold_json(fg_json *j, const fg_verdict_auto *a);

/* {"commit","date","share","ci95","threshold","verdict","reason","basis","pooled","interval","phi","noise",
 *  "noise_source","disagreeing","samples","total","profiles":[...]} */
void cli_verdict_json(fg_json *j, const char *commit, const fg_verdict *v, double threshold);

#endif
