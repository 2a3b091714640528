/* Which profiles may be compared (src/analysis/compare.h) and the frames that grew
 * with their stacks (src/explain/growers.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "analysis/compare.h"
#include "analysis/diff.h"
#include "explain/growers.h"
#include "model/names.h"
#include "model/profile.h"
#include "formats/reader.h"

static void test_conflicts(void)
{
	fg_compare_input in[] = {
		{ .source = "a", .side = FG_DIFF_BASE, .protocol = FG_PROTOCOL_GRPC, .event = "cpu" },
		{ .source = "b", .side = FG_DIFF_BASE, .protocol = FG_PROTOCOL_UNKNOWN, .event = NULL },
		{ .source = "c", .side = FG_DIFF_CANDIDATE, .protocol = FG_PROTOCOL_GRPC, .event = "cpu" },
		{ .source = "d", .side = FG_DIFF_CANDIDATE, .protocol = FG_PROTOCOL_REST, .event = "cpu" },
		{ .source = "e", .side = FG_DIFF_CANDIDATE, .protocol = FG_PROTOCOL_GRPC, .event = "alloc" },
	};
	fg_compare_conflict c;
	/* Unknown is compatible with anything; same protocol and event too. */
	CHECK(!fg_compare_find_conflict(&c, in, 3));
	CHECK(c.kind == FG_COMPARE_OK);
	CHECK(fg_compare_find_conflict(&c, in, 4));
	CHECK(c.kind == FG_COMPARE_PROTOCOL && c.a == 0 && c.b == 3);
	/* Pairs are tried in order, a with every later input first: a-d
	 * (protocol) is found before a-e (event). */
	CHECK(fg_compare_find_conflict(&c, in, 5));
	CHECK(c.kind == FG_COMPARE_PROTOCOL && c.a == 0 && c.b == 3);
	fg_compare_input ev[] = { in[0], in[4] };
	CHECK(fg_compare_find_conflict(&c, ev, 2));
	CHECK(c.kind == FG_COMPARE_EVENT && c.a == 0 && c.b == 1);
	/* Units: samples against bytes, even of the same event; a profile that
	 * does not say ("") is compatible. */
	fg_compare_input un[] = { in[0], in[2], in[1] };
	snprintf(un[0].unit, sizeof(un[0].unit), "samples");
	snprintf(un[1].unit, sizeof(un[1].unit), "bytes");
	CHECK(!fg_compare_find_conflict(&c, &un[1], 2));
	CHECK(fg_compare_find_conflict(&c, un, 3));
	CHECK(c.kind == FG_COMPARE_UNIT && c.a == 0 && c.b == 1);
	CHECK(!fg_compare_find_conflict(&c, in, 0));
}

/* base: all;A 10, all;B 10.  candidate: all;A;X 15, all;B 5: X grew from 0
 * to 75% (its stack: A), A from 50 to 75%. */
static void test_growers(void)
{
	static const char base[] = "A 1000\nB 1000\n", cand[] = "A;X 1500\nB 500\n";
	fg_error err;
	fg_names *names = NULL;
	fg_diff *d = NULL;
	fg_diff_options o;
	fg_diff_options_init(&o);
	o.trees = true;
	o.nignore = 0;
	o.ignore = NULL;
	CHECK(fg_names_new(&names, &err) == 0);
	CHECK(fg_diff_new(&d, names, &o, &err) == 0);
	fg_profile_info info;
	CHECK(fg_diff_begin(d, FG_DIFF_BASE, &err) == 0);
	CHECK(fg_reader_read_memory(&info, base, strlen(base), "base", names, NULL, &(fg_visitor){ fg_diff_frames, NULL, d, NULL, NULL }, &err) == 0);
	CHECK(fg_diff_begin(d, FG_DIFF_CANDIDATE, &err) == 0);
	CHECK(fg_reader_read_memory(&info, cand, strlen(cand), "cand", names, NULL, &(fg_visitor){ fg_diff_frames, NULL, d, NULL, NULL }, &err) == 0);
	fg_diff_result r = { 0 };
	CHECK(fg_diff_compute(&r, d, &err) == 0);
	fg_growers g;
	CHECK(fg_growers_find(&g, d, &r, names, 10, 1, &err) == 0);
	CHECK_U64(g.nframes, 2);
	CHECK_STR(g.nframes > 0 ? g.frames[0] : NULL, "X");
	CHECK_STR(g.nframes > 1 ? g.frames[1] : NULL, "A");
	/* Above the one hot frame X: A (the root is not a caller). */
	CHECK_U64(g.nstack, 1);
	CHECK_STR(g.nstack > 0 ? g.stack[0] : NULL, "A");
	fg_growers_clear(&g);
	CHECK(fg_growers_find(&g, d, &r, names, 1, 0, &err) == 0);
	CHECK_U64(g.nframes, 1);
	CHECK_U64(g.nstack, 0);
	fg_growers_clear(&g);
	fg_diff_result_free(&r);
	fg_diff_free(d);
	fg_names_free(names);
}

int main(void)
{
	test_conflicts();
	test_growers();
	return check_status("test_compare");
}
