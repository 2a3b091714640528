/* fgbisect — a Prometheus HTTP API client (docs/metrics.md).
 *
 * Instant queries (GET BASE/api/v1/query) and range queries
 * (BASE/api/v1/query_range) over libcurl, the JSON answer decoded with
 * jansson.  BASE is a Prometheus server's URL, or any prefix that serves the
 * same API below it: Grafana's data-source proxy
 * (https://grafana.example/api/datasources/proxy/uid/UID) answers exactly
 * as the Prometheus behind it does.
 *
 * Credentials (--header values, .netrc, a URL's user:password) are never put
 * in a message and never stored: nothing of a query is cached.  Redirects are
 * not followed: an API that redirects is a login page or a wrong base URL, and
 * following it would send the headers elsewhere; the error says so.
 *
 * Errors (the code, and so the command's exit status):
 *  - FG_EFETCH: cannot connect, timeout, an HTTP error status, a redirect, a
 *    query the server failed to run (errorType timeout, execution, internal,
 *    unavailable, canceled: the server's own message is kept);
 *  - FG_ECONFIG: a query the server refused as malformed (errorType
 *    bad_data: the PromQL or its parameters are wrong);
 *  - FG_EINVALID: an answer that is not a Prometheus API response (an HTML
 *    login page, a truncated body, an unexpected result type);
 *  - FG_EUSAGE: a malformed base URL or header option. */
#ifndef FG_PROM_H
#define FG_PROM_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

typedef struct fg_prom_options {
	long connect_timeout_s;     /* 10 */
	long timeout_s;             /* 60: one request */
	int tries;                  /* 3: attempts per request; retried are connection
	                             * errors, timeouts and HTTP 502/503/504 */
	long retry_delay_ms;        /* 250: before the second attempt, doubled after */
	const char *const *headers; /* NULL: extra request headers, "Name: value" each */
	size_t nheaders;            /* 0 */
	bool netrc;                 /* false: use ~/.netrc credentials for the host */
} fg_prom_options;

/* Sets the defaults above (inline: options never load the network and git module, src/module/lazy.c). */
static inline void fg_prom_options_init(fg_prom_options *opts)
{
	*opts = (fg_prom_options){ .connect_timeout_s = 10, .timeout_s = 60, .tries = 3, .retry_delay_ms = 250 };
}

typedef struct fg_prom_label {
	char *name;
	char *value;
} fg_prom_label;

/* One series of an answer: its labels (sorted by name) and its points in time
 * order; an instant vector or a scalar has one point.  Values are doubles,
 * NaN and ±Inf included, as the server wrote them. */
typedef struct fg_prom_series {
	fg_prom_label *labels;
	size_t nlabels;
	double *times;  /* Unix seconds */
	double *values;
	size_t npoints;
} fg_prom_series;

typedef struct fg_prom_result {
	fg_prom_series *series;
	size_t nseries;
	char warning[256]; /* the server's first warning, or empty */
} fg_prom_result;

void fg_prom_result_clear(fg_prom_result *r);

/* The value of label name in s, or NULL. */
const char *fg_prom_series_label(const fg_prom_series *s, const char *name);

typedef struct fg_prom fg_prom;

/* A client for the API below base_url (http:// or https://; trailing slashes
 * are ignored).  opts may be NULL for the defaults; it is copied, the header
 * strings are not (they must outlive the client). */
int fg_prom_new(fg_prom **out, const char *base_url, const fg_prom_options *opts, fg_error *err);
void fg_prom_free(fg_prom *p);

/* The base URL without any user:password part, for messages. */
const char *fg_prom_shown_url(const fg_prom *p);

/* Evaluates query at time (Unix seconds). */
int fg_prom_query(fg_prom_result *out, fg_prom *p, const char *query, double time, fg_error *err);

/* Evaluates query at start, start + step, ... up to end (Unix seconds). */
int fg_prom_query_range(fg_prom_result *out, fg_prom *p, const char *query, double start, double end,
                        double step, fg_error *err);

/* Decodes an API answer: body[0..len) with its HTTP status.  source names
 * the request in errors.  What fg_prom_query does after the transfer; public
 * for the tests and the fuzz target. */
int fg_prom_decode(fg_prom_result *out, const char *body, size_t len, long http_status, const char *source,
                   fg_error *err);

#endif
