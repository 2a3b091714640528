/* libFuzzer target: the collapsed reader on its own (whatever the first
 * byte), root-first, leaf-first and (two counts a line) the base column.  Its stacks go both to share and top
 * directly (the stack path) and into a tree that is then streamed into a
 * second share and top (the frame path) and written back: the two paths must
 * agree on every count.  And the root-first read, which takes the frames a
 * line shares with the one before from it, must give stack for stack what
 * the leaf-first read (which cannot) gives turned back, with the same
 * outcome and message. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_analyses.h"
#include "io/input.h"

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

/* The stacks in file order, each root-first (a leaf-first one turned
 * back), folded into one number. */
struct digest {
	uint64_t h;
	bool turn;
};

static int digest_stack(void *ctx, const fg_stack *s, fg_error *err)
{
	(void)err;
	struct digest *d = ctx;
	for (size_t i = 0; i <= s->depth; i++) {
		size_t k = d->turn && i ? s->depth + 1 - i : i;
		d->h = (d->h ^ s->names[k] ^ (uint64_t)s->types[k] << 32) * 0x100000001b3u;
	}
	d->h = (d->h ^ s->count ^ s->depth << 48) * 0x100000001b3u;
	return 0;
}

static void same_both_ways(const uint8_t *data, size_t size)
{
	fg_names *names = NULL;
	fg_error err[2];
	struct digest d[2] = { { 0, false }, { 0, true } };
	int rc[2];
	fg_error_clear(&err[0]);
	if (fg_names_new(&names, &err[0]))
		return;
	for (int way = 0; way < 2; way++) {
		fg_input *in = NULL;
		fg_error_clear(&err[way]);
		fg_profile_info info = { 0 };
		fg_read_options opts;
		fg_read_options_init(&opts);
		opts.reversed = way == 1;
		rc[way] = fg_input_open_memory(&in, data, size, "fuzz", FUZZ_MAX_SIZE, &err[way]);
		if (!rc[way]) {
			fg_input_reject_nul(in);
			rc[way] = fg_collapsed_read(&info, in, names, &opts, digest_stack, &d[way], &err[way]);
		}
		fg_input_free(in);
	}
	if (rc[0] != rc[1] || strcmp(err[0].message, err[1].message) || (!rc[0] && d[0].h != d[1].h))
		__builtin_trap();
	fg_names_free(names);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	same_both_ways(data, size);
	run(data, size, false, false);
	run(data, size, true, false);
	run(data, size, false, true);
	return 0;
}
