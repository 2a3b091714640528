/* fgbisect — source history: frame → source file → last commit, last
 * meaningful commit, and the commits of a window (good, bad].
 *
 * One fg_history is an open repository with the revisions resolved and the
 * source files of the bad commit's tree indexed (path suffix → files:
 * `.java`, `.kt`, `.scala`, and the C, C++, Rust and Go files native frames
 * are looked up in, src/git/native.h).  fg_history_query takes a plain list of frame
 * names (from --frame or from a profile diff) and answers for every file
 * with one history walk:
 *
 * - last_commit is the commit `git log -1 -- PATH` names at bad, under git's
 *   default history simplification (at a merge, follow the first parent the
 *   path is TREESAME to; a merge that differs from every parent is shown);
 * - last_meaningful_commit is the first commit on that same simplified chain
 *   that is not an ignored revision (--ignore-revs FILE and the repository's
 *   `.git-blame-ignore-revs`);
 * - window_commits are the commits `git log good..bad -- PATH` shows.
 *
 * The library never prints and never exits. */
#ifndef FG_HISTORY_H
#define FG_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "git/method.h"

/* Cost: opening indexes the bad tree once (every source file); a query of
 * many frames is one history walk for all their files, however many.  Not
 * thread-safe (it caches trees and walks). */
typedef struct fg_history fg_history;
typedef struct fg_history_result fg_history_result;

/* Progress of a query's history walks: what (a phrase, e.g. "window walk")
 * and how many commits it has read so far. */
typedef void (*fg_history_progress_fn)(void *ctx, const char *what, size_t commits);

typedef struct fg_history_options {
	/* Revisions as git_revparse_single takes them (names, full or
	 * abbreviated ids, `HEAD~3`, tags).  bad defaults to "HEAD"; good
	 * defaults to NULL: no window. */
	const char *bad;
	const char *good;
	/* A git-blame style ignore-revs file (one full id per line, `#`
	 * comments); NULL for none.  Default NULL. */
	const char *ignore_revs_file;
	/* Also skip the ids listed in the repository's `.git-blame-ignore-revs`
	 * (the file at the root of the bad commit's tree, and in the working
	 * tree when there is one).  Default true. */
	bool use_repo_ignore_revs;
	/* The frames queried are names as people type them
	 * (fg_javaclass_from_name: `Class`, `Class.method`, `pkg.Class` …), not
	 * frames of a profile: `hotfiles --frame`.  Default false. */
	bool typed_names;
	/* Called every 1,024 commits a query's walks read (the command layer
	 * shows it when a query takes more than a second); NULL: none.
	 * Default NULL. */
	fg_history_progress_fn progress;
	void *progress_ctx;
	/* The source file a profile names for a frame (pprof's
	 * Function.filename, perf script -F +srcline), NULL when it names
	 * none: a native frame is mapped to the file of the bad tree whose
	 * path ends the same way before any definition search.  NULL: no
	 * profile files.  Default NULL. */
	const char *(*frame_file)(void *ctx, const char *frame);
	void *frame_file_ctx;
} fg_history_options;

/* Sets the defaults documented above (inline: options never load the network and git module, src/module/lazy.c). */
static inline void fg_history_options_init(fg_history_options *opts)
{
	*opts = (fg_history_options){ .bad = "HEAD", .use_repo_ignore_revs = true };
}

/* Opens the repository at or above `dir` (non-bare, bare, worktree, shallow),
 * resolves the revisions, reads the ignore lists and indexes the source files
 * of the bad tree.  Errors: FG_EUSAGE for a missing repository or an unknown
 * revision (the revision is the error's source), FG_ECONFIG for an unreadable
 * or malformed ignore-revs file, FG_EGIT for other repository problems. */
int fg_history_open(fg_history **out, const char *dir, const fg_history_options *opts, fg_error *err);

/* The same on a repository already open (src/git/repo.h: one libgit2 handle per
 * command, `days --repo` looks up its window and its hot files in one),
 * which must outlive the history. */
struct fg_repo;
int fg_history_open_repo(fg_history **out, struct fg_repo *repo, const fg_history_options *opts, fg_error *err);
void fg_history_free(fg_history *h);

/* The repository's directory (working tree, or the git dir when bare), and the
 * resolved revisions as full 40-hex ids (good is NULL without a window). */
const char *fg_history_repo_path(const fg_history *h);
const char *fg_history_bad_id(const fg_history *h);
const char *fg_history_good_id(const fg_history *h);
/* Whether the repository is a shallow clone. */
bool fg_history_is_shallow(const fg_history *h);
/* Whether the bad tree holds Java, Kotlin or Scala sources: a JVM project,
 * whose hot frames that map to no file are the JVM's, not a native build's. */
bool fg_history_jvm_sources(const fg_history *h);
/* What the answers should be read with, in words (one line each, no
 * newline): a commit-graph found to disagree with the objects and no longer
 * used, history that git would read otherwise (replace refs, grafts).  Set
 * by opening and by queries; 0 / NULL when none (h may be NULL). */
size_t fg_history_warning_count(const fg_history *h);
const char *fg_history_warning(const fg_history *h, size_t i);

typedef struct fg_history_commit {
	char id[41];          /* full 40-hex id */
	char date[40];        /* author date, ISO 8601 with the author's offset (git's %aI) */
	const char *subject;  /* git's %s: the first paragraph on one line */
} fg_history_commit;

typedef struct fg_history_entry {
	const char *frame;        /* as given */
	const char *class_path;   /* slashed top-level class, NULL when the frame is not a Java frame */
	/* The function a native frame names (src/git/native.h: C, C++, Rust,
	 * Go), searched for when no Java file answers; NULL otherwise. */
	const char *function;
	const char *path;         /* file in the bad tree; NULL: not in repository */
	size_t candidates;        /* number of files for this frame (entries with the same frame) */
	const fg_history_commit *last;            /* NULL when path is NULL */
	const fg_history_commit *last_meaningful; /* NULL when path is NULL */
	bool last_ignored;        /* last is an ignored revision (so last_meaningful differs or is unblamable) */
	/* The walk reached a commit of the shallow boundary: the true answer may
	 * be older than what the clone holds. */
	bool last_shallow;
	bool meaningful_shallow;
	/* -1 without a window, else 0/1. */
	int changed_in_window;
	const fg_history_commit *const *window; /* newest first, as git log orders them */
	size_t window_count;
	/* The method's history (fg_history_query_methods), NULL otherwise and
	 * when path is NULL. */
	const struct fg_history_method *method;
} fg_history_entry;

/* A commit that touched a method: `git log -L` shows it. */
typedef struct fg_history_method_change {
	const fg_history_commit *commit;
	/* Lines inside the method: added by the commit, and removed from its
	 * (first) parent's version (linemap.h says how a hunk that straddles
	 * the method's bounds is split). */
	uint32_t added, removed;
} fg_history_method_change;

/* A frame's method in its file, and the commits that touched its lines, as
 * `git log -L :METHOD:PATH` finds them: the method's lines at bad (every
 * overload), carried back through each commit's diff of the file, renames
 * followed; a commit whose diff touches the lines is shown; at a merge, the
 * first parent whose diff does not touch them takes them all (the merge is
 * not shown), else the merge is shown and every parent followed. */
typedef struct fg_history_method {
	fg_method_status status;   /* FOUND: the fields below are set */
	const char *reason;        /* static text: how the frame was mapped, or why it was not */
	const fg_method_range *ranges; /* at bad, 1-based inclusive, in line order */
	size_t nranges;
	size_t overloads;          /* declarations the frame may be (more than nranges when capped) */
	bool generated;            /* the file says it is generated */
	const fg_history_method_change *last; /* the last commit that touched it as of bad (NULL: not found) */
	bool last_shallow;         /* that commit is on the shallow boundary: the change may be older */
	/* The last commit that touched it and is not an ignored revision
	 * (--ignore-revs, .git-blame-ignore-revs): the walk goes on through
	 * ignored commits, as git blame passes lines through them.  When every
	 * commit that touched it is ignored, the oldest of them (nothing older
	 * to blame).  Equal to last when last is not ignored; NULL with last. */
	const fg_history_method_change *last_meaningful;
	bool last_ignored;         /* last is an ignored revision */
	bool meaningful_shallow;
	int changed_in_window;     /* -1 without a window or unless FOUND, else 0/1 */
	const fg_history_method_change *window; /* the window's commits that touched it, newest first */
	size_t window_count;
} fg_history_method;

/* Answers for `count` frame names: for each frame, one entry per candidate
 * file in the bad tree (several modules may hold the same class path), or one
 * entry with path NULL.  Entries come in the order of the frames. */
int fg_history_query(fg_history_result **out, fg_history *h, const char *const *frames, size_t count,
		     fg_error *err);
/* fg_history_query, and for every entry with a file the history of the
 * frame's method (entry->method), in the same walk. */
int fg_history_query_methods(fg_history_result **out, fg_history *h, const char *const *frames, size_t count,
			     fg_error *err);
void fg_history_result_free(fg_history_result *r);

size_t fg_history_result_count(const fg_history_result *r);
const fg_history_entry *fg_history_result_entry(const fg_history_result *r, size_t i);
/* Commits the walks visited (for benchmarks and tests). */
size_t fg_history_result_visited(const fg_history_result *r);
/* How the commit-graph's changed-path filters answered in the walks: parent
 * comparisons they settled ("the path did not change"), and "maybe"s left
 * to the trees (real changes and false positives).  Both 0 without
 * filters. */
void fg_history_result_filters(size_t *skipped, size_t *maybe, const fg_history_result *r);

/* The paths that differ between the trees of good and bad: what the window
 * changed as a whole, from one tree diff (no rename detection: a moved file
 * is its old and its new path; a file changed and changed back in the window
 * is not listed).  In byte order.  *out is an array of *n malloc'ed paths
 * (fg_history_paths_free).  FG_EUSAGE without a window. */
int fg_history_changed_paths(char ***out, size_t *n, fg_history *h, fg_error *err);
void fg_history_paths_free(char **paths, size_t n);

#endif
