/* fgbisect collapse: the profile as collapsed stacks. */
#include <stdlib.h>

#include "cmd/cli.h"
#include "cmd/cli_pool.h"
#include "formats/collapsed.h"
#include "cmd/commands.h"
#include "model/namemap.h"
#include "model/names.h"
#include "base/parallel.h"

static const char description[] =
	"Writes the profile as collapsed stacks, 'frame;frame;...;leaf COUNT', one\n"
	"line per distinct stack, callers before callees and siblings in byte order\n"
	"of their names.  Frame names are written as async-profiler's plain output\n"
	"does: kernel frames keep _[k]; --annotate adds every type suffix\n"
	"(_[j] JIT, _[i] inlined, _[0] interpreted, _[1] C1, _[k] kernel).\n"
	"With --unsorted the stacks are written as the input streams, without\n"
	"building the call tree (memory: the longest stack): from an HTML graph a\n"
	"stack when its leaf closes (callees before callers), from collapsed input\n"
	"each line as it comes, so a stack may occur on several lines.\n"
	"With --normalise, frame names are normalised as diff compares them (thread\n"
	"ids, lambda and hidden-class ids, temporary JNI library names removed;\n"
	"docs/normalisation.md) and the stacks that become equal are merged, so that\n"
	"peer tools (difffolded.pl, inferno-diff-folded) line up two runs.\n"
	"Several profiles (the nodes of a run) are pooled into one tree, their\n"
	"samples added; a gRPC profile with a REST one, or profiles of different\n"
	"events or units, are refused unless --force.  --unsorted takes one.\n";

int cmd_collapse(int argc, char **argv)
{
	struct cli_profile_options po = { 0 };
	uint64_t jobs = fg_parallel_cores();
	fg_collapsed_write_options wo = { .annotate = false };
	bool unsorted = false, normalise = false, force = false;
	const struct cli_option table[] = {
		CLI_OPT_BOOL('a', "annotate", &wo.annotate, "add the frame type suffixes"),
		CLI_OPT_BOOL('u', "unsorted", &unsorted, "stream the stacks in the input's order"),
		CLI_OPT_BOOL('N', "normalise", &normalise, "normalise volatile names (also --stable-names)"),
		CLI_OPT_BOOL(0, "normalize", &normalise, NULL, .flags = CLI_OPT_HIDDEN),
		CLI_OPT_BOOL(0, "stable-names", &normalise, NULL, .flags = CLI_OPT_HIDDEN),
		CLI_OPT_POOL_FORCE(&force),
		CLI_OPT_READ_JOBS(&jobs),
		CLI_READ_OPTIONS(&po),
		CLI_GRAPH_OPTIONS(&po),
		CLI_FETCH_OPTIONS(&po),
		CLI_OPT_END(),
	};
	const struct cli_command_spec spec = {
		.name = "collapse", .synopsis = "[--annotate] [--unsorted | --normalise] [--force] [options] PROFILE...",
		.description = description, .options = table, .usage_status = FG_EXIT_USAGE,
	};
	struct cli_args args;
	int status = cli_parse(&spec, &args, argc, argv);
	po.split = jobs >= 2;
	/* Merging the stacks that become equal needs the tree. */
	if (status == CLI_PARSED && unsorted && normalise)
		status = cli_spec_usage_error(&spec, &args, "--normalise merges stacks: not with --unsorted");
	if (status == CLI_PARSED && args.argc < 1)
		status = cli_spec_usage_error(&spec, &args, "give a PROFILE");
	/* Streamed stacks are printed before the guard could refuse the next. */
	if (status == CLI_PARSED && unsorted && args.argc > 1)
		status = cli_spec_usage_error(&spec, &args, "--unsorted streams one PROFILE: pooling needs the tree");
	if (status != CLI_PARSED) {
		cli_args_free(&args);
		return status;
	}
	status = 0;
	const char *source = args.argv[0];

	fg_error err;
	fg_error_clear(&err);
	fg_names *names = NULL;
	fg_collapsed_sorter *sorter = NULL;
	fg_collapsed_stream *stream = NULL;
	fg_namemap *map = NULL;
	fg_pool *pool = NULL;
	fg_profile_info info;
	int rc = fg_names_new(&names, &err);
	if (!rc && unsorted) {
		rc = fg_collapsed_stream_new(&stream, stdout, names, &wo, &err);
		if (!rc)
			rc = cli_read_profile(&info, source, names, &po,
					      &(fg_visitor){ fg_collapsed_stream_frames, fg_collapsed_stream_stack, stream, NULL, NULL },
					      &err);
	} else if (!rc) {
		/* Sorted: the frames kept compactly, merged as they are written. */
		if (normalise)
			rc = fg_namemap_new(&map, names, &err);
		if (!rc)
			rc = fg_collapsed_sorter_new(&sorter, map ? fg_namemap_get : NULL, map, &err);
		if (!rc)
			rc = cli_pool_read(&pool, args.argv, (size_t)args.argc, names, &po,
					   &(fg_visitor){ fg_collapsed_sorter_frames, NULL, sorter, NULL, NULL }, force, &err);
		if (!rc)
			info = *fg_pool_info(pool);
		if (!rc)
			rc = fg_collapsed_sorter_write(stdout, sorter, names, &wo, &err);
	}
	if (!rc && fflush(stdout) != 0)
		rc = fg_error_set(&err, FG_EOUTPUT, NULL, "cannot write the output");
	/* share and top count them; a collapsed line cannot say them. */
	uint64_t lost = rc ? 0 : sorter ? fg_collapsed_sorter_root_samples(sorter) : fg_collapsed_stream_root_samples(stream);
	/* Pooled: the root samples of them all, named together. */
	char *label = lost && pool ? cli_pool_label(pool) : NULL;
	if (lost)
		cli_warn("%s: %llu of %llu %s stop at the root (no frame below it): collapsed stacks cannot hold an "
			 "empty stack, so they are left out (share and top count them)",
			 label ? label : cli_shown(source), (unsigned long long)lost, (unsigned long long)info.total,
			 fg_profile_unit(&info));
	free(label);
	if (rc)
		status = cli_report_error(&err, false);
	fg_pool_free(pool);
	cli_args_free(&args);
	fg_collapsed_stream_free(stream);
	fg_collapsed_sorter_free(sorter);
	fg_namemap_free(map);
	fg_names_free(names);
	return status;
}
