/* fgbisect — the volatile-name normaliser.
 *
 * Two runs of the same code must give the same frame names, so that frames of
 * different profiles can be compared.  This module removes the per-run ids
 * that the JVM, the JDK, libraries and async-profiler put into frame names
 * and leaves every stable name untouched.  docs/normalisation.md lists the
 * rules, each with a real example and its source.
 *
 * Rules (applied to one name; the first group that matches decides):
 *  - deleted mapping   `/tmp/libnetty…x86_64123.so (deleted)` -> the rules of
 *                      `/tmp/libnetty…x86_64123.so` (the kernel's mark of an
 *                      unlinked file, after a path or library, goes first)
 *  - bare address      `0x7f3b7b91000`                 -> `0x?`
 *  - perf's [module]   `[librocksdbjni123.so]`         -> `[librocksdbjni.so]`
 *  - thread frame      `[zb-actors-0 tid=1234]`        -> `[zb-actors-0]`
 *                      `[tid=1234]`                    -> `[tid]`
 *  - temp JNI library  `/tmp/librocksdbjni123.so`      -> `/tmp/librocksdbjni.so`
 *                      (also Netty, zstd-jni, lz4-java, snappy-java and any
 *                      `…-<uuid>-….so`; the directory is kept)
 *  - Java frame, slashed or dotted (dotted names are first written slashed):
 *      hidden classes  `A$$Lambda$19.0x00007f4f5c016030.run` -> `A$$Lambda.run`
 *                      (`.0x…`, `/0x…`, `+0x…` and JDK 8 `/123`; lambda index
 *                      `$$Lambda$NN` dropped; `LambdaForm$MH.0x…` -> `LambdaForm$MH`)
 *      reflection      `GeneratedMethodAccessor123`    -> `GeneratedMethodAccessor`
 *      CGLIB           `A$$EnhancerBySpringCGLIB$$1a2b3c4d` -> `A$$EnhancerBySpringCGLIB`
 *      JDK proxies     `jdk/proxy2/$Proxy123`          -> `jdk/proxy/$Proxy`
 *      dotted          `io.camunda.zeebe.Foo$$Lambda$20+0x0000000801234.run`
 *                                                      -> `io/camunda/zeebe/Foo$$Lambda.run`
 *      unnamed package `Main$$Lambda$123/0x0000000800c01234.run` -> `Main$$Lambda.run`
 *                      (only names marked generated: `$$Lambda`, `CGLIB$$`,
 *                      `$Proxy<N>`; other classes without a package cannot
 *                      be told from native symbols)
 * A trailing async-profiler annotation `_[x]` (x one of [0-9a-z]) is kept as
 * it is and ignored by the rules, although callers normally strip it first.
 *
 * Properties: fg_normalize_name(fg_normalize_name(x)) == fg_normalize_name(x);
 * the result is never longer than the input. */
#ifndef FG_NORMALIZE_H
#define FG_NORMALIZE_H

#include <stdbool.h>
#include <stddef.h>

/* Writes the normalised form of name[0..len) to out and returns its length.
 * out must hold len + 1 bytes: normalising never lengthens a name.  out is NUL-terminated.
 * Pure function, no allocation, thread-safe. name may contain any bytes except NUL (not necessarily UTF-8). */
size_t fg_normalize_name(char *out, const char *name, size_t len);

/* The same, without fg_normalize_name's shortcut for the names no rule can
 * change (which copies them): every shape test runs.  The reference the
 * shortcut is tested against (tests/unit/test_normalize.c); the result is
 * always the same. */
size_t fg_normalize_name_all_rules(char *out, const char *name, size_t len);

/* True when name[0..len) is an async-profiler thread frame (-t): "[NAME tid=N]",
 * "[tid=N]", or "[tid]" (the latter's normalised form).  A normalised
 * "[NAME]" is not one: it cannot be told from "[GC_active]" or "[unknown]". */
bool fg_normalize_is_thread_frame(const char *name, size_t len);

#endif
