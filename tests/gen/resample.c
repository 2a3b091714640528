#include "resample.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/names.h"
#include "model/profile.h"
#include "formats/reader.h"
#include "model/tree.h"

uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

double rng_uniform(uint64_t *state)
{
	return (double)(rng_next(state) >> 11) * 0x1.0p-53;
}

double rng_normal(uint64_t *state)
{
	double u = 1.0 - rng_uniform(state), v = rng_uniform(state);
	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

uint64_t rng_below(uint64_t *state, uint64_t n)
{
	return (uint64_t)(rng_uniform(state) * (double)n);
}

/* One stack: its collapsed text (frames root first, ';'-separated). */
struct stack {
	char *text;
	size_t len;
};

struct pool {
	struct stack *stacks;
	uint64_t *cumulative; /* samples of stacks 0..i */
	size_t n, cap;
};

struct resample {
	fg_names *names;
	fg_tree **trees;
	size_t ntrees;
	struct pool pools[2]; /* 0: the others, 1: matching */
};

void resample_free(resample *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->ntrees; i++)
		fg_tree_free(r->trees[i]);
	free(r->trees);
	for (int p = 0; p < 2; p++) {
		for (size_t i = 0; i < r->pools[p].n; i++)
			free(r->pools[p].stacks[i].text);
		free(r->pools[p].stacks);
		free(r->pools[p].cumulative);
	}
	fg_names_free(r->names);
	free(r);
}

/* The collapsed text of the stack ending at node. */
static char *stack_text(const resample *r, const fg_tree *t, uint32_t node, size_t *len)
{
	size_t n = 0, depth = 0;
	for (uint32_t id = node; id != 0 && id != FG_TREE_NONE; id = fg_tree_node_at(t, id)->parent, depth++)
		n += strlen(fg_names_get(r->names, fg_tree_node_at(t, id)->name)) + 1;
	char *s = malloc(n + 1);
	if (!s)
		return NULL;
	*len = n ? n - 1 : 0;
	s[*len] = '\0';
	char *end = s + *len;
	for (uint32_t id = node; id != 0 && id != FG_TREE_NONE; id = fg_tree_node_at(t, id)->parent) {
		const char *name = fg_names_get(r->names, fg_tree_node_at(t, id)->name);
		size_t l = strlen(name);
		end -= l;
		memcpy(end, name, l);
		if (end > s)
			*--end = ';';
	}
	return s;
}

static int pool_add(struct pool *p, const resample *r, const fg_tree *t, uint32_t node, uint64_t samples,
                    fg_error *err)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 1024;
		struct stack *s = realloc(p->stacks, cap * sizeof(*s));
		if (s)
			p->stacks = s;
		uint64_t *c = realloc(p->cumulative, cap * sizeof(*c));
		if (c)
			p->cumulative = c;
		if (!s || !c)
			return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
		p->cap = cap;
	}
	if (!(p->stacks[p->n].text = stack_text(r, t, node, &p->stacks[p->n].len)))
		return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	p->cumulative[p->n] = (p->n ? p->cumulative[p->n - 1] : 0) + samples;
	p->n++;
	return 0;
}

/* Whether the stack ending at node holds a frame containing pattern. */
static int stack_matches(const resample *r, const fg_tree *t, uint32_t node, const char *pattern)
{
	for (uint32_t id = node; id != 0 && id != FG_TREE_NONE; id = fg_tree_node_at(t, id)->parent)
		if (strstr(fg_names_get(r->names, fg_tree_node_at(t, id)->name), pattern))
			return 1;
	return 0;
}

int resample_new(resample **out, const char *const *paths, size_t n, const char *pattern, fg_error *err)
{
	*out = NULL;
	resample *r = calloc(1, sizeof(*r));
	if (!r || !(r->trees = calloc(n, sizeof(*r->trees)))) {
		free(r);
		return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	}
	int rc = fg_names_new(&r->names, err);
	uint32_t all = 0;
	if (!rc)
		rc = fg_names_intern(&all, r->names, "all", 3, err);
	fg_read_options ro;
	fg_read_options_init(&ro);
	for (size_t i = 0; !rc && i < n; i++) {
		fg_profile_info info;
		rc = fg_tree_new(&r->trees[i], all, err);
		r->ntrees += !rc;
		if (!rc)
			rc = fg_reader_read(&info, paths[i], r->names, &ro, &(fg_visitor){ fg_tree_add_frames, NULL, r->trees[i], NULL, NULL }, err);
		const fg_tree *t = r->trees[i];
		for (uint32_t id = 1; !rc && id < (t ? fg_tree_size(t) : 0); id++) {
			const fg_tree_node *nd = fg_tree_node_at(t, id);
			if (nd->self)
				rc = pool_add(&r->pools[stack_matches(r, t, id, pattern)], r, t, id, nd->self, err);
		}
	}
	if (!rc && (!r->pools[0].n || !r->pools[1].n))
		rc = fg_error_set(err, FG_EINVALID, NULL, "the profiles need stacks with and without '%s'", pattern);
	if (rc) {
		resample_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

size_t resample_stacks(const resample *r, int matching)
{
	return r->pools[matching ? 1 : 0].n;
}

/* A stack of the pool, drawn by its weight. */
static size_t draw(const struct pool *p, uint64_t *rng)
{
	uint64_t x = rng_below(rng, p->cumulative[p->n - 1]);
	size_t lo = 0, hi = p->n - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->cumulative[mid] > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static void write_stack(FILE *f, const struct stack *s, uint64_t count)
{
	fwrite(s->text, 1, s->len, f);
	fprintf(f, " %llu\n", (unsigned long long)count);
}

int resample_write(const resample *r, const char *path, uint64_t n, double share, uint64_t *rng,
                   uint64_t *matched, fg_error *err)
{
	double q = share / 100.0;
	q = q < 0 ? 0 : q > 1 ? 1 : q;
	uint64_t *counts[2] = { calloc(r->pools[0].n, sizeof(uint64_t)), calloc(r->pools[1].n, sizeof(uint64_t)) };
	FILE *f = fopen(path, "w");
	int rc = 0;
	if (!counts[0] || !counts[1] || !f)
		rc = fg_error_set(err, f ? FG_ENOMEM : FG_EFETCH, path, "cannot write the profile");
	*matched = 0;
	for (uint64_t i = 0; !rc && i < n; i++) {
		int m = rng_uniform(rng) < q;
		*matched += (uint64_t)m;
		counts[m][draw(&r->pools[m], rng)]++;
	}
	for (int m = 0; !rc && m < 2; m++)
		for (size_t i = 0; i < r->pools[m].n; i++)
			if (counts[m][i])
				write_stack(f, &r->pools[m].stacks[i], counts[m][i]);
	if (f && fclose(f) && !rc)
		rc = fg_error_set(err, FG_EFETCH, path, "cannot write the profile");
	free(counts[0]);
	free(counts[1]);
	return rc;
}

void resample_run_options_init(resample_run_options *o)
{
	o->nodes = 3;
	o->samples = 5000;
	o->day_noise = 0.2;
	o->node_noise = 0.1;
}

int resample_run(char **paths, const resample *r, const resample_run_options *o, double share, uint64_t *rng,
                 const char *dir, const char *name, fg_error *err)
{
	double run = share + o->day_noise * rng_normal(rng);
	int rc = 0;
	for (size_t i = 0; i < o->nodes && i < 16; i++)
		paths[i] = NULL;
	for (size_t i = 0; !rc && i < o->nodes && i < 16; i++) {
		uint64_t matched;
		if (asprintf(&paths[i], "%s/%s-%zu.collapsed", dir, name, i) < 0) {
			paths[i] = NULL;
			return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
		}
		rc = resample_write(r, paths[i], o->samples, run + o->node_noise * rng_normal(rng), rng, &matched, err);
	}
	return rc;
}
