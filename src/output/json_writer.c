#include "output/json_writer.h"

#include <inttypes.h>
#include <math.h>

#include "base/utf8.h"

void fg_json_init(fg_json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->has_value[0] = false;
	j->close[0] = '\0';
	j->after_key = false;
}

/* The separator before a value (or a key) in the current container. */
static void separate(fg_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->has_value[j->depth])
		putc(',', j->out);
	j->has_value[j->depth] = true;
}

static void open_container(fg_json *j, char open, char close)
{
	separate(j);
	putc(open, j->out);
	if (j->depth + 1 < FG_JSON_MAX_DEPTH)
		j->depth++;
	j->has_value[j->depth] = false;
	j->close[j->depth] = close;
}

void fg_json_object(fg_json *j)
{
	open_container(j, '{', '}');
}

void fg_json_array(fg_json *j)
{
	open_container(j, '[', ']');
}

void fg_json_end(fg_json *j)
{
	if (j->depth == 0)
		return;
	putc(j->close[j->depth], j->out);
	j->after_key = false;
	if (--j->depth == 0)
		putc('\n', j->out);
}

void fg_json_key(fg_json *j, const char *key)
{
	separate(j);
	fg_json_write_string(j->out, key);
	putc(':', j->out);
	j->after_key = true;
}

void fg_json_write_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	putc('"', out);
	while (*p) {
		unsigned char c = *p;
		if (c == '"' || c == '\\') {
			putc('\\', out);
			putc(c, out);
			p++;
		} else if (c < 0x20) {
			fprintf(out, "\\u%04x", c);
			p++;
		} else {
			/* At most 4 bytes are looked at; the NUL ends a cut sequence. */
			size_t n = fg_utf8_sequence(p, p[1] ? p[2] ? p[3] ? 4 : 3 : 2 : 1);
			if (n == 0) {
				fputs("\\ufffd", out);
				p++;
			} else {
				fwrite(p, 1, n, out);
				p += n;
			}
		}
	}
	putc('"', out);
}

void fg_json_string(fg_json *j, const char *s)
{
	if (!s) {
		fg_json_null(j);
		return;
	}
	separate(j);
	fg_json_write_string(j->out, s);
}

void fg_json_u64(fg_json *j, uint64_t v)
{
	separate(j);
	fprintf(j->out, "%" PRIu64, v);
}

void fg_json_i64(fg_json *j, int64_t v)
{
	separate(j);
	fprintf(j->out, "%" PRId64, v);
}

void fg_json_fixed(fg_json *j, double v, int decimals)
{
	if (!isfinite(v)) {
		fg_json_null(j);
		return;
	}
	separate(j);
	fprintf(j->out, "%.*f", decimals, v);
}

void fg_json_bool(fg_json *j, bool v)
{
	fg_json_raw(j, v ? "true" : "false");
}

void fg_json_null(fg_json *j)
{
	fg_json_raw(j, "null");
}

void fg_json_significant(fg_json *j, double v, int digits)
{
	if (!isfinite(v)) {
		fg_json_null(j);
		return;
	}
	separate(j);
	fprintf(j->out, "%.*g", digits, v);
}

void fg_json_raw(fg_json *j, const char *text)
{
	separate(j);
	fputs(text, j->out);
}

void fg_json_member_string(fg_json *j, const char *key, const char *s)
{
	fg_json_key(j, key);
	fg_json_string(j, s);
}

void fg_json_member_u64(fg_json *j, const char *key, uint64_t v)
{
	fg_json_key(j, key);
	fg_json_u64(j, v);
}

void fg_json_member_fixed(fg_json *j, const char *key, double v, int decimals)
{
	fg_json_key(j, key);
	fg_json_fixed(j, v, decimals);
}

void fg_json_member_bool(fg_json *j, const char *key, bool v)
{
	fg_json_key(j, key);
	fg_json_bool(j, v);
}
