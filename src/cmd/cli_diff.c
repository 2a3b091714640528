#include "cli_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decision.h"

int cli_diff_sides(struct cli_diff_input **in, size_t *n, const char *const *bases, size_t nbases,
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
	struct cli_diff_input *x = calloc(nbases + ncandidates, sizeof(*x));
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

/* Why a and b must not be compared (a static string naming what differs),
 * or NULL: a different protocol means different request paths, a different
 * event different things measured; unknown is compatible with anything. */
static const char *conflict(const struct cli_diff_input *a, const struct cli_diff_input *b, char *buf, size_t size)
{
	if (a->protocol && b->protocol && a->protocol != b->protocol) {
		snprintf(buf, size, "serves %s but %s serves %s: their request paths differ",
			 protocol_label(a->protocol), b->source, protocol_label(b->protocol));
		return buf;
	}
	if (a->event && b->event && strcmp(a->event, b->event)) {
		snprintf(buf, size, "measures %s but %s measures %s: the shares are of different things",
			 a->event, b->source, b->event);
		return buf;
	}
	return NULL;
}

/* Every pair, within a side and across: the first conflict is refused
 * (FG_EUSAGE, naming both profiles), or with force reported once. */
static int check_inputs(const struct cli_diff_input *in, size_t n, bool force, fg_error *err)
{
	char why[1024];
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			if (!conflict(&in[i], &in[j], why, sizeof(why)))
				continue;
			if (!force)
				return fg_error_set(err, FG_EUSAGE, in[i].source, "%s (--force compares anyway)", why);
			cli_warn("%s %s; comparing anyway as --force asks", in[i].source, why);
			return 0;
		}
	return 0;
}

int cli_diff_read(struct cli_diff_input *in, size_t n, fg_diff *d, fg_names *names,
		  const struct cli_profile_options *po, bool force, fg_error *err)
{
	fg_protocol *protocol = NULL;
	int rc = fg_protocol_new(&protocol, names, err);
	for (size_t i = 0; !rc && i < n; i++) {
		struct cli_diff_input *x = &in[i];
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
			x->event = fg_profile_event(&info);
			x->total = info.total;
		}
	}
	fg_protocol_free(protocol);
	if (!rc)
		rc = check_inputs(in, n, force, err);
	return rc;
}

int cli_diff_stack_frames(const char ***out, size_t *nout, const fg_diff *d, const fg_names *names,
			  const fg_diff_entry *grown, size_t n, fg_error *err)
{
	*out = NULL;
	*nout = 0;
	uint32_t *ids = calloc(n ? n : 1, sizeof(*ids)), *stack = NULL;
	size_t nstack = 0;
	if (!ids)
		return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	for (size_t i = 0; i < n; i++)
		ids[i] = grown[i].name;
	int rc = fg_decision_stack_names(&stack, &nstack, fg_diff_tree(d, FG_DIFF_CANDIDATE), ids, n, err);
	free(ids);
	const char **frames = rc ? NULL : calloc(nstack ? nstack : 1, sizeof(*frames));
	if (!rc && !frames)
		rc = fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	for (size_t i = 0; !rc && i < nstack; i++)
		frames[i] = fg_names_get(names, stack[i]);
	free(stack);
	if (rc)
		return rc;
	*out = frames;
	*nout = nstack;
	return 0;
}
