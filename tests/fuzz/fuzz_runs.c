/* libFuzzer target: the runs-file parser, the selection and the commit
 * lookup must never crash or leak on any input. */
#include <stddef.h>
#include <stdint.h>

#include "bisect/runs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fg_runs *runs = NULL;
	fg_error err;
	/* A URL base exercises the dot-segment folding of relative locations. */
	if (fg_runs_parse_buffer(&runs, (const char *)data, size, "https://h.example/a/b/runs.txt", &err))
		return 0;
	fg_runs_filter filter;
	fg_runs_filter_init(&filter);
	filter.protocol = "grpc";
	fg_runs_selection *sel = NULL;
	if (!fg_runs_select(&sel, runs, &filter, &err)) {
		const fg_runs_run *run;
		fg_runs_selection_find(&run, sel, "abcd", &err);
		fg_runs_selection_find(&run, sel, "0123456789abcdef0123456789abcdef01234567", &err);
		fg_runs_selection_free(sel);
	}
	fg_runs_free(runs);
	return 0;
}
