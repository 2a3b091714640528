#include "analysis/compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fg_compare_kind pair(const fg_compare_input *a, const fg_compare_input *b)
{
	if (a->protocol && b->protocol && a->protocol != b->protocol)
		return FG_COMPARE_PROTOCOL;
	if (a->event && b->event && strcmp(a->event, b->event))
		return FG_COMPARE_EVENT;
	if (a->unit[0] && b->unit[0] && strcmp(a->unit, b->unit))
		return FG_COMPARE_UNIT;
	return FG_COMPARE_OK;
}

bool fg_compare_find_conflict(fg_compare_conflict *out, const fg_compare_input *in, size_t n)
{
	*out = (fg_compare_conflict){ FG_COMPARE_OK, 0, 0 };
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			fg_compare_kind k = pair(&in[i], &in[j]);
			if (k != FG_COMPARE_OK) {
				*out = (fg_compare_conflict){ k, i, j };
				return true;
			}
		}
	return false;
}

void fg_compare_input_seen(fg_compare_input *x, fg_protocol_kind protocol, const fg_profile_info *info)
{
	x->protocol = protocol;
	x->event = fg_protocol_event(info);
	snprintf(x->unit, sizeof(x->unit), "%s", fg_profile_unit(info));
	snprintf(x->title, sizeof(x->title), "%s", info->title);
	x->total = info->total;
}

int fg_compare_side_get(fg_compare_side *out, const fg_compare_input *in, size_t n, fg_diff_side side,
			fg_error *err)
{
	*out = (fg_compare_side){ malloc((n ? n : 1) * sizeof(*out->sources)), 0, NULL, NULL };
	if (!out->sources)
		return fg_error_oom(err, NULL);
	for (size_t i = 0; i < n; i++) {
		if (in[i].side != side)
			continue;
		out->sources[out->nsources++] = in[i].source;
		if (in[i].protocol)
			out->protocol = fg_protocol_join(out->protocol, fg_protocol_name(in[i].protocol));
		out->event = fg_protocol_join(out->event, in[i].event);
	}
	if (!out->protocol)
		out->protocol = fg_protocol_name(FG_PROTOCOL_UNKNOWN);
	return 0;
}

void fg_compare_side_clear(fg_compare_side *s)
{
	free(s->sources);
	*s = (fg_compare_side){ 0 };
}
