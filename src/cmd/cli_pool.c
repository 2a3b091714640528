/* fgbisect command layer: several PROFILE arguments read as one (cli_pool.h). */
#include <stdlib.h>
#include <string.h>

#include "cmd/cli_pool.h"
#include "cmd/cli_diff.h"

int cli_pool_read(fg_pool **out, char *const *sources, size_t n, fg_names *names,
		  const struct cli_profile_options *po, const fg_visitor *visitor, bool force, fg_error *err)
{
	int rc = fg_pool_new(out, names, visitor, err);
	fg_pool *p = *out;
	for (size_t i = 0; !rc && i < n; i++) {
		fg_profile_info info;
		fg_visitor v = fg_pool_visitor(p);
		rc = fg_pool_begin(p, sources[i], cli_shown(sources[i]), err);
		if (!rc)
			rc = cli_read_profile(&info, sources[i], names, po, &v, err);
		if (!rc)
			rc = fg_pool_end(p, &info, err);
	}
	return rc ? rc : cli_compare_check(fg_pool_inputs(p), fg_pool_count(p), force, err);
}

char *cli_pool_label(const fg_pool *p)
{
	const fg_compare_input *in = fg_pool_inputs(p);
	size_t len = 1;
	for (size_t i = 0; i < fg_pool_count(p); i++)
		len += strlen(in[i].source) + 3;
	char *label = malloc(len), *end = label;
	for (size_t i = 0; label && i < fg_pool_count(p); i++) {
		size_t k = strlen(in[i].source);
		if (i) {
			memcpy(end, " + ", 3);
			end += 3;
		}
		memcpy(end, in[i].source, k);
		end += k;
	}
	if (label)
		*end = '\0';
	return label;
}

void cli_pool_json(fg_json *j, const fg_pool *p)
{
	if (fg_pool_count(p) < 2)
		return;
	fg_json_member_u64(j, "pooled", fg_pool_count(p));
	fg_json_key(j, "sources");
	fg_json_array(j);
	for (size_t i = 0; i < fg_pool_count(p); i++)
		fg_json_string(j, fg_pool_inputs(p)[i].source);
	fg_json_end(j);
}
