/* libFuzzer target: the JFR reader (chunks, metadata, constant pools,
 * LEB128 fields, nested types), read with the default options and with
 * thread frames, a chosen event and a percentage window, streamed into the
 * analyses as frames (through a tree) and stack by stack; share's stacks
 * cut at a matching frame against whole ones. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_analyses.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const events[] = { NULL, "cpu", "alloc", "lock", "wall" };
	analyses_run(data, size, false, analyses_sink());
	fg_read_options o;
	fg_read_options_init(&o);
	o.max_size = FUZZ_MAX_SIZE;
	o.threads = true;
	o.event = events[size % 5];
	o.from = (fg_time_bound){ .set = true, .percent = true, .value = 10 };
	o.to = (fg_time_bound){ .set = true, .value = 5 };
	analyses_run_with(data, size, &o, true, analyses_sink());
	analyses_same_share_stop(data, size, &o);
	fg_read_options_init(&o);
	o.max_size = FUZZ_MAX_SIZE;
	analyses_same_share_stop(data, size, &o);
	return 0;
}
