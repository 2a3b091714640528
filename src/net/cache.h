/* fgbisect — the download cache.
 *
 * One file per URL, named by the SHA-256 of the URL (credentials and
 * fragment removed by the caller: see fg_fetch), holding the downloaded bytes
 * as gzip: bytes that already are gzip are stored as they are, anything else
 * is compressed on the way in.  The parser reads a private copy of an entry
 * (it gunzips transparently), never the entry, which another program may
 * rewrite in place.
 *
 * Entries are written to a temporary file in the cache directory, fsynced and
 * renamed into place, so a reader never sees a partial entry and two
 * processes filling the same entry each end with a whole, correct file (the
 * last rename wins).  Entries are never deleted by fgbisect: a damaged one is
 * replaced by the next commit of the same key, so a concurrent writer's fresh
 * entry is never unlinked by mistake.
 *
 * Files are created 0600, directories 0700. */
#ifndef FG_CACHE_H
#define FG_CACHE_H

#include <stddef.h>

#include "base/error.h"

struct fg_cleanup_item;

typedef struct fg_cache fg_cache;
typedef struct fg_cache_entry fg_cache_entry;

/* The default cache directory: $XDG_CACHE_HOME/fgbisect when XDG_CACHE_HOME
 * is set to an absolute path (the XDG spec says to ignore a relative one),
 * else $HOME/.cache/fgbisect.  FG_EFETCH when neither variable is usable. */
int fg_cache_default_dir(char **out, fg_error *err);

/* Opens the cache in dir (NULL = fg_cache_default_dir), creating it and its
 * missing parents with mode 0700.  FG_EFETCH when it cannot be created, is
 * not a directory, is a symbolic link, belongs to another user or is
 * writable by group or others (its entries could then be anyone's); the
 * caller may then work without a cache. */
int fg_cache_open(fg_cache **out, const char *dir, fg_error *err);
void fg_cache_free(fg_cache *cache);

/* Looks key up.  On a hit, *out is the path of a private copy of the entry
 * (a reflink where the file system has them), registered with cleanup: the
 * caller reads it, then unlinks it, unregisters cleanup and frees *out;
 * the return is 1.  The copy is what is verified (by inflating it once, see
 * fg_cache_verify_gzip) and read, so an entry rewritten in place after the
 * lookup changes nothing read, and one rewritten while it is copied is a
 * miss.  A missing, unreadable or damaged entry is a miss (0), and so is
 * one that is not a regular file (a FIFO, a symlink) or that cannot be
 * copied (a full file system).  Negative only for FG_ENOMEM. */
int fg_cache_lookup(char **out, struct fg_cleanup_item *cleanup, fg_cache *cache, const char *key, fg_error *err);

/* Starts filling the entry for key: creates its temporary file.  FG_EFETCH
 * when the directory is not writable. */
int fg_cache_entry_new(fg_cache_entry **out, fg_cache *cache, const char *key, fg_error *err);

/* Appends downloaded bytes.  FG_EFETCH on a write error (disk full ...). */
int fg_cache_entry_write(fg_cache_entry *entry, const void *data, size_t len, fg_error *err);

/* Empties the entry, for a download that starts again. */
int fg_cache_entry_reset(fg_cache_entry *entry, fg_error *err);

/* Completes the entry: a copy of the download (a reflink where the file
 * system has them) is fsynced and renamed into place; *out is the path of
 * the download itself, the caller's to read and delete as after
 * fg_cache_entry_detach (an entry may be rewritten in place by another
 * program while it is read; this file is written by nothing else).  FG_EINVALID when the bytes start like gzip but
 * are not a whole, valid gzip stream (they are then not worth caching); any
 * other failure is FG_EFETCH.  After a failure the bytes can still be taken
 * with fg_cache_entry_detach. */
int fg_cache_entry_commit(char **out, fg_cache_entry *entry, fg_error *err);

/* After a failed commit: hands the temporary file (a complete copy of the
 * download, gzip or as served) over to the caller, who must delete it.
 * Returns 0, or FG_ENOMEM, or FG_EINTERNAL when there is nothing to hand
 * over (no failed commit before, or one that could not write every byte:
 * a full file system). */
int fg_cache_entry_detach(char **out, fg_cache_entry *entry, fg_error *err);

/* Removes the temporary file unless it was committed or detached. */
void fg_cache_entry_free(fg_cache_entry *entry);

/* Checks that path holds one or more complete gzip members and nothing else,
 * by inflating it all: every member's CRC-32 and length must match.  0 when
 * valid, FG_EINVALID when damaged or not gzip, FG_EFETCH when unreadable. */
int fg_cache_verify_gzip(const char *path, fg_error *err);

#endif
