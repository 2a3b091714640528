#include "bisect/capture.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/process.h"
#include "io/input.h"
#include "net/cache.h"

extern char **environ;

struct fg_capture {
	char *dir;
	char *path;
	/* Removed, and the command's group killed, if we are interrupted. */
	fg_cleanup_item dir_item, path_item, group_item;
};

void fg_capture_options_init(fg_capture_options *opts)
{
	opts->timeout_s = 0;
	opts->dir = NULL;
	opts->env = NULL;
	opts->nenv = 0;
}

const char *fg_capture_path(const fg_capture *c)
{
	return c->path;
}

void fg_capture_free(fg_capture *c)
{
	if (!c)
		return;
	fg_cleanup_remove(&c->group_item);
	fg_cleanup_remove(&c->path_item);
	fg_cleanup_remove(&c->dir_item);
	if (c->path)
		unlink(c->path);
	/* The command may have left other files beside its profile: the
	 * folder then stays, like any temporary file of a crashed tool. */
	if (c->dir)
		rmdir(c->dir);
	free(c->path);
	free(c->dir);
	free(c);
}

static bool same_name(const char *a, const char *b)
{
	size_t n = strcspn(a, "=");
	return strncmp(a, b, n) == 0 && b[n] == '=';
}

/* environ without the names extra sets, then extra; built before the spawn
 * because a child of a threaded process (libcurl's resolver) may only call
 * async-signal-safe functions. */
static char **child_environment(const char *const *extra, size_t nextra)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = malloc((n + nextra + 1) * sizeof(*env));
	if (!env)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;
		for (size_t j = 0; j < nextra && !replaced; j++)
			replaced = same_name(extra[j], environ[i]);
		if (!replaced)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < nextra; j++)
		env[k++] = (char *)extra[j];
	env[k] = NULL;
	return env;
}

/* Registers the command's process group for removal on a signal; called
 * by the launcher with the terminating signals blocked, so no signal falls
 * between the start and the registration. */
static void register_group(void *ctx, pid_t pid)
{
	fg_cleanup_add_group(ctx, pid);
}

int fg_capture_run(fg_capture **out, const char *command, const fg_capture_options *opts, fg_error *err)
{
	fg_capture_options defaults;
	if (!opts) {
		fg_capture_options_init(&defaults);
		opts = &defaults;
	}
	*out = NULL;
	fg_capture *c = calloc(1, sizeof(*c));
	const char *tmp = getenv("TMPDIR");
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	char *envout = NULL;
	const char **extra = NULL;
	char **env = NULL;
	int rc = 0;
	if (!c || asprintf(&c->dir, "%s/fgbisect-capture-XXXXXX", tmp) < 0) {
		if (c)
			c->dir = NULL;
		rc = fg_error_oom(err, command);
		goto out;
	}
	if (!mkdtemp(c->dir)) {
		rc = fg_error_set(err, FG_EFETCH, command, "cannot make a temporary folder in %s: %s", tmp,
		                  strerror(errno));
		free(c->dir);
		c->dir = NULL;
		goto out;
	}
	fg_cleanup_add_path(&c->dir_item, c->dir, true);
	if (asprintf(&c->path, "%s/profile-XXXXXX", c->dir) < 0) {
		c->path = NULL;
		rc = fg_error_oom(err, command);
		goto out;
	}
	int fd = fg_cleanup_mkstemp(&c->path_item, c->path);
	if (fd < 0) {
		rc = fg_error_set(err, FG_EFETCH, command, "cannot make the output file: %s", strerror(errno));
		free(c->path);
		c->path = NULL;
		goto out;
	}
	close(fd);
	extra = malloc((opts->nenv + 1) * sizeof(*extra));
	if (!extra || asprintf(&envout, "FGBISECT_OUT=%s", c->path) < 0) {
		envout = NULL;
		rc = fg_error_oom(err, command);
		goto out;
	}
	for (size_t i = 0; i < opts->nenv; i++)
		extra[i] = opts->env[i];
	extra[opts->nenv] = envout;
	if (!(env = child_environment(extra, opts->nenv + 1))) {
		rc = fg_error_oom(err, command);
		goto out;
	}

	/* sh in a process group of its own, so that a timeout reaches the
	 * build and the profiler it started, not only the shell. */
	fg_process_options po;
	fg_process_options_init(&po);
	po.dir = opts->dir;
	po.env = env;
	po.out = FG_PROCESS_STDOUT_TO_STDERR;
	po.own_process_group = true;
	po.timeout_s = opts->timeout_s;
	po.on_start = register_group;
	po.on_start_ctx = &c->group_item;
	fg_process_result r;
	fg_error perr;
	if (fg_process_run(&r, (const char *const[]){ "/bin/sh", "-c", command, NULL }, &po, &perr)) {
		rc = fg_error_set(err, FG_EFETCH, command, "cannot run the capture command: %s", perr.message);
		goto out;
	}
	/* Whatever the shell left behind in its group (a background profiler,
	 * a server it started) goes too, timed out or not: nothing of a
	 * capture outlives it. */
	kill(-r.pid, SIGKILL);
	fg_cleanup_remove(&c->group_item);
	struct stat st;
	if (r.timed_out)
		rc = fg_error_set(err, FG_EFETCH, command, "capture timed out after %g s (process group killed)",
		                  opts->timeout_s);
	else if (r.signal)
		rc = fg_error_set(err, FG_EFETCH, command, "capture command killed by signal %d", r.signal);
	else if (r.exit_status != 0)
		rc = fg_error_set(err, FG_EFETCH, command, "capture command failed with exit status %d",
		                  r.exit_status);
	else if (stat(c->path, &st) < 0 || st.st_size == 0)
		rc = fg_error_set(err, FG_EFETCH, command, "capture command wrote no profile to $FGBISECT_OUT");
	fg_process_result_clear(&r);
out:
	free(env);
	free(extra);
	free(envout);
	if (rc) {
		fg_capture_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

/* The cache key of a commit's capture i (1-based), or of their count (i 0). */
static char *kept_key(const char *command, const char *commit, size_t i)
{
	char *key;
	return asprintf(&key, "fgbisect capture\n%s\n%s\n%zu", commit, command, i) < 0 ? NULL : key;
}

/* Fills the entry for key with len bytes of data, or the file at path. */
static int keep_entry(fg_cache *cache, const char *key, const char *path, const char *data, size_t len,
                      fg_error *err)
{
	fg_cache_entry *e = NULL;
	int rc = fg_cache_entry_new(&e, cache, key, err);
	FILE *f = !rc && path ? fopen(path, "rb") : NULL;
	if (!rc && path && !f)
		rc = fg_error_set(err, FG_EFETCH, path, "cannot read the capture: %s", strerror(errno));
	char buf[65536];
	size_t n;
	while (!rc && f && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		rc = fg_cache_entry_write(e, buf, n, err);
	if (!rc && !path)
		rc = fg_cache_entry_write(e, data, len, err);
	char *written = NULL;
	if (!rc && (rc = fg_cache_entry_commit(&written, e, err)) == FG_EINVALID)
		rc = 0; /* a cut gzip is not worth keeping; the verdict said so */
	if (written) {
		unlink(written);
		free(written);
	}
	if (f)
		fclose(f);
	fg_cache_entry_free(e);
	return rc;
}

int fg_capture_keep(const char *cache_dir, const char *command, const char *commit, const char *const *paths,
                    size_t n, fg_error *err)
{
	fg_cache *cache = NULL;
	int rc = fg_cache_open(&cache, cache_dir, err);
	for (size_t i = 0; !rc && i <= n; i++) {
		/* The count last: a reader never finds it ahead of its captures. */
		size_t k = i < n ? i + 1 : 0;
		char *key = kept_key(command, commit, k), count[32];
		int len = snprintf(count, sizeof(count), "%zu\n", n);
		rc = !key ? fg_error_oom(err, NULL)
		          : keep_entry(cache, key, k ? paths[i] : NULL, count, (size_t)len, err);
		free(key);
	}
	fg_cache_free(cache);
	return rc;
}

struct fg_capture_kept {
	size_t n;
	char **paths;
	fg_cleanup_item *items;
};

size_t fg_capture_kept_count(const fg_capture_kept *k)
{
	return k->n;
}

const char *fg_capture_kept_path(const fg_capture_kept *k, size_t i)
{
	return k->paths[i];
}

void fg_capture_kept_free(fg_capture_kept *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		if (k->paths[i]) {
			unlink(k->paths[i]);
			fg_cleanup_remove(&k->items[i]);
			free(k->paths[i]);
		}
	free(k->paths);
	free(k->items);
	free(k);
}

/* Looks key up into *path (a private copy, registered with item): 1 on a
 * hit, 0 on a miss, or FG_ENOMEM. */
static int lookup(char **path, fg_cleanup_item *item, fg_cache *cache, const char *command, const char *commit,
                  size_t i, fg_error *err)
{
	char *key = kept_key(command, commit, i);
	int hit = key ? fg_cache_lookup(path, item, cache, key, err) : fg_error_oom(err, NULL);
	free(key);
	return hit;
}

/* The count of a commit's kept captures, 0 when none is. */
static int kept_count(size_t *n, fg_cache *cache, const char *command, const char *commit, fg_error *err)
{
	*n = 0;
	char *path = NULL;
	fg_cleanup_item item = { 0 };
	int hit = lookup(&path, &item, cache, command, commit, 0, err);
	if (hit <= 0)
		return hit;
	fg_input *in = NULL;
	const char *data;
	size_t len;
	fg_error ignored;
	if (!fg_input_open(&in, path, 0, &ignored) && !fg_input_peek(&data, &len, in, 32, &ignored)) {
		char text[33];
		snprintf(text, sizeof(text), "%.*s", (int)len, data);
		char *end;
		unsigned long long v = strtoull(text, &end, 10);
		*n = end != text && *end == '\n' && v < 100000 ? (size_t)v : 0;
	}
	fg_input_free(in);
	unlink(path);
	fg_cleanup_remove(&item);
	free(path);
	return 0;
}

int fg_capture_kept_load(fg_capture_kept **out, const char *cache_dir, const char *command, const char *commit,
                         fg_error *err)
{
	*out = NULL;
	fg_cache *cache = NULL;
	fg_error ignored;
	if (fg_cache_open(&cache, cache_dir, &ignored))
		return 0; /* no cache: nothing kept */
	size_t n = 0;
	int rc = kept_count(&n, cache, command, commit, err);
	fg_capture_kept *k = !rc && n ? calloc(1, sizeof(*k)) : NULL;
	if (k && (!(k->paths = calloc(n, sizeof(*k->paths))) || !(k->items = calloc(n, sizeof(*k->items)))))
		rc = fg_error_oom(err, NULL);
	else if (!rc && n && !k)
		rc = fg_error_oom(err, NULL);
	for (size_t i = 0; !rc && k && i < n; i++, k->n++) {
		int hit = lookup(&k->paths[i], &k->items[i], cache, command, commit, i + 1, err);
		if (hit < 0)
			rc = hit;
		else if (!hit)
			break; /* one missing or damaged: none is used */
	}
	fg_cache_free(cache);
	if (rc || (k && k->n < n)) {
		fg_capture_kept_free(k);
		return rc;
	}
	*out = k;
	return 0;
}
