/* libFuzzer target: the collapsed reader on its own (whatever the first
 * byte), root-first and leaf-first, then the tree streamed into share and top
 * and written back. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_analyses.h"
#include "input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* share and top only: the tree is the source here. */
static int share_and_top(void *ctx, const fg_frame *f, fg_error *err)
{
	struct analyses *a = ctx;
	int rc = fg_share_frame(a->share, f, err);
	return rc ? rc : fg_top_frame(a->top, f, err);
}

static void run(const uint8_t *data, size_t size, bool reversed)
{
	struct analyses a = { 0 };
	fg_input *in = NULL;
	fg_error err;
	fg_error_clear(&err);
	if (!analyses_new(&a, &err) && !fg_input_open_memory(&in, data, size, "fuzz", FUZZ_MAX_SIZE, &err)) {
		fg_profile_info info = { 0 };
		fg_input_reject_nul(in);
		if (!fg_collapsed_read(&info, a.tree, in, a.names, reversed, &err) &&
		    !fg_tree_finish(a.tree, &err) &&
		    !fg_tree_visit(a.tree, a.names, share_and_top, &a, &err))
			analyses_report(&a, analyses_sink());
	}
	fg_input_free(in);
	analyses_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run(data, size, false);
	run(data, size, true);
	return 0;
}
