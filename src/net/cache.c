#include "net/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/cleanup.h"
#include "base/sha256.h"

/* Level 1: entries are compressed inside the transfer loop that also drives
 * the other parallel downloads, so speed matters more than the last few
 * percent; flame graph HTML still shrinks about tenfold. */
#define ENTRY_LEVEL 1
#define IO_BUFFER (64 * 1024)

struct fg_cache {
	char *dir;
};

enum entry_mode {
	ENTRY_SNIFF,   /* fewer than two bytes seen: gzip or not is unknown */
	ENTRY_AS_IS,   /* the download is gzip: stored as it is */
	ENTRY_DEFLATE, /* anything else: compressed into a gzip stream */
};

struct fg_cache_entry {
	char *tmp_path;
	char *final_path;
	int fd;
	enum entry_mode mode;
	unsigned char head[2];
	size_t nhead;
	bool zinit;
	bool failed_commit; /* the file is whole but could not be put in place */
	bool whole;         /* every byte is written, flushed and closed */
	bool handed_over;   /* committed or detached: not ours to delete */
	fg_cleanup_item cleanup; /* the temporary file, removed if we are interrupted */
	char *entry_tmp;         /* at commit, the copy renamed into place */
	fg_cleanup_item entry_cleanup;
	z_stream zs;
	unsigned char out[IO_BUFFER];
};

static char *join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 2);
	if (!s)
		return NULL;
	memcpy(s, a, la);
	s[la] = '/';
	memcpy(s + la + 1, b, lb + 1);
	return s;
}

int fg_cache_default_dir(char **out, fg_error *err)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	*out = NULL;
	if (xdg && xdg[0] == '/')
		*out = join(xdg, "fgbisect");
	else if (home && home[0] == '/')
		*out = join(home, ".cache/fgbisect");
	else
		return fg_error_set(err, FG_EFETCH, NULL,
		                    "no cache directory: neither XDG_CACHE_HOME nor HOME is an absolute path");
	if (!*out)
		return fg_error_oom(err, NULL);
	return 0;
}

/* mkdir -p with mode 0700 for every directory it creates. */
static int make_dirs(const char *dir, fg_error *err)
{
	char *path = strdup(dir);
	if (!path)
		return fg_error_oom(err, NULL);
	int rc = 0;
	for (char *p = path + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char saved = *p;
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			rc = fg_error_set(err, FG_EFETCH, dir, "cannot create cache directory %s: %s",
			                  path, strerror(errno));
			break;
		}
		*p = saved;
		if (saved == '\0')
			break;
	}
	free(path);
	if (rc < 0)
		return rc;

	return 0;
}

/* The cache is trusted only when no one else can have put an entry there:
 * a real directory (not a symlink, which someone may have pointed at their
 * own files), owned by us, writable by nobody else. */
static int check_trusted(const char *dir, fg_error *err)
{
	struct stat st;
	if (lstat(dir, &st) < 0)
		return fg_error_set(err, FG_EFETCH, dir, "cannot use cache directory %s: %s", dir,
		                    strerror(errno));
	if (S_ISLNK(st.st_mode))
		return fg_error_set(err, FG_EFETCH, dir, "cache directory %s is a symbolic link", dir);
	if (!S_ISDIR(st.st_mode))
		return fg_error_set(err, FG_EFETCH, dir, "cache directory %s is not a directory", dir);
	if (st.st_uid != geteuid())
		return fg_error_set(err, FG_EFETCH, dir, "cache directory %s belongs to another user (uid %u)", dir,
		                    (unsigned)st.st_uid);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return fg_error_set(err, FG_EFETCH, dir, "cache directory %s is writable by others (mode %03o)", dir,
		                    (unsigned)(st.st_mode & 0777));
	return 0;
}

int fg_cache_open(fg_cache **out, const char *dir, fg_error *err)
{
	*out = NULL;
	char *path = NULL;
	int rc;
	if (dir && dir[0]) {
		path = strdup(dir);
		if (!path)
			return fg_error_oom(err, NULL);
	} else if ((rc = fg_cache_default_dir(&path, err)) < 0) {
		return rc;
	}
	if ((rc = make_dirs(path, err)) < 0 || (rc = check_trusted(path, err)) < 0) {
		free(path);
		return rc;
	}
	fg_cache *cache = malloc(sizeof(*cache));
	if (!cache) {
		free(path);
		return fg_error_oom(err, NULL);
	}
	cache->dir = path;
	*out = cache;
	return 0;
}

void fg_cache_free(fg_cache *cache)
{
	if (!cache)
		return;
	free(cache->dir);
	free(cache);
}

static char *entry_path(const fg_cache *cache, const char *key)
{
	char hex[FG_SHA256_HEX_SIZE], name[FG_SHA256_HEX_SIZE + 3];
	fg_sha256_hex(hex, key, strlen(key));
	snprintf(name, sizeof(name), "%s.gz", hex);
	return join(cache->dir, name);
}

int fg_cache_verify_gzip(const char *path, fg_error *err)
{
	/* Regular files only, never through a symlink, never blocking in open
	 * (a FIFO planted under an entry's name would hang the reader). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return fg_error_set(err, FG_EFETCH, path, "cannot open: %s", strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return fg_error_set(err, FG_EFETCH, path, "not a regular file");
	}

	unsigned char *in = malloc(2 * IO_BUFFER);
	if (!in) {
		close(fd);
		return fg_error_oom(err, path);
	}
	unsigned char *scratch = in + IO_BUFFER;
	z_stream zs = { 0 };
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
		free(in);
		close(fd);
		return fg_error_oom(err, path);
	}

	int rc = 0;
	bool in_member = false; /* inside a member that has not ended yet */
	bool any = false;
	for (;;) {
		if (zs.avail_in == 0) {
			ssize_t n = read(fd, in, IO_BUFFER);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				rc = fg_error_set(err, FG_EFETCH, path, "cannot read: %s", strerror(errno));
				break;
			}
			if (n == 0) {
				if (in_member || !any)
					rc = fg_error_set(err, FG_EINVALID, path, "truncated gzip data");
				break;
			}
			zs.next_in = in;
			zs.avail_in = (uInt)n;
		}
		if (!in_member) {
			/* A new member must start with the gzip magic: anything else
			 * after a member is trailing garbage, not data. */
			if (zs.next_in[0] != 0x1f) {
				rc = fg_error_set(err, FG_EINVALID, path, "not gzip data");
				break;
			}
			inflateReset(&zs);
			in_member = true;
			any = true;
		}
		zs.next_out = scratch;
		zs.avail_out = IO_BUFFER;
		int z = inflate(&zs, Z_NO_FLUSH);
		if (z == Z_STREAM_END) {
			in_member = false;
		} else if (z != Z_OK && !(z == Z_BUF_ERROR && zs.avail_in == 0)) {
			rc = fg_error_set(err, FG_EINVALID, path, "damaged gzip data (%s)",
			                  zs.msg ? zs.msg : "inflate failed");
			break;
		}
	}
	inflateEnd(&zs);
	free(in);
	close(fd);
	return rc;
}

/* "tmp-HASH-XXXXXX" in the cache directory: a file being written (an entry,
 * or a hit's copy), never taken for an entry. */
static char *temp_path(const fg_cache *cache, const char *key)
{
	char hex[FG_SHA256_HEX_SIZE], name[FG_SHA256_HEX_SIZE + 16];
	fg_sha256_hex(hex, key, strlen(key));
	snprintf(name, sizeof(name), "tmp-%s-XXXXXX", hex);
	return join(cache->dir, name);
}

/* The bytes of src into dst, from the start: a reflink where the file
 * system shares blocks (btrfs, XFS), else a copy in the kernel, else
 * through a buffer.  False on a failure. */
static bool copy_file(int dst, int src)
{
#ifdef FICLONE
	if (ioctl(dst, FICLONE, src) == 0)
		return true;
#endif
	for (;;) {
		ssize_t n = copy_file_range(src, NULL, dst, NULL, (size_t)1 << 30, 0);
		if (n == 0)
			return true;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
	}
	if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP)
		return false;
	if (lseek(src, 0, SEEK_SET) < 0 || lseek(dst, 0, SEEK_SET) < 0 || ftruncate(dst, 0) < 0)
		return false;
	char buf[IO_BUFFER];
	for (;;) {
		ssize_t n = read(src, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0;
		for (ssize_t w = 0; w < n;) {
			ssize_t k = write(dst, buf + w, (size_t)(n - w));
			if (k < 0 && errno != EINTR)
				return false;
			w += k > 0 ? k : 0;
		}
	}
}

int fg_cache_lookup(char **out, fg_cleanup_item *cleanup, fg_cache *cache, const char *key, fg_error *err)
{
	*out = NULL;
	char *path = entry_path(cache, key);
	char *copy = temp_path(cache, key);
	if (!path || !copy) {
		free(path);
		free(copy);
		return fg_error_oom(err, NULL);
	}
	/* Regular files only, never through a symlink, never blocking in
	 * open (a FIFO planted under an entry's name would hang the reader). */
	int src = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	free(path);
	struct stat st;
	int dst = -1;
	bool copied = false;
	if (src >= 0 && fstat(src, &st) == 0 && S_ISREG(st.st_mode) && (dst = fg_cleanup_mkstemp(cleanup, copy)) >= 0) {
		copied = copy_file(dst, src);
		copied = close(dst) == 0 && copied;
	}
	if (src >= 0)
		close(src);
	/* The copy is what is verified and read: an entry rewritten in place
	 * meanwhile (truncated, then written: not by fgbisect, whose entries
	 * are renamed into place) changes neither, and one caught half
	 * rewritten does not verify, a miss. */
	fg_error ignored;
	int rc = copied ? fg_cache_verify_gzip(copy, &ignored) : FG_EFETCH;
	if (rc == 0) {
		*out = copy;
		return 1;
	}
	if (dst >= 0) {
		unlink(copy);
		fg_cleanup_remove(cleanup);
	}
	free(copy);
	return rc == FG_ENOMEM ? fg_error_oom(err, NULL) : 0;
}

int fg_cache_entry_new(fg_cache_entry **out, fg_cache *cache, const char *key, fg_error *err)
{
	*out = NULL;
	fg_cache_entry *e = calloc(1, sizeof(*e));
	if (!e)
		return fg_error_oom(err, NULL);
	e->fd = -1;
	e->final_path = entry_path(cache, key);
	/* The temporary name shares the entry's hash so a leftover from a crash
	 * is recognisable. */
	e->tmp_path = temp_path(cache, key);
	e->entry_tmp = temp_path(cache, key);
	if (!e->final_path || !e->tmp_path || !e->entry_tmp) {
		fg_cache_entry_free(e);
		return fg_error_oom(err, NULL);
	}
	/* mkstemp creates the file 0600. */
	e->fd = fg_cleanup_mkstemp(&e->cleanup, e->tmp_path);
	if (e->fd < 0) {
		int rc = fg_error_set(err, FG_EFETCH, cache->dir, "cannot write to cache directory %s: %s", cache->dir,
		                      strerror(errno));
		e->handed_over = true; /* nothing was created */
		fg_cache_entry_free(e);
		return rc;
	}
	*out = e;
	return 0;
}

static int write_all(fg_cache_entry *e, const unsigned char *p, size_t len, fg_error *err)
{
	while (len > 0) {
		ssize_t n = write(e->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fg_error_set(err, FG_EFETCH, e->tmp_path, "cannot write: %s", strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int deflate_some(fg_cache_entry *e, const unsigned char *p, size_t len, int flush, fg_error *err)
{
	e->zs.next_in = (unsigned char *)p;
	e->zs.avail_in = (uInt)len;
	int z;
	do {
		e->zs.next_out = e->out;
		e->zs.avail_out = sizeof(e->out);
		z = deflate(&e->zs, flush);
		if (z == Z_STREAM_ERROR)
			return fg_error_set(err, FG_EINTERNAL, e->tmp_path, "deflate failed");
		int rc = write_all(e, e->out, sizeof(e->out) - e->zs.avail_out, err);
		if (rc < 0)
			return rc;
	} while (e->zs.avail_out == 0 || (flush == Z_FINISH && z != Z_STREAM_END));
	return 0;
}

static int emit(fg_cache_entry *e, const unsigned char *p, size_t len, int flush, fg_error *err)
{
	if (e->mode == ENTRY_AS_IS)
		return write_all(e, p, len, err);
	/* zlib counts avail_in in uInt: feed huge buffers in slices. */
	do {
		size_t n = len > (1u << 30) ? (1u << 30) : len;
		int rc = deflate_some(e, p, n, n == len ? flush : Z_NO_FLUSH, err);
		if (rc < 0)
			return rc;
		p += n;
		len -= n;
	} while (len > 0);
	return 0;
}

/* Leaves the sniffing state once the first two bytes (or the end) are known. */
static int decide(fg_cache_entry *e, fg_error *err)
{
	if (e->nhead == 2 && e->head[0] == 0x1f && e->head[1] == 0x8b) {
		e->mode = ENTRY_AS_IS;
	} else {
		e->mode = ENTRY_DEFLATE;
		int z = e->zinit ? deflateReset(&e->zs)
		                 : deflateInit2(&e->zs, ENTRY_LEVEL, Z_DEFLATED, 16 + MAX_WBITS, 8,
		                                Z_DEFAULT_STRATEGY);
		if (z != Z_OK)
			return fg_error_oom(err, e->tmp_path);
		e->zinit = true;
	}
	return emit(e, e->head, e->nhead, Z_NO_FLUSH, err);
}

int fg_cache_entry_write(fg_cache_entry *e, const void *data, size_t len, fg_error *err)
{
	const unsigned char *p = data;
	if (e->mode == ENTRY_SNIFF) {
		while (e->nhead < 2 && len > 0) {
			e->head[e->nhead++] = *p++;
			len--;
		}
		if (e->nhead < 2)
			return 0;
		int rc = decide(e, err);
		if (rc < 0)
			return rc;
	}
	return len > 0 ? emit(e, p, len, Z_NO_FLUSH, err) : 0;
}

int fg_cache_entry_reset(fg_cache_entry *e, fg_error *err)
{
	if (ftruncate(e->fd, 0) < 0 || lseek(e->fd, 0, SEEK_SET) < 0)
		return fg_error_set(err, FG_EFETCH, e->tmp_path, "cannot truncate: %s", strerror(errno));
	e->mode = ENTRY_SNIFF;
	e->nhead = 0;
	return 0;
}

/* A copy of the whole, verified download renamed into place as the entry:
 * the download itself stays the caller's, which nothing else writes (an
 * entry may be rewritten in place by another program while it is read). */
static int publish(fg_cache_entry *e, fg_error *err)
{
	int src = open(e->tmp_path, O_RDONLY | O_CLOEXEC);
	int dst = src < 0 ? -1 : fg_cleanup_mkstemp(&e->entry_cleanup, e->entry_tmp);
	/* fsync before rename: otherwise a crash can leave a whole-looking name
	 * over unwritten blocks.  The directory is not synced: losing a fresh
	 * entry in a crash only costs a download. */
	bool ok = dst >= 0 && copy_file(dst, src) && fsync(dst) == 0;
	ok = (dst < 0 || close(dst) == 0) && ok;
	int saved = errno;
	if (src >= 0)
		close(src);
	if (ok && rename(e->entry_tmp, e->final_path) == 0) {
		fg_cleanup_remove(&e->entry_cleanup);
		return 0;
	}
	saved = ok ? errno : saved;
	if (dst >= 0) {
		unlink(e->entry_tmp);
		fg_cleanup_remove(&e->entry_cleanup);
	}
	return fg_error_set(err, FG_EFETCH, e->final_path, "cannot store cache entry: %s", strerror(saved));
}

int fg_cache_entry_commit(char **out, fg_cache_entry *e, fg_error *err)
{
	*out = NULL;
	int rc = 0;
	if (e->mode == ENTRY_SNIFF)
		rc = decide(e, err);
	if (rc == 0 && e->mode == ENTRY_DEFLATE)
		rc = emit(e, NULL, 0, Z_FINISH, err);
	if (close(e->fd) < 0 && rc == 0)
		rc = fg_error_set(err, FG_EFETCH, e->tmp_path, "cannot write: %s", strerror(errno));
	e->fd = -1;
	if (rc < 0)
		return rc;
	e->whole = true;
	/* Our own deflate output is known good; a served gzip is checked once
	 * here so that a damaged download never becomes an entry. */
	if (e->mode == ENTRY_AS_IS)
		rc = fg_cache_verify_gzip(e->tmp_path, err);
	if (rc == 0)
		rc = publish(e, err);
	if (rc < 0) {
		e->failed_commit = true;
		return rc;
	}
	*out = strdup(e->tmp_path);
	e->handed_over = true;
	fg_cleanup_remove(&e->cleanup); /* the caller registers its copy */
	if (!*out)
		return fg_error_oom(err, NULL);
	return 0;
}

int fg_cache_entry_detach(char **out, fg_cache_entry *e, fg_error *err)
{
	*out = NULL;
	if (!e->failed_commit || !e->whole || e->handed_over)
		return fg_error_set(err, FG_EINTERNAL, NULL, "no whole file of a failed cache commit to detach");
	*out = strdup(e->tmp_path);
	if (!*out)
		return fg_error_oom(err, NULL);
	e->handed_over = true;
	fg_cleanup_remove(&e->cleanup); /* the caller registers its copy */
	return 0;
}

void fg_cache_entry_free(fg_cache_entry *e)
{
	if (!e)
		return;
	if (e->fd >= 0)
		close(e->fd);
	if (!e->handed_over && e->tmp_path)
		unlink(e->tmp_path);
	fg_cleanup_remove(&e->cleanup);
	if (e->zinit)
		deflateEnd(&e->zs);
	free(e->tmp_path);
	free(e->final_path);
	free(e->entry_tmp);
	free(e);
}
