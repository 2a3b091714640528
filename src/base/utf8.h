/* fgbisect — UTF-8 validation, the one copy (JSON strings, SVG text, commit
 * subjects cut to a buffer).  Pure functions: no state, thread-safe. */
#ifndef FG_UTF8_H
#define FG_UTF8_H

#include <stddef.h>

/* Length (1-4) of the valid UTF-8 sequence at s[0..n), or 0 when the bytes
 * there are not one: a stray continuation byte, a cut-short sequence, an
 * overlong form, a surrogate (U+D800-DFFF) or a code point above U+10FFFF.
 * n == 0 gives 0. */
size_t fg_utf8_sequence(const unsigned char *s, size_t n);

/* The largest length <= n at which s can be cut without splitting a
 * sequence (it backs up over continuation bytes only). */
size_t fg_utf8_cut(const char *s, size_t n);

/* The length of the longest prefix of s of at most max bytes that does not
 * end inside a UTF-8 sequence (what a truncation may keep). */
size_t fg_utf8_fit(const char *s, size_t max);

#endif
