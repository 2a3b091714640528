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

static int verror(const fg_textfile_rules *f, size_t line, const char *fmt, va_list ap)
{
	char where[512];
	char msg[sizeof(((fg_error *)0)->message)];
	snprintf(where, sizeof(where), "%s:%zu", f->source, line);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	return fg_error_set(f->err, f->syntax->code, where, "%s", msg);
}

int fg_textfile_error(const fg_textfile_rules *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = verror(f, f->line, fmt, ap);
	va_end(ap);
	return rc;
}

int fg_textfile_error_at(const fg_textfile_rules *f, size_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = verror(f, line, fmt, ap);
	va_end(ap);
	return rc;
}

/* The index of the section word opens, or -1. */
static int section_of(const fg_textfile_syntax *syntax, const char *word, size_t len)
{
	for (int i = 0; syntax->sections[i]; i++)
		if (fg_textfile_is_word(word, len, syntax->sections[i]))
			return i;
	return -1;
}

/* One line without its end of line; *first counts the first section's. */
static int rules_line(fg_textfile_rules *f, const char *s, const char *end, size_t *first)
{
	while (s < end && fg_textfile_is_blank(*s))
		s++;
	while (end > s && fg_textfile_is_blank(end[-1]))
		end--;
	if (s == end || *s == '#')
		return 0;
	const char *word = s;
	while (s < end && !fg_textfile_is_blank(*s))
		s++;
	size_t len = (size_t)(s - word);
	int section = section_of(f->syntax, word, len);
	int rc = section >= 0 ? f->syntax->close(f) : 0;
	if (!rc)
		rc = f->syntax->line(f, word, len, s, end);
	*first += !rc && section == 0;
	return rc;
}

int fg_textfile_rules_parse(const char *text, size_t len, const char *source, const fg_textfile_syntax *syntax,
			    void *ctx, fg_error *err)
{
	fg_textfile_rules f = { source, 0, err, ctx, syntax };
	size_t first = 0;
	int rc = 0;
	for (const char *s = text, *end = text + len; !rc && s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;
		f.line++;
		if (memchr(s, '\0', (size_t)(eol - s)))
			rc = fg_textfile_error(&f, "a NUL byte: is this a %s?", syntax->what);
		else
			rc = rules_line(&f, s, eol > s && eol[-1] == '\r' ? eol - 1 : eol, &first);
		s = nl ? nl + 1 : end;
	}
	if (!rc)
		rc = syntax->close(&f);
	if (!rc && first == 0)
		rc = fg_error_set(err, syntax->code, source, "no %s defined: is this a %s?", syntax->sections[0],
				  syntax->what);
	return rc;
}
