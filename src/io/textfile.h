/* fgbisect — reading a small text file (a rules file) whole. */
#ifndef FG_TEXTFILE_H
#define FG_TEXTFILE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/* Reads the file at path into *buf (malloc'ed, NUL-terminated, *len bytes
 * before the NUL).  what names the file's kind in messages ("rules file").
 * Fails with code (the caller's: usage or configuration) when the file cannot
 * be read or is larger than max bytes, FG_ENOMEM when memory runs out. */
int fg_textfile_read(char **buf, size_t *len, const char *path, size_t max, const char *what, int code,
                     fg_error *err);

/* Calls fn(ctx, line, end) for each line of text[0..len), without its "\n"
 * or "\r\n", after setting *lineno to its 1-based number; a line holding a
 * NUL byte is passed as line = end = NULL (the caller names the problem).
 * Stops at and returns the first non-zero return of fn. */
typedef int (*fg_textfile_line_fn)(void *ctx, const char *line, const char *end);
int fg_textfile_lines(const char *text, size_t len, size_t *lineno, fg_textfile_line_fn fn, void *ctx);

/* A parse error at "SOURCE:LINE" (the error's source): the message from
 * fmt and ap; returns code. */
int fg_textfile_verror(fg_error *err, int code, const char *source, size_t line, const char *fmt, va_list ap)
	__attribute__((format(printf, 5, 0)));

/* The bytes the rules files' lines are made of. */
static inline bool fg_textfile_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline bool fg_textfile_is_name_byte(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-' || c == '.';
}

/* The file a command reads when none is given: getenv(env) when set and not
 * empty, else the first readable of installed (may be NULL), and name
 * relative to the binary: ../share/fgbisect/NAME (an installation moved
 * elsewhere) and NAME beside it (the build tree's copy, CMakeLists.txt), so
 * that no source-tree path is compiled in (a path found there is written to
 * buf); else NULL. */
const char *fg_textfile_default_path(char *buf, size_t size, const char *env, const char *installed, const char *name);

#endif
