#include "cmd/cli_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/fetch.h"
#include "base/parallel.h"
#include "cmd/cli_history.h"
#include "cmd/cli_metrics.h"
#include "git/history.h"
#include "model/names.h"

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

int cli_compare_check(const fg_compare_input *in, size_t n, bool force, fg_error *err)
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
	fg_compare_input_seen(x, fg_protocol_result(protocol), info);
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
		rc = cli_compare_check(in, n, force, err);
	return rc;
}

static void json_side(fg_json *j, const fg_compare_side *s, uint64_t total)
{
	fg_json_object(j);
	fg_json_key(j, "sources");
	fg_json_array(j);
	for (size_t i = 0; i < s->nsources; i++)
		fg_json_string(j, s->sources[i]);
	fg_json_end(j);
	fg_json_member_string(j, "protocol", s->protocol);
	fg_json_member_string(j, "event", s->event);
	fg_json_member_u64(j, "total", total);
	fg_json_end(j);
}

static const char *status_name(fg_diff_status s)
{
	return s == FG_DIFF_NEW ? "new" : s == FG_DIFF_GONE ? "gone" : "changed";
}

/* files: the source history of the entries, frame by frame, or NULL. */
static void json_entries(fg_json *j, const fg_diff_entry *e, size_t n, const fg_names *names,
			 const fg_history_result *files)
{
	size_t first, end = 0;
	fg_json_array(j);
	for (size_t i = 0; i < n; i++) {
		fg_json_object(j);
		fg_json_member_string(j, "frame", fg_names_get(names, e[i].name));
		fg_json_member_fixed(j, "base", e[i].base, 4);
		fg_json_member_fixed(j, "candidate", e[i].candidate, 4);
		fg_json_member_fixed(j, "delta", e[i].delta, 4);
		fg_json_member_fixed(j, "noise", e[i].noise, 4);
		fg_json_member_fixed(j, "z", e[i].z, 4);
		fg_json_member_fixed(j, "q", e[i].q, 6);
		fg_json_member_fixed(j, "phi", e[i].phi, 4);
		fg_json_member_fixed(j, "run_noise", e[i].run_noise, 4);
		fg_json_member_string(j, "status", status_name(e[i].status));
		if (files) {
			cli_history_next_frame(files, &first, &end);
			fg_json_key(j, "files");
			fg_json_array(j);
			for (size_t k = first; k < end; k++)
				cli_history_entry_json(j, fg_history_result_entry(files, k));
			fg_json_end(j);
		}
		fg_json_end(j);
	}
	fg_json_end(j);
}

static void text_side(const char *label, const fg_compare_input *in, size_t n, fg_diff_side side)
{
	for (size_t i = 0; i < n; i++)
		if (in[i].side == side)
			printf(in[i].title[0] ? "%-10s %-8s %-6s %9llu %s  %s  \"%s\"\n" : "%-10s %-8s %-6s %9llu %s  %s\n",
			       label, fg_protocol_name(in[i].protocol), in[i].event ? in[i].event : "-",
			       (unsigned long long)in[i].total, in[i].unit, cli_text(in[i].source), cli_text(in[i].title));
}

/* files: as json_entries; frames without a file are not annotated. */
static void text_entries(const char *heading, const fg_diff_entry *e, size_t n, const fg_names *names,
			 const fg_history_result *files)
{
	size_t first, end = 0;
	printf("\n%s (%zu)\n", heading, n);
	if (!n)
		return;
	printf("%8s   %8s %9s %7s %7s  %s\n", "base%", "cand%", "delta", "noise", "z", "frame");
	for (size_t i = 0; i < n; i++) {
		printf("%7.2f%% \xe2\x86\x92 %7.2f%% %+9.2f %7.2f %+7.1f  ", e[i].base, e[i].candidate, e[i].delta,
		       e[i].noise, e[i].z);
		cli_put_text(stdout, fg_names_get(names, e[i].name));
		puts(e[i].status == FG_DIFF_NEW ? "  [new]" : e[i].status == FG_DIFF_GONE ? "  [gone]" : "");
		if (!files)
			continue;
		cli_history_next_frame(files, &first, &end);
		for (size_t k = first; k < end; k++)
			if (fg_history_result_entry(files, k)->path)
				cli_history_entry_text(stdout, fg_history_result_entry(files, k), "        ");
	}
}

/* The rule the lists were made by, and with one profile a side what it
 * cannot see. */
static void text_rule(const fg_diff_result *r, const fg_diff_options *o, bool raw)
{
	printf("%s shares per %s frame name; listed when beyond noise (Benjamini-Hochberg q <= %.2f\n"
	       "over %zu frames) and |delta| >= %.2f points", o->self ? "self" : "inclusive", raw ? "raw" : "normalised",
	       o->fdr, r->tested, FG_DIFF_FLOOR);
	if (o->min_delta > 0)
		printf(" and > %.2f (--min-delta)", o->min_delta);
	if (r->node_df)
		printf(";\nnoise: sampling error widened by the nodes' over-dispersion (common phi %.2f)", r->phi);
	else
		printf(";\none profile a side: no node spread to measure, the noise is sampling error alone\n"
		       "(differences between nodes count as changes; give every node of a run)");
	if (o->run_noise > 0)
		printf(",\nplus the run-to-run noise: %.1f%% of p(1-p) a run (--run-noise)\n", o->run_noise);
	else
		printf(",\nno run-to-run noise (--run-noise 0: the sides are one run)\n");
}

/* The frames beyond noise that a floor left out, and the changes over the
 * floors that are within noise. */
static void text_hidden(const fg_diff_result *r, const fg_names *names)
{
	for (int k = 0; k < 2; k++) {
		const fg_diff_hidden *h = &r->hidden[k];
		if (!h->count)
			continue;
		printf("\n%zu more frame%s %s beyond noise under the floor; the largest: %+.2f (z %+.1f) ", h->count,
		       h->count == 1 ? "" : "s", k ? "shrank" : "grew", h->largest.delta, h->largest.z);
		cli_put_text(stdout, fg_names_get(names, h->largest.name));
		putchar('\n');
	}
	for (int k = 0; k < 2; k++) {
		const fg_diff_hidden *h = &r->within[k];
		if (!h->count)
			continue;
		printf("\n%zu frame%s %s by more than the floor but within noise, not listed; the first: %+.2f (noise %.2f,"
		       " z %+.1f, q %.2f) ", h->count, h->count == 1 ? "" : "s", k ? "shrank" : "grew", h->largest.delta,
		       h->largest.noise, h->largest.z, h->largest.q);
		cli_put_text(stdout, fg_names_get(names, h->largest.name));
		putchar('\n');
	}
}

static void json_rule(fg_json *j, const fg_diff_result *r, const fg_diff_options *o, const fg_names *names)
{
	fg_json_member_fixed(j, "floor", FG_DIFF_FLOOR, 4);
	fg_json_member_fixed(j, "run_noise", o->run_noise, 4);
	fg_json_member_u64(j, "tested", r->tested);
	fg_json_member_u64(j, "node_df", r->node_df);
	fg_json_member_fixed(j, "phi", r->phi, 4);
	for (int w = 0; w < 2; w++) {
		fg_json_key(j, w ? "within_noise" : "hidden");
		fg_json_object(j);
		for (int k = 0; k < 2; k++) {
			const fg_diff_hidden *h = w ? &r->within[k] : &r->hidden[k];
			fg_json_key(j, k ? "shrank" : "grew");
			fg_json_object(j);
			fg_json_member_u64(j, "count", h->count);
			fg_json_member_string(j, "largest", h->count ? fg_names_get(names, h->largest.name) : NULL);
			if (h->count) {
				fg_json_member_fixed(j, "delta", h->largest.delta, 4);
				fg_json_member_fixed(j, "z", h->largest.z, 4);
			}
			if (h->count && w)
				fg_json_member_fixed(j, "q", h->largest.q, 6);
			fg_json_end(j);
		}
		fg_json_end(j);
	}
}

static void print_peers(const fg_diff_peers *p, const fg_compare_input *in, const fg_names *names, bool json,
			double min_delta, bool self)
{
	if (json) {
		fg_json j;
		fg_json_init(&j, stdout);
		fg_json_object(&j);
		fg_json_member_string(&j, "kind", self ? "self" : "inclusive");
		fg_json_member_fixed(&j, "min_delta", min_delta, 4);
		fg_json_key(&j, "peers");
		fg_json_array(&j);
		for (size_t i = 0; i < p->npeers; i++) {
			const fg_diff_peer *peer = &p->peers[i];
			fg_json_object(&j);
			fg_json_member_string(&j, "source", in[peer->profile].source);
			fg_json_member_u64(&j, "total", in[peer->profile].total);
			fg_json_member_fixed(&j, "score", peer->score, 4);
			fg_json_key(&j, "frames");
			fg_json_array(&j);
			for (size_t k = 0; k < peer->nframes; k++) {
				const fg_diff_peer_frame *f = &peer->frames[k];
				fg_json_object(&j);
				fg_json_member_string(&j, "frame", fg_names_get(names, f->name));
				fg_json_member_fixed(&j, "share", f->share, 4);
				fg_json_member_fixed(&j, "others", f->others, 4);
				fg_json_member_fixed(&j, "delta", f->delta, 4);
				fg_json_end(&j);
			}
			fg_json_end(&j);
			fg_json_end(&j);
		}
		fg_json_end(&j);
		fg_json_member_string(&j, "outlier", p->outlier >= 0 ? in[p->peers[p->outlier].profile].source : NULL);
		fg_json_end(&j);
		return;
	}
	printf("peer scores: sum of |delta| of the frames whose %s share differs from the mean of the\n"
	       "other profiles by more than %.2f points\n\n%9s %7s  %s\n", self ? "self" : "inclusive", min_delta,
	       "score", "frames", "profile");
	for (size_t i = 0; i < p->npeers; i++)
		printf("%9.2f %7zu  %s%s\n", p->peers[i].score, p->peers[i].nframes, in[p->peers[i].profile].source,
		       (long)i == p->outlier ? "  <- outlier" : "");
	if (p->outlier < 0) {
		printf("\nno profile stands out (the top score is below %.1f\xc3\x97 the second)\n",
		       FG_DIFF_OUTLIER_RATIO);
		return;
	}
	const fg_diff_peer *o = &p->peers[p->outlier];
	printf("\noutlier: %s\n%8s %8s %9s  %s\n", in[o->profile].source, "share%", "others%", "delta", "frame");
	for (size_t k = 0; k < o->nframes; k++)
	{
		printf("%7.2f%% %7.2f%% %+9.2f  ", o->frames[k].share, o->frames[k].others, o->frames[k].delta);
		cli_put_text(stdout, fg_names_get(names, o->frames[k].name));
		putchar('\n');
	}
}


static void print_json(const struct cli_diff_shown *s)
{
	const fg_diff_result *r = s->result;
	fg_json j;
	fg_json_init(&j, stdout);
	fg_json_object(&j);
	fg_json_member_string(&j, "kind", s->opts->self ? "self" : "inclusive");
	fg_json_member_fixed(&j, "min_delta", s->opts->min_delta, 4);
	fg_json_member_fixed(&j, "fdr", s->opts->fdr, 4);
	json_rule(&j, r, s->opts, s->names);
	for (int k = 0; k < 2; k++) {
		fg_json_key(&j, k ? "candidate" : "base");
		json_side(&j, &s->sides[k], fg_diff_total(s->diff, (fg_diff_side)k));
	}
	fg_json_key(&j, "grew");
	json_entries(&j, r->grew, r->ngrew, s->names, s->hist ? s->hist->result : NULL);
	fg_json_key(&j, "shrank");
	json_entries(&j, r->shrank, r->nshrank, s->names, NULL);
	if (s->hist) {
		fg_json_key(&j, "history");
		fg_json_object(&j);
		cli_history_json_members(&j, s->hist->history);
		fg_json_end(&j);
	}
	if (s->hist && s->window) {
		fg_json_key(&j, "decision");
		cli_decision_json(&j, s->hist->decision);
		fg_json_member_string(&j, "no_decision", cli_growers_no_decision(r));
		cli_growers_note_json(&j, r, s->hot);
	}
	if (s->metrics)
		cli_metrics_json_member(&j, s->lens, s->lens_err, s->metrics_url);
	fg_json_end(&j);
}

static void print_text(const struct cli_diff_shown *s)
{
	const fg_diff_result *r = s->result;
	text_side("base", s->in, s->n, FG_DIFF_BASE);
	text_side("candidate", s->in, s->n, FG_DIFF_CANDIDATE);
	text_rule(r, s->opts, s->opts->raw);
	if (s->hist)
		printf("source files in %s at %s%s%s\n", fg_history_repo_path(s->hist->history),
		       fg_history_bad_id(s->hist->history), s->window ? ", window from " : "",
		       s->window ? fg_history_good_id(s->hist->history) : "");
	text_entries("grew in candidate", r->grew, r->ngrew, s->names, s->hist ? s->hist->result : NULL);
	text_entries("shrank in candidate", r->shrank, r->nshrank, s->names, NULL);
	text_hidden(r, s->names);
	if (s->hist && s->window && (s->hist->decision || cli_growers_no_decision(r))) {
		cli_decision_text(stdout, s->hist->decision);
		if (cli_growers_no_decision(r))
			printf("\nno decision: %s\n", cli_growers_no_decision(r));
		cli_growers_note_text(stdout, r, s->hot);
	}
	if (s->lens) {
		fputc('\n', stdout);
		cli_metrics_text(stdout, s->lens, s->metrics_url);
	}
}

void cli_diff_print(const struct cli_diff_shown *s, bool json)
{
	if (s->peers)
		print_peers(s->peers, s->in, s->names, json,
			    s->opts->min_delta > 0 ? s->opts->min_delta : FG_DIFF_PEERS_MIN_DELTA, s->opts->self);
	else if (json)
		print_json(s);
	else
		print_text(s);
}
