/* The day search with verdicts given by a pattern ('F' fast, 'S' slow, '?'
 * undecidable, one letter a run): undecidable ends move inward, undecidable
 * middles are skipped like git skips, the answer always holds the true first
 * slow run, and without skips at most ceil(log2 N) + 2 runs are judged, for
 * every N up to 64 and every position of the first slow run. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "bisect/days.h"

struct pattern {
	const char *kinds;
	size_t calls;
};

static int judge(void *ctx, fg_verdict **out, size_t run, fg_error *err)
{
	struct pattern *p = ctx;
	fg_verdict *v = calloc(1, sizeof(*v));
	if (!v)
		return fg_error_set(err, FG_ENOMEM, NULL, "out of memory");
	char c = p->kinds[run];
	v->kind = c == 'F' ? FG_VERDICT_FAST : c == 'S' ? FG_VERDICT_SLOW : FG_VERDICT_SKIP;
	p->calls++;
	*out = v;
	return 0;
}

/* Searches the whole pattern; returns the outcome, sets the answer. */
static enum fg_days_outcome search(const char *kinds, size_t *fast, size_t *slow, size_t *judged)
{
	struct pattern p = { kinds, 0 };
	fg_days *d;
	fg_error err;
	size_t n = strlen(kinds);
	int rc = fg_days_search_runs(&d, n, 0, n - 1, NULL, judge, &p, &err);
	CHECK(rc == 0);
	if (rc)
		return FG_DAYS_GOOD_NOT_FAST;
	enum fg_days_outcome o = fg_days_result(d);
	*fast = o == FG_DAYS_FOUND ? fg_days_last_fast(d) : fg_days_good(d);
	*slow = o == FG_DAYS_FOUND ? fg_days_first_slow(d) : fg_days_bad(d);
	*judged = fg_days_step_count(d);
	CHECK_U64(p.calls, *judged); /* each run judged once */
	fg_days_free(d);
	return o;
}

static void test_cases(void)
{
	size_t f, s, j;
	CHECK(search("FFFFSSSS", &f, &s, &j) == FG_DAYS_FOUND && f == 3 && s == 4);
	/* Undecidable good end: the search starts at the first decidable run. */
	CHECK(search("??FFFSSS", &f, &s, &j) == FG_DAYS_FOUND && f == 4 && s == 5);
	/* Undecidable bad end, and both. */
	CHECK(search("FFFSSS??", &f, &s, &j) == FG_DAYS_FOUND && f == 2 && s == 3);
	CHECK(search("?FFFSSS?", &f, &s, &j) == FG_DAYS_FOUND && f == 3 && s == 4);
	/* Undecidable middles: a window of several runs. */
	CHECK(search("FFF??SSS", &f, &s, &j) == FG_DAYS_FOUND && f == 2 && s == 5);
	/* The good side's first decidable run is slow: refused, on that run. */
	CHECK(search("??SSSSSS", &f, &s, &j) == FG_DAYS_GOOD_NOT_FAST && f == 2 && j == 3);
	/* Nothing decidable at all: refused on the last tried, the bad end. */
	CHECK(search("????????", &f, &s, &j) == FG_DAYS_GOOD_NOT_FAST && f == 7 && j == 8);
	/* The bad side's first decidable run is fast, or only the good end is
	 * decidable. */
	CHECK(search("FFFFFF??", &f, &s, &j) == FG_DAYS_BAD_NOT_SLOW && s == 5);
	CHECK(search("F???????", &f, &s, &j) == FG_DAYS_BAD_NOT_SLOW && s == 1 && j == 8);
	CHECK(search("FS", &f, &s, &j) == FG_DAYS_FOUND && f == 0 && s == 1 && j == 2);
}

/* Every N and first slow position without skips; then every pattern of
 * skips of a few sizes: the answer holds the truth, every run between the
 * two answer runs is undecidable. */
static void test_exhaustive(void)
{
	char kinds[65];
	for (size_t n = 2; n <= 64; n++) {
		size_t budget = (size_t)ceil(log2((double)n)) + 2;
		for (size_t k = 1; k < n; k++) {
			for (size_t i = 0; i < n; i++)
				kinds[i] = i < k ? 'F' : 'S';
			kinds[n] = '\0';
			size_t f, s, j;
			enum fg_days_outcome o = search(kinds, &f, &s, &j);
			if (o != FG_DAYS_FOUND || f != k - 1 || s != k || j > budget) {
				CHECK(!"exact answer within the budget");
				fprintf(stderr, "N=%zu K=%zu: outcome %d, %zu-%zu, %zu judged (budget %zu)\n", n, k, o, f, s,
				        j, budget);
				return;
			}
		}
	}
	srand(9);
	for (size_t round = 0; round < 20000; round++) {
		size_t n = 2 + (size_t)rand() % 40, k = 1 + (size_t)rand() % (n - 1);
		for (size_t i = 0; i < n; i++)
			kinds[i] = rand() % 4 == 0 ? '?' : i < k ? 'F' : 'S';
		kinds[n] = '\0';
		size_t f, s, j;
		enum fg_days_outcome o = search(kinds, &f, &s, &j);
		bool ok;
		if (o == FG_DAYS_FOUND) {
			ok = f < k && k <= s && kinds[f] == 'F' && kinds[s] == 'S';
			for (size_t i = f + 1; i < s; i++)
				ok = ok && kinds[i] == '?';
		} else {
			/* Refused only when the side's nearest decidable run is wrong
			 * or none is decidable. */
			size_t first = 0, last = n - 1;
			while (first < n && kinds[first] == '?')
				first++;
			while (last > 0 && kinds[last] == '?')
				last--;
			ok = first == n || kinds[first] == 'S' || kinds[last] == 'F' || last <= first;
		}
		if (!ok) {
			CHECK(!"the answer holds the truth");
			fprintf(stderr, "%s: outcome %d, %zu-%zu\n", kinds, o, f, s);
			return;
		}
	}
}

int main(void)
{
	test_cases();
	test_exhaustive();
	return check_status("test_days");
}
