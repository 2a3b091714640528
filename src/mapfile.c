#include "mapfile.h"

#include <fcntl.h>
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
