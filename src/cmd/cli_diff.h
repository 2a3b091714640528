/* fgbisect command layer: reading the two sides of a diff, as `diff` and
 * `hotfiles BASE CANDIDATE` do — each profile streamed once into the diff,
 * its protocol and event detected, and incomparable profiles refused — and
 * printing what `diff` found. */
#ifndef FG_CLI_DIFF_H
#define FG_CLI_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/cli.h"
#include "analysis/diff.h"
#include "analysis/compare.h"
#include "analysis/protocol.h"
#include "explain/hotfiles.h"
#include "metrics/metrics.h"

/* Splits the profile arguments as `diff` takes them: BASE CANDIDATE, or
 * BASE... -- CANDIDATE... (separated: the arguments before "--" are the
 * bases).  Fills in[] (n = nbases + ncandidates entries, sides set) and
 * returns CLI_PARSED, or reports a usage error of spec and returns its
 * status. */
int cli_diff_sides(fg_compare_input **in, size_t *n, const char *const *bases, size_t nbases,
		   const char *const *candidates, size_t ncandidates, bool separated,
		   const struct cli_command_spec *spec, const struct cli_args *args);

/* Reads every input into d (with the protocol detector on the same names),
 * then checks every pair: a gRPC profile against a REST one, different
 * events or different units (samples against bytes) fail with FG_EUSAGE
 * naming both, or with force are reported once as a warning.  With jobs > 1
 * and local files only, the profiles are read on up to jobs threads
 * (fg_diff_part) and added in order, their warnings printed in order: the
 * diff, the output and the error are those of one thread. */
int cli_diff_read(fg_compare_input *in, size_t n, fg_diff *d, fg_names *names,
		  const struct cli_profile_options *po, size_t jobs, bool force, fg_error *err);

/* The first incomparable pair of in[0..n) (fg_compare_find_conflict)
 * refused with FG_EUSAGE naming both and why, or with force warned once. */
int cli_compare_check(const fg_compare_input *in, size_t n, bool force, fg_error *err);

/* What `diff` found, for printing. */
struct cli_diff_shown {
	const fg_compare_input *in;     /* the profiles, in reading order */
	size_t n;
	fg_compare_side sides[2];       /* [FG_DIFF_BASE], [FG_DIFF_CANDIDATE] */
	const fg_diff *diff;
	const fg_names *names;
	const fg_diff_options *opts;
	const fg_diff_result *result;
	const fg_diff_peers *peers;     /* --peers: printed instead of result */
	const fg_hotfiles *hist;        /* --repo: the files and the decision, else NULL */
	bool window;                    /* --good: the window and the decision */
	size_t hot;                     /* --hot */
	bool metrics;                   /* --metrics: the lens, or lens_err */
	const fg_metrics_result *lens;
	const fg_error *lens_err;
	const char *metrics_url;
};

/* s on stdout: the sides, the rule, the lists, the hidden frames, the
 * files, the decision and the lens as text, or one JSON object; with peers
 * the peer scores and the outlier. */
void cli_diff_print(const struct cli_diff_shown *s, bool json);

#endif
