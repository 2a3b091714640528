/* fgbisect — async-profiler HTML flame graphs, 2.0 to 4.x
 * (see docs/formats.md and ../shared/docs/asprof-html-format.md). */
#ifndef FG_HTML_H
#define FG_HTML_H

#include "io/input.h"
#include "model/profile.h"

/* Streams the frames of the HTML page in `in` to fn in batches, in the file's own DFS
 * order, checking every frame against its parent and siblings.  Fails with
 * FG_EINVALID on a page without flame-graph data, a truncated frame block or
 * an inconsistent frame.  opts (may be NULL): with opts->split, a large
 * 3.x+ page in plain content of known size may be read on two threads, the
 * visitor called on the calling one only, with the same frames, batches and
 * errors as on one. */
int fg_html_read(fg_profile_info *info, fg_input *in, fg_names *names, const fg_read_options *opts,
		 fg_frames_fn fn, void *ctx, fg_error *err);

/* Decodes the JavaScript string escapes async-profiler writes (\\ and \') in
 * place; any other backslash is kept with the byte after it, because native
 * 2.x writers do not escape backslashes.  Returns the new length. */
size_t fg_html_unescape(char *s, size_t len);

#endif
