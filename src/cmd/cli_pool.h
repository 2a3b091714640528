/* fgbisect command layer: several PROFILE arguments read as one, as `top`,
 * `subsystems` and `collapse` take them (src/analysis/pool.h): each read in
 * turn into the same visitor, so that sample counts add, and refused as
 * `diff` refuses them when they must not be pooled (gRPC with REST,
 * different events or units). */
#ifndef FG_CLI_POOL_H
#define FG_CLI_POOL_H

#include "cmd/cli.h"
#include "analysis/pool.h"
#include "output/json_writer.h"

/* Reads sources[0..n) into visitor through a new pool (*out, the caller's
 * to free, also on failure), then checks every pair (cli_compare_check):
 * an incomparable pair fails with FG_EUSAGE naming both, or with force is
 * warned once. */
int cli_pool_read(fg_pool **out, char *const *sources, size_t n, fg_names *names,
		  const struct cli_profile_options *po, const fg_visitor *visitor, bool force, fg_error *err);

/* What the pooled profiles are called in text: the one source, or the
 * sources joined by " + " (cli_shown).  Freed by the caller; NULL when out of
 * memory. */
char *cli_pool_label(const fg_pool *p);

/* The option every pooling command has. */
#define CLI_OPT_POOL_FORCE(force) \
	CLI_OPT_BOOL(0, "force", force, "pool a gRPC profile with a REST one, or profiles\nof different events or units")

/* With several profiles, members of the object j is in: "pooled" (how
 * many) and "sources" (their names); with one, nothing, so that one
 * profile's output is as it was. */
void cli_pool_json(fg_json *j, const fg_pool *p);

#endif
