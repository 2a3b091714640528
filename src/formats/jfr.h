/* fgbisect — JDK Flight Recorder recordings (async-profiler's -o jfr and the
 * JDK's own .jfr), read without a JVM (docs/formats.md).
 *
 * A recording is a sequence of chunks; each holds its own metadata (the
 * event and type layouts), constant pools (threads, stack traces, methods,
 * classes, symbols) and events, with LEB128 integers.  The reader takes one
 * chunk at a time, aggregates the chosen event's samples by stack, thread and
 * class, and adds the resolved stacks to a tree; nothing of a chunk is kept
 * once it is read. */
#ifndef FG_JFR_H
#define FG_JFR_H

#include "io/input.h"
#include "model/profile.h"
#include "model/tree.h"

/* Hands the samples of the event opts->event (default: the first of cpu,
 * wall, alloc, lock that the first chunk with samples holds) within
 * [opts->from, opts->to) to fn as stacks, root first, with a thread frame
 * first when opts->threads is set: one stack per distinct (stack trace,
 * thread, class) of a chunk.  With stop (fg_stop_fn, ctx its context; may be
 * NULL), a stack trace is read from its leaf up to the first frame stop says
 * ends it and handed partial.  With inert (fg_inert_fn; may be NULL), a
 * trace of the usual layout whose frames are all inert is handed as its
 * leaf alone (with the thread and class frames).  Sets info->event and
 * info->unit.  Fails with FG_EINVALID on a damaged or truncated recording.
 * With opts->split, the chunks after the first are read and passed over by
 * a second thread while this one hands the stacks on, in chunk order (fn,
 * stop, inert and names are used on this thread only); the outcome is the
 * one-thread reading's. */
int fg_jfr_read(fg_profile_info *info, fg_input *in, fg_names *names, const fg_read_options *opts,
		fg_stack_fn fn, fg_stop_fn stop, fg_inert_fn inert, void *ctx, fg_error *err);

/* A tree built from JFR stacks with the frame types async-profiler's
 * converter gives: fg_jfr_typing_add_stack is the fg_stack_fn (ctx = the
 * typing) that adds each stack to the tree and counts its Java frame types
 * per node; fg_jfr_typing_apply then types every merged node by majority. */
typedef struct fg_jfr_typing fg_jfr_typing;
int fg_jfr_typing_new(fg_jfr_typing **out, fg_tree *tree, fg_error *err);
int fg_jfr_typing_add_stack(void *typing, const fg_stack *stack, fg_error *err);
void fg_jfr_typing_apply(fg_jfr_typing *t);
void fg_jfr_typing_free(fg_jfr_typing *t);

#endif
