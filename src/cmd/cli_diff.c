#include "cli_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int cli_diff_sides(fg_compare_input **in, size_t *n, const char *const *bases, size_t nbases,
		   const char *const *candidates, size_t ncandidates, bool separated,
		   const struct cli_command_spec *spec, const struct cli_args *args)
{
	*in = NULL;
	*n = 0;
	if (!separated && nbases == 2) {
		candidates = bases + 1;
		ncandidates = 1;
		nbases = 1;
	} else if (!separated) {
		return cli_spec_usage_error(spec, args, "%s", nbases < 2 ? "give BASE and CANDIDATE profiles"
						: "with several profiles, separate BASE... -- CANDIDATE...");
	} else if (!nbases || !ncandidates) {
		return cli_spec_usage_error(spec, args, "give at least one profile on each side of --");
	}
	fg_compare_input *x = calloc(nbases + ncandidates, sizeof(*x));
	if (!x)
		return cli_report_error(&(fg_error){ .code = FG_ENOMEM, .message = "out of memory" }, args->json);
	for (size_t i = 0; i < nbases + ncandidates; i++) {
		x[i].side = i < nbases ? FG_DIFF_BASE : FG_DIFF_CANDIDATE;
		x[i].location = i < nbases ? bases[i] : candidates[i - nbases];
		x[i].source = cli_shown(x[i].location);
	}
	*in = x;
	*n = nbases + ncandidates;
	return CLI_PARSED;
}

static const char *protocol_label(fg_protocol_kind k)
{
	return k == FG_PROTOCOL_GRPC ? "gRPC" : k == FG_PROTOCOL_REST ? "REST" : "unknown";
}

/* The first incomparable pair refused (FG_EUSAGE, naming both profiles),
 * or with force reported once. */
static int check_inputs(const fg_compare_input *in, size_t n, bool force, fg_error *err)
{
	fg_compare_conflict c;
	if (!fg_compare_find_conflict(&c, in, n))
		return 0;
	const fg_compare_input *a = &in[c.a], *b = &in[c.b];
	char why[1024];
	if (c.kind == FG_COMPARE_PROTOCOL)
		snprintf(why, sizeof(why), "serves %s but %s serves %s: their request paths differ",
			 protocol_label(a->protocol), b->source, protocol_label(b->protocol));
	else if (c.kind == FG_COMPARE_EVENT)
		snprintf(why, sizeof(why), "measures %s but %s measures %s: the shares are of different things",
			 a->event, b->source, b->event);
	else
		snprintf(why, sizeof(why), "counts %s but %s counts %s: the shares are of different things", a->unit,
			 b->source, b->unit);
	if (!force)
		return fg_error_set(err, FG_EUSAGE, a->source, "%s (--force compares anyway)", why);
	cli_warn("%s %s; comparing anyway as --force asks", a->source, why);
	return 0;
}

int cli_diff_read(fg_compare_input *in, size_t n, fg_diff *d, fg_names *names,
		  const struct cli_profile_options *po, bool force, fg_error *err)
{
	fg_protocol *protocol = NULL;
	int rc = fg_protocol_new(&protocol, names, err);
	for (size_t i = 0; !rc && i < n; i++) {
		fg_compare_input *x = &in[i];
		fg_profile_info info;
		fg_protocol_reset(protocol);
		rc = fg_diff_begin(d, x->side, err);
		if (!rc)
			rc = cli_read_profile(&info, x->location, names, po, &(fg_visitor){ fg_diff_frames, NULL, d }, err);
		/* The protocol depends only on which names occur: classify the
		 * profile's distinct names rather than every frame again. */
		for (size_t k = 0; !rc && k < fg_diff_last_names(d); k++)
			rc = fg_protocol_name_seen(protocol, fg_diff_last_name(d, k), err);
		if (!rc) {
			x->protocol = fg_protocol_result(protocol);
			x->event = fg_protocol_event(&info);
			snprintf(x->unit, sizeof(x->unit), "%s", fg_profile_unit(&info));
			snprintf(x->title, sizeof(x->title), "%s", info.title);
			x->total = info.total;
		}
	}
	fg_protocol_free(protocol);
	if (!rc)
		rc = check_inputs(in, n, force, err);
	return rc;
}
