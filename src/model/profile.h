/* fgbisect — the profile model and its reader.
 *
 * A profile is a call tree whose root (depth 0, named "all") holds every
 * sample.  Readers stream it to a visitor as frames in DFS pre-order: a
 * frame's parent is the last frame seen one level up, and `total` is its
 * inclusive sample count (the width of the flame).  Self counts are
 * total - sum(children totals).  Names are interned ids (src/model/names.h) without
 * type suffixes; the frame type carries what `_[j]`, `_[k]`... said. */
#ifndef FG_PROFILE_H
#define FG_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "model/names.h"

/* async-profiler's FrameTypeId (v2.7+ numbering). */
enum fg_frame_type {
	FG_FRAME_INTERPRETED = 0, /* _[0] */
	FG_FRAME_JIT = 1,         /* _[j] */
	FG_FRAME_INLINED = 2,     /* _[i] */
	FG_FRAME_NATIVE = 3,
	FG_FRAME_CPP = 4,
	FG_FRAME_KERNEL = 5,      /* _[k] */
	FG_FRAME_C1 = 6,          /* _[1] */
	FG_FRAME_TYPE_COUNT
};

typedef struct fg_frame {
	uint32_t depth;  /* 0 = the root */
	uint32_t name;   /* fg_names id */
	uint8_t type;    /* enum fg_frame_type */
	uint64_t total;  /* inclusive samples (or units for --total profiles) */
} fg_frame;

/* The visitor interface every reader emits through and every streamed
 * analysis implements.
 *
 * Frames come in batches: each call hands n >= 1 frames in DFS pre-order (a
 * frame's parent is the last frame before it one level up, in this batch or
 * an earlier one; the first frame of a profile is the root, depth 0), and
 * once at the end of the profile the call is made with frames == NULL and
 * n == 0.  One indirect call per batch, not per frame: a visitor loops over
 * the batch with its state in registers.  A reader checks every frame before
 * it enters a batch; a visitor may rely on depth rising by one at most and
 * on children fitting in their parents.  The batch is the reader's buffer,
 * valid during the call only.  Non-zero stops the reader and is returned;
 * frames already handed over are then to be discarded.  FG_FRAME_BATCH is
 * the batch size readers use (a visitor must accept any n). */
typedef int (*fg_frames_fn)(void *ctx, const fg_frame *frames, size_t n, fg_error *err);

#define FG_FRAME_BATCH 512

/* One whole stack of a stack-based input (collapsed lines; any format whose
 * samples are stacks): names[0] is the root ("all"), names[1..depth] the
 * frames root-first; count samples (may be 0).  Stacks come in file order,
 * the same stack possibly more than once. */
typedef struct fg_stack {
	const uint32_t *names;  /* depth + 1 name ids, the root first */
	const uint8_t *types;   /* depth + 1 frame types */
	size_t depth;           /* frames below the root */
	uint64_t count;
	/* Only for a visitor with a stop function (below): the reader stopped
	 * at names[1], a frame whose name stop answered true for, so
	 * names[1..depth] are that frame and frames below it, the last the
	 * leaf; the frames between the root and it were not given, nor need
	 * those between it and the leaf be (depth is then not the stack's
	 * depth).  False for a whole stack, which for a visitor with an
	 * inert function (below) may lack frames it answered true for, never
	 * its last (depth is then not the stack's depth either). */
	bool partial;
} fg_stack;

/* Called once per stack; non-zero stops the reader and is returned. */
typedef int (*fg_stack_fn)(void *ctx, const fg_stack *stack, fg_error *err);

/* Optional, with stack: *stop = true when a stack that holds a frame of
 * this name needs of its other frames only the leaf (share: the name matches
 * every pattern, so the stack is counted whatever its other frames are, and
 * the leaf decides the self share).  A reader whose stacks list their frames
 * leaf first (JFR stack traces, pprof samples) asks once per name it meets
 * and may then stop reading a stack at such a frame and hand it partial
 * (fg_stack.partial): one frame a stack needs is then the end of its
 * decoding, and the frames between it and the leaf may be left out.  A reader keeps every check it makes on the frames it steps
 * over, so a damaged input fails as it does without stop.  Non-zero fails
 * the read and is returned. */
typedef int (*fg_stop_fn)(void *ctx, uint32_t name, bool *stop, fg_error *err);

/* Optional, with stack: *inert = true when a frame of this name changes
 * nothing the visitor computes unless it is the stack's last frame (share:
 * the name matches no pattern).  A reader may then leave such frames out of
 * a whole stack, but for the last: a JFR stack trace whose frames are all
 * inert is handed as its leaf alone (with the thread and class frames the
 * options add), for share no scan of its frames.  Asked once per name a
 * reader meets, as stop; a reader still reads and checks every frame, so a
 * damaged input fails as it does without it.  Non-zero fails the read and
 * is returned. */
typedef int (*fg_inert_fn)(void *ctx, uint32_t name, bool *inert, fg_error *err);

/* Translates a name id into another of the same interner (e.g. a name into
 * its normalised name: fg_namemap_get); it is called once per distinct name
 * by the analyses and trees that take one. */
typedef int (*fg_name_map_fn)(void *ctx, uint32_t name, uint32_t *mapped, fg_error *err);

/* What a reader hands its data to.  frames is required.  stack is optional:
 * an analysis that needs only per-stack facts (share, top, subsystems,
 * protocol) sets it, and a stack-based input is then streamed to it line by
 * line in memory bounded by the longest stack and the distinct names; the
 * end call is still frames(ctx, NULL, 0).  Without it (collapse, diff, the
 * SVG: they need the tree) a stack-based input is first merged into a call
 * tree, which is then visited as frames. */
typedef struct fg_visitor {
	fg_frames_fn frames;
	fg_stack_fn stack;
	void *ctx;
	fg_stop_fn stop; /* optional, with stack: see fg_stop_fn; NULL = whole stacks only */
	fg_inert_fn inert; /* optional, with stack: see fg_inert_fn; NULL = every frame given */
} fg_visitor;

enum fg_format {
	FG_FORMAT_UNKNOWN = 0,
	FG_FORMAT_HTML_V2,       /* 2.0-2.7: f(level,left,width,type,'title'), type numbering by root */
	FG_FORMAT_HTML_V2_8,     /* 2.8-2.10: + optional inln,c1,int */
	FG_FORMAT_HTML_V3,       /* 3.x-4.x: cpool + f/u/n */
	FG_FORMAT_COLLAPSED,
	FG_FORMAT_JFR,           /* JDK Flight Recorder (async-profiler -o jfr, the JDK's own) */
	FG_FORMAT_PPROF,         /* profile.proto */
	FG_FORMAT_SVG,           /* flamegraph.pl / inferno / async-profiler 1.x */
	FG_FORMAT_PERF_SCRIPT,   /* `perf script` text */
};

/* A point of a time-stamped recording (JFR): seconds from its start, or a
 * percentage of its length. */
typedef struct fg_time_bound {
	bool set;
	bool percent;
	double value;
} fg_time_bound;

/* Stacks deeper than this are refused: a million frames, where real
 * profilers stop at thousands (async-profiler's default 2048, JFR's 64,
 * Go's 128, perf's 127), and a stack costs 5 bytes a frame to hold. */
#define FG_READ_DEFAULT_MAX_DEPTH 1000000

typedef struct fg_read_options {
	bool reversed;       /* the stacks are leaf-first (a --reverse graph): rebuild root-first. Default false. */
	uint64_t max_size;   /* cap on the decompressed input; 0 = FG_INPUT_DEFAULT_MAX_SIZE (4 GiB) */
	uint64_t max_line;   /* cap on one line; 0 = FG_INPUT_DEFAULT_MAX_LINE (64 MiB) */
	uint64_t max_depth;  /* cap on the frames of one stack (collapsed, JFR, pprof, perf script, HTML); 0 =
				FG_READ_DEFAULT_MAX_DEPTH */
	bool threads;        /* JFR: a thread frame "[name tid=N]" under the root, as -t graphs have. Default false. */
	bool merge_threads;  /* async-profiler's thread frames (-t) dropped, so the same code adds up once
				(src/model/threads.h). Default false */
	const char *event;   /* JFR: "cpu", "wall", "alloc" or "lock"; NULL (default) = the first of these present */
	const char *sample_type; /* pprof: a sample type "TYPE" or "TYPE/UNIT"; NULL (default) = the first
				    samples/cpu count type, else the first */
	fg_time_bound from, to; /* JFR: keep only events in [from, to); default unset = all */
	bool base_column;    /* collapsed stacks of two counts a line (stack BASE CURRENT): the BASE counts.
				Default false: the CURRENT ones */
	const char *const *labels; /* pprof: label keys whose values become frames "[KEY=VALUE]" under the
				      root, the first nearest it ("[no KEY]" for a sample without one), as
				      pprof's -tagroot; default none (labels ignored) */
	size_t nlabels;
	bool split;          /* a large async-profiler 3.x+ page in a plain file (or memory) (html.h), or a
				JFR recording of several chunks (jfr.h), may be read on two threads, this
				one and a second: for a caller with a core to spare. Default false: one
				thread */
	uint16_t split_permille; /* with split, an HTML page: where the second thread's part starts, in
				    thousandths of the frame block; 0 (default) = 230, where the two threads'
				    instructions are equal under share's visitor.  What is fastest depends
				    on the visitor and is measured in wall time (cmd_share.c asks 330) */
	/* Tests only (default 0): the smallest frame block split (0 = 4 MiB), the content offset
	   from which the cut is looked for (0 = the reader's choice), a count (NULL = none) of the
	   reads whose second thread's part was taken, one of the full batches of the second part
	   visited before the reading went on from the cut instead, and the second part's record
	   words (0 = the reader's choice; fewer stop the second thread when they are full). */
	struct {
		uint64_t min_block, at;
		uint64_t *joined, *skipped;
		uint64_t rec_words;
	} split_test;
} fg_read_options;

void fg_read_options_init(fg_read_options *opts);

typedef struct fg_profile_info {
	enum fg_format format;
	bool gzip;
	bool inverted;        /* HTML drawing flag inverted/reverse = true: the stacks may be reversed */
	bool differential;    /* 4.4+ differential graph (maxdiff >= 0), its tree the second profile; or
				 collapsed stacks of two counts a line (stack BASE CURRENT) */
	bool missing_final_newline; /* collapsed input whose last line had no '\n' */
	bool narrow_frames_lost; /* an SVG where one sample is narrower than flamegraph.pl's --minwidth
				    (0.1 px): frames that narrow were not drawn, their samples are their callers' self */
	char odd_call;        /* HTML: 'f', 'u' or 'n' when a frame call had a number of arguments async-profiler's
				 converter does not write (a fork's extra ones), read as the page's JavaScript reads it,
				 the unknown arguments ignored; odd_call_args: that call's count.  0 when none */
	uint8_t odd_call_args;
	char title[256];      /* the HTML <h1>, or "" */
	char event[16];       /* what was recorded when the format says: "cpu", "alloc", "wall", "lock"; or "" */
	char unit[24];        /* what the counts count: "samples", "bytes", "ns", "lock waits", a pprof unit;
				 "" when the format does not say (then samples are assumed) */
	uint64_t total;       /* samples in the profile (the root's total) */
	uint64_t frames;      /* frames visited, root included (stacks when streamed as stacks) */
} fg_profile_info;

/* A short name of the format: "html-2.x", "html-3.x-4.x" or "collapsed"
 * (reports add "+gzip" for compressed input). */
const char *fg_format_name(enum fg_format format);

/* What a profile's counts count: the reader's unit, else the units an
 * async-profiler title names under --total ("Allocation profile (bytes)"),
 * else "samples".  A static string or info->unit. */
const char *fg_profile_unit(const fg_profile_info *info);

/* True when the counts are samples, so that a share has a binomial (Wilson)
 * interval; bytes, nanoseconds or lock waits have none. */
bool fg_profile_counts_samples(const fg_profile_info *info);

/* The collapsed-stack suffix of a type ("_[j]"...; "" for native and C++). */
const char *fg_frame_type_suffix(enum fg_frame_type type);

#endif
