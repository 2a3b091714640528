#include "bisect/search_report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/protocol.h"
#include "output/report.h"

void fg_search_report_options_init(fg_search_report_options *o)
{
	*o = (fg_search_report_options){ 0 };
}

fg_chart_row fg_search_report_row(const fg_verdict *v, const char *label, const char *note)
{
	return (fg_chart_row){
		.label = label,
		.mark = v->kind == FG_VERDICT_FAST ? FG_CHART_FAST : v->kind == FG_VERDICT_SLOW ? FG_CHART_SLOW
											 : FG_CHART_SKIP,
		.has_share = v->total > 0,
		.share = v->share,
		.lo = v->interval_lo,
		.hi = v->interval_hi,
		.note = note,
	};
}

/* What both reports share: the strings made for the page, freed together. */
struct page {
	char *title, *answer, *decision;
	char headline[1024];
	char search[2 * 1024 + 1]; /* the pattern as a JavaScript regular expression */
	fg_svg_options svg;
	const char *summary[1], *notes[2];
	size_t dlen;
	FILE *d;          /* the decision's text as it is written */
	fg_report r;
};

static int page_begin(struct page *p, const char *command, const fg_search_report_options *o, fg_error *err)
{
	memset(p, 0, sizeof(*p));
	p->d = open_memstream(&p->decision, &p->dlen);
	if (!p->d || asprintf(&p->title, "fgbisect %s: %s at %g%%", command, o->frame, o->threshold) < 0) {
		p->title = NULL;
		return fg_error_oom(err, NULL);
	}
	p->r = (fg_report){ .title = p->title, .frame = o->frame, .threshold = o->threshold, .inputs = o->inputs,
			    .ninputs = o->ninputs, .metrics = o->metrics };
	return 0;
}

/* The flame graph's options with the search preset to the pattern: a
 * substring's metacharacters escaped (an ERE is one as it is). */
static void page_svg(struct page *p, const fg_svg_options *so, const fg_search_report_options *o)
{
	p->svg = *so;
	size_t k = 0;
	for (const char *c = o->frame; *c && k + 2 < sizeof(p->search); c++) {
		if (!o->regex && strchr("\\^$.|?*+()[]{}/", *c))
			p->search[k++] = '\\';
		p->search[k++] = *c;
	}
	p->search[k] = '\0';
	p->svg.search = p->search;
	p->r.svg = &p->svg;
}

/* The answer's line (printf-style), kept for the page. */
__attribute__((format(printf, 2, 3))) static void page_answer(struct page *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&p->answer, fmt, ap) < 0)
		p->answer = NULL;
	va_end(ap);
}

/* The decision's text closed, then the page written to path. */
static int page_write(struct page *p, const char *path, const fg_search_report_options *o, const fg_names *names,
		      fg_error *err)
{
	if (o->decision && *o->decision)
		fprintf(p->d, "%s%s", ftell(p->d) > 0 ? "\n" : "", o->decision);
	int rc = fclose(p->d) ? fg_error_oom(err, NULL) : 0;
	p->d = NULL;
	p->r.decision = p->decision && *p->decision ? p->decision : NULL;
	const fg_explain *e = o->explain;
	if (e && o->frame) {
		fg_explain_headline(p->headline, sizeof(p->headline), e, o->frame);
		p->summary[p->r.nsummary++] = p->headline;
		p->r.files_note = "the frames of the pattern that grew and of those that grew most beyond noise";
	}
	if (e && !e->separable)
		p->notes[p->r.nnotes++] = fg_explain_not_separable;
	if (e && e->no_decision)
		p->notes[p->r.nnotes++] = e->no_decision;
	p->r.summary = p->summary;
	p->r.notes = p->notes;
	p->r.answer = p->answer;
	if (!rc)
		rc = fg_report_write_file(path, &p->r, names, err);
	return rc;
}

static void page_free(struct page *p)
{
	if (p->d)
		fclose(p->d);
	free(p->decision);
	free(p->title);
	free(p->answer);
}

/* The commit of a run as it is shown: the full id when the repository knows
 * it, else as the runs file writes it. */
static void commit_id(char out[41], fg_repo *repo, const char *given)
{
	fg_error err;
	if (!repo || fg_repo_expand(out, repo, given, &err))
		snprintf(out, 41, "%s", given);
}

/* The sources (by name: names holds FG_NAME_SIZE bytes a line), protocol
 * and event of a run, for the flame graph's header. */
enum { FG_NAME_SIZE = 256 };
static void run_side(fg_svg_side *side, const char **sources, char *names, const fg_runs_run *run)
{
	const char *protocol = NULL, *event = NULL;
	for (size_t i = 0; i < run->nlines; i++) {
		const fg_runs_line *l = run->lines[i];
		fg_report_input_name(names + i * FG_NAME_SIZE, FG_NAME_SIZE, l->resolved);
		sources[i] = names + i * FG_NAME_SIZE;
		protocol = fg_protocol_join(protocol, l->protocol);
		event = fg_protocol_join(event, l->event);
	}
	*side = (fg_svg_side){ sources, run->nlines, protocol, event };
}

/* The files of hot (NULL: none) to show into files (room for all). */
static size_t hot_files(fg_report_file *files, const fg_history_result *hot)
{
	size_t n = 0;
	for (size_t i = 0; hot && i < fg_history_result_count(hot); i++) {
		if (!fg_hotfiles_shown(hot, i))
			continue;
		const fg_history_entry *e = fg_history_result_entry(hot, i);
		files[n++] = (fg_report_file){ e->path, e->frame, e->changed_in_window, e->last ? e->last->id : NULL,
					       e->last ? e->last->date : NULL, e->last ? e->last->subject : NULL };
	}
	return n;
}

/* The days search's answer and how the two runs compare. */
static void days_answer(struct page *p, const fg_days *days, const fg_runs_selection *sel,
			const fg_search_report_options *o)
{
	if (fg_days_result(days) != FG_DAYS_FOUND) {
		char why[1024];
		fg_days_refusal(why, sizeof(why), days, sel);
		page_answer(p, "No search: %s", why[0] ? why : "no rise beyond noise in the runs' shares");
		return;
	}
	size_t ifast = fg_days_last_fast(days), islow = fg_days_first_slow(days);
	const fg_runs_run *fast = fg_runs_selection_at(sel, ifast), *slow = fg_runs_selection_at(sel, islow);
	const fg_verdict *vf = fg_days_verdict(days, ifast), *vs = fg_days_verdict(days, islow);
	const fg_days_change *rise = fg_days_scan_rise(days);
	if (fg_days_window_kind(days) == FG_DAYS_WINDOW_RISE) {
		page_answer(p, "The first slow run cannot be told: %s rose between %s (fast) and %s (slow), %zu runs",
			    o->frame, fast->date, slow->date, islow - ifast);
		fprintf(p->d, "No change point of the runs' shares, but the share of %s rose between the ends: %.2f%% "
			"before the most likely step, %.2f%% after (z %.2f, confidence %.2f%%, one-sided over every "
			"split); the first slow run is one of the %zu runs after %s %.12s, up to %s %.12s. The flame "
			"graph pools the runs read before the window against those after it.", o->frame, rise->before,
			rise->after, rise->z, 100 * rise->confidence, islow - ifast, fast->date, fast->commit, slow->date,
			slow->commit);
		return;
	}
	page_answer(p, "%s crossed %g%% between %s (%.2f%%) and %s (%.2f%%)", o->frame, o->threshold, fast->date,
		    vf->share, slow->date, vs->share);
	fprintf(p->d, "The share of %s crossed %g%% between %s and %s: the last fast run %s %.12s had %.2f%% "
		"(95%% interval %.2f-%.2f%%), the first slow run %s %.12s %.2f%% (%.2f-%.2f%%).", o->frame,
		o->threshold, fast->date, slow->date, fast->date, fast->commit, vf->share, vf->interval_lo,
		vf->interval_hi, slow->date, slow->commit, vs->share, vs->interval_lo, vs->interval_hi);
	if (islow > ifast + 1)
		fprintf(p->d, " %zu run(s) between them could not be judged: the first slow run is one of them or %s.",
			islow - ifast - 1, slow->date);
}

int fg_search_report_days(const char *path, const fg_days *days, const fg_runs_selection *sel, fg_repo *repo,
			  const fg_days_window *w, fg_diff *diff, const fg_names *names,
			  const fg_search_report_options *o, fg_error *err)
{
	bool found = fg_days_result(days) == FG_DAYS_FOUND;
	size_t n = fg_runs_selection_count(sel), nfiles = 0;
	const fg_history_result *hot = w ? w->explain.hot.result : NULL;
	size_t nhot = hot ? fg_history_result_count(hot) : 0, ncommits = w ? fg_repo_log_count(w->log) : 0;
	size_t ifast = found ? fg_days_last_fast(days) : SIZE_MAX, islow = found ? fg_days_first_slow(days) : SIZE_MAX;
	struct page p;
	fg_report_run *runs = calloc(n ? n : 1, sizeof(*runs));
	char(*ids)[41] = calloc(n ? n : 1, sizeof(*ids));
	fg_report_file *files = calloc(nhot ? nhot : 1, sizeof(*files));
	fg_report_commit *commits = calloc(ncommits ? ncommits : 1, sizeof(*commits));
	const char **sources[2] = { NULL, NULL };
	char *shown[2] = { NULL, NULL };
	int rc = page_begin(&p, "days", o, err);
	if (!rc && !(runs && ids && files && commits))
		rc = fg_error_oom(err, NULL);
	for (size_t i = 0; !rc && i < n; i++) {
		const fg_verdict *v = fg_days_verdict(days, i);
		if (!v)
			continue;
		const fg_runs_run *run = fg_runs_selection_at(sel, i);
		size_t k = p.r.nruns++;
		commit_id(ids[k], repo, run->commit);
		runs[k] = (fg_report_run){ run->date, ids[k], v->reason,
					   fg_search_report_row(v, NULL, i == ifast ? "last fast" : i == islow ? "first slow" : NULL) };
	}
	if (!rc)
		days_answer(&p, days, sel, o);
	for (size_t i = 0; !rc && i < ncommits; i++) {
		const fg_repo_commit *c = fg_repo_log_at(w->log, i);
		commits[i] = (fg_report_commit){ c->id, c->date, c->subject };
	}
	if (!rc)
		nfiles = hot_files(files, hot);
	fg_svg_options so;
	fg_svg_options_init(&so);
	if (!rc && found && diff) {
		const fg_runs_run *fast = fg_runs_selection_at(sel, ifast), *slow = fg_runs_selection_at(sel, islow);
		sources[0] = calloc(fast->nlines ? fast->nlines : 1, sizeof(*sources[0]));
		sources[1] = calloc(slow->nlines ? slow->nlines : 1, sizeof(*sources[1]));
		shown[0] = calloc(fast->nlines ? fast->nlines : 1, FG_NAME_SIZE);
		shown[1] = calloc(slow->nlines ? slow->nlines : 1, FG_NAME_SIZE);
		if (!sources[0] || !sources[1] || !shown[0] || !shown[1])
			rc = fg_error_oom(err, NULL);
		if (!rc) {
			run_side(&so.base, sources[0], shown[0], fast);
			run_side(&so.candidate, sources[1], shown[1], slow);
		}
	}
	p.r.runs = runs;
	p.r.commits = commits;
	p.r.ncommits = ncommits;
	p.r.commits_truncated = w && fg_repo_log_truncated(w->log);
	p.r.files = files;
	p.r.nfiles = nfiles;
	p.r.diff = found ? diff : NULL;
	page_svg(&p, &so, o);
	p.r.diff_heading = found && fg_days_window_kind(days) == FG_DAYS_WINDOW_RISE
				   ? "the runs read before the window \xe2\x86\x92 the runs read after it"
				   : "the last fast run \xe2\x86\x92 the first slow run";
	p.r.generator = "written by fgbisect " FG_VERSION " days";
	if (!rc)
		rc = page_write(&p, path, o, names, err);
	page_free(&p);
	for (int i = 0; i < 2; i++) {
		free(sources[i]);
		free(shown[i]);
	}
	free(files);
	free(commits);
	free(runs);
	free(ids);
	return rc;
}

/* The commits an inconclusive bisection leaves: git bisect log's
 * "# possible first slow commit: [ID] SUBJECT" lines, pointing into log
 * (ids and subjects cut in place).  At most max. */
static size_t possible_commits(fg_report_commit *out, size_t max, char *log)
{
	static const char mark[] = "# possible first slow commit: [";
	size_t n = 0;
	for (char *line = log; line && *line && n < max;) {
		char *end = strchr(line, '\n');
		if (end)
			*end = '\0';
		char *close;
		if (!strncmp(line, mark, sizeof(mark) - 1) && (close = strchr(line + sizeof(mark) - 1, ']'))) {
			*close = '\0';
			out[n++] = (fg_report_commit){ line + sizeof(mark) - 1, "", close[1] == ' ' ? close + 2 : close + 1 };
		}
		line = end ? end + 1 : NULL;
	}
	return n;
}

/* The bisection's answer in one line, and in words. */
static void bisect_answer(struct page *p, const fg_gitbisect_result *r, const char *good, const char *bad,
			  size_t end_steps, size_t npossible, const fg_search_report_options *o)
{
	switch (r->outcome) {
	case FG_GITBISECT_FOUND:
		page_answer(p, "The first slow commit is %.12s %s", r->first_slow.id, r->first_slow.subject);
		fprintf(p->d, "The first slow commit is %.12s (%s).", r->first_slow.id, r->first_slow.subject);
		if (r->vfirst_slow && r->vparent && r->vparent->kind != FG_VERDICT_SKIP)
			fprintf(p->d, " Its share of %s is %.2f%% (95%% interval %.2f-%.2f%%) against %.2f%% "
				"(%.2f-%.2f%%) for its parent %.12s, threshold %g%%.", o->frame, r->vfirst_slow->share,
				r->vfirst_slow->interval_lo, r->vfirst_slow->interval_hi, r->vparent->share,
				r->vparent->interval_lo, r->vparent->interval_hi, r->parent.id, o->threshold);
		break;
	case FG_GITBISECT_INCONCLUSIVE:
		page_answer(p, "Inconclusive: the first slow commit is one of %zu that could not be judged", npossible);
		fputs("The bisection did not conclude: only undecidable commits are left between the last fast "
		      "and the first slow commit (listed below).", p->d);
		break;
	case FG_GITBISECT_START_FAILED:
	case FG_GITBISECT_INTERRUPTED:
	case FG_GITBISECT_STOPPED:
		page_answer(p, "The bisection did not run to its end");
		break;
	default: { /* refused to start */
		char why[4096];
		fg_gitbisect_refusal(why, sizeof(why), r, good, bad, end_steps);
		page_answer(p, "No bisection: %s", why);
		break;
	}
	}
}

int fg_search_report_bisect(const char *path, const fg_gitbisect_result *r, const char *good, const char *bad,
			    size_t end_steps, fg_diff *diff, const fg_svg_options *so, const fg_names *names,
			    const fg_search_report_options *o, fg_error *err)
{
	enum { MAX_RUNS = 4 + 64, MAX_POSSIBLE = 256 };
	fg_report_run runs[MAX_RUNS];
	size_t nruns = 0;
	const struct { const fg_verdict *v; const fg_repo_commit *c; const char *note; } judged[] = {
		{ r->vgood, &r->good, "good end" },
		{ r->vparent, &r->parent, "parent" },
		{ r->vfirst_slow, &r->first_slow, "first slow" },
		{ r->vbad, &r->bad, "bad end" },
	};
	for (size_t i = 0; i < sizeof(judged) / sizeof(judged[0]); i++)
		if (judged[i].v)
			runs[nruns++] = (fg_report_run){ judged[i].v->date, judged[i].c->id, judged[i].v->reason,
							 fg_search_report_row(judged[i].v, NULL, judged[i].note) };
	for (size_t i = 0; i < r->nskipped && nruns < MAX_RUNS; i++, nruns++)
		runs[nruns] = (fg_report_run){ "", r->skipped[i].id, r->skipped[i].reason,
					       { .mark = FG_CHART_SKIP, .note = "end moved past" } };
	struct page p;
	const fg_history_result *hot = o->explain ? o->explain->hot.result : NULL;
	size_t nhot = hot ? fg_history_result_count(hot) : 0;
	fg_report_file *files = calloc(nhot ? nhot : 1, sizeof(*files));
	fg_report_commit *commits = calloc(MAX_POSSIBLE, sizeof(*commits));
	char *log = r->log ? strdup(r->log) : NULL;
	size_t ncommits = 0;
	int rc = page_begin(&p, "bisect", o, err);
	if (!rc && (!commits || !files || (r->log && !log)))
		rc = fg_error_oom(err, NULL);
	if (!rc)
		p.r.nfiles = hot_files(files, hot);
	p.r.files = files;
	if (!rc && r->outcome == FG_GITBISECT_FOUND) {
		commits[ncommits++] = (fg_report_commit){ r->first_slow.id, r->first_slow.date, r->first_slow.subject };
		p.r.commits_heading = "The first slow commit";
	} else if (!rc && r->outcome == FG_GITBISECT_INCONCLUSIVE && log) {
		ncommits = possible_commits(commits, MAX_POSSIBLE, log);
		p.r.commits_heading = "Candidates for the first slow commit (not judged)";
	}
	if (!rc)
		bisect_answer(&p, r, good, bad, end_steps, ncommits, o);
	p.r.runs = runs;
	p.r.nruns = nruns;
	p.r.commits = commits;
	p.r.ncommits = ncommits;
	p.r.diff = diff;
	page_svg(&p, so, o);
	p.r.diff_heading = "the first slow commit's parent \xe2\x86\x92 the first slow commit";
	p.r.generator = "written by fgbisect " FG_VERSION " bisect";
	if (!rc)
		rc = page_write(&p, path, o, names, err);
	page_free(&p);
	free(files);
	free(commits);
	free(log);
	return rc;
}
