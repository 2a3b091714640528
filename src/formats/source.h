/* fgbisect — the source layer: every input a user names (a path, "-" for
 * stdin, a file://, http:// or https:// URL) is opened here, downloaded
 * through the cache (src/net/fetch.h, src/net/cache.h) when it is a URL, and
 * gunzipped when its bytes are gzip (detected by the magic bytes), so that
 * every reader — profiles, runs files, rules files — gets the same content
 * whether it came from a file, a cached download or a fresh one (the cache
 * stores entries compressed).
 *
 * Errors name the source as the user gave it, with any user:password@ of a
 * URL removed, never the cache file.  Functions are reentrant; the cost is
 * one fetch per URL (none on a cache hit) plus the reading itself. */
#ifndef FG_SOURCE_H
#define FG_SOURCE_H

#include <stddef.h>

#include "base/error.h"
#include "net/fetch.h"
#include "model/profile.h"
#include "formats/reader.h"

/* Reads the whole source into *out (malloc'ed, NUL after the *len bytes),
 * decompressed, at most max bytes.  what names the input in messages ("runs
 * file", "rules file").  fetch may be NULL for the defaults; warning (may be
 * NULL) receives a line the caller should show (the cache was unusable ...)
 * or "".  Errors: FG_EFETCH "cannot read the WHAT: ..." (missing, unreadable,
 * download failed), "too large for a WHAT" (more than max bytes), FG_EINVALID
 * for corrupt gzip, FG_ENOMEM. */
int fg_source_read_all(char **out, size_t *len, const char *source, const char *what, size_t max,
		       const fg_fetch_options *fetch, char warning[256], fg_error *err);

/* Reads a profile from source and streams it to the visitor
 * (fg_reader_read), the download through the cache first when source is a
 * URL; fetch may be NULL.  warning as above.  Source may name a member of an
 * archive (zip, tar, tar.gz): URL#MEMBER, or PATH#MEMBER when PATH is a file
 * and PATH#MEMBER is not; MEMBER is a name or a glob (fg_reader_read_member),
 * and without one the archive's one profile is read. */
int fg_source_read_profile(fg_profile_info *info, const char *source, fg_names *names,
			   const fg_read_options *read, const fg_fetch_options *fetch, const fg_visitor *visitor,
			   char warning[256], fg_error *err);

/* The reading half of fg_source_read_profile: the profile source names read
 * from path, the file it was fetched to (NULL: source is a local path), the
 * member source names chosen, errors naming source (credentials removed).
 * For callers that fetch many sources at once (fg_fetch_many). */
int fg_source_read_fetched(fg_profile_info *info, const char *source, const char *path, fg_names *names,
			   const fg_read_options *read, const fg_visitor *visitor, fg_error *err);

#endif
