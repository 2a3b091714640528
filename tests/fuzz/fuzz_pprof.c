/* libFuzzer target: the pprof reader (the protobuf wire format, the
 * tables, locations with inlined lines, sample types, labels), read with the
 * default sample type and with one asked for by name and two label keys as
 * frames, streamed into the analyses; share's stacks cut at a matching
 * frame against whole ones. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_analyses.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	analyses_run_paths(data, size, analyses_sink());
	fg_read_options o;
	fg_read_options_init(&o);
	o.max_size = FUZZ_MAX_SIZE;
	o.sample_type = size % 2 ? "cpu" : "samples/count";
	static const char *const keys[] = { "thread", "span" };
	o.labels = keys;
	o.nlabels = 2;
	analyses_run_with(data, size, &o, true, analyses_sink());
	analyses_same_share_stop(data, size, &o);
	fg_read_options_init(&o);
	o.max_size = FUZZ_MAX_SIZE;
	analyses_same_share_stop(data, size, &o);
	return 0;
}
