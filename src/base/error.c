#include "base/error.h"

#include "base/exitcode.h"
#include "base/utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void fg_error_clear(fg_error *err)
{
	if (!err)
		return;
	err->code = FG_OK;
	err->source[0] = '\0';
	err->message[0] = '\0';
}

/* Cuts a truncated buffer back to a whole UTF-8 character. */
static void fit(char *buf, size_t size, int wanted)
{
	if (wanted >= 0 && (size_t)wanted >= size && size >= 2) {
		size_t n = size - 2; /* the last byte kept */
		while (n > 0 && ((unsigned char)buf[n] & 0xc0) == 0x80)
			n--;
		/* buf[n] is a lead byte (or ASCII) whose sequence may be cut. */
		unsigned char lead = (unsigned char)buf[n];
		size_t need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
		if (n + need > size - 1)
			buf[n] = '\0';
	}
}

void fg_error_set_source(fg_error *err, const char *source)
{
	if (err)
		fit(err->source, sizeof(err->source),
		    snprintf(err->source, sizeof(err->source), "%s", source ? source : ""));
}

int fg_error_set(fg_error *err, int code, const char *source, const char *fmt, ...)
{
	if (!err)
		return code;
	err->code = code;
	fg_error_set_source(err, source);
	va_list ap;
	va_start(ap, fmt);
	fit(err->message, sizeof(err->message), vsnprintf(err->message, sizeof(err->message), fmt, ap));
	va_end(ap);
	/* One line, always: a message built from file data must not break it. */
	for (char *p = err->message; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return code;
}

int fg_error_exit_status(const fg_error *err)
{
	switch (err->code) {
	case FG_OK:
		return FG_EXIT_OK;
	case FG_EUSAGE:
	case FG_ECONFIG:
		return FG_EXIT_USAGE;
	case FG_EFETCH:
		return FG_EXIT_FETCH;
	case FG_EGIT:
		return FG_EXIT_GIT;
	case FG_EOUTPUT:
		return FG_EXIT_FAILED;
	default:
		return FG_EXIT_INVALID;
	}
}

const char *fg_error_code_name(int code)
{
	switch (code) {
	case FG_OK: return "ok";
	case FG_EUSAGE: return "usage";
	case FG_EINVALID: return "invalid-profile";
	case FG_EFETCH: return "fetch";
	case FG_ENOMEM: return "out-of-memory";
	case FG_EGIT: return "git";
	case FG_ECONFIG: return "config";
	case FG_EOUTPUT: return "output";
	default: return "internal";
	}
}

int fg_error_oom(fg_error *err, const char *source)
{
	return fg_error_set(err, FG_ENOMEM, source, "out of memory");
}
