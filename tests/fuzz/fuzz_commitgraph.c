/* libFuzzer target: the commit-graph reader (src/git/commitgraph.h) on any bytes
 * must never crash, leak or read out of bounds: a graph it accepts gives
 * its commits within the room given for parents, finds each of its ids (or
 * says it has none, when the list is not sorted), and its changed-path
 * filters answer for any position and path. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "git/commitgraph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fg_commitgraph *g;
	if (fg_commitgraph_from_buffer(&g, data, size, NULL) || !g)
		return 0;
	uint32_t n = fg_commitgraph_count(g);
	static const char *const paths[] = { "a", "src/Main.java", "d\xc3\xa9j\xc3\xa0/x", "\xff\xfe\xfd" };
	fg_bloom_key keys[4];
	for (size_t k = 0; k < 4; k++)
		fg_commitgraph_bloom_key(&keys[k], g, paths[k], strlen(paths[k]));
	for (uint32_t pos = 0; pos < n && pos < 256; pos++) {
		fg_commitgraph_commit c;
		unsigned char parents[8][20];
		if (fg_commitgraph_commit_at(&c, parents, 8, g, pos, NULL) == 0 && c.nparents > 8)
			abort();
		for (size_t p = 0; p < c.nparents && p < 8; p++) {
			uint32_t at = fg_commitgraph_find(g, parents[p]);
			if (at != FG_COMMITGRAPH_NONE && at >= n)
				abort();
		}
		for (size_t k = 0; k < 4; k++)
			(void)fg_commitgraph_maybe_changed(g, pos, &keys[k]);
	}
	fg_bloom_key none = { { { 0 } }, 0 };
	if (!fg_commitgraph_maybe_changed(g, n, &keys[0]) || !fg_commitgraph_maybe_changed(g, 0, &none))
		abort();
	fg_commitgraph_free(g);
	return 0;
}
