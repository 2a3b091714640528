/* Unit tests for src/model/normalize.c (fg_normalize_name).
 *
 * 1. Built-in cases: every rule with real names.  A comment gives where each
 *    name comes from: a file of the shared fixtures ($FG_SHARED_FIXTURES/…),
 *    or the source that writes the name (see docs/normalisation.md).
 * 2. Names that must stay as they are.
 * 3. Generated names: idempotence, length, in-place use, no write past the end, and
 *    fg_normalize_name (which copies a name no rule can change) equal to
 *    fg_normalize_name_all_rules (every rule run), also on every case and fixture name.
 * 4. With FG_SHARED_FIXTURES: every distinct frame name of the *.collapsed files of
 *    versions/ and daily/ is normalised; the result must be stable, and no
 *    "tid=", "0x<hex>" or "librocksdbjni<digit>" may be left.  The thread
 *    frames of two daily runs (day01, day10) must map to the same thread
 *    names, except two JVM threads that only day10 sampled (1-2 samples).
 *
 * Exit status: 0 pass, 1 fail.  Missing fixtures print "SKIP: …" and the
 * built-in cases still decide the status. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "model/normalize.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static int checks;

static void print_escaped(FILE *f, const char *s, size_t n)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void fail(const char *what, const char *input, size_t in_len,
	const char *expected, size_t exp_len, const char *actual, size_t act_len)
{
	failures++;
	printf("FAIL %s\n  input:    ", what);
	print_escaped(stdout, input, in_len);
	if (expected) {
		printf("\n  expected: ");
		print_escaped(stdout, expected, exp_len);
	}
	printf("\n  actual:   ");
	print_escaped(stdout, actual, act_len);
	printf("\n");
}

#define CANARY 16

/* Normalises name[0..len) into a fresh buffer of len + 1 bytes followed by a
 * canary, checks the contract (length, NUL, canary, idempotence, in-place
 * use) and returns the result (to be freed), its length in *out_len. */
static char *normalize_checked(const char *what, const char *name, size_t len, size_t *out_len)
{
	char *out = malloc(len + 1 + CANARY);
	char *again = malloc(len + 1 + CANARY);
	char *inplace = malloc(len + 1);
	size_t k, k2, k3, i;

	if (!out || !again || !inplace) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	memset(out, 0xA5, len + 1 + CANARY);
	k = fg_normalize_name(out, name, len);
	checks++;
	if (k > len || out[k] != '\0') {
		fail(what, name, len, "(a result no longer than the input, NUL-terminated)", 51,
		     out, k > len ? len : k);
		k = k > len ? len : k;
	}
	for (i = len + 1; i < len + 1 + CANARY; i++) {
		if ((unsigned char)out[i] != 0xA5) {
			fail("wrote past out[len]", name, len, NULL, 0, out, k);
			break;
		}
	}

	/* The shortcut for names no rule can change against every rule. */
	memset(again, 0xA5, len + 1 + CANARY);
	k2 = fg_normalize_name_all_rules(again, name, len);
	if (k2 != k || memcmp(again, out, k + 1) != 0)
		fail("differs from fg_normalize_name_all_rules (expected: all rules)", name, len, again,
		     k2 > len ? len : k2, out, k);

	k2 = fg_normalize_name(again, out, k);
	if (k2 != k || memcmp(again, out, k) != 0)
		fail("not idempotent (expected: first result, actual: second)", name, len,
		     out, k, again, k2);

	memcpy(inplace, name, len);
	inplace[len] = '\0';
	k3 = fg_normalize_name(inplace, inplace, len);
	if (k3 != k || memcmp(inplace, out, k) != 0)
		fail("in place (out == name) differs", name, len, out, k, inplace, k3);

	free(again);
	free(inplace);
	*out_len = k;
	return out;
}

struct norm_case {
	const char *in;
	const char *out; /* NULL: must stay as it is */
};

static void run_cases(const char *group, const struct norm_case *cases, size_t n)
{
	size_t c, k;

	for (c = 0; c < n; c++) {
		const char *in = cases[c].in;
		const char *want = cases[c].out ? cases[c].out : in;
		char *got = normalize_checked(group, in, strlen(in), &k);

		checks++;
		if (k != strlen(want) || memcmp(got, want, k) != 0)
			fail(group, in, strlen(in), want, strlen(want), got, k);
		free(got);
	}
}

#define RUN(group, cases) run_cases(group, cases, sizeof(cases) / sizeof(cases[0]))

/* Rule 1: hidden classes and lambdas. */
static const struct norm_case hidden_cases[] = {
	/* daily/day10-broker-0-grpc.collapsed (JDK 17, JVMTI ".0x…" form) */
	{ "io/atomix/raft/roles/LeaderRole$$Lambda$19.0x00007fa484012028.run",
	  "io/atomix/raft/roles/LeaderRole$$Lambda.run" },
	/* versions/v2.10-regressed.collapsed */
	{ "io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily$$Lambda$11.0x00007f1f88010ed0.accept",
	  "io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily$$Lambda.accept" },
	/* daily/day01-broker-0-rest.collapsed */
	{ "io/camunda/zeebe/broker/StandaloneBroker$$Lambda$8.0x00007f028000fc80.run",
	  "io/camunda/zeebe/broker/StandaloneBroker$$Lambda.run" },
	/* daily/day01-broker-0-rest.collapsed */
	{ "java/lang/invoke/LambdaForm$MH.0x00007f028000e000.invoke",
	  "java/lang/invoke/LambdaForm$MH.invoke" },
	/* versions/v2.10-regressed.collapsed */
	{ "java/lang/invoke/LambdaForm$DMH.0x00007f1f88017000.newInvokeSpecial",
	  "java/lang/invoke/LambdaForm$DMH.newInvokeSpecial" },
	{ "java/lang/invoke/LambdaForm$MH.0x00007f1f88017800.linkToTargetMethod",
	  "java/lang/invoke/LambdaForm$MH.linkToTargetMethod" },
	/* versions/v4.5-healthy.ann.collapsed: annotated name, annotation kept */
	{ "io/atomix/raft/roles/LeaderRole$$Lambda$21.0x00007f1084016480.run_[j]",
	  "io/atomix/raft/roles/LeaderRole$$Lambda.run_[j]" },
	/* JDK 21+ (no index): the Camunda SKILL name quoted in zeebe.md §3.2 */
	{ "io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily$$Lambda.0x00007f3b7b91000.run",
	  "io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily$$Lambda.run" },
	/* Class.getName() form, JDK 15-20 and 21+ (zeebe.md §3.2, async-profiler --dot keeps "/0x") */
	{ "io/camunda/zeebe/stream/impl/ProcessingStateMachine$$Lambda$19/0x0000000801234.run",
	  "io/camunda/zeebe/stream/impl/ProcessingStateMachine$$Lambda.run" },
	{ "io/camunda/zeebe/stream/impl/ProcessingStateMachine$$Lambda/0x0000000801234.run",
	  "io/camunda/zeebe/stream/impl/ProcessingStateMachine$$Lambda.run" },
	/* HotSpot Symbol form "+0x…" (ClassFileParser::mangle_hidden_class_name) */
	{ "io/camunda/zeebe/stream/impl/ProcessingStateMachine$$Lambda$20+0x00007f1084016258.run",
	  "io/camunda/zeebe/stream/impl/ProcessingStateMachine$$Lambda.run" },
	{ "io/camunda/zeebe/stream/impl/ProcessingStateMachine$$Lambda+0x00007f1084016258.run",
	  "io/camunda/zeebe/stream/impl/ProcessingStateMachine$$Lambda.run" },
	/* LambdaForm classes in the Class.getName() form */
	{ "java/lang/invoke/LambdaForm$BMH/0x0000000800c0c400.reinvoke",
	  "java/lang/invoke/LambdaForm$BMH.reinvoke" },
	{ "java/lang/invoke/LambdaForm$DMH/0x0000000800c10000.invokeStatic",
	  "java/lang/invoke/LambdaForm$DMH.invokeStatic" },
	/* JDK 8 VM-anonymous classes: "/" + identity hash in decimal */
	{ "io/camunda/zeebe/scheduler/ActorJob$$Lambda$61/1831932724.run",
	  "io/camunda/zeebe/scheduler/ActorJob$$Lambda.run" },
	{ "java/lang/invoke/LambdaForm$MH/1234567.invokeExact_MT",
	  "java/lang/invoke/LambdaForm$MH.invokeExact_MT" },
	/* async-profiler --norm output keeps the index: drop it too */
	{ "io/atomix/raft/roles/LeaderRole$$Lambda$19.run",
	  "io/atomix/raft/roles/LeaderRole$$Lambda.run" },
	/* Any other hidden class (MethodHandles' injected invoker) */
	{ "io/camunda/zeebe/util/ReflectUtil$$InjectedInvoker.0x00007f1084020000.invoke_MT",
	  "io/camunda/zeebe/util/ReflectUtil$$InjectedInvoker.invoke_MT" },
	/* A class-only frame */
	{ "io/atomix/raft/roles/LeaderRole$$Lambda$21+0x00007f1084016480",
	  "io/atomix/raft/roles/LeaderRole$$Lambda" },
	/* A lambda of a hidden class: InnerClassLambdaMetafactory.lambdaClassName
	 * replaces the host's '/' with '_' */
	{ "io/camunda/zeebe/Foo$$Lambda$12_0x0000000800c01234$$Lambda$56.0x0000000800c05678.run",
	  "io/camunda/zeebe/Foo$$Lambda$$Lambda.run" },
	/* A signature (-g) is kept */
	{ "io/atomix/raft/roles/LeaderRole$$Lambda$19.0x00007fa484012028.run()V",
	  "io/atomix/raft/roles/LeaderRole$$Lambda.run()V" },
};

/* Rule 2: thread frames. */
static const struct norm_case thread_cases[] = {
	/* daily/day01-broker-0-grpc.collapsed */
	{ "[zb-actors-0 tid=10664]", "[zb-actors-0]" },
	{ "[grpc-nio-worker-ELG-3-1 tid=10666]", "[grpc-nio-worker-ELG-3-1]" },
	{ "[C2 CompilerThre tid=10656]", "[C2 CompilerThre]" },
	{ "[raft-server-0-raft-partition-partition-1 tid=10663]",
	  "[raft-server-0-raft-partition-partition-1]" },
	/* daily/day01-broker-0-rest.collapsed */
	{ "[http-nio-8080-exec-1 tid=13517]", "[http-nio-8080-exec-1]" },
	/* asprof-html-format.md §9 */
	{ "[grpc-nio-worker-ELG-3-1 tid=9194]", "[grpc-nio-worker-ELG-3-1]" },
	/* formats/escape.collapsed: non-ASCII thread name with quotes */
	{ "[Gr\xc3\xbc\xc3\x9f" "e 'w' tid=42]", "[Gr\xc3\xbc\xc3\x9f" "e 'w']" },
	/* async-profiler frameName.cpp: a thread without a known name */
	{ "[tid=1234]", "[tid]" },
	/* a thread named like a tid frame still ends without one */
	{ "[worker tid=7 tid=1234]", "[worker]" },
	{ "[tid=7 tid=1234]", "[tid]" },
};

/* Generated classes of the unnamed package (a "Main" class with lambdas,
 * as small tools and benchmarks are written): the markers $$Lambda,
 * $Proxy<N> and CGLIB$$ say Java. */
static const struct norm_case default_package_cases[] = {
	/* JDK 17+ JVMTI (async-profiler's default style), JDK 21 */
	{ "Main$$Lambda$14.0x00007f1084016480.run", "Main$$Lambda.run" },
	{ "Main$$Lambda.0x00007f1084016480.run", "Main$$Lambda.run" },
	{ "Main$$Lambda.0x0000000801234.accept_[j]", "Main$$Lambda.accept_[j]" },
	/* Class.getName() style (--dot, and the JDK 17 form the issue quotes) */
	{ "Main$$Lambda$123/0x0000000800c01234.run", "Main$$Lambda.run" },
	{ "Main$$Lambda/0x0000000800c01234.run", "Main$$Lambda.run" },
	/* HotSpot's internal Symbol, JDK 8 VM-anonymous classes */
	{ "Main$$Lambda$5+0x0000000800c01234.run", "Main$$Lambda.run" },
	{ "Main$$Lambda$1/1831932724.run", "Main$$Lambda.run" },
	/* a lambda of a nested class */
	{ "Bench$Worker$$Lambda$7.0x00007f1084016480.call", "Bench$Worker$$Lambda.call" },
	/* a signature (-g) stays */
	{ "Main$$Lambda$14.0x00007f1084016480.run()V", "Main$$Lambda.run()V" },
	/* JDK 8 proxies of non-public interfaces live in the unnamed package */
	{ "$Proxy12.invoke", "$Proxy.invoke" },
	/* CGLIB subclasses of an unnamed-package class */
	{ "Main$$EnhancerBySpringCGLIB$$1a2b3c4d.run", "Main$$EnhancerBySpringCGLIB.run" },
};

/* The kernel's " (deleted)" mark of an unlinked mapped file, and perf's
 * "[module]" names of unsymbolised library frames. */
static const struct norm_case deleted_cases[] = {
	/* async-profiler names a frame of a stripped library by its path as
	 * /proc/self/maps gives it: Netty deletes its extracted copy */
	{ "/tmp/libnetty_transport_native_epoll_x86_64123456789.so (deleted)",
	  "/tmp/libnetty_transport_native_epoll_x86_64.so" },
	{ "/tmp/libnetty_transport_native_epoll_x86_648016433584318532441.so (deleted)",
	  "/tmp/libnetty_transport_native_epoll_x86_64.so" },
	{ "/tmp/librocksdbjni17782880952888685937.so (deleted)", "/tmp/librocksdbjni.so" },
	/* an installed library replaced under a running process (an upgrade) */
	{ "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so (deleted)",
	  "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so" },
	/* a path that is not a library: the mark goes all the same */
	{ "/memfd:jit-cache (deleted)", "/memfd:jit-cache" },
	/* --lib style: the mark on the library part */
	{ "libnetty_transport_native_epoll_x86_64123456789.so (deleted)`epoll_wait",
	  "libnetty_transport_native_epoll_x86_64.so`epoll_wait" },
	/* perf script's [unknown] as stackcollapse-perf.pl names it */
	{ "[libnetty_transport_native_epoll_x86_64123456789.so (deleted)]",
	  "[libnetty_transport_native_epoll_x86_64.so]" },
	{ "[librocksdbjni17782880952888685937.so]", "[librocksdbjni.so]" },
	{ "[libjvm.so (deleted)]", "[libjvm.so]" },
	/* a mark twice (a copy of a deleted copy): none left */
	{ "/tmp/libfoo.so (deleted) (deleted)", "/tmp/libfoo.so" },
};

/* Rule 3: temp-extracted JNI libraries. */
static const struct norm_case library_cases[] = {
	/* versions/v4.5-healthy.collapsed, versions/v3.0-healthy.collapsed */
	{ "/tmp/librocksdbjni17782880952888685937.so", "/tmp/librocksdbjni.so" },
	{ "/tmp/librocksdbjni10378003055303164192.so", "/tmp/librocksdbjni.so" },
	/* another tmpdir is another library: the directory stays */
	{ "/var/tmp/zeebe/librocksdbjni4589476183428100046.so", "/var/tmp/zeebe/librocksdbjni.so" },
	{ "librocksdbjni4589476183428100046.so", "librocksdbjni.so" },
	/* the random long can be short (Long.toUnsignedString): any digits go */
	{ "/tmp/librocksdbjni730.so", "/tmp/librocksdbjni.so" },
	/* async-profiler --lib style "library`symbol" */
	{ "librocksdbjni4589476183428100046.so`rocksdb::DBImpl::WriteImpl",
	  "librocksdbjni.so`rocksdb::DBImpl::WriteImpl" },
	/* Netty NativeLibraryLoader: prefix = mapped name without ".so" */
	{ "/tmp/libnetty_transport_native_epoll_x86_648016433584318532441.so",
	  "/tmp/libnetty_transport_native_epoll_x86_64.so" },
	{ "/tmp/libnetty_transport_native_epoll_aarch_6412098926133354463843.so",
	  "/tmp/libnetty_transport_native_epoll_aarch_64.so" },
	{ "/tmp/libnetty_transport_native_epoll_riscv64971233016437781234.so",
	  "/tmp/libnetty_transport_native_epoll_riscv64.so" },
	{ "/tmp/libnetty_transport_native_epoll_x86_323312098926133354463.so",
	  "/tmp/libnetty_transport_native_epoll_x86_32.so" },
	{ "/tmp/libnetty_tcnative_linux_x86_645109877765534456789.so",
	  "/tmp/libnetty_tcnative_linux_x86_64.so" },
	/* grpc-netty-shaded: the package prefix is part of the name */
	{ "/tmp/libio_grpc_netty_shaded_netty_transport_native_epoll_x86_6417782880952888685937.so",
	  "/tmp/libio_grpc_netty_shaded_netty_transport_native_epoll_x86_64.so" },
	/* Netty without an arch suffix (older loaders' fallback name) */
	{ "/tmp/libnetty_transport_native_epoll6417782880952888685937.so",
	  "/tmp/libnetty_transport_native_epoll.so" },
	/* zstd-jni Native: "libzstd-jni-" + VERSION, no separator */
	{ "/tmp/libzstd-jni-1.5.5-68447150232917329301.so", "/tmp/libzstd-jni-1.5.5-6.so" },
	{ "/tmp/libzstd-jni-1.5.5-6123456789012345678.so", "/tmp/libzstd-jni-1.5.5-6.so" },
	/* documented limit: a two-digit release keeps its first digit only */
	{ "/tmp/libzstd-jni-1.5.5-118447150232917329301.so", "/tmp/libzstd-jni-1.5.5-1.so" },
	/* snappy-java SnappyLoader: "snappy-<version>-<uuid>-libsnappyjava.so" */
	{ "/tmp/snappy-1.1.10.5-3a8f1c2e-9b4d-4e5f-9a0b-1c2d3e4f5a6b-libsnappyjava.so",
	  "/tmp/snappy-1.1.10.5-libsnappyjava.so" },
	/* a UUID of letters only (one in some 2^32 has no digit), in a name without a digit: the
	 * rules still run (fg_normalize_name's shortcut must not take it) */
	{ "/tmp/snappy-abcdefab-cdef-abcd-efab-cdefabcdefab-libsnappyjava.so", "/tmp/snappy-libsnappyjava.so" },
	{ "[snappy-abcdefab-cdef-abcd-efab-cdefabcdefab-libsnappyjava.so]", "[snappy-libsnappyjava.so]" },
	/* lz4-java Native: "liblz4-java-" (1.4+) and "liblz4-java" (older) */
	{ "/tmp/liblz4-java-4216489470912739115.so", "/tmp/liblz4-java.so" },
	{ "/tmp/liblz4-java4216489470912739115.so", "/tmp/liblz4-java.so" },
	/* macOS extensions */
	{ "/var/folders/xy/T/librocksdbjni4589476183428100046.jnilib",
	  "/var/folders/xy/T/librocksdbjni.jnilib" },
	{ "/var/folders/xy/T/libnetty_transport_native_kqueue_aarch_644589476183428100046.dylib",
	  "/var/folders/xy/T/libnetty_transport_native_kqueue_aarch_64.dylib" },
};

/* Rule 4: generated reflection accessors. */
static const struct norm_case accessor_cases[] = {
	/* MethodAccessorGenerator.generateName (JDK 9+ and JDK 8 packages) */
	{ "jdk/internal/reflect/GeneratedMethodAccessor123.invoke",
	  "jdk/internal/reflect/GeneratedMethodAccessor.invoke" },
	{ "jdk/internal/reflect/GeneratedConstructorAccessor45.newInstance",
	  "jdk/internal/reflect/GeneratedConstructorAccessor.newInstance" },
	{ "jdk/internal/reflect/GeneratedSerializationConstructorAccessor7.newInstance",
	  "jdk/internal/reflect/GeneratedSerializationConstructorAccessor.newInstance" },
	{ "sun/reflect/GeneratedMethodAccessor12.invoke", "sun/reflect/GeneratedMethodAccessor.invoke" },
	{ "sun/reflect/GeneratedConstructorAccessor3.newInstance",
	  "sun/reflect/GeneratedConstructorAccessor.newInstance" },
	{ "sun/reflect/GeneratedSerializationConstructorAccessor9.newInstance",
	  "sun/reflect/GeneratedSerializationConstructorAccessor.newInstance" },
	{ "sun.reflect.GeneratedMethodAccessor12.invoke", "sun/reflect/GeneratedMethodAccessor.invoke" },
};

/* Rule 5: CGLIB proxies. */
static const struct norm_case cglib_cases[] = {
	/* Spring 5 SpringNamingPolicy / cglib DefaultNamingPolicy: "$$" + hex hash */
	{ "io/camunda/operate/webapp/rest/ProcessInstanceRestService$$EnhancerBySpringCGLIB$$1a2b3c4d.queryProcessInstances",
	  "io/camunda/operate/webapp/rest/ProcessInstanceRestService$$EnhancerBySpringCGLIB.queryProcessInstances" },
	{ "io/camunda/operate/webapp/rest/ProcessInstanceRestService$$FastClassBySpringCGLIB$$9e8d7c6b.invoke",
	  "io/camunda/operate/webapp/rest/ProcessInstanceRestService$$FastClassBySpringCGLIB.invoke" },
	/* name clash index "_N" */
	{ "org/example/Foo$$EnhancerBySpringCGLIB$$1a2b3c4d_2.method",
	  "org/example/Foo$$EnhancerBySpringCGLIB.method" },
	/* plain cglib (the example in cglib's own javadoc) */
	{ "org/example/Foo$$EnhancerByCGLIB$$38272841.method", "org/example/Foo$$EnhancerByCGLIB.method" },
	/* a hash of letters only: a name without a digit that a rule changes */
	{ "org/example/Foo$$EnhancerByCGLIB$$abcdef.method", "org/example/Foo$$EnhancerByCGLIB.method" },
	/* FastClass of a proxy */
	{ "org/example/Foo$$EnhancerBySpringCGLIB$$1a2b3c4d$$FastClassBySpringCGLIB$$5e6f7a8b.invoke",
	  "org/example/Foo$$EnhancerBySpringCGLIB$$FastClassBySpringCGLIB.invoke" },
	/* Spring 6: "$$SpringCGLIB$$" + counter, "FastClass$$" for fast classes */
	{ "io/camunda/zeebe/gateway/rest/controller/JobController$$SpringCGLIB$$0.activateJobs",
	  "io/camunda/zeebe/gateway/rest/controller/JobController$$SpringCGLIB.activateJobs" },
	{ "org/example/Foo$$SpringCGLIB$$FastClass$$1.invoke", "org/example/Foo$$SpringCGLIB$$FastClass.invoke" },
	/* generated methods of the proxy are stable */
	{ "org/example/Foo$$SpringCGLIB$$0.CGLIB$activate$1", "org/example/Foo$$SpringCGLIB.CGLIB$activate$1" },
};

/* Rule 6: JDK dynamic proxies. */
static const struct norm_case proxy_cases[] = {
	/* java.lang.reflect.Proxy: "$Proxy" + counter in module "jdk.proxy" + counter */
	{ "jdk/proxy2/$Proxy123.invoke", "jdk/proxy/$Proxy.invoke" },
	{ "jdk/proxy1/$Proxy45.hashCode", "jdk/proxy/$Proxy.hashCode" },
	{ "com/sun/proxy/$Proxy45.invoke", "com/sun/proxy/$Proxy.invoke" },
	{ "com/sun/proxy/jdk/proxy1/$Proxy12.invoke", "com/sun/proxy/jdk/proxy/$Proxy.invoke" },
	{ "io/camunda/zeebe/$Proxy7.apply", "io/camunda/zeebe/$Proxy.apply" },
	{ "jdk.proxy2.$Proxy123.invoke", "jdk/proxy/$Proxy.invoke" },
};

/* Rule 7: bare addresses. */
static const struct norm_case address_cases[] = {
	/* zeebe.md §3.2 address, async-profiler BCI_ADDRESS frames ("%p") */
	{ "0x7f3b7b91000", "0x?" },
	{ "0x00007f1084016480", "0x?" },
	{ "0xDEADBEEF", "0x?" },
};

/* Rule 8: dotted frames become slashed. */
static const struct norm_case dotted_cases[] = {
	/* versions/v2.10-healthy.collapsed: receiver class under "itable stub",
	 * with the "_[i]" annotation that 2.x writes there */
	{ "io.camunda.zeebe.stream.impl.ProcessingStateMachine$$Lambda$20+0x00007f1084016258_[i]",
	  "io/camunda/zeebe/stream/impl/ProcessingStateMachine$$Lambda_[i]" },
	{ "io.camunda.zeebe.gateway.impl.broker.BrokerClientImpl$$Lambda$7+0x00007f1084014000",
	  "io/camunda/zeebe/gateway/impl/broker/BrokerClientImpl$$Lambda" },
	{ "io.atomix.raft.roles.LeaderRole$$Lambda$21+0x00007f1084016480",
	  "io/atomix/raft/roles/LeaderRole$$Lambda" },
	/* async-profiler --dot */
	{ "io.camunda.zeebe.Foo$$Lambda$20+0x0000000801234.run", "io/camunda/zeebe/Foo$$Lambda.run" },
	{ "io.camunda.zeebe.db.impl.rocksdb.transaction.TransactionalColumnFamily.get",
	  "io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.get" },
	/* with a type annotation (the rules see the name without it) */
	{ "io.netty.channel.Foo.run_[j]", "io/netty/channel/Foo.run_[j]" },
	{ "io.camunda.zeebe.db.impl.rocksdb.transaction.TransactionalColumnFamily$$Lambda$11/0x0000000800c01234.accept",
	  "io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily$$Lambda.accept" },
	{ "io.camunda.zeebe.db.impl.rocksdb.transaction.TransactionalColumnFamily$$Lambda$11.0x00007f1f88010ed0.accept",
	  "io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily$$Lambda.accept" },
	{ "java.lang.invoke.LambdaForm$MH/0x0000000800c0c000.invoke", "java/lang/invoke/LambdaForm$MH.invoke" },
	{ "java.lang.String.<init>", "java/lang/String.<init>" },
	{ "io.camunda.zeebe.stream.impl.ReplayStateMachine.lambda$replayNextEvent$0",
	  "io/camunda/zeebe/stream/impl/ReplayStateMachine.lambda$replayNextEvent$0" },
	/* a class-only receiver frame (decision documented in docs/normalisation.md) */
	{ "java.lang.Object", "java/lang/Object" },
};

/* Names built to break idempotence if a guard of normalize.c were missing
 * (each fails the idempotence check without its guard). */
static const struct norm_case guard_cases[] = {
	/* a hidden suffix is not removed where the name would then end like a
	 * library, which the library rules would change on a second pass */
	{ "a/libfoo-3a8f1c2e-9b4d-4e5f-9a0b-1c2d3e4f5a6b-x.so/0x12", NULL },
	/* "CGLIB$$<id>" only after a "$$<Tag>": else the '$' would go and the
	 * name would turn into a library */
	{ "a/libCGLIB$$12-3a8f1c2e-9b4d-4e5f-9a0b-1c2d3e4f5a6b-x.so", NULL },
	/* the separator before a random number stays when a digit precedes it */
	{ "/tmp/lib12345678901-98765432109.so", "/tmp/lib12345678901-.so" },
	/* a UUID is removed only when '-' follows (as in every loader) */
	{ "/tmp/lib-3a8f1c2e-9b4d-4e5f-9a0b-1c2d3e4f5a6b12345678901.so",
	  "/tmp/lib-3a8f1c2e-9b4d-4e5f-9a0b-1c2d3e4f5a6b.so" },
	/* "$$FastClass$$" after a removed CGLIB id, then another id */
	{ "org/example/Foo$$EnhancerBySpringCGLIB$$1a2b3c4d$$FastClass$$0.invoke",
	  "org/example/Foo$$EnhancerBySpringCGLIB$$FastClass.invoke" },
	/* one rule makes what another changes: the rules run again until
	 * the length stays (found by fuzz_normalize) */
	{ "jdk/proxy1.0x0009/123.run", "jdk/proxy/123.run" },
	{ "[librocksdbjni123.so tid=1234]", "[librocksdbjni.so]" },
	{ "[libnetty_transport_native_epoll_x86_648016433584318532441.so (deleted) tid=9]",
	  "[libnetty_transport_native_epoll_x86_64.so]" },
	/* a Java name with a '$' is never a library, whatever its end */
	{ "io/foo/Bar$$Lambda$3.0x00007f1084016480.so", "io/foo/Bar$$Lambda.so" },
};

/* Names that must stay exactly as they are. */
static const struct norm_case stable_cases[] = {
	/* daily/day01-broker-0-grpc.collapsed */
	{ "/usr/lib/x86_64-linux-gnu/libz.so.1.2.13", NULL },
	{ "bio_to_wbt_flags.part.0.isra.0", NULL },
	{ "ext4_fsync_nojournal.constprop.0", NULL },
	{ "I2C/C2I adapters", NULL },
	{ "clock_gettime@@GLIBC_2.17", NULL },
	{ "io/camunda/zeebe/scheduler/ActorThread.run", NULL },
	{ "io/camunda/zeebe/stream/impl/ReplayStateMachine.lambda$replayNextEvent$0", NULL },
	{ "rocksdb::DBImpl::WriteImpl(unsigned long, int)", NULL },
	{ "Java_org_rocksdb_Transaction_get", NULL },
	{ "AccessInternal::PostRuntimeDispatch<G1BarrierSet::AccessBarrier<2646116ul, G1BarrierSet>, "
	  "(AccessInternal::BarrierType)0, 2646116ul>::oop_access_barrier(void*, oopDesc*)", NULL },
	{ "G1ParCopyClosure<(G1Barrier)1, false>::do_oop", NULL },
	{ "[unknown]", NULL },
	{ "[unknown_Java]", NULL },
	{ "[GC_active]", NULL },
	{ "[not_walkable_Java]", NULL },
	{ "[deoptimization]", NULL },
	{ "itable stub", NULL },
	{ "do_syscall_64_[k]", NULL },
	{ "entry_SYSCALL_64_after_hwframe", NULL },
	/* formats/escape.collapsed */
	{ "C:\\path\\lib.so", NULL },
	{ "io/x/Gr\xc3\xbc\xc3\x9f" "e.run", NULL },
	{ "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e/\xe3\x82\xaf\xe3\x83\xa9\xe3\x82\xb9.\xe3\x83\xa1", NULL },
	{ "a/B.m'x", NULL },
	/* libraries with genuine versions */
	{ "libz.so.1.2.13", NULL },
	{ "libc.so.6", NULL },
	{ "libjvm.so", NULL },
	{ "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so", NULL },
	{ "libpython3.so", NULL },
	{ "libcrypto.so.3", NULL },
	{ "libx264.so", NULL },
	{ "libfoo-1234.so", NULL },
	/* installed (not extracted) JNI libraries */
	{ "libnetty_transport_native_epoll_x86_64.so", NULL },
	{ "libzstd-jni-1.5.5-6.so", NULL },
	{ "libzstd-jni-1.5.5-11.so", NULL },
	{ "librocksdbjni-linux64.so", NULL },
	/* RocksDB SharedTempFile: directory = prefix + MD5 of a fixed string */
	{ "/tmp/librocksdbjni-linux64D41D8CD98F00B204E9800998ECF8427E/librocksdbjni-linux64.so", NULL },
	/* Java names that look like volatile ones but are not */
	{ "io/camunda/zeebe/Foo$1.run", NULL },
	{ "io/camunda/zeebe/Foo$Bar$2.apply", NULL },
	{ "jdk/internal/reflect/DirectMethodHandleAccessor.invoke", NULL },
	{ "jdk/internal/reflect/NativeMethodAccessorImpl.invoke0", NULL },
	{ "java/lang/reflect/Proxy.newProxyInstance", NULL },
	{ "java/lang/invoke/BoundMethodHandle$Species_LL.make", NULL },
	{ "io/netty/handler/proxy/HttpProxyHandler.newInitialMessage", NULL },
	{ "io/camunda/zeebe/util/Hex0x12.parse", NULL },
	{ "org/example/Foo$$EnhancerBySpringCGLIB$$Bar.method", NULL },
	{ "scala/runtime/java8/JFunction0$mcV$sp.apply", NULL },
	/* classes of the unnamed package without a generated-class marker
	 * cannot be told from native names */
	{ "Main.main", NULL },
	{ "Main$Inner.run", NULL },
	{ "Main$1.run", NULL },
	{ "foo$bar", NULL },
	{ "Proxy12.run", NULL },
	{ "$Proxy.run", NULL },
	/* installed libraries in perf's "[module]" form */
	{ "[libjvm.so]", NULL },
	{ "[libc.so.6]", NULL },
	{ "[kernel.kallsyms]", NULL },
	{ "[vdso]", NULL },
	/* " (deleted)" only after a path or a library */
	{ "foo (deleted)", NULL },
	{ "[zb-actors-0 (deleted)]", NULL },
	/* dotted names that are not clearly Java */
	{ "Thread.run", NULL },
	{ "a.b.C.D", NULL },
	{ "java.lang.Thread.run()V", NULL },
	{ "java.lang.Thread run", NULL },
	/* not a bare address */
	{ "0x", NULL },
	{ "0xZZ", NULL },
	{ "0x?", NULL },
	{ "", NULL },
	{ "[]", NULL },
	{ "[tid]", NULL },
	{ "[zb-actors-0]", NULL },
	{ "[ tid]", NULL },
};

/*
 * Generated names: combinations of the pieces the rules look for.
 */
static const char *const pieces[] = {
	"io", "/", ".", "$", "$$", "$$Lambda", "$$Lambda$", "Lambda", "0x", "0x00007f1084016480",
	"1", "12", "64", "32", "_", "-", "+", "run", "Foo", "[", "]", " tid=", "tid=", " ",
	"lib", "librocksdbjni", "1234567890123", ".so", ".dll", "`", "(", ")V", "::", ":",
	"CGLIB$$", "$$EnhancerBySpringCGLIB$$", "1a2b", "$$1a2b", "$$0", "$$FastClass$$", "_2",
	"GeneratedMethodAccessor", "$Proxy", "jdk/", "proxy", "LambdaForm$MH", "_0x", "riscv",
	"libzstd-jni-1.5.5-", "3a8f1c2e-9b4d-4e5f-9a0b-1c2d3e4f5a6b", "a.b.", "java.lang.",
	"_[j]", "\xc3\xbc", "<init>", "x86_", "/tmp/", "-libsnappyjava", " (deleted)", "Main", "/0x1",
	/* what the rules change without a digit: a UUID of letters only, CGLIB's letters-only hex, the
	 * dotted form's package */
	"abcdefab-cdef-abcd-efab-cdefabcdefab", "-abcdefab-cdef-abcd-efab-cdefabcdefab", "$$abcdef", "io.netty.",
	"Attr", "/comp/", "$ResultInfo", ".check", "_[k]", "_[0]",
};

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t rng(void)
{
	/* xorshift64*: reproducible across platforms */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

static void run_generated(int count)
{
	char name[1024];
	int t;

	for (t = 0; t < count; t++) {
		size_t len = 0, k;
		int parts = 1 + (int)(rng() % 14), p;
		char *got;

		for (p = 0; p < parts; p++) {
			const char *piece = pieces[rng() % (sizeof(pieces) / sizeof(pieces[0]))];
			size_t pl = strlen(piece);

			if (len + pl >= sizeof(name))
				break;
			memcpy(name + len, piece, pl);
			len += pl;
		}
		name[len] = '\0';
		got = normalize_checked("generated name", name, len, &k);
		free(got);
		if (failures > 50)
			return;
	}
}

/*
 * Fixtures.
 */

struct name_set {
	char **slot;
	size_t cap;
	size_t count;
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

static void set_add(struct name_set *set, const char *s, size_t n);

static void set_grow(struct name_set *set)
{
	struct name_set bigger = { NULL, set->cap ? set->cap * 2 : 4096, 0 };
	size_t i;

	bigger.slot = calloc(bigger.cap, sizeof(char *));
	if (!bigger.slot) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (i = 0; i < set->cap; i++) {
		if (set->slot[i]) {
			set_add(&bigger, set->slot[i], strlen(set->slot[i]));
			free(set->slot[i]);
		}
	}
	free(set->slot);
	*set = bigger;
}

static void set_add(struct name_set *set, const char *s, size_t n)
{
	size_t i;

	if (set->count * 2 >= set->cap)
		set_grow(set);
	i = (size_t)hash_bytes(s, n) & (set->cap - 1);
	while (set->slot[i]) {
		if (strlen(set->slot[i]) == n && memcmp(set->slot[i], s, n) == 0)
			return;
		i = (i + 1) & (set->cap - 1);
	}
	set->slot[i] = malloc(n + 1);
	if (!set->slot[i]) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	memcpy(set->slot[i], s, n);
	set->slot[i][n] = '\0';
	set->count++;
}

static void set_free(struct name_set *set)
{
	size_t i;

	for (i = 0; i < set->cap; i++)
		free(set->slot[i]);
	free(set->slot);
	set->slot = NULL;
	set->cap = set->count = 0;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 65536 + 1 > cap) {
			char *bigger;

			cap = cap ? cap * 2 : 1 << 20;
			bigger = realloc(buf, cap);
			if (!bigger) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = bigger;
		}
		r = fread(buf + n, 1, 65536, f);
		n += r;
		if (r < 65536)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Calls fn(frame, frame_len, count, is_first, ctx) for every frame of every
 * line of a collapsed file ("a;b;c COUNT", the count after the last space). */
typedef void (*frame_fn)(const char *frame, size_t len, long count, int first, void *ctx);

static int for_each_frame(const char *path, frame_fn fn, void *ctx)
{
	size_t len, pos = 0;
	char *buf = read_file(path, &len);

	if (!buf)
		return -1;
	while (pos < len) {
		size_t end = pos, sp, f, e;
		long count;

		while (end < len && buf[end] != '\n')
			end++;
		sp = end;
		if (sp > pos && buf[sp - 1] == '\r')
			sp--;
		e = sp;
		while (sp > pos && buf[sp - 1] != ' ')
			sp--;
		if (sp > pos) {
			count = strtol(buf + sp, NULL, 10);
			e = sp - 1; /* frames end before the last space */
			for (f = pos; f <= e; ) {
				size_t g = f;

				while (g < e && buf[g] != ';')
					g++;
				fn(buf + f, g - f, count, f == pos, ctx);
				f = g + 1;
			}
		}
		pos = end + 1;
	}
	free(buf);
	return 0;
}

static void add_frame(const char *frame, size_t len, long count, int first, void *ctx)
{
	(void)count;
	(void)first;
	set_add(ctx, frame, len);
}

static int has_hex_literal(const char *s)
{
	const char *p = s;

	while ((p = strstr(p, "0x")) != NULL) {
		unsigned char c = (unsigned char)p[2];

		if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))
			return 1;
		p += 2;
	}
	return 0;
}

static int has_rocksdb_temp(const char *s)
{
	const char *p = s;

	while ((p = strstr(p, "librocksdbjni")) != NULL) {
		if (p[13] >= '0' && p[13] <= '9')
			return 1;
		p += 13;
	}
	return 0;
}

static int ends_with_str(const char *s, const char *suffix)
{
	size_t n = strlen(s), sn = strlen(suffix);

	return n >= sn && strcmp(s + n - sn, suffix) == 0;
}

/* Returns the number of files read from dir. */
static int collect_dir(const char *root, const char *sub, struct name_set *names)
{
	char path[4096];
	DIR *dir;
	struct dirent *ent;
	int files = 0;

	snprintf(path, sizeof(path), "%s/%s", root, sub);
	dir = opendir(path);
	if (!dir) {
		printf("SKIP: %s is missing: its frame names are NOT checked\n", path);
		fprintf(stderr, "SKIP: %s is missing: its frame names are NOT checked\n", path);
		return 0;
	}
	while ((ent = readdir(dir)) != NULL) {
		if (!ends_with_str(ent->d_name, ".collapsed"))
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", root, sub, ent->d_name);
		if (for_each_frame(path, add_frame, names) != 0) {
			failures++;
			printf("FAIL cannot read %s\n", path);
			continue;
		}
		files++;
	}
	closedir(dir);
	return files;
}

static void check_fixture_names(const char *root)
{
	struct name_set names = { NULL, 0, 0 }, normalised = { NULL, 0, 0 };
	int files = collect_dir(root, "versions", &names) + collect_dir(root, "daily", &names);
	int before = failures;
	size_t i, k;

	if (files == 0) {
		printf("SKIP: no *.collapsed file under %s/versions or %s/daily\n", root, root);
		fprintf(stderr, "SKIP: no *.collapsed file under %s/versions or %s/daily\n", root, root);
		set_free(&names);
		return;
	}
	for (i = 0; i < names.cap; i++) {
		const char *raw = names.slot[i];
		char *got;

		if (!raw)
			continue;
		got = normalize_checked("fixture name", raw, strlen(raw), &k);
		checks++;
		if (strstr(got, "tid=") || has_hex_literal(got) || has_rocksdb_temp(got))
			fail("fixture name keeps a volatile id", raw, strlen(raw), NULL, 0, got, k);
		set_add(&normalised, got, k);
		free(got);
		if (failures - before > 50) {
			printf("(stopping the fixture check after 50 failures)\n");
			break;
		}
	}
	printf("fixtures: %d files, %zu distinct frame names -> %zu after normalisation\n",
	       files, names.count, normalised.count);
	set_free(&names);
	set_free(&normalised);
}

/* Thread frames of one -t profile: normalised name -> samples. */
struct thread_list {
	char name[32][128];
	long samples[32];
	int count;
	int raw_count;
	char raw[64][128];
};

static int has_tid(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i + 4 <= n; i++)
		if (memcmp(s + i, "tid=", 4) == 0)
			return 1;
	return 0;
}

static void add_thread(const char *frame, size_t len, long count, int first, void *ctx)
{
	struct thread_list *tl = ctx;
	char out[128];
	size_t k;
	int t;

	if (!first || len == 0 || len >= sizeof(out) || frame[0] != '[' || !has_tid(frame, len))
		return;
	for (t = 0; t < tl->raw_count; t++)
		if (strlen(tl->raw[t]) == len && memcmp(tl->raw[t], frame, len) == 0)
			break;
	if (t == tl->raw_count && tl->raw_count < 64) {
		memcpy(tl->raw[tl->raw_count], frame, len);
		tl->raw[tl->raw_count++][len] = '\0';
	}

	k = fg_normalize_name(out, frame, len);
	for (t = 0; t < tl->count; t++)
		if (strcmp(tl->name[t], out) == 0)
			break;
	if (t == tl->count) {
		if (tl->count == 32)
			return;
		memcpy(tl->name[t], out, k + 1);
		tl->samples[t] = 0;
		tl->count++;
	}
	tl->samples[t] += count;
}

static long thread_samples(const struct thread_list *tl, const char *name)
{
	int t;

	for (t = 0; t < tl->count; t++)
		if (strcmp(tl->name[t], name) == 0)
			return tl->samples[t];
	return -1;
}

static void check_thread_sets(const char *root)
{
	/* Two daily runs of the same broker, ten days apart. */
	static const char *const files[2] = {
		"daily/day01-broker-0-grpc.collapsed", "daily/day10-broker-0-grpc.collapsed",
	};
	/* JVM threads that were sampled in day10 only (2 and 1 samples): a
	 * fact of the data, not of the names. */
	static const char *const only_day10[] = { "[GC Thread#0]", "[Monitor Deflati]" };
	static struct thread_list tl[2];
	char path[4096];
	int f, t, r, shared_raw = 0;

	for (f = 0; f < 2; f++) {
		memset(&tl[f], 0, sizeof(tl[f]));
		snprintf(path, sizeof(path), "%s/%s", root, files[f]);
		if (for_each_frame(path, add_thread, &tl[f]) != 0) {
			printf("SKIP: %s is missing: the thread-name check did NOT run\n", path);
			fprintf(stderr, "SKIP: %s is missing: the thread-name check did NOT run\n", path);
			return;
		}
	}

	/* The raw names share nothing: every tid differs between runs. */
	for (r = 0; r < tl[0].raw_count; r++)
		for (t = 0; t < tl[1].raw_count; t++)
			if (strcmp(tl[0].raw[r], tl[1].raw[t]) == 0)
				shared_raw++;
	checks++;
	if (tl[0].raw_count == 0 || shared_raw != 0) {
		failures++;
		printf("FAIL raw thread frames: expected disjoint non-empty sets, %d shared of %d\n",
		       shared_raw, tl[0].raw_count);
	}

	/* Normalised: every thread of day01 is in day10 ... */
	for (t = 0; t < tl[0].count; t++) {
		checks++;
		if (thread_samples(&tl[1], tl[0].name[t]) < 0) {
			failures++;
			printf("FAIL thread %s of %s\n  expected: also in %s\n  actual:   missing\n",
			       tl[0].name[t], files[0], files[1]);
		}
	}
	/* ... and day10 has exactly the two rarely sampled JVM threads more. */
	for (t = 0; t < tl[1].count; t++) {
		int expected_extra = 0;
		size_t x;

		for (x = 0; x < sizeof(only_day10) / sizeof(only_day10[0]); x++)
			if (strcmp(tl[1].name[t], only_day10[x]) == 0)
				expected_extra = 1;
		checks++;
		if ((thread_samples(&tl[0], tl[1].name[t]) >= 0) == expected_extra) {
			failures++;
			printf("FAIL thread %s of %s\n  expected: %s %s\n  actual:   %s\n",
			       tl[1].name[t], files[1], expected_extra ? "absent from" : "also in",
			       files[0], expected_extra ? "present" : "missing");
		}
	}
	printf("threads: %d raw -> %d names in %s, %d raw -> %d names in %s\n",
	       tl[0].raw_count, tl[0].count, files[0], tl[1].raw_count, tl[1].count, files[1]);
}

/* fg_normalize_is_thread_frame: the -t frames --merge-threads drops, and the
 * bracketed names it must keep. */
static void check_thread_frames(void)
{
	static const struct { const char *name; bool thread; } cases[] = {
		{ "[zb-actors-0 tid=10664]", true }, { "[C2 CompilerThre tid=10656]", true },
		{ "[tid=1234]", true }, { "[tid]", true }, { "[a tid=1 tid=2]", true },
		{ "[Grüße 'w' tid=42]", true }, { "[zb-actors-0]", false }, { "[GC_active]", false },
		{ "[unknown]", false }, { "[tid=]", false }, { "[xtid=12]", false }, { "[a tid=12x]", false },
		{ "tid=12]", false }, { "[ tid=1", false }, { "", false }, { "[tid=1]x", false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool got = fg_normalize_is_thread_frame(cases[i].name, strlen(cases[i].name));
		checks++;
		if (got != cases[i].thread) {
			failures++;
			printf("FAIL is_thread_frame(\"%s\"): expected %d\n", cases[i].name, cases[i].thread);
		}
	}
}

int main(void)
{
	const char *root = getenv("FG_SHARED_FIXTURES");
	int builtin;

	RUN("rule 1: hidden classes and lambdas", hidden_cases);
	RUN("rule 2: thread frames", thread_cases);
	RUN("rule 3: temp JNI libraries", library_cases);
	RUN("rule 3: deleted mappings, perf's [module]", deleted_cases);
	RUN("rule 4: generated classes of the unnamed package", default_package_cases);
	RUN("rule 4: generated accessors", accessor_cases);
	RUN("rule 5: CGLIB", cglib_cases);
	RUN("rule 6: JDK proxies", proxy_cases);
	RUN("rule 7: bare addresses", address_cases);
	RUN("rule 8: dotted frames", dotted_cases);
	RUN("stable names", stable_cases);
	RUN("idempotence guards", guard_cases);
	check_thread_frames();
	builtin = (int)(sizeof(guard_cases) + sizeof(hidden_cases) + sizeof(thread_cases) + sizeof(library_cases) +
			sizeof(accessor_cases) + sizeof(cglib_cases) + sizeof(proxy_cases) +
			sizeof(address_cases) + sizeof(dotted_cases) + sizeof(stable_cases)) /
		  (int)sizeof(struct norm_case);
	printf("built-in cases: %d\n", builtin);

	run_generated(200000);
	printf("generated names: 200000\n");

	if (!root || !*root) {
		printf("SKIP: FG_SHARED_FIXTURES is not set: the checks on real fixture names did NOT run\n");
		fprintf(stderr, "SKIP: FG_SHARED_FIXTURES is not set: the checks on real fixture names did NOT run\n");
	} else {
		check_fixture_names(root);
		check_thread_sets(root);
	}

	printf("%d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
