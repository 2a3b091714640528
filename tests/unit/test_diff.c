/* The diff: shares per normalised name (recursion counted once), pooling,
 * the noise floor, new/gone, the ignore list, self shares, peers, and the
 * SVG writer's escaping and colours; profiles read into parts on their own
 * and added give the diff reading them into it gives. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "formats/reader.h"
#include "analysis/compare.h"
#include "analysis/diff.h"
#include "model/match.h"
#include "output/svg.h"

static fg_names *names;

static void add(fg_diff *d, fg_diff_side side, const char *collapsed)
{
	fg_error err;
	fg_profile_info info;
	CHECK(fg_diff_begin(d, side, &err) == 0);
	int rc = fg_reader_read_memory(&info, collapsed, strlen(collapsed), "mem", names, NULL,
					&(fg_visitor){ fg_diff_frames, NULL, d, NULL, NULL }, &err);
	if (rc)
		fprintf(stderr, "read: %s\n", err.message);
	CHECK(rc == 0);
}

static const fg_diff_entry *find(const fg_diff_entry *e, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(fg_names_get(names, e[i].name), name))
			return &e[i];
	return NULL;
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static void test_basic(void)
{
	fg_error err;
	fg_diff_options o;
	fg_diff_options_init(&o);
	CHECK(near(o.min_delta, 0.0) && near(o.fdr, 0.05) && o.nignore == fg_diff_default_ignore_count && !o.self);
	CHECK(near(o.run_noise, 8.5));
	fg_diff *d = NULL;
	CHECK(fg_diff_new(&d, names, &o, &err) == 0);
	/* Recursion counts once; thread ids and lambda ids normalise away. */
	add(d, FG_DIFF_BASE, "[w tid=1];A;B;A 50\n[w tid=1];C 40\n[w tid=1];start_thread;X 10\n");
	add(d, FG_DIFF_CANDIDATE,
	    "[w tid=2];A;B;A 30\n[w tid=2];C 40\n[w tid=2];p/D$$Lambda$7.0x00007f00.run 20\n[w tid=2];start_thread 10\n");
	fg_diff_result r;
	CHECK(fg_diff_compute(&r, d, &err) == 0);
	const fg_diff_entry *a = find(r.shrank, r.nshrank, "A");
	CHECK(a && near(a->base, 50.0) && near(a->candidate, 30.0) && near(a->delta, -20.0));
	/* The noise: sampling (one profile a side, phi 1) and the run-to-run
	 * term, 8.5% of p (1 - p) a side, p = 40% of both sides pooled. */
	double run = 0.085 * 0.4 * 0.6;
	CHECK(a && a->status == FG_DIFF_CHANGED && near(a->noise, 100.0 * sqrt(0.4 * 0.6 * 0.02 + 2 * run * run)));
	CHECK(a && near(a->run_noise, 100.0 * sqrt(2.0) * run));
	const fg_diff_entry *n = find(r.grew, r.ngrew, "p/D$$Lambda.run");
	CHECK(n && n->status == FG_DIFF_NEW && near(n->candidate, 20.0));
	const fg_diff_entry *g = find(r.shrank, r.nshrank, "X");
	CHECK(g && g->status == FG_DIFF_GONE);
	CHECK(!find(r.grew, r.ngrew, "C") && !find(r.shrank, r.nshrank, "C"));     /* unchanged */
	CHECK(!find(r.grew, r.ngrew, "[w]") && !find(r.shrank, r.nshrank, "[w]")); /* matched across runs */
	CHECK(!find(r.shrank, r.nshrank, "start_thread"));                        /* ignored */
	/* Sorted by |delta| less its noise: A and B (-20 points, noise 7.50: 12.5;
	 * z -2.67; ties by name), then X (-10, noise 3.13: 6.87, though its z
	 * is -3.19). */
	CHECK(r.nshrank == 3 && !strcmp(fg_names_get(names, r.shrank[0].name), "A") &&
	      !strcmp(fg_names_get(names, r.shrank[1].name), "B") && !strcmp(fg_names_get(names, r.shrank[2].name), "X"));
	run = 0.085 * 0.05 * 0.95;
	CHECK(near(r.shrank[2].z, -10.0 / (100.0 * sqrt(0.05 * 0.95 * 0.02 + 2 * run * run))));
	CHECK(fabs(r.shrank[0].z) < fabs(r.shrank[2].z));
	CHECK(fg_diff_total(d, FG_DIFF_BASE) == 100 && fg_diff_profiles(d, FG_DIFF_CANDIDATE) == 1);
	fg_diff_result_free(&r);
	fg_diff_free(d);
}

static void test_pooling_and_noise(void)
{
	fg_error err;
	fg_diff_options o;
	fg_diff_options_init(&o);
	o.min_delta = 1.0;
	o.run_noise = 0.0; /* the nodes' part alone */
	fg_diff *d = NULL;
	CHECK(fg_diff_new(&d, names, &o, &err) == 0);
	/* Bases: A at 10% (of 100) and 30% (of 300): pooled 25%, spread 20. */
	add(d, FG_DIFF_BASE, "A 10\nZ 90\n");
	add(d, FG_DIFF_BASE, "A 90\nQ 210\n");
	/* Candidate: A at 40%: +15, under the spread. */
	add(d, FG_DIFF_CANDIDATE, "A 40\nZ 50\nQ 10\n");
	fg_diff_result r;
	CHECK(fg_diff_compute(&r, d, &err) == 0);
	CHECK(!find(r.grew, r.ngrew, "A")); /* +15 points, spread 20 */
	/* Z: pooled 90/400 = 22.5%, candidate 50%; spread 90 - 0 (absent from
	 * the second base counts as 0%): within the noise.  Q likewise. */
	CHECK(!find(r.grew, r.ngrew, "Z"));
	CHECK(!find(r.shrank, r.nshrank, "Q"));
	fg_diff_result_free(&r);
	fg_diff_free(d);

	/* The same bases, a candidate far outside: reported with its noise. */
	CHECK(fg_diff_new(&d, names, &o, &err) == 0);
	add(d, FG_DIFF_BASE, "A 10\nZ 90\n");
	add(d, FG_DIFF_BASE, "A 36\nZ 264\n");
	add(d, FG_DIFF_CANDIDATE, "A 60\nZ 40\n");
	CHECK(fg_diff_compute(&r, d, &err) == 0);
	/* The noise: the sampling error of no change, A's share of both sides
	 * pooled (106 of 500), its phi floored at 1 (the two bases agree more
	 * than sampling says: chi2 0.29 on one degree of freedom). */
	const fg_diff_entry *a = find(r.grew, r.ngrew, "A");
	double se = 100.0 * sqrt(0.212 * 0.788 * (1.0 / 400 + 1.0 / 100));
	CHECK(a && near(a->base, 46.0 / 4.0) && near(a->noise, se) && near(a->delta, 60.0 - 11.5));
	CHECK(a && near(a->z, 48.5 / se) && near(a->phi, 1.0) && r.node_df == 1 && r.tested == 2);
	fg_diff_result_free(&r);
	fg_diff_free(d);
}

/* Nodes that disagree more than sampling explains widen the noise: phi is
 * the frame's chi-square over its degrees of freedom, shrunk toward the
 * frames' median (each over its median under sampling alone) with
 * FG_DIFF_PHI_PRIOR_DF. */
static void test_overdispersion(void)
{
	fg_error err;
	fg_diff_options o;
	fg_diff_options_init(&o);
	o.run_noise = 0.0; /* the nodes' part alone */
	fg_diff *d = NULL, *all = NULL;
	CHECK(fg_diff_new(&d, names, &o, &err) == 0);
	o.fdr = 1.0; /* everything listed (q <= 1): the statistic itself */
	CHECK(fg_diff_new(&all, names, &o, &err) == 0);
	static const char *const bases[] = { "A 100\nB 900\n", "A 150\nB 850\n", "A 200\nB 800\n" };
	for (int i = 0; i < 6; i++) {
		add(d, i < 3 ? FG_DIFF_BASE : FG_DIFF_CANDIDATE, i < 3 ? bases[i] : "A 200\nB 800\n");
		add(all, i < 3 ? FG_DIFF_BASE : FG_DIFF_CANDIDATE, i < 3 ? bases[i] : "A 200\nB 800\n");
	}
	fg_diff_result r;
	CHECK(fg_diff_compute(&r, d, &err) == 0);
	/* A: 15% -> 20%; chi2 (50^2 + 50^2) / (1000 * .15 * .85) on 2 + 2
	 * degrees of freedom (the candidates agree: 0); B alike. */
	double chi2 = 5000.0 / 127.5, common = chi2 / (4.0 * pow(1.0 - 2.0 / 36.0, 3.0));
	double phi = (chi2 + 4.0 * common) / 8.0, se = 100.0 * sqrt(phi * 0.175 * 0.825 * (2.0 / 3000.0));
	CHECK(near(r.phi, common) && r.node_df == 4 && r.tested == 2);
	CHECK(r.ngrew == 0 && r.nshrank == 0); /* z = 1.56: noise */
	/* Said, not hidden: A grew and B shrank by 5 points within noise. */
	CHECK(r.within[0].count == 1 && !strcmp(fg_names_get(names, r.within[0].largest.name), "A"));
	CHECK(r.within[1].count == 1 && !strcmp(fg_names_get(names, r.within[1].largest.name), "B"));
	CHECK(r.hidden[0].count == 0 && near(r.within[0].largest.delta, 5.0));
	fg_diff_result_free(&r);
	CHECK(fg_diff_compute(&r, all, &err) == 0);
	const fg_diff_entry *a = find(r.grew, r.ngrew, "A");
	CHECK(a && near(a->phi, phi) && near(a->noise, se) && near(a->z, 5.0 / se));
	CHECK(a && near(a->q, erfc(5.0 / se / sqrt(2.0)))); /* B ties with A: q = p */
	fg_diff_result_free(&r);
	fg_diff_free(all);
	fg_diff_free(d);
}

static void test_self_and_ignore(void)
{
	fg_error err;
	fg_diff_options o;
	fg_diff_options_init(&o);
	const char *ignore[] = { "B" };
	o.self = true;
	o.ignore = ignore;
	o.nignore = 1;
	fg_diff *d = NULL;
	CHECK(fg_diff_new(&d, names, &o, &err) == 0);
	add(d, FG_DIFF_BASE, "A 50\nA;C 50\n");
	add(d, FG_DIFF_CANDIDATE, "A 10\nA;C 80\nB 10\n");
	fg_diff_result r;
	CHECK(fg_diff_compute(&r, d, &err) == 0);
	const fg_diff_entry *a = find(r.shrank, r.nshrank, "A");
	CHECK(a && near(a->base, 50.0) && near(a->candidate, 10.0));  /* self, not inclusive (100%) */
	CHECK(find(r.grew, r.ngrew, "C") && !find(r.grew, r.ngrew, "B"));
	fg_diff_result_free(&r);
	fg_diff_free(d);

	o.ignore = NULL;
	o.nignore = 0;
	CHECK(fg_diff_new(&d, names, &o, &err) == 0);
	CHECK(fg_diff_compute(&r, d, &err) == FG_EUSAGE); /* no profiles */
	fg_diff_free(d);
}

/* The ignore list: given first, then the defaults, each pattern once; too
 * many is a usage error. */
static void test_ignore_list(void)
{
	fg_error err;
	const char **list;
	size_t n;
	const char *given[] = { "X", "start_thread", "X", "Y" };
	CHECK(fg_diff_ignore_list(&list, &n, given, 4, true, &err) == 0);
	CHECK(n == 2 + fg_diff_default_ignore_count);
	CHECK(n >= 4 && !strcmp(list[0], "X") && !strcmp(list[1], "start_thread") && !strcmp(list[2], "Y"));
	CHECK(!strcmp(list[3], fg_diff_default_ignore[0]));
	free(list);
	CHECK(fg_diff_ignore_list(&list, &n, given, 4, false, &err) == 0 && n == 3);
	free(list);
	const char *many[FG_MATCH_MAX_PATTERNS + 1];
	char buf[FG_MATCH_MAX_PATTERNS + 1][16]; /* room for any int: gcc -O1 checks */
	for (int i = 0; i <= FG_MATCH_MAX_PATTERNS; i++) {
		snprintf(buf[i], sizeof(buf[i]), "p%d", i);
		many[i] = buf[i];
	}
	CHECK(fg_diff_ignore_list(&list, &n, many, FG_MATCH_MAX_PATTERNS, false, &err) == 0 &&
	      n == FG_MATCH_MAX_PATTERNS);
	free(list);
	CHECK(fg_diff_ignore_list(&list, &n, many, FG_MATCH_MAX_PATTERNS + 1, false, &err) == FG_EUSAGE && !list);
}

/* A side's summary: its sources in order, the protocol and event joined. */
static void test_compare_side(void)
{
	fg_error err;
	fg_compare_input in[3] = {
		{ .source = "a", .side = FG_DIFF_BASE, .protocol = FG_PROTOCOL_GRPC, .event = "cpu" },
		{ .source = "b", .side = FG_DIFF_CANDIDATE, .protocol = FG_PROTOCOL_GRPC },
		{ .source = "c", .side = FG_DIFF_BASE, .protocol = FG_PROTOCOL_REST, .event = "cpu" },
	};
	fg_compare_side s;
	CHECK(fg_compare_side_get(&s, in, 3, FG_DIFF_BASE, &err) == 0);
	CHECK(s.nsources == 2 && !strcmp(s.sources[0], "a") && !strcmp(s.sources[1], "c"));
	CHECK(!strcmp(s.protocol, "mixed") && !strcmp(s.event, "cpu"));
	fg_compare_side_clear(&s);
	CHECK(fg_compare_side_get(&s, in, 3, FG_DIFF_CANDIDATE, &err) == 0);
	CHECK(s.nsources == 1 && !strcmp(s.protocol, "grpc") && !s.event);
	fg_compare_side_clear(&s);
	in[1].protocol = FG_PROTOCOL_UNKNOWN;
	CHECK(fg_compare_side_get(&s, in, 3, FG_DIFF_CANDIDATE, &err) == 0 && !strcmp(s.protocol, "unknown"));
	fg_compare_side_clear(&s);
}

static void test_peers(void)
{
	fg_error err;
	fg_diff_options o;
	fg_diff_options_init(&o);
	fg_diff *d = NULL;
	fg_diff_peers p;
	CHECK(fg_diff_new(&d, names, &o, &err) == 0);
	add(d, FG_DIFF_BASE, "A 10\nB 90\n");
	add(d, FG_DIFF_BASE, "A 11\nB 89\n");
	CHECK(fg_diff_peers_compute(&p, d, &err) == FG_EUSAGE);
	add(d, FG_DIFF_BASE, "A 9\nB 91\n");
	add(d, FG_DIFF_BASE, "A 30\nB 70\n");
	CHECK(fg_diff_peers_compute(&p, d, &err) == 0);
	CHECK(p.npeers == 4 && p.outlier == 3);
	/* The outlier: A at 30% against (10+11+9)/3 = 10%: +20, B -20. */
	CHECK(p.peers[3].nframes == 2 && near(p.peers[3].score, 40.0));
	const fg_diff_peer_frame *a = &p.peers[3].frames[0];
	CHECK(!strcmp(fg_names_get(names, a->name), "A") && near(a->share, 30.0) && near(a->others, 10.0) &&
	      near(a->delta, 20.0));
	fg_diff_peers_free(&p);
	fg_diff_free(d);

	/* Alike peers: nobody stands out. */
	CHECK(fg_diff_new(&d, names, &o, &err) == 0);
	add(d, FG_DIFF_BASE, "A 10\nB 90\n");
	add(d, FG_DIFF_BASE, "A 13\nB 87\n");
	add(d, FG_DIFF_BASE, "A 16\nB 84\n");
	CHECK(fg_diff_peers_compute(&p, d, &err) == 0);
	CHECK(p.outlier == -1);
	fg_diff_peers_free(&p);
	fg_diff_free(d);
}

static char *svg_of(fg_diff *d, const fg_svg_options *so)
{
	fg_error err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(fg_svg_write_diff(f, d, names, so, &err) == 0);
	fclose(f);
	return buf;
}

/* The <g> of the frame whose tooltip starts with name (a static copy). */
static const char *frame_of(const char *svg, const char *name)
{
	static char g[4096];
	char key[256];
	snprintf(key, sizeof(key), "<title>%s\n", name);
	const char *t = strstr(svg, key);
	if (!t)
		return "";
	const char *start = t, *end = strstr(t, "</g>");
	while (start > svg && strncmp(start, "<g ", 3))
		start--;
	snprintf(g, sizeof(g), "%.*s", (int)(end - start), start);
	return g;
}

/* A diff that builds the trees (for the SVG and the path noise); fdr 1
 * lists every frame the floor lets through, so that the paths' own floors
 * decide the colours. */
static fg_diff *tree_diff(double fdr)
{
	fg_error err;
	fg_diff_options o;
	fg_diff_options_init(&o);
	o.trees = true;
	o.fdr = fdr;
	fg_diff *d = NULL;
	CHECK(fg_diff_new(&d, names, &o, &err) == 0);
	return d;
}

static void test_svg(void)
{
	fg_error err;
	fg_diff *d = tree_diff(1.0);
	/* Two bases: "noisy" moves 10 points between them, "steady" does not;
	 * the candidate moves both by 8 points.  "fresh" is new. */
	add(d, FG_DIFF_BASE, "[t<1> & \"q\" tid=5];noisy 2000\n[t<1> & \"q\" tid=5];steady 2000\nrest 6000\n");
	add(d, FG_DIFF_BASE, "[t<1> & \"q\" tid=7];noisy 3000\n[t<1> & \"q\" tid=7];steady 2000\nrest 5000\n");
	add(d, FG_DIFF_CANDIDATE, "[t<1> & \"q\" tid=6];noisy 3300\n[t<1> & \"q\" tid=6];steady 2800\n"
				  "rest 3400\nbad\xff 100\nio/camunda/zeebe/db/Fresh.method 400\n");
	fg_svg_options so;
	fg_svg_options_init(&so);
	CHECK(so.width == 1200.0 && so.min_width == 0.1 && !so.base_widths && so.color == FG_SVG_COLOR_INCLUSIVE && !so.inverted);
	const char *bases[] = { "a & b.html", "c.html" }, *cands[] = { "d.html" };
	so.base = (fg_svg_side){ bases, 2, "grpc", "cpu" };
	so.candidate = (fg_svg_side){ cands, 1, "grpc", NULL };
	char *buf = svg_of(d, &so);
	CHECK(strstr(buf, "<title>[t&lt;1&gt; &amp; &quot;q&quot;]\n") != NULL);
	CHECK(strstr(buf, ">Base</tspan>: 2 profiles, 20,000 samples, gRPC, cpu: a &amp; b.html, c.html<") != NULL);
	CHECK(strstr(buf, ">Candidate</tspan>: 1 profile, 10,000 samples, gRPC, event unknown: d.html<") != NULL);
	CHECK(strstr(buf, "bad\xef\xbf\xbd") != NULL && !strstr(buf, "\xff"));
	/* steady: 20% -> 28%, spread 0: +8 points, listed; the path's floor is
	 * the sampling error, 1.96 * sqrt(.2 * .8 / 20000 + .28 * .72 / 10000)
	 * = 1.04 points; +8 is beyond the 5-point scale: darkest red. */
	const char *g = frame_of(buf, "steady");
	CHECK(strstr(g, "data-b=\"4000\" data-c=\"2800\"") != NULL);
	CHECK(strstr(g, "\nbase: 4000 samples, 20.00% (self 20.00%)\ncandidate: 2800 samples, 28.00% (self 28.00%)"
			"\nchange here: +8.00 points inclusive, +8.00 self; noise 1.04"
			"\nthe frame in all: +8.00 points inclusive, listed by the diff<") != NULL);
	CHECK(strstr(g, "fill=\"rgb(165,15,21)\"") != NULL && strstr(g, "class=\"d\"") != NULL);
	/* noisy: 25% -> 33%, but the bases spread 20%..30%: +8 is within the
	 * path's 10-point noise: grey. */
	g = frame_of(buf, "noisy");
	CHECK(strstr(g, "noise 10.00\nthe frame in all: +8.00 points inclusive, listed by the diff<") != NULL &&
	      strstr(g, "fill=\"rgb(221,221,221)\"") != NULL);
	/* rest: 55% -> 34%: -21, noise 10: darkest blue. */
	CHECK(strstr(frame_of(buf, "rest"), "fill=\"rgb(8,69,148)\"") != NULL);
	/* The thread: 50% -> 61% (+11, noise 10): red, 11 points is past the scale. */
	CHECK(strstr(frame_of(buf, "[t&lt;1&gt; &amp; &quot;q&quot;]"), "fill=\"rgb(165,15,21)\"") != NULL);
	/* Fresh: new, +4 points against 0.25 ... 5: 3.75 / 4.75 of the ramp, hatched; the
	 * label keeps the class and method. */
	g = frame_of(buf, "io/camunda/zeebe/db/Fresh.method");
	CHECK(strstr(g, "\nnew in the candidate</title>") != NULL && strstr(g, "fill=\"url(#fg-new)\"") != NULL);
	CHECK(strstr(g, "fill=\"rgb(183,51,50)\"") != NULL);
	CHECK(strstr(g, ">Fresh\xe2\x80\xa6</text>") != NULL); /* 47 px: 6 characters */
	/* Root at the bottom: the root's row is the lowest. */
	CHECK(strstr(buf, "data-depth=\"2\" data-inverted=\"0\"") != NULL);
	CHECK(strstr(buf, "<script><![CDATA[") != NULL && !strstr(buf, "xlink:href") && !strstr(buf, "https:"));
	CHECK(strstr(buf, "<?xml") == buf);
	free(buf);
	/* Wider: the package path goes first, then the middle of the class. */
	so.width = 2010;
	buf = svg_of(d, &so);
	CHECK(strstr(frame_of(buf, "io/camunda/zeebe/db/Fresh.method"), ">Fre\xe2\x80\xa6.method</text>") != NULL);
	free(buf);
	so.width = 3010;
	buf = svg_of(d, &so);
	CHECK(strstr(frame_of(buf, "io/camunda/zeebe/db/Fresh.method"), ">Fresh.method</text>") != NULL);
	free(buf);
	so.width = 1200;

	/* Self colours: the thread frame has no self samples in either: grey. */
	so.color = FG_SVG_COLOR_SELF;
	so.fragment = true;
	so.width = 400;
	buf = svg_of(d, &so);
	CHECK(strstr(frame_of(buf, "[t&lt;1&gt; &amp; &quot;q&quot;]"), "fill=\"rgb(221,221,221)\"") != NULL);
	CHECK(strstr(frame_of(buf, "steady"), "fill=\"rgb(165,15,21)\"") != NULL);
	CHECK(strstr(buf, ">self share change, points:<") != NULL && strstr(buf, "<svg class=\"fg-diff\"") == buf);
	/* 4% of 380 px: 15 px, no label; the thread (61%) is cut keeping "]". */
	CHECK(strstr(frame_of(buf, "io/camunda/zeebe/db/Fresh.method"), "></text>") != NULL);
	free(buf);

	/* Base widths: paths gone from the candidate are hatched the other way. */
	fg_diff_free(d);
	d = tree_diff(1.0);
	add(d, FG_DIFF_BASE, "a;gone 50\na 50\n");
	add(d, FG_DIFF_CANDIDATE, "a 100\n");
	fg_svg_options_init(&so);
	so.base_widths = true;
	so.inverted = true;
	buf = svg_of(d, &so);
	g = frame_of(buf, "gone");
	CHECK(strstr(g, "gone from the candidate</title>") != NULL && strstr(g, "url(#fg-gone)") != NULL);
	CHECK(strstr(g, "fill=\"rgb(8,69,148)\"") != NULL);
	CHECK(strstr(buf, "data-inverted=\"1\"") != NULL);
	free(buf);
	fg_diff_free(d);

	/* The same profiles at the default rate: the two bases disagree on
	 * three frames of four by 10 points, far beyond sampling (common phi
	 * 429), so no frame's change is beyond noise: all grey. */
	d = tree_diff(0.05);
	add(d, FG_DIFF_BASE, "[t tid=5];noisy 2000\n[t tid=5];steady 2000\nrest 6000\n");
	add(d, FG_DIFF_BASE, "[t tid=7];noisy 3000\n[t tid=7];steady 2000\nrest 5000\n");
	add(d, FG_DIFF_CANDIDATE, "[t tid=6];noisy 3300\n[t tid=6];steady 2800\nrest 3400\nbad 100\nFresh.m 400\n");
	fg_svg_options_init(&so);
	buf = svg_of(d, &so);
	const char *const grey[] = { "steady", "noisy", "rest", "[t]", "Fresh.m" };
	for (size_t i = 0; i < sizeof(grey) / sizeof(grey[0]); i++)
		CHECK(strstr(frame_of(buf, grey[i]), "fill=\"rgb(221,221,221)\"") != NULL);
	CHECK(strstr(buf, "false-discovery rate of 5%, by at least 0.25 points") != NULL);
	free(buf);
	fg_diff_free(d);

	/* Without trees there is nothing to draw. */
	fg_diff_options o;
	fg_diff_options_init(&o);
	CHECK(fg_diff_new(&d, names, &o, &err) == 0);
	CHECK(fg_svg_write_diff(stdout, d, names, &so, &err) == FG_EUSAGE);
	fg_diff_free(d);
}

static void test_path_noise(void)
{
	fg_diff *d = tree_diff(1.0);
	add(d, FG_DIFF_BASE, "a;b 30\na 10\nc 60\n");
	CHECK(fg_diff_path_noise(d, 1, false) == 0.0f); /* one base: no spread */
	add(d, FG_DIFF_BASE, "a;b 10\na 40\nd 50\n");
	add(d, FG_DIFF_CANDIDATE, "a 1\n");
	const fg_tree *t = fg_diff_tree(d, FG_DIFF_BASE);
	uint32_t a = FG_TREE_NONE, c = FG_TREE_NONE, dd = FG_TREE_NONE, b = FG_TREE_NONE;
	for (uint32_t i = 1; i < fg_tree_size(t); i++) {
		const char *n = fg_names_get(names, fg_tree_node_at(t, i)->name);
		*(!strcmp(n, "a") ? &a : !strcmp(n, "b") ? &b : !strcmp(n, "c") ? &c : &dd) = i;
	}
	/* a: 40% and 50% inclusive, 10% and 40% self; b: 30% and 10%; c: 60%
	 * and absent (0%); d: absent and 50%. */
	CHECK(near(fg_diff_path_noise(d, a, false), 10.0) && near(fg_diff_path_noise(d, a, true), 30.0));
	CHECK(near(fg_diff_path_noise(d, b, false), 20.0) && near(fg_diff_path_noise(d, b, true), 20.0));
	CHECK(near(fg_diff_path_noise(d, c, false), 60.0) && near(fg_diff_path_noise(d, dd, false), 50.0));
	CHECK(near(fg_diff_path_noise(d, 0, false), 0.0));
	fg_diff_free(d);
}


/* Profiles for the parts test: names that normalise alike (thread ids,
 * lambdas), kernel frames beside a Java one of the same name, a node with
 * more children than the tree scans (its index), 0-count stacks, names only
 * one profile has, recursion. */
static const char *const part_profiles[] = {
	"[w tid=1];A;B;A 50\n[w tid=1];C 40\n[w tid=1];start_thread;X 10\nk_[k];A 3\n",
	"[w tid=7];A;B 20\n[w tid=8];A;B;p/D$$Lambda$7.0x00007f00.run 5\n[w tid=7];C 1\nk_[k] 0\nZ 0\n",
	"W;c0 1\nW;c1 2\nW;c2 3\nW;c3 4\nW;c4 5\nW;c5 6\nW;c6 7\nW;c7 8\nW;c8 9\nW;c9 10\nW;c10 11\nW;c11 12\n"
	"W;c12 13\nW;c13 14\nW;c14;A 15\nA;B;A;B 9\n",
	"[w tid=2];A;B;A 30\n[w tid=2];C 40\n[w tid=2];p/D$$Lambda$9.0x00007f99.run 20\n[w tid=2];start_thread 10\n",
	"W;c3 4\nW;c14;A 1\nW;c15 2\nA;k_[k];B 7\nk_[k];A 2\nY;A 1\n",
	"W;c0 1\nW;c1 1\nW;c2 1\nW;c3 1\nW;c4 1\nW;c5 1\nW;c6 1\nW;c7 1\nW;c8 1\nW;c9 1\nW;c10 1\nW;c11 1\nW;c12 1\n"
	"W;c13 1\nW;c16 1\n[w tid=3];C 8\n",
};

/* Reads profile i on side into a part with its own names, and adds it. */
static void add_as_part(fg_diff *d, fg_diff_side side, size_t i, fg_namemap_cache *cache)
{
	fg_error err;
	fg_profile_info info;
	fg_diff_part *p = NULL;
	CHECK(fg_diff_part_new(&p, d, cache, &err) == 0);
	CHECK(fg_diff_add(d, side, p, &err) == FG_EINTERNAL); /* not read yet */
	CHECK(fg_reader_read_memory(&info, part_profiles[i], strlen(part_profiles[i]), "mem", fg_diff_part_names(p),
				    NULL, &(fg_visitor){ fg_diff_part_frames, NULL, p, NULL, NULL }, &err) == 0);
	CHECK(fg_diff_add(d, side, p, &err) == 0);
	CHECK(fg_diff_add(d, side, p, &err) == FG_EINTERNAL); /* twice */
	fg_diff_part_free(p);
}

/* Field by field (the structs have padding). */
static bool same_entries(const fg_diff_entry *a, const fg_diff_entry *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].name != b[i].name || a[i].base != b[i].base || a[i].candidate != b[i].candidate ||
		    a[i].delta != b[i].delta || a[i].noise != b[i].noise || a[i].status != b[i].status ||
		    a[i].z != b[i].z || a[i].q != b[i].q || a[i].phi != b[i].phi)
			return false;
	return true;
}

static bool same_results(const fg_diff_result *a, const fg_diff_result *b)
{
	return a->ngrew == b->ngrew && a->nshrank == b->nshrank && same_entries(a->grew, b->grew, a->ngrew) &&
	       same_entries(a->shrank, b->shrank, a->nshrank);
}

static bool same_peer(const fg_diff_peer *a, const fg_diff_peer *b)
{
	if (a->profile != b->profile || a->score != b->score || a->nframes != b->nframes)
		return false;
	for (size_t k = 0; k < a->nframes; k++)
		if (a->frames[k].name != b->frames[k].name || a->frames[k].share != b->frames[k].share ||
		    a->frames[k].others != b->frames[k].others || a->frames[k].delta != b->frames[k].delta)
			return false;
	return true;
}

/* Profiles read into parts, each with its names, and added in order give
 * the diff reading them into it gives: the same name ids, counts, trees
 * (node for node), path noise, results and peers; with or without a cache of
 * normal forms kept from part to part. */
static void test_parts(void)
{
	fg_error err;
	/* One cache of normal forms for all the parts that use one, as one
	 * thread keeps it from profile to profile. */
	fg_namemap_cache *cache = NULL;
	CHECK(fg_namemap_cache_new(&cache, &err) == 0);
	for (int variant = 0; variant < 8; variant++) {
		fg_diff_options o;
		fg_diff_options_init(&o);
		o.fdr = 1.0; /* small counts: the test would list nothing */
		o.trees = variant & 1;
		o.raw = variant & 2;
		fg_names *mine[2];
		fg_diff *d[2];
		CHECK(fg_names_new(&mine[0], &err) == 0 && fg_names_new(&mine[1], &err) == 0);
		CHECK(fg_diff_new(&d[0], mine[0], &o, &err) == 0 && fg_diff_new(&d[1], mine[1], &o, &err) == 0);
		for (size_t i = 0; i < sizeof(part_profiles) / sizeof(part_profiles[0]); i++) {
			fg_diff_side side = i % 3 == 2 ? FG_DIFF_CANDIDATE : FG_DIFF_BASE;
			fg_profile_info info;
			CHECK(fg_diff_begin(d[0], side, &err) == 0);
			CHECK(fg_reader_read_memory(&info, part_profiles[i], strlen(part_profiles[i]), "mem", mine[0], NULL,
						    &(fg_visitor){ fg_diff_frames, NULL, d[0], NULL, NULL }, &err) == 0);
			add_as_part(d[1], side, i, variant & 4 ? cache : NULL);
		}
		uint32_t nn = fg_names_count(mine[0]);
		CHECK(nn == fg_names_count(mine[1]));
		for (uint32_t i = 0; i < nn && i < fg_names_count(mine[1]); i++)
			CHECK(!strcmp(fg_names_get(mine[0], i), fg_names_get(mine[1], i)));
		for (int s = 0; s < 2; s++) {
			CHECK(fg_diff_profiles(d[0], s) == fg_diff_profiles(d[1], s));
			CHECK(fg_diff_total(d[0], s) == fg_diff_total(d[1], s));
			const fg_tree *t[2] = { fg_diff_tree(d[0], s), fg_diff_tree(d[1], s) };
			CHECK(!t[0] == !o.trees && !t[1] == !o.trees);
			if (!t[0] || !t[1])
				continue;
			CHECK(fg_tree_size(t[0]) == fg_tree_size(t[1]));
			for (uint32_t k = 0; k < fg_tree_size(t[0]) && k < fg_tree_size(t[1]); k++) {
				const fg_tree_node *x = fg_tree_node_at(t[0], k), *y = fg_tree_node_at(t[1], k);
				CHECK(x->total == y->total && x->self == y->self && x->name == y->name &&
				      x->parent == y->parent && x->first_child == y->first_child &&
				      x->next_sibling == y->next_sibling && x->depth == y->depth &&
				      x->nchildren == y->nchildren && x->type == y->type);
				CHECK(fg_tree_find_child(t[1], fg_tree_node_at(t[1], k)->parent == FG_TREE_NONE ? 0
							 : fg_tree_node_at(t[1], k)->parent, fg_tree_node_at(t[1], k)->name,
							 fg_tree_node_at(t[1], k)->type) == (k ? k : FG_TREE_NONE));
				for (int self = 0; self < 2 && s == FG_DIFF_BASE; self++)
					CHECK(fg_diff_path_noise(d[0], k, self) == fg_diff_path_noise(d[1], k, self));
			}
		}
		for (int self = 0; self < 2; self++) {
			fg_diff_result r[2];
			CHECK(fg_diff_compute_shares(&r[0], d[0], self, &err) == 0);
			CHECK(fg_diff_compute_shares(&r[1], d[1], self, &err) == 0);
			CHECK(same_results(&r[0], &r[1]));
			CHECK(r[0].ngrew + r[0].nshrank > 2);
			fg_diff_result_free(&r[0]);
			fg_diff_result_free(&r[1]);
		}
		fg_diff_peers p[2];
		CHECK(fg_diff_peers_compute(&p[0], d[0], &err) == 0 && fg_diff_peers_compute(&p[1], d[1], &err) == 0);
		CHECK(p[0].npeers == 4 && p[1].npeers == 4 && p[0].outlier == p[1].outlier);
		for (size_t i = 0; i < p[0].npeers && i < p[1].npeers; i++)
			CHECK(same_peer(&p[0].peers[i], &p[1].peers[i]));
		fg_diff_peers_free(&p[0]);
		fg_diff_peers_free(&p[1]);
		for (int k = 0; k < 2; k++) {
			fg_diff_free(d[k]);
			fg_names_free(mine[k]);
		}
	}
	fg_namemap_cache_free(cache);
}

int main(void)
{
	fg_error err;
	if (fg_names_new(&names, &err))
		return 1;
	test_basic();
	test_pooling_and_noise();
	test_overdispersion();
	test_self_and_ignore();
	test_ignore_list();
	test_compare_side();
	test_peers();
	test_svg();
	test_path_noise();
	test_parts();
	fg_names_free(names);
	return check_status("test_diff");
}
