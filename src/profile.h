/* fgbisect — the profile model and its reader.
 *
 * A profile is a call tree whose root (depth 0, named "all") holds every
 * sample.  Readers stream it to a visitor as frames in DFS pre-order: a
 * frame's parent is the last frame seen one level up, and `total` is its
 * inclusive sample count (the width of the flame).  Self counts are
 * total - sum(children totals).  Names are interned ids (src/names.h) without
 * type suffixes; the frame type carries what `_[j]`, `_[k]`... said. */
#ifndef FG_PROFILE_H
#define FG_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "names.h"

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

/* Called once per frame in DFS pre-order, then with frame == NULL once at
 * the end of the profile.  Non-zero stops the reader and is returned. */
typedef int (*fg_frame_fn)(void *ctx, const fg_frame *frame, fg_error *err);

enum fg_format {
	FG_FORMAT_UNKNOWN = 0,
	FG_FORMAT_HTML_V2,       /* 2.0-2.7: f(level,left,width,type,'title'), type numbering by root */
	FG_FORMAT_HTML_V2_8,     /* 2.8-2.10: + optional inln,c1,int */
	FG_FORMAT_HTML_V3,       /* 3.x-4.x: cpool + f/u/n */
	FG_FORMAT_COLLAPSED,
};

typedef struct fg_read_options {
	bool reversed;       /* the stacks are leaf-first (a --reverse graph): rebuild root-first. Default false. */
	uint64_t max_size;   /* cap on the decompressed input; 0 = FG_INPUT_DEFAULT_MAX_SIZE (4 GiB) */
} fg_read_options;

void fg_read_options_init(fg_read_options *opts);

typedef struct fg_profile_info {
	enum fg_format format;
	bool gzip;
	bool inverted;        /* HTML drawing flag inverted/reverse = true: the stacks may be reversed */
	bool differential;    /* 4.4+ differential graph (maxdiff >= 0); its tree is the second profile */
	bool missing_final_newline; /* collapsed input whose last line had no '\n' */
	char title[256];      /* the HTML <h1>, or "" */
	uint64_t total;       /* samples in the profile (the root's total) */
	uint64_t frames;      /* frames visited, root included */
} fg_profile_info;

/* A short name of the format: "html-2.x", "html-3.x-4.x" or "collapsed"
 * (reports add "+gzip" for compressed input). */
const char *fg_format_name(enum fg_format format);

/* Reads the profile at path ("-" = stdin) and streams its frames to fn.
 * Fails with FG_EINVALID for anything that is not a complete, consistent
 * profile; frames already visited are then to be discarded. */
int fg_profile_read(fg_profile_info *info, const char *path, fg_names *names,
		    const fg_read_options *opts, fg_frame_fn fn, void *ctx, fg_error *err);

/* The same from memory (tests, fuzzing). */
int fg_profile_read_memory(fg_profile_info *info, const void *data, size_t len, const char *name,
			   fg_names *names, const fg_read_options *opts, fg_frame_fn fn, void *ctx,
			   fg_error *err);

/* The collapsed-stack suffix of a type ("_[j]"...; "" for native and C++). */
const char *fg_frame_type_suffix(enum fg_frame_type type);

#endif
