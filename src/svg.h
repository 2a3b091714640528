/* fgbisect — the differential flame graph writer.
 *
 * One self-contained interactive SVG (inline CSS and JavaScript, no external
 * resources) of two pooled call trees with the same name table: drawn per
 * path (a frame at the same place in both trees), root at the top (an
 * icicle, so the wide frames are on screen without scrolling), widths from
 * one tree, colour from the change of the path's inclusive share (candidate
 * - base): red where it grew, blue where it shrank, the intensity growing
 * with the size of the change up to `saturate` points, grey when the change
 * is below `unchanged` points.  Each frame's tooltip (<title>) gives its base
 * and candidate self and inclusive shares and the delta.  Click a frame to
 * zoom into its subtree, click the root to reset; "Search" or Ctrl-F
 * highlights frames matching a regular expression and shows their share.
 *
 * Frames narrower than min_width pixels are not drawn (nor their subtrees,
 * which are narrower still), so the file stays small whatever the profile;
 * the subtitle line says how many were left out.  Names are escaped for XML;
 * bytes that are not UTF-8 become U+FFFD and control characters '?'. */
#ifndef FG_SVG_H
#define FG_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "tree.h"

typedef struct fg_svg_options {
	const char *title;     /* default "Differential flame graph" */
	const char *subtitle;  /* a line under the title (e.g. the sources); default NULL */
	bool base_widths;      /* widths from the base tree, so vanished frames show; default false */
	double width;          /* image width in pixels; default 1200 */
	double min_width;      /* narrower frames are left out, pixels; default 0.1 */
	double saturate;       /* change (points) drawn at full colour; default 5 */
	double unchanged;      /* smaller changes (points) are grey; default 0.05 */
} fg_svg_options;

void fg_svg_options_init(fg_svg_options *opts);

/* Writes the SVG to out.  Both trees must be finished and share names.
 * Returns 0, FG_ENOMEM, or FG_EOUTPUT when out fails. */
int fg_svg_write_diff(FILE *out, const fg_tree *base, const fg_tree *candidate, const fg_names *names,
		      const fg_svg_options *opts, fg_error *err);

#endif
