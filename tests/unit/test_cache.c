/* The download cache without the network: SHA-256, entry writing (sniffing
 * gzip byte by byte), verification of damaged entries, concurrent commits. */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "net/cache.h"
#include "check.h"
#include "gzip_bytes.h"
#include "base/sha256.h"
#include "base/cleanup.h"

static char tmp[256];
static pid_t parent;

static void cleanup(void)
{
	char cmd[300];
	if (getpid() != parent || !tmp[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmp);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static char *gunzip(const char *path, size_t *len)
{
	gzFile f = gzopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 20;
	char *buf = malloc(cap);
	int n = gzread(f, buf, (unsigned)cap);
	gzclose(f);
	*len = n > 0 ? (size_t)n : 0;
	return buf;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	fwrite(data, 1, len, f);
	fclose(f);
}

static int count_dir(const char *dir, bool *stray)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	*stray = false;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (strncmp(e->d_name, "tmp-", 4) == 0)
			*stray = true;
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

static void test_sha256(void)
{
	char hex[FG_SHA256_HEX_SIZE];
	fg_sha256_hex(hex, "", 0);
	CHECK(!strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
	fg_sha256_hex(hex, "abc", 3);
	CHECK(!strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	fg_sha256_hex(hex, two, strlen(two));
	CHECK(!strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));

	/* A million 'a', fed in uneven pieces across block boundaries. */
	char a[1000];
	memset(a, 'a', sizeof(a));
	fg_sha256 ctx;
	unsigned char digest[FG_SHA256_SIZE];
	fg_sha256_init(&ctx);
	for (size_t done = 0, step = 1; done < 1000000; done += step, step = step % 997 + 1) {
		if (done + step > 1000000)
			step = 1000000 - done;
		fg_sha256_update(&ctx, a, step);
	}
	fg_sha256_final(digest, &ctx);
	static const unsigned char want[] = { 0xcd, 0xc7, 0x6e, 0x5c, 0x99, 0x14, 0xfb, 0x92, 0x81, 0xa1, 0xc7,
	                                      0xe2, 0x84, 0xd7, 0x3e, 0x67, 0xf1, 0x80, 0x9a, 0x48, 0xa4, 0x97,
	                                      0x20, 0x0e, 0x04, 0x6d, 0x39, 0xcc, 0xc7, 0x11, 0x2c, 0xd0 };
	CHECK(memcmp(digest, want, sizeof(want)) == 0);
}

static void test_default_dir(void)
{
	char *dir = NULL;
	fg_error err;
	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	setenv("HOME", "/home/u", 1);
	CHECK(fg_cache_default_dir(&dir, &err) == 0 && !strcmp(dir, "/x/cache/fgbisect"));
	free(dir);
	/* A relative XDG_CACHE_HOME is ignored, as the spec says. */
	setenv("XDG_CACHE_HOME", "relative", 1);
	CHECK(fg_cache_default_dir(&dir, &err) == 0 && !strcmp(dir, "/home/u/.cache/fgbisect"));
	free(dir);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	CHECK(fg_cache_default_dir(&dir, &err) == FG_EFETCH && !dir);
}

/* fg_cache_lookup, and release() for its copy. */
static fg_cleanup_item hit_cleanup;

static int lookup(char **hit, fg_cache *cache, const char *key, fg_error *err)
{
	return fg_cache_lookup(hit, &hit_cleanup, cache, key, err);
}

static void release(char *hit)
{
	if (hit) {
		unlink(hit);
		fg_cleanup_remove(&hit_cleanup);
	}
	free(hit);
}

/* The entry's own path. */
static const char *cache_dir; /* the cache the test works on */

static char *entry_of(const char *dir, const char *key)
{
	char hex[FG_SHA256_HEX_SIZE];
	fg_sha256_hex(hex, key, strlen(key));
	char *path = malloc(strlen(dir) + FG_SHA256_HEX_SIZE + 8);
	if (path)
		sprintf(path, "%s/%s.gz", dir, hex);
	return path;
}

/* Commits e; *path is the entry's own path (the download handed back is
 * deleted). */
static int commit(char **path, fg_cache_entry *e, const char *key, fg_error *err)
{
	char *mine = NULL;
	int rc = fg_cache_entry_commit(&mine, e, err);
	*path = NULL;
	if (rc == 0) {
		struct stat a, b;
		*path = entry_of(cache_dir, key);
		/* The download handed back is a copy, not the entry itself. */
		CHECK(mine && *path && stat(mine, &a) == 0 && stat(*path, &b) == 0 && a.st_ino != b.st_ino);
		unlink(mine);
	}
	free(mine);
	return rc;
}

/* Writes text into a new entry one byte at a time, commits it. */
static int fill(char **path, fg_cache *cache, const char *key, const void *data, size_t len, fg_error *err)
{
	fg_cache_entry *e;
	int rc = fg_cache_entry_new(&e, cache, key, err);
	if (rc < 0)
		return rc;
	const unsigned char *p = data;
	for (size_t i = 0; i < len && rc == 0; i++)
		rc = fg_cache_entry_write(e, p + i, 1, err);
	if (rc == 0)
		rc = commit(path, e, key, err);
	fg_cache_entry_free(e);
	return rc;
}

static void test_entries(void)
{
	char dir[300];
	snprintf(dir, sizeof(dir), "%s/deep/er/cache", tmp);
	cache_dir = dir;
	fg_cache *cache;
	fg_error err;
	CHECK(fg_cache_open(&cache, dir, &err) == 0);
	if (!cache)
		return;
	struct stat st;
	CHECK(stat(dir, &st) == 0 && (st.st_mode & 07777) == 0700);

	const char *text = "java/lang/Thread.run;Foo.bar 12\njava/lang/Thread.run;Foo.baz 30\n";
	char *path = NULL, *hit = NULL;
	size_t len;
	CHECK(lookup(&hit, cache, "http://h/a", &err) == 0 && !hit);
	CHECK(fill(&path, cache, "http://h/a", text, strlen(text), &err) == 0);
	CHECK(path && stat(path, &st) == 0 && (st.st_mode & 07777) == 0600);
	CHECK(fg_cache_verify_gzip(path, &err) == 0);
	char *back = gunzip(path, &len);
	CHECK(back && len == strlen(text) && !memcmp(back, text, len));
	free(back);
	CHECK(lookup(&hit, cache, "http://h/a", &err) == 1 && hit && strcmp(hit, path));
	back = hit ? gunzip(hit, &len) : NULL;
	CHECK(back && len == strlen(text) && !memcmp(back, text, len));
	free(back);
	/* What a hit gives is a copy: the entry rewritten in place (truncated,
	 * then written) after the lookup does not change what is read. */
	size_t size;
	char *good = slurp(path, &size);
	write_file(path, "", 0);
	back = hit ? gunzip(hit, &len) : NULL;
	CHECK(back && len == strlen(text) && !memcmp(back, text, len));
	free(back);
	write_file(path, good, size);
	release(hit);
	CHECK(lookup(&hit, cache, "http://h/a", &err) == 1);
	release(hit);

	/* Another URL, another entry. */
	CHECK(lookup(&hit, cache, "http://h/b", &err) == 0);

	/* Damage: cut short, trailing garbage, a flipped byte, empty. */
	write_file(path, good, size - 3);
	CHECK(lookup(&hit, cache, "http://h/a", &err) == 0 && !hit);
	write_file(path, good, size);
	CHECK(lookup(&hit, cache, "http://h/a", &err) == 1);
	release(hit);
	FILE *f = fopen(path, "ab");
	fputs("junk", f);
	fclose(f);
	CHECK(fg_cache_verify_gzip(path, &err) == FG_EINVALID);
	good[size / 2] ^= 0x40;
	write_file(path, good, size);
	CHECK(lookup(&hit, cache, "http://h/a", &err) == 0);
	write_file(path, "", 0);
	CHECK(lookup(&hit, cache, "http://h/a", &err) == 0);
	/* A damaged entry is replaced by the next commit. */
	char *again = NULL;
	CHECK(fill(&again, cache, "http://h/a", text, strlen(text), &err) == 0);
	CHECK(lookup(&hit, cache, "http://h/a", &err) == 1);
	release(hit);
	free(again);
	free(good);
	free(path);

	/* Gzip bytes are stored as they are; two members are fine. */
	unsigned char gz[512];
	size_t n1 = gzip_bytes(gz, sizeof(gz), "first member\n", 13);
	size_t n2 = gzip_bytes(gz + n1, sizeof(gz) - n1, "second member\n", 14);
	CHECK(fill(&path, cache, "http://h/gz", gz, n1 + n2, &err) == 0);
	char *stored = path ? slurp(path, &len) : NULL;
	CHECK(stored && len == n1 + n2 && !memcmp(stored, gz, len));
	free(stored);
	free(path);

	/* A broken gzip is not cached, but the bytes can still be taken. */
	fg_cache_entry *e;
	CHECK(fg_cache_entry_new(&e, cache, "http://h/broken", &err) == 0);
	CHECK(fg_cache_entry_write(e, gz, n1 - 5, &err) == 0);
	CHECK(fg_cache_entry_commit(&path, e, &err) == FG_EINVALID && !path);
	char *detached = NULL;
	CHECK(fg_cache_entry_detach(&detached, e, &err) == 0 && detached);
	fg_cache_entry_free(e);
	stored = detached ? slurp(detached, &len) : NULL;
	CHECK(stored && len == n1 - 5 && !memcmp(stored, gz, len));
	free(stored);
	if (detached)
		unlink(detached);
	free(detached);
	CHECK(lookup(&hit, cache, "http://h/broken", &err) == 0);

	/* Empty and one-byte downloads become valid gzip too. */
	CHECK(fill(&path, cache, "http://h/empty", "", 0, &err) == 0);
	CHECK(path && fg_cache_verify_gzip(path, &err) == 0);
	back = path ? gunzip(path, &len) : NULL;
	CHECK(back && len == 0);
	free(back);
	free(path);
	CHECK(fill(&path, cache, "http://h/one", "\x1f", 1, &err) == 0);
	back = path ? gunzip(path, &len) : NULL;
	CHECK(back && len == 1 && back[0] == 0x1f);
	free(back);
	free(path);

	/* Reset: a retried download starts from nothing, gzip or not. */
	CHECK(fg_cache_entry_new(&e, cache, "http://h/reset", &err) == 0);
	CHECK(fg_cache_entry_write(e, gz, n1, &err) == 0);
	CHECK(fg_cache_entry_reset(e, &err) == 0);
	CHECK(fg_cache_entry_write(e, text, strlen(text), &err) == 0);
	CHECK(commit(&path, e, "http://h/reset", &err) == 0);
	fg_cache_entry_free(e);
	back = path ? gunzip(path, &len) : NULL;
	CHECK(back && len == strlen(text) && !memcmp(back, text, len));
	free(back);
	free(path);

	/* An abandoned entry leaves nothing behind. */
	CHECK(fg_cache_entry_new(&e, cache, "http://h/abandoned", &err) == 0);
	CHECK(fg_cache_entry_write(e, text, strlen(text), &err) == 0);
	fg_cache_entry_free(e);
	bool stray;
	count_dir(dir, &stray);
	CHECK(!stray);
	fg_cache_free(cache);

	/* Not a directory: an error the caller turns into a warning. */
	char file[350];
	snprintf(file, sizeof(file), "%s/file", tmp);
	write_file(file, "x", 1);
	CHECK(fg_cache_open(&cache, file, &err) == FG_EFETCH && !cache);
	snprintf(file, sizeof(file), "%s/file/sub", tmp);
	CHECK(fg_cache_open(&cache, file, &err) == FG_EFETCH && !cache);
}

/* Processes committing the same key over and over: a reader always finds a
 * whole entry with one of the written contents. */
static void test_concurrent_commits(void)
{
	char dir[300];
	snprintf(dir, sizeof(dir), "%s/race", tmp);
	cache_dir = dir;
	static char bodies[2][20000];
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < sizeof(bodies[k]) - 1; i++)
			bodies[k][i] = (char)('a' + (i * (k + 3)) % 26);
	pid_t kids[3];
	for (int k = 0; k < 3; k++) {
		kids[k] = fork();
		if (kids[k] != 0)
			continue;
		fg_cache *cache;
		fg_error err;
		bool ok = fg_cache_open(&cache, dir, &err) == 0;
		for (int i = 0; ok && i < 30; i++) {
			char *path = NULL, *hit = NULL;
			if (k < 2) {
				fg_cache_entry *e;
				ok = fg_cache_entry_new(&e, cache, "http://h/race", &err) == 0 &&
				     fg_cache_entry_write(e, bodies[k], sizeof(bodies[k]) - 1, &err) == 0 &&
				     commit(&path, e, "http://h/race", &err) == 0;
				fg_cache_entry_free(e);
			} else if (lookup(&hit, cache, "http://h/race", &err) == 1) {
				size_t len;
				char *back = gunzip(hit, &len);
				/* The lookup verified the entry; it may have been
				 * replaced since, by another whole one. */
				ok = back && len == sizeof(bodies[0]) - 1 &&
				     (!memcmp(back, bodies[0], len) || !memcmp(back, bodies[1], len));
				free(back);
			}
			free(path);
			release(hit);
		}
		if (cache)
			fg_cache_free(cache);
		_exit(ok ? 0 : 1);
	}
	for (int k = 0; k < 3; k++) {
		int status = -1;
		waitpid(kids[k], &status, 0);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	bool stray;
	CHECK(count_dir(dir, &stray) == 1 && !stray);
}

int main(void)
{
	parent = getpid();
	const char *base = getenv("TMPDIR");
	snprintf(tmp, sizeof(tmp), "%s/fgbisect-test-cache-XXXXXX", base && base[0] == '/' ? base : "/tmp");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	atexit(cleanup);

	test_sha256();
	test_default_dir();
	test_entries();
	test_concurrent_commits();

	if (check_failures)
		fprintf(stderr, "%d check(s) failed\n", check_failures);
	return check_failures ? 1 : 0;
}
