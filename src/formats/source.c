#include "formats/source.h"
#include "formats/reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/textfile.h"
#include "io/input.h"

/* The decompressed content of the input in (gzip or plain), at most max
 * bytes. */
static int read_input(char **out, size_t *len, fg_input *in, const char *source, const char *what, size_t max,
		      fg_error *err)
{
	const char *data;
	size_t n = 0, want = 64 * 1024;
	int rc;
	for (;;) {
		if (want > max + 1)
			want = max + 1;
		if ((rc = fg_input_peek(&data, &n, in, want, err)))
			return rc;
		if (n > max)
			return fg_error_set(err, FG_EFETCH, source, "too large for a %s", what);
		if (n < want)
			break;
		want *= 2;
	}
	char *copy = malloc(n + 1);
	if (!copy)
		return fg_error_oom(err, source);
	memcpy(copy, data, n);
	copy[n] = '\0';
	*out = copy;
	*len = n;
	return 0;
}

/* A local path's content, gunzipped when it is gzip. */
static int read_local(char **out, size_t *len, const char *path, const char *shown, const char *what, size_t max,
		      fg_error *err)
{
	fg_input *in = NULL;
	if (!strcmp(path, "-")) {
		int rc;
		if (!(rc = fg_input_open(&in, path, 0, err)))
			rc = read_input(out, len, in, shown, what, max, err);
		fg_input_free(in);
		return rc;
	}
	char *raw;
	size_t n;
	int rc = fg_textfile_read(&raw, &n, path, max, what, FG_EFETCH, err);
	if (rc) {
		/* Name the source as given, not the cache file. */
		fg_error_set_source(err, shown);
		return rc;
	}
	if (n < 2 || (unsigned char)raw[0] != 0x1f || (unsigned char)raw[1] != 0x8b) {
		*out = raw;
		*len = n;
		return 0;
	}
	rc = fg_input_open_memory(&in, raw, n, shown, 0, err);
	if (!rc)
		rc = read_input(out, len, in, shown, what, max, err);
	fg_input_free(in);
	free(raw);
	return rc;
}

int fg_source_read_all(char **out, size_t *len, const char *source, const char *what, size_t max,
		       const fg_fetch_options *fetch, char warning[256], fg_error *err)
{
	*out = NULL;
	*len = 0;
	if (warning)
		warning[0] = '\0';
	if (!fg_url_is(source))
		return read_local(out, len, source, source, what, max, err);
	fg_fetch_result fetched;
	int rc = fg_fetch(&fetched, source, fetch, err);
	if (warning)
		snprintf(warning, 256, "%s", fetched.warning);
	char *shown = fg_url_redact(source);
	if (!rc && !shown)
		rc = fg_error_oom(err, NULL);
	if (!rc)
		rc = read_local(out, len, fetched.path, shown, what, max, err);
	free(shown);
	fg_fetch_result_clear(&fetched);
	return rc;
}

/* The name of the file or URL that source gives, without its member
 * (malloc'ed, credentials removed), and the member: a URL's fragment, or
 * for a path the part after its last '#' when the whole path names no file
 * but the part before it does. */
static char *split_member(const char **member, const char *source)
{
	*member = NULL;
	char *shown = fg_url_redact(source);
	if (!shown)
		return NULL;
	char *hash = fg_url_is(source) ? strchr(shown, '#') : strrchr(shown, '#');
	if (!hash || !hash[1])
		return shown;
	if (!fg_url_is(source)) {
		if (access(source, F_OK) == 0)
			return shown;
		*hash = '\0';
		if (access(shown, F_OK) != 0) {
			*hash = '#';
			return shown;
		}
	}
	*hash = '\0';
	/* A path is copied as it is; a URL's fragment is the first '#'. */
	*member = fg_url_is(source) ? strchr(source, '#') + 1 : source + (hash - shown) + 1;
	return shown;
}

int fg_source_read_fetched(fg_profile_info *info, const char *source, const char *path, fg_names *names,
			   const fg_read_options *read, const fg_visitor *visitor, fg_error *err)
{
	const char *member;
	char *shown = split_member(&member, source);
	if (!shown)
		return fg_error_oom(err, NULL);
	/* A local source's path is itself, member and all. */
	int rc = fg_reader_read_member(info, path && fg_url_is(source) ? path : shown, shown, member, names, read,
				       visitor, err);
	free(shown);
	return rc;
}

int fg_source_read_profile(fg_profile_info *info, const char *source, fg_names *names,
			   const fg_read_options *read, const fg_fetch_options *fetch, const fg_visitor *visitor,
			   char warning[256], fg_error *err)
{
	if (warning)
		warning[0] = '\0';
	if (!fg_url_is(source))
		return fg_source_read_fetched(info, source, NULL, names, read, visitor, err);
	fg_fetch_result fetched;
	int rc = fg_fetch(&fetched, source, fetch, err);
	if (warning)
		snprintf(warning, 256, "%s", fetched.warning);
	if (!rc)
		rc = fg_source_read_fetched(info, source, fetched.path, names, read, visitor, err);
	fg_fetch_result_clear(&fetched);
	return rc;
}
