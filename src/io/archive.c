#include "io/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#define CHUNK (64u << 10)

struct fg_archive {
	struct archive *ar;
	fg_input *in;
	char *buf;          /* what the read callback hands libarchive */
	fg_error in_err;    /* the input's own error, when a read of it failed */
	bool in_failed;
	const char *bomb;   /* "; a zip bomb?" for a zip's member */
};

/* libarchive's read callback: the next bytes of the input. */
static la_ssize_t pull_archive(struct archive *ar, void *ctx, const void **buffer)
{
	fg_archive *a = ctx;
	size_t got;
	if (fg_input_read(&got, a->in, a->buf, CHUNK, &a->in_err)) {
		a->in_failed = true;
		archive_set_error(ar, EIO, "%s", a->in_err.message);
		return -1;
	}
	*buffer = a->buf;
	return (la_ssize_t)got;
}

/* A libarchive failure as ours: the input's error when reading it failed,
 * else FG_EINVALID with libarchive's words. */
static int archive_failed(fg_archive *a, const char *name, const char *what, fg_error *err)
{
	if (a->in_failed) {
		*err = a->in_err;
		return err->code;
	}
	const char *why = archive_error_string(a->ar);
	return fg_error_set(err, FG_EINVALID, name, "%s: %s", what, why ? why : "unreadable");
}

int fg_archive_open(fg_archive **out, fg_input *in, fg_error *err)
{
	*out = NULL;
	fg_archive *a = calloc(1, sizeof(*a));
	if (a)
		a->buf = malloc(CHUNK);
	if (!a || !a->buf || !(a->ar = archive_read_new())) {
		fg_archive_free(a);
		return fg_error_oom(err, fg_input_name(in));
	}
	a->in = in;
	/* zip's streaming reader (local headers, data descriptors), not the
	 * seeking one: one pass over a pipe or a gunzipped cache entry.  No
	 * filter: the input gunzips. */
	archive_read_support_format_zip_streamable(a->ar);
	archive_read_support_format_tar(a->ar);
	if (archive_read_open(a->ar, a, NULL, pull_archive, NULL) != ARCHIVE_OK) {
		int rc = archive_failed(a, fg_input_name(in), "not an archive read here", err);
		fg_archive_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

/* An entry no profile hides in: hidden files and folders, macOS's copies. */
static bool passed_over(const char *name)
{
	if (!strncmp(name, "__MACOSX/", 9))
		return true;
	for (const char *p = name; *p; p++)
		if (*p == '.' && (p == name || p[-1] == '/'))
			return true;
	return false;
}

int fg_archive_next(const char **name, fg_archive *a, fg_error *err)
{
	for (;;) {
		struct archive_entry *e;
		int r = archive_read_next_header(a->ar, &e);
		if (r == ARCHIVE_EOF)
			return 0;
		if (r < ARCHIVE_WARN)
			return archive_failed(a, fg_input_name(a->in), "damaged archive", err);
		const char *path = archive_entry_pathname(e);
		if (!path || archive_entry_filetype(e) != AE_IFREG || passed_over(path) ||
		    (archive_entry_size_is_set(e) && archive_entry_size(e) == 0))
			continue;
		/* A tar's members are not compressed one by one: its bomb is
		 * the gzip around it, which the input names. */
		a->bomb = (archive_format(a->ar) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_ZIP ? "; a zip bomb?"
											     : NULL;
		*name = path;
		return 1;
	}
}

/* The member input's pull function: the entry's decompressed bytes. */
static int pull_member(size_t *got, void *ctx, void *dst, size_t n, fg_error *err)
{
	fg_archive *a = ctx;
	la_ssize_t r = archive_read_data(a->ar, dst, n);
	if (r < 0)
		return archive_failed(a, NULL, "damaged archive member", err);
	*got = (size_t)r;
	return 0;
}

int fg_archive_member(fg_input **out, fg_archive *a, const char *name, uint64_t max_size, fg_error *err)
{
	return fg_input_open_pull(out, pull_member, a, name, a->bomb, max_size, err);
}

void fg_archive_free(fg_archive *a)
{
	if (!a)
		return;
	if (a->ar)
		archive_read_free(a->ar);
	free(a->buf);
	free(a);
}
