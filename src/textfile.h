/* fgbisect — reading a small text file (a rules file) whole. */
#ifndef FG_TEXTFILE_H
#define FG_TEXTFILE_H

#include <stddef.h>

#include "error.h"

/* Reads the file at path into *buf (malloc'ed, NUL-terminated, *len bytes
 * before the NUL).  what names the file's kind in messages ("rules file").
 * Fails with code (the caller's: usage or configuration) when the file cannot
 * be read or is larger than max bytes, FG_ENOMEM when memory runs out. */
int fg_textfile_read(char **buf, size_t *len, const char *path, size_t max, const char *what, int code,
                     fg_error *err);

#endif
