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
#include "protocol.h"

struct cli_diff_input {
	const char *location; /* what is read: a path or URL as given */
	const char *source;   /* what is shown: the location without credentials (cli_shown) */
	fg_diff_side side;
	fg_protocol_kind protocol;
	const char *event;   /* NULL when the profile does not say */
	uint64_t total;
};

/* Splits the profile arguments as `diff` takes them: BASE CANDIDATE, or
 * BASE... -- CANDIDATE... (separated: the arguments before "--" are the
 * bases).  Fills in[] (n = nbases + ncandidates entries, sides set) and
 * returns CLI_PARSED, or reports a usage error of spec and returns its
 * status. */
int cli_diff_sides(struct cli_diff_input **in, size_t *n, const char *const *bases, size_t nbases,
		   const char *const *candidates, size_t ncandidates, bool separated,
		   const struct cli_command_spec *spec, const struct cli_args *args);

/* Reads every input into d in order (with the protocol detector on the same
 * names), then checks every pair: a gRPC profile against a REST one, or
 * different events, fail with FG_EUSAGE naming both, or with force are
 * reported once as a warning. */
int cli_diff_read(struct cli_diff_input *in, size_t n, fg_diff *d, fg_names *names,
		  const struct cli_profile_options *po, bool force, fg_error *err);

/* The names of the frames on the grown stacks of the candidate side (the
 * callers of the first n entries of grown, fg_decision_stack_names), the
 * strings owned by names; *out is malloc'ed.  Needs the diff's trees. */
int cli_diff_stack_frames(const char ***out, size_t *nout, const fg_diff *d, const fg_names *names,
			  const fg_diff_entry *grown, size_t n, fg_error *err);

#endif
