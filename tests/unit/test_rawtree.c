/* The raw tree index (src/git/rawtree.h): git's entry order, the modes as
 * libgit2 normalises them, refusals of malformed trees, and every entry and
 * lookup of trees that git itself wrote compared with libgit2's own parse. */
#include <git2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "git/rawtree.h"

static char tmp[] = "/tmp/fg-test-rawtree-XXXXXX";
#include "git_test.h"

/* Appends one entry "<mode> <name>\0<id>" with the id's bytes all `fill`. */
static size_t put(unsigned char *buf, size_t at, const char *mode, const char *name, unsigned char fill)
{
	size_t n = (size_t)sprintf((char *)buf + at, "%s %s", mode, name) + 1;
	memset(buf + at + n, fill, 20);
	return at + n + 20;
}

static bool finds(const fg_rawtree *t, const char *name, unsigned char fill, uint32_t mode)
{
	fg_rawtree_entry e;
	return fg_rawtree_find(&e, t, name, strlen(name)) && e.name_len == strlen(name) &&
	       !memcmp(e.name, name, e.name_len) && e.id[0] == fill && e.id[19] == fill && e.mode == mode;
}

static void test_order(void)
{
	/* git's order: a directory sorts as if its name ended in '/' (0x2f),
	 * so "a.b" (0x2e) < directory "a" < "a0" (0x30) < file "b" < "b-c". */
	unsigned char buf[512];
	size_t n = put(buf, 0, "100644", "a.b", 1);
	n = put(buf, n, "40000", "a", 2);
	n = put(buf, n, "100755", "a0", 3);
	n = put(buf, n, "100644", "b", 4);
	n = put(buf, n, "120000", "b-c", 5);
	n = put(buf, n, "160000", "\xc3\xa9t\xc3\xa9", 6);
	fg_rawtree *t;
	fg_error err;
	CHECK(fg_rawtree_parse(&t, buf, n, &err) == 0);
	if (!t)
		return;
	CHECK_U64(fg_rawtree_count(t), 6);
	CHECK(finds(t, "a.b", 1, 0100644));
	CHECK(finds(t, "a", 2, 040000));
	CHECK(finds(t, "a0", 3, 0100755));
	CHECK(finds(t, "b", 4, 0100644));
	CHECK(finds(t, "b-c", 5, 0120000));
	CHECK(finds(t, "\xc3\xa9t\xc3\xa9", 6, 0160000));
	fg_rawtree_entry e;
	CHECK(!fg_rawtree_find(&e, t, "a/", 2));
	CHECK(!fg_rawtree_find(&e, t, "", 0));
	CHECK(!fg_rawtree_find(&e, t, "a.", 2));
	CHECK(!fg_rawtree_find(&e, t, "c", 1));
	CHECK(!fg_rawtree_find(&e, t, "0", 1));
	CHECK(!fg_rawtree_find(&e, t, "b-c-d", 5));
	fg_rawtree_at(&e, t, 5);
	CHECK(e.name_len == 5 && e.mode == 0160000);
	CHECK(fg_rawtree_is_dir(040000) && !fg_rawtree_is_dir(0100644) && !fg_rawtree_is_dir(0160000));
	CHECK(fg_rawtree_is_blob(0100644) && fg_rawtree_is_blob(0120000) && !fg_rawtree_is_blob(0160000) &&
	      !fg_rawtree_is_blob(040000));
	fg_rawtree_free(t);

	/* The empty tree. */
	CHECK(fg_rawtree_parse(&t, "", 0, &err) == 0 && t && fg_rawtree_count(t) == 0);
	CHECK(!fg_rawtree_find(&e, t, "a", 1));
	fg_rawtree_free(t);
}

static void test_modes(void)
{
	/* libgit2's git_tree_entry_filemode: directory first, then any execute
	 * bit, then submodule and link, else a plain file. */
	CHECK_U64(fg_rawtree_canonical_mode(0100644), 0100644);
	CHECK_U64(fg_rawtree_canonical_mode(0100664), 0100644);
	CHECK_U64(fg_rawtree_canonical_mode(0100755), 0100755);
	CHECK_U64(fg_rawtree_canonical_mode(0100700), 0100755);
	CHECK_U64(fg_rawtree_canonical_mode(040000), 040000);
	CHECK_U64(fg_rawtree_canonical_mode(040755), 040000);
	CHECK_U64(fg_rawtree_canonical_mode(0120000), 0120000);
	CHECK_U64(fg_rawtree_canonical_mode(0120755), 0100755);
	CHECK_U64(fg_rawtree_canonical_mode(0160000), 0160000);
	CHECK_U64(fg_rawtree_canonical_mode(0644), 0100644);
}

static void refused(const void *data, size_t len, const char *what)
{
	fg_rawtree *t = (fg_rawtree *)1;
	fg_error err;
	memset(&err, 0, sizeof(err));
	int rc = fg_rawtree_parse(&t, data, len, &err);
	CHECK(rc == FG_EGIT && t == NULL);
	if (!strstr(err.message, what))
		fprintf(stderr, "message: %s (expected %s)\n", err.message, what);
	CHECK(strstr(err.message, what) != NULL);
}

static void test_malformed(void)
{
	unsigned char buf[256];
	size_t n = put(buf, 0, "100644", "a", 1);
	refused(buf, n - 1, "id cut short at byte 0");
	refused(buf, 8, "name without its NUL at byte 0");
	refused(buf, 3, "no octal mode followed by a space at byte 0");
	size_t m = put(buf, n, "100644", "b", 2);
	refused(buf, m - 20, "id cut short at byte 29");
	refused(" a\0aaaaaaaaaaaaaaaaaaaa", 23, "no octal mode");
	refused("10a644 a\0aaaaaaaaaaaaaaaaaaaa", 29, "no octal mode");
	refused("1008644 a\0aaaaaaaaaaaaaaaaaaaa", 30, "no octal mode");
	refused("1777777 a\0aaaaaaaaaaaaaaaaaaaa", 30, "mode out of range");
	refused("100644 \0aaaaaaaaaaaaaaaaaaaa", 28, "empty or overlong name");
	refused("100644\0a\0aaaaaaaaaaaaaaaaaaaa", 29, "no octal mode");
	/* 0177777 is the largest mode libgit2 keeps. */
	fg_rawtree *t;
	CHECK(fg_rawtree_parse(&t, "177777 a\0aaaaaaaaaaaaaaaaaaaa", 29, NULL) == 0 && t);
	fg_rawtree_free(t);
}

/* Every entry of the tree at rev, and a lookup of each, as libgit2 reads them. */
static void compare_with_libgit2(git_repository *repo, const char *rev)
{
	git_object *obj;
	if (git_revparse_single(&obj, repo, rev) < 0) {
		CHECK(!"revision");
		return;
	}
	git_tree *tree = (git_tree *)obj;
	git_odb *odb;
	git_odb_object *raw;
	CHECK(git_repository_odb(&odb, repo) == 0);
	CHECK(git_odb_read(&raw, odb, git_tree_id(tree)) == 0);
	fg_rawtree *t;
	CHECK(fg_rawtree_parse(&t, git_odb_object_data(raw), git_odb_object_size(raw), NULL) == 0);
	size_t n = git_tree_entrycount(tree);
	CHECK_U64(fg_rawtree_count(t), n);
	for (size_t i = 0; i < n && i < fg_rawtree_count(t); i++) {
		const git_tree_entry *g = git_tree_entry_byindex(tree, i);
		fg_rawtree_entry e, f;
		fg_rawtree_at(&e, t, i);
		const char *name = git_tree_entry_name(g);
		CHECK(e.name_len == strlen(name) && !memcmp(e.name, name, e.name_len));
		CHECK(!memcmp(e.id, git_tree_entry_id(g)->id, 20));
		CHECK_U64(e.mode, (uint32_t)git_tree_entry_filemode_raw(g));
		CHECK_U64(fg_rawtree_canonical_mode(e.mode), (uint32_t)git_tree_entry_filemode(g));
		CHECK(fg_rawtree_is_dir(e.mode) == (git_tree_entry_type(g) == GIT_OBJECT_TREE));
		CHECK(fg_rawtree_is_blob(e.mode) == (git_tree_entry_type(g) == GIT_OBJECT_BLOB));
		CHECK(fg_rawtree_find(&f, t, name, strlen(name)) && f.id == e.id);
		/* Names next to it that are not in the tree. */
		char probe[300];
		snprintf(probe, sizeof(probe), "%s~", name);
		CHECK(fg_rawtree_find(&f, t, probe, strlen(probe)) == (git_tree_entry_byname(tree, probe) != NULL));
		memcpy(probe, name, strlen(name) - 1);
		probe[strlen(name) - 1] = '\0';
		CHECK(fg_rawtree_find(&f, t, probe, strlen(probe)) == (git_tree_entry_byname(tree, probe) != NULL));
	}
	fg_rawtree_free(t);
	git_odb_object_free(raw);
	git_odb_free(odb);
	git_tree_free(tree);
}

static void test_against_libgit2(void)
{
	/* A tree with names that sort differently as files and as
	 * directories, an executable, a link, a submodule, a non-ASCII name. */
	sh("git init -q r && cd r && mkdir -p a a.b/x a0 'a b' z && echo 1 >a/f && echo 2 >a.b/x/f && echo 3 >a0/f && "
	   "echo 4 >'a b/f' && echo 5 >a- && echo 6 >a.c && echo 7 >z/f && printf x >run.sh && chmod +x run.sh && "
	   "ln -s a/f link && echo 8 >\"$(printf '\\303\\251t\\303\\251')\" && git add -A && "
	   "git update-index --add --cacheinfo 160000,0123456789abcdef0123456789abcdef01234567,sub && "
	   "git commit -q -m one");
	char path[512];
	snprintf(path, sizeof(path), "%s/r", tmp);
	git_repository *repo;
	if (git_repository_open(&repo, path) < 0) {
		CHECK(!"open");
		return;
	}
	compare_with_libgit2(repo, "HEAD^{tree}");
	compare_with_libgit2(repo, "HEAD:a.b");
	git_repository_free(repo);
}

int main(void)
{
	test_order();
	test_modes();
	test_malformed();
	int rc = git_test_setup();
	if (rc)
		return rc == 77 ? check_status("test_rawtree") : rc;
	git_libgit2_init();
	test_against_libgit2();
	git_libgit2_shutdown();
	git_test_cleanup(check_failures);
	return check_status("test_rawtree");
}
