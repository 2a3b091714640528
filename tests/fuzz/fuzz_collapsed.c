/* libFuzzer target: the collapsed reader on its own (whatever the first
 * byte), root-first, leaf-first and (two counts a line) the base column.  Its stacks go both to share and top
 * directly (the stack path) and into a tree that is then streamed into a
 * second share and top (the frame path) and written back: the two paths must
 * agree on every count. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_analyses.h"
#include "input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* share and top only: the tree is the source here. */
static int share_and_top(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	struct analyses *a = ctx;
	int rc = fg_share_frames(a->share, frames, n, err);
	return rc ? rc : fg_top_frames(a->top, frames, n, err);
}

static void run(const uint8_t *data, size_t size, bool reversed, bool base_column)
{
	struct analyses a = { 0 }, b = { 0 };
	fg_input *in = NULL;
	fg_error err;
	fg_error_clear(&err);
	if (!analyses_new(&a, NULL, &err) && !analyses_new(&b, a.names, &err) &&
	    !fg_input_open_memory(&in, data, size, "fuzz", FUZZ_MAX_SIZE, &err)) {
		fg_profile_info info = { 0 };
		fg_read_options opts;
		fg_read_options_init(&opts);
		opts.reversed = reversed;
		opts.base_column = base_column;
		fg_input_reject_nul(in);
		if (!fg_collapsed_read(&info, in, a.names, &opts, analyses_stack, &a, &err) &&
		    !fg_share_frames(a.share, NULL, 0, &err) && !fg_top_frames(a.top, NULL, 0, &err) &&
		    !fg_tree_finish(a.tree, &err) && !fg_tree_visit(a.tree, a.names, share_and_top, &b, &err)) {
			analyses_same(&a, &b);
			analyses_report(&a, analyses_sink());
		}
	}
	fg_input_free(in);
	analyses_free(&b);
	analyses_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run(data, size, false, false);
	run(data, size, true, false);
	run(data, size, false, true);
	return 0;
}
