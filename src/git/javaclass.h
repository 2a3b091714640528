/* fgbisect — frame name → Java class path.
 *
 * A JVM frame as async-profiler writes it (slashed or dotted, with type
 * suffixes, signatures, line numbers, inner, anonymous and hidden classes,
 * lambdas) names one top-level class, whose source file is
 * `<module>/src/main/java/<class path>.java`.  This module only parses names;
 * finding the file is history.h's job. */
#ifndef FG_JAVACLASS_H
#define FG_JAVACLASS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/* The longest frame name fg_javaclass_from_frame considers (bytes); longer
 * names are C++ templates in practice and are not Java frames. */
#define FG_JAVACLASS_MAX_FRAME 1024

/* Parses `frame` and writes the slashed path of its top-level class, without
 * extension (`io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily`),
 * NUL-terminated, to out.
 *
 * Accepted: `pkg/Cls.method`, `pkg.Cls.method`, a trailing `_[j]`-style type
 * suffix, a signature `(…)…`, a `:line` suffix, `Cls$Inner`, `Cls$1`, hidden
 * classes and lambdas (`Cls$$Lambda$19.0x…`, `Cls$$Lambda$19/0x…`,
 * `Cls$$Lambda.0x…`, `Cls$$Lambda/0x…`), synthetic `lambda$name$N` methods, and
 * a slashed class without method (`pkg/Cls`).  A class must be in a package.
 *
 * Returns 1 when a class was written, 0 when the frame is not a Java frame of
 * a packaged class (native, kernel and VM frames, `[unknown]`, library paths,
 * C++ `ns::fn`, simple names without package), or FG_EUSAGE when out_size is
 * too small for the class (err filled). */
int fg_javaclass_from_frame(char *out, size_t out_size, const char *frame, fg_error *err);

/* A name as people type it (`hotfiles --frame`): a class without its
 * package (`TransactionalColumnFamily`), `Class.method`, `Class$Inner.method`,
 * a dotted or slashed class with or without method (`io.camunda.Foo`,
 * `io/camunda/Foo.bar`), by Java's naming convention: the last component is
 * a class when it starts with an upper-case letter, else a method of the
 * class before it; a nested class names its top-level class.  Anything else
 * (signatures, line numbers, lambdas' ids …) as fg_javaclass_from_frame.
 * Writes the slashed class path, without a package for a simple name
 * (every file of that name is then a candidate).  Returns 1, 0 (no class in
 * the name) or FG_EUSAGE (out_size too small). */
int fg_javaclass_from_name(char *out, size_t out_size, const char *name, fg_error *err);

/* A Java frame in parts, for finding its method in the source (method.h). */
typedef struct fg_javaclass_parts {
	char class_path[FG_JAVACLASS_MAX_FRAME]; /* the top-level class, as fg_javaclass_from_frame writes it */
	/* The binary name after the top-level class, without the first `$`:
	 * "" for the class itself, `Inner`, `Inner$1`, `1Local`, `$Lambda$19`
	 * (a hidden lambda class, its id removed). */
	char nested[FG_JAVACLASS_MAX_FRAME];
	/* The binary name has a `$` after the top-level class: with an empty
	 * nested, a Scala object's module class (`Eval$`). */
	bool dollar;
	char method[FG_JAVACLASS_MAX_FRAME];     /* "" for a class without method */
} fg_javaclass_parts;

/* Like fg_javaclass_from_frame, and also the nested classes and the method.
 * Returns 1, 0 (not a Java frame of a packaged class) or FG_EUSAGE. */
int fg_javaclass_parse(fg_javaclass_parts *out, const char *frame, fg_error *err);

#endif
