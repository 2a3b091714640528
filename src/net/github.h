/* fgbisect — GitHub Actions artifacts through the REST API (`runs github`).
 *
 * Lists a repository's workflow runs (GET /repos/OWNER/REPO/actions/runs, or
 * .../actions/workflows/WORKFLOW/runs) and each run's artifacts
 * (GET .../actions/runs/ID/artifacts), following `Link: <…>; rel="next"`
 * pages, and gives for every artifact its name, the run's head_sha and day,
 * and its archive_download_url: the API URL that answers with a redirect to
 * a short-lived blob link (the fetch layer follows it without the token; the
 * cache keys the zip by this URL, which does not expire).
 *
 * Every request goes to the API's origin (a Link to another origin is an
 * error, a redirect is not followed), so the token and extra headers reach
 * no one else; they are never put in a message.  In the network and git
 * module (libcurl, jansson): the trampolines are in src/module/lazy.c. */
#ifndef FG_GITHUB_H
#define FG_GITHUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct fg_github_options {
	const char *api_url;        /* "https://api.github.com" (GitHub Enterprise: https://HOST/api/v3) */
	const char *workflow;       /* NULL: the runs of every workflow; a workflow file name or id */
	const char *branch;         /* NULL: every branch */
	const char *since;          /* NULL: YYYY-MM-DD, the runs created on that UTC day or later */
	const char *until;          /* NULL: YYYY-MM-DD, the runs created on that UTC day or earlier */
	const char *artifact;       /* NULL: every artifact; a POSIX ERE its name must match */
	const char *token;          /* NULL: none; sent as "Authorization: Bearer TOKEN" */
	const char *const *headers; /* NULL: more request headers, "Name: value" each */
	size_t nheaders;            /* 0 */
	long connect_timeout_s;     /* 10 */
	long timeout_s;             /* 60: one request */
	int tries;                  /* 3: per request; retried are connection errors and 5xx */
	long retry_delay_ms;        /* 1000, doubled before each further try */
} fg_github_options;

static inline void fg_github_options_init(fg_github_options *o)
{
	*o = (fg_github_options){ .api_url = "https://api.github.com", .connect_timeout_s = 10, .timeout_s = 60,
				  .tries = 3, .retry_delay_ms = 1000 };
}

typedef struct fg_github_artifact {
	const char *name;
	const char *url;    /* archive_download_url */
	const char *commit; /* the run's head_sha */
	const char *date;   /* the day the run was created, YYYY-MM-DD (UTC) */
	uint64_t run_id;
} fg_github_artifact;

typedef struct fg_github_list fg_github_list;

/* Lists the artifacts of repo's ("OWNER/REPO") runs that opts select, in the
 * API's order (newest run first).  Expired artifacts are left out and
 * counted.  Errors (FG_EFETCH unless said): the connection, HTTP statuses
 * with what they mean here — 401 bad credentials, 403/429 with
 * x-ratelimit-remaining 0 the rate limit and its reset time (UTC), 403 a
 * token without access, 404 no such repository or workflow (or private
 * without a token) —, a Link to another origin; FG_EINVALID an answer that
 * is not the API's JSON; FG_EUSAGE a bad repo, date, regex or header. */
int fg_github_list_artifacts(fg_github_list **out, const char *repo, const fg_github_options *opts, fg_error *err);

size_t fg_github_count(const fg_github_list *l);
const fg_github_artifact *fg_github_at(const fg_github_list *l, size_t i);
/* The runs listed, and the expired artifacts (of the name --artifact wants). */
size_t fg_github_runs(const fg_github_list *l);
size_t fg_github_expired(const fg_github_list *l);
void fg_github_free(fg_github_list *l);

#endif
