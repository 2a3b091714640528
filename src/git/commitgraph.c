#include "git/commitgraph.h"

#include "io/mapfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HASH_LEN 20
#define DATA_LEN (HASH_LEN + 16)  /* CDAT: tree, two parents, generation and time */
#define NO_PARENT 0x70000000u
#define OCTOPUS 0x80000000u
#define LEVEL_MAX 0x3FFFFFFFu     /* git's GENERATION_NUMBER_V1_MAX: deeper levels are written as this */
#define BLOOM_HEADER 12           /* BDAT: hash version, number of hashes, bits per entry */
#define MAX_HASHES 64             /* git writes 7; more would be a broken header */
/* The seeds git's filters hash a path with (gitformat-commit-graph(5)). */
#define SEED0 0x293ae76fu
#define SEED1 0x7e646e2cu

/* One file: the single graph, or one layer of a split chain. */
typedef struct layer {
	const unsigned char *map;
	size_t size;
	bool mapped;              /* mmap'ed, else malloc'ed */
	uint32_t n, base;         /* its commits; the commits of the layers below it */
	const unsigned char *fanout, *oids, *data, *edges, *bases;
	size_t nedges, nbases;
	/* Changed-path filters: NULL bidx when absent or unusable. */
	const unsigned char *bidx, *bdat;
	size_t bdat_len;          /* after the header */
	uint32_t bloom_version, bloom_hashes;
} layer;

struct fg_commitgraph {
	layer *l;                 /* base first */
	size_t nl;
	uint32_t n;               /* commits of all layers */
	/* The filters' settings: the top layer's that has filters; a layer
	 * with other settings is read without its filters. */
	uint32_t bloom_version, bloom_hashes;
};

/* Reads a layer's header and chunk table; false when it is not usable.
 * Filters that cannot be read leave bidx NULL, nothing else. */
static bool parse(layer *g, size_t nbases)
{
	const unsigned char *b = g->map;
	size_t size = g->size;
	if (size < 8 + 12 + HASH_LEN)
		return false;
	unsigned nchunks = b[6];
	/* CGPH, format version 1, SHA-1, as many base graphs as the chain
	 * has below this layer. */
	if (memcmp(b, "CGPH", 4) || b[4] != 1 || b[5] != 1 || b[7] != nbases ||
	    8 + ((size_t)nchunks + 1) * 12 > size - HASH_LEN)
		return false;
	const unsigned char *fanout = NULL, *oids = NULL, *data = NULL, *edges = NULL, *bidx = NULL, *bdat = NULL,
			    *bases = NULL;
	size_t fanout_len = 0, oids_len = 0, data_len = 0, edges_len = 0, bidx_len = 0, bdat_len = 0, bases_len = 0;
	for (unsigned i = 0; i < nchunks; i++) {
		const unsigned char *e = b + 8 + (size_t)i * 12;
		uint64_t off = (uint64_t)fg_mapfile_be32(e + 4) << 32 | fg_mapfile_be32(e + 8);
		uint64_t next = (uint64_t)fg_mapfile_be32(e + 16) << 32 | fg_mapfile_be32(e + 20);
		if (off > next || next > size - HASH_LEN)
			return false;
		const unsigned char *start = b + off;
		size_t len = (size_t)(next - off);
		switch (fg_mapfile_be32(e)) {
		case 0x4f494446: fanout = start, fanout_len = len; break; /* OIDF */
		case 0x4f49444c: oids = start, oids_len = len; break;     /* OIDL */
		case 0x43444154: data = start, data_len = len; break;     /* CDAT */
		case 0x45444745: edges = start, edges_len = len; break;   /* EDGE */
		case 0x42494458: bidx = start, bidx_len = len; break;     /* BIDX */
		case 0x42444154: bdat = start, bdat_len = len; break;     /* BDAT */
		case 0x42415345: bases = start, bases_len = len; break;   /* BASE */
		default: break;
		}
	}
	if (!fanout || fanout_len != 256 * 4 || !oids || !data || edges_len % 4 || bases_len != nbases * HASH_LEN)
		return false;
	uint32_t prev = 0;
	for (unsigned i = 0; i < 256; i++) {
		uint32_t v = fg_mapfile_be32(fanout + 4 * i);
		if (v < prev)
			return false;
		prev = v;
	}
	uint32_t n = prev;
	if (!n || oids_len != (size_t)n * HASH_LEN || data_len != (size_t)n * DATA_LEN)
		return false;
	g->n = n;
	g->fanout = fanout;
	g->oids = oids;
	g->data = data;
	g->edges = edges;
	g->nedges = edges_len / 4;
	g->bases = bases;
	g->nbases = nbases;
	if (bidx && bdat && bidx_len == (size_t)n * 4 && bdat_len >= BLOOM_HEADER) {
		uint32_t version = fg_mapfile_be32(bdat), hashes = fg_mapfile_be32(bdat + 4);
		if ((version == 1 || version == 2) && hashes >= 1 && hashes <= MAX_HASHES) {
			g->bidx = bidx;
			g->bdat = bdat + BLOOM_HEADER;
			g->bdat_len = bdat_len - BLOOM_HEADER;
			g->bloom_version = version;
			g->bloom_hashes = hashes;
		}
	}
	return true;
}

static void layer_unmap(layer *l)
{
	if (l->mapped)
		fg_mapfile_close(l->map, l->size);
	else
		free((void *)l->map);
}

void fg_commitgraph_free(fg_commitgraph *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->nl; i++)
		layer_unmap(&g->l[i]);
	free(g->l);
	free(g);
}

/* Adds a layer over bytes it then owns (unmapped on failure too): 0, or
 * 1 when the layer is not usable, or out of memory. */
static int add_layer(fg_commitgraph *g, const unsigned char *map, size_t size, bool mapped, fg_error *err)
{
	layer *nl = realloc(g->l, (g->nl + 1) * sizeof(*nl));
	layer l = { .map = map, .size = size, .mapped = mapped, .base = g->n };
	if (!nl) {
		layer_unmap(&l);
		return fg_error_oom(err, NULL);
	}
	g->l = nl;
	/* A layer's bases are the trailers (the file hashes) of the layers
	 * below it, in order; more commits than positions can hold: refused. */
	bool ok = parse(&l, g->nl) && (uint64_t)g->n + l.n < 0x70000000u;
	for (size_t i = 0; ok && i < g->nl; i++)
		ok = !memcmp(l.bases + i * HASH_LEN, g->l[i].map + g->l[i].size - HASH_LEN, HASH_LEN);
	if (!ok) {
		layer_unmap(&l);
		return 1;
	}
	g->l[g->nl++] = l;
	g->n += l.n;
	return 0;
}

/* The filter settings: the top layer's with filters. */
static void settle_filters(fg_commitgraph *g)
{
	for (size_t i = g->nl; i-- > 0 && !g->bloom_version;) {
		g->bloom_version = g->l[i].bloom_version;
		g->bloom_hashes = g->l[i].bloom_hashes;
	}
	for (size_t i = 0; i < g->nl; i++)
		if (g->l[i].bidx && (g->l[i].bloom_version != g->bloom_version || g->l[i].bloom_hashes != g->bloom_hashes))
			g->l[i].bidx = NULL;
}

int fg_commitgraph_from_buffer(fg_commitgraph **out, const void *data, size_t size, fg_error *err)
{
	*out = NULL;
	fg_commitgraph *g = calloc(1, sizeof(*g));
	unsigned char *copy = malloc(size ? size : 1);
	if (!g || !copy) {
		free(g);
		free(copy);
		return fg_error_oom(err, NULL);
	}
	if (size)
		memcpy(copy, data, size);
	int rc = add_layer(g, copy, size, false, err);
	if (rc) {
		fg_commitgraph_free(g);
		return rc < 0 ? rc : 0;
	}
	settle_filters(g);
	*out = g;
	return 0;
}

#define MAX_LAYERS 64

/* The layers a split chain names (objects/info/commit-graphs/
 * commit-graph-chain: one file hash a line, the base first).  0 with no
 * layer added when the chain is missing, malformed or a layer unusable. */
static int open_chain(fg_commitgraph *g, const char *dir, fg_error *err)
{
	size_t dlen = strlen(dir), cap = dlen + sizeof("/graph-.graph") + 2 * HASH_LEN;
	char *path = malloc(cap);
	if (!path)
		return fg_error_oom(err, NULL);
	snprintf(path, cap, "%s/commit-graph-chain", dir);
	FILE *f = fopen(path, "r");
	int rc = 0;
	char line[128];
	while (f && rc == 0 && fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\r\n");
		bool hex = n == 2 * HASH_LEN && g->nl < MAX_LAYERS;
		for (size_t i = 0; hex && i < n; i++)
			hex = (line[i] >= '0' && line[i] <= '9') || (line[i] >= 'a' && line[i] <= 'f');
		const unsigned char *map;
		size_t size;
		if (!hex) {
			rc = 1;
			break;
		}
		line[n] = '\0';
		snprintf(path, cap, "%s/graph-%s.graph", dir, line);
		if (!fg_mapfile_open(&map, &size, path, 8)) {
			rc = 1;
			break;
		}
		/* The layer's name is its trailer's hash. */
		bool named = size > HASH_LEN;
		for (size_t i = 0; named && i < HASH_LEN; i++) {
			unsigned v;
			named = sscanf(line + 2 * i, "%2x", &v) == 1 && map[size - HASH_LEN + i] == v;
		}
		if (!named) {
			fg_mapfile_close(map, size);
			rc = 1;
			break;
		}
		rc = add_layer(g, map, size, true, err);
	}
	if (f)
		fclose(f);
	free(path);
	if (rc > 0) { /* an unusable chain is not used at all */
		for (size_t i = 0; i < g->nl; i++)
			layer_unmap(&g->l[i]);
		g->nl = 0;
		g->n = 0;
		rc = 0;
	}
	return rc;
}

int fg_commitgraph_open(fg_commitgraph **out, const char *commondir, fg_error *err)
{
	*out = NULL;
	size_t len = strlen(commondir);
	size_t cap = len + sizeof("/objects/info/commit-graphs");
	char *path = malloc(cap);
	fg_commitgraph *g = calloc(1, sizeof(*g));
	if (!path || !g) {
		free(path);
		free(g);
		return fg_error_oom(err, NULL);
	}
	const char *sep = len && commondir[len - 1] == '/' ? "" : "/";
	int rc = 0;
	/* The single file first, as git reads it; else a split chain. */
	snprintf(path, cap, "%s%sobjects/info/commit-graph", commondir, sep);
	const unsigned char *map;
	size_t size;
	if (fg_mapfile_open(&map, &size, path, 8)) {
		rc = add_layer(g, map, size, true, err);
	} else {
		snprintf(path, cap, "%s%sobjects/info/commit-graphs", commondir, sep);
		rc = open_chain(g, path, err);
	}
	free(path);
	if (rc < 0 || !g->nl) {
		fg_commitgraph_free(g);
		return rc < 0 ? rc : 0;
	}
	settle_filters(g);
	*out = g;
	return 0;
}

uint32_t fg_commitgraph_count(const fg_commitgraph *g)
{
	return g->n;
}

/* The layer holding global position pos (pos < g->n). */
static const layer *layer_of(const fg_commitgraph *g, uint32_t pos)
{
	size_t i = g->nl;
	while (i > 1 && g->l[i - 1].base > pos)
		i--;
	return &g->l[i - 1];
}

static const unsigned char *oid_at(const fg_commitgraph *g, uint32_t pos)
{
	const layer *l = layer_of(g, pos);
	return l->oids + (size_t)(pos - l->base) * HASH_LEN;
}

uint32_t fg_commitgraph_find(const fg_commitgraph *g, const unsigned char id[20])
{
	for (size_t i = g->nl; i-- > 0;) {
		const layer *l = &g->l[i];
		uint32_t at = fg_mapfile_find_id(l->fanout, l->oids, id);
		if (at != UINT32_MAX)
			return l->base + at;
	}
	return FG_COMMITGRAPH_NONE;
}

static int bad_entry(fg_error *err, uint32_t pos)
{
	return fg_error_set(err, FG_EINVALID, "commit-graph", "entry %u: malformed or a parent that is not older", (unsigned)pos);
}

static const unsigned char *data_at(const fg_commitgraph *g, uint32_t pos)
{
	const layer *l = layer_of(g, pos);
	return l->data + (size_t)(pos - l->base) * DATA_LEN;
}

/* The commit's topological level (gitformat-commit-graph(5): the top 30
 * bits of the generation word, kept in CDAT whatever GDAT adds). */
static uint32_t level_at(const fg_commitgraph *g, uint32_t pos)
{
	return fg_mapfile_be32(data_at(g, pos) + HASH_LEN + 8) >> 2;
}

/* Whether parent may be a parent of the commit at pos: not itself, inside
 * the chain up to the commit's layer, and of a lower level (a commit's
 * level is one more than its highest parent's, so levels that do not fall
 * along every edge of a walk prove a cycle impossible; 0 is a graph written
 * before git computed levels, and the cap is shared by all deeper commits:
 * those two are not compared). */
static bool parent_ok(const fg_commitgraph *g, uint32_t pos, uint32_t limit, uint32_t level, uint32_t parent)
{
	if (parent == pos || parent >= limit)
		return false;
	uint32_t plevel = level_at(g, parent);
	return !level || !plevel || level == LEVEL_MAX || plevel < level;
}

int fg_commitgraph_commit_at(fg_commitgraph_commit *c, unsigned char (*parents)[20], size_t max,
			     const fg_commitgraph *g, uint32_t pos, fg_error *err)
{
	if (pos >= g->n)
		return bad_entry(err, pos);
	const layer *l = layer_of(g, pos);
	const unsigned char *d = data_at(g, pos);
	/* Parents are positions in the chain up to this layer. */
	uint32_t limit = l->base + l->n, level = level_at(g, pos);
	memcpy(c->tree, d, HASH_LEN);
	uint32_t p1 = fg_mapfile_be32(d + HASH_LEN), p2 = fg_mapfile_be32(d + HASH_LEN + 4);
	c->time = (int64_t)(fg_mapfile_be32(d + HASH_LEN + 8) & 3) << 32 | fg_mapfile_be32(d + HASH_LEN + 12);
	c->nparents = 0;
	if (p1 == NO_PARENT)
		return p2 == NO_PARENT ? 0 : bad_entry(err, pos);
	if (!parent_ok(g, pos, limit, level, p1) || max < 1)
		return bad_entry(err, pos);
	memcpy(parents[c->nparents++], oid_at(g, p1), HASH_LEN);
	if (p2 == NO_PARENT)
		return 0;
	if (!(p2 & OCTOPUS)) {
		if (!parent_ok(g, pos, limit, level, p2) || max < 2)
			return bad_entry(err, pos);
		memcpy(parents[c->nparents++], oid_at(g, p2), HASH_LEN);
		return 0;
	}
	/* An octopus: the second and later parents are in the layer's EDGE,
	 * the last one with its top bit set. */
	for (size_t k = p2 & ~OCTOPUS; k < l->nedges; k++) {
		uint32_t v = fg_mapfile_be32(l->edges + 4 * k);
		if (!parent_ok(g, pos, limit, level, v & ~OCTOPUS) || c->nparents == max)
			return bad_entry(err, pos);
		memcpy(parents[c->nparents++], oid_at(g, v & ~OCTOPUS), HASH_LEN);
		if (v & OCTOPUS)
			return 0;
	}
	return bad_entry(err, pos);
}

/* ---- changed-path filters ------------------------------------------------- */

static uint32_t rotl32(uint32_t x, unsigned r)
{
	return x << r | x >> (32 - r);
}

static uint32_t byte_at(const unsigned char *p, bool signed_bytes)
{
	return signed_bytes && *p >= 0x80 ? *p | 0xffffff00u : *p;
}

uint32_t fg_commitgraph_murmur3(uint32_t seed, const void *data, size_t len, bool signed_bytes)
{
	const uint32_t c1 = 0xcc9e2d51, c2 = 0x1b873593;
	const unsigned char *p = data;
	uint32_t h = seed;
	size_t blocks = len / 4;
	for (size_t i = 0; i < blocks; i++, p += 4) {
		/* Little-endian blocks; a sign-extended byte smears its high bits
		 * over the bytes above it, as version 1 did. */
		uint32_t k = byte_at(p, signed_bytes) | byte_at(p + 1, signed_bytes) << 8 |
			     byte_at(p + 2, signed_bytes) << 16 | byte_at(p + 3, signed_bytes) << 24;
		k *= c1;
		k = rotl32(k, 15);
		k *= c2;
		h ^= k;
		h = rotl32(h, 13) * 5 + 0xe6546b64;
	}
	uint32_t k = 0;
	switch (len & 3) {
	case 3:
		k ^= byte_at(p + 2, signed_bytes) << 16;
		/* fall through */
	case 2:
		k ^= byte_at(p + 1, signed_bytes) << 8;
		/* fall through */
	case 1:
		k ^= byte_at(p, signed_bytes);
		k *= c1;
		k = rotl32(k, 15);
		k *= c2;
		h ^= k;
		break;
	default:
		break;
	}
	h ^= (uint32_t)len;
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	h ^= h >> 16;
	return h;
}

bool fg_commitgraph_has_filters(const fg_commitgraph *g)
{
	return g && g->bloom_version;
}

void fg_commitgraph_bloom_key(fg_bloom_key *key, const fg_commitgraph *g, const char *path, size_t len)
{
	memset(key, 0, sizeof(*key));
	if (!fg_commitgraph_has_filters(g))
		return;
	bool high = false;
	for (size_t i = 0; i < len && !high; i++)
		high = (unsigned char)path[i] >= 0x80;
	/* Version 2 and every ASCII path: one reading.  Version 1 and a high
	 * byte: the filter's writer may have had a signed char (the usual
	 * case, git's documented hash) or an unsigned one; a path is absent
	 * only when it is absent under both. */
	bool both = g->bloom_version == 1 && high;
	key->variants = both ? 2 : 1;
	for (unsigned v = 0; v < key->variants; v++) {
		bool signed_bytes = both && v == 0;
		key->h[v][0] = fg_commitgraph_murmur3(SEED0, path, len, signed_bytes);
		key->h[v][1] = fg_commitgraph_murmur3(SEED1, path, len, signed_bytes);
	}
}

bool fg_commitgraph_maybe_changed(const fg_commitgraph *g, uint32_t pos, const fg_bloom_key *key)
{
	if (!fg_commitgraph_has_filters(g) || !key->variants || pos >= g->n)
		return true;
	const layer *l = layer_of(g, pos);
	if (!l->bidx)
		return true;
	size_t at = pos - l->base;
	uint32_t end = fg_mapfile_be32(l->bidx + 4 * at);
	uint32_t start = at ? fg_mapfile_be32(l->bidx + 4 * (at - 1)) : 0;
	if (start > end || end > l->bdat_len || start == end)
		return true; /* no filter for this commit, or an index that does not fit */
	const unsigned char *f = l->bdat + start;
	uint64_t bits = (uint64_t)(end - start) * 8;
	for (unsigned v = 0; v < key->variants; v++) {
		bool all = true;
		for (uint32_t i = 0; i < g->bloom_hashes && all; i++) {
			uint64_t bit = (uint32_t)(key->h[v][0] + i * key->h[v][1]) % bits;
			all = (f[bit / 8] >> (bit % 8)) & 1;
		}
		if (all)
			return true;
	}
	return false;
}
