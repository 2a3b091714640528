#include "git/pack.h"

#include "io/mapfile.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define HASH_LEN 20
#define IDX_HEADER (8 + 256 * 4)
#define PACK_HEADER 12
#define OBJ_OFS_DELTA 6
/* Resolved objects kept for the deltas that follow (reading history newest
 * first, an older version is usually a delta of a newer one just read):
 * slots by pack offset, at most CACHE_BYTES in all, none over CACHE_ENTRY.
 * The bases a walk needs are the recent ones: 1,024 slots cost bench-methods'
 * fast-import pack 0.5% more instructions than 4,096, and the memory they
 * keep less was a quarter of the walk's page faults. */
#define CACHE_BITS 10
#define CACHE_SLOTS (1u << CACHE_BITS)
#define CACHE_BYTES ((size_t)16 << 20)
#define CACHE_ENTRY ((size_t)1 << 20)

typedef struct packfile {
	const unsigned char *idx, *pack;
	size_t idx_len, pack_len;
	bool mapped;                   /* mmap'ed, else malloc'ed */
	uint32_t n;
	const unsigned char *fanout, *ids, *off32, *off64;
	size_t n64;
} packfile;

struct fg_pack_object {
	unsigned refs;
	fg_pack_type type;
	size_t len;
	unsigned char data[];          /* len bytes, and room for inflate_into */
};

/* The first bytes of a commit read by fg_pack_read_commit_head, kept for
 * the commits that are deltas of it (in a walk, the next older ones). */
#define HEAD_BITS 8
typedef struct hslot {
	unsigned char *data;           /* len bytes of the whole's first, cap allocated */
	size_t len, whole, cap;
	uint64_t off;
	uint32_t file;
} hslot;

typedef struct cslot {
	fg_pack_object *o;             /* NULL: empty */
	uint64_t off;
	uint32_t file;
} cslot;

/* A delta of the chain being resolved: where its data starts, its size. */
typedef struct dlink {
	uint64_t off, data_off, size;
	size_t at, len, want;          /* resolve_prefix: its inflated bytes in p->arena, the bytes it makes */
} dlink;

struct fg_pack {
	packfile *f;
	size_t nf;
	z_stream zs[2];                /* zlib streams, and raw deflate (stream_start) */
	bool zinit[2];
	cslot *cache;
	size_t cached;
	unsigned char *scratch;        /* the delta being applied */
	size_t capscratch;
	dlink *chain;
	size_t capchain;               /* bytes, as the other capacities */
	unsigned char *buf[2];         /* resolve_prefix's objects, in turn */
	size_t capbuf[2];
	unsigned char *arena;          /* resolve_prefix's deltas */
	size_t caparena;
	hslot *heads;
};

/* A version-2 index and its pack that agree; false otherwise. */
static bool parse(packfile *f)
{
	const unsigned char *b = f->idx;
	if (f->idx_len < IDX_HEADER + 2 * HASH_LEN || memcmp(b, "\377tOc", 4) || fg_mapfile_be32(b + 4) != 2)
		return false;
	f->fanout = b + 8;
	uint32_t prev = 0;
	for (unsigned i = 0; i < 256; i++) {
		uint32_t v = fg_mapfile_be32(f->fanout + 4 * i);
		if (v < prev)
			return false;
		prev = v;
	}
	f->n = prev;
	uint64_t min = IDX_HEADER + (uint64_t)f->n * (HASH_LEN + 8) + 2 * HASH_LEN;
	if (f->idx_len < min || (f->idx_len - min) % 8)
		return false;
	f->ids = b + IDX_HEADER;
	f->off32 = f->ids + (size_t)f->n * (HASH_LEN + 4); /* after the ids and the CRCs */
	f->off64 = f->off32 + (size_t)f->n * 4;
	f->n64 = (size_t)(f->idx_len - min) / 8;
	const unsigned char *p = f->pack;
	/* The index ends with its pack's checksum and its own: the pack's
	 * must be the pack's last 20 bytes.  Besides a stale index, this
	 * refuses the files of another object format (a SHA-256 index can
	 * have the sizes a SHA-1 one of other counts has; its trailer does not
	 * match 20 bytes of the pack's). */
	return f->pack_len >= PACK_HEADER + HASH_LEN && !memcmp(p, "PACK", 4) &&
	       (fg_mapfile_be32(p + 4) == 2 || fg_mapfile_be32(p + 4) == 3) && fg_mapfile_be32(p + 8) == f->n &&
	       !memcmp(b + f->idx_len - 2 * HASH_LEN, p + f->pack_len - HASH_LEN, HASH_LEN);
}

static void unmap(packfile *f)
{
	if (f->mapped) {
		fg_mapfile_close(f->idx, f->idx_len);
		fg_mapfile_close(f->pack, f->pack_len);
	} else {
		free((void *)f->idx);
		free((void *)f->pack);
	}
}

static int pack_new(fg_pack **out, fg_error *err)
{
	*out = NULL;
	fg_pack *p = calloc(1, sizeof(*p));
	if (!p || !(p->cache = calloc(CACHE_SLOTS, sizeof(cslot))) || !(p->heads = calloc(1u << HEAD_BITS, sizeof(hslot))) ||
	    !(p->f = calloc(FG_PACK_MAX_PACKS, sizeof(packfile)))) {
		if (p) {
			free(p->cache);
			free(p->heads);
		}
		free(p);
		return fg_error_oom(err, NULL);
	}
	*out = p;
	return 0;
}

int fg_pack_open(fg_pack **out, const char *objects_dir, fg_error *err)
{
	*out = NULL;
	size_t dlen = strlen(objects_dir);
	char *dir = malloc(dlen + sizeof("/pack"));
	if (!dir)
		return fg_error_oom(err, NULL);
	snprintf(dir, dlen + sizeof("/pack"), "%s%spack", objects_dir, dlen && objects_dir[dlen - 1] == '/' ? "" : "/");
	DIR *d = opendir(dir);
	if (!d) {
		free(dir);
		return 0;
	}
	fg_pack *p = NULL;
	int rc = pack_new(&p, err);
	struct dirent *e;
	while (rc == 0 && p->nf < FG_PACK_MAX_PACKS && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < sizeof("pack-.idx") || strncmp(e->d_name, "pack-", 5) || strcmp(e->d_name + len - 4, ".idx"))
			continue;
		size_t plen = strlen(dir) + 1 + len + 2;
		char *path = malloc(plen);
		if (!path) {
			rc = fg_error_oom(err, NULL);
			break;
		}
		snprintf(path, plen, "%s/%s", dir, e->d_name);
		packfile *f = &p->f[p->nf];
		memset(f, 0, sizeof(*f));
		f->mapped = true;
		bool idx = fg_mapfile_open(&f->idx, &f->idx_len, path, IDX_HEADER);
		memcpy(path + strlen(path) - 4, ".pack", 6);
		bool pack = idx && fg_mapfile_open(&f->pack, &f->pack_len, path, PACK_HEADER);
		free(path);
		if (pack && parse(f)) {
			p->nf++;
			continue;
		}
		if (idx)
			fg_mapfile_close(f->idx, f->idx_len);
		if (pack)
			fg_mapfile_close(f->pack, f->pack_len);
	}
	closedir(d);
	free(dir);
	if (rc < 0 || !p->nf) {
		fg_pack_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int fg_pack_from_buffers(fg_pack **out, const void *idx, size_t idx_len, const void *pack, size_t pack_len,
			 fg_error *err)
{
	*out = NULL;
	fg_pack *p = NULL;
	int rc = pack_new(&p, err);
	if (rc < 0)
		return rc;
	packfile *f = &p->f[0];
	unsigned char *i = malloc(idx_len ? idx_len : 1), *k = malloc(pack_len ? pack_len : 1);
	if (!i || !k) {
		free(i);
		free(k);
		fg_pack_free(p);
		return fg_error_oom(err, NULL);
	}
	memcpy(i, idx, idx_len);
	memcpy(k, pack, pack_len);
	*f = (packfile){ .idx = i, .idx_len = idx_len, .pack = k, .pack_len = pack_len };
	p->nf = 1;
	if (!parse(f)) {
		fg_pack_free(p);
		return 0;
	}
	*out = p;
	return 0;
}

static void cache_clear(fg_pack *p)
{
	for (size_t i = 0; i < CACHE_SLOTS; i++) {
		fg_pack_object_free(p->cache[i].o);
		p->cache[i].o = NULL;
	}
	p->cached = 0;
}

void fg_pack_free(fg_pack *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nf; i++)
		unmap(&p->f[i]);
	free(p->f);
	if (p->cache)
		cache_clear(p);
	free(p->cache);
	free(p->scratch);
	free(p->chain);
	free(p->buf[0]);
	free(p->buf[1]);
	free(p->arena);
	for (size_t i = 0; p->heads && i < (1u << HEAD_BITS); i++)
		free(p->heads[i].data);
	free(p->heads);
	for (int i = 0; i < 2; i++)
		if (p->zinit[i])
			inflateEnd(&p->zs[i]);
	free(p);
}

const unsigned char *fg_pack_object_data(const fg_pack_object *o)
{
	return o->data;
}

size_t fg_pack_object_size(const fg_pack_object *o)
{
	return o->len;
}

fg_pack_type fg_pack_object_type(const fg_pack_object *o)
{
	return o->type;
}

void fg_pack_object_free(fg_pack_object *o)
{
	if (o && !--o->refs)
		free(o);
}

static uint64_t off_hash(uint32_t file, uint64_t off)
{
	return (off ^ (uint64_t)file << 48) * 0x9E3779B97F4A7C15ull;
}

static cslot *slot_of(fg_pack *p, uint32_t file, uint64_t off)
{
	return &p->cache[off_hash(file, off) >> (64 - CACHE_BITS)];
}

static hslot *head_slot(fg_pack *p, uint32_t file, uint64_t off)
{
	return &p->heads[off_hash(file, off) >> (64 - HEAD_BITS)];
}

/* Keeps a reference to o when it is small enough. */
static void cache_put(fg_pack *p, uint32_t file, uint64_t off, fg_pack_object *o)
{
	if (o->len > CACHE_ENTRY)
		return;
	cslot *s = slot_of(p, file, off);
	if (s->o) {
		p->cached -= s->o->len;
		fg_pack_object_free(s->o);
		s->o = NULL;
	}
	if (p->cached + o->len > CACHE_BYTES)
		cache_clear(p);
	o->refs++;
	*s = (cslot){ o, off, file };
	p->cached += o->len;
}

/* The pack offset of id, false when the index does not hold it. */
static bool find(uint64_t *off, const packfile *f, const unsigned char id[HASH_LEN])
{
	uint32_t at = fg_mapfile_find_id(f->fanout, f->ids, id);
	if (at == UINT32_MAX)
		return false;
	uint32_t v = fg_mapfile_be32(f->off32 + (size_t)at * 4);
	if (v & 0x80000000u) {
		size_t j = v & 0x7fffffffu;
		if (j >= f->n64)
			return false;
		const unsigned char *q = f->off64 + j * 8;
		*off = (uint64_t)fg_mapfile_be32(q) << 32 | fg_mapfile_be32(q + 4);
	} else {
		*off = v;
	}
	return *off >= PACK_HEADER && *off < f->pack_len - HASH_LEN;
}

/* The entry at off: its type, size, where its data starts and, for an
 * OFS_DELTA, its base's offset. */
static bool entry_header(const packfile *f, uint64_t off, unsigned *type, uint64_t *size, uint64_t *data_off,
			 uint64_t *base_off)
{
	const unsigned char *p = f->pack + off, *end = f->pack + f->pack_len - HASH_LEN;
	unsigned c = *p++;
	*type = (c >> 4) & 7;
	uint64_t sz = c & 15;
	unsigned shift = 4;
	while (c & 0x80) {
		if (p == end || shift > 57)
			return false;
		c = *p++;
		sz |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	}
	*size = sz;
	if (*type == OBJ_OFS_DELTA) {
		if (p == end)
			return false;
		c = *p++;
		uint64_t ofs = c & 0x7f;
		while (c & 0x80) {
			if (p == end || ofs >> 56)
				return false;
			c = *p++;
			ofs = ((ofs + 1) << 7) | (c & 0x7f);
		}
		if (ofs == 0 || ofs > off - PACK_HEADER)
			return false;
		*base_off = off - ofs;
	}
	if (p == end)
		return false;
	*data_off = (uint64_t)(p - f->pack);
	return true;
}

/* zlib decodes with its fast loop only while 258 bytes of output room are
 * left (the longest match): objects are small, so give it that much more
 * room than the object needs, or most of each is decoded byte by byte. */
#define INFLATE_ROOM 258

/* A reused stream set to inflate the zlib data at data_off; NULL when it
 * cannot be.  raw: past the zlib header, as raw deflate, which ends without
 * the Adler-32 check of the output (for reads that stop early, which never
 * reach it: computing it cost them 3 % of their instructions). */
static z_stream *stream_start(fg_pack *p, const packfile *f, uint64_t data_off, bool raw)
{
	z_stream *zs = &p->zs[raw];
	size_t avail = f->pack_len - HASH_LEN - (size_t)data_off;
	const unsigned char *in = f->pack + data_off;
	if (raw) {
		/* RFC 1950: deflate (8) with a window of at most 32 KiB, no
		 * preset dictionary, the check bits right. */
		if (avail < 2 || (in[0] & 15) != 8 || in[0] >> 4 > 7 || (in[1] & 0x20) || (in[0] << 8 | in[1]) % 31)
			return NULL;
		in += 2;
		avail -= 2;
	}
	if (!p->zinit[raw]) {
		memset(zs, 0, sizeof(*zs));
		if ((raw ? inflateInit2(zs, -15) : inflateInit(zs)) != Z_OK)
			return NULL;
		p->zinit[raw] = true;
	} else if (inflateReset(zs) != Z_OK) {
		return NULL;
	}
	zs->next_in = (unsigned char *)(uintptr_t)in;
	zs->avail_in = avail > UINT32_MAX ? UINT32_MAX : (uInt)avail;
	return zs;
}

/* Whether the zlib stream at data_off inflates to exactly size bytes, into
 * buf (room for size + INFLATE_ROOM + 1). */
static bool inflate_into(unsigned char *buf, fg_pack *p, const packfile *f, uint64_t data_off, size_t size)
{
	z_stream *zs = stream_start(p, f, data_off, false);
	if (!zs)
		return false;
	zs->next_out = buf;
	zs->avail_out = (uInt)(size + INFLATE_ROOM + 1);
	return inflate(zs, Z_FINISH) == Z_STREAM_END && zs->total_out == size;
}

/* A new object of size bytes (one reference), with room to inflate into. */
static fg_pack_object *object_new(fg_pack_type type, size_t size)
{
	fg_pack_object *o = malloc(sizeof(*o) + size + INFLATE_ROOM + 1);
	if (o)
		*o = (fg_pack_object){ .refs = 1, .type = type, .len = size };
	return o;
}

/* *buf (*cap bytes) grown to hold need bytes. */
static bool grow(void **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return true;
	size_t c = need < 2 * *cap ? 2 * *cap : need;
	void *b = realloc(*buf, c);
	if (!b)
		return false;
	*buf = b;
	*cap = c;
	return true;
}

static bool delta_size(uint64_t *out, const unsigned char **p, const unsigned char *end)
{
	uint64_t v = 0;
	unsigned shift = 0;
	unsigned c;
	do {
		if (*p == end || shift > 63)
			return false;
		c = *(*p)++;
		v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	*out = v;
	return true;
}

/* The copy and insert instructions of a delta (git's patch_delta) run over
 * the base: the bytes they make written to out (room bytes), or only
 * counted when out is NULL; SIZE_MAX when an instruction does not fit the
 * base, the delta or the room. */
static size_t delta_run(const unsigned char *d, const unsigned char *end, const unsigned char *base, size_t base_len,
			unsigned char *out, size_t room)
{
	size_t made = 0;
	while (d < end) {
		unsigned cmd = *d++;
		if (cmd & 0x80) {
			uint64_t off = 0, size = 0;
			for (unsigned i = 0; i < 4; i++)
				if (cmd & (1u << i)) {
					if (d == end)
						return SIZE_MAX;
					off |= (uint64_t)*d++ << (8 * i);
				}
			for (unsigned i = 0; i < 3; i++)
				if (cmd & (0x10u << i)) {
					if (d == end)
						return SIZE_MAX;
					size |= (uint64_t)*d++ << (8 * i);
				}
			if (!size)
				size = 0x10000;
			if (off > base_len || size > base_len - off || size > room - made)
				return SIZE_MAX;
			if (out)
				memcpy(out + made, base + off, (size_t)size);
			made += (size_t)size;
		} else if (cmd) {
			if (cmd > (size_t)(end - d) || cmd > room - made)
				return SIZE_MAX;
			if (out)
				memcpy(out + made, d, cmd);
			made += cmd;
			d += cmd;
		} else {
			return SIZE_MAX; /* reserved */
		}
	}
	return made;
}

/* The object a delta makes of its base; NULL when the delta does not fit
 * the base or does not make exactly the size it says.  The instructions
 * are checked before the object is allocated: a damaged size allocates
 * nothing. */
static fg_pack_object *apply_delta(const fg_pack_object *base, const unsigned char *delta, size_t delta_len)
{
	const unsigned char *d = delta, *end = delta + delta_len;
	uint64_t src, dst;
	if (!delta_size(&src, &d, end) || !delta_size(&dst, &d, end) || src != base->len || dst > FG_PACK_MAX_OBJECT ||
	    delta_run(d, end, base->data, base->len, NULL, (size_t)dst) != dst)
		return NULL;
	fg_pack_object *res = object_new(base->type, (size_t)dst);
	if (res)
		delta_run(d, end, base->data, base->len, res->data, (size_t)dst);
	return res;
}

/* Whether deflated bytes up to the pack's end can make size bytes:
 * deflate makes at most 258 bytes of 2 bits (1032 a byte); a damaged size
 * allocates nothing. */
static bool can_inflate_to(const packfile *f, uint64_t data_off, uint64_t size)
{
	return size / 1032 <= f->pack_len - HASH_LEN - data_off;
}

/* The object at off of pack fi: down its OFS_DELTA chain to a whole object
 * (or one kept in the cache), then each delta applied on the way back. */
static fg_pack_object *resolve(fg_pack *p, uint32_t fi, uint64_t off)
{
	const packfile *f = &p->f[fi];
	size_t n = 0;
	fg_pack_object *cur = NULL; /* a reference of ours */
	for (uint64_t o = off;;) {
		cslot *s = slot_of(p, fi, o);
		if (s->o && s->off == o && s->file == fi) {
			cur = s->o;
			cur->refs++;
			break;
		}
		unsigned et;
		uint64_t size, data_off, base_off = 0;
		if (!entry_header(f, o, &et, &size, &data_off, &base_off))
			return NULL;
		if (et == OBJ_OFS_DELTA) {
			if (n == FG_PACK_MAX_DEPTH || size > FG_PACK_MAX_OBJECT || !can_inflate_to(f, data_off, size))
				return NULL;
			if (!grow((void **)&p->chain, &p->capchain, (n + 1) * sizeof(dlink)))
				return NULL;
			p->chain[n++] = (dlink){ .off = o, .data_off = data_off, .size = size };
			o = base_off;
			continue;
		}
		/* A REF_DELTA (its base named by id) and the unused types are
		 * libgit2's. */
		if (et < FG_PACK_COMMIT || et > FG_PACK_TAG || size > FG_PACK_MAX_OBJECT ||
		    !can_inflate_to(f, data_off, size) || !(cur = object_new((fg_pack_type)et, (size_t)size)))
			return NULL;
		if (!inflate_into(cur->data, p, f, data_off, (size_t)size)) {
			fg_pack_object_free(cur);
			return NULL;
		}
		/* A whole commit is hardly ever a delta's base: not kept. */
		if (n || (et != FG_PACK_COMMIT && et != FG_PACK_TAG))
			cache_put(p, fi, o, cur);
		break;
	}
	while (n) {
		dlink *l = &p->chain[--n];
		if (!grow((void **)&p->scratch, &p->capscratch, (size_t)l->size + INFLATE_ROOM + 1)) {
			fg_pack_object_free(cur);
			return NULL;
		}
		fg_pack_object *res = inflate_into(p->scratch, p, f, l->data_off, (size_t)l->size)
					      ? apply_delta(cur, p->scratch, (size_t)l->size)
					      : NULL;
		fg_pack_object_free(cur);
		if (!res)
			return NULL;
		cache_put(p, fi, l->off, res);
		cur = res;
	}
	return cur;
}

bool fg_pack_read(fg_pack_object **out, fg_pack *p, const unsigned char id[20])
{
	*out = NULL;
	for (uint32_t i = 0; i < p->nf; i++) {
		uint64_t off;
		if (find(&off, &p->f[i], id) && (*out = resolve(p, i, off)))
			return true;
	}
	return false;
}

/* ---- the first bytes of an object ----------------------------------------
 *
 * A history walk reads a commit for its first lines; the rest (the message,
 * a signature) is often most of its bytes.  A whole object is inflated in
 * steps and stopped once enough is decoded; a delta's data is inflated
 * only as far as its instructions make the bytes wanted, and its base only
 * as far as those instructions copy from it, down the chain. */

/* The stream is inflated STEP_IN bytes of input at a time: zlib's fast loop
 * runs until its input is nearly used up, while a step ended by a full
 * output buffer finishes its last 258 bytes in the slow loop. */
#define STEP_IN 128
/* The bytes first wanted of a commit stored as a delta (its headers but
 * the signature are about 250); twice as many each time they fall short. */
#define HEAD_WANT 512

/* What an inflated prefix is checked against after each step: 1 enough,
 * 0 more needed, -1 the bytes cannot be right. */
typedef int (*enough_fn)(const unsigned char *b, size_t have, void *ctx);

/* Inflates the stream at data_off of size bytes into buf (room for size +
 * INFLATE_ROOM + 1) step by step until enough says so or the stream ends
 * (the whole object: exactly size bytes).  *len: the bytes decoded. */
static bool inflate_some(size_t *len, fg_pack *p, const packfile *f, uint64_t data_off, size_t size,
			 unsigned char *buf, enough_fn enough, void *ctx)
{
	z_stream *zs = stream_start(p, f, data_off, true);
	if (!zs)
		return false;
	uInt in_left = zs->avail_in;
	zs->next_out = buf;
	zs->avail_out = (uInt)(size + INFLATE_ROOM + 1);
	for (;;) {
		uInt step = in_left < STEP_IN ? in_left : STEP_IN;
		zs->avail_in = step;
		int zrc = inflate(zs, Z_NO_FLUSH);
		in_left -= step - zs->avail_in;
		size_t have = zs->total_out;
		if (have > size || (zrc != Z_OK && zrc != Z_STREAM_END) || (zrc == Z_STREAM_END && have != size))
			return false;
		int e = enough(buf, have, ctx);
		if (e < 0)
			return false;
		if (e || zrc == Z_STREAM_END) {
			*len = have;
			return true;
		}
	}
}

static int enough_bytes(const unsigned char *b, size_t have, void *ctx)
{
	(void)b;
	return have >= *(size_t *)ctx;
}

/* A delta's instructions scanned as its data is inflated. */
typedef struct dscan {
	size_t pos, made, want;
	uint64_t src, dst, need;      /* the sizes it declares; the end of the furthest base bytes copied */
	bool sized;
} dscan;

/* Runs the complete instructions of delta data d[s->pos..len) while fewer
 * than s->want bytes are made (the last one cut there): copies from base
 * (s->need bytes of it readable, or NULL to only count) or inserts, into
 * out when not NULL.  1 when s->want bytes are made, 0 when the data ends
 * first (within an instruction or not), -1 when an instruction is wrong. */
static int delta_prefix(dscan *s, const unsigned char *d, size_t len, const unsigned char *base, unsigned char *out)
{
	while (s->made < s->want) {
		const unsigned char *q = d + s->pos, *end = d + len;
		if (q == end)
			return 0;
		unsigned cmd = *q++;
		uint64_t off = 0, size = 0;
		if (cmd & 0x80) {
			for (unsigned i = 0; i < 7; i++)
				if (cmd & (1u << i)) {
					if (q == end)
						return 0;
					if (i < 4)
						off |= (uint64_t)*q++ << (8 * i);
					else
						size |= (uint64_t)*q++ << (8 * (i - 4));
				}
			if (!size)
				size = 0x10000;
			if (off > s->src || size > s->src - off || size > s->dst - s->made)
				return -1;
		} else if (cmd) {
			size = cmd;
			if (size > (size_t)(end - q))
				return 0;
			if (size > s->dst - s->made)
				return -1;
		} else {
			return -1; /* reserved */
		}
		size_t take = size < s->want - s->made ? (size_t)size : s->want - s->made;
		if (cmd & 0x80) {
			if (out)
				memcpy(out + s->made, base + off, take);
			else if (off + take > s->need)
				s->need = off + take;
		} else {
			if (out)
				memcpy(out + s->made, q, take);
			q += size;
		}
		s->made += take;
		s->pos = (size_t)(q - d);
	}
	return 1;
}

/* enough_fn of a delta's data: its sizes, then its instructions counted. */
static int enough_delta(const unsigned char *b, size_t have, void *ctx)
{
	dscan *s = ctx;
	if (!s->sized) {
		const unsigned char *q = b, *end = b + have;
		if (!delta_size(&s->src, &q, end) || !delta_size(&s->dst, &q, end))
			return have > 20 ? -1 : 0; /* two sizes take at most 20 bytes */
		if (s->dst > FG_PACK_MAX_OBJECT)
			return -1;
		s->sized = true;
		s->pos = (size_t)(q - b);
		if (s->want > s->dst)
			s->want = (size_t)s->dst;
	}
	return delta_prefix(s, b, have, NULL, NULL);
}

/* The first bytes of the object at off of pack fi: *got bytes, at least
 * want when it is that large, else all of it (*size); NULL when the reader
 * cannot give them (as resolve).  Held by p until its next read. */
static const unsigned char *resolve_prefix(size_t *got, size_t *size, fg_pack_type *type, fg_pack *p, uint32_t fi,
					   uint64_t off, size_t want)
{
	const packfile *f = &p->f[fi];
	size_t n = 0, used = 0, blen = 0;
	uint64_t bsize = 0;                    /* the declared size of the object below the last link */
	const unsigned char *b = NULL;
	int cur = 0;
	for (uint64_t o = off;;) {
		cslot *c = slot_of(p, fi, o);
		if (c->o && c->off == o && c->file == fi) {
			b = c->o->data;
			blen = bsize = c->o->len;
			*type = c->o->type;
			break;
		}
		hslot *h = head_slot(p, fi, o);
		if (h->data && h->off == o && h->file == fi && (h->len >= want || h->len == h->whole)) {
			b = h->data;
			blen = h->len;
			bsize = h->whole;
			*type = FG_PACK_COMMIT;
			break;
		}
		unsigned et;
		uint64_t esize, data_off, base_off = 0;
		if (!entry_header(f, o, &et, &esize, &data_off, &base_off) || esize > FG_PACK_MAX_OBJECT ||
		    !can_inflate_to(f, data_off, esize))
			return NULL;
		if (et != OBJ_OFS_DELTA) {
			if (et < FG_PACK_COMMIT || et > FG_PACK_TAG ||
			    !grow((void **)&p->buf[0], &p->capbuf[0], (size_t)esize + INFLATE_ROOM + 1) ||
			    !inflate_some(&blen, p, f, data_off, (size_t)esize, p->buf[0], enough_bytes, &want))
				return NULL;
			b = p->buf[0];
			bsize = esize;
			*type = (fg_pack_type)et;
			break;
		}
		dscan s = { .want = want };
		if (n == FG_PACK_MAX_DEPTH || !grow((void **)&p->chain, &p->capchain, (n + 1) * sizeof(dlink)) ||
		    !grow((void **)&p->arena, &p->caparena, used + (size_t)esize + INFLATE_ROOM + 1))
			return NULL;
		size_t len;
		if (!inflate_some(&len, p, f, data_off, (size_t)esize, p->arena + used, enough_delta, &s) || !s.sized ||
		    s.made != s.want || (n && s.dst != p->chain[n - 1].size))
			return NULL;
		/* .size: the base's size, which the link below must make */
		p->chain[n++] = (dlink){ .off = o, .size = s.src, .at = used, .len = len, .want = s.want };
		used += len;
		want = (size_t)s.need;
		o = base_off;
	}
	if (n && bsize != p->chain[n - 1].size)
		return NULL;
	while (n) {
		const dlink *l = &p->chain[--n];
		if (!grow((void **)&p->buf[cur ^ 1], &p->capbuf[cur ^ 1], l->want + 1))
			return NULL;
		unsigned char *out = p->buf[cur ^ 1];
		dscan s = { .want = l->want, .src = l->size };
		const unsigned char *q = p->arena + l->at, *end = q + l->len;
		if (!delta_size(&s.src, &q, end) || !delta_size(&s.dst, &q, end))
			return NULL;
		s.pos = (size_t)(q - (p->arena + l->at));
		/* The base bytes the instructions copy were made below. */
		if (delta_prefix(&s, p->arena + l->at, l->len, b, out) != 1 && s.made != s.dst)
			return NULL;
		b = out;
		blen = s.made;
		bsize = s.dst;
		cur ^= 1;
	}
	*got = blen;
	*size = (size_t)bsize;
	return b;
}

static int enough_head(const unsigned char *b, size_t have, void *ctx);

/* Whether b[0..n) holds the lines fg_pack_read_commit_head gives: a line
 * that starts with "committer ", or the blank line, ended. */
static bool head_complete(const unsigned char *b, size_t n)
{
	size_t line = 0;
	return enough_head(b, n, &line) == 1;
}

/* enough_fn of a commit's head; *ctx: where the first line not yet ended
 * starts, kept from step to step. */
static int enough_head(const unsigned char *b, size_t have, void *ctx)
{
	size_t *line = ctx;
	const unsigned char *nl;
	while ((nl = memchr(b + *line, '\n', have - *line))) {
		size_t start = *line;
		*line = (size_t)(nl - b) + 1;
		if (nl == b + start || (*line - start > 10 && !memcmp(b + start, "committer ", 10)))
			return 1;
	}
	return 0;
}

/* Keeps the first len bytes of the commit at off (whole bytes in all). */
static void head_put(fg_pack *p, uint32_t fi, uint64_t off, const unsigned char *b, size_t len, size_t whole)
{
	hslot *h = head_slot(p, fi, off);
	if (b == h->data)
		return; /* read from this slot */
	if (!grow((void **)&h->data, &h->cap, len ? len : 1)) {
		h->len = 0;
		h->off = 0; /* never an entry's offset */
		return;
	}
	memcpy(h->data, b, len);
	h->len = len;
	h->whole = whole;
	h->off = off;
	h->file = fi;
}

bool fg_pack_read_commit_head(const unsigned char **data, size_t *len, fg_pack *p, const unsigned char id[20])
{
	*data = NULL;
	*len = 0;
	for (uint32_t i = 0; i < p->nf; i++) {
		const packfile *f = &p->f[i];
		uint64_t off, size, data_off, base_off = 0;
		unsigned et;
		if (!find(&off, f, id) || !entry_header(f, off, &et, &size, &data_off, &base_off))
			continue;
		if (et == FG_PACK_COMMIT) {
			size_t line = 0;
			if (size > FG_PACK_MAX_OBJECT || !can_inflate_to(f, data_off, size) ||
			    !grow((void **)&p->buf[0], &p->capbuf[0], (size_t)size + INFLATE_ROOM + 1) ||
			    !inflate_some(len, p, f, data_off, (size_t)size, p->buf[0], enough_head, &line))
				continue;
			*data = p->buf[0];
			head_put(p, i, off, *data, *len, (size_t)size);
			return true;
		}
		if (et != OBJ_OFS_DELTA)
			continue;
		/* A commit stored as a delta: its first bytes through the chain,
		 * more of them when its headers are longer. */
		for (size_t want = HEAD_WANT;; want *= 2) {
			size_t got, whole;
			fg_pack_type type;
			const unsigned char *b = resolve_prefix(&got, &whole, &type, p, i, off, want);
			if (!b || type != FG_PACK_COMMIT)
				break;
			if (got == whole || head_complete(b, got)) {
				*data = b;
				*len = got;
				head_put(p, i, off, b, got, whole);
				return true;
			}
		}
	}
	return false;
}
