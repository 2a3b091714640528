/* libFuzzer target: gzip input.  The first byte picks the framing of the
 * rest: compressed whole (the parsers behind a real stream), compressed in
 * two members with the bytes after a split point as trailing data, or the
 * bytes taken as the deflate stream after a gzip header (corrupt, truncated
 * and bomb-like streams). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "fuzz_analyses.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Appends data as one gzip member at out + *len (room permitting). */
static bool gzip_member(uint8_t *out, size_t *len, size_t cap, const uint8_t *data, size_t size)
{
	z_stream z = { 0 };
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return false;
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)size;
	z.next_out = out + *len;
	z.avail_out = (uInt)(cap - *len);
	int rc = deflate(&z, Z_FINISH);
	*len = cap - z.avail_out;
	deflateEnd(&z);
	return rc == Z_STREAM_END;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t header[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
	if (size < 2)
		return 0;
	uint8_t mode = data[0] % 3, split = data[1];
	data += 2;
	size -= 2;
	size_t cap = 2 * size + 256, len = 0;
	uint8_t *buf = malloc(cap);
	if (!buf)
		return 0;
	bool ok = true;
	switch (mode) {
	case 0:
		ok = gzip_member(buf, &len, cap, data, size);
		break;
	case 1: {
		size_t cut = size ? split % (size + 1) : 0;
		ok = gzip_member(buf, &len, cap, data, cut) &&
		     gzip_member(buf, &len, cap, data + cut, (size - cut) / 2);
		/* The rest stays as it is: garbage, or a third member's bytes. */
		size_t rest = size - cut - (size - cut) / 2;
		memcpy(buf + len, data + size - rest, rest);
		len += rest;
		break;
	}
	default:
		memcpy(buf, header, sizeof(header));
		memcpy(buf + sizeof(header), data, size);
		len = sizeof(header) + size;
		break;
	}
	if (ok)
		analyses_run(buf, len, false, analyses_sink());
	free(buf);
	return 0;
}
