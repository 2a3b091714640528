#include "git/history_internal.h"

#include <git2/sys/hashsig.h>
#include <stdio.h>

/* ---- rename detection for git log -L: where an added file came from ----------
 *
 * git log -L follows a method across a rename: when the commit adds the
 * file's path, it diffs the whole trees and runs git's rename detection with
 * the added file as the one destination and every deleted file as a source
 * (line-log.c, queue_diffs → diffcore_std).  git's order, kept here:
 *   1. exact renames: a deleted file with the same blob id (and a compatible
 *      mode), one with the same file name first, else the first by path.  No
 *      limit: this needs no blob, only the ids the tree diff has;
 *   2. a deleted file of the same name, when only one has it, at 75%;
 *   3. the most similar deleted file at 50% or more, unless sources ×
 *      destinations exceed diff.renameLimit² (git's too_many_rename_candidates);
 *      a file whose size differs by more than half cannot reach 50% and is
 *      not read (git's size test).
 * Similarity is libgit2's (git_hashsig, the measure its git_diff_find_similar
 * uses), not git's own spanhash estimate: the two can disagree near 50%.
 * git_diff_find_similar itself is not used: it compares every added file
 * with every deleted one, and a commit that moves 2,500 files cost tens of
 * seconds; with more than its rename limit it missed exact renames too.
 *
 * The tree diff is this file's own, over the raw trees (src/git/rawtree.h):
 * the deleted files and the one added file, as libgit2's
 * git_diff_tree_to_tree lists them (an entry whose type changes, a file
 * becoming a symbolic link, is deleted and added), in path order; only
 * subtrees whose ids differ are read.  libgit2's diff parsed every tree of
 * both sides into its object cache: 40 M instructions for a move of 2,467
 * files. */

#define MIN_SCORE 50
#define BASENAME_SCORE 75 /* git: MIN_SCORE + 0.5 × (100 − MIN_SCORE) */
#define DEFAULT_RENAME_LIMIT 1000

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static bool is_regular(uint32_t mode)
{
	return (mode & 0170000) == 0100000;
}

/* git's diff.renameLimit (0 or less: 32767, as git takes it). */
static int64_t rename_limit(fg_history *h)
{
	git_config *cfg;
	int32_t v = DEFAULT_RENAME_LIMIT;
	if (git_repository_config_snapshot(&cfg, h->repo) == 0) {
		if (git_config_get_int32(&v, cfg, "diff.renameLimit") < 0)
			v = DEFAULT_RENAME_LIMIT;
		git_config_free(cfg);
	}
	return v <= 0 ? 32767 : v;
}

/* The blob's similarity signature; 1 when the blob is not in the clone. */
static int blob_sig(git_hashsig **out, fg_history *h, const git_oid *id, const char *path, fg_error *err)
{
	git_blob *b;
	*out = NULL;
	if (git_blob_lookup(&b, h->blob_repo, id) < 0) {
		const git_error *ge = git_error_last();
		if (ge && ge->klass == GIT_ERROR_ODB)
			return 1;
		return fg_history_git_fail(err, path, "cannot read a blob to find a rename");
	}
	int rc = git_hashsig_create(out, git_blob_rawcontent(b), (size_t)git_blob_rawsize(b),
				    GIT_HASHSIG_SMART_WHITESPACE | GIT_HASHSIG_ALLOW_SMALL_FILES);
	git_blob_free(b);
	if (rc < 0) {
		*out = NULL;
		return rc == GIT_EBUFS ? 0 : fg_history_git_fail(err, path, "cannot measure a file's similarity");
	}
	return 0;
}

/* Whether the sizes allow a score of MIN_SCORE (git's estimate_similarity:
 * the larger may exceed the smaller by at most half of itself). */
static bool sizes_close(fg_history *h, const git_oid *a, size_t bsize)
{
	size_t asize;
	git_object_t type;
	if (git_odb_read_header(&asize, &type, h->odb, a) < 0)
		return true; /* let the read decide */
	size_t max = asize > bsize ? asize : bsize, min = asize > bsize ? bsize : asize;
	return (max - min) * 100 <= max * (100 - MIN_SCORE);
}

static const char *del_path(const fg_history *h, const rename_file *f)
{
	return h->rename_names + f->path;
}

/* The similarity of deleted file dl to the added one (nsig, nsize bytes);
 * -1 when it cannot reach MIN_SCORE.  1 returned when its blob is missing. */
static int source_score(int *score, fg_history *h, const rename_file *dl, const git_hashsig *nsig, size_t nsize,
			fg_error *err)
{
	*score = -1;
	if (!is_regular(dl->mode) || !sizes_close(h, &dl->id, nsize))
		return 0;
	git_hashsig *osig;
	int rc = blob_sig(&osig, h, &dl->id, del_path(h, dl), err);
	if (rc == 0 && osig)
		*score = git_hashsig_compare(osig, nsig);
	git_hashsig_free(osig);
	return rc;
}

/* The inexact steps 2 and 3 over the deleted files: *best their index or
 * SIZE_MAX.  1 when a blob is missing (a partial clone). */
static int similar_source(size_t *best, fg_history *h, const rename_file *added, const char *newpath, fg_error *err)
{
	*best = SIZE_MAX;
	int64_t limit = rename_limit(h);
	size_t n = h->nrename_del;
	if (!is_regular(added->mode) || (int64_t)n > limit * limit)
		return 0;
	git_hashsig *nsig;
	int rc = blob_sig(&nsig, h, &added->id, newpath, err);
	if (rc != 0 || !nsig)
		return rc;
	size_t nsize;
	git_object_t type;
	if (git_odb_read_header(&nsize, &type, h->odb, &added->id) < 0)
		nsize = 0;
	const char *name = base_name(newpath);
	size_t same_name = SIZE_MAX, nsame = 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(base_name(del_path(h, &h->rename_del[i])), name)) {
			same_name = i;
			nsame++;
		}
	int score, best_score = -1;
	bool best_same = false;
	/* Step 2: the one deleted file of the same name. */
	if (nsame == 1 && (rc = source_score(&score, h, &h->rename_del[same_name], nsig, nsize, err)) == 0 &&
	    score >= BASENAME_SCORE)
		*best = same_name;
	/* Step 3: the best of all, a file of the same name first on a tie. */
	bool by_name = *best != SIZE_MAX;
	for (size_t i = 0; rc == 0 && !by_name && i < n; i++) {
		if ((rc = source_score(&score, h, &h->rename_del[i], nsig, nsize, err)) != 0 || score < MIN_SCORE)
			continue;
		bool same = !strcmp(base_name(del_path(h, &h->rename_del[i])), name);
		if (score > best_score || (score == best_score && same && !best_same)) {
			best_score = score;
			best_same = same;
			*best = i;
		}
	}
	git_hashsig_free(nsig);
	return rc;
}

/* ---- the tree diff ---------------------------------------------------------- */

/* Records a deleted file: its path is prefix (plen bytes) and name. */
static int del_add(fg_history *h, const char *prefix, size_t plen, const fg_rawtree_entry *e, fg_error *err)
{
	size_t need = h->lrename_names + plen + e->name_len + 1;
	if (fg_history_grow(&h->rename_names, &h->caprename_names, need, 1) < 0 ||
	    fg_history_grow(&h->rename_del, &h->caprename_del, h->nrename_del + 1, sizeof(rename_file)) < 0)
		return fg_error_oom(err, NULL);
	char *p = h->rename_names + h->lrename_names;
	memcpy(p, prefix, plen);
	memcpy(p + plen, e->name, e->name_len);
	p[plen + e->name_len] = '\0';
	rename_file *f = &h->rename_del[h->nrename_del++];
	f->path = h->lrename_names;
	f->mode = fg_rawtree_canonical_mode(e->mode);
	memcpy(f->id.id, e->id, GIT_OID_RAWSZ);
	h->lrename_names = need;
	return 0;
}

/* The path buffer of a diff: the directories above the trees compared. */
typedef struct dpath {
	char buf[4096];
	size_t len;
} dpath;

/* Goes down into directory entry e: false when the path would not fit. */
static bool dpath_push(dpath *d, const fg_rawtree_entry *e)
{
	if (d->len + e->name_len + 2 > sizeof(d->buf))
		return false;
	memcpy(d->buf + d->len, e->name, e->name_len);
	d->len += e->name_len;
	d->buf[d->len++] = '/';
	return true;
}

static int diff_trees(fg_history *h, const git_oid *a, const git_oid *b, dpath *d, fg_error *err);

/* Entry e of the old tree is not in the new one: deleted, with every file
 * below it when it is a directory. */
static int del_entry(fg_history *h, const fg_rawtree_entry *e, dpath *d, fg_error *err)
{
	if (!fg_rawtree_is_dir(e->mode))
		return del_add(h, d->buf, d->len, e, err);
	git_oid id;
	memcpy(id.id, e->id, GIT_OID_RAWSZ);
	size_t len = d->len;
	if (!dpath_push(d, e))
		return fg_error_set(err, FG_EGIT, NULL, "a path of over %zu bytes", sizeof(d->buf));
	int rc = diff_trees(h, &id, NULL, d, err);
	d->len = len;
	return rc;
}

/* Git's tree order: names compared bytewise, a directory's as if it ended
 * in '/'. */
static int entry_cmp(const fg_rawtree_entry *x, const fg_rawtree_entry *y)
{
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(x->name, y->name, n);
	if (c)
		return c;
	unsigned cx = x->name_len > n ? (unsigned char)x->name[n] : fg_rawtree_is_dir(x->mode) ? '/' : 0;
	unsigned cy = y->name_len > n ? (unsigned char)y->name[n] : fg_rawtree_is_dir(y->mode) ? '/' : 0;
	return (int)cx - (int)cy;
}

/* The files deleted between the trees a and b (b NULL: every file of a),
 * below the path in d, in path order. */
static int diff_trees(fg_history *h, const git_oid *a, const git_oid *b, dpath *d, fg_error *err)
{
	tcache_slot ta, tb = { .tree = NULL };
	int rc = fg_history_tree_load(&ta, h, a, err);
	if (rc == 0 && b)
		rc = fg_history_tree_load(&tb, h, b, err);
	size_t na = rc ? 0 : fg_rawtree_count(ta.tree), nb = rc || !b ? 0 : fg_rawtree_count(tb.tree);
	for (size_t i = 0, j = 0; rc == 0 && i < na;) {
		fg_rawtree_entry x, y;
		fg_rawtree_at(&x, ta.tree, i);
		int c = -1;
		if (j < nb) {
			fg_rawtree_at(&y, tb.tree, j);
			c = entry_cmp(&x, &y);
		}
		if (c > 0) {
			j++; /* added */
			continue;
		}
		i++;
		if (c < 0) {
			rc = del_entry(h, &x, d, err);
			continue;
		}
		j++;
		if (!memcmp(x.id, y.id, GIT_OID_RAWSZ) && x.mode == y.mode)
			continue;
		if (fg_rawtree_is_dir(x.mode)) { /* and y: the order tells directories apart */
			git_oid xa, yb;
			memcpy(xa.id, x.id, GIT_OID_RAWSZ);
			memcpy(yb.id, y.id, GIT_OID_RAWSZ);
			size_t len = d->len;
			if (!dpath_push(d, &x))
				rc = fg_error_set(err, FG_EGIT, NULL, "a path of over %zu bytes", sizeof(d->buf));
			else
				rc = diff_trees(h, &xa, &yb, d, err);
			d->len = len;
		} else if ((fg_rawtree_canonical_mode(x.mode) & 0170000) != (fg_rawtree_canonical_mode(y.mode) & 0170000)) {
			rc = del_add(h, d->buf, d->len, &x, err); /* its type changed: deleted and added */
		}
	}
	if (ta.tree)
		fg_history_tree_unload(&ta);
	if (tb.tree)
		fg_history_tree_unload(&tb);
	return rc;
}

/* The entry at path in the tree root: *found false when there is none. */
static int entry_at(rename_file *out, bool *found, fg_history *h, const git_oid *root, const char *path,
		    fg_error *err)
{
	*found = false;
	git_oid id = *root;
	for (const char *p = path;;) {
		const fg_rawtree *t;
		int rc = fg_history_tree_get(&t, h, &id, err);
		if (rc < 0)
			return rc;
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);
		fg_rawtree_entry e;
		if (!fg_rawtree_find(&e, t, p, len) || (slash && !fg_rawtree_is_dir(e.mode)))
			return 0;
		memcpy(id.id, e.id, GIT_OID_RAWSZ);
		if (!slash) {
			*found = true;
			out->mode = fg_rawtree_canonical_mode(e.mode);
			out->id = id;
			return 0;
		}
		p = slash + 1;
	}
}

/* The deleted files between the trees, kept for the next call (which is
 * often the same commit for another file). */
static int tree_diff(fg_history *h, const git_oid *ptree_id, const git_oid *tree_id, const char *newpath,
		     fg_error *err)
{
	if (h->rename_done && git_oid_equal(&h->rename_a, ptree_id) && git_oid_equal(&h->rename_b, tree_id))
		return 0;
	h->rename_done = false;
	h->nrename_del = 0;
	h->lrename_names = 0;
	dpath d = { .len = 0 };
	int rc = diff_trees(h, ptree_id, tree_id, &d, err);
	if (rc < 0) {
		if (rc != FG_ENOMEM && err && !err->source[0])
			snprintf(err->source, sizeof(err->source), "%s", newpath);
		return rc;
	}
	h->rename_a = *ptree_id;
	h->rename_b = *tree_id;
	h->rename_done = true;
	return 0;
}

int fg_history_find_rename(char **old_path, git_oid *old_blob, fg_history *h, const git_oid *ptree_id,
			   const git_oid *tree_id, const char *newpath, fg_error *err)
{
	*old_path = NULL;
	/* Added: a file at newpath now, and none of its type before. */
	rename_file added, before;
	bool now, then;
	int rc = entry_at(&added, &now, h, tree_id, newpath, err);
	if (rc == 0 && now)
		rc = entry_at(&before, &then, h, ptree_id, newpath, err);
	if (rc < 0)
		return rc;
	if (!now || fg_rawtree_is_dir(added.mode) ||
	    (then && (before.mode & 0170000) == (added.mode & 0170000)))
		return 0;
	if ((rc = tree_diff(h, ptree_id, tree_id, newpath, err)) < 0)
		return rc;
	/* Step 1: exact renames. */
	const char *name = base_name(newpath);
	size_t exact = SIZE_MAX;
	for (size_t i = 0; i < h->nrename_del; i++) {
		const rename_file *dl = &h->rename_del[i];
		if (!git_oid_equal(&dl->id, &added.id))
			continue;
		if ((!is_regular(dl->mode) || !is_regular(added.mode)) && dl->mode != added.mode)
			continue;
		bool same = !strcmp(base_name(del_path(h, dl)), name);
		if (exact == SIZE_MAX || same) {
			exact = i;
			if (same)
				break;
		}
	}
	if (exact == SIZE_MAX && (rc = similar_source(&exact, h, &added, newpath, err)) != 0)
		return rc;
	if (exact == SIZE_MAX)
		return 0;
	*old_blob = h->rename_del[exact].id;
	if (!(*old_path = strdup(del_path(h, &h->rename_del[exact]))))
		return fg_error_oom(err, NULL);
	return 0;
}
