#include "svg.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#define PAD 10.0
#define TOP 64.0          /* title, subtitle and legend above the frames */
#define FRAME_H 16.0
#define CHAR_W 6.5        /* average width of an 11px sans-serif character */

void fg_svg_options_init(fg_svg_options *opts)
{
	*opts = (fg_svg_options){
		.title = "Differential flame graph",
		.width = 1200.0,
		.min_width = 0.1,
		.saturate = 5.0,
		.unchanged = 0.05,
	};
}

/* The length of the valid UTF-8 sequence at s (at most n bytes), 0 when
 * invalid: overlong forms, surrogates and code points past U+10FFFF are
 * rejected, as XML parsers do. */
static size_t utf8_length(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff) || cp >= 0xfffe)) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/* Writes s[0..n) as XML character data or attribute text. */
static void put_escaped(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t len = utf8_length(s + i, n - i);
		if (len == 0) {
			fputs("\xef\xbf\xbd", out);
			i++;
			continue;
		}
		if (len > 1) {
			fwrite(s + i, 1, len, out);
		} else if (c == '&') {
			fputs("&amp;", out);
		} else if (c == '<') {
			fputs("&lt;", out);
		} else if (c == '>') {
			fputs("&gt;", out);
		} else if (c == '"') {
			fputs("&quot;", out);
		} else if (c < 0x20 || c == 0x7f) {
			fputc('?', out);
		} else {
			fputc((int)c, out);
		}
		i += len;
	}
}

static void put_text(FILE *out, const char *s)
{
	put_escaped(out, s, strlen(s));
}

struct writer {
	FILE *out;
	const fg_svg_options *o;
	const fg_tree *drawn, *other;
	const fg_names *names;
	uint32_t *peer;        /* drawn node -> the node at the same path in other, or FG_TREE_NONE */
	double *cursor;        /* by depth: x where the next frame starts */
	double scale;          /* pixels per sample of the drawn tree */
	uint64_t drawn_total, other_total;
	uint64_t omitted;
};

/* The fill of a change of delta points, and whether it is dark enough to
 * need white text.  sqrt so that small changes are already visible. */
static bool fill_colour(char *buf, size_t size, double delta, const fg_svg_options *o)
{
	double a = fabs(delta);
	if (a < o->unchanged) {
		snprintf(buf, size, "rgb(214,214,214)");
		return false;
	}
	double t = sqrt(fmin(a / o->saturate, 1.0));
	int v = (int)lround(225.0 * (1.0 - t));
	if (delta > 0)
		snprintf(buf, size, "rgb(255,%d,%d)", v, v);
	else
		snprintf(buf, size, "rgb(%d,%d,255)", v, v + (255 - v) / 4);
	return t > 0.75;
}

static void put_label(FILE *out, const char *name, size_t len, double w)
{
	double fit = floor((w - 6.0) / CHAR_W);
	if (fit < 3.0)
		return;
	if ((double)len <= fit) {
		put_escaped(out, name, len);
		return;
	}
	/* Cut at a character boundary, leaving room for "..". */
	size_t k = (size_t)fit - 2;
	while (k > 0 && ((unsigned char)name[k] & 0xc0) == 0x80)
		k--;
	put_escaped(out, name, k);
	fputs("..", out);
}

static int write_node(void *ctx, uint32_t id, fg_error *err)
{
	(void)err;
	struct writer *w = ctx;
	const fg_tree_node *n = fg_tree_node_at(w->drawn, id);
	double x = PAD, width = (double)n->total * w->scale;
	if (id == 0) {
		w->peer[0] = 0;
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
	double incl[2], self[2]; /* [0] drawn, [1] other */
	incl[0] = fg_percent(n->total, w->drawn_total);
	self[0] = fg_percent(n->self, w->drawn_total);
	incl[1] = m ? fg_percent(m->total, w->other_total) : 0.0;
	self[1] = m ? fg_percent(m->self, w->other_total) : 0.0;
	int b = w->o->base_widths ? 0 : 1, c = 1 - b;
	double delta = incl[c] - incl[b];
	char fill[32];
	bool dark = fill_colour(fill, sizeof(fill), delta, w->o);

	FILE *out = w->out;
	const char *name = fg_names_get(w->names, n->name);
	size_t len = fg_names_length(w->names, n->name);
	fputs("<g class=\"f\"><title>", out);
	put_escaped(out, name, len);
	fprintf(out, "\ninclusive: base %.2f%% \xe2\x86\x92 candidate %.2f%% (%+.2f points)"
		     "\nself: base %.2f%% \xe2\x86\x92 candidate %.2f%%",
		incl[b], incl[c], delta, self[b], self[c]);
	if (!m)
		fputs(w->o->base_widths ? "\ngone from the candidate" : "\nnew in the candidate", out);
	fprintf(out, "</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"/>"
		     "<text%s x=\"%.2f\" y=\"%.0f\">",
		x, TOP + FRAME_H * n->depth, width, FRAME_H - 1.0, fill, dark ? " class=\"d\"" : "", x + 3.0,
		TOP + FRAME_H * n->depth + 11.5);
	put_label(out, name, len, width);
	fputs("</text></g>\n", out);
	return 0;
}

/* Zoom re-scales x of the clicked frame's subtree to the full width and
 * keeps its ancestors (faded) at full width; search highlights matches and
 * adds up the widths of the outermost ones. */
static const char script[] =
	"'use strict';\n"
	"var W, PAD = 10, frames = [], searchRe = null;\n"
	"function fit(f, x, w) {\n"
	"  var n = Math.floor((w - 6) / 6.5), s = f.name;\n"
	"  f.t.setAttribute('x', x + 3);\n"
	"  f.t.textContent = n < 3 ? '' : s.length <= n ? s : s.slice(0, n - 2) + '..';\n"
	"}\n"
	"function zoom(z) {\n"
	"  var full = W - 2 * PAD, scale = full / z.w, eps = 0.02;\n"
	"  document.getElementById('unzoom').style.display = z === frames[0] ? 'none' : '';\n"
	"  frames.forEach(function (o) {\n"
	"    var x = PAD, w = full, show, anc = false;\n"
	"    if (o.y < z.y) { show = anc = o.x <= z.x + eps && o.x + o.w >= z.x + z.w - eps; }\n"
	"    else if (o.y === z.y) { show = o === z; }\n"
	"    else { show = o.x >= z.x - eps && o.x + o.w <= z.x + z.w + eps;\n"
	"           x = PAD + (o.x - z.x) * scale; w = o.w * scale; }\n"
	"    o.g.style.display = show ? '' : 'none';\n"
	"    if (!show) return;\n"
	"    o.g.setAttribute('class', anc ? 'f anc' : 'f');\n"
	"    o.r.setAttribute('x', x.toFixed(2));\n"
	"    o.r.setAttribute('width', w.toFixed(2));\n"
	"    fit(o, x, w);\n"
	"  });\n"
	"}\n"
	"function search() {\n"
	"  var label = document.getElementById('search'), matched = document.getElementById('matched');\n"
	"  frames.forEach(function (o) { o.r.setAttribute('fill', o.fill); });\n"
	"  if (searchRe) { searchRe = null; label.textContent = 'Search'; matched.textContent = ''; return; }\n"
	"  var term = window.prompt('Highlight frames matching (regular expression):', '');\n"
	"  if (!term) return;\n"
	"  try { searchRe = new RegExp(term); } catch (e) { window.alert(e.message); return; }\n"
	"  var hits = frames.filter(function (o) { return searchRe.test(o.name); });\n"
	"  hits.forEach(function (o) { o.r.setAttribute('fill', 'rgb(200,60,230)'); });\n"
	"  hits.sort(function (a, b) { return a.x - b.x || a.y - b.y; });\n"
	"  var sum = 0, end = -1;\n"
	"  hits.forEach(function (o) { if (o.x >= end - 0.005) { sum += o.w; end = o.x + o.w; } });\n"
	"  label.textContent = 'Reset search';\n"
	"  matched.textContent = 'Matched: ' + (100 * sum / (W - 2 * PAD)).toFixed(2) + '% (' + hits.length + ' frames)';\n"
	"}\n"
	"function init() {\n"
	"  W = +document.documentElement.getAttribute('width');\n"
	"  var details = document.getElementById('details'), gs = document.getElementById('frames').children;\n"
	"  for (var i = 0; i < gs.length; i++) {\n"
	"    var g = gs[i], r = g.children[1];\n"
	"    var f = { g: g, r: r, t: g.children[2], x: +r.getAttribute('x'), w: +r.getAttribute('width'),\n"
	"              y: +r.getAttribute('y'), fill: r.getAttribute('fill'),\n"
	"              name: g.children[0].textContent.split('\\n')[0] };\n"
	"    frames.push(f);\n"
	"    g.addEventListener('click', zoom.bind(null, f));\n"
	"    g.addEventListener('mouseover', function () {\n"
	"      details.textContent = this.children[0].textContent.replace(/\\n/g, '  |  ');\n"
	"    });\n"
	"    g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
	"  }\n"
	"  document.getElementById('search').addEventListener('click', search);\n"
	"  document.getElementById('unzoom').addEventListener('click', function () { zoom(frames[0]); });\n"
	"  window.addEventListener('keydown', function (e) {\n"
	"    if ((e.ctrlKey || e.metaKey) && (e.key === 'f' || e.key === 'F')) { e.preventDefault(); search(); }\n"
	"  });\n"
	"}\n"
	"window.addEventListener('load', init);\n";

static const char style[] =
	"text { font: 12px Verdana, 'DejaVu Sans', sans-serif; fill: #000; }\n"
	"#title { font-size: 17px; }\n"
	"#subtitle, #legend, #details, #matched { fill: #333; }\n"
	"#search, #unzoom { cursor: pointer; fill: #1a4fbf; }\n"
	"g.f { cursor: pointer; }\n"
	"g.f text { pointer-events: none; font-size: 11px; }\n"
	"g.f text.d { fill: #fff; }\n"
	"g.f:hover rect { stroke: #000; stroke-width: 0.6; }\n"
	"g.anc { opacity: 0.55; }\n";

int fg_svg_write_diff(FILE *out, const fg_tree *base, const fg_tree *candidate, const fg_names *names,
		      const fg_svg_options *o, fg_error *err)
{
	struct writer w = { .out = out, .o = o, .names = names };
	w.drawn = o->base_widths ? base : candidate;
	w.other = o->base_widths ? candidate : base;
	w.drawn_total = fg_tree_node_at(w.drawn, 0)->total;
	w.other_total = fg_tree_node_at(w.other, 0)->total;
	double full = o->width - 2.0 * PAD;
	w.scale = w.drawn_total ? full / (double)w.drawn_total : 0.0;

	/* A frame is drawn when it is wide enough, and then so are its
	 * ancestors: the deepest such frame sets the height. */
	uint32_t size = fg_tree_size(w.drawn), depth = 0, max_depth = 0;
	for (uint32_t i = 0; i < size; i++) {
		const fg_tree_node *n = fg_tree_node_at(w.drawn, i);
		if (n->depth > max_depth)
			max_depth = n->depth;
		if (n->depth > depth && (double)n->total * w.scale >= o->min_width)
			depth = n->depth;
	}
	w.peer = malloc((size_t)size * sizeof(*w.peer));
	w.cursor = calloc((size_t)max_depth + 2, sizeof(*w.cursor));
	if (!w.peer || !w.cursor) {
		free(w.peer);
		free(w.cursor);
		return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	}
	double height = TOP + FRAME_H * (depth + 1) + 24.0;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		     "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		     "viewBox=\"0 0 %.0f %.0f\">\n<style>\n%s</style>\n<script><![CDATA[\n%s]]></script>\n"
		     "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#fafafa\"/>\n"
		     "<text id=\"title\" x=\"%.0f\" y=\"22\" text-anchor=\"middle\">",
		o->width, height, o->width, height, style, script, o->width / 2.0);
	put_text(out, o->title ? o->title : "");
	fprintf(out, "</text>\n<text id=\"subtitle\" x=\"%.0f\" y=\"39\" text-anchor=\"middle\">", o->width / 2.0);
	put_text(out, o->subtitle ? o->subtitle : "");
	fprintf(out, "</text>\n<text id=\"unzoom\" x=\"%.0f\" y=\"22\" style=\"display:none\">Reset zoom</text>\n"
		     "<text id=\"search\" x=\"%.0f\" y=\"22\" text-anchor=\"end\">Search</text>\n"
		     "<text id=\"details\" x=\"%.0f\" y=\"%.0f\"> </text>\n"
		     "<text id=\"matched\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\"> </text>\n<g id=\"frames\">\n",
		PAD, o->width - PAD, PAD, height - 8.0, o->width - PAD, height - 8.0);

	int rc = fg_tree_walk(w.drawn, names, write_node, &w, err);
	if (!rc)
		fprintf(out, "</g>\n<text id=\"legend\" x=\"%.0f\" y=\"56\" text-anchor=\"middle\">widths: %s, "
			     "%llu samples \xc2\xb7 red: inclusive share grew, blue: shrank, grey: unchanged "
			     "\xc2\xb7 %llu frames narrower than %.2g px not drawn</text>\n</svg>\n",
			o->width / 2.0, o->base_widths ? "base" : "candidate", (unsigned long long)w.drawn_total,
			(unsigned long long)w.omitted, o->min_width);
	free(w.peer);
	free(w.cursor);
	if (rc)
		return rc;
	if (fflush(out) != 0 || ferror(out))
		return fg_error_set(err, FG_EOUTPUT, NULL, "cannot write the SVG: %s", strerror(errno));
	return 0;
}
