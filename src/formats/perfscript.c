#include "formats/perfscript.h"

#include <stdlib.h>
#include <string.h>

#include "formats/collapsed.h"
#include "formats/stackbuf.h"

/* perf script prints, per sample:
 *   comm pid[/tid] [cpu] time: [period] event:
 *   \t addr symbol+0xoff (module)      leaf first
 *   ...
 *   (blank line)
 * stackcollapse-perf.pl's rules, followed here: the command name is the
 * root frame (spaces as '_'); only the first event type met is kept; a
 * symbol loses its +0x offset; "[unknown]" becomes "[module basename]";
 * "a->b" chains (older perf's inlined frames) are frames, the later ones
 * inlined; names are tidied (';' -> ':', anything from the first '(' on
 * dropped unless it is Go's "pkg.(*T).m" or an "(anonymous namespace)",
 * quotes dropped; Java's leading 'L' of "Lpkg/Class;" dropped in java
 * processes).  Kernel modules ([kernel.kallsyms], vmlinux) make kernel
 * frames and perf-PID.map JIT frames (the _[k] / _[j] of --all).
 * With -F +srcline, perf prints below a frame the source line of its
 * address ("  jv.c:512", "  /build/src/jv.c:512", "  ??:0" unknown): the
 * file is kept for the frame's name (fg_names_set_file: interned once, the
 * first one met), which hotfiles maps to a file of the repository. */

struct reader {
	fg_input *in;
	fg_names *names;
	fg_stack_fn fn;
	void *ctx;
	fg_error *err;
	fg_stackbuf stack;     /* leaf first while a sample is read */
	char *buf;
	size_t buf_cap;
	char event[64];        /* the event kept; "" until the first header with one */
	bool in_sample;        /* a header was taken: frame lines belong to it */
	bool java;             /* the sample's command starts with "java" */
	uint32_t comm;
	uint32_t line_frame;   /* the name of the frame line read last, UINT32_MAX: none since the header */
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_word(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* The header "comm pid[/tid] …": the command is the shortest prefix of two
 * characters or more (the first not blank) followed by blanks, digits,
 * optionally '/' and digits, and a blank.  Returns its length, 0 if none. */
static size_t header_comm(const char *s, size_t len)
{
	if (len < 2 || is_space(s[0]))
		return 0;
	for (size_t i = 2; i < len; i++) {
		if (!is_space(s[i]))
			continue;
		size_t j = i;
		while (j < len && is_space(s[j]))
			j++;
		size_t d = j;
		while (j < len && is_digit(s[j]))
			j++;
		if (j == d)
			continue;
		while (j < len && s[j] == '/')
			j++;
		while (j < len && is_digit(s[j]))
			j++;
		if (j < len && is_space(s[j]))
			return i;
	}
	return 0;
}

/* The event of a header ending "… event:" (trailing blanks allowed), or
 * NULL.  Before it, a time ("… 1234.567890: event:"), or, as perf 3.x
 * wrote without -F time, only the pid and tid ("java  3244 cpu-clock:"):
 * comm_len is the command's length (header_comm). */
static const char *header_event(const char *s, size_t len, size_t comm_len, size_t *elen)
{
	while (len > 0 && is_space(s[len - 1]))
		len--;
	if (len < 2 || s[len - 1] != ':')
		return NULL;
	size_t e = len - 1, b = e;
	while (b > 0 && !is_space(s[b - 1]))
		b--;
	if (b == e || b <= comm_len)
		return NULL;
	if (!memchr(s, ':', b)) {
		for (size_t i = comm_len; i < b; i++)
			if (!is_space(s[i]) && !is_digit(s[i]) && s[i] != '/')
				return NULL;
	}
	*elen = e - b;
	return s + b;
}

/* A frame line: "addr rawfunc (module)", the module in the " (…)" group
 * that the last ')' closes, parentheses balanced: perf writes a mapping of a
 * deleted file as "(/tmp/libfoo.so (deleted))" (stackcollapse-perf.pl's
 * greedy pattern then takes "deleted)" for the module and glues the rest
 * onto the symbol).  Without a balanced group, the last " (" opens it.
 * False for other lines. */
static bool frame_line(const char *s, size_t len, const char **func, size_t *flen, const char **mod, size_t *mlen)
{
	size_t i = 0;
	while (i < len && is_space(s[i]))
		i++;
	size_t pc = i;
	while (i < len && is_word(s[i]))
		i++;
	if (i == pc)
		return false;
	while (i < len && is_space(s[i]))
		i++;
	const char *rest = s + i, *end = s + len;
	const char *close = memrchr(rest, ')', (size_t)(end - rest));
	if (!close)
		return false;
	/* "addr  (module)": a symbol perf could not name (perf 3.x wrote an
	 * empty one where later versions write [unknown]). */
	if (*rest == '(') {
		int open = 0;
		const char *k = rest;
		for (; k < close; k++)
			if ((open += *k == '(' ? 1 : *k == ')' ? -1 : 0) == 0)
				break;
		if (k == close && open == 1) {
			*func = "[unknown]";
			*flen = 9;
			*mod = rest + 1;
			*mlen = (size_t)(close - rest - 1);
			return true;
		}
	}
	int depth = 1;
	for (const char *k = close - 1; k > rest + 1; k--) {
		depth += *k == ')' ? 1 : *k == '(' ? -1 : 0;
		if (depth == 0 && k[-1] == ' ') {
			*func = rest;
			*flen = (size_t)(k - 1 - rest);
			*mod = k + 1;
			*mlen = (size_t)(close - k - 1);
			return true;
		}
		if (depth == 0)
			break;
	}
	for (const char *k = close - 1; k > rest; k--) {
		if (k[0] == '(' && k[-1] == ' ' && k - 1 > rest) {
			*func = rest;
			*flen = (size_t)(k - 1 - rest);
			*mod = k + 1;
			*mlen = (size_t)(close - k - 1);
			return true;
		}
	}
	return false;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && !memcmp(s + len - n, suffix, n);
}

static bool contains(const char *s, size_t len, const char *what)
{
	return memmem(s, len, what, strlen(what)) != NULL;
}

/* perf-PID.map: a JIT's symbol file. */
static bool is_perf_map(const char *m, size_t len)
{
	const char *p = memmem(m, len, "/tmp/perf-", 10);
	if (!p)
		return false;
	const char *d = p + 10, *end = m + len;
	while (d < end && is_digit(*d))
		d++;
	return d > p + 10 && end - d >= 4 && !memcmp(d, ".map", 4);
}

/* One frame (a piece of an "a->b" chain) tidied into buf; returns its
 * length. */
static size_t tidy(struct reader *r, const char *f, size_t n, const char *mod, size_t mlen)
{
	char *o = r->buf;
	size_t len = 0;
	if (n == 9 && !memcmp(f, "[unknown]", 9)) {
		if (!(mlen == 9 && !memcmp(mod, "[unknown]", 9))) {
			/* Without the kernel's mark of a deleted file, which the
			 * tidying below would cut at its '(' with the ']'. */
			if (ends_with(mod, mlen, " (deleted)"))
				mlen -= 10;
			const char *base = mod + mlen;
			while (base > mod && base[-1] != '/')
				base--;
			o[len++] = '[';
			memcpy(o + len, base, (size_t)(mod + mlen - base));
			len += (size_t)(mod + mlen - base);
			o[len++] = ']';
		} else {
			memcpy(o, "[unknown]", 9);
			len = 9;
		}
	} else {
		memcpy(o, f, n);
		len = n;
	}
	for (size_t i = 0; i < len; i++)
		if (o[i] == ';')
			o[i] = ':';
	/* Go's "net/http.(*Client).Do" keeps its parentheses. */
	const char *go = memmem(o, len, ".(", 2);
	if (!(go && memmem(go + 2, (size_t)(o + len - go - 2), ").", 2))) {
		for (size_t i = 0; i < len; i++) {
			if (o[i] == '(' && !(len - i >= 20 && !memcmp(o + i, "(anonymous namespace)", 20))) {
				len = i;
				break;
			}
		}
	}
	size_t k = 0;
	for (size_t i = 0; i < len; i++)
		if (o[i] != '"' && o[i] != '\'')
			o[k++] = o[i];
	len = k;
	if (r->java && len > 0 && o[0] == 'L' && memchr(o, '/', len)) {
		memmove(o, o + 1, len - 1);
		len--;
	}
	return len;
}

static int frame(struct reader *r, const char *func, size_t flen, const char *mod, size_t mlen)
{
	/* Linux 4.8+ prints symbol offsets: "cpu_startup_entry+0x2ec". */
	const char *plus = NULL;
	for (size_t i = flen; i-- > 0;) {
		char c = func[i];
		if (c == '+') {
			plus = func + i;
			break;
		}
		if (!(is_digit(c) || (c >= 'a' && c <= 'f') || c == 'x'))
			break;
	}
	if (plus && func + flen - plus > 3 && plus[1] == '0' && plus[2] == 'x') {
		bool hex = true;
		for (const char *c = plus + 3; c < func + flen; c++)
			hex = hex && (is_digit(*c) || (*c >= 'a' && *c <= 'f'));
		if (hex)
			flen = (size_t)(plus - func);
	}
	if (flen == 0 || func[0] == '(')
		return 0; /* a process name, not a frame */
	if (flen + mlen + 3 > r->buf_cap) {
		char *b = realloc(r->buf, (flen + mlen + 3) * 2);
		if (!b)
			return fg_error_oom(r->err, fg_input_name(r->in));
		r->buf = b;
		r->buf_cap = (flen + mlen + 3) * 2;
	}
	bool kernel = (mlen > 0 && (mod[0] == '[' || ends_with(mod, mlen, "vmlinux"))) && !contains(mod, mlen, "unknown");
	bool jit = is_perf_map(mod, mlen);
	/* The pieces of "a->b->c", pushed last first (the stack is built leaf
	 * first and turned around at the end). */
	size_t start = r->stack.len;
	for (const char *p = func, *end = func + flen; p <= end;) {
		const char *arrow = memmem(p, (size_t)(end - p), "->", 2);
		const char *e = arrow ? arrow : end;
		size_t n = tidy(r, p, (size_t)(e - p), mod, mlen);
		uint8_t type;
		n = fg_collapsed_frame_type(r->buf, n, &type);
		if (r->stack.len > start)
			type = FG_FRAME_INLINED;
		else if (kernel)
			type = FG_FRAME_KERNEL;
		else if (jit)
			type = FG_FRAME_JIT;
		uint32_t id;
		int rc = n == 0 ? fg_names_intern(&id, r->names, "[unknown]", 9, r->err)
				: fg_names_intern(&id, r->names, r->buf, n, r->err);
		if (rc || (rc = fg_stackbuf_push(&r->stack, id, type, r->err)) != 0)
			return rc;
		r->line_frame = id;
		if (!arrow)
			break;
		p = arrow + 2;
	}
	/* Within a line the pieces keep their order once the stack is turned. */
	fg_stackbuf_reverse(&r->stack, start);
	return 0;
}

static int end_sample(struct reader *r)
{
	if (!r->in_sample)
		return 0;
	r->in_sample = false;
	int rc = fg_stackbuf_push(&r->stack, r->comm, FG_FRAME_NATIVE, r->err);
	if (rc)
		return rc;
	fg_stackbuf_reverse(&r->stack, 1);
	return fg_stackbuf_emit(&r->stack, 1, r->fn, r->ctx, r->err);
}

static int header(struct reader *r, const char *s, size_t len, size_t comm_len)
{
	size_t elen;
	const char *ev = header_event(s, len, comm_len, &elen);
	if (ev) {
		if (!r->event[0]) {
			if (elen >= sizeof(r->event))
				elen = sizeof(r->event) - 1;
			memcpy(r->event, ev, elen);
			r->event[elen] = '\0';
		} else if (strlen(r->event) != elen || memcmp(r->event, ev, elen)) {
			return 0; /* another event: its frames are skipped */
		}
	}
	if (comm_len + 1 > r->buf_cap) {
		char *b = realloc(r->buf, comm_len * 2 + 1);
		if (!b)
			return fg_error_oom(r->err, fg_input_name(r->in));
		r->buf = b;
		r->buf_cap = comm_len * 2 + 1;
	}
	for (size_t i = 0; i < comm_len; i++)
		r->buf[i] = s[i] == ' ' ? '_' : s[i];
	r->java = comm_len >= 4 && !memcmp(s, "java", 4);
	r->in_sample = true;
	r->line_frame = UINT32_MAX;
	fg_stackbuf_reset(&r->stack);
	return fg_names_intern(&r->comm, r->names, r->buf, comm_len, r->err);
}

/* The indented line perf -F +srcline prints below a frame line: true for
 * one, with the file when it has one ("  jv.c:512"; *flen 0 for perf's
 * "??:0", "  [kernel.kallsyms][ffffffff8224…]", "  libc.so.6+0x2724a"). */
static bool srcline(const char *s, size_t len, const char **file, size_t *flen)
{
	size_t i = 0;
	while (i < len && is_space(s[i]))
		i++;
	if (i == 0 || i == len)
		return false;
	*file = s + i;
	*flen = 0;
	const char *colon = memrchr(s + i, ':', len - i);
	if (!colon || colon + 1 >= s + len || !is_digit(colon[1]))
		return true;
	for (const char *k = colon + 1; k < s + len && !is_space(*k); k++)
		if (!is_digit(*k))
			return true;
	*flen = (size_t)(colon - s - i);
	return true;
}

bool fg_perfscript_sniff(const char *d, size_t n)
{
	const char *end = d + n;
	while (d < end && *d == '#') {
		const char *nl = memchr(d, '\n', (size_t)(end - d));
		if (!nl)
			return false;
		d = nl + 1;
	}
	const char *nl = memchr(d, '\n', (size_t)(end - d));
	size_t comm, elen;
	if (!nl || (comm = header_comm(d, (size_t)(nl - d))) == 0)
		return false;
	if (!header_event(d, (size_t)(nl - d), comm, &elen))
		return false;
	const char *l2 = nl + 1, *nl2 = memchr(l2, '\n', (size_t)(end - l2));
	const char *f, *m;
	size_t fl, ml;
	/* A frame line, or the blank line of a sample without frames. */
	return l2 < end && (l2 == nl2 || (is_space(*l2) && frame_line(l2, (size_t)((nl2 ? nl2 : end) - l2), &f, &fl, &m, &ml)));
}

int fg_perfscript_read(fg_profile_info *info, fg_input *in, fg_names *names, const fg_read_options *opts,
		       fg_stack_fn fn, void *ctx, fg_error *err)
{
	struct reader r = { .in = in, .names = names, .fn = fn, .ctx = ctx, .err = err };
	char *line;
	size_t len;
	fg_stackbuf_limit(&r.stack, opts, fg_input_name(in));
	int rc = fg_stackbuf_init(&r.stack, names, err);
	if (rc)
		return rc;
	bool skipping = false; /* inside a sample of another event */
	bool after_frame = false; /* the line before was a frame line: a srcline may follow */
	info->format = FG_FORMAT_PERF_SCRIPT;
	while ((rc = fg_input_line(&line, &len, in, err)) > 0) {
		if (len > 0 && line[0] == '#')
			continue;
		if (len == 0) {
			skipping = false;
			if ((rc = end_sample(&r)) != 0)
				break;
			continue;
		}
		const char *f, *m;
		size_t fl, ml, comm;
		bool follows_frame = after_frame;
		after_frame = false;
		if (!is_space(line[0]) && (comm = header_comm(line, len)) != 0) {
			if ((rc = end_sample(&r)) != 0)
				break;
			if ((rc = header(&r, line, len, comm)) != 0)
				break;
			skipping = !r.in_sample;
		} else if (frame_line(line, len, &f, &fl, &m, &ml)) {
			if (r.in_sample && (rc = frame(&r, f, fl, m, ml)) != 0)
				break;
			after_frame = true;
		} else if (follows_frame && srcline(line, len, &f, &fl)) {
			bool known = fl && !(fl == 2 && !memcmp(f, "??", 2));
			if (r.in_sample && known && r.line_frame != UINT32_MAX &&
			    (rc = fg_names_set_file(names, r.line_frame, f, fl, err)) != 0)
				break;
		} else if (!skipping) {
			rc = fg_error_set(err, FG_EINVALID, fg_input_name(in),
					  "line %llu: not perf script output (expected a sample header "
					  "'comm pid time: event:' or a frame 'addr symbol (module)')",
					  (unsigned long long)fg_input_line_number(in));
			break;
		}
	}
	/* perf ends every sample with a blank line: one without it was cut. */
	if (rc == 0 && r.in_sample)
		info->missing_final_newline = true;
	if (rc == 0 && r.stack.stacks == 0)
		rc = fg_error_set(err, FG_EINVALID, fg_input_name(in), "no samples in the perf script output");
	if (rc == 0) {
		static const char *const cpu[] = { "cpu-clock", "task-clock", "cycles", "cpu-cycles" };
		const char *ev = r.event;
		char base[64];
		size_t bl = strcspn(ev, ":");
		snprintf(base, sizeof(base), "%.*s", (int)bl, ev);
		for (size_t i = 0; i < sizeof(cpu) / sizeof(cpu[0]); i++)
			if (!strcmp(base, cpu[i]))
				ev = "cpu";
		if (ev == r.event)
			ev = base;
		size_t el = strlen(ev) < sizeof(info->event) ? strlen(ev) : sizeof(info->event) - 1;
		memcpy(info->event, ev, el);
		info->event[el] = '\0';
		snprintf(info->unit, sizeof(info->unit), "samples");
		info->total = r.stack.total;
		info->frames = r.stack.stacks;
	}
	fg_stackbuf_free(&r.stack);
	free(r.buf);
	return rc < 0 ? rc : 0;
}
