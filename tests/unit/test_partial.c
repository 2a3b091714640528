/* The readers of leaf-first stacks (JFR, pprof) for a visitor with a stop
 * function (fg_stop_fn): a stack ends at the first frame from the leaf whose
 * name stops it, handed partial with exactly that frame and those below it
 * (JFR: that frame and the leaf, the frames between left out, fg_stop_fn);
 * a stack without one, or whose stop frame is its root-most, comes whole;
 * the frames stepped over are still checked.  The answers of share over
 * these stacks are checked against collapsed text in tests/sh/share_partial.sh. */
#include <stdlib.h>

#include "check.h"
#include "profile.h"
#include "reader.h"

/* Stacks as "P a;b;c 3" (partial) or "W ..." (whole) lines. */
struct log {
	fg_names *names;
	const char *stop_at;
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

/* The stacks of data read with a stop at the name stop_at (NULL: none), or
 * the error message. */
static char result[4096];

static const char *read_stops(const void *data, size_t len, const char *stop_at, const fg_read_options *o)
{
	struct log l = { .stop_at = stop_at };
	fg_error err;
	fg_profile_info info;
	fg_error_clear(&err);
	fg_names_new(&l.names, &err);
	int rc = fg_reader_read_memory(&info, data, len, "t", l.names, o, &(fg_visitor){ log_frames, log_stack, &l, log_stop },
				       &err);
	snprintf(result, sizeof(result), "%s", rc ? err.message : l.buf);
	fg_names_free(l.names);
	return result;
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
 * inlined in it), 3 (leaf), 4 (x); then the samples given, each with the
 * label thread=main. */
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
	static const unsigned lines[4][2] = { { 1, 0 }, { 3, 2 }, { 4, 0 }, { 5, 0 } }; /* innermost first */
	for (unsigned l = 0; l < 4; l++) {
		m.n = 0;
		pb_int(&m, 1, l + 1);
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

/* Every "from" in s replaced by "to" (no longer). */
static void replace_all(char *s, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to);
	for (char *at = s; (at = strstr(at, from)) != NULL; at += tl) {
		memmove(at + tl, at + fl, strlen(at + fl) + 1);
		memcpy(at, to, tl);
	}
}

/* The fuzz seed recording: stacks (root first) A.main;B.work;sys_write,
 * A.main;libc.so and [tid=7];x::y, in two chunks. */
static void test_jfr(void)
{
	const char *dir = getenv("FG_SOURCE_DIR");
	char path[4096], data[65536];
	snprintf(path, sizeof(path), "%s/tests/fuzz/seeds/small.jfr", dir ? dir : ".");
	FILE *f = fopen(path, "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	size_t n = fread(data, 1, sizeof(data), f);
	fclose(f);
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

int main(void)
{
	test_pprof();
	test_jfr();
	return check_status("test_partial");
}
