/* fgbisect — what names a URL: recognition, resolution against a runs file's
 * own name, and redaction for messages.  All but fg_url_resolve need no
 * libcurl (src/net/url.c): calling them never loads the network module. */
#ifndef FG_URL_H
#define FG_URL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/* True for file://, http:// and https:// URLs (scheme case-insensitive). */
bool fg_url_is(const char *source);

/* True for http:// and https:// URLs (scheme case-insensitive). */
bool fg_url_is_http(const char *source);

/* The length of a leading "scheme://" (an RFC 3986 scheme), else 0. */
size_t fg_url_scheme_length(const char *s);

/* Resolves a runs file's location against the runs file's own name (base,
 * a path, a URL, or "-" / NULL for the current directory): an absolute path
 * or a URL is kept; a relative path is taken relative to base's folder, or,
 * when base is a URL, as a URL reference relative to it (RFC 3986).
 * *out is malloc'ed.  FG_ECONFIG when location is empty or cannot be
 * resolved against base. */
int fg_url_resolve(char **out, const char *base, const char *location, fg_error *err);

/* Copies url with any user:password@ part removed into a malloc'ed string
 * (NULL on out of memory); anything that is not a URL is copied as it is. */
char *fg_url_redact(const char *url);

#endif
