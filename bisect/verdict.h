/* fgbisect — the verdict on one build: is the share of a frame pattern in
 * its profiles below the threshold (fast), at or above it (slow), or can the
 * build not be judged (skip)?
 *
 * A judge holds what every verdict of a bisection shares (per thread it
 * reads on: the interned names, the compiled pattern, the share and
 * protocol analyses); each call fetches the profiles of one build in
 * parallel, reads them on up to opts.jobs threads, takes them in order into
 * the verdict and decides (fg_verdict_decide).
 *
 * The decision (docs/bisect.md, "The decision"): the pooled share of the
 * build's profiles and a 95% interval that covers sampling (Wilson), the
 * disagreement of the nodes beyond sampling (the interval of the counts
 * divided by the over-dispersion phi) and the run-to-run noise all nodes
 * of a run share (--noise, added in quadrature).  Fast when the whole
 * interval is below the threshold, slow when it is at or above it, else a
 * skip that says so.
 *
 * What is wrong with one profile (a failed download, an unreadable or
 * truncated file, too few samples, a protocol or event that contradicts
 * the runs file) leaves it out, named, and the build is judged on the
 * others when enough remain (min_nodes).  What is wrong with one build (no
 * run for it, too few usable profiles, a failed capture, a share within
 * the margin) is a skip verdict, not an error: git bisect then tries a
 * neighbour.
 * Errors are what is wrong with every build alike (a malformed --header, an
 * unsupported URL scheme, out of memory): the bisection must stop. */
#ifndef FG_VERDICT_H
#define FG_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bisect/capture.h"
#include "base/error.h"
#include "net/fetch.h"
#include "model/match.h"
#include "model/profile.h"
#include "git/repo.h"
#include "bisect/runs.h"

enum fg_verdict_kind { FG_VERDICT_FAST, FG_VERDICT_SLOW, FG_VERDICT_SKIP };

/* How the shares of a build's profiles make one share.  POOLED (matching
 * samples of all profiles / all samples) is decided with its interval; the
 * others are the per-profile shares' median, mean, min or max compared with
 * the threshold as points (no interval: near the threshold they can be
 * confidently wrong; kept for users who want them). */
enum fg_aggregate { FG_AGGREGATE_POOLED, FG_AGGREGATE_MEDIAN, FG_AGGREGATE_MEAN, FG_AGGREGATE_MIN,
	FG_AGGREGATE_MAX };

/* "pooled", "median", "mean", "min", "max" → *out; false for anything else. */
bool fg_aggregate_parse(enum fg_aggregate *out, const char *name);
const char *fg_aggregate_name(enum fg_aggregate a);

typedef struct fg_verdict_options {
	const char *pattern;         /* the frame pattern (required) */
	fg_match_options match;      /* substring, not raw (fg_match_options zeroed) */
	double threshold;            /* percent: slow when the share is at or above it (required) */
	/* -1: none.  Points added on both sides of the interval (or of the
	 * share, for a point aggregate): what is not clear of the threshold by
	 * the margin is a skip. */
	double margin;
	enum fg_aggregate aggregate; /* pooled */
	/* Run-to-run noise, the standard deviation of a run's share around the
	 * build's true share in percentage points, shared by all nodes of the
	 * run (a day's load, the machine): -1 means the default,
	 * FG_VERDICT_NOISE_FRACTION of the threshold. */
	double noise;
	uint64_t min_samples;        /* 0: none; a profile with fewer samples is left out (see min_nodes) */
	/* Profiles of a build that must be read for a verdict: one that cannot
	 * be fetched or read, or is unusable (too few samples, another
	 * protocol, event or unit), is left out and named, and the build is
	 * judged on the others when at least this many remain; else it is a
	 * skip.  0: the default, a majority of the listed profiles and at
	 * least FG_VERDICT_MIN_NODES; a build listing fewer needs all.  A value
	 * above the number listed needs all of them. */
	size_t min_nodes;
	/* NULL: the protocol the bisection is about (--protocol), expected of
	 * profiles whose runs-file line says `-` and of --profile/--capture
	 * profiles. */
	const char *protocol;
	/* "cpu": the event the bisection is about (--event), expected of
	 * profiles whose runs-file line says `-` and of --profile/--capture
	 * profiles; a profile whose title says it measures another event (an
	 * allocation graph listed as cpu) is left out. */
	const char *event;
	/* Profiles of a build read at once, each on a thread with names,
	 * pattern and analyses of its own (the verdict is that of reading them
	 * in turn); 0: one per core. */
	size_t jobs;
	fg_read_options read;        /* fg_read_options_init */
	const fg_fetch_options *fetch; /* NULL: fg_fetch_options_init's defaults */
} fg_verdict_options;

void fg_verdict_options_init(fg_verdict_options *opts);

/* The default noise: 6% of the threshold (0.24 points at a 4% threshold),
 * above the 5% the real Zeebe daily series show (docs/bisect.md). */
#define FG_VERDICT_NOISE_FRACTION 0.06

/* The weight, in nodes, of the binomial's phi of 1 in the nodes' phi
 * (fg_verdict's phi; docs/bisect.md, "Clear builds"). */
#define FG_VERDICT_PHI_PRIOR_DF 4

/* The weight, in captures, of the assumed noise in the noise of repeated
 * captures (docs/bisect.md, "Repeated captures"). */
#define FG_VERDICT_NOISE_PRIOR_DF 4

/* A build with fewer samples in all has its count in the verdict's reason
 * ("; only 7 samples"): the interval of so few is wide, and what narrows it
 * is a longer or denser capture, not another threshold. */
#define FG_VERDICT_FEW_SAMPLES 1000

/* The least number of profiles the default min_nodes judges a build on. */
#define FG_VERDICT_MIN_NODES 2

/* The profiles of n listed that a verdict needs (opts->min_nodes, or the
 * default). */
size_t fg_verdict_min_nodes(const fg_verdict_options *opts, size_t n);

/* The noise opts gives, in points: opts->noise, or the default. */
double fg_verdict_noise(const fg_verdict_options *opts);

/* One profile to judge. */
typedef struct fg_verdict_input {
	const char *source;   /* a path or URL */
	const char *node;     /* NULL when unknown */
	const char *protocol; /* "grpc", "rest" as the runs file says, or NULL */
	const char *event;    /* the event the runs file says, or NULL */
} fg_verdict_input;

/* One judged profile. */
typedef struct fg_verdict_profile {
	char *source;          /* as given, any user:password@ removed */
	const char *node;      /* NULL when unknown; lives as long as the input's */
	const char *expected;  /* the protocol it should serve, or NULL */
	const char *expected_event; /* the event it should measure, or NULL */
	const char *detected;  /* "grpc", "rest", "unknown"; NULL when not read */
	uint64_t total;        /* samples in the profile */
	uint64_t samples;      /* samples whose stack matches the pattern */
	char unit[24];         /* what its counts count (fg_profile_unit); "" when not read */
	double share;          /* percent */
	bool read;             /* read and taken into the verdict; false: left out (error says why) */
	char error[1024];      /* why it was left out ("" when read): "HTTP status 404", "truncated: ..." */
	bool downloaded;       /* came over the network, not from the cache or a local file */
	char warning[256];     /* a fetch warning (unusable cache) or a reader's caution, or "" */
} fg_verdict_profile;

/* What a verdict rests on. */
enum fg_verdict_basis {
	FG_BASIS_INPUT,    /* skip: an input could not be used (the reason says which and why) */
	FG_BASIS_INTERVAL, /* the interval is below the threshold, at or above it, or holds it (skip) */
	FG_BASIS_NODES,    /* skip: the interval holds the threshold and a node disagrees with the others */
	FG_BASIS_MARGIN,   /* skip: the interval (or the point share) is within --margin of the threshold */
	FG_BASIS_POINT,    /* --aggregate median|mean|min|max: the share alone against the threshold */
};

/* "input", "interval", "nodes", "margin", "point". */
const char *fg_verdict_basis_name(enum fg_verdict_basis basis);

/* A profile's name in messages: its node, else its file name. */
const char *fg_verdict_profile_label(const fg_verdict_profile *p);

typedef struct fg_verdict {
	enum fg_verdict_kind kind;
	enum fg_verdict_basis basis;
	char reason[1600];     /* one line: why (the comparison, or what made it a skip) */
	char commit[41];       /* the build's commit as known (full id when a repository gave it) */
	char date[11];         /* the run's date, or the commit's date; "" when unknown */
	/* The share the decision used, percent: the pooled share, or the
	 * --aggregate of the profiles' shares; 0 when no profile was read. */
	double share;
	enum fg_aggregate aggregate; /* how share was made */
	double pooled;         /* the pooled share, percent */
	double lo, hi;         /* the 95% Wilson interval of the pooled counts (sampling only) */
	double interval_lo, interval_hi; /* the interval the decision used (fg_stats_share_interval) */
	double phi;            /* over-dispersion of the nodes' counts, moderated toward 1 (FG_VERDICT_PHI_PRIOR_DF) */
	double noise;          /* the run-to-run noise assumed, points */
	bool noise_given;      /* from --noise, not the default */
	/* The profile whose share disagrees with the others beyond sampling
	 * and noise (|standardised residual| >= 3.29, p < 0.001), SIZE_MAX when
	 * none does or there are fewer than three. */
	size_t disagreeing;
	uint64_t samples;      /* pooled matching samples */
	uint64_t total;        /* pooled samples */
	bool matched;          /* the pattern matched a frame in at least one profile */
	fg_verdict_profile *profiles;
	size_t nprofiles;
	size_t nread;          /* profiles read and taken into the verdict (the others name their error) */
	size_t min_nodes;      /* the profiles it needed (fg_verdict_min_nodes) */
	size_t downloaded;     /* profiles that came over the network */
	/* Capture mode: the captures pooled (each a profile, a run of its own;
	 * 0 for another source).  With two or more, the noise is that of their
	 * pooled share: the noise a capture has (the assumed one as a prior of
	 * FG_VERDICT_NOISE_PRIOR_DF degrees of freedom moderating the
	 * between-capture variance of k - 1) times sqrt(sum
	 * of the squared sample weights), and phi is 1 (their spread is that
	 * noise, not sampling). */
	size_t captures;
	/* Capture mode: the captures the commit may have (--capture-repeats),
	 * each a look of a group-sequential test (0 for another source), and
	 * look_z the boundary of look `captures` of them
	 * (fg_stats_spending_bounds at 5%: 2.5% a side over all looks). */
	size_t looks;
	double look_z;
	/* The degrees of freedom of the captures' variance, (prior + k - 1)^2
	 * / (k - 1) (0: the noise is assumed, not estimated). */
	double noise_df;
	/* The multiplier the decision's interval used: FG_Z95, the look's
	 * boundary, or its t quantile at the noise's degrees of freedom. */
	double z;
	/* A "cannot tell" verdict (basis interval, no disagreeing node): what
	 * would decide at the distance of its share from the threshold, also
	 * in its reason.  samples_needed: the pooled samples of a run (its
	 * phi and noise kept; INFINITY: the noise alone holds the threshold,
	 * more samples cannot decide); captures_needed: captures like these
	 * (capture mode).  0: not a "cannot tell" verdict. */
	double samples_needed;
	size_t captures_needed;
	/* The run-to-run noise the captures' spread shows, points (the
	 * method-of-moments estimate: their shares' variance less the sampling
	 * variance each one's counts explain; 0 when sampling explains it all);
	 * -1 with fewer than two captures. */
	double noise_estimate;
} fg_verdict;

void fg_verdict_free(fg_verdict *v);

/* "fast", "slow", "skip". */
const char *fg_verdict_name(enum fg_verdict_kind kind);

/* The exit status of run mode: 0 fast, 1 slow, 125 skip. */
int fg_verdict_exit_status(const fg_verdict *v);

/* Decides v from the counts of its read profiles: fills share,
 * pooled, lo, hi, the interval, phi, noise, disagreeing, kind, basis and
 * reason.  v->samples and v->total must be the sums of the profiles'. */
void fg_verdict_decide(fg_verdict *v, const fg_verdict_options *opts);

/* Decides v again under o as a judge would have (the profiles it needs,
 * the decision, the notes on few samples and profiles left out): a verdict
 * judged before the threshold was known (--threshold auto). */
void fg_verdict_conclude(fg_verdict *v, const fg_verdict_options *o);

/* --threshold auto: the threshold where the two ends of a search separate
 * best, the point of equal standardised distance.  Each end's share has a
 * standard deviation from its interval on the side facing the other end
 * (sampling with the nodes' phi, and the run-to-run noise: --noise, or by
 * default FG_VERDICT_NOISE_FRACTION of the threshold sought, as a judge
 * would assume there); t is where (t - good) / sd_good(t) = (bad - t) /
 * sd_bad(t), found by bisection and rounded to 0.01 points.  The ends are
 * separated when the nearer end's distance is above FG_Z95: then at t the good end's whole interval is
 * below t and the bad end's at or above it, both decided. */
typedef struct fg_verdict_auto {
	double threshold;        /* percent; 0 when the ends cannot be compared (a skip of an input) */
	double good, bad;        /* the ends' pooled shares, percent */
	double good_sd, bad_sd;  /* their standard deviations at threshold, points */
	double distance;         /* standardised distance of the nearer end from threshold */
	bool separated;          /* distance > FG_Z95 and good < bad */
} fg_verdict_auto;

void fg_verdict_auto_threshold(fg_verdict_auto *out, const fg_verdict *good, const fg_verdict *bad,
                               const fg_verdict_options *opts);

/* One line on how it was chosen: "3.47% (the point of equal standardised
 * distance between the good end's 2.90% and the bad end's 4.15%: each is
 * the nearer is 3.1 standard deviations from it)", or why the ends do not separate. */
void fg_verdict_auto_describe(char *out, size_t size, const fg_verdict_auto *a);

typedef struct fg_verdict_judge fg_verdict_judge;

/* FG_EUSAGE for an empty pattern or a bad regular expression. */
int fg_verdict_judge_new(fg_verdict_judge **out, const fg_verdict_options *opts, fg_error *err);
void fg_verdict_judge_free(fg_verdict_judge *j);

/* The pattern the judge looks for. */
const char *fg_verdict_judge_pattern(const fg_verdict_judge *j);

/* The frame names nearest the pattern among those of every profile the
 * judge has read (src/analysis/suggest.h), nearest first, at most three,
 * as "'A', 'B'" into out; returns how many ("" and 0: none near). */
size_t fg_verdict_judge_suggest(char *out, size_t size, const fg_verdict_judge *j);

/* The threshold the judge decides later builds at (--threshold auto, once
 * the ends gave it). */
void fg_verdict_judge_set_threshold(fg_verdict_judge *j, double threshold);

/* Judges n profiles as one build.  commit and date (either may be NULL) go
 * into the verdict as they are.  Returns 0 with *out set (its kind may be a
 * skip), or an error code with *out NULL (see the top of this file). */
int fg_verdict_judge_inputs(fg_verdict **out, fg_verdict_judge *j, const fg_verdict_input *inputs, size_t n,
                            const char *commit, const char *date, fg_error *err);

/* Judges one run of a runs file. */
int fg_verdict_judge_run(fg_verdict **out, fg_verdict_judge *j, const fg_runs_run *run, fg_error *err);

/* Where the profiles of a commit come from: exactly one of runs, profile and
 * capture is set. */
typedef struct fg_verdict_source {
	const fg_runs_selection *runs; /* the commit's run (newest when several) */
	/* A path or URL; {commit}, {short} and {date} expand to the commit's
	 * full id, short id and committer date. */
	const char *profile;
	const char *capture;           /* a command run at this commit (capture.h) */
	/* For capture: timeout and working directory; FGBISECT_COMMIT,
	 * FGBISECT_SHORT and FGBISECT_DATE are added to env. */
	fg_capture_options capture_opts;
	/* For capture: the captures of one commit at most, taken while the
	 * verdict is undecidable (cannot tell, not a failed capture) and pooled
	 * as the nodes of one run; 0: FG_VERDICT_CAPTURE_REPEATS. */
	size_t capture_repeats;
	/* For capture: called after each capture is judged (k of at most max,
	 * v the verdict on the k pooled so far); NULL: none. */
	void (*on_capture)(void *ctx, size_t k, size_t max, const fg_verdict *v);
	void *capture_ctx;
} fg_verdict_source;

/* The default capture_repeats. */
#define FG_VERDICT_CAPTURE_REPEATS 3

/* Judges a commit.  No run for it in the runs file, and a failed capture,
 * are skips.  The verdict's commit is the full id, its date the run's date
 * (runs file) or the commit's date. */
int fg_verdict_judge_commit(fg_verdict **out, fg_verdict_judge *j, const fg_verdict_source *src,
                            const fg_repo_commit *commit, fg_error *err);

/* Capture mode: the captures fg_verdict_judge_commit kept of a commit
 * (bisect/capture.h, in the judge's fetch cache; none with no_cache): *out
 * NULL when none is kept. */
int fg_verdict_load_kept(fg_capture_kept **out, const fg_verdict_judge *j, const fg_verdict_source *src,
                         const char *commit, fg_error *err);

/* Judges a commit on its kept captures, without capturing (the summary of
 * a capture bisection): profile i is capture i + 1.  A skip when kept is
 * NULL. */
int fg_verdict_judge_kept(fg_verdict **out, fg_verdict_judge *j, const fg_capture_kept *kept,
                          const fg_repo_commit *commit, fg_error *err);

/* The run-to-run noise that the spread of judged runs shows: the runs
 * judged fast, and those judged slow, each group against its own mean
 * (pooled shares), less the sampling variance each run's counts explain
 * (phi included): the method-of-moments estimate of the between-run
 * variance.  Skips are left out.  A group of one run adds nothing; drift
 * within a group makes the estimate larger, not smaller. */
typedef struct fg_noise_estimate {
	double noise;   /* points; 0 when the spread is all sampling */
	size_t runs;    /* runs that went into it (groups of two or more) */
	size_t df;      /* degrees of freedom: runs less groups; 0 means no estimate */
} fg_noise_estimate;

void fg_verdict_noise_estimate(fg_noise_estimate *out, const fg_verdict *const *verdicts, size_t n);

/* Whether a --profile template holds none of {commit}, {short} and {date}:
 * one file for every commit. */
bool fg_verdict_profile_is_fixed(const char *tmpl);

/* Expands {commit}, {short} and {date} in a --profile template into *out
 * (free() it).  FG_EUSAGE for another {word}; a '{' not opening a
 * placeholder stays as it is. */
int fg_verdict_expand(char **out, const char *tmpl, const fg_repo_commit *commit, fg_error *err);

/* Loads a runs file from a path or a URL (downloaded with fetch, NULL:
 * defaults, but never through the cache: a runs file gains lines under the
 * same URL); a URL stays the base its relative locations are
 * resolved against and the name in messages.  warning receives the fetch's
 * warning, if any.  Errors as fg_fetch and fg_runs_load give them. */
int fg_verdict_load_runs(fg_runs **out, const char *location, const fg_fetch_options *fetch,
                         char warning[256], fg_error *err);

#endif
