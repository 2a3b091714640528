/* fgbisect — the differential flame graph writer.
 *
 * One self-contained interactive SVG (inline CSS and JavaScript, nothing
 * fetched) of the two pooled call trees of a diff, drawn per path (a frame
 * at the same place in both trees), widths from one tree, root at the
 * bottom (a flame graph, as async-profiler draws it; "Invert" puts it at
 * the top).
 *
 * Colour shows signal, not noise: a frame is coloured only when the diff
 * lists it (its share, inclusive or self with FG_SVG_COLOR_SELF, changed
 * beyond noise by the diff's test, by at least FG_DIFF_FLOOR and more than
 * its min_delta) and the path itself moved the same way by more than its own noise: the
 * spread of the path's share among the base profiles (fg_diff_path_noise)
 * and at least the sampling error of the two shares (1.96 standard
 * errors).  Everything else is grey.  A regression spread over many call
 * paths (each below the floor) is coloured on each of them.  The colour is
 * the frame's change in all, red (grew) or blue (shrank), on a fixed scale
 * from the floor (the larger of FG_DIFF_FLOOR and min_delta; light) to `saturate` points (dark) that the key states.  Frames new in the candidate (in the candidate-width graph) or
 * gone from it (base widths) are hatched whatever their colour.
 *
 * Labels are shortened package path first, so the class and the method
 * stay.  The tooltip (<title>, echoed on the bottom line on hover) gives
 * both sides' samples and shares, inclusive and self, the change and the
 * noise.  Click a frame to zoom into its subtree, click the root to reset;
 * "Search" (or Ctrl-F) highlights the frames matching a regular expression
 * and shows the share of both sides in the matched paths.
 *
 * Frames narrower than min_width pixels are not drawn (nor their subtrees),
 * so the file stays small whatever the profile; the key line says how many.
 * Names are escaped for XML; bytes that are not UTF-8 become U+FFFD and
 * control characters '?'.  With `fragment` the XML declaration is left out
 * and the script only touches its own <svg> element, so the graph can be
 * inlined in an HTML page. */
#ifndef FG_SVG_H
#define FG_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/diff.h"

typedef enum { FG_SVG_COLOR_INCLUSIVE = 0, FG_SVG_COLOR_SELF } fg_svg_color;

/* What one side of the diff is, for the header lines. */
typedef struct fg_svg_side {
	const char *const *sources; /* the profiles, as given */
	size_t nsources;
	const char *protocol;       /* "grpc", "rest", "unknown", "mixed", or NULL */
	const char *event;          /* "cpu", …, "mixed", or NULL when no profile says */
} fg_svg_side;

typedef struct fg_svg_options {
	const char *title;       /* default "Differential flame graph" */
	fg_svg_side base, candidate; /* default: no sources named */
	bool base_widths;        /* widths from the base tree, so vanished frames show; default false */
	fg_svg_color color;      /* which share's change colours a frame; default inclusive */
	double saturate;         /* change drawn darkest, points; default 5 (at least 2 × the diff's min_delta) */
	double width;            /* image width in pixels; default 1200 */
	double min_width;        /* narrower frames are left out, pixels; default 0.1 */
	bool inverted;           /* root at the top (an icicle); default false */
	bool fragment;           /* for inlining in HTML: no XML declaration; default false */
	/* The search the picture opens with (a JavaScript regular expression:
	 * its matches highlighted and their shares added up, as the Search
	 * button does); default NULL: none. */
	const char *search;
} fg_svg_options;

void fg_svg_options_init(fg_svg_options *opts);

/* Writes the differential flame graph of diff, which must have been made
 * with the trees option and have read every profile (the writer computes
 * the diff's lists, by the colour's share, with the diff's own options).
 * Returns 0, FG_EUSAGE (no trees), FG_ENOMEM, or FG_EOUTPUT when out fails. */
int fg_svg_write_diff(FILE *out, fg_diff *diff, const fg_names *names, const fg_svg_options *opts, fg_error *err);

#endif
