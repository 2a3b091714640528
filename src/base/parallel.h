/* fgbisect — work on several threads, results taken in order.
 *
 * A command that reads N inputs on the machine's cores must answer as one
 * thread would: warnings in argument order, the first failing input's error,
 * nothing read into the shared state out of turn.  fg_parallel_run reads
 * item i on any thread (work) and hands the items to the calling thread in
 * order (take), so everything order-dependent (interning into shared names,
 * pooling, printing warnings) happens in take, on one thread. */
#ifndef FG_PARALLEL_H
#define FG_PARALLEL_H

#include <stddef.h>

/* work(ctx, lane, i): item i, on the thread of lane (0 .. lanes-1: each lane
 * is one thread at a time, so per-lane state needs no lock).  Its result is
 * kept by the caller (per item) for take.
 * take(ctx, i): called on the calling thread for i = 0, 1, ... in order, once
 * item i is done.  Non-zero stops: no item starts after, the running ones
 * finish (their take is not called), and fg_parallel_run returns the value. */
typedef void (*fg_parallel_work_fn)(void *ctx, size_t lane, size_t i);

/* The most lanes fg_parallel_run uses. */
#define FG_PARALLEL_MAX_LANES 256
typedef int (*fg_parallel_take_fn)(void *ctx, size_t i);

/* Runs the n items on up to lanes threads, the calling thread one of them
 * (more lanes than items are not used), with at most ahead items started
 * and not yet taken (>= lanes: what bounds the results held at once).  With
 * lanes <= 1 every item is done and taken in turn on the calling thread
 * (lane 0); a thread that cannot be started leaves its items to the
 * others.  Returns 0 or the first non-zero take. */
int fg_parallel_run(size_t n, size_t lanes, size_t ahead, fg_parallel_work_fn work, fg_parallel_take_fn take,
		    void *ctx);

/* The machine's online cores (at least 1): the default number of lanes. */
size_t fg_parallel_cores(void);

#endif
