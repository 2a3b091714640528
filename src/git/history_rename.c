#include "git/history_internal.h"

#include <git2/sys/hashsig.h>

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
 * seconds; with more than its rename limit it missed exact renames too. */

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

/* The similarity of a deleted file to the added one (nsig, nsize bytes);
 * -1 when it cannot reach MIN_SCORE.  1 returned when its blob is missing. */
static int source_score(int *score, fg_history *h, const git_diff_delta *dl, const git_hashsig *nsig, size_t nsize,
			fg_error *err)
{
	*score = -1;
	if (dl->status != GIT_DELTA_DELETED || !is_regular(dl->old_file.mode) || !sizes_close(h, &dl->old_file.id, nsize))
		return 0;
	git_hashsig *osig;
	int rc = blob_sig(&osig, h, &dl->old_file.id, dl->old_file.path, err);
	if (rc == 0 && osig)
		*score = git_hashsig_compare(osig, nsig);
	git_hashsig_free(osig);
	return rc;
}

/* The inexact steps 2 and 3 over the deleted files of d: *best the delta
 * index or SIZE_MAX.  1 when a blob is missing (a partial clone). */
static int similar_source(size_t *best, fg_history *h, git_diff *d, const git_diff_delta *added, size_t ndeleted,
			  fg_error *err)
{
	*best = SIZE_MAX;
	int64_t limit = rename_limit(h);
	if (!is_regular(added->new_file.mode) || (int64_t)ndeleted > limit * limit)
		return 0;
	git_hashsig *nsig;
	int rc = blob_sig(&nsig, h, &added->new_file.id, added->new_file.path, err);
	if (rc != 0 || !nsig)
		return rc;
	size_t nsize;
	git_object_t type;
	if (git_odb_read_header(&nsize, &type, h->odb, &added->new_file.id) < 0)
		nsize = 0;
	const char *name = base_name(added->new_file.path);
	size_t same_name = SIZE_MAX, nsame = 0, n = git_diff_num_deltas(d);
	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *dl = git_diff_get_delta(d, i);
		if (dl->status == GIT_DELTA_DELETED && !strcmp(base_name(dl->old_file.path), name)) {
			same_name = i;
			nsame++;
		}
	}
	int score, best_score = -1;
	bool best_same = false;
	/* Step 2: the one deleted file of the same name. */
	if (nsame == 1 && (rc = source_score(&score, h, git_diff_get_delta(d, same_name), nsig, nsize, err)) == 0 &&
	    score >= BASENAME_SCORE)
		*best = same_name;
	/* Step 3: the best of all, a file of the same name first on a tie. */
	bool by_name = *best != SIZE_MAX;
	for (size_t i = 0; rc == 0 && !by_name && i < n; i++) {
		if ((rc = source_score(&score, h, git_diff_get_delta(d, i), nsig, nsize, err)) != 0 || score < MIN_SCORE)
			continue;
		bool same = !strcmp(base_name(git_diff_get_delta(d, i)->old_file.path), name);
		if (score > best_score || (score == best_score && same && !best_same)) {
			best_score = score;
			best_same = same;
			*best = i;
		}
	}
	git_hashsig_free(nsig);
	return rc;
}

/* The diff of the two trees, kept for the next call (which is often the
 * same commit for another file). */
static int tree_diff(git_diff **out, fg_history *h, const git_oid *ptree_id, const git_oid *tree_id,
		     const char *newpath, fg_error *err)
{
	if (h->rename_diff && git_oid_equal(&h->rename_a, ptree_id) && git_oid_equal(&h->rename_b, tree_id)) {
		*out = h->rename_diff;
		return 0;
	}
	git_diff_free(h->rename_diff);
	h->rename_diff = NULL;
	git_tree *a = NULL, *b = NULL;
	int rc = 0;
	if (git_tree_lookup(&a, h->repo, ptree_id) < 0 || git_tree_lookup(&b, h->repo, tree_id) < 0 ||
	    git_diff_tree_to_tree(&h->rename_diff, h->repo, a, b, NULL) < 0)
		rc = fg_history_git_fail(err, newpath, "cannot diff trees to find a rename");
	git_tree_free(a);
	git_tree_free(b);
	h->rename_a = *ptree_id;
	h->rename_b = *tree_id;
	*out = h->rename_diff;
	return rc;
}

int fg_history_find_rename(char **old_path, git_oid *old_blob, fg_history *h, const git_oid *ptree_id,
			   const git_oid *tree_id, const char *newpath, fg_error *err)
{
	*old_path = NULL;
	git_diff *d;
	int rc = tree_diff(&d, h, ptree_id, tree_id, newpath, err);
	if (rc < 0)
		return rc;
	const git_diff_delta *added = NULL;
	size_t n = git_diff_num_deltas(d), ndeleted = 0, exact = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *dl = git_diff_get_delta(d, i);
		if (dl->status == GIT_DELTA_ADDED && !strcmp(dl->new_file.path, newpath))
			added = dl;
		ndeleted += dl->status == GIT_DELTA_DELETED;
	}
	if (!added)
		return 0;
	/* Step 1: exact renames. */
	const char *name = base_name(newpath);
	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *dl = git_diff_get_delta(d, i);
		if (dl->status != GIT_DELTA_DELETED || !git_oid_equal(&dl->old_file.id, &added->new_file.id))
			continue;
		if ((!is_regular(dl->old_file.mode) || !is_regular(added->new_file.mode)) &&
		    dl->old_file.mode != added->new_file.mode)
			continue;
		bool same = !strcmp(base_name(dl->old_file.path), name);
		if (exact == SIZE_MAX || same) {
			exact = i;
			if (same)
				break;
		}
	}
	if (exact == SIZE_MAX && (rc = similar_source(&exact, h, d, added, ndeleted, err)) != 0)
		return rc;
	if (exact == SIZE_MAX)
		return 0;
	const git_diff_delta *dl = git_diff_get_delta(d, exact);
	*old_blob = dl->old_file.id;
	if (!(*old_path = strdup(dl->old_file.path)))
		return fg_error_oom(err, NULL);
	return 0;
}
