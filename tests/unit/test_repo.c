/* Repository helpers against a real repository built with git (fixed dates,
 * so every id is the same on every machine); skips when git is missing. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "git/repo.h"

static char tmp[] = "/tmp/fg-test-repo-XXXXXX";
#include "git_test.h"

/* The first line of a file in the temporary folder. */
static const char *line_of(const char *name)
{
	static char buf[4][256];
	static int slot;
	char *out = buf[slot++ % 4];
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	FILE *f = fopen(path, "r");
	out[0] = '\0';
	if (f) {
		if (fgets(out, 256, f))
			out[strcspn(out, "\n")] = '\0';
		fclose(f);
	}
	return out;
}

/* A commit with fixed dates.  Committer 01:30 at +03:00 is the previous UTC
 * day, so the dates must come out in UTC. */
static void commit(const char *file, const char *subject, const char *adate, const char *cdate)
{
	sh("cd repo; echo '%s' >> %s; git add %s; "
	   "GIT_AUTHOR_DATE='%s' GIT_COMMITTER_DATE='%s' git commit -q -m '%s' -m 'Body line.'",
	   subject, file, file, adate, cdate, subject);
}

static void build_repo(void)
{
	sh("mkdir -p home repo/sub/deeper outside; cd repo; git init -q; git checkout -q -b main");
	commit("a", "one", "2026-01-01T10:00:00+00:00", "2026-01-01T10:00:00+00:00");
	sh("cd repo; git rev-parse HEAD > ../c1");
	commit("a", "two", "2026-01-02T10:00:00+00:00", "2026-01-02T10:00:00+00:00");
	sh("cd repo; git rev-parse HEAD > ../c2; git tag -a v2 -m 'tag two'; git rev-parse v2 > ../tag2");
	sh("cd repo; git checkout -q -b side HEAD");
	commit("b", "side one", "2026-01-03T10:00:00+00:00", "2026-01-03T10:00:00+00:00");
	sh("cd repo; git rev-parse HEAD > ../s1; git checkout -q main");
	commit("a", "three", "2026-01-04T10:00:00+00:00", "2026-01-04T10:00:00+00:00");
	sh("cd repo; git rev-parse HEAD > ../three");
	sh("cd repo; GIT_AUTHOR_DATE='2026-01-05T10:00:00+00:00' GIT_COMMITTER_DATE='2026-01-05T10:00:00+00:00' "
	   "git merge -q --no-ff -m 'merge side' side; git rev-parse HEAD > ../m");
	commit("a", "four \xc3\xa9t\xc3\xa9", "2025-12-31T23:59:00-01:00", "2026-01-07T01:30:00+03:00");
	sh("cd repo; git rev-parse HEAD > ../head; git rev-parse --short HEAD > ../head-short");
	/* Enough objects that some share their first four hex digits. */
	sh("mkdir blobfiles; i=0; while [ $i -lt 1500 ]; do echo blob$i > blobfiles/$i; echo \"$PWD/blobfiles/$i\"; "
	   "i=$((i+1)); "
	   "done > blobs.in; git -C repo hash-object -w --stdin-paths < blobs.in > blobs; "
	   "cut -c1-4 blobs | sort | uniq -d | head -n 1 > ambiguous");
	sh("cd repo; git worktree add -q ../wt side 2>/dev/null || git worktree add ../wt side > /dev/null");
}

static fg_repo *open_at(const char *rel)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	fg_repo *repo = NULL;
	fg_error err;
	fg_error_clear(&err);
	if (fg_repo_open(&repo, path, &err)) {
		fprintf(stderr, "cannot open %s: %s\n", path, err.message);
		check_failures++;
	}
	return repo;
}

static void test_open(void)
{
	char expected[512];
	fg_repo *repo = open_at("repo/sub/deeper");
	if (repo) {
		snprintf(expected, sizeof(expected), "%s/repo/", tmp);
		CHECK_STR(fg_repo_workdir(repo), expected);
	}
	fg_repo_free(repo);

	/* A worktree: its own HEAD, its own top. */
	repo = open_at("wt");
	if (repo) {
		snprintf(expected, sizeof(expected), "%s/wt/", tmp);
		CHECK_STR(fg_repo_workdir(repo), expected);
		fg_repo_commit c;
		fg_error err;
		fg_error_clear(&err);
		CHECK(fg_repo_head(&c, repo, &err) == 0);
		CHECK_STR(c.id, line_of("s1"));
	}
	fg_repo_free(repo);

	/* Outside any repository. */
	snprintf(expected, sizeof(expected), "%s/outside", tmp);
	fg_error err;
	fg_error_clear(&err);
	CHECK(fg_repo_open(&repo, expected, &err) == FG_ECONFIG);
	CHECK(repo == NULL);
	CHECK_STR(err.message, "not in a git repository");
	CHECK_STR(err.source, expected);

	/* From the current directory, as git bisect run calls us. */
	char cwd[4096];
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	snprintf(expected, sizeof(expected), "%s/repo/sub", tmp);
	CHECK(chdir(expected) == 0);
	fg_error_clear(&err);
	CHECK(fg_repo_open(&repo, NULL, &err) == 0);
	fg_repo_free(repo);
	snprintf(expected, sizeof(expected), "%s/outside", tmp);
	CHECK(chdir(expected) == 0);
	fg_error_clear(&err);
	CHECK(fg_repo_open(&repo, NULL, &err) == FG_ECONFIG);
	CHECK_STR(err.message, "not in a git repository");
	CHECK(chdir(cwd) == 0);
}

static void test_commits(fg_repo *repo)
{
	fg_repo_commit c;
	fg_error err;
	fg_error_clear(&err);
	CHECK(fg_repo_head(&c, repo, &err) == 0);
	CHECK_STR(c.id, line_of("head"));
	CHECK_STR(c.short_id, line_of("head-short"));
	CHECK(strlen(c.short_id) >= 7);
	CHECK_STR(c.date, "2026-01-06");        /* 01:30 +03:00 is 22:30 UTC the day before */
	CHECK_STR(c.author_date, "2026-01-01"); /* 23:59 -01:00 is 00:59 UTC the next day */
	CHECK(c.time == 1767738600);
	CHECK_STR(c.subject, "four \xc3\xa9t\xc3\xa9");

	CHECK(fg_repo_commit_info(&c, repo, "main~1", &err) == 0);
	CHECK_STR(c.id, line_of("m"));
	CHECK_STR(c.subject, "merge side");
	CHECK(fg_repo_commit_info(&c, repo, "v2", &err) == 0); /* an annotated tag peels */
	CHECK_STR(c.id, line_of("c2"));
	CHECK_STR(c.date, "2026-01-02");

	fg_error_clear(&err);
	CHECK(fg_repo_commit_info(&c, repo, "no-such-branch", &err) == FG_EUSAGE);
	CHECK_STR(err.source, "no-such-branch");
	CHECK_STR(err.message, "unknown revision");
	fg_error_clear(&err);
	CHECK(fg_repo_commit_info(&c, repo, "HEAD:a", &err) == FG_EUSAGE); /* a blob */
	CHECK_STR(err.message, "not a commit");
}

static void test_expand(fg_repo *repo)
{
	char id[41];
	fg_error err;
	fg_error_clear(&err);
	char abbrev[16];
	snprintf(abbrev, sizeof(abbrev), "%.7s", line_of("c1"));
	CHECK(fg_repo_expand(id, repo, abbrev, &err) == 0);
	CHECK_STR(id, line_of("c1"));
	/* Uppercase, and the full id itself. */
	for (char *p = abbrev; *p; p++)
		if (*p >= 'a' && *p <= 'f')
			*p = (char)(*p - 'a' + 'A');
	CHECK(fg_repo_expand(id, repo, abbrev, &err) == 0);
	CHECK_STR(id, line_of("c1"));
	CHECK(fg_repo_expand(id, repo, line_of("head"), &err) == 0);
	CHECK_STR(id, line_of("head"));
	/* A tag object's id peels to its commit. */
	snprintf(abbrev, sizeof(abbrev), "%.10s", line_of("tag2"));
	CHECK(fg_repo_expand(id, repo, abbrev, &err) == 0);
	CHECK_STR(id, line_of("c2"));

	fg_error_clear(&err);
	CHECK(fg_repo_expand(id, repo, "0000000", &err) == FG_EUSAGE);
	CHECK_STR(err.source, "0000000");
	CHECK_STR(err.message, "unknown commit");
	fg_error_clear(&err);
	CHECK(fg_repo_expand(id, repo, "main", &err) == FG_EUSAGE); /* never a ref name */
	CHECK(strstr(err.message, "not a commit id") != NULL);
	const char *ambiguous = line_of("ambiguous");
	CHECK(strlen(ambiguous) == 4);
	fg_error_clear(&err);
	CHECK(fg_repo_expand(id, repo, ambiguous, &err) == FG_EUSAGE);
	CHECK_STR(err.source, ambiguous);
	CHECK(strstr(err.message, "ambiguous") != NULL);
	/* A blob is not a commit. */
	snprintf(abbrev, sizeof(abbrev), "%.12s", line_of("blobs"));
	fg_error_clear(&err);
	CHECK(fg_repo_expand(id, repo, abbrev, &err) == FG_EUSAGE);
	CHECK_STR(err.message, "not a commit");
}

static void test_config(void)
{
	sh("cd repo; git config fgbisect.runs runs/runs.txt; git config fgbisect.url https://h/r.txt; "
	   "git config fgbisect.abs /srv/runs.txt; git config --global fgbisect.home '~/runs.txt'; "
	   "git config --global fgbisect.runs global.txt");
	fg_repo *repo = open_at("repo/sub");
	if (!repo)
		return;
	char *v = NULL;
	char expected[512];
	fg_error err;
	fg_error_clear(&err);
	/* The repository's value wins over the global one, relative to the top. */
	CHECK(fg_repo_config_path(&v, repo, "fgbisect.runs", &err) == 0);
	snprintf(expected, sizeof(expected), "%s/repo/runs/runs.txt", tmp);
	CHECK_STR(v, expected);
	free(v);
	CHECK(fg_repo_config_path(&v, repo, "fgbisect.home", &err) == 0);
	snprintf(expected, sizeof(expected), "%s/home/runs.txt", tmp);
	CHECK_STR(v, expected);
	free(v);
	CHECK(fg_repo_config_path(&v, repo, "fgbisect.url", &err) == 0);
	CHECK_STR(v, "https://h/r.txt");
	free(v);
	CHECK(fg_repo_config_path(&v, repo, "fgbisect.abs", &err) == 0);
	CHECK_STR(v, "/srv/runs.txt");
	free(v);
	CHECK(fg_repo_config_path(&v, repo, "fgbisect.unset", &err) == 0);
	CHECK(v == NULL);
	fg_repo_free(repo);

	/* Only the global value: still relative to the work tree top. */
	sh("cd repo; git config --unset fgbisect.runs");
	repo = open_at("repo");
	if (!repo)
		return;
	CHECK(fg_repo_config_path(&v, repo, "fgbisect.runs", &err) == 0);
	snprintf(expected, sizeof(expected), "%s/repo/global.txt", tmp);
	CHECK_STR(v, expected);
	free(v);
	fg_repo_free(repo);
}

static void check_log(const fg_repo_log *log, const char *const *expected, size_t n)
{
	CHECK(fg_repo_log_count(log) == n);
	for (size_t i = 0; i < n && i < fg_repo_log_count(log); i++)
		CHECK_STR(fg_repo_log_at(log, i)->id, line_of(expected[i]));
	CHECK(fg_repo_log_at(log, fg_repo_log_count(log)) == NULL);
}

static void test_log(fg_repo *repo)
{
	fg_repo_log *log = NULL;
	fg_error err;
	fg_error_clear(&err);
	char good[41];
	snprintf(good, sizeof(good), "%s", line_of("c1"));

	/* (c1, HEAD]: every commit, newest first, side branch included. */
	CHECK(fg_repo_log_range(&log, repo, good, "HEAD", NULL, &err) == 0);
	if (log) {
		static const char *const all[] = { "head", "m", "three", "s1", "c2" };
		check_log(log, all, 5);
		CHECK_STR(fg_repo_log_at(log, 4)->date, "2026-01-02");
		CHECK(!fg_repo_log_truncated(log));
	}
	fg_repo_log_free(log);

	/* First parents only: the side commit goes. */
	fg_repo_log_options opts;
	fg_repo_log_options_init(&opts);
	CHECK(opts.max == 1000 && !opts.first_parent);
	opts.first_parent = true;
	CHECK(fg_repo_log_range(&log, repo, good, "main", &opts, &err) == 0);
	if (log) {
		CHECK(fg_repo_log_count(log) == 4);
		CHECK_STR(fg_repo_log_at(log, 2)->subject, "three");
		CHECK_STR(fg_repo_log_at(log, 3)->subject, "two");
	}
	fg_repo_log_free(log);

	/* Capped. */
	opts.first_parent = false;
	opts.max = 2;
	CHECK(fg_repo_log_range(&log, repo, good, "HEAD", &opts, &err) == 0);
	if (log) {
		static const char *const capped[] = { "head", "m" };
		check_log(log, capped, 2);
		CHECK(fg_repo_log_truncated(log));
	}
	fg_repo_log_free(log);

	/* No good end: the whole history; an empty window. */
	CHECK(fg_repo_log_range(&log, repo, NULL, "HEAD", NULL, &err) == 0);
	CHECK(log && fg_repo_log_count(log) == 6);
	fg_repo_log_free(log);
	CHECK(fg_repo_log_range(&log, repo, "HEAD", "HEAD", NULL, &err) == 0);
	CHECK(log && fg_repo_log_count(log) == 0);
	fg_repo_log_free(log);

	fg_error_clear(&err);
	CHECK(fg_repo_log_range(&log, repo, "nope", "HEAD", NULL, &err) == FG_EUSAGE);
	CHECK(log == NULL);
	CHECK_STR(err.source, "nope");
}

int main(void)
{
	int rc = git_test_setup();
	if (rc)
		return rc;
	build_repo();

	test_open();
	fg_repo *repo = open_at("repo");
	if (repo) {
		test_commits(repo);
		test_expand(repo);
		test_log(repo);
	}
	fg_repo_free(repo);
	test_config();

	git_test_cleanup(check_failures);
	return check_failures ? 1 : 0;
}
