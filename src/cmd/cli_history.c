#include "cmd/cli_history.h"

#include "bisect/search_report.h"
#include "cmd/cli_bisect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cli.h"

static void history_progress(void *ctx, const char *what, size_t commits)
{
	cli_history_progress *p = ctx;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!p->shown && (now.tv_sec - p->start.tv_sec) * 1000 + (now.tv_nsec - p->start.tv_nsec) / 1000000 < 1000)
		return;
	p->shown = true;
	fprintf(stderr, "\r\033[Khistory: %zu commits read (%s)", commits, what);
}

void cli_history_progress_begin(cli_history_progress *p, fg_history_progress_fn *fn, void **ctx)
{
	p->shown = false;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	bool tty = isatty(STDERR_FILENO);
	*fn = tty ? history_progress : NULL;
	*ctx = tty ? p : NULL;
}

void cli_history_progress_end(const cli_history_progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
}

int cli_history_look_up(fg_hotfiles *out, const char *repo, const fg_history_options *opts, bool methods,
			const char *const *frames, size_t nframes, size_t hot_frames, const char *const *stack,
			size_t nstack, fg_error *err)
{
	fg_history_options o = *opts;
	cli_history_progress p;
	cli_history_progress_begin(&p, &o.progress, &o.progress_ctx);
	int rc = fg_hotfiles_look_up(out, repo, NULL, &o, methods, frames, nframes, hot_frames, stack, nstack, err);
	cli_history_progress_end(&p);
	cli_history_warn(out->history, out->result);
	return rc;
}

void cli_history_warn(const fg_history *h, const fg_history_result *r)
{
	for (size_t i = 0; i < fg_history_warning_count(h); i++)
		cli_warn("%s", fg_history_warning(h, i));
	for (size_t i = 0; r && i < fg_history_result_count(r); i++) {
		const fg_history_entry *e = fg_history_result_entry(r, i);
		if (e->last_shallow || e->meaningful_shallow)
			cli_warn("%s: the history walk reached the shallow clone's boundary; the commit may be older "
				 "(git fetch --unshallow)", e->path);
	}
}

void cli_history_next_frame(const fg_history_result *r, size_t *first, size_t *end)
{
	size_t i = *end, n = fg_history_result_count(r);
	*first = i;
	/* The entries of one frame share its frame string. */
	while (i < n && fg_history_result_entry(r, i)->frame == fg_history_result_entry(r, *first)->frame)
		i++;
	*end = i;
}

static void json_commit_fields(fg_json *j, const char *prefix, const fg_history_commit *c)
{
	char key[64];
	snprintf(key, sizeof(key), "%s_commit", prefix);
	fg_json_member_string(j, key, c ? c->id : NULL);
	snprintf(key, sizeof(key), "%s_date", prefix);
	fg_json_member_string(j, key, c ? c->date : NULL);
	snprintf(key, sizeof(key), "%s_subject", prefix);
	fg_json_member_string(j, key, c ? c->subject : NULL);
}

static void json_commits(fg_json *j, const fg_history_commit *const *c, size_t n)
{
	fg_json_array(j);
	for (size_t k = 0; k < n; k++) {
		fg_json_object(j);
		fg_json_member_string(j, "commit", c[k]->id);
		fg_json_member_string(j, "date", c[k]->date);
		fg_json_member_string(j, "subject", c[k]->subject);
		fg_json_end(j);
	}
	fg_json_end(j);
}

static const char *method_status_name(fg_method_status st)
{
	return st == FG_METHOD_FOUND ? "found" : st == FG_METHOD_NOT_FOUND ? "not found" : "unresolved";
}

static void method_change_json(fg_json *j, const fg_history_method_change *c)
{
	fg_json_object(j);
	fg_json_member_string(j, "commit", c->commit->id);
	fg_json_member_string(j, "date", c->commit->date);
	fg_json_member_string(j, "subject", c->commit->subject);
	fg_json_member_u64(j, "added", c->added);
	fg_json_member_u64(j, "removed", c->removed);
	fg_json_end(j);
}

/* "method":{…},"method_changed_in_window":…,"method_commits":[…] */
static void method_json(fg_json *j, const fg_history_method *m)
{
	fg_json_key(j, "method");
	fg_json_object(j);
	fg_json_member_string(j, "status", method_status_name(m->status));
	fg_json_member_string(j, "reason", m->reason);
	fg_json_key(j, "lines");
	fg_json_array(j);
	for (size_t i = 0; i < m->nranges; i++) {
		fg_json_array(j);
		fg_json_u64(j, m->ranges[i].first);
		fg_json_u64(j, m->ranges[i].last);
		fg_json_end(j);
	}
	fg_json_end(j);
	fg_json_member_u64(j, "overloads", m->overloads);
	fg_json_member_bool(j, "generated", m->generated);
	fg_json_key(j, "last");
	if (m->last)
		method_change_json(j, m->last);
	else
		fg_json_null(j);
	fg_json_key(j, "last_meaningful");
	if (m->last_meaningful)
		method_change_json(j, m->last_meaningful);
	else
		fg_json_null(j);
	fg_json_member_bool(j, "last_ignored", m->last_ignored);
	fg_json_member_bool(j, "shallow_boundary", m->last_shallow || m->meaningful_shallow);
	fg_json_end(j);
	fg_json_key(j, "method_changed_in_window");
	if (m->changed_in_window < 0)
		fg_json_null(j);
	else
		fg_json_bool(j, m->changed_in_window);
	fg_json_key(j, "method_commits");
	fg_json_array(j);
	for (size_t k = 0; k < m->window_count; k++)
		method_change_json(j, &m->window[k]);
	fg_json_end(j);
}

void cli_history_entry_json(fg_json *j, const fg_history_entry *e)
{
	fg_json_object(j);
	fg_json_member_string(j, "frame", e->frame);
	fg_json_member_string(j, "class", e->class_path);
	if (e->function)
		fg_json_member_string(j, "function", e->function);
	fg_json_member_string(j, "path", e->path);
	fg_json_member_u64(j, "candidates", e->candidates);
	json_commit_fields(j, "last", e->last);
	json_commit_fields(j, "last_meaningful", e->last_meaningful);
	if (e->path) {
		fg_json_member_bool(j, "last_commit_ignored", e->last_ignored);
		fg_json_member_bool(j, "shallow_boundary", e->last_shallow || e->meaningful_shallow);
	} else {
		fg_json_member_string(j, "reason", "not in repository");
	}
	fg_json_key(j, "changed_in_window");
	if (e->changed_in_window < 0)
		fg_json_null(j);
	else
		fg_json_bool(j, e->path && e->changed_in_window);
	fg_json_key(j, "window_commits");
	json_commits(j, e->window, e->window_count);
	if (e->method)
		method_json(j, e->method);
	fg_json_end(j);
}

static void commit_line(FILE *out, const char *indent, const char *label, const fg_history_commit *c,
			const char *note)
{
	fprintf(out, "%s  %-11s %.12s  %s  %s%s\n", indent, label, c->id, c->date, cli_text(c->subject), note);
}

static void method_change_text(FILE *out, const char *indent, const char *label, const fg_history_method_change *c)
{
	fprintf(out, "%s  %-11s %.12s  %s  %s  (+%u -%u in the method)\n", indent, label, c->commit->id,
		c->commit->date, cli_text(c->commit->subject), (unsigned)c->added, (unsigned)c->removed);
}

/* The method's lines, its last change and the window's changes to it. */
static void method_text(FILE *out, const fg_history_method *m, const char *indent)
{
	if (m->status != FG_METHOD_FOUND) {
		fprintf(out, "%s  method      %s: %s\n", indent, method_status_name(m->status),
			m->reason ? m->reason : "");
		return;
	}
	fprintf(out, "%s  method      line%s", indent, m->nranges == 1 && m->ranges[0].first == m->ranges[0].last ? "" : "s");
	for (size_t i = 0; i < m->nranges; i++)
		fprintf(out, "%s %u-%u", i ? "," : "", (unsigned)m->ranges[i].first, (unsigned)m->ranges[i].last);
	if (m->overloads > 1)
		fprintf(out, " (%zu overloads)", m->overloads);
	if (m->reason)
		fprintf(out, " (%s)", m->reason);
	if (m->generated)
		fputs(" [generated source]", out);
	fputc('\n', out);
	if (m->last)
		method_change_text(out, indent, "m. last", m->last);
	if (m->last_meaningful != m->last)
		method_change_text(out, indent, "m. meaningful", m->last_meaningful);
	if (m->changed_in_window < 0)
		return;
	if (!m->changed_in_window) {
		fprintf(out, "%s  m. window   unchanged\n", indent);
		return;
	}
	for (size_t k = 0; k < m->window_count; k++)
		method_change_text(out, indent, k ? "" : "m. window", &m->window[k]);
}

void cli_history_entry_text(FILE *out, const fg_history_entry *e, const char *indent)
{
	if (!e->path && e->function) {
		fprintf(out, "%snot in repository (function %s: no definition in the C, C++, Rust or Go files of the "
			"tree)\n", indent, cli_text(e->function));
		return;
	}
	if (!e->path) {
		fprintf(out, "%snot in repository%s%s%s\n", indent, e->class_path ? " (class " : " (not a Java frame)",
			e->class_path ? cli_text(e->class_path) : "", e->class_path ? ")" : "");
		return;
	}
	fprintf(out, "%s%s%s\n", indent, cli_text(e->path),
		e->candidates <= 1 ? "" : e->function ? "  (one of several files defining the function)" :
		"  (one of several modules holding the class)");
	commit_line(out, indent, "last", e->last, e->last_shallow ? "  [shallow boundary: may be older]" : "");
	if (e->last_meaningful != e->last)
		commit_line(out, indent, "meaningful", e->last_meaningful,
			    e->meaningful_shallow ? "  [shallow boundary: may be older]" : "");
	else if (e->last_ignored)
		fprintf(out, "%s  meaningful  none older (the file starts in an ignored commit)\n", indent);
	if (e->changed_in_window >= 0) {
		if (!e->changed_in_window) {
			fprintf(out, "%s  window      unchanged\n", indent);
		} else {
			fprintf(out, "%s  window      changed by %zu commit%s:\n", indent, e->window_count,
				e->window_count == 1 ? "" : "s");
			for (size_t k = 0; k < e->window_count; k++)
				fprintf(out, "%s              %.12s  %s  %s\n", indent, e->window[k]->id,
					e->window[k]->date, cli_text(e->window[k]->subject));
		}
	}
	if (e->method)
		method_text(out, e->method, indent);
}

void cli_history_json_members(fg_json *j, const fg_history *h)
{
	fg_json_member_string(j, "repo", fg_history_repo_path(h));
	fg_json_member_string(j, "good", fg_history_good_id(h));
	fg_json_member_string(j, "bad", fg_history_bad_id(h));
	fg_json_member_bool(j, "shallow", fg_history_is_shallow(h));
}

static void short_commit(FILE *f, const fg_history_commit *c)
{
	fprintf(f, "%.12s %.10s %s\n", c->id, c->date, cli_text(c->subject));
}

/* The decision in words: lines ending in '\n', the first one "decision: …",
 * the evidence indented below it. */
/* One line per hot method whose file changed: changed in which commits, or
 * not (then the callers or the configuration), or not known and why. */
static void method_words(FILE *f, const fg_decision *d)
{
	size_t n = fg_decision_method_count(d);
	if (!n)
		return;
	fputs("  the hot methods:\n", f);
	for (size_t i = 0; i < n; i++) {
		const fg_decision_method *dm = fg_decision_method_at(d, i);
		const fg_history_method *m = dm->entry->method;
		fprintf(f, "    %s\n", cli_text(dm->entry->frame));
		switch (dm->kind) {
		case FG_DECISION_METHOD_CHANGED:
			fprintf(f, "      the hot method changed in commit%s", m->window_count == 1 ? "" : "s");
			for (size_t k = 0; k < m->window_count; k++)
				fprintf(f, "%s %.12s (+%u -%u)", k ? "," : "", m->window[k].commit->id,
					(unsigned)m->window[k].added, (unsigned)m->window[k].removed);
			fputc('\n', f);
			break;
		case FG_DECISION_METHOD_UNCHANGED:
			fputs("      the file changed but not this method: look at the callers or the configuration", f);
			if (m->last)
				fprintf(f, " (the method last changed in %.12s %.10s)", m->last->commit->id, m->last->commit->date);
			fputc('\n', f);
			break;
		case FG_DECISION_METHOD_UNKNOWN:
			fprintf(f, "      whether the method changed is not known: %s\n", cli_text(m->reason));
			break;
		}
	}
	if (fg_decision_method_verdict(d) == FG_DECISION_METHOD_UNCHANGED)
		fputs(fg_decision_native(d) ?
		      "  none of the hot functions changed: their code is called more often, the build changed "
		      "(compiler, flags, dependencies) or the configuration changed\n" :
		      "  none of the hot methods changed: their code is called more often, or the configuration "
		      "changed\n", f);
}

static void decision_words(FILE *f, const fg_decision *d)
{
	fg_decision_kind kind = fg_decision_get_kind(d);
	size_t nsuspects = fg_decision_suspect_count(d), ncallers = fg_decision_caller_count(d);
	size_t nbuild = fg_decision_build_file_count(d);
	switch (kind) {
	case FG_DECISION_CHANGED:
		fprintf(f, "decision: a hot file changed in the window; suspect commit%s:\n", nsuspects == 1 ? "" : "s");
		for (size_t i = 0; i < nsuspects; i++) {
			const fg_decision_suspect *s = fg_decision_suspect_at(d, i);
			fputs("  ", f);
			short_commit(f, s->commit);
			for (size_t k = 0; k < s->npaths; k++)
				fprintf(f, "      %s\n", cli_text(s->paths[k]));
		}
		method_words(f, d);
		break;
	case FG_DECISION_UNCHANGED:
		fputs(fg_decision_native(d) ?
		      "decision: the hot files did not change in the window: their code is called more often, the build "
		      "changed (compiler, flags, dependencies) or the configuration changed\n" :
		      "decision: the hot files did not change in the window: their code is called more often, or the "
		      "configuration changed\n", f);
		break;
	case FG_DECISION_EXTERNAL:
		fputs(fg_decision_native(d) ?
		      "decision: no hot frame maps to a source file of the repository (a library, the runtime or the "
		      "kernel): look at the build files changed in the window (compiler, flags, dependencies)\n" :
		      "decision: no hot frame maps to a source file of the repository (JVM, native code or a "
		      "dependency): look at the build files changed in the window\n", f);
		break;
	}
	/* Callers and build files are the evidence when the hot code did not
	 * change: the files, or (one level finer) the methods. */
	if (kind == FG_DECISION_CHANGED && fg_decision_method_verdict(d) != FG_DECISION_METHOD_UNCHANGED)
		return;
	if (ncallers) {
		fputs("  changed in the window, classes on the grown stacks (the callers):\n", f);
		for (size_t i = 0; i < ncallers; i++) {
			const fg_decision_caller *c = fg_decision_caller_at(d, i);
			fprintf(f, "    %s\n", cli_text(c->path));
			for (size_t k = 0; k < c->ncommits; k++) {
				fputs("      ", f);
				short_commit(f, c->commits[k]);
			}
		}
	} else if (fg_decision_callers_known(d)) {
		fputs("  no file of a class on the grown stacks changed in the window either\n", f);
	} else {
		fputs("  (the callers are not known without profiles: give BASE and CANDIDATE to name them)\n", f);
	}
	if (nbuild) {
		fputs("  build files changed in the window:\n", f);
		for (size_t i = 0; i < nbuild; i++)
			fprintf(f, "    %s\n", cli_text(fg_decision_build_file_at(d, i)));
	} else if (kind == FG_DECISION_EXTERNAL) {
		fputs(fg_decision_native(d) ?
		      "  no build file changed in the window: compare the compilers, build flags and library versions "
		      "of the two builds and the configuration of the two runs\n" :
		      "  no build file changed in the window: compare the JVM and the configuration of the two "
		      "runs\n", f);
	}
}

void cli_decision_json(fg_json *j, const fg_decision *d)
{
	if (!d) {
		fg_json_null(j);
		return;
	}
	fg_json_object(j);
	fg_json_member_string(j, "kind", fg_decision_kind_name(fg_decision_get_kind(d)));
	fg_json_member_bool(j, "native", fg_decision_native(d));
	fg_json_key(j, "suspects");
	fg_json_array(j);
	for (size_t i = 0; i < fg_decision_suspect_count(d); i++) {
		const fg_decision_suspect *s = fg_decision_suspect_at(d, i);
		fg_json_object(j);
		fg_json_member_string(j, "commit", s->commit->id);
		fg_json_member_string(j, "date", s->commit->date);
		fg_json_member_string(j, "subject", s->commit->subject);
		fg_json_key(j, "paths");
		fg_json_array(j);
		for (size_t k = 0; k < s->npaths; k++)
			fg_json_string(j, s->paths[k]);
		fg_json_end(j);
		fg_json_end(j);
	}
	fg_json_end(j);
	fg_json_key(j, "callers");
	fg_json_array(j);
	for (size_t i = 0; i < fg_decision_caller_count(d); i++) {
		const fg_decision_caller *c = fg_decision_caller_at(d, i);
		fg_json_object(j);
		fg_json_member_string(j, "path", c->path);
		fg_json_member_string(j, "class", c->class_path);
		fg_json_key(j, "commits");
		json_commits(j, c->commits, c->ncommits);
		fg_json_end(j);
	}
	fg_json_end(j);
	fg_json_member_bool(j, "callers_known", fg_decision_callers_known(d));
	fg_json_key(j, "build_files");
	fg_json_array(j);
	for (size_t i = 0; i < fg_decision_build_file_count(d); i++)
		fg_json_string(j, fg_decision_build_file_at(d, i));
	fg_json_end(j);
	int mv = fg_decision_method_verdict(d);
	fg_json_member_string(j, "method_kind",
			      mv < 0 ? NULL : fg_decision_method_kind_name((fg_decision_method_kind)mv));
	fg_json_key(j, "methods");
	fg_json_array(j);
	for (size_t i = 0; i < fg_decision_method_count(d); i++) {
		const fg_decision_method *m = fg_decision_method_at(d, i);
		fg_json_object(j);
		fg_json_member_string(j, "frame", m->entry->frame);
		fg_json_member_string(j, "path", m->entry->path);
		fg_json_member_string(j, "kind", fg_decision_method_kind_name(m->kind));
		fg_json_member_string(j, "reason", m->entry->method->reason);
		fg_json_key(j, "commits");
		fg_json_array(j);
		for (size_t k = 0; k < m->entry->method->window_count; k++)
			method_change_json(j, &m->entry->method->window[k]);
		fg_json_end(j);
		fg_json_end(j);
	}
	fg_json_end(j);
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	if (f) {
		decision_words(f, d);
		fclose(f);
	}
	fg_json_member_string(j, "text", text ? text : "");
	free(text);
	fg_json_end(j);
}

void cli_decision_text(FILE *out, const fg_decision *d)
{
	if (!d)
		return;
	fputc('\n', out);
	decision_words(out, d);
}

const char *cli_growers_no_decision(const fg_diff_result *r)
{
	return r->node_df ? NULL : fg_explain_no_decision_one_side;
}

void cli_growers_note_text(FILE *out, const fg_diff_result *r, size_t weighed)
{
	if (r->ngrew > weighed)
		fprintf(out, "\n%zu more frame%s grew beyond noise (--hot %zu took the first)\n", r->ngrew - weighed,
			r->ngrew - weighed == 1 ? "" : "s", weighed);
	if (!r->node_df)
		fprintf(out, "\ncaution: %s\n", fg_explain_not_separable);
}

void cli_growers_note_json(fg_json *j, const fg_diff_result *r, size_t weighed)
{
	fg_json_member_bool(j, "separable", r->node_df > 0);
	fg_json_member_u64(j, "not_looked_up", r->ngrew > weighed ? r->ngrew - weighed : 0);
}

void cli_explain_pattern_text(FILE *out, const fg_explain *e, const char *pattern, const fg_names *names)
{
	char headline[1024];
	fg_explain_headline(headline, sizeof(headline), e, pattern);
	fprintf(out, "\n%s\nits frames by class and method (%zu, * beyond noise: weighed by the decision):\n",
		cli_text(headline), e->ngroups_matched);
	for (size_t i = 0; i < e->ngroups; i++) {
		const fg_explain_group *g = &e->groups[i];
		fprintf(out, "  %s %+.2f points (%.2f%% \xe2\x86\x92 %.2f%%, noise %.2f)  %s\n", g->weighed ? "*" : " ",
			g->candidate - g->base, g->base, g->candidate, g->noise, cli_text(fg_names_get(names, g->frame)));
	}
	if (e->ngroups < e->ngroups_matched)
		fprintf(out, "  and %zu more\n", e->ngroups_matched - e->ngroups);
}

void cli_explain_text(FILE *out, const fg_explain *e, const char *pattern, const fg_names *names)
{
	if (pattern)
		cli_explain_pattern_text(out, e, pattern, names);
	const fg_history_result *hot = e->hot.result;
	size_t shown = 0;
	fprintf(out, "\nsource files of the frames %s:\n", pattern ? "of the pattern that grew and of those that grew most"
								  : "that grew most");
	for (size_t i = 0; hot && i < fg_history_result_count(hot); i++) {
		const fg_history_entry *en = fg_history_result_entry(hot, i);
		if (!fg_hotfiles_shown(hot, i))
			continue;
		shown++;
		fprintf(out, "  %s%s\n    last changed %.10s %.12s %s\n", cli_text(en->path),
			en->changed_in_window == 1 ? "  (changed in the window)" : "", en->last->date, en->last->id,
			cli_text(en->last->subject));
	}
	if (!shown)
		fprintf(out, "  (%s)\n", hot ? "none of them is a source file of the repository" : "no frame grew");
	cli_decision_text(out, e->hot.decision);
	if (e->no_decision)
		fprintf(out, "\nno decision: %s\n", e->no_decision);
	cli_growers_note_text(out, &e->result, e->growers.nframes);
}

void cli_explain_pattern_json(fg_json *j, const fg_explain *e, const char *pattern, const fg_names *names)
{
	fg_json_key(j, "pattern");
	if (!pattern) {
		fg_json_null(j);
		return;
	}
	fg_json_object(j);
	fg_json_member_string(j, "pattern", pattern);
	fg_json_member_fixed(j, "base", e->base, 4);
	fg_json_member_fixed(j, "candidate", e->candidate, 4);
	fg_json_member_fixed(j, "noise", e->noise, 4);
	fg_json_member_u64(j, "groups_matched", e->ngroups_matched);
	fg_json_key(j, "groups");
	fg_json_array(j);
	for (size_t i = 0; i < e->ngroups; i++) {
		const fg_explain_group *g = &e->groups[i];
		fg_json_object(j);
		fg_json_member_string(j, "frame", fg_names_get(names, g->frame));
		fg_json_member_fixed(j, "base", g->base, 4);
		fg_json_member_fixed(j, "candidate", g->candidate, 4);
		fg_json_member_fixed(j, "delta", g->candidate - g->base, 4);
		fg_json_member_fixed(j, "noise", g->noise, 4);
		fg_json_member_bool(j, "weighed", g->weighed);
		fg_json_end(j);
	}
	fg_json_end(j);
	fg_json_end(j);
}

void cli_explain_json(fg_json *j, const fg_explain *e, const char *pattern, const fg_names *names)
{
	cli_explain_pattern_json(j, e, pattern, names);
	fg_json_key(j, "hotfiles");
	fg_json_array(j);
	const fg_history_result *hot = e->hot.result;
	for (size_t i = 0; hot && i < fg_history_result_count(hot); i++) {
		const fg_history_entry *en = fg_history_result_entry(hot, i);
		if (!fg_hotfiles_shown(hot, i))
			continue;
		fg_json_object(j);
		fg_json_member_string(j, "frame", en->frame);
		fg_json_member_string(j, "path", en->path);
		fg_json_member_string(j, "last_commit", en->last->id);
		fg_json_member_string(j, "last_date", en->last->date);
		fg_json_member_bool(j, "changed_in_window", en->changed_in_window == 1);
		fg_json_end(j);
	}
	fg_json_end(j);
	fg_json_key(j, "decision");
	cli_decision_json(j, e->hot.decision);
	fg_json_member_string(j, "no_decision", e->no_decision);
	cli_growers_note_json(j, &e->result, e->growers.nframes);
}

int cli_search_report_options(fg_search_report_options *ro, char **decision, const char **input,
			      const struct cli_bisect_options *o, const fg_explain *e, fg_error *err)
{
	size_t len = 0;
	FILE *d = open_memstream(decision, &len);
	if (!d)
		return fg_error_oom(err, NULL);
	if (e)
		cli_decision_text(d, e->hot.decision);
	if (fclose(d))
		return fg_error_oom(err, NULL);
	*input = o->runs ? o->runs : o->profile ? o->profile : o->capture ? o->capture : getenv("FGBISECT_RUNS");
	fg_search_report_options_init(ro);
	ro->frame = o->frame;
	ro->regex = o->regex;
	ro->threshold = o->threshold;
	ro->decision = *decision;
	ro->explain = e;
	ro->inputs = input;
	ro->ninputs = *input != NULL;
	return 0;
}
