/* The network and git code, loaded on first use.
 *
 * src/net/fetch.c, src/metrics/prom.c, src/git/repo.c and src/git/history*.c are the only code
 * that calls libcurl, jansson or libgit2, and src/io/archive.c the only one
 * that calls libarchive (which maps ICU, libxml2 and libstdc++: 8 ms more
 * at every start).  They are built as a module of
 * their own, fgbisect-netgit.so, linked with those libraries, and are not
 * part of the program: the dynamic loader would otherwise map and relocate
 * libcurl, libgit2 and the ~40 libraries they pull in (TLS, HTTP/2, LDAP,
 * Kerberos, SSH ...) at every start, 9 of the 10 ms a small `share` takes.
 * Here each function of their headers that the rest of the program calls is
 * defined as a trampoline: the first call that needs the module (one that
 * opens, fetches or queries something) loads it and resolves every entry
 * once; later calls go straight through.  A command that reads local files
 * only (share, top, collapse, protocol, subsystems, diff without --repo or
 * --metrics) never loads it, and behaves exactly as it would with it.
 *
 * The module resolves what it uses of the rest of the library (errors, the
 * cleanup registry, the cache ...) from the program, which exports its
 * symbols (CMakeLists.txt: ENABLE_EXPORTS), so there is one copy of every
 * global.  It is found relative to the running binary, as the rules files
 * are: FG_NETGIT_RELDIR below the binary's folder (the installed layout,
 * ../lib/fgbisect from bin/), else beside it (the build tree); no path of
 * the build machine is compiled in.
 *
 * Kinds of trampoline:
 * - ENTRY: a function with an fg_error: it loads the module; when that
 *   fails it reports why (FG_EFETCH for network, FG_EGIT for git; FG_ENOMEM
 *   when it could not be mapped for lack of memory, which run mode skips
 *   where a missing or broken module aborts) as its own failure, with its
 *   out-parameters as its header promises on error.
 * - USE / USE_VOID: accessors and _free/_clear functions.  Their argument
 *   was made by the module, so it is loaded whenever they get a real one;
 *   before that (a NULL or zeroed object in a clean-up) they do nothing and
 *   answer 0 / NULL / false, and never load it.
 * A function of those headers called from outside the four files that is
 * missing below is an undefined reference at link time: add a line. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io/archive.h"
#include "net/fetch.h"
#include "net/github.h"
#include "git/history.h"
#include "metrics/prom.h"
#include "git/repo.h"

#ifndef FG_NETGIT_RELDIR
#define FG_NETGIT_RELDIR "../lib/fgbisect"
#endif
#define MODULE "fgbisect-netgit.so"

/* name, return type, parameters, arguments. */
#define FG_LAZY_ENTRIES(ENTRY, USE, USE_VOID)                                                                   \
	ENTRY(FG_EFETCH, int, fg_url_resolve, (char **out, const char *base, const char *location, fg_error *err), \
	      (out, base, location, err), *out = NULL)                                                                \
	USE_VOID(fg_fetch_result_clear, (fg_fetch_result *r), (r))                                                   \
	ENTRY(FG_EFETCH, int, fg_archive_open, (fg_archive **out, fg_input *in, fg_error *err), (out, in, err),       \
	      *out = NULL)                                                                                            \
	USE(int, fg_archive_next, (const char **name, fg_archive *a, fg_error *err), (name, a, err))                 \
	USE(int, fg_archive_member, (fg_input **out, fg_archive *a, const char *name, uint64_t max_size,              \
	    fg_error *err), (out, a, name, max_size, err))                                                            \
	USE_VOID(fg_archive_free, (fg_archive *a), (a))                                                              \
	ENTRY(FG_EFETCH, int, fg_github_list_artifacts, (fg_github_list **out, const char *repo,                      \
	      const fg_github_options *opts, fg_error *err), (out, repo, opts, err), *out = NULL)                     \
	USE(size_t, fg_github_count, (const fg_github_list *l), (l))                                                 \
	USE(const fg_github_artifact *, fg_github_at, (const fg_github_list *l, size_t i), (l, i))                   \
	USE(size_t, fg_github_runs, (const fg_github_list *l), (l))                                                  \
	USE(size_t, fg_github_expired, (const fg_github_list *l), (l))                                               \
	USE_VOID(fg_github_free, (fg_github_list *l), (l))                                                           \
	ENTRY(FG_EFETCH, int, fg_prom_new, (fg_prom **out, const char *base_url, const fg_prom_options *opts,         \
	      fg_error *err), (out, base_url, opts, err), *out = NULL)                                                \
	ENTRY(FG_EFETCH, int, fg_prom_query, (fg_prom_result *out, fg_prom *p, const char *query, double time,        \
	      fg_error *err), (out, p, query, time, err), memset(out, 0, sizeof(*out)))                               \
	ENTRY(FG_EFETCH, int, fg_prom_query_range, (fg_prom_result *out, fg_prom *p, const char *query, double start, \
	      double end, double step, fg_error *err), (out, p, query, start, end, step, err),                         \
	      memset(out, 0, sizeof(*out)))                                                                           \
	ENTRY(FG_EFETCH, int, fg_prom_decode, (fg_prom_result *out, const char *body, size_t len, long http_status,   \
	      const char *source, fg_error *err), (out, body, len, http_status, source, err),                         \
	      memset(out, 0, sizeof(*out)))                                                                           \
	USE_VOID(fg_prom_free, (fg_prom *p), (p))                                                                    \
	USE_VOID(fg_prom_result_clear, (fg_prom_result *r), (r))                                                     \
	USE(const char *, fg_prom_series_label, (const fg_prom_series *s, const char *name), (s, name))             \
	USE(const char *, fg_prom_shown_url, (const fg_prom *p), (p))                                                \
	ENTRY(FG_EGIT, int, fg_repo_open, (fg_repo **out, const char *start, fg_error *err), (out, start, err),      \
	      *out = NULL)                                                                                            \
	ENTRY(FG_EGIT, int, fg_repo_head, (fg_repo_commit *out, fg_repo *repo, fg_error *err), (out, repo, err),     \
	      memset(out, 0, sizeof(*out)))                                                                           \
	ENTRY(FG_EGIT, int, fg_repo_commit_info, (fg_repo_commit *out, fg_repo *repo, const char *rev, fg_error *err), \
	      (out, repo, rev, err), memset(out, 0, sizeof(*out)))                                                    \
	ENTRY(FG_EGIT, int, fg_repo_expand, (char out[41], fg_repo *repo, const char *abbrev, fg_error *err),        \
	      (out, repo, abbrev, err), out[0] = '\0')                                                                \
	ENTRY(FG_EGIT, int, fg_repo_config_path, (char **out, fg_repo *repo, const char *key, fg_error *err),        \
	      (out, repo, key, err), *out = NULL)                                                                     \
	ENTRY(FG_EGIT, int, fg_repo_log_range, (fg_repo_log **out, fg_repo *repo, const char *good, const char *bad,  \
	      const fg_repo_log_options *opts, fg_error *err), (out, repo, good, bad, opts, err), *out = NULL)         \
	USE_VOID(fg_repo_free, (fg_repo *repo), (repo))                                                              \
	USE(const char *, fg_repo_workdir, (const fg_repo *repo), (repo))                                            \
	USE(const fg_repo_commit *, fg_repo_log_at, (const fg_repo_log *log, size_t i), (log, i))                    \
	USE(size_t, fg_repo_log_count, (const fg_repo_log *log), (log))                                              \
	USE(bool, fg_repo_log_truncated, (const fg_repo_log *log), (log))                                            \
	USE_VOID(fg_repo_log_free, (fg_repo_log *log), (log))                                                        \
	ENTRY(FG_EGIT, int, fg_history_open, (fg_history **out, const char *dir, const fg_history_options *opts,     \
	      fg_error *err), (out, dir, opts, err), *out = NULL)                                                     \
	ENTRY(FG_EGIT, int, fg_history_open_repo, (fg_history **out, struct fg_repo *repo,                           \
	      const fg_history_options *opts, fg_error *err), (out, repo, opts, err), *out = NULL)                    \
	ENTRY(FG_EGIT, int, fg_history_query, (fg_history_result **out, fg_history *h, const char *const *frames,    \
	      size_t count, fg_error *err), (out, h, frames, count, err), *out = NULL)                                \
	ENTRY(FG_EGIT, int, fg_history_query_methods, (fg_history_result **out, fg_history *h,                       \
	      const char *const *frames, size_t count, fg_error *err), (out, h, frames, count, err), *out = NULL)     \
	ENTRY(FG_EGIT, int, fg_history_changed_paths, (char ***out, size_t *n, fg_history *h, fg_error *err),        \
	      (out, n, h, err), (*out = NULL, *n = 0))                                                                \
	USE_VOID(fg_history_free, (fg_history *h), (h))                                                              \
	USE_VOID(fg_history_paths_free, (char **paths, size_t n), (paths, n))                                        \
	USE(const char *, fg_history_repo_path, (const fg_history *h), (h))                                          \
	USE(const char *, fg_history_bad_id, (const fg_history *h), (h))                                             \
	USE(const char *, fg_history_good_id, (const fg_history *h), (h))                                            \
	USE(bool, fg_history_is_shallow, (const fg_history *h), (h))                                                 \
	USE(bool, fg_history_jvm_sources, (const fg_history *h), (h))                                                \
	USE(size_t, fg_history_warning_count, (const fg_history *h), (h))                                            \
	USE(const char *, fg_history_warning, (const fg_history *h, size_t i), (h, i))                              \
	USE(size_t, fg_history_result_count, (const fg_history_result *r), (r))                                      \
	USE(const fg_history_entry *, fg_history_result_entry, (const fg_history_result *r, size_t i), (r, i))       \
	USE_VOID(fg_history_result_filters, (size_t *skipped, size_t *maybe, const fg_history_result *r),            \
		 (skipped, maybe, r))                                                                                 \
	USE_VOID(fg_history_result_free, (fg_history_result *r), (r))

#define FIELD(name) __typeof__(name) *name;
#define ENTRY_FIELD(code, ret, name, params, args, on_error) FIELD(name)
#define USE_FIELD(ret, name, params, args) FIELD(name)
#define USE_VOID_FIELD(name, params, args) FIELD(name)
static struct {
	FIELD(fg_fetch)
	FIELD(fg_fetch_many)
	FG_LAZY_ENTRIES(ENTRY_FIELD, USE_FIELD, USE_VOID_FIELD)
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static atomic_bool loaded;
static char failure[512];
static int failure_code; /* FG_ENOMEM when the module could not be mapped for lack of memory, else 0 */

/* Whether dlopen's failure (its message) was for lack of memory: the
 * loader's messages for a mapping that failed, and too little address space
 * left for this probe, far larger than any segment of the module or its
 * libraries.  The same messages come from a module on a noexec mount, with
 * memory to spare: that is a configuration to fix, not a moment to wait
 * out (run mode: an abort, not a skip). */
static bool lack_of_memory(const char *message)
{
	static const char *const mapping[] = { "failed to map segment", "cannot map zero-fill pages",
					       "cannot allocate memory", "out of memory" };
	bool maps = false;
	for (size_t i = 0; i < sizeof(mapping) / sizeof(mapping[0]); i++)
		maps = maps || strcasestr(message, mapping[i]) != NULL;
	if (!maps)
		return false;
	size_t probe = (size_t)64 << 20;
	void *m = mmap(NULL, probe, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return true;
	munmap(m, probe);
	return false;
}

/* The module's path: FG_NETGIT_RELDIR below the binary's folder, else
 * beside the binary; NULL (and failure says why) when neither exists. */
static const char *module_path(char *buf, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash = n > 0 ? memrchr(exe, '/', (size_t)n) : NULL;
	if (!slash) {
		snprintf(failure, sizeof(failure), "cannot find " MODULE ": this program's path is unknown");
		return NULL;
	}
	*slash = '\0';
	static const char *const dirs[] = { "/" FG_NETGIT_RELDIR "/", "/" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(buf, size, "%s%s" MODULE, exe, dirs[i]);
		if (access(buf, R_OK) == 0)
			return buf;
	}
	snprintf(failure, sizeof(failure), "cannot find " MODULE " in %.300s/" FG_NETGIT_RELDIR " or beside the program",
		 exe);
	return NULL;
}

static void load(void)
{
	char path[PATH_MAX + 64];
	if (!module_path(path, sizeof(path)))
		return;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();
		if (lack_of_memory(why)) {
			failure_code = FG_ENOMEM;
			snprintf(failure, sizeof(failure), "out of memory: cannot load the network and git module: %.400s",
				 why);
		} else {
			snprintf(failure, sizeof(failure), "cannot load the network and git module: %.400s", why);
		}
		return;
	}
#define RESOLVE(name)                                                                                          \
	if (!(api.name = (__typeof__(name) *)dlsym(h, #name))) {                                               \
		snprintf(failure, sizeof(failure), MODULE " has no %s: it is not this program's module", #name); \
		return;                                                                                        \
	}
#define ENTRY_RESOLVE(code, ret, name, params, args, on_error) RESOLVE(name)
#define USE_RESOLVE(ret, name, params, args) RESOLVE(name)
#define USE_VOID_RESOLVE(name, params, args) RESOLVE(name)
	RESOLVE(fg_fetch)
	RESOLVE(fg_fetch_many)
	FG_LAZY_ENTRIES(ENTRY_RESOLVE, USE_RESOLVE, USE_VOID_RESOLVE)
	atomic_store(&loaded, true);
}

/* Loads the module once; false (and failure says why) when it cannot be. */
static bool need_module(void)
{
	pthread_once(&once, load);
	return atomic_load(&loaded);
}

#define ENTRY_DEFINE(code, ret, name, params, args, on_error)                  \
	ret name params                                                        \
	{                                                                      \
		if (!need_module()) {                                          \
			on_error;                                              \
			return fg_error_set(err, failure_code ? failure_code : code, NULL, "%s", failure); \
		}                                                              \
		return api.name args;                                          \
	}
#define USE_DEFINE(ret, name, params, args)                                    \
	ret name params                                                        \
	{                                                                      \
		return atomic_load(&loaded) ? api.name args : (ret)0;          \
	}
#define USE_VOID_DEFINE(name, params, args)                                    \
	void name params                                                       \
	{                                                                      \
		if (atomic_load(&loaded))                                      \
			api.name args;                                         \
	}
FG_LAZY_ENTRIES(ENTRY_DEFINE, USE_DEFINE, USE_VOID_DEFINE)

/* The two whose results carry the error themselves. */
int fg_fetch(fg_fetch_result *out, const char *source, const fg_fetch_options *opts, fg_error *err)
{
	if (need_module())
		return api.fg_fetch(out, source, opts, err);
	memset(out, 0, sizeof(*out));
	int code = failure_code ? failure_code : FG_EFETCH;
	fg_error_set(&out->err, code, NULL, "%s", failure);
	return fg_error_set(err, code, NULL, "%s", failure);
}

size_t fg_fetch_many(fg_fetch_result *out, const char *const *sources, size_t n, const fg_fetch_options *opts)
{
	if (need_module())
		return api.fg_fetch_many(out, sources, n, opts);
	for (size_t i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		fg_error_set(&out[i].err, failure_code ? failure_code : FG_EFETCH, NULL, "%s", failure);
	}
	return n;
}
