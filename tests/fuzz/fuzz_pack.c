/* libFuzzer target: the pack reader (src/git/pack.h) on any bytes must never
 * crash, leak or read out of bounds, and an object it returns holds exactly
 * the bytes it says.
 *
 * Byte 0 even: a pack.  Byte 1 is the number n of objects (at most 32), then
 * n two-byte offsets into the entries that follow; the target writes the
 * pack header and trailer around the entries and an index (version 2) that
 * names object i by an id whose first byte is 8 * i and places it at the
 * i-th offset (odd i through the index's 64-bit offset table), then reads
 * every id.  Byte 0 odd: the rest is an index, read with a pack of one
 * small commit, and the ids it lists are looked up. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "git/pack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OBJECTS 32

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* Reads id and checks what comes back: its bytes are all readable, its
 * size and type in range. */
static void read_one(fg_pack *p, const unsigned char id[20])
{
	/* A commit's head (the walk's read): what it gives is readable. */
	const unsigned char *h;
	size_t hn;
	if (fg_pack_read_commit_head(&h, &hn, p, id)) {
		if (hn > FG_PACK_MAX_OBJECT)
			abort();
		volatile unsigned char first = hn ? h[0] : 0, last = hn ? h[hn - 1] : 0;
		(void)first;
		(void)last;
	} else if (h || hn) {
		abort();
	}
	fg_pack_object *o;
	if (!fg_pack_read(&o, p, id)) {
		if (o)
			abort();
		return;
	}
	const unsigned char *b = fg_pack_object_data(o);
	size_t n = fg_pack_object_size(o);
	fg_pack_type t = fg_pack_object_type(o);
	if (n > FG_PACK_MAX_OBJECT || t < FG_PACK_COMMIT || t > FG_PACK_TAG)
		abort();
	/* Its ends and a byte a page: ASan checks that they are allocated
	 * (every byte would make large objects the whole run's time). */
	volatile unsigned char sink = 0;
	for (size_t i = 0; i < n; i += 4096)
		sink ^= b[i];
	if (n)
		sink ^= b[n - 1];
	(void)sink;
	fg_pack_object_free(o);
}

static void from_pack(const uint8_t *data, size_t size)
{
	if (size < 1)
		return;
	size_t n = data[0] % (MAX_OBJECTS + 1);
	if (size < 1 + 2 * n)
		return;
	const uint8_t *offs = data + 1, *body = data + 1 + 2 * n;
	size_t body_len = size - 1 - 2 * n;
	size_t pack_len = 12 + body_len + 20;
	unsigned char *pack = calloc(1, pack_len);
	size_t n64 = n / 2;
	size_t idx_len = 8 + 1024 + n * 28 + n64 * 8 + 40;
	unsigned char *idx = calloc(1, idx_len);
	if (!pack || !idx) {
		free(pack);
		free(idx);
		return;
	}
	memcpy(pack, "PACK", 4);
	put32(pack + 4, 2);
	put32(pack + 8, (uint32_t)n);
	memcpy(pack + 12, body, body_len);
	memcpy(idx, "\377tOc", 4);
	put32(idx + 4, 2);
	unsigned char *ids = idx + 8 + 1024, *off32 = ids + n * 24, *off64 = off32 + n * 4;
	for (size_t i = 0; i < n; i++) {
		ids[i * 20] = (unsigned char)(8 * i);
		uint32_t off = 12 + (uint32_t)(offs[2 * i] << 8 | offs[2 * i + 1]);
		if (i % 2) {
			size_t j = i / 2;
			put32(off32 + i * 4, 0x80000000u | (uint32_t)j);
			put32(off64 + j * 8, 0);
			put32(off64 + j * 8 + 4, off);
		} else {
			put32(off32 + i * 4, off);
		}
	}
	/* Object i's id starts with 8 * i: b / 8 + 1 of them start with a byte
	 * of at most b. */
	for (unsigned b = 0; b < 256; b++)
		put32(idx + 8 + 4 * b, (uint32_t)(b / 8 + 1 < n ? b / 8 + 1 : n));
	fg_pack *p;
	if (fg_pack_from_buffers(&p, idx, idx_len, pack, pack_len, NULL) == 0 && p) {
		unsigned char id[20] = { 0 };
		for (size_t i = 0; i < n; i++) {
			id[0] = (unsigned char)(8 * i);
			read_one(p, id);
			read_one(p, id); /* again: now from the pack's cache */
		}
		id[0] = 1; /* not in the index */
		read_one(p, id);
		fg_pack_free(p);
	}
	free(pack);
	free(idx);
}

/* A pack of one commit, "tree 0…\n" (deflated, stored block). */
static const unsigned char one_commit[] = {
	'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 1,
	0x1a, 0x78, 0x01, 0x01, 0x0a, 0x00, 0xf5, 0xff, 't', 'r', 'e', 'e', ' ', '0', '0', '0', '0', '\n',
	0x11, 0xe9, 0x02, 0x9b,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static void from_index(uint8_t *data, size_t size)
{
	fg_pack *p;
	/* The index names its pack by the pack's checksum (the reader checks
	 * it): the one pack's, so that the rest of the index is reached. */
	if (size >= 40)
		memcpy(data + size - 40, one_commit + sizeof(one_commit) - 20, 20);
	if (fg_pack_from_buffers(&p, data, size, one_commit, sizeof(one_commit), NULL) || !p)
		return;
	/* The ids the index lists (where its table would be), and others. */
	size_t table = 8 + 1024;
	for (size_t i = 0; i < 4 && table + (i + 1) * 20 <= size; i++)
		read_one(p, data + table + i * 20);
	unsigned char id[20];
	memset(id, 0, sizeof(id));
	read_one(p, id);
	memset(id, 0xff, sizeof(id));
	read_one(p, id);
	fg_pack_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	/* Copies of exactly the bytes, so that ASan sees any read past them. */
	uint8_t *copy = malloc(size - 1 ? size - 1 : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	if (data[0] % 2)
		from_index(copy, size - 1);
	else
		from_pack(copy, size - 1);
	free(copy);
	return 0;
}
