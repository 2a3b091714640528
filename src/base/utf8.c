#include "base/utf8.h"

#include <string.h>

size_t fg_utf8_sequence(const unsigned char *s, size_t n)
{
	if (n == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	size_t len;
	unsigned cp, min;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2; cp = s[0] & 0x1f; min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3; cp = s[0] & 0x0f; min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4; cp = s[0] & 0x07; min = 0x10000;
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
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

size_t fg_utf8_cut(const char *s, size_t n)
{
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

size_t fg_utf8_fit(const char *s, size_t max)
{
	size_t len = strnlen(s, max + 1);
	if (len <= max)
		return len;
	/* s[max] is the first byte cut off: back off while it continues a
	 * sequence, then drop the lead byte whose sequence it belonged to. */
	size_t n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}
