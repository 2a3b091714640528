#include "git/method.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- tokens ---------------------------------------------------------------- */

enum tok_kind { T_IDENT, T_PUNCT, T_LIT };

typedef struct tok {
	uint32_t off, len;   /* in the source */
	uint32_t line;       /* 1-based */
	uint32_t col;        /* column of the token (bytes from the line start) */
	uint8_t kind;
	uint8_t bol;         /* first token of its line */
	char c;              /* T_PUNCT: the character ('-' with len 2 is "->") */
} tok;

typedef struct lexer {
	const char *s;
	size_t n, i;
	uint32_t line;
	size_t line_start;
	fg_method_lang lang;
	tok *t;
	size_t nt, capt;
	bool line_has_tok;
	bool oom;
} lexer;

/* Nesting of string templates inside templates: deeper is malformed or
 * hostile input, scanned as plain text. */
#define MAX_TEMPLATE_DEPTH 32

static void adv(lexer *lx)
{
	if (lx->s[lx->i] == '\n') {
		lx->line++;
		lx->line_start = lx->i + 1;
		lx->line_has_tok = false;
	}
	lx->i++;
}

static bool at(const lexer *lx, const char *lit)
{
	size_t k = strlen(lit);
	return lx->n - lx->i >= k && !memcmp(lx->s + lx->i, lit, k);
}

static void push(lexer *lx, enum tok_kind kind, size_t start, size_t len, uint32_t line, size_t line_start)
{
	if (lx->nt == lx->capt) {
		size_t ncap = lx->capt ? lx->capt * 2 : 256;
		tok *g = realloc(lx->t, ncap * sizeof(*g));
		if (!g) {
			lx->oom = true;
			return;
		}
		lx->t = g;
		lx->capt = ncap;
	}
	tok *t = &lx->t[lx->nt++];
	t->off = (uint32_t)start;
	t->len = (uint32_t)len;
	t->line = line;
	t->col = (uint32_t)(start - line_start);
	t->kind = (uint8_t)kind;
	t->bol = !lx->line_has_tok;
	t->c = lx->s[start];
	lx->line_has_tok = true;
}

static bool ident_start(unsigned char c)
{
	return isalpha(c) || c == '_' || c == '$' || c >= 0x80;
}

static bool ident_part(unsigned char c)
{
	return ident_start(c) || isdigit(c);
}

static void skip_block_comment(lexer *lx)
{
	bool nests = lx->lang != FG_METHOD_JAVA;
	int depth = 0;
	lx->i += 2;
	while (lx->i < lx->n) {
		if (at(lx, "*/")) {
			lx->i += 2;
			if (depth-- == 0)
				return;
		} else if (nests && at(lx, "/*")) {
			lx->i += 2;
			depth++;
		} else {
			adv(lx);
		}
	}
}

static void skip_code_until_brace(lexer *lx, int depth);

/* A string after its opening quote(s).  raw: a text block or raw string
 * (ends at `"""`, may span lines).  Templates `${…}` in Kotlin, and in
 * Scala interpolators, hold code with strings of their own. */
static void skip_string(lexer *lx, bool raw, bool templates, int depth)
{
	while (lx->i < lx->n) {
		char c = lx->s[lx->i];
		if (raw && at(lx, "\"\"\"")) {
			lx->i += 3;
			/* Kotlin and Scala raw strings may end in more quotes. */
			while (lx->lang != FG_METHOD_JAVA && lx->i < lx->n && lx->s[lx->i] == '"')
				lx->i++;
			return;
		}
		if (!raw && c == '"') {
			lx->i++;
			return;
		}
		if (!raw && c == '\n')
			return; /* unterminated: the line ends it */
		if (c == '\\' && (!raw || lx->lang == FG_METHOD_JAVA) && lx->i + 1 < lx->n) {
			lx->i++;
			adv(lx);
			continue;
		}
		if (templates && c == '$' && lx->i + 1 < lx->n && lx->s[lx->i + 1] == '{' && depth < MAX_TEMPLATE_DEPTH) {
			lx->i += 2;
			skip_code_until_brace(lx, depth + 1);
			continue;
		}
		adv(lx);
	}
}

/* Skips a char literal when one starts here ('x', '\n', '\u0041', a UTF-8
 * character); else leaves the quote (a Scala symbol `'foo`). */
static bool skip_char(lexer *lx)
{
	size_t j = lx->i + 1;
	if (j < lx->n && lx->s[j] == '\\') {
		for (size_t k = j + 2; k < lx->n && k < j + 10; k++)
			if (lx->s[k] == '\'') {
				lx->i = k + 1;
				return true;
			} else if (lx->s[k] == '\n') {
				break;
			}
		return false;
	}
	for (size_t k = j + 1; k < lx->n && k <= j + 4; k++) {
		if (lx->s[k] == '\'' && k > j) {
			if (lx->s[j] == '\n')
				return false;
			lx->i = k + 1;
			return true;
		}
		if (!((unsigned char)lx->s[k] & 0x80))
			break;
	}
	return false;
}

/* Tokenises from lx->i.  depth > 0: inside a template, stop after the `}`
 * that closes it (its tokens are not kept: a template is part of a string). */
static void lex(lexer *lx, int depth)
{
	int braces = 0;
	while (lx->i < lx->n && !lx->oom) {
		unsigned char c = (unsigned char)lx->s[lx->i];
		if (c == '\n' || c == ' ' || c == '\t' || c == '\r' || c == '\f') {
			adv(lx);
			continue;
		}
		if (at(lx, "//")) {
			while (lx->i < lx->n && lx->s[lx->i] != '\n')
				lx->i++;
			continue;
		}
		if (at(lx, "/*")) {
			skip_block_comment(lx);
			continue;
		}
		size_t start = lx->i, ls = lx->line_start;
		uint32_t line = lx->line;
		bool templates = lx->lang == FG_METHOD_KOTLIN;
		if (lx->lang == FG_METHOD_SCALA && ident_start(c) && c != '$') {
			/* s"…", f"…", raw"…" interpolators: an identifier glued to a quote. */
			size_t j = lx->i;
			while (j < lx->n && ident_part((unsigned char)lx->s[j]) && lx->s[j] != '$')
				j++;
			if (j < lx->n && lx->s[j] == '"') {
				lx->i = j;
				templates = true;
				c = '"';
			}
		}
		if (c == '"') {
			bool raw = at(lx, "\"\"\"");
			lx->i += raw ? 3 : 1;
			skip_string(lx, raw, templates, depth);
			if (!depth)
				push(lx, T_LIT, start, lx->i - start, line, ls);
			continue;
		}
		if (c == '\'' && skip_char(lx)) {
			if (!depth)
				push(lx, T_LIT, start, lx->i - start, line, ls);
			continue;
		}
		if (c == '`' && lx->lang != FG_METHOD_JAVA) {
			/* A backquoted identifier (Kotlin, Scala). */
			size_t j = lx->i + 1;
			while (j < lx->n && lx->s[j] != '`' && lx->s[j] != '\n')
				j++;
			lx->i = j < lx->n && lx->s[j] == '`' ? j + 1 : j;
			if (!depth)
				push(lx, T_IDENT, start, lx->i - start, line, ls);
			continue;
		}
		if (ident_start(c)) {
			while (lx->i < lx->n && ident_part((unsigned char)lx->s[lx->i]))
				lx->i++;
			if (!depth)
				push(lx, T_IDENT, start, lx->i - start, line, ls);
			continue;
		}
		if (isdigit(c)) {
			while (lx->i < lx->n && (isalnum((unsigned char)lx->s[lx->i]) || lx->s[lx->i] == '_' ||
						 lx->s[lx->i] == '.'))
				lx->i++;
			if (!depth)
				push(lx, T_LIT, start, lx->i - start, line, ls);
			continue;
		}
		lx->i++;
		if (depth) {
			if (c == '{')
				braces++;
			else if (c == '}' && braces-- == 0)
				return;
			continue;
		}
		if (c == '-' && lx->i < lx->n && lx->s[lx->i] == '>') {
			lx->i++;
			push(lx, T_PUNCT, start, 2, line, ls);
			continue;
		}
		push(lx, T_PUNCT, start, 1, line, ls);
	}
}

static void skip_code_until_brace(lexer *lx, int depth)
{
	lex(lx, depth);
}

/* ---- the scan --------------------------------------------------------------- */

typedef struct cls_info {
	unsigned anon_count;  /* anonymous classes numbered so far in this class */
	bool is_enum;
	bool is_interface;
} cls_info;

struct fg_method_scan {
	fg_method_decl *d;
	size_t nd, capd;
	cls_info *ci;         /* per declaration (used for classes) */
	char *names;          /* the names, NUL-separated */
	size_t nnames, capnames;
	uint32_t lines;
	bool generated;
};

typedef struct parser {
	const char *src;
	tok *t;
	size_t n;
	size_t *match;        /* the matching bracket of ( [ { ) ] }, or n when unmatched */
	fg_method_scan *s;
	fg_method_lang lang;
	bool oom;
	int depth;            /* recursion, bounded */
} parser;

#define MAX_NESTING 200

static bool is(const parser *p, size_t i, const char *word)
{
	size_t k = strlen(word);
	return i < p->n && p->t[i].len == k && !memcmp(p->src + p->t[i].off, word, k) &&
	       (p->t[i].kind == T_IDENT || (k == 1 && p->t[i].kind == T_PUNCT));
}

static bool punct(const parser *p, size_t i, char c)
{
	return i < p->n && p->t[i].kind == T_PUNCT && p->t[i].c == c && p->t[i].len == 1;
}

static bool ident(const parser *p, size_t i)
{
	return i < p->n && p->t[i].kind == T_IDENT;
}

/* Adds a declaration named by nlen bytes at name; the name is copied
 * (offsets, since the buffer moves). */
static size_t add_decl_named(parser *p, fg_decl_kind kind, size_t parent, const char *name, size_t nlen,
			     uint32_t first, uint32_t last)
{
	fg_method_scan *s = p->s;
	if (p->oom)
		return SIZE_MAX;
	if (s->nd == s->capd) {
		size_t ncap = s->capd ? s->capd * 2 : 32;
		fg_method_decl *g = realloc(s->d, ncap * sizeof(*g));
		cls_info *gi = g ? realloc(s->ci, ncap * sizeof(*gi)) : NULL;
		if (g)
			s->d = g;
		if (!g || !gi) {
			p->oom = true;
			return SIZE_MAX;
		}
		s->ci = gi;
		s->capd = ncap;
	}
	if (s->nnames + nlen + 1 > s->capnames) {
		size_t ncap = s->capnames ? s->capnames : 256;
		while (ncap < s->nnames + nlen + 1)
			ncap *= 2;
		char *g = realloc(s->names, ncap);
		if (!g) {
			p->oom = true;
			return SIZE_MAX;
		}
		s->names = g;
		s->capnames = ncap;
	}
	memcpy(s->names + s->nnames, name, nlen);
	s->names[s->nnames + nlen] = '\0';
	fg_method_decl *d = &s->d[s->nd];
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->parent = parent;
	d->name = (const char *)(uintptr_t)s->nnames; /* an offset until the scan ends */
	d->first = first;
	d->last = last < first ? first : last;
	memset(&s->ci[s->nd], 0, sizeof(s->ci[0]));
	s->nnames += nlen + 1;
	return s->nd++;
}

/* The name a token spells (a backquoted identifier without its quotes). */
static const char *tok_name(const parser *p, size_t i, size_t *len)
{
	const char *name = p->src + p->t[i].off;
	size_t n = p->t[i].len;
	if (n >= 2 && name[0] == '`') {
		name++;
		n -= name[n - 2] == '`' ? 2 : 1;
	}
	*len = n;
	return name;
}

/* Adds a declaration named by the token name_tok (SIZE_MAX: no name). */
static size_t add_decl(parser *p, fg_decl_kind kind, size_t parent, size_t name_tok, uint32_t first, uint32_t last)
{
	size_t nlen = 0;
	const char *name = name_tok != SIZE_MAX ? tok_name(p, name_tok, &nlen) : "";
	return add_decl_named(p, kind, parent, name, nlen, first, last);
}

static uint32_t line_of(const parser *p, size_t i)
{
	return i < p->n ? p->t[i].line : (p->n ? p->t[p->n - 1].line : 1);
}

/* The end of a group opened at i, or i itself when i does not open one. */
static size_t skip_group(const parser *p, size_t i)
{
	if (i < p->n && p->t[i].kind == T_PUNCT && (p->t[i].c == '(' || p->t[i].c == '[' || p->t[i].c == '{'))
		return p->match[i] < p->n ? p->match[i] : p->n - 1;
	return i;
}

static size_t new_anon(parser *p, size_t cls, uint32_t first, uint32_t last)
{
	size_t d = add_decl(p, FG_DECL_CLASS, cls, SIZE_MAX, first, last);
	if (d != SIZE_MAX && cls != SIZE_MAX)
		p->s->d[d].anon = ++p->s->ci[cls].anon_count;
	return d;
}

/* ---- Java -------------------------------------------------------------------- */

static void java_class_body(parser *p, size_t cls, size_t from, size_t to);

/* A class keyword at i that starts a declaration: `class`, `interface`,
 * `enum`, `@interface`, `record Name(` (contextual). */
static bool java_class_keyword(const parser *p, size_t i)
{
	if (!ident(p, i) || (i > 0 && (punct(p, i - 1, '.') || punct(p, i - 1, ':'))))
		return false;
	if (is(p, i, "class") || is(p, i, "interface") || is(p, i, "enum"))
		return ident(p, i + 1);
	if (is(p, i, "record"))
		return ident(p, i + 1) && (punct(p, i + 2, '(') || punct(p, i + 2, '<'));
	return false;
}

/* Code (method bodies, initialisers): anonymous and local classes. */
static void java_code(parser *p, size_t cls, size_t from, size_t to)
{
	for (size_t i = from; i < to && !p->oom; i++) {
		if (is(p, i, "new")) {
			size_t k = i + 1;
			/* The type: a qualified name with type arguments (bounded, so
			 * that `new new new …` stays linear). */
			while (k < to && k - i < 256 && !is(p, k, "new") && (ident(p, k) || punct(p, k, '.') || punct(p, k, '<') || punct(p, k, '>') ||
					  punct(p, k, ',') || punct(p, k, '?') || punct(p, k, '&') || punct(p, k, '@')))
				k++;
			if (k < to && punct(p, k, '(')) {
				size_t close = skip_group(p, k);
				if (close + 1 < to && punct(p, close + 1, '{')) {
					size_t b = close + 1, e = skip_group(p, b);
					java_code(p, cls, k + 1, close);
					size_t a = new_anon(p, cls, line_of(p, i), line_of(p, e));
					if (a != SIZE_MAX)
						java_class_body(p, a, b + 1, e);
					i = e;
				}
			}
			continue;
		}
		if (java_class_keyword(p, i)) {
			size_t name = i + 1, k = i + 2;
			while (k < to && !punct(p, k, '{') && !punct(p, k, ';'))
				k = skip_group(p, k) + 1;
			if (k < to && punct(p, k, '{')) {
				size_t e = skip_group(p, k);
				size_t d = add_decl(p, FG_DECL_CLASS, cls, name, line_of(p, i), line_of(p, e));
				if (d != SIZE_MAX) {
					p->s->d[d].local = true;
					p->s->ci[d].is_enum = is(p, i, "enum");
					p->s->ci[d].is_interface = is(p, i, "interface");
					java_class_body(p, d, k + 1, e);
				}
				i = e;
			}
		}
	}
}

/* The method name of a member head [h, e): the identifier before the last
 * top-level parenthesis group that is not an annotation's, when only
 * `throws …`, `[]` or `default …` follow it.  SIZE_MAX: not a method. */
static size_t java_method_name(const parser *p, size_t h, size_t e)
{
	size_t name = SIZE_MAX;
	for (size_t k = h; k < e; k++) {
		if (punct(p, k, '(') && k > h && ident(p, k - 1) && !(k >= h + 2 && punct(p, k - 2, '@'))) {
			size_t close = skip_group(p, k);
			size_t after = close + 1;
			while (after < e && punct(p, after, '['))
				after = skip_group(p, after) + 1;
			if (after == e || is(p, after, "throws") || is(p, after, "default"))
				name = k - 1;
			k = close;
		} else {
			k = skip_group(p, k);
		}
	}
	return name;
}

static bool head_has(const parser *p, size_t h, size_t e, const char *word)
{
	for (size_t k = h; k < e; k++) {
		if (is(p, k, word))
			return true;
		k = skip_group(p, k);
	}
	return false;
}

static bool java_name_is(const parser *p, size_t tokidx, size_t cls)
{
	const fg_method_scan *s = p->s;
	const char *cname = s->names + (uintptr_t)s->d[cls].name;
	size_t len = strlen(cname);
	return len && p->t[tokidx].len == len && !memcmp(p->src + p->t[tokidx].off, cname, len);
}

/* The members of a class body (tokens [from, to), between its braces). */
static void java_class_body(parser *p, size_t cls, size_t from, size_t to)
{
	if (++p->depth > MAX_NESTING) {
		p->depth--;
		return;
	}
	bool constants = cls != SIZE_MAX && p->s->ci[cls].is_enum;
	bool iface = cls != SIZE_MAX && p->s->ci[cls].is_interface;
	size_t i = from;
	while (i < to && !p->oom) {
		size_t h = i, k = i;
		while (k < to) {
			if (punct(p, k, ';') || punct(p, k, '{') || punct(p, k, '=') || (constants && punct(p, k, ',')))
				break;
			if (java_class_keyword(p, k))
				break;
			k = skip_group(p, k) + 1;
		}
		if (k >= to)
			break;
		uint32_t first = line_of(p, h);
		if (java_class_keyword(p, k)) {
			/* A member class: its body is the first top-level brace. */
			size_t kw = k, b = k + 2;
			while (b < to && !punct(p, b, '{') && !punct(p, b, ';'))
				b = skip_group(p, b) + 1;
			if (b >= to || punct(p, b, ';')) {
				i = b + 1;
				continue;
			}
			size_t e = skip_group(p, b);
			size_t d = add_decl(p, FG_DECL_CLASS, cls, kw + 1, first, line_of(p, e));
			if (d != SIZE_MAX) {
				p->s->ci[d].is_enum = is(p, kw, "enum");
				p->s->ci[d].is_interface = is(p, kw, "interface") || (kw > 0 && punct(p, kw - 1, '@'));
				java_class_body(p, d, b + 1, e);
			}
			constants = false;
			i = e + 1;
			continue;
		}
		if (constants) {
			/* An enum constant: `NAME`, `NAME(args)`, either with a body
			 * (an anonymous class, numbered in the enum). */
			size_t b = k;
			if (punct(p, k, '=')) {
				constants = false; /* not a constant: fall through as a member */
			} else {
				java_code(p, cls, h, k);
				if (punct(p, k, '{')) {
					size_t e = skip_group(p, k);
					size_t a = new_anon(p, cls, first, line_of(p, e));
					if (a != SIZE_MAX)
						java_class_body(p, a, k + 1, e);
					b = e + 1;
					/* the separator after the body */
					if (b < to && punct(p, b, ','))
						b++;
					else if (b < to && punct(p, b, ';'))
						b++, constants = false;
					i = b;
					continue;
				}
				if (punct(p, k, ';'))
					constants = false;
				i = k + 1;
				continue;
			}
		}
		if (punct(p, k, '=')) {
			/* A field with an initialiser: the expression runs to the
			 * `;` and is code of <init> or <clinit>. */
			size_t e = k + 1;
			while (e < to && !punct(p, e, ';'))
				e = skip_group(p, e) + 1;
			java_code(p, cls, k + 1, e < to ? e : to);
			bool stat = iface || head_has(p, h, k, "static");
			add_decl(p, stat ? FG_DECL_STATIC_INITIALIZER : FG_DECL_INITIALIZER, cls, SIZE_MAX, first,
				 line_of(p, e < to ? e : to - 1));
			i = e + 1;
			continue;
		}
		if (punct(p, k, ';')) {
			size_t name = java_method_name(p, h, k);
			if (name != SIZE_MAX)
				add_decl(p, FG_DECL_METHOD, cls, name, first, line_of(p, k));
			i = k + 1;
			continue;
		}
		/* A body. */
		size_t e = skip_group(p, k);
		size_t name = java_method_name(p, h, k);
		if (name != SIZE_MAX) {
			bool ctor = cls != SIZE_MAX && java_name_is(p, name, cls) && !p->s->d[cls].anon;
			add_decl(p, ctor ? FG_DECL_CONSTRUCTOR : FG_DECL_METHOD, cls, name, first, line_of(p, e));
		} else if (k == h || (k == h + 1 && is(p, h, "static"))) {
			add_decl(p, k == h ? FG_DECL_INITIALIZER : FG_DECL_STATIC_INITIALIZER, cls, SIZE_MAX, first,
				 line_of(p, e));
		} else if (cls != SIZE_MAX && k > h && ident(p, k - 1) && java_name_is(p, k - 1, cls)) {
			/* A record's compact constructor `Name {`. */
			add_decl(p, FG_DECL_CONSTRUCTOR, cls, k - 1, first, line_of(p, e));
		}
		java_code(p, cls, k + 1, e);
		i = e + 1;
	}
	p->depth--;
}

/* ---- Kotlin and Scala ------------------------------------------------------------ */

static bool kt_modifier(const parser *p, size_t i)
{
	static const char *const words[] = {
		"public", "private", "protected", "internal", "override", "open", "final", "abstract", "suspend",
		"inline", "operator", "infix", "tailrec", "external", "actual", "expect", "const", "lateinit",
		"data", "sealed", "enum", "annotation", "inner", "companion", "value", "implicit", "lazy",
		"case", "transparent", "static", "fun",
	};
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (is(p, i, words[k]))
			return true;
	return false;
}

/* The first token of the declaration whose keyword is at kw: back over
 * modifiers and annotations (`@Foo`, `@Foo(…)`, `@a.b.Foo`). */
static size_t kt_head(const parser *p, size_t kw, size_t from)
{
	size_t h = kw;
	while (h > from) {
		size_t k = h - 1;
		if (kt_modifier(p, k)) {
			h = k;
			continue;
		}
		if (punct(p, k, ')')) {
			size_t open = p->match[k]; /* a closer's opener, or n */
			if (open < k && open >= from + 2 && ident(p, open - 1) && punct(p, open - 2, '@')) {
				h = open - 2;
				continue;
			}
			break;
		}
		if (ident(p, k)) {
			size_t j = k;
			while (j >= from + 2 && punct(p, j - 1, '.') && ident(p, j - 2))
				j -= 2;
			if (j > from && punct(p, j - 1, '@')) {
				h = j - 1;
				continue;
			}
		}
		break;
	}
	return h;
}

static bool continues_expr(const parser *p, size_t k)
{
	static const char ops[] = ".?:&|+-*/%=<>)]}!,";
	if (p->t[k].kind == T_PUNCT && strchr(ops, p->t[k].c))
		return p->t[k].len == 1 || p->t[k].c == '-'; /* "->" continues too */
	return is(p, k, "else") || is(p, k, "catch") || is(p, k, "finally") || is(p, k, "match") ||
	       is(p, k, "with") || is(p, k, "extends") || is(p, k, "yield") || is(p, k, "then") ||
	       is(p, k, "do");
}

static bool ends_incomplete(const parser *p, size_t k)
{
	static const char ops[] = ".?:&|+-*/%=<>,(";
	if (p->t[k].kind == T_PUNCT && strchr(ops, p->t[k].c))
		return true;
	return is(p, k, "else") || is(p, k, "if") || is(p, k, "return") || is(p, k, "match") || is(p, k, "yield");
}

/* A Scala 3 end marker at k (`end NAME` alone on its line, at the column of
 * the declaration it ends): the marker's last token, else SIZE_MAX. */
static size_t scala_end_marker(const parser *p, size_t k, size_t to, uint32_t indent)
{
	if (p->lang != FG_METHOD_SCALA || !is(p, k, "end") || !p->t[k].bol || p->t[k].col != indent ||
	    !ident(p, k + 1) || p->t[k + 1].bol || (k + 2 < to && !p->t[k + 2].bol))
		return SIZE_MAX;
	return k + 1;
}

/* The last token of a Scala 3 braceless body starting at s (after the `:`
 * that ends a class line): the lines indented deeper than the declaration,
 * and its end marker. */
static size_t scala_block_end(const parser *p, size_t s, size_t to, uint32_t indent)
{
	size_t last = s - 1;
	for (size_t k = s; k < to; k++) {
		if (p->t[k].bol && p->t[k].col <= indent) {
			size_t m = scala_end_marker(p, k, to, indent);
			return m != SIZE_MAX ? m : last;
		}
		last = skip_group(p, k);
		k = last;
	}
	return last < to ? last : to - 1;
}

/* The last token of an expression body starting at s: the token before the
 * first line that starts no deeper than the declaration (indent) and does
 * not continue the expression, or a Scala 3 end marker there. */
static size_t kt_expr_end(const parser *p, size_t s, size_t to, uint32_t indent)
{
	size_t last = s;
	for (size_t k = s; k < to; k++) {
		if (k > s && p->t[k].bol && p->t[k].col <= indent && !continues_expr(p, k) && !ends_incomplete(p, last)) {
			size_t m = scala_end_marker(p, k, to, indent);
			if (m != SIZE_MAX)
				last = m;
			break;
		}
		if (punct(p, k, ';'))
			return k;
		last = skip_group(p, k);
		k = last;
	}
	return last < to ? last : to - 1;
}

static uint32_t line_indent(const parser *p, size_t i)
{
	while (i > 0 && !p->t[i].bol)
		i--;
	return p->t[i].col;
}

static void kt_body(parser *p, size_t cls, size_t from, size_t to);

static bool kt_class_keyword(const parser *p, size_t i)
{
	if (i > 0 && (punct(p, i - 1, '.') || punct(p, i - 1, ':')))
		return false; /* Foo::class, x.class */
	if (p->lang == FG_METHOD_KOTLIN)
		return is(p, i, "class") || is(p, i, "interface") || is(p, i, "object");
	return is(p, i, "class") || is(p, i, "object") || is(p, i, "trait") ||
	       (is(p, i, "enum") && ident(p, i + 1) && !is(p, i + 1, "class"));
}

/* From tokens [k, to): the `{` of a body before the declaration ends (a
 * top-level `;`, `}`, `=`, or a new line that does not continue it) — or
 * for a Scala class, the `:` that ends its line and opens a braceless body —,
 * or SIZE_MAX; *end is the declaration's last token either way. */
static size_t kt_find_body(const parser *p, size_t k, size_t to, uint32_t indent, bool fn, size_t *end, bool *expr)
{
	*expr = false;
	size_t last = k ? k - 1 : 0;
	for (; k < to; k++) {
		if (punct(p, k, '{')) {
			*end = skip_group(p, k);
			return k;
		}
		if (p->lang == FG_METHOD_SCALA && !fn && punct(p, k, ':') && (k + 1 >= to || p->t[k + 1].bol)) {
			*end = scala_block_end(p, k + 1, to, indent);
			return k;
		}
		if (punct(p, k, ';') || punct(p, k, '}'))
			break;
		if (fn && punct(p, k, '=')) {
			*expr = true;
			*end = k + 1 < to ? kt_expr_end(p, k + 1, to, indent) : k;
			return SIZE_MAX;
		}
		if (p->t[k].bol && p->t[k].col <= indent && !continues_expr(p, k) && !ends_incomplete(p, last) &&
		    !is(p, k, "where"))
			break;
		last = skip_group(p, k);
		k = last;
	}
	*end = last;
	return SIZE_MAX;
}

/* The JVM name of a Kotlin property's getter or setter: `getX` / `setX`,
 * or for a property `isX` (an "is" not followed by a lowercase letter)
 * `isX` / `setX`.  0 when it does not fit in cap. */
static size_t kt_accessor_name(char *out, size_t cap, const char *prop, size_t plen, bool setter)
{
	bool is_prefix = plen > 2 && prop[0] == 'i' && prop[1] == 's' && !(prop[2] >= 'a' && prop[2] <= 'z');
	const char *rest = is_prefix ? prop + 2 : prop;
	size_t rlen = is_prefix ? plen - 2 : plen;
	if (is_prefix && !setter) {
		if (plen + 1 > cap)
			return 0;
		memcpy(out, prop, plen);
		out[plen] = '\0';
		return plen;
	}
	if (!rlen || rlen + 4 > cap)
		return 0;
	memcpy(out, setter ? "set" : "get", 3);
	memcpy(out + 3, rest, rlen);
	if (out[3] >= 'a' && out[3] <= 'z')
		out[3] = (char)(out[3] - 'a' + 'A');
	out[3 + rlen] = '\0';
	return 3 + rlen;
}

/* Past type arguments `<…>` at k (nested), or k when there are none. */
static size_t skip_angles(const parser *p, size_t k, size_t to)
{
	if (!punct(p, k, '<'))
		return k;
	int angle = 0;
	for (; k < to; k++) {
		if (punct(p, k, '<'))
			angle++;
		else if (punct(p, k, '>') && --angle == 0)
			return k + 1;
		else if (punct(p, k, '{') || punct(p, k, ';') || punct(p, k, '='))
			break;
	}
	return k;
}

/* A Kotlin property at kw (`val` or `var`): a PROPERTY declaration, and a
 * METHOD for each accessor with a body (`get() = …`, `get() { … }`,
 * `set(v) { … }`, modifiers and annotations included).  The property ends
 * at a line that starts no deeper than it and does not continue it.
 * Returns the token to go on from: after the last accessor, or the name
 * (the initialiser may hold anonymous objects). */
static size_t kt_property(parser *p, size_t cls, size_t from, size_t to, size_t kw)
{
	size_t h = kt_head(p, kw, from);
	uint32_t indent = line_indent(p, h);
	/* The name: the last identifier of `<T> Recv<T>?.name`. */
	size_t k = skip_angles(p, kw + 1, to), name = SIZE_MAX;
	while (k < to && ident(p, k)) {
		name = k;
		k = skip_angles(p, k + 1, to);
		if (punct(p, k, '?'))
			k++;
		if (!punct(p, k, '.'))
			break;
		k++;
	}
	if (name == SIZE_MAX)
		return kw;
	size_t plen;
	const char *prop = tok_name(p, name, &plen);
	size_t end = name, resume = name;
	size_t last = name;
	bool init = false; /* past `=` or `by`: an accessor then starts its own line (`= get(0)` is a call) */
	for (k = name + 1; k < to && !p->oom; k++) {
		if (p->t[k].bol && p->t[k].col <= indent && !continues_expr(p, k) && !ends_incomplete(p, last))
			break;
		if (punct(p, k, ';'))
			break;
		init |= punct(p, k, '=') || is(p, k, "by");
		bool get = is(p, k, "get"), set_ = is(p, k, "set");
		size_t ah = get || set_ ? kt_head(p, k, name + 1) : k;
		if ((get || set_) && punct(p, k + 1, '(') && !punct(p, k - 1, '.') && (!init || p->t[ah].bol)) {
			size_t b = skip_group(p, k + 1) + 1, aend = b - 1;
			/* `get(): T = …`: past the return type. */
			while (b < to && !punct(p, b, '=') && !punct(p, b, '{') && !p->t[b].bol)
				b = skip_group(p, b) + 1;
			if (b < to && punct(p, b, '{'))
				aend = skip_group(p, b);
			else if (b + 1 < to && punct(p, b, '='))
				aend = kt_expr_end(p, b + 1, to, line_indent(p, ah));
			char jvm[FG_JAVACLASS_MAX_FRAME];
			size_t jlen = kt_accessor_name(jvm, sizeof(jvm), prop, plen, set_);
			if (jlen)
				add_decl_named(p, FG_DECL_METHOD, cls, jvm, jlen, line_of(p, ah), line_of(p, aend));
			end = resume = last = k = aend;
			continue;
		}
		last = end = skip_group(p, k);
		k = last;
	}
	add_decl(p, FG_DECL_PROPERTY, cls, name, line_of(p, h), line_of(p, end));
	return resume;
}

static void kt_body(parser *p, size_t cls, size_t from, size_t to)
{
	if (++p->depth > MAX_NESTING) {
		p->depth--;
		return;
	}
	bool kotlin = p->lang == FG_METHOD_KOTLIN;
	for (size_t i = from; i < to && !p->oom; i++) {
		if (kotlin && (is(p, i, "val") || is(p, i, "var")) && !(i > 0 && punct(p, i - 1, '.'))) {
			i = kt_property(p, cls, from, to, i);
			continue;
		}
		bool fn = kotlin ? is(p, i, "fun") : is(p, i, "def");
		if (fn && !(i > 0 && punct(p, i - 1, '.'))) {
			size_t h = kt_head(p, i, from);
			uint32_t indent = line_indent(p, h);
			/* The name: the last identifier before the parameters (past
			 * type parameters and a receiver type). */
			size_t k = i + 1, name = SIZE_MAX;
			int angle = 0;
			for (; k < to; k++) {
				if (punct(p, k, '<'))
					angle++;
				else if (punct(p, k, '>'))
					angle--;
				else if (angle <= 0 && ident(p, k))
					name = k;
				else if (angle <= 0 && !punct(p, k, '.') && !punct(p, k, '?'))
					break;
				if (angle < 0 || punct(p, k, '{') || punct(p, k, ';'))
					break;
			}
			if (name == SIZE_MAX)
				continue;
			/* Scala: `def name: T = …` has no parameters; Kotlin: `fun` without
			 * parameters is a function type, not a declaration. */
			size_t end;
			bool expr;
			size_t b = kt_find_body(p, name + 1, to, indent, true, &end, &expr);
			if (b != SIZE_MAX)
				end = skip_group(p, b);
			add_decl(p, FG_DECL_METHOD, cls, name, line_of(p, h), line_of(p, end));
			i = end;
			continue;
		}
		if (kotlin && (is(p, i, "init") || is(p, i, "constructor")) && !(i > 0 && punct(p, i - 1, '.')) &&
		    (punct(p, i + 1, '{') || punct(p, i + 1, '('))) {
			size_t h = kt_head(p, i, from), end;
			bool expr;
			size_t b = is(p, i, "init") ? i + 1 : kt_find_body(p, i + 1, to, line_indent(p, h), false, &end, &expr);
			if (b != SIZE_MAX)
				end = skip_group(p, b);
			add_decl(p, is(p, i, "init") ? FG_DECL_INITIALIZER : FG_DECL_CONSTRUCTOR, cls, SIZE_MAX,
				 line_of(p, h), line_of(p, end));
			i = end;
			continue;
		}
		if (kt_class_keyword(p, i)) {
			size_t h = kt_head(p, i, from);
			bool object = is(p, i, "object");
			size_t name = ident(p, i + 1) && !is(p, i + 1, "class") ? i + 1 : SIZE_MAX;
			bool companion = object && i > from && is(p, i - 1, "companion");
			size_t end;
			bool expr;
			size_t b = kt_find_body(p, (name != SIZE_MAX ? name : i) + 1, to, line_indent(p, h), false, &end,
						&expr);
			if (name == SIZE_MAX && !companion) {
				/* `object : T { … }`: an anonymous object; its functions are
				 * not the enclosing class's. */
				size_t d = add_decl(p, FG_DECL_CLASS, cls, SIZE_MAX, line_of(p, h), line_of(p, b != SIZE_MAX ? skip_group(p, b) : end));
				if (b != SIZE_MAX && d != SIZE_MAX)
					kt_body(p, d, b + 1, skip_group(p, b));
				i = b != SIZE_MAX ? skip_group(p, b) : end;
				continue;
			}
			/* The body's tokens: up to the closing brace, or all of a
			 * braceless body. */
			size_t body_to = end + 1;
			if (b != SIZE_MAX && punct(p, b, '{'))
				body_to = end = skip_group(p, b);
			size_t d = add_decl(p, FG_DECL_CLASS, cls, name, line_of(p, h), line_of(p, end));
			if (d != SIZE_MAX) {
				/* Kotlin's `enum class`, Scala 3's `enum`. */
				p->s->ci[d].is_enum = is(p, i, "enum") || (i > from && is(p, i - 1, "enum"));
				p->s->d[d].object = object;
				/* An unnamed `companion object` is Companion (the name
				 * is set when the scan ends). */
				if (companion && name == SIZE_MAX)
					p->s->d[d].name = (const char *)(uintptr_t)SIZE_MAX;
				if (b != SIZE_MAX)
					kt_body(p, d, b + 1, body_to < to ? body_to : to);
			}
			i = end;
			continue;
		}
	}
	p->depth--;
}

/* ---- scan entry ------------------------------------------------------------------- */

int fg_method_lang_of_path(fg_method_lang *out, const char *path)
{
	size_t len = strlen(path);
	if (len > 5 && !strcmp(path + len - 5, ".java"))
		*out = FG_METHOD_JAVA;
	else if (len > 3 && !strcmp(path + len - 3, ".kt"))
		*out = FG_METHOD_KOTLIN;
	else if (len > 6 && !strcmp(path + len - 6, ".scala"))
		*out = FG_METHOD_SCALA;
	else
		return 0;
	return 1;
}

static bool mentions(const char *s, size_t n, const char *what)
{
	size_t k = strlen(what);
	unsigned char first = (unsigned char)what[0] | 0x20; /* what starts with a letter or '@' */
	for (size_t i = 0; i + k <= n; i++)
		if (((unsigned char)s[i] | 0x20) == first && !strncasecmp(s + i, what, k))
			return true;
	return false;
}

int fg_method_scan_new(fg_method_scan **out, const char *src, size_t len, fg_method_lang lang, fg_error *err)
{
	*out = NULL;
	fg_method_scan *s = calloc(1, sizeof(*s));
	lexer lx = { .s = src, .n = len, .line = 1, .lang = lang };
	parser p = { .src = src, .s = s, .lang = lang };
	if (!s)
		return fg_error_oom(err, NULL);
	/* Offsets are 32-bit: a source file over 4 GiB is not one. */
	if (len >= UINT32_MAX)
		len = lx.n = UINT32_MAX - 1;
	lex(&lx, 0);
	p.t = lx.t;
	p.n = lx.nt;
	p.oom = lx.oom;
	s->lines = lx.line - (len && src[len - 1] == '\n' ? 1 : 0);
	if (!len)
		s->lines = 0;
	size_t head = len < 4096 ? len : 4096;
	s->generated = mentions(src, head, "@Generated") || mentions(src, head, "do not edit") ||
		       mentions(src, head, "generated by") || mentions(src, head, "autogenerated") ||
		       mentions(src, head, "auto-generated");
	if (!p.oom && p.n && !(p.match = malloc(p.n * sizeof(size_t))))
		p.oom = true;
	if (!p.oom && p.n) {
		/* Brackets matched once; an unmatched opener runs to the end, a
		 * stray closer is ignored (malformed text still scans). */
		size_t *stack = malloc(p.n * sizeof(size_t)), sp = 0;
		if (!stack) {
			p.oom = true;
		} else {
			for (size_t i = 0; i < p.n; i++) {
				p.match[i] = p.n;
				if (p.t[i].kind != T_PUNCT)
					continue;
				char c = p.t[i].c;
				if (c == '(' || c == '[' || c == '{') {
					stack[sp++] = i;
				} else if (c == ')' || c == ']' || c == '}') {
					char want = c == ')' ? '(' : c == ']' ? '[' : '{';
					/* Close the nearest opener of the same kind; openers
					 * above it are left unclosed. */
					size_t j = sp;
					while (j > 0 && p.t[stack[j - 1]].c != want)
						j--;
					if (j > 0) {
						p.match[stack[j - 1]] = i;
						p.match[i] = stack[j - 1];
						sp = j - 1;
					}
				}
			}
			free(stack);
		}
	}
	if (!p.oom && p.n) {
		if (lang == FG_METHOD_JAVA)
			java_class_body(&p, SIZE_MAX, 0, p.n);
		else
			kt_body(&p, SIZE_MAX, 0, p.n);
	}
	free(p.match);
	free(lx.t);
	if (p.oom) {
		fg_method_scan_free(s);
		return fg_error_oom(err, NULL);
	}
	/* Names were offsets while the buffer could move. */
	for (size_t i = 0; i < s->nd; i++) {
		uintptr_t off = (uintptr_t)s->d[i].name;
		s->d[i].name = off == (uintptr_t)SIZE_MAX ? "Companion" : s->names ? s->names + off : "";
	}
	*out = s;
	return 0;
}

void fg_method_scan_free(fg_method_scan *s)
{
	if (!s)
		return;
	free(s->d);
	free(s->ci);
	free(s->names);
	free(s);
}

size_t fg_method_scan_count(const fg_method_scan *s) { return s->nd; }
const fg_method_decl *fg_method_scan_at(const fg_method_scan *s, size_t i) { return i < s->nd ? &s->d[i] : NULL; }
uint32_t fg_method_scan_lines(const fg_method_scan *s) { return s->lines; }
bool fg_method_scan_generated(const fg_method_scan *s) { return s->generated; }

/* ---- frame → declarations ------------------------------------------------------------ */

static size_t find_class(const fg_method_scan *s, size_t parent, const char *name, size_t nlen, int object,
			 bool local)
{
	for (size_t i = 0; i < s->nd; i++) {
		const fg_method_decl *d = &s->d[i];
		if (d->kind != FG_DECL_CLASS || d->parent != parent || d->anon || d->local != local)
			continue;
		if (object >= 0 && d->object != (object == 1))
			continue;
		if (strlen(d->name) == nlen && !memcmp(d->name, name, nlen))
			return i;
	}
	return SIZE_MAX;
}

static void add_range(fg_method_match *m, const fg_method_decl *d)
{
	m->overloads++;
	if (m->count == FG_METHOD_MAX_RANGES)
		return;
	size_t k = m->count++;
	while (k > 0 && m->ranges[k - 1].first > d->first) {
		m->ranges[k] = m->ranges[k - 1];
		k--;
	}
	m->ranges[k].first = d->first;
	m->ranges[k].last = d->last;
}

static size_t collect(fg_method_match *m, const fg_method_scan *s, size_t cls, int kind, const char *name)
{
	size_t before = m->overloads;
	for (size_t i = 0; i < s->nd; i++) {
		const fg_method_decl *d = &s->d[i];
		if (d->parent != cls || (int)d->kind != kind)
			continue;
		if (name && strcmp(d->name, name))
			continue;
		add_range(m, d);
	}
	return m->overloads - before;
}

static bool has_method(const fg_method_scan *s, size_t cls, const char *name)
{
	for (size_t i = 0; i < s->nd; i++)
		if (s->d[i].parent == cls && s->d[i].kind == FG_DECL_METHOD && !strcmp(s->d[i].name, name))
			return true;
	return false;
}

/* Whether name is the getter or setter of a property of cls (one without
 * an accessor of that name in the source: those are METHODs). */
static bool default_accessor(const fg_method_scan *s, size_t cls, const char *name)
{
	for (size_t i = 0; i < s->nd; i++) {
		const fg_method_decl *d = &s->d[i];
		if (d->parent != cls || d->kind != FG_DECL_PROPERTY)
			continue;
		char jvm[FG_JAVACLASS_MAX_FRAME];
		for (int setter = 0; setter < 2; setter++)
			if (kt_accessor_name(jvm, sizeof(jvm), d->name, strlen(d->name), setter) && !strcmp(jvm, name))
				return true;
	}
	return false;
}

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

static void set(fg_method_match *m, fg_method_status st, const char *reason)
{
	m->status = st;
	m->reason = reason;
	if (st != FG_METHOD_FOUND)
		m->count = m->overloads = 0;
}

void fg_method_find(fg_method_match *m, const fg_method_scan *s, const fg_javaclass_parts *f)
{
	memset(m, 0, sizeof(*m));
	const char *simple = strrchr(f->class_path, '/');
	simple = simple ? simple + 1 : f->class_path;
	size_t slen = strlen(simple);
	const char *nested = f->nested;

	if (!strncmp(nested, "$Lambda", 7) || strstr(nested, "$$Lambda")) {
		set(m, FG_METHOD_UNRESOLVED, "a lambda's hidden class: its code is the lambda$... frame below it");
		return;
	}
	/* The top-level class; a Scala object `Eval$` is the object; a Kotlin
	 * file facade `FooKt` is the file's top-level functions. */
	bool module = f->dollar && !*nested;
	/* Scala 3 puts a file's top-level definitions in `File$package$` (a
	 * name no class can have: `package` is a keyword). */
	bool scala_toplevel = !strcmp(nested, "package") || !strcmp(nested, "package$");
	if (scala_toplevel)
		nested = "";
	size_t cls = scala_toplevel ? SIZE_MAX : find_class(s, SIZE_MAX, simple, slen, module ? 1 : 0, false);
	if (cls == SIZE_MAX && !module && !scala_toplevel)
		cls = find_class(s, SIZE_MAX, simple, slen, 1, false); /* an object's static forwarder */
	if (cls == SIZE_MAX && !scala_toplevel && !(slen > 2 && !strcmp(simple + slen - 2, "Kt"))) {
		set(m, FG_METHOD_NOT_FOUND, "the class is not declared in the file");
		return;
	} /* else a facade: its top-level functions have no parent */
	const char *why = NULL;
	const char *enclosing_fn = NULL; /* Kotlin `Outer$fn$1`: a lambda or object in fn */
	char fnbuf[FG_JAVACLASS_MAX_FRAME];
	for (const char *c = nested; *c && !enclosing_fn;) {
		const char *e = strchr(c, '$');
		size_t n = e ? (size_t)(e - c) : strlen(c);
		if (n == 0) {
			c = e ? e + 1 : c + n;
			continue;
		}
		size_t next = SIZE_MAX;
		if (all_digits(c, n)) {
			unsigned want = (unsigned)strtoul(c, NULL, 10);
			for (size_t i = 0; i < s->nd && next == SIZE_MAX; i++)
				if (s->d[i].kind == FG_DECL_CLASS && s->d[i].parent == cls && s->d[i].anon == want)
					next = i;
			if (next == SIZE_MAX) {
				set(m, FG_METHOD_NOT_FOUND, "no such anonymous class (javac numbers them in order of "
							    "appearance)");
				return;
			}
			why = "an anonymous class, numbered in order of appearance";
		} else if (isdigit((unsigned char)c[0])) {
			size_t d = 0;
			while (d < n && isdigit((unsigned char)c[d]))
				d++;
			next = find_class(s, cls, c + d, n - d, -1, true);
			if (next == SIZE_MAX) {
				set(m, FG_METHOD_NOT_FOUND, "no such local class");
				return;
			}
		} else {
			next = find_class(s, cls, c, n, -1, false);
			if (next == SIZE_MAX) {
				/* Kotlin and Scala compile lambdas and local objects of
				 * function fn to `Outer$fn$N`. */
				if (n < sizeof(fnbuf)) {
					memcpy(fnbuf, c, n);
					fnbuf[n] = '\0';
					if (has_method(s, cls, fnbuf)) {
						enclosing_fn = fnbuf;
						break;
					}
				}
				set(m, FG_METHOD_NOT_FOUND, "no such nested class in the file");
				return;
			}
		}
		cls = next;
		c = e ? e + 1 : c + n;
	}

	char name[FG_JAVACLASS_MAX_FRAME];
	const char *method = enclosing_fn ? enclosing_fn : f->method;
	if (enclosing_fn)
		why = "a lambda or local class of this function: the function";
	size_t mlen = strlen(method);
	if (mlen >= sizeof(name))
		mlen = sizeof(name) - 1;
	memcpy(name, method, mlen);
	name[mlen] = '\0';

	if (!strncmp(name, "access$", 7)) {
		set(m, FG_METHOD_UNRESOLVED, "a synthetic accessor (no source lines)");
		return;
	}
	/* Lambdas: javac `lambda$name$N` (`static`: <clinit>, `new`: <init>),
	 * Kotlin `name$lambda$0` / `name$lambda-0`, Scala `$anonfun$name$1`. */
	if (!strncmp(name, "lambda$", 7)) {
		char *a = name + 7, *e = strchr(a, '$');
		if (e)
			*e = '\0';
		memmove(name, a, strlen(a) + 1);
		if (!strcmp(name, "static"))
			strcpy(name, "<clinit>");
		else if (!strcmp(name, "new"))
			strcpy(name, "<init>");
		why = "a lambda: its enclosing method";
	} else if (!strncmp(name, "$anonfun$", 9)) {
		char *a = name + 9, *e = strchr(a, '$');
		if (e)
			*e = '\0';
		memmove(name, a, strlen(a) + 1);
		why = "a lambda: its enclosing method";
	} else {
		char *l = strstr(name, "$lambda");
		if (l && l != name) {
			*l = '\0';
			why = "a lambda: its enclosing method";
		}
		char *dflt = strstr(name, "$default");
		if (dflt && dflt != name && !dflt[8])
			*dflt = '\0';
		/* Kotlin's mangled names of functions over inline classes. */
		char *dash = strchr(name, '-');
		if (dash && dash != name)
			*dash = '\0';
	}
	if (!*name) {
		if (cls == SIZE_MAX) {
			set(m, FG_METHOD_NOT_FOUND, "a file facade has no declaration of its own");
			return;
		}
		add_range(m, &s->d[cls]);
		m->reason = "the class";
		return;
	}
	size_t scope = cls; /* SIZE_MAX: a facade's top-level functions */
	if (!strcmp(name, "<init>")) {
		size_t n = collect(m, s, scope, FG_DECL_CONSTRUCTOR, NULL);
		size_t inits = collect(m, s, scope, FG_DECL_INITIALIZER, NULL);
		if (!n && !inits) {
			set(m, FG_METHOD_UNRESOLVED, scope != SIZE_MAX && s->d[scope].anon ?
				"an anonymous class's constructor (its arguments are the enclosing code's)" :
				"the default or primary constructor: no source lines of its own");
			return;
		}
		m->reason = inits ? "the constructors, initialiser blocks and field initialisers" : why;
		return;
	}
	if (!strcmp(name, "<clinit>")) {
		if (!collect(m, s, scope, FG_DECL_STATIC_INITIALIZER, NULL)) {
			set(m, FG_METHOD_UNRESOLVED, "no static initialiser in the source (compiler-made)");
			return;
		}
		m->reason = why ? why : "the static initialiser blocks and static field initialisers";
		return;
	}
	if (collect(m, s, scope, FG_DECL_METHOD, name)) {
		m->reason = why;
		return;
	}
	if (default_accessor(s, scope, name)) {
		set(m, FG_METHOD_UNRESOLVED, "a Kotlin property's default accessor: no source lines of its own");
		return;
	}
	if (scope != SIZE_MAX && s->ci[scope].is_enum &&
	    (!strcmp(name, "values") || !strcmp(name, "valueOf") || !strcmp(name, "$values"))) {
		set(m, FG_METHOD_UNRESOLVED, "a compiler-made enum method");
		return;
	}
	set(m, FG_METHOD_NOT_FOUND, "the method is not declared in this class (inherited, or compiler-made)");
}
