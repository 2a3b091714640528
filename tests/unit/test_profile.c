/* The readers: every HTML generation's call forms, prefix coding and
 * escapes, collapsed edge cases, gzip, and every malformed input the reader
 * must refuse; the sorted collapsed writer's merging of siblings. */
#include <stdlib.h>
#include <zlib.h>

#include "check.h"
#include "gzip_bytes.h"
#include "formats/collapsed.h"
#include "formats/html.h"
#include "io/input.h"
#include "model/profile.h"
#include "formats/reader.h"
#include "model/tree.h"

/* Renders the frames a reader streams as "depth name type total" lines. */
struct dump {
	fg_names *names;
	char buf[8192];
	size_t len;
	int ends;
};

static int dump_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	(void)err;
	struct dump *d = ctx;
	if (!frames) {
		d->ends++;
		return 0;
	}
	for (const fg_frame *f = frames; f < frames + n; f++)
		d->len += (size_t)snprintf(d->buf + d->len, sizeof(d->buf) - d->len, "%u %s %u %llu\n", f->depth,
					   fg_names_get(d->names, f->name), f->type, (unsigned long long)f->total);
	return 0;
}

/* Reads text as a profile; returns the dump or the error message. */
static char out[8192];
static fg_profile_info info;
static bool base_column; /* read_text's --base-column */

/* The options read_text and the stack tests read with. */
static fg_read_options read_options(bool reversed, uint64_t max_size)
{
	fg_read_options o;
	fg_read_options_init(&o);
	o.reversed = reversed;
	o.max_size = max_size;
	o.base_column = base_column;
	return o;
}

static const char *read_text(const char *text, size_t len, bool reversed, uint64_t max_size)
{
	struct dump d = { 0 };
	fg_error err;
	fg_error_clear(&err);
	fg_names_new(&d.names, &err);
	fg_read_options o = read_options(reversed, max_size);
	int rc = fg_reader_read_memory(&info, text, len, "t", d.names, &o, &(fg_visitor){ dump_frames, NULL, &d, NULL, NULL },
					&err);
	if (rc)
		snprintf(out, sizeof(out), "error %d: %s", rc, err.message);
	else
		snprintf(out, sizeof(out), "%s", d.buf);
	if (!rc && d.ends != 1)
		snprintf(out, sizeof(out), "end called %d times", d.ends);
	fg_names_free(d.names);
	return out;
}

static const char *read_str(const char *text)
{
	return read_text(text, strlen(text), false, 0);
}

#define V3_HEAD "<!DOCTYPE html>\n<html><body>\n<h1>CPU profile</h1>\n<script>\n\tlet inverted = false;\n" \
		"\tconst maxdiff = /*maxdiff:*/-1;\n</script><script>\n"
#define V3_CPOOL "const cpool = [\n'all',\n' io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.get',\n" \
		 "'gupsert',\n'1scheduler/ActorThread.run'\n];\nunpack(cpool);\n\n"
#define FOOT "\nsearch();\n</script></body></html>\n"


static void test_v3_worked_example(void)
{
	/* The example of asprof-html-format.md section 5: n, u, f, n with width
	 * inheritance and a parent's self samples on the left. */
	const char *r = read_str(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\nf(10,2,1,1)\nn(17,3)\n" FOOT);
	CHECK_STR(r, "0 all 3 5\n"
		     "1 io/camunda/zeebe/scheduler/ActorThread.run 1 5\n"
		     "2 io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.get 2 1\n"
		     "2 io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.upsert 1 3\n");
	CHECK(info.format == FG_FORMAT_HTML_V3);
	CHECK_U64(info.total, 5);
	CHECK_U64(info.frames, 4);
	CHECK_STR(info.title, "CPU profile");
	CHECK(!info.inverted && !info.differential);

	/* 4.4+ differential: d= lines between calls, maxdiff >= 0. */
	r = read_str("<html>\nconst maxdiff = 3;\n" V3_CPOOL "n(3,10)\nu(25)\nf(10,2,1,1)\nd=3\nn(17,6)\nd=U\nn(17,2)\nd=-4\n" FOOT);
	CHECK(strstr(r, "2 io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.upsert 1 6\n") != NULL);
	CHECK(info.differential);

	/* Counters after the width (7-argument f, 5-argument u/n). */
	r = read_str(V3_HEAD V3_CPOOL "n(3,5)\nu(25,5,0,0,2)\nf(10,2,1,1,1,0,0)\nn(17,3,0,3,0)\n" FOOT);
	CHECK(strstr(r, "2 io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.upsert 1 3\n") != NULL);
	CHECK(strncmp(r, "error", 5) != 0);

	/* The inverted drawing flag is reported, the native marker comment too. */
	read_str("<html>\n\tlet inverted = /*inverted:*/true;\n" V3_CPOOL "n(3,5)\n" FOOT);
	CHECK(info.inverted);
	/* An assignment in the page's code is not the declaration. */
	read_str("<html>\n\tlet inverted = true;\n\t\tinverted = !inverted;\n" V3_CPOOL "n(3,5)\n" FOOT);
	CHECK(info.inverted);
}

static void test_cpool_prefixes(void)
{
	/* A prefix marker that is itself an escaped quote (32 + 7) or backslash
	 * (32 + 60), and names holding quotes and backslashes. */
	char page[4096];
	snprintf(page, sizeof(page),
		 "<html>\nconst cpool = [\n'all',\n' a/B.m\\'x',\n'\\'\\'y',\n' C:\\\\path\\\\lib.so',\n"
		 "' %s',\n'\\\\%s',\n];\nunpack(cpool);\n\nn(3,4)\nu(11,4)\nu(19)\nu(27)\nu(35)\nu(43)\n" FOOT,
		 "0123456789012345678901234567890123456789012345678901234567890",
		 "X");
	const char *r = read_str(page);
	CHECK_STR(r, "0 all 3 4\n1 a/B.m'x 3 4\n2 a/B.m'x'y 3 4\n3 C:\\path\\lib.so 3 4\n"
		     "4 0123456789012345678901234567890123456789012345678901234567890 3 4\n"
		     "5 012345678901234567890123456789012345678901234567890123456789X 3 4\n");
	/* The native writer counts the prefix in bytes, even inside a UTF-8
	 * character: "Grü" + "ße" shares 4 bytes with "Grün" (ü = 2 bytes). */
	r = read_str("<html>\nconst cpool = [\n'all',\n' Gr\xc3\xbcn',\n'$\xc3\x9f" "e',\n];\nunpack(cpool);\n\n"
		     "n(3,2)\nu(11,1)\nn(19,1)\n" FOOT);
	CHECK_STR(r, "0 all 3 2\n1 Gr\xc3\xbcn 3 1\n1 Gr\xc3\xbc\xc3\x9f" "e 3 1\n");
}

static void test_unescape(void)
{
	char s[64];
	strcpy(s, "a\\'b\\\\c\\d\\");
	size_t n = fg_html_unescape(s, strlen(s));
	s[n] = '\0';
	CHECK_STR(s, "a'b\\c\\d\\");
	/* weird\'name\ as the 2.6+ converters write it: weird\\\'name\\ */
	strcpy(s, "weird\\\\\\'name\\\\");
	n = fg_html_unescape(s, strlen(s));
	s[n] = '\0';
	CHECK_STR(s, "weird\\'name\\");
}

static void test_v2(void)
{
	/* 2.0-2.6: old type numbering (root 4, Java 0, inlined 1, kernel 2). */
	const char *r = read_str("<html>\n<h1>Flame Graph</h1>\nf(0,0,5,4,'all')\nf(1,0,5,0,'a/Run.run')\n"
				 "f(2,1,1,1,'a/B.get')\nf(2,2,3,0,'a/B.upsert')\nf(3,2,1,2,'sys_read')\nrender();\n");
	CHECK_STR(r, "0 all 3 5\n1 a/Run.run 1 5\n2 a/B.get 2 1\n2 a/B.upsert 1 3\n3 sys_read 5 1\n");
	CHECK(info.format == FG_FORMAT_HTML_V2);
	/* 2.7+: new numbering (root 3), counters after the title, escapes, and
	 * a native 2.x title with a raw backslash. */
	r = read_str("<html>\nf(0,0,5,3,'all')\nf(1,0,5,1,'a/B.m\\'x',2,0,0)\nf(2,0,2,6,'C:\\path')\n\nsearch();\n");
	CHECK_STR(r, "0 all 3 5\n1 a/B.m'x 1 5\n2 C:\\path 6 2\n");
	/* The JS code of a 2.x page has f( inside other lines: ignored. */
	r = read_str("<html>\n\tfunction f(level, left, width, type, title) {\nf(0,0,1,3,'all')\nsearch();\n");
	CHECK_STR(r, "0 all 3 1\n");
}

static void check_error(const char *text, const char *want);

/* Third-party writers of the templates indent lines: the root f(0,0,...)
 * and the search() footer of a 2.x page, calls anywhere in a frame block.
 * Browsers run them all the same. */
static void test_indented(void)
{
	const char *r = read_str("<html>\n    f(0,0,5,3,'all')\n  f(1,0,5,1,'a/Run.run')\n\tf(2,1,4,1,'a/B.get')\n"
				 "f(2,0,1,3,'x')\n    \n  search();\n</html>\n");
	CHECK(strstr(r, "overlaps") != NULL); /* x starts left of its sibling: the checks still run */
	r = read_str("<html>\n    f(0,0,5,3,'all')\n  f(1,0,5,1,'a/Run.run')\n\tf(2,1,4,1,'a/B.get')\n"
		     "    \n  search();\n</html>\n");
	CHECK_STR(r, "0 all 3 5\n1 a/Run.run 1 5\n2 a/B.get 1 4\n");
	CHECK(info.format == FG_FORMAT_HTML_V2);
	/* A footer right after the frames, indented. */
	r = read_str("<html>\n\t f(0,0,2,3,'all')\n\t search();\n</html>\n");
	CHECK_STR(r, "0 all 3 2\n");
	/* 3.x+: the cpool, the blank lines (blanks only), calls, d= lines and the
	 * footer indented; the frame loop leaves such lines to the general path. */
	r = read_str(V3_HEAD "  const cpool = [\n  'all',\n  ' io/camunda/zeebe/db/impl/rocksdb/transaction/"
		     "TransactionalColumnFamily.get',\n\t'gupsert',\n'1scheduler/ActorThread.run'\n  ];\n"
		     "unpack(cpool);\n \n  n(3,5)\n\tu(25)\n  f(10,2,1,1)\nn(17,3)\n\t\n  search();\n</script></body></html>\n");
	CHECK_STR(r, "0 all 3 5\n"
		     "1 io/camunda/zeebe/scheduler/ActorThread.run 1 5\n"
		     "2 io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.get 2 1\n"
		     "2 io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.upsert 1 3\n");
	/* Frames after an indented footer are still seen. */
	check_error(V3_HEAD V3_CPOOL "n(3,5)\n\n search();\n  u(25)\n</html>\n", "frame data after the page footer");
}

/* An empty graph (the converter of zero samples writes the root alone, of
 * width 0: n(2) inherits width0 = 0) has no samples; a frame of width 0
 * below a root is another fault. */
static void test_empty_graph(void)
{
	check_error(V3_HEAD "const cpool = [\n'all'\n];\nunpack(cpool);\n\nn(2)\n" FOOT,
		    "no samples: an empty flame graph (its root has width 0)");
	check_error(V3_HEAD V3_CPOOL "n(3,0)\n" FOOT, "no samples");
	check_error("<html>\nf(0,0,0,3,'all')\nsearch();\n</html>\n", "no samples");
	check_error("<html>\nf(0,0,2,3,'all')\nf(1,0,0,1,'x')\nsearch();\n</html>\n", "line 3: frame of zero width");
}

static void check_error(const char *text, const char *want)
{
	const char *r = read_str(text);
	if (!strstr(r, want) || strncmp(r, "error", 5)) {
		check_failures++;
		fprintf(stderr, "input:\n%s\nwanted an error with '%s', got:\n%s\n", text, want, r);
	}
	check_count++;
}

/* The frame loop's own forms: numbers of 1 to 7 digits in it, of 8 digits
 * and more in the general path, in every position; an explicit 0 width
 * (the previous one, as the JS); f() without a width; n() after a child. */
static void test_frame_loop(void)
{
	const char *r = read_str(V3_HEAD V3_CPOOL "n(3,123456789)\nu(25,12345678)\nf(10,2,1234567,1)\n"
				 "n(17,0)\nf(17,2,00000001,10000000)\nf(10,1,12345678)\nu(0000017,0)\n" FOOT);
	CHECK_STR(r, "0 all 3 123456789\n"
		     "1 io/camunda/zeebe/scheduler/ActorThread.run 1 12345678\n"
		     "2 io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.get 2 1\n"
		     "2 io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.upsert 1 1\n"
		     "2 io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.upsert 1 10000000\n"
		     "1 io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.get 2 10000000\n"
		     "2 io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.upsert 1 10000000\n");
	CHECK_U64(info.frames, 7);
	/* Each check of the loop fails as the general path says. */
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\nu(10,6)\n" FOOT, "wider than its parent");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\nf(10,2,6)\n" FOOT, "wider than its parent");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25,2)\nf(10,1,2,2)\nn(17,3)\n" FOOT, "wider than its parent");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25,2)\nf(10,2,1,1)\nf(17,2,0,1)\n" FOOT, "overlaps");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\nf(10,0,0,1)\n" FOOT, "second root");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nn(25)\n" FOOT, "second root");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\nf(10,3,0,1)\n" FOOT, "level jumps");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\nu(32)\n" FOOT, "string index out of range");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\nn(31)\n" FOOT, "unknown frame type");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\nu(17,)\n" FOOT, "malformed");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\nf(17,2)\n" FOOT, "malformed");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\nx(17)\n" FOOT, "unexpected line");
	check_error(V3_HEAD V3_CPOOL "n(3,9999999999999999999)\nf(10,1,9999999999999999998,1)\n"
		    "f(10,1,9999999999999999999,1)\n" FOOT,
		    "overflows");
}

static void test_malformed(void)
{
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\nf(10,2,1,1)\n", "truncated");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\nf(10,2,1,1)\n\n", "truncated");
	check_error(V3_HEAD "const cpool = [\n'all',\n' a'\n", "truncated");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\nf(10,2,1,9)\n" FOOT, "wider than its parent");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\nf(10,2,-1,1)\n" FOOT, "negative");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\nf(10,4,1,1)\n" FOOT, "level jumps");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\nf(810,2,1,1)\n" FOOT, "string index out of range");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\nf(15,2,1,1)\n" FOOT, "unknown frame type");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25,3)\nn(17,3)\n" FOOT, "wider than its parent");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25,3)\nf(17,1,2,2)\n" FOOT, "overlaps");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nn(3,5)\n" FOOT, "second root");
	check_error(V3_HEAD V3_CPOOL "u(25)\n" FOOT, "before the root");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\nf(10,2,1,1)\nwhat\n" FOOT, "unexpected line");
	check_error(V3_HEAD V3_CPOOL "n(3,5)\nu(25)\n\nnot a footer\n", "unexpected line after");
	check_error(V3_HEAD V3_CPOOL "n(3,99999999999999999999)\n" FOOT, "malformed");
	check_error(V3_HEAD "const cpool = [\n'al',\n];\nunpack(cpool);\n\nn(3,1)\n" FOOT, "'all'");
	check_error(V3_HEAD "const cpool = [\n'all',\n'~toolong',\n];\nunpack(cpool);\n\nn(3,1)\n" FOOT,
		    "prefix longer");
	check_error("<html>\nf(0,0,5,3,'all')\nf(1,1,5,1,'x')\nsearch();\n", "wider than its parent");
	check_error("<html>\nf(0,0,5,9,'all')\nsearch();\n", "unknown frame type");
	check_error("<html>\nf(0,0,5,3,'all')\nf(1,0,5,1,'x')\n", "truncated");
	check_error("<html><body>no flame graph here</body></html>\n", "without async-profiler flame graph data");
	check_error("<?xml version=\"1.0\"?>\n<svg version=\"1.1\">\n", "SVG");
	check_error("", "empty");
	static const char jfr[] = "FLR\0\0\2\0\0";
	CHECK(strstr(read_text(jfr, sizeof(jfr) - 1, false, 0), "truncated: chunk 1 ends inside its header") != NULL);
	static const char pprof[] = "\x0a\x04\x08\x01\x10\x02\x12\x00";
	CHECK(strstr(read_text(pprof, sizeof(pprof) - 1, false, 0), "pprof: string index out of range") != NULL);
	check_error("hello world\n", "not a collapsed stack");
	check_error("a;b 12x\n", "not a collapsed stack");
	check_error("a;;b 1\n", "empty frame name");
	check_error("a;b 99999999999999999999\n", "overflows");
	check_error("a 18446744073709551615\nb 1\n", "overflow");
	check_error("\n\n", "no stacks");
	/* NUL bytes in the data. */
	static const char nul_page[] = V3_HEAD V3_CPOOL "n(3,5)\nu(25)\0\n" FOOT;
	const char *r = read_text(nul_page, sizeof(nul_page) - 1, false, 0);
	CHECK(strstr(r, "NUL byte") != NULL);
	static const char nul_collapsed[] = "a;b 1\na\0b 2\n";
	r = read_text(nul_collapsed, sizeof(nul_collapsed) - 1, false, 0);
	CHECK(strstr(r, "NUL byte in the data at line 2") != NULL);
}

static void test_collapsed(void)
{
	/* Unsorted lines, duplicate stacks, names with spaces, suffixes, CRLF,
	 * blank lines, no final newline. */
	const char *r = read_str("b;c_[k] 2\r\n[grpc-nio ELG tid=9] 1\n\na;x::y 3\nb;c_[k] 1\nb;c 4\na_[i];a/B.m_[j] 5");
	CHECK_STR(r, "0 all 3 16\n"
		     "1 [grpc-nio ELG tid=9] 3 1\n"
		     "1 a 3 8\n"
		     "2 a/B.m 1 5\n"
		     "2 x::y 4 3\n"
		     "1 b 3 7\n"
		     "2 c 3 4\n"
		     "2 c 5 3\n");
	CHECK(info.missing_final_newline);
	CHECK(info.format == FG_FORMAT_COLLAPSED);
	/* Leaf-first stacks turned around. */
	const char *rev = "c;b;a 2\nb;a 1\n";
	r = read_text(rev, strlen(rev), true, 0);
	CHECK_STR(r, "0 all 3 3\n1 a 3 3\n2 b 3 3\n3 c 3 2\n");
	/* Zero counts are kept out of no total but are not an error. */
	r = read_str("a 0\nb 1\n");
	CHECK_STR(r, "0 all 3 1\n1 a 3 0\n1 b 3 1\n");
}

static int dump_stack(void *ctx, const fg_stack *s, fg_error *err)
{
	(void)err;
	struct dump *d = ctx;
	for (size_t i = 1; i <= s->depth; i++)
		d->len += (size_t)snprintf(d->buf + d->len, sizeof(d->buf) - d->len, "%s%s:%u", i > 1 ? ";" : "",
					   fg_names_get(d->names, s->names[i]), s->types[i]);
	d->len += (size_t)snprintf(d->buf + d->len, sizeof(d->buf) - d->len, " %llu\n", (unsigned long long)s->count);
	return 0;
}

/* The reader takes the frames a line shares with the line before from it:
 * each stack must still be its own line's, whichever way the two differ
 * (inside a name, one a prefix of the other, at a ';', only in a type
 * suffix, not at all), and leaf-first reading gives the same stacks turned. */
static void test_collapsed_shared_prefix(void)
{
	const char *text = "a;b 1\na;bc 2\na;b 4\na;b;c 8\na;b 16\na;b 32\nab;c 64\na_[i];b 128\na_[j];b 256\n"
			   "a_[j];b_[k] 512\nx::y;b;c 1024\nx::y;b;cd;e 2048\nx::y 4096\n";
	const char *want = "a:3;b:3 1\na:3;bc:3 2\na:3;b:3 4\na:3;b:3;c:3 8\na:3;b:3 16\na:3;b:3 32\nab:3;c:3 64\n"
			   "a:2;b:3 128\na:1;b:3 256\na:1;b:5 512\nx::y:4;b:3;c:3 1024\nx::y:4;b:3;cd:3;e:3 2048\n"
			   "x::y:4 4096\n";
	for (int reversed = 0; reversed < 2; reversed++) {
		struct dump d = { 0 };
		fg_error err = { 0 };
		fg_read_options o = read_options(reversed, 0);
		fg_input *in = NULL;
		/* Leaf-first: the same lines with their frames turned round. */
		char turned[1024] = "";
		if (reversed) {
			for (const char *l = text; *l;) {
				const char *nl = strchr(l, '\n'), *sp = memchr(l, ' ', (size_t)(nl - l));
				char frames[16][32];
				int n = 0;
				for (const char *f = l; f < sp; n++) {
					const char *e = memchr(f, ';', (size_t)(sp - f));
					e = e ? e : sp;
					snprintf(frames[n], sizeof(frames[n]), "%.*s", (int)(e - f), f);
					f = e + 1;
				}
				while (n-- > 0)
					snprintf(turned + strlen(turned), sizeof(turned) - strlen(turned), "%s%s", frames[n],
						 n ? ";" : "");
				snprintf(turned + strlen(turned), sizeof(turned) - strlen(turned), "%.*s", (int)(nl + 1 - sp), sp);
				l = nl + 1;
			}
		}
		const char *input = reversed ? turned : text;
		int rc = fg_names_new(&d.names, &err);
		if (!rc)
			rc = fg_input_open_memory(&in, input, strlen(input), "t", 0, &err);
		if (!rc)
			rc = fg_collapsed_read(&info, in, d.names, &o, dump_stack, &d, &err);
		CHECK(rc == 0);
		CHECK_STR(d.buf, want);
		fg_input_free(in);
		fg_names_free(d.names);
	}
}

/* async-profiler's --diff (and difffolded.pl) write 'stack BASE CURRENT':
 * the CURRENT counts by default, BASE with --base-column, never a number
 * glued onto the leaf; one kind of line a file. */
static void test_collapsed_two_counts(void)
{
	const char *diff = "a;b 3 5\na;c 0 2\nd\t4\t0\n";
	const char *r = read_str(diff);
	CHECK_STR(r, "0 all 3 7\n1 a 3 7\n2 b 3 5\n2 c 3 2\n1 d 3 0\n");
	CHECK(info.differential);
	base_column = true;
	r = read_str(diff);
	CHECK_STR(r, "0 all 3 7\n1 a 3 3\n2 b 3 3\n2 c 3 0\n1 d 3 4\n");
	/* A one-count file has no BASE column. */
	check_error("a;b 3\n", "line 1: --base-column reads the first of two counts a line");
	check_error("a 0 1\nb 0 2\n", "no samples: every stack counts 0 in the BASE column");
	base_column = false;
	r = read_str("a;b 3\n");
	CHECK(!info.differential);
	/* Names with blanks and digits inside stay whole. */
	r = read_str("[grpc-nio-worker-ELG-3-1 tid=9194];a 1 2\n");
	CHECK_STR(r, "0 all 3 2\n1 [grpc-nio-worker-ELG-3-1 tid=9194] 3 2\n2 a 3 2\n");
	/* Mixed files: the line that breaks the pattern is named. */
	check_error("a;b 3 5\na;c 2\n", "line 2: one count after lines of two (stack BASE CURRENT)");
	check_error("a;b 5\n\na;c 1 2\n", "line 3: two counts (stack BASE CURRENT) after lines of one");
	check_error("a 99999999999999999999 1\n", "line 1: sample count overflows");
	check_error("a 0 0\n", "no samples: every stack counts 0 in the CURRENT column");
}

/* Formats fgbisect does not read: each message names the format and what
 * converts it in its ecosystem (inputs made from the formats' descriptions:
 * magic numbers, first lines). */
static void check_foreign(const char *data, size_t len, const char *want)
{
	const char *r = read_text(data, len, false, 0);
	if (!strstr(r, want) || strncmp(r, "error", 5)) {
		check_failures++;
		fprintf(stderr, "wanted an error with '%s', got:\n%s\n", want, r);
	}
	check_count++;
}
#define FOREIGN(lit, want) check_foreign(lit, sizeof(lit) - 1, want)

static void test_foreign_formats(void)
{
	FOREIGN("PERFILE2\x68\0\0\0\0\0\0\0\x10\0", "a perf.data file (perf record's binary output): not read; "
					     "write its text with 'perf script -i FILE > FILE.txt'");
	FOREIGN("\x28\xb5\x2f\xfd\x04\x58", "zstd-compressed data: not read (gzip is); decompress it first ('zstd -d FILE')");
	FOREIGN("\xfd" "7zXZ\0\0\x04", "xz-compressed data");
	FOREIGN("BZh91AY&SY\x12", "bzip2-compressed data");
	FOREIGN("\x04\x22\x4d\x18\x64", "lz4-compressed data");
	/* A zip is read (format_archive.sh); six bytes of one are a damaged one. */
	FOREIGN("PK\x03\x04\x14\0", "damaged archive: Truncated ZIP file header");
	FOREIGN("JAVA PROFILE 1.0.2\0\0\0\0\x08", "a Java heap dump (hprof), not a CPU profile");
	FOREIGN("Nettrace\x14\0\0\0!FastSerialization.1", "a .NET EventPipe trace (.nettrace): not read");
	FOREIGN("{\"exporter\": \"speedscope@1.15\", \"$schema\": \"https://www.speedscope.app/file-format-schema.json\"}\n",
		"speedscope JSON: not read; ask the profiler for collapsed stacks instead (py-spy record --format raw");
	FOREIGN("{\"traceEvents\":[{\"name\":\"a\",\"ph\":\"X\"}]}", "Chrome trace event JSON");
	FOREIGN("[\n  {\"name\": \"a\", \"ph\": \"B\", \"ts\": 1}\n]\n", "Chrome trace event JSON");
	FOREIGN("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"}}]}", "a V8 CPU profile (.cpuprofile");
	FOREIGN("# To display the perf.data header info, please use --header/--header-only options.\n#\n"
		"# Samples: 1K of event 'cpu-clock'\n", "perf report text: a summary, not the stacks");
	FOREIGN("# callgrind format\nversion: 1\n", "callgrind output");
	FOREIGN("version: 1\ncreator: callgrind-3.19.0\nevents: Ir\n", "callgrind output");
	FOREIGN("PeriodType: cpu nanoseconds\nPeriod: 10000000\n", "pprof's text output (go tool pprof -raw)");
	FOREIGN("File: server\nType: cpu\nShowing nodes accounting for 10ms, 100% of 10ms total\n",
		"pprof's text output (go tool pprof -top, -text, -tree)");
	FOREIGN("{\"frames\": []}", "JSON, not a profile fgbisect reads (async-profiler HTML, collapsed stacks, JFR");
	FOREIGN("\x01\x02\x03", "binary data, not a profile fgbisect reads");
	/* Collapsed stacks that start like JSON or a magic are still read. */
	const char *r = read_str("[zb-actors-0 tid=1];a 5\n[{x}];b 1\nBZh9;c 1\n");
	CHECK(strncmp(r, "error", 5) != 0);
}

static void test_reversed_html(void)
{
	/* A --reverse graph: paths run leaf-first; --reversed rebuilds them. */
	const char *page = "<html>\nf(0,0,3,3,'all')\nf(1,0,3,3,'leaf')\nf(2,0,1,3,'mid')\nf(2,1,2,3,'root')\n"
			   "f(3,1,2,3,'mid')\nsearch();\n";
	const char *r = read_text(page, strlen(page), true, 0);
	/* Leaf-first paths leaf;mid (1) and leaf;root;mid (2) are the stacks
	 * mid;leaf and mid;root;leaf. */
	CHECK_STR(r, "0 all 3 3\n1 mid 3 3\n2 leaf 3 1\n2 root 3 2\n3 leaf 3 2\n");
}

static void test_gzip(void)
{
	static unsigned char gz[1 << 16];
	const char *text = "a;b 2\na 1\n";
	size_t n = gzip_bytes(gz, sizeof(gz), text, strlen(text));
	const char *r = read_text((const char *)gz, n, false, 0);
	CHECK_STR(r, "0 all 3 3\n1 a 3 3\n2 b 3 2\n");
	CHECK(info.gzip);
	/* Two members, as cat a.gz b.gz gives. */
	size_t m = gzip_bytes(gz + n, sizeof(gz) - n, "c 4\n", 4);
	r = read_text((const char *)gz, n + m, false, 0);
	CHECK_STR(r, "0 all 3 7\n1 a 3 3\n2 b 3 2\n1 c 3 4\n");
	/* Cut short, corrupt, and a bomb stopped by the size cap. */
	r = read_text((const char *)gz, n - 5, false, 0);
	CHECK(strstr(r, "truncated gzip") != NULL);
	gz[12] ^= 0xff;
	r = read_text((const char *)gz, n, false, 0);
	CHECK(strstr(r, "corrupt gzip") != NULL || strstr(r, "error") != NULL);
	char *big = malloc(1 << 20);
	memset(big, 'a', 1 << 20);
	n = gzip_bytes(gz, sizeof(gz), big, 1 << 20);
	CHECK(n < 4096);
	r = read_text((const char *)gz, n, false, 100000);
	CHECK(strstr(r, "larger than --max-size") != NULL);
	free(big);
}

/* All of in's content (at most cap bytes) into buf: its length. */
static size_t drain(char *buf, size_t cap, fg_input *in)
{
	const char *d;
	size_t n = 0;
	fg_error err;
	if (fg_input_peek(&d, &n, in, SIZE_MAX, &err))
		return 0;
	n = n < cap ? n : cap;
	memcpy(buf, d, n);
	return n;
}

/* fg_input_rewind (pprof's two passes): memory and a regular file are read
 * again from their start, gzip members and all, after part or all of them
 * was read; a pipe cannot be. */
static void test_rewind(void)
{
	static unsigned char gz[1 << 12];
	static char a[1 << 12], b[1 << 12];
	size_t n = gzip_bytes(gz, sizeof(gz), "first 1\n", 8);
	n += gzip_bytes(gz + n, sizeof(gz) - n, "second 2\n", 9);
	fg_input *in = NULL;
	fg_error err;
	CHECK(!fg_input_open_memory(&in, gz, n, "t", 0, &err));
	CHECK(fg_input_can_rewind(in));
	char *line;
	size_t len;
	CHECK(fg_input_line(&line, &len, in, &err) == 1);
	CHECK(!fg_input_rewind(in, &err));
	CHECK_U64(drain(a, sizeof(a), in), 17);
	CHECK(fg_input_is_gzip(in));
	CHECK(!fg_input_rewind(in, &err));
	CHECK_U64(drain(b, sizeof(b), in), 17);
	CHECK(!memcmp(a, "first 1\nsecond 2\n", 17) && !memcmp(a, b, 17));
	fg_input_free(in);

	char path[] = "/tmp/fg_rewind_XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, "plain 3\n", 8) == 8);
	close(fd);
	CHECK(!fg_input_open(&in, path, 0, &err));
	CHECK(fg_input_can_rewind(in));
	CHECK_U64(drain(a, sizeof(a), in), 8);
	CHECK(!fg_input_rewind(in, &err));
	CHECK_U64(drain(b, sizeof(b), in), 8);
	CHECK(!memcmp(b, "plain 3\n", 8));
	fg_input_free(in);
	unlink(path);

	int p[2];
	CHECK(pipe(p) == 0);
	snprintf(path, sizeof(path), "/dev/fd/%d", p[0]);
	CHECK(!fg_input_open(&in, path, 0, &err));
	CHECK(!fg_input_can_rewind(in));
	fg_input_free(in);
	close(p[0]);
	close(p[1]);
}

/* The frames of a page as a DFS stream, written sorted by the sorter of
 * `collapse` and by the tree: siblings of one name merge whatever their
 * non-kernel types (their children too, the first frame's type kept), a
 * kernel frame of the same name stays apart, siblings in byte order ("A"
 * before "Ab" before "B"), a line for each stack with self samples. */
static void test_sorter(void)
{
	fg_error err;
	fg_names *names = NULL;
	CHECK(fg_names_new(&names, &err) == 0);
	const char *const words[] = { "all", "B", "x", "y", "A", "z", "w", "Ab" };
	uint32_t id[8];
	for (int i = 0; i < 8; i++)
		CHECK(fg_names_intern(&id[i], names, words[i], strlen(words[i]), &err) == 0);
	const fg_frame frames[] = {
		{ 0, id[0], FG_FRAME_NATIVE, 22 },
		{ 1, id[1], FG_FRAME_JIT, 8 }, { 2, id[2], FG_FRAME_NATIVE, 3 }, { 2, id[3], FG_FRAME_NATIVE, 2 },
		{ 1, id[4], FG_FRAME_JIT, 5 }, { 2, id[5], FG_FRAME_INLINED, 2 },
		{ 1, id[4], FG_FRAME_INTERPRETED, 4 }, { 2, id[5], FG_FRAME_JIT, 1 }, { 2, id[6], FG_FRAME_NATIVE, 1 },
		{ 1, id[4], FG_FRAME_KERNEL, 2 },
		{ 1, id[7], FG_FRAME_C1, 1 },
	};
	const size_t n = sizeof(frames) / sizeof(frames[0]);
	static const char *const want[2] = {
		"A 5\nA;w 1\nA;z 3\nA_[k] 2\nAb 1\nB 3\nB;x 3\nB;y 2\n",
		"A_[j] 5\nA_[j];w 1\nA_[j];z_[i] 3\nA_[k] 2\nAb_[1] 1\nB_[j] 3\nB_[j];x 3\nB_[j];y 2\n",
	};
	for (int annotate = 0; annotate < 2; annotate++) {
		fg_collapsed_write_options wo = { .annotate = annotate };
		fg_collapsed_sorter *s = NULL;
		fg_tree *t = NULL;
		CHECK(fg_collapsed_sorter_new(&s, NULL, NULL, &err) == 0 && fg_tree_new(&t, id[0], &err) == 0);
		/* In two batches, as a reader may hand them. */
		CHECK(fg_collapsed_sorter_frames(s, frames, 5, &err) == 0);
		CHECK(fg_collapsed_sorter_frames(s, frames + 5, n - 5, &err) == 0);
		CHECK(fg_collapsed_sorter_frames(s, NULL, 0, &err) == 0);
		CHECK(fg_tree_add_frames(t, frames, n, &err) == 0 && fg_tree_add_frames(t, NULL, 0, &err) == 0);
		char *bytes[2] = { NULL, NULL };
		size_t len[2];
		FILE *f[2] = { open_memstream(&bytes[0], &len[0]), open_memstream(&bytes[1], &len[1]) };
		CHECK(fg_collapsed_sorter_write(f[0], s, names, &wo, &err) == 0);
		CHECK(fg_collapsed_write(f[1], t, names, &wo, &err) == 0);
		fclose(f[0]);
		fclose(f[1]);
		CHECK_STR(bytes[0], want[annotate]);
		CHECK_STR(bytes[1], want[annotate]);
		/* The root is 22 wide, its children 20: two samples stop there. */
		CHECK(fg_collapsed_sorter_root_samples(s) == 2 && fg_tree_node_at(t, 0)->self == 2);
		free(bytes[0]);
		free(bytes[1]);
		fg_tree_free(t);
		fg_collapsed_sorter_free(s);
	}
	/* A stream that skips a level is refused, as by the tree. */
	fg_collapsed_sorter *s = NULL;
	CHECK(fg_collapsed_sorter_new(&s, NULL, NULL, &err) == 0);
	CHECK(fg_collapsed_sorter_frames(s, frames, 1, &err) == 0);
	CHECK(fg_collapsed_sorter_frames(s, &frames[2], 1, &err) == FG_EINTERNAL);
	fg_collapsed_sorter_free(s);
	fg_names_free(names);
}

/* fg_input_peek_most (JFR chunks): the bytes wanted and no more while more
 * follow, the content intact across the moves to the buffer's start, the
 * rest at the end; plain and gzip alike. */
static void test_peek_most(void)
{
	enum { N = 3 << 20 };
	char *data = malloc(N);
	static unsigned char gz[1 << 16];
	for (size_t i = 0; i < N; i++)
		data[i] = (char)(i * 2654435761u >> 13);
	size_t zn = gzip_bytes(gz, sizeof(gz), "", 0);
	for (int z = 0; z < 2; z++) {
		fg_input *in = NULL;
		fg_error err;
		char *big = NULL;
		if (z) {
			big = malloc(N);
			zn = gzip_bytes((unsigned char *)big, N, data, N);
			CHECK(!fg_input_open_memory(&in, big, zn, "t", 0, &err));
		} else {
			CHECK(!fg_input_open_memory(&in, data, N, "t", 0, &err));
		}
		const char *d;
		size_t n, at = 0;
		CHECK(!fg_input_peek(&d, &n, in, 512, &err));
		static const size_t want[] = { 100, 300000, 68, 1 << 20, 68, 2 << 20 };
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
			CHECK(!fg_input_peek_most(&d, &n, in, want[k], &err));
			size_t expect = N - at < want[k] ? N - at : want[k];
			CHECK(n >= expect && (at + n == N || n == expect || k == 0));
			CHECK(!memcmp(d, data + at, expect));
			at += expect;
			fg_input_consume_lines(in, d + expect, 0);
		}
		CHECK_U64(at, N);
		CHECK(!fg_input_peek_most(&d, &n, in, 68, &err));
		CHECK_U64(n, 0);
		fg_input_free(in);
		free(big);
	}
	(void)zn;
	free(data);
}

/* fg_input_read: a record read into the caller's buffer, the buffered bytes
 * first and the rest straight from the source, plain and gzip'd, whole and
 * one raw byte at a time; the reads and peeks after it go on where it
 * stopped, and --max-size stops it as it stops fg_input_peek_most, with the
 * same message. */
static void test_input_read(void)
{
	enum { N = 3 << 20 };
	char *data = malloc(N), *buf = malloc(N), *big = malloc(N);
	for (size_t i = 0; i < N; i++)
		data[i] = (char)(i * 2654435761u >> 13);
	size_t zn = gzip_bytes((unsigned char *)big, N, data, N);
	for (int z = 0; z < 2; z++) {
		for (size_t rs = 0; rs < 2; rs++) {
			fg_input *in = NULL;
			fg_error err;
			CHECK(!fg_input_open_memory(&in, z ? big : data, z ? zn : N, "t", 0, &err));
			fg_input_set_read_size(in, rs ? 1 : 0);
			const char *d;
			size_t n, got, at = 0;
			static const size_t want[] = { 68, 300000, 1 << 20, 68, N };
			for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
				CHECK(!fg_input_peek_most(&d, &n, in, 68, &err));
				CHECK(n >= 68 && !memcmp(d, data + at, 68));
				CHECK(!fg_input_read(&got, in, buf, want[k], &err));
				CHECK_U64(got, N - at < want[k] ? N - at : want[k]);
				CHECK(!memcmp(buf, data + at, got));
				at += got;
				CHECK_U64(fg_input_offset(in), at);
			}
			CHECK_U64(at, N);
			CHECK(!fg_input_read(&got, in, buf, 10, &err));
			CHECK_U64(got, 0);
			fg_input_free(in);
		}
		/* --max-size inside the second record: the same error either way. */
		fg_error e[2];
		for (int r = 0; r < 2; r++) {
			fg_input *in = NULL;
			const char *d;
			size_t n, got;
			CHECK(!fg_input_open_memory(&in, z ? big : data, z ? zn : N, "t", 400000, &e[r]));
			CHECK(!fg_input_peek_most(&d, &n, in, 300000, &e[r]));
			fg_input_consume_lines(in, d + 300000, 0);
			CHECK(r ? fg_input_read(&got, in, buf, 200000, &e[r]) != 0
				: fg_input_peek_most(&d, &n, in, 200000, &e[r]) != 0);
			fg_input_free(in);
		}
		CHECK_STR(e[0].message, e[1].message);
	}
	free(data);
	free(buf);
	free(big);
}

int main(void)
{
	test_v3_worked_example();
	test_frame_loop();
	test_cpool_prefixes();
	test_unescape();
	test_v2();
	test_indented();
	test_empty_graph();
	test_malformed();
	test_collapsed();
	test_collapsed_shared_prefix();
	test_collapsed_two_counts();
	test_foreign_formats();
	test_reversed_html();
	test_gzip();
	test_rewind();
	test_peek_most();
	test_input_read();
	test_sorter();
	return check_status("test_profile");
}
