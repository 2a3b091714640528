#include "explain/decision.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git/javaclass.h"

struct fg_decision {
	fg_decision_kind kind;
	fg_decision_suspect *suspects;
	size_t nsuspects;
	fg_decision_caller *callers;
	size_t ncallers;
	bool callers_known;
	const char **build_files; /* point into changed */
	size_t nbuild_files;
	char **changed;           /* the window's changed paths */
	size_t nchanged;
	char **classes;           /* the classes on the grown stacks, sorted, distinct */
	size_t nclasses;
	fg_history_result *caller_history;
	fg_decision_method *methods;
	size_t nmethods;
	int method_verdict;       /* fg_decision_method_kind, -1 none */
	bool native;              /* fg_decision_native */
};

const char *fg_decision_kind_name(fg_decision_kind kind)
{
	return kind == FG_DECISION_CHANGED ? "changed" : kind == FG_DECISION_UNCHANGED ? "unchanged" : "external";
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

int fg_decision_stack_names(uint32_t **out, size_t *n, const fg_tree *tree, const uint32_t *grown, size_t ngrown,
			    fg_error *err)
{
	*out = NULL;
	*n = 0;
	uint32_t size = fg_tree_size(tree);
	uint32_t *want = ngrown ? malloc(ngrown * sizeof(*want)) : NULL;
	uint8_t *marked = calloc(size ? size : 1, 1);
	uint32_t *names = NULL;
	size_t count = 0, cap = 0;
	int rc = (ngrown && !want) || !marked ? fg_error_oom(err, NULL) : 0;
	if (!rc && ngrown) {
		memcpy(want, grown, ngrown * sizeof(*want));
		qsort(want, ngrown, sizeof(*want), u32_cmp);
	}
	/* Each node marks its ancestors up to the first one already marked:
	 * that one's ancestors are marked already, so every node is marked at
	 * most once however many grown frames lie below it. */
	for (uint32_t i = 1; !rc && ngrown && i < size; i++) {
		const fg_tree_node *node = fg_tree_node_at(tree, i);
		if (!bsearch(&node->name, want, ngrown, sizeof(*want), u32_cmp))
			continue;
		for (uint32_t p = node->parent; !rc && p != FG_TREE_NONE && p != 0 && !marked[p];
		     p = fg_tree_node_at(tree, p)->parent) {
			marked[p] = 1;
			if (count == cap) {
				size_t ncap = cap ? 2 * cap : 64;
				uint32_t *g = realloc(names, ncap * sizeof(*names));
				if (!g) {
					rc = fg_error_oom(err, NULL);
					break;
				}
				names = g;
				cap = ncap;
			}
			names[count++] = fg_tree_node_at(tree, p)->name;
		}
	}
	free(want);
	free(marked);
	if (rc) {
		free(names);
		return rc;
	}
	if (count)
		qsort(names, count, sizeof(*names), u32_cmp);
	size_t m = 0;
	for (size_t i = 0; i < count; i++)
		if (!m || names[m - 1] != names[i])
			names[m++] = names[i];
	*out = names;
	*n = m;
	return 0;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t k = strlen(suffix);
	return len >= k && !memcmp(s + len - k, suffix, k);
}

bool fg_decision_is_build_file(const char *path)
{
	static const char *const names[] = { "pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle",
					     "settings.gradle.kts", "gradle.properties", "gradle.lockfile",
					     /* native builds: make, autotools, CMake, Meson, Bazel, Cargo, Go, Conan, vcpkg */
					     "Makefile", "GNUmakefile", "makefile", "Makefile.am", "configure.ac", "configure.in",
					     "CMakeLists.txt", "meson.build", "meson_options.txt", "BUILD", "BUILD.bazel",
					     "WORKSPACE", "MODULE.bazel", "Cargo.toml", "build.rs", "rust-toolchain",
					     "rust-toolchain.toml", "go.mod", "go.sum", "conanfile.txt", "conanfile.py",
					     "vcpkg.json", ".gitmodules" };
	static const char *const suffixes[] = { ".pom", ".bom", ".versions.toml", ".lockfile", ".lock", ".cmake", ".mk",
						".bzl" };
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strlen(base);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(base, names[i]))
			return true;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (len > strlen(suffixes[i]) && ends_with(base, len, suffixes[i]))
			return true;
	/* Maven's jvm.config and maven.config change how every module builds. */
	return !strncmp(path, ".mvn/", 5) || strstr(path, "/.mvn/") != NULL;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The distinct classes of the stack frames, sorted. */
static int collect_classes(fg_decision *d, const char *const *frames, size_t n, fg_error *err)
{
	if (n && !(d->classes = calloc(n, sizeof(*d->classes))))
		return fg_error_oom(err, NULL);
	for (size_t i = 0; i < n; i++) {
		char cls[FG_JAVACLASS_MAX_FRAME];
		int rc = fg_javaclass_from_frame(cls, sizeof(cls), frames[i], err);
		if (rc < 0)
			return rc;
		if (rc == 1 && !(d->classes[d->nclasses++] = strdup(cls)))
			return fg_error_oom(err, NULL);
	}
	if (d->nclasses)
		qsort(d->classes, d->nclasses, sizeof(*d->classes), str_cmp);
	size_t m = 0;
	for (size_t i = 0; i < d->nclasses; i++) {
		if (m && !strcmp(d->classes[m - 1], d->classes[i]))
			free(d->classes[i]);
		else
			d->classes[m++] = d->classes[i];
	}
	d->nclasses = m;
	return 0;
}

/* The class on the grown stacks whose source path is `path`, or NULL: a
 * class path is a '/'-bounded suffix of the path without its extension (a
 * Kotlin file facade `FooKt` lives in `Foo.kt`). */
static const char *stack_class_of(const fg_decision *d, const char *path)
{
	static const char *const exts[] = { ".java", ".kt", ".scala" };
	size_t len = strlen(path), body = 0;
	bool kotlin = false;
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]) && !body; i++)
		if (len > strlen(exts[i]) && ends_with(path, len, exts[i])) {
			body = len - strlen(exts[i]);
			kotlin = i == 1;
		}
	if (!body || body >= FG_JAVACLASS_MAX_FRAME - 2)
		return NULL;
	char key[FG_JAVACLASS_MAX_FRAME];
	for (int facade = 0; facade <= (int)kotlin; facade++) {
		memcpy(key, path, body);
		memcpy(key + body, facade ? "Kt" : "", facade ? 3 : 1);
		for (size_t p = 0; p < body; p++) {
			if (p && key[p - 1] != '/')
				continue;
			const char *k = key + p;
			char **hit = bsearch(&k, d->classes, d->nclasses, sizeof(*d->classes), str_cmp);
			if (hit)
				return *hit;
		}
	}
	return NULL;
}

static bool is_hot_path(const fg_history_result *hot, size_t nhot_entries, const char *path)
{
	for (size_t i = 0; i < nhot_entries; i++) {
		const fg_history_entry *e = fg_history_result_entry(hot, i);
		if (e->path && !strcmp(e->path, path))
			return true;
	}
	return false;
}

static int add_suspect(fg_decision *d, const fg_history_commit *c, const char *path, fg_error *err)
{
	fg_decision_suspect *s = NULL;
	for (size_t i = 0; i < d->nsuspects && !s; i++)
		if (!strcmp(d->suspects[i].commit->id, c->id))
			s = &d->suspects[i];
	if (!s) {
		fg_decision_suspect *g = realloc(d->suspects, (d->nsuspects + 1) * sizeof(*g));
		if (!g)
			return fg_error_oom(err, NULL);
		d->suspects = g;
		s = &d->suspects[d->nsuspects++];
		*s = (fg_decision_suspect){ .commit = c };
	}
	for (size_t i = 0; i < s->npaths; i++)
		if (!strcmp(s->paths[i], path))
			return 0;
	const char **p = realloc((void *)s->paths, (s->npaths + 1) * sizeof(*p));
	if (!p)
		return fg_error_oom(err, NULL);
	p[s->npaths++] = path;
	s->paths = p;
	return 0;
}

/* The changed files of classes on the grown stacks, and the window commits
 * that changed them: one more history query, for those classes only. */
static int find_callers(fg_decision *d, fg_history *h, const fg_history_result *hot, size_t nhot_entries,
			fg_error *err)
{
	const char **paths = calloc(d->nchanged ? d->nchanged : 1, sizeof(*paths));
	const char **classes = calloc(d->nchanged ? d->nchanged : 1, sizeof(*classes));
	size_t n = 0;
	int rc = !paths || !classes ? fg_error_oom(err, NULL) : 0;
	for (size_t i = 0; !rc && i < d->nchanged; i++) {
		const char *cls = stack_class_of(d, d->changed[i]);
		if (cls && !is_hot_path(hot, nhot_entries, d->changed[i])) {
			paths[n] = d->changed[i];
			classes[n++] = cls;
		}
	}
	if (!rc && n)
		rc = fg_history_query(&d->caller_history, h, classes, n, err);
	if (!rc && n && !(d->callers = calloc(n, sizeof(*d->callers))))
		rc = fg_error_oom(err, NULL);
	for (size_t i = 0; !rc && i < n; i++) {
		fg_decision_caller *c = &d->callers[d->ncallers++];
		c->path = paths[i];
		c->class_path = classes[i];
		/* The class may have a file in other modules too: keep the one
		 * that changed (a deleted file has no entry, and no commits). */
		for (size_t k = 0; k < fg_history_result_count(d->caller_history); k++) {
			const fg_history_entry *e = fg_history_result_entry(d->caller_history, k);
			if (e->path && !strcmp(e->path, c->path)) {
				c->commits = e->window;
				c->ncommits = e->window_count;
				break;
			}
		}
	}
	free(paths);
	free(classes);
	return rc;
}

const char *fg_decision_method_kind_name(fg_decision_method_kind kind)
{
	return kind == FG_DECISION_METHOD_CHANGED ? "changed" : kind == FG_DECISION_METHOD_UNCHANGED ? "unchanged" :
											 "unknown";
}

/* The hot entries whose file changed, each with its method's answer. */
static int collect_methods(fg_decision *d, const fg_history_result *hot, size_t nhot, fg_error *err)
{
	d->method_verdict = -1;
	for (size_t i = 0; i < nhot; i++) {
		const fg_history_entry *e = fg_history_result_entry(hot, i);
		if (!e->path || e->changed_in_window != 1 || !e->method)
			continue;
		fg_decision_method *g = realloc(d->methods, (d->nmethods + 1) * sizeof(*g));
		if (!g)
			return fg_error_oom(err, NULL);
		d->methods = g;
		fg_decision_method_kind k = e->method->changed_in_window == 1 ? FG_DECISION_METHOD_CHANGED :
					    e->method->changed_in_window == 0 ? FG_DECISION_METHOD_UNCHANGED :
										FG_DECISION_METHOD_UNKNOWN;
		d->methods[d->nmethods++] = (fg_decision_method){ e, k };
	}
	/* One changed method makes it code that got slower; "unchanged" is
	 * claimed only when every method was told. */
	bool changed = false, unknown = false;
	for (size_t i = 0; i < d->nmethods; i++) {
		changed |= d->methods[i].kind == FG_DECISION_METHOD_CHANGED;
		unknown |= d->methods[i].kind == FG_DECISION_METHOD_UNKNOWN;
	}
	if (d->nmethods)
		d->method_verdict = changed ? FG_DECISION_METHOD_CHANGED :
				    unknown ? FG_DECISION_METHOD_UNKNOWN : FG_DECISION_METHOD_UNCHANGED;
	return 0;
}

/* A native profile: hot frames name native functions (src/git/native.h),
 * none a Java class; and one of them is the repository's, or the repository
 * is no JVM project (a JVM's own frames name C++ functions too). */
static bool hot_native(fg_history *h, const fg_history_result *hot, size_t nhot)
{
	bool function = false, file = false;
	for (size_t i = 0; i < nhot; i++) {
		const fg_history_entry *e = fg_history_result_entry(hot, i);
		if (e->class_path)
			return false;
		function |= e->function != NULL;
		file |= e->function && e->path;
	}
	return function && (file || !fg_history_jvm_sources(h));
}

/* A native profile's build files are those of the hot files' modules: in
 * a directory that holds a hot file or one above it (the root's too).
 * Without a hot file in the repository, every one. */
static bool in_hot_module(const fg_history_result *hot, size_t nhot, const char *build)
{
	const char *slash = strrchr(build, '/');
	size_t dir = slash ? (size_t)(slash - build) + 1 : 0;
	bool any = false;
	for (size_t i = 0; i < nhot; i++) {
		const char *p = fg_history_result_entry(hot, i)->path;
		any |= p != NULL;
		if (p && !strncmp(p, build, dir))
			return true;
	}
	return !any;
}

int fg_decision_new(fg_decision **out, fg_history *h, const fg_history_result *hot, size_t hot_frames,
		    const char *const *stack_frames, size_t nstack, fg_error *err)
{
	*out = NULL;
	if (!fg_history_good_id(h))
		return fg_error_set(err, FG_EUSAGE, NULL, "a decision needs a window: give the good revision");
	fg_decision *d = calloc(1, sizeof(*d));
	if (!d)
		return fg_error_oom(err, NULL);
	d->callers_known = stack_frames != NULL;

	/* The hot entries: those of the first hot_frames frames (entries of
	 * one frame share its frame string). */
	size_t nhot = 0, frames_seen = 0;
	const char *prev = NULL;
	for (; nhot < fg_history_result_count(hot); nhot++) {
		const fg_history_entry *e = fg_history_result_entry(hot, nhot);
		if (e->frame != prev && frames_seen++ == hot_frames)
			break;
		prev = e->frame;
	}
	bool any_file = false, any_changed = false;
	int rc = 0;
	for (size_t i = 0; i < nhot && !rc; i++) {
		const fg_history_entry *e = fg_history_result_entry(hot, i);
		any_file |= e->path != NULL;
		if (!e->path || e->changed_in_window != 1)
			continue;
		any_changed = true;
		for (size_t k = 0; k < e->window_count && !rc; k++)
			rc = add_suspect(d, e->window[k], e->path, err);
	}
	d->kind = any_changed ? FG_DECISION_CHANGED : any_file ? FG_DECISION_UNCHANGED : FG_DECISION_EXTERNAL;
	if (!rc)
		rc = collect_methods(d, hot, nhot, err);

	if (!rc)
		rc = fg_history_changed_paths(&d->changed, &d->nchanged, h, err);
	if (!rc && d->nchanged && !(d->build_files = calloc(d->nchanged, sizeof(*d->build_files))))
		rc = fg_error_oom(err, NULL);
	d->native = hot_native(h, hot, nhot);
	for (size_t i = 0; !rc && i < d->nchanged; i++)
		if (fg_decision_is_build_file(d->changed[i]) && (!d->native || in_hot_module(hot, nhot, d->changed[i])))
			d->build_files[d->nbuild_files++] = d->changed[i];
	if (!rc)
		rc = collect_classes(d, stack_frames, stack_frames ? nstack : 0, err);
	if (!rc && d->nclasses)
		rc = find_callers(d, h, hot, nhot, err);
	if (rc) {
		fg_decision_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void fg_decision_free(fg_decision *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nsuspects; i++)
		free((void *)d->suspects[i].paths);
	free(d->suspects);
	free(d->callers);
	free(d->build_files);
	fg_history_paths_free(d->changed, d->nchanged);
	for (size_t i = 0; i < d->nclasses; i++)
		free(d->classes[i]);
	free(d->classes);
	fg_history_result_free(d->caller_history);
	free(d->methods);
	free(d);
}

fg_decision_kind fg_decision_get_kind(const fg_decision *d) { return d->kind; }
size_t fg_decision_suspect_count(const fg_decision *d) { return d->nsuspects; }
const fg_decision_suspect *fg_decision_suspect_at(const fg_decision *d, size_t i) { return &d->suspects[i]; }
size_t fg_decision_caller_count(const fg_decision *d) { return d->ncallers; }
const fg_decision_caller *fg_decision_caller_at(const fg_decision *d, size_t i) { return &d->callers[i]; }
bool fg_decision_callers_known(const fg_decision *d) { return d->callers_known; }
size_t fg_decision_build_file_count(const fg_decision *d) { return d->nbuild_files; }
const char *fg_decision_build_file_at(const fg_decision *d, size_t i) { return d->build_files[i]; }
size_t fg_decision_method_count(const fg_decision *d) { return d->nmethods; }
const fg_decision_method *fg_decision_method_at(const fg_decision *d, size_t i) { return &d->methods[i]; }
int fg_decision_method_verdict(const fg_decision *d) { return d->method_verdict; }
bool fg_decision_native(const fg_decision *d) { return d->native; }
