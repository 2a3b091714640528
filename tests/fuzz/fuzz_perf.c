/* libFuzzer target: the perf script reader (sample headers, frame lines,
 * the stackcollapse-perf.pl name rules, event filtering), streamed
 * into the analyses as frames (through a tree) and stack by stack. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_analyses.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	analyses_run_paths(data, size, analyses_sink());
	return 0;
}
