/* fgbisect top: the hottest frames of a profile. */
#include <stdlib.h>

#include "cmd/cli.h"
#include "cmd/cli_pool.h"
#include "output/json_writer.h"
#include "cmd/commands.h"
#include "model/namemap.h"
#include "model/names.h"
#include "base/parallel.h"
#include "base/stats.h"
#include "analysis/top.h"

static const char description[] =
	"Lists the hottest frames by inclusive share (stacks holding the frame,\n"
	"each counted once however deep it recurses) or, with --self, by self\n"
	"share (stacks whose leaf it is).  Names that differ only by per-run ids\n"
	"(lambdas, thread ids, temp library names) count as one unless --raw.\n"
	"Several profiles (the nodes of a run) are pooled: their samples added, as\n"
	"one profile; a gRPC profile with a REST one, or profiles of different\n"
	"events or units, are refused unless --force.\n";

static void print_json(const fg_pool *pool, const fg_profile_info *info, const fg_top_entry *entries, size_t n,
		       const fg_names *names, bool self)
{
	fg_json j;
	fg_json_init(&j, stdout);
	fg_json_object(&j);
	fg_json_member_string(&j, "source", fg_pool_inputs(pool)[0].source);
	cli_pool_json(&j, pool);
	fg_json_member_u64(&j, "total", info->total);
	cli_json_profile_fields(&j, info);
	fg_json_member_string(&j, "order", self ? "self" : "inclusive");
	fg_json_key(&j, "frames");
	fg_json_array(&j);
	for (size_t i = 0; i < n; i++) {
		const fg_top_entry *e = &entries[i];
		fg_json_object(&j);
		fg_json_member_string(&j, "frame", fg_names_get(names, e->name));
		fg_json_member_u64(&j, "samples", e->samples);
		fg_json_member_fixed(&j, "share", fg_stats_percent(e->samples, info->total), 4);
		fg_json_member_u64(&j, "self_samples", e->self_samples);
		fg_json_member_fixed(&j, "self_share", fg_stats_percent(e->self_samples, info->total), 4);
		fg_json_end(&j);
	}
	fg_json_end(&j);
	fg_json_end(&j);
}

static void print_text(const char *source, const fg_profile_info *info, const fg_top_entry *entries, size_t n,
		       const fg_names *names)
{
	uint64_t total = info->total;
	const char *unit = fg_profile_unit(info);
	cli_print_profile_line(source, info);
	printf("%8s %10s %8s %10s  %s\n", "incl%", unit, "self%", unit, "frame");
	for (size_t i = 0; i < n; i++) {
		const fg_top_entry *e = &entries[i];
		printf("%7.2f%% %10llu %7.2f%% %10llu  ", fg_stats_percent(e->samples, total),
		       (unsigned long long)e->samples, fg_stats_percent(e->self_samples, total),
		       (unsigned long long)e->self_samples);
		cli_put_text(stdout, fg_names_get(names, e->name));
		putchar('\n');
	}
}

int cmd_top(int argc, char **argv)
{
	struct cli_profile_options po = { 0 };
	uint64_t jobs = fg_parallel_cores();
	bool self = false, force = false;
	uint64_t count = 20;
	const struct cli_option table[] = {
		CLI_OPT_U64('n', "count", &count, "N", 0, UINT64_MAX, "how many frames (default 20; 0 = all)"),
		CLI_OPT_BOOL(0, "self", &self, "sort by self share"),
		CLI_OPT_POOL_FORCE(&force),
		CLI_OPT_READ_JOBS(&jobs),
		CLI_PROFILE_OPTIONS(&po),
		CLI_OPT_END(),
	};
	const struct cli_command_spec spec = {
		.name = "top", .synopsis = "[-n N] [--self] [--force] [options] PROFILE...", .description = description,
		.options = table, .usage_status = FG_EXIT_USAGE,
	};
	struct cli_args args;
	int status = cli_parse(&spec, &args, argc, argv);
	po.split = jobs >= 2;
	if (status == CLI_PARSED && args.argc < 1)
		status = cli_spec_usage_error(&spec, &args, "give a PROFILE");
	if (status != CLI_PARSED) {
		cli_args_free(&args);
		return status;
	}
	status = 0;

	fg_error err;
	fg_error_clear(&err);
	fg_names *names = NULL;
	fg_namemap *map = NULL;
	fg_top *top = NULL;
	fg_top_entry *entries = NULL;
	fg_pool *pool = NULL;
	char *label = NULL;
	size_t n = 0;
	int rc = fg_names_new(&names, &err);
	if (!rc && !po.raw)
		rc = fg_namemap_new(&map, names, &err);
	if (!rc)
		rc = fg_top_new(&top, map ? fg_namemap_get : NULL, map, &err);
	if (!rc)
		rc = cli_pool_read(&pool, args.argv, (size_t)args.argc, names, &po,
				   &(fg_visitor){ fg_top_frames, fg_top_stack, top, NULL, NULL }, force, &err);
	if (!rc)
		rc = fg_top_entries(&entries, &n, top, self, &err);
	if (!rc && !po.json && !(label = cli_pool_label(pool)))
		rc = fg_error_oom(&err, NULL);
	if (rc) {
		status = cli_report_error(&err, po.json);
		goto out;
	}
	if (count && n > count)
		n = count;
	if (po.json)
		print_json(pool, fg_pool_info(pool), entries, n, names, self);
	else
		print_text(label, fg_pool_info(pool), entries, n, names);
out:
	free(label);
	free(entries);
	fg_pool_free(pool);
	cli_args_free(&args);
	fg_top_free(top);
	fg_namemap_free(map);
	fg_names_free(names);
	return status;
}
