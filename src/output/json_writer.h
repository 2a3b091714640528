/* fgbisect — a small streaming JSON writer: it owns the commas, the
 * escaping and the nesting, so callers write values and keys in order and
 * never a separator.
 *
 *     fg_json j;
 *     fg_json_init(&j, stdout);
 *     fg_json_object(&j);
 *     fg_json_key(&j, "frames");
 *     fg_json_array(&j);
 *     for (...) { fg_json_object(&j); fg_json_member_u64(&j, "samples", n); fg_json_end(&j); }
 *     fg_json_end(&j);            // ]
 *     fg_json_end(&j);            // } and, at the outermost level, "\n"
 *
 * Output is compact (no blanks), byte for byte what the commands printed by
 * hand before.  Strings are escaped as RFC 8259 asks, and invalid UTF-8
 * bytes become \ufffd, so the output is always valid JSON whatever the
 * profile's names hold.  Numbers with a fixed count of decimals keep the
 * output stable across platforms.  An fg_json is a small value on the
 * caller's stack, no allocation; one per thread. */
#ifndef FG_JSON_WRITER_H
#define FG_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define FG_JSON_MAX_DEPTH 32

typedef struct fg_json {
	FILE *out;
	unsigned depth;
	bool has_value[FG_JSON_MAX_DEPTH]; /* the container at this depth holds a value already */
	char close[FG_JSON_MAX_DEPTH];     /* '}' or ']' for the container at this depth */
	bool after_key;                    /* a key was written: the value needs no comma */
} fg_json;

void fg_json_init(fg_json *j, FILE *out);

/* Opens an object / an array as the next value. */
void fg_json_object(fg_json *j);
void fg_json_array(fg_json *j);
/* Closes the innermost object or array; closing the outermost one ends the
 * line ("\n"). */
void fg_json_end(fg_json *j);

/* The key of the next member of the current object. */
void fg_json_key(fg_json *j, const char *key);

/* Values.  fg_json_string(NULL) writes null. */
void fg_json_string(fg_json *j, const char *s);
void fg_json_u64(fg_json *j, uint64_t v);
void fg_json_i64(fg_json *j, int64_t v);
void fg_json_fixed(fg_json *j, double v, int decimals); /* "%.*f"; NaN and infinities as null */
/* "%.*g": digits significant digits, for values of any magnitude (metrics);
 * NaN and infinities as null. */
void fg_json_significant(fg_json *j, double v, int digits);
void fg_json_bool(fg_json *j, bool v);
void fg_json_null(fg_json *j);
/* A value already formatted as JSON (a number printed by the caller). */
void fg_json_raw(fg_json *j, const char *text);

/* key + value in one call. */
void fg_json_member_string(fg_json *j, const char *key, const char *s);
void fg_json_member_u64(fg_json *j, const char *key, uint64_t v);
void fg_json_member_fixed(fg_json *j, const char *key, double v, int decimals);
void fg_json_member_bool(fg_json *j, const char *key, bool v);

/* One JSON string literal on out, escaped as above, outside any writer. */
void fg_json_write_string(FILE *out, const char *s);

#endif
