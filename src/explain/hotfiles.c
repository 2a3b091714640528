#include "explain/hotfiles.h"

#include <string.h>

int fg_hotfiles_look_up(fg_hotfiles *out, const char *dir, fg_repo *repo, const fg_history_options *opts, bool methods,
			const char *const *frames, size_t nframes, size_t hot_frames, const char *const *stack,
			size_t nstack, fg_error *err)
{
	memset(out, 0, sizeof(*out));
	int rc = repo ? fg_history_open_repo(&out->history, repo, opts, err) : fg_history_open(&out->history, dir, opts, err);
	if (!rc)
		rc = (methods ? fg_history_query_methods : fg_history_query)(&out->result, out->history, frames, nframes,
									       err);
	/* Typed names none of which names a file of the repository decide
	 * nothing: they may be misspelt, not external. */
	bool resolved = !opts->typed_names;
	for (size_t i = 0; !rc && !resolved && i < fg_history_result_count(out->result); i++)
		resolved = fg_history_result_entry(out->result, i)->path != NULL;
	if (!rc && nframes && hot_frames && resolved && fg_history_good_id(out->history))
		rc = fg_decision_new(&out->decision, out->history, out->result, hot_frames, stack, nstack, err);
	return rc;
}

void fg_hotfiles_clear(fg_hotfiles *h)
{
	fg_decision_free(h->decision);
	fg_history_result_free(h->result);
	fg_history_free(h->history);
	memset(h, 0, sizeof(*h));
}

bool fg_hotfiles_shown(const fg_history_result *r, size_t i)
{
	const fg_history_entry *e = fg_history_result_entry(r, i);
	if (!e->path)
		return false;
	for (size_t k = 0; k < i; k++) {
		const char *path = fg_history_result_entry(r, k)->path;
		if (path && !strcmp(path, e->path))
			return false;
	}
	return true;
}
