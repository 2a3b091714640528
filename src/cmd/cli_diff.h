/* fgbisect command layer: reading the two sides of a diff, as `diff` and
 * `hotfiles BASE CANDIDATE` do — each profile streamed once into the diff,
 * its protocol and event detected, and incomparable profiles refused. */
#ifndef FG_CLI_DIFF_H
#define FG_CLI_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "diff.h"
#include "compare.h"
#include "protocol.h"

/* Splits the profile arguments as `diff` takes them: BASE CANDIDATE, or
 * BASE... -- CANDIDATE... (separated: the arguments before "--" are the
 * bases).  Fills in[] (n = nbases + ncandidates entries, sides set) and
 * returns CLI_PARSED, or reports a usage error of spec and returns its
 * status. */
int cli_diff_sides(fg_compare_input **in, size_t *n, const char *const *bases, size_t nbases,
		   const char *const *candidates, size_t ncandidates, bool separated,
		   const struct cli_command_spec *spec, const struct cli_args *args);

/* Reads every input into d in order (with the protocol detector on the same
 * names), then checks every pair: a gRPC profile against a REST one,
 * different events or different units (samples against bytes) fail with
 * FG_EUSAGE naming both, or with force are reported once as a warning. */
int cli_diff_read(fg_compare_input *in, size_t n, fg_diff *d, fg_names *names,
		  const struct cli_profile_options *po, bool force, fg_error *err);

#endif
