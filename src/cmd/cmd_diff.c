/* fgbisect diff: the inclusive-% diff of two sets of profiles, the
 * differential flame graph, and the outlier among peers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cli_diff.h"
#include "cmd/cli_history.h"
#include "cmd/cli_metrics.h"
#include "cmd/commands.h"
#include "analysis/diff.h"
#include "explain/growers.h"
#include "model/names.h"
#include "base/parallel.h"
#include "git/history.h"
#include "analysis/protocol.h"
#include "output/report.h"
#include "output/svg.h"

static const char description[] =
	"Compares the inclusive share of every frame (samples whose stack holds it,\n"
	"each stack counted once) between BASE and CANDIDATE, per normalised name.\n"
	"Several profiles a side (all nodes of a run) are pooled.  Each frame's change\n"
	"is tested against its noise (the sampling error of the pooled shares widened\n"
	"by how much more the nodes disagree than sampling explains, plus the noise\n"
	"between runs, --run-noise, that one run's nodes cannot show); a frame is\n"
	"listed when its change is beyond noise at a false-discovery rate of --fdr\n"
	"over all frames, at least 0.25 points and more than --min-delta; the lists\n"
	"are ranked by the change each frame surely made (|delta| less its noise;\n"
	"z beside it).  With one profile a side there is no node\n"
	"spread to measure: sampling error and run noise alone.  Refuses a gRPC\n"
	"profile against a REST one, and profiles of different events (cpu, alloc,\n"
	"wall, lock), unless --force.  With --peers, scores each profile against the\n"
	"mean of the others and names the outlier.  With --repo, annotates each grown\n"
	"frame with its source file(s), their last commit and (with --good) whether they\n"
	"changed in the window (good, bad], and ends with the decision: a hot file changed\n"
	"(the suspect commits), or not (called more often or configuration changed: the\n"
	"changed files of the callers), or no hot frame is in the repository (the build\n"
	"files changed).  docs/diff.md has the details.\n";

/* What the options say. */
struct diff_cmd {
	struct cli_profile_options po;
	fg_diff_options dopts;
	fg_history_options ho;
	fg_svg_options so;
	struct cli_metrics_options mo;
	uint64_t width, hot, jobs;
	double fdr;
	const char *color, *svg, *svg_base, *repo, *bad, *html;
	bool force, peers, default_ignore, metrics;
	struct cli_list ignore;
	struct cli_args args;
	fg_compare_input *in;
	size_t n;
};

/* What the run made, freed by run_free. */
struct diff_run {
	fg_names *names;
	fg_diff *diff;
	fg_diff_result result;
	fg_diff_peers peers;
	fg_hotfiles hist;
	fg_compare_side sides[2];
	fg_metrics_result *lens;
	fg_metrics_rules *lens_rules;
	fg_error lens_err;
	/* The lens's delta(*) evidence names point into these: kept to the end. */
	struct cli_metrics_deltas deltas;
};

static int write_svg(const char *path, const fg_svg_options *base_opts, bool base_widths, fg_diff *d,
		     const fg_names *names, const fg_compare_side sides[2], fg_error *err)
{
	fg_svg_options so = *base_opts;
	so.base_widths = base_widths;
	so.base = (fg_svg_side){ sides[0].sources, sides[0].nsources, sides[0].protocol, sides[0].event };
	so.candidate = (fg_svg_side){ sides[1].sources, sides[1].nsources, sides[1].protocol, sides[1].event };
	FILE *f = fopen(path, "w");
	int rc = f ? 0 : fg_error_set(err, FG_EOUTPUT, path, "cannot create the SVG: %s", strerror(errno));
	if (!rc)
		rc = fg_svg_write_diff(f, d, names, &so, err);
	if (f && fclose(f) != 0 && !rc)
		rc = fg_error_set(err, FG_EOUTPUT, path, "cannot write the SVG: %s", strerror(errno));
	if (rc && !err->source[0])
		fg_error_set_source(err, path);
	return rc;
}

/* --html: the lists, the flame graph, and with --repo the files and the
 * decision. */
static int write_report(const char *path, const fg_svg_options *base_opts, fg_diff *d, const fg_names *names,
			const fg_compare_side sides[2], const fg_hotfiles *hist, const fg_metrics_result *lens,
			fg_error *err)
{
	fg_svg_options so = *base_opts;
	so.base = (fg_svg_side){ sides[0].sources, sides[0].nsources, sides[0].protocol, sides[0].event };
	so.candidate = (fg_svg_side){ sides[1].sources, sides[1].nsources, sides[1].protocol, sides[1].event };
	const fg_history_result *hot = hist->result;
	size_t nhot = hot ? fg_history_result_count(hot) : 0, nfiles = 0;
	fg_report_file *files = calloc(nhot ? nhot : 1, sizeof(*files));
	char *decision = NULL;
	size_t dlen = 0;
	FILE *dm = hist->decision ? open_memstream(&decision, &dlen) : NULL;
	int rc = files && (dm || !hist->decision) ? 0 : fg_error_oom(err, NULL);
	if (dm) {
		cli_decision_text(dm, hist->decision);
		if (fclose(dm) && !rc)
			rc = fg_error_oom(err, NULL);
	}
	for (size_t i = 0; !rc && i < nhot; i++) {
		const fg_history_entry *e = fg_history_result_entry(hot, i);
		if (e->path)
			files[nfiles++] = (fg_report_file){ e->path, e->frame, e->changed_in_window,
							    e->last ? e->last->id : NULL, e->last ? e->last->date : NULL,
							    e->last ? e->last->subject : NULL };
	}
	if (!rc) {
		fg_report r = { .title = "fgbisect diff", .decision = decision, .files = files, .nfiles = nfiles,
				.diff = d, .svg = &so, .metrics = lens, .generator = "written by fgbisect " FG_VERSION " diff" };
		rc = cli_write_report(path, &r, names, err);
	}
	free(decision);
	free(files);
	return rc;
}

/* --repo: the source history of every grown frame, and with --good the
 * decision for the first hot of them. */
static int look_up_files(fg_hotfiles *hist, const char *repo, const fg_history_options *ho,
			 const fg_diff_result *result, const fg_diff *diff, const fg_names *names, size_t hot,
			 fg_error *err)
{
	fg_growers g;
	fg_history_options with_files = *ho;
	with_files.frame_file = fg_names_file_by_name; /* the profiles' source files of native frames (read only) */
	with_files.frame_file_ctx = (void *)names;
	int rc = fg_growers_find(&g, diff, result, names, result->ngrew, hot, err);
	/* One profile a side: the growers decide nothing (cli_growers_no_decision). */
	size_t weighed = cli_growers_no_decision(result) ? 0 : hot < g.nframes ? hot : g.nframes;
	if (!rc)
		rc = cli_history_look_up(hist, repo, &with_files, true, g.frames, g.nframes, weighed, g.stack, g.nstack,
					 err);
	fg_growers_clear(&g);
	return rc;
}

/* The checks the table cannot make, and the inputs; CLI_PARSED or the
 * usage error's status. */
static int check(struct diff_cmd *c, const struct cli_command_spec *spec)
{
	const struct cli_args *a = &c->args;
	size_t nbases = a->nbefore, ncandidates = (size_t)a->argc;
	if (!c->repo && (c->ho.good || c->bad))
		return cli_spec_usage_error(spec, a, "--good and --bad name revisions of --repo");
	if ((c->ho.good && !*c->ho.good) || (c->bad && !*c->bad))
		return cli_spec_usage_error(spec, a, "--good and --bad need a revision");
	if (c->metrics && c->peers)
		return cli_spec_usage_error(spec, a, "--metrics compares two runs, not --peers");
	int status = c->metrics ? cli_metrics_check(&c->mo, spec, a, true) : CLI_PARSED;
	if (status != CLI_PARSED || !c->peers)
		return status != CLI_PARSED ? status
		       : cli_diff_sides(&c->in, &c->n, a->before, nbases, (const char *const *)a->argv, ncandidates,
					a->separated, spec, a);
	if (a->separated || ncandidates)
		return cli_spec_usage_error(spec, a, "--peers takes one list of profiles, without --");
	if (nbases < 3)
		return cli_spec_usage_error(spec, a, "--peers needs at least three profiles");
	if (c->svg || c->svg_base || c->html)
		return cli_spec_usage_error(spec, a, "--svg and --html draw a diff, not --peers");
	if (c->repo)
		return cli_spec_usage_error(spec, a, "--repo looks up the grown frames of a diff, not --peers");
	if (!(c->in = calloc(nbases, sizeof(*c->in))))
		return cli_report_error(&(fg_error){ .code = FG_ENOMEM, .message = "out of memory" }, a->json);
	for (size_t i = 0; i < nbases; i++)
		c->in[c->n++] = (fg_compare_input){ .location = a->before[i], .source = cli_shown(a->before[i]),
						    .side = FG_DIFF_BASE };
	return CLI_PARSED;
}

/* The option table, parsed into c, then check; CLI_PARSED or the status to
 * exit with. */
static int parse(struct diff_cmd *c, int argc, char **argv)
{
	const struct cli_option table[] = {
		CLI_OPT_PERCENT(0, "min-delta", &c->dopts.min_delta, "PP",
				"an extra floor: list only changes above PP points (default 0;\n"
				"the changes beyond noise under 0.25 points are never listed)"),
		CLI_OPT_PERCENT(0, "fdr", &c->fdr, "PCT",
				"the false-discovery rate of the lists, percent: the expected\n"
				"share of listed frames whose change is noise (default 5)"),
		CLI_OPT_PERCENT(0, "run-noise", &c->dopts.run_noise, "PCT",
				"the run-to-run noise: a share p moves between runs of one\n"
				"build by PCT% of p(1-p) (default 8.5: 0.25 points at 3%;\n"
				"0 when both sides are one run)"),
		CLI_OPT_BOOL(0, "self", &c->dopts.self, "compare self shares (the frame is the leaf)"),
		CLI_OPT_LIST(0, "ignore", &c->ignore, "PAT",
			     "never report frames containing PAT (repeatable; adds to the\n"
			     "default list: thread_native_entry, start_thread,\n"
			     "Thread::call_run, Executors$RunnableAdapter.call, ForkJoinTask)"),
		CLI_OPT_CLEAR(0, "no-default-ignore", &c->default_ignore, "drop the default ignore list"),
		CLI_OPT_STRING(0, "svg", &c->svg, "OUT", "write a differential flame graph (candidate widths)"),
		CLI_OPT_STRING(0, "svg-base", &c->svg_base, "OUT", "the same with base widths, so vanished frames show"),
		CLI_OPT_CHOICE(0, "color", &c->color, "KIND", "self|inclusive",
				"what colours the SVG's frames: the change of the inclusive\n"
				"share (default) or of the self share (points at the leaf)"),
		CLI_OPT_U64(0, "width", &c->width, "PX", 600, 20000, "the SVG's width in pixels (default 1200)"),
		CLI_OPT_STRING(0, "html", &c->html, "OUT",
			       "write the report: one self-contained HTML page with the\nlists, the differential flame "
			       "graph and, with --repo, the\nsource files and the decision"),
		CLI_OPT_BOOL(0, "force", &c->force, "compare gRPC with REST, different events or units, anyway"),
		CLI_OPT_BOOL(0, "peers", &c->peers, "find the outlier among the profiles (at least three)"),
		CLI_OPT_U64('j', "jobs", &c->jobs, "N", 1, 4096,
			    "read N profiles at a time (default: one per core;\nprofiles given as URLs are read one at a time); with\ntwice as many as are read at once, a large HTML page\nor a JFR recording of several chunks is read on two\nthreads"),
		CLI_OPT_STRING(0, "repo", &c->repo, "DIR", "the repository the profiles were built from: source files"),
		CLI_OPT_STRING(0, "bad", &c->bad, "REV", "the candidate's revision (default HEAD)"),
		CLI_OPT_STRING(0, "good", &c->ho.good, "REV", "the base's revision: the window (good, bad] and the decision"),
		CLI_OPT_U64(0, "hot", &c->hot, "N", 1, 1000,
			    "how many of the frames that grew most the decision takes as hot\n"
			    "(default 10; every grown frame gets its files)"),
		CLI_OPT_BOOL(0, "metrics", &c->metrics,
			     "then the efficiency lens of the two runs (docs/metrics.md),\nreading these profiles' "
			     "subsystem changes; never changes the diff"),
		CLI_OPT_STRING(0, "base-selector", &c->mo.selector[0], "SEL", "the base run's label matchers"),
		CLI_OPT_STRING(0, "candidate-selector", &c->mo.selector[1], "SEL", "the candidate run's label matchers"),
		CLI_METRICS_OPTIONS(&c->mo),
		CLI_PROFILE_OPTIONS(&c->po),
		CLI_OPT_END(),
	};
	const struct cli_command_spec spec = {
		.name = "diff",
		.synopsis = "[options] BASE CANDIDATE\n[options] BASE... -- CANDIDATE...\n"
			    "--peers [options] PROFILE PROFILE PROFILE...",
		.description = description, .options = table, .in_order = true, .usage_status = FG_EXIT_USAGE,
	};
	int status = cli_parse(&spec, &c->args, argc, argv);
	if (status == CLI_PARSED)
		status = check(c, &spec);
	fg_error err;
	const char **ignore = NULL;
	size_t nignore = 0;
	if (status == CLI_PARSED && fg_diff_ignore_list(&ignore, &nignore, c->ignore.items, c->ignore.n,
							c->default_ignore, &err))
		status = err.code == FG_EUSAGE ? cli_spec_usage_error(&spec, &c->args, "%s", err.message)
					       : cli_report_error(&err, c->po.json);
	c->dopts.ignore = ignore;
	c->dopts.nignore = nignore;
	return status;
}

/* Reads the inputs, compares them and writes what was asked for. */
static int run(struct diff_run *r, struct diff_cmd *c, fg_error *err)
{
	int rc = fg_names_new(&r->names, err);
	if (!rc)
		rc = fg_diff_new(&r->diff, r->names, &c->dopts, err);
	if (!rc)
		rc = cli_diff_read(c->in, c->n, r->diff, r->names, &c->po, (size_t)c->jobs, c->force, err);
	/* What the profiles said of their protocol and event. */
	for (int s = 0; s < 2 && !rc; s++)
		rc = fg_compare_side_get(&r->sides[s], c->in, c->n, (fg_diff_side)s, err);
	if (!rc)
		rc = c->peers ? fg_diff_peers_compute(&r->peers, r->diff, err) : fg_diff_compute(&r->result, r->diff, err);
	if (!rc && c->svg)
		rc = write_svg(c->svg, &c->so, false, r->diff, r->names, r->sides, err);
	if (!rc && c->svg_base)
		rc = write_svg(c->svg_base, &c->so, true, r->diff, r->names, r->sides, err);
	if (!rc && c->repo)
		rc = look_up_files(&r->hist, c->repo, &c->ho, &r->result, r->diff, r->names, (size_t)c->hot, err);
	/* The lens explains the diff; its failure is reported, never the diff's. */
	if (!rc && c->metrics) {
		if (!cli_metrics_deltas(&r->deltas, fg_diff_tree(r->diff, FG_DIFF_BASE),
					fg_diff_tree(r->diff, FG_DIFF_CANDIDATE), r->names, &r->lens_err))
			cli_metrics_run(&r->lens, &r->lens_rules, &c->mo, &c->po, r->deltas.deltas, r->deltas.n, &r->lens_err);
		if (!r->lens)
			cli_metrics_warn(&r->lens_err);
	}
	if (!rc && c->html)
		rc = write_report(c->html, &c->so, r->diff, r->names, r->sides, &r->hist, r->lens, err);
	return rc;
}

static void run_free(struct diff_run *r)
{
	cli_metrics_deltas_free(&r->deltas);
	fg_metrics_result_free(r->lens);
	fg_metrics_rules_free(r->lens_rules);
	fg_hotfiles_clear(&r->hist);
	fg_diff_peers_free(&r->peers);
	fg_diff_result_free(&r->result);
	fg_diff_free(r->diff);
	fg_names_free(r->names);
	for (int s = 0; s < 2; s++)
		fg_compare_side_clear(&r->sides[s]);
}

int cmd_diff(int argc, char **argv)
{
	struct diff_cmd c = { .width = 1200, .hot = 10, .jobs = fg_parallel_cores(), .default_ignore = true };
	fg_diff_options_init(&c.dopts);
	fg_history_options_init(&c.ho);
	fg_svg_options_init(&c.so);
	cli_metrics_options_init(&c.mo);
	c.fdr = 100.0 * c.dopts.fdr;
	int status = parse(&c, argc, argv);
	if (status == CLI_PARSED) {
		if (c.bad)
			c.ho.bad = c.bad;
		if (c.color)
			c.so.color = !strcmp(c.color, "self") ? FG_SVG_COLOR_SELF : FG_SVG_COLOR_INCLUSIVE;
		c.so.width = (double)c.width;
		c.dopts.fdr = c.fdr / 100.0;
		c.dopts.raw = c.po.raw;
		/* --repo: the candidate's tree holds the grown stacks (the callers). */
		c.dopts.trees = c.svg || c.svg_base || c.repo || c.html || c.metrics;
		struct diff_run r = { .peers = { .outlier = -1 } };
		fg_error err;
		fg_error_clear(&err);
		fg_error_clear(&r.lens_err);
		status = run(&r, &c, &err) ? cli_report_error(&err, c.po.json) : 0;
		const struct cli_diff_shown shown = {
			c.in, c.n, { r.sides[0], r.sides[1] }, r.diff, r.names, &c.dopts, &r.result,
			c.peers ? &r.peers : NULL, c.repo ? &r.hist : NULL, c.ho.good != NULL, (size_t)c.hot,
			c.metrics, r.lens, &r.lens_err, c.mo.url,
		};
		if (!status)
			cli_diff_print(&shown, c.po.json);
		run_free(&r);
	}
	free(c.in);
	free((void *)c.dopts.ignore);
	cli_args_free(&c.args);
	return status;
}
