/* Test helper: src[0..len) compressed as one gzip member into dst (cap
 * bytes); returns the compressed length. */
#ifndef FG_TEST_GZIP_BYTES_H
#define FG_TEST_GZIP_BYTES_H

#include <stddef.h>
#include <zlib.h>

static inline size_t gzip_bytes(unsigned char *dst, size_t cap, const void *src, size_t len)
{
	z_stream z = { 0 };
	deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	z.next_in = (unsigned char *)src;
	z.avail_in = (uInt)len;
	z.next_out = dst;
	z.avail_out = (uInt)cap;
	deflate(&z, Z_FINISH);
	size_t n = z.total_out;
	deflateEnd(&z);
	return n;
}

#endif
