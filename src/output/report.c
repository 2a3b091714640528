#include "output/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "net/url.h"
#include "output/markup.h"

static const char style[] =
	"body { font: 15px/1.45 system-ui, 'DejaVu Sans', sans-serif; color: #222; margin: 2em auto; max-width: 1240px;"
	" padding: 0 1em; }\n"
	"h1 { font-size: 1.5em; margin-bottom: 0.3em; }\n"
	"h2 { font-size: 1.15em; margin-top: 1.8em; border-bottom: 1px solid #ddd; }\n"
	".decision { font-size: 1.1em; background: #f4f6fa; border-left: 4px solid #1a4fbf; padding: 0.6em 1em;"
	" white-space: pre-wrap; }\n"
	".summary { margin: 0.2em 0; }\n"
	".answer { font-size: 1.2em; font-weight: bold; margin: 0.2em 0 0.4em; }\n"
	".inputs { color: #555; margin: 0 0 1em; font-size: 0.92em; }\n"
	".note { background: #fff8e1; border-left: 4px solid #c98a00; padding: 0.4em 1em; }\n"
	"table { border-collapse: collapse; width: 100%; font-size: 0.92em; }\n"
	"th, td { text-align: left; padding: 0.25em 0.6em; border-bottom: 1px solid #eee; vertical-align: top; }\n"
	"table.runs td:nth-child(-n+5) { white-space: nowrap; }\n"
	"td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }\n"
	"code, .id { font-family: 'DejaVu Sans Mono', monospace; font-size: 0.92em; }\n"
	".fast { color: #1a7a3c; font-weight: bold; } .slow { color: #c0262d; font-weight: bold; }"
	" .skip { color: #8a6d00; font-weight: bold; }\n"
	"tr.changed td { background: #fff1f0; }\n"
	".chart svg, .flame svg { max-width: 100%; height: auto; }\n"
	"footer { margin-top: 2em; color: #777; font-size: 0.85em; }\n"
	"@media print { body { margin: 0; max-width: none; font-size: 11pt; } tr { break-inside: avoid; }"
	" .flame { break-before: page; } }\n";

static void text(FILE *out, const char *s)
{
	fg_markup_text(out, s ? s : "");
}

static const char *mark_name(enum fg_chart_mark m)
{
	return m == FG_CHART_FAST ? "fast" : m == FG_CHART_SLOW ? "slow" : "skip";
}

/* The share over the runs: a static SVG (src/output/chart.h). */
static int share_chart(FILE *out, const fg_report *r, fg_error *err)
{
	fg_chart_run *runs = calloc(r->nruns ? r->nruns : 1, sizeof(*runs));
	if (!runs)
		return fg_error_oom(err, NULL);
	for (size_t i = 0; i < r->nruns; i++)
		runs[i] = (fg_chart_run){ .date = r->runs[i].date, .commit = r->runs[i].commit,
					  .reason = r->runs[i].reason, .row = &r->runs[i].measure };
	int rc = fg_chart_write_svg(out, runs, r->nruns, r->threshold, err);
	free(runs);
	return rc;
}

static void runs_table(FILE *out, const fg_report *r)
{
	fputs("<table class=\"runs\"><tr><th>date</th><th>commit</th><th>verdict</th><th>share</th>"
	      "<th>95% interval</th><th>why</th></tr>\n", out);
	for (size_t i = 0; i < r->nruns; i++) {
		const fg_report_run *run = &r->runs[i];
		fputs("<tr><td>", out);
		text(out, run->date);
		fputs("</td><td class=\"id\">", out);
		text(out, run->commit);
		fprintf(out, "</td><td class=\"%s\">%s", mark_name(run->measure.mark), mark_name(run->measure.mark));
		if (run->measure.note) {
			fputs(" (", out);
			text(out, run->measure.note);
			fputc(')', out);
		}
		if (run->measure.has_share)
			fprintf(out, "</td><td class=\"n\">%.2f%%</td><td class=\"n\">%.2f-%.2f%%</td><td>", run->measure.share,
				run->measure.lo, run->measure.hi);
		else
			fputs("</td><td class=\"n\">-</td><td class=\"n\">-</td><td>", out);
		text(out, run->reason);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void commits_table(FILE *out, const fg_report *r)
{
	fputs("<table class=\"commits\"><tr><th>commit</th><th>date</th><th>subject</th></tr>\n", out);
	for (size_t i = 0; i < r->ncommits; i++) {
		const fg_report_commit *c = &r->commits[i];
		fprintf(out, "<tr><td class=\"id\">%.12s</td><td>", c->id ? c->id : "");
		text(out, c->date);
		fputs("</td><td>", out);
		text(out, c->subject);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	if (r->commits_truncated)
		fputs("<p>More commits are in the window than shown.</p>\n", out);
}

static void files_table(FILE *out, const fg_report *r)
{
	fputs("<table class=\"files\"><tr><th>source file</th><th>in the window</th><th>last commit</th></tr>\n", out);
	for (size_t i = 0; i < r->nfiles; i++) {
		const fg_report_file *f = &r->files[i];
		fprintf(out, "<tr%s><td><code>", f->changed == 1 ? " class=\"changed\"" : "");
		text(out, f->path);
		fputs("</code><br><small>", out);
		text(out, f->frame);
		fprintf(out, "</small></td><td>%s</td><td>", f->changed == 1 ? "<b>changed</b>"
							  : f->changed == 0 ? "unchanged" : "-");
		if (f->last_id) {
			fprintf(out, "<span class=\"id\">%.12s</span> ", f->last_id);
			text(out, f->last_date);
			fputs(" ", out);
			text(out, f->last_subject);
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void diff_table(FILE *out, const char *heading, const fg_diff_entry *e, size_t n, const fg_names *names)
{
	fprintf(out, "<h3>%s (%zu)</h3>\n", heading, n);
	if (!n)
		return;
	fputs("<table class=\"frames\"><tr><th>frame</th><th>base</th><th>candidate</th><th>change</th>"
	      "<th>noise</th><th>z</th></tr>\n", out);
	for (size_t i = 0; i < n && i < 25; i++) {
		fputs("<tr><td><code>", out);
		fg_markup_escape(out, fg_names_get(names, e[i].name), fg_names_length(names, e[i].name));
		fprintf(out, "</code>%s</td><td class=\"n\">%.2f%%</td><td class=\"n\">%.2f%%</td><td class=\"n\">%+.2f</td>"
			     "<td class=\"n\">%.2f</td><td class=\"n\">%+.1f</td></tr>\n",
			e[i].status == FG_DIFF_NEW ? " <small>new</small>" : e[i].status == FG_DIFF_GONE ? " <small>gone</small>"
											  : "",
			e[i].base, e[i].candidate, e[i].delta, e[i].noise, e[i].z);
	}
	fputs("</table>\n", out);
	if (n > 25)
		fprintf(out, "<p>and %zu more (see the text or --json output).</p>\n", n - 25);
}

static void metrics_table(FILE *out, const fg_metrics_result *m)
{
	fputs("<h2>Metrics</h2>\n<p class=\"summary\">", out);
	if (m->fired >= 0) {
		fputs("Hypothesis (rule <code>", out);
		text(out, m->rule_results[m->fired].def->name);
		fputs("</code>): ", out);
		text(out, m->rule_results[m->fired].def->hypothesis);
	} else if (m->undecided >= 0) {
		fputs("Cannot tell: rule <code>", out);
		text(out, m->rule_results[m->undecided].def->name);
		fputs("</code> and any other that could fit rest on ratios within noise (their 95% interval holds the "
		      "bound).", out);
	} else {
		fputs("No interpretation rule matched.", out);
	}
	fputs("</p>\n<table class=\"frames\"><tr><th>signal</th><th>base</th><th>candidate</th><th>ratio</th>"
	      "<th>95% interval</th><th>unit</th></tr>\n", out);
	for (size_t i = 0; i < m->nsignals; i++) {
		const fg_metric_signal *s = &m->signals[i];
		char b[32], c[32], ratio[48], ci[48] = "";
		fg_metric_value_text(b, sizeof(b), &s->side[0]);
		fg_metric_value_text(c, sizeof(c), &s->side[1]);
		fg_metric_ratio_text(ratio, sizeof(ratio), s->ratio, s->def->better);
		if (s->def->kind != FG_SIGNAL_BREAKDOWN)
			fg_metric_interval_text(ci, sizeof(ci), s);
		fputs("<tr><td>", out);
		text(out, s->def->title);
		fprintf(out, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
		        "<td class=\"n\">%s</td><td>", b, c, ratio, ci);
		text(out, s->def->unit);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

void fg_report_input_name(char *out, size_t size, const char *source)
{
	const char *s = source ? source : "";
	size_t n = strlen(s);
	if (fg_url_is(s)) {
		/* The path's last part: no query or fragment, nothing of the
		 * authority (credentials included) unless the path is empty. */
		size_t start = fg_url_scheme_length(s), end = start + strcspn(s + start, "?#");
		while (end > start && s[end - 1] == '/')
			end--;
		size_t last = end;
		while (last > start && s[last - 1] != '/')
			last--;
		if (last == start) /* no path: the host, credentials cut */
			for (size_t i = start; i < end; i++)
				if (s[i] == '@')
					last = i + 1;
		n = end - last;
		s += last;
	}
	snprintf(out, size, "%.*s", (int)n, s);
}

/* One side's sources by name, comma-separated. */
static void side_inputs(FILE *out, const char *what, const fg_svg_side *side)
{
	fprintf(out, "%s: ", what);
	for (size_t i = 0; i < side->nsources; i++) {
		char name[256];
		fg_report_input_name(name, sizeof(name), side->sources[i]);
		fputs(i ? ", " : "", out);
		text(out, name);
	}
}

/* The answer, the inputs and the date under the title. */
static void top_lines(FILE *out, const fg_report *r, const fg_diff_result *res, const fg_names *names)
{
	fputs("<p class=\"answer\">", out);
	if (r->answer) {
		text(out, r->answer);
	} else if (res) {
		const fg_diff_entry *big = NULL;
		if (res->ngrew)
			big = &res->grew[0];
		if (res->nshrank && (!big || fabs(res->shrank[0].z) > fabs(big->z)))
			big = &res->shrank[0];
		fprintf(out, "%zu frame%s grew and %zu shrank beyond noise", res->ngrew, res->ngrew == 1 ? "" : "s",
			res->nshrank);
		if (big) {
			fputs("; the most significant: <code>", out);
			fg_markup_escape(out, fg_names_get(names, big->name), fg_names_length(names, big->name));
			fprintf(out, "</code> %.2f%% \xe2\x86\x92 %.2f%% (%+.2f points, %.1f times its noise)", big->base,
				big->candidate, big->delta, fabs(big->z));
		}
		if (!res->node_df)
			fputs(" (one profile a side: noise cannot be separated from signal)", out);
	}
	fputs("</p>\n<p class=\"inputs\">", out);
	if (r->ninputs) {
		fputs("inputs: ", out);
		for (size_t i = 0; i < r->ninputs; i++) {
			char name[256];
			fg_report_input_name(name, sizeof(name), r->inputs[i]);
			fputs(i ? ", " : "", out);
			text(out, name);
		}
	} else if (r->svg && (r->svg->base.nsources || r->svg->candidate.nsources)) {
		side_inputs(out, "base", &r->svg->base);
		fputs("; ", out);
		side_inputs(out, "candidate", &r->svg->candidate);
	}
	char now[32];
	if (!r->date) {
		time_t t = time(NULL);
		struct tm tm;
		if (!gmtime_r(&t, &tm) || !strftime(now, sizeof(now), "%Y-%m-%d %H:%M UTC", &tm))
			now[0] = '\0';
	}
	fputs("<br>written ", out);
	text(out, r->date ? r->date : now);
	fputs("</p>\n", out);
}

/* The lists of a diff and its flame graph. */
static int diff_section(FILE *out, const fg_report *r, const fg_diff_result *res, const fg_names *names,
			fg_error *err)
{
	fputs("<h2>What changed: ", out);
	text(out, r->diff_heading ? r->diff_heading : "base \xe2\x86\x92 candidate");
	fprintf(out, "</h2>\n<p>Frames whose share changed beyond noise (the sampling error of the pooled shares "
		     "widened by the nodes' over-dispersion; false-discovery rate %.3g%% over %zu frames) by at "
		     "least %.3g points, most significant first (z: the change over its noise).%s</p>\n",
		100.0 * fg_diff_fdr(r->diff), res->tested, fmax(FG_DIFF_FLOOR, fg_diff_min_delta(r->diff)),
		res->node_df ? "" : "  One profile a side: no node spread to measure, so noise cannot be "
				    "separated from signal: differences between nodes show as changes.");
	diff_table(out, "grew", res->grew, res->ngrew, names);
	diff_table(out, "shrank", res->shrank, res->nshrank, names);
	if (!fg_diff_tree(r->diff, FG_DIFF_BASE))
		return 0;
	fg_svg_options so;
	if (r->svg)
		so = *r->svg;
	else
		fg_svg_options_init(&so);
	so.fragment = true;
	fputs("<div class=\"flame\"><h2>Differential flame graph</h2>\n", out);
	int rc = fg_svg_write_diff(out, r->diff, names, &so, err);
	fputs("</div>\n", out);
	return rc;
}

int fg_report_write(FILE *out, const fg_report *r, const fg_names *names, fg_error *err)
{
	fg_diff_result res = { 0 };
	int rc = r->diff ? fg_diff_compute(&res, r->diff, err) : 0;
	if (rc)
		return rc;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", out);
	text(out, r->title);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", style);
	text(out, r->title);
	fputs("</h1>\n", out);
	top_lines(out, r, r->diff ? &res : NULL, names);
	if (r->decision) {
		fputs("<p class=\"decision\">", out);
		text(out, r->decision);
		fputs("</p>\n", out);
	}
	for (size_t i = 0; i < r->nsummary; i++) {
		fputs("<p class=\"summary\">", out);
		text(out, r->summary[i]);
		fputs("</p>\n", out);
	}
	for (size_t i = 0; i < r->nnotes; i++) {
		fputs("<p class=\"note\">", out);
		text(out, r->notes[i]);
		fputs("</p>\n", out);
	}
	if (r->nruns) {
		fputs("<h2>Share of <code>", out);
		text(out, r->frame);
		fprintf(out, "</code> in the tested runs (threshold %g%%)</h2>\n", r->threshold);
		int crc = share_chart(out, r, err);
		if (crc)
			return crc;
		runs_table(out, r);
	}
	if (r->ncommits) {
		fputs("<h2>", out);
		text(out, r->commits_heading ? r->commits_heading : "Commits in the window");
		fprintf(out, " (%zu%s)</h2>\n", r->ncommits, r->commits_truncated ? "+" : "");
		commits_table(out, r);
	}
	if (r->nfiles) {
		fputs("<h2>Hot files</h2>\n<p>The source files of ", out);
		text(out, r->files_note ? r->files_note : "the frames that grew most");
		fputs(", and whether they changed in the window.</p>\n", out);
		files_table(out, r);
	}
	if (r->metrics)
		metrics_table(out, r->metrics);
	if (r->diff)
		rc = diff_section(out, r, &res, names, err);
	fg_diff_result_free(&res);
	if (!rc) {
		fputs("<footer>", out);
		text(out, r->generator ? r->generator : "fgbisect");
		fputs("</footer>\n</body>\n</html>\n", out);
	}
	if (!rc && (fflush(out) != 0 || ferror(out)))
		rc = fg_error_set(err, FG_EOUTPUT, NULL, "cannot write the report: %s", strerror(errno));
	return rc;
}

int fg_report_write_file(const char *path, const fg_report *r, const fg_names *names, fg_error *err)
{
	FILE *out = fopen(path, "w");
	int rc = out ? fg_report_write(out, r, names, err)
		     : fg_error_set(err, FG_EOUTPUT, path, "cannot create the report: %s", strerror(errno));
	if (out && fclose(out) && !rc)
		rc = fg_error_set(err, FG_EOUTPUT, path, "cannot write the report: %s", strerror(errno));
	if (rc && !err->source[0])
		fg_error_set_source(err, path);
	return rc;
}
