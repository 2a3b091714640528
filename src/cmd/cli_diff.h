/* fgbisect command layer: reading the two sides of a diff, as `diff` and
 * `hotfiles BASE CANDIDATE` do — each profile streamed once into the diff,
 * its protocol and event detected, and incomparable profiles refused. */
#ifndef FG_CLI_DIFF_H
#define FG_CLI_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/cli.h"
#include "analysis/diff.h"
#include "analysis/compare.h"
#include "analysis/protocol.h"

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

#endif
