#include "git/history_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>

#include "git/native.h"
#include "io/textfile.h"

static void oidset_sort(oidset *s)
{
	if (s->count)
		qsort(s->ids, s->count, sizeof(git_oid), oid_cmp_qsort);
}

/* Parses git blame's ignore-revs format (also the shallow file's): one full
 * id per line, `#` starts a comment, blank lines skipped. */
static int oidset_parse(oidset *s, const char *text, size_t len, const char *source, fg_error *err)
{
	size_t lineno = 0;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		lineno++;
		const char *a = p, *b = eol;
		const char *hash = memchr(a, '#', (size_t)(b - a));
		if (hash)
			b = hash;
		while (a < b && (*a == ' ' || *a == '\t' || *a == '\r'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r'))
			b--;
		if (a < b) {
			git_oid id;
			char hex[GIT_OID_HEXSZ + 1];
			if ((size_t)(b - a) != GIT_OID_HEXSZ)
				return fg_error_set(err, FG_ECONFIG, source, "line %zu: not a full commit id: %.*s", lineno,
						    (int)(b - a > 60 ? 60 : b - a), a);
			memcpy(hex, a, GIT_OID_HEXSZ);
			hex[GIT_OID_HEXSZ] = '\0';
			if (git_oid_fromstr(&id, hex) < 0)
				return fg_error_set(err, FG_ECONFIG, source, "line %zu: not a full commit id: %s", lineno, hex);
			if (fg_history_grow(&s->ids, &s->cap, s->count + 1, sizeof(git_oid)) < 0)
				return fg_error_oom(err, NULL);
			s->ids[s->count++] = id;
		}
		p = eol + 1;
	}
	return 0;
}

/* Reads a whole file (at most 64 MiB: these are lists of commit ids); *missing
 * is set (and 0 returned) when it does not exist. */
static int read_file(char **out, size_t *len, bool *missing, const char *path, int code, fg_error *err)
{
	*out = NULL;
	*len = 0;
	struct stat st;
	*missing = stat(path, &st) < 0 && errno == ENOENT;
	if (*missing)
		return 0;
	return fg_textfile_read(out, len, path, (size_t)64 << 20, "list of commits", code, err);
}

/* ---- open ------------------------------------------------------------------- */

static int resolve_rev(git_oid *out, fg_history *h, const char *spec, fg_error *err)
{
	git_object *obj = NULL, *peeled = NULL;
	int rc = git_revparse_single(&obj, h->repo, spec);
	if (rc == GIT_EAMBIGUOUS)
		return fg_error_set(err, FG_EUSAGE, spec, "ambiguous revision in %s", h->repo_path);
	if (rc < 0 && h->shallow)
		return fg_error_set(err, FG_EUSAGE, spec,
				    "unknown revision in %s, a shallow clone: it may be older than the clone's cut "
				    "(git fetch --deepen=N, or git fetch --unshallow, brings older history)",
				    h->repo_path);
	if (rc < 0)
		return fg_error_set(err, FG_EUSAGE, spec, "unknown revision in %s", h->repo_path);
	rc = git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (rc < 0)
		return fg_error_set(err, FG_EUSAGE, spec, "not a commit in %s", h->repo_path);
	*out = *git_object_id(peeled);
	git_object_free(peeled);
	return 0;
}

/* NAME under git's common directory (malloc'ed), NULL when out of memory. */
static char *common_path(const fg_history *h, const char *name)
{
	const char *common = git_repository_commondir(h->repo);
	size_t len = strlen(common), cap = len + 1 + strlen(name) + 1;
	char *path = malloc(cap);
	/* commondir ends with a slash in libgit2, but do not rely on it. */
	if (path)
		snprintf(path, cap, "%s%s%s", common, len && common[len - 1] == '/' ? "" : "/", name);
	return path;
}

static int read_shallow(fg_history *h, fg_error *err)
{
	char *path = common_path(h, "shallow");
	if (!path)
		return fg_error_oom(err, NULL);
	char *text;
	size_t n;
	bool missing;
	int rc = read_file(&text, &n, &missing, path, FG_EGIT, err);
	if (rc == 0 && !missing) {
		rc = oidset_parse(&h->shallow_ids, text, n, path, err);
		if (rc < 0)
			rc = fg_error_set(err, FG_EGIT, path, "malformed shallow file");
		h->shallow = h->shallow_ids.count > 0;
		oidset_sort(&h->shallow_ids);
	}
	free(text);
	free(path);
	return rc;
}

static int read_ignore_revs(fg_history *h, const fg_history_options *opts, git_tree *bad_tree, fg_error *err)
{
	char *text;
	size_t n;
	bool missing;
	int rc;
	if (opts->ignore_revs_file) {
		if ((rc = read_file(&text, &n, &missing, opts->ignore_revs_file, FG_ECONFIG, err)) < 0)
			return rc;
		if (missing)
			return fg_error_set(err, FG_ECONFIG, opts->ignore_revs_file, "no such file");
		rc = oidset_parse(&h->ignored, text, n, opts->ignore_revs_file, err);
		free(text);
		if (rc < 0)
			return rc;
	}
	if (opts->use_repo_ignore_revs) {
		/* The list as committed at bad, so that bare repositories and
		 * checkouts of other commits give the same answer… */
		const git_tree_entry *e = git_tree_entry_byname(bad_tree, ".git-blame-ignore-revs");
		if (e && git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
			git_blob *blob;
			/* A blobless partial clone may lack it: the working tree's copy
			 * below still counts, and history needs no blob. */
			if (git_blob_lookup(&blob, h->repo, git_tree_entry_id(e)) < 0) {
				const git_error *ge = git_error_last();
				if (!ge || ge->klass != GIT_ERROR_ODB)
					return fg_history_git_fail(err, ".git-blame-ignore-revs", "cannot read");
				blob = NULL;
			}
			rc = blob ? oidset_parse(&h->ignored, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob),
						 ".git-blame-ignore-revs (committed)", err) : 0;
			git_blob_free(blob);
			if (rc < 0)
				return rc;
		}
		/* …plus what the working tree adds before it is committed. */
		const char *wd = git_repository_workdir(h->repo);
		if (wd) {
			size_t len = strlen(wd) + sizeof(".git-blame-ignore-revs") + 1;
			char *path = malloc(len);
			if (!path)
				return fg_error_oom(err, NULL);
			snprintf(path, len, "%s%s.git-blame-ignore-revs", wd, wd[strlen(wd) - 1] == '/' ? "" : "/");
			rc = read_file(&text, &n, &missing, path, FG_ECONFIG, err);
			if (rc == 0 && !missing)
				rc = oidset_parse(&h->ignored, text, n, path, err);
			free(text);
			free(path);
			if (rc < 0)
				return rc;
		}
	}
	oidset_sort(&h->ignored);
	return 0;
}

static bool source_ext(const char *name, size_t len, size_t *ext_len)
{
	static const char *const exts[] = { ".java", ".kt", ".scala" };
	if (fg_native_lang_of_path(name)) {
		const char *dot = strrchr(name, '.');
		*ext_len = (size_t)(name + len - dot - 1);
		return true;
	}
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t el = strlen(exts[i]);
		if (len > el && !memcmp(name + len - el, exts[i], el)) {
			*ext_len = el - 1;
			return true;
		}
	}
	return false;
}

typedef struct walk_ctx {
	fg_history *h;
	fg_error *err;
	int rc;
} walk_ctx;

static int index_cb(const char *root, const git_tree_entry *entry, void *payload)
{
	walk_ctx *ctx = payload;
	fg_history *h = ctx->h;
	if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB || git_tree_entry_filemode(entry) == GIT_FILEMODE_LINK)
		return 0;
	const char *name = git_tree_entry_name(entry);
	size_t nlen = strlen(name), ext_len;
	if (!source_ext(name, nlen, &ext_len))
		return 0;
	size_t rlen = strlen(root);
	if (fg_history_grow(&h->src, &h->capsrc, h->nsrc + 1, sizeof(srcfile)) < 0)
		goto nomem;
	char *path = malloc(rlen + nlen + 1);
	if (!path)
		goto nomem;
	memcpy(path, root, rlen);
	memcpy(path + rlen, name, nlen + 1);
	srcfile *s = &h->src[h->nsrc++];
	s->path = path;
	s->stem = path + rlen;
	s->ext_len = ext_len;
	s->stem_len = nlen - ext_len - 1;
	s->file_id = SIZE_MAX;
	git_oid_cpy(&s->blob, git_tree_entry_id(entry));
	return 0;
nomem:
	ctx->rc = fg_error_oom(ctx->err, NULL);
	return -1;
}

static int src_cmp(const void *pa, const void *pb)
{
	const srcfile *a = pa, *b = pb;
	int c = stem_cmp(a->stem, a->stem_len, b->stem, b->stem_len);
	return c ? c : strcmp(a->path, b->path);
}

void fg_history_graph_drop(fg_history *h)
{
	fg_commitgraph_free(h->graph);
	h->graph = NULL;
	h->filters = false;
	for (size_t i = 0; i < h->nnodes; i++) {
		free(h->nodes[i].parents);
		free(h->nodes[i].files);
	}
	h->nnodes = 0;
	fg_hashtab_clear(&h->map, sizeof(size_t));
}

int fg_history_warn(fg_history *h, fg_error *err, const char *fmt, ...)
{
	char text[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < h->nwarnings; i++)
		if (!strcmp(h->warnings[i], text))
			return 0;
	char **nw = realloc(h->warnings, (h->nwarnings + 1) * sizeof(*nw));
	if (!nw)
		return fg_error_oom(err, NULL);
	h->warnings = nw;
	if (!(h->warnings[h->nwarnings] = strdup(text)))
		return fg_error_oom(err, NULL);
	h->nwarnings++;
	return 0;
}

/* s in single quotes for a shell: ' as '\''. */
static void shell_quote(char *out, size_t n, const char *s)
{
	size_t k = 0;
	if (k + 1 < n)
		out[k++] = '\'';
	for (; *s && k + 5 < n; s++) {
		if (*s == '\'') {
			memcpy(out + k, "'\\''", 4);
			k += 4;
		} else {
			out[k++] = *s;
		}
	}
	if (k + 1 < n)
		out[k++] = '\'';
	out[k] = '\0';
}

int fg_history_warn_missing(fg_history *h, const char *path, fg_error *err)
{
	/* fgbisect never reaches the network for a history (libgit2 1.5 has
	 * no promisor remotes): git fetches what is missing, with the user's
	 * configuration and credentials, when the user asks it to. */
	git_config *cfg;
	bool partial = false;
	if (git_repository_config_snapshot(&cfg, h->repo) == 0) {
		/* A promisor remote: remote.NAME.promisor (git 2.24 on) or
		 * extensions.partialClone (what older git wrote). */
		git_config_iterator *it;
		git_config_entry *e;
		if (git_config_iterator_glob_new(&it, cfg, "^(remote\\..*\\.promisor|extensions\\.partialclone)$") == 0) {
			int v;
			while (!partial && git_config_next(&e, it) == 0)
				partial = strcmp(e->name, "extensions.partialclone") ? git_config_parse_bool(&v, e->value) == 0 && v
										     : *e->value != '\0';
			git_config_iterator_free(it);
		}
		git_config_free(cfg);
	}
	if (!partial)
		return fg_history_warn(h, err, "%s: a version of the file is missing from the object database, which "
				     "is not a partial clone: the method history is not answered (git fsck tells what else "
				     "is missing)", path);
	char qrepo[1100], qpath[1100];
	shell_quote(qrepo, sizeof(qrepo), h->repo_path);
	shell_quote(qpath, sizeof(qpath), path);
	return fg_history_warn(h, err, "%s: versions of the file are not in this partial clone: the method history "
			     "is not answered (the file's is); git -C %s log --format= -p %s -- %s >/dev/null fetches "
			     "them from the promisor remote, then run again", path, qrepo, h->bad_hex, qpath);
}

/* The replace refs and grafts git log applies (src/git/repo.h): the walks
 * apply those of commits, and a warning says what git reads otherwise. */
static int grafts_open(fg_history *h, fg_repo *repo, fg_error *err)
{
	int rc = fg_repo_grafts_open(&h->grafts, repo, err);
	fg_repo_grafts_count c;
	fg_repo_grafts_counts(&c, h->grafts);
	if (rc == 0 && (c.replaced || c.grafted))
		rc = fg_history_warn(h, err, "history read as git log reads it: %zu commit%s replaced (refs/replace), %zu "
				     "grafted (info/grafts); GIT_NO_REPLACE_OBJECTS=1 for the original history (revisions "
				     "such as main~2 are resolved on the original parents: name commits by id)",
				     c.replaced, c.replaced == 1 ? "" : "s", c.grafted);
	if (rc == 0 && c.other)
		rc = fg_history_warn(h, err, "%zu replaced tree%s, blob%s or tag%s (refs/replace) not applied: the "
				     "answers read the original objects, where git log reads the replacements",
				     c.other, c.other == 1 ? "" : "s", c.other == 1 ? "" : "s", c.other == 1 ? "" : "s");
	if (rc == 0 && c.bad_lines)
		rc = fg_history_warn(h, err, "info/grafts: %zu line%s not \"ID PARENT...\": skipped, as git skips them",
				     c.bad_lines, c.bad_lines == 1 ? "" : "s");
	return rc;
}

/* The commit-graph, as git uses it: not in a shallow clone (its parents
 * are the full history's), nor with replace refs or grafts (git does not
 * use it then either), not when core.commitGraph is false; its
 * changed-path filters not when commitGraph.readChangedPaths is false. */
static int graph_open(fg_history *h, fg_error *err)
{
	bool use = !h->shallow && !h->grafts, filters = true;
	git_config *cfg;
	if (use && git_repository_config_snapshot(&cfg, h->repo) == 0) {
		int v;
		if (git_config_get_bool(&v, cfg, "core.commitGraph") == 0 && !v)
			use = false;
		if (git_config_get_bool(&v, cfg, "commitGraph.readChangedPaths") == 0 && !v)
			filters = false;
		git_config_free(cfg);
	}
	int rc = use ? fg_commitgraph_open(&h->graph, git_repository_commondir(h->repo), err) : 0;
	h->filters = rc == 0 && filters && fg_commitgraph_has_filters(h->graph);
	return rc;
}

/* The repository's packs, read directly for the walks' commits and trees
 * (src/git/pack.h): those of its own object directory, where libgit2 finds them
 * too.  Not when GIT_OBJECT_DIRECTORY names another directory (an object of
 * the packs here might then not be the repository's). */
static int pack_open(fg_history *h, fg_error *err)
{
	if (getenv("GIT_OBJECT_DIRECTORY"))
		return 0;
	char *dir = common_path(h, "objects");
	if (!dir)
		return fg_error_oom(err, NULL);
	int rc = fg_pack_open(&h->pack, dir, err);
	free(dir);
	return rc;
}

/* A graph that says otherwise than the objects about the bad commit (its
 * tree or parents) is not this repository's: it is not used. */
static void graph_check(fg_history *h, const git_commit *bad)
{
	uint32_t pos = h->graph ? fg_commitgraph_find(h->graph, h->bad.id) : FG_COMMITGRAPH_NONE;
	if (pos == FG_COMMITGRAPH_NONE)
		return;
	fg_commitgraph_commit c;
	unsigned char parents[MAX_RAW_PARENTS][20];
	bool same = fg_commitgraph_commit_at(&c, parents, MAX_RAW_PARENTS, h->graph, pos, NULL) == 0 &&
		    !memcmp(c.tree, git_commit_tree_id(bad)->id, 20) && c.nparents == git_commit_parentcount(bad);
	for (unsigned i = 0; same && i < c.nparents; i++)
		same = !memcmp(parents[i], git_commit_parent_id(bad, i)->id, 20);
	if (!same)
		fg_history_graph_drop(h);
}

int fg_history_open(fg_history **out, const char *dir, const fg_history_options *opts, fg_error *err)
{
	*out = NULL;
	fg_repo *repo;
	int rc = fg_repo_open(&repo, dir, err);
	if (rc == FG_ECONFIG)
		return fg_error_set(err, FG_EUSAGE, dir, "not a git repository (nor inside one)");
	if (rc)
		return rc;
	if ((rc = fg_history_open_repo(out, repo, opts, err)) < 0) {
		fg_repo_free(repo);
		return rc;
	}
	(*out)->owned_repo = repo;
	return 0;
}

int fg_history_open_repo(fg_history **out, fg_repo *repo, const fg_history_options *opts, fg_error *err)
{
	fg_history_options defaults;
	if (!opts) {
		fg_history_options_init(&defaults);
		opts = &defaults;
	}
	*out = NULL;
	/* libgit2 hashes every object it reads again to verify it (with the
	 * collision-detecting SHA-1): a third of a history walk.  git itself
	 * does not on reads (fsck does), and a corrupt object still fails to
	 * inflate or parse. */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	/* A method's walk diffs a file's versions pairwise down its history:
	 * each parent's blob is the child of the next diff.  libgit2 caches no
	 * blobs by default; source files are small. */
	git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_BLOB, (size_t)256 * 1024);
	fg_history *h = calloc(1, sizeof(*h));
	if (!h)
		return fg_error_oom(err, NULL);
	h->typed_names = opts->typed_names;
	h->frame_file = opts->frame_file;
	h->frame_file_ctx = opts->frame_file_ctx;
	int rc;
	git_commit *bad_commit = NULL;
	git_tree *bad_tree = NULL;
	h->tcache = calloc(TCACHE_SLOTS, sizeof(tcache_slot));
	if (!h->tcache) {
		rc = fg_error_oom(err, NULL);
		goto fail;
	}
	h->repo = fg_repo_git(repo);
	h->progress = opts->progress;
	h->progress_ctx = opts->progress_ctx;
	if (git_repository_odb(&h->odb, h->repo) < 0 || git_repository_wrap_odb(&h->blob_repo, h->odb) < 0) {
		rc = fg_history_git_fail(err, fg_repo_workdir(repo) ? fg_repo_workdir(repo) : "", "cannot open the object database");
		goto fail;
	}
	if ((rc = pack_open(h, err)) < 0)
		goto fail;
	const char *p = git_repository_workdir(h->repo);
	if (!p)
		p = git_repository_path(h->repo);
	h->repo_path = strdup(p);
	if (!h->repo_path) {
		rc = fg_error_oom(err, NULL);
		goto fail;
	}
	size_t plen = strlen(h->repo_path);
	if (plen > 1 && h->repo_path[plen - 1] == '/')
		h->repo_path[plen - 1] = '\0';

	if ((rc = read_shallow(h, err)) < 0 || (rc = grafts_open(h, repo, err)) < 0)
		goto fail;
	if ((rc = graph_open(h, err)) < 0)
		goto fail;
	if ((rc = resolve_rev(&h->bad, h, opts->bad ? opts->bad : "HEAD", err)) < 0)
		goto fail;
	git_oid_tostr(h->bad_hex, sizeof(h->bad_hex), &h->bad);
	if (opts->good) {
		if ((rc = resolve_rev(&h->good, h, opts->good, err)) < 0)
			goto fail;
		h->has_good = true;
		git_oid_tostr(h->good_hex, sizeof(h->good_hex), &h->good);
	}
	if (git_commit_lookup(&bad_commit, h->repo, fg_history_replaced(h, &h->bad)) < 0 ||
	    git_commit_tree(&bad_tree, bad_commit) < 0) {
		rc = fg_history_git_fail(err, h->bad_hex, "cannot read the bad commit's tree");
		goto fail;
	}
	graph_check(h, bad_commit);
	if ((rc = read_ignore_revs(h, opts, bad_tree, err)) < 0)
		goto fail;

	walk_ctx ctx = { h, err, 0 };
	if (git_tree_walk(bad_tree, GIT_TREEWALK_PRE, index_cb, &ctx) < 0) {
		rc = ctx.rc ? ctx.rc : fg_history_git_fail(err, h->bad_hex, "cannot read the tree");
		goto fail;
	}
	if (h->nsrc)
		qsort(h->src, h->nsrc, sizeof(srcfile), src_cmp);
	git_tree_free(bad_tree);
	git_commit_free(bad_commit);
	*out = h;
	return 0;
fail:
	git_tree_free(bad_tree);
	git_commit_free(bad_commit);
	fg_history_free(h);
	return rc;
}

void fg_history_free(fg_history *h)
{
	if (!h)
		return;
	if (h->tcache)
		fg_history_tcache_clear(h);
	free(h->tcache);
	for (size_t i = 0; i < h->nnodes; i++) {
		free(h->nodes[i].parents);
		free(h->nodes[i].files);
	}
	free(h->nodes);
	fg_hashtab_free(&h->map);
	for (size_t i = 0; i < h->nsrc; i++)
		free(h->src[i].path);
	free(h->src);
	free(h->shallow_ids.ids);
	free(h->ignored.ids);
	free(h->repo_path);
	for (size_t i = 0; i < h->nwarnings; i++)
		free(h->warnings[i]);
	free(h->warnings);
	fg_repo_grafts_free(h->grafts);
	git_diff_free(h->rename_diff);
	fg_commitgraph_free(h->graph);
	fg_pack_free(h->pack);
	git_odb_free(h->odb);
	git_repository_free(h->blob_repo);
	fg_repo_free(h->owned_repo);
	free(h);
}

const char *fg_history_repo_path(const fg_history *h) { return h->repo_path; }
const char *fg_history_bad_id(const fg_history *h) { return h->bad_hex; }
const char *fg_history_good_id(const fg_history *h) { return h->has_good ? h->good_hex : NULL; }
bool fg_history_is_shallow(const fg_history *h) { return h->shallow; }
size_t fg_history_warning_count(const fg_history *h) { return h ? h->nwarnings : 0; }
const char *fg_history_warning(const fg_history *h, size_t i) { return i < h->nwarnings ? h->warnings[i] : NULL; }
