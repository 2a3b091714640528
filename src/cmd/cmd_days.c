/* fgbisect days: binary search over the daily runs of a runs file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/protocol.h"
#include "output/chart.h"
#include "cmd/cli_bisect.h"
#include "cmd/cli_history.h"
#include "cmd/cli_metrics.h"
#include "cmd/commands.h"
#include "bisect/days.h"
#include "base/exitcode.h"
#include "git/history.h"
#include "bisect/search_report.h"
#include "bisect/runscan.h"

static const char description[] =
	"Finds the last fast and the first slow run of a runs file by binary search over\n"
	"its runs in date order.  The good end (default: the oldest run; --good: the newest\n"
	"run on or before DATE) must be fast and the bad end (default: the newest run;\n"
	"--bad: the oldest on or after DATE) slow.  A run that cannot be judged is skipped\n"
	"and a neighbour is tried, as git bisect does.  Over N runs at most\n"
	"ceil(log2 N) + 2 runs are fetched, and a second call fetches nothing (cache).\n"
	"With --scan every run is fetched (at once, through the cache) and judged, and the\n"
	"change points of their shares are found (binary segmentation with each run's\n"
	"interval): the rise is the answer, with its confidence and the runs it may be;\n"
	"runs that cannot be read are left out and named.  More robust to one odd day\n"
	"than a search that trusts each verdict, at N runs' downloads.  The search scans\n"
	"too when its ends cannot be told apart (--threshold auto) or an end cannot be\n"
	"told at the threshold.  When no change point rises but the share rose between\n"
	"the ends (one-sided, 99%), the answer is the window the data support: the first\n"
	"slow day cannot be told (JSON window_kind \"rise\").\n"
	"With --repo, lists the commits between the two runs and the source files of the\n"
	"frames that grew most between them, with their last commit, and ends with the\n"
	"decision: a hot file changed between the runs (the suspect commits), or not\n"
	"(called more often or configuration changed: the changed files of the callers on\n"
	"the grown stacks), or no hot frame is in the repository (the build files changed).\n"
	"\n"
	"Exit status: 0 a window found (one day, several runs, or a rise); 1 an end is\n"
	"judged on the wrong side, or every run was scanned and no rise found;\n"
	"2 usage or configuration error; 3 invalid input; 4 the runs file cannot be read.\n";

/* The tested runs in date order as a chart of their share against the
 * threshold, the last fast and the first slow run pointed at. */
static int print_chart(const fg_days *days, const fg_runs_selection *sel, double threshold, bool ascii, bool found)
{
	size_t n = fg_runs_selection_count(sel), k = 0;
	fg_chart_row *rows = calloc(n ? n : 1, sizeof(*rows));
	char (*labels)[40] = calloc(n ? n : 1, sizeof(*labels));
	fg_error err;
	int rc = rows && labels ? 0 : fg_error_oom(&err, NULL);
	for (size_t i = 0; !rc && i < n; i++) {
		const fg_verdict *v = fg_days_verdict(days, i);
		if (!v)
			continue;
		const fg_runs_run *run = fg_runs_selection_at(sel, i);
		snprintf(labels[k], sizeof(labels[k]), "%s %.10s", run->date, run->commit);
		rows[k] = fg_search_report_row(v, labels[k], found && i == fg_days_last_fast(days) ? "<- last fast"
						    : found && i == fg_days_first_slow(days) ? "<- first slow"
						    : v->kind == FG_VERDICT_SKIP ? v->reason : NULL);
		k++;
	}
	fg_chart_options co;
	fg_chart_options_init(&co);
	co.threshold = threshold;
	co.ascii = ascii;
	const char *no_color = getenv("NO_COLOR");
	co.color = isatty(STDOUT_FILENO) && !(no_color && *no_color);
	if (!rc) {
		printf("\nshare of the frame in the tested runs, by date:\n");
		rc = fg_chart_write(stdout, rows, k, &co, &err);
	}
	free(rows);
	free(labels);
	return rc ? cli_report_error(&err, false) : 0;
}

#define DEFAULT_METRICS_RANGE "{date}T04:00:00Z..{date}T07:00:00Z"

struct lens {
	fg_metrics_result *result;
	fg_metrics_rules *rules;
	struct cli_metrics_deltas deltas; /* the subsystems' changes the delta() terms read */
	char *text[4]; /* the filled selectors and ranges */
	fg_error err;
};

/* The lens of the last fast and the first slow run: their selectors and
 * ranges from the templates.  A failure is kept in l->err (reported as a
 * warning: the metrics explain the search, never decide it). */
static void look_through_lens(struct lens *l, struct cli_metrics_options *mo, const struct cli_profile_options *po,
                              const char *selector, const char *range, const fg_runs_run *const runs[2],
                              const char *const ids[2], const fg_diff *diff, const fg_names *names)
{
	static const char *const keys[] = { "date", "commit", "short", "benchmark" };
	fg_error_clear(&l->err);
	int rc = 0;
	for (int s = 0; s < 2 && !rc; s++) {
		char benchmark[256];
		bool found = false;
		for (size_t i = 0; i < runs[s]->nlines && !found; i++)
			found = fg_runscan_benchmark(benchmark, sizeof(benchmark), runs[s]->lines[i]->resolved);
		const char *values[] = { runs[s]->date, ids[s], runs[s]->commit, found ? benchmark : NULL };
		char what[128];
		snprintf(what, sizeof(what), "the run %s %s (no medic-daily-DATE-SHA-test in its locations)",
		         runs[s]->date, runs[s]->commit);
		rc = fg_metrics_fill(&l->text[s], selector, keys, values, 4, what, &l->err);
		if (!rc)
			rc = fg_metrics_fill(&l->text[2 + s], range, keys, values, 4, what, &l->err);
		mo->selector[s] = l->text[s];
		mo->range[s] = l->text[2 + s];
	}
	/* The delta() terms: the subsystems' changes between the two runs. */
	if (!rc)
		rc = cli_metrics_deltas(&l->deltas, fg_diff_tree(diff, FG_DIFF_BASE), fg_diff_tree(diff, FG_DIFF_CANDIDATE),
					names, &l->err);
	if (!rc)
		cli_metrics_run(&l->result, &l->rules, mo, po, l->deltas.deltas, l->deltas.n, &l->err);
	if (!l->result)
		cli_metrics_warn(&l->err);
}

static void lens_clear(struct lens *l)
{
	fg_metrics_result_free(l->result);
	fg_metrics_rules_free(l->rules);
	cli_metrics_deltas_free(&l->deltas);
	for (int i = 0; i < 4; i++)
		free(l->text[i]);
}

static const char *check_date(const struct cli_option *opt, const char *arg, char *msg, size_t size)
{
	if (fg_runs_valid_date(arg, strlen(arg)))
		return NULL;
	snprintf(msg, size, "--%s wants a date YYYY-MM-DD, not '%s'", opt->long_name, arg);
	return msg;
}

/* The commit of a run as it is shown: the full id when the repository knows
 * it, else as the runs file writes it. */
static void commit_id(char out[41], fg_repo *repo, const char *given)
{
	fg_error err;
	if (!repo || fg_repo_expand(out, repo, given, &err))
		snprintf(out, 41, "%s", given);
}

static void json_run(fg_json *j, const char *key, const char *commit, const fg_verdict *v)
{
	fg_json_key(j, key);
	fg_json_object(j);
	fg_json_member_string(j, "date", v->date);
	fg_json_member_string(j, "commit", commit);
	fg_json_member_fixed(j, "share", v->share, 4);
	fg_json_end(j);
}

static void print_window_text(const fg_days_window *w, const char *pattern, const fg_names *names)
{
	size_t n = fg_repo_log_count(w->log);
	printf("\ncommits in the window (%zu%s):\n", n, fg_repo_log_truncated(w->log) ? ", more not shown" : "");
	for (size_t i = 0; i < n; i++) {
		const fg_repo_commit *c = fg_repo_log_at(w->log, i);
		printf("  %s %s %s\n", c->short_id, c->date, cli_text(c->subject));
	}
	cli_explain_text(stdout, &w->explain, pattern, names);
}

static void print_window_json(fg_json *j, const fg_days_window *w, const char *pattern, const fg_names *names)
{
	fg_json_key(j, "window_commits");
	fg_json_array(j);
	for (size_t i = 0; i < fg_repo_log_count(w->log); i++) {
		const fg_repo_commit *c = fg_repo_log_at(w->log, i);
		fg_json_object(j);
		fg_json_member_string(j, "commit", c->id);
		fg_json_member_string(j, "date", c->date);
		fg_json_member_string(j, "subject", c->subject);
		fg_json_end(j);
	}
	fg_json_end(j);
	cli_explain_json(j, &w->explain, pattern, names);
}

/* --scan found no rise (on stderr). */
static void no_rise(const fg_days *days)
{
	size_t n = fg_days_scan_changes(days)->n;
	fprintf(stderr, "fgbisect days: no rise of the share is a change point of the runs read (%zu change point(s), "
	        "none a rise): nothing found\n", n);
}

/* --threshold auto: the threshold the ends (or the change point) gave
 * becomes the one printed, and how it was chosen is said (on out).
 * FG_EXIT_FAILED when there is none, else 0. */
static int take_auto_threshold(FILE *out, const fg_days *days, struct cli_bisect_options *o)
{
	const fg_verdict_auto *a = fg_days_auto(days), *ends = fg_days_fallback(days);
	size_t untold = fg_days_untold_end(days);
	if (untold != SIZE_MAX) {
		const fg_verdict *v = fg_days_verdict(days, untold);
		fprintf(out, "the %s end %s cannot be told at %g%% (%s): every run scanned\n",
		        untold == fg_days_asked_good(days) ? "good" : "bad", v->date, o->threshold, v->reason);
	}
	if (!a)
		return 0;
	char why[512];
	fg_verdict_auto_describe(why, sizeof(why), ends ? ends : a);
	if (fg_days_result(days) == FG_DAYS_ENDS_NOT_SEPARATED) {
		fprintf(stderr, "fgbisect days: --threshold auto: %s: nothing to search\n", why);
		return FG_EXIT_FAILED;
	}
	if (ends)
		fprintf(out, "threshold auto: %s: every run scanned\n", why);
	if (fg_days_result(days) == FG_DAYS_NO_RISE) {
		no_rise(days);
		return FG_EXIT_FAILED;
	}
	if (fg_days_scan_changes(days) && !fg_days_narrowed(days))
		fprintf(out, "threshold auto: %.2f%%, half way between the two sides of the change point (%.2f%%, se %.2f pp, "
		        "and %.2f%%, se %.2f pp)\n", a->threshold, a->good, a->good_sd, a->bad, a->bad_sd);
	else
		fprintf(out, "threshold auto: %s\n", why);
	o->threshold = a->threshold;
	return 0;
}

/* {"date","commit"[,"reason"]} of run i. */
static void json_run_ref(fg_json *j, fg_repo *repo, const fg_runs_selection *sel, size_t i, const fg_verdict *v)
{
	char id[41];
	commit_id(id, repo, fg_runs_selection_at(sel, i)->commit);
	fg_json_object(j);
	fg_json_member_string(j, "date", fg_runs_selection_at(sel, i)->date);
	fg_json_member_string(j, "commit", id);
	if (v)
		fg_json_member_string(j, "reason", v->reason);
	fg_json_end(j);
}

/* Why the search cannot start, on stderr (fg_days_refusal). */
static void print_refusal(const fg_days *days, const fg_runs_selection *sel)
{
	char why[2048];
	fg_days_refusal(why, sizeof(why), days, sel);
	fprintf(stderr, "fgbisect days: %s\n", why);
}

/* --html: the report of the search (bisect/search_report.h).  w: the window
 * (with --repo) or NULL; diff: the last fast run against the first slow one,
 * or NULL. */
static int write_report(const char *path, const fg_days *days, const fg_runs_selection *sel, fg_repo *repo,
			const struct cli_bisect_options *o, const fg_days_window *w, const fg_metrics_result *lens,
			fg_diff *diff, const fg_names *names, fg_error *err)
{
	char *decision = NULL;
	const char *input;
	fg_search_report_options ro;
	if (cli_search_report_options(&ro, &decision, &input, o, w ? &w->explain : NULL, err))
		return FG_ENOMEM;
	ro.metrics = lens;
	int rc = fg_search_report_days(path, days, sel, repo, w, diff, names, &ro, err);
	free(decision);
	return rc;
}

/* The after-parse checks of the metrics options: CLI_PARSED or the usage
 * error's status. */
static int check_metrics(const struct cli_command_spec *spec, const struct cli_args *args, bool metrics,
                         const char *selector, const char *metrics_range, struct cli_metrics_options *mo)
{
	if (metrics && !selector)
		return cli_spec_usage_error(spec, args,
					    "--metrics needs --selector TEMPLATE (e.g. 'namespace=\"c8-{benchmark}\"')");
	if (mo->range[0] || mo->range[1])
		return cli_spec_usage_error(spec, args, "each run's range comes from --metrics-range TEMPLATE");
	if (!metrics)
		return CLI_PARSED;
	/* Placeholder ranges pass the check; they are filled per run. */
	mo->range[0] = mo->range[1] = metrics_range;
	return cli_metrics_check(mo, spec, args, false);
}

/* Progress on a terminal: one line a run as it is judged. */
static void judged(void *ctx, size_t run, const fg_verdict *v)
{
	const fg_runs_selection *sel = *(const fg_runs_selection *const *)ctx;
	const fg_runs_run *r = fg_runs_selection_at(sel, run);
	fprintf(stderr, "fgbisect days: judged %s %s: %zu of %zu profiles read, %.2f%%\n", r->date, r->commit, v->nread,
	        v->nprofiles, v->pooled);
}

/* What the printing reads. */
struct days_view {
	fg_days_answer *a;
	const fg_days *days;
	const fg_runs_selection *sel;
	fg_repo *repo;
	struct cli_bisect_options *o;
	const fg_verdict_options *vo;
	const fg_verdict_judge *judge; /* the frame names near a mistyped pattern */
};

/* The runs a change point says the first slow run may be: the window. */
static void print_change_text(const struct days_view *v)
{
	const fg_days_changes *c = fg_days_scan_changes(v->days);
	const fg_days_change *rise = fg_days_scan_rise(v->days);
	size_t nread = 0, n = fg_days_step_count(v->days);
	for (size_t i = 0; i < n; i++)
		nread += fg_days_step_at(v->days, i)->verdict->basis != FG_BASIS_INPUT;
	printf("\nchange points of %zu runs read (noise %.2f pp; the floor %.2f, the spread about the segments "
	       "suggests %.2f on %zu df):\n", nread, c->noise, c->noise_floor, c->noise_estimate, c->noise_df);
	for (size_t k = 0; k < c->n; k++) {
		const fg_days_change *ch = &c->changes[k];
		const fg_runs_run *run = fg_runs_selection_at(v->sel, fg_days_scan_run(v->days, ch->at));
		printf("  %s %s %.2f%% -> %.2f%% (z %.2f, confidence %.2f%%)%s\n", run->date, run->commit, ch->before,
		       ch->after, ch->z, 100 * ch->confidence, ch == rise ? "  <- the rise" : "");
	}
	if (!c->n)
		printf("  (none)\n");
	if (fg_days_window_kind(v->days) == FG_DAYS_WINDOW_RISE)
		printf("  none rises; the share rose between the ends: %.2f%% -> %.2f%% (z %.2f, confidence %.2f%%, "
		       "one-sided; noise %.2f pp)  <- the rise\n", rise->before, rise->after, rise->z,
		       100 * rise->confidence, fg_days_rise_noise(v->days));
	for (size_t i = 0; fg_days_scan_changes(v->days) && !fg_days_narrowed(v->days) && i < n; i++) {
		const fg_days_step *s = fg_days_step_at(v->days, i);
		if (s->verdict->basis == FG_BASIS_INPUT)
			printf("  left out %s: %s\n", fg_runs_selection_at(v->sel, s->run)->date, s->verdict->reason);
	}
}

static void print_found_text(const struct days_view *v)
{
	const fg_days *days = v->days;
	size_t ifast = fg_days_last_fast(days), islow = fg_days_first_slow(days);
	const fg_runs_run *fast = fg_runs_selection_at(v->sel, ifast), *slow = fg_runs_selection_at(v->sel, islow);
	const fg_verdict *vf = fg_days_verdict(days, ifast), *vs = fg_days_verdict(days, islow);
	printf("\nlast fast:  %s %s %.2f%% (95%% interval %.2f-%.2f%%)\nfirst slow: %s %s %.2f%% (95%% interval "
	       "%.2f-%.2f%%)\n", fast->date, v->a->fast_id, vf->share, vf->interval_lo, vf->interval_hi, slow->date,
	       v->a->slow_id, vs->share, vs->interval_lo, vs->interval_hi);
	const fg_days_change *rise = fg_days_scan_rise(days);
	if (fg_days_window_kind(days) == FG_DAYS_WINDOW_RISE) {
		printf("the first slow day cannot be told: no change point, but the share rose between the ends (%.2f%% -> "
		       "%.2f%%, z %.2f, confidence %.2f%%, one-sided over every split); between %s %.12s (fast) and %s %.12s "
		       "(slow): %zu runs", rise->before, rise->after, rise->z, 100 * rise->confidence, fast->date,
		       v->a->fast_id, slow->date, v->a->slow_id, islow - ifast);
		if (v->repo)
			printf(", %zu commits", fg_repo_log_count(v->a->window.log));
		printf(", most likely %s\n", fg_runs_selection_at(v->sel, fg_days_scan_best(days))->date);
	} else if (rise) {
		printf("the change point: confidence %.2f%%; the first slow run is one of %zu (", 100 * rise->confidence,
		       islow - ifast);
		for (size_t i = ifast + 1; i <= islow; i++)
			printf("%s%s", i > ifast + 1 ? ", " : "", fg_runs_selection_at(v->sel, i)->date);
		printf("), most likely %s\n", fg_runs_selection_at(v->sel, fg_days_scan_best(days))->date);
	} else if (islow > ifast + 1) {
		printf("the first slow run is one of %zu: %zu between them could not be judged (", islow - ifast,
		       islow - ifast - 1);
		for (size_t i = ifast + 1; i < islow; i++)
			printf("%s%s", i > ifast + 1 ? ", " : "", fg_runs_selection_at(v->sel, i)->date);
		printf(") or %s\n", slow->date);
	}
	size_t agood = fg_days_asked_good(days), abad = fg_days_asked_bad(days);
	if (!fg_days_scan_changes(days) && fg_days_good(days) > agood)
		printf("the good end %s could not be judged: searched from %s (%zu run(s) skipped)\n",
		       fg_runs_selection_at(v->sel, agood)->date, fg_runs_selection_at(v->sel, fg_days_good(days))->date,
		       fg_days_good(days) - agood);
	if (!fg_days_scan_changes(days) && fg_days_bad(days) < abad)
		printf("the bad end %s could not be judged: searched up to %s (%zu run(s) skipped)\n",
		       fg_runs_selection_at(v->sel, abad)->date, fg_runs_selection_at(v->sel, fg_days_bad(days))->date,
		       abad - fg_days_bad(days));
	const fg_noise_estimate *e = &v->a->estimate;
	printf("noise: %.2f pp %s", v->a->assumed, v->vo->noise >= 0 ? "(--noise)" : "assumed (the default)");
	if (e->df)
		printf("; the spread of %zu judged runs suggests %.2f pp\n", e->runs, e->noise);
	else
		printf("; too few judged runs on a side to estimate it\n");
	printf("tested %zu of %zu runs; %zu profiles read, %zu downloaded\n", fg_days_step_count(days),
	       fg_runs_selection_count(v->sel), fg_days_fetched_profiles(days), fg_days_downloaded_profiles(days));
	if (v->repo)
		print_window_text(&v->a->window, v->o->frame, v->a->names);
}

static void json_change_point(fg_json *j, const struct days_view *v)
{
	const fg_days_changes *c = fg_days_scan_changes(v->days);
	fg_json_key(j, "change_point");
	if (!c) {
		fg_json_null(j);
		return;
	}
	char id[41];
	fg_json_object(j);
	fg_json_member_string(j, "method", fg_days_narrowed(v->days) ? "narrowed" : fg_days_fallback(v->days) ?
					   "fallback" : "scan");
	fg_json_member_fixed(j, "noise", c->noise, 4);
	fg_json_member_fixed(j, "noise_floor", c->noise_floor, 4);
	fg_json_member_fixed(j, "noise_estimate", c->noise_estimate, 4);
	fg_json_member_u64(j, "noise_df", c->noise_df);
	fg_json_key(j, "changes");
	fg_json_array(j);
	for (size_t k = 0; k < c->n; k++) {
		const fg_days_change *ch = &c->changes[k];
		size_t run = fg_days_scan_run(v->days, ch->at);
		fg_days_commit_id(id, v->repo, v->sel, run);
		fg_json_object(j);
		fg_json_member_string(j, "date", fg_runs_selection_at(v->sel, run)->date);
		fg_json_member_string(j, "commit", id);
		fg_json_member_fixed(j, "before", ch->before, 4);
		fg_json_member_fixed(j, "after", ch->after, 4);
		fg_json_member_fixed(j, "z", ch->z, 4);
		fg_json_member_fixed(j, "confidence", ch->confidence, 6);
		fg_json_member_bool(j, "rise", ch == fg_days_scan_rise(v->days));
		fg_json_end(j);
	}
	fg_json_end(j);
	/* No change point rises, the share rose between the ends. */
	fg_json_key(j, "rise_between");
	if (fg_days_window_kind(v->days) == FG_DAYS_WINDOW_RISE) {
		const fg_days_change *r = fg_days_scan_rise(v->days);
		fg_json_object(j);
		fg_json_member_fixed(j, "before", r->before, 4);
		fg_json_member_fixed(j, "after", r->after, 4);
		fg_json_member_fixed(j, "z", r->z, 4);
		fg_json_member_fixed(j, "confidence", r->confidence, 6);
		fg_json_member_fixed(j, "noise", fg_days_rise_noise(v->days), 4);
		fg_json_end(j);
	} else {
		fg_json_null(j);
	}
	fg_json_key(j, "most_likely");
	if (fg_days_scan_rise(v->days))
		json_run_ref(j, v->repo, v->sel, fg_days_scan_best(v->days), NULL);
	else
		fg_json_null(j);
	fg_json_key(j, "left_out");
	fg_json_array(j);
	for (size_t i = 0; !fg_days_narrowed(v->days) && i < fg_days_step_count(v->days); i++) {
		const fg_days_step *s = fg_days_step_at(v->days, i);
		if (s->verdict->basis == FG_BASIS_INPUT)
			json_run_ref(j, v->repo, v->sel, s->run, s->verdict);
	}
	fg_json_end(j);
	fg_json_end(j);
}

static void print_found_json(const struct days_view *v, const struct lens *lens, bool metrics, const char *url)
{
	const fg_days *days = v->days;
	const fg_days_answer *a = v->a;
	size_t ifast = fg_days_last_fast(days), islow = fg_days_first_slow(days);
	fg_json j;
	fg_json_init(&j, stdout);
	fg_json_object(&j);
	json_run(&j, "first_slow", a->slow_id, fg_days_verdict(days, islow));
	json_run(&j, "last_fast", a->fast_id, fg_days_verdict(days, ifast));
	fg_json_key(&j, "tested");
	fg_json_array(&j);
	for (size_t i = 0; i < fg_days_step_count(days); i++) {
		const fg_days_step *s = fg_days_step_at(days, i);
		char id[41];
		fg_days_commit_id(id, v->repo, v->sel, s->run);
		cli_verdict_json(&j, id, s->verdict, v->o->threshold);
	}
	fg_json_end(&j);
	fg_json_key(&j, "skipped_between");
	fg_json_array(&j);
	for (size_t i = ifast + 1; i < islow; i++)
		json_run_ref(&j, v->repo, v->sel, i, NULL);
	fg_json_end(&j);
	fg_json_member_string(&j, "window_kind", fg_days_window_kind_name(fg_days_window_kind(days)));
	/* The runs that may be the first slow one: one when nothing was
	 * skipped between the two. */
	fg_json_key(&j, "window_runs");
	fg_json_array(&j);
	for (size_t i = ifast + 1; i <= islow; i++)
		json_run_ref(&j, v->repo, v->sel, i, NULL);
	fg_json_end(&j);
	/* Undecidable ends the search moved past. */
	fg_json_key(&j, "skipped_ends");
	fg_json_array(&j);
	for (size_t i = fg_days_asked_good(days); !fg_days_scan_changes(days) && i < fg_days_good(days); i++)
		json_run_ref(&j, v->repo, v->sel, i, fg_days_verdict(days, i));
	for (size_t i = fg_days_bad(days) + 1; !fg_days_scan_changes(days) && i <= fg_days_asked_bad(days); i++)
		json_run_ref(&j, v->repo, v->sel, i, fg_days_verdict(days, i));
	fg_json_end(&j);
	json_change_point(&j, v);
	fg_json_key(&j, "noise");
	fg_json_object(&j);
	fg_json_member_fixed(&j, "assumed", a->assumed, 4);
	fg_json_member_string(&j, "source", v->vo->noise >= 0 ? "option" : "default");
	fg_json_key(&j, "estimate");
	if (a->estimate.df)
		fg_json_fixed(&j, a->estimate.noise, 4);
	else
		fg_json_null(&j);
	fg_json_member_u64(&j, "estimate_runs", a->estimate.runs);
	fg_json_member_u64(&j, "estimate_df", a->estimate.df);
	fg_json_end(&j);
	cli_auto_threshold_json(&j, fg_days_auto(days));
	fg_json_member_u64(&j, "runs", fg_runs_selection_count(v->sel));
	fg_json_member_u64(&j, "tested_runs", fg_days_step_count(days));
	fg_json_member_u64(&j, "fetched_profiles", fg_days_fetched_profiles(days));
	fg_json_member_u64(&j, "downloaded_profiles", fg_days_downloaded_profiles(days));
	if (v->repo)
		print_window_json(&j, &a->window, v->o->frame, a->names);
	if (metrics)
		cli_metrics_json_member(&j, lens->result, &lens->err, url);
	fg_json_end(&j);
}

/* The verdict lines of the judged runs (on out), and the warnings they
 * call for. */
static void print_tested(FILE *out, const struct days_view *v)
{
	for (size_t i = 0; i < fg_days_step_count(v->days); i++) {
		const fg_days_step *s = fg_days_step_at(v->days, i);
		char id[41];
		fg_days_commit_id(id, v->repo, v->sel, s->run);
		fprintf(out, "tested ");
		cli_verdict_line(out, id, s->verdict, v->o->threshold);
	}
	if (!v->a->matched)
		cli_warn_pattern(v->o->frame, "in any profile", v->judge);
	/* The runs judged on each side show the noise the verdicts assumed. */
	const fg_noise_estimate *e = &v->a->estimate;
	if (e->df >= 2 && e->noise > v->a->assumed)
		cli_warn("the judged runs spread more than the noise assumed (about %.2f pp from %zu runs, against %.2f pp): "
		         "verdicts near the threshold may be wrong; measure the noise (docs/bisect.md) and pass --noise",
		         e->noise, e->runs, v->a->assumed);
}

/* Everything the command prints after the search; its exit status. */
static int show(const struct days_view *v, struct lens *lens, struct cli_metrics_options *mo, const char *html,
                bool ascii, bool metrics, const char *selector, const char *metrics_range)
{
	bool json = v->o->po.json;
	fg_error err;
	int status = take_auto_threshold(json ? stderr : stdout, v->days, v->o);
	if (status)
		return status;
	print_tested(json ? stderr : stdout, v);
	enum fg_days_outcome outcome = fg_days_result(v->days);
	if (!json && (status = print_chart(v->days, v->sel, v->o->threshold, ascii, outcome == FG_DAYS_FOUND)))
		return status;
	if (fg_days_scan_changes(v->days) && !json)
		print_change_text(v);
	if (outcome != FG_DAYS_FOUND) {
		if (outcome == FG_DAYS_NO_RISE)
			no_rise(v->days);
		else
			print_refusal(v->days, v->sel);
		if (html && write_report(html, v->days, v->sel, v->repo, v->o, NULL, NULL, NULL, NULL, &err))
			return cli_report_error(&err, json);
		return FG_EXIT_FAILED;
	}
	fg_days_answer *a = v->a;
	if (metrics && a->diff) {
		const fg_runs_run *ends[2] = { fg_runs_selection_at(v->sel, fg_days_last_fast(v->days)),
			                       fg_runs_selection_at(v->sel, fg_days_first_slow(v->days)) };
		const char *ids[2] = { a->fast_id, a->slow_id };
		look_through_lens(lens, mo, &v->o->po, selector, metrics_range, ends, ids, a->diff, a->names);
	} else if (metrics) { /* the lens explains the search, never decides it */
		lens->err = a->diff_err;
		cli_metrics_warn(&lens->err);
	}
	if (html && write_report(html, v->days, v->sel, v->repo, v->o, v->repo ? &a->window : NULL, lens->result, a->diff,
				 a->names, &err))
		return cli_report_error(&err, json);
	if (json) {
		print_found_json(v, lens, metrics, mo->url);
	} else {
		print_found_text(v);
		if (lens->result) {
			fputc('\n', stdout);
			cli_metrics_text(stdout, lens->result, mo->url);
		}
	}
	return 0;
}

int cmd_days(int argc, char **argv)
{
	struct cli_bisect_options o;
	cli_bisect_options_init(&o);
	fg_days_request req;
	fg_days_request_init(&req);
	uint64_t nhot = 10;
	bool ascii = false, metrics = false;
	const char *html = NULL, *selector = NULL, *metrics_range = DEFAULT_METRICS_RANGE;
	struct cli_metrics_options mo;
	cli_metrics_options_init(&mo);
	struct lens lens = { 0 };
	const struct cli_option table[] = {
		CLI_OPT_STRING(0, "repo", &req.repo_dir, "DIR", "the repository the runs were built from"),
		CLI_OPT_CHECKED(0, "good", &req.days.good, "DATE", check_date, "the fast end (YYYY-MM-DD)"),
		CLI_OPT_CHECKED(0, "bad", &req.days.bad, "DATE", check_date, "the slow end (YYYY-MM-DD)"),
		CLI_OPT_BOOL(0, "scan", &req.scan,
			     "judge every run (fetched at once, through the cache) and find\nthe change points of their "
			     "shares instead of a binary search"),
		CLI_OPT_U64(0, "hot", &nhot, "N", 0, 100,
			    "how many of the frames that grew most to look up in --repo\n(default 10; 0: none)"),
		CLI_OPT_STRING(0, "html", &html, "OUT",
			       "also write the report: one self-contained HTML page with\nthe share over the runs, the "
			       "window, the hot files, the\ndecision and the differential flame graph of the last\nfast "
			       "against the first slow run"),
		CLI_OPT_BOOL(0, "ascii", &ascii,
			     "draw the chart of the tested runs with ASCII characters\n(colours only on a terminal, never "
			     "with NO_COLOR set)"),
		CLI_OPT_BOOL(0, "metrics", &metrics,
			     "then the efficiency lens of the last fast and the first slow\nrun (docs/metrics.md); never "
			     "changes the search or its status"),
		CLI_OPT_STRING(0, "selector", &selector, "T", "each run's label matchers: {date} {commit} {short} {benchmark}"),
		CLI_OPT_STRING(0, "metrics-range", &metrics_range, "T",
			       "each run's range (default {date}T04:00:00Z..{date}T07:00:00Z)"),
		CLI_METRICS_OPTIONS(&mo),
		CLI_JUDGE_OPTIONS(&o),
		CLI_RUNS_OPTION(&o, "the runs file (default $FGBISECT_RUNS)"),
		CLI_JUDGED_PROFILE_OPTIONS(&o.po),
		CLI_OPT_END(),
	};
	const struct cli_command_spec spec = {
		.name = "days", .synopsis = "--runs FILE|URL --frame PAT --threshold PCT|auto [--repo DIR]\n"
					    " [--good DATE] [--bad DATE] [--scan] [options]",
		.description = description, .options = table, .usage_status = FG_EXIT_USAGE,
	};
	struct cli_args args;
	int status = cli_parse(&spec, &args, argc, argv);
	if (status == CLI_PARSED)
		status = cli_bisect_check(&o, &spec, &args);
	if (status == CLI_PARSED)
		status = check_metrics(&spec, &args, metrics, selector, metrics_range, &mo);
	cli_args_free(&args);
	if (status != CLI_PARSED)
		return status;
	fg_error err;
	fg_fetch_options fo;
	fg_verdict_options vo;
	fg_judging *jd = NULL;
	fg_days_answer a = { 0 };
	int rc = cli_bisect_judging(&jd, &o, &vo, &fo, FG_JUDGING_REPO_NONE, req.repo_dir, &err);
	const fg_runs_selection *sel = jd ? fg_judging_selection(jd) : NULL;
	req.repo = jd ? fg_judging_repo(jd) : NULL;
	req.judge = jd ? fg_judging_judge(jd) : NULL;
	req.days.auto_threshold = o.threshold_auto ? &vo : NULL;
	req.days.noise = o.noise;
	req.verdict = &vo;
	req.fetch = &fo;
	req.nhot = (size_t)nhot;
	req.diff = metrics || html;
	req.diff_required = html;
	if (isatty(STDERR_FILENO)) {
		req.days.judged = judged;
		req.days.judged_ctx = &sel;
	}
	cli_history_progress hp;
	cli_history_progress_begin(&hp, &req.history_progress, &req.history_progress_ctx);
	if (!rc)
		rc = fg_days_answer_find(&a, sel, &req, &err);
	cli_history_progress_end(&hp);
	if (req.repo && a.days)
		cli_history_warn(a.window.explain.hot.history, a.window.explain.hot.result);
	struct days_view v = { &a, a.days, sel, req.repo, &o, &vo, req.judge };
	status = rc ? cli_report_error(&err, o.po.json) : show(&v, &lens, &mo, html, ascii, metrics, selector, metrics_range);
	lens_clear(&lens);
	fg_days_answer_clear(&a);
	fg_judging_free(jd);
	return status;
}
