/* Inputs that once went wrong in the readers (found by the fuzz targets of
 * tests/fuzz/ and the bad-input matrix of docs/bad-inputs.md), and a replay
 * of every file under tests/fuzz/regressions/ through the fuzz targets' own
 * analysis chain. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <zlib.h>

#include "../fuzz/fuzz_analyses.h"
#include "formats/reader.h"
#include "check.h"
#include "gzip_bytes.h"

static int ignore_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	(void)ctx;
	(void)frames;
	(void)n;
	(void)err;
	return 0;
}

/* Reads data; returns "ok" or the error message (static). */
static const char *read_bytes(const void *data, size_t len)
{
	static char out[1100];
	fg_names *names;
	fg_error err;
	fg_error_clear(&err);
	fg_names_new(&names, &err);
	fg_profile_info info;
	int rc = fg_reader_read_memory(&info, data, len, "t", names, NULL, &(fg_visitor){ ignore_frames, NULL, NULL, NULL, NULL }, &err);
	snprintf(out, sizeof(out), "%s", rc ? err.message : "ok");
	fg_names_free(names);
	return out;
}

static const char *read_str(const char *text)
{
	return read_bytes(text, strlen(text));
}

static void test_sum_overflow_message(void)
{
	/* The line number was formatted into the message it was read from
	 * (overlapping snprintf): "line 2: line 2: ounts overflow 64 bits". */
	CHECK_STR(read_str("a;b 18446744073709551615\na;c 1\n"), "line 2: sample counts overflow 64 bits");
	CHECK_STR(read_str("a;b 18446744073709551615\n"), "ok");
}

static void test_zero_samples(void)
{
	/* Read as a profile of 0 samples (every share 0/0) before; an HTML graph
	 * of width 0 was already refused. */
	CHECK_STR(read_str("a;b 0\nc 0\n"), "no samples: every stack counts 0");
	CHECK_STR(read_str("a;b 0\nc 1\n"), "ok");
}

static long peak_rss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static void test_nul_line_bomb(void)
{
	/* A line, then 64 MiB of NULs without a newline: the line buffer grew
	 * to hold them all before the NUL was reported.  Compressed 1 MiB at a
	 * time, so that the peak RSS before the read stays small. */
	static char zeros[1 << 20];
	size_t cap = (size_t)1 << 20;
	unsigned char *gz = malloc(cap);
	CHECK(gz != NULL);
	if (!gz)
		return;
	z_stream z = { 0 };
	deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	z.next_out = gz;
	z.avail_out = (uInt)cap;
	z.next_in = (unsigned char *)"a;b 1\n";
	z.avail_in = 6;
	deflate(&z, Z_NO_FLUSH);
	for (int i = 0; i < 64; i++) {
		z.next_in = (unsigned char *)zeros;
		z.avail_in = sizeof(zeros);
		deflate(&z, i == 63 ? Z_FINISH : Z_NO_FLUSH);
	}
	size_t n = z.total_out;
	deflateEnd(&z);
	long before = peak_rss_kb();
	CHECK_STR(read_bytes(gz, n), "NUL byte in the data at line 2");
	CHECK(peak_rss_kb() - before < 32 << 10);
	free(gz);
}

static void test_page_tail(void)
{
	/* The lines after search() were never read: a page cut in its closing
	 * tags, or a gzip stream cut in its trailer, read as whole. */
	static const char page[] = "<html>\nf(0,0,5,3,'all')\nf(1,0,5,1,'x')\n\nsearch();\n</script></body></html>\n";
	CHECK_STR(read_str(page), "ok");
	char cut[sizeof(page)];
	memcpy(cut, page, sizeof(page) - 6);
	cut[sizeof(page) - 6] = '\0';
	CHECK_STR(read_str(cut), "truncated: the page ends before </html>");
	/* Cut right after the search() line: nothing to see (documented). */
	CHECK_STR(read_str("<html>\nf(0,0,5,3,'all')\nsearch();\n"), "ok");
	unsigned char gz[256];
	size_t n = gzip_bytes(gz, sizeof(gz), page, sizeof(page) - 1);
	CHECK_STR(read_bytes(gz, n), "ok");
	CHECK_STR(read_bytes(gz, n - 4), "truncated gzip data (the compressed stream ends early)");
}

/* The expected reader answer of a regression file, from
 * tests/fuzz/regressions.expected ("NAME\tANSWER" lines), or NULL. */
static const char *expected_answer(const char *table, const char *name, char *out, size_t size)
{
	size_t len = strlen(name);
	for (const char *p = table; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (*p == '#' || strncmp(p, name, len) || p[len] != '\t')
			continue;
		const char *v = p + len + 1;
		size_t n = strcspn(v, "\n");
		snprintf(out, size, "%.*s", (int)n, v);
		return out;
	}
	return NULL;
}

/* The CPU time this process has used (all threads), in seconds: a bound
 * on it holds on a busy machine, where a bound on the wall time would not. */
static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The most CPU time the replay of one file may take: the slow inputs the
 * fuzz targets found (slow-*) took seconds to minutes before their fix,
 * every file here takes well under 0.2 s plain; 2 s, three times that
 * under the sanitizers (FG_SANITIZED, as tests/lib.sh scales). */
#define REPLAY_CPU_SECONDS 2.0

/* Every file of tests/fuzz/regressions/ (crashes, wrong answers and slow
 * inputs found by the fuzz targets): the reader gives the answer
 * regressions.expected records, and the fuzz targets' analysis chain runs
 * it (under ASan a relapse aborts), each within REPLAY_CPU_SECONDS. */
static void test_fuzz_regressions(void)
{
	const char *sanitized = getenv("FG_SANITIZED");
	const double bound = REPLAY_CPU_SECONDS * (sanitized && !strcmp(sanitized, "1") ? 3 : 1);
	const char *src = getenv("FG_SOURCE_DIR");
	char dir[4096], table_path[4096];
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/regressions", src ? src : ".");
	snprintf(table_path, sizeof(table_path), "%s/tests/fuzz/regressions.expected", src ? src : ".");
	FILE *t = fopen(table_path, "rb");
	CHECK(t != NULL);
	char *table = calloc(1, 1 << 16);
	if (t && table)
		CHECK(fread(table, 1, (1 << 16) - 1, t) > 0);
	if (t)
		fclose(t);
	DIR *d = opendir(dir);
	CHECK(d != NULL);
	if (!d) {
		free(table);
		return;
	}
	FILE *sink = fopen("/dev/null", "w");
	struct dirent *e;
	size_t files = 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char path[8192];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "rb");
		CHECK(f != NULL);
		if (!f)
			continue;
		char *data = malloc(1 << 20);
		size_t n = data ? fread(data, 1, 1 << 20, f) : 0;
		fclose(f);
		char want[1024];
		double start = cpu_seconds();
		const char *expected = expected_answer(table, e->d_name, want, sizeof(want));
		if (!expected)
			fprintf(stderr, "%s: no line in tests/fuzz/regressions.expected\n", e->d_name);
		CHECK(expected != NULL);
		if (expected)
			CHECK_STR(read_bytes(data, n), expected);
		analyses_run(data, n, false, sink);
		analyses_run(data, n, true, sink);
		/* And with the options fuzz_jfr reads with (an event, thread
		 * frames, a window whose --from is after its --to): the error
		 * paths before the first chunk leaked the stack buffer. */
		static const char *const events[] = { NULL, "cpu", "alloc", "lock", "wall" };
		fg_read_options o;
		fg_read_options_init(&o);
		o.max_size = FUZZ_MAX_SIZE;
		o.threads = true;
		o.event = events[n % 5];
		o.from = (fg_time_bound){ .set = true, .percent = true, .value = 10 };
		o.to = (fg_time_bound){ .set = true, .value = 5 };
		analyses_run_with(data, n, &o, true, sink);
		double took = cpu_seconds() - start;
		if (took > bound)
			fprintf(stderr, "%s: the replay took %.2f s of CPU, the bound is %.1f s\n", e->d_name, took, bound);
		CHECK(took <= bound);
		files++;
		free(data);
	}
	CHECK(files > 0);
	closedir(d);
	fclose(sink);
	free(table);
}

int main(void)
{
	test_sum_overflow_message();
	test_zero_samples();
	test_nul_line_bomb();
	test_page_tail();
	test_fuzz_regressions();
	return check_status("test_regressions");
}
