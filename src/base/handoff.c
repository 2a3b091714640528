#include "base/handoff.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct fg_handoff {
	pthread_t thread;
	fg_handoff_fn run;
	void *ctx;
	uint64_t room;
	atomic_bool stopped; /* (also read outside the lock: fg_handoff_stopped) */
	pthread_mutex_t lock;
	pthread_cond_t changed; /* published, taken or stopped */
	/* Under lock: */
	uint64_t pos, taken;
	bool end;
	/* Whether a side waits: the other signals only then (a publish
	 * every few thousand records costs a lock and an unlock, no call
	 * into the kernel). */
	bool consumer_waits, producer_waits;
};

static void *handoff_main(void *arg)
{
	fg_handoff *h = arg;
	h->run(h, h->ctx);
	return NULL;
}

int fg_handoff_start(fg_handoff **out, uint64_t room, fg_handoff_fn run, void *ctx)
{
	*out = NULL;
	fg_handoff *h = calloc(1, sizeof(*h));
	if (!h)
		return -1;
	*h = (fg_handoff){ .run = run, .ctx = ctx, .room = room ? room : UINT64_MAX };
	atomic_init(&h->stopped, false);
	if (pthread_mutex_init(&h->lock, NULL)) {
		free(h);
		return -1;
	}
	if (pthread_cond_init(&h->changed, NULL)) {
		pthread_mutex_destroy(&h->lock);
		free(h);
		return -1;
	}
	*out = h; /* (before the thread starts: run may read it there) */
	if (pthread_create(&h->thread, NULL, handoff_main, h)) {
		*out = NULL;
		pthread_cond_destroy(&h->changed);
		pthread_mutex_destroy(&h->lock);
		free(h);
		return -1;
	}
	return 0;
}

void fg_handoff_publish(fg_handoff *h, uint64_t pos, bool end)
{
	pthread_mutex_lock(&h->lock);
	h->pos = pos;
	h->end = end;
	if (h->consumer_waits)
		pthread_cond_broadcast(&h->changed);
	pthread_mutex_unlock(&h->lock);
}

bool fg_handoff_room(fg_handoff *h, uint64_t pos)
{
	pthread_mutex_lock(&h->lock);
	h->producer_waits = true;
	while (!atomic_load(&h->stopped) && pos - h->taken >= h->room)
		pthread_cond_wait(&h->changed, &h->lock);
	h->producer_waits = false;
	bool go = !atomic_load(&h->stopped);
	pthread_mutex_unlock(&h->lock);
	return go;
}

bool fg_handoff_stopped(const fg_handoff *h)
{
	return atomic_load_explicit(&h->stopped, memory_order_relaxed);
}

uint64_t fg_handoff_wait(fg_handoff *h, uint64_t have, bool *end)
{
	pthread_mutex_lock(&h->lock);
	h->consumer_waits = true;
	while (h->pos <= have && !h->end)
		pthread_cond_wait(&h->changed, &h->lock);
	h->consumer_waits = false;
	uint64_t pos = h->pos;
	*end = h->end;
	pthread_mutex_unlock(&h->lock);
	return pos;
}

void fg_handoff_take(fg_handoff *h, uint64_t taken)
{
	pthread_mutex_lock(&h->lock);
	h->taken = taken;
	if (h->producer_waits)
		pthread_cond_broadcast(&h->changed);
	pthread_mutex_unlock(&h->lock);
}

void fg_handoff_stop(fg_handoff *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	atomic_store(&h->stopped, true);
	pthread_cond_broadcast(&h->changed);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->thread, NULL);
	pthread_cond_destroy(&h->changed);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
