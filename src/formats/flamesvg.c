#include "formats/flamesvg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/collapsed.h"
#include "formats/stackbuf.h"

/* flamegraph.pl writes, per frame (in hash order):
 *   <g >
 *   <title>NAME (1,234 samples, 2.41%)</title><rect x="10.0" y="405.0" width="28.4" height="15.0" .../>
 *   <text ...>SHORT</text>
 *   </g>
 * inferno the same with x and width in percent and fg:x / fg:w in samples;
 * async-profiler 1.x in DFS order.  Names are XML-escaped. */

struct frame {
	double x, w;        /* extent: samples (fg:x, fg:w) or pixels */
	double y;
	uint64_t count;     /* from the title: exact */
	uint64_t children;  /* sum of the children's counts */
	uint32_t name;
	uint32_t parent;
	uint32_t depth;
	uint8_t type;
};

struct reader {
	fg_input *in;
	fg_names *names;
	fg_error *err;
	struct frame *frames;
	size_t n, cap;
	char *buf;          /* an unescaped name */
	size_t buf_cap;
	bool exact;         /* every frame has fg:x / fg:w */
	bool have_title;    /* a title seen, its rectangle not yet */
	struct frame pending;
	char unit[24];
};

static int bad(struct reader *r, const char *what)
{
	return fg_error_set(r->err, FG_EINVALID, fg_input_name(r->in), "line %llu: %s",
			    (unsigned long long)fg_input_line_number(r->in), what);
}

/* XML entities: &amp; &lt; &gt; &quot; &apos; &#N; &#xN; (as UTF-8). */
static size_t unescape(char *o, const char *s, size_t len)
{
	static const struct { const char *e; char c; } named[] = {
		{ "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&quot;", '"' }, { "&apos;", '\'' },
	};
	size_t n = 0;
	for (size_t i = 0; i < len;) {
		if (s[i] == '&') {
			bool done = false;
			for (size_t k = 0; k < sizeof(named) / sizeof(named[0]) && !done; k++) {
				size_t el = strlen(named[k].e);
				if (i + el <= len && !memcmp(s + i, named[k].e, el)) {
					o[n++] = named[k].c;
					i += el;
					done = true;
				}
			}
			if (!done && i + 3 < len && s[i + 1] == '#') {
				char *end;
				bool hex = s[i + 2] == 'x' || s[i + 2] == 'X';
				unsigned long cp = strtoul(s + i + 2 + hex, &end, hex ? 16 : 10);
				if (end < s + len && *end == ';' && end > s + i + 2 + hex && cp > 0 && cp < 0x110000) {
					if (cp < 0x80) {
						o[n++] = (char)cp;
					} else if (cp < 0x800) {
						o[n++] = (char)(0xc0 | cp >> 6);
						o[n++] = (char)(0x80 | (cp & 0x3f));
					} else if (cp < 0x10000) {
						o[n++] = (char)(0xe0 | cp >> 12);
						o[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
						o[n++] = (char)(0x80 | (cp & 0x3f));
					} else {
						o[n++] = (char)(0xf0 | cp >> 18);
						o[n++] = (char)(0x80 | ((cp >> 12) & 0x3f));
						o[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
						o[n++] = (char)(0x80 | (cp & 0x3f));
					}
					i = (size_t)(end - s) + 1;
					done = true;
				}
			}
			if (done)
				continue;
		}
		o[n++] = s[i++];
	}
	return n;
}

/* "NAME (1,234 samples, 2.41%)" (flamegraph.pl may add "; +0.5%" for
 * differential graphs): the name and the count. */
static int parse_title(struct reader *r, const char *s, size_t len)
{
	const char *open = NULL;
	for (const char *p = s + len; p > s + 1; p--)
		if (p[-1] == '(' && p[-2] == ' ') {
			open = p - 2;
			break;
		}
	if (!open || len < 2 || s[len - 1] != ')')
		return bad(r, "a frame title without '(N samples, P%)'");
	const char *c = open + 2, *end = s + len - 1;
	uint64_t v = 0;
	bool digits = false;
	for (; c < end && ((*c >= '0' && *c <= '9') || *c == ','); c++) {
		if (*c == ',')
			continue;
		unsigned d = (unsigned)(*c - '0');
		if (v > (UINT64_MAX - d) / 10)
			return bad(r, "a sample count beyond 64 bits");
		v = v * 10 + d;
		digits = true;
	}
	if (!digits || c >= end || *c != ' ')
		return bad(r, "a frame title without '(N samples, P%)'");
	const char *u = ++c;
	while (c < end && *c != ',' && *c != ' ')
		c++;
	if (c == u || c >= end)
		return bad(r, "a frame title without '(N samples, P%)'");
	if (!r->unit[0])
		snprintf(r->unit, sizeof(r->unit), "%.*s", (int)(c - u), u);
	size_t nl = (size_t)(open - s);
	if (nl == 0)
		return bad(r, "a frame without a name");
	if (nl + 1 > r->buf_cap) {
		char *b = realloc(r->buf, nl * 2 + 1);
		if (!b)
			return fg_error_oom(r->err, fg_input_name(r->in));
		r->buf = b;
		r->buf_cap = nl * 2 + 1;
	}
	size_t n = unescape(r->buf, s, nl);
	uint8_t type;
	n = fg_collapsed_frame_type(r->buf, n, &type);
	int rc = fg_names_intern(&r->pending.name, r->names, r->buf, n, r->err);
	if (rc)
		return rc;
	r->pending.type = type;
	r->pending.count = v;
	r->have_title = true;
	return 0;
}

/* An attribute's number in the tag [s, end): ` NAME="…"`. */
static bool attr(const char *s, const char *end, const char *name, double *out)
{
	size_t nl = strlen(name);
	for (const char *p = s; p + nl + 3 <= end; p++) {
		if (p[0] == ' ' && !memcmp(p + 1, name, nl) && p[1 + nl] == '=' && p[2 + nl] == '"') {
			char *e;
			*out = strtod(p + 3 + nl, &e);
			return e != p + 3 + nl;
		}
	}
	return false;
}

static int parse_rect(struct reader *r, const char *s, const char *end)
{
	struct frame *f = &r->pending;
	double fx, fw;
	if (!attr(s, end, "y", &f->y) || !attr(s, end, "x", &f->x) || !attr(s, end, "width", &f->w))
		return bad(r, "a frame rectangle without x, y and width");
	bool exact = attr(s, end, "fg:x", &fx) && attr(s, end, "fg:w", &fw);
	if (exact) {
		f->x = fx;
		f->w = fw;
	}
	if (r->n == 0)
		r->exact = exact;
	r->exact = r->exact && exact;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 1024;
		struct frame *nf = realloc(r->frames, cap * sizeof(*nf));
		if (!nf)
			return fg_error_oom(r->err, fg_input_name(r->in));
		r->frames = nf;
		r->cap = cap;
	}
	r->frames[r->n++] = *f;
	r->have_title = false;
	return 0;
}

static int by_depth_then_x(const void *a, const void *b)
{
	const struct frame *p = a, *q = b;
	if (p->depth != q->depth)
		return p->depth < q->depth ? -1 : 1;
	return p->x < q->x ? -1 : p->x > q->x ? 1 : 0;
}

static int by_y(const void *a, const void *b)
{
	double p = *(const double *)a, q = *(const double *)b;
	return p < q ? -1 : p > q ? 1 : 0;
}

/* Depth from y (levels are the distinct y values, counted from the root's
 * side), then each frame's parent: the frame one level up whose extent holds
 * it and still has room for its samples. */
static int rebuild(struct reader *r, fg_profile_info *info, fg_stack_fn fn, void *ctx)
{
	size_t root = 0;
	for (size_t i = 1; i < r->n; i++)
		if (r->frames[i].count > r->frames[root].count)
			root = i;
	double *ys = malloc(r->n * sizeof(*ys));
	if (!ys)
		return fg_error_oom(r->err, fg_input_name(r->in));
	for (size_t i = 0; i < r->n; i++)
		ys[i] = r->frames[i].y;
	qsort(ys, r->n, sizeof(*ys), by_y);
	size_t levels = 0;
	for (size_t i = 0; i < r->n; i++)
		if (i == 0 || ys[i] != ys[i - 1])
			ys[levels++] = ys[i];
	/* The root is at the bottom (largest y), or at the top of an icicle. */
	bool icicle = r->frames[root].y == ys[0] && levels > 1;
	for (size_t i = 0; i < r->n; i++) {
		struct frame *f = &r->frames[i];
		size_t lo = 0, hi = levels;
		while (lo + 1 < hi) {
			size_t mid = (lo + hi) / 2;
			if (ys[mid] <= f->y)
				lo = mid;
			else
				hi = mid;
		}
		f->depth = (uint32_t)(icicle ? lo : levels - 1 - lo);
	}
	free(ys);
	qsort(r->frames, r->n, sizeof(*r->frames), by_depth_then_x);
	if (r->n > 1 && r->frames[1].depth == 0)
		return fg_error_set(r->err, FG_EINVALID, fg_input_name(r->in), "two root frames in the SVG");
	const struct frame *rf = &r->frames[0];
	/* Half a pixel of rounding (flamegraph.pl writes one decimal), or
	 * nothing for inferno's sample offsets. */
	double eps = r->exact ? 1e-9 : 0.051;
	size_t start = 0; /* first frame of the level above */
	for (size_t i = 1; i < r->n; i++) {
		struct frame *f = &r->frames[i];
		while (r->frames[start].depth + 1 < f->depth)
			start++;
		/* The last frame of the level above that starts at or before f. */
		size_t p = SIZE_MAX;
		for (size_t k = start; k < i && r->frames[k].depth + 1 == f->depth; k++) {
			if (r->frames[k].x > f->x + eps)
				break;
			p = k;
		}
		/* Rounding can put a child on its parent's right neighbour's
		 * edge: take the left one when the neighbour has no room. */
		if (p != SIZE_MAX && p > start && r->frames[p - 1].depth + 1 == f->depth &&
		    r->frames[p].count - r->frames[p].children < f->count && r->frames[p].x >= f->x - eps &&
		    r->frames[p - 1].count - r->frames[p - 1].children >= f->count)
			p--;
		if (p == SIZE_MAX || f->x + f->w > r->frames[p].x + r->frames[p].w + 2 * eps + 0.1)
			return fg_error_set(r->err, FG_EINVALID, fg_input_name(r->in),
					    "a frame of the SVG lies outside every frame of the level above");
		if (r->frames[p].count - r->frames[p].children < f->count)
			return fg_error_set(r->err, FG_EINVALID, fg_input_name(r->in),
					    "the frames of the SVG do not add up: children outweigh their parent");
		r->frames[p].children += f->count;
		f->parent = (uint32_t)p;
	}
	/* Samples narrower than flamegraph.pl's default --minwidth were not drawn. */
	info->narrow_frames_lost = !r->exact && rf->count && rf->w / (double)rf->count < 0.1;
	info->total = rf->count;
	fg_stackbuf s = { 0 };
	int rc = fg_stackbuf_init(&s, r->names, r->err);
	for (size_t i = 1; i < r->n && !rc; i++) {
		const struct frame *f = &r->frames[i];
		if (f->count == f->children)
			continue;
		fg_stackbuf_reset(&s);
		for (size_t k = i; k != 0 && !rc; k = r->frames[k].parent)
			rc = fg_stackbuf_push(&s, r->frames[k].name, r->frames[k].type, r->err);
		fg_stackbuf_reverse(&s, 1);
		if (!rc)
			rc = fg_stackbuf_emit(&s, f->count - f->children, fn, ctx, r->err);
	}
	/* Samples that stopped at the root. */
	if (!rc && rf->count > rf->children) {
		fg_stackbuf_reset(&s);
		rc = fg_stackbuf_emit(&s, rf->count - rf->children, fn, ctx, r->err);
	}
	info->frames = s.stacks;
	fg_stackbuf_free(&s);
	return rc;
}

int fg_flamesvg_read(fg_profile_info *info, fg_input *in, fg_names *names, fg_stack_fn fn, void *ctx,
		     fg_error *err)
{
	struct reader r = { .in = in, .names = names, .err = err };
	char *line;
	size_t len;
	int rc;
	bool closed = false;
	info->format = FG_FORMAT_SVG;
	while ((rc = fg_input_line(&line, &len, in, err)) > 0) {
		const char *end = line + len, *p = line;
		if (!info->title[0]) {
			const char *t = strstr(line, "id=\"title\"");
			const char *gt = t ? strchr(t, '>') : NULL, *lt = gt ? strchr(gt, '<') : NULL;
			if (lt) {
				size_t n = (size_t)(lt - gt - 1);
				if (n >= sizeof(info->title))
					n = sizeof(info->title) - 1;
				n = unescape(info->title, gt + 1, n < sizeof(info->title) / 2 ? n : sizeof(info->title) / 2);
				info->title[n] = '\0';
			}
		}
		while (p < end) {
			const char *t = memmem(p, (size_t)(end - p), "<title>", 7);
			const char *rect = memmem(p, (size_t)(end - p), "<rect", 5);
			if (r.have_title && rect && (!t || rect < t)) {
				const char *close = memchr(rect, '>', (size_t)(end - rect));
				if (!close)
					close = end;
				if ((rc = parse_rect(&r, rect, close)) != 0)
					goto out;
				p = close;
				continue;
			}
			if (!t)
				break;
			const char *te = memmem(t + 7, (size_t)(end - t - 7), "</title>", 8);
			if (!te) {
				rc = bad(&r, "a frame title that does not end on its line");
				goto out;
			}
			if ((rc = parse_title(&r, t + 7, (size_t)(te - t - 7))) != 0)
				goto out;
			p = te + 8;
		}
		if (memmem(line, len, "</svg>", 6))
			closed = true;
	}
	if (rc < 0)
		goto out;
	if (!closed) {
		rc = fg_error_set(err, FG_EINVALID, fg_input_name(in), "truncated: the SVG ends before </svg>");
		goto out;
	}
	if (r.n == 0) {
		rc = fg_error_set(err, FG_EINVALID, fg_input_name(in), "an SVG without flame graph frames");
		goto out;
	}
	snprintf(info->unit, sizeof(info->unit), "%s", r.unit);
	rc = rebuild(&r, info, fn, ctx);
out:
	free(r.frames);
	free(r.buf);
	return rc;
}
