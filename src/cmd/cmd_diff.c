/* fgbisect diff: the inclusive-% diff of two sets of profiles, the
 * differential flame graph, and the outlier among peers. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cli_diff.h"
#include "cmd/cli_history.h"
#include "cmd/cli_metrics.h"
#include "cmd/commands.h"
#include "analysis/diff.h"
#include "explain/growers.h"
#include "model/match.h"
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
	"by how much more the nodes disagree than sampling explains); a frame is\n"
	"listed when its change is beyond noise at a false-discovery rate of --fdr\n"
	"over all frames, at least 0.25 points and more than --min-delta; the lists\n"
	"are ranked by significance (z).  With one profile a side there is no node\n"
	"spread to measure: sampling error alone.  Refuses a gRPC\n"
	"profile against a REST one, and profiles of different events (cpu, alloc,\n"
	"wall, lock), unless --force.  With --peers, scores each profile against the\n"
	"mean of the others and names the outlier.  With --repo, annotates each grown\n"
	"frame with its source file(s), their last commit and (with --good) whether they\n"
	"changed in the window (good, bad], and ends with the decision: a hot file changed\n"
	"(the suspect commits), or not (called more often or configuration changed: the\n"
	"changed files of the callers), or no hot frame is in the repository (the build\n"
	"files changed).  docs/diff.md has the details.\n";

/* The protocol and the event of a side's profiles: the one they all give,
 * "mixed" (fg_protocol_join), or unknown / NULL when none says. */
static const char *side_protocol(const fg_compare_input *in, size_t n, fg_diff_side side)
{
	const char *p = NULL;
	for (size_t i = 0; i < n; i++)
		if (in[i].side == side && in[i].protocol)
			p = fg_protocol_join(p, fg_protocol_name(in[i].protocol));
	return p ? p : fg_protocol_name(FG_PROTOCOL_UNKNOWN);
}

static const char *side_event(const fg_compare_input *in, size_t n, fg_diff_side side)
{
	const char *e = NULL;
	for (size_t i = 0; i < n; i++)
		if (in[i].side == side)
			e = fg_protocol_join(e, in[i].event);
	return e;
}

static void json_side(fg_json *j, const fg_compare_input *in, size_t n, fg_diff_side side, uint64_t total)
{
	fg_json_object(j);
	fg_json_key(j, "sources");
	fg_json_array(j);
	for (size_t i = 0; i < n; i++)
		if (in[i].side == side)
			fg_json_string(j, in[i].source);
	fg_json_end(j);
	fg_json_member_string(j, "protocol", side_protocol(in, n, side));
	fg_json_member_string(j, "event", side_event(in, n, side));
	fg_json_member_u64(j, "total", total);
	fg_json_end(j);
}

static const char *status_name(fg_diff_status s)
{
	return s == FG_DIFF_NEW ? "new" : s == FG_DIFF_GONE ? "gone" : "changed";
}

/* files: the source history of the entries, frame by frame, or NULL. */
static void json_entries(fg_json *j, const fg_diff_entry *e, size_t n, const fg_names *names,
			 const fg_history_result *files)
{
	size_t first, end = 0;
	fg_json_array(j);
	for (size_t i = 0; i < n; i++) {
		fg_json_object(j);
		fg_json_member_string(j, "frame", fg_names_get(names, e[i].name));
		fg_json_member_fixed(j, "base", e[i].base, 4);
		fg_json_member_fixed(j, "candidate", e[i].candidate, 4);
		fg_json_member_fixed(j, "delta", e[i].delta, 4);
		fg_json_member_fixed(j, "noise", e[i].noise, 4);
		fg_json_member_fixed(j, "z", e[i].z, 4);
		fg_json_member_fixed(j, "q", e[i].q, 6);
		fg_json_member_fixed(j, "phi", e[i].phi, 4);
		fg_json_member_string(j, "status", status_name(e[i].status));
		if (files) {
			cli_history_next_frame(files, &first, &end);
			fg_json_key(j, "files");
			fg_json_array(j);
			for (size_t k = first; k < end; k++)
				cli_history_entry_json(j, fg_history_result_entry(files, k));
			fg_json_end(j);
		}
		fg_json_end(j);
	}
	fg_json_end(j);
}

static void text_side(const char *label, const fg_compare_input *in, size_t n, fg_diff_side side)
{
	for (size_t i = 0; i < n; i++)
		if (in[i].side == side)
			printf(in[i].title[0] ? "%-10s %-8s %-6s %9llu %s  %s  \"%s\"\n" : "%-10s %-8s %-6s %9llu %s  %s\n",
			       label, fg_protocol_name(in[i].protocol), in[i].event ? in[i].event : "-",
			       (unsigned long long)in[i].total, in[i].unit, cli_text(in[i].source), cli_text(in[i].title));
}

/* files: as json_entries; frames without a file are not annotated. */
static void text_entries(const char *heading, const fg_diff_entry *e, size_t n, const fg_names *names,
			 const fg_history_result *files)
{
	size_t first, end = 0;
	printf("\n%s (%zu)\n", heading, n);
	if (!n)
		return;
	printf("%8s   %8s %9s %7s %7s  %s\n", "base%", "cand%", "delta", "noise", "z", "frame");
	for (size_t i = 0; i < n; i++) {
		printf("%7.2f%% \xe2\x86\x92 %7.2f%% %+9.2f %7.2f %+7.1f  ", e[i].base, e[i].candidate, e[i].delta,
		       e[i].noise, e[i].z);
		cli_put_text(stdout, fg_names_get(names, e[i].name));
		puts(e[i].status == FG_DIFF_NEW ? "  [new]" : e[i].status == FG_DIFF_GONE ? "  [gone]" : "");
		if (!files)
			continue;
		cli_history_next_frame(files, &first, &end);
		for (size_t k = first; k < end; k++)
			if (fg_history_result_entry(files, k)->path)
				cli_history_entry_text(stdout, fg_history_result_entry(files, k), "        ");
	}
}

/* The rule the lists were made by, and with one profile a side what it
 * cannot see. */
static void text_rule(const fg_diff_result *r, const fg_diff_options *o, bool raw)
{
	printf("%s shares per %s frame name; listed when beyond noise (Benjamini-Hochberg q <= %.2f\n"
	       "over %zu frames) and |delta| >= %.2f points", o->self ? "self" : "inclusive", raw ? "raw" : "normalised",
	       o->fdr, r->tested, FG_DIFF_FLOOR);
	if (o->min_delta > 0)
		printf(" and > %.2f (--min-delta)", o->min_delta);
	if (r->node_df)
		printf(";\nnoise: sampling error widened by the nodes' over-dispersion (common phi %.2f)\n", r->phi);
	else
		printf(";\none profile a side: no node spread to measure, the noise is sampling error alone\n"
		       "(differences between nodes count as changes; give every node of a run)\n");
}

/* The frames beyond noise that a floor left out. */
static void text_hidden(const fg_diff_result *r, const fg_names *names)
{
	for (int k = 0; k < 2; k++) {
		const fg_diff_hidden *h = &r->hidden[k];
		if (!h->count)
			continue;
		printf("\n%zu more frame%s %s beyond noise under the floor; the largest: %+.2f (z %+.1f) ", h->count,
		       h->count == 1 ? "" : "s", k ? "shrank" : "grew", h->largest.delta, h->largest.z);
		cli_put_text(stdout, fg_names_get(names, h->largest.name));
		putchar('\n');
	}
}

static void json_rule(fg_json *j, const fg_diff_result *r, const fg_names *names)
{
	fg_json_member_fixed(j, "floor", FG_DIFF_FLOOR, 4);
	fg_json_member_u64(j, "tested", r->tested);
	fg_json_member_u64(j, "node_df", r->node_df);
	fg_json_member_fixed(j, "phi", r->phi, 4);
	fg_json_key(j, "hidden");
	fg_json_object(j);
	for (int k = 0; k < 2; k++) {
		const fg_diff_hidden *h = &r->hidden[k];
		fg_json_key(j, k ? "shrank" : "grew");
		fg_json_object(j);
		fg_json_member_u64(j, "count", h->count);
		fg_json_member_string(j, "largest", h->count ? fg_names_get(names, h->largest.name) : NULL);
		if (h->count) {
			fg_json_member_fixed(j, "delta", h->largest.delta, 4);
			fg_json_member_fixed(j, "z", h->largest.z, 4);
		}
		fg_json_end(j);
	}
	fg_json_end(j);
}

/* The sources of a side, for the SVG header (malloc'ed array). */
static const char **side_sources(const fg_compare_input *in, size_t n, fg_diff_side side, size_t *count)
{
	const char **s = malloc((n ? n : 1) * sizeof(*s));
	*count = 0;
	for (size_t i = 0; s && i < n; i++)
		if (in[i].side == side)
			s[(*count)++] = in[i].source;
	return s;
}

/* The SVG header's sides; sources[] receives the malloc'ed arrays it
 * points into (NULL when out of memory). */
static void svg_sides(fg_svg_options *so, const char **sources[2], const fg_compare_input *in, size_t n)
{
	size_t count[2];
	for (int s = 0; s < 2; s++)
		sources[s] = side_sources(in, n, (fg_diff_side)s, &count[s]);
	so->base = (fg_svg_side){ sources[0], count[0], side_protocol(in, n, FG_DIFF_BASE), side_event(in, n, FG_DIFF_BASE) };
	so->candidate = (fg_svg_side){ sources[1], count[1], side_protocol(in, n, FG_DIFF_CANDIDATE),
				       side_event(in, n, FG_DIFF_CANDIDATE) };
}

static int write_svg(const char *path, const fg_svg_options *base_opts, bool base_widths, fg_diff *d,
		     const fg_names *names, const fg_compare_input *in, size_t n, fg_error *err)
{
	fg_svg_options so = *base_opts;
	so.base_widths = base_widths;
	const char **sources[2];
	svg_sides(&so, sources, in, n);
	FILE *f = NULL;
	int rc = 0;
	if (!sources[0] || !sources[1])
		rc = fg_error_oom(err, NULL);
	else if (!(f = fopen(path, "w")))
		rc = fg_error_set(err, FG_EOUTPUT, path, "cannot create the SVG: %s", strerror(errno));
	if (!rc)
		rc = fg_svg_write_diff(f, d, names, &so, err);
	if (f && fclose(f) != 0 && !rc)
		rc = fg_error_set(err, FG_EOUTPUT, path, "cannot write the SVG: %s", strerror(errno));
	if (rc && !err->source[0])
		fg_error_set_source(err, path);
	free(sources[0]);
	free(sources[1]);
	return rc;
}

/* --html: the lists, the flame graph, and with --repo the files and the
 * decision. */
static int write_report(const char *path, const fg_svg_options *base_opts, fg_diff *d, const fg_names *names,
			const fg_compare_input *in, size_t n, const fg_hotfiles *hist, const fg_metrics_result *lens,
			fg_error *err)
{
	fg_svg_options so = *base_opts;
	const char **sources[2];
	svg_sides(&so, sources, in, n);
	const fg_history_result *hot = hist->result;
	size_t nhot = hot ? fg_history_result_count(hot) : 0, nfiles = 0;
	fg_report_file *files = calloc(nhot ? nhot : 1, sizeof(*files));
	char *decision = NULL;
	size_t dlen = 0;
	FILE *dm = hist->decision ? open_memstream(&decision, &dlen) : NULL;
	int rc = sources[0] && sources[1] && files && (dm || !hist->decision)
			 ? 0 : fg_error_oom(err, NULL);
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
	free(sources[0]);
	free(sources[1]);
	return rc;
}

static void print_peers(const fg_diff_peers *p, const fg_compare_input *in, const fg_names *names, bool json,
			double min_delta, bool self)
{
	if (json) {
		fg_json j;
		fg_json_init(&j, stdout);
		fg_json_object(&j);
		fg_json_member_string(&j, "kind", self ? "self" : "inclusive");
		fg_json_member_fixed(&j, "min_delta", min_delta, 4);
		fg_json_key(&j, "peers");
		fg_json_array(&j);
		for (size_t i = 0; i < p->npeers; i++) {
			const fg_diff_peer *peer = &p->peers[i];
			fg_json_object(&j);
			fg_json_member_string(&j, "source", in[peer->profile].source);
			fg_json_member_u64(&j, "total", in[peer->profile].total);
			fg_json_member_fixed(&j, "score", peer->score, 4);
			fg_json_key(&j, "frames");
			fg_json_array(&j);
			for (size_t k = 0; k < peer->nframes; k++) {
				const fg_diff_peer_frame *f = &peer->frames[k];
				fg_json_object(&j);
				fg_json_member_string(&j, "frame", fg_names_get(names, f->name));
				fg_json_member_fixed(&j, "share", f->share, 4);
				fg_json_member_fixed(&j, "others", f->others, 4);
				fg_json_member_fixed(&j, "delta", f->delta, 4);
				fg_json_end(&j);
			}
			fg_json_end(&j);
			fg_json_end(&j);
		}
		fg_json_end(&j);
		fg_json_member_string(&j, "outlier", p->outlier >= 0 ? in[p->peers[p->outlier].profile].source : NULL);
		fg_json_end(&j);
		return;
	}
	printf("peer scores: sum of |delta| of the frames whose %s share differs from the mean of the\n"
	       "other profiles by more than %.2f points\n\n%9s %7s  %s\n", self ? "self" : "inclusive", min_delta,
	       "score", "frames", "profile");
	for (size_t i = 0; i < p->npeers; i++)
		printf("%9.2f %7zu  %s%s\n", p->peers[i].score, p->peers[i].nframes, in[p->peers[i].profile].source,
		       (long)i == p->outlier ? "  <- outlier" : "");
	if (p->outlier < 0) {
		printf("\nno profile stands out (the top score is below %.1f\xc3\x97 the second)\n",
		       FG_DIFF_OUTLIER_RATIO);
		return;
	}
	const fg_diff_peer *o = &p->peers[p->outlier];
	printf("\noutlier: %s\n%8s %8s %9s  %s\n", in[o->profile].source, "share%", "others%", "delta", "frame");
	for (size_t k = 0; k < o->nframes; k++)
	{
		printf("%7.2f%% %7.2f%% %+9.2f  ", o->frames[k].share, o->frames[k].others, o->frames[k].delta);
		cli_put_text(stdout, fg_names_get(names, o->frames[k].name));
		putchar('\n');
	}
}

/* --repo: the source history of every grown frame, and with --good the
 * decision for the first hot of them. */
static int look_up_files(fg_hotfiles *hist, const char *repo, const fg_history_options *ho,
			 const fg_diff_result *result, const fg_diff *diff, const fg_names *names, size_t hot,
			 fg_error *err)
{
	fg_growers g;
	int rc = fg_growers_find(&g, diff, result, names, result->ngrew, hot, err);
	if (!rc)
		rc = cli_history_look_up(hist, repo, ho, true, g.frames, g.nframes, hot < g.nframes ? hot : g.nframes,
					 g.stack, g.nstack, err);
	fg_growers_clear(&g);
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	struct cli_profile_options po = { 0 };
	fg_diff_options dopts;
	fg_diff_options_init(&dopts);
	fg_history_options ho;
	fg_history_options_init(&ho);
	fg_svg_options so;
	fg_svg_options_init(&so);
	uint64_t width = 1200;
	const char *color = NULL;
	const char *svg = NULL, *svg_base = NULL, *repo = NULL, *bad = NULL, *html = NULL;
	bool force = false, peers = false, default_ignore = true, metrics = false;
	struct cli_metrics_options mo;
	cli_metrics_options_init(&mo);
	uint64_t hot = 10;
	double fdr = 100.0 * dopts.fdr;
	uint64_t jobs = fg_parallel_cores();
	struct cli_list ignore_given = { 0 };
	const struct cli_option table[] = {
		CLI_OPT_PERCENT(0, "min-delta", &dopts.min_delta, "PP",
				"an extra floor: list only changes above PP points (default 0;\n"
				"the changes beyond noise under 0.25 points are never listed)"),
		CLI_OPT_PERCENT(0, "fdr", &fdr, "PCT",
				"the false-discovery rate of the lists, percent: the expected\n"
				"share of listed frames whose change is noise (default 5)"),
		CLI_OPT_BOOL(0, "self", &dopts.self, "compare self shares (the frame is the leaf)"),
		CLI_OPT_LIST(0, "ignore", &ignore_given, "PAT",
			     "never report frames containing PAT (repeatable; adds to the\n"
			     "default list: thread_native_entry, start_thread,\n"
			     "Thread::call_run, Executors$RunnableAdapter.call, ForkJoinTask)"),
		CLI_OPT_CLEAR(0, "no-default-ignore", &default_ignore, "drop the default ignore list"),
		CLI_OPT_STRING(0, "svg", &svg, "OUT", "write a differential flame graph (candidate widths)"),
		CLI_OPT_STRING(0, "svg-base", &svg_base, "OUT", "the same with base widths, so vanished frames show"),
		CLI_OPT_CHOICE(0, "color", &color, "KIND", "self|inclusive",
				"what colours the SVG's frames: the change of the inclusive\n"
				"share (default) or of the self share (points at the leaf)"),
		CLI_OPT_U64(0, "width", &width, "PX", 600, 20000, "the SVG's width in pixels (default 1200)"),
		CLI_OPT_STRING(0, "html", &html, "OUT",
			       "write the report: one self-contained HTML page with the\nlists, the differential flame "
			       "graph and, with --repo, the\nsource files and the decision"),
		CLI_OPT_BOOL(0, "force", &force, "compare gRPC with REST, different events or units, anyway"),
		CLI_OPT_BOOL(0, "peers", &peers, "find the outlier among the profiles (at least three)"),
		CLI_OPT_U64('j', "jobs", &jobs, "N", 1, 4096,
			    "read N profiles at a time (default: one per core;\nprofiles given as URLs are read one at a time); with\ntwice as many as are read at once, a large HTML page\nor a JFR recording of several chunks is read on two\nthreads"),
		CLI_OPT_STRING(0, "repo", &repo, "DIR", "the repository the profiles were built from: source files"),
		CLI_OPT_STRING(0, "bad", &bad, "REV", "the candidate's revision (default HEAD)"),
		CLI_OPT_STRING(0, "good", &ho.good, "REV", "the base's revision: the window (good, bad] and the decision"),
		CLI_OPT_U64(0, "hot", &hot, "N", 1, 1000,
			    "how many of the frames that grew most the decision takes as hot\n"
			    "(default 10; every grown frame gets its files)"),
		CLI_OPT_BOOL(0, "metrics", &metrics,
			     "then the efficiency lens of the two runs (docs/metrics.md),\nreading these profiles' "
			     "subsystem changes; never changes the diff"),
		CLI_OPT_STRING(0, "base-selector", &mo.selector[0], "SEL", "the base run's label matchers"),
		CLI_OPT_STRING(0, "candidate-selector", &mo.selector[1], "SEL", "the candidate run's label matchers"),
		CLI_METRICS_OPTIONS(&mo),
		CLI_PROFILE_OPTIONS(&po),
		CLI_OPT_END(),
	};
	const struct cli_command_spec spec = {
		.name = "diff",
		.synopsis = "[options] BASE CANDIDATE\n[options] BASE... -- CANDIDATE...\n"
			    "--peers [options] PROFILE PROFILE PROFILE...",
		.description = description, .options = table, .in_order = true, .usage_status = FG_EXIT_USAGE,
	};
	struct cli_args args;
	int status = cli_parse(&spec, &args, argc, argv);
	if (status != CLI_PARSED)
		return status;
	const char **bases = args.before;
	size_t nbases = args.nbefore;
	bool separated = args.separated, bad_given = bad != NULL;
	if (bad)
		ho.bad = bad;
	size_t ncandidates = (size_t)args.argc;
	/* Every --ignore and the defaults. */
	const char **ignore = calloc(ignore_given.n + fg_diff_default_ignore_count + 1, sizeof(*ignore));
	size_t nignore = 0;
	if (color)
		so.color = !strcmp(color, "self") ? FG_SVG_COLOR_SELF : FG_SVG_COLOR_INCLUSIVE;
	fg_compare_input *in = NULL;
	size_t n = 0;
	status = CLI_PARSED;
	if (!ignore)
		status = cli_report_error(&(fg_error){ .code = FG_ENOMEM, .message = "out of memory" }, po.json);
	for (size_t i = 0; ignore && i < ignore_given.n; i++)
		ignore[nignore++] = ignore_given.items[i];
	if (status == CLI_PARSED && !repo && (ho.good || bad_given))
		status = cli_spec_usage_error(&spec, &args, "--good and --bad name revisions of --repo");
	else if (status == CLI_PARSED && ((ho.good && !*ho.good) || (ho.bad && !*ho.bad)))
		status = cli_spec_usage_error(&spec, &args, "--good and --bad need a revision");
	if (status == CLI_PARSED && metrics && peers)
		status = cli_spec_usage_error(&spec, &args, "--metrics compares two runs, not --peers");
	if (status == CLI_PARSED && metrics)
		status = cli_metrics_check(&mo, &spec, &args, true);
	if (status == CLI_PARSED && peers) {
		if (separated || ncandidates)
			status = cli_spec_usage_error(&spec, &args, "--peers takes one list of profiles, without --");
		else if (nbases < 3)
			status = cli_spec_usage_error(&spec, &args, "--peers needs at least three profiles");
		else if (svg || svg_base || html)
			status = cli_spec_usage_error(&spec, &args, "--svg and --html draw a diff, not --peers");
		else if (repo)
			status = cli_spec_usage_error(&spec, &args,
						      "--repo looks up the grown frames of a diff, not --peers");
		else if (!(in = calloc(nbases, sizeof(*in))))
			status = cli_report_error(&(fg_error){ .code = FG_ENOMEM, .message = "out of memory" }, po.json);
		for (size_t i = 0; in && i < nbases; i++)
			in[n++] = (fg_compare_input){ .location = bases[i], .source = cli_shown(bases[i]),
						      .side = FG_DIFF_BASE };
	} else if (status == CLI_PARSED) {
		status = cli_diff_sides(&in, &n, bases, nbases, (const char *const *)args.argv, ncandidates, separated,
					&spec, &args);
	}
	if (status == CLI_PARSED && default_ignore) {
		for (size_t i = 0; i < fg_diff_default_ignore_count; i++)
			ignore[nignore++] = fg_diff_default_ignore[i];
	}
	if (status == CLI_PARSED && nignore > FG_MATCH_MAX_PATTERNS)
		status = cli_spec_usage_error(&spec, &args, "at most %d --ignore patterns in all", FG_MATCH_MAX_PATTERNS);
	if (status != CLI_PARSED) {
		free(in);
		free(ignore);
		cli_args_free(&args);
		return status;
	}
	status = 0;
	nbases = 0;
	for (size_t i = 0; i < n; i++)
		nbases += in[i].side == FG_DIFF_BASE;
	dopts.ignore = ignore;
	dopts.nignore = nignore;
	dopts.fdr = fdr / 100.0;
	dopts.raw = po.raw;
	/* --repo: the candidate's tree holds the grown stacks (the callers). */
	dopts.trees = svg || svg_base || repo || html || metrics;

	fg_error err;
	fg_error_clear(&err);
	fg_names *names = NULL;
	fg_diff *diff = NULL;
	fg_diff_result result = { 0 };
	fg_diff_peers peer_result = { .outlier = -1 };
	fg_hotfiles hist = { 0 };
	so.width = (double)width;
	fg_metrics_result *lens = NULL;
	fg_metrics_rules *lens_rules = NULL;
	fg_error lens_err;
	fg_error_clear(&lens_err);
	/* The result's delta(*) evidence names point into these: kept to the end. */
	struct cli_metrics_deltas deltas = { 0 };
	int rc = fg_names_new(&names, &err);
	if (!rc)
		rc = fg_diff_new(&diff, names, &dopts, &err);
	if (!rc)
		rc = cli_diff_read(in, n, diff, names, &po, (size_t)jobs, force, &err);
	if (!rc && peers)
		rc = fg_diff_peers_compute(&peer_result, diff, &err);
	if (!rc && !peers)
		rc = fg_diff_compute(&result, diff, &err);
	if (!rc && svg)
		rc = write_svg(svg, &so, false, diff, names, in, n, &err);
	if (!rc && svg_base)
		rc = write_svg(svg_base, &so, true, diff, names, in, n, &err);
	if (!rc && repo)
		rc = look_up_files(&hist, repo, &ho, &result, diff, names, (size_t)hot, &err);
	/* The lens explains the diff; its failure is reported, never the diff's. */
	if (!rc && metrics) {
		if (!cli_metrics_deltas(&deltas, fg_diff_tree(diff, FG_DIFF_BASE), fg_diff_tree(diff, FG_DIFF_CANDIDATE),
		                        names, &lens_err))
			cli_metrics_run(&lens, &lens_rules, &mo, &po, deltas.deltas, deltas.n, &lens_err);
		if (!lens)
			cli_metrics_warn(&lens_err);
	}
	if (!rc && html)
		rc = write_report(html, &so, diff, names, in, n, &hist, lens, &err);
	if (rc) {
		status = cli_report_error(&err, po.json);
		goto out;
	}

	if (peers) {
		print_peers(&peer_result, in, names, po.json,
			    dopts.min_delta > 0 ? dopts.min_delta : FG_DIFF_PEERS_MIN_DELTA, dopts.self);
	} else if (po.json) {
		fg_json j;
		fg_json_init(&j, stdout);
		fg_json_object(&j);
		fg_json_member_string(&j, "kind", dopts.self ? "self" : "inclusive");
		fg_json_member_fixed(&j, "min_delta", dopts.min_delta, 4);
		fg_json_member_fixed(&j, "fdr", dopts.fdr, 4);
		json_rule(&j, &result, names);
		fg_json_key(&j, "base");
		json_side(&j, in, n, FG_DIFF_BASE, fg_diff_total(diff, FG_DIFF_BASE));
		fg_json_key(&j, "candidate");
		json_side(&j, in, n, FG_DIFF_CANDIDATE, fg_diff_total(diff, FG_DIFF_CANDIDATE));
		fg_json_key(&j, "grew");
		json_entries(&j, result.grew, result.ngrew, names, hist.result);
		fg_json_key(&j, "shrank");
		json_entries(&j, result.shrank, result.nshrank, names, NULL);
		if (repo) {
			fg_json_key(&j, "history");
			fg_json_object(&j);
			cli_history_json_members(&j, hist.history);
			fg_json_end(&j);
		}
		if (repo && ho.good) {
			fg_json_key(&j, "decision");
			cli_decision_json(&j, hist.decision);
			cli_growers_note_json(&j, &result, (size_t)hot);
		}
		if (metrics)
			cli_metrics_json_member(&j, lens, &lens_err, mo.url);
		fg_json_end(&j);
	} else {
		text_side("base", in, n, FG_DIFF_BASE);
		text_side("candidate", in, n, FG_DIFF_CANDIDATE);
		text_rule(&result, &dopts, po.raw);
		if (repo)
			printf("source files in %s at %s%s%s\n", fg_history_repo_path(hist.history),
			       fg_history_bad_id(hist.history), ho.good ? ", window from " : "",
			       ho.good ? fg_history_good_id(hist.history) : "");
		text_entries("grew in candidate", result.grew, result.ngrew, names, hist.result);
		text_entries("shrank in candidate", result.shrank, result.nshrank, names, NULL);
		text_hidden(&result, names);
		cli_decision_text(stdout, hist.decision);
		if (hist.decision)
			cli_growers_note_text(stdout, &result, (size_t)hot);
		if (lens) {
			fputc('\n', stdout);
			cli_metrics_text(stdout, lens, mo.url);
		}
	}
out:
	cli_metrics_deltas_free(&deltas);
	fg_metrics_result_free(lens);
	fg_metrics_rules_free(lens_rules);
	fg_hotfiles_clear(&hist);
	fg_diff_peers_free(&peer_result);
	fg_diff_result_free(&result);
	fg_diff_free(diff);
	fg_names_free(names);
	free(in);
	free(ignore);
	cli_args_free(&args);
	return status;
}
