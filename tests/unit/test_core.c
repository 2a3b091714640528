/* The streamed analyses and the capture command on small exact inputs:
 * share (a stack counts once however deep the frame recurses; self is the
 * leaf), top (inclusive and self orders, names merged by normalisation),
 * the matcher (substring of the raw or the normalised name, ERE, --raw), and
 * capture (the profile written to $FGBISECT_OUT, failures, the timeout). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bisect/capture.h"
#include "check.h"
#include "model/match.h"
#include "model/namemap.h"
#include "model/names.h"
#include "model/profile.h"
#include "formats/reader.h"
#include "analysis/share.h"
#include "analysis/top.h"

/* 10 samples: A recurses (A;B;A), lambdas differ only by their per-run id. */
static const char profile[] =
	"A;B;A 3\n"
	"A;B 2\n"
	"A 1\n"
	"C;io/camunda/Foo$$Lambda.0x0000000801234567.run 2\n"
	"C;io/camunda/Foo$$Lambda.0x00000008089abcde.run 1\n"
	"io.camunda.zeebe.Dotted.run 1\n";

static void read_into(fg_names *names, const fg_visitor *v)
{
	fg_profile_info info;
	fg_error err;
	CHECK(fg_reader_read_memory(&info, profile, strlen(profile), "t", names, NULL, v, &err) == 0);
	CHECK_U64(info.total, 10);
}

static void test_share(bool stacks)
{
	static const char *const patterns[] = { "A", "B", "Lambda", "io/camunda/zeebe/Dotted", "nowhere" };
	fg_error err;
	fg_names *names = NULL;
	fg_matcher *m = NULL;
	fg_share *s = NULL;
	fg_match_options mo = { 0 };
	CHECK(fg_names_new(&names, &err) == 0);
	CHECK(fg_matcher_new(&m, patterns, 5, &mo, &err) == 0);
	CHECK(fg_share_new(&s, m, names, &err) == 0);
	read_into(names, &(fg_visitor){ fg_share_frames, stacks ? fg_share_stack : NULL, s, NULL, NULL });
	CHECK_U64(fg_share_samples(s, 0), 6); /* A;B;A counts once */
	CHECK_U64(fg_share_self(s, 0), 4);    /* A;B;A and A */
	CHECK_U64(fg_share_samples(s, 1), 5);
	CHECK_U64(fg_share_self(s, 1), 2);
	CHECK_U64(fg_share_samples(s, 2), 3);
	/* The dotted frame matches its slashed (normalised) form. */
	CHECK_U64(fg_share_samples(s, 3), 1);
	CHECK(fg_share_matched(s, 3));
	CHECK_U64(fg_share_samples(s, 4), 0);
	CHECK(!fg_share_matched(s, 4));
	fg_share_reset(s);
	CHECK_U64(fg_share_samples(s, 0), 0);
	fg_share_free(s);
	fg_matcher_free(m);
	fg_names_free(names);
}

static void test_top(bool normalise)
{
	fg_error err;
	fg_names *names = NULL;
	fg_namemap *map = NULL;
	fg_top *top = NULL;
	CHECK(fg_names_new(&names, &err) == 0);
	if (normalise)
		CHECK(fg_namemap_new(&map, names, &err) == 0);
	CHECK(fg_top_new(&top, map ? fg_namemap_get : NULL, map, &err) == 0);
	read_into(names, &(fg_visitor){ fg_top_frames, fg_top_stack, top, NULL, NULL });
	CHECK_U64(fg_top_total(top), 10);
	fg_top_entry *e = NULL;
	size_t n = 0;
	CHECK(fg_top_entries(&e, &n, top, false, &err) == 0);
	/* A 6, B 5, C 3 (the root is not listed), then the lambdas: one merged
	 * name of 3 when normalised, else 2 and 1; Dotted 1. */
	CHECK_U64(n, normalise ? 5 : 6);
	if (n >= 3) {
		CHECK_STR(fg_names_get(names, e[0].name), "A");
		CHECK_U64(e[0].samples, 6);
		CHECK_U64(e[0].self_samples, 4);
		CHECK_STR(fg_names_get(names, e[1].name), "B");
		CHECK_U64(e[1].samples, 5);
		CHECK_U64(e[1].self_samples, 2);
		CHECK_U64(e[2].samples, 3);
	}
	size_t lambdas = 0;
	for (size_t i = 0; i < n; i++)
		lambdas += strstr(fg_names_get(names, e[i].name), "Lambda") != NULL;
	CHECK_U64(lambdas, normalise ? 1 : 2);
	free(e);
	CHECK(fg_top_entries(&e, &n, top, true, &err) == 0);
	CHECK(n > 0 && !strcmp(fg_names_get(names, e[0].name), "A") && e[0].self_samples == 4);
	free(e);
	fg_top_free(top);
	fg_namemap_free(map);
	fg_names_free(names);
}

static uint64_t mask_of(fg_matcher *m, fg_names *names, const char *name)
{
	uint32_t id;
	fg_error err;
	uint64_t mask = 0;
	if (fg_names_intern(&id, names, name, strlen(name), &err) || fg_matcher_test(&mask, m, names, id, &err))
		return UINT64_MAX;
	return mask;
}

static void test_match(void)
{
	static const char *const subs[] = { "Column", "io/camunda/Foo.run" };
	static const char *const eres[] = { "^io/.*\\.(get|put)$", "Lambda\\.0x[0-9a-f]+" };
	fg_error err;
	fg_names *names = NULL;
	fg_matcher *m = NULL;
	CHECK(fg_names_new(&names, &err) == 0);
	fg_match_options mo = { 0 };
	CHECK(fg_matcher_new(&m, subs, 2, &mo, &err) == 0);
	CHECK_U64(mask_of(m, names, "x/TransactionalColumnFamily.get"), 1);
	CHECK_U64(mask_of(m, names, "io.camunda.Foo.run"), 2);  /* dotted: matches its slashed form */
	CHECK_U64(mask_of(m, names, "column"), 0);              /* case-sensitive */
	CHECK_STR(fg_matcher_pattern(m, 1), "io/camunda/Foo.run");
	fg_matcher_free(m);
	mo.raw = true;
	CHECK(fg_matcher_new(&m, subs, 2, &mo, &err) == 0);
	CHECK_U64(mask_of(m, names, "io.camunda.Foo.run"), 0);  /* --raw: the raw name only */
	fg_matcher_free(m);
	mo = (fg_match_options){ .regex = true };
	CHECK(fg_matcher_new(&m, eres, 2, &mo, &err) == 0);
	CHECK_U64(mask_of(m, names, "io/x/Db.get"), 1);
	CHECK_U64(mask_of(m, names, "io/x/Db.getAll"), 0);
	CHECK_U64(mask_of(m, names, "p/Foo$$Lambda.0x00000008012.run"), 2);
	fg_matcher_free(m);
	static const char *const bad[] = { "(" };
	CHECK(fg_matcher_new(&m, bad, 1, &mo, &err) == FG_EUSAGE);
	fg_names_free(names);
}

/* Substring patterns against memmem itself: random names and patterns of
 * few bytes (so that they often match, at every place and overlapping),
 * one to 63 patterns of one to nine bytes. */
static void test_match_random(void)
{
	static const char alphabet[] = "ab/.$Lx:";
	fg_error err;
	uint64_t state = 0x2545F4914F6CDD1Dull;
	int bad = 0, hits = 0;
	for (int round = 0; round < 300; round++) {
		char pat[63][10];
		const char *pats[63];
		fg_names *names = NULL;
		fg_matcher *m = NULL;
		fg_match_options mo = { .raw = true };
		state = state * 6364136223846793005ull + 1442695040888963407ull;
		size_t n = 1 + (size_t)(state >> 58) % 63;
		for (size_t i = 0; i < n; i++) {
			state = state * 6364136223846793005ull + 1442695040888963407ull;
			size_t len = 1 + (size_t)(state >> 60) % 9;
			for (size_t k = 0; k < len; k++)
				pat[i][k] = alphabet[(state >> (4 * k + 8)) & 7];
			pat[i][len] = '\0';
			pats[i] = pat[i];
		}
		CHECK(fg_names_new(&names, &err) == 0);
		CHECK(fg_matcher_new(&m, pats, n, &mo, &err) == 0);
		for (int k = 0; k < 40; k++) {
			char name[80];
			state = state * 6364136223846793005ull + 1442695040888963407ull;
			size_t len = (size_t)(state >> 58);
			for (size_t j = 0; j < len; j++) {
				state = state * 6364136223846793005ull + 1442695040888963407ull;
				name[j] = alphabet[state >> 61];
			}
			name[len] = '\0';
			uint64_t want = 0;
			for (size_t i = 0; i < n; i++)
				if (memmem(name, len, pats[i], strlen(pats[i])))
					want |= UINT64_C(1) << i;
			bad += mask_of(m, names, name) != want;
			hits += want != 0;
		}
		fg_matcher_free(m);
		fg_names_free(names);
	}
	CHECK_U64(bad, 0);
	CHECK(hits > 1000);
}

static void test_capture(void)
{
	fg_capture_options o;
	fg_capture_options_init(&o);
	fg_capture *c = NULL;
	fg_error err;
	CHECK(fg_capture_run(&c, "printf 'a;b 3\\n' > \"$FGBISECT_OUT\"; echo to-stderr", &o, &err) == 0);
	struct stat st;
	CHECK(c && stat(fg_capture_path(c), &st) == 0 && st.st_size == 6);
	char *dir = c ? strdup(fg_capture_path(c)) : NULL;
	fg_capture_free(c);
	/* The temporary file goes with the capture. */
	CHECK(dir && stat(dir, &st) != 0);
	free(dir);
	CHECK(fg_capture_run(&c, "exit 3", &o, &err) == FG_EFETCH);
	CHECK_STR(err.message, "capture command failed with exit status 3");
	CHECK(fg_capture_run(&c, "true", &o, &err) == FG_EFETCH);
	CHECK_STR(err.message, "capture command wrote no profile to $FGBISECT_OUT");
	o.timeout_s = 0.3;
	CHECK(fg_capture_run(&c, "echo x > \"$FGBISECT_OUT\"; sleep 30", &o, &err) == FG_EFETCH);
	CHECK_STR(err.message, "capture timed out after 0.3 s (process group killed)");
	o.timeout_s = 0;
	static const char *const env[] = { "FG_TEST_WORD=hello" };
	o.env = env;
	o.nenv = 1;
	o.dir = "/";
	CHECK(fg_capture_run(&c, "[ \"$PWD\" = / ] && echo \"$FG_TEST_WORD\" > \"$FGBISECT_OUT\"", &o, &err) == 0);
	CHECK(c && stat(fg_capture_path(c), &st) == 0 && st.st_size == 6);
	fg_capture_free(c);
}

int main(void)
{
	test_share(false);
	test_share(true);
	test_top(false);
	test_top(true);
	test_match();
	test_match_random();
	test_capture();
	return check_status("test_core");
}
