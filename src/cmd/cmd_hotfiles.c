/* fgbisect hotfiles: hot frames → source files → last commit and date,
 * changed in the window (good, bad] or not; the frames given, or the top
 * growers of the diff of two profiles; with a window, the decision. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cli_diff.h"
#include "cmd/cli_history.h"
#include "cmd/commands.h"
#include "analysis/diff.h"
#include "explain/explain.h"
#include "explain/growers.h"
#include "git/history.h"
#include "model/names.h"

static const char description[] =
	"Maps frames (Java method frames as async-profiler writes them, slashed or dotted;\n"
	"C, C++, Rust and Go functions: the file the profile names, else the file of the\n"
	"tree that defines the function) to their source files in the tree of --bad and\n"
	"tells, for each file, the last commit that changed it (the one `git log -1 --\n"
	"PATH` names), the last one that is not a bulk commit, and whether it changed in\n"
	"the window (good, bad]; and for the frame's method, its lines and the commits\n"
	"that touched them (as git log -L finds them): did the hot method change, or only\n"
	"its file?\n"
	"With two profiles instead of frames, the frames are the top growers of their\n"
	"diff (as `fgbisect diff` computes it: normalised names, beyond noise at a 5%\n"
	"false-discovery rate and by at least 0.25 points, most significant first; gRPC\n"
	"against REST refused unless --force); with one profile a side, noise cannot be\n"
	"separated from signal: the output says so and the growers decide nothing.\n"
	"With --frame PAT and two profiles, PAT is the pattern `share` takes, matched\n"
	"against the profiles' frames: its frames grouped by class and method with their\n"
	"shares on both sides and their noise, looked up beside the growers; those grown\n"
	"beyond noise (and the growers, unless one profile a side) decide.\n"
	"With --good, ends with the decision: a hot file changed in the window (the\n"
	"suspect commits), or not (called more often or configuration changed: the\n"
	"changed files of the callers on the grown stacks), or no hot frame is in the\n"
	"repository (the build files changed in the window); where a hot file changed,\n"
	"whether its hot method did (the commit) or not (look at the callers or the\n"
	"configuration).\n";

static const char epilogue[] =
	"Frames without a file in the repository (libraries, the runtime, generated\n"
	"sources) are listed as not in repository.  A native function's lines are the\n"
	"range `git log -L :FUNC:FILE` takes with git's cpp, rust or golang driver.\n";

/* The profile form's growth: the diff and its top growers. */
struct growth {
	fg_names *names;
	fg_diff *diff;
	fg_diff_result result;
	fg_growers growers;
};

/* The two sides read into g's diff (with trees: the candidate's holds the
 * grown stacks). */
static int read_sides(struct growth *g, fg_compare_input *in, size_t n, const struct cli_profile_options *po,
		      bool force, fg_error *err)
{
	fg_diff_options dopts;
	fg_diff_options_init(&dopts);
	dopts.raw = po->raw;
	dopts.trees = true;
	int rc = fg_names_new(&g->names, err);
	if (!rc)
		rc = fg_diff_new(&g->diff, g->names, &dopts, err);
	return rc ? rc : cli_diff_read(in, n, g->diff, g->names, po, 1, force, err);
}

static int grow_frames(struct growth *g, fg_compare_input *in, size_t n, const struct cli_profile_options *po,
		       bool force, size_t top, fg_error *err)
{
	int rc = read_sides(g, in, n, po, force, err);
	if (!rc)
		rc = fg_diff_compute(&g->result, g->diff, err);
	if (!rc)
		rc = fg_growers_find(&g->growers, g->diff, &g->result, g->names, top, top, err);
	return rc;
}

static void growth_clear(struct growth *g)
{
	fg_growers_clear(&g->growers);
	fg_diff_result_free(&g->result);
	fg_diff_free(g->diff);
	fg_names_free(g->names);
}

/* A typed name that names no file: it may be misspelt or a frame's short
 * form; top prints what the profile holds. */
static const char unresolved_hint[] = "give the name as `top` prints it (package/Class.method)";

static void print_json(const fg_hotfiles *hist, const struct growth *g)
{
	const fg_history_result *r = hist->result;
	fg_json j;
	fg_json_init(&j, stdout);
	fg_json_object(&j);
	cli_history_json_members(&j, hist->history);
	fg_json_key(&j, "files");
	fg_json_array(&j);
	for (size_t i = 0; i < fg_history_result_count(r); i++)
		cli_history_entry_json(&j, fg_history_result_entry(r, i));
	fg_json_end(&j);
	if (g) {
		fg_json_key(&j, "grew");
		fg_json_array(&j);
		for (size_t i = 0; i < g->growers.nframes; i++) {
			const fg_diff_entry *e = &g->result.grew[i];
			fg_json_object(&j);
			fg_json_member_string(&j, "frame", g->growers.frames[i]);
			fg_json_member_fixed(&j, "base", e->base, 4);
			fg_json_member_fixed(&j, "candidate", e->candidate, 4);
			fg_json_member_fixed(&j, "delta", e->delta, 4);
			fg_json_member_fixed(&j, "noise", e->noise, 4);
			fg_json_member_fixed(&j, "z", e->z, 4);
			fg_json_end(&j);
		}
		fg_json_end(&j);
		cli_growers_note_json(&j, &g->result, g->growers.nframes);
	}
	if (fg_history_good_id(hist->history)) {
		fg_json_key(&j, "decision");
		cli_decision_json(&j, hist->decision);
		if (g)
			fg_json_member_string(&j, "no_decision", cli_growers_no_decision(&g->result));
	}
	bool unresolved = false;
	for (size_t i = 0; !g && i < fg_history_result_count(r); i++)
		unresolved = unresolved || !fg_history_result_entry(r, i)->path;
	if (unresolved)
		fg_json_member_string(&j, "hint", unresolved_hint);
	fg_json_end(&j);
}

static void print_text(const fg_hotfiles *hist, const struct growth *g)
{
	const fg_history *h = hist->history;
	const char *good = fg_history_good_id(h);
	printf("repository %s\nbad  %s\n", cli_text(fg_history_repo_path(h)), fg_history_bad_id(h));
	if (good)
		printf("good %s\n", good);
	if (g && !g->growers.nframes)
		printf("\nno frame grew beyond noise by 0.25 points or more (docs/diff.md)\n");
	size_t first, end = 0, frame = 0;
	while (end < fg_history_result_count(hist->result)) {
		cli_history_next_frame(hist->result, &first, &end);
		const fg_history_entry *e = fg_history_result_entry(hist->result, first);
		if (g) {
			const fg_diff_entry *d = &g->result.grew[frame];
			printf("\n%s  %+.2f points (%.2f%% \xe2\x86\x92 %.2f%%, z %+.1f)\n", cli_text(e->frame), d->delta, d->base,
			       d->candidate, d->z);
		} else {
			printf("\n%s\n", cli_text(e->frame));
		}
		frame++;
		for (size_t i = first; i < end; i++)
			cli_history_entry_text(stdout, fg_history_result_entry(hist->result, i), "  ");
		if (!g && !e->path)
			printf("  %s\n", unresolved_hint);
	}
	cli_decision_text(stdout, hist->decision);
	if (g && good && cli_growers_no_decision(&g->result))
		printf("\nno decision: %s\n", cli_growers_no_decision(&g->result));
	if (g)
		cli_growers_note_text(stdout, &g->result, g->growers.nframes);
}

/* --frame PAT with profiles: the pattern's frames of the profiles (and
 * the growers) explained as days --repo explains them. */
static void print_pattern(const fg_explain *e, const char *pattern, const fg_names *names, bool json)
{
	const fg_hotfiles *hist = &e->hot;
	if (json) {
		fg_json j;
		fg_json_init(&j, stdout);
		fg_json_object(&j);
		if (hist->history)
			cli_history_json_members(&j, hist->history);
		fg_json_key(&j, "files");
		fg_json_array(&j);
		for (size_t i = 0; i < fg_history_result_count(hist->result); i++)
			cli_history_entry_json(&j, fg_history_result_entry(hist->result, i));
		fg_json_end(&j);
		cli_explain_pattern_json(&j, e, pattern, names);
		fg_json_key(&j, "decision");
		cli_decision_json(&j, hist->decision);
		fg_json_member_string(&j, "no_decision", e->no_decision);
		cli_growers_note_json(&j, &e->result, e->growers.nframes);
		fg_json_end(&j);
		return;
	}
	const fg_history *h = hist->history;
	printf("repository %s\nbad  %s\n", cli_text(fg_history_repo_path(h)), fg_history_bad_id(h));
	if (fg_history_good_id(h))
		printf("good %s\n", fg_history_good_id(h));
	cli_explain_pattern_text(stdout, e, pattern, names);
	size_t first, end = 0;
	while (end < fg_history_result_count(hist->result)) {
		cli_history_next_frame(hist->result, &first, &end);
		printf("\n%s\n", cli_text(fg_history_result_entry(hist->result, first)->frame));
		for (size_t i = first; i < end; i++)
			cli_history_entry_text(stdout, fg_history_result_entry(hist->result, i), "  ");
	}
	cli_decision_text(stdout, hist->decision);
	if (e->no_decision)
		printf("\nno decision: %s\n", e->no_decision);
	cli_growers_note_text(stdout, &e->result, e->growers.nframes);
}

static int explain_pattern(fg_compare_input *in, size_t n, const struct cli_profile_options *po, bool force,
			   const char *repo, const fg_history_options *opts, const char *pattern, size_t top,
			   fg_error *err)
{
	struct growth g = { 0 };
	fg_explain e = { 0 };
	int rc = read_sides(&g, in, n, po, force, err);
	fg_history_options ho = *opts;
	ho.frame_file = fg_names_file_by_name; /* the profiles' source files of native frames */
	ho.frame_file_ctx = g.names;
	fg_explain_options eo;
	fg_explain_options_init(&eo);
	eo.history = &ho;
	eo.frame = pattern;
	eo.match.raw = po->raw;
	eo.nhot = top;
	if (!rc)
		rc = fg_explain_window(&e, NULL, repo, g.diff, g.names, &eo, err);
	if (!rc && !e.ngroups_matched)
		cli_warn("pattern '%s' matches no frame of the profiles: is it mistyped? (give the name as `top` prints "
			 "it); the frames that grew follow", pattern);
	if (!rc) {
		cli_history_warn(e.hot.history, e.hot.result);
		print_pattern(&e, pattern, g.names, po->json);
	}
	fg_explain_clear(&e);
	growth_clear(&g);
	return rc;
}

int cmd_hotfiles(int argc, char **argv)
{
	fg_history_options opts;
	fg_history_options_init(&opts);
	struct cli_profile_options po = { 0 };
	const char *repo = ".";
	bool force = false, methods = true;
	uint64_t top = 10;
	struct cli_list frame_list = { 0 };
	const struct cli_option table[] = {
		CLI_OPT_STRING(0, "repo", &repo, "DIR", "the repository (default: the current directory)"),
		CLI_OPT_STRING(0, "bad", &opts.bad, "REV", "the slow revision (default HEAD)"),
		CLI_OPT_STRING(0, "good", &opts.good, "REV", "the fast revision; without it there is no window"),
		CLI_OPT_LIST(0, "frame", &frame_list, "NAME",
			     "a frame as `top` prints it, or a class (`Class`, `Class.method`,\n"
			     "`pkg.Class`, `pkg/Class`): every file of that name; repeatable;\n"
			     "with profiles, one pattern as `share` takes it"),
		CLI_OPT_U64(0, "hot", &top, "N", 1, 1000,
			    "with profiles: how many of the frames that grew most to look up\n(default 10)"),
		CLI_OPT_U64(0, "top", &top, "N", 1, 1000, "the old name of --hot", .flags = CLI_OPT_HIDDEN),
		CLI_OPT_BOOL(0, "force", &force, "with profiles: compare gRPC with REST, different events or units"),
		CLI_OPT_STRING(0, "ignore-revs", &opts.ignore_revs_file, "FILE",
			       "commits to skip for the last meaningful commit (git blame's\n"
			       "format: one full id per line, # comments); the repository's\n"
			       ".git-blame-ignore-revs is read too unless --no-blame-ignore-revs"),
		CLI_OPT_CLEAR(0, "no-blame-ignore-revs", &opts.use_repo_ignore_revs,
			      "do not read the repository's .git-blame-ignore-revs"),
		CLI_OPT_CLEAR(0, "no-methods", &methods, "the files' history only, not their methods'"),
		CLI_PROFILE_OPTIONS(&po),
		CLI_OPT_END(),
	};
	const struct cli_command_spec spec = {
		.name = "hotfiles",
		.synopsis = "[--repo DIR] [--good REV] [--bad REV] [--ignore-revs FILE]\n"
			    " [--no-blame-ignore-revs] [--no-methods] [--json] --frame NAME [--frame NAME...]\n"
			    "[--repo DIR] [--good REV] [--bad REV] [--hot N] [--force]\n"
			    " [--frame PAT] [options] BASE CANDIDATE\n"
			    "[...] BASE... -- CANDIDATE...",
		.description = description, .options = table, .epilogue = epilogue, .in_order = true,
		.usage_status = FG_EXIT_USAGE,
	};
	struct cli_args args;
	int status = cli_parse(&spec, &args, argc, argv);
	if (status != CLI_PARSED)
		return status;
	const char **frames = frame_list.items;
	size_t nframes = frame_list.n;
	const char **bases = args.before;
	size_t nbases = args.nbefore;
	bool separated = args.separated;
	size_t ncandidates = (size_t)args.argc;
	bool profiles = nbases || separated || ncandidates;
	fg_compare_input *in = NULL;
	size_t nin = 0;
	if (profiles && nframes > 1)
		status = cli_spec_usage_error(&spec, &args, "with profiles, give one --frame pattern");
	else if (!profiles && !nframes)
		status = cli_spec_usage_error(&spec, &args, "no --frame given, and no profiles");
	else if (opts.good && !*opts.good)
		status = cli_spec_usage_error(&spec, &args, "--good needs a revision");
	else if (opts.bad && !*opts.bad)
		status = cli_spec_usage_error(&spec, &args, "--bad needs a revision");
	else if (profiles)
		status = cli_diff_sides(&in, &nin, bases, nbases, (const char *const *)args.argv, ncandidates, separated,
					&spec, &args);
	if (status != CLI_PARSED) {
		cli_args_free(&args);
		return status;
	}
	status = 0;

	fg_error err;
	fg_error_clear(&err);
	fg_history_options typed = opts; /* --frame: names people type */
	typed.typed_names = true;
	struct growth g = { 0 };
	fg_hotfiles hist = { 0 };
	int rc = 0;
	if (profiles && nframes) {
		rc = explain_pattern(in, nin, &po, force, repo, &opts, frames[0], (size_t)top, &err);
	} else {
		rc = profiles ? grow_frames(&g, in, nin, &po, force, (size_t)top, &err) : 0;
		opts.frame_file = fg_names_file_by_name; /* the profiles' source files of native frames */
		opts.frame_file_ctx = g.names;
		/* One profile a side: the growers decide nothing. */
		if (!rc && profiles)
			rc = cli_history_look_up(&hist, repo, &opts, methods, g.growers.frames, g.growers.nframes,
						 cli_growers_no_decision(&g.result) ? 0 : SIZE_MAX, g.growers.stack,
						 g.growers.nstack, &err);
		else if (!rc)
			rc = cli_history_look_up(&hist, repo, &typed, methods, frames, nframes, SIZE_MAX, NULL, 0, &err);
		if (!rc && po.json)
			print_json(&hist, profiles ? &g : NULL);
		else if (!rc)
			print_text(&hist, profiles ? &g : NULL);
	}
	if (rc)
		status = cli_report_error(&err, po.json);
	fg_hotfiles_clear(&hist);
	growth_clear(&g);
	free(in);
	cli_args_free(&args);
	return status;
}
