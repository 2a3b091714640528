/* The part of src/net/fetch.h that needs no libcurl: options, what a URL is,
 * credentials removed.  It is linked into the program itself, so that
 * recognising a URL or naming one in a message never loads the network
 * module (src/module/lazy.c). */
#include "net/fetch.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void fg_fetch_options_init(fg_fetch_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->connect_timeout_s = 10;
	opts->total_timeout_s = 300;
	opts->stall_timeout_s = 30;
	opts->tries = 3;
	opts->retry_delay_ms = 1000;
	opts->max_redirects = 10;
	opts->max_parallel = 4;
	opts->max_size = (uint64_t)4 << 30;
}

size_t fg_url_scheme_length(const char *s)
{
	if (!isalpha((unsigned char)s[0]))
		return 0;
	size_t i = 1;
	while (isalnum((unsigned char)s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.')
		i++;
	return strncmp(s + i, "://", 3) == 0 ? i + 3 : 0;
}

static bool has_scheme(const char *s, const char *scheme)
{
	size_t n = strlen(scheme);
	return strncasecmp(s, scheme, n) == 0 && strncmp(s + n, "://", 3) == 0;
}

bool fg_url_is_http(const char *s)
{
	return has_scheme(s, "http") || has_scheme(s, "https");
}

bool fg_url_is(const char *source)
{
	return fg_url_is_http(source) || has_scheme(source, "file");
}

char *fg_url_redact(const char *url)
{
	size_t start = fg_url_scheme_length(url);
	const char *authority = url + start;
	size_t len = strcspn(authority, "/?#");
	const char *at = NULL;
	/* The last '@' ends the userinfo: a password may hold an unescaped '@'. */
	for (size_t i = 0; start > 0 && i < len; i++)
		if (authority[i] == '@')
			at = authority + i;
	if (!at)
		return strdup(url);
	size_t rest = strlen(at + 1);
	char *out = malloc(start + rest + 1);
	if (!out)
		return NULL;
	memcpy(out, url, start);
	memcpy(out + start, at + 1, rest + 1);
	return out;
}
