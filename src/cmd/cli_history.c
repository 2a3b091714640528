#include "cli_history.h"

#include <string.h>

#include "cli.h"

int cli_history_look_up(struct cli_history *out, const char *repo, const fg_history_options *opts, bool methods,
			const char *const *frames, size_t nframes, size_t hot_frames, const char *const *stack,
			size_t nstack, fg_error *err)
{
	memset(out, 0, sizeof(*out));
	int rc = fg_history_open(&out->history, repo, opts, err);
	if (!rc)
		rc = (methods ? fg_history_query_methods : fg_history_query)(&out->result, out->history, frames, nframes,
									       err);
	for (size_t i = 0; !rc && i < fg_history_result_count(out->result); i++) {
		const fg_history_entry *e = fg_history_result_entry(out->result, i);
		if (e->last_shallow || e->meaningful_shallow)
			cli_warn("%s: the history walk reached the shallow clone's boundary; the commit may be older "
				 "(git fetch --unshallow)", e->path);
	}
	if (!rc && nframes && fg_history_good_id(out->history))
		rc = fg_decision_new(&out->decision, out->history, out->result, hot_frames, stack, nstack, err);
	return rc;
}

void cli_history_clear(struct cli_history *hist)
{
	fg_decision_free(hist->decision);
	fg_history_result_free(hist->result);
	fg_history_free(hist->history);
	memset(hist, 0, sizeof(*hist));
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

static void json_commit_fields(FILE *out, const char *prefix, const fg_history_commit *c)
{
	fprintf(out, ",\"%s_commit\":", prefix);
	cli_json_string_or_null(out, c ? c->id : NULL);
	fprintf(out, ",\"%s_date\":", prefix);
	cli_json_string_or_null(out, c ? c->date : NULL);
	fprintf(out, ",\"%s_subject\":", prefix);
	cli_json_string_or_null(out, c ? c->subject : NULL);
}

static void json_commits(FILE *out, const fg_history_commit *const *c, size_t n)
{
	fputc('[', out);
	for (size_t k = 0; k < n; k++) {
		fputs(k ? ",{\"commit\":" : "{\"commit\":", out);
		cli_json_string(out, c[k]->id);
		fputs(",\"date\":", out);
		cli_json_string(out, c[k]->date);
		fputs(",\"subject\":", out);
		cli_json_string(out, c[k]->subject);
		fputc('}', out);
	}
	fputc(']', out);
}

static const char *method_status_name(fg_method_status st)
{
	return st == FG_METHOD_FOUND ? "found" : st == FG_METHOD_NOT_FOUND ? "not found" : "unresolved";
}

static void method_change_json(FILE *out, const fg_history_method_change *c)
{
	fputs("{\"commit\":", out);
	cli_json_string(out, c->commit->id);
	fputs(",\"date\":", out);
	cli_json_string(out, c->commit->date);
	fputs(",\"subject\":", out);
	cli_json_string(out, c->commit->subject);
	fprintf(out, ",\"added\":%u,\"removed\":%u}", (unsigned)c->added, (unsigned)c->removed);
}

/* ,"method":{…},"method_changed_in_window":…,"method_commits":[…] */
static void method_json(FILE *out, const fg_history_method *m)
{
	fputs(",\"method\":{\"status\":", out);
	cli_json_string(out, method_status_name(m->status));
	fputs(",\"reason\":", out);
	cli_json_string_or_null(out, m->reason);
	fputs(",\"lines\":[", out);
	for (size_t i = 0; i < m->nranges; i++)
		fprintf(out, "%s[%u,%u]", i ? "," : "", (unsigned)m->ranges[i].first, (unsigned)m->ranges[i].last);
	fprintf(out, "],\"overloads\":%zu,\"generated\":%s,\"last\":", m->overloads, m->generated ? "true" : "false");
	if (m->last)
		method_change_json(out, m->last);
	else
		fputs("null", out);
	fputs(",\"last_meaningful\":", out);
	if (m->last_meaningful)
		method_change_json(out, m->last_meaningful);
	else
		fputs("null", out);
	fprintf(out, ",\"last_ignored\":%s,\"shallow_boundary\":%s}", m->last_ignored ? "true" : "false",
		m->last_shallow || m->meaningful_shallow ? "true" : "false");
	fputs(",\"method_changed_in_window\":", out);
	fputs(m->changed_in_window < 0 ? "null" : m->changed_in_window ? "true" : "false", out);
	fputs(",\"method_commits\":[", out);
	for (size_t k = 0; k < m->window_count; k++) {
		if (k)
			fputc(',', out);
		method_change_json(out, &m->window[k]);
	}
	fputc(']', out);
}

void cli_history_entry_json(FILE *out, const fg_history_entry *e)
{
	fputs("{\"frame\":", out);
	cli_json_string(out, e->frame);
	fputs(",\"class\":", out);
	cli_json_string_or_null(out, e->class_path);
	fputs(",\"path\":", out);
	cli_json_string_or_null(out, e->path);
	fprintf(out, ",\"candidates\":%zu", e->candidates);
	json_commit_fields(out, "last", e->last);
	json_commit_fields(out, "last_meaningful", e->last_meaningful);
	if (e->path)
		fprintf(out, ",\"last_commit_ignored\":%s,\"shallow_boundary\":%s", e->last_ignored ? "true" : "false",
			e->last_shallow || e->meaningful_shallow ? "true" : "false");
	else
		fputs(",\"reason\":\"not in repository\"", out);
	fputs(",\"changed_in_window\":", out);
	if (e->changed_in_window < 0)
		fputs("null", out);
	else
		fputs(e->path && e->changed_in_window ? "true" : "false", out);
	fputs(",\"window_commits\":", out);
	json_commits(out, e->window, e->window_count);
	if (e->method)
		method_json(out, e->method);
	fputc('}', out);
}

static void commit_line(FILE *out, const char *indent, const char *label, const fg_history_commit *c,
			const char *note)
{
	fprintf(out, "%s  %-11s %.12s  %s  %s%s\n", indent, label, c->id, c->date, c->subject, note);
}

static void method_change_text(FILE *out, const char *indent, const char *label, const fg_history_method_change *c)
{
	fprintf(out, "%s  %-11s %.12s  %s  %s  (+%u -%u in the method)\n", indent, label, c->commit->id,
		c->commit->date, c->commit->subject, (unsigned)c->added, (unsigned)c->removed);
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
	if (!e->path) {
		fprintf(out, "%snot in repository%s%s%s\n", indent, e->class_path ? " (class " : " (not a Java frame)",
			e->class_path ? e->class_path : "", e->class_path ? ")" : "");
		return;
	}
	fprintf(out, "%s%s%s\n", indent, e->path,
		e->candidates > 1 ? "  (one of several modules holding the class)" : "");
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
					e->window[k]->date, e->window[k]->subject);
		}
	}
	if (e->method)
		method_text(out, e->method, indent);
}

void cli_history_json_members(FILE *out, const fg_history *h)
{
	fputs("\"repo\":", out);
	cli_json_string(out, fg_history_repo_path(h));
	fputs(",\"good\":", out);
	cli_json_string_or_null(out, fg_history_good_id(h));
	fputs(",\"bad\":", out);
	cli_json_string(out, fg_history_bad_id(h));
	fprintf(out, ",\"shallow\":%s", fg_history_is_shallow(h) ? "true" : "false");
}

void cli_decision_json(FILE *out, const fg_decision *d)
{
	if (!d) {
		fputs("null", out);
		return;
	}
	fputs("{\"kind\":", out);
	cli_json_string(out, fg_decision_kind_name(fg_decision_get_kind(d)));
	fputs(",\"suspects\":[", out);
	for (size_t i = 0; i < fg_decision_suspect_count(d); i++) {
		const fg_decision_suspect *s = fg_decision_suspect_at(d, i);
		fputs(i ? ",{\"commit\":" : "{\"commit\":", out);
		cli_json_string(out, s->commit->id);
		fputs(",\"date\":", out);
		cli_json_string(out, s->commit->date);
		fputs(",\"subject\":", out);
		cli_json_string(out, s->commit->subject);
		fputs(",\"paths\":[", out);
		for (size_t k = 0; k < s->npaths; k++) {
			if (k)
				fputc(',', out);
			cli_json_string(out, s->paths[k]);
		}
		fputs("]}", out);
	}
	fputs("],\"callers\":[", out);
	for (size_t i = 0; i < fg_decision_caller_count(d); i++) {
		const fg_decision_caller *c = fg_decision_caller_at(d, i);
		fputs(i ? ",{\"path\":" : "{\"path\":", out);
		cli_json_string(out, c->path);
		fputs(",\"class\":", out);
		cli_json_string(out, c->class_path);
		fputs(",\"commits\":", out);
		json_commits(out, c->commits, c->ncommits);
		fputc('}', out);
	}
	fprintf(out, "],\"callers_known\":%s,\"build_files\":[", fg_decision_callers_known(d) ? "true" : "false");
	for (size_t i = 0; i < fg_decision_build_file_count(d); i++) {
		if (i)
			fputc(',', out);
		cli_json_string(out, fg_decision_build_file_at(d, i));
	}
	fputs("],\"method_kind\":", out);
	int mv = fg_decision_method_verdict(d);
	cli_json_string_or_null(out, mv < 0 ? NULL : fg_decision_method_kind_name((fg_decision_method_kind)mv));
	fputs(",\"methods\":[", out);
	for (size_t i = 0; i < fg_decision_method_count(d); i++) {
		const fg_decision_method *m = fg_decision_method_at(d, i);
		fputs(i ? ",{\"frame\":" : "{\"frame\":", out);
		cli_json_string(out, m->entry->frame);
		fputs(",\"path\":", out);
		cli_json_string(out, m->entry->path);
		fputs(",\"kind\":", out);
		cli_json_string(out, fg_decision_method_kind_name(m->kind));
		fputs(",\"reason\":", out);
		cli_json_string_or_null(out, m->entry->method->reason);
		fputs(",\"commits\":[", out);
		for (size_t k = 0; k < m->entry->method->window_count; k++) {
			if (k)
				fputc(',', out);
			method_change_json(out, &m->entry->method->window[k]);
		}
		fputs("]}", out);
	}
	fputs("],\"text\":", out);
	cli_json_string(out, fg_decision_text(d));
	fputc('}', out);
}

void cli_decision_text(FILE *out, const fg_decision *d)
{
	if (d)
		fprintf(out, "\n%s", fg_decision_text(d));
}
