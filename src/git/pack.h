/* fgbisect — git's pack files (gitformat-pack(5)) read directly, for the
 * history walk's commits and trees.
 *
 * A walk down 10,000 commits reads each commit's headers and its root tree
 * out of the object database; through libgit2 1.5 that costs about 24K
 * instructions a commit and 13K a tree (a new inflate stream, the object's
 * buffer, the object cache and its locks, for 130 bytes of compressed
 * data).  This reader maps `objects/pack/pack-*.idx` (version 2) and their
 * packs, finds an id by the index's fan-out and binary search, inflates with
 * one reused stream, resolves OFS_DELTA chains and keeps recently resolved
 * objects for the deltas that follow.
 *
 * It is an accelerator, never the authority: whatever it does not handle —
 * an object not in these packs (loose, in an alternate, in a pack added
 * later), a REF_DELTA, an index of another version, a chain deeper than
 * FG_PACK_MAX_DEPTH, an object over FG_PACK_MAX_OBJECT bytes, any data that
 * does not decode exactly (a size that disagrees, a bad stream, an offset
 * out of range) — it answers "not here", and the caller reads the object
 * through libgit2, which reads it or reports the error it always reported.
 *
 * The library never prints and never exits. */
#ifndef FG_PACK_H
#define FG_PACK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

typedef struct fg_pack fg_pack;

/* Deeper delta chains and larger objects are left to libgit2 (git writes
 * chains of at most 50 by default; trees and commits are small). */
#define FG_PACK_MAX_DEPTH 1000
#define FG_PACK_MAX_OBJECT ((size_t)64 << 20)
/* At most this many packs are read; objects of others are "not here". */
#define FG_PACK_MAX_PACKS 64

typedef enum fg_pack_type {
	FG_PACK_COMMIT = 1,
	FG_PACK_TREE = 2,
	FG_PACK_BLOB = 3,
	FG_PACK_TAG = 4,
} fg_pack_type;

/* Maps the packs of objects_dir/pack (objects_dir: a repository's object
 * directory) of a SHA-1 repository (the caller checks the object format:
 * src/git/repo.h; an index whose pack checksum is not its pack's last 20
 * bytes is not read).  *out is NULL, and 0 returned, when there is none it can
 * read; errors only for out of memory. */
int fg_pack_open(fg_pack **out, const char *objects_dir, fg_error *err);
/* The same over copies of one index's and one pack's bytes (tests,
 * fuzzing): *out is NULL when they are not a version-2 index and a pack
 * that agree on the number of objects. */
int fg_pack_from_buffers(fg_pack **out, const void *idx, size_t idx_len, const void *pack, size_t pack_len,
			 fg_error *err);
void fg_pack_free(fg_pack *p);

/* An object read out of the packs: its bytes, size and type, held by
 * references (one from fg_pack_read; the pack keeps its own while the
 * object may serve as a delta's base).  Independent of the fg_pack's
 * lifetime; not for use from several threads at once. */
typedef struct fg_pack_object fg_pack_object;
const unsigned char *fg_pack_object_data(const fg_pack_object *o);
size_t fg_pack_object_size(const fg_pack_object *o);
fg_pack_type fg_pack_object_type(const fg_pack_object *o);
void fg_pack_object_free(fg_pack_object *o);

/* The object id (20-byte SHA-1): true with *out a reference to it; false
 * (*out NULL) when these packs cannot give it (see above: the caller asks
 * libgit2).  The content is not hashed again (libgit2's reads are not
 * either here: the walk turns the verification off, as git reads). */
bool fg_pack_read(fg_pack_object **out, fg_pack *p, const unsigned char id[20]);

/* A commit's headers as far as a history walk needs them: the object's
 * first bytes, at least up to the end of its first line that starts with
 * `committer ` (after `tree`, `parent`s and `author`, where git writes it)
 * or of the headers' blank line, else the whole commit.  A walk uses the
 * tree, the parents and the committer's time only, and a commit is mostly
 * its message and signature: the stream is inflated in small steps and
 * stopped there.  *data (*len bytes) is held by p until its next read.
 *
 * Since the stream is not inflated to its end, its checksum and its size
 * are not checked: the bytes given are those zlib decoded without an
 * error, within the size the entry declares.  false (nothing given) as
 * fg_pack_read, or when the object is not a commit. */
bool fg_pack_read_commit_head(const unsigned char **data, size_t *len, fg_pack *p, const unsigned char id[20]);

#endif
