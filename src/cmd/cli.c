#include "cmd/cli.h"

#include <errno.h>
#include <math.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/exitcode.h"
#include "net/fetch.h"
#include "output/json_writer.h"
#include "analysis/protocol.h"
#include "analysis/suggest.h"
#include "output/report.h"
#include "formats/source.h"
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
		fg_json j;
		fg_json_init(&j, stdout);
		cli_error_json(&j, err);
	}
	return fg_error_exit_status(err);
}

void cli_error_json(fg_json *j, const fg_error *err)
{
	fg_json_object(j);
	fg_json_key(j, "error");
	fg_json_object(j);
	fg_json_member_string(j, "code", fg_error_code_name(err->code));
	fg_json_member_string(j, "message", err->message);
	fg_json_member_string(j, "source", err->source);
	fg_json_end(j);
	fg_json_end(j);
}

static _Thread_local FILE *warn_sink;

void cli_warn_to(FILE *sink)
{
	warn_sink = sink;
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;
	char *text = NULL;
	va_start(ap, fmt);
	int n = vasprintf(&text, fmt, ap);
	va_end(ap);
	FILE *out = warn_sink ? warn_sink : stderr;
	fputs("fgbisect: warning: ", out);
	cli_put_text(out, n >= 0 ? text : "(out of memory)");
	fputc('\n', out);
	if (n >= 0)
		free(text);
}

const char *cli_check_header_host(const struct cli_option *opt, const char *arg, char *msg, size_t size)
{
	(void)opt;
	if (arg[0] && !strpbrk(arg, "/@ \t\r\n"))
		return NULL;
	snprintf(msg, size, "--header-host wants a host name (or host:port), not '%s'", arg);
	return msg;
}

/* "10", "2.5s", "500ms" (seconds from the start) or "20%" (of the length). */
static bool parse_time_bound(const char *s, fg_time_bound *b)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !(v >= 0) || v > 1e12)
		return false;
	if (!strcmp(end, "%")) {
		if (v > 100)
			return false;
		*b = (fg_time_bound){ .set = true, .percent = true, .value = v };
		return true;
	}
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (*end && strcmp(end, "s"))
		return false;
	*b = (fg_time_bound){ .set = true, .value = v };
	return true;
}

const char *cli_check_time_bound(const struct cli_option *opt, const char *arg, char *msg, size_t size)
{
	fg_time_bound b;
	if (parse_time_bound(arg, &b))
		return NULL;
	snprintf(msg, size, "--%s wants seconds from the start (10, 2.5s, 500ms) or a percentage of the "
		 "recording (20%%), not '%s'", opt->long_name, arg);
	return msg;
}

void cli_read_options(fg_read_options *ro, const struct cli_profile_options *o)
{
	fg_read_options_init(ro);
	ro->reversed = o->reversed;
	ro->max_size = o->max_size;
	ro->max_line = o->max_line;
	ro->max_depth = o->max_depth;
	ro->threads = o->threads;
	ro->merge_threads = o->merge_threads;
	ro->event = o->event;
	ro->sample_type = o->sample_type;
	ro->base_column = o->base_column;
	ro->labels = o->labels.items;
	ro->nlabels = o->labels.n;
	ro->split = o->split;
	ro->split_permille = o->split_permille;
	/* Checked when parsed (cli_check_time_bound). */
	if (o->from)
		parse_time_bound(o->from, &ro->from);
	if (o->to)
		parse_time_bound(o->to, &ro->to);
}

void cli_fetch_options(fg_fetch_options *fo, const struct cli_profile_options *o)
{
	fg_fetch_options_init(fo);
	fo->headers = o->headers.items;
	fo->nheaders = o->headers.n;
	fo->header_hosts = o->header_hosts.items;
	fo->nheader_hosts = o->header_hosts.n;
	fo->netrc = o->netrc;
	fo->no_cache = o->no_cache;
	fo->refresh = o->refresh;
	if (o->timeout_s)
		fo->total_timeout_s = (long)o->timeout_s;
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
	char *redacted = fg_url_redact(source);
	bool has = !redacted || strcmp(redacted, source) != 0;
	free(redacted);
	return has;
}

/* Keeps a copy of text[0..len) until exit (share -j shows sources from
 * several threads); NULL when out of memory. */
static const char *keep_until_exit(const char *text, size_t len)
{
	struct shown *s = malloc(sizeof(*s) + len + 1);
	if (!s)
		return NULL;
	memcpy(s->text, text, len);
	s->text[len] = '\0';
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&lock);
	if (!shown_list)
		atexit(free_shown);
	s->next = shown_list;
	shown_list = s;
	pthread_mutex_unlock(&lock);
	return s->text;
}

const char *cli_shown(const char *source)
{
	char *redacted = fg_url_redact(source);
	if (redacted && !strcmp(redacted, source)) {
		free(redacted);
		return source; /* nothing to hide: argv lives long enough */
	}
	const char *kept = redacted ? keep_until_exit(redacted, strlen(redacted)) : NULL;
	free(redacted);
	return kept ? kept : "(source)";
}

const char *cli_text(const char *s)
{
	if (!s)
		return "";
	const unsigned char *p = (const unsigned char *)s;
	while (*p && *p >= 0x20 && *p != 0x7f && !(*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
		p++;
	if (!*p)
		return s; /* nothing to escape: the common case costs one scan */
	char *escaped = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&escaped, &len);
	if (!f)
		return "(out of memory)";
	cli_put_text(f, s);
	const char *kept = fclose(f) == 0 && escaped ? keep_until_exit(escaped, len) : NULL;
	free(escaped);
	return kept ? kept : "(out of memory)";
}

void cli_print_profile_line(const char *source, const fg_profile_info *info)
{
	const char *event = info->event[0] ? info->event : fg_protocol_event(info);
	printf("%s  %s%s  %llu %s", cli_text(cli_shown(source)), fg_format_name(info->format), info->gzip ? "+gzip" : "",
	       (unsigned long long)info->total, fg_profile_unit(info));
	if (event)
		printf("  event %s", cli_text(event));
	if (info->title[0])
		printf("  \"%s\"", cli_text(info->title));
	putchar('\n');
}

void cli_json_profile_fields(fg_json *j, const fg_profile_info *info)
{
	fg_json_member_string(j, "unit", fg_profile_unit(info));
	fg_json_member_string(j, "event", info->event[0] ? info->event : fg_protocol_event(info));
	fg_json_member_string(j, "title", info->title[0] ? info->title : NULL);
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
	cli_read_options(&ro, o);
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
	if (info->narrow_frames_lost)
		cli_warn("%s: one sample is narrower than 0.1 px in this SVG: flamegraph.pl leaves frames that "
			 "narrow out (--minwidth), so their samples show as their callers' own", cli_shown(source));
	if (info->missing_final_newline)
		cli_warn("%s: the last line has no newline: the file may be cut short", cli_shown(source));
	if (info->odd_call)
		cli_warn("%s: %c() calls of %u arguments, a number async-profiler's converter does not write: "
			 "read as the page's JavaScript reads them, the arguments it does not know ignored",
			 cli_shown(source), info->odd_call, info->odd_call_args);
	return 0;
}

static int ignore_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	(void)ctx, (void)frames, (void)n, (void)err;
	return 0;
}

void cli_warn_unmatched(const char *pattern, const char *source, const struct cli_profile_options *o)
{
	cli_warn("pattern '%s' matches no frame in any profile: is it mistyped?", pattern);
	fg_names *names = NULL;
	fg_error err;
	fg_error_clear(&err);
	fg_read_options ro;
	cli_read_options(&ro, o);
	fg_fetch_options fo;
	cli_fetch_options(&fo, o);
	fg_profile_info info;
	char warning[256];
	uint32_t near[3];
	size_t n = 0;
	if (fg_names_new(&names, &err) == 0 &&
	    fg_source_read_profile(&info, source, names, &ro, &fo,
				   &(fg_visitor){ ignore_frames, NULL, NULL, NULL, NULL }, warning, &err) == 0)
		fg_suggest_names(near, &n, sizeof(near) / sizeof(near[0]), names, pattern);
	if (n) {
		char list[1024];
		size_t used = 0;
		for (size_t i = 0; i < n && used < sizeof(list); i++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s'%s'", i ? ", " : "",
						 fg_names_get(names, near[i]));
		cli_warn("frames of %s near '%s': %s", cli_shown(source), pattern, list);
	}
	fg_names_free(names);
}

static volatile sig_atomic_t pending_signal;
static volatile pid_t forward_pgid;
static volatile sig_atomic_t deferring;

static void on_terminate(int sig)
{
	if (forward_pgid > 0) {
		pending_signal = sig;
		kill(-forward_pgid, SIGTERM);
		return;
	}
	if (deferring) {
		pending_signal = sig;
		fg_cleanup_terminate_groups();
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

void cli_signals_defer(bool on)
{
	deferring = on;
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

int cli_write_report(const char *path, const fg_report *r, const fg_names *names, fg_error *err)
{
	return fg_report_write_file(path, r, names, err);
}
