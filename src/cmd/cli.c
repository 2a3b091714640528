#include "cli.h"

#include <errno.h>
#include <math.h>
#include <unistd.h>

#include "cleanup.h"
#include "exitcode.h"
#include "fetch.h"
#include "json_writer.h"
#include "source.h"
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void cli_put_text(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			fprintf(out, "\\x%02x", *p);
		} else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			fprintf(out, "\\x%02x", p[1]); /* a C1 control, U+0080-U+009F */
			p++;
		} else {
			putc(*p, out);
		}
	}
}

int cli_report_error(const fg_error *err, bool json)
{
	/* A reader that went away (| head) wanted no more: nothing to say. */
	if (err->code == FG_EOUTPUT && strstr(err->message, strerror(EPIPE)))
		return fg_error_exit_status(err);
	fputs("fgbisect: ", stderr);
	if (err->source[0]) {
		cli_put_text(stderr, err->source);
		fputs(": ", stderr);
	}
	cli_put_text(stderr, err->message);
	fputc('\n', stderr);
	if (json) {
		fputs("{\"error\":{\"code\":", stdout);
		cli_json_string(stdout, fg_error_code_name(err->code));
		fputs(",\"message\":", stdout);
		cli_json_string(stdout, err->message);
		fputs(",\"source\":", stdout);
		cli_json_string(stdout, err->source);
		fputs("}}\n", stdout);
	}
	return fg_error_exit_status(err);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "fgbisect %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'fgbisect %s --help'.\n", cmd);
	return FG_EXIT_USAGE;
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;
	char *text = NULL;
	va_start(ap, fmt);
	int n = vasprintf(&text, fmt, ap);
	va_end(ap);
	fputs("fgbisect: warning: ", stderr);
	cli_put_text(stderr, n >= 0 ? text : "(out of memory)");
	fputc('\n', stderr);
	if (n >= 0)
		free(text);
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

bool cli_parse_percent(const char *s, double *out)
{
	if (!s || !*s)
		return false;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (errno || end == s)
		return false;
	if (*end == '%')
		end++;
	if (*end || !(v >= 0.0 && v <= 100.0))
		return false;
	*out = v;
	return true;
}

static bool parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!s || *s < '0' || *s > '9')
		return false;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned shift = 0;
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	default: break;
	}
	if (errno || *end || v == 0 || v > (UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

bool cli_profile_option(struct cli_profile_options *o, int opt, const char *arg, const char *cmd, int *status)
{
	switch (opt) {
	case CLI_OPT_JSON: o->json = true; return true;
	case CLI_OPT_RAW: o->raw = true; return true;
	case CLI_OPT_REVERSED: o->reversed = true; return true;
	case CLI_OPT_HEADER:
		if (o->nheaders == sizeof(o->headers) / sizeof(o->headers[0]))
			*status = cli_usage_error(cmd, "too many --header options");
		else
			o->headers[o->nheaders++] = arg;
		return true;
	case CLI_OPT_HEADER_HOST:
		if (o->nheader_hosts == sizeof(o->header_hosts) / sizeof(o->header_hosts[0]))
			*status = cli_usage_error(cmd, "too many --header-host options");
		else if (!arg[0] || strpbrk(arg, "/@ \t\r\n"))
			*status = cli_usage_error(cmd, "--header-host wants a host name (or host:port), not '%s'", arg);
		else
			o->header_hosts[o->nheader_hosts++] = arg;
		return true;
	case CLI_OPT_NETRC: o->netrc = true; return true;
	case CLI_OPT_NO_CACHE: o->no_cache = true; return true;
	case CLI_OPT_REFRESH: o->refresh = true; return true;
	case CLI_OPT_TIMEOUT: {
		uint64_t t;
		if (!cli_parse_u64(arg, &t) || t == 0 || t > 86400)
			*status = cli_usage_error(cmd, "--timeout wants seconds (1-86400), not '%s'", arg);
		else
			o->timeout_s = (long)t;
		return true;
	}
	case CLI_OPT_MAX_SIZE:
		if (!parse_size(arg, &o->max_size))
			*status = cli_usage_error(cmd, "--max-size wants a size in bytes (K, M, G allowed), not '%s'", arg);
		return true;
	case CLI_OPT_MAX_LINE:
		/* The reader's buffer starts at 256 KiB: a smaller cap could not
		 * be told from it. */
		if (!parse_size(arg, &o->max_line) || o->max_line < (256u << 10))
			*status = cli_usage_error(cmd, "--max-line wants a size in bytes of at least 256K, not '%s'",
						  arg);
		return true;
	default:
		return false;
	}
}

void cli_fetch_options(fg_fetch_options *fo, const struct cli_profile_options *o)
{
	fg_fetch_options_init(fo);
	fo->headers = o->headers;
	fo->nheaders = o->nheaders;
	fo->header_hosts = o->header_hosts;
	fo->nheader_hosts = o->nheader_hosts;
	fo->netrc = o->netrc;
	fo->no_cache = o->no_cache;
	fo->refresh = o->refresh;
	if (o->timeout_s)
		fo->total_timeout_s = o->timeout_s;
	if (o->max_size)
		fo->max_size = o->max_size;
	if (isatty(STDERR_FILENO)) {
		fo->progress = cli_progress;
		fo->progress_ctx = NULL;
	}
}

struct shown {
	struct shown *next;
	char text[];
};
static struct shown *shown_list;

static void free_shown(void)
{
	while (shown_list) {
		struct shown *next = shown_list->next;
		free(shown_list);
		shown_list = next;
	}
}

bool cli_has_credentials(const char *source)
{
	char *redacted = fg_source_redact(source);
	bool has = !redacted || strcmp(redacted, source) != 0;
	free(redacted);
	return has;
}

const char *cli_shown(const char *source)
{
	char *redacted = fg_source_redact(source);
	if (redacted && !strcmp(redacted, source)) {
		free(redacted);
		return source; /* nothing to hide: argv lives long enough */
	}
	size_t len = redacted ? strlen(redacted) : 0;
	struct shown *s = redacted ? malloc(sizeof(*s) + len + 1) : NULL;
	if (!s) {
		free(redacted);
		return "(source)";
	}
	memcpy(s->text, redacted, len + 1);
	free(redacted);
	/* share -j reads (and warns) on several threads. */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&lock);
	if (!shown_list)
		atexit(free_shown);
	s->next = shown_list;
	shown_list = s;
	pthread_mutex_unlock(&lock);
	return s->text;
}

void cli_progress(void *ctx, const char *url, uint64_t done, uint64_t total)
{
	(void)ctx;
	if (total)
		fprintf(stderr, "\r\033[Kfetching %s: %llu / %llu KiB", url, (unsigned long long)(done >> 10),
			(unsigned long long)(total >> 10));
	else
		fprintf(stderr, "\r\033[Kfetching %s: %llu KiB", url, (unsigned long long)(done >> 10));
	if (total && done == total)
		fputs("\r\033[K", stderr);
}

int cli_read_profile(fg_profile_info *info, const char *source, fg_names *names,
		     const struct cli_profile_options *o, const fg_visitor *visitor, fg_error *err)
{
	fg_read_options ro;
	fg_read_options_init(&ro);
	ro.reversed = o->reversed;
	ro.max_size = o->max_size;
	ro.max_line = o->max_line;
	fg_fetch_options fo;
	cli_fetch_options(&fo, o);
	char warning[256];
	int rc = fg_source_read_profile(info, source, names, &ro, &fo, visitor, warning, err);
	if (warning[0])
		cli_warn("%s", warning);
	if (rc)
		return rc;
	if (info->inverted && !o->reversed)
		cli_warn("%s: the graph is drawn inverted; if it was made with --reverse its stacks are "
			 "leaf-first: then pass --reversed", cli_shown(source));
	if (info->missing_final_newline)
		cli_warn("%s: the last line has no newline: the file may be cut short", cli_shown(source));
	return 0;
}

void cli_json_string(FILE *out, const char *s)
{
	fg_json_write_string(out, s);
}

void cli_json_string_or_null(FILE *out, const char *s)
{
	if (s)
		cli_json_string(out, s);
	else
		fputs("null", out);
}

void cli_json_number(FILE *out, double v, int decimals)
{
	/* JSON has no NaN or infinity: a number that is not one is unknown. */
	if (!isfinite(v))
		fputs("null", out);
	else
		fprintf(out, "%.*f", decimals, v);
}

static volatile sig_atomic_t pending_signal;
static volatile pid_t forward_pgid;

static void on_terminate(int sig)
{
	if (forward_pgid > 0) {
		pending_signal = sig;
		kill(-forward_pgid, SIGTERM);
		return;
	}
	fg_cleanup_run();
	_exit(128 + sig);
}

void cli_signals_install(void)
{
	struct sigaction sa = { .sa_handler = on_terminate };
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

void cli_signals_forward(pid_t pgid)
{
	forward_pgid = pgid;
}

int cli_signal_pending(void)
{
	return pending_signal;
}

void cli_wait_group(pid_t pgid)
{
	const struct timespec tick = { 0, 20 * 1000 * 1000 };
	for (int i = 0; i < 250 && kill(-pgid, 0) == 0; i++) {
		while (waitpid(-pgid, NULL, WNOHANG) > 0)
			;
		nanosleep(&tick, NULL);
	}
	kill(-pgid, SIGKILL);
}
