/* The method scanner (src/git/method.h): frame → declarations → line ranges, on
 * the hand-written samples of fixtures/methods (every construct the scanner
 * knows, with exact line numbers) and on malformed text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "git/method.h"

struct expect {
	const char *frame;
	const char *want; /* "found 38-40 42-42", "not-found", "unresolved" */
};

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = malloc(1 << 20);
	*len = buf ? fread(buf, 1, 1 << 20, f) : 0;
	fclose(f);
	return buf;
}

static void describe(char *out, size_t size, const fg_method_match *m)
{
	static const char *const names[] = { "found", "not-found", "unresolved" };
	size_t at = (size_t)snprintf(out, size, "%s", names[m->status]);
	for (size_t i = 0; i < m->count && at < size; i++)
		at += (size_t)snprintf(out + at, size - at, " %u-%u", m->ranges[i].first, m->ranges[i].last);
}

static void check_file(const char *name, fg_method_lang lang, const struct expect *cases, size_t n)
{
	const char *dir = getenv("FG_SOURCE_DIR");
	char path[4096];
	snprintf(path, sizeof(path), "%s/fixtures/methods/%s", dir ? dir : ".", name);
	size_t len;
	char *src = read_all(path, &len);
	CHECK(src != NULL);
	if (!src)
		return;
	fg_method_scan *s;
	fg_error err;
	fg_error_clear(&err);
	CHECK(fg_method_scan_new(&s, src, len, lang, &err) == 0);
	for (size_t i = 0; i < n; i++) {
		fg_javaclass_parts parts;
		CHECK(fg_javaclass_parse(&parts, cases[i].frame, &err) == 1);
		fg_method_match m;
		fg_method_find(&m, s, &parts);
		char got[512];
		describe(got, sizeof(got), &m);
		if (strcmp(got, cases[i].want))
			fprintf(stderr, "%s: %s\n", name, cases[i].frame);
		CHECK_STR(got, cases[i].want);
		CHECK(m.status == FG_METHOD_FOUND || m.reason != NULL);
	}
	fg_method_scan_free(s);
	free(src);
}

static const struct expect java[] = {
	/* overloads: both, in line order; the comment `get( {` is no method */
	{ "io/x/Sample.get", "found 38-40 42-42" },
	{ "io.x.Sample.get", "found 38-40 42-42" },
	{ "io/x/Sample.get_[j]", "found 38-40 42-42" },
	/* constructors + the field initialisers (a `{` in a char literal,
	 * an anonymous class, an array initialiser) */
	{ "io/x/Sample.<init>", "found 9-9 10-13 14-14 19-21 23-27" },
	/* a static field whose string holds braces and quotes, a static block */
	{ "io/x/Sample.<clinit>", "found 8-8 15-17" },
	/* anonymous classes, in order of appearance: a field's, one in a lambda */
	{ "io/x/Sample$1.run", "found 11-12" },
	{ "io/x/Sample$2.run", "found 33-33" },
	{ "io/x/Sample$3.run", "not-found" },
	/* a lambda resolves to its enclosing method (the text block does not
	 * end the constructor early) */
	{ "io/x/Sample.lambda$run$0", "found 29-36" },
	{ "io/x/Sample.run", "found 29-36" },
	{ "io/x/Sample$$Lambda$12.0x0000000800c01234.run", "unresolved" },
	{ "io/x/Sample$$Lambda.0x00007f3b7b91000.run_[j]", "unresolved" },
	/* nested, local classes; enum constant bodies; enum constructors */
	{ "io/x/Sample$Inner.deeper", "found 46-48" },
	{ "io/x/Sample$Inner$1Local.m", "found 47-47" },
	{ "io/x/Sample$Color$1.v", "found 53-53" },
	{ "io/x/Sample$Color$2.v", "found 56-56" },
	{ "io/x/Sample$Color.v", "found 61-61" },
	{ "io/x/Sample$Color.<init>", "found 59-59 60-60" },
	{ "io/x/Sample$Color.values", "unresolved" },
	{ "io/x/Sample$Color.valueOf", "unresolved" },
	/* ... which a class that is not an enum does not have */
	{ "io/x/Sample.values", "not-found" },
	{ "io/x/Sample$Inner.valueOf", "not-found" },
	/* an interface's default method, a record's compact constructor, an
	 * abstract method (no body: its declaration) */
	{ "io/x/Sample$I.g", "found 64-64" },
	{ "io/x/Sample$I.f", "found 64-64" },
	{ "io/x/Sample$R.<init>", "found 67-69" },
	{ "io/x/Sample.abs", "found 71-71" },
	/* the class itself, from its annotation to its closing brace */
	{ "io/x/Sample", "found 6-72" },
	{ "io/x/Sample.missing", "not-found" },
	{ "io/x/Sample.access$000", "unresolved" },
	{ "io/x/Sample$Nope.run", "not-found" },
	{ "io/x/Other.run", "not-found" },
};

static const struct expect kotlin[] = {
	/* the file facade's top-level functions: block, expression over two
	 * lines, extension with type parameters */
	{ "io/x/SampleKt.topLevel", "found 7-10" },
	{ "io/x/SampleKt.expr", "found 12-13" },
	{ "io/x/SampleKt.ext", "found 15-15" },
	{ "io/x/Foo.<init>", "found 18-20 22-24" },
	/* annotation line included; a lambda and an anonymous object inside */
	{ "io/x/Foo.run", "found 26-32" },
	{ "io/x/Foo.run$lambda$0", "found 26-32" },
	{ "io/x/Foo$run$1.run", "found 26-32" },
	/* a raw string with a brace and a template */
	{ "io/x/Foo.withRaw", "found 34-36" },
	{ "io/x/Foo$Companion.create", "found 39-39" },
	{ "io/x/Foo.abs", "found 42-42" },
	{ "io/x/Single.one", "found 50-50" },
	{ "io/x/Foo.getProp", "found 44-44" },
	{ "io/x/D.<init>", "unresolved" },
	/* an enum class: its own function, the compiler's values/valueOf; a
	 * class that is not an enum has neither */
	{ "io/x/Mode.twice", "found 56-56" },
	{ "io/x/Mode.values", "unresolved" },
	{ "io/x/Mode.valueOf", "unresolved" },
	{ "io/x/Single.values", "not-found" },
	{ "io/x/Foo.valueOf", "not-found" },
};

static const struct expect kotlin_props[] = {
	{ "io/x/PropsKt.getTopCount", "found 4-4" },
	{ "io/x/PropsKt.getSecond", "found 7-7" },
	{ "io/x/Props.getSize", "found 11-11" },
	{ "io/x/Props.getName", "found 14-16" },
	{ "io/x/Props.setName", "found 17-19" },
	{ "io/x/Props.isEmpty", "found 21-21" },
	{ "io/x/Props.getPlain", "unresolved" },
	{ "io/x/Props.setPlain", "unresolved" },
	{ "io/x/Props.getCounter", "unresolved" },
	{ "io/x/Props.setCounter", "unresolved" },
	{ "io/x/Props.getLazyOne", "unresolved" },
	{ "io/x/Props.getTyped", "found 30-31" },
	{ "io/x/Props.after", "found 33-33" },
	{ "io/x/Props$Companion.getDEFAULT", "found 37-37" },
	{ "io/x/Props.getMissing", "not-found" },
	{ "io/x/Props.size", "not-found" },
	/* `= get(0)` is a call in the initialiser, not an accessor */
	{ "io/x/Calls.getFirst", "unresolved" },
	{ "io/x/Calls.getSecond", "found 44-44" },
	{ "io/x/Calls.get", "found 46-46" },
};

static const struct expect scala[] = {
	/* object Eval (module class Eval$) and class Eval in one file */
	{ "org/x/Eval$.apply", "found 5-8" },
	{ "org/x/Eval.apply", "found 24-24" },
	{ "org/x/Eval$.short", "found 10-10" },
	{ "org/x/Eval$.multi", "found 12-14" },
	{ "org/x/Eval$.proc", "found 16-18" },
	{ "org/x/Eval$.$anonfun$apply$1", "found 5-8" },
	{ "org/x/T.f", "found 29-29" },
	{ "org/x/Eval.abs", "found 25-25" },
};

static const struct expect scala3[] = {
	{ "org/y/Counter.inc", "found 6-8" },
	{ "org/y/Counter.reset", "found 10-12" }, /* its end marker too */
	{ "org/y/Counter.twice", "found 14-14" },
	{ "org/y/Counter.<init>", "unresolved" },
	{ "org/y/Counter", "found 3-15" },
	{ "org/y/Counter$.apply", "found 18-18" },
	{ "org/y/Counter$.parse", "found 20-24" },
	{ "org/y/Shape.area", "found 27-27" },
	{ "org/y/Color.lighter", "found 32-36" },
	{ "org/y/Color.$anonfun$lighter$1", "found 32-36" },
	{ "org/y/Color.values", "unresolved" },
	{ "org/y/Shape.values", "not-found" },
	{ "org/y/Braceless$package$.topLevel", "found 38-40" },
	{ "org/y/Braceless$package.topLevel", "found 38-40" },
	{ "org/y/Braceless$package$.inc", "not-found" },
	{ "org/y/Braced.plain", "found 43-43" },
};

/* Malformed text scans to the end without crashing, and what precedes the
 * damage is still found. */
static void check_malformed(void)
{
	static const char *const texts[] = {
		"class A { void a() { } void b() { /* never closed",
		"class A { void a() { } void b() { String s = \"never closed\n } }",
		"class A { void a() { } } } } } void x() {",
		"class A { void a() { } char c = '",
		"class A { void a() { } String t = \"\"\"\n never closed",
		"",
		"}}}}((((",
	};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		fg_method_scan *s;
		fg_error err;
		fg_error_clear(&err);
		CHECK(fg_method_scan_new(&s, texts[i], strlen(texts[i]), FG_METHOD_JAVA, &err) == 0);
		fg_javaclass_parts parts;
		CHECK(fg_javaclass_parse(&parts, "p/A.a", &err) == 1);
		fg_method_match m;
		fg_method_find(&m, s, &parts);
		if (i < 5)
			CHECK(m.status == FG_METHOD_FOUND && m.count == 1 && m.ranges[0].first == 1);
		for (size_t k = 0; k < fg_method_scan_count(s); k++) {
			const fg_method_decl *d = fg_method_scan_at(s, k);
			CHECK(d->first >= 1 && d->first <= d->last && d->last <= fg_method_scan_lines(s) + 1);
		}
		fg_method_scan_free(s);
	}
	/* Cut Kotlin properties and Scala 3 bodies. */
	static const struct { fg_method_lang lang; const char *text; } cut[] = {
		{ FG_METHOD_KOTLIN, "val" }, { FG_METHOD_KOTLIN, "class A { val x get(" },
		{ FG_METHOD_KOTLIN, "val <T" }, { FG_METHOD_KOTLIN, "var x: Int\n  get() =" },
		{ FG_METHOD_KOTLIN, "val `q" }, { FG_METHOD_KOTLIN, "val a.b.\n" },
		{ FG_METHOD_SCALA, "class A:" }, { FG_METHOD_SCALA, "class A:\n  def f =\nend" },
		{ FG_METHOD_SCALA, "object O:\n  end" }, { FG_METHOD_SCALA, "trait T:\n\n" },
	};
	for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		fg_method_scan *s;
		fg_error err;
		CHECK(fg_method_scan_new(&s, cut[i].text, strlen(cut[i].text), cut[i].lang, &err) == 0);
		for (size_t k = 0; k < fg_method_scan_count(s); k++) {
			const fg_method_decl *d = fg_method_scan_at(s, k);
			CHECK(d->first >= 1 && d->first <= d->last && d->last <= fg_method_scan_lines(s) + 1);
		}
		fg_method_scan_free(s);
	}
	/* A Kotlin template nested deeper than the scanner follows. */
	char deep[4096] = "fun a() = 1\nval s = \"";
	for (int i = 0; i < 100; i++)
		strcat(deep, "${\"");
	fg_method_scan *s;
	fg_error err;
	CHECK(fg_method_scan_new(&s, deep, strlen(deep), FG_METHOD_KOTLIN, &err) == 0);
	CHECK(fg_method_scan_count(s) >= 1);
	fg_method_scan_free(s);
}

static void check_generated(void)
{
	static const char gen[] = "// Generated by the protocol compiler.  DO NOT EDIT!\npackage p;\nclass G { void a() {} }\n";
	static const char plain[] = "package p;\nclass G { void a() {} }\n";
	fg_method_scan *s;
	fg_error err;
	CHECK(fg_method_scan_new(&s, gen, strlen(gen), FG_METHOD_JAVA, &err) == 0);
	CHECK(fg_method_scan_generated(s));
	CHECK_U64(fg_method_scan_lines(s), 3);
	fg_method_scan_free(s);
	CHECK(fg_method_scan_new(&s, plain, strlen(plain), FG_METHOD_JAVA, &err) == 0);
	CHECK(!fg_method_scan_generated(s));
	fg_method_scan_free(s);
}

int main(void)
{
	fg_method_lang lang;
	CHECK(fg_method_lang_of_path(&lang, "a/B.java") == 1 && lang == FG_METHOD_JAVA);
	CHECK(fg_method_lang_of_path(&lang, "a/B.kt") == 1 && lang == FG_METHOD_KOTLIN);
	CHECK(fg_method_lang_of_path(&lang, "a/B.scala") == 1 && lang == FG_METHOD_SCALA);
	CHECK(fg_method_lang_of_path(&lang, "a/B.c") == 0);
	check_file("Sample.java", FG_METHOD_JAVA, java, sizeof(java) / sizeof(java[0]));
	check_file("Sample.kt", FG_METHOD_KOTLIN, kotlin, sizeof(kotlin) / sizeof(kotlin[0]));
	check_file("Props.kt", FG_METHOD_KOTLIN, kotlin_props, sizeof(kotlin_props) / sizeof(kotlin_props[0]));
	check_file("Eval.scala", FG_METHOD_SCALA, scala, sizeof(scala) / sizeof(scala[0]));
	check_file("Braceless.scala", FG_METHOD_SCALA, scala3, sizeof(scala3) / sizeof(scala3[0]));
	check_malformed();
	check_generated();
	return check_status("test_method");
}
