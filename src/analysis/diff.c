#include "analysis/diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/match.h"
#include "model/namemap.h"
#include "base/stats.h"
#include "analysis/top.h"

const char *const fg_diff_default_ignore[] = {
	"thread_native_entry",
	"start_thread",
	"Thread::call_run",
	"Executors$RunnableAdapter.call",
	"ForkJoinTask",
};
const size_t fg_diff_default_ignore_count = sizeof(fg_diff_default_ignore) / sizeof(fg_diff_default_ignore[0]);

int fg_diff_ignore_list(const char ***out, size_t *n, const char *const *given, size_t ngiven, bool defaults,
			fg_error *err)
{
	size_t all = ngiven + (defaults ? fg_diff_default_ignore_count : 0), m = 0;
	const char **list = malloc((all ? all : 1) * sizeof(*list));
	*out = NULL;
	*n = 0;
	if (!list)
		return fg_error_oom(err, NULL);
	for (size_t i = 0; i < all; i++) {
		const char *pat = i < ngiven ? given[i] : fg_diff_default_ignore[i - ngiven];
		size_t k = 0;
		while (k < m && strcmp(list[k], pat))
			k++;
		if (k == m)
			list[m++] = pat;
	}
	if (m > FG_MATCH_MAX_PATTERNS) {
		free(list);
		return fg_error_set(err, FG_EUSAGE, NULL, "at most %d --ignore patterns in all", FG_MATCH_MAX_PATTERNS);
	}
	*out = list;
	*n = m;
	return 0;
}

/* One closed profile: the names it holds with their counts. */
struct profile {
	fg_diff_side side;
	uint64_t total;
	fg_top_entry *entries;
	size_t n;
};

/* Per node of the pooled base tree: the counts pooled before the profile
 * read last (so that each profile's own counts are the difference) and the
 * lowest and highest share of the path, inclusive and self, among the base
 * profiles closed so far. */
struct path_noise {
	uint64_t *before_total, *before_self;
	float *lo[2], *hi[2];   /* [0] inclusive, [1] self */
	uint32_t size, cap;     /* nodes covered, allocated */
	size_t profiles;        /* base profiles closed */
};

struct fg_diff {
	fg_names *names;
	fg_diff_options opts;
	fg_namemap *map;
	fg_matcher *ignore;
	fg_top *top;           /* the open profile's analysis, NULL between profiles */
	fg_diff_side side;     /* of the open profile */
	fg_tree *trees[2];
	struct path_noise noise;
	struct profile *profiles;
	size_t nprofiles, cap;
	uint64_t side_total[2]; /* pooled samples per side, checked against overflow */
};

void fg_diff_options_init(fg_diff_options *opts)
{
	*opts = (fg_diff_options){
		.min_delta = 0.0,
		.fdr = 0.05,
		.run_noise = FG_DIFF_RUN_NOISE,
		.ignore = fg_diff_default_ignore,
		.nignore = fg_diff_default_ignore_count,
	};
}

int fg_diff_new(fg_diff **out, fg_names *names, const fg_diff_options *opts, fg_error *err)
{
	fg_diff *d = calloc(1, sizeof(*d));
	if (!d)
		return fg_error_oom(err, NULL);
	d->names = names;
	d->opts = *opts;
	int rc = 0;
	if (!opts->raw)
		rc = fg_namemap_new(&d->map, names, err);
	if (!rc && opts->nignore) {
		fg_match_options mo = { .regex = false, .raw = opts->raw };
		rc = fg_matcher_new(&d->ignore, opts->ignore, opts->nignore, &mo, err);
	}
	if (!rc && opts->trees) {
		uint32_t all;
		rc = fg_names_intern(&all, names, "all", 3, err);
		for (int s = 0; s < 2 && !rc; s++)
			rc = fg_tree_new(&d->trees[s], all, err);
	}
	if (rc) {
		fg_diff_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void fg_diff_free(fg_diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nprofiles; i++)
		free(d->profiles[i].entries);
	free(d->profiles);
	free(d->noise.before_total);
	free(d->noise.before_self);
	for (int k = 0; k < 2; k++) {
		free(d->noise.lo[k]);
		free(d->noise.hi[k]);
	}
	fg_top_free(d->top);
	fg_tree_free(d->trees[0]);
	fg_tree_free(d->trees[1]);
	fg_matcher_free(d->ignore);
	fg_namemap_free(d->map);
	free(d);
}

static int update_noise(fg_diff *d, uint64_t total, bool first, fg_error *err);

/* The next profile is on side.  The path ranges start with the second base
 * profile: the first one's shares are then taken from the tree as it is. */
static int start_profile(fg_diff *d, fg_diff_side side, fg_error *err)
{
	d->side = side;
	if (d->trees[FG_DIFF_BASE] && side == FG_DIFF_BASE && !d->noise.profiles &&
	    fg_diff_profiles(d, FG_DIFF_BASE) == 1)
		return update_noise(d, fg_diff_total(d, FG_DIFF_BASE), true, err);
	return 0;
}

int fg_diff_begin(fg_diff *d, fg_diff_side side, fg_error *err)
{
	int rc = start_profile(d, side, err);
	if (rc)
		return rc;
	/* A fresh fg_top per profile: its counts are per profile, and the name
	 * map it caches is cheap to rebuild (fg_namemap caches the real work). */
	fg_top_free(d->top);
	d->top = NULL;
	return fg_top_new(&d->top, d->map ? fg_namemap_get : NULL, d->map, err);
}

/* A batch of a profile's frames into its analysis and, with trees, a tree
 * (normalised names unless map is NULL).  The end call finishes the tree:
 * self counts are recomputed from the totals, so pooling goes on. */
static int add_batch(fg_top *top, fg_tree *tree, fg_namemap *map, const fg_frame *frames, size_t n, fg_error *err)
{
	int rc = fg_top_frames(top, frames, n, err);
	if (!rc && tree && map)
		rc = fg_tree_add_mapped_frames(tree, frames, n, fg_namemap_get, map, err);
	else if (!rc && tree)
		rc = fg_tree_add_frames(tree, frames, n, err);
	return rc;
}

/* Closes the profile on d->side whose total and names (entries, taken:
 * freed on failure) are given, its frames being in the side's tree. */
static int close_profile(fg_diff *d, uint64_t total, fg_top_entry *entries, size_t n, fg_error *err)
{
	int rc = 0;
	/* The ranges are kept from the second base profile on: one base has
	 * no spread, and the arrays cost as much as the tree. */
	if (d->trees[d->side] && d->side == FG_DIFF_BASE && d->noise.profiles)
		rc = update_noise(d, total, false, err);
	/* A frame's pooled count is at most its side's pooled total: checking
	 * the totals keeps every sum of the pooling in 64 bits. */
	if (!rc && total > UINT64_MAX - d->side_total[d->side])
		rc = fg_error_set(err, FG_EINVALID, NULL, "the pooled sample counts of the %s profiles overflow 64 bits",
				  d->side == FG_DIFF_BASE ? "base" : "candidate");
	if (!rc && d->nprofiles == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 8;
		struct profile *p = realloc(d->profiles, cap * sizeof(*p));
		if (!p)
			rc = fg_error_oom(err, NULL);
		else
			d->profiles = p, d->cap = cap;
	}
	if (rc) {
		free(entries);
		return rc;
	}
	d->side_total[d->side] += total;
	d->profiles[d->nprofiles++] = (struct profile){ .side = d->side, .total = total, .entries = entries, .n = n };
	return 0;
}

static int grow_noise(struct path_noise *p, uint32_t size)
{
	if (size <= p->cap)
		return 0;
	uint32_t cap = p->cap ? p->cap : 1024;
	while (cap < size)
		cap = cap > UINT32_MAX / 2 ? UINT32_MAX : cap * 2;
	void *a[6] = { p->before_total, p->before_self, p->lo[0], p->lo[1], p->hi[0], p->hi[1] };
	size_t width[6] = { 8, 8, 4, 4, 4, 4 };
	for (int k = 0; k < 6; k++) {
		void *grown = realloc(a[k], (size_t)cap * width[k]);
		if (!grown)
			return -1;
		a[k] = grown;
		/* Stored at once, so that a later failure leaves nothing dangling. */
		p->before_total = a[0], p->before_self = a[1], p->lo[0] = a[2], p->lo[1] = a[3];
		p->hi[0] = a[4], p->hi[1] = a[5];
	}
	p->cap = cap;
	return 0;
}

/* Folds the base profile closed last (its counts: the pooled tree's minus
 * those before it) into the range of every path; a path it lacks has a 0%
 * share.  With first, the tree holds that one profile only. */
static int update_noise(fg_diff *d, uint64_t total, bool first, fg_error *err)
{
	struct path_noise *p = &d->noise;
	const fg_tree *t = d->trees[FG_DIFF_BASE];
	uint32_t size = fg_tree_size(t);
	if (grow_noise(p, size))
		return fg_error_oom(err, NULL);
	for (uint32_t i = 0; i < size; i++) {
		const fg_tree_node *n = fg_tree_node_at(t, i);
		bool seen = i < p->size;
		uint64_t count[2] = { n->total - (seen ? p->before_total[i] : 0), n->self - (seen ? p->before_self[i] : 0) };
		for (int k = 0; k < 2; k++) {
			float s = (float)fg_stats_percent(count[k], total);
			if (!seen) /* the earlier profiles lacked the path: 0% */
				p->lo[k][i] = p->hi[k][i] = first ? s : 0.0f;
			p->lo[k][i] = fminf(p->lo[k][i], s);
			p->hi[k][i] = fmaxf(p->hi[k][i], s);
		}
		p->before_total[i] = n->total;
		p->before_self[i] = n->self;
	}
	p->size = size;
	p->profiles = first ? 1 : p->profiles + 1;
	return 0;
}

int fg_diff_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	fg_diff *d = ctx;
	if (!d->top)
		return fg_error_set(err, FG_EINTERNAL, NULL, "diff: frame outside a profile");
	int rc = add_batch(d->top, d->trees[d->side], d->map, frames, n, err);
	if (rc || frames)
		return rc;
	fg_top_entry *entries;
	size_t count;
	rc = fg_top_entries(&entries, &count, d->top, false, err);
	if (!rc)
		rc = close_profile(d, fg_top_total(d->top), entries, count, err);
	fg_top_free(d->top);
	d->top = NULL;
	return rc;
}

struct fg_diff_part {
	fg_names *names;
	fg_namemap *map;   /* NULL with raw names */
	fg_top *top;       /* NULL once closed */
	fg_tree *tree;     /* NULL without trees */
	uint64_t total;
	fg_top_entry *entries;
	size_t n;
	bool closed;       /* read to its end and not yet added */
};

int fg_diff_part_new(fg_diff_part **out, const fg_diff *d, fg_namemap_cache *cache, fg_error *err)
{
	fg_diff_part *p = calloc(1, sizeof(*p));
	if (!p)
		return fg_error_oom(err, NULL);
	/* Made as fg_diff_new makes the diff's, so that the part's names are
	 * interned in the order reading into the diff would intern them. */
	int rc = fg_names_new(&p->names, err);
	if (!rc && !d->opts.raw)
		rc = fg_namemap_new_cached(&p->map, p->names, cache, err);
	if (!rc && d->opts.trees) {
		uint32_t all;
		rc = fg_names_intern(&all, p->names, "all", 3, err);
		if (!rc)
			rc = fg_tree_new(&p->tree, all, err);
	}
	if (!rc)
		rc = fg_top_new(&p->top, p->map ? fg_namemap_get : NULL, p->map, err);
	if (rc) {
		fg_diff_part_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void fg_diff_part_free(fg_diff_part *p)
{
	if (!p)
		return;
	free(p->entries);
	fg_tree_free(p->tree);
	fg_top_free(p->top);
	fg_namemap_free(p->map);
	fg_names_free(p->names);
	free(p);
}

fg_names *fg_diff_part_names(fg_diff_part *p)
{
	return p->names;
}

int fg_diff_part_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	fg_diff_part *p = ctx;
	if (!p->top)
		return fg_error_set(err, FG_EINTERNAL, NULL, "diff: frame after the end of a part");
	/* The tree is finished once pooled (fg_diff_add), not here. */
	int rc = add_batch(p->top, frames ? p->tree : NULL, p->map, frames, n, err);
	if (rc || frames)
		return rc;
	rc = fg_top_entries(&p->entries, &p->n, p->top, false, err);
	p->total = fg_top_total(p->top);
	p->closed = !rc;
	fg_top_free(p->top);
	p->top = NULL;
	return rc;
}

int fg_diff_add(fg_diff *d, fg_diff_side side, fg_diff_part *p, fg_error *err)
{
	if (!p->closed)
		return fg_error_set(err, FG_EINTERNAL, NULL, "diff: a part added before its end, or twice");
	p->closed = false;
	int rc = start_profile(d, side, err);
	/* The diff's ids: the part's names in the order the part interned
	 * them, so the new ones get the ids they would have got. */
	uint32_t count = fg_names_count(p->names);
	uint32_t *ids = rc ? NULL : malloc((count ? count : 1) * sizeof(*ids));
	if (!rc && !ids)
		rc = fg_error_oom(err, NULL);
	for (uint32_t i = 0; i < count && !rc; i++) {
		rc = fg_names_intern(&ids[i], d->names, fg_names_get(p->names, i), fg_names_length(p->names, i), err);
		/* The source file the profile names for a native frame goes
		 * along (hotfiles looks it up by name). */
		const char *file = rc ? NULL : fg_names_file(p->names, i);
		if (file)
			rc = fg_names_set_file(d->names, ids[i], file, strlen(file), err);
	}
	for (size_t k = 0; k < p->n && !rc; k++)
		p->entries[k].name = ids[p->entries[k].name];
	if (!rc)
		fg_top_entries_sort(p->entries, p->n, false);
	if (!rc && p->tree && fg_tree_is_empty(d->trees[side])) {
		/* The side's first profile: its tree is the side's, renamed. */
		rc = fg_tree_rename(p->tree, ids, err);
		if (!rc) {
			fg_tree_free(d->trees[side]);
			d->trees[side] = p->tree;
			p->tree = NULL;
		}
	} else if (!rc && p->tree) {
		rc = fg_tree_merge(d->trees[side], p->tree, ids, err);
	}
	if (!rc && d->trees[side])
		rc = fg_tree_finish(d->trees[side], err);
	free(ids);
	if (!rc) {
		rc = close_profile(d, p->total, p->entries, p->n, err);
		p->entries = NULL;
		p->n = 0;
	}
	return rc;
}

size_t fg_diff_profiles(const fg_diff *d, fg_diff_side side)
{
	size_t n = 0;
	for (size_t i = 0; i < d->nprofiles; i++)
		n += d->profiles[i].side == side;
	return n;
}

uint64_t fg_diff_total(const fg_diff *d, fg_diff_side side)
{
	uint64_t t = 0;
	for (size_t i = 0; i < d->nprofiles; i++)
		if (d->profiles[i].side == side)
			t += d->profiles[i].total;
	return t;
}

double fg_diff_min_delta(const fg_diff *d)
{
	return d->opts.min_delta;
}

double fg_diff_fdr(const fg_diff *d)
{
	return d->opts.fdr;
}

size_t fg_diff_last_names(const fg_diff *d)
{
	return d->nprofiles ? d->profiles[d->nprofiles - 1].n : 0;
}

uint32_t fg_diff_last_name(const fg_diff *d, size_t i)
{
	return d->profiles[d->nprofiles - 1].entries[i].name;
}

const fg_tree *fg_diff_tree(const fg_diff *d, fg_diff_side side)
{
	return d->trees[side];
}

float fg_diff_path_noise(const fg_diff *d, uint32_t node, bool self)
{
	const struct path_noise *p = &d->noise;
	if (p->profiles < 2 || node >= p->size)
		return 0.0f;
	return p->hi[self][node] - p->lo[self][node];
}

static uint64_t count_of(bool self, const fg_top_entry *e)
{
	return self ? e->self_samples : e->samples;
}

static int ignored(bool *out, fg_diff *d, uint32_t name, fg_error *err)
{
	uint64_t mask = 0;
	int rc = d->ignore ? fg_matcher_test(&mask, d->ignore, d->names, name, err) : 0;
	*out = mask != 0;
	return rc;
}

/* The largest sure change first: |delta| less one noise (fg_diff_result);
 * then the more significant; then name bytes.  Peers have no noise: by
 * |delta|. */
static int compare_entries(const fg_diff_entry *x, const fg_diff_entry *y, const fg_names *names)
{
	double sx = fabs(x->delta) - x->noise, sy = fabs(y->delta) - y->noise;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	double zx = fabs(x->z), zy = fabs(y->z);
	if (zx != zy)
		return zx > zy ? -1 : 1;
	return strcmp(fg_names_get(names, x->name), fg_names_get(names, y->name));
}

/* Ties sort by name bytes, which need the names, and C11's qsort passes no
 * context: a bottom-up merge sort (stable, no recursion) instead. */
static int sort_entries(fg_diff_entry *e, size_t n, const fg_names *names, fg_error *err)
{
	if (n < 2)
		return 0;
	fg_diff_entry *tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return fg_error_oom(err, NULL);
	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = compare_entries(&e[j], &e[i], names) < 0 ? e[j++] : e[i++];
			while (i < mid)
				tmp[k++] = e[i++];
			while (j < hi)
				tmp[k++] = e[j++];
		}
		memcpy(e, tmp, n * sizeof(*e));
	}
	free(tmp);
	return 0;
}

/* Per name and side: pooled samples and the sum over the side's profiles of
 * k^2 / n (k the name's samples in a profile of n), from which the
 * chi-square of the side's profiles against their pooled share follows
 * without keeping the per-profile counts: sum (k - n p)^2 / n = sum k^2 / n
 * - K^2 / N. */
struct pooled {
	uint64_t *samples[2];
	double *sq[2];
	size_t profiles[2];
	uint64_t total[2];
};

static void pooled_free(struct pooled *p)
{
	for (int s = 0; s < 2; s++) {
		free(p->samples[s]);
		free(p->sq[s]);
	}
}

static int pool(struct pooled *p, const fg_diff *d, bool self, uint32_t nn, fg_error *err)
{
	size_t n = nn ? nn : 1;
	*p = (struct pooled){ { calloc(n, sizeof(uint64_t)), calloc(n, sizeof(uint64_t)) },
			      { calloc(n, sizeof(double)), calloc(n, sizeof(double)) }, { 0, 0 }, { 0, 0 } };
	if (!p->samples[0] || !p->samples[1] || !p->sq[0] || !p->sq[1]) {
		pooled_free(p);
		return fg_error_oom(err, NULL);
	}
	for (size_t i = 0; i < d->nprofiles; i++) {
		const struct profile *pr = &d->profiles[i];
		p->profiles[pr->side]++;
		p->total[pr->side] += pr->total;
		for (size_t k = 0; k < pr->n; k++) {
			uint64_t c = count_of(self, &pr->entries[k]);
			p->samples[pr->side][pr->entries[k].name] += c;
			if (c)
				p->sq[pr->side][pr->entries[k].name] += (double)c * (double)c / (double)pr->total;
		}
	}
	return 0;
}

/* The chi-square of a name's counts among the profiles of each side against
 * the side's pooled share, summed over the sides, and its degrees of
 * freedom (profiles - 1 of each side whose share is strictly between 0 and
 * 100%: a side that never or always holds the name shows no spread). */
static void name_dispersion(double *chi2, unsigned *df, const struct pooled *p, uint32_t name)
{
	*chi2 = 0.0;
	*df = 0;
	for (int s = 0; s < 2; s++) {
		double K = (double)p->samples[s][name], N = (double)p->total[s];
		if (p->profiles[s] < 2 || !(K > 0.0 && K < N))
			continue;
		double share = K / N, x = (p->sq[s][name] - K * share) / (share * (1.0 - share));
		*chi2 += x > 0.0 ? x : 0.0; /* rounding */
		*df += (unsigned)(p->profiles[s] - 1);
	}
}

/* One frame's test: its change against the standard error of no change,
 * sqrt(phi p (1 - p) (1/N_b + 1/N_c) + 2 (c p (1 - p))^2) with p the share
 * of both sides pooled, phi its own over-dispersion shrunk toward phi0 with
 * FG_DIFF_PHI_PRIOR_DF degrees of freedom, at least 1, and c the run-to-run
 * noise (run_noise / 100): each side is one run, whose share moves by that
 * however many samples it has. */
static void test_name(fg_diff_entry *e, const struct pooled *p, uint32_t name, double phi0, double run_noise)
{
	uint64_t b = p->samples[FG_DIFF_BASE][name], c = p->samples[FG_DIFF_CANDIDATE][name];
	double nb = (double)p->total[FG_DIFF_BASE], nc = (double)p->total[FG_DIFF_CANDIDATE];
	*e = (fg_diff_entry){ .name = name, .base = fg_stats_percent(b, p->total[FG_DIFF_BASE]),
			      .candidate = fg_stats_percent(c, p->total[FG_DIFF_CANDIDATE]), .q = 1.0, .phi = 1.0 };
	e->delta = e->candidate - e->base;
	e->status = !b ? FG_DIFF_NEW : !c ? FG_DIFF_GONE : FG_DIFF_CHANGED;
	double chi2;
	unsigned df;
	name_dispersion(&chi2, &df, p, name);
	e->phi = fg_stats_phi_moderated(chi2, (double)df, phi0, FG_DIFF_PHI_PRIOR_DF);
	double share = ((double)b + (double)c) / (nb + nc);
	double r = run_noise / 100.0 * share * (1.0 - share);
	e->run_noise = 100.0 * sqrt(2.0 * r * r);
	e->noise = fg_stats_change_noise((double)b, nb, (double)c, nc, e->phi, run_noise / 100.0);
	e->z = e->noise > 0.0 ? e->delta / e->noise : 0.0;
}

/* A tested frame's two-sided p-value and its index, for the step-up. */
struct ranked {
	double p;
	size_t i;
};

static int compare_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Benjamini-Hochberg adjusted p-values of the m entries' z:
 * q_(k) = min over j >= k of m p_(j) / j, capped at 1. */
static int adjust(fg_diff_entry *e, size_t m, fg_error *err)
{
	if (!m)
		return 0;
	struct ranked *r = malloc(m * sizeof(*r));
	if (!r)
		return fg_error_oom(err, NULL);
	for (size_t i = 0; i < m; i++)
		r[i] = (struct ranked){ erfc(fabs(e[i].z) / sqrt(2.0)), i };
	qsort(r, m, sizeof(*r), compare_ranked);
	double q = 1.0;
	for (size_t k = m; k-- > 0;) {
		double v = r[k].p * (double)m / (double)(k + 1);
		q = v < q ? v : q;
		e[r[k].i].q = q;
	}
	free(r);
	return 0;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The frames' common over-dispersion: the median over the frames that
 * every node of a side samples enough to show it (5 expected samples a
 * node) of chi2 / its median under sampling alone (Wilson-Hilferty:
 * df (1 - 2 / (9 df))^3), so that the frames the nodes disagree on most do
 * not set every frame's noise, nor rare frames (whose counts cannot spread)
 * hide it; 1 when no frame qualifies. */
static int common_phi(double *out, unsigned *node_df, const struct pooled *p, uint32_t nn, fg_error *err)
{
	*out = 1.0;
	*node_df = 0;
	for (int s = 0; s < 2; s++)
		*node_df += p->profiles[s] ? (unsigned)(p->profiles[s] - 1) : 0;
	if (!*node_df)
		return 0;
	double *v = malloc((nn ? nn : 1) * sizeof(*v));
	if (!v)
		return fg_error_oom(err, NULL);
	size_t m = 0;
	for (uint32_t name = 0; name < nn; name++) {
		bool enough = true;
		for (int s = 0; s < 2; s++)
			enough = enough && (double)p->samples[s][name] >= 5.0 * (double)p->profiles[s];
		double chi2;
		unsigned df;
		name_dispersion(&chi2, &df, p, name);
		if (enough && df)
			v[m++] = chi2 / (df * pow(1.0 - 2.0 / (9.0 * df), 3.0));
	}
	if (m) {
		qsort(v, m, sizeof(*v), compare_double);
		*out = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2.0;
	}
	free(v);
	return 0;
}

static void hide(fg_diff_hidden *h, const fg_diff_entry *e)
{
	if (!h->count++ || fabs(e->delta) > fabs(h->largest.delta))
		h->largest = *e;
}

int fg_diff_compute(fg_diff_result *out, fg_diff *d, fg_error *err)
{
	return fg_diff_compute_shares(out, d, d->opts.self, err);
}

int fg_diff_compute_shares(fg_diff_result *out, fg_diff *d, bool self, fg_error *err)
{
	*out = (fg_diff_result){ 0 };
	if (fg_diff_profiles(d, FG_DIFF_BASE) == 0 || fg_diff_profiles(d, FG_DIFF_CANDIDATE) == 0)
		return fg_error_set(err, FG_EUSAGE, NULL, "diff needs a profile on each side");
	uint32_t nn = fg_names_count(d->names);
	struct pooled p;
	int rc = pool(&p, d, self, nn, err);
	if (rc)
		return rc;
	fg_diff_result r = { .phi = 1.0 };
	rc = common_phi(&r.phi, &r.node_df, &p, nn, err);
	double phi0 = r.phi;
	/* Every frame tested, then the listed ones moved to their lists. */
	fg_diff_entry *tested = malloc((nn ? nn : 1) * sizeof(*tested));
	r.grew = malloc((nn ? nn : 1) * sizeof(*r.grew));
	r.shrank = malloc((nn ? nn : 1) * sizeof(*r.shrank));
	if (!rc && (!tested || !r.grew || !r.shrank))
		rc = fg_error_oom(err, NULL);
	for (uint32_t name = 0; name < nn && !rc; name++) {
		if (!p.samples[FG_DIFF_BASE][name] && !p.samples[FG_DIFF_CANDIDATE][name])
			continue;
		bool skip;
		rc = ignored(&skip, d, name, err);
		if (!rc && !skip)
			test_name(&tested[r.tested++], &p, name, phi0, d->opts.run_noise);
	}
	if (!rc)
		rc = adjust(tested, r.tested, err);
	double floor = d->opts.min_delta > FG_DIFF_FLOOR ? d->opts.min_delta : FG_DIFF_FLOOR;
	for (size_t i = 0; i < r.tested && !rc; i++) {
		const fg_diff_entry *e = &tested[i];
		if (e->delta == 0.0)
			continue;
		bool grew = e->delta > 0;
		/* min_delta is exceeded, the floor reached. */
		bool small = fabs(e->delta) < floor || (d->opts.min_delta > 0 && !(fabs(e->delta) > d->opts.min_delta));
		fg_diff_hidden *u = &r.within[!grew];
		if (!(e->q <= d->opts.fdr)) {
			/* Of the changes the floors let through, the one that would come first. */
			if (!small && (!u->count++ || compare_entries(e, &u->largest, d->names) < 0))
				u->largest = *e;
		} else if (small)
			hide(&r.hidden[!grew], e);
		else if (grew)
			r.grew[r.ngrew++] = *e;
		else
			r.shrank[r.nshrank++] = *e;
	}
	free(tested);
	pooled_free(&p);
	if (!rc)
		rc = sort_entries(r.grew, r.ngrew, d->names, err);
	if (!rc)
		rc = sort_entries(r.shrank, r.nshrank, d->names, err);
	if (rc) {
		fg_diff_result_free(&r);
		return rc;
	}
	*out = r;
	return 0;
}

void fg_diff_result_free(fg_diff_result *r)
{
	free(r->grew);
	free(r->shrank);
	*r = (fg_diff_result){ 0 };
}

void fg_diff_peers_free(fg_diff_peers *p)
{
	for (size_t i = 0; i < p->npeers; i++)
		free(p->peers[i].frames);
	free(p->peers);
	*p = (fg_diff_peers){ .outlier = -1 };
}

int fg_diff_peers_compute(fg_diff_peers *out, fg_diff *d, fg_error *err)
{
	*out = (fg_diff_peers){ .outlier = -1 };
	size_t n = fg_diff_profiles(d, FG_DIFF_BASE);
	if (n < 3)
		return fg_error_set(err, FG_EUSAGE, NULL, "peers needs at least three profiles");
	uint32_t nn = fg_names_count(d->names);
	/* Per name, the sum of the peers' shares; a peer's "others" mean is
	 * (sum - its share) / (n - 1), names it lacks counting as 0%. */
	double *sum = calloc(nn ? nn : 1, sizeof(*sum));
	double *share = calloc(nn ? nn : 1, sizeof(*share));
	fg_diff_entry *scratch = malloc((nn ? nn : 1) * sizeof(*scratch));
	out->peers = calloc(n, sizeof(*out->peers));
	int rc = !sum || !share || !scratch || !out->peers ? fg_error_oom(err, NULL) : 0;
	for (size_t i = 0; i < d->nprofiles && !rc; i++) {
		const struct profile *pr = &d->profiles[i];
		for (size_t k = 0; pr->side == FG_DIFF_BASE && k < pr->n; k++)
			sum[pr->entries[k].name] += fg_stats_percent(count_of(d->opts.self, &pr->entries[k]), pr->total);
	}
	double gate = d->opts.min_delta > 0 ? d->opts.min_delta : FG_DIFF_PEERS_MIN_DELTA;
	size_t peer = 0;
	for (size_t i = 0; i < d->nprofiles && !rc; i++) {
		const struct profile *pr = &d->profiles[i];
		if (pr->side != FG_DIFF_BASE)
			continue;
		fg_diff_peer *out_peer = &out->peers[peer];
		*out_peer = (fg_diff_peer){ .profile = peer };
		peer++;
		out->npeers = peer;
		for (size_t k = 0; k < pr->n; k++)
			share[pr->entries[k].name] = fg_stats_percent(count_of(d->opts.self, &pr->entries[k]), pr->total);
		size_t m = 0;
		for (uint32_t name = 0; name < nn && !rc; name++) {
			if (sum[name] == 0.0)
				continue;
			double others = (sum[name] - share[name]) / (double)(n - 1), delta = share[name] - others;
			bool skip;
			if (!(fabs(delta) > gate) || (rc = ignored(&skip, d, name, err)) || skip)
				continue;
			scratch[m++] = (fg_diff_entry){ .name = name, .base = others, .candidate = share[name],
							.delta = delta };
			out_peer->score += fabs(delta);
		}
		for (size_t k = 0; k < pr->n; k++)
			share[pr->entries[k].name] = 0.0;
		if (!rc)
			rc = sort_entries(scratch, m, d->names, err);
		if (!rc && m && !(out_peer->frames = malloc(m * sizeof(*out_peer->frames))))
			rc = fg_error_oom(err, NULL);
		for (size_t k = 0; k < m && !rc; k++)
			out_peer->frames[k] = (fg_diff_peer_frame){ scratch[k].name, scratch[k].candidate,
								   scratch[k].base, scratch[k].delta };
		out_peer->nframes = rc ? 0 : m;
	}
	free(sum);
	free(share);
	free(scratch);
	if (rc) {
		fg_diff_peers_free(out);
		return rc;
	}
	size_t top = 0, second = SIZE_MAX;
	for (size_t i = 1; i < n; i++)
		if (out->peers[i].score > out->peers[top].score)
			top = i;
	for (size_t i = 0; i < n; i++)
		if (i != top && (second == SIZE_MAX || out->peers[i].score > out->peers[second].score))
			second = i;
	if (out->peers[top].score > 0.0 &&
	    out->peers[top].score >= FG_DIFF_OUTLIER_RATIO * out->peers[second].score)
		out->outlier = (long)top;
	return 0;
}
