/* fgbisect — which profiles may be compared: a gRPC profile against a REST
 * one has other request paths, a cpu profile against an alloc one measures
 * other things, and so do counts of different units (samples, bytes, ns);
 * unknown is compatible with anything.  The guard of `diff`
 * and `hotfiles BASE CANDIDATE`; it returns the conflict as data and the
 * command decides (refuse, or warn under --force).  Pure functions. */
#ifndef FG_COMPARE_H
#define FG_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/diff.h"
#include "analysis/protocol.h"

/* One profile of a comparison, as its reading found it. */
typedef struct fg_compare_input {
	const char *location;      /* what is read: a path or URL as given */
	const char *source;        /* what is shown: the location without credentials */
	fg_diff_side side;
	fg_protocol_kind protocol; /* FG_PROTOCOL_UNKNOWN when not detected */
	const char *event;         /* NULL when the profile does not say */
	char unit[24];             /* what its counts count (fg_profile_unit): samples, bytes, ns */
	char title[256];           /* its <h1>, or "" */
	uint64_t total;
} fg_compare_input;

typedef enum {
	FG_COMPARE_OK = 0,
	FG_COMPARE_PROTOCOL, /* gRPC against REST */
	FG_COMPARE_EVENT,    /* different events (cpu, alloc, wall, lock) */
	FG_COMPARE_UNIT,     /* different units (samples against bytes or ns) */
} fg_compare_kind;

typedef struct fg_compare_conflict {
	fg_compare_kind kind;
	size_t a, b;         /* the two inputs, a < b */
} fg_compare_conflict;

/* Fills x's protocol, event, unit, title and total from what reading its
 * profile found (info) and the protocol detected. */
void fg_compare_input_seen(fg_compare_input *x, fg_protocol_kind protocol, const fg_profile_info *info);

/* A side of a comparison as its profiles say: their sources in order, and
 * the protocol and the event they all give ("mixed" when they differ,
 * fg_protocol_join; the protocol "unknown" and the event NULL when none
 * says). */
typedef struct fg_compare_side {
	const char **sources;   /* malloc'ed; the strings are the inputs' */
	size_t nsources;
	const char *protocol;
	const char *event;
} fg_compare_side;

/* The side of in[0..n) (fg_compare_side_clear it whatever the result). */
int fg_compare_side_get(fg_compare_side *out, const fg_compare_input *in, size_t n, fg_diff_side side,
			fg_error *err);
void fg_compare_side_clear(fg_compare_side *s);

/* The first pair of in[0..n) (within a side and across, in order) that must
 * not be compared: true with *out filled, else false (out->kind OK). */
bool fg_compare_find_conflict(fg_compare_conflict *out, const fg_compare_input *in, size_t n);

#endif
