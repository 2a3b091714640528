/* libFuzzer target: the SVG flame-graph reader (titles, XML entities,
 * rectangles, the tree rebuilt from geometry), streamed into the analyses. */
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
