/* libFuzzer target: the raw tree index (src/git/rawtree.h) on any bytes must
 * never crash, leak or read out of bounds: a tree it accepts gives entries
 * inside the bytes, and a lookup answers only with an entry of that name. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "git/rawtree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void lookup(const fg_rawtree *t, const char *name, size_t len)
{
	fg_rawtree_entry e;
	if (fg_rawtree_find(&e, t, name, len) && (e.name_len != len || memcmp(e.name, name, len)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly size bytes, so that ASan sees any read past them. */
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fg_rawtree *t;
	if (fg_rawtree_parse(&t, copy, size, NULL) == 0) {
		size_t n = fg_rawtree_count(t);
		for (size_t i = 0; i < n; i++) {
			fg_rawtree_entry e;
			fg_rawtree_at(&e, t, i);
			const uint8_t *end = copy + size;
			if ((const uint8_t *)e.name < copy || (const uint8_t *)e.name + e.name_len >= end ||
			    e.id + 20 > end || !e.name_len)
				abort();
			(void)fg_rawtree_canonical_mode(e.mode);
			lookup(t, e.name, e.name_len);
			lookup(t, e.name, e.name_len - 1);
		}
		lookup(t, "src", 3);
		lookup(t, "", 0);
		fg_rawtree_free(t);
	}
	free(copy);
	return 0;
}
