/* fgbisect diff: the inclusive-% diff of two sets of profiles, the
 * differential flame graph, and the outlier among peers. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_diff.h"
#include "cli_history.h"
#include "cli_metrics.h"
#include "commands.h"
#include "diff.h"
#include "match.h"
#include "names.h"
#include "history.h"
#include "protocol.h"
#include "report.h"
#include "svg.h"

static const char usage[] =
	"usage: fgbisect diff [options] BASE CANDIDATE\n"
	"       fgbisect diff [options] BASE... -- CANDIDATE...\n"
	"       fgbisect diff --peers [options] PROFILE PROFILE PROFILE...\n"
	"\n"
	"Compares the inclusive share of every frame (samples whose stack holds it,\n"
	"each stack counted once) between BASE and CANDIDATE, per normalised name.\n"
	"Several profiles a side (all nodes of a run) are pooled.  A frame is listed\n"
	"when its change exceeds --min-delta points and the spread of its share\n"
	"among the base profiles (the noise between healthy nodes).  Refuses a gRPC\n"
	"profile against a REST one, and profiles of different events (cpu, alloc,\n"
	"wall, lock), unless --force.  With --peers, scores each profile against the\n"
	"mean of the others and names the outlier.  With --repo, annotates each grown\n"
	"frame with its source file(s), their last commit and (with --good) whether they\n"
	"changed in the window (good, bad], and ends with the decision: a hot file changed\n"
	"(the suspect commits), or not (called more often or configuration changed: the\n"
	"changed files of the callers), or no hot frame is in the repository (the build\n"
	"files changed).  docs/diff.md has the details.\n"
	"\n"
	"      --min-delta PP  smallest change reported, percentage points (default 1.5)\n"
	"      --self          compare self shares (the frame is the leaf)\n"
	"      --ignore PAT    never report frames containing PAT (repeatable; adds to the\n"
	"                      default list: thread_native_entry, start_thread,\n"
	"                      Thread::call_run, Executors$RunnableAdapter.call, ForkJoinTask)\n"
	"      --no-default-ignore  drop the default ignore list\n"
	"      --svg OUT       write a differential flame graph (candidate widths)\n"
	"      --svg-base OUT  the same with base widths, so vanished frames show\n"
	"      --color KIND    what colours the SVG's frames: the change of the inclusive\n"
	"                      share (default) or of the self share (points at the leaf)\n"
	"      --width PX      the SVG's width in pixels, 600 or more (default 1200)\n"
	"      --html OUT      write the report: one self-contained HTML page with the\n"
	"                      lists, the differential flame graph and, with --repo, the\n"
	"                      source files and the decision\n"
	"      --force         compare gRPC with REST, or different events, anyway\n"
	"      --peers         find the outlier among the profiles (at least three)\n"
	"      --repo DIR      the repository the profiles were built from: source files\n"
	"      --bad REV       the candidate's revision (default HEAD)\n"
	"      --good REV      the base's revision: the window (good, bad] and the decision\n"
	"      --hot N         how many of the largest growers the decision takes as hot\n"
	"                      (default 10; every grown frame gets its files)\n"
	"      --metrics       then the efficiency lens of the two runs (docs/metrics.md),\n"
	"                      reading these profiles' subsystem changes; never changes the diff\n"
	"      --base-selector SEL, --candidate-selector SEL   the runs' label matchers\n"
	CLI_METRICS_OPTIONS_BRIEF_HELP
	CLI_PROFILE_OPTIONS_HELP;

enum { OPT_MIN_DELTA = CLI_OPT_FIRST_FREE, OPT_SELF, OPT_IGNORE, OPT_NO_DEFAULT_IGNORE, OPT_SVG, OPT_SVG_BASE,
       OPT_FORCE, OPT_PEERS, OPT_REPO, OPT_GOOD, OPT_BAD, OPT_HOT, OPT_COLOR, OPT_WIDTH, OPT_HTML, OPT_METRICS,
       OPT_BASE_SELECTOR, OPT_CANDIDATE_SELECTOR };

static const char *side_protocol(const struct cli_diff_input *in, size_t n, fg_diff_side side)
{
	fg_protocol_kind k = FG_PROTOCOL_UNKNOWN;
	for (size_t i = 0; i < n; i++) {
		if (in[i].side != side || !in[i].protocol)
			continue;
		if (k && in[i].protocol != k)
			return "mixed";
		k = in[i].protocol;
	}
	return fg_protocol_name(k);
}

static const char *side_event(const struct cli_diff_input *in, size_t n, fg_diff_side side)
{
	const char *e = NULL;
	for (size_t i = 0; i < n; i++) {
		if (in[i].side != side || !in[i].event)
			continue;
		if (e && strcmp(e, in[i].event))
			return "mixed";
		e = in[i].event;
	}
	return e;
}

static void json_side(const struct cli_diff_input *in, size_t n, fg_diff_side side, uint64_t total)
{
	fputs("{\"sources\":[", stdout);
	bool first = true;
	for (size_t i = 0; i < n; i++) {
		if (in[i].side != side)
			continue;
		if (!first)
			fputc(',', stdout);
		first = false;
		cli_json_string(stdout, in[i].source);
	}
	fputs("],\"protocol\":", stdout);
	cli_json_string(stdout, side_protocol(in, n, side));
	fputs(",\"event\":", stdout);
	const char *e = side_event(in, n, side);
	if (e)
		cli_json_string(stdout, e);
	else
		fputs("null", stdout);
	printf(",\"total\":%llu}", (unsigned long long)total);
}

static const char *status_name(fg_diff_status s)
{
	return s == FG_DIFF_NEW ? "new" : s == FG_DIFF_GONE ? "gone" : "changed";
}

/* files: the source history of the entries, frame by frame, or NULL. */
static void json_entries(const fg_diff_entry *e, size_t n, const fg_names *names, const fg_history_result *files)
{
	size_t first, end = 0;
	fputc('[', stdout);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",{\"frame\":" : "{\"frame\":", stdout);
		cli_json_string(stdout, fg_names_get(names, e[i].name));
		printf(",\"base\":%.4f,\"candidate\":%.4f,\"delta\":%.4f,\"noise\":%.4f,\"status\":\"%s\"", e[i].base,
		       e[i].candidate, e[i].delta, e[i].noise, status_name(e[i].status));
		if (files) {
			cli_history_next_frame(files, &first, &end);
			fputs(",\"files\":[", stdout);
			for (size_t k = first; k < end; k++) {
				if (k > first)
					fputc(',', stdout);
				cli_history_entry_json(stdout, fg_history_result_entry(files, k));
			}
			fputc(']', stdout);
		}
		fputc('}', stdout);
	}
	fputc(']', stdout);
}

static void text_side(const char *label, const struct cli_diff_input *in, size_t n, fg_diff_side side)
{
	for (size_t i = 0; i < n; i++)
		if (in[i].side == side)
			printf("%-10s %-8s %-6s %9llu samples  %s\n", label, fg_protocol_name(in[i].protocol),
			       in[i].event ? in[i].event : "-", (unsigned long long)in[i].total, in[i].source);
}

/* files: as json_entries; frames without a file are not annotated. */
static void text_entries(const char *heading, const fg_diff_entry *e, size_t n, const fg_names *names,
			 const fg_history_result *files)
{
	size_t first, end = 0;
	printf("\n%s (%zu)\n", heading, n);
	if (!n)
		return;
	printf("%8s   %8s %9s %7s  %s\n", "base%", "cand%", "delta", "noise", "frame");
	for (size_t i = 0; i < n; i++) {
		printf("%7.2f%% \xe2\x86\x92 %7.2f%% %+9.2f %7.2f  ", e[i].base, e[i].candidate, e[i].delta, e[i].noise);
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

/* The sources of a side, for the SVG header (malloc'ed array). */
static const char **side_sources(const struct cli_diff_input *in, size_t n, fg_diff_side side, size_t *count)
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
static void svg_sides(fg_svg_options *so, const char **sources[2], const struct cli_diff_input *in, size_t n)
{
	size_t count[2];
	for (int s = 0; s < 2; s++)
		sources[s] = side_sources(in, n, (fg_diff_side)s, &count[s]);
	so->base = (fg_svg_side){ sources[0], count[0], side_protocol(in, n, FG_DIFF_BASE), side_event(in, n, FG_DIFF_BASE) };
	so->candidate = (fg_svg_side){ sources[1], count[1], side_protocol(in, n, FG_DIFF_CANDIDATE),
				       side_event(in, n, FG_DIFF_CANDIDATE) };
}

static int write_svg(const char *path, const fg_svg_options *base_opts, bool base_widths, fg_diff *d,
		     const fg_names *names, const struct cli_diff_input *in, size_t n, fg_error *err)
{
	fg_svg_options so = *base_opts;
	so.base_widths = base_widths;
	const char **sources[2];
	svg_sides(&so, sources, in, n);
	FILE *f = NULL;
	int rc = 0;
	if (!sources[0] || !sources[1])
		rc = fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	else if (!(f = fopen(path, "w")))
		rc = fg_error_set(err, FG_EOUTPUT, path, "cannot create the SVG: %s", strerror(errno));
	if (!rc)
		rc = fg_svg_write_diff(f, d, names, &so, err);
	if (f && fclose(f) != 0 && !rc)
		rc = fg_error_set(err, FG_EOUTPUT, path, "cannot write the SVG: %s", strerror(errno));
	if (rc && !err->source[0])
		snprintf(err->source, sizeof(err->source), "%s", path);
	free(sources[0]);
	free(sources[1]);
	return rc;
}

/* --html: the lists, the flame graph, and with --repo the files and the
 * decision. */
static int write_report(const char *path, const fg_svg_options *base_opts, fg_diff *d, const fg_names *names,
			const struct cli_diff_input *in, size_t n, const struct cli_history *hist, fg_error *err)
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
			 ? 0 : fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	if (dm) {
		cli_decision_text(dm, hist->decision);
		if (fclose(dm) && !rc)
			rc = fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	}
	for (size_t i = 0; !rc && i < nhot; i++) {
		const fg_history_entry *e = fg_history_result_entry(hot, i);
		if (e->path)
			files[nfiles++] = (fg_report_file){ e->path, e->frame, e->changed_in_window,
							    e->last ? e->last->id : NULL, e->last ? e->last->date : NULL,
							    e->last ? e->last->subject : NULL };
	}
	FILE *out = NULL;
	if (!rc && !(out = fopen(path, "w")))
		rc = fg_error_set(err, FG_EOUTPUT, path, "cannot create the report: %s", strerror(errno));
	if (!rc) {
		fg_report r = { .title = "fgbisect diff", .decision = decision, .files = files, .nfiles = nfiles,
				.diff = d, .svg = &so, .generator = "written by fgbisect " FG_VERSION " diff" };
		rc = fg_report_write(out, &r, names, err);
	}
	if (out && fclose(out) && !rc)
		rc = fg_error_set(err, FG_EOUTPUT, path, "cannot write the report: %s", strerror(errno));
	if (rc && !err->source[0])
		snprintf(err->source, sizeof(err->source), "%s", path);
	free(decision);
	free(files);
	free(sources[0]);
	free(sources[1]);
	return rc;
}

static void print_peers(const fg_diff_peers *p, const struct cli_diff_input *in, const fg_names *names, bool json,
			double min_delta, bool self)
{
	if (json) {
		printf("{\"kind\":\"%s\",\"min_delta\":%.4f,\"peers\":[", self ? "self" : "inclusive", min_delta);
		for (size_t i = 0; i < p->npeers; i++) {
			const fg_diff_peer *peer = &p->peers[i];
			fputs(i ? ",{\"source\":" : "{\"source\":", stdout);
			cli_json_string(stdout, in[peer->profile].source);
			printf(",\"total\":%llu,\"score\":%.4f,\"frames\":[", (unsigned long long)in[peer->profile].total,
			       peer->score);
			for (size_t k = 0; k < peer->nframes; k++) {
				const fg_diff_peer_frame *f = &peer->frames[k];
				fputs(k ? ",{\"frame\":" : "{\"frame\":", stdout);
				cli_json_string(stdout, fg_names_get(names, f->name));
				printf(",\"share\":%.4f,\"others\":%.4f,\"delta\":%.4f}", f->share, f->others, f->delta);
			}
			fputs("]}", stdout);
		}
		fputs("],\"outlier\":", stdout);
		if (p->outlier >= 0)
			cli_json_string(stdout, in[p->peers[p->outlier].profile].source);
		else
			fputs("null", stdout);
		fputs("}\n", stdout);
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

/* --repo: the source history of the grown frames, and with --good the
 * decision for the first hot of them. */
static int look_up_files(struct cli_history *hist, const char *repo, const fg_history_options *ho,
			 const fg_diff_result *result, const fg_diff *diff, const fg_names *names, size_t hot,
			 fg_error *err)
{
	const char **frames = calloc(result->ngrew ? result->ngrew : 1, sizeof(*frames));
	const char **stack = NULL;
	size_t nstack = 0, nhot = result->ngrew < hot ? result->ngrew : hot;
	int rc = frames ? 0 : fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	for (size_t i = 0; !rc && i < result->ngrew; i++)
		frames[i] = fg_names_get(names, result->grew[i].name);
	if (!rc)
		rc = cli_diff_stack_frames(&stack, &nstack, diff, names, result->grew, nhot, err);
	if (!rc)
		rc = cli_history_look_up(hist, repo, ho, true, frames, result->ngrew, nhot, stack, nstack, err);
	free(stack);
	free(frames);
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "min-delta", required_argument, NULL, OPT_MIN_DELTA },
		{ "self", no_argument, NULL, OPT_SELF },
		{ "ignore", required_argument, NULL, OPT_IGNORE },
		{ "no-default-ignore", no_argument, NULL, OPT_NO_DEFAULT_IGNORE },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "svg-base", required_argument, NULL, OPT_SVG_BASE },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "peers", no_argument, NULL, OPT_PEERS },
		{ "repo", required_argument, NULL, OPT_REPO },
		{ "good", required_argument, NULL, OPT_GOOD },
		{ "bad", required_argument, NULL, OPT_BAD },
		{ "hot", required_argument, NULL, OPT_HOT },
		{ "color", required_argument, NULL, OPT_COLOR },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "metrics", no_argument, NULL, OPT_METRICS },
		{ "base-selector", required_argument, NULL, OPT_BASE_SELECTOR },
		{ "candidate-selector", required_argument, NULL, OPT_CANDIDATE_SELECTOR },
		CLI_METRICS_LONG_OPTIONS,
		CLI_PROFILE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	struct cli_profile_options po = { 0 };
	fg_diff_options dopts;
	fg_diff_options_init(&dopts);
	fg_history_options ho;
	fg_history_options_init(&ho);
	fg_svg_options so;
	fg_svg_options_init(&so);
	uint64_t width = 1200;
	const char *svg = NULL, *svg_base = NULL, *repo = NULL, *html = NULL;
	bool force = false, peers = false, default_ignore = true, bad_given = false, metrics = false;
	struct cli_metrics_options mo;
	cli_metrics_options_init(&mo);
	uint64_t hot = 10;
	/* argv-sized: every argument is at most one pattern or one profile. */
	const char **ignore = calloc((size_t)argc + fg_diff_default_ignore_count, sizeof(*ignore));
	const char **bases = calloc((size_t)argc, sizeof(*bases));
	size_t nignore = 0, nbases = 0;
	int status = 0, opt;
	if (!ignore || !bases) {
		free(ignore);
		free(bases);
		return 1;
	}
	/* A leading '-': profiles come back in order (as 1), and getopt stops
	 * at "--", so the profiles before it are the bases. */
	optind = 1;
	while (!status && (opt = getopt_long(argc, argv, "-h", longopts, NULL)) != -1) {
		if (cli_profile_option(&po, opt, optarg, "diff", &status) ||
		    cli_metrics_option(&mo, opt, optarg, "diff", &status))
			continue;
		switch (opt) {
		case 1: bases[nbases++] = optarg; break;
		case OPT_MIN_DELTA:
			if (!cli_parse_percent(optarg, &dopts.min_delta))
				status = cli_usage_error("diff", "--min-delta wants points from 0 to 100, not '%s'", optarg);
			break;
		case OPT_SELF: dopts.self = true; break;
		case OPT_IGNORE: ignore[nignore++] = optarg; break;
		case OPT_NO_DEFAULT_IGNORE: default_ignore = false; break;
		case OPT_SVG: svg = optarg; break;
		case OPT_SVG_BASE: svg_base = optarg; break;
		case OPT_FORCE: force = true; break;
		case OPT_PEERS: peers = true; break;
		case OPT_REPO: repo = optarg; break;
		case OPT_GOOD: ho.good = optarg; break;
		case OPT_BAD:
			ho.bad = optarg;
			bad_given = true;
			break;
		case OPT_HOT:
			if (!cli_parse_u64(optarg, &hot) || hot == 0 || hot > 1000)
				status = cli_usage_error("diff", "--hot wants a number (1-1000), not '%s'", optarg);
			break;
		case OPT_HTML: html = optarg; break;
		case OPT_COLOR:
			if (!strcmp(optarg, "self") || !strcmp(optarg, "inclusive"))
				so.color = !strcmp(optarg, "self") ? FG_SVG_COLOR_SELF : FG_SVG_COLOR_INCLUSIVE;
			else
				status = cli_usage_error("diff", "--color wants self or inclusive, not '%s'", optarg);
			break;
		case OPT_WIDTH:
			if (!cli_parse_u64(optarg, &width) || width < 600 || width > 20000)
				status = cli_usage_error("diff", "--width wants pixels (600-20000), not '%s'", optarg);
			break;
		case OPT_METRICS: metrics = true; break;
		case OPT_BASE_SELECTOR: mo.selector[0] = optarg; break;
		case OPT_CANDIDATE_SELECTOR: mo.selector[1] = optarg; break;
		case 'h':
			fputs(usage, stdout);
			free(ignore);
			free(bases);
			return 0;
		default: status = cli_usage_error("diff", "unknown option"); break;
		}
	}
	bool separated = optind > 1 && !strcmp(argv[optind - 1], "--");
	size_t ncandidates = (size_t)(argc - optind);
	struct cli_diff_input *in = NULL;
	size_t n = 0;
	if (!status && !repo && (ho.good || bad_given))
		status = cli_usage_error("diff", "--good and --bad name revisions of --repo");
	else if (!status && ((ho.good && !*ho.good) || (ho.bad && !*ho.bad)))
		status = cli_usage_error("diff", "--good and --bad need a revision");
	if (!status && metrics && peers)
		status = cli_usage_error("diff", "--metrics compares two runs, not --peers");
	if (!status && metrics)
		status = cli_metrics_check(&mo, "diff", true);
	if (!status && peers) {
		if (separated || ncandidates)
			status = cli_usage_error("diff", "--peers takes one list of profiles, without --");
		else if (nbases < 3)
			status = cli_usage_error("diff", "--peers needs at least three profiles");
		else if (svg || svg_base || html)
			status = cli_usage_error("diff", "--svg and --html draw a diff, not --peers");
		else if (repo)
			status = cli_usage_error("diff", "--repo looks up the grown frames of a diff, not --peers");
		else if (!(in = calloc(nbases, sizeof(*in))))
			status = cli_report_error(&(fg_error){ .code = FG_ENOMEM, .message = "out of memory" }, po.json);
		for (size_t i = 0; in && i < nbases; i++)
			in[n++] = (struct cli_diff_input){ .location = bases[i], .source = cli_shown(bases[i]),
							   .side = FG_DIFF_BASE };
	} else if (!status) {
		status = cli_diff_sides(&in, &n, bases, nbases, (const char *const *)argv + optind, ncandidates, separated,
					"diff");
	}
	if (!status && default_ignore) {
		for (size_t i = 0; i < fg_diff_default_ignore_count; i++)
			ignore[nignore++] = fg_diff_default_ignore[i];
	}
	if (!status && nignore > FG_MATCH_MAX_PATTERNS)
		status = cli_usage_error("diff", "at most %d --ignore patterns in all", FG_MATCH_MAX_PATTERNS);
	if (status) {
		free(in);
		free(ignore);
		free(bases);
		return status;
	}
	nbases = 0;
	for (size_t i = 0; i < n; i++)
		nbases += in[i].side == FG_DIFF_BASE;
	dopts.ignore = ignore;
	dopts.nignore = nignore;
	dopts.raw = po.raw;
	/* --repo: the candidate's tree holds the grown stacks (the callers). */
	dopts.trees = svg || svg_base || repo || html || metrics;

	fg_error err;
	fg_error_clear(&err);
	fg_names *names = NULL;
	fg_diff *diff = NULL;
	fg_diff_result result = { 0 };
	fg_diff_peers peer_result = { .outlier = -1 };
	struct cli_history hist = { 0 };
	so.width = (double)width;
	fg_metrics_result *lens = NULL;
	fg_mrules *lens_rules = NULL;
	fg_error lens_err;
	fg_error_clear(&lens_err);
	/* The result's delta(*) evidence names point into these: kept to the end. */
	struct cli_metrics_deltas deltas = { 0 };
	int rc = fg_names_new(&names, &err);
	if (!rc)
		rc = fg_diff_new(&diff, names, &dopts, &err);
	if (!rc)
		rc = cli_diff_read(in, n, diff, names, &po, force, &err);
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
	if (!rc && html)
		rc = write_report(html, &so, diff, names, in, n, &hist, &err);
	if (rc) {
		status = cli_report_error(&err, po.json);
		goto out;
	}
	/* The lens explains the diff; its failure is reported, never the diff's. */
	if (metrics) {
		if (!cli_metrics_deltas(&deltas, fg_diff_tree(diff, FG_DIFF_BASE), fg_diff_tree(diff, FG_DIFF_CANDIDATE),
		                        names, &lens_err))
			cli_metrics_run(&lens, &lens_rules, &mo, &po, deltas.deltas, deltas.n, &lens_err);
		if (!lens)
			cli_metrics_warn(&lens_err);
	}

	if (peers) {
		print_peers(&peer_result, in, names, po.json, dopts.min_delta, dopts.self);
	} else if (po.json) {
		printf("{\"kind\":\"%s\",\"min_delta\":%.4f,\"base\":", dopts.self ? "self" : "inclusive", dopts.min_delta);
		json_side(in, n, FG_DIFF_BASE, fg_diff_total(diff, FG_DIFF_BASE));
		fputs(",\"candidate\":", stdout);
		json_side(in, n, FG_DIFF_CANDIDATE, fg_diff_total(diff, FG_DIFF_CANDIDATE));
		fputs(",\"grew\":", stdout);
		json_entries(result.grew, result.ngrew, names, hist.result);
		fputs(",\"shrank\":", stdout);
		json_entries(result.shrank, result.nshrank, names, NULL);
		if (repo) {
			fputs(",\"history\":{", stdout);
			cli_history_json_members(stdout, hist.history);
			fputc('}', stdout);
		}
		if (repo && ho.good) {
			fputs(",\"decision\":", stdout);
			cli_decision_json(stdout, hist.decision);
		}
		if (metrics)
			cli_metrics_json_member(stdout, lens, &lens_err, mo.url);
		fputs("}\n", stdout);
	} else {
		text_side("base", in, n, FG_DIFF_BASE);
		text_side("candidate", in, n, FG_DIFF_CANDIDATE);
		printf("%s shares per %s frame name; listed when |delta| > %.2f points and > noise\n"
		       "(the spread of the frame's share among the %zu base profile%s)\n",
		       dopts.self ? "self" : "inclusive", po.raw ? "raw" : "normalised", dopts.min_delta, nbases,
		       nbases == 1 ? ": 0 with one" : "s");
		if (repo)
			printf("source files in %s at %s%s%s\n", fg_history_repo_path(hist.history),
			       fg_history_bad_id(hist.history), ho.good ? ", window from " : "",
			       ho.good ? fg_history_good_id(hist.history) : "");
		text_entries("grew in candidate", result.grew, result.ngrew, names, hist.result);
		text_entries("shrank in candidate", result.shrank, result.nshrank, names, NULL);
		cli_decision_text(stdout, hist.decision);
		if (lens) {
			fputc('\n', stdout);
			cli_metrics_text(stdout, lens, mo.url);
		}
	}
out:
	cli_metrics_deltas_free(&deltas);
	fg_metrics_result_free(lens);
	fg_mrules_free(lens_rules);
	cli_history_clear(&hist);
	fg_diff_peers_free(&peer_result);
	fg_diff_result_free(&result);
	fg_diff_free(diff);
	fg_names_free(names);
	free(in);
	free(ignore);
	free(bases);
	return status;
}
