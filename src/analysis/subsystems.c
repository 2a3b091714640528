#include "analysis/subsystems.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "base/hashtab.h"
#include "base/idarray.h"
#include "base/stats.h"

#define RULE_UNKNOWN UINT16_MAX /* rule cache: not asked yet (FG_RULES_MAX < it) */
#define KEY_USED (UINT64_C(1) << 63) /* in every used key: a zero slot is empty */

/* An open frame of the current path, at depth = its index. */
struct level {
	uint64_t total;
	uint64_t children;  /* sum of the children's totals */
	uint32_t name;
	uint16_t rule;      /* the best (lowest) rule matching this frame or an ancestor */
};

/* Self samples per (subsystem, frame name), for the top frames. */
struct frame_count {
	uint64_t key;       /* KEY_USED | rule << 32 | name; 0 when free */
	uint64_t samples;
};

struct fg_subsystems {
	fg_rules *rules;
	const fg_names *names;
	fg_subsystems_options opts;
	uint16_t other;           /* = the number of rules */
	uint64_t total;
	uint64_t *samples;        /* by subsystem, other last */
	uint16_t *rule_of;        /* by name id: the first rule it matches, cached */
	uint32_t names_cap;
	struct level *levels;
	uint32_t depth, levels_cap; /* depth = open levels */
	fg_hashtab counts;        /* of struct frame_count */
	/* Each ended profile's counts, a row of other + 2 (the subsystems, then
	 * its total), and the pooled counts at the last end. */
	uint64_t *rows, *at_end;
	size_t nrows, rows_cap;
};

void fg_subsystems_options_init(fg_subsystems_options *opts)
{
	memset(opts, 0, sizeof(*opts));
}

int fg_subsystems_new(fg_subsystems **out, fg_rules *rules, const fg_names *names,
		      const fg_subsystems_options *opts, fg_error *err)
{
	fg_subsystems *s = calloc(1, sizeof(*s));
	if (!s)
		return fg_error_oom(err, NULL);
	s->rules = rules;
	s->names = names;
	if (opts)
		s->opts = *opts;
	s->other = (uint16_t)fg_rules_count(rules);
	s->samples = calloc((size_t)s->other + 1, sizeof(*s->samples));
	s->at_end = calloc((size_t)s->other + 2, sizeof(*s->at_end));
	if (!s->samples || !s->at_end) {
		free(s->samples);
		free(s->at_end);
		free(s);
		return fg_error_oom(err, NULL);
	}
	*out = s;
	return 0;
}

void fg_subsystems_free(fg_subsystems *s)
{
	if (!s)
		return;
	free(s->samples);
	free(s->rows);
	free(s->at_end);
	free(s->rule_of);
	free(s->levels);
	fg_hashtab_free(&s->counts);
	free(s);
}

void fg_subsystems_reset(fg_subsystems *s)
{
	s->total = 0;
	memset(s->samples, 0, ((size_t)s->other + 1) * sizeof(*s->samples));
	memset(s->at_end, 0, ((size_t)s->other + 2) * sizeof(*s->at_end));
	s->nrows = 0;
	s->depth = 0;
	fg_hashtab_clear(&s->counts, sizeof(struct frame_count));
}

static uint64_t key_hash(uint64_t key)
{
	/* Fibonacci hashing: name ids are dense, the high bits spread them. */
	return (key * UINT64_C(0x9E3779B97F4A7C15)) >> 32;
}

static inline bool stored_hash(uint64_t *hash, const void *slot, const void *ctx)
{
	(void)ctx;
	uint64_t key = ((const struct frame_count *)slot)->key;
	*hash = key_hash(key);
	return key != 0;
}

static inline bool stop(const void *slot, const void *key)
{
	uint64_t k = ((const struct frame_count *)slot)->key;
	return k == 0 || k == *(const uint64_t *)key;
}

static int count_frame(fg_subsystems *s, uint16_t rule, uint32_t name, uint64_t self, fg_error *err)
{
	if (s->opts.map) {
		int rc = s->opts.map(s->opts.map_ctx, name, &name, err);
		if (rc)
			return rc;
	}
	int rc = fg_hashtab_reserve(&s->counts, sizeof(struct frame_count), stored_hash, NULL, err);
	if (rc < 0)
		return rc;
	uint64_t key = KEY_USED | (uint64_t)rule << 32 | name;
	struct frame_count *c = fg_hashtab_probe(&s->counts, sizeof(*c), key_hash(key), stop, &key);
	if (!c->key) {
		*c = (struct frame_count){ key, 0 };
		s->counts.count++;
	}
	c->samples += self;
	return 0;
}

/* Closes the frames at depth >= d: their self samples are known now. */
static int close_to(fg_subsystems *s, uint32_t d, fg_error *err)
{
	while (s->depth > d) {
		const struct level *l = &s->levels[--s->depth];
		uint64_t self = l->total - l->children;
		s->samples[l->rule] += self;
		if (self && s->opts.top_frames) {
			int rc = count_frame(s, l->rule, l->name, self, err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

__attribute__((noinline)) static int name_rule(uint16_t *rule, fg_subsystems *s, uint32_t name, fg_error *err)
{
	if (name >= s->names_cap) {
		/* RULE_UNKNOWN is all ones: fill bytes 0xff. */
		uint32_t cap = fg_idarray_capacity(s->names_cap, name);
		if (fg_idarray_resize(&s->rule_of, sizeof(*s->rule_of), s->names_cap, cap, 0xff))
			return fg_error_oom(err, NULL);
		s->names_cap = cap;
	}
	if (s->rule_of[name] == RULE_UNKNOWN) {
		size_t match;
		int rc = fg_rules_match(&match, s->rules, s->names, name, err);
		if (rc)
			return rc;
		s->rule_of[name] = (uint16_t)match;
	}
	*rule = s->rule_of[name];
	return 0;
}

/* The rule of a name, from the cache when it has it. */
static inline int rule_of(uint16_t *rule, fg_subsystems *s, uint32_t name, fg_error *err)
{
	if (name < s->names_cap && s->rule_of[name] != RULE_UNKNOWN) {
		*rule = s->rule_of[name];
		return 0;
	}
	return name_rule(rule, s, name, err);
}

static int add_frame(fg_subsystems *s, const fg_frame *f, fg_error *err)
{
	if (f->depth > s->depth)
		return fg_error_set(err, FG_EINTERNAL, NULL, "frame at depth %u without a parent", f->depth);
	int rc = close_to(s, f->depth, err);
	if (rc)
		return rc;
	uint16_t rule = s->other; /* the root ("all") is no frame of the program */
	if (f->depth > 0) {
		struct level *parent = &s->levels[f->depth - 1];
		parent->children += f->total;
		if ((rc = rule_of(&rule, s, f->name, err)))
			return rc;
		if (parent->rule < rule)
			rule = parent->rule;
	} else {
		s->total += f->total;
	}
	if (s->depth == s->levels_cap) {
		uint32_t cap = s->levels_cap ? s->levels_cap * 2 : 128;
		struct level *l = realloc(s->levels, (size_t)cap * sizeof(*l));
		if (!l)
			return fg_error_oom(err, NULL);
		s->levels = l;
		s->levels_cap = cap;
	}
	s->levels[s->depth++] = (struct level){ f->total, 0, f->name, rule };
	return 0;
}

/* A profile's end: its counts are the pooled ones less those at the last end. */
static int end_profile(fg_subsystems *s, fg_error *err)
{
	size_t w = (size_t)s->other + 2;
	if (s->nrows == s->rows_cap) {
		size_t cap = s->rows_cap ? 2 * s->rows_cap : 4;
		uint64_t *r = realloc(s->rows, cap * w * sizeof(*r));
		if (!r)
			return fg_error_oom(err, NULL);
		s->rows = r;
		s->rows_cap = cap;
	}
	uint64_t *row = s->rows + s->nrows++ * w;
	for (size_t i = 0; i + 1 < w; i++) {
		row[i] = s->samples[i] - s->at_end[i];
		s->at_end[i] = s->samples[i];
	}
	row[w - 1] = s->total - s->at_end[w - 1];
	s->at_end[w - 1] = s->total;
	return 0;
}

int fg_subsystems_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	fg_subsystems *s = ctx;
	if (!frames) {
		int rc = close_to(s, 0, err);
		return rc ? rc : end_profile(s, err);
	}
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		rc = add_frame(s, &frames[i], err);
	return rc;
}

int fg_subsystems_stack(void *ctx, const fg_stack *st, fg_error *err)
{
	fg_subsystems *s = ctx;
	/* The stack's samples are its leaf's self samples: they go to the best
	 * rule matching any frame of it. */
	uint16_t best = s->other;
	for (size_t i = 1; i <= st->depth; i++) {
		uint16_t rule;
		int rc = rule_of(&rule, s, st->names[i], err);
		if (rc)
			return rc;
		if (rule < best)
			best = rule;
	}
	s->total += st->count;
	s->samples[best] += st->count;
	if (st->count && s->opts.top_frames)
		return count_frame(s, best, st->names[st->depth], st->count, err);
	return 0;
}

uint64_t fg_subsystems_total(const fg_subsystems *s)
{
	return s->total;
}

size_t fg_subsystems_count(const fg_subsystems *s)
{
	return (size_t)s->other + 1;
}

const char *fg_subsystems_name(const fg_subsystems *s, size_t i)
{
	return fg_rules_name(s->rules, i);
}

uint64_t fg_subsystems_samples(const fg_subsystems *s, size_t i)
{
	return s->samples[i];
}

/* samples * 10000 / total, rounded down, and the remainder of that division.
 * 128-bit so that --total profiles (bytes, nanoseconds) cannot overflow. */
static uint32_t floor_share(uint64_t *remainder, uint64_t samples, uint64_t total)
{
	unsigned __int128 scaled = (unsigned __int128)samples * 10000;
	*remainder = (uint64_t)(scaled % total);
	return (uint32_t)(scaled / total);
}

void fg_subsystems_shares(uint32_t *out, const fg_subsystems *s)
{
	size_t n = fg_subsystems_count(s);
	uint64_t rem;
	uint32_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		out[i] = s->total ? floor_share(&rem, s->samples[i], s->total) : 0;
		sum += out[i];
	}
	if (!s->total)
		return;
	/* The rounded-down shares miss fewer hundredths than there are
	 * subsystems; each goes to the largest remainder not yet served. */
	for (; sum < 10000; sum++) {
		size_t best = n;
		uint64_t best_rem = 0;
		for (size_t i = 0; i < n; i++) {
			uint32_t floor = floor_share(&rem, s->samples[i], s->total);
			if (out[i] == floor && rem > best_rem) {
				best = i;
				best_rem = rem;
			}
		}
		if (best == n)
			break;
		out[best]++;
	}
}

static int entry_before(const fg_subsystems *s, const fg_subsystems_entry *a, const fg_subsystems_entry *b)
{
	if (a->samples != b->samples)
		return a->samples > b->samples;
	return strcmp(fg_names_get(s->names, a->name), fg_names_get(s->names, b->name)) < 0;
}

size_t fg_subsystems_top_frames(fg_subsystems_entry *out, size_t max, const fg_subsystems *s, size_t i)
{
	if (max > s->opts.top_frames)
		max = s->opts.top_frames;
	size_t n = 0;
	const struct frame_count *counts = s->counts.slots;
	for (uint32_t c = 0; c < fg_hashtab_capacity(&s->counts) && max; c++) {
		const struct frame_count *fc = &counts[c];
		if (!fc->key || (fc->key & ~KEY_USED) >> 32 != i)
			continue;
		fg_subsystems_entry e = { (uint32_t)fc->key, fc->samples };
		/* Insertion into the short sorted list. */
		size_t j = n < max ? n++ : max;
		while (j > 0 && entry_before(s, &e, &out[j - 1])) {
			if (j < max)
				out[j] = out[j - 1];
			j--;
		}
		if (j < max)
			out[j] = e;
	}
	return n;
}

size_t fg_subsystems_profiles(const fg_subsystems *s)
{
	return s->nrows;
}

uint64_t fg_subsystems_profile_samples(const fg_subsystems *s, size_t p, size_t i)
{
	return s->rows[p * ((size_t)s->other + 2) + i];
}

uint64_t fg_subsystems_profile_total(const fg_subsystems *s, size_t p)
{
	return s->rows[p * ((size_t)s->other + 2) + s->other + 1];
}

/* Pearson's chi-square of subsystem i's counts among the profiles [from,
 * to) against their pooled share, with its degrees of freedom (profiles - 1
 * when the share is strictly between 0 and 100%, else 0: no spread shows). */
static void side_dispersion(double *chi2, unsigned *df, const fg_subsystems *s, size_t i, size_t from, size_t to,
			    uint64_t *k, uint64_t *n)
{
	uint64_t K = 0, N = 0;
	for (size_t p = from; p < to; p++) {
		k[p - from] = fg_subsystems_profile_samples(s, p, i);
		n[p - from] = fg_subsystems_profile_total(s, p);
		K += k[p - from];
		N += n[p - from];
	}
	fg_dispersion d;
	fg_stats_overdispersion(&d, k, n, to - from);
	bool spread = to - from >= 2 && K > 0 && K < N;
	*chi2 = spread ? d.chi2 : 0.0;
	*df = spread ? (unsigned)(to - from - 1) : 0;
}

int fg_subsystems_compare(fg_subsystems_change *out, unsigned *node_df, size_t *tested, const fg_subsystems *s,
			  size_t nbase, fg_error *err)
{
	size_t m = s->nrows, count = (size_t)s->other + 1;
	if (nbase == 0 || nbase >= m)
		return fg_error_set(err, FG_EUSAGE, NULL, "a comparison needs a base and a candidate profile");
	uint64_t *k = malloc(m * sizeof(*k)), *n = malloc(m * sizeof(*n));
	double *chi2 = calloc(count, sizeof(*chi2));
	unsigned *df = calloc(count, sizeof(*df));
	if (!k || !n || !chi2 || !df) {
		free(k);
		free(n);
		free(chi2);
		free(df);
		return fg_error_oom(err, NULL);
	}
	/* Each subsystem's spread among the nodes of each side, summed over the
	 * sides; the common over-dispersion, all subsystems' chi-square over
	 * their degrees of freedom, is each one's prior (as diff's frames). */
	double chi2_all = 0.0;
	unsigned df_all = 0;
	for (size_t i = 0; i < count; i++) {
		double c[2];
		unsigned d[2];
		side_dispersion(&c[0], &d[0], s, i, 0, nbase, k, n);
		side_dispersion(&c[1], &d[1], s, i, nbase, m, k, n);
		chi2[i] = c[0] + c[1];
		df[i] = d[0] + d[1];
		chi2_all += chi2[i];
		df_all += df[i];
	}
	double phi0 = df_all ? fmax(1.0, chi2_all / df_all) : 1.0;
	uint64_t total[2] = { 0, 0 }, in[2];
	for (size_t p = 0; p < m; p++)
		total[p >= nbase] += fg_subsystems_profile_total(s, p);
	/* The family: the subsystems that hold a sample on either side. */
	*tested = 0;
	for (size_t i = 0; i < count; i++)
		for (size_t p = 0; p < m; p++)
			if (fg_subsystems_profile_samples(s, p, i)) {
				++*tested;
				break;
			}
	for (size_t i = 0; i < count; i++) {
		in[0] = in[1] = 0;
		for (size_t p = 0; p < m; p++)
			in[p >= nbase] += fg_subsystems_profile_samples(s, p, i);
		fg_subsystems_change *c = &out[i];
		*c = (fg_subsystems_change){ .samples = { in[0], in[1] }, .base = fg_stats_percent(in[0], total[0]),
					     .candidate = fg_stats_percent(in[1], total[1]), .phi = 1.0, .p = 1.0 };
		c->delta = c->candidate - c->base;
		if (df_all)
			c->phi = fg_stats_phi_moderated(chi2[i], (double)df[i], phi0, FG_DIFF_PHI_PRIOR_DF);
		double nb = (double)total[0], nc = (double)total[1];
		if (nb > 0 && nc > 0)
			c->noise = fg_stats_change_noise((double)in[0], nb, (double)in[1], nc, c->phi, 0.0);
		c->z = c->noise > 0.0 ? c->delta / c->noise : 0.0;
		c->p = c->noise > 0.0 ? fmin(1.0, (double)*tested * erfc(fabs(c->z) / sqrt(2.0))) : 1.0;
		c->beyond = c->p <= FG_SUBSYSTEMS_ALPHA && fabs(c->delta) >= FG_DIFF_FLOOR;
	}
	*node_df = df_all;
	free(k);
	free(n);
	free(chi2);
	free(df);
	return 0;
}
