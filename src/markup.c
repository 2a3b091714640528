#include "markup.h"

#include <string.h>

/* The length of the valid UTF-8 sequence at s (at most n bytes), 0 when
 * invalid: overlong forms, surrogates and code points past U+10FFFF are
 * rejected, as XML parsers do. */
static size_t utf8_length(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff) || cp >= 0xfffe)) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
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
