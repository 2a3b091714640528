/* fgbisect collapse: the profile as collapsed stacks. */
#include <getopt.h>
#include <stdlib.h>

#include "cli.h"
#include "collapsed.h"
#include "commands.h"
#include "namemap.h"
#include "names.h"
#include "tree.h"

static const char usage[] =
	"usage: fgbisect collapse [--annotate] [--unsorted | --normalise] [options] PROFILE\n"
	"\n"
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
	"\n"
	"  -a, --annotate      add the frame type suffixes\n"
	"  -u, --unsorted      stream the stacks in the input's order\n"
	"  -N, --normalise     normalise volatile names (also --stable-names)\n"
	"      --reversed      the graph holds leaf-first (--reverse) stacks\n"
	"      --max-size N    refuse inputs larger than N bytes decompressed (default 4G)\n"
	"  -h, --help          this help\n";

struct normalised {
	fg_tree *tree;
	fg_namemap *map;
};

static int add_normalised(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	struct normalised *nt = ctx;
	return fg_tree_add_mapped_frames(nt->tree, frames, n, fg_namemap_get, nt->map, err);
}

int cmd_collapse(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "annotate", no_argument, NULL, 'a' },
		{ "unsorted", no_argument, NULL, 'u' },
		{ "normalise", no_argument, NULL, 'N' },
		{ "normalize", no_argument, NULL, 'N' },
		{ "stable-names", no_argument, NULL, 'N' },
		CLI_PROFILE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	struct cli_profile_options po = { 0 };
	fg_collapsed_write_options wo = { .annotate = false };
	bool unsorted = false, normalise = false;
	int status = 0, opt;
	while (!status && (opt = getopt_long(argc, argv, "auNh", longopts, NULL)) != -1) {
		if (cli_profile_option(&po, opt, optarg, "collapse", &status))
			continue;
		switch (opt) {
		case 'a': wo.annotate = true; break;
		case 'u': unsorted = true; break;
		case 'N': normalise = true; break;
		case 'h': fputs(usage, stdout); return 0;
		default: status = cli_usage_error("collapse", "unknown option"); break;
		}
	}
	if (!status && (po.json || po.raw))
		status = cli_usage_error("collapse", "--json and --raw do not apply to collapse");
	/* Merging the stacks that become equal needs the tree. */
	if (!status && unsorted && normalise)
		status = cli_usage_error("collapse", "--normalise merges stacks: not with --unsorted");
	if (!status && optind != argc - 1)
		status = cli_usage_error("collapse", "give exactly one PROFILE");
	if (status)
		return status;
	const char *source = argv[optind];

	fg_error err;
	fg_error_clear(&err);
	fg_names *names = NULL;
	fg_tree *tree = NULL;
	fg_collapsed_stream *stream = NULL;
	struct normalised nt = { NULL, NULL };
	fg_profile_info info;
	uint32_t root;
	int rc = fg_names_new(&names, &err);
	if (!rc)
		rc = fg_names_intern(&root, names, "all", 3, &err);
	if (!rc && unsorted) {
		rc = fg_collapsed_stream_new(&stream, stdout, names, &wo, &err);
		if (!rc)
			rc = cli_read_profile(&info, source, names, &po,
					      &(fg_visitor){ fg_collapsed_stream_frames, fg_collapsed_stream_stack, stream },
					      &err);
	} else if (!rc) {
		rc = fg_tree_new(&tree, root, &err);
		if (!rc && normalise)
			rc = fg_namemap_new(&nt.map, names, &err);
		nt.tree = tree;
		fg_visitor v = { normalise ? add_normalised : fg_tree_add_frames, NULL, normalise ? (void *)&nt : tree };
		if (!rc)
			rc = cli_read_profile(&info, source, names, &po, &v, &err);
		if (!rc)
			rc = fg_collapsed_write(stdout, tree, names, &wo, &err);
	}
	if (!rc && fflush(stdout) != 0)
		rc = fg_error_set(&err, FG_EOUTPUT, NULL, "cannot write the output");
	if (rc)
		status = cli_report_error(&err, false);
	fg_collapsed_stream_free(stream);
	fg_tree_free(tree);
	fg_namemap_free(nt.map);
	fg_names_free(names);
	return status;
}
