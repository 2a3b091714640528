#include "bisect/verdict.h"
#include "formats/source.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/parallel.h"
#include "analysis/protocol.h"
#include "analysis/share.h"
#include "analysis/suggest.h"
#include "base/stats.h"
#include "base/utf8.h"

struct fg_verdict_judge {
	fg_verdict_options opts;
	char *pattern;
	const char *patterns[1]; /* the matcher keeps the array, not a copy */
	char *protocol;
	char *event;
	struct lane *lanes;      /* one per thread a build's profiles are read on */
	size_t nlanes;
	double *bounds;          /* the looks' boundaries of nbounds captures (fg_stats_spending_bounds) */
	size_t nbounds;
};

/* What one thread reads profiles with. */
struct lane {
	fg_names *names;
	fg_matcher *matcher;
	fg_share *share;
	fg_protocol *detector;
};

static const char *const aggregate_names[] = { "pooled", "median", "mean", "min", "max" };
static const char *const basis_names[] = { "input", "interval", "nodes", "margin", "point" };

bool fg_aggregate_parse(enum fg_aggregate *out, const char *name)
{
	for (size_t i = 0; i < sizeof(aggregate_names) / sizeof(aggregate_names[0]); i++)
		if (!strcmp(name, aggregate_names[i])) {
			*out = (enum fg_aggregate)i;
			return true;
		}
	return false;
}

const char *fg_aggregate_name(enum fg_aggregate a)
{
	return aggregate_names[a];
}

const char *fg_verdict_basis_name(enum fg_verdict_basis basis)
{
	return basis_names[basis];
}

void fg_verdict_options_init(fg_verdict_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->margin = -1;
	opts->noise = -1;
	opts->aggregate = FG_AGGREGATE_POOLED;
	opts->event = "cpu";
	fg_read_options_init(&opts->read);
}

size_t fg_verdict_min_nodes(const fg_verdict_options *opts, size_t n)
{
	size_t need = opts->min_nodes;
	if (!need) {
		need = n / 2 + 1;
		if (need < FG_VERDICT_MIN_NODES)
			need = FG_VERDICT_MIN_NODES;
	}
	return need < n ? need : n;
}

double fg_verdict_noise(const fg_verdict_options *opts)
{
	return opts->noise >= 0 ? opts->noise : FG_VERDICT_NOISE_FRACTION * opts->threshold;
}

const char *fg_verdict_name(enum fg_verdict_kind kind)
{
	switch (kind) {
	case FG_VERDICT_FAST: return "fast";
	case FG_VERDICT_SLOW: return "slow";
	default: return "skip";
	}
}

int fg_verdict_exit_status(const fg_verdict *v)
{
	switch (v->kind) {
	case FG_VERDICT_FAST: return 0;
	case FG_VERDICT_SLOW: return 1;
	default: return 125;
	}
}

void fg_verdict_free(fg_verdict *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->nprofiles; i++)
		free(v->profiles[i].source);
	free(v->profiles);
	free(v);
}

static void lane_clear(struct lane *l)
{
	fg_protocol_free(l->detector);
	fg_share_free(l->share);
	fg_matcher_free(l->matcher);
	fg_names_free(l->names);
}

/* Up to n lanes (at least one, or an error); fewer when out of memory. */
static int add_lanes(fg_verdict_judge *j, size_t n, fg_error *err)
{
	if (n <= j->nlanes)
		return 0;
	struct lane *grown = realloc(j->lanes, n * sizeof(*grown));
	if (!grown)
		return j->nlanes ? 0 : fg_error_oom(err, NULL);
	j->lanes = grown;
	while (j->nlanes < n) {
		struct lane *l = &j->lanes[j->nlanes];
		*l = (struct lane){ 0 };
		int rc = fg_names_new(&l->names, err);
		if (!rc)
			rc = fg_matcher_new(&l->matcher, j->patterns, 1, &j->opts.match, err);
		if (!rc)
			rc = fg_share_new(&l->share, l->matcher, l->names, err);
		if (!rc) {
			fg_share_inclusive_only(l->share); /* a verdict is on the inclusive share */
			rc = fg_protocol_new(&l->detector, l->names, err);
		}
		if (rc) {
			lane_clear(l);
			/* The first lane's failure (a bad pattern) is the judge's. */
			return j->nlanes ? 0 : rc;
		}
		j->nlanes++;
	}
	return 0;
}

void fg_verdict_judge_free(fg_verdict_judge *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->nlanes; i++)
		lane_clear(&j->lanes[i]);
	free(j->lanes);
	free(j->bounds);
	free(j->pattern);
	free(j->protocol);
	free(j->event);
	free(j);
}

int fg_verdict_judge_new(fg_verdict_judge **out, const fg_verdict_options *opts, fg_error *err)
{
	*out = NULL;
	if (!opts->pattern || !opts->pattern[0])
		return fg_error_set(err, FG_EUSAGE, NULL, "a frame pattern is required");
	fg_verdict_judge *j = calloc(1, sizeof(*j));
	if (!j)
		return fg_error_oom(err, NULL);
	j->opts = *opts;
	/* The judge outlives the caller's strings (options parsed from argv
	 * usually live as long, but the library must not count on it). */
	j->pattern = strdup(opts->pattern);
	j->protocol = opts->protocol ? strdup(opts->protocol) : NULL;
	j->event = opts->event ? strdup(opts->event) : NULL;
	int rc = 0;
	if (!j->pattern || (opts->protocol && !j->protocol) || (opts->event && !j->event))
		rc = fg_error_oom(err, NULL);
	j->opts.pattern = j->pattern;
	j->opts.protocol = j->protocol;
	j->opts.event = j->event;
	j->patterns[0] = j->pattern;
	if (!rc)
		rc = add_lanes(j, 1, err);
	if (rc) {
		fg_verdict_judge_free(j);
		return rc;
	}
	*out = j;
	return 0;
}

/* One pass over a profile feeds both analyses. */
static int judge_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	struct lane *l = ctx;
	int rc = fg_share_frames(l->share, frames, n, err);
	return rc ? rc : fg_protocol_frames(l->detector, frames, n, err);
}

static int judge_stack(void *ctx, const fg_stack *stack, fg_error *err)
{
	struct lane *l = ctx;
	int rc = fg_share_stack(l->share, stack, err);
	return rc ? rc : fg_protocol_stack(l->detector, stack, err);
}

static void skip(fg_verdict *v, const char *source, const char *message)
{
	v->kind = FG_VERDICT_SKIP;
	if (source && source[0])
		snprintf(v->reason, sizeof(v->reason), "%s: %s", source, message);
	else
		snprintf(v->reason, sizeof(v->reason), "%s", message);
}

/* What reading one profile found (on any lane). */
struct reading {
	int rc;
	fg_error err;
	fg_profile_info info;
	uint64_t samples;
	bool matched;
	fg_protocol_kind kind;
};

static void read_profile(struct reading *r, struct lane *l, const char *source, const char *path,
                         const fg_read_options *ro)
{
	fg_error_clear(&r->err);
	fg_share_reset(l->share);
	fg_protocol_reset(l->detector);
	r->rc = fg_source_read_fetched(&r->info, source, path, l->names, ro,
	                               &(fg_visitor){ judge_frames, judge_stack, l, NULL, NULL }, &r->err);
	if (r->rc)
		return;
	r->samples = fg_share_samples(l->share, 0);
	r->matched = fg_share_matched(l->share, 0);
	r->kind = fg_protocol_result(l->detector);
}

/* Leaves p out of the verdict, saying why. */
static void leave_out(fg_verdict_profile *p, const char *message)
{
	p->read = false;
	snprintf(p->error, sizeof(p->error), "%s", message);
}

/* Takes one read profile into p; a problem of this profile only leaves it
 * out (returns 1), an error is returned as it is. */
static int judge_profile(fg_verdict *v, fg_verdict_judge *j, fg_verdict_profile *p, const struct reading *r,
                         fg_error *err)
{
	const fg_profile_info *info = &r->info;
	if (r->rc == FG_EINVALID || r->rc == FG_EFETCH) {
		leave_out(p, r->err.message);
		return 1;
	}
	if (r->rc) {
		*err = r->err;
		return r->rc;
	}
	p->read = true;
	p->total = info->total;
	p->samples = r->samples;
	p->share = fg_stats_percent(p->samples, p->total);
	p->detected = fg_protocol_name(r->kind);
	if (info->missing_final_newline)
		snprintf(p->warning, sizeof(p->warning), "the last line has no newline: the file may be cut short");
	else if (info->inverted && !j->opts.read.reversed)
		snprintf(p->warning, sizeof(p->warning),
		         "the graph is drawn inverted: if its stacks are leaf-first, pass --reversed");
	char message[256];
	if (p->total < j->opts.min_samples) {
		snprintf(message, sizeof(message), "%llu samples, fewer than --min-samples %llu",
		         (unsigned long long)p->total, (unsigned long long)j->opts.min_samples);
		leave_out(p, message);
		return 1;
	}
	/* async-profiler's cpu event may be sampled by itimer or ctimer too. */
	const char *measured = fg_protocol_event(info), *want = p->expected_event;
	if (want && (!strcmp(want, "itimer") || !strcmp(want, "ctimer")))
		want = "cpu";
	if (want && measured && strcmp(want, measured)) {
		snprintf(message, sizeof(message), "the profile measures %s (its title says \"%.*s\"), not %s",
		         measured, (int)fg_utf8_fit(info->title, 64), info->title, want);
		leave_out(p, message);
		return 1;
	}
	/* Units: a pooled share over bytes and samples means nothing, and bytes
	 * or nanoseconds have no sample interval to decide on. */
	snprintf(p->unit, sizeof(p->unit), "%s", fg_profile_unit(info));
	for (const fg_verdict_profile *q = v->profiles; q < p; q++)
		if (q->read && q->unit[0] && strcmp(q->unit, p->unit)) {
			snprintf(message, sizeof(message), "the profile counts %s but %s counts %s: not comparable",
			         p->unit, q->source, q->unit);
			leave_out(p, message);
			return 1;
		}
	if (!fg_profile_counts_samples(info) && j->opts.aggregate == FG_AGGREGATE_POOLED) {
		snprintf(message, sizeof(message),
		         "the profile counts %s, not samples: there is no sample interval to decide on "
		         "(--aggregate median judges the share as a point)", p->unit);
		leave_out(p, message);
		return 1;
	}
	fg_protocol_kind kind = r->kind;
	if (p->expected && kind != FG_PROTOCOL_UNKNOWN && strcmp(p->expected, p->detected)) {
		snprintf(message, sizeof(message), "the profile serves %s, not %s as %s", p->detected, p->expected,
		         p->expected == j->protocol ? "--protocol says" : "the runs file says");
		leave_out(p, message);
		return 1;
	}
	if (r->matched)
		v->matched = true;
	return 0;
}

const char *fg_verdict_profile_label(const fg_verdict_profile *p)
{
	if (p->node)
		return p->node;
	const char *slash = strrchr(p->source, '/');
	return slash && slash[1] ? slash + 1 : p->source;
}

/* A standardised residual this large happens by sampling less than once in
 * a thousand (two-sided). */
#define DISAGREEMENT_Z 3.29

/* The index in v->profiles of the k-th read profile. */
static size_t read_index(const fg_verdict *v, size_t k)
{
	for (size_t i = 0; i < v->nprofiles; i++)
		if (v->profiles[i].read && !k--)
			return i;
	return SIZE_MAX;
}

/* Over-dispersion of the read profiles' counts, and the node that
 * disagrees. */
static void dispersion(fg_verdict *v)
{
	uint64_t k[64], n[64];
	uint64_t *kk = v->nprofiles <= 64 ? k : malloc(v->nprofiles * sizeof(*kk));
	uint64_t *nn = v->nprofiles <= 64 ? n : malloc(v->nprofiles * sizeof(*nn));
	fg_dispersion d = { .chi2 = 0, .phi = 1, .worst = SIZE_MAX };
	size_t m = 0;
	if (kk && nn) {
		for (size_t i = 0; i < v->nprofiles; i++)
			if (v->profiles[i].read) {
				kk[m] = v->profiles[i].samples;
				nn[m++] = v->profiles[i].total;
			}
		fg_stats_overdispersion(&d, kk, nn, m);
	} else {
		/* Out of memory: an unbounded disagreement, so the interval is
		 * [0, 100] and the build a skip, never a guess. */
		d.phi = HUGE_VAL;
	}
	if (kk != k)
		free(kk);
	if (nn != n)
		free(nn);
	/* chi2 / (m - 1) from three nodes has two degrees of freedom: above 2
	 * in one build of seven, above 3 in one of twenty, when the nodes
	 * agree as sampling says.  Moderated toward the binomial's 1 as if
	 * that were FG_VERDICT_PHI_PRIOR_DF nodes' worth of evidence (the
	 * empirical-Bayes variance of Smyth's limma): a true disagreement
	 * (phi 10, 89) still widens the interval nearly as much. */
	v->phi = m >= 2 && isfinite(d.phi) ? fg_stats_phi_moderated(d.chi2, (double)(m - 1), 1.0, FG_VERDICT_PHI_PRIOR_DF)
	                                   : d.phi;
	/* With two nodes both residuals are the same size: neither can be
	 * named. */
	v->disagreeing = m >= 3 && fabs(d.residual) >= DISAGREEMENT_Z ? read_index(v, d.worst) : SIZE_MAX;
}

/* "; broker-2 7.10% disagrees with the others (2.51%)" or "". */
static void disagreement(char *out, size_t size, const fg_verdict *v)
{
	out[0] = '\0';
	if (v->disagreeing == SIZE_MAX)
		return;
	const fg_verdict_profile *p = &v->profiles[v->disagreeing];
	snprintf(out, size, "%s %.2f%% disagrees with the other nodes (%.2f%%, phi %.1f)", fg_verdict_profile_label(p),
	         p->share, fg_stats_percent(v->samples - p->samples, v->total - p->total), v->phi);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The point aggregate of the profiles' shares. */
static double point_share(const fg_verdict *v, enum fg_aggregate how)
{
	double few[64], *shares = v->nprofiles <= 64 ? few : malloc(v->nprofiles * sizeof(*shares));
	if (!shares)
		return v->pooled;
	size_t n = 0;
	for (size_t i = 0; i < v->nprofiles; i++)
		if (v->profiles[i].read)
			shares[n++] = v->profiles[i].share;
	qsort(shares, n, sizeof(*shares), cmp_double);
	double sum = 0, r;
	switch (how) {
	case FG_AGGREGATE_MIN: r = shares[0]; break;
	case FG_AGGREGATE_MAX: r = shares[n - 1]; break;
	case FG_AGGREGATE_MEAN:
		for (size_t i = 0; i < n; i++)
			sum += shares[i];
		r = sum / (double)n;
		break;
	default: r = n % 2 ? shares[n / 2] : (shares[n / 2 - 1] + shares[n / 2]) / 2; break;
	}
	if (shares != few)
		free(shares);
	return r;
}

static void decide_point(fg_verdict *v, const fg_verdict_options *o)
{
	const char *name = fg_aggregate_name(o->aggregate);
	v->share = point_share(v, o->aggregate);
	if (o->margin >= 0 && fabs(v->share - o->threshold) < o->margin) {
		snprintf(v->reason, sizeof(v->reason), "%s share %.2f%% is within the margin %g of the threshold %g%%",
		         name, v->share, o->margin, o->threshold);
		v->kind = FG_VERDICT_SKIP;
		v->basis = FG_BASIS_MARGIN;
		return;
	}
	v->kind = v->share >= o->threshold ? FG_VERDICT_SLOW : FG_VERDICT_FAST;
	v->basis = FG_BASIS_POINT;
	snprintf(v->reason, sizeof(v->reason), "%s share %.2f%% %s threshold %g%%", name, v->share,
	         v->kind == FG_VERDICT_SLOW ? ">=" : "<", o->threshold);
}

/* Captures of one commit are runs of their own: the run-to-run noise is
 * not shared by them but averages down in their pooled share, and their
 * spread measures it (fg_verdict's captures).  Sets noise_estimate, the
 * moderated noise and its degrees of freedom, the pooled share's noise,
 * phi 1 and no disagreeing capture. */
static void capture_noise(fg_verdict *v)
{
	double sum = 0, sumsq = 0, sampling = 0, w2 = 0;
	size_t k = 0;
	for (size_t i = 0; i < v->nprofiles; i++) {
		const fg_verdict_profile *p = &v->profiles[i];
		if (!p->read || !p->total)
			continue;
		double w = (double)p->total / (double)v->total;
		sum += p->share;
		sumsq += p->share * p->share;
		sampling += p->share * (100 - p->share) / (double)p->total;
		w2 += w * w;
		k++;
	}
	if (k < 2)
		return;
	double between = (sumsq - sum * sum / (double)k) / (double)(k - 1) - sampling / (double)k;
	v->noise_estimate = between > 0 ? sqrt(between) : 0;
	/* The assumed noise is a prior worth FG_VERDICT_NOISE_PRIOR_DF
	 * captures, the spread k - 1 (the variance moderated as phi is):
	 * agreeing captures lower it, disagreeing ones raise it. */
	double weight = FG_VERDICT_NOISE_PRIOR_DF + (double)(k - 1);
	double tau2 = (FG_VERDICT_NOISE_PRIOR_DF * v->noise * v->noise + (double)(k - 1) * between) / weight;
	v->noise = sqrt(tau2 > 0 ? tau2 : 0) * sqrt(w2);
	/* What is uncertain is the spread of the captures' shares, sampling
	 * and noise together (between is it less the known sampling): the
	 * moderated variance's part from it varies as a chi-square of k - 1
	 * scaled by (k - 1) / weight, the prior's part not at all; matching
	 * that variance, 2 / df, gives df = weight^2 / (k - 1) (k - 1 with no
	 * prior, infinite with no spread). */
	v->noise_df = weight * weight / (double)(k - 1);
	v->phi = 1;
	v->disagreeing = SIZE_MAX;
}

/* The multiplier of the decision's interval: the look's boundary (FG_Z95
 * with one look), as a t quantile on noise_df when the captures' spread
 * estimated the noise (the interval's variance, sampling and noise, is
 * then as uncertain as that spread). */
static double decision_z(const fg_verdict *v)
{
	double c = v->look_z > 0 ? v->look_z : FG_Z95;
	return v->noise_df > 0 ? fg_stats_t_two_sided(erfc(c / sqrt(2.0)), v->noise_df) : c;
}

/* What would decide a verdict whose interval holds t, at the distance of
 * its share from t: sets samples_needed (the pooled samples whose
 * sampling, with phi and the noise, would leave t outside an interval at
 * v->z; INFINITY when the noise alone holds t) or, for captures,
 * captures_needed (of the spread of one capture, its sampling and noise). */
static void needed(fg_verdict *v, double t)
{
	double d = fabs(v->pooled - t), z = v->z, p = v->pooled;
	v->samples_needed = 0;
	v->captures_needed = 0;
	if (!(d > 0) || !v->total)
		return;
	if (v->captures) {
		/* The noise and sampling of one capture of the mean size, at
		 * FG_Z95 (a look's boundary is for that look; the last of
		 * several is near it). */
		z = FG_Z95;
		size_t k = v->nread ? v->nread : 1;
		double per = (double)v->total / (double)k, tau2 = v->noise * v->noise * (double)k;
		double n = z * z * (p * (100 - p) / per + tau2) / (d * d);
		v->captures_needed = n < 1e6 ? (size_t)ceil(n) : 1000000;
		return;
	}
	double room = d * d - z * z * v->noise * v->noise;
	v->samples_needed = room > 0 ? ceil(z * z * v->phi * p * (100 - p) / room) : INFINITY;
}

/* "; 0.31 pp from the threshold: about 12000 samples would decide" (or
 * captures, or what cannot). */
static void needed_clause(char *out, size_t size, const fg_verdict *v, double t)
{
	double d = fabs(v->pooled - t);
	if (v->captures_needed)
		snprintf(out, size, "; %.2f pp from the threshold: about %zu captures would decide", d, v->captures_needed);
	else if (isinf(v->samples_needed))
		snprintf(out, size, "; %.2f pp from the threshold: more samples cannot decide (the run-to-run noise "
		         "%.2f pp alone holds it)", d, v->noise);
	else if (v->samples_needed > 0)
		snprintf(out, size, "; %.2f pp from the threshold: about %.0f samples in all would decide", d,
		         v->samples_needed);
}

void fg_verdict_decide(fg_verdict *v, const fg_verdict_options *o)
{
	double margin = o->margin >= 0 ? o->margin : 0, t = o->threshold;
	v->pooled = v->share = fg_stats_percent(v->samples, v->total);
	v->aggregate = o->aggregate;
	fg_stats_wilson95(&v->lo, &v->hi, v->samples, v->total);
	dispersion(v);
	v->noise = fg_verdict_noise(o);
	v->noise_given = o->noise >= 0;
	v->noise_df = 0;
	v->samples_needed = 0;
	v->captures_needed = 0;
	if (v->captures > 1)
		capture_noise(v);
	v->z = decision_z(v);
	fg_stats_share_interval_z(&v->interval_lo, &v->interval_hi, v->samples, v->total, v->phi, v->noise, v->z);
	if (o->aggregate != FG_AGGREGATE_POOLED) {
		decide_point(v, o);
		return;
	}
	char nodes[256];
	disagreement(nodes, sizeof(nodes), v);
	const char *sep = nodes[0] ? "; " : "";
	double lo = v->interval_lo, hi = v->interval_hi;
	v->basis = FG_BASIS_INTERVAL;
	if (hi < t - margin) {
		v->kind = FG_VERDICT_FAST;
		snprintf(v->reason, sizeof(v->reason), "the whole interval is below %g%%%s%s", t, sep, nodes);
	} else if (lo >= t + margin) {
		v->kind = FG_VERDICT_SLOW;
		snprintf(v->reason, sizeof(v->reason), "the whole interval is at or above %g%%%s%s", t, sep, nodes);
	} else if (margin > 0 && (hi < t || lo >= t)) {
		v->kind = FG_VERDICT_SKIP;
		v->basis = FG_BASIS_MARGIN;
		snprintf(v->reason, sizeof(v->reason), "the interval %.2f-%.2f%% is within the margin %g of the "
		         "threshold %g%%%s%s", lo, hi, o->margin, t, sep, nodes);
	} else if (nodes[0]) {
		v->kind = FG_VERDICT_SKIP;
		v->basis = FG_BASIS_NODES;
		snprintf(v->reason, sizeof(v->reason), "%s: the interval %.2f-%.2f%% holds the threshold %g%%", nodes,
		         lo, hi, t);
	} else {
		v->kind = FG_VERDICT_SKIP;
		int len = snprintf(v->reason, sizeof(v->reason), "cannot tell: the interval %.2f-%.2f%% holds the threshold %g%%",
		                   lo, hi, t);
		needed(v, t);
		if (len > 0 && (size_t)len < sizeof(v->reason))
			needed_clause(v->reason + len, sizeof(v->reason) - (size_t)len, v, t);
	}
}

static int new_verdict(fg_verdict **out, size_t n, const char *commit, const char *date, fg_error *err)
{
	fg_verdict *v = calloc(1, sizeof(*v));
	if (!v || (n && !(v->profiles = calloc(n, sizeof(*v->profiles))))) {
		free(v);
		return fg_error_oom(err, NULL);
	}
	snprintf(v->commit, sizeof(v->commit), "%s", commit ? commit : "");
	snprintf(v->date, sizeof(v->date), "%s", date ? date : "");
	v->kind = FG_VERDICT_SKIP;
	v->noise_estimate = -1;
	*out = v;
	return 0;
}

/* The profiles of a build, read on the judge's lanes and taken in order
 * (fg_parallel_run): the first one that makes the build a skip, or fails,
 * stops it, as reading them in turn would. */
struct judging {
	fg_verdict *v;
	fg_verdict_judge *j;
	const fg_fetch_result *fetched;
	struct reading *read;
	int rc;       /* an error: the build is not judged */
	fg_error *err;
};

static void read_one(void *ctx, size_t lane, size_t i)
{
	struct judging *w = ctx;
	/* A failed fetch is taken as it is. */
	if (!w->fetched[i].err.code)
		read_profile(&w->read[i], &w->j->lanes[lane], w->v->profiles[i].source, w->fetched[i].path,
		             &w->j->opts.read);
}

static int take_one(void *ctx, size_t i)
{
	struct judging *w = ctx;
	fg_verdict *v = w->v;
	fg_verdict_profile *p = &v->profiles[i];
	const fg_error *fe = &w->fetched[i].err;
	if (fe->code == FG_EFETCH && !w->fetched[i].denied) {
		leave_out(p, fe->message);
		return 0;
	}
	if (fe->code) {
		/* A malformed header, an unknown scheme, credentials refused or a
		 * rate limit: every build alike. */
		*w->err = *fe;
		w->rc = fe->code;
		return 1;
	}
	int rc = judge_profile(v, w->j, p, &w->read[i], w->err);
	if (rc > 0)
		return 0;
	if (rc) {
		fg_error_set_source(w->err, p->source);
		w->rc = rc;
		return 1;
	}
	/* Each profile's counts fit 64 bits (the readers check); their sum
	 * may not, and a wrapped total would give shares above 100% and a
	 * NaN interval.  samples <= total, so one check covers both. */
	if (p->total > UINT64_MAX - v->total) {
		leave_out(p, "the pooled sample counts of this build would overflow 64 bits");
		return 0;
	}
	v->samples += p->samples;
	v->total += p->total;
	v->nread++;
	return 0;
}

/* "broker-2: HTTP status 404; broker-1: truncated: ..." of the profiles
 * left out, each cut to fit. */
static void left_out(char *out, size_t size, const fg_verdict *v)
{
	size_t len = 0;
	out[0] = '\0';
	for (size_t i = 0; i < v->nprofiles && len < size; i++) {
		const fg_verdict_profile *p = &v->profiles[i];
		if (p->read)
			continue;
		int k = snprintf(out + len, size - len, "%s%s: %.*s", len ? "; " : "", fg_verdict_profile_label(p),
		                 (int)fg_utf8_fit(p->error, 300), p->error);
		len += k > 0 ? (size_t)k : 0;
	}
}

void fg_verdict_conclude(fg_verdict *v, const fg_verdict_options *o)
{
	/* A capture that failed to read leaves the others: each is a run. */
	v->min_nodes = v->captures ? 1 : fg_verdict_min_nodes(o, v->nprofiles);
	char missing[1024];
	left_out(missing, sizeof(missing), v);
	if (v->nread < v->min_nodes) {
		/* One profile: its message as it is, as before partial runs. */
		if (v->nprofiles == 1)
			skip(v, v->profiles[0].source, v->profiles[0].error);
		else
			snprintf(v->reason, sizeof(v->reason), "%zu of %zu profiles read, fewer than the %zu needed%s: %s",
			         v->nread, v->nprofiles, v->min_nodes, o->min_nodes ? " (--min-nodes)" : "", missing);
		v->kind = FG_VERDICT_SKIP;
		v->basis = FG_BASIS_INPUT;
		return;
	}
	fg_verdict_decide(v, o);
	size_t len = strlen(v->reason);
	if (v->total < FG_VERDICT_FEW_SAMPLES)
		len += (size_t)snprintf(v->reason + len, sizeof(v->reason) - len, "; only %llu samples",
		                        (unsigned long long)v->total);
	if (v->nread < v->nprofiles && len < sizeof(v->reason))
		snprintf(v->reason + len, sizeof(v->reason) - len, "; judged on %zu of %zu profiles, left out: %s",
		         v->nread, v->nprofiles, missing);
}

/* The boundary of look k of `looks` captures into *z, computed once a
 * number of looks. */
static int look_boundary(double *z, fg_verdict_judge *j, size_t k, size_t looks, fg_error *err)
{
	if (j->nbounds != looks) {
		free(j->bounds);
		j->nbounds = 0;
		if (!(j->bounds = malloc(looks * sizeof(*j->bounds))) ||
		    fg_stats_spending_bounds(j->bounds, looks, 0.05))
			return fg_error_oom(err, NULL);
		j->nbounds = looks;
	}
	*z = j->bounds[k - 1];
	return 0;
}

/* fg_verdict_judge_inputs; captures: the inputs are that many captures of
 * one commit of at most looks (fg_verdict's captures and looks), else 0. */
static int judge_inputs(fg_verdict **out, fg_verdict_judge *j, const fg_verdict_input *inputs, size_t n,
                        const char *commit, const char *date, size_t captures, size_t looks, fg_error *err)
{
	*out = NULL;
	fg_verdict *v = NULL;
	int rc = new_verdict(&v, n, commit, date, err);
	if (rc)
		return rc;
	v->captures = captures;
	v->looks = captures ? looks : 0;
	if (captures && (rc = look_boundary(&v->look_z, j, captures, looks, err))) {
		fg_verdict_free(v);
		return rc;
	}
	const char **sources = calloc(n ? n : 1, sizeof(*sources));
	fg_fetch_result *fetched = calloc(n ? n : 1, sizeof(*fetched));
	if (!sources || !fetched) {
		rc = fg_error_oom(err, NULL);
		goto out;
	}
	v->nprofiles = n;
	for (size_t i = 0; i < n; i++) {
		fg_verdict_profile *p = &v->profiles[i];
		sources[i] = inputs[i].source;
		p->node = inputs[i].node;
		p->expected = inputs[i].protocol ? inputs[i].protocol : j->protocol;
		p->expected_event = inputs[i].event ? inputs[i].event : j->opts.event;
		if (!(p->source = fg_url_redact(inputs[i].source))) {
			rc = fg_error_oom(err, NULL);
			goto out;
		}
	}
	if (n == 0) {
		skip(v, NULL, "no profile to judge");
		goto out;
	}
	fg_fetch_options defaults;
	const fg_fetch_options *fo = j->opts.fetch;
	if (!fo) {
		fg_fetch_options_init(&defaults);
		fo = &defaults;
	}
	fg_fetch_many(fetched, sources, n, fo);
	for (size_t i = 0; i < n; i++) {
		fg_verdict_profile *p = &v->profiles[i];
		snprintf(p->warning, sizeof(p->warning), "%s", fetched[i].warning);
		p->downloaded = fetched[i].path && fg_url_is(sources[i]) && !fetched[i].from_cache &&
		                strncmp(sources[i], "file:", 5);
		v->downloaded += p->downloaded;
	}
	struct judging w = { v, j, fetched, calloc(n, sizeof(*w.read)), 0, err };
	size_t lanes = j->opts.jobs ? j->opts.jobs : fg_parallel_cores();
	if (!w.read)
		rc = fg_error_oom(err, NULL);
	if (!rc)
		rc = add_lanes(j, lanes < n ? lanes : n, err);
	if (!rc) {
		fg_parallel_run(n, j->nlanes, n, read_one, take_one, &w);
		rc = w.rc;
	}
	free(w.read);
	if (!rc)
		fg_verdict_conclude(v, &j->opts);
out:
	for (size_t i = 0; fetched && i < n; i++)
		fg_fetch_result_clear(&fetched[i]);
	free(fetched);
	free(sources);
	if (rc) {
		fg_verdict_free(v);
		return rc;
	}
	*out = v;
	return 0;
}

const char *fg_verdict_judge_pattern(const fg_verdict_judge *j)
{
	return j->pattern;
}

size_t fg_verdict_judge_suggest(char *out, size_t size, const fg_verdict_judge *j)
{
	/* Each lane interned the names of the profiles it read: the nearest of
	 * each, merged by distance, a name read on two lanes once. */
	enum { MAX = 3 };
	struct near_name { const char *name; size_t distance; } best[MAX];
	size_t nbest = 0;
	for (size_t l = 0; l < j->nlanes; l++) {
		const fg_names *names = j->lanes[l].names;
		uint32_t near[MAX];
		size_t n = 0;
		fg_suggest_names(near, &n, MAX, names, j->pattern);
		for (size_t i = 0; i < n; i++) {
			const char *name = fg_names_get(names, near[i]);
			size_t d = fg_suggest_distance(j->pattern, name, strlen(name)), k = 0;
			while (k < nbest && strcmp(best[k].name, name))
				k++;
			if (k < nbest)
				continue;
			for (k = nbest; k > 0 && best[k - 1].distance > d; k--)
				if (k < MAX)
					best[k] = best[k - 1];
			if (k < MAX)
				best[k] = (struct near_name){ name, d };
			nbest += nbest < MAX;
		}
	}
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < nbest && used < size; i++)
		used += (size_t)snprintf(out + used, size - used, "%s'%s'", i ? ", " : "", best[i].name);
	return nbest;
}

int fg_verdict_judge_inputs(fg_verdict **out, fg_verdict_judge *j, const fg_verdict_input *inputs, size_t n,
                            const char *commit, const char *date, fg_error *err)
{
	return judge_inputs(out, j, inputs, n, commit, date, 0, 0, err);
}

void fg_verdict_judge_set_threshold(fg_verdict_judge *j, double threshold)
{
	j->opts.threshold = threshold;
}

/* An end's standard deviation at threshold t, on the side facing the
 * other end (up for the good end, down for the bad one). */
static double end_sd(const fg_verdict *v, const fg_verdict_options *o, double t, bool up)
{
	double lo, hi;
	fg_stats_share_interval(&lo, &hi, v->samples, v->total, v->phi, 0);
	double w = up ? hi - v->pooled : v->pooled - lo;
	double noise = o->noise >= 0 ? o->noise : FG_VERDICT_NOISE_FRACTION * t;
	return sqrt(w * w + FG_Z95 * FG_Z95 * noise * noise) / FG_Z95;
}

void fg_verdict_auto_threshold(fg_verdict_auto *out, const fg_verdict *good, const fg_verdict *bad,
                               const fg_verdict_options *opts)
{
	memset(out, 0, sizeof(*out));
	if (!good->total || !bad->total || good->basis == FG_BASIS_INPUT || bad->basis == FG_BASIS_INPUT)
		return;
	double g = out->good = good->pooled, b = out->bad = bad->pooled;
	if (!(g < b)) {
		out->threshold = (g + b) / 2;
		out->good_sd = end_sd(good, opts, out->threshold, true);
		out->bad_sd = end_sd(bad, opts, out->threshold, false);
		return;
	}
	/* (t - g) / sd_g(t) grows with t and (b - t) / sd_b(t) falls: one
	 * crossing in (g, b). */
	double lo = g, hi = b, t = (g + b) / 2;
	for (int i = 0; i < 100; i++) {
		t = (lo + hi) / 2;
		double f = (t - g) / end_sd(good, opts, t, true) - (b - t) / end_sd(bad, opts, t, false);
		if (f < 0)
			lo = t;
		else
			hi = t;
	}
	/* Rounded to a hundredth of a point, as it is printed and handed on
	 * to run mode; the distance is then that of the nearer end. */
	t = round(t * 100) / 100;
	out->threshold = t;
	out->good_sd = end_sd(good, opts, t, true);
	out->bad_sd = end_sd(bad, opts, t, false);
	out->distance = fmin((t - g) / out->good_sd, (b - t) / out->bad_sd);
	out->separated = out->distance > FG_Z95;
}

void fg_verdict_auto_describe(char *out, size_t size, const fg_verdict_auto *a)
{
	if (!a->threshold)
		snprintf(out, size, "the ends cannot be compared: an end has no profile that could be read");
	else if (!(a->good < a->bad))
		snprintf(out, size, "the good end's share %.2f%% is not below the bad end's %.2f%%: there is no "
		         "regression between them to find", a->good, a->bad);
	else if (!a->separated)
		snprintf(out, size, "the ends do not differ beyond their noise: the good end's %.2f%% (sd %.2f pp) and "
		         "the bad end's %.2f%% (sd %.2f pp) are %.2f standard deviations from the point between them "
		         "(%.2f%%), and a verdict needs more than %.2f", a->good, a->good_sd, a->bad, a->bad_sd,
		         a->distance, a->threshold, FG_Z95);
	else
		snprintf(out, size, "%.2f%%, the point of equal standardised distance between the good end's %.2f%% "
		         "(sd %.2f pp) and the bad end's %.2f%% (sd %.2f pp): the nearer is %.2f standard deviations from it",
		         a->threshold, a->good, a->good_sd, a->bad, a->bad_sd, a->distance);
}

int fg_verdict_judge_run(fg_verdict **out, fg_verdict_judge *j, const fg_runs_run *run, fg_error *err)
{
	fg_verdict_input *inputs = calloc(run->nlines ? run->nlines : 1, sizeof(*inputs));
	if (!inputs)
		return fg_error_oom(err, NULL);
	for (size_t i = 0; i < run->nlines; i++) {
		inputs[i].source = run->lines[i]->resolved;
		inputs[i].node = run->lines[i]->node;
		inputs[i].protocol = run->lines[i]->protocol;
		inputs[i].event = run->lines[i]->event;
	}
	int rc = fg_verdict_judge_inputs(out, j, inputs, run->nlines, run->commit, run->date, err);
	free(inputs);
	return rc;
}

void fg_verdict_noise_estimate(fg_noise_estimate *out, const fg_verdict *const *verdicts, size_t n)
{
	double sum[2] = { 0 }, sumsq[2] = { 0 }, sampling[2] = { 0 };
	size_t count[2] = { 0 };
	for (size_t i = 0; i < n; i++) {
		const fg_verdict *v = verdicts[i];
		if (!v || v->kind == FG_VERDICT_SKIP || !v->total)
			continue;
		int g = v->kind == FG_VERDICT_SLOW;
		sum[g] += v->pooled;
		sumsq[g] += v->pooled * v->pooled;
		count[g]++;
		double lo, hi;
		fg_stats_share_interval(&lo, &hi, v->samples, v->total, v->phi, 0);
		double sd = (hi - lo) / (2 * FG_Z95);
		sampling[g] += sd * sd;
	}
	out->noise = 0;
	out->runs = 0;
	out->df = 0;
	double ss = 0, within = 0;
	for (int g = 0; g < 2; g++)
		if (count[g] > 1) {
			ss += sumsq[g] - sum[g] * sum[g] / (double)count[g];
			within += sampling[g];
			out->runs += count[g];
			out->df += count[g] - 1;
		}
	if (!out->df)
		return;
	double between = ss / (double)out->df - within / (double)out->runs;
	out->noise = between > 0 ? sqrt(between) : 0;
}

static const char *const placeholders[] = { "{commit}", "{short}", "{date}" };

bool fg_verdict_profile_is_fixed(const char *tmpl)
{
	for (size_t k = 0; k < 3; k++)
		if (strstr(tmpl, placeholders[k]))
			return false;
	return true;
}

int fg_verdict_expand(char **out, const char *tmpl, const fg_repo_commit *commit, fg_error *err)
{
	const char *const *keys = placeholders;
	const char *values[] = { commit->id, commit->short_id, commit->date };
	*out = NULL;
	size_t cap = strlen(tmpl) + 1;
	for (const char *p = strchr(tmpl, '{'); p; p = strchr(p + 1, '{'))
		cap += sizeof(commit->id);
	char *s = malloc(cap), *o = s;
	if (!s)
		return fg_error_oom(err, NULL);
	for (const char *p = tmpl; *p;) {
		size_t k = 0;
		while (k < 3 && strncmp(p, keys[k], strlen(keys[k])))
			k++;
		if (k < 3) {
			o = stpcpy(o, values[k]);
			p += strlen(keys[k]);
			continue;
		}
		/* {word} that is no placeholder: a typo like {sha} would silently
		 * name one fixed file for every commit. */
		size_t word = *p == '{' ? strspn(p + 1, "abcdefghijklmnopqrstuvwxyz_") : 0;
		if (word && p[1 + word] == '}') {
			free(s);
			return fg_error_set(err, FG_EUSAGE, tmpl,
			                    "unknown placeholder '%.*s' (use {commit}, {short} or {date})",
			                    (int)word + 2, p);
		}
		*o++ = *p++;
	}
	*o = '\0';
	*out = s;
	return 0;
}

/* One capture of the commit: FG_EFETCH with the reason in *cerr when it
 * failed (a skip, not an error). */
static int capture_once(fg_capture **cap, const fg_verdict_source *src, const fg_repo_commit *commit, fg_error *cerr)
{
	char env[3][64];
	snprintf(env[0], sizeof(env[0]), "FGBISECT_COMMIT=%s", commit->id);
	snprintf(env[1], sizeof(env[1]), "FGBISECT_SHORT=%s", commit->short_id);
	snprintf(env[2], sizeof(env[2]), "FGBISECT_DATE=%s", commit->date);
	const char **all = calloc(src->capture_opts.nenv + 3, sizeof(*all));
	if (!all)
		return fg_error_oom(cerr, NULL);
	for (size_t i = 0; i < src->capture_opts.nenv; i++)
		all[i] = src->capture_opts.env[i];
	for (size_t i = 0; i < 3; i++)
		all[src->capture_opts.nenv + i] = env[i];
	fg_capture_options co = src->capture_opts;
	co.env = all;
	co.nenv += 3;
	fg_error_clear(cerr);
	int rc = fg_capture_run(cap, src->capture, &co, cerr);
	free(all);
	return rc;
}

/* Judges n captured (or kept) profiles of a commit as one run, look n of
 * looks, each named "capture K" (a temporary path means nothing once it is
 * deleted). */
static int judge_captures(fg_verdict **out, fg_verdict_judge *j, const char *const *paths, size_t n, size_t looks,
                          const fg_repo_commit *commit, fg_error *err)
{
	fg_verdict_input *in = calloc(n, sizeof(*in));
	if (!in)
		return fg_error_oom(err, NULL);
	for (size_t i = 0; i < n; i++)
		in[i].source = paths[i];
	int rc = judge_inputs(out, j, in, n, commit->id, commit->date, n, looks, err);
	free(in);
	for (size_t i = 0; !rc && i < n; i++) {
		fg_verdict_profile *p = &(*out)->profiles[i];
		free(p->source);
		if (asprintf(&p->source, "capture %zu", i + 1) < 0) {
			p->source = NULL;
			fg_verdict_free(*out);
			*out = NULL;
			rc = fg_error_oom(err, NULL);
		}
	}
	return rc;
}

/* The cache the captures are kept in; false with --no-cache. */
static bool keeping(const fg_verdict_judge *j, const char **dir)
{
	*dir = j->opts.fetch ? j->opts.fetch->cache_dir : NULL;
	return !j->opts.fetch || !j->opts.fetch->no_cache;
}

/* Captures the commit until its verdict is decided, at most
 * capture_repeats times, each judged with those before it, and keeps
 * them. */
static int judge_capture(fg_verdict **out, fg_verdict_judge *j, const fg_verdict_source *src,
                         const fg_repo_commit *commit, fg_error *err)
{
	size_t max = src->capture_repeats ? src->capture_repeats : FG_VERDICT_CAPTURE_REPEATS, n = 0;
	fg_capture **caps = calloc(max, sizeof(*caps));
	const char **paths = calloc(max, sizeof(*paths));
	int rc = caps && paths ? 0 : fg_error_oom(err, NULL);
	fg_verdict *v = NULL;
	while (!rc && n < max) {
		fg_error cerr;
		rc = capture_once(&caps[n], src, commit, &cerr);
		if (rc == FG_EFETCH && !v) {
			rc = new_verdict(&v, 0, commit->id, commit->date, err);
			if (!rc)
				skip(v, NULL, cerr.message);
			break;
		}
		if (rc == FG_EFETCH) {
			/* The captures before still stand. */
			size_t len = strlen(v->reason);
			snprintf(v->reason + len, sizeof(v->reason) - len, "; capture %zu failed: %s", n + 1, cerr.message);
			rc = 0;
			break;
		}
		if (rc) {
			*err = cerr;
			break;
		}
		paths[n] = fg_capture_path(caps[n]);
		n++;
		fg_verdict_free(v);
		v = NULL;
		rc = judge_captures(&v, j, paths, n, max, commit, err);
		if (!rc && src->on_capture)
			src->on_capture(src->capture_ctx, n, max, v);
		/* An unusable first capture is the command's fault, not chance. */
		if (rc || v->kind != FG_VERDICT_SKIP || (n == 1 && v->basis == FG_BASIS_INPUT))
			break;
	}
	const char *dir;
	fg_error kerr;
	if (!rc && n && keeping(j, &dir) && fg_capture_keep(dir, src->capture, commit->id, paths, n, &kerr))
		snprintf(v->profiles[0].warning, sizeof(v->profiles[0].warning),
		         "the captures are not kept for the summary: %.180s", kerr.message);
	for (size_t i = 0; caps && i < n; i++)
		fg_capture_free(caps[i]);
	free(caps);
	free(paths);
	if (rc) {
		fg_verdict_free(v);
		return rc;
	}
	*out = v;
	return 0;
}

int fg_verdict_load_kept(fg_capture_kept **out, const fg_verdict_judge *j, const fg_verdict_source *src,
                         const char *commit, fg_error *err)
{
	*out = NULL;
	const char *dir;
	return keeping(j, &dir) ? fg_capture_kept_load(out, dir, src->capture, commit, err) : 0;
}

int fg_verdict_judge_kept(fg_verdict **out, fg_verdict_judge *j, const fg_capture_kept *kept,
                          const fg_repo_commit *commit, fg_error *err)
{
	*out = NULL;
	if (!kept) {
		int rc = new_verdict(out, 0, commit->id, commit->date, err);
		if (!rc)
			skip(*out, NULL, "no capture of this commit is kept (the download cache keeps a bisection's "
			     "captures; none with --no-cache)");
		return rc;
	}
	size_t n = fg_capture_kept_count(kept);
	const char **paths = calloc(n, sizeof(*paths));
	if (!paths)
		return fg_error_oom(err, NULL);
	for (size_t i = 0; i < n; i++)
		paths[i] = fg_capture_kept_path(kept, i);
	/* The last look of as many as were kept: the verdict the bisection
	 * reached at an earlier look of more stands (its boundary was
	 * stricter). */
	int rc = judge_captures(out, j, paths, n, n, commit, err);
	free(paths);
	return rc;
}

int fg_verdict_judge_commit(fg_verdict **out, fg_verdict_judge *j, const fg_verdict_source *src,
                            const fg_repo_commit *commit, fg_error *err)
{
	*out = NULL;
	if (src->capture)
		return judge_capture(out, j, src, commit, err);
	if (src->profile) {
		char *source;
		int rc = fg_verdict_expand(&source, src->profile, commit, err);
		if (rc)
			return rc;
		fg_verdict_input in = { .source = source };
		rc = fg_verdict_judge_inputs(out, j, &in, 1, commit->id, commit->date, err);
		free(source);
		return rc;
	}
	const fg_runs_run *run;
	int rc = fg_runs_selection_find(&run, src->runs, commit->id, err);
	if (rc)
		return rc;
	if (!run) {
		if ((rc = new_verdict(out, 0, commit->id, commit->date, err)))
			return rc;
		skip(*out, NULL, "no run for this commit in the runs file");
		return 0;
	}
	rc = fg_verdict_judge_run(out, j, run, err);
	if (!rc)
		snprintf((*out)->commit, sizeof((*out)->commit), "%s", commit->id);
	return rc;
}

int fg_verdict_load_runs(fg_runs **out, const char *location, const fg_fetch_options *fetch,
                         char warning[256], fg_error *err)
{
	warning[0] = '\0';
	if (!fg_url_is(location))
		return fg_runs_load(out, location, NULL, err);
	/* A runs file grows (a new day, a new build) under the same URL: it is
	 * never cached, or a day search would read it stale for ever.  It is
	 * a few KB; the profiles it lists are what the cache is for. */
	fg_fetch_options uncached;
	if (fetch)
		uncached = *fetch;
	else
		fg_fetch_options_init(&uncached);
	uncached.no_cache = true;
	fg_fetch_result fetched;
	int rc = fg_fetch(&fetched, location, &uncached, err);
	snprintf(warning, 256, "%s", fetched.warning);
	if (!rc) {
		/* A file:// runs file is a local file: its locations are paths. */
		bool local = !strncasecmp(location, "file:", 5);
		char *shown = fg_url_redact(location);
		if (!shown)
			rc = fg_error_oom(err, NULL);
		else
			rc = fg_runs_load(out, fetched.path, local ? fetched.path : shown, err);
		free(shown);
	}
	fg_fetch_result_clear(&fetched);
	return rc;
}
