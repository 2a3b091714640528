/* protocol, subsystems and top on small hand-made profiles: the edge cases the
 * real fixtures do not have (dotted names, Netty without gRPC, REST and gRPC
 * in one profile, recursion, rounding, several profiles in a row); top and
 * share on random, deeply recursive trees against counts made from the
 * trees' stacks by definition. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "formats/reader.h"
#include "analysis/protocol.h"
#include "model/match.h"
#include "analysis/rules.h"
#include "analysis/share.h"
#include "analysis/subsystems.h"
#include "analysis/top.h"

static fg_names *names;

static int read_text(fg_profile_info *info, const char *text, fg_frames_fn frames, fg_stack_fn stack, void *ctx)
{
	fg_error err;
	fg_read_options ro;
	fg_read_options_init(&ro);
	int rc = fg_reader_read_memory(info, text, strlen(text), "mem", names, &ro,
					&(fg_visitor){ frames, stack, ctx, NULL, NULL }, &err);
	if (rc)
		fprintf(stderr, "read: %s\n", err.message);
	return rc;
}

static void test_protocol(void)
{
	fg_error err;
	fg_protocol *p = NULL;
	fg_profile_info info;
	CHECK(fg_protocol_new(&p, names, &err) == 0);

	/* Netty alone (Raft) is not gRPC. */
	fg_protocol_reset(p);
	CHECK(read_text(&info, "T;io/netty/channel/nio/NioEventLoop.run;io/atomix/raft/X.y 10\n", fg_protocol_frames, fg_protocol_stack,
			p) == 0);
	CHECK(fg_protocol_result(p) == FG_PROTOCOL_UNKNOWN);
	CHECK_U64(fg_protocol_evidence_count(p), 0);
	CHECK_STR(fg_protocol_name(fg_protocol_result(p)), "unknown");
	/* Several profiles' label: the one they give, "mixed" once two differ,
	 * the ones that say nothing not counted. */
	const char *l = NULL;
	CHECK(fg_protocol_join(l, NULL) == NULL);
	l = fg_protocol_join(fg_protocol_join(l, "grpc"), NULL);
	CHECK_STR(fg_protocol_join(l, "grpc"), "grpc");
	l = fg_protocol_join(l, "rest");
	CHECK_STR(l, "mixed");
	CHECK_STR(fg_protocol_join(fg_protocol_join(l, "grpc"), NULL), "mixed");

	/* gRPC: io/grpc/ frames; the loop serving them is evidence, the one
	 * serving only Raft is not; a recursive frame counts once per stack. */
	fg_protocol_reset(p);
	CHECK(read_text(&info,
			"T;io/netty/channel/SingleThreadIoEventLoop.run;io/atomix/raft/X.y 50\n"
			"T;io/netty/channel/nio/NioEventLoop.run;io/grpc/A.a;io/grpc/A.a 7\n"
			"T;io/netty/channel/nio/NioEventLoop.run;io/grpc/B.b 3\n",
			fg_protocol_frames, fg_protocol_stack, p) == 0);
	CHECK(fg_protocol_result(p) == FG_PROTOCOL_GRPC);
	CHECK_U64(fg_protocol_evidence_count(p), 3);
	CHECK_STR(fg_protocol_evidence(p, 0), "io/netty/channel/nio/NioEventLoop.run");
	CHECK_STR(fg_protocol_evidence(p, 1), "io/grpc/A.a");
	CHECK_STR(fg_protocol_evidence(p, 2), "io/grpc/B.b");

	/* REST wins over gRPC; dotted names count; at most 5 frames, most
	 * samples first, ties in byte order. */
	fg_protocol_reset(p);
	CHECK(read_text(&info,
			"T;io/grpc/A.a 100\n"
			"T;org.apache.coyote.http11.Http11Processor.service;org.apache.catalina.core.X.y 9\n"
			"T;org/springframework/web/servlet/FrameworkServlet.service 4\n"
			"T;org/springframework/security/web/FilterChainProxy.doFilter 4\n"
			"T;x/BearerTokenAuthenticationFilter.doFilter 2\n"
			"T;org/apache/catalina/Z.z 1\n",
			fg_protocol_frames, fg_protocol_stack, p) == 0);
	CHECK(fg_protocol_result(p) == FG_PROTOCOL_REST);
	CHECK_U64(fg_protocol_evidence_count(p), 5);
	CHECK_STR(fg_protocol_evidence(p, 0), "org.apache.catalina.core.X.y");
	CHECK_STR(fg_protocol_evidence(p, 1), "org.apache.coyote.http11.Http11Processor.service");
	CHECK_STR(fg_protocol_evidence(p, 2), "org/springframework/security/web/FilterChainProxy.doFilter");
	CHECK_STR(fg_protocol_evidence(p, 3), "org/springframework/web/servlet/FrameworkServlet.service");
	CHECK_STR(fg_protocol_evidence(p, 4), "x/BearerTokenAuthenticationFilter.doFilter");
	CHECK(fg_protocol_evidence(p, 5) == NULL);

	/* Reset forgets everything. */
	fg_protocol_reset(p);
	CHECK(read_text(&info, "T;a/B.c 1\n", fg_protocol_frames, fg_protocol_stack, p) == 0);
	CHECK(fg_protocol_result(p) == FG_PROTOCOL_UNKNOWN);
	fg_protocol_free(p);

	/* Events from titles. */
	fg_profile_info t = { 0 };
	CHECK(fg_protocol_event(&t) == NULL);
	strcpy(t.title, "CPU profile");
	CHECK_STR(fg_protocol_event(&t), "cpu");
	strcpy(t.title, "Allocation profile (bytes)");
	CHECK_STR(fg_protocol_event(&t), "alloc");
	strcpy(t.title, "Wall clock profile");
	CHECK_STR(fg_protocol_event(&t), "wall");
	strcpy(t.title, "Lock profile (ns)");
	CHECK_STR(fg_protocol_event(&t), "lock");
	strcpy(t.title, "Flame Graph");
	CHECK(fg_protocol_event(&t) == NULL);
	strcpy(t.title, "CPU profiles");
	CHECK(fg_protocol_event(&t) == NULL);
}

static void test_subsystems(void)
{
	static const char rules_text[] = "subsystem a\npattern A\nsubsystem b\npattern B\nsubsystem c\npattern C\n";
	fg_error err;
	fg_rules *rules = NULL;
	fg_subsystems *s = NULL;
	fg_profile_info info;
	CHECK(fg_rules_parse(&rules, rules_text, strlen(rules_text), "mem", &err) == 0);
	fg_subsystems_options so;
	fg_subsystems_options_init(&so);
	so.top_frames = 2;
	CHECK(fg_subsystems_new(&s, rules, names, &so, &err) == 0);

	/* Self time of every node by the best rule on its path: B under A is
	 * a's; A under B is a's too (a precedes b); the B node's own self time
	 * stays b's. */
	CHECK(read_text(&info,
			"t;x/B 5\n"
			"t;x/B;x/A 3\n"
			"t;x/A;x/B 2\n"
			"t;x/C;y 4\n"
			"t;z 6\n"
			"t 1\n",
			fg_subsystems_frames, fg_subsystems_stack, s) == 0);
	CHECK_U64(fg_subsystems_total(s), 21);
	CHECK_U64(fg_subsystems_count(s), 4);
	CHECK_U64(fg_subsystems_samples(s, 0), 5);
	CHECK_U64(fg_subsystems_samples(s, 1), 5);
	CHECK_U64(fg_subsystems_samples(s, 2), 4);
	CHECK_U64(fg_subsystems_samples(s, 3), 7);
	CHECK_STR(fg_subsystems_name(s, 3), "other");
	uint32_t shares[4];
	fg_subsystems_shares(shares, s);
	/* 23.809…, 23.809…, 19.047…, 33.333…: 2380+2380+1904+3333 = 9997, the
	 * three hundredths go to the largest remainders (.952 .952 .619 .333). */
	CHECK_U64(shares[0], 2381);
	CHECK_U64(shares[1], 2381);
	CHECK_U64(shares[2], 1905);
	CHECK_U64(shares[3], 3333);
	fg_subsystems_entry top[4];
	CHECK_U64(fg_subsystems_top_frames(top, 4, s, 3), 2);
	CHECK_STR(fg_names_get(names, top[0].name), "z");
	CHECK_U64(top[0].samples, 6);
	CHECK_STR(fg_names_get(names, top[1].name), "t");
	CHECK_U64(fg_subsystems_top_frames(top, 4, s, 0), 2);
	CHECK_STR(fg_names_get(names, top[0].name), "x/A");
	CHECK_U64(top[0].samples, 3);
	CHECK_STR(fg_names_get(names, top[1].name), "x/B");
	CHECK_U64(top[1].samples, 2);

	/* Thirds: rounding gives 33.34 + 33.33 + 33.33. */
	fg_subsystems_reset(s);
	CHECK(read_text(&info, "t;A 1\nt;B 1\nt;C 1\n", fg_subsystems_frames, fg_subsystems_stack, s) == 0);
	fg_subsystems_shares(shares, s);
	CHECK_U64(shares[0], 3334);
	CHECK_U64(shares[1], 3333);
	CHECK_U64(shares[2], 3333);
	CHECK_U64(shares[3], 0);
	CHECK_U64(fg_subsystems_top_frames(top, 4, s, 3), 0);
	fg_subsystems_free(s);
	fg_rules_free(rules);
}

/* Pools "c" into "a", as the name normaliser pools names alike. */
static int c_is_a(void *ctx, uint32_t name, uint32_t *mapped, fg_error *err)
{
	(void)ctx;
	return strcmp(fg_names_get(names, name), "c") ? (*mapped = name, 0)
						       : fg_names_intern(mapped, names, "a", 1, err);
}

/* top on one profile, its stacks streamed (stack path) or merged into a
 * tree first (frame path): "name incl self" lines in inclusive, then in
 * self order. */
static const char *top_of(const char *text, bool stacks, fg_name_map_fn map)
{
	static char out[512];
	fg_error err;
	fg_top *t = NULL;
	fg_profile_info info;
	size_t len = 0;
	out[0] = '\0';
	CHECK(fg_top_new(&t, map, NULL, &err) == 0);
	CHECK(read_text(&info, text, fg_top_frames, stacks ? fg_top_stack : NULL, t) == 0);
	for (int self = 0; self < 2; self++) {
		fg_top_entry *e = NULL;
		size_t n = 0;
		CHECK(fg_top_entries(&e, &n, t, self, &err) == 0);
		for (size_t i = 0; i < n; i++)
			len += (size_t)snprintf(out + len, sizeof(out) - len, "%s %llu %llu%s",
						fg_names_get(names, e[i].name), (unsigned long long)e[i].samples,
						(unsigned long long)e[i].self_samples, i + 1 < n ? ", " : "");
		len += (size_t)snprintf(out + len, sizeof(out) - len, self ? "" : " | ");
		free(e);
	}
	CHECK_U64(fg_top_total(t), 11);
	fg_top_free(t);
	return out;
}

static void test_top(void)
{
	/* Recursion counts a stack once; a stack of 0 samples adds nothing;
	 * self is the leaf's (total less the children's on the frame path). */
	static const char text[] = "a;b;a;c 5\na;b 3\nb;a 2\na 1\nd;d 0\n";
	for (int stacks = 0; stacks < 2; stacks++) {
		CHECK_STR(top_of(text, stacks, NULL), "a 11 3, b 10 3, c 5 5 | c 5 5, a 11 3, b 10 3");
		/* Pooled names count once per stack too. */
		CHECK_STR(top_of(text, stacks, c_is_a), "a 11 8, b 10 3 | a 11 8, b 10 3");
	}
}

/* Random trees of a few names (the root's, which frames below it have too,
 * and "n1" to "n5"), with chains of one name deeper than the analyses'
 * first path arrays (256), as frames in DFS pre-order. */
enum { RT_NAMES = 6, RT_MAX = 6000 };

struct rt_tree {
	fg_frame frames[RT_MAX];
	size_t n;
	uint32_t ids[RT_NAMES];
	uint64_t state;
};

static uint32_t rt_rand(struct rt_tree *t, uint32_t n)
{
	t->state ^= t->state >> 12;
	t->state ^= t->state << 25;
	t->state ^= t->state >> 27;
	return (uint32_t)((t->state * 0x2545F4914F6CDD1Dull) >> 33) % n;
}

/* A frame of total samples at depth, then its children: a chain of the same
 * name for chain more levels, else up to three children of random names and
 * widths (what is left over is the frame's self). */
static void rt_grow(struct rt_tree *t, uint32_t depth, uint32_t name, uint64_t total, uint32_t chain)
{
	if (t->n == RT_MAX)
		return;
	t->frames[t->n++] = (fg_frame){ .depth = depth, .name = depth ? t->ids[name] : 0, .total = total };
	if (chain) {
		rt_grow(t, depth + 1, name, total - (total > 1 && rt_rand(t, 4) == 0), chain - 1);
		return;
	}
	uint64_t left = total;
	for (uint32_t k = rt_rand(t, 4); k > 0 && left > 0 && depth < 40; k--) {
		uint64_t w = 1 + rt_rand(t, (uint32_t)(left < 1000 ? left : 1000));
		left -= w;
		rt_grow(t, depth + 1, rt_rand(t, RT_NAMES), w, rt_rand(t, 30) == 0 ? 200 + rt_rand(t, 200) : 0);
	}
}

/* The index of a name id among t->ids (RT_NAMES for another). */
static uint32_t rt_index(const struct rt_tree *t, uint32_t id)
{
	uint32_t x = 0;
	while (x < RT_NAMES && t->ids[x] != id)
		x++;
	return x;
}

/* Pools "n2" into "n1", as the name normaliser pools names alike. */
static int n2_is_n1(void *ctx, uint32_t name, uint32_t *mapped, fg_error *err)
{
	(void)ctx;
	return strcmp(fg_names_get(names, name), "n2") ? (*mapped = name, 0)
							: fg_names_intern(mapped, names, "n1", 2, err);
}

/* The frames to a visitor in batches of 1 to 64, then the end call. */
static int rt_visit(const struct rt_tree *t, fg_frames_fn fn, void *ctx)
{
	fg_error err;
	uint64_t state = t->state;
	for (size_t i = 0; i < t->n;) {
		state = state * 6364136223846793005ull + 1442695040888963407ull;
		size_t n = 1 + (size_t)(state >> 58);
		n = n < t->n - i ? n : t->n - i;
		int rc = fn(ctx, t->frames + i, n, &err);
		if (rc)
			return rc;
		i += n;
	}
	return fn(ctx, NULL, 0, &err);
}

static void test_random_trees(void)
{
	static const char *const patterns[] = { "n1", "n3", "n5" };
	fg_error err;
	fg_matcher *m = NULL;
	fg_match_options mo = { 0 };
	struct rt_tree *t = calloc(1, sizeof(*t));
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK(fg_matcher_new(&m, patterns, 3, &mo, &err) == 0);
	t->ids[0] = 0;
	for (uint32_t i = 1; i < RT_NAMES; i++) {
		char name[4] = { 'n', (char)('0' + i), 0 };
		CHECK(fg_names_intern(&t->ids[i], names, name, 2, &err) == 0);
	}
	/* share without the self share, as `share` runs it: one for all the
	 * trees, reset between them (the matcher's answers stay). */
	fg_share *incl_only = NULL;
	CHECK(fg_share_new(&incl_only, m, names, &err) == 0);
	fg_share_inclusive_only(incl_only);
	int bad_top = 0, bad_share = 0, deep = 0;
	for (int round = 0; round < 400; round++) {
		t->state = 0x9E3779B97F4A7C15ull + (uint64_t)round * 0x100000001B3ull;
		t->n = 0;
		rt_grow(t, 0, 0, 1 + rt_rand(t, 100000), 0);
		/* By definition: each frame's self samples are a stack, the names
		 * on its path (each once) inclusive, its own self. */
		uint32_t path[RT_MAX];
		size_t parent[RT_MAX], up[RT_MAX];
		uint64_t self[RT_MAX];
		/* By name index (0 to RT_NAMES - 1; with the map "n2" counts as "n1"). */
		uint64_t incl[2][RT_NAMES] = { { 0 } }, own[2][RT_NAMES] = { { 0 } }, sh[3] = { 0 }, sh_self[3] = { 0 };
		uint32_t maxdepth = 0;
		for (size_t i = 0; i < t->n; i++) {
			uint32_t d = t->frames[i].depth;
			self[i] = t->frames[i].total;
			if (d) {
				parent[i] = up[d - 1];
				self[parent[i]] -= t->frames[i].total;
			}
			up[d] = i;
			maxdepth = d > maxdepth ? d : maxdepth;
		}
		deep += maxdepth >= 256;
		for (size_t i = 0; i < t->n; i++) {
			uint32_t d = t->frames[i].depth;
			for (size_t j = i, k = d; k > 0; j = parent[j], k--)
				path[k] = rt_index(t, t->frames[j].name);
			if (d == 0)
				continue;
			for (int map = 0; map < 2; map++) {
				uint64_t seen = 0;
				for (uint32_t k = 1; k <= d; k++) {
					uint32_t x = path[k] == 2 && map ? 1 : path[k];
					if (!(seen >> x & 1))
						incl[map][x] += self[i];
					seen |= UINT64_C(1) << x;
				}
				own[map][path[d] == 2 && map ? 1 : path[d]] += self[i];
			}
			for (int p = 0; p < 3; p++) {
				uint32_t x = (uint32_t)(1 + 2 * p); /* "n1", "n3", "n5" */
				bool on = false;
				for (uint32_t k = 1; k <= d; k++)
					on = on || path[k] == x;
				sh[p] += on ? self[i] : 0;
				sh_self[p] += path[d] == x ? self[i] : 0;
			}
		}
		for (int map = 0; map < 2; map++) {
			fg_top *top = NULL;
			CHECK(fg_top_new(&top, map ? n2_is_n1 : NULL, NULL, &err) == 0);
			CHECK(rt_visit(t, fg_top_frames, top) == 0);
			fg_top_entry *e = NULL;
			size_t n = 0;
			CHECK(fg_top_entries(&e, &n, top, false, &err) == 0);
			size_t expected = 0;
			for (uint32_t x = 0; x < RT_NAMES; x++)
				expected += incl[map][x] > 0;
			bool same = n == expected && fg_top_total(top) == t->frames[0].total;
			for (size_t i = 0; i < n && same; i++) {
				uint32_t x = rt_index(t, e[i].name);
				same = x < RT_NAMES && e[i].samples == incl[map][x] && e[i].self_samples == own[map][x];
			}
			bad_top += !same;
			free(e);
			fg_top_free(top);
		}
		fg_share *s = NULL;
		CHECK(fg_share_new(&s, m, names, &err) == 0);
		CHECK(rt_visit(t, fg_share_frames, s) == 0);
		bool same = true;
		for (int p = 0; p < 3; p++)
			same = same && fg_share_samples(s, (size_t)p) == sh[p] && fg_share_self(s, (size_t)p) == sh_self[p];
		fg_share_free(s);
		fg_share_reset(incl_only);
		CHECK(rt_visit(t, fg_share_frames, incl_only) == 0);
		for (int p = 0; p < 3; p++)
			same = same && fg_share_samples(incl_only, (size_t)p) == sh[p] &&
			       fg_share_self(incl_only, (size_t)p) == 0;
		bad_share += !same;
	}
	fg_share_free(incl_only);
	CHECK_U64(bad_top, 0);
	CHECK_U64(bad_share, 0);
	/* The trees do reach past the first path arrays. */
	CHECK(deep > 0);
	fg_matcher_free(m);
	free(t);
}

int main(void)
{
	fg_error err;
	if (fg_names_new(&names, &err))
		return 1;
	test_protocol();
	test_subsystems();
	test_top();
	test_random_trees();
	fg_names_free(names);
	return check_status("test_analysis");
}
