/* base/handoff.h: a bounded two-slot ring (the JFR reader's use), an
 * unbounded stream with an end (the HTML reader's), and a stop while the
 * producer waits for room. */
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include "base/handoff.h"
#include "check.h"

enum { ITEMS = 2000, EMPTY = -1 };

struct ring {
	int64_t slot[2];
	uint64_t overwritten; /* slots written before the consumer had taken them */
	bool refused;         /* fg_handoff_room said stop */
};

static void ring_produce(fg_handoff *h, void *ctx)
{
	struct ring *r = ctx;
	for (uint64_t i = 0; i < ITEMS; i++) {
		if (!fg_handoff_room(h, i)) {
			r->refused = true;
			return;
		}
		if (r->slot[i % 2] != EMPTY)
			r->overwritten++;
		r->slot[i % 2] = (int64_t)(i * i);
		fg_handoff_publish(h, i + 1, i + 1 == ITEMS);
	}
}

static void test_ring(void)
{
	struct ring r = { { EMPTY, EMPTY }, 0, false };
	fg_handoff *h;
	CHECK(fg_handoff_start(&h, 2, ring_produce, &r) == 0);
	uint64_t bad = 0;
	bool end = false;
	for (uint64_t i = 0; i < ITEMS; i++) {
		if (i == 0)
			usleep(20000); /* the producer runs ahead as far as the room lets it */
		uint64_t pos = fg_handoff_wait(h, i, &end);
		CHECK(pos > i);
		bad += r.slot[i % 2] != (int64_t)(i * i);
		r.slot[i % 2] = EMPTY;
		fg_handoff_take(h, i + 1);
	}
	CHECK(end);
	fg_handoff_stop(h);
	CHECK_U64(bad, 0);
	CHECK_U64(r.overwritten, 0);
	CHECK(!r.refused);
}

struct stream {
	uint64_t words[4096];
};

static void stream_produce(fg_handoff *h, void *ctx)
{
	struct stream *s = ctx;
	for (uint64_t i = 0; i < 4096; i++) {
		s->words[i] = i + 7;
		if (i % 100 == 99)
			fg_handoff_publish(h, i + 1, false);
	}
	fg_handoff_publish(h, 4096, true);
}

static void test_stream(void)
{
	static struct stream s;
	fg_handoff *h;
	CHECK(fg_handoff_start(&h, 0, stream_produce, &s) == 0);
	uint64_t have = 0, sum = 0;
	bool end = false;
	while (!end) {
		uint64_t pos = fg_handoff_wait(h, have, &end);
		CHECK(pos >= have);
		for (; have < pos; have++)
			sum += s.words[have];
	}
	fg_handoff_stop(h);
	CHECK_U64(have, 4096);
	CHECK_U64(sum, 4096ull * 4095 / 2 + 7 * 4096ull);
}

static void test_stop_waiting(void)
{
	struct ring r = { { EMPTY, EMPTY }, 0, false };
	fg_handoff *h;
	CHECK(fg_handoff_start(&h, 2, ring_produce, &r) == 0);
	/* Nothing taken: the producer makes two and waits for room. */
	bool end;
	CHECK_U64(fg_handoff_wait(h, 1, &end), 2);
	CHECK(!end);
	fg_handoff_stop(h);
	CHECK(r.refused);
	CHECK_U64(r.slot[0], 0);
	CHECK_U64(r.slot[1], 1);
}

int main(void)
{
	test_ring();
	test_stream();
	test_stop_waiting();
	return check_status("handoff");
}
