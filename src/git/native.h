/* fgbisect — native frame → function → its lines in a C, C++, Rust or Go
 * source file, by git's own function-name drivers.
 *
 * A native frame (perf script, pprof, collapsed: `compute`,
 * `ns::Class::method(int) const`, `crate::module::function::h0123…`,
 * `github.com/org/repo/pkg.(*T).Method`) names a function; its history is
 * what `git log -L :FUNC:FILE` follows with the file's diff driver `cpp`,
 * `rust` or `golang` (as if `.gitattributes` said `*.c diff=cpp`,
 * `*.rs diff=rust`, `*.go diff=golang`).  git's rule, kept here:
 *
 * - a "function line" is a line the driver's funcname patterns match (git
 *   2.39's patterns, compiled with POSIX regcomp as git compiles them);
 * - the range begins at the function line that names the function and runs
 *   to the line before the next function line (or the end of the file): a
 *   function's trailing comments and blank lines are in its range.
 *
 * git's `:FUNC:` is a regular expression matched anywhere in a function
 * line, so `:compute:` also finds `compute_all` or a prototype `int
 * compute(void);` above the definition.  Here the line must define the
 * function: the name as a whole word followed by its parameter list (Go
 * `func (r *T) Name(`, Rust `fn name(`), and the text after the list
 * reaching `{` before `;` (a declaration is a weaker candidate).  That is
 * git's range for `-L ':\<FUNC\>[[:space:]]*(:FILE'` where no declaration
 * precedes the definition.  A C++ member function defined inside its class
 * is indented, which the cpp driver never takes for a function line: its
 * range is its header to its closing brace, and the match says so.
 *
 * Pure text, no repository: src/git/history_native.c finds the files. */
#ifndef FG_NATIVE_H
#define FG_NATIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "git/method.h"

typedef enum {
	FG_NATIVE_NONE = 0,
	FG_NATIVE_CPP,   /* .c .h .cc .cpp .cxx .c++ .hh .hpp .hxx .h++ .ipp .inl .tcc */
	FG_NATIVE_RUST,  /* .rs */
	FG_NATIVE_GO,    /* .go */
} fg_native_lang;

/* The language of a path by its extension; FG_NATIVE_NONE for others. */
fg_native_lang fg_native_lang_of_path(const char *path);
/* git's driver name: "cpp", "rust", "golang" ("" for NONE). */
const char *fg_native_lang_driver(fg_native_lang lang);

/* The longest frame and identifier considered (bytes). */
#define FG_NATIVE_MAX_NAME 256

typedef struct fg_native_function {
	char name[FG_NATIVE_MAX_NAME];      /* the identifier a definition declares: `compute`, `method`, `~Class` */
	/* The enclosing class or type of a method: C++ `Class` of
	 * `ns::Class::method`, Go `T` of `pkg.(*T).Method`, Rust `Type` of
	 * `crate::Type::method`; "" for a free function.  A definition that
	 * names it (`Class::method(`, `func (t *T) Method(`) ranks first. */
	char qualifier[FG_NATIVE_MAX_NAME];
} fg_native_function;

/* The function a native frame names: C (`compute`, and GCC's clones
 * `compute.constprop.0`, `.isra.0`, `.part.1`, `.cold`), demangled C++
 * (namespaces, classes, template arguments and the parameter list removed,
 * `(anonymous namespace)`, lambdas `{lambda(…)#1}` as their enclosing
 * function), Rust (`::h…` hash, `<T as Trait>::`, `{{closure}}` as the
 * enclosing function), Go (package path, `(*T).`, generic `[…]`, closures
 * `.func1`, `-fm`).  A `+0x…` offset and a collapsed type suffix `_[k]` are
 * removed.  Returns 1, or 0 when the frame names no function of source
 * code (`[unknown]`, `[libc.so.6]`, an address, `operator…`, too long). */
int fg_native_parse(fg_native_function *out, const char *frame);

/* A language's funcname patterns, compiled.  Immutable once made: may be
 * shared by threads. */
typedef struct fg_native_driver fg_native_driver;

/* Errors: FG_ENOMEM, FG_EUSAGE for FG_NATIVE_NONE. */
int fg_native_driver_new(fg_native_driver **out, fg_native_lang lang, fg_error *err);
void fg_native_driver_free(fg_native_driver *d);
fg_native_lang fg_native_driver_lang(const fg_native_driver *d);

/* Whether line[0..len) (without its '\n') is a function line for git. */
bool fg_native_driver_funcname(const fg_native_driver *d, const char *line, size_t len);

/* How well a file answers for a function (fg_native_find's return). */
typedef enum {
	FG_NATIVE_RANK_NONE = 0,     /* not declared here */
	FG_NATIVE_RANK_DECLARED,     /* declared only (a prototype, a trait method without body) */
	FG_NATIVE_RANK_DEFINED,      /* defined (a body) */
	FG_NATIVE_RANK_QUALIFIED,    /* defined, and the definition names the frame's qualifier */
} fg_native_rank;

/* Finds fn's definitions in src[0..len), a file of d's language: out holds
 * the ranges of every definition of the best rank (more than one: `#if`
 * alternatives, C++ overloads), status FOUND unless the rank is NONE.
 * Returns the rank.  Never fails: malformed text has no definition. */
fg_native_rank fg_native_find(fg_method_match *out, const fg_native_driver *d, const char *src, size_t len,
			      const fg_native_function *fn);

#endif
