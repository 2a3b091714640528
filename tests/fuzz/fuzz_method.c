/* libFuzzer target: the method scanner (src/git/method.h) on any text, in the
 * three languages, must never crash, leak or read out of bounds, and its
 * declarations and matches must be well-formed line ranges; the frame read
 * as a typed name gives a well-formed class or none.  Input: one
 * byte for the language, a frame name up to the first newline, the source. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_split.h"
#include "git/javaclass.h"
#include "git/method.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char frame[257] = "p/A.a";
	struct fuzz_input in;
	if (!fuzz_split(&in, frame, sizeof(frame), data, size))
		return 0;
	fg_method_lang lang = (fg_method_lang)(in.lang % 3);
	/* The frame as a typed name (fg_javaclass_from_name): a class is a
	 * NUL-terminated path within the buffer, or a
	 * too small buffer is refused. */
	char cls[64];
	memset(cls, 'x', sizeof(cls));
	fg_error terr;
	int jc = fg_javaclass_from_name(cls, sizeof(cls), frame, &terr);
	if ((jc == 1 && !memchr(cls, '\0', sizeof(cls))) || (jc < 0 && jc != FG_EUSAGE) || jc > 1)
		abort();
	fg_method_scan *s;
	fg_error err;
	if (fg_method_scan_new(&s, in.src, in.len, lang, &err))
		return 0;
	uint32_t lines = fg_method_scan_lines(s);
	for (size_t i = 0; i < fg_method_scan_count(s); i++) {
		const fg_method_decl *d = fg_method_scan_at(s, i);
		if (d->first < 1 || d->first > d->last || d->last > lines + 1 ||
		    (d->parent != SIZE_MAX && d->parent >= i) || !d->name)
			abort();
	}
	static const char *const frames[] = { "p/A.a", "p/A$1.run", "p/A.<init>", "p/A.<clinit>", "p/AKt.f",
					      "p/A$.apply", "p/A$B$1Local.m", "p/A.lambda$a$0" };
	for (size_t f = 0; f <= sizeof(frames) / sizeof(frames[0]); f++) {
		fg_javaclass_parts parts;
		const char *name = f < sizeof(frames) / sizeof(frames[0]) ? frames[f] : frame;
		if (fg_javaclass_parse(&parts, name, &err) != 1)
			continue;
		fg_method_match m;
		fg_method_find(&m, s, &parts);
		if (m.count > FG_METHOD_MAX_RANGES || (m.status != FG_METHOD_FOUND && m.count) ||
		    (m.status != FG_METHOD_FOUND && !m.reason))
			abort();
		for (size_t k = 0; k < m.count; k++)
			if (m.ranges[k].first > m.ranges[k].last || (k && m.ranges[k - 1].first > m.ranges[k].first))
				abort();
	}
	fg_method_scan_free(s);
	return 0;
}
