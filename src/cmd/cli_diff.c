#include "cmd/cli_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/fetch.h"
#include "base/parallel.h"

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

/* What the profile just added to d is (protocol, event, unit, title), in x.
 * The protocol depends only on which names occur: the profile's distinct
 * names are classified rather than every frame again. */
static int profile_seen(fg_compare_input *x, fg_protocol *protocol, const fg_diff *d, const fg_profile_info *info,
			fg_error *err)
{
	fg_protocol_reset(protocol);
	int rc = 0;
	for (size_t k = 0; !rc && k < fg_diff_last_names(d); k++)
		rc = fg_protocol_name_seen(protocol, fg_diff_last_name(d, k), err);
	if (rc)
		return rc;
	x->protocol = fg_protocol_result(protocol);
	x->event = fg_protocol_event(info);
	snprintf(x->unit, sizeof(x->unit), "%s", fg_profile_unit(info));
	snprintf(x->title, sizeof(x->title), "%s", info->title);
	x->total = info->total;
	return 0;
}

/* Profiles read on several threads, each into a part of its own, and
 * added to the diff in argument order (fg_parallel_run). */
struct read_all {
	fg_compare_input *in;
	fg_diff *d;
	const struct cli_profile_options *po;
	fg_protocol *protocol;
	fg_error *err;
	fg_namemap_cache **caches; /* by lane */
	struct read_one {
		fg_diff_part *part;
		fg_profile_info info;
		int rc;
		fg_error err;
		char *warnings; /* printed when it is added, as one thread would */
		size_t warnings_len;
	} *read;
};

static void read_part(void *ctx, size_t lane, size_t i)
{
	struct read_all *w = ctx;
	struct read_one *r = &w->read[i];
	fg_error_clear(&r->err);
	FILE *sink = open_memstream(&r->warnings, &r->warnings_len);
	cli_warn_to(sink); /* out of memory: straight to stderr */
	r->rc = fg_diff_part_new(&r->part, w->d, w->caches[lane], &r->err);
	if (!r->rc)
		r->rc = cli_read_profile(&r->info, w->in[i].location, fg_diff_part_names(r->part), w->po,
					 &(fg_visitor){ fg_diff_part_frames, NULL, r->part, NULL, NULL }, &r->err);
	cli_warn_to(NULL);
	if (sink)
		fclose(sink);
}

static int add_part(void *ctx, size_t i)
{
	struct read_all *w = ctx;
	struct read_one *r = &w->read[i];
	if (r->warnings_len)
		fwrite(r->warnings, 1, r->warnings_len, stderr);
	if (r->rc) {
		*w->err = r->err;
		return r->rc;
	}
	int rc = fg_diff_add(w->d, w->in[i].side, r->part, w->err);
	/* As the reader names the input of an error of its visitor. */
	if (rc && !w->err->source[0])
		fg_error_set_source(w->err, w->in[i].location);
	fg_diff_part_free(r->part);
	r->part = NULL;
	return rc ? rc : profile_seen(&w->in[i], w->protocol, w->d, &r->info, w->err);
}

/* On jobs threads when there are several and every input is a local file
 * (a fetch goes through libcurl and the cache: one at a time). */
static int read_inputs(fg_compare_input *in, size_t n, fg_diff *d, fg_names *names, fg_protocol *protocol,
		       const struct cli_profile_options *po, size_t jobs, fg_error *err)
{
	size_t asked = jobs;
	for (size_t i = 0; i < n && jobs > 1; i++)
		if (fg_url_is(in[i].location) || !strcmp(in[i].location, "-"))
			jobs = 1;
	/* A core left over for each profile read at a time: a large HTML page
	 * is read on two. */
	struct cli_profile_options split = *po;
	po = &split;
	if (jobs > 1 && n > 1) {
		size_t lanes = jobs < n ? jobs : n;
		lanes = lanes < FG_PARALLEL_MAX_LANES ? lanes : FG_PARALLEL_MAX_LANES;
		split.split = asked >= 2 * lanes;
		struct read_all w = { in, d, po, protocol, err, calloc(lanes, sizeof(*w.caches)),
				      calloc(n, sizeof(*w.read)) };
		int rc = w.caches && w.read ? 0 : fg_error_oom(err, NULL);
		/* A name is normalised once per thread, not once per profile. */
		for (size_t k = 0; k < lanes && !rc; k++)
			rc = fg_namemap_cache_new(&w.caches[k], err);
		/* One profile more than threads may wait to be added, so that a
		 * thread reads on while the one before is added. */
		if (!rc)
			rc = fg_parallel_run(n, lanes, lanes + 1, read_part, add_part, &w);
		for (size_t i = 0; w.read && i < n; i++) {
			fg_diff_part_free(w.read[i].part);
			free(w.read[i].warnings);
		}
		for (size_t k = 0; w.caches && k < lanes; k++)
			fg_namemap_cache_free(w.caches[k]);
		free(w.caches);
		free(w.read);
		return rc;
	}
	int rc = 0;
	split.split = asked >= 2;
	for (size_t i = 0; !rc && i < n; i++) {
		fg_profile_info info;
		rc = fg_diff_begin(d, in[i].side, err);
		if (!rc)
			rc = cli_read_profile(&info, in[i].location, names, po, &(fg_visitor){ fg_diff_frames, NULL, d, NULL, NULL }, err);
		if (!rc)
			rc = profile_seen(&in[i], protocol, d, &info, err);
	}
	return rc;
}

int cli_diff_read(fg_compare_input *in, size_t n, fg_diff *d, fg_names *names,
		  const struct cli_profile_options *po, size_t jobs, bool force, fg_error *err)
{
	fg_protocol *protocol = NULL;
	int rc = fg_protocol_new(&protocol, names, err);
	if (!rc)
		rc = read_inputs(in, n, d, names, protocol, po, jobs, err);
	fg_protocol_free(protocol);
	if (!rc)
		rc = check_inputs(in, n, force, err);
	return rc;
}
