/* libFuzzer target: the JFR reader (chunks, metadata, constant pools,
 * LEB128 fields, nested types), read with the default options and with
 * thread frames, a chosen event and a percentage window, streamed into the
 * analyses as frames (through a tree) and stack by stack; share's stacks
 * cut at a matching frame against whole ones (with one of the two sets of
 * options an input); an input of several chunks read on two threads
 * (fg_read_options.split) against one. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_analyses.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One reading stack by stack into every analysis: its outcome, and the
 * results as the commands would print them. */
struct outcome {
	int rc;
	fg_error err;
	fg_profile_info info;
	char *out;
	size_t out_len;
};

static void read_stacks(struct outcome *o, struct analyses *a, const uint8_t *data, size_t size,
			const fg_read_options *ro)
{
	memset(o, 0, sizeof(*o));
	fg_error_clear(&o->err);
	o->rc = analyses_new(a, NULL, &o->err);
	if (!o->rc)
		o->rc = fg_reader_read_memory(&o->info, data, size, "fuzz", a->names, ro,
					      &(fg_visitor){ analyses_frames, analyses_stack, a, NULL, NULL }, &o->err);
	if (!o->rc) {
		FILE *f = open_memstream(&o->out, &o->out_len);
		if (f) {
			analyses_report(a, f);
			fclose(f);
		}
	}
}

/* Whether the input is one chunk as its header says (its size field covers
 * the input): the reader then has no chunk to hand to a second thread and
 * reads with split as without (split_chunks()), so the second reading
 * would be the first again. */
static bool one_chunk(const uint8_t *data, size_t size)
{
	uint64_t chunk = 0;
	if (size < 16)
		return true;
	for (int i = 8; i < 16; i++)
		chunk = chunk << 8 | data[i];
	return chunk >= size;
}

/* The chunks on two threads against one: the same outcome, message, counts
 * and results (the names are interned in the same order, by one thread).
 * The reading on one thread is also the stack path's with these options. */
static void same_split(const uint8_t *data, size_t size, fg_read_options *ro)
{
	struct analyses a[2] = { { 0 }, { 0 } };
	struct outcome x[2];
	const int ways = one_chunk(data, size) ? 1 : 2;
	for (int i = 0; i < ways; i++) {
		ro->split = i;
		read_stacks(&x[i], &a[i], data, size, ro);
	}
	ro->split = false;
	if (ways == 2 && (x[0].rc != x[1].rc || strcmp(x[0].err.message, x[1].err.message)))
		__builtin_trap();
	if (ways == 2 && !x[0].rc) {
		if (x[0].info.total != x[1].info.total || x[0].info.frames != x[1].info.frames ||
		    strcmp(x[0].info.event, x[1].info.event) || x[0].out_len != x[1].out_len ||
		    (x[0].out_len && memcmp(x[0].out, x[1].out, x[0].out_len)))
			__builtin_trap();
		analyses_same(&a[0], &a[1]);
	}
	for (int i = 0; i < ways; i++) {
		free(x[i].out);
		analyses_free(&a[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* share's stop and inert functions with one pattern set and one set of
	 * options an input, both from its last byte (bit 0, bit 1): four
	 * readings, not eight; the fuzzer flips a bit to reach the others. */
	const uint8_t last = size ? data[size - 1] : 0;
	const size_t set = last & 1;
	const bool window_stop = last & 2;
	static const char *const events[] = { NULL, "cpu", "alloc", "lock", "wall" };
	analyses_run(data, size, false, analyses_sink());
	fg_read_options o;
	fg_read_options_init(&o);
	o.max_size = FUZZ_MAX_SIZE;
	o.threads = true;
	o.event = events[size % 5];
	o.from = (fg_time_bound){ .set = true, .percent = true, .value = 10 };
	o.to = (fg_time_bound){ .set = true, .value = 5 };
	if (window_stop)
		analyses_same_share_stop(data, size, &o, set);
	same_split(data, size, &o);
	fg_read_options_init(&o);
	o.max_size = FUZZ_MAX_SIZE;
	if (!window_stop)
		analyses_same_share_stop(data, size, &o, set);
	same_split(data, size, &o);
	/* A --max-size inside the recording (which chunk it falls in, from
	 * the input's first byte). */
	o.max_size = size > 1 ? 1 + data[0] * (uint64_t)size / 256 : 1;
	same_split(data, size, &o);
	return 0;
}
