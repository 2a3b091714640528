#include "io/textfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/input.h"

int fg_textfile_read(char **buf, size_t *len, const char *path, size_t max, const char *what, int code,
                     fg_error *err)
{
	*buf = NULL;
	*len = 0;
	/* Opened with the input layer's checks: a FIFO, a device or a directory
	 * is refused at once instead of blocking. */
	int fd;
	fg_error oerr;
	if (fg_input_open_file(&fd, path, &oerr) < 0)
		return fg_error_set(err, code, path, "cannot read the %s: %s", what, oerr.message);
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		close(fd);
		return fg_error_oom(err, path);
	}
	char *b = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (;;) {
		if (n + 1 >= cap) {
			if (cap > max) {
				rc = fg_error_set(err, code, path, "too large for a %s", what);
				break;
			}
			cap = cap ? cap * 2 : 4096;
			char *nb = realloc(b, cap);
			if (!nb) {
				rc = fg_error_oom(err, NULL);
				break;
			}
			b = nb;
		}
		size_t got = fread(b + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0) {
			if (ferror(f))
				rc = fg_error_set(err, code, path, "cannot read the %s: %s", what, strerror(errno));
			break;
		}
	}
	fclose(f);
	if (!rc && n > max)
		rc = fg_error_set(err, code, path, "too large for a %s", what);
	if (rc) {
		free(b);
		return rc;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

int fg_textfile_lines(const char *text, size_t len, size_t *lineno, fg_textfile_line_fn fn, void *ctx)
{
	int rc = 0;
	const char *s = text, *end = text + len;
	*lineno = 0;
	while (!rc && s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;
		++*lineno;
		if (memchr(s, '\0', (size_t)(eol - s)))
			rc = fn(ctx, NULL, NULL);
		else
			rc = fn(ctx, s, eol > s && eol[-1] == '\r' ? eol - 1 : eol);
		s = nl ? nl + 1 : end;
	}
	return rc;
}

const char *fg_textfile_default_path(char *buf, size_t size, const char *env, const char *installed, const char *name)
{
	const char *v = getenv(env);
	if (v && v[0])
		return v;
	if (installed && access(installed, R_OK) == 0)
		return installed;
	char exe[2048];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	static const char *const beside[] = { "../share/fgbisect/", "" };
	for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
		snprintf(buf, size, "%s/%s%s", exe, beside[i], name);
		if (access(buf, R_OK) == 0)
			return buf;
	}
	return NULL;
}

int fg_textfile_verror(fg_error *err, int code, const char *source, size_t line, const char *fmt, va_list ap)
{
	char where[512];
	char msg[sizeof(((fg_error *)0)->message)];
	snprintf(where, sizeof(where), "%s:%zu", source, line);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	return fg_error_set(err, code, where, "%s", msg);
}
