#include "git/javaclass.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Java identifiers are mostly ASCII; bytes >= 0x80 are taken as letters so
 * that UTF-8 class names pass. */
static bool ident_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c >= 0x80;
}

static bool ident_part(unsigned char c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

/* Removes hidden-class ids: a `/0x…` or `.0x…` component (JDK 15+ hidden
 * classes, lambdas of every JDK form).  They are per-run addresses, and in
 * the slashed form the `/` would otherwise look like a package separator. */
static size_t strip_hidden_ids(char *s, size_t len)
{
	size_t i = 0;
	while (i + 2 < len) {
		if ((s[i] == '/' || s[i] == '.') && s[i + 1] == '0' && (s[i + 2] == 'x' || s[i + 2] == 'X')) {
			size_t j = i + 3;
			while (j < len && is_hex(s[j]))
				j++;
			if (j > i + 3 && (j == len || s[j] == '.' || s[j] == '/' || s[j] == '$')) {
				memmove(s + i, s + j, len - j);
				len -= j - i;
				continue;
			}
		}
		i++;
	}
	return len;
}

/* Method names: identifiers, `<init>`/`<clinit>`, and Kotlin's mangled
 * `name-hash` forms. */
static bool valid_method(const char *m, size_t len)
{
	if (len == 0)
		return false;
	if (!ident_start((unsigned char)m[0]) && m[0] != '<')
		return false;
	for (size_t i = 1; i < len; i++) {
		unsigned char c = (unsigned char)m[i];
		if (!ident_part(c) && c != '<' && c != '>' && c != '-')
			return false;
	}
	return true;
}

/* A slashed class path: at least a package and a class, each component an
 * identifier. */
static bool valid_class(const char *c, size_t len)
{
	size_t components = 0;
	size_t start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i == len || c[i] == '/') {
			if (i == start || !ident_start((unsigned char)c[start]))
				return false;
			for (size_t k = start + 1; k < i; k++)
				if (!ident_part((unsigned char)c[k]))
					return false;
			components++;
			start = i + 1;
		}
	}
	return components >= 2;
}

int fg_javaclass_parse(fg_javaclass_parts *out, const char *frame, fg_error *err)
{
	char s[FG_JAVACLASS_MAX_FRAME];
	size_t len = frame ? strlen(frame) : 0;

	if (len == 0 || len >= sizeof(s))
		return 0;
	memcpy(s, frame, len);
	s[len] = '\0';

	/* async-profiler's --annotate type suffix: _[j] _[i] _[k] _[0] _[1] … */
	if (len >= 4 && s[len - 4] == '_' && s[len - 3] == '[' && s[len - 1] == ']')
		len -= 4;
	s[len] = '\0';

	/* `[unknown]`, `[vdso]`, library paths and C++ names are never Java. */
	if (len == 0 || s[0] == '[' || s[0] == '/' || strstr(s, "::"))
		return 0;

	/* Signature `(Ljava/lang/String;)V` and line `:123`. */
	char *cut = strchr(s, '(');
	if (cut)
		len = (size_t)(cut - s);
	s[len] = '\0';
	cut = strchr(s, ':');
	if (cut)
		len = (size_t)(cut - s);
	s[len] = '\0';

	len = strip_hidden_ids(s, len);
	s[len] = '\0';
	if (len == 0)
		return 0;

	char *last_slash = strrchr(s, '/');
	char *last_dot = strrchr(s, '.');
	size_t class_len;
	const char *method = "";
	if (last_slash) {
		/* Slashed form: the method follows the last dot of the last
		 * component; without one, the name is a class. */
		if (last_dot && last_dot > last_slash) {
			if (!valid_method(last_dot + 1, len - (size_t)(last_dot + 1 - s)))
				return 0;
			class_len = (size_t)(last_dot - s);
			method = last_dot + 1;
		} else {
			class_len = len;
		}
		/* A dotted frame whose receiver class is slashed does not occur,
		 * but dots before the last slash would make no file anyway. */
		for (size_t i = 0; i < class_len; i++)
			if (s[i] == '.')
				return 0;
	} else {
		/* Dotted form: a method is required, else `a.b` is ambiguous
		 * (and `libjvm.so` would be a class). */
		if (!last_dot || !valid_method(last_dot + 1, len - (size_t)(last_dot + 1 - s)))
			return 0;
		class_len = (size_t)(last_dot - s);
		method = last_dot + 1;
		for (size_t i = 0; i < class_len; i++)
			if (s[i] == '.')
				s[i] = '/';
	}
	s[class_len] = '\0';

	/* Inner, anonymous and lambda classes live in the file of their
	 * top-level class: cut at the first `$` of the simple name, unless the
	 * name starts with it (`$Proxy12` is its own generated class). */
	char *simple = strrchr(s, '/');
	simple = simple ? simple + 1 : s;
	char *dollar = *simple ? strchr(simple + 1, '$') : NULL;
	const char *nested = dollar ? dollar + 1 : "";
	size_t top_len = dollar ? (size_t)(dollar - s) : class_len;

	if (!valid_class(s, top_len))
		return 0;
	size_t nested_len = strlen(nested), method_len = strlen(method);
	if (top_len + 1 > sizeof(out->class_path) || nested_len + 1 > sizeof(out->nested) ||
	    method_len + 1 > sizeof(out->method))
		return fg_error_set(err, FG_EUSAGE, frame, "frame name too long");
	memcpy(out->class_path, s, top_len);
	out->class_path[top_len] = '\0';
	memcpy(out->nested, nested, nested_len + 1);
	memcpy(out->method, method, method_len + 1);
	out->dollar = dollar != NULL;
	return 1;
}

int fg_javaclass_from_frame(char *out, size_t out_size, const char *frame, fg_error *err)
{
	fg_javaclass_parts parts;
	int rc = fg_javaclass_parse(&parts, frame, err);
	if (rc != 1)
		return rc;
	size_t len = strlen(parts.class_path);
	if (len + 1 > out_size)
		return fg_error_set(err, FG_EUSAGE, frame, "class name longer than %zu bytes", out_size);
	memcpy(out, parts.class_path, len + 1);
	return 1;
}

/* The components of a typed name split at '.' and '/', each a Java
 * identifier: their count (0 when the name is not of that form). */
static size_t typed_components(const char *name, const char **start, size_t *len, size_t max)
{
	size_t n = 0;
	for (const char *p = name;; p++) {
		const char *b = p;
		while (isalnum((unsigned char)*p) || *p == '_' || *p == '$')
			p++;
		if (p == b || n == max || isdigit((unsigned char)*b))
			return 0;
		start[n] = b;
		len[n++] = (size_t)(p - b);
		if (!*p)
			return n;
		if (*p != '.' && *p != '/')
			return 0;
	}
}

int fg_javaclass_from_name(char *out, size_t out_size, const char *name, fg_error *err)
{
	const char *start[64];
	size_t len[64];
	size_t n = strlen(name) < FG_JAVACLASS_MAX_FRAME ? typed_components(name, start, len, 64) : 0;
	if (!n) /* not plain identifiers: a frame's own form */
		return fg_javaclass_from_frame(out, out_size, name, err);
	/* The class: every component, or all but a method's. */
	if (!isupper((unsigned char)start[n - 1][0]))
		n--;
	if (!n || !isupper((unsigned char)start[n - 1][0]))
		return 0;
	const char *dollar = memchr(start[n - 1], '$', len[n - 1]);
	if (dollar)
		len[n - 1] = (size_t)(dollar - start[n - 1]);
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		if (at + len[i] + 2 > out_size)
			return fg_error_set(err, FG_EUSAGE, name, "class name longer than %zu bytes", out_size);
		if (i)
			out[at++] = '/';
		memcpy(out + at, start[i], len[i]);
		at += len[i];
	}
	out[at] = '\0';
	return at ? 1 : 0;
}
