#include "output/chart.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "output/markup.h"

void fg_chart_options_init(fg_chart_options *opts)
{
	*opts = (fg_chart_options){ .width = 40 };
}

double fg_chart_scale(double max_value, double threshold)
{
	double top = fmax(threshold * 1.5, max_value);
	if (!(top > 0))
		return 1.0;
	double p = pow(10.0, floor(log10(top)));
	static const double steps[] = { 1, 2, 2.5, 5, 10 };
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] * p >= top - 1e-9)
			return fmin(steps[i] * p, 100.0);
	return fmin(10 * p, 100.0);
}

static const char *const eighths[9] = { "", "\xe2\x96\x8f", "\xe2\x96\x8e", "\xe2\x96\x8d", "\xe2\x96\x8c",
					"\xe2\x96\x8b", "\xe2\x96\x8a", "\xe2\x96\x89", "\xe2\x96\x88" };

static const char *mark_name(enum fg_chart_mark m)
{
	return m == FG_CHART_FAST ? "fast" : m == FG_CHART_SLOW ? "slow" : "skip";
}

static const char *mark_colour(enum fg_chart_mark m)
{
	return m == FG_CHART_FAST ? "\033[32m" : m == FG_CHART_SLOW ? "\033[31m" : "\033[33m";
}

static void write_bar(FILE *out, const fg_chart_row *r, double unit, unsigned tcol, const fg_chart_options *o)
{
	const char *colour = o->color ? mark_colour(r->mark) : NULL;
	bool coloured = false;
	for (unsigned c = 0; c < o->width; c++) {
		double from = c * unit, to = (c + 1) * unit;
		/* Eighths of this cell the bar covers. */
		int k = !r->has_share ? 0 : r->share >= to ? 8 : r->share <= from ? 0
			: (int)lround((r->share - from) / unit * 8.0);
		bool in_interval = r->has_share && r->hi > from && r->lo < to;
		bool bar = k > 0;
		if (colour && bar != coloured) {
			fputs(bar ? colour : "\033[0m", out);
			coloured = bar;
		}
		if (c == tcol) {
			fputs(o->ascii ? "|" : bar ? "\xe2\x94\x83" : "\xe2\x94\x82", out);
		} else if (bar) {
			fputs(o->ascii ? "#" : eighths[k], out);
		} else if (in_interval) {
			fputs(o->ascii ? "." : "\xc2\xb7", out);
		} else {
			fputc(' ', out);
		}
	}
	if (coloured)
		fputs("\033[0m", out);
}

int fg_chart_write(FILE *out, const fg_chart_row *rows, size_t n, const fg_chart_options *o, fg_error *err)
{
	size_t label_w = 0;
	for (size_t i = 0; i < n; i++)
		if (rows[i].label && strlen(rows[i].label) > label_w)
			label_w = strlen(rows[i].label);
	unsigned width = o->width ? o->width : 40;
	fg_chart_options opts = *o;
	opts.width = width;
	double max_hi = 0;
	for (size_t i = 0; i < n; i++)
		if (rows[i].has_share && rows[i].hi > max_hi)
			max_hi = rows[i].hi;
	double top = fg_chart_scale(max_hi, o->threshold), unit = top / width;
	unsigned tcol = (unsigned)fmin(floor(o->threshold / unit), width - 1);
	for (size_t i = 0; i < n; i++) {
		const fg_chart_row *r = &rows[i];
		fprintf(out, "%-*s  ", (int)label_w, r->label ? r->label : "");
		if (o->color)
			fprintf(out, "%s%s\033[0m ", mark_colour(r->mark), mark_name(r->mark));
		else
			fprintf(out, "%s ", mark_name(r->mark));
		if (r->has_share)
			fprintf(out, "%6.2f%% ", r->share);
		else
			fprintf(out, "%7s ", "-");
		write_bar(out, r, unit, tcol, &opts);
		if (r->has_share)
			fprintf(out, " %.2f-%.2f%%", r->lo, r->hi);
		if (r->note && *r->note)
			fprintf(out, "  %s", r->note);
		fputc('\n', out);
	}
	/* The scale under the bars: 0, the threshold and the top at their columns. */
	char ticks[512];
	size_t indent = label_w + 2 + 5 + 8, len = indent + width + 16;
	if (len >= sizeof(ticks))
		len = sizeof(ticks) - 1;
	memset(ticks, ' ', len);
	ticks[len] = '\0';
	char t[32];
	int k = snprintf(t, sizeof(t), "%g%%", o->threshold);
	size_t at = indent + tcol;
	if (at + (size_t)k < len)
		memcpy(ticks + at, t, (size_t)k);
	if (indent + 2 < at)
		memcpy(ticks + indent, "0%", 2);
	k = snprintf(t, sizeof(t), "%g%%", top);
	at = indent + width - (size_t)k;
	if (at > indent + tcol + 6 && at + (size_t)k < len)
		memcpy(ticks + at, t, (size_t)k);
	while (len > 0 && ticks[len - 1] == ' ')
		ticks[--len] = '\0';
	fprintf(out, "%s\n%*s%s threshold %g%%, %s 95%% interval, scale 0-%g%%\n", ticks, (int)indent, "",
		o->ascii ? "|" : "\xe2\x94\x82", o->threshold, o->ascii ? "." : "\xc2\xb7", top);
	if (fflush(out) != 0 || ferror(out))
		return fg_error_set(err, FG_EOUTPUT, NULL, "cannot write the chart: %s", strerror(errno));
	return 0;
}

static const char *svg_colour(enum fg_chart_mark m)
{
	return m == FG_CHART_FAST ? "#1a9850" : m == FG_CHART_SLOW ? "#d73027" : "#999999";
}

/* The picture's frame, in pixels. */
#define SVG_W 960.0
#define SVG_H 360.0
#define SVG_LEFT 84.0   /* the axis' ticks, and room for the first column's label (its 75 px to the left) */
#define SVG_RIGHT 112.0   /* the threshold's label */
#define SVG_TOP 24.0
#define SVG_BOTTOM 132.0  /* the rotated date and commit labels */
/* Rotated -60 degrees (a label of 150 px reaches 75 px to the left, 130 px
 * down), neighbouring column labels lie step * sin 60 apart: 17 px keeps
 * 14.7 px, a 12 px line and its gap. */
#define SVG_LABEL_PITCH 17.0
#define SVG_CHAR_W 7.4    /* a bold 12 px character, at most (DejaVu Sans Bold) */

/* Whether column i gets its date-and-commit label: at least k columns
 * after the last one labelled, and not within k before a marked run (last
 * fast, first slow: the later of two marked runs too close wins), which
 * takes the place. */
static bool column_labelled(const fg_chart_run *runs, size_t n, size_t i, size_t k, size_t *last, bool *any)
{
	if (*any && i - *last < k)
		return false;
	for (size_t j = i + 1; j < n && j - i < k; j++)
		if (runs[j].row->note)
			return false;
	*last = i;
	*any = true;
	return true;
}

static void svg_column(FILE *out, const fg_chart_run *run, double x, double (*y)(double, double), double scale,
		       double threshold, bool labelled, double step)
{
	const fg_chart_row *m = run->row;
	const char *c = svg_colour(m->mark);
	fputs("<g><title>", out);
	fg_markup_text(out, run->date ? run->date : "");
	fputc(' ', out);
	fg_markup_text(out, run->commit ? run->commit : "");
	fprintf(out, ": %s", mark_name(m->mark));
	if (m->has_share)
		fprintf(out, ", %.2f%% (95%% interval %.2f-%.2f%%)", m->share, m->lo, m->hi);
	if (run->reason) {
		fputc('\n', out);
		fg_markup_text(out, run->reason);
	}
	fputs("</title>", out);
	if (m->has_share) {
		double lo = y(m->lo, scale), hi = y(m->hi, scale);
		fprintf(out, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fh10M%.1f %.1fh10\" stroke=\"%s\" stroke-width=\"2\" "
			     "fill=\"none\"/><circle class=\"run %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"5.5\" fill=\"%s\" "
			     "stroke=\"%s\" stroke-width=\"2\"/>",
			x, lo, hi, x - 5, lo, x - 5, hi, c, mark_name(m->mark), x, y(m->share, scale),
			m->mark == FG_CHART_SKIP ? "#fff" : c, c);
	} else {
		/* Nothing measured: a hollow marker on the axis. */
		fprintf(out, "<path class=\"run skip\" d=\"M%.1f %.1f l-6 -10 h12 z\" fill=\"#fff\" stroke=\"%s\" "
			     "stroke-width=\"2\"/>", x, y(0, scale) - 1, c);
	}
	/* The point's word, away from the threshold line: under a run below it. */
	const char *word = m->note ? m->note : mark_name(m->mark);
	/* A mark's word where a column holds the longest one ("first slow") with a gap: the words of
	 * neighbours never meet; a note always (the notes sit on either side of the threshold). */
	if (m->note || step >= SVG_CHAR_W * 10.0 + 6.0) {
		double ly = !m->has_share ? y(0, scale) - 16 : m->share < threshold ? y(m->lo, scale) + 18
			  : y(m->hi, scale) - 10;
		fprintf(out, "<text class=\"word\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"%s\" "
			     "font-weight=\"bold\">%s</text>", x, ly, c, word);
	}
	if (labelled) {
		fprintf(out, "<text class=\"tick\" transform=\"translate(%.1f %.1f) rotate(-60)\" text-anchor=\"end\" "
			     "fill=\"#333\">", x + 4, SVG_H - SVG_BOTTOM + 14);
		fg_markup_text(out, run->date ? run->date : "");
		fputs(" <tspan fill=\"#777\" font-family=\"'DejaVu Sans Mono', monospace\" font-size=\"10\">", out);
		fprintf(out, "%.10s</tspan></text>", run->commit ? run->commit : "");
	}
	fputs("</g>\n", out);
}

static double svg_y(double v, double scale)
{
	return SVG_TOP + (SVG_H - SVG_TOP - SVG_BOTTOM) * (1.0 - v / scale);
}

int fg_chart_write_svg(FILE *out, const fg_chart_run *runs, size_t n, double threshold, fg_error *err)
{
	double max_hi = 0;
	for (size_t i = 0; i < n; i++)
		if (runs[i].row->has_share && runs[i].row->hi > max_hi)
			max_hi = runs[i].row->hi;
	double scale = fg_chart_scale(max_hi, threshold), pw = SVG_W - SVG_LEFT - SVG_RIGHT;
	double step = pw / (double)(n ? n : 1), yt = svg_y(threshold, scale);
	fprintf(out, "<div class=\"chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		     "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"share per run\" "
		     "font-family=\"system-ui, 'DejaVu Sans', sans-serif\" font-size=\"12\">\n",
		SVG_W, SVG_H, SVG_W, SVG_H);
	for (int k = 0; k <= 4; k++) {
		double v = scale * k / 4.0;
		fprintf(out, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>"
			     "<text class=\"axis\" x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">%g%%</text>\n",
			SVG_LEFT, SVG_W - SVG_RIGHT, svg_y(v, scale), svg_y(v, scale), SVG_LEFT - 6, svg_y(v, scale) + 4, v);
	}
	fprintf(out, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#c0262d\" stroke-width=\"1.5\" "
		     "stroke-dasharray=\"6 4\"/><text class=\"threshold\" x=\"%.0f\" y=\"%.1f\" fill=\"#c0262d\">"
		     "threshold %g%%</text>\n",
		SVG_LEFT, SVG_W - SVG_RIGHT, yt, yt, SVG_W - SVG_RIGHT + 6, yt + 4, threshold);
	size_t k = (size_t)ceil(SVG_LABEL_PITCH / step - 1e-9), last = 0;
	bool any = false;
	for (size_t i = 0; i < n; i++)
		svg_column(out, &runs[i], SVG_LEFT + step * ((double)i + 0.5), svg_y, scale, threshold,
			   column_labelled(runs, n, i, k ? k : 1, &last, &any), step);
	fprintf(out, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n</svg></div>\n", SVG_LEFT,
		SVG_W - SVG_RIGHT, svg_y(0, scale), svg_y(0, scale));
	if (ferror(out))
		return fg_error_set(err, FG_EOUTPUT, NULL, "cannot write the chart: %s", strerror(errno));
	return 0;
}
