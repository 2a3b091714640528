/* libFuzzer target: the HTML reader on its own (whatever the first byte, so
 * the sniffer does not send most inputs to the collapsed reader), its frames
 * streamed into share, top and a tree.
 *
 * Each input is read twice: as a whole, where the reader's frame loop takes
 * the lines it can straight from the input buffer, and one byte at a time
 * (fg_input_set_read_size), where no line is ever whole in the buffer and
 * every line takes the line-at-a-time path.  The two must agree on the
 * outcome, the error message (line numbers included), every count and the
 * first call of an odd number of arguments (the warning's).  And
 * read on two threads (html.c's split, forced however small the page), cut
 * at lines where a cut may fall (f(K,L,DX,W): every one, or 11 spread over
 * the input and one chosen by its first byte): the same again.
 *
 * Real pages (tens of KB and more, the seeds CI gives it) would make each
 * input cost fourteen whole readings at one byte a read: past REREAD_BYTES
 * the slow reading takes size / REREAD_BYTES + 1 bytes a read (still far
 * shorter than a line, so the lines still go the line-at-a-time way) and
 * the cuts shrink in proportion, one at least. */
#define REREAD_BYTES 16384
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_analyses.h"
#include "formats/html.h"
#include "io/input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct outcome {
	int rc;
	fg_error err;
	fg_profile_info info;
	char *out;      /* the tree as collapsed stacks */
	size_t out_len;
};

static void read_once(struct outcome *o, struct analyses *a, const uint8_t *data, size_t size, size_t read_size,
		      uint64_t split_at)
{
	fg_read_options ro;
	fg_read_options_init(&ro);
	ro.split = split_at != 0;
	ro.split_test.min_block = 1;
	ro.split_test.at = split_at;
	fg_input *in = NULL;
	memset(o, 0, sizeof(*o));
	fg_error_clear(&o->err);
	o->rc = analyses_new(a, NULL, &o->err);
	if (!o->rc)
		o->rc = fg_input_open_memory(&in, data, size, "fuzz", FUZZ_MAX_SIZE, &o->err);
	if (!o->rc) {
		fg_input_set_read_size(in, read_size);
		fg_input_reject_nul(in);
		o->rc = fg_html_read(&o->info, in, a->names, &ro, analyses_frames, a, &o->err);
	}
	if (!o->rc) {
		FILE *f = open_memstream(&o->out, &o->out_len);
		if (f) {
			analyses_report(a, f);
			fclose(f);
		}
	}
	fg_input_free(in);
}

static void same(struct outcome *x, struct analyses *a, struct outcome *y, struct analyses *b)
{
	if (x->rc != y->rc || strcmp(x->err.message, y->err.message))
		__builtin_trap();
	if (!x->rc) {
		if (x->info.total != y->info.total || x->info.frames != y->info.frames ||
		    x->info.format != y->info.format || x->info.odd_call != y->info.odd_call ||
		    x->info.odd_call_args != y->info.odd_call_args || x->out_len != y->out_len ||
		    (x->out_len && memcmp(x->out, y->out, x->out_len)))
			__builtin_trap();
		analyses_same(a, b);
	}
	free(y->out);
	analyses_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct analyses a = { 0 }, b = { 0 };
	struct outcome x, y;
	read_once(&x, &a, data, size, 0, 0);
	read_once(&y, &b, data, size, 1 + size / REREAD_BYTES, 0);
	same(&x, &a, &y, &b);
	static uint64_t cuts[1 << 16];
	size_t ncuts = 0;
	for (size_t i = 1; i + 2 < size && ncuts < sizeof(cuts) / sizeof(cuts[0]); i++) {
		/* Lines "f(" then digits and three commas, then ")\n". */
		if (data[i - 1] != '\n' || data[i] != 'f' || data[i + 1] != '(')
			continue;
		size_t j = i + 2, commas = 0;
		while (j < size && ((data[j] >= '0' && data[j] <= '9') || data[j] == ','))
			commas += data[j++] == ',';
		if (commas == 3 && j + 1 < size && data[j] == ')' && data[j + 1] == '\n')
			cuts[ncuts++] = i;
	}
	size_t most = size <= REREAD_BYTES ? 12 : 12 * REREAD_BYTES / size;
	most = most ? most : 1;
	for (size_t k = 0; k < most && k < ncuts; k++) {
		size_t i = ncuts <= most ? k : k + 1 < most ? k * ncuts / (most - 1) : data[0] % ncuts;
		b = (struct analyses){ 0 };
		read_once(&y, &b, data, size, 0, cuts[i]);
		same(&x, &a, &y, &b);
	}
	free(x.out);
	analyses_free(&a);
	return 0;
}
