/* libFuzzer target: the pprof reader (the protobuf wire format, the
 * tables, locations with inlined lines, sample types, labels), read with the
 * default sample type and with one asked for by name and two label keys as
 * frames, streamed into the analyses; share's stacks cut at a matching
 * frame against whole ones; the samples replayed from the first pass's
 * record against the same samples read in a second pass (the record
 * overflowing) and without a record. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_analyses.h"
#include "formats/pprof.h"

/* The stacks handed over, as a hash of their names, types, counts and
 * cuts, in their order. */
struct stacks {
	fg_names *names;
	uint64_t hash, n;
};

static void mix(struct stacks *s, const void *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		s->hash = (s->hash ^ ((const uint8_t *)d)[i]) * UINT64_C(0x100000001b3);
}

static int hash_stack(void *ctx, const fg_stack *st, fg_error *err)
{
	(void)err;
	struct stacks *s = ctx;
	for (size_t i = 0; i <= st->depth; i++) {
		const char *name = fg_names_get(s->names, st->names[i]);
		mix(s, name, strlen(name) + 1);
		mix(s, &st->types[i], 1);
	}
	mix(s, &st->count, sizeof(st->count));
	mix(s, &st->partial, sizeof(st->partial));
	s->n++;
	return 0;
}

/* Stops at the names that hold an 'a' (a cut somewhere in most stacks). */
static int stop_at_a(void *ctx, uint32_t name, bool *stop, fg_error *err)
{
	(void)err;
	struct stacks *s = ctx;
	*stop = strchr(fg_names_get(s->names, name), 'a') != NULL;
	return 0;
}

/* The record bounded at 32 MiB (it holds the samples) and at a few bytes
 * (it overflows: a second pass) against none: the same stacks, or the same
 * error.  Three readings, the one without a record shared. */
static void same_record(const uint8_t *data, size_t size, const fg_read_options *o, bool stop)
{
	const size_t max[3] = { 0, (size_t)32 << 20, 1 + size % 97 };
	struct stacks s[3] = { { 0 }, { 0 }, { 0 } };
	fg_error err[3];
	int rc[3] = { -1, -1, -1 };
	for (int i = 0; i < 3; i++) {
		fg_input *in = NULL;
		fg_profile_info info = { 0 };
		fg_error_clear(&err[i]);
		if (fg_names_new(&s[i].names, &err[i]) ||
		    fg_input_open_memory(&in, data, size, "fuzz", FUZZ_MAX_SIZE, &err[i]))
			__builtin_trap();
		rc[i] = fg_pprof_read_bounded(&info, in, s[i].names, o, hash_stack, stop ? stop_at_a : NULL, &s[i],
					      max[i], &err[i]);
		fg_input_free(in);
		fg_names_free(s[i].names);
		if (i && (rc[0] != rc[i] || (rc[0] && strcmp(err[0].message, err[i].message)) ||
		          s[0].hash != s[i].hash || s[0].n != s[i].n))
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* share's stop and inert functions with one pattern set and one set of
	 * options an input, both from its last byte (bit 0, bit 1): two
	 * readings, not four; the fuzzer flips a bit to reach the others (and
	 * run.sh seeds each real profile with both bits flipped too). */
	const uint8_t last = size ? data[size - 1] : 0;
	const size_t set = last & 1;
	const bool typed_stop = last & 2;
	analyses_run_paths(data, size, analyses_sink());
	fg_read_options o;
	fg_read_options_init(&o);
	o.max_size = FUZZ_MAX_SIZE;
	o.sample_type = size % 2 ? "cpu" : "samples/count";
	static const char *const keys[] = { "thread", "span" };
	o.labels = keys;
	o.nlabels = 2;
	analyses_run_with(data, size, &o, true, analyses_sink());
	if (typed_stop)
		analyses_same_share_stop(data, size, &o, set);
	fg_read_options_init(&o);
	o.max_size = FUZZ_MAX_SIZE;
	if (!typed_stop)
		analyses_same_share_stop(data, size, &o, set);
	same_record(data, size, &o, size % 3 == 0);
	return 0;
}
