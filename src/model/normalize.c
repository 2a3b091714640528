#include "model/normalize.h"

#include <string.h>

/*
 * How it works
 *
 * A name is first classified by its shape, and only the rules of that shape
 * run (docs/normalisation.md gives the rules with their sources):
 *
 *   1. bare address    "0x" + hex digits only
 *   2. thread frame    "[" ... "]"
 *   3. library         the part before the first '`' (async-profiler's
 *                      `lib` style writes "library`symbol") ends in .so,
 *                      .dylib, .jnilib or .dll and has no '$', ' ' or ':'
 *   4. Java            slashed ("io/camunda/Foo.run") or dotted
 *                      ("io.camunda.Foo.run", rewritten slashed first)
 *   5. anything else   copied unchanged
 *
 * Every rule only removes bytes (the dotted rewrite only swaps '.' for '/'),
 * so the output is never longer than the input.  Each pass writes at or
 * before the byte it reads, so out may even be name itself.
 *
 * Idempotence: the shapes are chosen so that the output of a shape's rules
 * has the same shape (a Java name keeps its first character, its first '/'
 * and its '$'s; a library keeps its extension), and every rule decides from
 * what it has already written plus the bytes ahead, so that a second pass
 * finds nothing left to remove.  tests/unit/test_normalize.c checks it on
 * every frame name of the shared fixtures and on generated names.
 */

#define NOT_MATCHED ((size_t)-1)

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int is_lower_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f');
}

static int is_lower(unsigned char c)
{
	return c >= 'a' && c <= 'z';
}

static int is_upper(unsigned char c)
{
	return c >= 'A' && c <= 'Z';
}

static int is_alpha(unsigned char c)
{
	return is_lower(c) || is_upper(c);
}

/* A byte of a Java identifier.  Names are not decoded, so any non-ASCII
 * byte counts: Java identifiers may be Unicode. */
static int is_ident(unsigned char c)
{
	return is_alpha(c) || is_digit(c) || c == '_' || c == '$' || c >= 0x80;
}

/* A byte that may start a Java class or package name (no digit). */
static int is_ident_start(unsigned char c)
{
	return is_alpha(c) || c == '_' || c == '$' || c >= 0x80;
}

static int starts_with(const char *s, size_t n, const char *prefix)
{
	size_t pn = strlen(prefix);

	return n >= pn && memcmp(s, prefix, pn) == 0;
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
	size_t sn = strlen(suffix);

	return n >= sn && memcmp(s + n - sn, suffix, sn) == 0;
}

static size_t span_digits(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && is_digit((unsigned char)s[i]))
		i++;
	return i;
}

static size_t span_hex(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && is_hex((unsigned char)s[i]))
		i++;
	return i;
}

/* Length of an async-profiler type annotation ("_[j]", "_[k]", ...) ending
 * the name, or 0.  Callers strip it; it is kept verbatim here so that an
 * annotated name normalises like the plain one. */
static size_t annotation_len(const char *s, size_t n)
{
	unsigned char c;

	if (n < 5 || s[n - 1] != ']' || s[n - 3] != '[' || s[n - 4] != '_')
		return 0;
	c = (unsigned char)s[n - 2];
	return (is_digit(c) || is_lower(c)) ? 4 : 0;
}

/*
 * 1. Bare addresses: async-profiler prints a frame it cannot name as the
 * address ("%p"), which moves on every run.
 */
static int is_bare_address(const char *s, size_t n)
{
	return n > 2 && s[0] == '0' && s[1] == 'x' && span_hex(s + 2, n - 2) == n - 2;
}

/*
 * 2. Thread frames "[name tid=N]" and "[tid=N]" (async-profiler -t): the
 * tid is the OS thread id of this run.  " tid=N" is stripped as long as the
 * name ends with one, so that the result never ends with one.
 */
static size_t normalize_thread(char *out, const char *s, size_t n)
{
	size_t end, d;

	if (n < 2 || s[0] != '[' || s[n - 1] != ']')
		return NOT_MATCHED;

	end = n - 1; /* the inside is s[1..end) */
	for (;;) {
		d = 0;
		while (end - d > 1 && is_digit((unsigned char)s[end - d - 1]))
			d++;
		if (d == 0 || end - d < 1 + 5 || memcmp(s + end - d - 5, " tid=", 5) != 0)
			break;
		end -= d + 5;
	}

	if (d > 0 && end - d == 1 + 4 && memcmp(s + 1, "tid=", 4) == 0) {
		memcpy(out, "[tid]", 5);
		return 5;
	}

	memmove(out, s, end);
	out[end] = ']';
	return end + 1;
}

bool fg_normalize_is_thread_frame(const char *name, size_t len)
{
	if (len == 5 && !memcmp(name, "[tid]", 5))
		return true;
	if (len < 7 || name[0] != '[' || name[len - 1] != ']' || !is_digit((unsigned char)name[len - 2]))
		return false;
	size_t d = 1;
	while (d < len - 2 && is_digit((unsigned char)name[len - 2 - d]))
		d++;
	/* name[len-2-d] is the byte before the digits: "[tid=" or " tid=" ends there. */
	size_t eq = len - 2 - d;
	return eq >= 4 && !memcmp(name + eq - 3, "tid=", 4) && (eq == 4 || name[eq - 4] == ' ');
}

/*
 * 3. Libraries extracted to a temporary file by a JNI loader.
 */
static const char *const lib_exts[] = { ".so", ".dylib", ".jnilib", ".dll" };

/* 36 if s starts with a UUID as java.util.UUID.toString() writes it
 * (8-4-4-4-12 hex digits), else 0. */
static size_t uuid_len(const char *s, size_t n)
{
	static const size_t groups[] = { 8, 4, 4, 4, 12 };
	size_t g, j, i = 0;

	if (n < 36)
		return 0;
	for (g = 0; g < 5; g++) {
		if (g > 0 && s[i++] != '-')
			return 0;
		for (j = 0; j < groups[g]; j++)
			if (!is_hex((unsigned char)s[i++]))
				return 0;
	}
	return 36;
}

/* Where the stem s[st..se) should end once its random number is gone.
 * File.createTempFile(prefix, suffix) names a file prefix + an unsigned
 * random long + suffix, so the number is the run of digits ending the stem;
 * it is shorter than 10 digits in about one run in 1e10.  The digits of the
 * prefix that touch it (an arch "_64", a release "-6") cannot be told apart
 * from it by value, only by what the loaders are known to use. */
static size_t temp_stem_end(const char *s, size_t st, size_t se)
{
	size_t d = 0, pre;

	while (se - d > st && is_digit((unsigned char)s[se - d - 1]))
		d++;
	if (d == 0)
		return se;
	pre = se - d;

	/* RocksDB NativeLibraryLoader: createTempFile("librocksdbjni", ".so"). */
	if (pre - st == 13 && memcmp(s + st, "librocksdbjni", 13) == 0)
		return pre;

	if (d < 10 || !starts_with(s + st, se - st, "lib"))
		return se;

	/* zstd-jni Native: createTempFile("libzstd-jni-" + VERSION, ".so"),
	 * VERSION = "<zstd>-<release>", e.g. "1.5.5-6".  Only the release's
	 * first digit can be kept for sure: release 11 becomes 1, but every
	 * run of the same jar gives the same name. */
	if (starts_with(s + st, se - st, "libzstd-jni-") && s[pre - 1] == '-')
		return pre + 1;

	/* Netty NativeLibraryLoader: createTempFile(mapped name without ".so",
	 * ".so"); the name ends with PlatformDependent.normalizedArch(), which
	 * ends in "_32", "_64" or is "riscv64". */
	if ((s[pre] == '3' && s[pre + 1] == '2') || (s[pre] == '6' && s[pre + 1] == '4')) {
		if (s[pre - 1] == '_' || ends_with(s + st, pre - st, "riscv"))
			return pre + 2;
	}

	/* Any other loader (lz4-java: "liblz4-java-"): drop the number and the
	 * separator before it, unless that would leave digits at the end. */
	if (pre - st > 1 && (s[pre - 1] == '-' || s[pre - 1] == '_' || s[pre - 1] == '.') &&
	    !is_digit((unsigned char)s[pre - 2]))
		pre--;
	return pre;
}

static size_t normalize_library(char *out, const char *s, size_t n)
{
	const char *tick = memchr(s, '`', n);
	size_t tok = tick ? (size_t)(tick - s) : n;
	size_t base = 0, ext = 0, i, k, e;

	for (i = 0; i < tok; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '$' || c == ' ' || c == ':')
			return NOT_MATCHED;
		if (c == '/')
			base = i + 1;
	}
	for (e = 0; e < sizeof(lib_exts) / sizeof(lib_exts[0]); e++) {
		size_t el = strlen(lib_exts[e]);

		if (tok - base > el && ends_with(s, tok, lib_exts[e])) {
			ext = tok - el;
			break;
		}
	}
	if (ext == 0)
		return NOT_MATCHED;

	/* The directory is kept: a library in another directory is another
	 * library. */
	memmove(out, s, base);
	k = base;

	/* snappy-java SnappyLoader: "snappy-<version>-<uuid>-libsnappyjava.so"
	 * (and its copies, e.g. sqlite-jdbc): drop "-<uuid>" when a '-'
	 * follows.  Checked on what was written, so that no UUID is left. */
	for (i = base; i < ext; ) {
		out[k++] = s[i++];
		if (s[i] == '-' && k - base >= 37 && out[k - 37] == '-' &&
		    uuid_len(out + k - 36, 36) == 36)
			k -= 37;
	}

	k = temp_stem_end(out, base, k);
	memmove(out + k, s + ext, n - ext);
	return k + (n - ext);
}

/*
 * 4. Java frames.
 */

/* Slashed form: a package name and '/' first, no space and no "::" (a C++
 * symbol), no '`' (a library-qualified symbol).  Classes in the unnamed
 * package cannot be told from native symbols and are left alone. */
static int is_slashed_java(const char *s, size_t n)
{
	size_t i = 0;
	const char *paren = memchr(s, '(', n);
	size_t head = paren ? (size_t)(paren - s) : n;

	if (n == 0 || !is_ident_start((unsigned char)s[0]))
		return 0;
	while (i < n && is_ident((unsigned char)s[i]))
		i++;
	if (i == n || s[i] != '/')
		return 0;
	if (memchr(s, '`', n))
		return 0;
	for (i = 0; i < head; i++) {
		if (s[i] == ' ' || (s[i] == ':' && i + 1 < head && s[i + 1] == ':'))
			return 0;
	}
	return 1;
}

static int is_package_byte(unsigned char c)
{
	return is_alpha(c) || is_digit(c) || c == '_' || c >= 0x80;
}

/* Dotted form (async-profiler --dot, and the receiver class of itable/vtable
 * stubs in 2.x, e.g. "io.atomix.raft.roles.LeaderRole$$Lambda$21+0x…"):
 * at least two lowercase package names, then a class starting uppercase or
 * with '$', then only identifier bytes, a hidden-class suffix and a method.
 * Returns where the class starts, or 0. */
static size_t dotted_java_class(const char *s, size_t n)
{
	size_t i = 0, j, packages = 0, cls;

	while (i < n && is_lower((unsigned char)s[i])) {
		j = i + 1;
		while (j < n && is_package_byte((unsigned char)s[j]))
			j++;
		if (j == n || s[j] != '.')
			return 0;
		packages++;
		i = j + 1;
	}
	if (packages < 2 || i == n || !(is_upper((unsigned char)s[i]) || s[i] == '$'))
		return 0;
	cls = i;

	for (j = cls; j < n; j++) {
		unsigned char c = (unsigned char)s[j];
		unsigned char next = j + 1 < n ? (unsigned char)s[j + 1] : 0;

		if (is_ident(c) || c == '+' || c == '<' || c == '>')
			continue;
		/* "/0x…" or JDK 8 "/123": in the dot style a '/' before a digit
		 * stays (async-profiler frameName.cpp). */
		if (c == '/' && is_digit(next))
			continue;
		/* The method, or a ".0x…" hidden-class suffix.  A '.' before an
		 * uppercase letter would make "a.b.C.D" ambiguous: left alone. */
		if (c == '.' && (is_lower(next) || is_digit(next) || next == '<' ||
				 next == '_' || next == '$'))
			continue;
		return 0;
	}
	return cls;
}

/* Length of word + digits at s when at least one digit follows word and the
 * digits end the identifier, else 0. */
static size_t word_number(const char *s, size_t n, const char *word)
{
	size_t wl = strlen(word), d;

	if (!starts_with(s, n, word))
		return 0;
	d = span_digits(s + wl, n - wl);
	if (d == 0 || (wl + d < n && is_ident((unsigned char)s[wl + d])))
		return 0;
	return wl + d;
}

/* Length of the lambda index "$19" at s (after "$$Lambda"): digits ending
 * the identifier, or followed by "_0x" (a lambda in a hidden class). */
static size_t lambda_index_len(const char *s, size_t n)
{
	size_t j;

	if (n < 2 || s[0] != '$' || !is_digit((unsigned char)s[1]))
		return 0;
	j = 1 + span_digits(s + 1, n - 1);
	if (j == n || !is_ident((unsigned char)s[j]) || starts_with(s + j, n - j, "_0x"))
		return j;
	return 0;
}

/* Length of a CGLIB class id at s: "$$" + lowercase hex (Integer.toHexString
 * of a hash, or Spring 6's counter) + an optional "_N" (name clash index),
 * ending the identifier or followed by another '$'. */
static size_t cglib_id_len(const char *s, size_t n)
{
	size_t j = 2;

	if (n < 3 || s[0] != '$' || s[1] != '$' || !is_lower_hex((unsigned char)s[2]))
		return 0;
	while (j < n && is_lower_hex((unsigned char)s[j]))
		j++;
	if (j + 1 < n && s[j] == '_' && is_digit((unsigned char)s[j + 1]))
		j += 1 + span_digits(s + j + 1, n - j - 1);
	if (j == n || !is_ident((unsigned char)s[j]) || s[j] == '$')
		return j;
	return 0;
}

/* True when the "CGLIB" about to be written ends a tag that follows "$$"
 * ("$$EnhancerBySpringCGLIB", "$$SpringCGLIB", "$$FastClassByCGLIB"). */
static int after_cglib_tag_start(const char *out, size_t k)
{
	while (k > 0 && is_alpha((unsigned char)out[k - 1]))
		k--;
	return k >= 2 && out[k - 1] == '$' && out[k - 2] == '$';
}

static int ends_with_lib_ext(const char *out, size_t k)
{
	size_t e;

	for (e = 0; e < sizeof(lib_exts) / sizeof(lib_exts[0]); e++)
		if (ends_with(out, k, lib_exts[e]))
			return 1;
	return 0;
}

/* True when the first segment written, out[0..k) (no '/' yet), is a class
 * rather than a package: it holds a '$' (a nested, generated or hidden
 * class), as package names never do.  A class in the unnamed package has
 * no package before it ("Main$$Lambda$14/0x…" in the dot style). */
static int is_class_segment(const char *out, size_t k)
{
	return memchr(out, '$', k) != NULL;
}

/* Length of a hidden-class suffix at s, s[0] being one of ". / + _", given
 * what was written so far (out[0..k), which ends with an identifier byte):
 *   ".0x…"  JVMTI GetClassSignature (async-profiler's default style)
 *   "/0x…"  Class.getName() style (async-profiler --dot)
 *   "+0x…"  HotSpot's internal Symbol (receiver classes in 2.x)
 *   "/123"  JDK 8 VM-anonymous classes (lambdas, LambdaForms)
 *   "_0x…"  a hidden class name inside a lambda name, after "$$Lambda"
 * The first '/' of a name is never removed after a package (the name stays
 * a slashed Java name), nor a suffix that would leave the name ending like
 * a library. */
static size_t hidden_suffix_len(const char *s, size_t n, const char *out, size_t k,
	int wrote_slash)
{
	char sep = s[0];
	size_t j;

	if (sep == '/' && !wrote_slash && !is_class_segment(out, k))
		return 0;
	if (n >= 4 && s[1] == '0' && s[2] == 'x' && is_hex((unsigned char)s[3])) {
		j = 3 + span_hex(s + 3, n - 3);
		if (sep == '_') {
			if (!ends_with(out, k, "$$Lambda"))
				return 0;
			if (j < n && is_ident((unsigned char)s[j]) && s[j] != '$')
				return 0;
		} else if (j < n && is_ident((unsigned char)s[j])) {
			return 0;
		}
		if (j == n && ends_with_lib_ext(out, k))
			return 0;
		return j;
	}
	if (sep == '/' && n >= 2 && is_digit((unsigned char)s[1])) {
		/* JDK 8 anonymous classes all have a '$' in their name; a '/'
		 * before a digit elsewhere is not ours to remove. */
		size_t seg = k;

		while (seg > 0 && out[seg - 1] != '/')
			seg--;
		if (!memchr(out + seg, '$', k - seg))
			return 0;
		j = 1 + span_digits(s + 1, n - 1);
		if (j < n && is_ident((unsigned char)s[j]))
			return 0;
		if (j == n && ends_with_lib_ext(out, k))
			return 0;
		return j;
	}
	return 0;
}

static const char *const accessor_words[] = {
	/* jdk.internal.reflect (sun.reflect before JDK 9)
	 * MethodAccessorGenerator.generateName: word + a global counter. */
	"GeneratedMethodAccessor",
	"GeneratedConstructorAccessor",
	"GeneratedSerializationConstructorAccessor",
};

/* Java rules on s[0..n), written to out (which may be s). */
static size_t normalize_java(char *out, const char *s, size_t n)
{
	const char *paren = memchr(s, '(', n);
	size_t head = paren ? (size_t)(paren - s) : n;
	size_t i = 0, k = 0, m, w;
	int wrote_slash = 0;

	while (i < head) {
		const char *p = s + i;
		size_t rem = head - i;

		if (k == 0 || out[k - 1] == '/') {
			/* At the start of a class or package name. */
			int done = 0;

			for (w = 0; w < sizeof(accessor_words) / sizeof(accessor_words[0]); w++) {
				if ((m = word_number(p, rem, accessor_words[w])) != 0) {
					size_t wl = strlen(accessor_words[w]);

					memmove(out + k, p, wl);
					k += wl;
					i += m;
					done = 1;
					break;
				}
			}
			if (done)
				continue;
			/* java.lang.reflect.Proxy: "$Proxy" + a global counter. */
			if ((m = word_number(p, rem, "$Proxy")) != 0) {
				memmove(out + k, p, 6);
				k += 6;
				i += m;
				continue;
			}
			/* Proxy.getDynamicModule: "jdk.proxy" + a counter, one
			 * module per class loader. */
			if (ends_with(out, k, "jdk/") && (k == 4 || out[k - 5] == '/') &&
			    (m = word_number(p, rem, "proxy")) != 0 && i + m < head && s[i + m] == '/') {
				memmove(out + k, p, 5);
				k += 5;
				i += m;
				continue;
			}
		}

		/* InnerClassLambdaMetafactory: "$$Lambda$" + a global counter
		 * before JDK 21, plain "$$Lambda" since. */
		if (starts_with(p, rem, "$$Lambda")) {
			memmove(out + k, p, 8);
			k += 8;
			i += 8;
			i += lambda_index_len(s + i, head - i);
			continue;
		}

		/* CGLIB naming policies: "$$<Tag>CGLIB$$<hex>" (cglib, Spring 5),
		 * "$$SpringCGLIB$$[FastClass$$]<N>" (Spring 6). */
		if (starts_with(p, rem, "CGLIB$$") && after_cglib_tag_start(out, k)) {
			memmove(out + k, p, 5);
			k += 5;
			i += 5;
			/* Ids and "$$FastClass" in any order, until neither
			 * follows: what is left starts with neither. */
			for (;;) {
				if ((m = cglib_id_len(s + i, head - i)) != 0) {
					i += m;
				} else if (starts_with(s + i, head - i, "$$FastClass$$")) {
					memmove(out + k, s + i, 11);
					k += 11;
					i += 11;
				} else {
					break;
				}
			}
			continue;
		}

		if ((*p == '.' || *p == '/' || *p == '+' || *p == '_') && k > 0 &&
		    is_ident((unsigned char)out[k - 1]) &&
		    (m = hidden_suffix_len(p, rem, out, k, wrote_slash)) != 0) {
			i += m;
			continue;
		}

		if (*p == '/')
			wrote_slash = 1;
		out[k++] = s[i++];
	}

	/* A signature (async-profiler -g) is kept as it is. */
	memmove(out + k, s + head, n - head);
	return k + (n - head);
}

/* A generated class in the unnamed package ("Main$$Lambda.0x….run",
 * "Main$$Lambda$123/0x….run", "$Proxy12.invoke",
 * "Main$$EnhancerBySpringCGLIB$$1a2b.run"): its first identifier holds a
 * marker only the JDK and CGLIB put into class names, so it is a Java frame
 * although no package says so.  Other classes of the unnamed package cannot
 * be told from native symbols and are left alone. */
static int is_generated_default_package(const char *s, size_t n)
{
	const char *paren = memchr(s, '(', n);
	size_t head = paren ? (size_t)(paren - s) : n;
	size_t i = 0, t;

	if (n == 0 || !is_ident_start((unsigned char)s[0]))
		return 0;
	while (i < head && is_ident((unsigned char)s[i]))
		i++;
	if (i < head && s[i] != '.' && s[i] != '/' && s[i] != '+')
		return 0;
	for (t = 0; t < head; t++)
		if (s[t] == ' ' || s[t] == '`' || (s[t] == ':' && t + 1 < head && s[t + 1] == ':'))
			return 0;
	if (word_number(s, i, "$Proxy"))
		return 1;
	for (t = 0; t < i; t++)
		if (starts_with(s + t, i - t, "$$Lambda") || starts_with(s + t, i - t, "CGLIB$$"))
			return 1;
	return 0;
}

/* The kernel marks the mapping of a file deleted since it was mapped as
 * "PATH (deleted)" (/proc/PID/maps, which async-profiler and perf read):
 * JNI loaders delete their temporary copy once it is loaded, or not, so the
 * mark comes and goes between runs.  Its length at the end of the library
 * part s[0..tok) of a path or library name, else 0. */
static size_t deleted_mark_len(const char *s, size_t tok)
{
	static const char mark[] = " (deleted)";
	size_t ml = sizeof(mark) - 1;

	if (tok <= ml || memcmp(s + tok - ml, mark, ml) != 0)
		return 0;
	if (s[0] == '/' || ends_with_lib_ext(s, tok - ml))
		return ml;
	return 0;
}

/* "[libfoo123.so]": perf's name for an unsymbolised frame of a library
 * (stackcollapse-perf.pl's "[module basename]"), whose name gets the rules
 * of a library; the brackets stay. */
static size_t normalize_bracketed_library(char *out, const char *s, size_t n)
{
	size_t k, d;

	if (n < 3 || s[0] != '[' || s[n - 1] != ']')
		return NOT_MATCHED;
	n -= 2;
	while ((d = deleted_mark_len(s + 1, n)) != 0)
		n -= d;
	k = normalize_library(out + 1, s + 1, n);
	if (k == NOT_MATCHED)
		return NOT_MATCHED;
	out[0] = '[';
	out[k + 1] = ']';
	return k + 2;
}

static size_t normalize_body(char *out, const char *s, size_t n)
{
	size_t k, cls, i, d;
	const char *tick = memchr(s, '`', n);
	size_t tok = tick ? (size_t)(tick - s) : n;

	/* Without the deleted mark first; the rest as any name (written at or
	 * before what is read, so in place). */
	while ((d = deleted_mark_len(s, tok)) != 0) {
		memmove(out, s, tok - d);
		memmove(out + tok - d, s + tok, n - tok);
		n -= d;
		tok -= d;
		s = out;
	}
	if (is_bare_address(s, n)) {
		memcpy(out, "0x?", 3);
		return 3;
	}
	if ((k = normalize_bracketed_library(out, s, n)) != NOT_MATCHED)
		return k;
	if ((k = normalize_thread(out, s, n)) != NOT_MATCHED)
		return k;
	if ((k = normalize_library(out, s, n)) != NOT_MATCHED)
		return k;
	if (is_slashed_java(s, n) || is_generated_default_package(s, n))
		return normalize_java(out, s, n);
	if ((cls = dotted_java_class(s, n)) != 0) {
		/* The package dots become slashes; the rest is then a slashed
		 * name and gets the same rules, in place. */
		memmove(out, s, n);
		for (i = 0; i < cls; i++)
			if (out[i] == '.')
				out[i] = '/';
		return normalize_java(out, out, n);
	}
	memmove(out, s, n);
	return n;
}

/* The bytes some rule needs before it changes a name: a digit (a bare
 * address, a tid, a temporary library's number, a generated class's
 * counter, a lambda index, a hidden-class suffix ".0x…" or "/123"), '-'
 * (a UUID in a library name, which may be letters only), ' ' (the kernel's
 * " (deleted)"), and '$' when another follows ("$$Lambda" and CGLIB's
 * "$$<hex>", whose hex may be letters only; a lone '$', a nested class, is
 * changed by no rule).  1 marks them, 2 marks '$'. */
static const unsigned char rule_bytes[256] = {
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1,
	['9'] = 1, ['-'] = 1, [' '] = 1, ['$'] = 2,
};

/* True when no rule can change s[0..n): none of rule_bytes' bytes, so the
 * rules above leave every byte as it is (each one removes or rewrites bytes
 * only where those are), but for the dotted form's '.' -> '/', which needs
 * dotted_java_class.  Most frame names ("com/sun/tools/javac/comp/Attr.attribTree",
 * "Attr$ResultInfo.check") pass, and skip the shape tests (some 2,600
 * instructions a name).  test_normalize checks it against
 * fg_normalize_name_all_rules on generated and fixture names. */
static int no_rule_applies(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char r = rule_bytes[(unsigned char)s[i]];

		if (r && (r == 1 || (i + 1 < n && s[i + 1] == '$')))
			return 0;
	}
	return dotted_java_class(s, n) == 0;
}

static size_t normalize(char *out, const char *name, size_t len, int all_rules)
{
	size_t ann = annotation_len(name, len);
	size_t body = len - ann, k;

	if (!all_rules && no_rule_applies(name, body)) {
		memmove(out, name, len);
		k = len;
	} else {
		/* One rule can make of a name what another rule changes
		 * ("jdk/proxy1.0x9/1.run" loses its hidden suffix, then its
		 * module counter; "[librocksdbjni123.so tid=1]" its tid, then
		 * its library number): the rules run again on what they wrote
		 * until a pass leaves its length, so that a normal form is one
		 * (fuzz_normalize checks it).  A pass shortens the name or keeps
		 * it, so this ends; in place, as normalize_body allows. */
		size_t prev = body;
		k = normalize_body(out, name, body);
		while (k != prev) {
			prev = k;
			k = normalize_body(out, out, prev);
		}
		memmove(out + k, name + body, ann);
		k += ann;
	}
	out[k] = '\0';
	return k;
}

size_t fg_normalize_name(char *out, const char *name, size_t len)
{
	return normalize(out, name, len, 0);
}

size_t fg_normalize_name_all_rules(char *out, const char *name, size_t len)
{
	return normalize(out, name, len, 1);
}
