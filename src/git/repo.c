#include "git/repo.h"

#include "base/utf8.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "net/fetch.h"

struct fg_repo {
	git_repository *git;
};

struct fg_repo_log {
	fg_repo_commit *commits;
	size_t n;
	bool truncated;
};

/* libgit2's message for the last failure, for FG_EGIT records. */
static const char *git_message(void)
{
	const git_error *e = git_error_last();
	return e && e->message ? e->message : "unknown libgit2 error";
}

/* extensions.objectFormat of the repository whose git directory is gitdir
 * (a linked worktree's names its common directory in `commondir`), into
 * out; "" when it is not set (SHA-1). */
static void object_format(char *out, size_t n, const char *gitdir)
{
	*out = '\0';
	char path[4096], common[4096] = "";
	int k = snprintf(path, sizeof(path), "%s/commondir", gitdir);
	FILE *f = k > 0 && (size_t)k < sizeof(path) ? fopen(path, "r") : NULL;
	if (f && fgets(common, sizeof(common), f))
		common[strcspn(common, "\r\n")] = '\0';
	if (f)
		fclose(f);
	/* commondir is absolute, or relative to gitdir; none: gitdir. */
	const char *base = common[0] == '/' ? "" : gitdir, *sep = common[0] == '/' || !common[0] ? "" : "/";
	k = snprintf(path, sizeof(path), "%s%s%s/config", base, sep, common);
	git_config *cfg;
	if (k < 0 || (size_t)k >= sizeof(path) || git_config_open_ondisk(&cfg, path) < 0)
		return;
	git_buf v = { 0 };
	if (git_config_get_string_buf(&v, cfg, "extensions.objectformat") == 0)
		snprintf(out, n, "%s", v.ptr);
	git_buf_dispose(&v);
	git_config_free(cfg);
}

/* Every reader of fgbisect's (the history walk, its pack, commit-graph and
 * tree readers, the 40-digit ids of its output and runs files) takes SHA-1
 * ids: another object format is refused at open, naming it, whether
 * libgit2 opened the repository or not (libgit2 1.5 does not read SHA-256;
 * a later one might, and the walk must not then read 32-byte ids as 20). */
static int check_object_format(const char *where, const char *gitdir, fg_error *err)
{
	char format[64];
	object_format(format, sizeof(format), gitdir);
	if (!*format || !strcasecmp(format, "sha1"))
		return 0;
	return fg_error_set(err, FG_EGIT, where,
			    "the repository's object format is %s (extensions.objectFormat): fgbisect reads "
			    "SHA-1 repositories only",
			    format);
}

int fg_repo_open(fg_repo **out, const char *start, fg_error *err)
{
	*out = NULL;
	if (git_libgit2_init() < 0)
		return fg_error_set(err, FG_EGIT, NULL, "cannot initialise libgit2: %s", git_message());
	git_repository *git = NULL;
	int rc = start ? git_repository_open_ext(&git, start, 0, NULL)
	               : git_repository_open_ext(&git, NULL, GIT_REPOSITORY_OPEN_FROM_ENV, NULL);
	char cwd[4096];
	const char *where = start ? start : getcwd(cwd, sizeof(cwd)) ? cwd : ".";
	if (rc < 0 && rc != GIT_ENOTFOUND) {
		/* libgit2 refuses a repository with an extension it does not
		 * know; the object format is the one to name. */
		git_buf dir = { 0 };
		const char *env = start ? NULL : getenv("GIT_DIR");
		if (git_repository_discover(&dir, env ? env : where, 0, NULL) == 0 &&
		    check_object_format(where, dir.ptr, err) < 0)
			rc = 1;
		git_buf_dispose(&dir);
	} else if (rc == 0 && check_object_format(where, git_repository_path(git), err) < 0) {
		git_repository_free(git);
		rc = 1;
	}
	if (rc) {
		if (rc == 1)
			rc = FG_EGIT;
		else if (rc == GIT_ENOTFOUND)
			rc = fg_error_set(err, FG_ECONFIG, where, "not in a git repository");
		else
			rc = fg_error_set(err, FG_EGIT, where, "cannot open the git repository: %s",
			                  git_message());
		git_libgit2_shutdown();
		return rc;
	}
	fg_repo *repo = calloc(1, sizeof(*repo));
	if (!repo) {
		git_repository_free(git);
		git_libgit2_shutdown();
		return fg_error_oom(err, NULL);
	}
	repo->git = git;
	*out = repo;
	return 0;
}

void fg_repo_free(fg_repo *repo)
{
	if (!repo)
		return;
	git_repository_free(repo->git);
	free(repo);
	git_libgit2_shutdown();
}

struct git_repository *fg_repo_git(const fg_repo *repo)
{
	return repo->git;
}

const char *fg_repo_workdir(const fg_repo *repo)
{
	return git_repository_workdir(repo->git);
}

static void utc_day(char out[11], git_time_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(out, 11, "%Y-%m-%d", &tm))
		strcpy(out, "0000-00-00");
}

/* Copies s into a buffer of size n, cutting before an incomplete UTF-8
 * sequence so that the subject stays valid text. */
static void copy_utf8(char *dst, size_t n, const char *s)
{
	size_t len = strlen(s);
	if (len >= n)
		len = fg_utf8_cut(s, n - 1);
	memcpy(dst, s, len);
	dst[len] = '\0';
}

static int fill_commit(fg_repo_commit *out, git_commit *c, fg_error *err)
{
	git_oid_tostr(out->id, sizeof(out->id), git_commit_id(c));
	git_buf buf = { 0 };
	if (git_object_short_id(&buf, (const git_object *)c) < 0)
		return fg_error_set(err, FG_EGIT, out->id, "cannot abbreviate: %s", git_message());
	copy_utf8(out->short_id, sizeof(out->short_id), buf.ptr);
	git_buf_dispose(&buf);
	out->time = git_commit_committer(c)->when.time;
	out->author_time = git_commit_author(c)->when.time;
	utc_day(out->date, out->time);
	utc_day(out->author_date, out->author_time);
	const char *summary = git_commit_summary(c);
	copy_utf8(out->subject, sizeof(out->subject), summary ? summary : "");
	return 0;
}

/* The commit a revision names, or FG_EUSAGE naming it. */
static int lookup_commit(git_commit **out, fg_repo *repo, const char *rev, fg_error *err)
{
	*out = NULL;
	git_object *obj = NULL;
	int rc = git_revparse_single(&obj, repo->git, rev);
	if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC)
		return fg_error_set(err, FG_EUSAGE, rev, "unknown revision");
	if (rc == GIT_EAMBIGUOUS)
		return fg_error_set(err, FG_EUSAGE, rev, "ambiguous revision: several objects match");
	if (rc < 0)
		return fg_error_set(err, FG_EGIT, rev, "cannot resolve the revision: %s", git_message());
	rc = git_object_peel((git_object **)out, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (rc < 0)
		return fg_error_set(err, FG_EUSAGE, rev, "not a commit");
	return 0;
}

int fg_repo_commit_info(fg_repo_commit *out, fg_repo *repo, const char *rev, fg_error *err)
{
	git_commit *c;
	int rc = lookup_commit(&c, repo, rev, err);
	if (rc)
		return rc;
	rc = fill_commit(out, c, err);
	git_commit_free(c);
	return rc;
}

int fg_repo_head(fg_repo_commit *out, fg_repo *repo, fg_error *err)
{
	git_reference *head = NULL;
	int rc = git_repository_head(&head, repo->git);
	if (rc == GIT_EUNBORNBRANCH)
		return fg_error_set(err, FG_EGIT, "HEAD", "the repository has no commit yet");
	if (rc < 0)
		return fg_error_set(err, FG_EGIT, "HEAD", "cannot read HEAD: %s", git_message());
	git_commit *c = NULL;
	rc = git_reference_peel((git_object **)&c, head, GIT_OBJECT_COMMIT);
	git_reference_free(head);
	if (rc < 0)
		return fg_error_set(err, FG_EGIT, "HEAD", "HEAD is not a commit: %s", git_message());
	rc = fill_commit(out, c, err);
	git_commit_free(c);
	return rc;
}

int fg_repo_expand(char out[41], fg_repo *repo, const char *abbrev, fg_error *err)
{
	size_t len = strlen(abbrev);
	if (!fg_repo_valid_id(abbrev, len))
		return fg_error_set(err, FG_EUSAGE, abbrev, "not a commit id (4 to 40 hex digits)");
	git_oid oid;
	if (git_oid_fromstrn(&oid, abbrev, len) < 0)
		return fg_error_set(err, FG_EUSAGE, abbrev, "not a commit id (4 to 40 hex digits)");
	git_object *obj = NULL;
	int rc = git_object_lookup_prefix(&obj, repo->git, &oid, len, GIT_OBJECT_ANY);
	if (rc == GIT_ENOTFOUND)
		return fg_error_set(err, FG_EUSAGE, abbrev, "unknown commit");
	if (rc == GIT_EAMBIGUOUS)
		return fg_error_set(err, FG_EUSAGE, abbrev,
		                    "ambiguous commit id: several objects start with it");
	if (rc < 0)
		return fg_error_set(err, FG_EGIT, abbrev, "cannot look up the id: %s", git_message());
	git_object *commit = NULL;
	rc = git_object_peel(&commit, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (rc < 0)
		return fg_error_set(err, FG_EUSAGE, abbrev, "not a commit");
	git_oid_tostr(out, 41, git_object_id(commit));
	git_object_free(commit);
	return 0;
}

int fg_repo_config_path(char **out, fg_repo *repo, const char *key, fg_error *err)
{
	*out = NULL;
	git_config *cfg = NULL;
	if (git_repository_config_snapshot(&cfg, repo->git) < 0)
		return fg_error_set(err, FG_ECONFIG, key, "cannot read the git configuration: %s",
		                    git_message());
	git_buf value = { 0 };
	int rc = git_config_get_path(&value, cfg, key);
	git_config_free(cfg);
	if (rc == GIT_ENOTFOUND)
		return 0;
	if (rc < 0)
		return fg_error_set(err, FG_ECONFIG, key, "bad configuration value: %s", git_message());
	/* git resolves relative config paths against the current directory;
	 * fgbisect runs from anywhere in the work tree (git bisect run starts
	 * at its top), so the top is the stable base.  Its trailing '/' makes
	 * it a folder for fg_url_resolve. */
	const char *top = git_repository_workdir(repo->git);
	rc = fg_url_resolve(out, top ? top : git_repository_path(repo->git), value.ptr, err);
	git_buf_dispose(&value);
	return rc;
}

void fg_repo_log_free(fg_repo_log *log)
{
	if (!log)
		return;
	free(log->commits);
	free(log);
}

size_t fg_repo_log_count(const fg_repo_log *log)
{
	return log->n;
}

const fg_repo_commit *fg_repo_log_at(const fg_repo_log *log, size_t i)
{
	return i < log->n ? &log->commits[i] : NULL;
}

bool fg_repo_log_truncated(const fg_repo_log *log)
{
	return log->truncated;
}

/* Pushes (or hides) the commit rev names on the walk. */
static int walk_add(git_revwalk *walk, fg_repo *repo, const char *rev, bool hide, fg_error *err)
{
	git_commit *c;
	int rc = lookup_commit(&c, repo, rev, err);
	if (rc)
		return rc;
	rc = hide ? git_revwalk_hide(walk, git_commit_id(c)) : git_revwalk_push(walk, git_commit_id(c));
	git_commit_free(c);
	if (rc < 0)
		return fg_error_set(err, FG_EGIT, rev, "cannot walk the history: %s", git_message());
	return 0;
}

int fg_repo_log_range(fg_repo_log **out, fg_repo *repo, const char *good, const char *bad,
                      const fg_repo_log_options *opts, fg_error *err)
{
	*out = NULL;
	fg_repo_log_options defaults;
	if (!opts) {
		fg_repo_log_options_init(&defaults);
		opts = &defaults;
	}
	fg_repo_log *log = calloc(1, sizeof(*log));
	if (!log)
		return fg_error_oom(err, NULL);
	git_revwalk *walk = NULL;
	int rc = 0;
	if (git_revwalk_new(&walk, repo->git) < 0 || git_revwalk_sorting(walk, GIT_SORT_TIME) < 0 ||
	    (opts->first_parent && git_revwalk_simplify_first_parent(walk) < 0))
		rc = fg_error_set(err, FG_EGIT, bad, "cannot walk the history: %s", git_message());
	if (!rc)
		rc = walk_add(walk, repo, bad, false, err);
	if (!rc && good)
		rc = walk_add(walk, repo, good, true, err);

	size_t cap = 0;
	git_oid oid;
	while (!rc) {
		int next = git_revwalk_next(&oid, walk);
		if (next == GIT_ITEROVER)
			break;
		if (next < 0) {
			rc = fg_error_set(err, FG_EGIT, bad, "cannot walk the history: %s", git_message());
			break;
		}
		if (opts->max && log->n == opts->max) {
			log->truncated = true;
			break;
		}
		if (log->n == cap) {
			cap = cap ? cap * 2 : 64;
			fg_repo_commit *commits = realloc(log->commits, cap * sizeof(*commits));
			if (!commits) {
				rc = fg_error_oom(err, NULL);
				break;
			}
			log->commits = commits;
		}
		git_commit *c = NULL;
		if (git_commit_lookup(&c, repo->git, &oid) < 0) {
			rc = fg_error_set(err, FG_EGIT, bad, "cannot read a commit: %s", git_message());
			break;
		}
		rc = fill_commit(&log->commits[log->n], c, err);
		git_commit_free(c);
		if (!rc)
			log->n++;
	}
	git_revwalk_free(walk);
	if (rc) {
		fg_repo_log_free(log);
		return rc;
	}
	*out = log;
	return 0;
}

/* ---- replace refs and grafts ------------------------------------------------ */

typedef struct replacement {
	unsigned char from[20], to[20];
} replacement;

typedef struct graft {
	unsigned char id[20];
	size_t first, n; /* its parents: pool[first .. first + n) */
} graft;

struct fg_repo_grafts {
	replacement *r;
	size_t nr;
	graft *g;
	size_t ng;
	unsigned char (*pool)[20];
	size_t npool;
	size_t other;     /* replacements of trees, blobs and tags: not applied */
	size_t bad_lines; /* info/grafts lines git skips too */
};

static int id_cmp(const void *a, const void *b)
{
	return memcmp(a, b, 20);
}

static bool hex_id(unsigned char out[20], const char *hex, size_t len)
{
	git_oid id;
	if (len != GIT_OID_HEXSZ || git_oid_fromstrn(&id, hex, len) < 0)
		return false;
	memcpy(out, id.id, 20);
	return true;
}

static bool env_set(const char *name)
{
	const char *v = getenv(name);
	return v && *v;
}

/* refs/replace/ID (or $GIT_REPLACE_REF_BASE), as git reads them unless
 * GIT_NO_REPLACE_OBJECTS or core.useReplaceRefs=false. */
static int read_replace_refs(fg_repo_grafts *g, fg_repo *repo, fg_error *err)
{
	int use = 1;
	git_config *cfg;
	if (git_repository_config_snapshot(&cfg, repo->git) == 0) {
		if (git_config_get_bool(&use, cfg, "core.usereplacerefs") < 0)
			use = 1;
		git_config_free(cfg);
	}
	if (!use || env_set("GIT_NO_REPLACE_OBJECTS"))
		return 0;
	const char *base = env_set("GIT_REPLACE_REF_BASE") ? getenv("GIT_REPLACE_REF_BASE") : "refs/replace/";
	size_t blen = strlen(base);
	char glob[512];
	if (snprintf(glob, sizeof(glob), "%s%s*", base, blen && base[blen - 1] == '/' ? "" : "/") >= (int)sizeof(glob))
		return 0;
	git_odb *odb;
	git_reference_iterator *it;
	if (git_repository_odb(&odb, repo->git) < 0)
		return fg_error_set(err, FG_EGIT, NULL, "cannot open the object database: %s", git_message());
	if (git_reference_iterator_glob_new(&it, repo->git, glob) < 0) {
		git_odb_free(odb);
		return 0;
	}
	int rc = 0;
	git_reference *ref;
	while (rc == 0 && git_reference_next(&ref, it) == 0) {
		const char *name = git_reference_name(ref), *tail = strrchr(name, '/');
		git_reference *direct = NULL;
		replacement r;
		size_t size;
		git_object_t type;
		if (tail && hex_id(r.from, tail + 1, strlen(tail + 1)) && git_reference_resolve(&direct, ref) == 0 &&
		    git_odb_read_header(&size, &type, odb, git_reference_target(direct)) == 0) {
			memcpy(r.to, git_reference_target(direct)->id, 20);
			if (type != GIT_OBJECT_COMMIT) {
				g->other++;
			} else {
				replacement *nr = realloc(g->r, (g->nr + 1) * sizeof(*nr));
				if (!nr)
					rc = fg_error_oom(err, NULL);
				else
					(g->r = nr)[g->nr++] = r;
			}
		}
		git_reference_free(direct);
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	git_odb_free(odb);
	if (g->nr)
		qsort(g->r, g->nr, sizeof(*g->r), id_cmp);
	return rc;
}

/* info/grafts (or $GIT_GRAFT_FILE): "ID PARENT…" a line; git skips the
 * lines it cannot read (with a message), and so does this. */
static int read_graft_file(fg_repo_grafts *g, fg_repo *repo, fg_error *err)
{
	char path[4096];
	const char *env = getenv("GIT_GRAFT_FILE");
	if (env && *env)
		snprintf(path, sizeof(path), "%s", env);
	else if (snprintf(path, sizeof(path), "%s/info/grafts", git_repository_commondir(repo->git)) >=
		 (int)sizeof(path))
		return 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[8192];
	int rc = 0;
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\r\n");
		if (!len || line[0] == '#')
			continue;
		graft gr = { .first = g->npool };
		bool ok = (len + 1) % (GIT_OID_HEXSZ + 1) == 0 && hex_id(gr.id, line, GIT_OID_HEXSZ);
		for (size_t at = GIT_OID_HEXSZ; ok && at < len; at += GIT_OID_HEXSZ + 1) {
			unsigned char (*np)[20] = realloc(g->pool, (g->npool + 1) * sizeof(*np));
			if (!np) {
				rc = fg_error_oom(err, NULL);
				break;
			}
			g->pool = np;
			ok = line[at] == ' ' && hex_id(g->pool[g->npool], line + at + 1, GIT_OID_HEXSZ);
			g->npool += ok;
			gr.n += ok;
		}
		if (rc == 0 && !ok) {
			g->bad_lines++;
			g->npool = gr.first;
			continue;
		}
		graft *ng = rc == 0 ? realloc(g->g, (g->ng + 1) * sizeof(*ng)) : NULL;
		if (rc == 0 && !ng)
			rc = fg_error_oom(err, NULL);
		else if (rc == 0)
			(g->g = ng)[g->ng++] = gr;
	}
	fclose(f);
	if (g->ng)
		qsort(g->g, g->ng, sizeof(*g->g), id_cmp);
	return rc;
}

void fg_repo_grafts_free(fg_repo_grafts *g)
{
	if (!g)
		return;
	free(g->r);
	free(g->g);
	free(g->pool);
	free(g);
}

int fg_repo_grafts_open(fg_repo_grafts **out, fg_repo *repo, fg_error *err)
{
	*out = NULL;
	fg_repo_grafts *g = calloc(1, sizeof(*g));
	if (!g)
		return fg_error_oom(err, NULL);
	int rc = read_replace_refs(g, repo, err);
	if (rc == 0)
		rc = read_graft_file(g, repo, err);
	if (rc < 0 || !(g->nr || g->ng || g->other || g->bad_lines)) {
		fg_repo_grafts_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

const unsigned char *fg_repo_grafts_replacement(const fg_repo_grafts *g, const unsigned char id[20])
{
	const unsigned char *at = id;
	/* A replacement may be replaced in turn: git follows five. */
	for (int depth = 0; g && g->nr && depth < 5; depth++) {
		const replacement *r = bsearch(at, g->r, g->nr, sizeof(*g->r), id_cmp);
		if (!r)
			break;
		at = r->to;
	}
	return at == id ? NULL : at;
}

bool fg_repo_grafts_parents(const unsigned char (**parents)[20], size_t *n, const fg_repo_grafts *g,
			    const unsigned char id[20])
{
	const graft *gr = g && g->ng ? bsearch(id, g->g, g->ng, sizeof(*g->g), id_cmp) : NULL;
	*parents = gr ? (const unsigned char (*)[20])g->pool + gr->first : NULL;
	*n = gr ? gr->n : 0;
	return gr != NULL;
}

void fg_repo_grafts_counts(fg_repo_grafts_count *out, const fg_repo_grafts *g)
{
	*out = (fg_repo_grafts_count){ 0 };
	if (g)
		*out = (fg_repo_grafts_count){ g->nr, g->ng, g->other, g->bad_lines };
}
