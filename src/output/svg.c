#include "output/svg.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/markup.h"
#include "base/stats.h"

#define PAD 10.0
#define FRAME_H 16.0
#define CHAR_W 6.5        /* average width of an 11px label character (the script measures it) */
#define HEAD_CHAR_W 7.0   /* the same for the 12px header lines */
#define LINE_H 16.0       /* header line pitch */
#define MAX_SIDE_LINES 4  /* header lines a side may take */
#define MAX_LINES 6       /* header lines any text may take */
#define KEY_STEPS 5       /* colour key swatches per direction */
#define DETAIL_LINES 3    /* rows under the graph for the hovered frame's details */
/* The picture's height follows the depth that holds CLIP_SHARE of the
 * samples (by the depth of their leaf), CLIP_ROWS rows more; deeper frames
 * are cut there, their caller marked, when that saves CLIP_ROWS rows more:
 * a handful of broken 128-deep stacks must not push the graph below the
 * first screen, and an ordinary profile is drawn whole. */
#define CLIP_SHARE 0.995
#define CLIP_ROWS 8

void fg_svg_options_init(fg_svg_options *opts)
{
	*opts = (fg_svg_options){
		.title = "Differential flame graph",
		.saturate = 5.0,
		.width = 1200.0,
		.min_width = 0.1,
	};
}


/* The header line of a side, e.g. "Base: 3 profiles, 16,834 samples, gRPC,
 * cpu: a.html, b.html, c.html" (malloc'ed). */
static char *side_line(const char *label, const fg_svg_side *side, uint64_t samples)
{
	size_t len = 160;
	for (size_t i = 0; i < side->nsources; i++)
		len += strlen(side->sources[i]) + 2;
	char *s = malloc(len), num[32];
	if (!s)
		return NULL;
	/* Thousands grouped: sample counts are read at a glance. */
	char digits[24];
	int nd = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)samples), k = 0;
	for (int i = 0; i < nd; i++) {
		if (i && (nd - i) % 3 == 0)
			num[k++] = ',';
		num[k++] = digits[i];
	}
	num[k] = '\0';
	const char *p = side->protocol;
	const char *proto = !p ? "protocol unknown" : !strcmp(p, "grpc") ? "gRPC" : !strcmp(p, "rest") ? "REST"
			  : !strcmp(p, "unknown") ? "protocol unknown" : !strcmp(p, "mixed") ? "mixed protocols" : p;
	size_t n = (size_t)snprintf(s, len, "%s: %zu profile%s, %s samples, %s, %s%s", label, side->nsources,
				    side->nsources == 1 ? "" : "s", num, proto, side->event ? side->event : "event unknown",
				    side->nsources ? ": " : "");
	for (size_t i = 0; i < side->nsources; i++)
		n += (size_t)snprintf(s + n, len - n, "%s%s", i ? ", " : "", side->sources[i]);
	return s;
}

/* Breaks s into at most max_lines lines of at most max bytes, after a
 * space when there is one; ends[i] is where line i ends, starts[i] where it
 * starts (past the break).  Returns the number of lines; *cut is set when
 * text was left out. */
static size_t wrap(size_t starts[MAX_LINES], size_t ends[MAX_LINES], bool *cut, const char *s, size_t max,
		   size_t max_lines)
{
	size_t len = strlen(s), pos = 0, n = 0;
	*cut = false;
	if (max < 16)
		max = 16;
	while (pos < len && n < max_lines) {
		size_t end = len;
		if (len - pos > max) {
			end = pos + max;
			size_t space = end;
			while (space > pos + max / 2 && s[space] != ' ')
				space--;
			if (s[space] == ' ')
				end = space;
			while (end > pos + 1 && ((unsigned char)s[end] & 0xc0) == 0x80)
				end--;
		}
		starts[n] = pos;
		ends[n++] = end;
		pos = end;
		while (pos < len && s[pos] == ' ')
			pos++;
	}
	*cut = pos < len;
	return n;
}

/* The header's wrapped texts: the two sides, and what the colours mean. */
enum { TEXT_BASE, TEXT_CANDIDATE, TEXT_NOTE, NTEXTS };

struct header {
	char *text[NTEXTS];
	size_t starts[NTEXTS][MAX_LINES], ends[NTEXTS][MAX_LINES], lines[NTEXTS];
	bool cut[NTEXTS];
};

struct writer {
	FILE *out;
	const fg_svg_options *o;
	fg_diff *diff;
	const fg_tree *drawn, *other;
	float *listed;         /* by name id: the diff's delta of a listed frame, NAN when not listed */
	const fg_names *names;
	uint32_t *peer;        /* drawn node -> the node at the same path in other, or FG_TREE_NONE */
	double *cursor;        /* by depth: x where the next frame starts */
	double scale;          /* pixels per sample of the drawn tree */
	double min_delta;      /* the diff's: the lightest change coloured, points */
	double saturate;       /* the darkest change, points */
	double frames_top;     /* y of the highest frame row */
	uint32_t depth;        /* the deepest drawn frame */
	uint32_t clip;         /* frames deeper are cut (UINT32_MAX: none is) */
	uint64_t total[2];     /* pooled samples: [FG_DIFF_BASE], [FG_DIFF_CANDIDATE] */
	uint64_t omitted;
	uint64_t clipped, clipped_samples; /* frames cut by clip, and the samples of their stacks */
};

/* ColorBrewer's Reds and Blues, light (at min_delta) to dark (saturate). */
static const double ramp[2][2][3] = {
	{ { 252, 187, 161 }, { 165, 15, 21 } },  /* grew */
	{ { 198, 219, 239 }, { 8, 69, 148 } },   /* shrank */
};
#define GREY "rgb(221,221,221)"

/* The fill of a change at position t (0 light, 1 dark) of the ramp of its
 * direction; returns whether the fill is dark enough to need white text. */
static bool ramp_colour(char *buf, size_t size, bool grew, double t)
{
	const double(*r)[3] = ramp[grew ? 0 : 1];
	double c[3];
	for (int k = 0; k < 3; k++)
		c[k] = r[0][k] + (r[1][k] - r[0][k]) * t;
	snprintf(buf, size, "rgb(%d,%d,%d)", (int)lround(c[0]), (int)lround(c[1]), (int)lround(c[2]));
	return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2] < 140.0;
}

/* The ramp position of a listed frame's change (beyond min_delta). */
static bool fill_colour(char *buf, size_t size, double delta, const struct writer *w)
{
	double a = fabs(delta);
	double span = w->saturate - w->min_delta;
	double t = span > 0 ? fmin(fmax((a - w->min_delta) / span, 0.0), 1.0) : 1.0;
	return ramp_colour(buf, size, delta > 0, t);
}

/* Where the class starts in a Java name: past its package, slashed
 * (`io/camunda/Foo.bar`: the last '/' before end) or dotted (`io.camunda.Foo.bar`:
 * the lowercase segments before a capitalised one); 0 for other names
 * (`libjvm.so`, `os::javaTimeNanos`, `[unknown]`).  The script has the same rule. */
static size_t class_start(const char *name, size_t end)
{
	for (size_t i = end; i > 0; i--)
		if (name[i - 1] == '/')
			return i;
	size_t i = 0;
	while (i < end && name[i] >= 'a' && name[i] <= 'z') {
		const char *dot = memchr(name + i, '.', end - i);
		if (!dot)
			return 0;
		i = (size_t)(dot - name) + 1;
	}
	return i < end && name[i] >= 'A' && name[i] <= 'Z' ? i : 0;
}

/* Writes t[0..k) cut back to a character boundary, then an ellipsis. */
static void put_cut(FILE *out, const char *t, size_t k)
{
	while (k > 0 && ((unsigned char)t[k] & 0xc0) == 0x80)
		k--;
	fg_markup_escape(out, t, k);
	fputs("\xe2\x80\xa6", out);
}

/* The label of a frame w pixels wide, for Java's long names: the name, else
 * without its package (class_start), else the class's head, an ellipsis and
 * the whole .method (`Transac….ensureInOpenTransaction`), else the method
 * alone (`…ensureInOpenTransaction`), else the class cut at the right
 * (`Transact…`: a narrow frame's class says more than a method's head).  The
 * script has the same rules. */
static void put_label(FILE *out, const char *name, size_t len, double w)
{
	double fitf = floor((w - 6.0) / CHAR_W);
	if (fitf < 3.0)
		return;
	size_t fit = (size_t)fitf;
	if (len <= fit) {
		fg_markup_escape(out, name, len);
		return;
	}
	const char *paren = memchr(name, '(', len);
	size_t end = paren ? (size_t)(paren - name) : len, start = class_start(name, end);
	const char *t = name + start;
	size_t tlen = len - start, dot = 0;
	if (tlen <= fit) {
		fg_markup_escape(out, t, tlen);
		return;
	}
	for (size_t i = end - start; i > 1; i--) {
		if (t[i - 1] == '.') {
			dot = i - 1;
			break;
		}
	}
	size_t keep = dot && fit > tlen - dot + 1 ? fit - (tlen - dot) - 1 : 0;
	while (keep > 0 && ((unsigned char)t[keep] & 0xc0) == 0x80)
		keep--;
	if (keep >= 1) {
		put_cut(out, t, keep);
		fg_markup_escape(out, t + dot, tlen - dot);
		return;
	}
	if (dot && tlen - dot <= fit) { /* "…method" */
		fputs("\xe2\x80\xa6", out);
		fg_markup_escape(out, t + dot + 1, tlen - dot - 1);
	} else {
		put_cut(out, t, fit - 1);
	}
}

static double row_y(const struct writer *w, uint32_t depth)
{
	return w->frames_top + FRAME_H * (w->o->inverted ? depth : w->depth - depth);
}

static int write_node(void *ctx, uint32_t id, fg_error *err)
{
	(void)err;
	struct writer *w = ctx;
	const fg_tree_node *n = fg_tree_node_at(w->drawn, id);
	double x = PAD, width = (double)n->total * w->scale;
	if (id == 0) {
		w->peer[0] = 0;
	} else if (n->depth > w->clip) {
		w->clipped++;
		w->peer[id] = FG_TREE_NONE;
		return 0;
	} else {
		x = w->cursor[n->depth];
		w->cursor[n->depth] += width;
		if (width < w->o->min_width) {
			w->omitted++;
			w->peer[id] = FG_TREE_NONE;
			return 0;
		}
		uint32_t pp = w->peer[n->parent];
		w->peer[id] = pp == FG_TREE_NONE ? FG_TREE_NONE : fg_tree_find_child(w->other, pp, n->name, n->type);
	}
	w->cursor[n->depth + 1] = x;

	const fg_tree_node *m = w->peer[id] == FG_TREE_NONE ? NULL : fg_tree_node_at(w->other, w->peer[id]);
	int b = w->o->base_widths ? 0 : 1, c = 1 - b; /* index of the base and the candidate below: 0 drawn */
	uint64_t total[2] = { n->total, m ? m->total : 0 }, self[2] = { n->self, m ? m->self : 0 };
	uint64_t side_total[2] = { w->total[w->o->base_widths ? FG_DIFF_BASE : FG_DIFF_CANDIDATE],
				   w->total[w->o->base_widths ? FG_DIFF_CANDIDATE : FG_DIFF_BASE] };
	double incl[2], selfp[2];
	for (int k = 0; k < 2; k++) {
		incl[k] = fg_stats_percent(total[k], side_total[k]);
		selfp[k] = fg_stats_percent(self[k], side_total[k]);
	}
	bool by_self = w->o->color == FG_SVG_COLOR_SELF;
	double delta_incl = incl[c] - incl[b], delta_self = selfp[c] - selfp[b];
	/* The noise is a property of the base path; a path no base holds has
	 * a 0% share in all of them. */
	uint32_t base_node = w->o->base_widths ? id : w->peer[id];
	double noise = base_node == FG_TREE_NONE ? 0.0 : fg_diff_path_noise(w->diff, base_node, by_self);
	/* The path's floor: the spread among the bases, and at least the
	 * sampling error of the two shares (95%), which is all one base gives. */
	double pb = (by_self ? selfp[b] : incl[b]) / 100.0, pc = (by_self ? selfp[c] : incl[c]) / 100.0;
	uint64_t nb = side_total[b], nc = side_total[c];
	double se = 100.0 * sqrt((nb ? pb * (1 - pb) / (double)nb : 0.0) + (nc ? pc * (1 - pc) / (double)nc : 0.0));
	double path_delta = by_self ? delta_self : delta_incl, floor_pp = fmax(noise, 1.96 * se);
	double listed = w->listed[n->name];
	bool coloured = !isnan(listed) && listed * path_delta > 0 && fabs(path_delta) > floor_pp;
	char fill[32] = GREY;
	bool dark = coloured && fill_colour(fill, sizeof(fill), listed, w);

	FILE *out = w->out;
	const char *name = fg_names_get(w->names, n->name);
	size_t len = fg_names_length(w->names, n->name);
	double y = row_y(w, n->depth);
	fprintf(out, "<g class=\"f\" data-b=\"%llu\" data-c=\"%llu\"><title>", (unsigned long long)total[b],
		(unsigned long long)total[c]);
	fg_markup_escape(out, name, len);
	fprintf(out, "\nbase: %llu samples, %.2f%% (self %.2f%%)\ncandidate: %llu samples, %.2f%% (self %.2f%%)"
		     "\nchange here: %+.2f points inclusive, %+.2f self; noise %.2f",
		(unsigned long long)total[b], incl[b], selfp[b], (unsigned long long)total[c], incl[c], selfp[c],
		delta_incl, delta_self, floor_pp);
	if (!isnan(listed))
		fprintf(out, "\nthe frame in all: %+.2f points %s, listed by the diff", listed,
			by_self ? "self" : "inclusive");
	else if (n->depth)
		fputs("\nthe frame in all: within the diff's noise floor", out);
	if (!m)
		fputs(w->o->base_widths ? "\ngone from the candidate" : "\nnew in the candidate", out);
	bool cut = n->depth == w->clip && n->first_child != FG_TREE_NONE;
	if (cut)
		fputs("\nits callees are cut: this deep, the picture holds no more (see the key)", out);
	fprintf(out, "</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"/>", x, y, width,
		FRAME_H - 1.0, fill);
	/* The mark of a cut: a dark edge on the side of the callees. */
	if (cut)
		fprintf(out, "<rect class=\"c\" x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"3\" fill=\"#000\"/>", x,
			w->o->inverted ? y + FRAME_H - 4.0 : y, width);
	if (!m)
		fprintf(out, "<rect class=\"h\" x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%.0f\" fill=\"url(#%s)\"/>",
			x, y, width, FRAME_H - 1.0, w->o->base_widths ? "fg-gone" : "fg-new");
	fprintf(out, "<text%s x=\"%.2f\" y=\"%.1f\">", dark ? " class=\"d\"" : "", x + 3.0, y + 11.5);
	put_label(out, name, len, width);
	fputs("</text></g>\n", out);
	return 0;
}

/* Runs on its own <svg> only, so that the graph also works inlined in an
 * HTML page.  Labels are refitted with the measured character width; zoom
 * re-scales the clicked frame's subtree to the full width and keeps its
 * ancestors (faded) at full width; search highlights the matches and adds up
 * both sides' samples of the outermost ones. */
static const char script[] =
	"(function (svg) {\n"
	"'use strict';\n"
	"var PAD = 10, H = 16, cw = 6.5, W, top, D, inverted, totals, frames = [], searchRe = null;\n"
	"function q(id) { return svg.querySelector('#' + id); }\n"
	"function classStart(s, end) {\n"
	"  var slash = end > 0 ? s.lastIndexOf('/', end - 1) : -1;\n"
	"  if (slash >= 0) return slash + 1;\n"
	"  var i = 0;\n"
	"  while (i < end && s[i] >= 'a' && s[i] <= 'z') {\n"
	"    var dot = s.indexOf('.', i);\n"
	"    if (dot < 0 || dot >= end) return 0;\n"
	"    i = dot + 1;\n"
	"  }\n"
	"  return i < end && s[i] >= 'A' && s[i] <= 'Z' ? i : 0;\n"
	"}\n"
	"function label(s, n) {\n"
	"  if (n < 3) return '';\n"
	"  if (s.length <= n) return s;\n"
	"  var paren = s.indexOf('('), end = paren < 0 ? s.length : paren, start = classStart(s, end);\n"
	"  var t = s.slice(start), dot = end - start > 1 ? t.lastIndexOf('.', end - start - 1) : -1;\n"
	"  if (t.length <= n) return t;\n"
	"  if (dot < 1) dot = 0;\n"
	"  var keep = dot && n > t.length - dot + 1 ? n - (t.length - dot) - 1 : 0;\n"
	"  if (keep >= 1) return t.slice(0, keep) + '\\u2026' + t.slice(dot);\n"
	"  if (dot && t.length - dot <= n) return '\\u2026' + t.slice(dot + 1);\n"
	"  return t.slice(0, n - 1) + '\\u2026';\n"
	"}\n"
	"function fit(f, w) {\n"
	"  var n = Math.floor((w - 6) / cw);\n"
	"  f.t.textContent = label(f.name, n);\n"
	"  /* the width per character is an average: shorten what still overflows */\n"
	"  while (n >= 3 && f.t.getComputedTextLength() > w - 4) f.t.textContent = label(f.name, --n);\n"
	"}\n"
	"function place(f, x, w) {\n"
	"  [f.r, f.h, f.cut].forEach(function (r) { if (r) { r.setAttribute('x', x.toFixed(2)); r.setAttribute('width', w.toFixed(2)); } });\n"
	"  f.t.setAttribute('x', (x + 3).toFixed(2));\n"
	"  fit(f, w);\n"
	"}\n"
	"function rowY(d) { return inverted ? top + H * d : top + H * (D - d); }\n"
	"function invert() {\n"
	"  inverted = !inverted;\n"
	"  q('fg-invert').textContent = inverted ? 'Root at the bottom' : 'Root at the top';\n"
	"  frames.forEach(function (f) {\n"
	"    var y = rowY(f.d);\n"
	"    f.r.setAttribute('y', y); if (f.h) f.h.setAttribute('y', y); f.t.setAttribute('y', y + 11.5);\n"
	"    if (f.cut) f.cut.setAttribute('y', inverted ? y + H - 4 : y);\n"
	"  });\n"
	"}\n"
	"function zoom(z) {\n"
	"  var full = W - 2 * PAD, scale = full / z.w, eps = 0.02;\n"
	"  q('fg-unzoom').style.display = z === frames[0] ? 'none' : '';\n"
	"  frames.forEach(function (o) {\n"
	"    var x = PAD, w = full, show, anc = false;\n"
	"    if (o.d < z.d) { show = anc = o.x <= z.x + eps && o.x + o.w >= z.x + z.w - eps; }\n"
	"    else if (o.d === z.d) { show = o === z; }\n"
	"    else { show = o.x >= z.x - eps && o.x + o.w <= z.x + z.w + eps;\n"
	"           x = PAD + (o.x - z.x) * scale; w = o.w * scale; }\n"
	"    o.g.style.display = show ? '' : 'none';\n"
	"    if (!show) return;\n"
	"    o.g.setAttribute('class', anc ? 'f anc' : 'f');\n"
	"    place(o, x, w);\n"
	"  });\n"
	"}\n"
	"/* The hovered frame's tooltip on the rows under the graph: its lines packed\n"
	"   into the rows, each row cut to the canvas with an ellipsis. */\n"
	"function fitRow(t, s, w) {\n"
	"  t.textContent = s;\n"
	"  if (t.getComputedTextLength() <= w) return;\n"
	"  var lo = 0, hi = s.length;\n"
	"  while (lo < hi) {\n"
	"    var mid = (lo + hi + 1) >> 1;\n"
	"    t.textContent = s.slice(0, mid) + '\\u2026';\n"
	"    if (t.getComputedTextLength() <= w) lo = mid; else hi = mid - 1;\n"
	"  }\n"
	"  t.textContent = s.slice(0, lo) + '\\u2026';\n"
	"}\n"
	"function showDetails(text) {\n"
	"  var rows = svg.querySelectorAll('#fg-details tspan'), w = W - 2 * PAD, parts = text ? text.split('\\n') : [];\n"
	"  var k = 0, line = parts.length ? parts[0] : '', probe = q('fg-probe');\n"
	"  for (var i = 1; i < parts.length; i++) {\n"
	"    probe.textContent = line + '  |  ' + parts[i];\n"
	"    if (i > 1 && probe.getComputedTextLength() <= w) { line = probe.textContent; continue; }\n"
	"    if (k < rows.length - 1) { fitRow(rows[k++], line, w); line = parts[i]; }\n"
	"    else line = line + '  |  ' + parts[i];\n"
	"  }\n"
	"  fitRow(rows[k++], line, w);\n"
	"  for (; k < rows.length; k++) rows[k].textContent = '';\n"
	"  probe.textContent = '';\n"
	"}\n"
	"function pct(n, total) { return (total ? 100 * n / total : 0).toFixed(2) + '%'; }\n"
	"function search(preset) {\n"
	"  var label = q('fg-search'), matched = q('fg-matched');\n"
	"  frames.forEach(function (o) { o.r.setAttribute('fill', o.fill); });\n"
	"  if (searchRe) { searchRe = null; label.textContent = 'Search'; matched.textContent = ' '; return; }\n"
	"  var term = typeof preset === 'string' ? preset :\n"
	"    window.prompt('Highlight frames matching (regular expression):', '');\n"
	"  if (!term) return;\n"
	"  try { searchRe = new RegExp(term); } catch (e) { window.alert(e.message); return; }\n"
	"  var hits = frames.filter(function (o) { return searchRe.test(o.name); });\n"
	"  hits.forEach(function (o) { o.r.setAttribute('fill', 'rgb(200,60,230)'); });\n"
	"  hits.sort(function (a, b) { return a.x - b.x || a.d - b.d; });\n"
	"  var b = 0, c = 0, end = -1;\n"
	"  hits.forEach(function (o) { if (o.x >= end - 0.005) { b += o.b; c += o.c; end = o.x + o.w; } });\n"
	"  var delta = (totals.c ? 100 * c / totals.c : 0) - (totals.b ? 100 * b / totals.b : 0);\n"
	"  label.textContent = 'Reset search';\n"
	"  matched.textContent = 'Matched ' + hits.length + ' frames: base ' + pct(b, totals.b) + ', candidate ' +\n"
	"    pct(c, totals.c) + ' (' + (delta < 0 ? '' : '+') + delta.toFixed(2) + ' points)';\n"
	"}\n"
	"function init() {\n"
	"  W = +svg.getAttribute('width'); top = +svg.getAttribute('data-top'); D = +svg.getAttribute('data-depth');\n"
	"  inverted = svg.getAttribute('data-inverted') === '1';\n"
	"  totals = { b: +svg.getAttribute('data-base-total'), c: +svg.getAttribute('data-candidate-total') };\n"
	"  var group = q('fg-frames'), gs = group.children;\n"
	"  var probe = document.createElementNS('http://www.w3.org/2000/svg', 'text'), sample = 'abcdefghijklmnopqrstuvwxyz/ABCDEFGHIJKLMNOP.';\n"
	"  probe.textContent = sample; group.appendChild(probe);\n"
	"  var len = probe.getComputedTextLength(); group.removeChild(probe);\n"
	"  if (len > 0) cw = len / sample.length;\n"
	"  for (var i = 0; i < gs.length; i++) {\n"
	"    var g = gs[i], r = g.querySelector('rect'), y = +r.getAttribute('y');\n"
	"    var f = { g: g, r: r, h: g.querySelector('rect.h'), cut: g.querySelector('rect.c'), t: g.querySelector('text'),\n"
	"              x: +r.getAttribute('x'), w: +r.getAttribute('width'),\n"
	"              d: Math.round(inverted ? (y - top) / H : D - (y - top) / H), fill: r.getAttribute('fill'),\n"
	"              b: +g.getAttribute('data-b'), c: +g.getAttribute('data-c'),\n"
	"              name: g.querySelector('title').textContent.split('\\n')[0] };\n"
	"    frames.push(f);\n"
	"    fit(f, f.w);\n"
	"    g.addEventListener('click', zoom.bind(null, f));\n"
	"    g.addEventListener('mouseover', function () { showDetails(this.querySelector('title').textContent); });\n"
	"    g.addEventListener('mouseout', function () { showDetails(''); });\n"
	"  }\n"
	"  q('fg-search').addEventListener('click', search);\n"
	"  q('fg-invert').addEventListener('click', invert);\n"
	"  q('fg-unzoom').addEventListener('click', function () { zoom(frames[0]); });\n"
	"  if (svg === document.documentElement)\n"
	"    window.addEventListener('keydown', function (e) {\n"
	"      if ((e.ctrlKey || e.metaKey) && (e.key === 'f' || e.key === 'F')) { e.preventDefault(); search(); }\n"
	"    });\n"
	"}\n"
	"function preset() { var p = svg.querySelector('metadata.fg-preset'); if (p) search(p.textContent); }\n"
	"function start() { init(); preset(); }\n"
	"if (document.readyState === 'complete') start(); else window.addEventListener('load', start);\n"
	"})(document.currentScript.closest('svg'));\n";

static const char style[] =
	".fg-diff text { font: 12px Verdana, 'DejaVu Sans', sans-serif; fill: #000; }\n"
	".fg-diff #fg-title { font-size: 17px; }\n"
	".fg-diff .side, .fg-diff .key, .fg-diff #fg-details, .fg-diff #fg-matched { fill: #333; }\n"
	".fg-diff .side tspan.k { font-weight: bold; }\n"
	".fg-diff .button { cursor: pointer; fill: #1a4fbf; }\n"
	".fg-diff g.f { cursor: pointer; }\n"
	".fg-diff g.f text { pointer-events: none; font-size: 11px; }\n"
	".fg-diff g.f text.d { fill: #fff; }\n"
	".fg-diff g.f:hover rect { stroke: #000; stroke-width: 0.6; }\n"
	".fg-diff g.anc { opacity: 0.55; }\n"
	"@media print { .fg-diff .button { display: none; } }\n";

static char *note_text(const struct writer *w)
{
	const fg_svg_options *o = w->o;
	size_t nbase = fg_diff_profiles(w->diff, FG_DIFF_BASE);
	size_t ncand = fg_diff_profiles(w->diff, FG_DIFF_CANDIDATE);
	char cut[256] = "";
	if (w->clipped)
		snprintf(cut, sizeof(cut), "  %llu frame%s deeper than %u below the root cut (%llu sample%s, %.2f%%): "
			 "the height follows the depth that holds %.1f%% of the samples; a black edge marks their callers.",
			 (unsigned long long)w->clipped, w->clipped == 1 ? "" : "s", w->clip,
			 (unsigned long long)w->clipped_samples, w->clipped_samples == 1 ? "" : "s",
			 fg_stats_percent(w->clipped_samples, fg_tree_node_at(w->drawn, 0)->total), 100.0 * CLIP_SHARE);
	char *s = malloc(1024);
	if (s)
		snprintf(s, 1024, "Coloured: the frames the diff lists (their %s share changed beyond noise at a "
			 "false-discovery rate of %.3g%%, by at least %.3g points), where the path itself moved beyond "
			 "its noise (%s); the colour is the frame's change in all.  Grey: the rest.%s  Widths: %s.  "
			 "%llu frame%s narrower than %.2g px not drawn.%s",
			 o->color == FG_SVG_COLOR_SELF ? "self" : "inclusive", 100.0 * fg_diff_fdr(w->diff), w->min_delta,
			 nbase > 1 ? "the spread of its share among the base profiles, and at least the sampling error"
				   : "the sampling error",
			 nbase > 1 || ncand > 1 ? "" : "  One profile a side: no node spread to measure, so the noise "
						      "is sampling error alone and differences between nodes show as changes.",
			 o->base_widths ? "base" : "candidate", (unsigned long long)w->omitted,
			 w->omitted == 1 ? "" : "s", o->min_width, cut);
	return s;
}

/* Wraps the header's texts; returns the y of the first frame row. */
static double header_lines(struct header *h, const struct writer *w)
{
	const fg_svg_options *o = w->o;
	size_t max = (size_t)((o->width - 2.0 * PAD) / HEAD_CHAR_W);
	h->text[TEXT_BASE] = side_line("Base", &o->base, w->total[FG_DIFF_BASE]);
	h->text[TEXT_CANDIDATE] = side_line("Candidate", &o->candidate, w->total[FG_DIFF_CANDIDATE]);
	h->text[TEXT_NOTE] = note_text(w);
	size_t lines = 0;
	for (int s = 0; s < NTEXTS; s++) {
		h->lines[s] = h->text[s] ? wrap(h->starts[s], h->ends[s], &h->cut[s], h->text[s], max,
						s == TEXT_NOTE ? MAX_LINES : MAX_SIDE_LINES) : 0;
		lines += h->lines[s];
	}
	/* title 30, the lines, the key row 40 (its floor labels under it), the search result row 22 */
	return 30.0 + LINE_H * (double)lines + 40.0 + 22.0;
}

static double write_lines(FILE *out, const struct header *h, int s, double y, bool bold_label)
{
	for (size_t i = 0; i < h->lines[s]; i++) {
		y += LINE_H;
		fprintf(out, "<text class=\"side\" x=\"%.0f\" y=\"%.0f\">", i && bold_label ? PAD + 16.0 : PAD, y);
		const char *t = h->text[s] + h->starts[s][i];
		size_t n = h->ends[s][i] - h->starts[s][i];
		const char *colon = i == 0 && bold_label ? memchr(t, ':', n) : NULL;
		if (colon) { /* the side's name in bold */
			size_t k = (size_t)(colon - t);
			fputs("<tspan class=\"k\">", out);
			fg_markup_escape(out, t, k);
			fputs("</tspan>", out);
			t += k;
			n -= k;
		}
		fg_markup_escape(out, t, n);
		if (i + 1 == h->lines[s] && h->cut[s])
			fputs(" \xe2\x80\xa6", out);
		fputs("</text>\n", out);
	}
	return y;
}

static void write_header(const struct header *h, const struct writer *w)
{
	FILE *out = w->out;
	const fg_svg_options *o = w->o;
	double y = 30.0;
	y = write_lines(out, h, TEXT_BASE, y, true);
	y = write_lines(out, h, TEXT_CANDIDATE, y, true);
	/* The key: shrank dark -> light, grey, grew light -> dark, on the
	 * stated scale, then the hatching. */
	y += 8.0;
	double x = PAD, sw = 26.0;
	char fill[32];
	fprintf(out, "<g class=\"key\"><text x=\"%.0f\" y=\"%.0f\">%s change, points:</text>\n", x, y + 10.0,
		o->color == FG_SVG_COLOR_SELF ? "self share" : "inclusive share");
	x += 290.0;
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">\xe2\x88\x92%.3g or more</text>\n", x - 4.0,
		y + 10.0, w->saturate);
	for (int i = KEY_STEPS - 1; i >= 0; i--, x += sw) {
		ramp_colour(fill, sizeof(fill), false, (double)i / (KEY_STEPS - 1));
		fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"12\" fill=\"%s\"/>\n", x, y, sw, fill);
	}
	/* The floor's labels under the grey swatch's edges, each on its own side, so that they never touch. */
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" font-size=\"10\">\xe2\x88\x92%.3g</text>\n",
		x + 4.0, y + 24.0, w->min_delta);
	fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"12\" fill=\"" GREY "\"/>\n", x, y, sw * 1.5);
	x += sw * 1.5;
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\">+%.3g</text>\n", x - 4.0, y + 24.0, w->min_delta);
	for (int i = 0; i < KEY_STEPS; i++, x += sw) {
		ramp_colour(fill, sizeof(fill), true, (double)i / (KEY_STEPS - 1));
		fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"12\" fill=\"%s\"/>\n", x, y, sw, fill);
	}
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">+%.3g or more</text>\n", x + 4.0, y + 10.0, w->saturate);
	/* The hatching's sample: on the key row when there is room, else on
	 * the search result's row (at the left; the result is at the right). */
	double hy = y;
	x += 110.0;
	if (x + 220.0 > o->width) {
		x = PAD;
		hy = w->frames_top - 20.0;
	}
	fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"12\" fill=\"" GREY "\"/>"
		     "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"12\" fill=\"url(#%s)\"/>\n", x, hy, sw, x, hy, sw,
		o->base_widths ? "fg-gone" : "fg-new");
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", x + sw + 4.0, hy + 10.0,
		o->base_widths ? "gone from the candidate" : "new in the candidate");
	write_lines(out, h, TEXT_NOTE, y + 24.0, false);
	fputs("</g>\n", out);
}

static void header_free(struct header *h)
{
	for (int s = 0; s < NTEXTS; s++)
		free(h->text[s]);
}

/* The depth beyond which frames are cut (CLIP_SHARE, CLIP_ROWS), or
 * UINT32_MAX when the tree is drawn whole. */
static int clip_depth(uint32_t *out, const fg_tree *tree, uint32_t max_depth, fg_error *err)
{
	*out = UINT32_MAX;
	uint64_t total = fg_tree_node_at(tree, 0)->total;
	if (max_depth <= 2 * CLIP_ROWS || total == 0)
		return 0;
	uint64_t *leaves = calloc((size_t)max_depth + 1, sizeof(*leaves));
	if (!leaves)
		return fg_error_oom(err, NULL);
	uint32_t size = fg_tree_size(tree);
	for (uint32_t i = 0; i < size; i++)
		leaves[fg_tree_node_at(tree, i)->depth] += fg_tree_node_at(tree, i)->self;
	uint64_t sum = 0;
	uint32_t d = 0;
	while (d < max_depth && (sum += leaves[d]) < CLIP_SHARE * (double)total)
		d++;
	free(leaves);
	if (max_depth >= d + 2 * CLIP_ROWS)
		*out = d + CLIP_ROWS;
	return 0;
}

/* By name id, the delta of every frame the diff lists, NAN for the rest. */
static int listed_frames(float **out, fg_diff *diff, const fg_names *names, bool self, fg_error *err)
{
	fg_diff_result r;
	int rc = fg_diff_compute_shares(&r, diff, self, err);
	if (rc)
		return rc;
	uint32_t nn = fg_names_count(names);
	float *a = malloc((nn ? nn : 1) * sizeof(*a));
	if (!a) {
		fg_diff_result_free(&r);
		return fg_error_oom(err, NULL);
	}
	for (uint32_t i = 0; i < nn; i++)
		a[i] = NAN;
	for (size_t i = 0; i < r.ngrew; i++)
		a[r.grew[i].name] = (float)r.grew[i].delta;
	for (size_t i = 0; i < r.nshrank; i++)
		a[r.shrank[i].name] = (float)r.shrank[i].delta;
	fg_diff_result_free(&r);
	*out = a;
	return 0;
}

int fg_svg_write_diff(FILE *out, fg_diff *diff, const fg_names *names, const fg_svg_options *o, fg_error *err)
{
	const fg_tree *base = fg_diff_tree(diff, FG_DIFF_BASE), *candidate = fg_diff_tree(diff, FG_DIFF_CANDIDATE);
	if (!base || !candidate)
		return fg_error_set(err, FG_EUSAGE, NULL, "the differential flame graph needs the diff's trees");
	struct writer w = { .out = out, .o = o, .diff = diff, .names = names };
	w.drawn = o->base_widths ? base : candidate;
	w.other = o->base_widths ? candidate : base;
	w.total[FG_DIFF_BASE] = fg_tree_node_at(base, 0)->total;
	w.total[FG_DIFF_CANDIDATE] = fg_tree_node_at(candidate, 0)->total;
	w.min_delta = fmax(fg_diff_min_delta(diff), FG_DIFF_FLOOR);
	w.saturate = fmax(o->saturate, 2.0 * w.min_delta);
	uint64_t drawn_total = fg_tree_node_at(w.drawn, 0)->total;
	double full = o->width - 2.0 * PAD;
	w.scale = drawn_total ? full / (double)drawn_total : 0.0;

	uint32_t size = fg_tree_size(w.drawn), max_depth = 0;
	for (uint32_t i = 0; i < size; i++)
		if (fg_tree_node_at(w.drawn, i)->depth > max_depth)
			max_depth = fg_tree_node_at(w.drawn, i)->depth;
	int rc = clip_depth(&w.clip, w.drawn, max_depth, err);
	if (rc)
		return rc;
	/* A frame is drawn when it is wide enough and not cut, and then so are
	 * its ancestors: the deepest such frame sets the height.  The key
	 * line that says how many are left out comes before the frames: count
	 * them here (the walk checks the counts). */
	for (uint32_t i = 1; i < size; i++) {
		const fg_tree_node *n = fg_tree_node_at(w.drawn, i);
		bool wide = (double)n->total * w.scale >= o->min_width;
		if (n->depth > w.clip) {
			w.clipped++;
			if (n->depth == w.clip + 1)
				w.clipped_samples += n->total;
		} else if (!wide) {
			w.omitted++;
		} else if (n->depth > w.depth) {
			w.depth = n->depth;
		}
	}
	rc = listed_frames(&w.listed, diff, names, o->color == FG_SVG_COLOR_SELF, err);
	if (rc)
		return rc;
	struct header h = { 0 };
	w.frames_top = header_lines(&h, &w);
	w.peer = malloc((size_t)size * sizeof(*w.peer));
	w.cursor = calloc((size_t)max_depth + 2, sizeof(*w.cursor));
	if (!w.peer || !w.cursor || !h.text[TEXT_BASE] || !h.text[TEXT_CANDIDATE] || !h.text[TEXT_NOTE]) {
		free(w.peer);
		free(w.cursor);
		free(w.listed);
		header_free(&h);
		return fg_error_oom(err, NULL);
	}
	double frames_bottom = w.frames_top + FRAME_H * (w.depth + 1);
	double height = frames_bottom + 8.0 + LINE_H * DETAIL_LINES + 6.0;
	if (!o->fragment)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", out);
	fprintf(out, "<svg class=\"fg-diff\" version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		     "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" data-top=\"%.0f\" data-depth=\"%u\" data-inverted=\"%d\" "
		     "data-base-total=\"%llu\" data-candidate-total=\"%llu\">\n<style>\n%s</style>\n"
		     "<defs><pattern id=\"fg-new\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
		     "patternTransform=\"rotate(45)\"><rect width=\"2\" height=\"6\" fill=\"#000\" fill-opacity=\"0.4\"/>"
		     "</pattern><pattern id=\"fg-gone\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
		     "patternTransform=\"rotate(-45)\"><rect width=\"2\" height=\"6\" fill=\"#000\" fill-opacity=\"0.4\"/>"
		     "</pattern></defs>\n<script><![CDATA[\n%s]]></script>\n"
		     "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#fafafa\"/>\n"
		     "<text id=\"fg-title\" x=\"%.0f\" y=\"22\" text-anchor=\"middle\">",
		o->width, height, o->width, height, w.frames_top, w.depth, o->inverted ? 1 : 0,
		(unsigned long long)w.total[FG_DIFF_BASE], (unsigned long long)w.total[FG_DIFF_CANDIDATE], style, script,
		o->width / 2.0);
	fg_markup_text(out, o->title ? o->title : "");
	fprintf(out, "</text>\n<text id=\"fg-unzoom\" class=\"button\" x=\"%.0f\" y=\"22\" style=\"display:none\">"
		     "Reset zoom</text>\n"
		     "<text id=\"fg-invert\" class=\"button\" x=\"%.0f\" y=\"22\" text-anchor=\"end\">%s</text>\n"
		     "<text id=\"fg-search\" class=\"button\" x=\"%.0f\" y=\"22\" text-anchor=\"end\">Search</text>\n",
		PAD, o->width - PAD - 110.0, o->inverted ? "Root at the bottom" : "Root at the top", o->width - PAD);
	if (o->search) { /* the search the picture opens with */
		fputs("<metadata class=\"fg-preset\">", out);
		fg_markup_text(out, o->search);
		fputs("</metadata>\n", out);
	}
	write_header(&h, &w);
	fprintf(out, "<text id=\"fg-details\">");
	for (int i = 0; i < DETAIL_LINES; i++)
		fprintf(out, "<tspan x=\"%.0f\" y=\"%.0f\"> </tspan>", PAD, frames_bottom + 4.0 + LINE_H * (i + 1));
	fprintf(out, "</text>\n<text id=\"fg-probe\" visibility=\"hidden\"> </text>\n<text id=\"fg-matched\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\"> </text>\n"
		     "<g id=\"fg-frames\">\n", o->width - PAD, w.frames_top - 8.0);
	uint64_t omitted = w.omitted, clipped = w.clipped;
	w.omitted = w.clipped = 0;
	rc = fg_tree_walk(w.drawn, names, write_node, &w, err);
	if (!rc && (w.omitted != omitted || w.clipped != clipped))
		rc = fg_error_set(err, FG_EINTERNAL, NULL, "SVG: %llu + %llu frames left out, %llu + %llu counted",
				  (unsigned long long)w.omitted, (unsigned long long)w.clipped,
				  (unsigned long long)omitted, (unsigned long long)clipped);
	if (!rc)
		fputs("</g>\n</svg>\n", out);
	free(w.peer);
	free(w.cursor);
	free(w.listed);
	header_free(&h);
	if (rc)
		return rc;
	if (fflush(out) != 0 || ferror(out))
		return fg_error_set(err, FG_EOUTPUT, NULL, "cannot write the SVG: %s", strerror(errno));
	return 0;
}
