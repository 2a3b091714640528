/* The names suggested for a pattern that matched none (src/analysis/suggest.h):
 * the approximate-substring distance on exact small cases, against a plain
 * full-table edit distance over every substring on random strings, and the
 * ranking. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "analysis/suggest.h"

/* The definition itself: the least edit distance of the pattern to any
 * substring of the name (a full table per substring start). */
static size_t brute(const char *p, const char *s)
{
	size_t m = strlen(p), n = strlen(s), best = SIZE_MAX;
	size_t d[16][16];
	for (size_t a = 0; a <= n; a++)
		for (size_t b = a; b <= n; b++) {
			for (size_t i = 0; i <= m; i++)
				for (size_t j = 0; j <= b - a; j++) {
					if (!i || !j) {
						d[i][j] = i + j;
						continue;
					}
					size_t v = d[i - 1][j - 1] +
						   ((p[i - 1] | 32) != (s[a + j - 1] | 32));
					if (d[i - 1][j] + 1 < v)
						v = d[i - 1][j] + 1;
					if (d[i][j - 1] + 1 < v)
						v = d[i][j - 1] + 1;
					d[i][j] = v;
				}
			if (d[m][b - a] < best)
				best = d[m][b - a];
		}
	return best;
}

static uint64_t rng = 88172645463325252u;
static uint64_t next(void)
{
	rng = rng * 6364136223846793005u + 1442695040888963407u;
	return rng >> 33;
}

int main(void)
{
	const char *name = "io/camunda/zeebe/db/TransactionalColumnFamily.upsert";
	CHECK_U64(fg_suggest_distance("TransactionalColumnFamily", name, strlen(name)), 0);
	CHECK_U64(fg_suggest_distance("TransactionalColumFamily", name, strlen(name)), 1);
	CHECK_U64(fg_suggest_distance("transactionalcolumnfamily", name, strlen(name)), 0);
	CHECK_U64(fg_suggest_distance("TransactoinalColumnFamily", name, strlen(name)), 2);
	CHECK_U64(fg_suggest_distance("xyz", "abc", 3), 3);
	CHECK_U64(fg_suggest_distance("", name, strlen(name)), SIZE_MAX);

	/* Random short strings over a small alphabet: the definition. */
	char p[9], s[12];
	for (int k = 0; k < 20000; k++) {
		size_t m = 1 + next() % 8, n = next() % 12;
		for (size_t i = 0; i < m; i++)
			p[i] = "abAB"[next() % 4];
		p[m] = 0;
		for (size_t i = 0; i < n; i++)
			s[i] = "abAB"[next() % 4];
		s[n] = 0;
		if (fg_suggest_distance(p, s, n) != brute(p, s)) {
			CHECK_U64(fg_suggest_distance(p, s, n), brute(p, s));
			break;
		}
	}

	/* Ranking: nearest first, then the shorter; far names left out. */
	fg_names *names;
	fg_error err;
	CHECK(fg_names_new(&names, &err) == 0);
	static const char *all[] = { "p/Far.away", "p/ActorThread$Task.execute", "p/ActorThread.run",
				     "p/ActorTread.run", "p/ActorThreads.run" };
	uint32_t id;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		CHECK(fg_names_intern(&id, names, all[i], strlen(all[i]), &err) == 0);
	uint32_t out[3];
	size_t n;
	fg_suggest_names(out, &n, 3, names, "ActorThred");
	CHECK_U64(n, 3);
	/* One edit each, the shortest first; ActorTread is two away (limit 1). */
	CHECK(n == 3 && !strcmp(fg_names_get(names, out[0]), "p/ActorThread.run"));
	CHECK(n == 3 && !strcmp(fg_names_get(names, out[1]), "p/ActorThreads.run"));
	CHECK(n == 3 && !strcmp(fg_names_get(names, out[2]), "p/ActorThread$Task.execute"));
	fg_suggest_names(out, &n, 1, names, "ActorTred");
	CHECK(n == 1 && !strcmp(fg_names_get(names, out[0]), "p/ActorTread.run"));
	fg_suggest_names(out, &n, 3, names, "Nothing");
	CHECK_U64(n, 0);
	fg_names_free(names);
	return check_status("suggest");
}
