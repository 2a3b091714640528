/* fgbisect — a git tree object's entries, read from its raw bytes.
 *
 * A history walk asks each tree it reads for one or two names (the next
 * component of a hot file's path) and nothing else.  libgit2's tree parse
 * builds an entry record for every entry and stores the parsed object in
 * its cache: for a 40-entry root tree that is two thirds of the cost of
 * reading it out of the pack.  This index keeps, per entry, the offsets of
 * its name and id in the caller's bytes and its mode, and finds a name by
 * binary search in git's tree order.
 *
 * Entries: "<octal mode> <name>\0<20-byte SHA-1>", sorted as git sorts them
 * (a directory's name compares as if it ended in '/').  A tree that breaks
 * the format is refused as a whole, as libgit2 refuses it; one whose entries
 * are out of order is accepted and a name may then not be found (libgit2's
 * lookup is a binary search too).
 *
 * The library never prints and never exits. */
#ifndef FG_RAWTREE_H
#define FG_RAWTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct fg_rawtree fg_rawtree;

typedef struct fg_rawtree_entry {
	const char *name;          /* not NUL-terminated: name_len bytes */
	size_t name_len;
	uint32_t mode;             /* as written, e.g. 0100644 */
	const unsigned char *id;   /* 20 bytes */
} fg_rawtree_entry;

/* SHA-1 ids only: the caller has checked the repository's object format
 * (src/git/repo.c refuses others at open).
 * Indexes the len bytes of a tree object's content at data, which must stay
 * valid and unchanged while *out is used.  FG_EGIT when the bytes are not a
 * tree (the record's source left empty: the caller knows the tree's id). */
int fg_rawtree_parse(fg_rawtree **out, const void *data, size_t len, fg_error *err);
void fg_rawtree_free(fg_rawtree *t);

size_t fg_rawtree_count(const fg_rawtree *t);
/* The i-th entry in the tree's order, i < fg_rawtree_count(t). */
void fg_rawtree_at(fg_rawtree_entry *out, const fg_rawtree *t, size_t i);
/* The entry named name (a file's or a directory's: names are unique). */
bool fg_rawtree_find(fg_rawtree_entry *out, const fg_rawtree *t, const char *name, size_t name_len);

/* The mode as libgit2's git_tree_entry_filemode gives it (the walk compared
 * those before): 040000 for a directory, else 0100755 when an execute bit
 * is set, else 0160000 for a submodule's commit, 0120000 for a symbolic
 * link, 0100644 for anything else. */
uint32_t fg_rawtree_canonical_mode(uint32_t mode);
static inline bool fg_rawtree_is_dir(uint32_t mode)
{
	return (mode & 0170000) == 0040000;
}
/* A blob: a file or a symbolic link (not a directory, not a submodule). */
static inline bool fg_rawtree_is_blob(uint32_t mode)
{
	return (mode & 0170000) != 0040000 && (mode & 0170000) != 0160000;
}

#endif
