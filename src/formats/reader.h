/* fgbisect — reading a profile: the format is sniffed from the content
 * (async-profiler HTML of every generation, collapsed stacks, JFR, pprof,
 * perf script, SVG flame graphs; plain or gzip), the reader for it runs over
 * one fg_input, and leaf-first stacks are rebuilt root-first.  The readers
 * (html.h, collapsed.h, jfr.h, ...) depend on the model (profile.h) only;
 * this is the one module that knows them all.  Reentrant: one call reads
 * one profile. */
#ifndef FG_READER_H
#define FG_READER_H

#include <stddef.h>

#include "base/error.h"
#include "model/names.h"
#include "model/profile.h"

/* Reads the profile at path ("-" = stdin) and streams it to the visitor.
 * Fails with FG_EINVALID for anything that is not a complete, consistent
 * profile; what was already visited is then to be discarded. */
int fg_reader_read(fg_profile_info *info, const char *path, fg_names *names,
		    const fg_read_options *opts, const fg_visitor *visitor, fg_error *err);

/* The same from memory (tests, fuzzing). */
int fg_reader_read_memory(fg_profile_info *info, const void *data, size_t len, const char *name,
			   fg_names *names, const fg_read_options *opts, const fg_visitor *visitor,
			   fg_error *err);

#endif
