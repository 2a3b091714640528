/* Native frames (src/git/native.h): frame → function, git's funcname
 * drivers, definitions and their ranges as `git log -L :FUNC:FILE` takes
 * them (the sh test tests/sh/hotfiles_native.sh checks the ranges against
 * real git). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "git/native.h"

static void parse(const char *frame, const char *want)
{
	fg_native_function fn;
	char got[2 * FG_NATIVE_MAX_NAME + 8];
	if (fg_native_parse(&fn, frame) == 1)
		snprintf(got, sizeof(got), "%s|%s", fn.qualifier, fn.name);
	else
		snprintf(got, sizeof(got), "-");
	CHECK_STR(got, want);
}

static void test_parse(void)
{
	parse("compute", "|compute");
	parse("compute+0x1f", "|compute");
	parse("compute.constprop.0", "|compute");
	parse("jv_parse_sized.isra.0", "|jv_parse_sized");
	parse("main_[k]", "|main");
	parse("ns::Class::method(int, std::vector<int, std::allocator<int> > const&) const", "Class|method");
	parse("std::vector<int>::push_back(int&&)", "vector|push_back");
	parse("(anonymous namespace)::helper(int)", "|helper");
	parse("ns::Foo::~Foo()", "Foo|~Foo");
	parse("ns::run()::{lambda(int)#1}::operator()(int) const", "ns|run"); /* its enclosing function */
	parse("ns::Foo::operator==(ns::Foo const&)", "-");
	parse("myapp::parser::parse::h0123456789abcdef", "parser|parse");
	parse("<myapp::Tok as core::fmt::Display>::fmt", "|fmt");
	parse("myapp::run::{{closure}}", "myapp|run");
	parse("main.main", "|main");
	parse("github.com/org/repo/pkg.(*Server).Handle", "Server|Handle");
	parse("github.com/org/repo/pkg.Sum[...]", "|Sum");
	parse("example.com/m/pkg.Work.func1.2", "|Work");
	parse("net/http.HandlerFunc.ServeHTTP", "HandlerFunc|ServeHTTP");
	parse("pkg.(*T).Method-fm", "T|Method");
	parse("[unknown]", "-");
	parse("[libc.so.6]", "-");
	parse("0x7f00aa", "-");
	parse("", "-");
}

static void funcname(fg_native_lang lang, const char *line, bool want)
{
	fg_native_driver *d;
	fg_error err = { 0 };
	CHECK(fg_native_driver_new(&d, lang, &err) == 0);
	CHECK(fg_native_driver_funcname(d, line, strlen(line)) == want);
	fg_native_driver_free(d);
}

static void test_drivers(void)
{
	funcname(FG_NATIVE_CPP, "static int compute(int n)", true);
	funcname(FG_NATIVE_CPP, "  return 0;", false);
	funcname(FG_NATIVE_CPP, "out:", false);      /* a label */
	funcname(FG_NATIVE_CPP, "public: // x", false);
	funcname(FG_NATIVE_CPP, "}", false);
	funcname(FG_NATIVE_CPP, "::global()", true);
	funcname(FG_NATIVE_GO, "func (s *Server) Handle(w W) {", true);
	funcname(FG_NATIVE_GO, "\tfunc() {", true);
	funcname(FG_NATIVE_GO, "type T struct {", true);
	funcname(FG_NATIVE_GO, "var x = 1", false);
	funcname(FG_NATIVE_RUST, "    pub fn parse(&self) -> u32 {", true);
	funcname(FG_NATIVE_RUST, "impl<T> Foo for T {", true);
	funcname(FG_NATIVE_RUST, "    let x = 1;", false);
	funcname(FG_NATIVE_RUST, "fn decl();", false);
}

static void find(fg_native_lang lang, const char *src, const char *frame, const char *want)
{
	fg_native_driver *d;
	fg_error err = { 0 };
	fg_native_function fn;
	CHECK(fg_native_parse(&fn, frame) == 1);
	CHECK(fg_native_driver_new(&d, lang, &err) == 0);
	fg_method_match m;
	fg_native_rank r = fg_native_find(&m, d, src, strlen(src), &fn);
	char got[256];
	size_t at = (size_t)snprintf(got, sizeof(got), "%d", (int)r);
	for (size_t i = 0; i < m.count; i++)
		at += (size_t)snprintf(got + at, sizeof(got) - at, " %u-%u", m.ranges[i].first, m.ranges[i].last);
	CHECK_STR(got, want);
	fg_native_driver_free(d);
}

static const char c_src[] =
	"#include <stdio.h>\n"               /* 1 */
	"static int compute(int n);\n"       /* 2: a prototype */
	"int compute_all(void)\n"            /* 3 */
	"{\n"                                /* 4 */
	"\treturn compute(3);\n"             /* 5: a call */
	"}\n"                                /* 6 */
	"\n"                                 /* 7 */
	"static int\n"                       /* 8 */
	"compute(int n)\n"                   /* 9: the definition */
	"{\n"                                /* 10 */
	"\tint s = 0;\n"                     /* 11 */
	"\tif (compute_all()) {\n"           /* 12 */
	"\t\ts++;\n"                         /* 13 */
	"\t}\n"                              /* 14 */
	"out:\n"                             /* 15: a label is no function line */
	"\treturn s;\n"                      /* 16 */
	"}\n"                                /* 17 */
	"/* trailing comment */\n"           /* 18 */
	"\n"                                 /* 19 */
	"int main(void) { return compute(1); }\n"; /* 20 */

static const char cpp_src[] =
	"namespace ns {\n"                   /* 1 */
	"class Foo {\n"                      /* 2 */
	"  int get(int k) const {\n"         /* 3: defined in its class */
	"    return k;\n"                    /* 4 */
	"  }\n"                              /* 5 */
	"  void put(int k);\n"               /* 6: declared only */
	"};\n"                               /* 7 */
	"void Foo::put(int k)\n"             /* 8 */
	"{\n"                                /* 9 */
	"}\n"                                /* 10 */
	"void Bar::put(int k) {}\n"          /* 11: another class */
	"}\n";                               /* 12 */

static const char go_src[] =
	"package pkg\n"                      /* 1 */
	"\n"                                 /* 2 */
	"type Server struct {\n"             /* 3 */
	"\tn int\n"                          /* 4 */
	"}\n"                                /* 5 */
	"\n"                                 /* 6 */
	"func (s *Server) Handle(x int) int {\n" /* 7 */
	"\tf := func() int { return x }\n"   /* 8 */
	"\treturn f()\n"                     /* 9 */
	"}\n"                                /* 10 */
	"\n"                                 /* 11 */
	"func Handle(x int) int {\n"         /* 12 */
	"\treturn x\n"                       /* 13 */
	"}";                                 /* 14: no final newline */

static const char rust_src[] =
	"struct P;\n"                        /* 1 */
	"impl P {\n"                         /* 2 */
	"    pub fn parse<T>(&self, t: T) -> Result<(), E> {\n" /* 3 */
	"        Ok(())\n"                   /* 4 */
	"    }\n"                            /* 5 */
	"}\n"                                /* 6 */
	"trait Q { fn parse(&self); }\n";    /* 7: no function line for git (its `;`) */

static void test_find(void)
{
	/* The definition, not the prototype (line 2) nor compute_all; git's
	 * range: to the line before the next function line (main, line 20). */
	find(FG_NATIVE_CPP, c_src, "compute", "2 9-19");
	find(FG_NATIVE_CPP, c_src, "compute_all", "2 3-7");
	find(FG_NATIVE_CPP, c_src, "main", "2 20-20");
	find(FG_NATIVE_CPP, c_src, "printf", "0");
	find(FG_NATIVE_CPP, "int f(int);\n", "f", "1 1-1");
	/* A comment's line that names the function is no member definition. */
	find(FG_NATIVE_CPP, "void g(void)\n{\n  /* calls\n   * fgets() read {\n   */\n}\n", "fgets", "0");
	/* A member defined in its class: header to closing brace. */
	find(FG_NATIVE_CPP, cpp_src, "ns::Foo::get(int) const", "2 3-5");
	/* Foo::put names the qualifier: it ranks above Bar::put. */
	find(FG_NATIVE_CPP, cpp_src, "ns::Foo::put(int)", "3 8-10");
	find(FG_NATIVE_CPP, cpp_src, "put", "2 8-10 11-12");
	/* Go: the receiver's type decides; the closure's `func` line is not
	 * at the start of its line, so it is inside. */
	find(FG_NATIVE_GO, go_src, "example.com/m/pkg.(*Server).Handle", "3 7-11");
	find(FG_NATIVE_GO, go_src, "example.com/m/pkg.Handle", "2 7-11 12-14");
	find(FG_NATIVE_RUST, rust_src, "app::P::parse::h0123456789abcdef", "2 3-7");
}

int main(void)
{
	test_parse();
	test_drivers();
	test_find();
	return check_status("test_native");
}
