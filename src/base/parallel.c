#include "base/parallel.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

struct run {
	size_t n, ahead;
	fg_parallel_work_fn work;
	void *ctx;
	pthread_mutex_t lock;
	pthread_cond_t changed; /* an item done, taken, or the run stopped */
	size_t next;            /* the next item to start */
	size_t taken;           /* items taken so far */
	bool stop;
	bool *done;
};

struct lane {
	struct run *run;
	size_t id;
};

static void *lane_main(void *arg)
{
	struct lane *l = arg;
	struct run *r = l->run;
	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (!r->stop && r->next < r->n && r->next >= r->taken + r->ahead)
			pthread_cond_wait(&r->changed, &r->lock);
		if (r->stop || r->next >= r->n)
			break;
		size_t i = r->next++;
		pthread_mutex_unlock(&r->lock);
		r->work(r->ctx, l->id, i);
		pthread_mutex_lock(&r->lock);
		r->done[i] = true;
		pthread_cond_broadcast(&r->changed);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

static int run_in_turn(size_t n, fg_parallel_work_fn work, fg_parallel_take_fn take, void *ctx)
{
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		work(ctx, 0, i);
		rc = take(ctx, i);
	}
	return rc;
}

int fg_parallel_run(size_t n, size_t lanes, size_t ahead, fg_parallel_work_fn work, fg_parallel_take_fn take,
		    void *ctx)
{
	if (lanes > n)
		lanes = n;
	if (lanes > FG_PARALLEL_MAX_LANES)
		lanes = FG_PARALLEL_MAX_LANES;
	if (lanes <= 1)
		return run_in_turn(n, work, take, ctx);
	struct run r = { .n = n, .ahead = ahead > lanes ? ahead : lanes, .work = work, .ctx = ctx,
			 .done = calloc(n, sizeof(bool)) };
	if (!r.done || pthread_mutex_init(&r.lock, NULL)) {
		free(r.done);
		return run_in_turn(n, work, take, ctx);
	}
	if (pthread_cond_init(&r.changed, NULL)) {
		pthread_mutex_destroy(&r.lock);
		free(r.done);
		return run_in_turn(n, work, take, ctx);
	}
	/* The calling thread is the last lane: it works on the next item
	 * while the one to take is not done (fewer threads, and no wait for a
	 * wake-up on a busy machine); a thread that cannot be started leaves
	 * its share to the others. */
	pthread_t threads[FG_PARALLEL_MAX_LANES - 1];
	struct lane ids[FG_PARALLEL_MAX_LANES - 1];
	size_t started = 0;
	for (; started < lanes - 1; started++) {
		ids[started] = (struct lane){ &r, started };
		if (pthread_create(&threads[started], NULL, lane_main, &ids[started]))
			break;
	}
	int rc = 0;
	pthread_mutex_lock(&r.lock);
	for (size_t i = 0; i < n && !rc; i++) {
		while (!r.done[i]) {
			if (r.next < n && r.next < r.taken + r.ahead) {
				size_t k = r.next++;
				pthread_mutex_unlock(&r.lock);
				work(ctx, lanes - 1, k);
				pthread_mutex_lock(&r.lock);
				r.done[k] = true;
				pthread_cond_broadcast(&r.changed);
			} else {
				pthread_cond_wait(&r.changed, &r.lock);
			}
		}
		pthread_mutex_unlock(&r.lock);
		rc = take(ctx, i);
		pthread_mutex_lock(&r.lock);
		r.taken = i + 1;
		r.stop = rc != 0;
		pthread_cond_broadcast(&r.changed);
	}
	pthread_mutex_unlock(&r.lock);
	for (size_t t = 0; t < started; t++)
		pthread_join(threads[t], NULL);
	pthread_cond_destroy(&r.changed);
	pthread_mutex_destroy(&r.lock);
	free(r.done);
	return rc;
}

size_t fg_parallel_cores(void)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	return cores > 0 ? (size_t)cores : 1;
}
