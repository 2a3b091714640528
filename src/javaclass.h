/* fgbisect — frame name → Java class path.
 *
 * A JVM frame as async-profiler writes it (slashed or dotted, with type
 * suffixes, signatures, line numbers, inner, anonymous and hidden classes,
 * lambdas) names one top-level class, whose source file is
 * `<module>/src/main/java/<class path>.java`.  This module only parses names;
 * finding the file is history.h's job. */
#ifndef FG_JAVACLASS_H
#define FG_JAVACLASS_H

#include <stddef.h>

#include "error.h"

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

#endif
