/* The diff: shares per normalised name (recursion counted once), pooling,
 * the noise floor, new/gone, the ignore list, self shares, peers, and the
 * SVG writer's escaping and colours. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "diff.h"
#include "svg.h"

static fg_names *names;

static void add(fg_diff *d, fg_diff_side side, const char *collapsed)
{
	fg_error err;
	fg_profile_info info;
	CHECK(fg_diff_begin(d, side, &err) == 0);
	int rc = fg_profile_read_memory(&info, collapsed, strlen(collapsed), "mem", names, NULL,
					&(fg_visitor){ fg_diff_frames, NULL, d }, &err);
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
	CHECK(near(o.min_delta, 1.5) && o.nignore == fg_diff_default_ignore_count && !o.self);
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
	CHECK(a && a->status == FG_DIFF_CHANGED && near(a->noise, 0.0));
	const fg_diff_entry *n = find(r.grew, r.ngrew, "p/D$$Lambda.run");
	CHECK(n && n->status == FG_DIFF_NEW && near(n->candidate, 20.0));
	const fg_diff_entry *g = find(r.shrank, r.nshrank, "X");
	CHECK(g && g->status == FG_DIFF_GONE);
	CHECK(!find(r.grew, r.ngrew, "C") && !find(r.shrank, r.nshrank, "C"));     /* unchanged */
	CHECK(!find(r.grew, r.ngrew, "[w]") && !find(r.shrank, r.nshrank, "[w]")); /* matched across runs */
	CHECK(!find(r.shrank, r.nshrank, "start_thread"));                        /* ignored */
	/* Sorted by |delta|: A (-20), B (-20; ties by name), X (-10). */
	CHECK(r.nshrank == 3 && !strcmp(fg_names_get(names, r.shrank[0].name), "A") &&
	      !strcmp(fg_names_get(names, r.shrank[2].name), "X"));
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
	const fg_diff_entry *a = find(r.grew, r.ngrew, "A");
	CHECK(a && near(a->base, 46.0 / 4.0) && near(a->noise, 2.0) && near(a->delta, 60.0 - 11.5));
	fg_diff_result_free(&r);
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

static void test_svg(void)
{
	fg_error err;
	fg_diff_options o;
	fg_diff_options_init(&o);
	o.trees = true;
	fg_diff *d = NULL;
	CHECK(fg_diff_new(&d, names, &o, &err) == 0);
	add(d, FG_DIFF_BASE, "[t<1> & \"q\" tid=5];grow 10\n[t<1> & \"q\" tid=5];shrink 90\n");
	add(d, FG_DIFF_CANDIDATE, "[t<1> & \"q\" tid=6];grow 60\n[t<1> & \"q\" tid=6];shrink 40\nbad\xff 1\n");
	const fg_tree *base = fg_diff_tree(d, FG_DIFF_BASE), *cand = fg_diff_tree(d, FG_DIFF_CANDIDATE);
	CHECK(base && cand && fg_tree_node_at(cand, 0)->total == 101);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fg_svg_options so;
	fg_svg_options_init(&so);
	CHECK(so.width == 1200.0 && so.min_width == 0.1 && !so.base_widths);
	so.subtitle = "a & b";
	CHECK(fg_svg_write_diff(f, base, cand, names, &so, &err) == 0);
	fclose(f);
	CHECK(strstr(buf, "<title>[t&lt;1&gt; &amp; &quot;q&quot;]\n") != NULL);
	CHECK(strstr(buf, "a &amp; b") != NULL);
	CHECK(strstr(buf, "bad\xef\xbf\xbd") != NULL && !strstr(buf, "\xff"));
	CHECK(strstr(buf, "new in the candidate") != NULL);
	/* grow: 10% -> 59.41%: saturated red; shrink: blue. */
	CHECK(strstr(buf, "<title>grow\ninclusive: base 10.00% \xe2\x86\x92 candidate 59.41% (+49.41 points)") != NULL);
	CHECK(strstr(buf, "fill=\"rgb(255,0,0)\"") != NULL && strstr(buf, "fill=\"rgb(0,63,255)\"") != NULL);
	CHECK(strstr(buf, "<script><![CDATA[") != NULL && !strstr(buf, "xlink:href") && !strstr(buf, "https:"));
	free(buf);
	fg_diff_free(d);
}

int main(void)
{
	fg_error err;
	if (fg_names_new(&names, &err))
		return 1;
	test_basic();
	test_pooling_and_noise();
	test_self_and_ignore();
	test_peers();
	test_svg();
	fg_names_free(names);
	return check_status("test_diff");
}
