/* fgbisect — what must not outlive an interrupted run.
 *
 * Temporary files (downloads, cache entries being written, a capture's
 * folder) and the process groups of capture commands are registered here
 * while they exist.  The command layer's SIGINT/SIGTERM handler calls
 * fg_cleanup_run, which is async-signal-safe, and exits: no tmp- file is
 * left in the cache and no capture keeps running re-parented.
 *
 * Items are intrusive (the caller owns the node, usually inside the struct
 * that owns the file) so that registering never allocates; the strings must
 * live until the item is removed. */
#ifndef FG_CLEANUP_H
#define FG_CLEANUP_H

#include <stdbool.h>
#include <sys/types.h>

typedef struct fg_cleanup_item {
	struct fg_cleanup_item *prev, *next;
	const char *path;  /* a file to unlink, or a folder to rmdir (is_dir), or NULL */
	bool is_dir;
	pid_t pgid;        /* a process group to kill, or 0 */
	bool linked;
} fg_cleanup_item;

/* Registers a file (or an empty folder) to remove. */
void fg_cleanup_add_path(fg_cleanup_item *item, const char *path, bool is_dir);

/* Registers a process group to kill. */
void fg_cleanup_add_group(fg_cleanup_item *item, pid_t pgid);

/* mkstemp(template), registered in the same breath (no signal can come
 * between the file's creation and its registration).  Returns the fd or -1
 * with errno set. */
int fg_cleanup_mkstemp(fg_cleanup_item *item, char *template);

/* Unregisters (a no-op for an item not registered). */
void fg_cleanup_remove(fg_cleanup_item *item);

/* From a signal handler that returns (the caller stops what it is doing
 * and undoes it before exiting): SIGTERM to every registered process group,
 * nothing removed; the owners see their children end and clean up as on
 * any failure.  Async-signal-safe. */
void fg_cleanup_terminate_groups(void);

/* From a signal handler: SIGTERM to every registered process group, SIGKILL
 * to what is left of them a moment later, then every registered path
 * removed, newest first.  Async-signal-safe. */
void fg_cleanup_run(void);

#endif
