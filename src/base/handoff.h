/* fgbisect — one thread's work handed to another as it is made.
 *
 * A reader that splits its input (a large HTML page, a JFR recording's
 * chunks) starts one second thread, the producer, whose results the calling
 * thread, the consumer, takes in order as they come.  The producer counts
 * what it has made (a position: records written, chunks loaded) and
 * publishes it; the consumer waits for the position to pass what it has,
 * and says how far it has taken, which frees room for a producer that
 * writes into a bounded set of buffers.  What the position covers is
 * written before its publish and read after the wait that sees it: the
 * hand-off's lock orders the two, so the data itself needs none. */
#ifndef FG_HANDOFF_H
#define FG_HANDOFF_H

#include <stdbool.h>
#include <stdint.h>

typedef struct fg_handoff fg_handoff;

/* The producer's work, on the second thread: publishes as it goes, and its
 * last publish says end. */
typedef void (*fg_handoff_fn)(fg_handoff *h, void *ctx);

/* Starts run(h, ctx) on a new thread, *out set before it starts (run may
 * read it from ctx).  room: the most the position may run ahead of what the
 * consumer has taken (fg_handoff_room waits for it); 0 for no bound.  Fails
 * (non-zero, nothing started, *out NULL) when the thread or its lock cannot
 * be had: the caller then does the work on its own thread. */
int fg_handoff_start(fg_handoff **out, uint64_t room, fg_handoff_fn run, void *ctx);

/* Producer: the position is pos (it never goes back); end: nothing more
 * follows (the producer returns after).  Wakes the consumer when it waits. */
void fg_handoff_publish(fg_handoff *h, uint64_t pos, bool end);

/* Producer: waits until position pos fits the room (pos < taken + room);
 * false when the consumer has stopped the hand-off (stop making). */
bool fg_handoff_room(fg_handoff *h, uint64_t pos);

/* Producer: whether the consumer has stopped the hand-off (a cheap check
 * for a long piece of work). */
bool fg_handoff_stopped(const fg_handoff *h);

/* Consumer: waits until the position passes have or the producer has
 * ended; returns the position published (== have only at the end) and sets
 * *end when no more follows. */
uint64_t fg_handoff_wait(fg_handoff *h, uint64_t have, bool *end);

/* Consumer: everything below taken is taken (frees the producer's room). */
void fg_handoff_take(fg_handoff *h, uint64_t taken);

/* Consumer: tells the producer to stop, waits for its thread to end and
 * frees the hand-off (NULL: nothing). */
void fg_handoff_stop(fg_handoff *h);

#endif
