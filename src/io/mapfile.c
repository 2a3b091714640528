#include "io/mapfile.h"

#include <fcntl.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

bool fg_mapfile_open(const unsigned char **map, size_t *size, const char *path, size_t min)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < min ||
	    (uint64_t)st.st_size > SIZE_MAX / 2 || st.st_size == 0) {
		close(fd);
		return false;
	}
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return false;
	*map = m;
	*size = (size_t)st.st_size;
	return true;
}

void fg_mapfile_close(const unsigned char *map, size_t size)
{
	munmap((void *)map, size);
}

/* Bytes 1-8 of an id as a number: ids are SHA-1s, uniform, so within the
 * fan-out's range of a first byte they are spread evenly by these. */
static uint64_t id_key(const unsigned char *id)
{
	uint64_t k = 0;
	for (unsigned i = 1; i <= 8; i++)
		k = k << 8 | id[i];
	return k;
}

/* The steps of interpolation before the binary search takes over (a few
 * find the id among thousands; the binary search bounds the odd case). */
#define INTERPOLATE 4

/* Each probe of a table of 500,000 ids (a pack index of 11 MB) is a cache
 * miss: interpolation finds an id in about 3 probes where a binary search
 * takes 11.  The guesses use only the keys of the probes made (the range's
 * ends start as the smallest and largest keys there can be), so no probe is
 * spent on reading the ends. */
uint32_t fg_mapfile_find_id(const unsigned char *fanout, const unsigned char *ids, const unsigned char id[20])
{
	uint32_t lo = id[0] ? fg_mapfile_be32(fanout + 4 * (id[0] - 1)) : 0, hi = fg_mapfile_be32(fanout + 4 * id[0]);
	uint64_t k = id_key(id), klo = 0, khi = UINT64_MAX;
	for (unsigned step = 0; lo < hi; step++) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (step < INTERPOLATE && k >= klo && k <= khi && khi > klo) {
			double at = (double)(k - klo) / (double)(khi - klo) * (double)(hi - lo);
			mid = lo + (at < (double)(hi - lo) ? (uint32_t)at : hi - lo - 1);
		}
		uint64_t km = id_key(ids + (size_t)mid * 20);
		int c = memcmp(ids + (size_t)mid * 20, id, 20);
		if (c == 0)
			return mid;
		if (c < 0) {
			lo = mid + 1;
			klo = km;
		} else {
			hi = mid;
			khi = km;
		}
	}
	return UINT32_MAX;
}
