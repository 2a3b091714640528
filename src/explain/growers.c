#include "explain/growers.h"

#include <stdlib.h>
#include <string.h>

#include "explain/decision.h"

void fg_growers_clear(fg_growers *g)
{
	free(g->frame_ids);
	free(g->frames);
	free(g->stack_ids);
	free(g->stack);
	memset(g, 0, sizeof(*g));
}

static const char **names_of(const fg_names *names, const uint32_t *ids, size_t n)
{
	const char **v = calloc(n ? n : 1, sizeof(*v));
	for (size_t i = 0; v && i < n; i++)
		v[i] = fg_names_get(names, ids[i]);
	return v;
}

int fg_growers_find(fg_growers *out, const fg_diff *d, const fg_diff_result *r, const fg_names *names,
		    size_t nframes, size_t nhot, fg_error *err)
{
	memset(out, 0, sizeof(*out));
	const fg_tree *tree = fg_diff_tree(d, FG_DIFF_CANDIDATE);
	if (!tree)
		return fg_error_set(err, FG_EUSAGE, NULL, "internal: the diff kept no trees for the grown stacks");
	if (nframes > r->ngrew)
		nframes = r->ngrew;
	if (nhot > r->ngrew)
		nhot = r->ngrew;
	size_t nids = nframes > nhot ? nframes : nhot;
	uint32_t *ids = calloc(nids ? nids : 1, sizeof(*ids));
	if (!ids)
		return fg_error_oom(err, NULL);
	for (size_t i = 0; i < nids; i++)
		ids[i] = r->grew[i].name;
	int rc = fg_decision_stack_names(&out->stack_ids, &out->nstack, tree, ids, nhot, err);
	out->frame_ids = ids;
	out->nframes = nframes;
	if (!rc && (!(out->frames = names_of(names, ids, nframes)) ||
		    !(out->stack = names_of(names, out->stack_ids, out->nstack))))
		rc = fg_error_oom(err, NULL);
	if (rc)
		fg_growers_clear(out);
	return rc;
}
