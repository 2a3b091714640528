#include "git/native.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* ---- languages -------------------------------------------------------------- */

fg_native_lang fg_native_lang_of_path(const char *path)
{
	static const char *const cpp[] = { "c", "h", "cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++", "ipp",
					   "inl", "tcc" };
	const char *base = strrchr(path, '/');
	const char *dot = strrchr(base ? base + 1 : path, '.');
	if (!dot)
		return FG_NATIVE_NONE;
	dot++;
	if (!strcmp(dot, "rs"))
		return FG_NATIVE_RUST;
	if (!strcmp(dot, "go"))
		return FG_NATIVE_GO;
	for (size_t i = 0; i < sizeof(cpp) / sizeof(cpp[0]); i++)
		if (!strcmp(dot, cpp[i]))
			return FG_NATIVE_CPP;
	return FG_NATIVE_NONE;
}

const char *fg_native_lang_driver(fg_native_lang lang)
{
	return lang == FG_NATIVE_CPP ? "cpp" : lang == FG_NATIVE_RUST ? "rust" : lang == FG_NATIVE_GO ? "golang" : "";
}

/* ---- frame → function ----------------------------------------------------------- */

static bool ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool ident_char(char c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

static bool is_ident(const char *s, size_t n)
{
	if (n && s[0] == '~') {
		s++;
		n--;
	}
	if (!n || !ident_start(s[0]))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!ident_char(s[i]))
			return false;
	return true;
}

static bool set_name(char *out, const char *s, size_t n)
{
	if (n >= FG_NATIVE_MAX_NAME || !is_ident(s, n))
		return false;
	memcpy(out, s, n);
	out[n] = '\0';
	return true;
}

/* Removes `+0x1f` and a collapsed type suffix `_[k]`. */
static size_t strip_suffixes(const char *s, size_t n)
{
	if (n > 4 && s[n - 4] == '_' && s[n - 3] == '[' && s[n - 1] == ']')
		n -= 4;
	const char *plus = memchr(s, '+', n);
	if (plus && plus + 2 < s + n && plus[1] == '0' && plus[2] == 'x')
		n = (size_t)(plus - s);
	/* GCC's clones of a function keep its name before the first of these. */
	static const char *const clones[] = { ".isra.", ".constprop.", ".part.", ".cold", ".lto_priv.", ".localalias",
					      ".clone.", ".llvm." };
	for (size_t i = 0; i < sizeof(clones) / sizeof(clones[0]); i++) {
		size_t cl = strlen(clones[i]);
		for (size_t k = 0; k + cl <= n; k++)
			if (!memcmp(s + k, clones[i], cl)) {
				n = k;
				break;
			}
	}
	return n;
}

/* C++ and Rust: `a::b<T>::c(args) const` → components a, b, c (templates,
 * parameters, `(anonymous namespace)`, lambdas and closures removed); the
 * last two are the qualifier and the name. */
static int parse_scoped(fg_native_function *out, const char *s, size_t n)
{
	char clean[FG_NATIVE_MAX_NAME * 2];
	size_t c = 0;
	int angle = 0, brace = 0;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (brace) {
			brace += ch == '{' ? 1 : ch == '}' ? -1 : 0;
			continue;
		}
		if (ch == '{') {
			brace = 1; /* `{lambda(int)#1}`, `{{closure}}`: the enclosing function */
			continue;
		}
		if (angle) {
			angle += ch == '<' ? 1 : ch == '>' ? -1 : 0;
			continue;
		}
		if (ch == '<') {
			angle = 1;
			continue;
		}
		if (ch == '(') {
			if (n - i >= 21 && !memcmp(s + i, "(anonymous namespace)", 21)) {
				i += 20;
				continue;
			}
			break; /* the parameter list: the rest is qualifiers */
		}
		if (ch == ' ' && c >= 8 && !memcmp(clean + c - 8, "operator", 8))
			return 0;
		if (ch == ' ')
			continue; /* `unsigned long`, `> >` inside removed parts; a return type before the name */
		if (c + 1 >= sizeof(clean))
			return 0;
		clean[c++] = ch;
	}
	clean[c] = '\0';
	/* The components, empty ones dropped (`::` of removed lambdas). */
	const char *comp[2] = { NULL, NULL };
	size_t clen[2] = { 0, 0 };
	for (size_t i = 0; i < c;) {
		size_t j = i;
		while (j < c && !(clean[j] == ':' && j + 1 < c && clean[j + 1] == ':'))
			j++;
		if (j > i) {
			comp[0] = comp[1];
			clen[0] = clen[1];
			comp[1] = clean + i;
			clen[1] = j - i;
		}
		i = j + 2;
	}
	if (!comp[1])
		return 0;
	/* Rust's legacy mangling ends with the hash `h` and 16 hex digits. */
	if (clen[1] == 17 && comp[1][0] == 'h' && strspn(comp[1] + 1, "0123456789abcdef") >= 16 && comp[0]) {
		comp[1] = comp[0];
		clen[1] = clen[0];
		comp[0] = NULL;
		for (const char *p = comp[1]; p > clean + 1; p--)
			if (p[-1] == ':' && p[-2] == ':') {
				const char *q = p - 2;
				while (q > clean && !(q[-1] == ':' && q - 1 > clean && q[-2] == ':'))
					q--;
				comp[0] = q;
				clen[0] = (size_t)(p - 2 - q);
				break;
			}
	}
	if (clen[1] >= 8 && !memcmp(comp[1], "operator", 8))
		return 0;
	if (!set_name(out->name, comp[1], clen[1]))
		return 0;
	if (comp[0] && !set_name(out->qualifier, comp[0], clen[0]))
		out->qualifier[0] = '\0';
	return 1;
}

/* Go: `path/to/pkg.(*T).Method.func1` → T, Method. */
static int parse_go(fg_native_function *out, const char *s, size_t n)
{
	const char *slash = NULL;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/')
			slash = s + i;
	const char *p = slash ? slash + 1 : s, *end = s + n;
	const char *dot = memchr(p, '.', (size_t)(end - p));
	if (!dot)
		return 0;
	/* The components after the package, closures and wrappers dropped. */
	const char *comp[8];
	size_t clen[8], nc = 0;
	for (const char *q = dot + 1; q < end && nc < 8;) {
		const char *e = q;
		int paren = 0, bracket = 0;
		while (e < end && (paren || bracket || *e != '.')) {
			paren += *e == '(' ? 1 : *e == ')' ? -1 : 0;
			bracket += *e == '[' ? 1 : *e == ']' ? -1 : 0;
			e++;
		}
		const char *a = q, *b = e;
		if (b - a > 3 && !memcmp(b - 3, "-fm", 3))
			b -= 3;
		const char *br = memchr(a, '[', (size_t)(b - a));
		if (br)
			b = br; /* generic instantiation */
		if (*a == '(') { /* (*T) or (T) */
			a++;
			if (a < b && *a == '*')
				a++;
			if (b > a && b[-1] == ')')
				b--;
		}
		bool closure = (b - a > 4 && !memcmp(a, "func", 4) && strspn(a + 4, "0123456789") == (size_t)(b - a - 4)) ||
			       strspn(a, "0123456789") == (size_t)(b - a) ||
			       (b - a > 6 && !memcmp(a, "gowrap", 6)) || (b - a > 9 && !memcmp(a, "deferwrap", 9));
		if (!closure) {
			comp[nc] = a;
			clen[nc++] = (size_t)(b - a);
		}
		q = e + 1;
	}
	if (!nc || !set_name(out->name, comp[nc - 1], clen[nc - 1]))
		return 0;
	if (nc >= 2 && !set_name(out->qualifier, comp[nc - 2], clen[nc - 2]))
		out->qualifier[0] = '\0';
	return 1;
}

int fg_native_parse(fg_native_function *out, const char *frame)
{
	memset(out, 0, sizeof(*out));
	size_t n = strlen(frame);
	if (n == 0 || n >= 2 * FG_NATIVE_MAX_NAME || frame[0] == '[' || !memcmp(frame, "0x", n < 2 ? n : 2))
		return 0;
	n = strip_suffixes(frame, n);
	if (memmem(frame, n, "::", 2) || memchr(frame, '(', n) || memchr(frame, '<', n))
		if (!memmem(frame, n, ".(", 2))
			return parse_scoped(out, frame, n);
	if (memchr(frame, '.', n))
		return parse_go(out, frame, n);
	return set_name(out->name, frame, n) ? 1 : 0;
}

/* ---- git's drivers ------------------------------------------------------------- */

/* git 2.39's userdiff.c funcname patterns (REG_EXTENDED, one per line, `!`
 * negates: a line the negated pattern matches is no function line). */
static const char *const cpp_patterns[] = {
	"!^[ \t]*[A-Za-z_][A-Za-z_0-9]*:[[:space:]]*($|/[/*])",
	"^((::[[:space:]]*)?[A-Za-z_].*)$",
};
static const char *const rust_patterns[] = {
	"^[\t ]*((pub(\\([^\\)]+\\))?[\t ]+)?((async|const|unsafe|extern([\t ]+\"[^\"]+\"))[\t ]+)?"
	"(struct|enum|union|mod|trait|fn|impl|macro_rules!)[< \t]+[^;]*)$",
};
static const char *const go_patterns[] = {
	"^[ \t]*(func[ \t]*.*(\\{[ \t]*)?)",
	"^[ \t]*(type[ \t].*(struct|interface)[ \t]*(\\{[ \t]*)?)",
};

#define MAX_PATTERNS 2

struct fg_native_driver {
	fg_native_lang lang;
	regex_t re[MAX_PATTERNS];
	bool negate[MAX_PATTERNS];
	size_t n;
};

int fg_native_driver_new(fg_native_driver **out, fg_native_lang lang, fg_error *err)
{
	*out = NULL;
	const char *const *pats = lang == FG_NATIVE_CPP ? cpp_patterns : lang == FG_NATIVE_RUST ? rust_patterns :
				  lang == FG_NATIVE_GO ? go_patterns : NULL;
	size_t np = lang == FG_NATIVE_RUST ? 1 : 2;
	if (!pats)
		return fg_error_set(err, FG_EUSAGE, NULL, "no function-name driver for this language");
	fg_native_driver *d = calloc(1, sizeof(*d));
	if (!d)
		return fg_error_oom(err, NULL);
	d->lang = lang;
	for (size_t i = 0; i < np; i++) {
		const char *p = pats[i];
		d->negate[i] = *p == '!';
		if (regcomp(&d->re[i], p + d->negate[i], REG_EXTENDED)) {
			fg_native_driver_free(d);
			return fg_error_oom(err, NULL); /* the patterns are constant: only memory can fail */
		}
		d->n++;
	}
	*out = d;
	return 0;
}

void fg_native_driver_free(fg_native_driver *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		regfree(&d->re[i]);
	free(d);
}

fg_native_lang fg_native_driver_lang(const fg_native_driver *d)
{
	return d->lang;
}

bool fg_native_driver_funcname(const fg_native_driver *d, const char *line, size_t len)
{
	/* git strips the newline and a CR before it (xdiff's ff_regexp). */
	if (len && line[len - 1] == '\r')
		len--;
	/* Cheap refusals first: every pattern needs a letter, or `::`, at the
	 * start of the line (C++) or after its indentation (Rust, Go). */
	size_t i = 0;
	if (d->lang != FG_NATIVE_CPP)
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
	if (i >= len || !(ident_start(line[i]) || line[i] == ':'))
		return false;
	/* A NUL-terminated copy: a blob's bytes end without one, and
	 * REG_STARTEND is not everywhere (nor is it honoured by the
	 * sanitizers' regexec). */
	char small[512], *buf = len < sizeof(small) ? small : malloc(len + 1);
	if (!buf)
		return false;
	memcpy(buf, line, len);
	buf[len] = '\0';
	bool match = false;
	for (size_t k = 0; k < d->n; k++)
		if (!regexec(&d->re[k], buf, 0, NULL, 0)) {
			match = !d->negate[k];
			break;
		}
	if (buf != small)
		free(buf);
	return match;
}

/* ---- definitions ---------------------------------------------------------------- */

typedef struct lines {
	const char *src;
	size_t len;
	size_t *start; /* line i (0-based) starts at start[i]; start[count] = len (+1) */
	uint32_t count;
} lines;

static bool lines_index(lines *l, const char *src, size_t len)
{
	l->src = src;
	l->len = len;
	size_t n = 0;
	for (const char *p = src; (p = memchr(p, '\n', (size_t)(src + len - p))) != NULL; p++)
		n++;
	if (len && src[len - 1] != '\n')
		n++; /* a last line without '\n' counts */
	if (n >= UINT32_MAX || !(l->start = malloc((n + 1) * sizeof(size_t))))
		return false;
	size_t k = 0;
	l->start[k++] = 0;
	for (size_t i = 0; i < len && k <= n; i++)
		if (src[i] == '\n')
			l->start[k++] = i + 1;
	l->start[n] = len + (len && src[len - 1] != '\n');
	l->count = (uint32_t)n;
	return true;
}

static uint32_t line_of(const lines *l, size_t off)
{
	uint32_t lo = 0, hi = l->count;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (l->start[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static size_t line_len(const lines *l, uint32_t i)
{
	size_t e = l->start[i + 1];
	if (e > l->len)
		e = l->len;
	if (e > l->start[i] && l->src[e - 1] == '\n')
		e--;
	return e - l->start[i];
}

/* Skips blanks and comments from p; returns where code goes on. */
static const char *skip_space(const char *p, const char *end)
{
	while (p < end) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		else if (end - p >= 2 && p[0] == '/' && p[1] == '/')
			while (p < end && *p != '\n')
				p++;
		else if (end - p >= 2 && p[0] == '/' && p[1] == '*') {
			const char *e = memmem(p + 2, (size_t)(end - p - 2), "*/", 2);
			p = e ? e + 2 : end;
		} else
			break;
	}
	return p;
}

/* After a parameter list's '(' at p: the rest of a definition reaches '{'
 * before ';' (a body), or not.  Bounded: a header longer than this is not
 * one. */
#define HEADER_MAX 4096

static bool has_body(const char *p, const char *end)
{
	if (end - p > HEADER_MAX)
		end = p + HEADER_MAX;
	int depth = 1; /* inside the list */
	for (; p < end; p++) {
		p = skip_space(p, end);
		if (p >= end)
			break;
		char c = *p;
		if (c == '"' || c == '\'') { /* a string in a default argument or an attribute */
			for (p++; p < end && *p != c; p++)
				p += *p == '\\';
			continue;
		}
		if (c == '(' || c == '[')
			depth++;
		else if ((c == ')' || c == ']') && --depth < 0)
			return false; /* the name was called inside an expression: `if (f(x)) {` */
		else if (depth <= 0 && c == '{')
			return true;
		else if (depth <= 0 && (c == ';' || c == '}'))
			return false;
		else if (depth <= 0 && c == '=' && p + 1 < end && p[1] != '=' && p[1] != '>')
			return false; /* `= default`, `= 0`, an initialised variable */
	}
	return false;
}

/* The identifier ending just before p (spaces skipped), or NULL. */
static const char *ident_before(const char *p, const char *start, size_t *n)
{
	while (p > start && (p[-1] == ' ' || p[-1] == '\t'))
		p--;
	if (p > start && p[-1] == '>') { /* `Class<T>::method` */
		int depth = 0;
		do {
			p--;
			depth += *p == '>' ? 1 : *p == '<' ? -1 : 0;
		} while (p > start && depth);
	}
	const char *e = p;
	while (p > start && ident_char(p[-1]))
		p--;
	*n = (size_t)(e - p);
	return *n ? p : NULL;
}

/* Whether the name at off (a whole word) is defined or declared there, and
 * the rank: the line is a function line whose header names the function. */
static fg_native_rank rank_at(const fg_native_function *fn, fg_native_lang lang, const lines *l, uint32_t line,
			      size_t off, bool member)
{
	const char *src = l->src, *end = src + l->len, *bol = src + l->start[line];
	const char *name = src + off, *after = name + strlen(fn->name);
	const char *p = after;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (lang == FG_NATIVE_RUST && p < end && *p == '<') { /* fn name<T>( */
		int depth = 0;
		do {
			depth += *p == '<' ? 1 : *p == '>' ? -1 : 0;
			p++;
		} while (p < end && depth);
	}
	if (lang == FG_NATIVE_GO && p < end && *p == '[') { /* func Name[T any]( */
		int depth = 0;
		do {
			depth += *p == '[' ? 1 : *p == ']' ? -1 : 0;
			p++;
		} while (p < end && depth);
	}
	if (p >= end || *p != '(')
		return FG_NATIVE_RANK_NONE;
	size_t qn = 0;
	const char *q = NULL;
	bool qualified = false;
	switch (lang) {
	case FG_NATIVE_GO: {
		/* `func Name(` or `func (r *T) Name(`. */
		const char *t = bol;
		while (t < name && (*t == ' ' || *t == '\t'))
			t++;
		if (name - t < 5 || memcmp(t, "func", 4))
			return FG_NATIVE_RANK_NONE;
		const char *r = skip_space(t + 4, name);
		if (r < name && *r == '(') {
			const char *close = memchr(r, ')', (size_t)(name - r));
			if (!close || skip_space(close + 1, name) != name)
				return FG_NATIVE_RANK_NONE;
			q = ident_before(close, r, &qn);
			qualified = q && qn == strlen(fn->qualifier) && !memcmp(q, fn->qualifier, qn);
		} else if (r != name) {
			return FG_NATIVE_RANK_NONE;
		}
		break;
	}
	case FG_NATIVE_RUST: {
		size_t kn;
		const char *k = ident_before(name, bol, &kn);
		if (!k || kn != 2 || memcmp(k, "fn", 2))
			return FG_NATIVE_RANK_NONE;
		break;
	}
	default: {
		const char *b = name;
		while (b > bol && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		if (b > bol && (b[-1] == '.' || (b[-1] == '>' && b - 1 > bol && b[-2] == '-')))
			return FG_NATIVE_RANK_NONE; /* a call through an object */
		for (const char *t = bol; t < b; t++)
			if (*t == '=' || *t == '(' || *t == ',' || *t == ';')
				return FG_NATIVE_RANK_NONE; /* a call in an initialiser or an expression */
		if (b - bol >= 2 && b[-1] == ':' && b[-2] == ':') {
			q = ident_before(b - 2, bol, &qn);
			qualified = q && qn == strlen(fn->qualifier) && !memcmp(q, fn->qualifier, qn);
		}
		break;
	}
	}
	if (!has_body(p + 1, end))
		/* A member declared in its class: the definition is elsewhere. */
		return member ? FG_NATIVE_RANK_NONE : FG_NATIVE_RANK_DECLARED;
	return qualified && fn->qualifier[0] ? FG_NATIVE_RANK_QUALIFIED : FG_NATIVE_RANK_DEFINED;
}

/* The line of the brace that closes the body after off (braces in strings
 * and comments skipped). */
static uint32_t closing_line(const lines *l, size_t off)
{
	const char *p = l->src + off, *end = l->src + l->len;
	int depth = 0;
	bool opened = false;
	for (; p < end; p++) {
		const char *s = skip_space(p, end);
		if (s != p) {
			p = s - 1;
			continue;
		}
		char c = *p;
		if (c == '"' || c == '\'') {
			for (p++; p < end && *p != c && *p != '\n'; p++)
				p += *p == '\\';
		} else if (c == '{') {
			depth++;
			opened = true;
		} else if (c == '}' && opened && --depth == 0) {
			break;
		}
	}
	return line_of(l, (size_t)((p < end ? p : end - 1) - l->src));
}

fg_native_rank fg_native_find(fg_method_match *out, const fg_native_driver *d, const char *src, size_t len,
			      const fg_native_function *fn)
{
	memset(out, 0, sizeof(*out));
	out->status = FG_METHOD_NOT_FOUND;
	out->reason = "the function is not defined in this file";
	size_t nlen = strlen(fn->name);
	lines l = { 0 };
	if (!nlen || !len || !memmem(src, len, fn->name, nlen) || !lines_index(&l, src, len))
		return FG_NATIVE_RANK_NONE;
	fg_native_rank best = FG_NATIVE_RANK_NONE;
	bool any_indented = false;
	for (const char *p = src; (p = memmem(p, (size_t)(src + len - p), fn->name, nlen)) != NULL; p += nlen) {
		if ((p > src && ident_char(p[-1])) || (p + nlen < src + len && ident_char(p[nlen])))
			continue;
		if (fn->name[0] == '~' ? false : (p > src && p[-1] == '~'))
			continue; /* `~Class` is not the constructor `Class` */
		size_t off = (size_t)(p - src);
		uint32_t line = line_of(&l, off);
		/* The line must be a function line for git, unless it is an
		 * indented C++ member (the cpp driver sees none there: it is
		 * ranged by its braces). */
		const char *bol = src + l.start[line];
		bool indented = d->lang == FG_NATIVE_CPP && (*bol == ' ' || *bol == '\t');
		if (!indented && !fg_native_driver_funcname(d, bol, line_len(&l, line)))
			continue;
		const char *code = bol;
		while (indented && (*code == ' ' || *code == '\t'))
			code++;
		if (indented && !ident_start(*code) && *code != '~' && *code != ':')
			continue; /* a comment's line (` * calls f() …`), a continued expression */
		fg_native_rank r = rank_at(fn, d->lang, &l, line, off, indented);
		if (r == FG_NATIVE_RANK_NONE || r < best)
			continue;
		if (r > best) {
			best = r;
			out->count = out->overloads = 0;
			any_indented = false;
		}
		if (out->count && out->ranges[out->count - 1].first == line + 1)
			continue; /* the same line named it twice */
		uint32_t last;
		if (indented) {
			last = closing_line(&l, off);
		} else { /* git: up to the line before the next function line */
			last = line + 1;
			while (last < l.count && !fg_native_driver_funcname(d, src + l.start[last], line_len(&l, last)))
				last++;
			last--;
		}
		any_indented |= indented;
		if (out->count < FG_METHOD_MAX_RANGES)
			out->ranges[out->count++] = (fg_method_range){ line + 1, last + 1 };
		out->overloads++;
	}
	free(l.start);
	if (best != FG_NATIVE_RANK_NONE) {
		out->status = FG_METHOD_FOUND;
		out->reason = any_indented ? "a member defined in its class: its header to its closing brace (git's cpp "
					     "driver sees no function line there)" :
			      best == FG_NATIVE_RANK_DECLARED ? "declared only in this file: the declaration's lines" : NULL;
	}
	return best;
}
