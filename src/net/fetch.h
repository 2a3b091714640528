/* fgbisect — fetching profiles: local paths, file:// and http(s):// URLs.
 *
 * A fetch turns a source into a local file holding its bytes (possibly
 * gzip-compressed: the parser gunzips transparently).  A plain path or "-"
 * needs no fetch and is returned as it is; a file:// URL becomes its local
 * path.  http:// and https:// URLs are downloaded with libcurl, through the
 * download cache (src/net/cache.h) unless told otherwise.
 *
 * Redirects are followed by this module, not by libcurl: libcurl drops only
 * Authorization and Cookie headers when a redirect leaves the first host,
 * while artifact stores also take tokens in other headers (PRIVATE-TOKEN,
 * X-API-Key ...).  The extra headers are sent only to the credentials'
 * origin (header_origin, else the first URL's scheme, host and port) and
 * the header_hosts; once a hop leaves them they are dropped for the rest of
 * the attempt.
 *
 * Credentials (header values, .netrc, a URL's user:password part) are never
 * put in an error message, a warning, a progress call, a cache key or a
 * cache entry.  Errors name the URL with any user:password@ removed. */
#ifndef FG_FETCH_H
#define FG_FETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "net/url.h"

typedef void (*fg_fetch_progress_fn)(void *ctx, const char *url, uint64_t done, uint64_t total);

typedef struct fg_fetch_options {
	long connect_timeout_s;   /* 10: to establish a connection */
	long total_timeout_s;     /* 300: for one attempt, redirects included */
	long stall_timeout_s;     /* 30: an attempt slower than 1 KiB/s for this long fails */
	int tries;                /* 3: attempts per source; retried are connection errors,
	                           * timeouts, cut-short bodies and HTTP 5xx, never 4xx */
	long retry_delay_ms;      /* 1000: the wait before the second attempt, doubled
	                           * before each further one */
	int max_redirects;        /* 10: per attempt; a longer chain (or a loop) fails */
	int max_parallel;         /* 4: concurrent downloads in fg_fetch_many */
	const char *const *headers; /* NULL: extra request headers, "Name: value" each */
	size_t nheaders;          /* 0 */
	/* NULL: the URL whose origin (scheme, host, port) the headers are for:
	 * the runs file's or the --profile template's, so that a runs file
	 * fetched from one host cannot send its token to another it lists.
	 * NULL: each source's own URL (the first hop). */
	const char *header_origin;
	/* NULL: more hosts ("host" or "host:port", case-insensitive) that get
	 * the headers too (--header-host). */
	const char *const *header_hosts;
	size_t nheader_hosts;     /* 0 */
	bool netrc;               /* false: use ~/.netrc credentials when it has the host */
	bool no_cache;            /* false: neither read nor write the cache */
	bool refresh;             /* false: download even on a cache hit, and replace the entry */
	const char *cache_dir;    /* NULL: $XDG_CACHE_HOME/fgbisect or ~/.cache/fgbisect */
	uint64_t max_size;        /* 4 GiB: a larger download fails; 0 = no limit */
	/* NULL: called now and then during each download with the bytes received
	 * so far and the expected total (0 when unknown), and once more with
	 * done == total when a download completes.  url has no credentials.
	 * Called from the thread that called fg_fetch / fg_fetch_many. */
	fg_fetch_progress_fn progress;
	void *progress_ctx;       /* NULL: passed to progress */
} fg_fetch_options;

/* Sets the defaults above. */
void fg_fetch_options_init(fg_fetch_options *opts);

typedef struct fg_fetch_result {
	char *path;          /* the local file to read (owned); NULL when the fetch failed */
	bool temporary;      /* path is a temporary file fg_fetch_result_clear deletes */
	bool from_cache;     /* served from the cache without a download */
	char warning[256];   /* empty, or one line the caller should show (the cache was
	                      * unusable and the download went to a temporary file ...) */
	fg_error err;        /* FG_OK, or why this source failed */
	bool denied;         /* failed with 401 (credentials refused) or 403/429 with
	                      * x-ratelimit-remaining: 0 (rate limit): the same for every
	                      * source of that server, so run mode aborts rather than skips */
	struct fg_cleanup_item *cleanup; /* internal: a temporary path removed if interrupted */
} fg_fetch_result;

/* Fetches one source.  Returns 0, or the negative code also in out->err and
 * err: FG_EFETCH (download or read failed, HTTP error status, timeout, too
 * large), FG_EUSAGE (malformed header option, unsupported URL scheme),
 * FG_ENOMEM.  out is always initialised; clear it with fg_fetch_result_clear.
 * opts may be NULL for the defaults. */
int fg_fetch(fg_fetch_result *out, const char *source, const fg_fetch_options *opts, fg_error *err);

/* Fetches n sources in parallel (at most opts->max_parallel downloads at a
 * time), each into its own result with its own error record.  Returns the
 * number of sources that failed. */
size_t fg_fetch_many(fg_fetch_result *out, const char *const *sources, size_t n,
                     const fg_fetch_options *opts);

/* A response body collected in memory by the API clients (prom.c,
 * github.c), at most max bytes, NUL-terminated; free data. */
typedef struct fg_fetch_body {
	char *data;
	size_t len, cap, max;
	bool too_large;      /* more than max bytes came: the transfer was stopped */
} fg_fetch_body;

/* What every API request of those clients shares, set on a libcurl easy
 * handle (easy: a CURL *, headers: a struct curl_slist *): the URL and
 * headers, the body collected into body, errors into errbuf
 * (CURL_ERROR_SIZE bytes), no redirect followed (the caller decides where a
 * token may go), http and https only, any encoding, the user agent, no
 * signals.  In the module: for its own clients only. */
void fg_fetch_api_request(void *easy, const char *url, void *headers, fg_fetch_body *body, char *errbuf);

/* Deletes the temporary file if any, frees the path and resets the result. */
void fg_fetch_result_clear(fg_fetch_result *r);

/* Whether h is a well-formed extra header: "Name: value", a token name and
 * no line break that could smuggle in another header.  (The value is never
 * echoed back in a message.) */
bool fg_fetch_header_valid(const char *h);

#endif
