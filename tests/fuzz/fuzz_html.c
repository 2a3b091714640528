/* libFuzzer target: the HTML reader on its own (whatever the first byte, so
 * the sniffer does not send most inputs to the collapsed reader), its frames
 * streamed into share, top and a tree. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_analyses.h"
#include "html.h"
#include "input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct analyses a = { 0 };
	fg_input *in = NULL;
	fg_error err;
	fg_error_clear(&err);
	if (!analyses_new(&a, NULL, &err) && !fg_input_open_memory(&in, data, size, "fuzz", FUZZ_MAX_SIZE, &err)) {
		fg_profile_info info = { 0 };
		fg_input_reject_nul(in);
		if (!fg_html_read(&info, in, a.names, analyses_frames, &a, &err))
			analyses_report(&a, analyses_sink());
	}
	fg_input_free(in);
	analyses_free(&a);
	return 0;
}
