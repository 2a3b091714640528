#include "explain/explain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "explain/decision.h"
#include "git/javaclass.h"
#include "model/tree.h"

#define NO_GROUP UINT32_MAX
#define UNKNOWN_GROUP (UINT32_MAX - 1)

void fg_explain_options_init(fg_explain_options *o)
{
	*o = (fg_explain_options){ .nhot = 10, .ngroups = 10 };
}

const char fg_explain_not_separable[] =
	"one profile a side: no node spread to measure, so noise cannot be separated from\n"
	"signal: the grown frames may be differences between nodes (give every node of each run)";

const char fg_explain_no_decision_one_side[] =
	"one profile a side: noise cannot be separated from signal, so no suspect is named from the frames that grew";

void fg_explain_headline(char *out, size_t size, const fg_explain *e, const char *pattern)
{
	snprintf(out, size, "%s: base %.2f%% \xe2\x86\x92 candidate %.2f%% (%+.2f points \xc2\xb1%.2f)", pattern, e->base,
		 e->candidate, e->candidate - e->base, 1.96 * e->noise);
}

void fg_explain_clear(fg_explain *e)
{
	fg_hotfiles_clear(&e->hot);
	fg_growers_clear(&e->growers);
	fg_diff_result_free(&e->result);
	free(e->groups);
	memset(e, 0, sizeof(*e));
}

/* The two-sided 5% critical value of a standard normal, Bonferroni over m
 * tests: erfc(z / sqrt 2) = 0.05 / m, by bisection. */
static double z_critical(size_t m)
{
	double target = 0.05 / (double)(m ? m : 1), lo = 0, hi = 40;
	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;
		if (erfc(mid / sqrt(2.0)) > target)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/* What the pattern's frames add up to, per group and side. */
struct grouping {
	fg_matcher *matcher;
	const fg_names *names;
	fg_names *keys;         /* group keys: CLASS[$NESTED].METHOD, or a non-Java frame's name */
	uint32_t *group_of;     /* by name id: a group, NO_GROUP, or UNKNOWN_GROUP until asked */
	uint32_t nnames;
	double *count[2];       /* by group: samples whose stack holds one of its frames */
	uint32_t *frame;        /* by group: the name of its node with the most candidate samples ... */
	uint64_t *frame_total;  /* ... and that node's samples */
	double pattern[2];      /* samples whose stack holds a frame of the pattern */
	size_t ngroups;
	fg_javaclass_parts *parts; /* a frame parsed (3 kB: one for the walk) */
};

/* The group of a matched name (interned into keys), or NO_GROUP. */
static int group_of(uint32_t *out, struct grouping *g, uint32_t name, fg_error *err)
{
	if (g->group_of[name] != UNKNOWN_GROUP) {
		*out = g->group_of[name];
		return 0;
	}
	uint64_t mask = 0;
	int rc = fg_matcher_test(&mask, g->matcher, g->names, name, err);
	*out = NO_GROUP;
	if (rc || !mask)
		return rc ? rc : (g->group_of[name] = NO_GROUP, 0);
	fg_javaclass_parts *parts = g->parts;
	fg_error perr;
	const char *frame = fg_names_get(g->names, name);
	char key[3 * FG_JAVACLASS_MAX_FRAME + 4];
	if (fg_javaclass_parse(parts, frame, &perr) == 1) {
		/* A lambda's hidden class runs the lambda$ method below it. */
		if (!strncmp(parts->nested, "$Lambda", 7))
			return g->group_of[name] = NO_GROUP, 0;
		snprintf(key, sizeof(key), "%s%s%s.%s", parts->class_path, parts->nested[0] ? "$" : "", parts->nested,
			 parts->method);
	} else {
		snprintf(key, sizeof(key), "%s", frame);
	}
	uint32_t id;
	if ((rc = fg_names_intern(&id, g->keys, key, strlen(key), err)))
		return rc;
	if (id >= g->ngroups) { /* a new group */
		size_t n = (size_t)id + 1;
		double *c0 = realloc(g->count[0], n * sizeof(*c0));
		if (c0)
			g->count[0] = c0;
		double *c1 = c0 ? realloc(g->count[1], n * sizeof(*c1)) : NULL;
		if (c1)
			g->count[1] = c1;
		uint32_t *f = c1 ? realloc(g->frame, n * sizeof(*f)) : NULL;
		if (f)
			g->frame = f;
		uint64_t *ft = f ? realloc(g->frame_total, n * sizeof(*ft)) : NULL;
		if (!ft)
			return fg_error_oom(err, NULL);
		g->frame_total = ft;
		g->count[0][id] = g->count[1][id] = 0;
		g->frame[id] = name;
		g->frame_total[id] = 0;
		g->ngroups = n;
	}
	*out = g->group_of[name] = id;
	return 0;
}

/* One side's tree: a node counts for its group (and for the pattern) unless
 * an ancestor already did, so recursion counts a sample once. */
static int add_side(struct grouping *g, const fg_tree *t, int side, fg_error *err)
{
	uint32_t size = fg_tree_size(t);
	for (uint32_t n = 1; n < size; n++) {
		const fg_tree_node *node = fg_tree_node_at(t, n);
		uint32_t grp;
		int rc = node->name < g->nnames ? group_of(&grp, g, node->name, err) : 0;
		if (rc)
			return rc;
		if (node->name >= g->nnames || grp == NO_GROUP) {
			/* Not a group's frame, but maybe the pattern's (a hidden lambda class). */
			uint64_t mask = 0;
			if (node->name >= g->nnames || (rc = fg_matcher_test(&mask, g->matcher, g->names, node->name, err)))
				return rc;
			if (!mask)
				continue;
		}
		bool group_above = false, pattern_above = false;
		for (uint32_t up = node->parent; up != FG_TREE_NONE && up != 0 && !(group_above && pattern_above);
		     up = fg_tree_node_at(t, up)->parent) {
			uint32_t name = fg_tree_node_at(t, up)->name, ug = NO_GROUP;
			uint64_t mask = 0;
			if ((rc = fg_matcher_test(&mask, g->matcher, g->names, name, err)) ||
			    (mask && (rc = group_of(&ug, g, name, err))))
				return rc;
			pattern_above |= mask != 0;
			group_above |= grp != NO_GROUP && ug == grp;
		}
		if (!pattern_above)
			g->pattern[side] += (double)node->total;
		if (grp == NO_GROUP)
			continue;
		if (!group_above)
			g->count[side][grp] += (double)node->total;
		if (side == FG_DIFF_CANDIDATE && node->total > g->frame_total[grp]) {
			g->frame[grp] = node->name;
			g->frame_total[grp] = node->total;
		}
	}
	return 0;
}

static int by_growth(const void *a, const void *b)
{
	const fg_explain_group *x = a, *y = b;
	double dx = x->candidate - x->base, dy = y->candidate - y->base;
	return dx > dy ? -1 : dx < dy ? 1 : (x->frame > y->frame) - (x->frame < y->frame);
}

/* The standard error of a change of share, points: x samples of n a side,
 * the sampling error widened by the over-dispersion phi (0 when a side is
 * empty). */
static double share_noise(double xb, double nb, double xc, double nc, double phi)
{
	return nb > 0 && nc > 0 ? fg_stats_change_noise(xb, nb, xc, nc, phi, 0.0) : 0;
}

/* The pattern's groups in out->groups, largest growth first. */
static int group_pattern(fg_explain *out, fg_diff *diff, const fg_names *names, const fg_explain_options *o,
			 fg_error *err)
{
	struct grouping g = { .names = names, .nnames = fg_names_count(names) };
	const char *patterns[] = { o->frame };
	int rc = fg_matcher_new(&g.matcher, patterns, 1, &o->match, err);
	if (!rc)
		rc = fg_names_new(&g.keys, err);
	if (!rc && (!(g.group_of = malloc((g.nnames ? g.nnames : 1) * sizeof(*g.group_of))) ||
		    !(g.parts = malloc(sizeof(*g.parts)))))
		rc = fg_error_oom(err, NULL);
	for (uint32_t i = 0; !rc && i < g.nnames; i++)
		g.group_of[i] = UNKNOWN_GROUP;
	const fg_tree *t[2] = { fg_diff_tree(diff, FG_DIFF_BASE), fg_diff_tree(diff, FG_DIFF_CANDIDATE) };
	for (int s = 0; !rc && s < 2; s++)
		rc = add_side(&g, t[s], s, err);
	double n[2] = { (double)fg_tree_node_at(t[0], 0)->total, (double)fg_tree_node_at(t[1], 0)->total };
	double phi = out->result.phi >= 1 ? out->result.phi : 1;
	if (!rc && g.ngroups && !(out->groups = calloc(g.ngroups, sizeof(*out->groups))))
		rc = fg_error_oom(err, NULL);
	for (size_t i = 0; !rc && i < g.ngroups; i++)
		out->groups[i] = (fg_explain_group){
			.frame = g.frame[i],
			.base = n[0] > 0 ? 100.0 * g.count[0][i] / n[0] : 0,
			.candidate = n[1] > 0 ? 100.0 * g.count[1][i] / n[1] : 0,
			.noise = share_noise(g.count[0][i], n[0], g.count[1][i], n[1], phi),
		};
	if (!rc) {
		out->ngroups_matched = out->ngroups = g.ngroups;
		if (out->ngroups) /* qsort wants an array, even of none */
			qsort(out->groups, out->ngroups, sizeof(*out->groups), by_growth);
		double z = z_critical(out->ngroups_matched);
		for (size_t i = 0; i < out->ngroups; i++) {
			fg_explain_group *e = &out->groups[i];
			double delta = e->candidate - e->base;
			e->weighed = delta >= FG_DIFF_FLOOR && delta > z * e->noise;
		}
		if (out->ngroups > o->ngroups)
			out->ngroups = o->ngroups;
		out->base = n[0] > 0 ? 100.0 * g.pattern[0] / n[0] : 0;
		out->candidate = n[1] > 0 ? 100.0 * g.pattern[1] / n[1] : 0;
		out->noise = share_noise(g.pattern[0], n[0], g.pattern[1], n[1], phi);
	}
	fg_matcher_free(g.matcher);
	fg_names_free(g.keys);
	free(g.group_of);
	free(g.parts);
	free(g.count[0]);
	free(g.count[1]);
	free(g.frame);
	free(g.frame_total);
	return rc;
}

static int cmp_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Appends id to ids unless it is there. */
static void add_frame(uint32_t *ids, size_t *n, uint32_t id)
{
	for (size_t i = 0; i < *n; i++)
		if (ids[i] == id)
			return;
	ids[(*n)++] = id;
}

int fg_explain_window(fg_explain *out, fg_repo *repo, const char *dir, fg_diff *diff, const fg_names *names,
		      const fg_explain_options *o, fg_error *err)
{
	memset(out, 0, sizeof(*out));
	int rc = fg_diff_compute(&out->result, diff, err);
	out->separable = out->result.node_df > 0;
	if (!rc)
		rc = fg_growers_find(&out->growers, diff, &out->result, names, o->nhot, o->nhot, err);
	if (!rc && o->frame)
		rc = group_pattern(out, diff, names, o, err);
	if (rc)
		return rc;
	/* The frames to look up: those the decision weighs first (the pattern's
	 * groups beyond noise, the growers when noise can be told from signal),
	 * then the others shown. */
	size_t cap = out->ngroups + out->growers.nframes, n = 0;
	uint32_t *ids = calloc(cap ? cap : 1, sizeof(*ids));
	const char **frames = calloc(cap ? cap : 1, sizeof(*frames)), **stack = NULL;
	uint32_t *stack_ids = NULL;
	size_t nstack = 0;
	if (!ids || !frames)
		rc = fg_error_oom(err, NULL);
	for (size_t i = 0; !rc && i < out->ngroups; i++)
		if (out->groups[i].weighed)
			add_frame(ids, &n, out->groups[i].frame);
	/* A grower on the stacks above the pattern's frames beyond noise (a
	 * caller) grew by their growth: its file is evidence of a caller (the
	 * decision's callers), not a suspect of its own. */
	uint32_t *callers = NULL;
	size_t ncallers = 0;
	if (!rc && n)
		rc = fg_decision_stack_names(&callers, &ncallers, fg_diff_tree(diff, FG_DIFF_CANDIDATE), ids, n, err);
	for (size_t i = 0; !rc && out->separable && i < out->growers.nframes; i++)
		if (!ncallers || !bsearch(&out->growers.frame_ids[i], callers, ncallers, sizeof(*callers), cmp_id))
			add_frame(ids, &n, out->growers.frame_ids[i]);
	free(callers);
	out->weighed = n;
	for (size_t i = 0; !rc && i < out->ngroups; i++)
		if (out->groups[i].candidate > out->groups[i].base)
			add_frame(ids, &n, out->groups[i].frame);
	for (size_t i = 0; !rc && i < out->growers.nframes; i++)
		add_frame(ids, &n, out->growers.frame_ids[i]);
	if (!rc && out->weighed)
		rc = fg_decision_stack_names(&stack_ids, &nstack, fg_diff_tree(diff, FG_DIFF_CANDIDATE), ids,
					     out->weighed, err);
	if (!rc && !(stack = calloc(nstack ? nstack : 1, sizeof(*stack))))
		rc = fg_error_oom(err, NULL);
	for (size_t i = 0; !rc && i < n; i++)
		frames[i] = fg_names_get(names, ids[i]);
	for (size_t i = 0; !rc && i < nstack; i++)
		stack[i] = fg_names_get(names, stack_ids[i]);
	if (!rc && n) {
		fg_history_options ho;
		fg_history_options_init(&ho);
		if (o->history) {
			ho = *o->history;
		} else {
			ho.good = o->good;
			ho.bad = o->bad ? o->bad : ho.bad;
		}
		if (!ho.frame_file) { /* the profiles' source files of native frames (read only) */
			ho.frame_file = fg_names_file_by_name;
			ho.frame_file_ctx = (void *)names;
		}
		rc = fg_hotfiles_look_up(&out->hot, dir, repo, &ho, true, frames, n, out->weighed, stack, nstack, err);
	}
	if (!rc && !out->weighed && (o->history ? o->history->good : o->good))
		out->no_decision = !out->separable ? fg_explain_no_decision_one_side
		                                   : "no frame grew beyond noise: no suspect is named";
	free(ids);
	free(frames);
	free(stack);
	free(stack_ids);
	return rc;
}
