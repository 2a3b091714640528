#include "error.h"

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

int fg_error_set(fg_error *err, int code, const char *source, const char *fmt, ...)
{
	if (!err)
		return code;
	err->code = code;
	snprintf(err->source, sizeof(err->source), "%s", source ? source : "");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
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
		return 0;
	case FG_EUSAGE:
	case FG_ECONFIG:
		return 2;
	case FG_EFETCH:
		return 4;
	case FG_EOUTPUT:
		return 1;
	default:
		return 3;
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
