/* fgbisect — profiles inside archives: zip, tar and tar.gz (what CI systems
 * upload; a GitHub Actions artifact downloads as a zip), read with
 * libarchive, streamed.
 *
 * The archive is read from an fg_input (a file, the cache's gzip entry,
 * memory), so a .tar.gz is gunzipped by the input as any gzip file, and the
 * archive's content counts against that input's --max-size.  Its entries are
 * passed over one by one (zip's local headers, not its central directory:
 * one forward pass, as a pipe or a cache entry allows); the one chosen is
 * read as an fg_input of its own, decompressed by libarchive while the
 * reader reads it, with its own --max-size and --max-line (a zip bomb stops
 * there, like a gzip bomb).
 *
 * libarchive pulls in some 15 libraries (ICU, libxml2, libstdc++ ...), so
 * archive.c is part of the network and git module (src/module/lazy.c): a
 * profile that is no archive never loads it. */
#ifndef FG_ARCHIVE_H
#define FG_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/error.h"
#include "io/input.h"

typedef struct fg_archive fg_archive;

/* The archive format the content's start holds (at least its first 263
 * bytes, or all of it): "zip" (a local file header, or the end record of an
 * empty zip), "tar" (the POSIX "ustar" magic at offset 257), else NULL.
 * Inline: the readers sniff without loading the module. */
static inline const char *fg_archive_sniff(const char *d, size_t n)
{
	if (n >= 4 && (!memcmp(d, "PK\3\4", 4) || !memcmp(d, "PK\5\6", 4)))
		return "zip";
	if (n >= 262 && !memcmp(d + 257, "ustar", 5))
		return "tar";
	return NULL;
}

/* Opens the archive whose content in holds, from where in stands (bytes
 * already peeked included).  in is not owned and must outlive the archive.
 * Errors: FG_EINVALID (not an archive libarchive reads), FG_ENOMEM, or the
 * module's failure to load (FG_EFETCH). */
int fg_archive_open(fg_archive **out, fg_input *in, fg_error *err);

/* Steps to the next entry that may be a profile: a regular file, not empty
 * when its size is known, not hidden (no path component starting with '.')
 * and not macOS's "__MACOSX/" copies; directories, links and the rest are
 * passed over.  1 and *name (valid until the next call) for one, 0 at the
 * end, < 0 on error (FG_EINVALID: a damaged archive; the input's own
 * errors as they are). */
int fg_archive_next(const char **name, fg_archive *a, fg_error *err);

/* The current entry's content as an input named name (in messages), gunzipped
 * when it is gzip, capped at max_size (0: the default): valid until the next
 * fg_archive_next or fg_archive_free, freed by the caller first.  A damaged
 * member fails its reads with FG_EINVALID. */
int fg_archive_member(fg_input **out, fg_archive *a, const char *name, uint64_t max_size, fg_error *err);

void fg_archive_free(fg_archive *a);

#endif
