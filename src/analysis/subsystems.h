/* fgbisect — every sample attributed to a subsystem by rules, streamed.
 *
 * Each node's self samples (its width minus its children's) go to the first
 * rule, in file order, with a pattern matching any frame on the node's
 * root-to-leaf path (src/analysis/rules.h); samples no rule claims go to "other".
 * Every self sample lands in exactly one subsystem, so the counts add up to
 * the profile's total.  State is per depth (the best rule on the path, the
 * open widths) and per name (the rule a name matches, cached), never per
 * frame; with top_frames, also per (subsystem, frame name) pair. */
#ifndef FG_SUBSYSTEMS_H
#define FG_SUBSYSTEMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "analysis/rules.h"
#include "analysis/top.h"

typedef struct fg_subsystems_options {
	/* How many frames per subsystem fg_subsystems_top_frames may report,
	 * by self samples attributed to that subsystem; 0 = do not count
	 * frames (no per-name memory).  Default 0. */
	size_t top_frames;
	/* Optional: the name a frame is counted under (e.g. its normalised
	 * name, src/model/namemap.h), called once per self-time node.  Default NULL. */
	fg_name_map_fn map;
	void *map_ctx;
} fg_subsystems_options;

void fg_subsystems_options_init(fg_subsystems_options *opts);

typedef struct fg_subsystems fg_subsystems;

/* rules and names must outlive the analysis; opts may be NULL (defaults). */
int fg_subsystems_new(fg_subsystems **out, fg_rules *rules, const fg_names *names,
		      const fg_subsystems_options *opts, fg_error *err);
void fg_subsystems_free(fg_subsystems *s);

/* Forgets the counts, for the next profile. */
void fg_subsystems_reset(fg_subsystems *s);

/* The visitor to give the reader (ctx = the fg_subsystems): frames, or
 * whole stacks. */
int fg_subsystems_frames(void *s, const fg_frame *frames, size_t n, fg_error *err);
int fg_subsystems_stack(void *s, const fg_stack *stack, fg_error *err);

uint64_t fg_subsystems_total(const fg_subsystems *s);

/* The subsystems are the rules in file order, then "other" (index
 * fg_rules_count). */
size_t fg_subsystems_count(const fg_subsystems *s);
const char *fg_subsystems_name(const fg_subsystems *s, size_t i);
uint64_t fg_subsystems_samples(const fg_subsystems *s, size_t i);

/* Each subsystem's share in hundredths of a percent, rounded so that they
 * add up to exactly 10000 (100.00%) when the total is not zero: each share
 * is rounded down, then the missing hundredths go one each to the largest
 * remainders (ties: the earlier subsystem).  out holds fg_subsystems_count
 * entries. */
void fg_subsystems_shares(uint32_t *out, const fg_subsystems *s);

typedef struct fg_subsystems_entry {
	uint32_t name;     /* the frame name (mapped when opts.map is set) */
	uint64_t samples;  /* its self samples attributed to the subsystem */
} fg_subsystems_entry;

/* The frames with the most self samples in subsystem i, most first (ties in
 * byte order of the names), at most min(max, opts.top_frames) of them;
 * returns how many were written to out. */
size_t fg_subsystems_top_frames(fg_subsystems_entry *out, size_t max, const fg_subsystems *s, size_t i);

/* Each end call of the visitor (frames == NULL) closes one profile: a pool
 * of several (src/analysis/pool.h) leaves each one's counts, of which the
 * pooled counts above are the sums.  p counts from 0 in reading order;
 * fg_subsystems_reset forgets them. */
size_t fg_subsystems_profiles(const fg_subsystems *s);
uint64_t fg_subsystems_profile_samples(const fg_subsystems *s, size_t p, size_t i);
uint64_t fg_subsystems_profile_total(const fg_subsystems *s, size_t p);

/* The family-wise error rate of a comparison's "beyond noise": the chance
 * that any subsystem of an unchanged split is called changed. */
#define FG_SUBSYSTEMS_ALPHA 0.05

/* One subsystem's change from the base profiles to the candidate ones. */
typedef struct fg_subsystems_change {
	uint64_t samples[2];  /* pooled: [0] base, [1] candidate */
	double base, candidate, delta; /* pooled shares, percent; delta = candidate - base, points */
	double noise;         /* the standard error of delta under no change, points, as diff's test:
			       * sqrt(phi p (1 - p) (1/N_base + 1/N_candidate)), p both sides pooled */
	double phi;           /* the over-dispersion of the nodes used, >= 1: the subsystem's chi-square among
			       * each side's profiles, shrunk toward the common value with FG_DIFF_PHI_PRIOR_DF
			       * degrees of freedom (1 with one profile a side: sampling error alone) */
	double z;             /* delta / noise (0 when noise is 0) */
	double p;             /* two-sided p-value of z, Bonferroni-adjusted over the subsystems tested (at most 1) */
	bool beyond;          /* p <= FG_SUBSYSTEMS_ALPHA and |delta| >= FG_DIFF_FLOOR points */
} fg_subsystems_change;

/* Compares the split of the ended profiles [0, nbase) (the base) with that
 * of the rest (the candidate): out holds fg_subsystems_count entries, in
 * the subsystems' order; *node_df the degrees of freedom of the nodes'
 * spread (0: one profile a side, or no spread to see: the noise is
 * sampling error alone); *tested the subsystems with a sample on either
 * side (the Bonferroni family).  FG_EUSAGE when a side has no profile. */
int fg_subsystems_compare(fg_subsystems_change *out, unsigned *node_df, size_t *tested, const fg_subsystems *s,
			  size_t nbase, fg_error *err);

#endif
