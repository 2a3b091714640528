/* fgbisect share: the share of frame patterns in each profile. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "net/fetch.h"
#include "output/json_writer.h"
#include "model/names.h"
#include "analysis/share.h"
#include "base/stats.h"

/* Where a split page's second part starts (fg_read_options.split_permille).
 * share's visitor leaves the calling thread time to spare at the reader's
 * 23 %, while the second thread pays the kernel's zeroing of its record
 * pages as well as the reading: a later cut evens them in time, which
 * instruction counts do not show (the large fixture, 31 interleaved pairs
 * against 23 %: 0.91-0.93 x the wall time at 30 %, 0.89-0.91 x at 35 %,
 * 0.92 x at 42 %, 1.01 x at 50 %; top and protocol are fastest at 23 %). */
#define SHARE_SPLIT_PERMILLE 330

static const char description[] =
	"Prints, for each profile, the share of samples whose stack holds a frame\n"
	"matching each pattern (inclusive, a stack counted once), or whose leaf\n"
	"matches (--self), with its 95% Wilson interval.  A pattern is a case-\n"
	"sensitive substring of the raw or normalised frame name.\n"
	"PROFILE: any format of 'fgbisect --help' (HTML, collapsed, JFR, pprof, perf\n"
	"script, SVG), plain, gzip or in a zip/tar archive, a path, - for stdin, or a\n"
	"URL.  A profile that cannot be read is reported (with --json, as an error\n"
	"object in its place) and the others answered; the exit status is then the\n"
	"first such profile's error.\n";

struct result {
	const char *source;
	fg_profile_info info;
	uint64_t *samples; /* per pattern: inclusive or self */
	uint64_t matched;  /* patterns that matched a frame */
	int rc;
	fg_error err;
	char *warnings;    /* what reading it warned, printed in argument order */
	size_t warnings_len;
};

/* The profiles, read by one or more workers, each with its own names,
 * matcher and share (nothing shared but the next index). */
struct work {
	const char **patterns;
	size_t npatterns;
	const fg_match_options *mo;
	const struct cli_profile_options *po;
	bool self;
	struct result *results;
	size_t nprofiles;
	atomic_size_t next;
};

static void *worker(void *arg)
{
	struct work *w = arg;
	fg_error err;
	fg_names *names = NULL;
	fg_matcher *matcher = NULL;
	fg_share *share = NULL;
	int rc = fg_names_new(&names, &err);
	if (!rc)
		rc = fg_matcher_new(&matcher, w->patterns, w->npatterns, w->mo, &err);
	if (!rc)
		rc = fg_share_new(&share, matcher, names, &err);
	if (!rc && !w->self)
		fg_share_inclusive_only(share);
	/* Every profile is read: one that fails is reported with the others'
	 * answers. */
	for (size_t i; (i = atomic_fetch_add(&w->next, 1)) < w->nprofiles;) {
		struct result *r = &w->results[i];
		fg_error_clear(&r->err);
		if (rc) {
			/* Set-up failed: the first profile this worker takes reports it. */
			r->err = err;
			r->rc = rc;
		} else {
			fg_share_reset(share);
			FILE *sink = open_memstream(&r->warnings, &r->warnings_len);
			cli_warn_to(sink); /* out of memory: straight to stderr */
			r->rc = cli_read_profile(&r->info, r->source, names, w->po,
						 &(fg_visitor){ fg_share_frames, fg_share_stack, share, fg_share_stop, fg_share_inert }, &r->err);
			cli_warn_to(NULL);
			if (sink)
				fclose(sink);
		}
		for (size_t p = 0; !r->rc && p < w->npatterns; p++) {
			r->samples[p] = w->self ? fg_share_self(share, p) : fg_share_samples(share, p);
			if (fg_share_matched(share, p))
				r->matched |= UINT64_C(1) << p;
		}
	}
	fg_share_free(share);
	fg_matcher_free(matcher);
	fg_names_free(names);
	return NULL;
}

/* Reads every profile, with up to jobs threads (this one included). */
static void read_all(struct work *w, size_t jobs)
{
	pthread_t threads[64];
	size_t started = 0, asked = jobs;
	if (jobs > w->nprofiles)
		jobs = w->nprofiles;
	if (jobs > sizeof(threads) / sizeof(threads[0]) + 1)
		jobs = sizeof(threads) / sizeof(threads[0]) + 1;
	/* A fetch goes through libcurl and the cache: one at a time. */
	for (size_t i = 0; i < w->nprofiles && jobs > 1; i++)
		if (fg_url_is(w->results[i].source) || !strcmp(w->results[i].source, "-"))
			jobs = 1;
	/* A core left over for each profile read at a time: a large HTML page
	 * is read on two. */
	struct cli_profile_options po = *w->po;
	po.split = asked >= 2 * jobs;
	po.split_permille = SHARE_SPLIT_PERMILLE;
	w->po = &po;
	while (started + 1 < jobs && pthread_create(&threads[started], NULL, worker, w) == 0)
		started++;
	worker(w);
	for (size_t t = 0; t < started; t++)
		pthread_join(threads[t], NULL);
}

static void print_json(const struct result *results, size_t nprofiles, const char *const *patterns,
		       size_t npatterns, bool self)
{
	fg_json j;
	fg_json_init(&j, stdout);
	fg_json_object(&j);
	fg_json_member_string(&j, "kind", self ? "self" : "inclusive");
	fg_json_key(&j, "profiles");
	fg_json_array(&j);
	for (size_t i = 0; i < nprofiles; i++) {
		const struct result *r = &results[i];
		uint64_t total = r->info.total;
		if (r->rc) {
			/* A profile that could not be read: the design's error object. */
			cli_error_json(&j, &r->err);
			continue;
		}
		fg_json_object(&j);
		fg_json_member_string(&j, "source", cli_shown(r->source));
		fg_json_member_string(&j, "format", fg_format_name(r->info.format));
		fg_json_member_bool(&j, "gzip", r->info.gzip);
		fg_json_member_u64(&j, "total", total);
		cli_json_profile_fields(&j, &r->info);
		/* A Wilson interval is for sample counts; bytes or nanoseconds have none. */
		bool interval = fg_profile_counts_samples(&r->info);
		fg_json_key(&j, "matches");
		fg_json_array(&j);
		for (size_t p = 0; p < npatterns; p++) {
			fg_json_object(&j);
			fg_json_member_string(&j, "pattern", patterns[p]);
			fg_json_member_u64(&j, "samples", r->samples[p]);
			fg_json_member_fixed(&j, "share", fg_stats_percent(r->samples[p], total), 4);
			fg_json_key(&j, "ci95");
			if (interval) {
				double lo, hi;
				fg_stats_wilson95(&lo, &hi, r->samples[p], total);
				fg_json_array(&j);
				fg_json_fixed(&j, lo, 4);
				fg_json_fixed(&j, hi, 4);
				fg_json_end(&j);
			} else {
				fg_json_null(&j);
			}
			fg_json_end(&j);
		}
		fg_json_end(&j);
		fg_json_end(&j);
	}
	fg_json_end(&j);
	fg_json_end(&j);
}

static void print_text(const struct result *results, size_t nprofiles, const char *const *patterns,
		       size_t npatterns, bool self)
{
	for (size_t i = 0; i < nprofiles; i++) {
		const struct result *r = &results[i];
		uint64_t total = r->info.total;
		bool interval = fg_profile_counts_samples(&r->info);
		if (r->rc) {
			fflush(stdout); /* the answers before it first, on a terminal */
			cli_report_error(&r->err, false);
			continue;
		}
		cli_print_profile_line(r->source, &r->info);
		for (size_t p = 0; p < npatterns; p++) {
			double lo, hi, pct = fg_stats_percent(r->samples[p], total);
			if (!interval) {
				printf("  %-40s %10llu  %6.2f%%  (%s: no sample interval)%s\n", patterns[p],
				       (unsigned long long)r->samples[p], pct, fg_profile_unit(&r->info), self ? "  self" : "");
				continue;
			}
			fg_stats_wilson95(&lo, &hi, r->samples[p], total);
			printf("  %-40s %10llu  %6.2f%%  (95%% CI %.2f-%.2f%%)%s\n", patterns[p],
			       (unsigned long long)r->samples[p], pct, lo, hi, self ? "  self" : "");
		}
	}
}

/* The first profile that was read. */
static size_t first_read(const struct result *results, size_t n)
{
	size_t i = 0;
	while (i + 1 < n && results[i].rc)
		i++;
	return i;
}

int cmd_share(int argc, char **argv)
{
	struct cli_profile_options po = { 0 };
	fg_match_options mo = { 0 };
	bool self = false;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t jobs = cores > 0 ? (uint64_t)cores : 1;
	struct cli_list frames = { 0 };
	const struct cli_option table[] = {
		CLI_OPT_LIST('f', "frame", &frames, "PAT", "a frame pattern (repeatable)"),
		CLI_OPT_BOOL('E', "regex", &mo.regex, "patterns are POSIX extended regular expressions"),
		CLI_OPT_BOOL(0, "self", &self, "self share (the leaf matches) instead of inclusive"),
		CLI_OPT_U64('j', "jobs", &jobs, "N", 1, 4096,
			    "read N profiles at a time (default: one per core;\nprofiles given as URLs are read one at a time); with\ntwice as many as are read at once, a large HTML page\nor a JFR recording of several chunks is read on two\nthreads"),
		CLI_PROFILE_OPTIONS(&po),
		CLI_OPT_END(),
	};
	const struct cli_command_spec spec = {
		.name = "share", .synopsis = "--frame PAT [--frame PAT...] [--regex] [--self] [options] PROFILE...",
		.description = description, .options = table, .usage_status = FG_EXIT_USAGE,
	};
	struct cli_args args;
	int status = cli_parse(&spec, &args, argc, argv);
	if (status == CLI_PARSED && frames.n == 0)
		status = cli_spec_usage_error(&spec, &args, "give at least one --frame PATTERN");
	else if (status == CLI_PARSED && args.argc == 0)
		status = cli_spec_usage_error(&spec, &args, "give at least one PROFILE");
	if (status != CLI_PARSED) {
		cli_args_free(&args);
		return status;
	}
	status = 0;
	const char **patterns = frames.items;
	size_t npatterns = frames.n;
	mo.raw = po.raw;

	fg_error err;
	fg_error_clear(&err);
	size_t nprofiles = (size_t)args.argc;
	struct result *results = calloc(nprofiles, sizeof(*results));
	uint64_t *counts = calloc(nprofiles * npatterns, sizeof(*counts));
	uint64_t matched = 0;
	size_t nread = 0;
	int rc = !results || !counts ? fg_error_oom(&err, NULL) : 0;
	/* The patterns are checked once, before any profile is read. */
	fg_matcher *check = NULL;
	if (!rc)
		rc = fg_matcher_new(&check, patterns, npatterns, &mo, &err);
	fg_matcher_free(check);
	if (!rc) {
		struct work w = { .patterns = patterns, .npatterns = npatterns, .mo = &mo, .po = &po, .self = self,
				  .results = results, .nprofiles = nprofiles };
		for (size_t i = 0; i < nprofiles; i++) {
			results[i].source = args.argv[i];
			results[i].samples = counts + i * npatterns;
		}
		read_all(&w, (size_t)jobs);
		/* Each profile's warnings in the order given, as one thread would
		 * print them; the exit status is the first failing profile's; the
		 * others' answers are printed all the same. */
		for (size_t i = 0; i < nprofiles; i++) {
			if (results[i].warnings_len)
				fwrite(results[i].warnings, 1, results[i].warnings_len, stderr);
			if (results[i].rc && !status)
				status = fg_error_exit_status(&results[i].err);
			nread += !results[i].rc;
			matched |= results[i].matched;
		}
	}
	if (rc) {
		status = cli_report_error(&err, po.json);
		goto out;
	}
	if (nread == 0) {
		/* No answer at all: the errors, the first as the JSON output. */
		for (size_t i = 0; i < nprofiles; i++)
			cli_report_error(&results[i].err, po.json && i == 0);
		goto out;
	}
	for (size_t p = 0; p < npatterns; p++)
		if (!(matched >> p & 1))
			cli_warn_unmatched(patterns[p], args.argv[first_read(results, nprofiles)], &po);

	if (po.json)
		print_json(results, nprofiles, patterns, npatterns, self);
	else
		print_text(results, nprofiles, patterns, npatterns, self);
out:
	for (size_t i = 0; results && i < nprofiles; i++)
		free(results[i].warnings);
	free(results);
	free(counts);
	cli_args_free(&args);
	return status;
}
