/* libFuzzer target: native frames and sources (src/git/native.h) on any
 * bytes must never crash, leak or read out of bounds: the frame's function
 * is an identifier within its bounds, and a match's ranges are well-formed
 * lines of the file.  Input: one byte for the language, a frame name up to
 * the first newline, the source. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_split.h"
#include "git/native.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char frame[601] = "f";
	struct fuzz_input in;
	if (!fuzz_split(&in, frame, sizeof(frame), data, size))
		return 0;
	fg_native_lang lang = (fg_native_lang)(FG_NATIVE_CPP + in.lang % 3);
	size_t n = in.len;
	fg_native_function fn;
	if (fg_native_parse(&fn, frame) != 1) {
		memset(&fn, 0, sizeof(fn));
		strcpy(fn.name, "f");
	}
	if (!memchr(fn.name, '\0', sizeof(fn.name)) || !memchr(fn.qualifier, '\0', sizeof(fn.qualifier)) || !fn.name[0])
		abort();
	fg_native_driver *d;
	fg_error err;
	if (fg_native_driver_new(&d, lang, &err))
		return 0;
	/* The source copied so that a read past its end is caught. */
	char *src = malloc(n ? n : 1);
	if (!src) {
		fg_native_driver_free(d);
		return 0;
	}
	memcpy(src, in.src, n);
	uint32_t lines = 0;
	for (size_t i = 0; i < n; i++)
		lines += src[i] == '\n';
	lines += n && src[n - 1] != '\n';
	fg_method_match m;
	fg_native_rank r = fg_native_find(&m, d, src, n, &fn);
	if (m.count > FG_METHOD_MAX_RANGES || (r == FG_NATIVE_RANK_NONE) != (m.status != FG_METHOD_FOUND) ||
	    (m.status == FG_METHOD_FOUND && !m.count) || m.overloads < m.count)
		abort();
	for (size_t i = 0; i < m.count; i++)
		if (m.ranges[i].first < 1 || m.ranges[i].first > m.ranges[i].last || m.ranges[i].last > lines)
			abort();
	for (const char *p = src, *end = src + n; p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		e = e ? e : end;
		(void)fg_native_driver_funcname(d, p, (size_t)(e - p));
		p = e + 1;
	}
	free(src);
	fg_native_driver_free(d);
	return 0;
}
