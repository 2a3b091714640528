#include "net/fetch.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "net/cache.h"
#include "base/cleanup.h"

/* Below this rate for stall_timeout_s an attempt counts as stalled. */
#define STALL_BYTES_PER_S 1024L
/* The body of an error status or of a redirect is read (and dropped) up to
 * this much, then the transfer stops: nobody needs more than a page of it,
 * and an endless one would otherwise run to the timeout. */
#define DISCARDED_BODY_MAX (64 * 1024)

static int hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* file://[localhost]/path → /path, percent-decoded. */
static int file_url_path(char **out, const char *url, const char *shown, fg_error *err)
{
	const char *p = url + strlen("file://");
	size_t host = strcspn(p, "/");
	if (host != 0 && !(host == 9 && strncasecmp(p, "localhost", 9) == 0))
		return fg_error_set(err, FG_EFETCH, shown, "a file:// URL must name a local file");
	p += host;
	size_t len = strcspn(p, "?#");
	if (len == 0)
		return fg_error_set(err, FG_EFETCH, shown, "a file:// URL needs a path");
	char *path = malloc(len + 1), *q = path;
	if (!path)
		return fg_error_oom(err, shown);
	for (size_t i = 0; i < len; i++) {
		int hi, lo;
		if (p[i] == '%' && i + 2 < len && (hi = hex_value(p[i + 1])) >= 0 &&
		    (lo = hex_value(p[i + 2])) >= 0) {
			*q = (char)(hi << 4 | lo);
			i += 2;
		} else {
			*q = p[i];
		}
		if (*q++ == '\0') {
			free(path);
			return fg_error_set(err, FG_EFETCH, shown, "a file:// URL path cannot hold %%00");
		}
	}
	*q = '\0';
	*out = path;
	return 0;
}

int fg_url_resolve(char **out, const char *base, const char *location, fg_error *err)
{
	*out = NULL;
	if (!location || !location[0])
		return fg_error_set(err, FG_ECONFIG, base, "empty profile location");

	if (fg_url_scheme_length(location) > 0 || !strcmp(location, "-") || !base || !strcmp(base, "-")) {
		*out = strdup(location);
	} else if (fg_url_is(base)) {
		/* Any location is a URL reference here: "/x" is on base's host. */
		CURLU *u = curl_url();
		char *resolved = NULL;
		if (!u)
			return fg_error_oom(err, NULL);
		CURLUcode uc = curl_url_set(u, CURLUPART_URL, base, 0);
		if (uc == CURLUE_OK)
			uc = curl_url_set(u, CURLUPART_URL, location, 0);
		if (uc == CURLUE_OK)
			uc = curl_url_get(u, CURLUPART_URL, &resolved, 0);
		curl_url_cleanup(u);
		if (uc != CURLUE_OK) {
			char *shown = fg_url_redact(base);
			int rc = fg_error_set(err, FG_ECONFIG, shown, "cannot resolve location '%s': %s",
			                      location, curl_url_strerror(uc));
			free(shown);
			return rc;
		}
		*out = strdup(resolved);
		curl_free(resolved);
	} else {
		const char *slash = strrchr(base, '/');
		if (!slash || location[0] == '/') {
			*out = strdup(location);
		} else {
			size_t dir = (size_t)(slash - base) + 1, len = strlen(location);
			*out = malloc(dir + len + 1);
			if (*out) {
				memcpy(*out, base, dir);
				memcpy(*out + dir, location, len + 1);
			}
		}
	}
	if (!*out)
		return fg_error_oom(err, NULL);
	return 0;
}

/* "scheme://host:port" of a URL, lowercase, default port filled in, so that
 * two hops can be compared; NULL when it cannot be parsed. */
static char *origin_of(const char *url)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *port = NULL, *origin = NULL;
	if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK) {
		size_t len = strlen(scheme) + strlen(host) + strlen(port) + 5;
		origin = malloc(len);
		if (origin) {
			snprintf(origin, len, "%s://%s:%s", scheme, host, port);
			for (char *p = origin; *p; p++)
				*p = (char)tolower((unsigned char)*p);
		}
	}
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(u);
	return origin;
}

/* The host and port of a URL, lowercase ("host:port", default port filled
 * in), or NULL. */
static char *host_port_of(const char *url)
{
	char *origin = origin_of(url);
	if (!origin)
		return NULL;
	char *hp = strdup(origin + strcspn(origin, ":") + 3);
	free(origin);
	return hp;
}

/* May this hop get the extra headers?  Its origin is the credentials'
 * origin, or its host (with or without its port) is one of header_hosts. */
static bool headers_allowed(const char *cred_origin, const fg_fetch_options *o, const char *url)
{
	char *origin = origin_of(url);
	bool ok = origin && cred_origin && !strcmp(origin, cred_origin);
	free(origin);
	if (ok || o->nheader_hosts == 0)
		return ok;
	char *hp = host_port_of(url);
	if (!hp)
		return false;
	size_t host_len = strcspn(hp, ":"); /* IPv6 literals come bracketed: "[::1]:80" */
	if (hp[0] == '[')
		host_len = strcspn(hp, "]") + 1;
	for (size_t i = 0; i < o->nheader_hosts && !ok; i++) {
		const char *h = o->header_hosts[i];
		ok = !strcasecmp(h, hp) || (strlen(h) == host_len && !strncasecmp(h, hp, host_len));
	}
	free(hp);
	return ok;
}

/* "Name: value", a token name and no line breaks that could smuggle in
 * another header.  The value is never echoed back in a message. */
bool fg_fetch_header_valid(const char *h)
{
	size_t name = strcspn(h, ":");
	if (name == 0 || h[name] != ':' || strpbrk(h, "\r\n"))
		return false;
	for (size_t i = 0; i < name; i++)
		if (!isgraph((unsigned char)h[i]))
			return false;
	return true;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

enum xfer_state { XFER_WAITING, XFER_RUNNING, XFER_DONE };

/* One http(s) source in flight: its attempts, its redirect hops, its sink. */
struct xfer {
	fg_fetch_result *res;
	const fg_fetch_options *opts;
	const char *source;      /* the URL as given (may hold user:password) */
	char *shown;             /* the URL without credentials: messages, progress */
	char *origin;            /* the credentials' origin: the extra headers go there (and
	                          * to opts->header_hosts) only */
	char *url;               /* this hop's URL */
	CURL *easy;
	enum xfer_state state;
	bool new_attempt;        /* the next start begins an attempt at source */
	bool send_headers;
	int attempt;             /* attempts begun */
	int hops;                /* redirects followed in this attempt */
	uint64_t not_before;     /* back-off: do not start before this (ms) */
	uint64_t deadline;       /* end of this attempt (ms) */
	fg_cache_entry *entry;   /* the sink when caching ... */
	int fd;                  /* ... else a temporary file */
	char *tmp_path;
	fg_cleanup_item cleanup; /* tmp_path, removed if we are interrupted */
	uint64_t received;       /* body bytes of this attempt */
	uint64_t discarded;      /* bytes of an error or redirect body of this hop */
	bool body_capped;        /* ... that reached DISCARDED_BODY_MAX: the transfer was stopped */
	bool cache_full;         /* writing the cache entry failed: start over into a temporary file */
	uint64_t shown_done, shown_total; /* last progress reported */
	bool too_large;
	bool rate_limited;       /* this hop answered x-ratelimit-remaining: 0 */
	fg_error sink_err;       /* a failed write */
	char errbuf[CURL_ERROR_SIZE];
};

struct batch {
	const fg_fetch_options *opts;
	CURLM *multi;
	struct curl_slist *headers;
	int running;
};

static void drop_sink(struct xfer *x)
{
	fg_cache_entry_free(x->entry);
	x->entry = NULL;
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
	fg_cleanup_remove(&x->cleanup);
	if (x->tmp_path)
		unlink(x->tmp_path);
	free(x->tmp_path);
	x->tmp_path = NULL;
}

static void xfer_fail(struct xfer *x, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void xfer_fail(struct xfer *x, int code, const char *fmt, ...)
{
	char msg[sizeof(x->res->err.message)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fg_error_set(&x->res->err, code, x->shown, "%s", msg);
	drop_sink(x);
	x->state = XFER_DONE;
}

static void set_warning(fg_fetch_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Warnings are one line, cut to the result's buffer. */
static void set_warning(fg_fetch_result *res, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->warning, sizeof(res->warning), fmt, ap);
	va_end(ap);
}

static int temp_file(char **path, int *fd, fg_cleanup_item *item, fg_error *err)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || dir[0] != '/')
		dir = "/tmp";
	size_t len = strlen(dir) + sizeof("/fgbisect-XXXXXX");
	if (!(*path = malloc(len)))
		return fg_error_oom(err, NULL);
	snprintf(*path, len, "%s/fgbisect-XXXXXX", dir);
	if ((*fd = fg_cleanup_mkstemp(item, *path)) < 0) {
		int rc = fg_error_set(err, FG_EFETCH, NULL, "cannot create a temporary file in %s: %s", dir,
		                      strerror(errno));
		free(*path);
		*path = NULL;
		return rc;
	}
	return 0;
}

static int sink_write(struct xfer *x, const void *data, size_t len)
{
	if (x->entry)
		return fg_cache_entry_write(x->entry, data, len, &x->sink_err);
	const char *p = data;
	while (len > 0) {
		ssize_t n = write(x->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fg_error_set(&x->sink_err, FG_EFETCH, NULL, "cannot write %s: %s", x->tmp_path,
			                    strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int sink_reset(struct xfer *x)
{
	x->received = 0;
	if (x->entry)
		return fg_cache_entry_reset(x->entry, &x->sink_err);
	if (ftruncate(x->fd, 0) < 0 || lseek(x->fd, 0, SEEK_SET) < 0)
		return fg_error_set(&x->sink_err, FG_EFETCH, NULL, "cannot truncate %s: %s", x->tmp_path,
		                    strerror(errno));
	return 0;
}

static size_t on_write(char *data, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t len = size * nmemb;
	long status = 0;
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	/* The body of a redirect or of an error status is not the profile. */
	if (status < 200 || status >= 300) {
		x->discarded += len;
		if (x->discarded > DISCARDED_BODY_MAX) {
			x->body_capped = true;
			return 0;
		}
		return len;
	}
	if (x->opts->max_size && len > x->opts->max_size - x->received) {
		x->too_large = true;
		return 0;
	}
	if (sink_write(x, data, len) < 0) {
		/* A full or failing cache file system costs the cache, not the
		 * download: start over into a temporary file (xfer_finished). */
		if (x->entry && x->sink_err.code == FG_EFETCH) {
			x->cache_full = true;
			set_warning(x->res, "download not cached: %s", x->sink_err.message);
			fg_error_clear(&x->sink_err);
		}
		return 0;
	}
	x->received += len;
	return len;
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	struct xfer *x = ud;
	(void)ultotal;
	(void)ulnow;
	/* libcurl calls this many times a second even when nothing moved. */
	if ((uint64_t)dlnow != x->shown_done || (uint64_t)dltotal != x->shown_total) {
		x->shown_done = (uint64_t)dlnow;
		x->shown_total = (uint64_t)dltotal;
		x->opts->progress(x->opts->progress_ctx, x->shown, x->shown_done, x->shown_total);
	}
	return 0;
}

/* libcurl's CURLOPT_WRITEFUNCTION for an fg_fetch_body (ud). */
static size_t body_write(char *data, size_t size, size_t nmemb, void *ud)
{
	fg_fetch_body *b = ud;
	size_t n = size * nmemb;
	if (b->len + n > b->max) {
		b->too_large = true;
		return 0;
	}
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 16384;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *d = realloc(b->data, cap);
		if (!d)
			return 0;
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, data, n);
	b->len += n;
	b->data[b->len] = '\0';
	return n;
}

void fg_fetch_api_request(void *easy, const char *url, void *headers, fg_fetch_body *body, char *errbuf)
{
	CURL *e = easy;
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, (struct curl_slist *)headers);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, body_write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, body);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(e, CURLOPT_USERAGENT, "fgbisect/" FG_VERSION);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
}

/* Notes a used-up rate limit (GitHub's x-ratelimit-remaining: 0). */
static size_t on_header(char *h, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb;
	static const char name[] = "x-ratelimit-remaining:";
	if (n > sizeof(name) && !strncasecmp(h, name, sizeof(name) - 1)) {
		const char *v = h + sizeof(name) - 1;
		while (*v == ' ' || *v == '\t')
			v++;
		x->rate_limited = *v == '0' && (v[1] == '\r' || v[1] == '\n' || v[1] == ' ');
	}
	return n;
}

static int xfer_setup(struct xfer *x, fg_error *err)
{
	const fg_fetch_options *o = x->opts;
	if (!(x->easy = curl_easy_init()))
		return fg_error_set(err, FG_ENOMEM, x->shown, "cannot start libcurl");
	CURL *e = x->easy;
	curl_easy_setopt(e, CURLOPT_PRIVATE, x);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
	if (o->progress) {
		curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(e, CURLOPT_XFERINFODATA, x);
		curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
	}
	/* Redirects are followed by hand (see fetch.h), and only to http(s). */
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(e, CURLOPT_USERAGENT, "fgbisect/" FG_VERSION);
	if (o->connect_timeout_s > 0)
		curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, o->connect_timeout_s);
	if (o->stall_timeout_s > 0) {
		curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, STALL_BYTES_PER_S);
		curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, o->stall_timeout_s);
	}
	if (o->max_size)
		curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)o->max_size);
	if (o->netrc)
		curl_easy_setopt(e, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
	return 0;
}

/* Starts the next hop, or the next attempt, of x. */
static void xfer_start(struct batch *b, struct xfer *x, uint64_t now)
{
	const fg_fetch_options *o = b->opts;
	if (x->new_attempt) {
		x->new_attempt = false;
		x->attempt++;
		x->hops = 0;
		x->send_headers = headers_allowed(x->origin, o, x->source);
		x->deadline = o->total_timeout_s > 0 ? now + (uint64_t)o->total_timeout_s * 1000 : UINT64_MAX;
		free(x->url);
		if (!(x->url = strdup(x->source))) {
			xfer_fail(x, FG_ENOMEM, "out of memory");
			return;
		}
	}
	if (now >= x->deadline) {
		xfer_fail(x, FG_EFETCH, "timed out after %ld s", o->total_timeout_s);
		return;
	}
	x->errbuf[0] = '\0';
	x->discarded = 0;
	x->body_capped = false;
	x->rate_limited = false;
	curl_easy_setopt(x->easy, CURLOPT_URL, x->url);
	curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, x->send_headers ? b->headers : NULL);
	if (x->deadline != UINT64_MAX)
		curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS, (long)(x->deadline - now));
	if (curl_multi_add_handle(b->multi, x->easy) != CURLM_OK) {
		xfer_fail(x, FG_EINTERNAL, "cannot start the transfer");
		return;
	}
	x->state = XFER_RUNNING;
	b->running++;
}

/* Failures worth another attempt: the network or the server, not the request. */
static bool transient(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_PARTIAL_FILE:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return true;
	default:
		return false;
	}
}

/* Schedules another attempt after the back-off, if tries are left. */
static bool xfer_retry(struct batch *b, struct xfer *x, uint64_t now)
{
	if (x->attempt >= b->opts->tries)
		return false;
	if (sink_reset(x) < 0) {
		xfer_fail(x, x->sink_err.code, "%s", x->sink_err.message);
		return true;
	}
	long delay = b->opts->retry_delay_ms > 0 ? b->opts->retry_delay_ms : 0;
	for (int i = 1; i < x->attempt && delay < 60 * 1000; i++)
		delay *= 2;
	x->new_attempt = true;
	x->not_before = now + (uint64_t)delay;
	x->state = XFER_WAITING;
	return true;
}

static void xfer_follow(struct batch *b, struct xfer *x, const char *location, uint64_t now);

static void xfer_redirect(struct batch *b, struct xfer *x, long status, uint64_t now)
{
	char *location = NULL, *resolved = NULL;
	curl_easy_getinfo(x->easy, CURLINFO_REDIRECT_URL, &location);
	struct curl_header *h;
	/* libcurl resolves the Location only for a transfer it completed; one
	 * stopped at the body cap has the header alone. */
	if (!location && curl_easy_header(x->easy, "Location", 0, CURLH_HEADER, -1, &h) == CURLHE_OK) {
		fg_error rerr;
		if (fg_url_resolve(&resolved, x->url, h->value, &rerr) < 0) {
			xfer_fail(x, rerr.code == FG_ENOMEM ? FG_ENOMEM : FG_EFETCH, "redirected to a bad Location");
			return;
		}
		location = resolved;
	}
	if (!location) {
		xfer_fail(x, FG_EFETCH, "HTTP status %ld without a Location", status);
		return;
	}
	xfer_follow(b, x, location, now);
	free(resolved);
}

static void xfer_follow(struct batch *b, struct xfer *x, const char *location, uint64_t now)
{
	if (x->hops >= b->opts->max_redirects) {
		xfer_fail(x, FG_EFETCH, "too many redirects (more than %d)", b->opts->max_redirects);
		return;
	}
	if (!fg_url_is_http(location)) {
		xfer_fail(x, FG_EFETCH, "redirected to a URL that is not http:// or https://");
		return;
	}
	if (!headers_allowed(x->origin, b->opts, location))
		x->send_headers = false;
	free(x->url);
	if (!(x->url = strdup(location))) {
		xfer_fail(x, FG_ENOMEM, "out of memory");
		return;
	}
	x->hops++;
	x->not_before = now;
	x->state = XFER_WAITING;
}

/* The cache entry could not be written: the same attempt starts again into
 * a temporary file (the bytes already in the entry are compressed and
 * cannot be taken back out cheaply). */
static void xfer_uncached(struct xfer *x, uint64_t now)
{
	fg_error serr;
	x->cache_full = false;
	drop_sink(x);
	if (temp_file(&x->tmp_path, &x->fd, &x->cleanup, &serr) < 0) {
		xfer_fail(x, serr.code, "%s", serr.message);
		return;
	}
	x->received = 0;
	x->attempt--; /* not the server's fault: no try is used up */
	x->new_attempt = true;
	x->not_before = now;
	x->state = XFER_WAITING;
}

static void xfer_succeed(struct xfer *x)
{
	fg_fetch_result *res = x->res;
	if (x->entry) {
		fg_error cerr;
		fg_error_clear(&cerr);
		res->temporary = true; /* committed: the download, a copy of the entry; or detached */
		if (fg_cache_entry_commit(&res->path, x->entry, &cerr) < 0) {
			fg_error derr;
			if (fg_cache_entry_detach(&res->path, x->entry, &derr) < 0) {
				if (derr.code == FG_ENOMEM || cerr.code == FG_ENOMEM) {
					xfer_fail(x, FG_ENOMEM, "out of memory");
				} else {
					/* The entry's last bytes could not be written. */
					set_warning(res, "download not cached: %s", cerr.message);
					xfer_uncached(x, now_ms());
				}
				return;
			}
			/* A served gzip that does not verify is no cache failure:
			 * the parser will say what is wrong with it. */
			if (cerr.code != FG_EINVALID)
				set_warning(res, "download not cached: %s", cerr.message);
		}
	} else {
		if (close(x->fd) < 0) {
			x->fd = -1;
			xfer_fail(x, FG_EFETCH, "cannot write %s: %s", x->tmp_path, strerror(errno));
			return;
		}
		x->fd = -1;
		fg_cleanup_remove(&x->cleanup);
		res->path = x->tmp_path;
		res->temporary = true;
		x->tmp_path = NULL;
	}
	if (res->temporary && (res->cleanup = malloc(sizeof(*res->cleanup))))
		fg_cleanup_add_path(res->cleanup, res->path, false);
	drop_sink(x);
	x->state = XFER_DONE;
	if (x->opts->progress)
		x->opts->progress(x->opts->progress_ctx, x->shown, x->received, x->received);
}

static void xfer_finished(struct batch *b, struct xfer *x, CURLcode rc, uint64_t now)
{
	curl_multi_remove_handle(b->multi, x->easy);
	b->running--;
	long status = 0;
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	char tries[32] = "";
	if (x->attempt > 1)
		snprintf(tries, sizeof(tries), " (after %d tries)", x->attempt);

	/* An error or redirect body stopped at its cap: the status is what counts. */
	if (x->body_capped && rc == CURLE_WRITE_ERROR)
		rc = CURLE_OK;
	if (x->cache_full) {
		xfer_uncached(x, now);
	} else if (x->sink_err.code != FG_OK) {
		xfer_fail(x, x->sink_err.code, "%s", x->sink_err.message);
	} else if (x->too_large || rc == CURLE_FILESIZE_EXCEEDED) {
		xfer_fail(x, FG_EFETCH, "larger than the size limit (%llu bytes)",
		          (unsigned long long)b->opts->max_size);
	} else if (rc != CURLE_OK) {
		if (!transient(rc) || !xfer_retry(b, x, now))
			xfer_fail(x, FG_EFETCH, "%s%s", x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc), tries);
	} else if (status >= 300 && status < 400) {
		xfer_redirect(b, x, status, now);
	} else if (status >= 500 && xfer_retry(b, x, now)) {
		/* retried */
	} else if (status == 401 || ((status == 403 || status == 429) && x->rate_limited)) {
		xfer_fail(x, FG_EFETCH, "HTTP status %ld: %s", status,
		          status == 401 ? "the credentials were refused (missing, wrong or expired: --header)"
		                        : "the server's rate limit is used up (x-ratelimit-remaining: 0)");
		x->res->denied = true;
	} else if (status < 200 || status >= 300) {
		xfer_fail(x, FG_EFETCH, "HTTP status %ld%s", status, tries);
	} else {
		xfer_succeed(x);
	}
}

/* Prepares an http(s) source: cache lookup, then the sink and the handle. */
static void xfer_prepare(struct xfer *x, fg_cache *cache, const char *cache_warning)
{
	fg_fetch_result *res = x->res;
	const fg_fetch_options *o = x->opts;
	x->fd = -1;
	char *own = origin_of(x->source);
	if (!own) {
		xfer_fail(x, FG_EFETCH, "not a valid URL");
		return;
	}
	/* A header_origin that does not parse (a template with a placeholder
	 * in its host) gives no origin: only header_hosts get the headers. */
	if (o->header_origin) {
		free(own);
		own = origin_of(o->header_origin);
	}
	x->origin = own;
	if (cache_warning)
		set_warning(res, "cache not used: %s", cache_warning);
	if (cache) {
		/* The key is the URL alone: no credentials, no fragment (never
		 * sent), and never the headers. */
		char *key = strndup(x->shown, strcspn(x->shown, "#"));
		if (!key) {
			xfer_fail(x, FG_ENOMEM, "out of memory");
			return;
		}
		int hit = 0;
		if (!o->refresh) {
			if (!(res->cleanup = malloc(sizeof(*res->cleanup))))
				hit = fg_error_oom(&res->err, x->shown);
			else if ((hit = fg_cache_lookup(&res->path, res->cleanup, cache, key, &res->err)) <= 0)
				free(res->cleanup), res->cleanup = NULL;
			res->temporary = hit > 0; /* the entry's copy */
		}
		if (hit == 0) {
			fg_error cerr;
			if (fg_cache_entry_new(&x->entry, cache, key, &cerr) < 0) {
				if (cerr.code == FG_ENOMEM)
					hit = fg_error_oom(&res->err, x->shown);
				else
					set_warning(res, "cache not used: %s", cerr.message);
			}
		}
		free(key);
		if (hit != 0) {
			res->from_cache = hit > 0;
			x->state = XFER_DONE;
			return;
		}
	}
	fg_error serr;
	if (!x->entry && temp_file(&x->tmp_path, &x->fd, &x->cleanup, &serr) < 0) {
		xfer_fail(x, serr.code, "%s", serr.message);
		return;
	}
	if (xfer_setup(x, &serr) < 0) {
		xfer_fail(x, serr.code, "%s", serr.message);
		return;
	}
	x->new_attempt = true;
	x->state = XFER_WAITING;
}

static void run(struct batch *b, struct xfer *xs, size_t n)
{
	int max_parallel = b->opts->max_parallel > 0 ? b->opts->max_parallel : 1;
	for (;;) {
		uint64_t now = now_ms();
		long wait = 1000;
		bool pending = false;
		for (size_t i = 0; i < n; i++) {
			struct xfer *x = &xs[i];
			if (x->state != XFER_WAITING)
				continue;
			if (x->not_before <= now && b->running < max_parallel)
				xfer_start(b, x, now);
			else if (x->not_before > now && (long)(x->not_before - now) < wait)
				wait = (long)(x->not_before - now);
			pending |= x->state == XFER_WAITING;
		}
		if (b->running == 0 && !pending)
			return;

		int still;
		CURLMcode mc = curl_multi_perform(b->multi, &still);
		bool finished = false;
		CURLMsg *msg;
		int queued;
		while ((msg = curl_multi_info_read(b->multi, &queued))) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			struct xfer *x = NULL;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
			/* msg is invalid once its handle is removed: read it first. */
			CURLcode rc = msg->data.result;
			xfer_finished(b, x, rc, now_ms());
			finished = true;
		}
		/* A finished transfer frees a slot or schedules a hop: go start it. */
		if (mc == CURLM_OK && !finished)
			mc = curl_multi_poll(b->multi, NULL, 0, (int)wait, NULL);
		if (mc != CURLM_OK) {
			/* Only out of memory or a bug: nothing will progress. */
			for (size_t i = 0; i < n; i++) {
				if (xs[i].state == XFER_RUNNING)
					curl_multi_remove_handle(b->multi, xs[i].easy);
				if (xs[i].state != XFER_DONE)
					xfer_fail(&xs[i], FG_EINTERNAL, "libcurl: %s", curl_multi_strerror(mc));
			}
			return;
		}
	}
}

/* Downloads the http(s) sources: one multi handle, one cache, one header
 * list for the whole batch. */
static void fetch_http(struct xfer *xs, size_t nx, const fg_fetch_options *opts)
{
	for (size_t i = 0; i < opts->nheaders; i++) {
		if (!fg_fetch_header_valid(opts->headers[i])) {
			for (size_t j = 0; j < nx; j++)
				xfer_fail(&xs[j], FG_EUSAGE, "malformed header option %zu (expected 'Name: value')",
				          i + 1);
			return;
		}
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		for (size_t j = 0; j < nx; j++)
			xfer_fail(&xs[j], FG_EINTERNAL, "cannot initialise libcurl");
		return;
	}

	struct batch b = { .opts = opts };
	fg_cache *cache = NULL;
	fg_error cerr;
	fg_error_clear(&cerr);
	bool oom = !(b.multi = curl_multi_init());
	for (size_t i = 0; i < opts->nheaders && !oom; i++) {
		struct curl_slist *l = curl_slist_append(b.headers, opts->headers[i]);
		oom = !l;
		if (l)
			b.headers = l;
	}
	if (!oom && !opts->no_cache && fg_cache_open(&cache, opts->cache_dir, &cerr) < 0)
		oom = cerr.code == FG_ENOMEM;
	for (size_t j = 0; j < nx; j++) {
		if (oom)
			xfer_fail(&xs[j], FG_ENOMEM, "out of memory");
		else
			xfer_prepare(&xs[j], cache, !opts->no_cache && !cache ? cerr.message : NULL);
	}
	if (!oom)
		run(&b, xs, nx);

	for (size_t j = 0; j < nx; j++) {
		if (xs[j].easy)
			curl_easy_cleanup(xs[j].easy);
		drop_sink(&xs[j]);
	}
	curl_multi_cleanup(b.multi);
	curl_slist_free_all(b.headers);
	fg_cache_free(cache);
	curl_global_cleanup();
}

size_t fg_fetch_many(fg_fetch_result *out, const char *const *sources, size_t n,
                     const fg_fetch_options *opts)
{
	fg_fetch_options defaults;
	if (!opts) {
		fg_fetch_options_init(&defaults);
		opts = &defaults;
	}
	struct xfer *xs = calloc(n ? n : 1, sizeof(*xs));
	size_t nx = 0;
	for (size_t i = 0; i < n; i++) {
		fg_fetch_result *res = &out[i];
		memset(res, 0, sizeof(*res));
		const char *src = sources[i];
		char *shown = fg_url_redact(src);
		if (!xs || !shown) {
			fg_error_oom(&res->err, NULL);
			free(shown);
			continue;
		}
		if (fg_url_is_http(src)) {
			xs[nx].res = res;
			xs[nx].opts = opts;
			xs[nx].source = src;
			xs[nx].shown = shown;
			xs[nx].fd = -1;
			nx++;
			continue;
		}
		if (fg_url_is(src)) /* file:// */
			file_url_path(&res->path, src, shown, &res->err);
		else if (fg_url_scheme_length(src) > 0)
			fg_error_set(&res->err, FG_EUSAGE, shown,
			             "unsupported URL scheme (fgbisect reads file://, http:// and https://)");
		else if (!(res->path = strdup(src)))
			fg_error_oom(&res->err, NULL);
		free(shown);
	}

	if (nx > 0)
		fetch_http(xs, nx, opts);

	for (size_t j = 0; j < nx; j++) {
		free(xs[j].shown);
		free(xs[j].origin);
		free(xs[j].url);
	}
	free(xs);
	size_t failed = 0;
	for (size_t i = 0; i < n; i++)
		failed += out[i].err.code != FG_OK;
	return failed;
}

int fg_fetch(fg_fetch_result *out, const char *source, const fg_fetch_options *opts, fg_error *err)
{
	fg_fetch_many(out, &source, 1, opts);
	if (err)
		*err = out->err;
	return out->err.code;
}

void fg_fetch_result_clear(fg_fetch_result *r)
{
	if (!r)
		return;
	if (r->cleanup) {
		fg_cleanup_remove(r->cleanup);
		free(r->cleanup);
	}
	if (r->temporary && r->path)
		unlink(r->path);
	free(r->path);
	memset(r, 0, sizeof(*r));
}
