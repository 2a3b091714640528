#include "output/chart.h"

#include <errno.h>
#include <math.h>
#include <string.h>

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
