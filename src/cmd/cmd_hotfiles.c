/* fgbisect hotfiles: hot frames → source files → last commit and date,
 * changed in the window (good, bad] or not; the frames given, or the top
 * growers of the diff of two profiles; with a window, the decision. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_diff.h"
#include "cli_history.h"
#include "commands.h"
#include "diff.h"
#include "history.h"
#include "names.h"

static const char usage_text[] =
	"usage: fgbisect hotfiles [--repo DIR] [--good REV] [--bad REV] [--ignore-revs FILE]\n"
	"                         [--no-blame-ignore-revs] [--no-methods] [--json] --frame NAME…\n"
	"       fgbisect hotfiles [--repo DIR] [--good REV] [--bad REV] [--top N] [--force]\n"
	"                         [options] BASE CANDIDATE\n"
	"       fgbisect hotfiles [...] BASE... -- CANDIDATE...\n"
	"\n"
	"Maps frames (Java method frames as async-profiler writes them, slashed or dotted)\n"
	"to their source files in the tree of --bad and tells, for each file, the last\n"
	"commit that changed it (the one `git log -1 -- PATH` names), the last one that is\n"
	"not a bulk commit, and whether it changed in the window (good, bad]; and for the\n"
	"frame's method, its lines and the commits that touched them (as git log -L\n"
	"finds them): did the hot method change, or only its file?\n"
	"With two profiles instead of frames, the frames are the top growers of their\n"
	"diff (as `fgbisect diff` computes it: normalised names, above 1.5 points and the\n"
	"noise of the base nodes; gRPC against REST refused unless --force).\n"
	"With --good, ends with the decision: a hot file changed in the window (the\n"
	"suspect commits), or not (called more often or configuration changed: the\n"
	"changed files of the callers on the grown stacks), or no hot frame is in the\n"
	"repository (the build files changed in the window); where a hot file changed,\n"
	"whether its hot method did (the commit) or not (look at the callers or the\n"
	"configuration).\n"
	"\n"
	"      --repo DIR            the repository (default: the current directory)\n"
	"      --bad REV             the slow revision (default HEAD)\n"
	"      --good REV            the fast revision; without it there is no window\n"
	"      --frame NAME          a frame or a slashed class name; repeatable\n"
	"      --top N               with profiles: how many growers to look up (default 10)\n"
	"      --force               with profiles: compare gRPC with REST, or different events\n"
	"      --ignore-revs FILE    commits to skip for the last meaningful commit (git blame's\n"
	"                            format: one full id per line, # comments); the repository's\n"
	"                            .git-blame-ignore-revs is read too unless\n"
	"      --no-blame-ignore-revs\n"
	"      --no-methods          the files' history only, not their methods'\n"
	CLI_PROFILE_OPTIONS_HELP
	"\n"
	"Frames without a file in the repository (native code, libraries, generated\n"
	"sources) are listed as not in repository.\n";

enum { OPT_REPO = CLI_OPT_FIRST_FREE, OPT_GOOD, OPT_BAD, OPT_FRAME, OPT_TOP, OPT_FORCE, OPT_IGNORE_REVS,
       OPT_NO_BLAME_IGNORE_REVS, OPT_NO_METHODS };

/* The profile form's growth: the diff and its top growers. */
struct growth {
	fg_names *names;
	fg_diff *diff;
	fg_diff_result result;
	size_t ntop;
	const char **frames;   /* the top growers' names */
	const char **stack;    /* the frames on their stacks */
	size_t nstack;
};

static int grow_frames(struct growth *g, struct cli_diff_input *in, size_t n, const struct cli_profile_options *po,
		       bool force, size_t top, fg_error *err)
{
	fg_diff_options dopts;
	fg_diff_options_init(&dopts);
	dopts.raw = po->raw;
	dopts.trees = true; /* the candidate's tree holds the grown stacks */
	int rc = fg_names_new(&g->names, err);
	if (!rc)
		rc = fg_diff_new(&g->diff, g->names, &dopts, err);
	if (!rc)
		rc = cli_diff_read(in, n, g->diff, g->names, po, force, err);
	if (!rc)
		rc = fg_diff_compute(&g->result, g->diff, err);
	g->ntop = g->result.ngrew < top ? g->result.ngrew : top;
	if (!rc && !(g->frames = calloc(g->ntop ? g->ntop : 1, sizeof(*g->frames))))
		rc = fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	for (size_t i = 0; !rc && i < g->ntop; i++)
		g->frames[i] = fg_names_get(g->names, g->result.grew[i].name);
	if (!rc)
		rc = cli_diff_stack_frames(&g->stack, &g->nstack, g->diff, g->names, g->result.grew, g->ntop, err);
	return rc;
}

static void growth_clear(struct growth *g)
{
	free(g->stack);
	free(g->frames);
	fg_diff_result_free(&g->result);
	fg_diff_free(g->diff);
	fg_names_free(g->names);
}

static void print_json(const struct cli_history *hist, const struct growth *g)
{
	const fg_history_result *r = hist->result;
	fputc('{', stdout);
	cli_history_json_members(stdout, hist->history);
	fputs(",\"files\":[", stdout);
	for (size_t i = 0; i < fg_history_result_count(r); i++) {
		if (i)
			fputc(',', stdout);
		cli_history_entry_json(stdout, fg_history_result_entry(r, i));
	}
	fputc(']', stdout);
	if (g) {
		fputs(",\"grew\":[", stdout);
		for (size_t i = 0; i < g->ntop; i++) {
			const fg_diff_entry *e = &g->result.grew[i];
			fputs(i ? ",{\"frame\":" : "{\"frame\":", stdout);
			cli_json_string(stdout, g->frames[i]);
			printf(",\"base\":%.4f,\"candidate\":%.4f,\"delta\":%.4f}", e->base, e->candidate, e->delta);
		}
		fputc(']', stdout);
	}
	if (fg_history_good_id(hist->history)) {
		fputs(",\"decision\":", stdout);
		cli_decision_json(stdout, hist->decision);
	}
	fputs("}\n", stdout);
}

static void print_text(const struct cli_history *hist, const struct growth *g)
{
	const fg_history *h = hist->history;
	const char *good = fg_history_good_id(h);
	printf("repository %s\nbad  %s\n", fg_history_repo_path(h), fg_history_bad_id(h));
	if (good)
		printf("good %s\n", good);
	if (g && !g->ntop)
		printf("\nno frame grew by more than 1.5 points and the spread among the base profiles\n");
	size_t first, end = 0, frame = 0;
	while (end < fg_history_result_count(hist->result)) {
		cli_history_next_frame(hist->result, &first, &end);
		const fg_history_entry *e = fg_history_result_entry(hist->result, first);
		if (g) {
			const fg_diff_entry *d = &g->result.grew[frame];
			printf("\n%s  %+.2f points (%.2f%% \xe2\x86\x92 %.2f%%)\n", e->frame, d->delta, d->base, d->candidate);
		} else {
			printf("\n%s\n", e->frame);
		}
		frame++;
		for (size_t i = first; i < end; i++)
			cli_history_entry_text(stdout, fg_history_result_entry(hist->result, i), "  ");
	}
	cli_decision_text(stdout, hist->decision);
}

int cmd_hotfiles(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "repo", required_argument, NULL, OPT_REPO },
		{ "good", required_argument, NULL, OPT_GOOD },
		{ "bad", required_argument, NULL, OPT_BAD },
		{ "frame", required_argument, NULL, OPT_FRAME },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "ignore-revs", required_argument, NULL, OPT_IGNORE_REVS },
		{ "no-blame-ignore-revs", no_argument, NULL, OPT_NO_BLAME_IGNORE_REVS },
		{ "no-methods", no_argument, NULL, OPT_NO_METHODS },
		CLI_PROFILE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	fg_history_options opts;
	fg_history_options_init(&opts);
	struct cli_profile_options po = { 0 };
	const char *repo = ".";
	bool force = false, methods = true;
	uint64_t top = 10;
	/* argv-sized: every argument is at most one frame or one profile. */
	const char **frames = calloc((size_t)argc, sizeof(*frames));
	const char **bases = calloc((size_t)argc, sizeof(*bases));
	size_t nframes = 0, nbases = 0;
	int status = 0, opt;
	if (!frames || !bases) {
		free(frames);
		free(bases);
		fputs("fgbisect: out of memory\n", stderr);
		return 3;
	}
	/* A leading '-': profiles come back in order (as 1), and getopt stops
	 * at "--", so the profiles before it are the bases. */
	optind = 1;
	while (!status && (opt = getopt_long(argc, argv, "-h", longopts, NULL)) != -1) {
		if (cli_profile_option(&po, opt, optarg, "hotfiles", &status))
			continue;
		switch (opt) {
		case 1: bases[nbases++] = optarg; break;
		case OPT_REPO: repo = optarg; break;
		case OPT_GOOD: opts.good = optarg; break;
		case OPT_BAD: opts.bad = optarg; break;
		case OPT_FRAME: frames[nframes++] = optarg; break;
		case OPT_TOP:
			if (!cli_parse_u64(optarg, &top) || top == 0 || top > 1000)
				status = cli_usage_error("hotfiles", "--top wants a number (1-1000), not '%s'", optarg);
			break;
		case OPT_FORCE: force = true; break;
		case OPT_IGNORE_REVS: opts.ignore_revs_file = optarg; break;
		case OPT_NO_BLAME_IGNORE_REVS: opts.use_repo_ignore_revs = false; break;
		case OPT_NO_METHODS: methods = false; break;
		case 'h':
			fputs(usage_text, stdout);
			free(frames);
			free(bases);
			return 0;
		default: status = cli_usage_error("hotfiles", "unknown option"); break;
		}
	}
	bool separated = optind > 1 && !strcmp(argv[optind - 1], "--");
	size_t ncandidates = (size_t)(argc - optind);
	bool profiles = nbases || separated || ncandidates;
	struct cli_diff_input *in = NULL;
	size_t nin = 0;
	if (!status && profiles && nframes)
		status = cli_usage_error("hotfiles", "give --frame or two profiles, not both");
	else if (!status && !profiles && !nframes)
		status = cli_usage_error("hotfiles", "no --frame given, and no profiles");
	else if (!status && opts.good && !*opts.good)
		status = cli_usage_error("hotfiles", "--good needs a revision");
	else if (!status && opts.bad && !*opts.bad)
		status = cli_usage_error("hotfiles", "--bad needs a revision");
	else if (!status && profiles)
		status = cli_diff_sides(&in, &nin, bases, nbases, (const char *const *)argv + optind, ncandidates,
					separated, "hotfiles");
	if (status) {
		free(frames);
		free(bases);
		return status;
	}

	fg_error err;
	fg_error_clear(&err);
	struct growth g = { 0 };
	struct cli_history hist = { 0 };
	int rc = profiles ? grow_frames(&g, in, nin, &po, force, (size_t)top, &err) : 0;
	if (!rc && profiles)
		rc = cli_history_look_up(&hist, repo, &opts, methods, g.frames, g.ntop, SIZE_MAX, g.stack, g.nstack, &err);
	else if (!rc)
		rc = cli_history_look_up(&hist, repo, &opts, methods, frames, nframes, SIZE_MAX, NULL, 0, &err);
	if (rc)
		status = cli_report_error(&err, po.json);
	else if (po.json)
		print_json(&hist, profiles ? &g : NULL);
	else
		print_text(&hist, profiles ? &g : NULL);
	cli_history_clear(&hist);
	growth_clear(&g);
	free(in);
	free(frames);
	free(bases);
	return status;
}
