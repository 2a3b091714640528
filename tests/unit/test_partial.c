/* The readers of leaf-first stacks (JFR, pprof) for a visitor with a stop
 * function (fg_stop_fn): a stack ends at the first frame from the leaf whose
 * name stops it, handed partial with exactly that frame and those below it
 * (JFR: that frame and the leaf, the frames between left out, fg_stop_fn);
 * a stack without one, or whose stop frame is its root-most, comes whole;
 * the frames stepped over are still checked.  With an inert function
 * (fg_inert_fn) too, a JFR stack trace whose frames are all inert comes as
 * its leaf alone.  The answers of share over these stacks are checked
 * against collapsed text in tests/sh/share_partial.sh. */
#include <stdlib.h>

#include "check.h"
#include "io/input.h"
#include "formats/pprof.h"
#include "model/profile.h"
#include "formats/reader.h"

/* Stacks as "P a;b;c 3" (partial) or "W ..." (whole) lines. */
struct log {
	fg_names *names;
	const char *stop_at;
	const char *held; /* the one name not inert */
	char buf[4096];
	size_t len;
};

static int log_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	(void)ctx, (void)frames, (void)n, (void)err;
	return 0;
}

static int log_stack(void *ctx, const fg_stack *st, fg_error *err)
{
	(void)err;
	struct log *l = ctx;
	l->len += (size_t)snprintf(l->buf + l->len, sizeof(l->buf) - l->len, "%c ", st->partial ? 'P' : 'W');
	for (size_t i = 1; i <= st->depth; i++)
		l->len += (size_t)snprintf(l->buf + l->len, sizeof(l->buf) - l->len, "%s%s", i > 1 ? ";" : "",
					   fg_names_get(l->names, st->names[i]));
	l->len += (size_t)snprintf(l->buf + l->len, sizeof(l->buf) - l->len, " %llu\n", (unsigned long long)st->count);
	return 0;
}

static int log_stop(void *ctx, uint32_t name, bool *stop, fg_error *err)
{
	(void)err;
	struct log *l = ctx;
	*stop = l->stop_at && !strcmp(fg_names_get(l->names, name), l->stop_at);
	return 0;
}

static int log_inert(void *ctx, uint32_t name, bool *inert, fg_error *err)
{
	(void)err;
	struct log *l = ctx;
	*inert = !l->held || strcmp(fg_names_get(l->names, name), l->held);
	return 0;
}

/* The stacks of data read with a stop at the name stop_at (NULL: none),
 * and with inert given every name but held (NULL: every name) when inert,
 * or the error message. */
static char result[4096];

static const char *read_marked(const void *data, size_t len, const char *stop_at, bool inert, const char *held,
			       const fg_read_options *o)
{
	struct log l = { .stop_at = stop_at, .held = held };
	fg_error err;
	fg_profile_info info;
	fg_error_clear(&err);
	fg_names_new(&l.names, &err);
	int rc = fg_reader_read_memory(&info, data, len, "t", l.names, o,
				       &(fg_visitor){ log_frames, log_stack, &l, log_stop, inert ? log_inert : NULL }, &err);
	snprintf(result, sizeof(result), "%s", rc ? err.message : l.buf);
	fg_names_free(l.names);
	return result;
}

static const char *read_stops(const void *data, size_t len, const char *stop_at, const fg_read_options *o)
{
	return read_marked(data, len, stop_at, false, NULL, o);
}

/* A protobuf message being written. */
struct pb {
	unsigned char b[1024];
	size_t n;
};

static void pb_varint(struct pb *p, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		p->b[p->n++] = (unsigned char)(v | 0x80);
	p->b[p->n++] = (unsigned char)v;
}

static void pb_int(struct pb *p, unsigned field, uint64_t v)
{
	pb_varint(p, field << 3);
	pb_varint(p, v);
}

static void pb_bytes(struct pb *p, unsigned field, const void *d, size_t n)
{
	pb_varint(p, field << 3 | 2);
	pb_varint(p, n);
	memcpy(p->b + p->n, d, n);
	p->n += n;
}

/* A sample: location ids leaf first (packed or one a field), a value. */
static void pb_sample(struct pb *p, const uint64_t *ids, size_t n, bool packed, uint64_t value)
{
	struct pb s = { .n = 0 }, run = { .n = 0 };
	for (size_t i = 0; i < n; i++) {
		if (packed)
			pb_varint(&run, ids[i]);
		else
			pb_int(&s, 1, ids[i]);
	}
	if (packed)
		pb_bytes(&s, 1, run.b, run.n);
	pb_int(&s, 2, value);
	struct pb label = { .n = 0 };
	pb_int(&label, 1, 8); /* thread=main */
	pb_int(&label, 2, 9);
	pb_bytes(&s, 3, label.b, label.n);
	pb_bytes(p, 2, s.b, s.n);
}

/* Functions r, m, inl, leaf, x (ids 1-5); locations 1 (r), 2 (m with inl
 * inlined in it), 3 (leaf), 4 (x), 130 (x, its id two bytes: 0x82 0x01);
 * then the samples given, each with the label thread=main. */
static size_t pprof_bytes(struct pb *p, void (*samples)(struct pb *))
{
	static const char *const strings[] = { "", "samples", "count", "r", "m", "inl", "leaf", "x", "thread", "main" };
	struct pb m = { .n = 0 };
	p->n = 0;
	pb_int(&m, 1, 1);
	pb_int(&m, 2, 2);
	pb_bytes(p, 1, m.b, m.n);
	samples(p);
	for (unsigned f = 1; f <= 5; f++) {
		m.n = 0;
		pb_int(&m, 1, f);
		pb_int(&m, 2, f + 2);
		pb_bytes(p, 5, m.b, m.n);
	}
	static const unsigned lines[5][2] = { { 1, 0 }, { 3, 2 }, { 4, 0 }, { 5, 0 }, { 5, 0 } }; /* innermost first */
	for (unsigned l = 0; l < 5; l++) {
		m.n = 0;
		pb_int(&m, 1, l < 4 ? l + 1 : 130);
		for (unsigned k = 0; k < 2 && lines[l][k]; k++) {
			struct pb line = { .n = 0 };
			pb_int(&line, 1, lines[l][k]);
			pb_bytes(&m, 4, line.b, line.n);
		}
		pb_bytes(p, 4, m.b, m.n);
	}
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		pb_bytes(p, 6, strings[i], strlen(strings[i]));
	return p->n;
}

static void good_samples(struct pb *p)
{
	pb_sample(p, (const uint64_t[]){ 3, 2, 1 }, 3, false, 5);
	pb_sample(p, (const uint64_t[]){ 3, 2, 4, 1 }, 4, true, 7);
	pb_sample(p, (const uint64_t[]){ 2 }, 1, false, 2);
	pb_sample(p, (const uint64_t[]){ 3, 4, 1 }, 3, false, 3);
}

/* After the stop, a location id that names no location; or before it. */
static void missing_after_stop(struct pb *p)
{
	pb_sample(p, (const uint64_t[]){ 3, 2, 9 }, 3, false, 5);
}

static void missing_before_stop(struct pb *p)
{
	pb_sample(p, (const uint64_t[]){ 9, 3, 2, 1 }, 4, false, 5);
}

static void test_pprof(void)
{
	struct pb p;
	size_t n = pprof_bytes(&p, good_samples);
	fg_read_options o;
	fg_read_options_init(&o);
	/* The inlined location's caller or its inlined function: the stack
	 * ends above the whole location, both of its frames given. */
	const char *at_m = "P m;inl;leaf 5\nP m;inl;leaf 7\nW m;inl 2\nW r;x;leaf 3\n";
	CHECK_STR(read_stops(p.b, n, "m", &o), at_m);
	CHECK_STR(read_stops(p.b, n, "inl", &o), at_m);
	CHECK_STR(read_stops(p.b, n, "leaf", &o), "P leaf 5\nP leaf 7\nW m;inl 2\nP leaf 3\n");
	/* The root-most frame: nothing left out, the stacks whole. */
	CHECK_STR(read_stops(p.b, n, "r", &o), "W r;m;inl;leaf 5\nW r;x;m;inl;leaf 7\nW m;inl 2\nW r;x;leaf 3\n");
	CHECK_STR(read_stops(p.b, n, NULL, &o), read_stops(p.b, n, "nothing", &o));
	/* A label frame under the root is left out too. */
	static const char *const thread[] = { "thread" };
	o.labels = thread;
	o.nlabels = 1;
	CHECK_STR(read_stops(p.b, n, "r", &o),
		  "P r;m;inl;leaf 5\nP r;x;m;inl;leaf 7\nW [thread=main];m;inl 2\nP r;x;leaf 3\n");
	fg_read_options_init(&o);
	n = pprof_bytes(&p, missing_after_stop);
	CHECK_STR(read_stops(p.b, n, "m", &o), "pprof: a sample names a location that is not in the profile");
	n = pprof_bytes(&p, missing_before_stop);
	CHECK_STR(read_stops(p.b, n, "m", &o), "pprof: a sample names a location that is not in the profile");
	CHECK_STR(read_stops(p.b, n, NULL, &o), "pprof: a sample names a location that is not in the profile");
}

/* The stacks of data (or the error) as the pprof reader hands them, its
 * first pass's record of the samples bounded at max bytes. */
static const char *read_bounded(const void *data, size_t len, const char *stop_at, size_t max)
{
	struct log l = { .stop_at = stop_at };
	fg_error err;
	fg_profile_info info = { 0 };
	fg_input *in = NULL;
	fg_error_clear(&err);
	fg_names_new(&l.names, &err);
	int rc = fg_input_open_memory(&in, data, len, "t", 0, &err);
	if (!rc)
		rc = fg_pprof_read_bounded(&info, in, l.names, NULL, log_stack, stop_at ? log_stop : NULL, &l, max, &err);
	snprintf(result, sizeof(result), "%s", rc ? err.message : l.buf);
	fg_input_free(in);
	fg_names_free(l.names);
	return result;
}

/* A sample's location ids (leaf first) as one-id fields, or packed, or
 * with the id 1 written in two bytes (0x81 0x00); its value; then more ids
 * in a field of their own when after is not 0. */
enum form { FIELDS, PACKED, LONG_ONE };

static void pb_sample_as(struct pb *p, enum form form, const uint64_t *ids, size_t n, uint64_t value, uint64_t after)
{
	struct pb s = { .n = 0 }, run = { .n = 0 };
	for (size_t i = 0; i < n; i++) {
		if (form == PACKED) {
			pb_varint(&run, ids[i]);
		} else if (form == LONG_ONE && ids[i] == 1) {
			pb_varint(&s, 1 << 3);
			s.b[s.n++] = 0x81;
			s.b[s.n++] = 0x00;
		} else {
			pb_int(&s, 1, ids[i]);
		}
	}
	if (form == PACKED)
		pb_bytes(&s, 1, run.b, run.n);
	pb_int(&s, 2, value);
	if (after)
		pb_int(&s, 1, after);
	pb_bytes(p, 2, s.b, s.n);
}

/* Samples that share their callers in every way the record meets: the
 * previous sample's run (its ids, its values as long, or not), a change of
 * form, ids in two fields, an id written in two bytes, recursion, no ids, a
 * value 0. */
static void record_samples(struct pb *p)
{
	pb_sample_as(p, FIELDS, (const uint64_t[]){ 3, 2, 1 }, 3, 5, 0);
	pb_sample_as(p, FIELDS, (const uint64_t[]){ 3, 4, 1 }, 3, 3, 0);
	pb_sample_as(p, FIELDS, (const uint64_t[]){ 3, 4, 1 }, 3, 300, 0);
	pb_sample_as(p, FIELDS, (const uint64_t[]){ 2, 4, 1 }, 3, 300, 0);
	pb_sample_as(p, PACKED, (const uint64_t[]){ 3, 2, 1 }, 3, 7, 0);
	pb_sample_as(p, PACKED, (const uint64_t[]){ 2, 1 }, 2, 2, 0);
	pb_sample_as(p, FIELDS, (const uint64_t[]){ 3, 2 }, 2, 4, 1);
	pb_sample_as(p, FIELDS, (const uint64_t[]){ 3, 2, 1 }, 3, 0, 0);
	pb_sample_as(p, FIELDS, NULL, 0, 1, 0);
	pb_sample_as(p, LONG_ONE, (const uint64_t[]){ 3, 2, 1 }, 3, 6, 0);
	pb_sample_as(p, FIELDS, (const uint64_t[]){ 3, 2, 1 }, 3, 1, 0);
	pb_sample_as(p, FIELDS, (const uint64_t[]){ 3, 2, 2, 2, 1 }, 5, 2, 0);
	pb_sample_as(p, FIELDS, (const uint64_t[]){ 4, 2, 2, 1 }, 4, 2, 0);
	/* Bytes the same as the path's (0x01), but not at an id's start. */
	pb_sample_as(p, PACKED, (const uint64_t[]){ 1 }, 1, 2, 0);
	pb_sample_as(p, PACKED, (const uint64_t[]){ 130 }, 1, 3, 0);
}

/* Then one naming no location, after ids it shares. */
static void record_missing(struct pb *p)
{
	record_samples(p);
	pb_sample_as(p, FIELDS, (const uint64_t[]){ 9, 2, 2, 1 }, 4, 2, 0);
}

/* Then a malformed one (a location id of wire type 5), after one naming no
 * location: the first error is the one said. */
static void record_malformed(struct pb *p)
{
	record_missing(p);
	struct pb s = { .n = 0 };
	pb_varint(&s, 1 << 3 | 5);
	memcpy(s.b + s.n, "\1\0\0\0", 4);
	s.n += 4;
	pb_bytes(p, 2, s.b, s.n);
}

/* The samples read from pass 1's record are the samples read again from
 * the input, for a record of every size, bounded anywhere. */
static void test_pprof_record(void)
{
	struct pb p;
	size_t n = pprof_bytes(&p, record_samples);
	CHECK_STR(read_bounded(p.b, n, NULL, 0),
		  "W r;m;inl;leaf 5\nW r;x;leaf 3\nW r;x;leaf 300\nW r;x;m;inl 300\nW r;m;inl;leaf 7\nW r;m;inl 2\n"
		  "W r;m;inl;leaf 4\nW  1\nW r;m;inl;leaf 6\nW r;m;inl;leaf 1\nW r;m;inl;m;inl;m;inl;leaf 2\n"
		  "W r;m;inl;m;inl;x 2\nW r 2\nW x 3\n");
	CHECK_STR(read_bounded(p.b, n, "m", 0),
		  "P m;inl;leaf 5\nW r;x;leaf 3\nW r;x;leaf 300\nP m;inl 300\nP m;inl;leaf 7\nP m;inl 2\n"
		  "P m;inl;leaf 4\nW  1\nP m;inl;leaf 6\nP m;inl;leaf 1\nP m;inl;leaf 2\nP m;inl;x 2\nW r 2\nW x 3\n");
	static const char *const stops[] = { NULL, "m", "leaf", "r" };
	for (size_t k = 0; k < 4; k++) {
		char two_passes[4096];
		snprintf(two_passes, sizeof(two_passes), "%s", read_bounded(p.b, n, stops[k], 0));
		for (size_t max = 1; max < 200; max++)
			CHECK_STR(read_bounded(p.b, n, stops[k], max), two_passes);
		CHECK_STR(read_bounded(p.b, n, stops[k], (size_t)32 << 20), two_passes);
	}
	n = pprof_bytes(&p, record_missing);
	for (size_t max = 0; max < 200; max += 7)
		CHECK_STR(read_bounded(p.b, n, "m", max), "pprof: a sample names a location that is not in the profile");
	n = pprof_bytes(&p, record_malformed);
	for (size_t max = 0; max < 200; max += 7)
		CHECK_STR(read_bounded(p.b, n, NULL, max), "pprof: a sample names a location that is not in the profile");
}

/* Every "from" in s replaced by "to" (no longer). */
static void replace_all(char *s, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to);
	for (char *at = s; (at = strstr(at, from)) != NULL; at += tl) {
		memmove(at + tl, at + fl, strlen(at + fl) + 1);
		memcpy(at, to, tl);
	}
}

/* The fuzz seed recording tests/fuzz/seeds/small.jfr into data: false
 * (a failed check) when it cannot be read. */
static bool load_small_jfr(char *data, size_t cap, size_t *n)
{
	const char *dir = getenv("FG_SOURCE_DIR");
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/fuzz/seeds/small.jfr", dir ? dir : ".");
	FILE *f = fopen(path, "rb");
	CHECK(f != NULL);
	if (!f)
		return false;
	*n = fread(data, 1, cap, f);
	fclose(f);
	return true;
}

/* The fuzz seed recording: stacks (root first) A.main;B.work;sys_write,
 * A.main;libc.so and [tid=7];x::y, in two chunks. */
static void test_jfr(void)
{
	char data[65536];
	size_t n;
	if (!load_small_jfr(data, sizeof(data), &n))
		return;
	fg_read_options o;
	fg_read_options_init(&o);
	char whole[4096], want[4096];
	snprintf(whole, sizeof(whole), "%s", read_stops(data, n, NULL, &o));
	CHECK_STR(whole, "W a/A.main;a/B.work;sys_write 10\nW a/A.main;libc.so 10\nW [tid=7];x::y 10\n"
			 "W a/A.main;a/B.work;sys_write 2\nW a/A.main;libc.so 2\nW [tid=7];x::y 1\n");
	/* Cut after B.work, in both chunks: that stack alone is partial. */
	snprintf(want, sizeof(want), "%s", whole);
	replace_all(want, "W a/A.main;a/B.work;", "P a/B.work;");
	CHECK_STR(read_stops(data, n, "a/B.work", &o), want);
	/* At the root-most frame nothing is left out: the stacks are whole. */
	CHECK_STR(read_stops(data, n, "a/A.main", &o), whole);
	/* A thread frame above the trace: left out with the frames above the cut. */
	o.threads = true;
	snprintf(whole, sizeof(whole), "%s", read_stops(data, n, NULL, &o));
	CHECK(strstr(whole, "W [main tid=1];a/A.main;a/B.work;sys_write 10\n") != NULL);
	CHECK_STR(read_stops(data, n, "a/A.main", &o), whole);
	snprintf(want, sizeof(want), "%s", whole);
	replace_all(want, "W [main tid=1];a/A.main;a/B.work;", "P a/B.work;");
	CHECK_STR(read_stops(data, n, "a/B.work", &o), want);
}

/* The same recording with an inert function: a trace of inert frames is its
 * leaf alone, with the thread frame; a trace with one frame that is not
 * inert, or cut at a stop, as without it. */
static void test_jfr_inert(void)
{
	char data[65536];
	size_t n;
	if (!load_small_jfr(data, sizeof(data), &n))
		return;
	fg_read_options o;
	fg_read_options_init(&o);
	CHECK_STR(read_marked(data, n, NULL, true, NULL, &o),
		  "W sys_write 10\nW libc.so 10\nW x::y 10\nW sys_write 2\nW libc.so 2\nW x::y 1\n");
	/* One frame not inert, the root-most or the leaf: those stacks whole. */
	CHECK_STR(read_marked(data, n, NULL, true, "a/A.main", &o),
		  "W a/A.main;a/B.work;sys_write 10\nW a/A.main;libc.so 10\nW x::y 10\n"
		  "W a/A.main;a/B.work;sys_write 2\nW a/A.main;libc.so 2\nW x::y 1\n");
	CHECK_STR(read_marked(data, n, NULL, true, "x::y", &o),
		  "W sys_write 10\nW libc.so 10\nW [tid=7];x::y 10\nW sys_write 2\nW libc.so 2\nW [tid=7];x::y 1\n");
	/* A stop (not inert) as without inert; the other stacks short. */
	CHECK_STR(read_marked(data, n, "a/B.work", true, "a/B.work", &o),
		  "P a/B.work;sys_write 10\nW libc.so 10\nW x::y 10\nP a/B.work;sys_write 2\nW libc.so 2\nW x::y 1\n");
	/* The thread frame stays, before the leaf. */
	o.threads = true;
	const char *got = read_marked(data, n, NULL, true, NULL, &o);
	CHECK(strstr(got, "W [main tid=1];sys_write 10\n") != NULL);
	CHECK(strstr(got, ";x::y 10\n") != NULL && strstr(got, "tid=7];x::y") == NULL);
}

int main(void)
{
	test_pprof();
	test_pprof_record();
	test_jfr();
	test_jfr_inert();
	return check_status("test_partial");
}
