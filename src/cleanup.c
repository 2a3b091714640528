#include "cleanup.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static fg_cleanup_item *head;

/* The list is edited with SIGINT and SIGTERM blocked, so that a handler
 * never walks a half-linked node. */
static void block(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* Links item at the head; the caller blocks the signals. */
static void link_blocked(fg_cleanup_item *item, const char *path, bool is_dir, pid_t pgid)
{
	item->path = path;
	item->is_dir = is_dir;
	item->pgid = pgid;
	item->prev = NULL;
	item->next = head;
	if (head)
		head->prev = item;
	head = item;
	item->linked = true;
}

void fg_cleanup_add_path(fg_cleanup_item *item, const char *path, bool is_dir)
{
	sigset_t old;
	block(&old);
	link_blocked(item, path, is_dir, 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int fg_cleanup_mkstemp(fg_cleanup_item *item, char *template)
{
	sigset_t old;
	block(&old);
	int fd = mkstemp(template);
	int saved = errno;
	if (fd >= 0)
		link_blocked(item, template, false, 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return fd;
}

void fg_cleanup_add_group(fg_cleanup_item *item, pid_t pgid)
{
	sigset_t old;
	block(&old);
	link_blocked(item, NULL, false, pgid);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

void fg_cleanup_remove(fg_cleanup_item *item)
{
	if (!item || !item->linked)
		return;
	sigset_t old;
	block(&old);
	if (item->prev)
		item->prev->next = item->next;
	else
		head = item->next;
	if (item->next)
		item->next->prev = item->prev;
	item->prev = item->next = NULL;
	item->linked = false;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

void fg_cleanup_run(void)
{
	int saved = errno;
	bool groups = false;
	for (fg_cleanup_item *i = head; i; i = i->next)
		if (i->pgid > 0 && kill(-i->pgid, SIGTERM) == 0)
			groups = true;
	/* A moment to exit on SIGTERM (a profiler flushing), then no choice. */
	for (int tick = 0; groups && tick < 25; tick++) {
		const struct timespec t = { 0, 20 * 1000 * 1000 };
		nanosleep(&t, NULL);
		groups = false;
		for (fg_cleanup_item *i = head; i; i = i->next)
			if (i->pgid > 0) {
				while (waitpid(-i->pgid, NULL, WNOHANG) > 0)
					;
				if (kill(-i->pgid, 0) == 0)
					groups = true;
			}
	}
	for (fg_cleanup_item *i = head; i; i = i->next)
		if (i->pgid > 0)
			kill(-i->pgid, SIGKILL);
	for (fg_cleanup_item *i = head; i; i = i->next) {
		if (!i->path)
			continue;
		if (i->is_dir)
			rmdir(i->path);
		else
			unlink(i->path);
	}
	errno = saved;
}
