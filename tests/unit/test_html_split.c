/* ctest-labels: slow
 * One HTML page read on two threads (html.c's split) against the same page
 * read on one: the cut forced at every line where one may fall in the small
 * pages, and at up to MAX_CUTS of them spread evenly over each larger one
 * (each cut is a read of the whole page: all 700-900 cuts of a daily page
 * made the test 38 s of CPU, for cuts that fall on the same kinds of line),
 * and at some of them in damaged copies (truncated, a byte changed), from
 * memory and from a file (pread).  Every frame field by
 * field, the batches, the info, the outcome and the error message (its line
 * number included) must be the single thread's; on an intact page the second
 * thread's part must be taken at every cut (a split that always fell back
 * would pass the rest).  The pages: the project's own (tests/tools/make_pages.sh),
 * and the real ones of ../shared when it is there. */
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "model/profile.h"
#include "formats/reader.h"

/* The most cuts tried in one page (evenly spaced), the small pages all of theirs. */
#define MAX_CUTS 200

struct frames {
	fg_frame *f;
	size_t n, cap;
	uint64_t batches; /* a hash of the batch sizes */
	int ends;
	size_t fail_at;   /* the visitor fails on a batch past this many frames (0: never) */
};

static int keep_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	struct frames *k = ctx;
	if (!frames) {
		k->ends++;
		return 0;
	}
	if (k->fail_at && k->n + n > k->fail_at)
		return fg_error_set(err, FG_EINVALID, "visitor", "stops after %zu frames", k->n);
	k->batches = k->batches * 31 + n;
	if (k->n + n > k->cap) {
		k->cap = (k->n + n) * 2;
		k->f = realloc(k->f, k->cap * sizeof(*k->f));
		if (!k->f)
			abort();
	}
	memcpy(k->f + k->n, frames, n * sizeof(*frames));
	k->n += n;
	return 0;
}

struct outcome {
	int rc;
	fg_error err;
	fg_profile_info info;
	struct frames frames;
	size_t names;
};

/* The full batches of the second part visited before a reading went on from
 * the cut. */
static uint64_t skipped;
/* The second part's record words (0: the reader's choice). */
static uint64_t rec_words;

/* Reads data (from path when not NULL) with a cut looked for from at (0: on
 * one thread). */
static void read_page(struct outcome *o, const char *data, size_t len, const char *path, uint64_t at,
		      uint64_t *joined)
{
	size_t fail_at = o->frames.fail_at;
	free(o->frames.f);
	memset(o, 0, sizeof(*o));
	o->frames.fail_at = fail_at;
	fg_error_clear(&o->err);
	fg_names *names;
	if (fg_names_new(&names, &o->err))
		abort();
	fg_read_options ro;
	fg_read_options_init(&ro);
	ro.split = at != 0;
	ro.split_test.min_block = 1;
	ro.split_test.at = at;
	ro.split_test.joined = joined;
	ro.split_test.skipped = &skipped;
	ro.split_test.rec_words = rec_words;
	fg_visitor v = { keep_frames, NULL, &o->frames, NULL, NULL };
	o->rc = path ? fg_reader_read(&o->info, path, names, &ro, &v, &o->err)
		     : fg_reader_read_memory(&o->info, data, len, "page", names, &ro, &v, &o->err);
	o->names = fg_names_count(names);
	fg_names_free(names);
}

static bool same_frame(const fg_frame *a, const fg_frame *b)
{
	return a->depth == b->depth && a->name == b->name && a->type == b->type && a->total == b->total;
}

/* The split reading against the single thread's; false (and one report) at
 * the first difference. */
static bool same(const struct outcome *a, const struct outcome *b, const char *what, uint64_t at)
{
	const char *diff = NULL;
	if (a->rc != b->rc || strcmp(a->err.message, b->err.message) || strcmp(a->err.source, b->err.source))
		diff = "outcome";
	else if (a->info.total != b->info.total || a->info.frames != b->info.frames ||
		 a->info.format != b->info.format || a->info.differential != b->info.differential ||
		 a->info.inverted != b->info.inverted || strcmp(a->info.title, b->info.title))
		diff = "info";
	else if (a->frames.n != b->frames.n || a->frames.batches != b->frames.batches ||
		 a->frames.ends != b->frames.ends || a->names != b->names)
		diff = "frame count or batches";
	for (size_t i = 0; !diff && i < a->frames.n; i++)
		if (!same_frame(&a->frames.f[i], &b->frames.f[i]))
			diff = "a frame";
	check_count++;
	if (diff) {
		check_failures++;
		fprintf(stderr, "%s, cut from %llu: %s differs: '%s' against '%s'\n", what, (unsigned long long)at,
			diff, b->err.message, a->err.message);
	}
	return !diff;
}

/* The offsets of the lines "f(K,L,DX,W)" with L and W not 0: where a cut can fall. */
static size_t cut_points(uint64_t *out, size_t max, const char *d, size_t len)
{
	size_t n = 0;
	for (size_t i = 1; i + 2 < len && n < max; i++) {
		if (d[i - 1] != '\n' || d[i] != 'f' || d[i + 1] != '(')
			continue;
		int commas = 0;
		size_t j = i + 2;
		while (j < len && ((d[j] >= '0' && d[j] <= '9') || d[j] == ','))
			commas += d[j++] == ',';
		if (commas == 3 && j + 1 < len && d[j] == ')' && d[j + 1] == '\n')
			out[n++] = i;
	}
	return n;
}

static char *load(size_t *len, const char *path)
{
	gzFile f = gzopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *d = malloc(cap);
	int got;
	while (d && (got = gzread(f, d + n, (unsigned)(cap - n))) > 0) {
		n += (size_t)got;
		if (n == cap)
			d = realloc(d, cap *= 2);
	}
	gzclose(f);
	if (d && (d = realloc(d, n + 1)))
		d[n] = '\0'; /* for strstr */
	*len = n;
	return d;
}

/* The page at path and its cut lines (*cuts, *ncuts: free both); NULL, said
 * as the other unit tests say a missing fixture, when it cannot be read. */
static char *load_page(size_t *len, uint64_t **cuts, size_t *ncuts, const char *path)
{
	char *d = load(len, path);
	if (!d) {
		printf("SKIP: %s is missing: its cuts are NOT checked\n", path);
		fprintf(stderr, "SKIP: %s is missing: its cuts are NOT checked\n", path);
		return NULL;
	}
	size_t max = *len / 8 + 1;
	if (!(*cuts = malloc(max * sizeof(**cuts)))) {
		free(d);
		return NULL;
	}
	*ncuts = cut_points(*cuts, max, d, *len);
	return d;
}

static uint64_t rng = 88172645463325252u;
static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The cuts of an intact page (at most max_cuts of them, evenly spaced: every
 * step-th), each taken; some cuts of damaged copies; a few from a file. */
static void check_page(const char *path, size_t max_cuts, size_t damaged)
{
	size_t len, ncuts;
	uint64_t *cuts;
	char *d = load_page(&len, &cuts, &ncuts, path);
	if (!d)
		return;
	size_t step = ncuts > max_cuts ? (ncuts + max_cuts - 1) / max_cuts : 1;
	struct outcome one = { 0 }, two = { 0 };
	read_page(&one, d, len, NULL, 0, NULL);
	CHECK(one.rc == 0);
	uint64_t joined = 0, tried = 0;
	for (size_t i = 0; i < ncuts; i += step) {
		/* At the line, and a byte before it (the cut is the next such line). */
		for (uint64_t back = 0; back < 2; back++) {
			read_page(&two, d, len, NULL, cuts[i] - back, &joined);
			tried++;
			if (!same(&one, &two, path, cuts[i] - back))
				break;
		}
	}
	/* Each tried cut falls in the frame block of an intact page. */
	CHECK_U64(joined, tried);
	CHECK(ncuts > 0);

	/* From a file: the second thread reads with pread. */
	char tmp[] = "/tmp/fg-split-XXXXXX";
	int fd = mkstemp(tmp);
	CHECK(fd >= 0 && write(fd, d, len) == (ssize_t)len);
	close(fd);
	for (size_t i = 0; i < ncuts; i += ncuts / 5 + 1) {
		struct outcome f1 = { 0 }, f2 = { 0 };
		read_page(&f1, NULL, 0, tmp, 0, NULL);
		read_page(&f2, NULL, 0, tmp, cuts[i], &joined);
		same(&f1, &f2, tmp, cuts[i]);
		free(f1.frames.f);
		free(f2.frames.f);
	}
	unlink(tmp);

	/* Damaged copies: cut short, or one byte of the frame block changed
	 * (to what frame lines are made of); the split at cuts around it. */
	static const char bytes[] = "0123456789,()fund\n-=9 \r";
	char *copy = malloc(len + 3);
	for (size_t k = 0; k < damaged && ncuts; k++) {
		memcpy(copy, d, len);
		size_t clen = len;
		uint64_t at = cuts[0] + next_random() % (len - cuts[0]);
		if (k % 3 == 0)
			clen = (size_t)at;
		else
			copy[at] = bytes[next_random() % (sizeof(bytes) - 1)];
		read_page(&one, copy, clen, NULL, 0, NULL);
		for (int c = 0; c < 6; c++) {
			uint64_t cut = cuts[next_random() % ncuts];
			if (cut >= clen)
				continue;
			read_page(&two, copy, clen, NULL, cut, NULL);
			if (!same(&one, &two, path, cut))
				break;
		}
	}
	/* A line after the frame block: its error names it, counted on from
	 * where the second thread stopped. */
	const char *footer = strstr(d, "\nsearch(");
	if (footer) {
		size_t at = (size_t)(footer - d) + 1;
		memcpy(copy, d, at);
		memcpy(copy + at, "x\n", 2);
		memcpy(copy + at + 2, d + at, len - at);
		read_page(&one, copy, len + 2, NULL, 0, NULL);
		CHECK(strstr(one.err.message, "unexpected line after the frame data") != NULL);
		for (size_t i = 0; i < ncuts; i += step * 5) {
			read_page(&two, copy, len + 2, NULL, cuts[i], NULL);
			same(&one, &two, path, cuts[i]);
		}
	}
	/* The cut line itself damaged: its level, offset or width made larger
	 * (its last digit one more, or a digit more), so that what only the
	 * join can check fails. */
	for (size_t i = 0; i < ncuts; i += step * 7) {
		for (int field = 1; field <= 3; field++) {
			for (int how = 0; how < 2; how++) {
				size_t e = (size_t)cuts[i] + 2;
				for (int f = 0; f < field; f++)
					e += strcspn(d + e, ",") + 1;
				e += strspn(d + e, "0123456789") - 1; /* the field's last digit */
				size_t clen = 0;
				memcpy(copy, d, e + 1);
				clen = e + 1;
				if (how == 0) {
					copy[e] = d[e] == '9' ? '9' : (char)(d[e] + 1);
				} else {
					copy[clen++] = '0';
				}
				memcpy(copy + clen, d + e + 1, len - e - 1);
				clen += len - e - 1;
				read_page(&one, copy, clen, NULL, 0, NULL);
				read_page(&two, copy, clen, NULL, cuts[i], NULL);
				same(&one, &two, path, cuts[i]);
			}
		}
	}
	free(copy);
	free(one.frames.f);
	free(two.frames.f);
	free(cuts);
	free(d);
}

/* The level of the frame a block line adds, after the frame at depth. */
static bool line_level(const char *s, uint64_t depth, uint64_t *level)
{
	if (s[0] == 'u' && s[1] == '(')
		*level = depth + 1;
	else if (s[0] == 'n' && s[1] == '(')
		*level = depth;
	else if (s[0] == 'f' && s[1] == '(' && strchr(s, ',') && strchr(s, ',') < strchr(s, '\n'))
		*level = strtoull(strchr(s, ',') + 1, NULL, 10);
	else
		return false;
	return true;
}

/* Thread 1 takes thread 2's frames as they come: the ways its reading ends
 * after thousands of them, each the single thread's to the frame, the batch
 * and the error (the batches already visited skipped when it reads on from
 * the cut, exactly: the frames and batch sizes are compared). */
static void check_overlap(const char *path)
{
	size_t len, ncuts;
	uint64_t *cuts;
	char *d = load_page(&len, &cuts, &ncuts, path);
	if (!d)
		return;
	uint64_t cut = cuts[ncuts * 3 / 10], level;
	CHECK(line_level(d + cut, 0, &level));
	/* A boundary frame some 400 KB after the cut (no shallower frame
	 * between: its parent is unknown to thread 2), an f line. */
	uint64_t depth = level, low = level;
	const char *s = d + cut, *bound = NULL;
	for (s = strchr(s, '\n') + 1; !bound && line_level(s, depth, &depth); s = strchr(s, '\n') + 1) {
		if (depth <= low && s[0] == 'f' && s - d > (ptrdiff_t)(cut + 400000))
			bound = s;
		low = depth < low ? depth : low;
	}
	CHECK(bound != NULL);
	/* Thread 2 stops where its record buffer is full, on an intact page:
	 * thread 1 reads on from the cut, to the end. */
	uint64_t joined = 0;
	struct outcome one = { 0 }, two = { 0 };
	read_page(&one, d, len, NULL, 0, NULL);
	skipped = 0;
	rec_words = 300000;
	read_page(&two, d, len, NULL, cut, &joined);
	rec_words = 0;
	same(&one, &two, path, cut);
	CHECK(joined == 0 && skipped >= 100);
	char *copy = malloc(len + 1);
	for (int how = 0; bound && how < 3; how++) {
		size_t clen = len;
		memcpy(copy, d, len);
		one.frames.fail_at = two.frames.fail_at = 0;
		if (how == 0) {
			/* Its offset (the field after the level) ten times and more:
			 * outside its parent, which only thread 1 can check. */
			size_t e = (size_t)(strchr(bound + 2, ',') - d) + 1;
			e += strcspn(d + e, ",") + 1;
			e += strcspn(d + e, ",)");
			memcpy(copy + e + 1, d + e, len - e);
			copy[e] = '9';
			clen++;
		} else if (how == 1) {
			/* A damaged line there: thread 2 stops. */
			copy[bound - d] = 'x';
		} else {
			/* The visitor fails in the middle of the second part (past
			 * the boundary frame: the lines before it, the header's
			 * among them, are more than its frames). */
			size_t lines = 0;
			for (const char *l = d; (l = memchr(l, '\n', (size_t)(bound - l))); l++)
				lines++;
			one.frames.fail_at = two.frames.fail_at = lines;
		}
		read_page(&one, copy, clen, NULL, 0, NULL);
		CHECK(one.rc != 0);
		skipped = 0;
		read_page(&two, copy, clen, NULL, cut, NULL);
		same(&one, &two, path, cut);
		/* Thousands of the second part's frames visited first. */
		if (how < 2)
			CHECK(skipped >= 4);
	}
	free(copy);
	free(one.frames.f);
	free(two.frames.f);
	free(cuts);
	free(d);
}

int main(void)
{
	const char *src = getenv("FG_SOURCE_DIR"), *shared = getenv("FG_SHARED_FIXTURES");
	const char *pages = getenv("FG_PAGES"); /* tests/tools/make_pages.sh's */
	char path[4096];
	snprintf(path, sizeof(path), "%s/fixtures/tiny-3x.html", src ? src : ".");
	check_page(path, SIZE_MAX, 20);
	/* The real pages of ../shared when it is there, else the project's own
	 * pages generated from their collapsed twins (the same graphs in the same
	 * encoding: reading both would only double the time). */
	static const char *generated[] = {
		"day01-broker-0-grpc.html", "day01-broker-0-rest.html", "day01-broker-1-grpc.html",
		"day01-broker-2-grpc.html", "day10-broker-0-grpc.html", "day10-broker-0-rest.html",
		"zeebe-healthy.html", "zeebe-regressed.html", "zeebe-healthy-3.0.html", "zeebe-healthy-4.0.html",
		"zeebe-healthy-inverted.html", "diff-4.5.html", "escape-3.0.html", "escape-4.5.html",
	};
	static const char *real[] = {
		"daily/day01-broker-0-grpc.html", "daily/day01-broker-0-rest.html", "daily/day01-broker-1-grpc.html",
		"daily/day01-broker-2-grpc.html", "daily/day10-broker-0-grpc.html", "daily/day10-broker-0-rest.html",
		"formats/diff-v4.5.html", "formats/escape-g3-v3.0.html", "formats/escape-g5-v4.5.html",
		"formats/g3-v3.0-healthy.html", "formats/g5-v4.5-healthy.html",
		"formats/g5-v4.5-healthy.inverted.html", "formats/g5-v4.5-healthy.reverse.html",
		"formats/jfr-v4.5-healthy.html", "versions/v3.0-healthy.html", "versions/v3.0-regressed.html",
		"versions/v4.5-healthy.html", "versions/v4.5-regressed.html",
	};
	bool have_shared = shared && access(shared, R_OK) == 0;
	for (size_t i = 0; have_shared && i < sizeof(real) / sizeof(real[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", shared, real[i]);
		check_page(path, MAX_CUTS, 150);
	}
	for (size_t i = 0; !have_shared && pages && i < sizeof(generated) / sizeof(generated[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", pages, generated[i]);
		CHECK(access(path, R_OK) == 0); /* the fixture setup wrote it */
		check_page(path, MAX_CUTS, 150);
	}
	/* The large page: some cuts (each a read of the whole page): the real
	 * one of ../shared when it is there (3.3 M frames), else, and under the
	 * sanitizers (the same code, a quarter of the reading), the generated
	 * one (777 k). */
	const char *sanitized = getenv("FG_SANITIZED");
	bool real_large = have_shared && !(sanitized && strcmp(sanitized, "1") == 0);
	if (real_large)
		snprintf(path, sizeof(path), "%s/large/javac-large.html.gz", shared);
	else if (pages)
		snprintf(path, sizeof(path), "%s/large.html.gz", pages);
	if (real_large || pages) {
		check_page(path, 3, 2);
		check_overlap(path);
	}
	if (!pages)
		printf("FG_PAGES is not set: the generated pages were NOT read\n");
	return check_status("html_split");
}
