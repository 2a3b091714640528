/* fgbisect subsystems: every sample attributed to a subsystem by rules. */
#include <stdlib.h>

#include "cmd/cli.h"
#include "cmd/cli_pool.h"
#include "output/json_writer.h"
#include "net/fetch.h"
#include "cmd/commands.h"
#include "model/namemap.h"
#include "model/names.h"
#include "base/parallel.h"
#include "analysis/rules.h"
#include "base/stats.h"
#include "analysis/diff.h"
#include "analysis/subsystems.h"


#define TOP_FRAMES 5

static const char description[] =
	"Attributes every sample to a subsystem: each frame's self samples go to\n"
	"the first rule (in file order) with a pattern matching any frame of its\n"
	"stack, the rest to 'other', so the shares add up to 100%.  Subsystems are\n"
	"listed in the rules' order, 'other' last; the printed shares are rounded\n"
	"to add up to exactly 100.00 (largest remainder), the sample counts are exact.\n"
	"Rules: --rules FILE (a path or URL), else $FGBISECT_RULES, else the installed\n"
	"Zeebe rules (contrib/zeebe.rules); docs/subsystems.md describes the format.\n"
	"Several profiles (the nodes of a run) are pooled: their samples added, as\n"
	"one profile; a gRPC profile with a REST one, or profiles of different\n"
	"events or units, are refused unless --force.\n"
	"With BASE... -- CANDIDATE..., the split's change: each subsystem's pooled\n"
	"share on both sides, the change and its noise (the sampling error widened\n"
	"by the spread of the nodes, as diff's test), z and whether the change is\n"
	"beyond noise (Bonferroni over the subsystems at 5%, and at least 0.25\n"
	"points); docs/subsystems.md.\n";

static void print_json(const fg_pool *pool, const char *rules_path, const fg_subsystems *subs,
		       const uint32_t *shares, const fg_names *names, bool verbose)
{
	fg_json j;
	fg_json_init(&j, stdout);
	fg_json_object(&j);
	fg_json_member_string(&j, "source", fg_pool_inputs(pool)[0].source);
	cli_pool_json(&j, pool);
	fg_json_member_u64(&j, "total", fg_subsystems_total(subs));
	fg_json_member_string(&j, "rules", rules_path);
	fg_json_key(&j, "subsystems");
	fg_json_array(&j);
	for (size_t i = 0; i < fg_subsystems_count(subs); i++) {
		char share[32];
		/* Hundredths of a percent, exactly: 1234 -> 12.34. */
		snprintf(share, sizeof(share), "%u.%02u", shares[i] / 100, shares[i] % 100);
		fg_json_object(&j);
		fg_json_member_string(&j, "name", fg_subsystems_name(subs, i));
		fg_json_member_u64(&j, "samples", fg_subsystems_samples(subs, i));
		fg_json_key(&j, "share");
		fg_json_raw(&j, share);
		if (verbose) {
			fg_subsystems_entry top[TOP_FRAMES];
			size_t k = fg_subsystems_top_frames(top, TOP_FRAMES, subs, i);
			fg_json_key(&j, "frames");
			fg_json_array(&j);
			for (size_t f = 0; f < k; f++) {
				fg_json_object(&j);
				fg_json_member_string(&j, "frame", fg_names_get(names, top[f].name));
				fg_json_member_u64(&j, "samples", top[f].samples);
				fg_json_end(&j);
			}
			fg_json_end(&j);
		}
		fg_json_end(&j);
	}
	fg_json_end(&j);
	fg_json_end(&j);
}

static void print_text(const char *source, const char *rules_path, const fg_profile_info *info,
		       const fg_subsystems *subs, const uint32_t *shares, const fg_names *names, bool verbose)
{
	uint64_t total = fg_subsystems_total(subs);
	printf("%s  %s%s  %llu samples  rules %s\n", cli_shown(source), fg_format_name(info->format), info->gzip ? "+gzip" : "",
	       (unsigned long long)total, rules_path);
	printf("%-20s %10s %9s\n", "subsystem", "samples", "share");
	for (size_t i = 0; i < fg_subsystems_count(subs); i++) {
		printf("%-20s %10llu %5u.%02u%%\n", fg_subsystems_name(subs, i),
		       (unsigned long long)fg_subsystems_samples(subs, i), shares[i] / 100, shares[i] % 100);
		if (!verbose)
			continue;
		fg_subsystems_entry top[TOP_FRAMES];
		size_t k = fg_subsystems_top_frames(top, TOP_FRAMES, subs, i);
		for (size_t f = 0; f < k; f++)
			printf("    %10llu %6.2f%%  %s\n", (unsigned long long)top[f].samples,
			       fg_stats_percent(top[f].samples, total), fg_names_get(names, top[f].name));
	}
}

/* A side's profiles, [from, to) of the pool, for the text header. */
static void print_side(const char *label, const fg_pool *pool, size_t from, size_t to, uint64_t total)
{
	printf("%-10s %zu profile%s, %llu samples:", label, to - from, to - from == 1 ? "" : "s",
	       (unsigned long long)total);
	for (size_t i = from; i < to; i++)
		printf(" %s", fg_pool_inputs(pool)[i].source);
	putchar('\n');
}

static void print_change_text(const fg_pool *pool, size_t nbase, const char *rules_path, const fg_subsystems *subs,
			      const fg_subsystems_change *c, unsigned node_df, size_t tested)
{
	size_t n = fg_subsystems_count(subs);
	uint64_t total[2] = { 0, 0 };
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 2; k++)
			total[k] += c[i].samples[k];
	print_side("base", pool, 0, nbase, total[0]);
	print_side("candidate", pool, nbase, fg_pool_count(pool), total[1]);
	printf("rules %s; beyond noise: |z| past Bonferroni's %g%% over the %zu subsystems with samples, and at\nleast %.2f points; %s\n",
	       rules_path, 100.0 * FG_SUBSYSTEMS_ALPHA, tested, FG_DIFF_FLOOR,
	       node_df ? "noise: the sampling error widened by the nodes' spread"
		       : "one profile a side: no node spread to measure,\nthe noise is sampling error alone");
	printf("%-20s %8s %9s %8s %6s %7s\n", "subsystem", "base", "candidate", "change", "noise", "z");
	for (size_t i = 0; i < n; i++)
		printf("%-20s %7.2f%% %8.2f%% %+8.2f %6.2f %+7.1f%s\n", fg_subsystems_name(subs, i), c[i].base,
		       c[i].candidate, c[i].delta, c[i].noise, c[i].z, c[i].beyond ? "  beyond noise" : "");
}

static void print_change_json(const fg_pool *pool, size_t nbase, const char *rules_path, const fg_subsystems *subs,
			      const fg_subsystems_change *c, unsigned node_df, size_t tested)
{
	fg_json j;
	fg_json_init(&j, stdout);
	fg_json_object(&j);
	for (int side = 0; side < 2; side++) {
		size_t from = side ? nbase : 0, to = side ? fg_pool_count(pool) : nbase;
		fg_json_key(&j, side ? "candidate" : "base");
		fg_json_array(&j);
		for (size_t i = from; i < to; i++)
			fg_json_string(&j, fg_pool_inputs(pool)[i].source);
		fg_json_end(&j);
	}
	fg_json_member_string(&j, "rules", rules_path);
	fg_json_member_fixed(&j, "alpha", FG_SUBSYSTEMS_ALPHA, 2);
	fg_json_member_fixed(&j, "floor", FG_DIFF_FLOOR, 2);
	fg_json_member_u64(&j, "node_df", node_df);
	fg_json_member_u64(&j, "tested", tested);
	fg_json_key(&j, "subsystems");
	fg_json_array(&j);
	for (size_t i = 0; i < fg_subsystems_count(subs); i++) {
		fg_json_object(&j);
		fg_json_member_string(&j, "name", fg_subsystems_name(subs, i));
		fg_json_member_u64(&j, "base_samples", c[i].samples[0]);
		fg_json_member_u64(&j, "candidate_samples", c[i].samples[1]);
		fg_json_member_fixed(&j, "base", c[i].base, 4);
		fg_json_member_fixed(&j, "candidate", c[i].candidate, 4);
		fg_json_member_fixed(&j, "delta", c[i].delta, 4);
		fg_json_member_fixed(&j, "noise", c[i].noise, 4);
		fg_json_member_fixed(&j, "z", c[i].z, 3);
		fg_json_key(&j, "p");
		fg_json_significant(&j, c[i].p, 4);
		fg_json_member_fixed(&j, "phi", c[i].phi, 3);
		fg_json_member_bool(&j, "beyond_noise", c[i].beyond);
		fg_json_end(&j);
	}
	fg_json_end(&j);
	fg_json_end(&j);
}

/* BASE... -- CANDIDATE...: the split's change, printed. */
static int print_change(const fg_pool *pool, size_t nbase, const char *rules_path, const fg_subsystems *subs,
			bool json, fg_error *err)
{
	fg_subsystems_change *c = calloc(fg_subsystems_count(subs), sizeof(*c));
	unsigned node_df = 0;
	size_t tested = 0;
	int rc = c ? fg_subsystems_compare(c, &node_df, &tested, subs, nbase, err) : fg_error_oom(err, NULL);
	if (!rc && json)
		print_change_json(pool, nbase, rules_path, subs, c, node_df, tested);
	else if (!rc)
		print_change_text(pool, nbase, rules_path, subs, c, node_df, tested);
	free(c);
	return rc;
}

int cmd_subsystems(int argc, char **argv)
{
	struct cli_profile_options po = { 0 };
	uint64_t jobs = fg_parallel_cores();
	const char *rules_path = NULL;
	bool verbose = false, force = false;
	const struct cli_option table[] = {
		CLI_OPT_STRING(0, "rules", &rules_path, "FILE", "the rules file"),
		CLI_OPT_BOOL('v', "verbose", &verbose,
			     "each subsystem's 5 frames with the most self samples\n(names normalised unless --raw)"),
		CLI_OPT_POOL_FORCE(&force),
		CLI_OPT_READ_JOBS(&jobs),
		CLI_PROFILE_OPTIONS(&po),
		CLI_OPT_END(),
	};
	const struct cli_command_spec spec = {
		.name = "subsystems", .synopsis = "[--rules FILE] [-v] [--force] [options] PROFILE...\n"
		"   or: fgbisect subsystems [--rules FILE] [--force] [options] BASE... -- CANDIDATE...",
		.description = description, .options = table, .in_order = true, .usage_status = FG_EXIT_USAGE,
	};
	struct cli_args args;
	int status = cli_parse(&spec, &args, argc, argv);
	po.split = jobs >= 2;
	/* Operands in order: before "--" the profiles (or the base), after it the candidate. */
	size_t nbase = args.nbefore, nprofiles = args.nbefore + (size_t)args.argc;
	char **profiles = NULL;
	if (status == CLI_PARSED && !args.separated && nbase < 1)
		status = cli_spec_usage_error(&spec, &args, "give a PROFILE");
	if (status == CLI_PARSED && args.separated && (nbase < 1 || args.argc < 1))
		status = cli_spec_usage_error(&spec, &args, "give BASE... -- CANDIDATE... (at least one profile a side)");
	if (status == CLI_PARSED && args.separated && verbose)
		status = cli_spec_usage_error(&spec, &args, "-v lists one profile's frames: not with BASE -- CANDIDATE");
	if (status == CLI_PARSED && !rules_path && !(rules_path = fg_rules_default_path()))
		status = cli_spec_usage_error(&spec, &args, "no rules file found: give --rules FILE or set FGBISECT_RULES");
	if (status != CLI_PARSED) {
		cli_args_free(&args);
		return status;
	}
	status = 0;

	fg_error err;
	fg_error_clear(&err);
	fg_rules *rules = NULL;
	fg_names *names = NULL;
	fg_namemap *map = NULL;
	fg_subsystems *subs = NULL;
	uint32_t *shares = NULL;
	fg_pool *pool = NULL;
	char *label = NULL;
	fg_subsystems_options so;
	fg_subsystems_options_init(&so);
	fg_fetch_options fo;
	cli_fetch_options(&fo, &po);
	char warning[256];
	int rc = fg_rules_load(&rules, rules_path, &fo, warning, &err);
	if (warning[0])
		cli_warn("%s", warning);
	if (!rc)
		rc = fg_names_new(&names, &err);
	if (!rc && verbose && !po.raw)
		rc = fg_namemap_new(&map, names, &err);
	if (!rc) {
		so.top_frames = verbose ? TOP_FRAMES : 0;
		so.map = map ? fg_namemap_get : NULL;
		so.map_ctx = map;
		rc = fg_subsystems_new(&subs, rules, names, &so, &err);
	}
	if (!rc && !(profiles = calloc(nprofiles, sizeof(*profiles))))
		rc = fg_error_oom(&err, NULL);
	for (size_t i = 0; !rc && i < nprofiles; i++)
		profiles[i] = i < nbase ? (char *)args.before[i] : args.argv[i - nbase];
	if (!rc)
		rc = cli_pool_read(&pool, profiles, nprofiles, names, &po,
				   &(fg_visitor){ fg_subsystems_frames, fg_subsystems_stack, subs, NULL, NULL }, force, &err);
	size_t n = subs ? fg_subsystems_count(subs) : 0;
	if (!rc && (!(shares = calloc(n, sizeof(*shares))) || (!po.json && !(label = cli_pool_label(pool)))))
		rc = fg_error_oom(&err, NULL);
	if (rc) {
		status = cli_report_error(&err, po.json);
		goto out;
	}
	fg_subsystems_shares(shares, subs);

	if (args.separated)
		rc = print_change(pool, nbase, rules_path, subs, po.json, &err);
	else if (po.json)
		print_json(pool, rules_path, subs, shares, names, verbose);
	else
		print_text(label, rules_path, fg_pool_info(pool), subs, shares, names, verbose);
	if (rc)
		status = cli_report_error(&err, po.json);
out:
	free(profiles);
	free(label);
	fg_pool_free(pool);
	cli_args_free(&args);
	free(shares);
	fg_subsystems_free(subs);
	fg_namemap_free(map);
	fg_names_free(names);
	fg_rules_free(rules);
	return status;
}
