#include "base/process.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

void fg_process_options_init(fg_process_options *o)
{
	memset(o, 0, sizeof(*o));
}

void fg_process_result_clear(fg_process_result *r)
{
	free(r->output);
	memset(r, 0, sizeof(*r));
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads fd to its end into r->output, or hands it to o->on_output. */
static int collect(fg_process_result *r, int fd, const fg_process_options *o)
{
	if (o->on_output) {
		char chunk[4096];
		for (;;) {
			ssize_t got = read(fd, chunk, sizeof(chunk));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				return 0;
			o->on_output(o->on_output_ctx, chunk, (size_t)got);
		}
	}
	size_t cap = 4096;
	char *buf = malloc(cap);
	if (!buf)
		return -1;
	size_t len = 0;
	for (;;) {
		if (cap - len < 2) {
			char *bigger = realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				return -1;
			}
			buf = bigger;
			cap *= 2;
		}
		ssize_t got = read(fd, buf + len, cap - len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	buf[len] = '\0';
	r->output = buf;
	r->output_len = len;
	return 0;
}

/* Waits for pid; past the deadline its group (or it) gets SIGTERM, then
 * SIGKILL a second later. */
static int wait_child(fg_process_result *r, pid_t pid, const fg_process_options *o)
{
	const struct timespec tick = { 0, 20 * 1000 * 1000 };
	pid_t target = o->own_process_group ? -pid : pid;
	double deadline = o->timeout_s > 0 ? now_s() + o->timeout_s : 0, killed_at = 0;
	int ws = 0;
	for (;;) {
		pid_t got = waitpid(pid, &ws, o->timeout_s > 0 ? WNOHANG : 0);
		if (got == pid)
			break;
		if (got < 0 && errno != EINTR)
			return -1;
		if (got == 0) {
			double t = now_s();
			if (!r->timed_out && t >= deadline) {
				r->timed_out = true;
				killed_at = t;
				kill(target, SIGTERM);
			} else if (r->timed_out && t >= killed_at + 1.0) {
				kill(target, SIGKILL);
			}
			nanosleep(&tick, NULL);
		}
	}
	/* What the child left behind in its group (a background profiler) goes too. */
	if (r->timed_out && o->own_process_group)
		kill(-pid, SIGKILL);
	r->exit_status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
	r->signal = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
	return 0;
}

int fg_process_run(fg_process_result *result, const char *const *argv, const fg_process_options *opts, fg_error *err)
{
	fg_process_options defaults;
	if (!opts) {
		fg_process_options_init(&defaults);
		opts = &defaults;
	}
	memset(result, 0, sizeof(*result));
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	sigset_t def;
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	posix_spawnattr_setsigdefault(&attr, &def);
	/* The child starts with no signal blocked, whatever we block now. */
	sigset_t none;
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&attr, &none);
	short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
	if (opts->own_process_group) {
		posix_spawnattr_setpgroup(&attr, 0);
		flags |= POSIX_SPAWN_SETPGROUP;
	}
	posix_spawnattr_setflags(&attr, flags);
	int fds[2] = { -1, -1 };
	int rc = 0;
	if (opts->out == FG_PROCESS_STDOUT_CAPTURE) {
		if (pipe(fds) < 0) {
			rc = fg_error_set(err, FG_EFETCH, argv[0], "cannot make a pipe: %s", strerror(errno));
			goto out;
		}
		posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
		if (opts->merge_stderr)
			posix_spawn_file_actions_adddup2(&fa, fds[1], STDERR_FILENO);
		posix_spawn_file_actions_addclose(&fa, fds[0]);
		posix_spawn_file_actions_addclose(&fa, fds[1]);
	} else if (opts->out == FG_PROCESS_STDOUT_TO_STDERR) {
		posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
	}
	if (opts->dir)
		posix_spawn_file_actions_addchdir_np(&fa, opts->dir);
	/* What we buffered must not be written twice, or after the child's. */
	fflush(NULL);
	pid_t pid;
	sigset_t term, blocked;
	sigemptyset(&term);
	sigaddset(&term, SIGINT);
	sigaddset(&term, SIGTERM);
	sigaddset(&term, SIGHUP);
	sigprocmask(SIG_BLOCK, &term, &blocked);
	int e = posix_spawnp(&pid, argv[0], &fa, &attr, (char *const *)argv, opts->env ? opts->env : environ);
	if (e == 0) {
		result->pid = pid;
		if (opts->on_start)
			opts->on_start(opts->on_start_ctx, pid);
	}
	sigprocmask(SIG_SETMASK, &blocked, NULL);
	if (e != 0) {
		rc = fg_error_set(err, FG_EFETCH, argv[0], "cannot run %s: %s", argv[0], strerror(e));
		goto out;
	}
	if (fds[1] >= 0) {
		close(fds[1]);
		fds[1] = -1;
		if (collect(result, fds[0], opts) < 0)
			rc = fg_error_oom(err, argv[0]);
	}
	if (wait_child(result, pid, opts) < 0 && !rc)
		rc = fg_error_set(err, FG_EFETCH, argv[0], "cannot wait for %s: %s", argv[0], strerror(errno));
out:
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc)
		fg_process_result_clear(result);
	return rc;
}
