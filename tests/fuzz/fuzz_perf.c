/* libFuzzer target: the perf script reader (sample headers, frame lines,
 * the stackcollapse-perf.pl name rules, event filtering), streamed into the
 * analyses as frames (through a tree) and stack by stack. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_analyses.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fg_read_options o;
	fg_read_options_init(&o);
	o.max_size = FUZZ_MAX_SIZE;
	analyses_run(data, size, false, analyses_sink());
	analyses_run_with(data, size, &o, true, analyses_sink());
	return 0;
}
