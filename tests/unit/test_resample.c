/* The seeded generator of tests/gen (real stacks of the day-1 and day-10
 * profiles mixed to a chosen share), and a small seeded run of the decision
 * on its builds: exact counts read back, the same bytes for the same seed,
 * no wrong verdict of the interval rule where the median rule (the old
 * default) errs. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "formats/reader.h"
#include "resample.h"
#include "analysis/share.h"
#include "base/stats.h"
#include "bisect/verdict.h"

static char dir[200];

static uint64_t samples_of(const char *path, const char *pattern, uint64_t *total)
{
	fg_names *names;
	fg_matcher *m;
	fg_share *sh;
	fg_error err;
	const char *pats[] = { pattern };
	fg_match_options mo = { 0 };
	fg_profile_info info;
	fg_read_options ro;
	fg_read_options_init(&ro);
	CHECK(fg_names_new(&names, &err) == 0);
	CHECK(fg_matcher_new(&m, pats, 1, &mo, &err) == 0);
	CHECK(fg_share_new(&sh, m, names, &err) == 0);
	CHECK(fg_reader_read(&info, path, names, &ro, &(fg_visitor){ fg_share_frames, fg_share_stack, sh, NULL, NULL }, &err) == 0);
	uint64_t k = fg_share_samples(sh, 0);
	*total = info.total;
	fg_share_free(sh);
	fg_matcher_free(m);
	fg_names_free(names);
	return k;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	static char buf[4 << 20];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strdup(buf);
}

int main(void)
{
	const char *src = getenv("FG_SOURCE_DIR");
	if (!src) {
		fprintf(stderr, "SKIP: FG_SOURCE_DIR is not set\n");
		return 77;
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/fg-resample-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	char healthy[4096], regressed[4096];
	snprintf(healthy, sizeof(healthy), "%s/fixtures/day01-broker-0-grpc.collapsed.gz", src);
	snprintf(regressed, sizeof(regressed), "%s/fixtures/day10-broker-0-grpc.collapsed.gz", src);
	const char *paths[] = { healthy, regressed };
	resample *r;
	fg_error err;
	CHECK(resample_new(&r, paths, 2, "TransactionalColumnFamily", &err) == 0);
	CHECK(resample_stacks(r, 1) > 10 && resample_stacks(r, 0) > 100);

	/* Exact counts read back; the same seed gives the same bytes. */
	char a[256], b[256];
	snprintf(a, sizeof(a), "%s/a.collapsed", dir);
	snprintf(b, sizeof(b), "%s/b.collapsed", dir);
	uint64_t seed = 9, matched, total;
	CHECK(resample_write(r, a, 5000, 4.0, &seed, &matched, &err) == 0);
	CHECK_U64(samples_of(a, "TransactionalColumnFamily", &total), matched);
	CHECK_U64(total, 5000);
	CHECK(matched > 150 && matched < 250);
	uint64_t again;
	seed = 9;
	CHECK(resample_write(r, b, 5000, 4.0, &seed, &again, &err) == 0);
	char *x = slurp(a), *y = slurp(b);
	CHECK(x && y && !strcmp(x, y));
	free(x);
	free(y);
	CHECK(resample_write(r, b, 5000, 0.0, &seed, &again, &err) == 0);
	CHECK_U64(again, 0);
	CHECK_U64(samples_of(b, "TransactionalColumnFamily", &total), 0);
	/* The share is unbiased: 40 profiles at 4% hold 8,000 of 200,000
	 * samples give or take sampling (sd 88). */
	uint64_t sum = 0;
	for (int i = 0; i < 40; i++) {
		CHECK(resample_write(r, b, 5000, 4.0, &seed, &again, &err) == 0);
		sum += again;
	}
	CHECK(sum > 8000 - 5 * 88 && sum < 8000 + 5 * 88);

	/* Seeded builds 0.1-0.5 and 1-2 points either side of 4% (3 nodes x
	 * 5,000 samples, 0.2 points of day noise, 0.1 of node noise): the
	 * interval rule is never wrong and decides far builds; the median rule
	 * judges some near builds wrongly. */
	fg_verdict_options vo, old;
	fg_verdict_options_init(&vo);
	vo.pattern = "TransactionalColumnFamily";
	vo.threshold = 4;
	old = vo;
	old.aggregate = FG_AGGREGATE_MEDIAN;
	fg_verdict_judge *judge;
	CHECK(fg_verdict_judge_new(&judge, &vo, &err) == 0);
	resample_run_options ro;
	resample_run_options_init(&ro);
	size_t wrong[2] = { 0 }, skipped[2] = { 0 }, old_wrong = 0;
	seed = 2026;
	for (int band = 0; band < 2; band++)
		for (int i = 0; i < 40; i++) {
			double d = band ? 1.0 + rng_uniform(&seed) : 0.1 + 0.4 * rng_uniform(&seed);
			double truth = i % 2 ? 4 + d : 4 - d;
			char *files[16];
			CHECK(resample_run(files, r, &ro, truth, &seed, dir, "n", &err) == 0);
			fg_verdict_input in[3] = { { .source = files[0] }, { .source = files[1] }, { .source = files[2] } };
			fg_verdict *v;
			CHECK(fg_verdict_judge_inputs(&v, judge, in, 3, NULL, NULL, &err) == 0);
			bool slow = truth >= 4;
			skipped[band] += v->kind == FG_VERDICT_SKIP;
			wrong[band] += v->kind == (slow ? FG_VERDICT_FAST : FG_VERDICT_SLOW);
			fg_verdict_decide(v, &old);
			old_wrong += band == 0 && v->kind == (slow ? FG_VERDICT_FAST : FG_VERDICT_SLOW);
			fg_verdict_free(v);
			for (int k = 0; k < 3; k++) {
				unlink(files[k]);
				free(files[k]);
			}
		}
	printf("near: %zu wrong, %zu skipped (median rule: %zu wrong); far: %zu wrong, %zu skipped\n", wrong[0],
	       skipped[0], old_wrong, wrong[1], skipped[1]);
	CHECK_U64(wrong[0], 0);
	CHECK_U64(wrong[1], 0);
	CHECK(skipped[1] <= 2);
	CHECK(old_wrong >= 1);
	fg_verdict_judge_free(judge);
	resample_free(r);
	unlink(a);
	unlink(b);
	rmdir(dir);
	return check_status("test_resample");
}
