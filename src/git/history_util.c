#include "git/history_internal.h"

#include <stdio.h>

/* ---- small helpers ------------------------------------------------------- */

int fg_history_git_fail(fg_error *err, const char *source, const char *what)
{
	const git_error *e = git_error_last();
	const char *msg = e && e->message ? e->message : "libgit2 error";
	/* A partial clone (--filter) leaves objects out and libgit2 1.5 cannot
	 * fetch them on demand: say how to get them rather than just "not found". */
	bool missing = e && e->klass == GIT_ERROR_ODB && strstr(msg, "not found");
	return fg_error_set(err, FG_EGIT, source, "%s: %s%s", what, msg,
			    missing ? " (a partial clone? libgit2 cannot fetch the objects it left out: "
				      "clone with --filter=blob:none, which is enough, or without --filter)" : "");
}

/* Grows *arr (of elem bytes) so that it holds at least need elements. */
int fg_history_grow(void *arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 8;
	while (n < need)
		n *= 2;
	void *p = realloc(*(void **)arr, n * elem);
	if (!p)
		return -1;
	*(void **)arr = p;
	*cap = n;
	return 0;
}
