/* The commit-graph reader and its changed-path Bloom filters, against
 * graphs git writes (`git commit-graph write --changed-paths`) for a
 * generated history whose paths include bytes of 0x80 and above (where
 * filter version 1's hash differs from murmur3's), and against damaged
 * copies of them.  Skips when git is missing. */
#include <git2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "git/commitgraph.h"
#include "git/history.h"

static char tmp[] = "/tmp/fg-test-cgraph-XXXXXX";
#include "git_test.h"

/* A file of the temporary folder, opened or the test ends. */
static FILE *open_in(const char *name, const char *mode)
{
	char path[512];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", tmp, name) >= sizeof(path)) {
		fprintf(stderr, "path too long: %s/%s\n", tmp, name);
		exit(1);
	}
	FILE *f = fopen(path, mode);
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(1);
	}
	return f;
}

static char *slurp(const char *name, size_t *len)
{
	FILE *f = open_in(name, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n + 4096 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			if (!buf)
				exit(1);
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (!got)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* ---- the hash ------------------------------------------------------------------ */

static void test_murmur3(void)
{
	/* murmur3_x86_32 as other implementations compute it, and git's own
	 * test values (t0095): version 2 is plain murmur3. */
	CHECK_U64(fg_commitgraph_murmur3(0, "", 0, false), 0);
	CHECK_U64(fg_commitgraph_murmur3(1, "", 0, false), 0x514e28b7);
	CHECK_U64(fg_commitgraph_murmur3(0, "Hello world!", 12, false), 0x627b0c2c);
	CHECK_U64(fg_commitgraph_murmur3(0, "The quick brown fox jumps over the lazy dog", 43, false), 0x2e4ff723);
	CHECK_U64(fg_commitgraph_murmur3(0, "\x99\xaa\xbb\xcc\xdd\xee\xff", 7, false), 0xa183ccfd);
	/* The key of the empty path: git's seeds, 7 hashes h0 + i*h1. */
	uint32_t h0 = fg_commitgraph_murmur3(0x293ae76f, "", 0, false), h1 = fg_commitgraph_murmur3(0x7e646e2c, "", 0, false);
	CHECK_U64(h0, 0x5615800c);
	CHECK_U64((uint32_t)(h0 + h1), 0x5b966560);
	CHECK_U64((uint32_t)(h0 + 6 * h1), 0x771ae004);
	/* Version 1's signed bytes change only what has a high byte, in a
	 * block or in the tail. */
	CHECK(fg_commitgraph_murmur3(7, "src/Main.java", 13, true) == fg_commitgraph_murmur3(7, "src/Main.java", 13, false));
	CHECK(fg_commitgraph_murmur3(0, "\x99\xaa\xbb\xcc\xdd\xee\xff", 7, true) != 0xa183ccfd);
	CHECK(fg_commitgraph_murmur3(0, "abcd\xe9", 5, true) != fg_commitgraph_murmur3(0, "abcd\xe9", 5, false));
	CHECK(fg_commitgraph_murmur3(0, "\xe9" "bcd", 4, true) != fg_commitgraph_murmur3(0, "\xe9" "bcd", 4, false));
}

/* ---- a generated history ---------------------------------------------------------- */

/* Paths of every length modulo 4, with high bytes in 4-byte blocks and in
 * the tail, at the top and in directories. */
static const char *const paths[] = {
	"src/main/java/p/A.java",
	"src/main/java/p/B.java",
	"src/main/java/q/Caf\xc3\xa9.java",
	"src/main/java/q/\xc3\xa9t\xc3\xa9.java",
	"docs/\xe9",
	"docs/ab\x80",
	"docs/\xff\xfe\xfd\xfc",
	"docs/x\xffy\xfez",
	"r\xc3\xa9sum\xc3\xa9/notes.txt",
	"top.txt",
	"a",
	"ab",
	"abc",
	"abcd",
	"build/pom.xml",
	"build/deep/er/still/Deeper.java",
};
#define NPATHS (sizeof(paths) / sizeof(paths[0]))
#define NCOMMITS 90

/* A path's content: a class named after the file with five methods whose
 * bodies hold values (the history changes one at a time). */
static int values[NPATHS][5];

static void write_path(size_t i)
{
	const char *p = paths[i];
	const char *base = strrchr(p, '/');
	base = base ? base + 1 : p;
	size_t stem = strcspn(base, ".");
	char name[512];
	snprintf(name, sizeof(name), "repo/%s", p);
	FILE *f = open_in(name, "w");
	fprintf(f, "class %.*s {\n", (int)stem, base);
	for (int m = 0; m < 5; m++)
		fprintf(f, "    int m%d(int a) {\n        return a + %d;\n    }\n\n", m, values[i][m]);
	fputs("}\n", f);
	fclose(f);
}

/* Each commit with its first parent, and the paths that diff changed. */
static void list_changes(void)
{
	sh("rm -rf changes commits; mkdir changes; cd repo; git rev-list --all --parents | while read c p rest; do "
	   "[ -n \"$p\" ] || continue; echo \"$c\" >> ../commits; "
	   "git diff-tree -r -z --no-commit-id --name-only \"$p\" \"$c\" > ../changes/$c; done");
}

static void build_repo(void)
{
	sh("git init -q repo && cd repo && git checkout -q -b main");
	unsigned rnd = 14;
	for (int c = 0; c < NCOMMITS; c++) {
		/* Every 15 commits a side branch of one commit merged back. */
		if (c % 15 == 14)
			sh("cd repo; git checkout -q -b side%d HEAD~2; echo s%d >> side.txt; git add -A; "
			   "git commit -q -m side%d; git checkout -q main; "
			   "git merge -q --no-ff -m merge%d side%d", c, c, c, c, c);
		int changes = c == 0 ? (int)NPATHS : 1 + (int)((rnd >> 16) % 3);
		for (int k = 0; k < changes; k++) {
			rnd = rnd * 1103515245u + 12345u;
			size_t i = c == 0 ? (size_t)k : (rnd >> 8) % NPATHS;
			const char *p = paths[i];
			const char *slash = strrchr(p, '/');
			if (slash)
				sh("mkdir -p 'repo/%.*s'", (int)(slash - p), p);
			if (c > 0 && (rnd >> 20) % 9 == 0) {
				sh("rm -f 'repo/%s'", p);
				memset(values[i], 0, sizeof(values[i]));
				continue;
			}
			values[i][(rnd >> 12) % 5] = c + 1;
			write_path(i);
		}
		sh("cd repo; git add -A; GIT_COMMITTER_DATE='%d +0000' GIT_AUTHOR_DATE='%d +0000' "
		   "git commit -q --allow-empty -m c%d", 1700000000 + 100 * c, 1700000000 + 100 * c, c);
	}
	list_changes();
}

/* Every (commit, path): a path the first-parent diff changed must be
 * "maybe"; most others must be "not changed".  only_ascii limits the check
 * to paths without high bytes (a graph relabelled as version 2). */
static void check_filters(const fg_commitgraph *g, bool only_ascii, size_t *negatives, size_t *unchanged,
			  size_t *signed_checked)
{
	size_t len;
	char *commits = slurp("commits", &len);
	*negatives = *unchanged = 0;
	size_t changed_checked = 0;
	for (char *line = strtok(commits, "\n"); line; line = strtok(NULL, "\n")) {
		git_oid id;
		if (git_oid_fromstr(&id, line) < 0) {
			CHECK(!"a commit id");
			continue;
		}
		uint32_t pos = fg_commitgraph_find(g, id.id);
		CHECK(pos != FG_COMMITGRAPH_NONE);
		char name[128];
		snprintf(name, sizeof(name), "changes/%s", line);
		size_t clen;
		char *changes = slurp(name, &clen);
		for (size_t i = 0; i < NPATHS; i++) {
			bool high = false;
			for (const char *c = paths[i]; *c; c++)
				high |= (unsigned char)*c >= 0x80;
			if (only_ascii && high)
				continue;
			bool changed = false;
			for (size_t at = 0; at < clen; at += strlen(changes + at) + 1)
				changed |= !strcmp(changes + at, paths[i]);
			fg_bloom_key key;
			fg_commitgraph_bloom_key(&key, g, paths[i], strlen(paths[i]));
			bool maybe = fg_commitgraph_maybe_changed(g, pos, &key);
			if (changed) {
				changed_checked++;
				if (!maybe)
					fprintf(stderr, "false negative: %s at %s\n", paths[i], line);
				CHECK(maybe);
				/* git (built with a signed char, as here) hashed it
				 * with version 1's signed bytes: that reading alone
				 * finds it. */
				if (key.variants == 2) {
					key.variants = 1;
					CHECK(fg_commitgraph_maybe_changed(g, pos, &key));
					(*signed_checked)++;
				}
			} else {
				(*unchanged)++;
				*negatives += !maybe;
			}
		}
		free(changes);
	}
	CHECK(changed_checked > NCOMMITS);
	free(commits);
}

static fg_commitgraph *graph_of(const char *bytes, size_t len)
{
	fg_commitgraph *g = NULL;
	fg_error err;
	fg_error_clear(&err);
	CHECK(fg_commitgraph_from_buffer(&g, bytes, len, &err) == 0);
	return g;
}

/* The offset of a chunk in a graph file. */
static size_t chunk(const unsigned char *b, const char *id)
{
	for (unsigned i = 0; i < b[6]; i++) {
		const unsigned char *e = b + 8 + i * 12;
		if (!memcmp(e, id, 4))
			return (size_t)be32(e + 8);
	}
	return 0;
}

static void test_git_graph(void)
{
	sh("cd repo; git commit-graph write --reachable --changed-paths");
	size_t len;
	char *bytes = slurp("repo/.git/objects/info/commit-graph", &len);
	unsigned char *b = (unsigned char *)bytes;
	fg_commitgraph *g = graph_of(bytes, len);
	CHECK(g != NULL);
	if (!g) {
		free(bytes);
		return;
	}
	CHECK(fg_commitgraph_has_filters(g));
	size_t bdat = chunk(b, "BDAT"), bidx = chunk(b, "BIDX");
	CHECK(bdat && bidx);
	CHECK_U64(be32(b + bdat), 1); /* git 2.39 to 2.45 write version 1 only, and later ones by default */
	size_t negatives, unchanged, signed_checked = 0;
	check_filters(g, false, &negatives, &unchanged, &signed_checked);
	CHECK(signed_checked > 20);
	/* 10 bits a path, 7 hashes: about 1% false positives. */
	CHECK(unchanged > 0 && negatives * 10 >= unchanged * 9);
	/* A version-1 key of a high-byte path takes both readings of char. */
	fg_bloom_key key;
	fg_commitgraph_bloom_key(&key, g, paths[2], strlen(paths[2]));
	CHECK_U64(key.variants, 2);
	fg_commitgraph_bloom_key(&key, g, paths[0], strlen(paths[0]));
	CHECK_U64(key.variants, 1);

	/* Commits: the graph's tree and parents are the objects'. */
	git_repository *repo;
	char path[512];
	snprintf(path, sizeof(path), "%s/repo", tmp);
	CHECK(git_repository_open(&repo, path) == 0);
	size_t clen;
	char *commits = slurp("commits", &clen);
	for (char *line = strtok(commits, "\n"); line; line = strtok(NULL, "\n")) {
		git_oid id;
		git_commit *c;
		if (git_oid_fromstr(&id, line) < 0 || git_commit_lookup(&c, repo, &id) < 0) {
			CHECK(!"a commit");
			continue;
		}
		fg_commitgraph_commit gc;
		unsigned char parents[4][20];
		uint32_t pos = fg_commitgraph_find(g, id.id);
		CHECK(fg_commitgraph_commit_at(&gc, parents, 4, g, pos, NULL) == 0);
		CHECK(!memcmp(gc.tree, git_commit_tree_id(c)->id, 20));
		CHECK_U64(gc.time, (unsigned long long)git_commit_time(c));
		CHECK_U64(gc.nparents, git_commit_parentcount(c));
		for (unsigned k = 0; k < gc.nparents && k < 4; k++)
			CHECK(!memcmp(parents[k], git_commit_parent_id(c, k)->id, 20));
		/* Room for one parent only: a merge is refused, not cut. */
		if (gc.nparents > 1)
			CHECK(fg_commitgraph_commit_at(&gc, parents, 1, g, pos, NULL) == FG_EINVALID);
		git_commit_free(c);
	}
	free(commits);
	git_repository_free(repo);
	unsigned char zero[20] = { 0 };
	CHECK(fg_commitgraph_find(g, zero) == FG_COMMITGRAPH_NONE);
	fg_commitgraph_free(g);

	/* Relabelled version 2: the same filters are right for ASCII paths
	 * (the two versions hash them alike), and a key has one reading. */
	put_be32(b + bdat, 2);
	g = graph_of(bytes, len);
	CHECK(fg_commitgraph_has_filters(g));
	fg_commitgraph_bloom_key(&key, g, paths[2], strlen(paths[2]));
	CHECK_U64(key.variants, 1);
	check_filters(g, true, &negatives, &unchanged, &signed_checked);
	CHECK(negatives * 10 >= unchanged * 9);
	fg_commitgraph_free(g);

	/* An unknown hash version, or no hashes: filters ignored, commits read. */
	put_be32(b + bdat, 3);
	g = graph_of(bytes, len);
	CHECK(g && !fg_commitgraph_has_filters(g));
	fg_commitgraph_bloom_key(&key, g, paths[0], strlen(paths[0]));
	CHECK(key.variants == 0 && fg_commitgraph_maybe_changed(g, 0, &key));
	fg_commitgraph_free(g);
	put_be32(b + bdat, 1);
	put_be32(b + bdat + 4, 0);
	g = graph_of(bytes, len);
	CHECK(g && !fg_commitgraph_has_filters(g));
	fg_commitgraph_free(g);
	put_be32(b + bdat + 4, 7);

	/* An index entry past the data, or running backwards: "maybe" for
	 * that commit, whatever the path. */
	uint32_t n = be32(b + chunk(b, "OIDF") + 255 * 4);
	uint32_t saved = be32(b + bidx + 4 * 5);
	put_be32(b + bidx + 4 * 5, 0xfffffff0u);
	g = graph_of(bytes, len);
	size_t maybes = 0;
	for (size_t i = 0; i < NPATHS; i++) {
		fg_commitgraph_bloom_key(&key, g, paths[i], strlen(paths[i]));
		maybes += fg_commitgraph_maybe_changed(g, 5, &key) + fg_commitgraph_maybe_changed(g, 6, &key);
	}
	CHECK_U64(maybes, 2 * NPATHS);
	fg_commitgraph_free(g);
	put_be32(b + bidx + 4 * 5, saved);
	CHECK(n > 6);

	/* Whole graphs refused: another format version, SHA-256, a base
	 * graph, a truncated file, a fanout that runs backwards. */
	const size_t bytes_at[] = { 4, 5, 7 };
	for (size_t i = 0; i < 3; i++) {
		unsigned char was = b[bytes_at[i]];
		b[bytes_at[i]] = (unsigned char)(was + 1);
		g = graph_of(bytes, len);
		CHECK(g == NULL);
		fg_commitgraph_free(g);
		b[bytes_at[i]] = was;
	}
	g = graph_of(bytes, len / 2);
	CHECK(g == NULL);
	fg_commitgraph_free(g);
	size_t fan = chunk(b, "OIDF");
	saved = be32(b + fan + 4 * 100);
	put_be32(b + fan + 4 * 100, n + 1);
	g = graph_of(bytes, len);
	CHECK(g == NULL);
	fg_commitgraph_free(g);
	put_be32(b + fan + 4 * 100, saved);

	/* Entries that would make a walk go round: every commit with a first
	 * parent, refused when that parent is itself, past the last commit,
	 * or not of a lower level; levels of 0 (an old git's graph) are not
	 * compared. */
	size_t cdat = chunk(b, "CDAT");
	size_t checked = 0;
	for (uint32_t pos = 0; pos < n; pos++) {
		unsigned char *e = b + cdat + (size_t)pos * 36;
		uint32_t p1 = be32(e + 20), word = be32(e + 28);
		if (p1 >= n)
			continue;
		fg_commitgraph_commit gc;
		unsigned char parents[4][20];
		g = graph_of(bytes, len);
		CHECK(g && fg_commitgraph_commit_at(&gc, parents, 4, g, pos, NULL) == 0);
		fg_commitgraph_free(g);
		const uint32_t bad_parent[] = { pos, n, n + 100 };
		for (size_t k = 0; k < 3; k++) {
			put_be32(e + 20, bad_parent[k]);
			g = graph_of(bytes, len);
			CHECK(g && fg_commitgraph_commit_at(&gc, parents, 4, g, pos, NULL) == FG_EINVALID);
			fg_commitgraph_free(g);
		}
		put_be32(e + 20, p1);
		put_be32(e + 28, (be32(b + cdat + (size_t)p1 * 36 + 28) & ~3u) | (word & 3));
		g = graph_of(bytes, len);
		CHECK(g && fg_commitgraph_commit_at(&gc, parents, 4, g, pos, NULL) == FG_EINVALID);
		fg_commitgraph_free(g);
		put_be32(e + 28, word & 3);
		g = graph_of(bytes, len);
		CHECK(g && fg_commitgraph_commit_at(&gc, parents, 4, g, pos, NULL) == 0);
		fg_commitgraph_free(g);
		put_be32(e + 28, word);
		checked++;
	}
	CHECK(checked + 1 >= n && checked > 6);
	free(bytes);
}

/* ---- in the history walks ------------------------------------------------------------ */

typedef struct answer {
	char last[41], method_last[41];
	size_t window;
	size_t skipped, maybe;
} answer;

static void query(answer *out, size_t nout)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/repo", tmp);
	fg_history_options opts;
	fg_history_options_init(&opts);
	opts.good = "main~30";
	fg_history *h = NULL;
	fg_history_result *r = NULL;
	fg_error err;
	fg_error_clear(&err);
	const char *frames[] = { "p/A.m1", "p/B.m3", "q/Caf\xc3\xa9.m0", "q/\xc3\xa9t\xc3\xa9.m4" };
	memset(out, 0, nout * sizeof(*out));
	if (fg_history_open(&h, path, &opts, &err) < 0 ||
	    fg_history_query_methods(&r, h, frames, sizeof(frames) / sizeof(frames[0]), &err) < 0) {
		fprintf(stderr, "history: %s: %s\n", err.source, err.message);
		CHECK(!"history query");
		fg_history_free(h);
		return;
	}
	for (size_t i = 0; i < fg_history_result_count(r) && i < nout; i++) {
		const fg_history_entry *e = fg_history_result_entry(r, i);
		snprintf(out[i].last, sizeof(out[i].last), "%s", e->last ? e->last->id : "-");
		snprintf(out[i].method_last, sizeof(out[i].method_last), "%s",
			 e->method && e->method->last ? e->method->last->commit->id : "-");
		out[i].window = e->window_count * 100 + (e->method ? e->method->window_count : 0);
	}
	fg_history_result_filters(&out[0].skipped, &out[0].maybe, r);
	fg_history_result_free(r);
	fg_history_free(h);
}

static void same_answers(const answer *a, const answer *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		CHECK_STR(a[i].last, b[i].last);
		CHECK_STR(a[i].method_last, b[i].method_last);
		CHECK_U64(a[i].window, b[i].window);
	}
}

static void test_history(void)
{
	answer none[4], plain[4], filters[4], damaged[4], off[4];
	sh("rm -f repo/.git/objects/info/commit-graph");
	query(none, 4);
	CHECK(strcmp(none[0].method_last, "-") && strcmp(none[3].method_last, "-"));
	CHECK_U64(none[0].skipped + none[0].maybe, 0);
	sh("cd repo; git commit-graph write --reachable --no-changed-paths");
	query(plain, 4);
	same_answers(none, plain, 4);
	CHECK_U64(plain[0].skipped + plain[0].maybe, 0);
	sh("cd repo; rm .git/objects/info/commit-graph; git commit-graph write --reachable --changed-paths");
	query(filters, 4);
	same_answers(none, filters, 4);
	CHECK(filters[0].skipped > filters[0].maybe && filters[0].maybe > 0);
	/* commitGraph.readChangedPaths=false: the graph without its filters. */
	sh("cd repo; git config commitGraph.readChangedPaths false");
	query(off, 4);
	same_answers(none, off, 4);
	CHECK_U64(off[0].skipped + off[0].maybe, 0);
	sh("cd repo; git config --unset commitGraph.readChangedPaths");
	/* A graph that names another tree for the bad commit is not this
	 * repository's: not used at all. */
	size_t len;
	char *bytes = slurp("repo/.git/objects/info/commit-graph", &len);
	unsigned char *b = (unsigned char *)bytes;
	git_oid head;
	size_t hl;
	char *hex = slurp("head", &hl);
	hex[strcspn(hex, "\n")] = '\0';
	CHECK(git_oid_fromstr(&head, hex) == 0);
	fg_commitgraph *g = graph_of(bytes, len);
	uint32_t pos = g ? fg_commitgraph_find(g, head.id) : FG_COMMITGRAPH_NONE;
	CHECK(pos != FG_COMMITGRAPH_NONE);
	fg_commitgraph_free(g);
	if (pos != FG_COMMITGRAPH_NONE) {
		b[chunk(b, "CDAT") + (size_t)pos * 36] ^= 1;
		sh("chmod u+w repo/.git/objects/info/commit-graph");
		FILE *f = open_in("repo/.git/objects/info/commit-graph", "wb");
		CHECK(fwrite(bytes, 1, len, f) == len);
		fclose(f);
		query(damaged, 4);
		same_answers(none, damaged, 4);
		CHECK_U64(damaged[0].skipped + damaged[0].maybe, 0);
	}
	free(hex);
	free(bytes);
}

/* A split chain (`--split`, as git fetch and git maintenance write them):
 * three layers, the filters read from each, the answers unchanged. */
static void test_chain(void)
{
	sh("cd repo; rm -f .git/objects/info/commit-graph; "
	   "git commit-graph write --reachable --split=no-merge --changed-paths");
	for (int layer = 0; layer < 2; layer++)
		for (int c = 0; c < 3; c++) {
			values[0][c] = 1000 + 10 * layer + c;
			write_path(0);
			sh("cd repo; git add -A; GIT_COMMITTER_DATE='%d +0000' GIT_AUTHOR_DATE='%d +0000' "
			   "git commit -q -m more%d%d; %s", 1800000000 + 100 * (3 * layer + c),
			   1800000000 + 100 * (3 * layer + c), layer, c,
			   c == 2 ? "git commit-graph write --reachable --split=no-merge --changed-paths" : "true");
		}
	sh("git -C repo rev-parse HEAD > head; test $(wc -l < repo/.git/objects/info/commit-graphs/commit-graph-chain) = 3");
	list_changes();
	char commondir[512];
	snprintf(commondir, sizeof(commondir), "%s/repo/.git", tmp);
	fg_commitgraph *g = NULL;
	fg_error err;
	fg_error_clear(&err);
	CHECK(fg_commitgraph_open(&g, commondir, &err) == 0 && g);
	if (!g)
		return;
	CHECK(fg_commitgraph_has_filters(g));
	/* the commits, a side commit and a merge every 15, the 6 more */
	CHECK_U64(fg_commitgraph_count(g), NCOMMITS + 2 * (NCOMMITS / 15) + 6);
	size_t negatives, unchanged, signed_checked = 0;
	check_filters(g, false, &negatives, &unchanged, &signed_checked);
	CHECK(unchanged > 0 && negatives * 10 >= unchanged * 9);
	fg_commitgraph_free(g);
	answer none[4], chain[4], broken[4];
	sh("cd repo; git config core.commitGraph false");
	query(none, 4);
	CHECK_U64(none[0].skipped + none[0].maybe, 0);
	sh("cd repo; git config --unset core.commitGraph");
	query(chain, 4);
	same_answers(none, chain, 4);
	CHECK(chain[0].skipped > chain[0].maybe && chain[0].maybe > 0);
	/* A chain naming a layer that is not there: not used at all. */
	sh("cd repo/.git/objects/info/commit-graphs; chmod u+w commit-graph-chain; "
	   "sed -i '2s/.*/%040d/' commit-graph-chain", 0);
	query(broken, 4);
	same_answers(none, broken, 4);
	CHECK_U64(broken[0].skipped + broken[0].maybe, 0);
	CHECK(fg_commitgraph_open(&g, commondir, &err) == 0 && !g);
}

int main(void)
{
	test_murmur3();
	int rc = git_test_setup();
	if (rc)
		return rc;
	git_libgit2_init();
	build_repo();
	sh("git -C repo rev-parse HEAD > head");
	test_git_graph();
	test_history();
	test_chain();
	git_libgit2_shutdown();
	git_test_cleanup(check_failures);
	return check_status("commitgraph");
}
