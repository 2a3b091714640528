/* ctest-labels: slow (real HTTP faults with timeouts) */
/* Fetching over real HTTP: a loopback server (tests/tools/fetch_server.py)
 * serves files, errors, redirects, stalls and broken bodies; the cache is
 * checked through the same downloads. */
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "net/fetch.h"

static pid_t server = -1, parent;
static int port;
static char tmp[256], docroot[300];

static void stop_server(void)
{
	if (getpid() == parent && server > 0) {
		kill(server, SIGTERM);
		waitpid(server, NULL, 0);
		server = -1;
	}
}

static void remove_tree(const char *path)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", path);
}

static void cleanup(void)
{
	stop_server();
	if (getpid() == parent && tmp[0])
		remove_tree(tmp);
}

/* Starts the server and reads the port it prints; false when python3 or
 * the script is missing (the test is then skipped). */
static bool start_server(void)
{
	const char *src = getenv("FG_SOURCE_DIR");
	char script[512];
	snprintf(script, sizeof(script), "%s/tests/tools/fetch_server.py", src ? src : ".");
	if (access(script, R_OK) != 0)
		return false;
	int fds[2];
	if (pipe(fds) < 0)
		return false;
	server = fork();
	if (server == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		prctl(PR_SET_PDEATHSIG, SIGTERM); /* a test killed by its alarm takes it along */
		execlp("python3", "python3", script, docroot, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	char line[32] = "";
	size_t len = 0;
	while (len + 1 < sizeof(line)) {
		ssize_t n = read(fds[0], line + len, 1);
		if (n <= 0 || line[len] == '\n')
			break;
		len++;
	}
	line[len] = '\0';
	close(fds[0]);
	port = atoi(line);
	return port > 0;
}

static char *url(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* http://127.0.0.1:PORT + path, in a static ring so that calls can nest. */
static char *url(const char *fmt, ...)
{
	static char ring[8][512];
	static int next;
	char *u = ring[next++ % 8];
	int n = snprintf(u, sizeof(ring[0]), "http://127.0.0.1:%d", port);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(u + n, sizeof(ring[0]) - (size_t)n, fmt, ap);
	va_end(ap);
	return u;
}

static size_t collect(char *data, size_t size, size_t nmemb, void *ud)
{
	char *buf = ud;
	size_t len = strlen(buf), add = size * nmemb;
	if (len + add < 64) {
		memcpy(buf + len, data, add);
		buf[len + add] = '\0';
	}
	return size * nmemb;
}

/* Asks the server (plain libcurl, no fetch code) for a number. */
static long server_number(const char *path)
{
	char buf[64] = "";
	CURL *c = curl_easy_init();
	curl_easy_setopt(c, CURLOPT_URL, url("%s", path));
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, buf);
	curl_easy_perform(c);
	curl_easy_cleanup(c);
	return atol(buf);
}

static long count(const char *path)
{
	char *escaped = curl_easy_escape(NULL, path, 0);
	char q[600];
	snprintf(q, sizeof(q), "/_count?path=%s", escaped);
	curl_free(escaped);
	return server_number(q);
}

/* The whole file, NUL-terminated; *len its size. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n < 2)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* The file's content, gunzipped when it is gzip (as the parser reads it). */
static char *slurp_gunzipped(const char *path, size_t *len)
{
	gzFile f = gzopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	int got;
	while ((got = gzread(f, buf + n, (unsigned)(cap - n - 1))) > 0) {
		n += (size_t)got;
		if (cap - n < 2)
			buf = realloc(buf, cap *= 2);
	}
	gzclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static bool same_bytes(const char *path, const char *expected_path)
{
	size_t a = 0, b = 0;
	char *x = slurp(path, &a), *y = slurp(expected_path, &b);
	bool same = x && y && a == b && memcmp(x, y, a) == 0;
	free(x);
	free(y);
	return same;
}

static bool same_content(const char *path, const char *expected_path)
{
	size_t a, b;
	char *x = slurp_gunzipped(path, &a), *y = slurp(expected_path, &b);
	bool same = x && y && a == b && memcmp(x, y, a) == 0;
	free(x);
	free(y);
	return same;
}

static char *doc(const char *name)
{
	static char ring[4][512];
	static int next;
	char *p = ring[next++ % 4];
	snprintf(p, sizeof(ring[0]), "%s/%s", docroot, name);
	return p;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	fwrite(data, 1, len, f);
	fclose(f);
}

/* A flame-graph-like text body, about 60 KB. */
static void make_docs(void)
{
	size_t cap = 80000, len = 0;
	char *body = malloc(cap);
	for (int i = 0; len + 100 < cap; i++)
		len += (size_t)snprintf(body + len, cap - len,
		                        "java/lang/Thread.run;io/camunda/zeebe/Stream%d.process;frame_%d %d\n",
		                        i % 17, i, i * 7 % 1000);
	for (const char *const *n = (const char *const[]){ "a.html", "c.html", "d.html", "e.html", "f.html",
	                                                     "g.html", NULL };
	     *n; n++)
		write_file(doc(*n), body, len);

	gzFile gz = gzopen(doc("b.html.gz"), "wb");
	gzwrite(gz, body, (unsigned)len);
	gzclose(gz);
	free(body);
}

static fg_fetch_options options(const char *cache)
{
	fg_fetch_options o;
	fg_fetch_options_init(&o);
	o.retry_delay_ms = 10;
	o.connect_timeout_s = 5;
	o.total_timeout_s = 20;
	if (cache)
		o.cache_dir = cache;
	else
		o.no_cache = true;
	return o;
}

static void test_sources(void)
{
	CHECK(fg_url_is("http://x/y"));
	CHECK(fg_url_is("HTTPS://x/y"));
	CHECK(fg_url_is("file:///x"));
	CHECK(!fg_url_is("/tmp/x.html"));
	CHECK(!fg_url_is("-"));
	CHECK(!fg_url_is("ftp://x/y"));

	char *r = fg_url_redact("https://user:p@ss@host:8080/a@b?c=d@e");
	CHECK(r && !strcmp(r, "https://host:8080/a@b?c=d@e"));
	free(r);
	r = fg_url_redact("/local/a@b");
	CHECK(r && !strcmp(r, "/local/a@b"));
	free(r);

	struct {
		const char *base, *loc, *want;
	} cases[] = {
		{ "runs/runs.txt", "2026-11-01/a.html", "runs/2026-11-01/a.html" },
		{ "/srv/runs.txt", "a.html", "/srv/a.html" },
		{ "runs.txt", "a.html", "a.html" },
		{ "-", "a.html", "a.html" },
		{ NULL, "a.html", "a.html" },
		{ "runs/runs.txt", "/abs/a.html", "/abs/a.html" },
		{ "runs/runs.txt", "https://h/x.html", "https://h/x.html" },
		{ "https://h/runs/runs.txt", "2026/a.html.gz", "https://h/runs/2026/a.html.gz" },
		{ "https://h/runs/runs.txt?token=1", "../b.html", "https://h/b.html" },
		{ "https://h/runs/runs.txt", "/top.html", "https://h/top.html" },
		{ "file:///srv/runs/runs.txt", "a.html", "file:///srv/runs/a.html" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fg_error err;
		char *out = NULL;
		CHECK(fg_url_resolve(&out, cases[i].base, cases[i].loc, &err) == 0);
		if (!out || strcmp(out, cases[i].want))
			fprintf(stderr, "resolve(%s, %s) = %s, want %s\n", cases[i].base ? cases[i].base : "NULL",
			        cases[i].loc, out ? out : "NULL", cases[i].want);
		CHECK(out && !strcmp(out, cases[i].want));
		free(out);
	}
	fg_error err;
	char *out = NULL;
	CHECK(fg_url_resolve(&out, "runs.txt", "", &err) == FG_ECONFIG);
}

static void test_local(void)
{
	char cache[400];
	snprintf(cache, sizeof(cache), "%s/cache-local", tmp);
	fg_fetch_options o = options(cache);
	fg_fetch_result r;
	fg_error err;

	CHECK(fg_fetch(&r, "-", &o, &err) == 0 && !strcmp(r.path, "-") && !r.temporary);
	fg_fetch_result_clear(&r);
	CHECK(fg_fetch(&r, doc("a.html"), &o, &err) == 0 && !strcmp(r.path, doc("a.html")));
	fg_fetch_result_clear(&r);
	CHECK(access(doc("a.html"), F_OK) == 0); /* never deleted */

	char u[600];
	snprintf(u, sizeof(u), "file://%s/with%%20space.html", docroot);
	CHECK(fg_fetch(&r, u, &o, &err) == 0);
	char want[600];
	snprintf(want, sizeof(want), "%s/with space.html", docroot);
	CHECK(r.path && !strcmp(r.path, want) && !r.temporary);
	fg_fetch_result_clear(&r);
	CHECK(fg_fetch(&r, "file://otherhost/etc/passwd", &o, &err) == FG_EFETCH && !r.path);
	fg_fetch_result_clear(&r);
	CHECK(fg_fetch(&r, "ftp://example.org/a.html", &o, &err) == FG_EUSAGE);
	fg_fetch_result_clear(&r);

	/* file:// URLs and paths never touch the cache. */
	CHECK(access(cache, F_OK) != 0);
}

static void test_download(void)
{
	fg_fetch_options o = options(NULL);
	fg_fetch_result r;
	fg_error err;

	CHECK(fg_fetch(&r, url("/files/a.html"), &o, &err) == 0);
	CHECK(r.path && r.temporary && !r.from_cache && !r.warning[0]);
	CHECK(r.path && same_bytes(r.path, doc("a.html")));
	char *path = r.path ? strdup(r.path) : NULL;
	fg_fetch_result_clear(&r);
	CHECK(path && access(path, F_OK) != 0);
	free(path);

	/* Compressed transfer: decoded on the way. */
	CHECK(fg_fetch(&r, url("/files/a.html?encoded=1"), &o, &err) == 0);
	CHECK(r.path && same_bytes(r.path, doc("a.html")));
	fg_fetch_result_clear(&r);

	/* A gzip file is handed over as it is. */
	CHECK(fg_fetch(&r, url("/files/b.html.gz"), &o, &err) == 0);
	CHECK(r.path && same_bytes(r.path, doc("b.html.gz")));
	fg_fetch_result_clear(&r);

	CHECK(fg_fetch(&r, url("/redirect/a.html"), &o, &err) == 0);
	CHECK(r.path && same_bytes(r.path, doc("a.html")));
	fg_fetch_result_clear(&r);

	/* An error page served with 200 is the parser's to reject: its bytes
	 * arrive untouched. */
	CHECK(fg_fetch(&r, url("/errorpage"), &o, &err) == 0);
	size_t len;
	char *body = r.path ? slurp(r.path, &len) : NULL;
	CHECK(body && !strcmp(body, "<html><body><h1>502 Bad Gateway</h1></body></html>\n"));
	free(body);
	fg_fetch_result_clear(&r);
}

static void test_http_errors(void)
{
	fg_fetch_options o = options(NULL);
	fg_fetch_result r;
	fg_error err;

	CHECK(fg_fetch(&r, url("/status/404"), &o, &err) == FG_EFETCH);
	CHECK(!r.path && strstr(err.message, "404") && !strcmp(err.source, url("/status/404")));
	CHECK(count("/status/404") == 1); /* never retried */
	fg_fetch_result_clear(&r);

	CHECK(fg_fetch(&r, url("/status/503"), &o, &err) == FG_EFETCH);
	CHECK(strstr(err.message, "503") && strstr(err.message, "after 3 tries"));
	CHECK(count("/status/503") == 3);
	fg_fetch_result_clear(&r);

	CHECK(fg_fetch(&r, url("/flaky/1/a.html"), &o, &err) == 0);
	CHECK(r.path && same_bytes(r.path, doc("a.html")));
	CHECK(count("/flaky/1/a.html") == 2);
	fg_fetch_result_clear(&r);

	o.tries = 1;
	CHECK(fg_fetch(&r, url("/flaky/1/c.html"), &o, &err) == FG_EFETCH);
	CHECK(count("/flaky/1/c.html") == 1);
	fg_fetch_result_clear(&r);
	o.tries = 3;

	CHECK(fg_fetch(&r, url("/loop"), &o, &err) == FG_EFETCH && strstr(err.message, "redirects"));
	CHECK(count("/loop") == o.max_redirects + 1);
	fg_fetch_result_clear(&r);

	CHECK(fg_fetch(&r, url("/to-file"), &o, &err) == FG_EFETCH && !r.path);
	fg_fetch_result_clear(&r);

	/* Credentials in the URL never reach a message. */
	char u[200];
	snprintf(u, sizeof(u), "http://someone:pa55word@127.0.0.1:%d/status/403", port);
	CHECK(fg_fetch(&r, u, &o, &err) == FG_EFETCH);
	CHECK(!strstr(err.source, "pa55word") && !strstr(err.message, "pa55word"));
	CHECK(strstr(err.source, "127.0.0.1") && strstr(err.message, "403"));
	fg_fetch_result_clear(&r);

	o.max_size = 1000;
	CHECK(fg_fetch(&r, url("/files/a.html?max"), &o, &err) == FG_EFETCH && strstr(err.message, "size limit"));
	fg_fetch_result_clear(&r);
	CHECK(fg_fetch(&r, url("/files/a.html?encoded=1"), &o, &err) == FG_EFETCH &&
	      strstr(err.message, "size limit"));
	fg_fetch_result_clear(&r);
}

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_broken_transfers(void)
{
	fg_fetch_options o = options(NULL);
	fg_fetch_result r;
	fg_error err;
	o.tries = 1;

	double t0 = seconds();
	o.total_timeout_s = 1;
	CHECK(fg_fetch(&r, url("/stall"), &o, &err) == FG_EFETCH && !r.path);
	CHECK(seconds() - t0 < 5);
	fg_fetch_result_clear(&r);

	t0 = seconds();
	o.total_timeout_s = 30;
	o.stall_timeout_s = 1;
	CHECK(fg_fetch(&r, url("/stall?slow"), &o, &err) == FG_EFETCH && !r.path);
	CHECK(seconds() - t0 < 5);
	fg_fetch_result_clear(&r);

	/* A body cut short is an error, never a short file. */
	CHECK(fg_fetch(&r, url("/short"), &o, &err) == FG_EFETCH && !r.path);
	fg_fetch_result_clear(&r);
	CHECK(fg_fetch(&r, url("/reset"), &o, &err) == FG_EFETCH && !r.path);
	fg_fetch_result_clear(&r);
	CHECK(fg_fetch(&r, url("/chunked-cut"), &o, &err) == FG_EFETCH && !r.path);
	fg_fetch_result_clear(&r);

	/* ... and worth another try. */
	o.tries = 2;
	CHECK(fg_fetch(&r, url("/reset?again"), &o, &err) == FG_EFETCH && strstr(err.message, "after 2 tries"));
	CHECK(count("/reset?again") == 2);
	fg_fetch_result_clear(&r);

	/* Nothing listening: a connection error. */
	fg_fetch_options_init(&o);
	o.no_cache = true;
	o.tries = 2;
	o.retry_delay_ms = 10;
	CHECK(fg_fetch(&r, "http://127.0.0.1:1/x.html", &o, &err) == FG_EFETCH && strstr(err.message, "after 2 tries"));
	fg_fetch_result_clear(&r);
}

static void test_headers(void)
{
	const char *headers[] = { "X-Secret: s3cr3t-token", "Authorization: Bearer s3cr3t-bearer" };
	fg_fetch_options o = options(NULL);
	o.headers = headers;
	o.nheaders = 2;
	fg_fetch_result r;
	fg_error err;
	size_t len;

	/* Same host: the headers go along. */
	CHECK(fg_fetch(&r, url("/same"), &o, &err) == 0);
	char *body = r.path ? slurp(r.path, &len) : NULL;
	CHECK(body && strstr(body, "s3cr3t-token") && strstr(body, "s3cr3t-bearer"));
	free(body);
	fg_fetch_result_clear(&r);

	/* 127.0.0.1 → localhost: another host, no headers. */
	CHECK(fg_fetch(&r, url("/cross"), &o, &err) == 0);
	body = r.path ? slurp(r.path, &len) : NULL;
	CHECK(body && strstr(body, "Host: localhost:"));
	CHECK(body && !strstr(body, "s3cr3t"));
	free(body);
	fg_fetch_result_clear(&r);

	/* Credentials scoped to another origin (a runs file on 127.0.0.1 that
	 * lists a profile on localhost): none sent, unless the host is named. */
	char runs_url[200];
	snprintf(runs_url, sizeof(runs_url), "http://127.0.0.1:%d/files/runs.txt", port);
	char there[200];
	snprintf(there, sizeof(there), "http://localhost:%d/echo-headers", port);
	o.header_origin = runs_url;
	CHECK(fg_fetch(&r, there, &o, &err) == 0);
	body = r.path ? slurp(r.path, &len) : NULL;
	CHECK(body && strstr(body, "Host: localhost:") && !strstr(body, "s3cr3t"));
	free(body);
	fg_fetch_result_clear(&r);
	CHECK(fg_fetch(&r, url("/same"), &o, &err) == 0); /* the origin itself: yes */
	body = r.path ? slurp(r.path, &len) : NULL;
	CHECK(body && strstr(body, "s3cr3t-token"));
	free(body);
	fg_fetch_result_clear(&r);
	const char *hosts[] = { "LOCALHOST" };
	o.header_hosts = hosts;
	o.nheader_hosts = 1;
	CHECK(fg_fetch(&r, there, &o, &err) == 0);
	body = r.path ? slurp(r.path, &len) : NULL;
	CHECK(body && strstr(body, "s3cr3t-token"));
	free(body);
	fg_fetch_result_clear(&r);
	/* ... and after a redirect to a host that is not named: dropped. */
	o.header_hosts = NULL;
	o.nheader_hosts = 0;
	o.header_origin = NULL;
	CHECK(fg_fetch(&r, url("/cross"), &o, &err) == 0);
	body = r.path ? slurp(r.path, &len) : NULL;
	CHECK(body && !strstr(body, "s3cr3t"));
	free(body);
	fg_fetch_result_clear(&r);

	const char *bad[] = { "X-Secret s3cr3t-token" };
	o.headers = bad;
	o.nheaders = 1;
	CHECK(fg_fetch(&r, url("/files/a.html"), &o, &err) == FG_EUSAGE);
	CHECK(!strstr(err.message, "s3cr3t") && !strstr(err.source, "s3cr3t"));
	fg_fetch_result_clear(&r);
	const char *injected[] = { "X-Secret: a\r\nX-Other: b" };
	o.headers = injected;
	CHECK(fg_fetch(&r, url("/files/a.html"), &o, &err) == FG_EUSAGE);
	fg_fetch_result_clear(&r);
}

static void test_netrc(void)
{
	char home[400], netrc[450];
	snprintf(home, sizeof(home), "%s/home", tmp);
	mkdir(home, 0700);
	snprintf(netrc, sizeof(netrc), "%s/.netrc", home);
	char line[200];
	int n = snprintf(line, sizeof(line), "machine 127.0.0.1 login alice password n3trc-pass\n");
	write_file(netrc, line, (size_t)n);
	chmod(netrc, 0600);
	char *old = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	setenv("HOME", home, 1);

	fg_fetch_options o = options(NULL);
	o.netrc = true;
	fg_fetch_result r;
	fg_error err;
	size_t len;
	CHECK(fg_fetch(&r, url("/echo-headers"), &o, &err) == 0);
	char *body = r.path ? slurp(r.path, &len) : NULL;
	/* base64("alice:n3trc-pass") */
	CHECK(body && strstr(body, "Authorization: Basic YWxpY2U6bjN0cmMtcGFzcw=="));
	free(body);
	fg_fetch_result_clear(&r);

	/* The .netrc entry is for 127.0.0.1 only. */
	CHECK(fg_fetch(&r, url("/cross"), &o, &err) == 0);
	body = r.path ? slurp(r.path, &len) : NULL;
	CHECK(body && !strstr(body, "Authorization"));
	free(body);
	fg_fetch_result_clear(&r);

	if (old)
		setenv("HOME", old, 1);
	else
		unsetenv("HOME");
	free(old);
}

struct progress_log {
	int calls;
	uint64_t last_done, last_total;
	bool credentials_seen;
};

static void on_progress(void *ctx, const char *u, uint64_t done, uint64_t total)
{
	struct progress_log *log = ctx;
	log->calls++;
	log->last_done = done;
	log->last_total = total;
	log->credentials_seen |= strstr(u, "pa55word") != NULL;
}

static void test_progress(void)
{
	struct progress_log log = { 0 };
	fg_fetch_options o = options(NULL);
	o.progress = on_progress;
	o.progress_ctx = &log;
	fg_fetch_result r;
	fg_error err;
	char u[200];
	snprintf(u, sizeof(u), "http://someone:pa55word@127.0.0.1:%d/slow/a.html", port);
	CHECK(fg_fetch(&r, u, &o, &err) == 0);
	struct stat st;
	CHECK(stat(doc("a.html"), &st) == 0);
	CHECK(log.calls >= 2 && !log.credentials_seen);
	CHECK(log.last_done == (uint64_t)st.st_size && log.last_total == (uint64_t)st.st_size);
	fg_fetch_result_clear(&r);
}

static void test_many(void)
{
	fg_fetch_options o = options(NULL);
	o.max_parallel = 3;
	const char *sources[9];
	char names[6][80];
	for (int i = 0; i < 6; i++) {
		snprintf(names[i], sizeof(names[i]), "%s", url("/slow/%c.html?many", "acdefg"[i]));
		sources[i] = names[i];
	}
	sources[6] = url("/status/404?many");
	sources[7] = doc("a.html");
	sources[8] = url("/files/b.html.gz?many");
	fg_fetch_result res[9];
	double t0 = seconds();
	CHECK(fg_fetch_many(res, sources, 9, &o) == 1);
	double took = seconds() - t0;
	for (int i = 0; i < 6; i++) {
		char name[16];
		snprintf(name, sizeof(name), "%c.html", "acdefg"[i]);
		CHECK(res[i].err.code == FG_OK && res[i].path && same_bytes(res[i].path, doc(name)));
	}
	CHECK(res[6].err.code == FG_EFETCH && strstr(res[6].err.message, "404") && !res[6].path);
	CHECK(res[7].err.code == FG_OK && !strcmp(res[7].path, doc("a.html")));
	CHECK(res[8].err.code == FG_OK && same_bytes(res[8].path, doc("b.html.gz")));
	for (int i = 0; i < 9; i++)
		fg_fetch_result_clear(&res[i]);
	(void)took;

	/* How many at once, without timing: the server holds every /gate
	 * request until three are open (or as many as are left of the six),
	 * and uncounts one before its last byte.  A fetcher that keeps three
	 * in flight meets exactly three; one that kept fewer would wait out
	 * the gate's 10 s and be seen with fewer, one that kept more with more. */
	CHECK(server_number("/_gate?n=3&total=6") == 0);
	for (int i = 0; i < 6; i++) {
		snprintf(names[i], sizeof(names[i]), "%s", url("/gate/%c.html", "acdefg"[i]));
		sources[i] = names[i];
	}
	t0 = seconds();
	CHECK(fg_fetch_many(res, sources, 6, &o) == 0);
	long most = server_number("/_maxgate");
	if (most != 3)
		fprintf(stderr, "at most %ld downloads at once, want 3\n", most);
	CHECK(most == 3);
	CHECK(seconds() - t0 < 9); /* the gate opened by itself, twice: no 10 s wait */
	for (int i = 0; i < 6; i++)
		fg_fetch_result_clear(&res[i]);
}

/* Bodies of error and redirect responses are not read to their end. */
static void test_error_bodies(void)
{
	fg_fetch_options o = options(NULL);
	o.tries = 1;
	fg_fetch_result r;
	fg_error err;
	double t0 = seconds();
	CHECK(fg_fetch(&r, url("/endless/500"), &o, &err) == FG_EFETCH && strstr(err.message, "HTTP status 500"));
	CHECK(seconds() - t0 < 5);
	fg_fetch_result_clear(&r);
	long sent = server_number("/_sent?path=/endless/500");
	if (sent > 16 << 20)
		fprintf(stderr, "an endless 500 body: %ld bytes sent before the client stopped\n", sent);
	CHECK(sent < 16 << 20);

	t0 = seconds();
	CHECK(fg_fetch(&r, url("/endless/302"), &o, &err) == 0);
	if (r.err.code)
		fprintf(stderr, "endless 302: %s\n", r.err.message);
	CHECK(r.path && same_bytes(r.path, doc("a.html")));
	CHECK(seconds() - t0 < 5);
	fg_fetch_result_clear(&r);
}

/* The entries in a cache directory (and no temporary files). */
static int entries(const char *dir, char first[300], bool *stray)
{
	DIR *d = opendir(dir);
	int n = 0;
	*stray = false;
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		size_t len = strlen(e->d_name);
		if (len == 67 && !strcmp(e->d_name + 64, ".gz") && strspn(e->d_name, "0123456789abcdef") == 64) {
			if (n++ == 0 && first)
				snprintf(first, 300, "%s/%s", dir, e->d_name);
		} else {
			*stray = true;
		}
	}
	closedir(d);
	return n;
}

static void test_cache(void)
{
	char cache[400], entry[300];
	bool stray;
	snprintf(cache, sizeof(cache), "%s/cache", tmp);
	fg_fetch_options o = options(cache);
	fg_fetch_result r;
	fg_error err;
	struct stat st;

	CHECK(fg_fetch(&r, url("/files/c.html"), &o, &err) == 0);
	/* What is read is the download, of which the entry is a copy. */
	CHECK(r.path && r.temporary && !r.from_cache && !r.warning[0]);
	CHECK(r.path && same_content(r.path, doc("c.html")));
	fg_fetch_result_clear(&r);
	CHECK(entries(cache, entry, &stray) == 1 && !stray);
	CHECK(stat(cache, &st) == 0 && (st.st_mode & 07777) == 0700);
	CHECK(stat(entry, &st) == 0 && (st.st_mode & 07777) == 0600);
	/* Stored compressed. */
	struct stat orig;
	CHECK(stat(doc("c.html"), &orig) == 0 && st.st_size < orig.st_size / 3);

	CHECK(fg_fetch(&r, url("/files/c.html"), &o, &err) == 0);
	/* A hit is read from a copy of the entry (an entry rewritten in place
	 * while it is read: the copy is not), deleted with the result. */
	CHECK(r.path && r.from_cache && r.temporary && strcmp(r.path, entry) && same_content(r.path, doc("c.html")));
	CHECK(count("/files/c.html") == 1);
	char copy[400];
	snprintf(copy, sizeof(copy), "%s", r.path ? r.path : "");
	fg_fetch_result_clear(&r);
	CHECK(access(entry, F_OK) == 0 && access(copy, F_OK) != 0);

	/* Credentials in the URL are not part of the key: same entry. */
	char u[200];
	snprintf(u, sizeof(u), "http://someone:pa55word@127.0.0.1:%d/files/c.html#frag", port);
	CHECK(fg_fetch(&r, u, &o, &err) == 0 && r.from_cache);
	fg_fetch_result_clear(&r);

	o.refresh = true;
	CHECK(fg_fetch(&r, url("/files/c.html"), &o, &err) == 0 && !r.from_cache);
	CHECK(count("/files/c.html") == 2);
	fg_fetch_result_clear(&r);
	o.refresh = false;

	o.no_cache = true;
	CHECK(fg_fetch(&r, url("/files/c.html"), &o, &err) == 0 && r.temporary && !r.from_cache);
	CHECK(count("/files/c.html") == 3);
	fg_fetch_result_clear(&r);
	o.no_cache = false;

	/* Damaged entries are fetched again: cut short, then one byte flipped. */
	CHECK(truncate(entry, st.st_size / 2) == 0);
	CHECK(fg_fetch(&r, url("/files/c.html"), &o, &err) == 0 && !r.from_cache);
	CHECK(r.path && same_content(r.path, doc("c.html")));
	CHECK(count("/files/c.html") == 4);
	fg_fetch_result_clear(&r);
	int fd = open(entry, O_RDWR);
	unsigned char byte;
	CHECK(pread(fd, &byte, 1, st.st_size / 2) == 1);
	byte ^= 0x55;
	CHECK(pwrite(fd, &byte, 1, st.st_size / 2) == 1);
	close(fd);
	CHECK(fg_fetch(&r, url("/files/c.html"), &o, &err) == 0 && !r.from_cache);
	CHECK(count("/files/c.html") == 5);
	fg_fetch_result_clear(&r);
	CHECK(fg_fetch(&r, url("/files/c.html"), &o, &err) == 0 && r.from_cache);
	fg_fetch_result_clear(&r);

	/* A served gzip is stored as it is. */
	CHECK(fg_fetch(&r, url("/files/b.html.gz"), &o, &err) == 0);
	CHECK(r.path && r.temporary && same_bytes(r.path, doc("b.html.gz")));
	fg_fetch_result_clear(&r);

	/* Failures leave nothing behind. */
	CHECK(fg_fetch(&r, url("/status/500"), &o, &err) == FG_EFETCH);
	fg_fetch_result_clear(&r);
	o.tries = 1;
	CHECK(fg_fetch(&r, url("/short"), &o, &err) == FG_EFETCH);
	fg_fetch_result_clear(&r);
	CHECK(entries(cache, NULL, &stray) == 2 && !stray);
}

static void test_cache_unwritable(void)
{
	char file[400], cache[450];
	snprintf(file, sizeof(file), "%s/plain-file", tmp);
	write_file(file, "x", 1);
	/* Below a regular file: not creatable, even for root. */
	snprintf(cache, sizeof(cache), "%s/cache", file);
	fg_fetch_options o = options(cache);
	fg_fetch_result r;
	fg_error err;
	CHECK(fg_fetch(&r, url("/files/d.html"), &o, &err) == 0);
	CHECK(r.warning[0] && strstr(r.warning, "cache"));
	CHECK(r.path && r.temporary && same_bytes(r.path, doc("d.html")));
	fg_fetch_result_clear(&r);

	/* The default location follows XDG_CACHE_HOME. */
	char xdg[400], want[450];
	snprintf(xdg, sizeof(xdg), "%s/xdg", tmp);
	setenv("XDG_CACHE_HOME", xdg, 1);
	o.cache_dir = NULL;
	CHECK(fg_fetch(&r, url("/files/d.html"), &o, &err) == 0 && !r.warning[0]);
	snprintf(want, sizeof(want), "%s/fgbisect/", xdg);
	CHECK(r.path && !strncmp(r.path, want, strlen(want)));
	fg_fetch_result_clear(&r);
	unsetenv("XDG_CACHE_HOME");
}

/* A cache someone else could have written to is not used; entries that
 * are not regular files are misses, never read. */
static void test_cache_trust(void)
{
	char cache[400], link[450], entry[300];
	bool stray;
	fg_fetch_result r;
	fg_error err;

	snprintf(cache, sizeof(cache), "%s/cache-open", tmp);
	CHECK(mkdir(cache, 0700) == 0 && chmod(cache, 0777) == 0);
	fg_fetch_options o = options(cache);
	CHECK(fg_fetch(&r, url("/files/a.html?trust"), &o, &err) == 0);
	CHECK(strstr(r.warning, "cache not used") && strstr(r.warning, "writable by others"));
	CHECK(r.temporary && same_bytes(r.path, doc("a.html")));
	fg_fetch_result_clear(&r);
	CHECK(entries(cache, NULL, &stray) == 0 && !stray);

	/* A symlink to a directory of ours is refused too: who made it? */
	snprintf(cache, sizeof(cache), "%s/cache-real", tmp);
	snprintf(link, sizeof(link), "%s/cache-link", tmp);
	CHECK(mkdir(cache, 0700) == 0 && symlink(cache, link) == 0);
	o = options(link);
	CHECK(fg_fetch(&r, url("/files/a.html?trust"), &o, &err) == 0);
	CHECK(strstr(r.warning, "symbolic link") && r.temporary);
	fg_fetch_result_clear(&r);
	CHECK(entries(cache, NULL, &stray) == 0 && !stray);

	if (geteuid() == 0) {
		snprintf(cache, sizeof(cache), "%s/cache-theirs", tmp);
		CHECK(mkdir(cache, 0700) == 0 && chown(cache, 65534, 65534) == 0);
		o = options(cache);
		CHECK(fg_fetch(&r, url("/files/a.html?trust"), &o, &err) == 0);
		CHECK(strstr(r.warning, "another user") && r.temporary);
		fg_fetch_result_clear(&r);
	} else {
		fprintf(stderr, "note: not root: the cache of another user is not tested\n");
	}

	/* A FIFO under an entry's name: a miss (no hang), downloaded again,
	 * and replaced by a real entry. */
	snprintf(cache, sizeof(cache), "%s/cache-fifo", tmp);
	o = options(cache);
	CHECK(fg_fetch(&r, url("/files/c.html?fifo"), &o, &err) == 0 && !r.warning[0]);
	fg_fetch_result_clear(&r);
	CHECK(entries(cache, entry, &stray) == 1);
	CHECK(unlink(entry) == 0 && mkfifo(entry, 0600) == 0);
	alarm(30); /* a hang fails the test rather than the ctest timeout */
	CHECK(fg_fetch(&r, url("/files/c.html?fifo"), &o, &err) == 0 && !r.from_cache);
	CHECK(r.path && same_content(r.path, doc("c.html")));
	fg_fetch_result_clear(&r);
	alarm(0);
	struct stat st;
	CHECK(lstat(entry, &st) == 0 && S_ISREG(st.st_mode));
	CHECK(count("/files/c.html?fifo") == 2);
}

/* A full file system under the cache: the download still succeeds,
 * uncached, with a warning.  Needs root for a small tmpfs. */
static void test_cache_full(void)
{
	char cache[400], cmd[600];
	snprintf(cache, sizeof(cache), "%s/cache-full", tmp);
	mkdir(cache, 0700);
	snprintf(cmd, sizeof(cmd), "mount -t tmpfs -o size=64k,mode=0700 fgbisect-test %s 2>/dev/null", cache);
	if (geteuid() != 0 || system(cmd) != 0) {
		fprintf(stderr, "note: cannot mount a small tmpfs (not root?): the full cache is not tested\n");
		return;
	}
	fg_fetch_options o = options(cache);
	fg_fetch_result r;
	fg_error err;
	struct stat st;
	CHECK(fg_fetch(&r, url("/random/300000"), &o, &err) == 0);
	CHECK(strstr(r.warning, "not cached"));
	CHECK(r.path && r.temporary && stat(r.path, &st) == 0 && st.st_size == 300000);
	CHECK(r.path && strncmp(r.path, cache, strlen(cache)) != 0);
	fg_fetch_result_clear(&r);
	CHECK(count("/random/300000") == 2);
	bool stray;
	CHECK(entries(cache, NULL, &stray) == 0 && !stray);
	/* What fits is still cached. */
	CHECK(fg_fetch(&r, url("/files/a.html?full"), &o, &err) == 0 && !r.warning[0]);
	fg_fetch_result_clear(&r);
	CHECK(entries(cache, NULL, &stray) == 1 && !stray);
	snprintf(cmd, sizeof(cmd), "umount %s", cache);
	CHECK(system(cmd) == 0);
}

/* Two processes fill the same entry at once: both end with a whole file. */
static void test_cache_race(void)
{
	char cache[400], entry[300];
	bool stray;
	snprintf(cache, sizeof(cache), "%s/cache-race", tmp);
	pid_t kids[2];
	for (int i = 0; i < 2; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			fg_fetch_options o = options(cache);
			fg_fetch_result r;
			fg_error err;
			bool ok = fg_fetch(&r, url("/slow/e.html"), &o, &err) == 0 && !r.from_cache &&
			          same_content(r.path, doc("e.html"));
			fg_fetch_result_clear(&r);
			_exit(ok ? 0 : 1);
		}
	}
	for (int i = 0; i < 2; i++) {
		int status = -1;
		waitpid(kids[i], &status, 0);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	CHECK(count("/slow/e.html") == 2);
	CHECK(entries(cache, entry, &stray) == 1 && !stray);
	CHECK(same_content(entry, doc("e.html")));
}

static bool contains(const char *hay, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = 0; hay && i + n <= len; i++)
		if (!memcmp(hay + i, needle, n))
			return true;
	return false;
}

static bool file_has(const char *path, const char *needle)
{
	size_t a = 0, b = 0;
	char *raw = slurp(path, &a), *plain = slurp_gunzipped(path, &b);
	bool found = contains(raw, a, needle) || contains(plain, b, needle);
	free(raw);
	free(plain);
	return found;
}

static void test_cache_secrets(void)
{
	char cache[400];
	snprintf(cache, sizeof(cache), "%s/cache-secrets", tmp);
	const char *headers[] = { "X-Secret: s3cr3t-token" };
	fg_fetch_options o = options(cache);
	o.headers = headers;
	o.nheaders = 1;
	fg_fetch_result r;
	fg_error err;
	char u[200];
	snprintf(u, sizeof(u), "http://someone:pa55word@127.0.0.1:%d/files/f.html", port);
	CHECK(fg_fetch(&r, u, &o, &err) == 0);
	fg_fetch_result_clear(&r);
	CHECK(fg_fetch(&r, url("/files/g.html"), &o, &err) == 0);
	fg_fetch_result_clear(&r);

	DIR *d = opendir(cache);
	struct dirent *e;
	int files = 0;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[700];
		snprintf(path, sizeof(path), "%s/%s", cache, e->d_name);
		files++;
		CHECK(!strstr(e->d_name, "s3cr3t") && !strstr(e->d_name, "pa55word"));
		CHECK(!file_has(path, "s3cr3t") && !file_has(path, "pa55word"));
	}
	if (d)
		closedir(d);
	CHECK(files == 2);
}

int main(void)
{
	parent = getpid();
	/* Loopback requests must not go through a proxy from the environment. */
	const char *proxies[] = { "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY" };
	for (size_t i = 0; i < sizeof(proxies) / sizeof(proxies[0]); i++)
		unsetenv(proxies[i]);

	const char *base = getenv("TMPDIR");
	snprintf(tmp, sizeof(tmp), "%s/fgbisect-test-fetch-XXXXXX", base && base[0] == '/' ? base : "/tmp");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	atexit(cleanup);
	snprintf(docroot, sizeof(docroot), "%s/docs", tmp);
	mkdir(docroot, 0700);
	make_docs();
	if (!start_server()) {
		printf("SKIP: cannot start tests/tools/fetch_server.py (python3 missing or FG_SOURCE_DIR unset)\n");
		return 77;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);

	test_sources();
	test_local();
	test_download();
	test_http_errors();
	test_broken_transfers();
	test_headers();
	test_netrc();
	test_progress();
	test_many();
	test_error_bodies();
	test_cache();
	test_cache_unwritable();
	test_cache_trust();
	test_cache_full();
	test_cache_race();
	test_cache_secrets();

	curl_global_cleanup();
	if (check_failures)
		fprintf(stderr, "%d check(s) failed\n", check_failures);
	return check_failures ? 1 : 0;
}
