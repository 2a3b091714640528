#include "net/github.h"

#include <curl/curl.h>
#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "net/fetch.h"
#include "net/url.h"

/* One answer is one page of at most 100 runs or artifacts: a few hundred KB. */
#define MAX_BODY (64u << 20)
#define PER_PAGE "100"

struct fg_github_list {
	fg_github_artifact *items;
	size_t n, cap;
	size_t runs, expired;
};

struct client {
	CURL *easy;
	struct curl_slist *headers;
	const fg_github_options *o;
	char *origin;        /* scheme://host[:port] of the API, lower case */
	regex_t re;
	bool has_re;
};

/* What one answer said besides its body. */
struct answer {
	fg_fetch_body body;
	char next[2048];     /* the Link header's rel="next", or "" */
	long remaining;      /* x-ratelimit-remaining, -1 when absent */
	long long reset;     /* x-ratelimit-reset (epoch seconds), -1 when absent */
	long retry_after;    /* retry-after (seconds), -1 when absent */
};

/* The value of header line h when it is called name, else NULL. */
static const char *header_value(const char *h, size_t len, const char *name)
{
	size_t n = strlen(name);
	if (len <= n || strncasecmp(h, name, n) || h[n] != ':')
		return NULL;
	h += n + 1;
	while (*h == ' ' || *h == '\t')
		h++;
	return h;
}

/* rel="next" of a Link header: `<URL>; rel="next", <URL>; rel="last"`. */
static void link_next(char *out, size_t cap, const char *v, size_t len)
{
	const char *end = v + len;
	while (v < end) {
		const char *lt = memchr(v, '<', (size_t)(end - v));
		const char *gt = lt ? memchr(lt, '>', (size_t)(end - lt)) : NULL;
		if (!gt)
			return;
		const char *comma = memchr(gt, ',', (size_t)(end - gt));
		const char *stop = comma ? comma : end;
		const char *rel = memmem(gt, (size_t)(stop - gt), "rel=\"next\"", 10);
		if (rel && (size_t)(gt - lt - 1) < cap) {
			memcpy(out, lt + 1, (size_t)(gt - lt - 1));
			out[gt - lt - 1] = '\0';
			return;
		}
		v = stop + 1;
	}
}

static size_t on_header(char *h, size_t size, size_t nmemb, void *ud)
{
	struct answer *a = ud;
	size_t len = size * nmemb;
	char line[4096];
	if (len >= sizeof(line))
		return len;
	memcpy(line, h, len);
	line[len] = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	len = strlen(line);
	const char *v;
	if ((v = header_value(line, len, "link")) != NULL)
		link_next(a->next, sizeof(a->next), v, strlen(v));
	else if ((v = header_value(line, len, "x-ratelimit-remaining")) != NULL)
		a->remaining = strtol(v, NULL, 10);
	else if ((v = header_value(line, len, "x-ratelimit-reset")) != NULL)
		a->reset = strtoll(v, NULL, 10);
	else if ((v = header_value(line, len, "retry-after")) != NULL)
		a->retry_after = strtol(v, NULL, 10);
	return size * nmemb;
}

/* scheme://host[:port] of url, lower case (malloc'ed; NULL if none). */
static char *origin_of(const char *url)
{
	size_t s = fg_url_scheme_length(url);
	if (!s)
		return NULL;
	size_t n = s + strcspn(url + s, "/?#");
	char *o = strndup(url, n);
	for (char *c = o; c && *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	return o;
}

/* The message for an HTTP error status of the API. */
static int status_error(const struct answer *a, long status, bool token, const char *shown, fg_error *err)
{
	if ((status == 403 || status == 429) && a->remaining == 0) {
		char when[64] = "an unknown time";
		long long mins = 0;
		if (a->reset > 0) {
			time_t t = (time_t)a->reset;
			struct tm tm;
			gmtime_r(&t, &tm);
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
			mins = (a->reset - (long long)time(NULL) + 59) / 60;
		}
		return fg_error_set(err, FG_EFETCH, shown,
				    "HTTP %ld: the GitHub API rate limit is used up; it resets at %s (in %lld min)%s",
				    status, when, mins > 0 ? mins : 0,
				    token ? "" : "; a token (GH_TOKEN) raises it from 60 to 5,000 requests an hour");
	}
	switch (status) {
	case 401:
		return fg_error_set(err, FG_EFETCH, shown,
				    "HTTP 401: bad credentials: the token (GH_TOKEN, GITHUB_TOKEN or --header) is "
				    "wrong or expired");
	case 403:
	case 429:
		return fg_error_set(err, FG_EFETCH, shown,
				    "HTTP %ld: forbidden%s: the token cannot read this repository's Actions (a "
				    "fine-grained token needs 'Actions: read'; a classic one 'repo' for a private "
				    "repository)", status, a->retry_after > 0 ? " (a secondary rate limit?)" : "");
	case 404:
		return fg_error_set(err, FG_EFETCH, shown,
				    "HTTP 404: no such repository or workflow (a private repository needs a token: "
				    "GH_TOKEN)");
	default:
		return fg_error_set(err, FG_EFETCH, shown, "HTTP status %ld from the GitHub API", status);
	}
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) == -1)
		;
}

/* GETs url (on the API's origin) and parses its JSON; *next is the next
 * page's URL or "". */
static int get_json(json_t **root, char *next, size_t nextcap, struct client *c, const char *url, fg_error *err)
{
	*root = NULL;
	next[0] = '\0';
	char *shown = fg_url_redact(url), *own = origin_of(url);
	if (!shown || !own) {
		free(shown);
		free(own);
		return fg_error_oom(err, NULL);
	}
	int rc = 0;
	if (strcmp(own, c->origin))
		rc = fg_error_set(err, FG_EFETCH, shown,
				  "a page on another origin than the API's (%s): not followed, the token is for %s",
				  own, c->origin);
	free(own);
	struct answer a = { .body.max = MAX_BODY };
	long delay = c->o->retry_delay_ms;
	char errbuf[CURL_ERROR_SIZE];
	for (int attempt = 1; !rc; attempt++) {
		CURL *e = c->easy;
		curl_easy_reset(e);
		a.body.len = 0;
		a.body.too_large = false;
		a.next[0] = '\0';
		a.remaining = a.retry_after = -1;
		a.reset = -1;
		errbuf[0] = '\0';
		fg_fetch_api_request(e, url, c->headers, &a.body, errbuf);
		curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
		curl_easy_setopt(e, CURLOPT_HEADERDATA, &a);
		curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, c->o->connect_timeout_s);
		curl_easy_setopt(e, CURLOPT_TIMEOUT, c->o->timeout_s);
		CURLcode cc = curl_easy_perform(e);
		long status = 0;
		curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
		bool last = attempt >= c->o->tries;
		if (a.body.too_large) {
			rc = fg_error_set(err, FG_EINVALID, shown, "an answer larger than %u MiB", MAX_BODY >> 20);
		} else if (cc != CURLE_OK && cc != CURLE_WRITE_ERROR) {
			if (!last && cc != CURLE_UNSUPPORTED_PROTOCOL && cc != CURLE_URL_MALFORMAT)
				goto retry;
			rc = fg_error_set(err, FG_EFETCH, shown, "%s", errbuf[0] ? errbuf : curl_easy_strerror(cc));
		} else if (cc == CURLE_WRITE_ERROR) {
			rc = fg_error_oom(err, shown);
		} else if (status >= 500 && !last) {
			goto retry;
		} else if (status >= 300 && status < 400) {
			rc = fg_error_set(err, FG_EFETCH, shown, "HTTP status %ld, a redirect: not followed from the "
					  "API (is --api-url the API's base?)", status);
		} else if (status != 200) {
			rc = status_error(&a, status, c->o->token || c->o->nheaders, shown, err);
		} else {
			json_error_t je;
			*root = json_loadb(a.body.data ? a.body.data : "", a.body.len, 0, &je);
			if (!*root || !json_is_object(*root))
				rc = fg_error_set(err, FG_EINVALID, shown, "not a GitHub API answer (JSON: %s)",
						  *root ? "not an object" : je.text);
			else
				snprintf(next, nextcap, "%s", a.next);
		}
		break;
	retry:
		sleep_ms(delay);
		delay *= 2;
	}
	if (rc && *root) {
		json_decref(*root);
		*root = NULL;
	}
	free(a.body.data);
	free(shown);
	return rc;
}

static const char *str_member(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static bool valid_day(const char *d)
{
	if (!d)
		return true;
	if (strlen(d) != 10 || d[4] != '-' || d[7] != '-')
		return false;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && (d[i] < '0' || d[i] > '9'))
			return false;
	return true;
}

static bool valid_repo(const char *r)
{
	const char *slash = strchr(r, '/');
	if (!slash || slash == r || !slash[1] || strchr(slash + 1, '/'))
		return false;
	for (const char *c = r; *c; c++)
		if (c != slash && !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.", *c))
			return false;
	return true;
}

static int add_artifact(fg_github_list *l, const char *name, const char *url, const char *commit,
			const char *date, uint64_t run_id, fg_error *err)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		fg_github_artifact *items = realloc(l->items, cap * sizeof(*items));
		if (!items)
			return fg_error_oom(err, NULL);
		l->items = items;
		l->cap = cap;
	}
	fg_github_artifact *a = &l->items[l->n];
	*a = (fg_github_artifact){ .name = strdup(name), .url = strdup(url), .commit = strdup(commit),
				   .date = strndup(date, 10), .run_id = run_id };
	l->n++;
	if (!a->name || !a->url || !a->commit || !a->date)
		return fg_error_oom(err, NULL);
	return 0;
}

/* The artifacts of one run, page by page. */
static int list_run(fg_github_list *l, struct client *c, const char *repo, json_t *run, fg_error *err)
{
	json_t *id = json_object_get(run, "id");
	const char *sha = str_member(run, "head_sha"), *created = str_member(run, "created_at");
	char url[2048], next[2048];
	if (!json_is_integer(id) || !sha || !created || strlen(created) < 10)
		return fg_error_set(err, FG_EINVALID, c->o->api_url,
				    "not a GitHub API answer: a workflow run without id, head_sha or created_at");
	uint64_t run_id = (uint64_t)json_integer_value(id);
	snprintf(url, sizeof(url), "%s/repos/%s/actions/runs/%llu/artifacts?per_page=" PER_PAGE, c->o->api_url, repo,
		 (unsigned long long)run_id);
	int rc = 0;
	while (!rc && url[0]) {
		json_t *root;
		if ((rc = get_json(&root, next, sizeof(next), c, url, err)) != 0)
			break;
		json_t *arts = json_object_get(root, "artifacts");
		if (!json_is_array(arts))
			rc = fg_error_set(err, FG_EINVALID, url, "not a GitHub API answer: no \"artifacts\" array");
		size_t i;
		json_t *art;
		json_array_foreach(arts, i, art) {
			const char *name = str_member(art, "name"), *dl = str_member(art, "archive_download_url");
			if (rc || !name || !dl) {
				if (!rc)
					rc = fg_error_set(err, FG_EINVALID, url, "not a GitHub API answer: an artifact "
							  "without name or archive_download_url");
				break;
			}
			if (c->has_re && regexec(&c->re, name, 0, NULL, 0))
				continue;
			if (json_is_true(json_object_get(art, "expired")))
				l->expired++;
			else
				rc = add_artifact(l, name, dl, sha, created, run_id, err);
		}
		json_decref(root);
		snprintf(url, sizeof(url), "%s", next);
	}
	return rc;
}

/* The runs' listing URL: the workflow's or the repository's, filtered. */
static int runs_url(char *url, size_t cap, struct client *c, const char *repo, fg_error *err)
{
	const fg_github_options *o = c->o;
	char *wf = o->workflow ? curl_easy_escape(c->easy, o->workflow, 0) : NULL;
	char *br = o->branch ? curl_easy_escape(c->easy, o->branch, 0) : NULL;
	int rc = (o->workflow && !wf) || (o->branch && !br) ? fg_error_oom(err, NULL) : 0;
	if (!rc) {
		size_t n = (size_t)snprintf(url, cap, "%s/repos/%s/actions/%s%s%sruns?per_page=" PER_PAGE, o->api_url,
					    repo, wf ? "workflows/" : "", wf ? wf : "", wf ? "/" : "");
		if (br && n < cap)
			n += (size_t)snprintf(url + n, cap - n, "&branch=%s", br);
		if ((o->since || o->until) && n < cap)
			n += (size_t)snprintf(url + n, cap - n, "&created=%s..%s", o->since ? o->since : "*",
					      o->until ? o->until : "*");
		if (n >= cap)
			rc = fg_error_set(err, FG_EUSAGE, NULL, "the workflow or branch name is too long");
	}
	curl_free(wf);
	curl_free(br);
	return rc;
}

static int list_all(fg_github_list *l, struct client *c, const char *repo, fg_error *err)
{
	char url[2048], next[2048];
	int rc = runs_url(url, sizeof(url), c, repo, err);
	while (!rc && url[0]) {
		json_t *root;
		if ((rc = get_json(&root, next, sizeof(next), c, url, err)) != 0)
			break;
		json_t *runs = json_object_get(root, "workflow_runs");
		if (!json_is_array(runs))
			rc = fg_error_set(err, FG_EINVALID, url, "not a GitHub API answer: no \"workflow_runs\" array");
		size_t i;
		json_t *run;
		json_array_foreach(runs, i, run) {
			if (rc)
				break;
			/* The server's created= filter, checked again: a day is the UTC
			 * day of created_at. */
			const char *created = str_member(run, "created_at");
			if (created && ((c->o->since && strncmp(created, c->o->since, 10) < 0) ||
					(c->o->until && strncmp(created, c->o->until, 10) > 0)))
				continue;
			l->runs++;
			rc = list_run(l, c, repo, run, err);
		}
		json_decref(root);
		snprintf(url, sizeof(url), "%s", next);
	}
	return rc;
}

static int client_start(struct client *c, const fg_github_options *o, fg_error *err)
{
	c->o = o;
	if (!(c->origin = origin_of(o->api_url)) || (strncasecmp(o->api_url, "http://", 7) &&
						     strncasecmp(o->api_url, "https://", 8)))
		return fg_error_set(err, FG_EUSAGE, NULL, "--api-url must be an http:// or https:// URL");
	if (o->artifact) {
		int r = regcomp(&c->re, o->artifact, REG_EXTENDED | REG_NOSUB);
		if (r) {
			char why[128];
			regerror(r, &c->re, why, sizeof(why));
			return fg_error_set(err, FG_EUSAGE, NULL, "--artifact '%s': %s", o->artifact, why);
		}
		c->has_re = true;
	}
	if (!(c->easy = curl_easy_init()))
		return fg_error_oom(err, NULL);
	char auth[1024];
	const char *fixed[] = { "Accept: application/vnd.github+json", "X-GitHub-Api-Version: 2022-11-28" };
	for (size_t i = 0; i < 2 + o->nheaders + (o->token != NULL); i++) {
		const char *h = i < 2 ? fixed[i] : i - 2 < o->nheaders ? o->headers[i - 2] : auth;
		if (i >= 2 && i - 2 < o->nheaders && !fg_fetch_header_valid(h))
			return fg_error_set(err, FG_EUSAGE, NULL, "malformed header option %zu (expected 'Name: value')",
					    i - 1);
		if (h == auth && (size_t)snprintf(auth, sizeof(auth), "Authorization: Bearer %s", o->token) >= sizeof(auth))
			return fg_error_set(err, FG_EUSAGE, NULL, "the token is too long");
		if (h == auth && !fg_fetch_header_valid(auth))
			return fg_error_set(err, FG_EUSAGE, NULL, "the token holds a line break or a control character");
		struct curl_slist *s = curl_slist_append(c->headers, h);
		if (!s)
			return fg_error_oom(err, NULL);
		c->headers = s;
	}
	explicit_bzero(auth, sizeof(auth));
	return 0;
}

static void client_end(struct client *c)
{
	if (c->easy)
		curl_easy_cleanup(c->easy);
	curl_slist_free_all(c->headers);
	if (c->has_re)
		regfree(&c->re);
	free(c->origin);
}

int fg_github_list_artifacts(fg_github_list **out, const char *repo, const fg_github_options *opts, fg_error *err)
{
	*out = NULL;
	fg_github_options defaults;
	if (!opts) {
		fg_github_options_init(&defaults);
		opts = &defaults;
	}
	if (!valid_repo(repo))
		return fg_error_set(err, FG_EUSAGE, NULL, "'%s' is not OWNER/REPO", repo);
	if (!valid_day(opts->since) || !valid_day(opts->until))
		return fg_error_set(err, FG_EUSAGE, NULL, "--since and --until take a day, YYYY-MM-DD");
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return fg_error_set(err, FG_EINTERNAL, NULL, "cannot initialise libcurl");
	struct client c = { 0 };
	fg_github_list *l = calloc(1, sizeof(*l));
	int rc = l ? client_start(&c, opts, err) : fg_error_oom(err, NULL);
	if (!rc)
		rc = list_all(l, &c, repo, err);
	client_end(&c);
	curl_global_cleanup();
	if (rc) {
		fg_github_free(l);
		return rc;
	}
	*out = l;
	return 0;
}

size_t fg_github_count(const fg_github_list *l)
{
	return l->n;
}

const fg_github_artifact *fg_github_at(const fg_github_list *l, size_t i)
{
	return &l->items[i];
}

size_t fg_github_runs(const fg_github_list *l)
{
	return l->runs;
}

size_t fg_github_expired(const fg_github_list *l)
{
	return l->expired;
}

void fg_github_free(fg_github_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free((char *)l->items[i].name);
		free((char *)l->items[i].url);
		free((char *)l->items[i].commit);
		free((char *)l->items[i].date);
	}
	free(l->items);
	free(l);
}
