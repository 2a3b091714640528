#include "base/idarray.h"

#include <stdlib.h>
#include <string.h>

uint32_t fg_idarray_capacity(uint32_t cap, uint32_t id)
{
	if (cap == 0)
		cap = 1024;
	while (cap <= id)
		cap *= 2;
	return cap;
}

int fg_idarray_resize(void *array, size_t elem, uint32_t old, uint32_t cap, int fill)
{
	void **slot = array;
	char *p = realloc(*slot, (size_t)cap * elem);
	if (!p)
		return -1;
	memset(p + (size_t)old * elem, fill, (size_t)(cap - old) * elem);
	*slot = p;
	return 0;
}

bool fg_array_reserve(void **buf, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return true;
	size_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	void *b = realloc(*buf, c * elem);
	if (!b)
		return false;
	*buf = b;
	*cap = c;
	return true;
}
