/* fgbisect — `perf script` text (Linux perf), folded as FlameGraph's
 * stackcollapse-perf.pl folds it (docs/formats.md), read line by line. */
#ifndef FG_PERFSCRIPT_H
#define FG_PERFSCRIPT_H

#include "io/input.h"
#include "model/profile.h"

/* True when data (the first bytes of an input) start like perf script
 * output: optional '#' header lines, a sample header "comm pid[/tid] …:"
 * and an indented frame line "addr symbol (module)". */
bool fg_perfscript_sniff(const char *data, size_t len);

/* Hands every sample of the first event type in the input (count 1) to fn,
 * the command name as the root-most frame.  Sets info->event and
 * info->unit.  opts: max_depth (NULL: the defaults). */
int fg_perfscript_read(fg_profile_info *info, fg_input *in, fg_names *names, const fg_read_options *opts,
		       fg_stack_fn fn, void *ctx, fg_error *err);

#endif
