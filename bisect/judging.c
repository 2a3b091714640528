#include "bisect/judging.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "net/url.h"

struct fg_judging {
	fg_repo *repo;
	fg_runs *runs;
	fg_runs_selection *sel;
	fg_verdict_judge *judge;
	fg_verdict_source source;
	bool fixed;            /* a --profile with no placeholder: one file for every commit */
};

void fg_judging_options_init(fg_judging_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	fg_verdict_options_init(&opts->verdict);
	fg_runs_filter_init(&opts->filter);
}

fg_repo *fg_judging_repo(const fg_judging *jd)
{
	return jd->repo;
}

const fg_runs_selection *fg_judging_selection(const fg_judging *jd)
{
	return jd->sel;
}

fg_verdict_judge *fg_judging_judge(const fg_judging *jd)
{
	return jd->judge;
}

const fg_verdict_source *fg_judging_source(const fg_judging *jd)
{
	return &jd->source;
}

void fg_judging_free(fg_judging *jd)
{
	if (!jd)
		return;
	fg_verdict_judge_free(jd->judge);
	fg_runs_selection_free(jd->sel);
	fg_runs_free(jd->runs);
	fg_repo_free(jd->repo);
	free(jd);
}

static int open_repo(fg_judging *jd, const fg_judging_options *o, fg_error *err)
{
	if (o->repo == FG_JUDGING_REPO_NONE && !o->repo_dir)
		return 0;
	int rc = fg_repo_open(&jd->repo, o->repo_dir, err);
	/* A fixed --profile is one file for every commit: it needs no
	 * repository. */
	if (rc == FG_ECONFIG && o->repo == FG_JUDGING_REPO_HEAD && jd->fixed) {
		fg_error_clear(err);
		return 0;
	}
	return rc;
}

static int load_runs(fg_judging *jd, const fg_judging_options *o, fg_error *err)
{
	char *configured = NULL;
	const char *location = o->runs;
	int rc = 0;
	if (!location && o->runs_env && o->runs_env[0])
		location = o->runs_env;
	if (!location && jd->repo) {
		if ((rc = fg_repo_config_path(&configured, jd->repo, "fgbisect.runs", err)))
			return rc;
		location = configured;
	}
	if (!location)
		return fg_error_set(err, FG_EUSAGE, NULL,
		                    "no profiles: give --runs, --profile or --capture, set FGBISECT_RUNS, "
		                    "or 'git config fgbisect.runs FILE'");
	char warning[256];
	rc = fg_verdict_load_runs(&jd->runs, location, o->fetch, warning, err);
	if (o->warning)
		memcpy(o->warning, warning, sizeof(warning));
	bool by_url = fg_url_is(location) && strncasecmp(location, "file:", 5) != 0;
	free(configured);
	if (!rc && by_url && !o->runs_local)
		rc = fg_runs_check_remote(jd->runs, err);
	if (!rc && by_url)
		o->fetch->header_origin = fg_runs_base(jd->runs); /* the URL, credentials removed */
	if (!rc)
		rc = fg_runs_select(&jd->sel, jd->runs, &o->filter, err);
	return rc;
}

int fg_judging_new(fg_judging **out, const fg_judging_options *opts, fg_error *err)
{
	*out = NULL;
	if (opts->warning)
		opts->warning[0] = '\0';
	fg_judging *jd = calloc(1, sizeof(*jd));
	if (!jd)
		return fg_error_oom(err, NULL);
	jd->source.profile = opts->profile;
	jd->source.capture = opts->capture;
	jd->source.capture_repeats = opts->capture_repeats;
	jd->source.on_capture = opts->on_capture;
	jd->source.capture_ctx = opts->capture_ctx;
	fg_capture_options_init(&jd->source.capture_opts);
	jd->source.capture_opts.timeout_s = opts->capture_timeout;
	jd->fixed = opts->profile && fg_verdict_profile_is_fixed(opts->profile);
	/* A --profile template's headers are for its own host only. */
	if (opts->profile && fg_url_is(opts->profile))
		opts->fetch->header_origin = opts->profile;
	int rc = open_repo(jd, opts, err);
	if (!rc && !opts->profile && !opts->capture) {
		rc = load_runs(jd, opts, err);
		jd->source.runs = jd->sel;
	}
	jd->source.capture_opts.dir = jd->repo ? fg_repo_workdir(jd->repo) : NULL;
	if (!rc)
		rc = fg_verdict_judge_new(&jd->judge, &opts->verdict, err);
	if (rc) {
		fg_judging_free(jd);
		return rc;
	}
	*out = jd;
	return 0;
}

/* The slow end of the bisection in progress (git bisect's terms fast/slow
 * as `fgbisect bisect` starts it, or good/bad), judged for its pattern
 * matches: FG_ECONFIG when its profiles were read and the pattern matches
 * nothing there either. */
static int check_pattern_at_slow_end(fg_judging *jd, fg_error *err)
{
	fg_repo_commit end;
	fg_error ignored;
	const char *ref = "refs/bisect/slow";
	if (fg_repo_commit_info(&end, jd->repo, ref, &ignored) &&
	    fg_repo_commit_info(&end, jd->repo, ref = "refs/bisect/bad", &ignored))
		return 0; /* no bisection: HEAD alone says nothing of a typo */
	fg_verdict *v = NULL;
	int rc = fg_verdict_judge_commit(&v, jd->judge, &jd->source, &end, err);
	if (!rc && v->nread && !v->matched) {
		char near[1024];
		size_t n = fg_verdict_judge_suggest(near, sizeof(near), jd->judge);
		rc = fg_error_set(err, FG_ECONFIG, NULL,
		                  "pattern '%s' matches no frame at HEAD nor at the slow end %.12s (%s): it is "
		                  "mistyped%s%s", fg_verdict_judge_pattern(jd->judge), end.id, ref,
		                  n ? "; frames near it: " : "", n ? near : "");
	}
	fg_verdict_free(v);
	return rc;
}

int fg_judging_judge_head(fg_verdict **out, fg_repo_commit *head, fg_judging *jd, bool check_pattern,
                          fg_error *err)
{
	*out = NULL;
	memset(head, 0, sizeof(*head));
	int rc = jd->repo ? fg_repo_head(head, jd->repo, err) : 0;
	fg_verdict *v = NULL;
	if (!rc)
		rc = fg_verdict_judge_commit(&v, jd->judge, &jd->source, head, err);
	if (!rc && jd->fixed && v->basis == FG_BASIS_INPUT)
		rc = fg_error_set(err, FG_ECONFIG, NULL, "--profile %s names one file for every commit, and it cannot "
		                  "be used (%s)", v->profiles[0].source, v->reason);
	/* A capture would need the slow end checked out (git bisect run owns
	 * the work tree): only profiles that can be fetched are looked at. */
	if (!rc && check_pattern && v->nread && !v->matched && jd->repo && !jd->source.capture && !jd->fixed)
		rc = check_pattern_at_slow_end(jd, err);
	if (rc) {
		fg_verdict_free(v);
		return rc;
	}
	*out = v;
	return 0;
}
