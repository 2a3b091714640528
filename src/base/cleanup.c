#include "base/cleanup.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static fg_cleanup_item *head;
/* Held while the list is edited (threads: share -j fetches in parallel).
 * The editor blocks the signals first, so a handler never interrupts the
 * holder on its own thread; on another thread the handler waits for it. */
static atomic_flag busy = ATOMIC_FLAG_INIT;

static void block(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, old);
	while (atomic_flag_test_and_set_explicit(&busy, memory_order_acquire))
		;
}

static void unblock(const sigset_t *old)
{
	atomic_flag_clear_explicit(&busy, memory_order_release);
	pthread_sigmask(SIG_SETMASK, old, NULL);
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
	unblock(&old);
}

int fg_cleanup_mkstemp(fg_cleanup_item *item, char *template)
{
	sigset_t old;
	block(&old);
	int fd = mkstemp(template);
	int saved = errno;
	if (fd >= 0)
		link_blocked(item, template, false, 0);
	unblock(&old);
	errno = saved;
	return fd;
}

void fg_cleanup_add_group(fg_cleanup_item *item, pid_t pgid)
{
	sigset_t old;
	block(&old);
	link_blocked(item, NULL, false, pgid);
	unblock(&old);
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
	unblock(&old);
}

/* From a handler: takes the list (another thread may be in the middle of
 * an edit: let it finish, it holds the flag for a few instructions; never
 * wait for ever) and sends SIGTERM to every group.  Returns whether the
 * list was taken, and in *groups whether a group was signalled. */
static bool terminate_groups(bool *groups)
{
	long spins = 0;
	while (atomic_flag_test_and_set_explicit(&busy, memory_order_acquire) && spins < 100000000)
		spins++;
	*groups = false;
	for (fg_cleanup_item *i = head; i; i = i->next)
		if (i->pgid > 0 && kill(-i->pgid, SIGTERM) == 0)
			*groups = true;
	return spins < 100000000;
}

void fg_cleanup_terminate_groups(void)
{
	int saved = errno;
	bool groups;
	if (terminate_groups(&groups))
		atomic_flag_clear_explicit(&busy, memory_order_release);
	errno = saved;
}

void fg_cleanup_run(void)
{
	int saved = errno;
	bool groups;
	terminate_groups(&groups); /* the list stays taken: the process exits */
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
