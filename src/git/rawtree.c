#include "git/rawtree.h"

#include <stdlib.h>
#include <string.h>

typedef struct rawtree_ent {
	uint32_t name_off, name_len, mode;
} rawtree_ent;

struct fg_rawtree {
	const unsigned char *data;
	size_t count;
	rawtree_ent ent[];
};

#define OID_BYTES 20
/* The shortest entry: a one-digit mode, a space, a one-byte name, its NUL
 * and the id. */
#define MIN_ENTRY (1 + 1 + 1 + 1 + OID_BYTES)
/* libgit2 keeps modes and name lengths in 16 bits and refuses larger ones. */
#define MAX_MODE 0xFFFFu
#define MAX_NAME 0xFFFFu

static int malformed(fg_error *err, const char *what, size_t at)
{
	return fg_error_set(err, FG_EGIT, NULL, "malformed tree object: %s at byte %zu", what, at);
}

int fg_rawtree_parse(fg_rawtree **out, const void *data, size_t len, fg_error *err)
{
	*out = NULL;
	if (len > UINT32_MAX)
		return fg_error_set(err, FG_EGIT, NULL, "tree object of %zu bytes: larger than 4 GiB", len);
	fg_rawtree *t = malloc(sizeof(*t) + (len / MIN_ENTRY + 1) * sizeof(rawtree_ent));
	if (!t)
		return fg_error_oom(err, NULL);
	t->data = data;
	t->count = 0;
	const unsigned char *p = data, *end = p + len;
	while (p < end) {
		size_t at = (size_t)(p - t->data);
		uint32_t mode = 0;
		/* Nearly every entry is a file or a directory: their modes
		 * without the digit loop. */
		if (end - p >= 7 && !memcmp(p, "100644 ", 7)) {
			mode = 0100644;
			p += 6;
		} else if (end - p >= 6 && !memcmp(p, "40000 ", 6)) {
			mode = 040000;
			p += 5;
		} else {
			const unsigned char *digits = p;
			while (p < end && *p >= '0' && *p <= '7') {
				mode = mode * 8 + (uint32_t)(*p - '0');
				if (mode > MAX_MODE) {
					fg_rawtree_free(t);
					return malformed(err, "mode out of range", at);
				}
				p++;
			}
			if (p == digits) {
				fg_rawtree_free(t);
				return malformed(err, "no octal mode followed by a space", at);
			}
		}
		if (p == end || *p != ' ') {
			fg_rawtree_free(t);
			return malformed(err, "no octal mode followed by a space", at);
		}
		const unsigned char *name = ++p;
		const unsigned char *nul = memchr(name, '\0', (size_t)(end - name));
		if (!nul || nul == name || (size_t)(nul - name) > MAX_NAME) {
			fg_rawtree_free(t);
			return malformed(err, nul ? "empty or overlong name" : "name without its NUL", at);
		}
		if ((size_t)(end - nul - 1) < OID_BYTES) {
			fg_rawtree_free(t);
			return malformed(err, "id cut short", at);
		}
		t->ent[t->count++] = (rawtree_ent){ (uint32_t)(name - t->data), (uint32_t)(nul - name), mode };
		p = nul + 1 + OID_BYTES;
	}
	*out = t;
	return 0;
}

void fg_rawtree_free(fg_rawtree *t)
{
	free(t);
}

size_t fg_rawtree_count(const fg_rawtree *t)
{
	return t->count;
}

void fg_rawtree_at(fg_rawtree_entry *out, const fg_rawtree *t, size_t i)
{
	const rawtree_ent *e = &t->ent[i];
	out->name = (const char *)t->data + e->name_off;
	out->name_len = e->name_len;
	out->mode = e->mode;
	out->id = t->data + e->name_off + e->name_len + 1;
}

/* git's order of tree entries (base_name_compare): names byte by byte, a
 * directory's as if it ended in '/'.  0 for the same name and kind. */
static int order(const fg_rawtree *t, const rawtree_ent *e, const char *name, size_t len, bool dir)
{
	const unsigned char *en = t->data + e->name_off;
	size_t n = e->name_len < len ? e->name_len : len;
	int c = memcmp(en, name, n);
	if (c)
		return c;
	unsigned c1 = n < e->name_len ? en[n] : fg_rawtree_is_dir(e->mode) ? '/' : 0;
	unsigned c2 = n < len ? (unsigned char)name[n] : dir ? '/' : 0;
	return (c1 > c2) - (c1 < c2);
}

static bool search(fg_rawtree_entry *out, const fg_rawtree *t, const char *name, size_t len, bool dir)
{
	size_t lo = 0, hi = t->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = order(t, &t->ent[mid], name, len, dir);
		if (c == 0) {
			/* A name holding '/' (git forbids it, the format does not)
			 * can compare equal to a shorter directory's. */
			if (t->ent[mid].name_len != len)
				return false;
			fg_rawtree_at(out, t, mid);
			return true;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

bool fg_rawtree_find(fg_rawtree_entry *out, const fg_rawtree *t, const char *name, size_t name_len)
{
	return search(out, t, name, name_len, true) || search(out, t, name, name_len, false);
}

uint32_t fg_rawtree_canonical_mode(uint32_t mode)
{
	if (fg_rawtree_is_dir(mode))
		return 0040000;
	if (mode & 0111)
		return 0100755;
	if ((mode & 0170000) == 0160000)
		return 0160000;
	if ((mode & 0170000) == 0120000)
		return 0120000;
	return 0100644;
}
