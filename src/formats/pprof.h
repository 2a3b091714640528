/* fgbisect — pprof profiles (profile.proto: Go's runtime/pprof, async-profiler's
 * jfrconv -o pprof, continuous-profiling exports), plain or gzip.
 *
 * A small hand-written protobuf wire reader (varints, length-delimited
 * fields, fixed 32/64-bit fields skipped; groups refused), bounded by the
 * input: every length is checked against the bytes left. */
#ifndef FG_PPROF_H
#define FG_PPROF_H

#include "io/input.h"
#include "model/profile.h"

/* Hands every sample's value of the sample type opts->sample_type ("TYPE" or
 * "TYPE/UNIT"; default: the first samples or cpu type, else the profile's
 * default type, else the first) to fn as a stack, root first; locations with inlined
 * functions expand to one frame per function, callers first, as the pprof
 * tool shows them.  Labels are ignored.  With stop (fg_stop_fn, ctx its
 * context; may be NULL), a sample's locations are taken from its leaf up to
 * the first whose frames hold one stop says ends the stack, and the stack is
 * handed partial (the rest of its location ids checked, not expanded into
 * frames).  Sets info->event and info->unit.  The input is read once, the
 * samples kept in a record (front-coded: at most 32 MiB, and a quarter of
 * the samples past their first MiB) until the tables after them are read;
 * read a second time (fg_input_rewind, or the message held whole for a
 * pipe) with --label, past those bounds or at a malformed sample: the
 * stacks and errors are the same either way. */
int fg_pprof_read(fg_profile_info *info, fg_input *in, fg_names *names, const fg_read_options *opts,
		  fg_stack_fn fn, fg_stop_fn stop, void *ctx, fg_error *err);

/* fg_pprof_read() with the record its first pass keeps of the samples (so
 * that the input is read once) bounded at record_max bytes instead of
 * 32 MiB: 0 keeps none, and the samples are read in a second pass, as with
 * --label or when the record would grow larger.  For the tests, which
 * compare the two ways. */
int fg_pprof_read_bounded(fg_profile_info *info, fg_input *in, fg_names *names, const fg_read_options *opts,
			  fg_stack_fn fn, fg_stop_fn stop, void *ctx, size_t record_max, fg_error *err);

/* True when data (the first bytes of an input) look like a protobuf whose
 * first field is a pprof sample type. */
bool fg_pprof_sniff(const unsigned char *data, size_t len);

#endif
