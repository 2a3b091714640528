/* fgbisect — reading a small text file (a rules file) whole, and the
 * skeleton both rules files' parsers share. */
#ifndef FG_TEXTFILE_H
#define FG_TEXTFILE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "base/error.h"

/* Reads the file at path into *buf (malloc'ed, NUL-terminated, *len bytes
 * before the NUL).  what names the file's kind in messages ("rules file").
 * Fails with code (the caller's: usage or configuration) when the file cannot
 * be read or is larger than max bytes, FG_ENOMEM when memory runs out. */
int fg_textfile_read(char **buf, size_t *len, const char *path, size_t max, const char *what, int code,
                     fg_error *err);

/* A rules file being parsed (the subsystem rules, the metric rules): lines
 * of "KEYWORD REST", blank lines and '#' comments skipped, sections opened by
 * some keywords, errors at "SOURCE:LINE". */
typedef struct fg_textfile_rules {
	const char *source;
	size_t line;     /* the line at hand, from 1 */
	fg_error *err;
	void *ctx;       /* the parser's state */
	const struct fg_textfile_syntax *syntax;
} fg_textfile_rules;

typedef struct fg_textfile_syntax {
	const char *what;  /* the file's kind in messages: "rules file" */
	int code;          /* its errors' code (FG_EUSAGE, FG_ECONFIG) */
	/* The keywords that open a section, NULL-terminated; a file without a
	 * section of the first is refused ("no subsystem defined: is this a
	 * rules file?"). */
	const char *const *sections;
	/* A line trimmed of blanks, neither empty nor a comment: its first word
	 * and the rest after it. */
	int (*line)(fg_textfile_rules *f, const char *word, size_t len, const char *rest, const char *end);
	/* Whether the section open (if any) is complete: called before a line
	 * that opens another and after the last line. */
	int (*close)(fg_textfile_rules *f);
} fg_textfile_syntax;

/* Parses text[0..len) (named source in errors) as syntax says, ctx the
 * parser's state; a line holding a NUL byte is an error ("a NUL byte: is
 * this a rules file?").  0, or the first error. */
int fg_textfile_rules_parse(const char *text, size_t len, const char *source, const fg_textfile_syntax *syntax,
			    void *ctx, fg_error *err);

/* A parse error at the line at hand, or at line: the syntax's code. */
int fg_textfile_error(const fg_textfile_rules *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int fg_textfile_error_at(const fg_textfile_rules *f, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Whether word[0..len) is keyword. */
static inline bool fg_textfile_is_word(const char *word, size_t len, const char *keyword)
{
	return strlen(keyword) == len && !memcmp(word, keyword, len);
}

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
