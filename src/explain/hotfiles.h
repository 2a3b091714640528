/* fgbisect — the hot files of a set of frames: their source files' history
 * (src/git/history.h) and, with a window, the decision (src/explain/decision.h), in one
 * call: what `hotfiles`, `diff --repo` and `days --repo` look up.  Not thread-safe (one
 * libgit2 repository handle). */
#ifndef FG_HOTFILES_H
#define FG_HOTFILES_H

#include <stdbool.h>
#include <stddef.h>

#include "explain/decision.h"
#include "base/error.h"
#include "git/history.h"
#include "git/repo.h"

typedef struct fg_hotfiles {
	fg_history *history;
	fg_history_result *result;
	fg_decision *decision; /* NULL without a window or without frames */
} fg_hotfiles;

/* Opens the repository at dir (or walks repo, already open, when not
 * NULL: a command opens it once), looks up frames[0..nframes) (with their
 * methods' histories unless methods is false) and, with a window
 * (opts->good), decides for the first hot_frames of them (0: no decision); stack names the
 * frames on the grown stacks (the callers; NULL: not known).  Names typed
 * by people (opts->typed_names) none of which resolves to a file get no
 * decision: a misspelt name says nothing about the build.  *out is
 * cleared first; free it with fg_hotfiles_clear whatever the result. */
int fg_hotfiles_look_up(fg_hotfiles *out, const char *dir, fg_repo *repo, const fg_history_options *opts, bool methods,
			const char *const *frames, size_t nframes, size_t hot_frames, const char *const *stack,
			size_t nstack, fg_error *err);
void fg_hotfiles_clear(fg_hotfiles *h);

/* Whether entry i of r is a file to show: in the repository, and not shown
 * for an earlier frame (get and upsert of one class grow together). */
bool fg_hotfiles_shown(const fg_history_result *r, size_t i);

#endif
