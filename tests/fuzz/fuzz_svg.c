/* libFuzzer target: the SVG flame-graph reader (titles, XML entities,
 * rectangles, the tree rebuilt from geometry), streamed
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
