/* fgbisect command layer: what `run`, `bisect` and `days` share — the
 * judging and source options, where the runs file comes from, and how a
 * verdict is shown. */
#ifndef FG_CLI_BISECT_H
#define FG_CLI_BISECT_H

#include <getopt.h>

#include "cli.h"
#include "fetch.h"
#include "repo.h"
#include "runs.h"
#include "verdict.h"

struct cli_bisect_options {
	struct cli_profile_options po; /* --json, --raw, --reversed, --max-size, fetching */
	const char *frame;
	bool regex;
	double threshold;
	bool have_threshold;
	double margin;                 /* -1: none */
	double noise;                  /* -1: the default */
	enum fg_aggregate aggregate;
	uint64_t min_samples;
	bool have_min_samples;
	const char *node, *protocol, *event;
	const char *runs, *profile, *capture;
	double capture_timeout;        /* 0: none */
};

void cli_bisect_options_init(struct cli_bisect_options *o);

enum {
	CLI_OPT_THRESHOLD = CLI_OPT_FIRST_FREE, CLI_OPT_MARGIN, CLI_OPT_AGGREGATE, CLI_OPT_MIN_SAMPLES,
	CLI_OPT_NODE, CLI_OPT_PROTOCOL, CLI_OPT_EVENT, CLI_OPT_RUNS, CLI_OPT_PROFILE, CLI_OPT_CAPTURE,
	CLI_OPT_CAPTURE_TIMEOUT, CLI_OPT_NOISE, CLI_BISECT_OPT_FIRST_FREE
};

/* --min-samples when a point --aggregate is given without it. */
#define CLI_POINT_MIN_SAMPLES 1000

/* The judging options; every one takes the same meaning in run, bisect and
 * days, and bisect hands them on to run (see cmd_bisect.c). */
#define CLI_JUDGE_LONG_OPTIONS \
	{ "frame", required_argument, NULL, 'f' }, \
	{ "regex", no_argument, NULL, 'E' }, \
	{ "threshold", required_argument, NULL, CLI_OPT_THRESHOLD }, \
	{ "margin", required_argument, NULL, CLI_OPT_MARGIN }, \
	{ "noise", required_argument, NULL, CLI_OPT_NOISE }, \
	{ "aggregate", required_argument, NULL, CLI_OPT_AGGREGATE }, \
	{ "min-samples", required_argument, NULL, CLI_OPT_MIN_SAMPLES }, \
	{ "node", required_argument, NULL, CLI_OPT_NODE }, \
	{ "protocol", required_argument, NULL, CLI_OPT_PROTOCOL }, \
	{ "event", required_argument, NULL, CLI_OPT_EVENT }, \
	{ "runs", required_argument, NULL, CLI_OPT_RUNS }, \
	CLI_PROFILE_LONG_OPTIONS
/* ... plus the sources days does not take. */
#define CLI_BISECT_LONG_OPTIONS \
	CLI_JUDGE_LONG_OPTIONS, \
	{ "profile", required_argument, NULL, CLI_OPT_PROFILE }, \
	{ "capture", required_argument, NULL, CLI_OPT_CAPTURE }, \
	{ "capture-timeout", required_argument, NULL, CLI_OPT_CAPTURE_TIMEOUT }
#define CLI_JUDGE_SHORT_OPTIONS "f:Eh"

#define CLI_JUDGE_OPTIONS_HELP \
	"  -f, --frame PAT       the frame pattern (a substring of the raw or normalised name)\n" \
	"  -E, --regex           PAT is a POSIX extended regular expression\n" \
	"      --threshold PCT   slow when the share is PCT percent or more (required)\n" \
	"                        fast when the whole 95% interval of the pooled share is below\n" \
	"                        it, slow when it is at or above, else undecidable (skip)\n" \
	"      --noise PP        run-to-run noise of a run's share (standard deviation, points;\n" \
	"                        default 6% of the threshold): widens the interval\n" \
	"      --margin PP       also undecidable when the interval is less than PP points\n" \
	"                        from the threshold\n" \
	"      --aggregate HOW   pooled (default: decided with its interval), or the median,\n" \
	"                        mean, min or max of the profiles' shares as a bare point\n" \
	"      --min-samples N   undecidable when a profile has fewer samples (default: none;\n" \
	"                        1000 with a point --aggregate)\n" \
	"      --node N          only the runs-file lines of node N\n" \
	"      --protocol P      only grpc or rest lines (and `-` lines whose profile is P)\n" \
	"      --event E         only lines of event E (default cpu)\n"
#define CLI_SOURCE_OPTIONS_HELP \
	"      --runs FILE|URL   a runs file (default $FGBISECT_RUNS, then git config fgbisect.runs)\n" \
	"      --profile P       one profile per commit: a path or URL where {commit}, {short}\n" \
	"                        and {date} expand to the commit's id, short id and date\n" \
	"      --capture CMD     run CMD (/bin/sh -c, at the top of the work tree) to profile\n" \
	"                        the commit; it writes the profile to the file $FGBISECT_OUT names\n" \
	"      --capture-timeout S  kill CMD's process group after S seconds (a skip)\n"

/* Handles the options above and the profile options; false when opt is
 * none of them.  *status is set to 2 on a malformed argument. */
bool cli_bisect_option(struct cli_bisect_options *o, int opt, const char *arg, const char *cmd, int *status);

/* No argument left after the options (argv[optind..]), --frame and
 * --threshold given, at most one source: 0, else 2 with a message. */
int cli_bisect_check(const struct cli_bisect_options *o, const char *cmd, int argc, char **argv);

/* The verdict and fetch options the command line gives; vo->fetch points to
 * fo. */
void cli_bisect_verdict_options(fg_verdict_options *vo, fg_fetch_options *fo,
                                const struct cli_bisect_options *o);

/* The runs file: --runs, else $FGBISECT_RUNS, else `git config
 * fgbisect.runs` of repo (may be NULL), loaded and filtered.  FG_EUSAGE
 * when none is given; load and selection errors as they come.  A runs file
 * fetched by URL becomes fo->header_origin: its credentials go to its own
 * origin only, not to every host it lists. */
int cli_bisect_load_runs(fg_runs **runs, fg_runs_selection **sel, fg_repo *repo,
                         const struct cli_bisect_options *o, fg_fetch_options *fo, fg_error *err);

/* `fgbisect bisect` hands the secrets of its options to the `fgbisect run`
 * that git bisect run starts through the environment, never through argv:
 * FGBISECT_HEADERS (the --header values, one per line), and a --profile or
 * --runs URL with credentials as FGBISECT_PROFILE / FGBISECT_RUNS.  False
 * on out of memory. */
bool cli_bisect_secrets_to_env(const struct cli_bisect_options *o);

/* In run mode: takes them back (FGBISECT_HEADERS is then removed from the
 * environment, so that a --capture command does not inherit it).  Returns
 * 0, or 255's usage message status when they do not fit. */
int cli_bisect_secrets_from_env(struct cli_bisect_options *o, const char *cmd);

/* Prints one verdict on one line: "COMMIT DATE: node share, ...; pooled
 * share (95% interval lo-hi%: sampling lo-hi%, phi F, noise N pp),
 * threshold T%: VERDICT (reason)"; commit as given. */
void cli_verdict_line(FILE *out, const char *commit, const fg_verdict *v, double threshold);

/* Warnings the verdict carries (fetch, reader), and the mistyped pattern. */
void cli_verdict_warnings(const fg_verdict *v, const char *pattern);

/* {"commit","date","share","ci95","threshold","verdict","reason","basis","pooled","interval","phi","noise",
 *  "noise_source","disagreeing","samples","total","profiles":[...]} */
void cli_verdict_json(FILE *out, const char *commit, const fg_verdict *v, double threshold);

#endif
