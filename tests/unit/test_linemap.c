/* Line sets across a diff (src/git/linemap.h), on the cases of git's
 * line-log.c: a change inside, one beside, a pure deletion inside (which
 * splits the set), insertions above, a straddling hunk. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "git/linemap.h"

static const char *show(const fg_line_set *s)
{
	static char buf[256];
	size_t at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < s->n && at < sizeof(buf); i++)
		at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s[%u,%u)", i ? " " : "", s->r[i].start, s->r[i].end);
	return buf;
}

/* Maps [start, end) across hunks; returns "touched +A -R -> parent set". */
static const char *map(uint32_t start, uint32_t end, const fg_line_hunk *h, size_t n)
{
	static char buf[300];
	fg_line_set set = { 0 }, out = { 0 };
	fg_line_effect e;
	CHECK(fg_line_set_add(&set, start, end) == 0);
	CHECK(fg_line_set_map(&out, &e, &set, h, n) == 0);
	snprintf(buf, sizeof(buf), "%s +%u -%u -> %s", e.touched ? "touched" : "untouched", e.added, e.removed,
		 show(&out));
	fg_line_set_free(&set);
	fg_line_set_free(&out);
	return buf;
}

int main(void)
{
	/* one line replaced inside [10,20) */
	CHECK_STR(map(10, 20, (fg_line_hunk[]){ { 12, 13, 12, 13 } }, 1), "touched +1 -1 -> [10,20)");
	/* two lines inserted above: the set moves up in the parent */
	CHECK_STR(map(10, 20, (fg_line_hunk[]){ { 2, 2, 2, 4 } }, 1), "untouched +0 -0 -> [8,18)");
	/* a change below it */
	CHECK_STR(map(10, 20, (fg_line_hunk[]){ { 25, 26, 25, 27 } }, 1), "untouched +0 -0 -> [10,20)");
	/* a pure deletion inside: the lines after it were one further down */
	CHECK_STR(map(18, 21, (fg_line_hunk[]){ { 19, 20, 19, 19 } }, 1), "touched +0 -1 -> [18,22)");
	/* a deletion right before or after the set does not touch it */
	CHECK_STR(map(18, 21, (fg_line_hunk[]){ { 18, 20, 18, 18 } }, 1), "untouched +0 -0 -> [20,23)");
	CHECK_STR(map(18, 21, (fg_line_hunk[]){ { 21, 23, 21, 21 } }, 1), "untouched +0 -0 -> [18,21)");
	/* lines added inside: the parent had fewer */
	CHECK_STR(map(10, 20, (fg_line_hunk[]){ { 15, 15, 15, 18 } }, 1), "touched +3 -0 -> [10,17)");
	/* all of it added: nothing older to follow */
	CHECK_STR(map(10, 20, (fg_line_hunk[]){ { 8, 8, 8, 22 } }, 1), "touched +10 -0 -> ");
	/* a hunk straddling the end: its new lines inside count, and the old
	 * lines paired with them; its whole old side joins the set */
	CHECK_STR(map(10, 20, (fg_line_hunk[]){ { 18, 22, 18, 21 } }, 1), "touched +2 -2 -> [10,22)");
	/* two hunks, one above (shift) and one inside */
	CHECK_STR(map(10, 20, (fg_line_hunk[]){ { 0, 1, 0, 3 }, { 12, 14, 14, 15 } }, 2), "touched +1 -2 -> [8,19)");
	/* union keeps sets normal */
	fg_line_set s = { 0 };
	CHECK(fg_line_set_add(&s, 5, 8) == 0 && fg_line_set_add(&s, 1, 3) == 0 && fg_line_set_add(&s, 3, 5) == 0 &&
	      fg_line_set_add(&s, 9, 9) == 0);
	CHECK_STR(show(&s), "[1,8)");
	fg_line_set_free(&s);
	return check_status("test_linemap");
}
