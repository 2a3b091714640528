/* libFuzzer target: the whole reader (sniffing, HTML 2.x/3.x, collapsed,
 * gzip) read as it is and as leaf-first stacks, streamed into share, top and
 * a tree written back as collapsed stacks. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_analyses.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	analyses_run(data, size, false, analyses_sink());
	analyses_run(data, size, true, analyses_sink());
	return 0;
}
