/* fgbisect — SVG flame graphs: FlameGraph's flamegraph.pl, inferno (the same
 * shape, with exact fg:x / fg:w sample attributes) and async-profiler 1.x.
 *
 * The tree is rebuilt from each frame's <title> ("name (N samples, P%)")
 * and its rectangle: the y coordinate gives the depth, the x extent the
 * parent.  Read line by line; only a small record per frame is kept. */
#ifndef FG_FLAMESVG_H
#define FG_FLAMESVG_H

#include "io/input.h"
#include "model/profile.h"

/* Hands the graph's stacks (each frame's self samples) to fn.  Sets
 * info->unit from the titles' count name ("samples", or flamegraph.pl's
 * --countname), info->title from the graph's title, and
 * info->narrow_frames_lost when one sample is narrower than flamegraph.pl's
 * default --minwidth (0.1 px): frames that narrow were not drawn, and their
 * samples count as their callers' self. */
int fg_flamesvg_read(fg_profile_info *info, fg_input *in, fg_names *names, fg_stack_fn fn, void *ctx,
		     fg_error *err);

#endif
