/* fgbisect — a whole file mapped read-only (git's binary files that the
 * history walk reads in place: the commit-graph, pack indexes and packs), and
 * what those files share: big-endian numbers, ids found by their fan-out.
 *
 * The library never prints and never exits. */
#ifndef FG_MAPFILE_H
#define FG_MAPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Maps the regular file at path, of at least min bytes; false when it
 * cannot be (missing, not a regular file, shorter, not mappable). */
bool fg_mapfile_open(const unsigned char **map, size_t *size, const char *path, size_t min);
void fg_mapfile_close(const unsigned char *map, size_t size);

/* The position of id in a sorted table of 20-byte ids indexed by git's
 * fan-out (256 big-endian counts of the ids whose first byte is at most
 * i), as pack indexes and the commit-graph hold them; UINT32_MAX when it is
 * not there.  The caller has checked that the fan-out never decreases and
 * that its last count of ids is in the table. */
uint32_t fg_mapfile_find_id(const unsigned char *fanout, const unsigned char *ids, const unsigned char id[20]);

/* The big-endian 32-bit number at p: git's binary files store them so. */
static inline uint32_t fg_mapfile_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#endif
