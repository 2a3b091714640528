/* fgbisect — text for XML and HTML (the SVG and the report).
 *
 * Escapes &, <, > and " so that the text is valid as character data and in
 * a double-quoted attribute; bytes that are not valid UTF-8 become U+FFFD
 * and control characters but newline and tab '?' (XML 1.0 allows neither). */
#ifndef FG_MARKUP_H
#define FG_MARKUP_H

#include <stddef.h>
#include <stdio.h>

/* Writes s[0..n) escaped. */
void fg_markup_escape(FILE *out, const char *s, size_t n);

/* The same for a NUL-terminated string. */
void fg_markup_text(FILE *out, const char *s);

#endif
