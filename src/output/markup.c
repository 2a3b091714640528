#include "output/markup.h"

#include <string.h>

#include "base/utf8.h"

/* The length of the valid UTF-8 sequence at s (at most n bytes), 0 when
 * invalid (src/base/utf8.h) or a character XML forbids (U+FFFE, U+FFFF). */
static size_t utf8_length(const unsigned char *s, size_t n)
{
	size_t len = fg_utf8_sequence(s, n);
	if (len == 3 && s[0] == 0xef && s[1] == 0xbf && (s[2] == 0xbe || s[2] == 0xbf))
		return 0;
	return len;
}

void fg_markup_escape(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t len = utf8_length(s + i, n - i);
		if (len == 0) {
			fputs("\xef\xbf\xbd", out);
			i++;
			continue;
		}
		if (len > 1) {
			fwrite(s + i, 1, len, out);
		} else if (c == '&') {
			fputs("&amp;", out);
		} else if (c == '<') {
			fputs("&lt;", out);
		} else if (c == '>') {
			fputs("&gt;", out);
		} else if (c == '"') {
			fputs("&quot;", out);
		} else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
			fputc('?', out);
		} else {
			fputc((int)c, out);
		}
		i += len;
	}
}

void fg_markup_text(FILE *out, const char *s)
{
	fg_markup_escape(out, s, strlen(s));
}
