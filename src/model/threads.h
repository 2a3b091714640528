/* fgbisect — async-profiler's thread frames merged away (--merge-threads).
 *
 * A -t profile puts every stack under a frame of its thread, "[zb-actors-0
 * tid=1234]", right below the root, so the same code is split into one
 * column per thread, and how the work falls to the threads of a pool
 * changes from run to run.  This visitor sits between a reader and the
 * visitor it reads for and drops those frames (fg_normalize_is_thread_frame,
 * at depth 1 only): a stack's frames below a thread frame move up one level,
 * so a tree (fg_tree: same-named siblings merge) adds the code up once, and
 * a stack whose only frame is its thread's becomes root samples.  Every
 * other frame, and every count, is left as it is. */
#ifndef FG_THREADS_H
#define FG_THREADS_H

#include "base/error.h"
#include "model/names.h"
#include "model/profile.h"

typedef struct fg_thread_merge fg_thread_merge;

/* A visitor that passes what a reader gives on to inner without thread
 * frames.  names: the reader's interner (the names are looked at, not
 * changed).  inner's stop and inert functions are kept (stop answers false
 * for a thread frame: it is dropped, never a stack's point to stop at). */
int fg_thread_merge_new(fg_thread_merge **out, const fg_names *names, const fg_visitor *inner, fg_error *err);
void fg_thread_merge_free(fg_thread_merge *merge);

/* The visitor to hand the reader; valid while merge is. */
const fg_visitor *fg_thread_merge_visitor(const fg_thread_merge *merge);

#endif
