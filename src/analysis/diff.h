/* fgbisect — the inclusive-% diff of two sets of profiles, and peer outliers.
 *
 * Metric: per normalised frame name, the share of samples whose stack holds
 * the name, each stack counted once however deep the name recurses (so a
 * share never exceeds 100%), or with `self` the share of samples whose leaf
 * it is.  Several profiles on one side (every node of a run) are pooled:
 * pooled share = sum of the name's samples / sum of the totals.  Only
 * percentages are compared, never raw counts across files.
 *
 * Significance: each frame's change is tested against its noise, the
 * sampling error of the two pooled shares widened by the over-dispersion of
 * the nodes' counts (their chi-square, as the verdict's phi, pooled over both
 * sides and shrunk toward the frames' common value), plus the variation
 * between runs that the nodes of one run cannot show (run_noise, relative
 * to p (1 - p)); a frame is listed when
 * its change is beyond noise at a false-discovery rate (Benjamini-Hochberg
 * over every frame tested) and at least FG_DIFF_FLOOR points, and more than
 * min_delta; the lists are ranked by |delta| less its noise.  docs/diff.md
 * states the rule.
 *
 * Profiles are streamed once each: fg_diff_begin names the side, then every
 * frame goes to fg_diff_frames (an fg_frames_fn) until its end call.  Memory is
 * per name and per profile (the names it holds), plus, with `trees`, one
 * pooled call tree per side with normalised names for the differential SVG. */
#ifndef FG_DIFF_H
#define FG_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/namemap.h"
#include "model/profile.h"
#include "model/tree.h"

typedef enum { FG_DIFF_BASE = 0, FG_DIFF_CANDIDATE = 1 } fg_diff_side;

/* Generic roots that shift together between runs (zeebe.md §1): substrings
 * of the (normalised) frame name. */
extern const char *const fg_diff_default_ignore[];
extern const size_t fg_diff_default_ignore_count;

/* A diff's ignore list: the given patterns (--ignore) then, with defaults,
 * fg_diff_default_ignore, each once (a repeated pattern is dropped: it
 * would cost a matcher slot and match nothing more).  *out is malloc'ed
 * (free it); its strings are the given ones and the defaults.  Fails with
 * FG_EUSAGE when more than FG_MATCH_MAX_PATTERNS remain. */
int fg_diff_ignore_list(const char ***out, size_t *n, const char *const *given, size_t ngiven, bool defaults,
			fg_error *err);

/* The smallest change listed, points: a small absolute floor, under which
 * a change is not worth chasing however many samples make it significant. */
#define FG_DIFF_FLOOR 0.25

/* The run-to-run noise, default: between runs of one build a frame's share
 * p moves with a standard deviation of this percent of p (1 - p) (a
 * relative change of its odds: at 3% about 0.25 points).  8.5% is the
 * median over the frames of the excess variance (beyond sampling) among the
 * seven healthy real profiles of the shared fixtures, separate runs
 * (tests/bench/run_noise.sh), where the nodes of one run show none;
 * docs/diff.md. */
#define FG_DIFF_RUN_NOISE 8.5

/* The prior weight, in degrees of freedom, of the frames' common
 * over-dispersion in each frame's own (three nodes a side give a frame only
 * four of its own: a noisy estimate that alone would call some noisy
 * frames quiet). */
#define FG_DIFF_PHI_PRIOR_DF 4.0

/* Peers' floor when min_delta is 0 (the default): peers score per profile,
 * without a test. */
#define FG_DIFF_PEERS_MIN_DELTA 1.5

typedef struct fg_diff_options {
	double min_delta;           /* an extra floor: listed changes exceed it, points; default 0 */
	double fdr;                 /* the false-discovery rate of the listing (Benjamini-Hochberg
				     * over every frame tested); default 0.05 */
	double run_noise;           /* the run-to-run noise, which the nodes of one run cannot
				     * show (the sides are two runs): the standard deviation of a
				     * share p between runs of one build, percent of p (1 - p);
				     * 0 when the sides are one run; default FG_DIFF_RUN_NOISE */
	bool self;                  /* compare self shares instead of inclusive; default false */
	bool raw;                   /* compare raw names (no normalisation); default false */
	bool trees;                 /* build a pooled tree per side (for the SVG); default false */
	const char *const *ignore;  /* frames never reported (substrings; at most 64);
				     * default fg_diff_default_ignore */
	size_t nignore;             /* default fg_diff_default_ignore_count */
} fg_diff_options;

void fg_diff_options_init(fg_diff_options *opts);

/* Cost: per distinct normalised name and side, plus a tree per side when
 * options.trees is set (the SVG, --repo).  Not thread-safe. */
typedef struct fg_diff fg_diff;

/* names: the interner the profiles are read with; it must outlive the diff.
 * The options are copied (the ignore strings are not: keep them alive).
 * Fails with FG_EUSAGE on a bad ignore pattern. */
int fg_diff_new(fg_diff **out, fg_names *names, const fg_diff_options *opts, fg_error *err);
void fg_diff_free(fg_diff *d);

/* Starts the next profile, on side.  A profile that failed half-way must not
 * be followed by another: free the diff. */
int fg_diff_begin(fg_diff *d, fg_diff_side side, fg_error *err);

/* The fg_frames_fn to give the reader (ctx = the fg_diff); the end call
 * (frames == NULL) closes the profile begun last.  It takes no stacks: the
 * tree, when asked for, needs frames. */
int fg_diff_frames(void *d, const fg_frame *frames, size_t n, fg_error *err);

/* A profile read on its own, on any thread, to be added to a diff later
 * (fg_diff_add): its names go to an interner of its own, so that several
 * profiles can be read at once, and their ids are renumbered when it is
 * added.  Adding parts in argument order gives the diff (ids, counts,
 * trees, noise) that reading the same profiles into it would.  Cost: what
 * the diff holds for one profile, plus its raw names and, with trees, its
 * own tree until it is added. */
typedef struct fg_diff_part fg_diff_part;

/* A part for d (its options; d is only read, so parts of one diff may be
 * made on several threads).  cache (NULL: none): the normal forms of the
 * names, kept from one part to the next of a thread (fg_namemap_cache). */
int fg_diff_part_new(fg_diff_part **out, const fg_diff *d, fg_namemap_cache *cache, fg_error *err);
void fg_diff_part_free(fg_diff_part *p);

/* The interner to read the part's profile with. */
fg_names *fg_diff_part_names(fg_diff_part *p);

/* The fg_frames_fn to give the reader (ctx = the part); the end call
 * closes it. */
int fg_diff_part_frames(void *p, const fg_frame *frames, size_t n, fg_error *err);

/* Adds a closed part on side, as fg_diff_begin and the profile's frames
 * would (its names interned into the diff's in the order the part met
 * them); the part is then empty (free it).  Errors are those reading the
 * profile into the diff would give, without a source. */
int fg_diff_add(fg_diff *d, fg_diff_side side, fg_diff_part *p, fg_error *err);

/* Profiles closed on a side, and their pooled sample total. */
size_t fg_diff_profiles(const fg_diff *d, fg_diff_side side);
uint64_t fg_diff_total(const fg_diff *d, fg_diff_side side);

/* The options' min_delta. */
double fg_diff_min_delta(const fg_diff *d);

/* The options' fdr. */
double fg_diff_fdr(const fg_diff *d);

/* The names (normalised unless raw) held by the profile closed last. */
size_t fg_diff_last_names(const fg_diff *d);
uint32_t fg_diff_last_name(const fg_diff *d, size_t i);

/* The pooled tree of a side (normalised names unless raw), finished; NULL
 * without the trees option. */
const fg_tree *fg_diff_tree(const fg_diff *d, fg_diff_side side);

/* The noise of a path of the pooled base tree (node: its id there): the
 * spread, max - min in points, of the path's inclusive (or self) share among
 * the base profiles, a profile without the path counting 0%.  0 with one
 * base profile or without the trees option. */
float fg_diff_path_noise(const fg_diff *d, uint32_t node, bool self);

typedef enum {
	FG_DIFF_CHANGED = 0,
	FG_DIFF_NEW,   /* absent from every base profile */
	FG_DIFF_GONE,  /* absent from every candidate profile */
} fg_diff_status;

typedef struct fg_diff_entry {
	uint32_t name;      /* the (normalised) name id */
	double base;        /* pooled share, percent */
	double candidate;
	double delta;       /* candidate - base, percentage points */
	double noise;       /* the standard error of delta under no change, points:
			     * sqrt(phi p (1 - p) (1/N_base + 1/N_candidate) + run_noise^2),
			     * p the share of both sides pooled, phi the frame's
			     * over-dispersion */
	double z;           /* delta / noise (0 when noise is 0: no sample differs) */
	double q;           /* the Benjamini-Hochberg adjusted p-value of z (two-sided) */
	double phi;         /* the frame's over-dispersion used, >= 1 */
	fg_diff_status status;
	double run_noise;   /* the run-to-run part of noise, points: sqrt(2) (each side is
			     * a run) x the options' run_noise% of p (1 - p) */
} fg_diff_entry;

/* The frames beyond noise that a floor left out, in one direction. */
typedef struct fg_diff_hidden {
	size_t count;
	fg_diff_entry largest;  /* the one of largest |delta| (count > 0) */
} fg_diff_hidden;

typedef struct fg_diff_result {
	fg_diff_entry *grew;    /* delta > 0, beyond noise and the floors: by the change they
				 * surely made, |delta| - noise, descending (ties: |z|
				 * descending, then name bytes): of frames equally beyond
				 * noise (a class and the frames only it calls, whose
				 * changes grow with their shares as the run noise does)
				 * the one that moved most comes first */
	size_t ngrew;
	fg_diff_entry *shrank;  /* delta < 0, likewise */
	size_t nshrank;
	fg_diff_hidden hidden[2]; /* [0] grew, [1] shrank: beyond noise, under FG_DIFF_FLOOR or min_delta */
	size_t tested;          /* frames tested (with a sample on a side, not ignored) */
	unsigned node_df;       /* degrees of freedom of the nodes' spread: profiles - 1 summed over
				 * the sides; 0 (one profile a side): no node spread to measure,
				 * the noise is sampling error alone */
	double phi;             /* the frames' common over-dispersion (1 when node_df is 0) */
	fg_diff_hidden within[2]; /* [0] grew, [1] shrank: over the floors but within noise (q >
				   * fdr); largest: the one the list would rank first */
} fg_diff_result;

/* Compares the pooled sides; needs at least one profile on each.  The
 * result's arrays are owned by the caller (fg_diff_result_free). */
int fg_diff_compute(fg_diff_result *out, fg_diff *d, fg_error *err);

/* The same comparing self shares (self) or inclusive shares, whatever the
 * self option says (the SVG colours by either). */
int fg_diff_compute_shares(fg_diff_result *out, fg_diff *d, bool self, fg_error *err);
void fg_diff_result_free(fg_diff_result *r);

/* Peers: the profiles of the base side are compared each against the mean
 * share of the others.  A frame counts when |delta| > min_delta, or
 * FG_DIFF_PEERS_MIN_DELTA when min_delta is 0 (and is not
 * ignored); a profile's score is the sum of those |delta|.  The outlier is
 * the top scorer when its score is positive and at least
 * FG_DIFF_OUTLIER_RATIO times the second score: one deviating node moves the
 * mean the others are compared with by 1/(n-1) of its shift, so with three
 * peers the others still score about half of it, while healthy peers score
 * alike. */
#define FG_DIFF_OUTLIER_RATIO 1.5

typedef struct fg_diff_peer_frame {
	uint32_t name;
	double share;   /* this profile's share, percent */
	double others;  /* mean share of the other profiles */
	double delta;   /* share - others */
} fg_diff_peer_frame;

typedef struct fg_diff_peer {
	size_t profile;               /* index among the base profiles, in reading order */
	double score;                 /* sum of |delta| of frames, points */
	fg_diff_peer_frame *frames;   /* by |delta| descending */
	size_t nframes;
} fg_diff_peer;

typedef struct fg_diff_peers {
	fg_diff_peer *peers;  /* in reading order */
	size_t npeers;
	long outlier;         /* index into peers, or -1 when no profile stands out */
} fg_diff_peers;

/* Needs at least three base profiles (FG_EUSAGE otherwise). */
int fg_diff_peers_compute(fg_diff_peers *out, fg_diff *d, fg_error *err);
void fg_diff_peers_free(fg_diff_peers *p);

#endif
