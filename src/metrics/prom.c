#include "metrics/prom.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>
#include <jansson.h>

#include "net/fetch.h"

/* An answer larger than this is not one a lens query should produce (a
 * query without aggregation over a whole cluster): refuse it. */
#define MAX_BODY ((size_t)64 << 20)

struct fg_prom {
	fg_prom_options opts;
	char *base;   /* as given, trailing slashes removed (may hold user:password) */
	char *shown;  /* base without credentials */
	CURL *easy;
	struct curl_slist *headers;
};

static void series_clear(fg_prom_series *s)
{
	for (size_t i = 0; i < s->nlabels; i++) {
		free(s->labels[i].name);
		free(s->labels[i].value);
	}
	free(s->labels);
	free(s->times);
	free(s->values);
	memset(s, 0, sizeof(*s));
}

void fg_prom_result_clear(fg_prom_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nseries; i++)
		series_clear(&r->series[i]);
	free(r->series);
	memset(r, 0, sizeof(*r));
}

const char *fg_prom_series_label(const fg_prom_series *s, const char *name)
{
	for (size_t i = 0; i < s->nlabels; i++)
		if (!strcmp(s->labels[i].name, name))
			return s->labels[i].value;
	return NULL;
}

/* ---- decoding -------------------------------------------------------- */

struct decoder {
	const char *source;
	fg_error *err;
};

__attribute__((format(printf, 2, 3))) static int bad_answer(const struct decoder *d, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fg_error_set(d->err, FG_EINVALID, d->source, "not a Prometheus API answer: %s", msg);
}

/* A sample: [time, "value"]. */
static int decode_point(double *t, double *v, json_t *pair, const struct decoder *d)
{
	if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_number(json_array_get(pair, 0)) ||
	    !json_is_string(json_array_get(pair, 1)))
		return bad_answer(d, "a sample is not [time, \"value\"]");
	*t = json_number_value(json_array_get(pair, 0));
	const char *s = json_string_value(json_array_get(pair, 1));
	char *end;
	/* Prometheus writes NaN, +Inf and -Inf; strtod reads all three. */
	*v = strtod(s, &end);
	if (end == s || *end)
		return bad_answer(d, "a sample value '%.40s' is not a number", s);
	return 0;
}

static int by_label_name(const void *a, const void *b)
{
	return strcmp(((const fg_prom_label *)a)->name, ((const fg_prom_label *)b)->name);
}

static int decode_labels(fg_prom_series *s, json_t *metric, const struct decoder *d)
{
	if (!json_is_object(metric))
		return bad_answer(d, "a series has no \"metric\" object");
	size_t n = json_object_size(metric);
	if (n && !(s->labels = calloc(n, sizeof(*s->labels))))
		return fg_error_oom(d->err, NULL);
	const char *key;
	json_t *value;
	json_object_foreach(metric, key, value) {
		if (!json_is_string(value))
			return bad_answer(d, "label '%.40s' is not a string", key);
		fg_prom_label *l = &s->labels[s->nlabels];
		l->name = strdup(key);
		l->value = strdup(json_string_value(value));
		s->nlabels++;
		if (!l->name || !l->value)
			return fg_error_oom(d->err, NULL);
	}
	if (s->nlabels > 1)
		qsort(s->labels, s->nlabels, sizeof(*s->labels), by_label_name);
	return 0;
}

static int alloc_points(fg_prom_series *s, size_t n, const struct decoder *d)
{
	s->times = malloc((n ? n : 1) * sizeof(double));
	s->values = malloc((n ? n : 1) * sizeof(double));
	if (!s->times || !s->values)
		return fg_error_oom(d->err, NULL);
	return 0;
}

static int decode_series(fg_prom_series *s, json_t *item, bool matrix, const struct decoder *d)
{
	if (!json_is_object(item))
		return bad_answer(d, "a result is not an object");
	int rc = decode_labels(s, json_object_get(item, "metric"), d);
	if (rc)
		return rc;
	if (!matrix) {
		if ((rc = alloc_points(s, 1, d)))
			return rc;
		s->npoints = 1;
		return decode_point(&s->times[0], &s->values[0], json_object_get(item, "value"), d);
	}
	json_t *values = json_object_get(item, "values");
	if (!json_is_array(values))
		return bad_answer(d, "a range series has no \"values\" array");
	size_t n = json_array_size(values);
	if ((rc = alloc_points(s, n, d)))
		return rc;
	for (size_t i = 0; i < n; i++) {
		if ((rc = decode_point(&s->times[i], &s->values[i], json_array_get(values, i), d)))
			return rc;
		if (i && s->times[i] <= s->times[i - 1])
			return bad_answer(d, "range samples out of time order");
		s->npoints++;
	}
	return 0;
}

static int decode_data(fg_prom_result *out, json_t *data, const struct decoder *d)
{
	const char *type = json_string_value(json_object_get(data, "resultType"));
	json_t *result = json_object_get(data, "result");
	if (!type)
		return bad_answer(d, "no \"data.resultType\"");
	if (!strcmp(type, "scalar")) {
		/* One unlabelled point, as an instant vector of one series. */
		if (!(out->series = calloc(1, sizeof(*out->series))))
			return fg_error_oom(d->err, NULL);
		out->nseries = 1;
		int rc = alloc_points(&out->series[0], 1, d);
		if (!rc) {
			out->series[0].npoints = 1;
			rc = decode_point(&out->series[0].times[0], &out->series[0].values[0], result, d);
		}
		return rc;
	}
	bool matrix = !strcmp(type, "matrix");
	if (!matrix && strcmp(type, "vector"))
		return bad_answer(d, "result type '%.20s' (expected vector, matrix or scalar)", type);
	if (!json_is_array(result))
		return bad_answer(d, "\"data.result\" is not an array");
	size_t n = json_array_size(result);
	if (n && !(out->series = calloc(n, sizeof(*out->series))))
		return fg_error_oom(d->err, NULL);
	for (size_t i = 0; i < n; i++) {
		out->nseries++;
		int rc = decode_series(&out->series[i], json_array_get(result, i), matrix, d);
		if (rc)
			return rc;
	}
	return 0;
}

/* The server refused or failed the query: its errorType decides whose
 * mistake it is. */
static int query_error(json_t *root, long status, const struct decoder *d)
{
	const char *type = json_string_value(json_object_get(root, "errorType"));
	const char *msg = json_string_value(json_object_get(root, "error"));
	if (!type)
		type = "unknown";
	if (!msg)
		msg = "(no message)";
	int code = !strcmp(type, "bad_data") ? FG_ECONFIG : FG_EFETCH;
	if (status >= 200 && status < 300)
		return fg_error_set(d->err, code, d->source, "query error (%s): %s", type, msg);
	return fg_error_set(d->err, code, d->source, "query error (%s, HTTP status %ld): %s", type, status, msg);
}

/* The first bytes of a body, as a hint for what answered instead. */
static const char *looks_like(const char *body, size_t len)
{
	size_t i = 0;
	while (i < len && isspace((unsigned char)body[i]))
		i++;
	if (i < len && body[i] == '<')
		return " (an HTML page: a login page or a wrong base URL?)";
	return "";
}

int fg_prom_decode(fg_prom_result *out, const char *body, size_t len, long http_status, const char *source,
                   fg_error *err)
{
	memset(out, 0, sizeof(*out));
	struct decoder d = { source, err };
	json_error_t jerr;
	json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
	bool ok_status = http_status >= 200 && http_status < 300;
	if (!root || !json_is_object(root)) {
		json_decref(root);
		if (!ok_status)
			return fg_error_set(err, FG_EFETCH, source, "HTTP status %ld%s", http_status,
			                    http_status == 404 ? " (is the base URL a Prometheus server, or Grafana's "
			                                         "data-source proxy .../api/datasources/proxy/uid/UID?)"
			                                       : looks_like(body, len));
		if (!root)
			return bad_answer(&d, "%s at byte %d%s", jerr.text, jerr.position, looks_like(body, len));
		return bad_answer(&d, "the body is not a JSON object");
	}
	int rc;
	const char *status = json_string_value(json_object_get(root, "status"));
	if (status && !strcmp(status, "error"))
		rc = query_error(root, http_status, &d);
	else if (!ok_status)
		rc = fg_error_set(err, FG_EFETCH, source, "HTTP status %ld", http_status);
	else if (!status || strcmp(status, "success"))
		rc = bad_answer(&d, "\"status\" is neither \"success\" nor \"error\"");
	else if (!json_is_object(json_object_get(root, "data")))
		rc = bad_answer(&d, "no \"data\" object");
	else
		rc = decode_data(out, json_object_get(root, "data"), &d);
	json_t *warnings = json_object_get(root, "warnings");
	if (!rc && json_is_array(warnings) && json_is_string(json_array_get(warnings, 0)))
		snprintf(out->warning, sizeof(out->warning), "%s", json_string_value(json_array_get(warnings, 0)));
	json_decref(root);
	if (rc)
		fg_prom_result_clear(out);
	return rc;
}

/* ---- transfer -------------------------------------------------------- */

int fg_prom_new(fg_prom **out, const char *base_url, const fg_prom_options *opts, fg_error *err)
{
	*out = NULL;
	fg_prom_options defaults;
	if (!opts) {
		fg_prom_options_init(&defaults);
		opts = &defaults;
	}
	if (strncasecmp(base_url, "http://", 7) && strncasecmp(base_url, "https://", 8))
		return fg_error_set(err, FG_EUSAGE, base_url, "the Prometheus URL must be http:// or https://");
	if (strpbrk(base_url, "?#"))
		return fg_error_set(err, FG_EUSAGE, base_url,
		                    "the Prometheus URL is a base (no query or fragment): the API paths go below it");
	for (size_t i = 0; i < opts->nheaders; i++)
		if (!fg_fetch_header_valid(opts->headers[i]))
			return fg_error_set(err, FG_EUSAGE, NULL, "malformed header option %zu (expected 'Name: value')",
			                    i + 1);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return fg_error_set(err, FG_EINTERNAL, NULL, "cannot initialise libcurl");
	fg_prom *p = calloc(1, sizeof(*p));
	if (!p) {
		curl_global_cleanup();
		return fg_error_oom(err, NULL);
	}
	p->opts = *opts;
	size_t len = strlen(base_url);
	while (len > 8 && base_url[len - 1] == '/')
		len--;
	bool oom = !(p->base = strndup(base_url, len)) || !(p->shown = fg_url_redact(p->base)) ||
	           !(p->easy = curl_easy_init());
	for (size_t i = 0; !oom && i < opts->nheaders; i++) {
		struct curl_slist *l = curl_slist_append(p->headers, opts->headers[i]);
		oom = !l;
		if (l)
			p->headers = l;
	}
	if (oom) {
		fg_prom_free(p);
		return fg_error_oom(err, NULL);
	}
	*out = p;
	return 0;
}

void fg_prom_free(fg_prom *p)
{
	if (!p)
		return;
	if (p->easy)
		curl_easy_cleanup(p->easy);
	curl_slist_free_all(p->headers);
	free(p->base);
	free(p->shown);
	free(p);
	curl_global_cleanup();
}

const char *fg_prom_shown_url(const fg_prom *p)
{
	return p->shown;
}

static bool transient(CURLcode rc)
{
	return rc == CURLE_COULDNT_CONNECT || rc == CURLE_OPERATION_TIMEDOUT || rc == CURLE_RECV_ERROR ||
	       rc == CURLE_SEND_ERROR || rc == CURLE_GOT_NOTHING || rc == CURLE_PARTIAL_FILE ||
	       rc == CURLE_SSL_CONNECT_ERROR;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* A number for a query parameter: Unix seconds with millisecond precision. */
static void param_number(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%.3f", v);
}

/* GET BASE/api/v1/ENDPOINT?PARAMS and decodes the answer.  shown_what is
 * the request as errors name it (no credentials). */
static int get(fg_prom_result *out, fg_prom *p, const char *endpoint, const char *params, fg_error *err)
{
	memset(out, 0, sizeof(*out));
	size_t ulen = strlen(p->base) + strlen(endpoint) + strlen(params) + 16;
	size_t slen = strlen(p->shown) + strlen(endpoint) + 16;
	char *url = malloc(ulen), *shown = malloc(slen);
	if (!url || !shown) {
		free(url);
		free(shown);
		return fg_error_oom(err, NULL);
	}
	snprintf(url, ulen, "%s/api/v1/%s?%s", p->base, endpoint, params);
	snprintf(shown, slen, "%s/api/v1/%s", p->shown, endpoint);

	CURL *e = p->easy;
	char errbuf[CURL_ERROR_SIZE];
	fg_fetch_body b = { .max = MAX_BODY };
	int rc = 0;
	long delay = p->opts.retry_delay_ms;
	for (int attempt = 1;; attempt++) {
		curl_easy_reset(e);
		b.len = 0;
		b.too_large = false;
		errbuf[0] = '\0';
		fg_fetch_api_request(e, url, p->headers, &b, errbuf);
		if (p->opts.connect_timeout_s > 0)
			curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, p->opts.connect_timeout_s);
		if (p->opts.timeout_s > 0)
			curl_easy_setopt(e, CURLOPT_TIMEOUT, p->opts.timeout_s);
		if (p->opts.netrc)
			curl_easy_setopt(e, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
		CURLcode cc = curl_easy_perform(e);
		long status = 0;
		curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
		bool last = attempt >= p->opts.tries;
		char tries[32] = "";
		if (attempt > 1)
			snprintf(tries, sizeof(tries), " (after %d tries)", attempt);
		if (b.too_large) {
			rc = fg_error_set(err, FG_EINVALID, shown, "the answer is larger than %zu MiB: aggregate the query",
			                  MAX_BODY >> 20);
		} else if (cc != CURLE_OK) {
			if (transient(cc) && !last)
				goto retry;
			rc = fg_error_set(err, FG_EFETCH, shown, "%s%s", errbuf[0] ? errbuf : curl_easy_strerror(cc), tries);
		} else if (status >= 300 && status < 400) {
			char *location = NULL;
			curl_easy_getinfo(e, CURLINFO_REDIRECT_URL, &location);
			char *where = location ? fg_url_redact(location) : NULL;
			rc = fg_error_set(err, FG_EFETCH, shown,
			                  "HTTP status %ld, redirected to %s: not followed (a login page? give the "
			                  "credentials with --header, or the URL it redirects to)",
			                  status, where ? where : "(no location)");
			free(where);
		} else if ((status == 502 || status == 503 || status == 504) && !last) {
			goto retry;
		} else {
			rc = fg_prom_decode(out, b.data ? b.data : "", b.len, status, shown, err);
			if (rc && attempt > 1 && err && strlen(err->message) + strlen(tries) < sizeof(err->message))
				strcat(err->message, tries);
		}
		break;
	retry:
		sleep_ms(delay);
		if (delay < 8000)
			delay *= 2;
	}
	free(b.data);
	free(url);
	free(shown);
	return rc;
}

/* "query=ESCAPED" plus the rest; malloc'ed. */
static char *params_with_query(fg_prom *p, const char *query, const char *rest)
{
	char *q = curl_easy_escape(p->easy, query, 0);
	if (!q)
		return NULL;
	size_t len = strlen(q) + strlen(rest) + 16;
	char *s = malloc(len);
	if (s)
		snprintf(s, len, "query=%s%s", q, rest);
	curl_free(q);
	return s;
}

int fg_prom_query(fg_prom_result *out, fg_prom *p, const char *query, double time, fg_error *err)
{
	char t[64], rest[80];
	param_number(t, sizeof(t), time);
	snprintf(rest, sizeof(rest), "&time=%s", t);
	char *params = params_with_query(p, query, rest);
	if (!params) {
		memset(out, 0, sizeof(*out));
		return fg_error_oom(err, NULL);
	}
	int rc = get(out, p, "query", params, err);
	free(params);
	return rc;
}

int fg_prom_query_range(fg_prom_result *out, fg_prom *p, const char *query, double start, double end,
                        double step, fg_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!(end >= start) || !(step > 0) || !isfinite(start) || !isfinite(end))
		return fg_error_set(err, FG_EUSAGE, NULL, "a range query needs start <= end and a positive step");
	char s[64], e[64], st[64], rest[256];
	param_number(s, sizeof(s), start);
	param_number(e, sizeof(e), end);
	param_number(st, sizeof(st), step);
	snprintf(rest, sizeof(rest), "&start=%s&end=%s&step=%s", s, e, st);
	char *params = params_with_query(p, query, rest);
	if (!params)
		return fg_error_oom(err, NULL);
	int rc = get(out, p, "query_range", params, err);
	free(params);
	return rc;
}
