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
