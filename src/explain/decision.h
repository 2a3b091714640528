/* fgbisect — the decision: why did the grown frames grow?
 *
 * zeebe.md §1: "if the hot file hasn't changed in the regression window,
 * it's being called more per record, or config changed."  Given the source
 * history of the hot frames (the top growers of a diff, or --frame) over a
 * window (good, bad], and the frames on the grown stacks, the decision is
 * one of
 *
 * - CHANGED: a hot file changed in the window; the suspects are the window
 *   commits that touched hot files (git log good..bad -- PATH);
 * - UNCHANGED: hot frames map to repository files but none changed: the code
 *   is called more often or the configuration changed; the callers are the
 *   files changed in the window whose classes appear on the grown stacks;
 * - EXTERNAL: no hot frame maps to a repository file (JVM, native code, a
 *   dependency such as a netty-bom bump): the build files changed in the
 *   window are what to read.
 *
 * Callers and build files are collected in every case (a JVM frame that grew
 * can still be called more by changed repository code).  The decision is
 * data plus its wording in one text; the library never prints. */
#ifndef FG_DECISION_H
#define FG_DECISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "git/history.h"
#include "model/tree.h"

typedef enum {
	FG_DECISION_CHANGED = 0,
	FG_DECISION_UNCHANGED,
	FG_DECISION_EXTERNAL,
} fg_decision_kind;

/* "changed", "unchanged", "external". */
const char *fg_decision_kind_name(fg_decision_kind kind);

/* The "grown stacks": the distinct names of the nodes of tree above a node
 * named one of grown (their callers, up to the root, the root excluded).  A
 * caller that is itself grown is listed too.  *out is a malloc'ed array of
 * *n name ids in increasing order (free()). */
int fg_decision_stack_names(uint32_t **out, size_t *n, const fg_tree *tree, const uint32_t *grown, size_t ngrown,
			    fg_error *err);

/* Whether a repository path is a build or dependency file: pom.xml, *.pom,
 * *.bom, build.gradle[.kts], settings.gradle[.kts], gradle.properties,
 * *.versions.toml, gradle.lockfile, *.lockfile, *.lock, .mvn/ config; and
 * of native builds Makefile (GNUmakefile, Makefile.am, *.mk), configure.ac,
 * CMakeLists.txt, *.cmake, meson.build, Bazel's BUILD, WORKSPACE, *.bzl,
 * Cargo.toml, build.rs, rust-toolchain, go.mod, go.sum, Conan and vcpkg
 * files, .gitmodules. */
bool fg_decision_is_build_file(const char *path);

/* Immutable once made: safe to read from several threads.  Cost: one pass
 * over the history result and the window's changed paths. */
typedef struct fg_decision fg_decision;

typedef struct fg_decision_suspect {
	const fg_history_commit *commit;
	const char *const *paths; /* the hot files it changed */
	size_t npaths;
} fg_decision_suspect;

typedef struct fg_decision_caller {
	const char *path;         /* changed in the window */
	const char *class_path;   /* the class on the grown stacks it holds */
	const fg_history_commit *const *commits; /* the window commits that changed it, newest first */
	size_t ncommits;
} fg_decision_caller;

/* Decides for the entries of the first hot_frames frames of hot (SIZE_MAX:
 * all), a query of h, which must have a window (FG_EUSAGE otherwise).
 * stack_frames are the frame names on the grown stacks (see
 * fg_decision_stack_names); NULL when they are not known (frames given by
 * name), then there are no callers.  The decision points into hot and h:
 * free it first. */
int fg_decision_new(fg_decision **out, fg_history *h, const fg_history_result *hot, size_t hot_frames,
		    const char *const *stack_frames, size_t nstack, fg_error *err);
void fg_decision_free(fg_decision *d);

fg_decision_kind fg_decision_get_kind(const fg_decision *d);
/* Suspects (CHANGED only): the commits of the hot files in the order of the
 * hot frames (largest growth first), each file's commits newest first. */
size_t fg_decision_suspect_count(const fg_decision *d);
const fg_decision_suspect *fg_decision_suspect_at(const fg_decision *d, size_t i);
/* Callers, in path order; empty when the stack frames were not given. */
size_t fg_decision_caller_count(const fg_decision *d);
const fg_decision_caller *fg_decision_caller_at(const fg_decision *d, size_t i);
bool fg_decision_callers_known(const fg_decision *d);
/* Whether the hot frames are native code (C, C++, Rust, Go functions:
 * fg_history_entry.function), none is a Java frame, and one is the
 * repository's or the repository holds no JVM sources: the words are then
 * the build, the compiler and the dependencies, not the JVM; and the build
 * files are those of the hot files' modules (their directories and those
 * above them), every one when no hot file is in the repository. */
bool fg_decision_native(const fg_decision *d);
/* Build files changed in the window, in path order. */
size_t fg_decision_build_file_count(const fg_decision *d);
const char *fg_decision_build_file_at(const fg_decision *d, size_t i);
/* The hot methods (entries of hot with a method history, see
 * fg_history_query_methods) whose file changed in the window: did the
 * method change too?  The seed workflow's distinction between code that got
 * slower and code that runs more often, one level finer than the file. */
typedef enum {
	FG_DECISION_METHOD_CHANGED = 0,   /* the window touched the method: method->window */
	FG_DECISION_METHOD_UNCHANGED,     /* the file changed, the method did not */
	FG_DECISION_METHOD_UNKNOWN,       /* the method could not be told (method->reason) */
} fg_decision_method_kind;

typedef struct fg_decision_method {
	const fg_history_entry *entry;   /* frame, path, method */
	fg_decision_method_kind kind;
} fg_decision_method;

/* "changed", "unchanged", "unknown". */
const char *fg_decision_method_kind_name(fg_decision_method_kind kind);
/* In the order of the hot frames; empty unless the kind is CHANGED and the
 * query had method histories. */
size_t fg_decision_method_count(const fg_decision *d);
const fg_decision_method *fg_decision_method_at(const fg_decision *d, size_t i);
/* Over those methods: CHANGED when one changed in the window, UNCHANGED
 * when every one was told and none did, else UNKNOWN; -1 when there are
 * none. */
int fg_decision_method_verdict(const fg_decision *d);

#endif
