/* fgbisect hotfiles: hot frames → source files → last commit and date,
 * changed in the window (good, bad] or not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "history.h"

static const char usage_text[] =
	"usage: fgbisect hotfiles [--repo DIR] [--good REV] [--bad REV] [--ignore-revs FILE]\n"
	"                         [--no-blame-ignore-revs] [--json] --frame NAME [--frame NAME…]\n"
	"\n"
	"Maps frames (Java method frames as async-profiler writes them, slashed or dotted)\n"
	"to their source files in the tree of --bad and tells, for each file, the last\n"
	"commit that changed it (the one `git log -1 -- PATH` names), the last one that is\n"
	"not a bulk commit, and whether it changed in the window (good, bad].\n"
	"\n"
	"  --repo DIR            the repository (default: the current directory)\n"
	"  --bad REV             the slow revision (default HEAD)\n"
	"  --good REV            the fast revision; without it there is no window\n"
	"  --frame NAME          a frame or a slashed class name; repeatable\n"
	"  --ignore-revs FILE    commits to skip for the last meaningful commit (git blame's\n"
	"                        format: one full id per line, # comments); the repository's\n"
	"                        .git-blame-ignore-revs is read too unless\n"
	"  --no-blame-ignore-revs\n"
	"  --json                one JSON object on stdout\n"
	"\n"
	"Frames without a file in the repository (native code, libraries, generated\n"
	"sources) are listed as not in repository.  The form with two profiles\n"
	"(hotfiles BASE CANDIDATE) is not available yet.\n";

static void json_commit_fields(const char *prefix, const fg_history_commit *c)
{
	printf(",\"%s_commit\":", prefix);
	if (c)
		cli_json_string(stdout, c->id);
	else
		fputs("null", stdout);
	printf(",\"%s_date\":", prefix);
	if (c)
		cli_json_string(stdout, c->date);
	else
		fputs("null", stdout);
	printf(",\"%s_subject\":", prefix);
	if (c)
		cli_json_string(stdout, c->subject);
	else
		fputs("null", stdout);
}

static void print_json(const fg_history *h, const fg_history_result *r)
{
	fputs("{\"repo\":", stdout);
	cli_json_string(stdout, fg_history_repo_path(h));
	fputs(",\"good\":", stdout);
	if (fg_history_good_id(h))
		cli_json_string(stdout, fg_history_good_id(h));
	else
		fputs("null", stdout);
	fputs(",\"bad\":", stdout);
	cli_json_string(stdout, fg_history_bad_id(h));
	printf(",\"shallow\":%s,\"files\":[", fg_history_is_shallow(h) ? "true" : "false");
	for (size_t i = 0; i < fg_history_result_count(r); i++) {
		const fg_history_entry *e = fg_history_result_entry(r, i);
		fputs(i ? ",{\"frame\":" : "{\"frame\":", stdout);
		cli_json_string(stdout, e->frame);
		fputs(",\"class\":", stdout);
		if (e->class_path)
			cli_json_string(stdout, e->class_path);
		else
			fputs("null", stdout);
		fputs(",\"path\":", stdout);
		if (e->path)
			cli_json_string(stdout, e->path);
		else
			fputs("null", stdout);
		printf(",\"candidates\":%zu", e->candidates);
		json_commit_fields("last", e->last);
		json_commit_fields("last_meaningful", e->last_meaningful);
		if (e->path)
			printf(",\"last_commit_ignored\":%s,\"shallow_boundary\":%s", e->last_ignored ? "true" : "false",
			       e->last_shallow || e->meaningful_shallow ? "true" : "false");
		else
			fputs(",\"reason\":\"not in repository\"", stdout);
		fputs(",\"changed_in_window\":", stdout);
		if (e->changed_in_window < 0 || !e->path)
			fputs(e->changed_in_window < 0 ? "null" : "false", stdout);
		else
			fputs(e->changed_in_window ? "true" : "false", stdout);
		fputs(",\"window_commits\":[", stdout);
		for (size_t k = 0; k < e->window_count; k++) {
			const fg_history_commit *c = e->window[k];
			fputs(k ? ",{\"commit\":" : "{\"commit\":", stdout);
			cli_json_string(stdout, c->id);
			fputs(",\"date\":", stdout);
			cli_json_string(stdout, c->date);
			fputs(",\"subject\":", stdout);
			cli_json_string(stdout, c->subject);
			putchar('}');
		}
		fputs("]}", stdout);
	}
	fputs("]}\n", stdout);
}

static void print_commit_line(const char *label, const fg_history_commit *c, const char *note)
{
	printf("    %-11s %.12s  %s  %s%s\n", label, c->id, c->date, c->subject, note);
}

static void print_text(const fg_history *h, const fg_history_result *r)
{
	const char *good = fg_history_good_id(h);
	printf("repository %s\nbad  %s\n", fg_history_repo_path(h), fg_history_bad_id(h));
	if (good)
		printf("good %s\n", good);
	const char *prev_frame = NULL;
	for (size_t i = 0; i < fg_history_result_count(r); i++) {
		const fg_history_entry *e = fg_history_result_entry(r, i);
		if (!prev_frame || prev_frame != e->frame) {
			printf("\n%s\n", e->frame);
			prev_frame = e->frame;
		}
		if (!e->path) {
			printf("  not in repository%s%s%s\n", e->class_path ? " (class " : " (not a Java frame)",
			       e->class_path ? e->class_path : "", e->class_path ? ")" : "");
			continue;
		}
		printf("  %s%s\n", e->path, e->candidates > 1 ? "  (one of several modules holding the class)" : "");
		print_commit_line("last", e->last, e->last_shallow ? "  [shallow boundary: may be older]" : "");
		if (e->last_meaningful != e->last)
			print_commit_line("meaningful", e->last_meaningful,
					  e->meaningful_shallow ? "  [shallow boundary: may be older]" : "");
		else if (e->last_ignored)
			printf("    meaningful  none older (the file starts in an ignored commit)\n");
		if (e->changed_in_window < 0)
			continue;
		if (!e->changed_in_window) {
			printf("    window      unchanged\n");
			continue;
		}
		printf("    window      changed by %zu commit%s:\n", e->window_count, e->window_count == 1 ? "" : "s");
		for (size_t k = 0; k < e->window_count; k++)
			printf("                %.12s  %s  %s\n", e->window[k]->id, e->window[k]->date, e->window[k]->subject);
	}
}

/* --opt VALUE or --opt=VALUE; advances *i past a separate value. */
static int option_value(const char **out, int argc, char **argv, int *i, const char *name)
{
	const char *arg = argv[*i];
	size_t n = strlen(name);
	if (strncmp(arg, name, n))
		return 0;
	if (arg[n] == '=') {
		*out = arg + n + 1;
		return 1;
	}
	if (arg[n] != '\0')
		return 0;
	if (*i + 1 >= argc)
		return -1;
	*out = argv[++*i];
	return 1;
}

int cmd_hotfiles(int argc, char **argv)
{
	fg_history_options opts;
	fg_history_options_init(&opts);
	const char *repo = ".";
	bool json = false;
	const char **frames = calloc((size_t)argc, sizeof(char *));
	size_t nframes = 0;
	int npositional = 0;
	if (!frames) {
		fputs("fgbisect: out of memory\n", stderr);
		return 3;
	}

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = NULL;
		int got;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_text, stdout);
			free(frames);
			return 0;
		}
		if (!strcmp(a, "--json")) {
			json = true;
			continue;
		}
		if (!strcmp(a, "--no-blame-ignore-revs")) {
			opts.use_repo_ignore_revs = false;
			continue;
		}
		if ((got = option_value(&v, argc, argv, &i, "--repo")) ||
		    (got = option_value(&opts.good, argc, argv, &i, "--good")) ||
		    (got = option_value(&opts.bad, argc, argv, &i, "--bad")) ||
		    (got = option_value(&opts.ignore_revs_file, argc, argv, &i, "--ignore-revs")) ||
		    (got = option_value(&frames[nframes], argc, argv, &i, "--frame"))) {
			if (got < 0) {
				free(frames);
				return cli_usage_error("hotfiles", "option '%s' needs a value", a);
			}
			if (!strncmp(a, "--repo", 6))
				repo = v;
			else if (!strncmp(a, "--frame", 7))
				nframes++;
			continue;
		}
		if (a[0] == '-' && a[1] != '\0') {
			free(frames);
			return cli_usage_error("hotfiles", "unknown option '%s'", a);
		}
		npositional++;
	}
	if (npositional) {
		free(frames);
		if (nframes)
			return cli_usage_error("hotfiles", "give --frame or two profiles, not both");
		return cli_usage_error("hotfiles", "the profile form (BASE CANDIDATE) is not available yet; use --frame");
	}
	if (!nframes) {
		free(frames);
		return cli_usage_error("hotfiles", "no --frame given");
	}
	if (opts.good && !*opts.good) {
		free(frames);
		return cli_usage_error("hotfiles", "--good needs a revision");
	}
	if (opts.bad && !*opts.bad) {
		free(frames);
		return cli_usage_error("hotfiles", "--bad needs a revision");
	}

	fg_error err;
	fg_error_clear(&err);
	fg_history *h = NULL;
	fg_history_result *r = NULL;
	int status = 0;
	if (fg_history_open(&h, repo, &opts, &err) < 0 ||
	    fg_history_query(&r, h, (const char *const *)frames, nframes, &err) < 0) {
		status = cli_report_error(&err, json);
		goto out;
	}
	for (size_t i = 0; i < fg_history_result_count(r); i++) {
		const fg_history_entry *e = fg_history_result_entry(r, i);
		if (e->last_shallow || e->meaningful_shallow)
			cli_warn("%s: the history walk reached the shallow clone's boundary; the commit may be older "
				 "(git fetch --unshallow)", e->path);
	}
	if (json)
		print_json(h, r);
	else
		print_text(h, r);
out:
	fg_history_result_free(r);
	fg_history_free(h);
	free(frames);
	return status;
}
