/* Shared by the source-scanner fuzz targets (fuzz_method, fuzz_native):
 * their input is one byte for the language, a frame name up to the first
 * newline, then the source. */
#ifndef FG_FUZZ_SPLIT_H
#define FG_FUZZ_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct fuzz_input {
	uint8_t lang;    /* the first byte */
	const char *src; /* the source: after the frame's newline, else after byte 0 */
	size_t len;
};

/* Splits data; the frame name, when a newline ends it within its first
 * cap - 1 bytes, goes to frame (cap bytes, NUL-terminated), which otherwise
 * keeps the caller's default.  False for an empty input. */
static inline bool fuzz_split(struct fuzz_input *in, char *frame, size_t cap, const uint8_t *data, size_t size)
{
	if (size < 1)
		return false;
	in->lang = data[0];
	in->src = (const char *)data + 1;
	in->len = size - 1;
	const char *nl = memchr(in->src, '\n', in->len < cap - 1 ? in->len : cap - 1);
	if (nl) {
		size_t n = (size_t)(nl - in->src);
		memcpy(frame, in->src, n);
		frame[n] = '\0';
		in->len -= n + 1;
		in->src = nl + 1;
	}
	return true;
}

#endif
