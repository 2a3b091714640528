/* fgbisect — what the bisect driver needs from the git repository (libgit2):
 * the commit under test, abbreviated ids, `fgbisect.*` configuration and the
 * commits of a regression window. */
#ifndef FG_REPO_H
#define FG_REPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* One open repository (libgit2 initialised for its lifetime; one per
 * command: history walks borrow it).  Not thread-safe: libgit2 objects of
 * one repository are used from one thread. */
typedef struct fg_repo fg_repo;

/* True when s (len bytes) is 4 to 40 hex digits, either case: what may name
 * a commit in a runs file or on the command line (inline: it never loads the
 * network and git module, src/module/lazy.c). */
static inline bool fg_repo_valid_id(const char *s, size_t len)
{
	if (len < 4 || len > 40)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			return false;
	}
	return true;
}

/* One commit.  Dates are the UTC calendar day of the time. */
typedef struct fg_repo_commit {
	char id[41];          /* full hex id */
	char short_id[41];    /* unique abbreviation, at least core.abbrev (default 7) digits */
	char date[11];        /* committer date, YYYY-MM-DD, UTC */
	char author_date[11]; /* author date, YYYY-MM-DD, UTC */
	int64_t time;         /* committer time, seconds since the epoch */
	int64_t author_time;  /* author time, seconds since the epoch */
	char subject[512];    /* first paragraph of the message on one line, cut at a UTF-8 boundary */
} fg_repo_commit;

/* Opens the repository containing start, searching upward as git does
 * (worktrees and submodules included).  start NULL: the current directory,
 * honouring GIT_DIR, GIT_WORK_TREE and GIT_CEILING_DIRECTORIES like git, so
 * that `git bisect run` finds the repository it bisects.
 * FG_ECONFIG "not in a git repository" when there is none; FG_EGIT when it
 * cannot be opened. */
int fg_repo_open(fg_repo **out, const char *start, fg_error *err);

void fg_repo_free(fg_repo *repo);

/* The libgit2 handle, for the library modules that walk history themselves
 * (src/git/history.c); owned by repo. */
struct git_repository;
struct git_repository *fg_repo_git(const fg_repo *repo);

/* The top of the work tree (ends with '/'), or NULL for a bare repository. */
const char *fg_repo_workdir(const fg_repo *repo);

/* The commit a revision names: HEAD, a branch, a tag, an (abbreviated) id,
 * `main~3`, ... as `git rev-parse REV^{commit}` reads it.
 * FG_EUSAGE when rev names nothing, is ambiguous, or is not a commit. */
int fg_repo_commit_info(fg_repo_commit *out, fg_repo *repo, const char *rev, fg_error *err);

/* HEAD's commit (the one `git bisect run` is judging).  FG_EGIT on an
 * unborn or unreadable HEAD. */
int fg_repo_head(fg_repo_commit *out, fg_repo *repo, fg_error *err);

/* Expands an abbreviated id (4-40 hex digits, as the runs file gives them)
 * into the full id of the object it names; a tag is peeled to its commit.
 * Only object ids are considered, never ref names.
 * FG_EUSAGE naming the id when it is not hex, unknown, ambiguous (several
 * objects share the prefix) or not a commit. */
int fg_repo_expand(char out[41], fg_repo *repo, const char *abbrev, fg_error *err);

/* The path a configuration key holds (`fgbisect.runs`), looked up like
 * `git config --type=path KEY`: the repository's config (worktree and local),
 * then global, XDG and system files; `~/` is expanded.  A relative path is
 * made relative to the top of the work tree (the git directory of a bare
 * repository); a URL is returned as it is.
 * *out NULL (free() it otherwise) and 0 when the key is not set. */
int fg_repo_config_path(char **out, fg_repo *repo, const char *key, fg_error *err);

/* The commits of a window (good, bad]. */
typedef struct fg_repo_log fg_repo_log;

/* Defaults (fg_repo_log_options_init): at most 1000 commits, all parents. */
typedef struct fg_repo_log_options {
	size_t max;         /* stop after this many commits; 0: no cap */
	bool first_parent;  /* follow only first parents (the commits of the main line) */
} fg_repo_log_options;

/* Inline: options never load the network and git module, src/module/lazy.c. */
static inline void fg_repo_log_options_init(fg_repo_log_options *opts)
{
	*opts = (fg_repo_log_options){ .max = 1000, .first_parent = false };
}

/* The commits reachable from bad and not from good, in `git log` order
 * (newest committer time first), like `git log good..bad`.  good and bad are
 * revisions as fg_repo_commit_info reads them; good NULL: every ancestor of
 * bad.  opts NULL: the defaults. */
int fg_repo_log_range(fg_repo_log **out, fg_repo *repo, const char *good, const char *bad,
                      const fg_repo_log_options *opts, fg_error *err);

void fg_repo_log_free(fg_repo_log *log);

size_t fg_repo_log_count(const fg_repo_log *log);
const fg_repo_commit *fg_repo_log_at(const fg_repo_log *log, size_t i);

/* Whether the walk stopped at opts->max with commits left in the window. */
bool fg_repo_log_truncated(const fg_repo_log *log);

/* The history as git log reads it when the repository rewrites some of it:
 * replace refs (`git replace`, `git replace --graft`: refs/replace/ID, or
 * $GIT_REPLACE_REF_BASE; not with GIT_NO_REPLACE_OBJECTS or
 * core.useReplaceRefs=false) and the graft file (`info/grafts` under the
 * common directory, or $GIT_GRAFT_FILE: "ID PARENT…" a line).  libgit2 1.5
 * reads neither: the history walk applies them (src/git/history.c).  Only
 * commits' replacements are applied; replaced trees, blobs and tags are
 * counted (the walk says it reads the originals), as are graft lines git
 * skips. */
typedef struct fg_repo_grafts fg_repo_grafts;

/* *out NULL, and 0 returned, when the repository has none of them. */
int fg_repo_grafts_open(fg_repo_grafts **out, fg_repo *repo, fg_error *err);
void fg_repo_grafts_free(fg_repo_grafts *g);
/* The 20-byte id of the object git reads instead of commit id (its
 * replacement, followed through up to five replacements as git does), or
 * NULL when it is not replaced (g may be NULL). */
const unsigned char *fg_repo_grafts_replacement(const fg_repo_grafts *g, const unsigned char id[20]);
/* Whether info/grafts gives the parents of commit id: *parents and *n
 * (possibly none: a graft that makes a root), valid while g is. */
bool fg_repo_grafts_parents(const unsigned char (**parents)[20], size_t *n, const fg_repo_grafts *g,
			    const unsigned char id[20]);

typedef struct fg_repo_grafts_count {
	size_t replaced;   /* commits replaced through refs/replace */
	size_t grafted;    /* commits whose parents info/grafts gives */
	size_t other;      /* replaced trees, blobs, tags: not applied */
	size_t bad_lines;  /* info/grafts lines that are not "ID PARENT…": skipped, as git skips them */
} fg_repo_grafts_count;
void fg_repo_grafts_counts(fg_repo_grafts_count *out, const fg_repo_grafts *g);

#endif
