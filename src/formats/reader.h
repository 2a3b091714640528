/* fgbisect — reading a profile: the format is sniffed from the content
 * (async-profiler HTML of every generation, collapsed stacks, JFR, pprof,
 * perf script, SVG flame graphs; plain or gzip; or inside a zip or tar
 * archive), the reader for it runs over
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

/* fg_reader_read with the input named name in messages (NULL: path; a URL
 * for its cache file) and, when the content is an archive (zip, tar,
 * tar.gz: src/io/archive.h), the member that member names read as the
 * profile: a path in the archive or its last component, as given or as a
 * glob (fnmatch); NULL: the archive's one profile.  Messages about a member
 * name it NAME#MEMBER.  Errors besides fg_reader_read's: FG_ECONFIG when
 * several members match (the message lists them: name one) or member is
 * given for a file that is no archive; FG_EINVALID when none does, for an
 * archive inside an archive, and for a damaged archive. */
int fg_reader_read_member(fg_profile_info *info, const char *path, const char *name, const char *member,
			  fg_names *names, const fg_read_options *opts, const fg_visitor *visitor, fg_error *err);

/* The same from memory (tests, fuzzing). */
int fg_reader_read_memory(fg_profile_info *info, const void *data, size_t len, const char *name,
			   fg_names *names, const fg_read_options *opts, const fg_visitor *visitor,
			   fg_error *err);

#endif
