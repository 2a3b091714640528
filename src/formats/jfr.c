#include "formats/jfr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/handoff.h"
#include "base/idarray.h"
#include "formats/keymap.h"
#include "formats/stackbuf.h"
#include "formats/varint.h"

/* The chunk layout (all integers LEB128 except the header's):
 *   header: "FLR\0", u16 major, u16 minor, i64 size, i64 constant pool
 *           offset, i64 metadata offset, i64 start (ns), i64 duration (ns),
 *           i64 start ticks, i64 ticks per second, u32 flags (68 bytes)
 *   events: size, type id, fields as the metadata declares them; type 0 is
 *           the metadata event, type 1 a checkpoint (constant pools).
 * A chunk is read whole (its metadata and pools may sit after its events),
 * in three passes over it in memory: metadata; constant pools and which
 * events are present; the events of the chosen kind, aggregated by (stack,
 * thread, class).  The aggregated stacks are then resolved once each.
 *
 * The passes need no name and call no visitor (read_chunk); the resolution
 * does both (visit_chunk).  With a core to spare (fg_read_options.split) a
 * second thread reads and passes over chunk k + 1 while this one resolves
 * chunk k: see "Chunks on two threads" below. */

#define HEADER_SIZE 68
#define MAX_NESTING 32  /* inline structs within structs; JDK types nest 2-3 deep */

enum kind { K_STRUCT, K_BYTE, K_VARINT, K_FLOAT, K_DOUBLE, K_STRING };

/* What a field means to fgbisect, from its name (the class it belongs to
 * tells which meaning applies). */
enum role {
	R_NONE, R_START, R_DURATION, R_STACK, R_SAMPLED_THREAD, R_EVENT_THREAD, R_CLASS, R_ALLOC_SIZE,
	R_TLAB_SIZE, R_WEIGHT, R_SAMPLES, R_OS_NAME, R_OS_TID, R_JAVA_NAME, R_FRAMES, R_METHOD, R_TYPE,
	R_NAME, R_STRING, R_DESCRIPTION, R_COUNT
};

static const char *const role_names[R_COUNT] = {
	[R_START] = "startTime", [R_DURATION] = "duration", [R_STACK] = "stackTrace",
	[R_SAMPLED_THREAD] = "sampledThread", [R_EVENT_THREAD] = "eventThread",
	[R_CLASS] = "objectClass", [R_ALLOC_SIZE] = "allocationSize", [R_TLAB_SIZE] = "tlabSize",
	[R_WEIGHT] = "weight", [R_SAMPLES] = "samples", [R_OS_NAME] = "osName",
	[R_OS_TID] = "osThreadId", [R_JAVA_NAME] = "javaName", [R_FRAMES] = "frames",
	[R_METHOD] = "method", [R_TYPE] = "type", [R_NAME] = "name", [R_STRING] = "string",
	[R_DESCRIPTION] = "description",
};

/* The events fgbisect reads, by kind. */
enum event { EV_NONE = -1, EV_CPU, EV_WALL, EV_ALLOC, EV_LOCK, EV_COUNT };
static const char *const event_names[EV_COUNT] = { "cpu", "wall", "alloc", "lock" };
static const char *const event_units[EV_COUNT] = { "samples", "samples", "bytes", "ns" };

static const struct {
	const char *name;
	enum event event;
	uint8_t class_frame; /* type of the allocated / locked class frame (async-profiler's converter) */
} event_types[] = {
	{ "jdk.ExecutionSample", EV_CPU, 0 },
	{ "profiler.WallClockSample", EV_WALL, 0 },
	{ "jdk.ObjectAllocationInNewTLAB", EV_ALLOC, FG_FRAME_INLINED },
	{ "jdk.ObjectAllocationOutsideTLAB", EV_ALLOC, FG_FRAME_KERNEL },
	{ "jdk.ObjectAllocationSample", EV_ALLOC, FG_FRAME_INLINED },
	{ "jdk.JavaMonitorEnter", EV_LOCK, FG_FRAME_INLINED },
	{ "jdk.ThreadPark", EV_LOCK, FG_FRAME_INLINED },
};

struct field {
	uint64_t type_id;
	uint32_t cls;   /* index into classes */
	uint8_t role;
	bool cpool;     /* the value is a constant-pool key */
	bool array;
};

struct jclass {
	uint64_t id;
	const char *name;
	uint32_t field0, nfields;
	uint8_t kind;
	int8_t event;        /* enum event, for event types */
	uint8_t class_frame;
	/* Every field a plain integer or a pool key (a StackFrame: method, line,
	 * bytecode index, type): the count of them, else 0.  Such values are
	 * read and skipped as that many varints, without the generic walk. */
	uint8_t flat;
	bool flat_stack_ref; /* flat, and a stackTrace field is a pool key */
	int8_t method_at, type_at; /* flat: the (last) method and type fields that are pool keys, or -1 */
	uint16_t needed;     /* flat event: the fields read_event() reads (bit i: field i); the others skipped */
};

#define MAX_FLAT 16
#define CHUNK_PADDING 16
/* method_name()'s answer: the name id, and above it what the visitor said
 * of the name (FRAME_HELD, FRAME_STOP: the same flags as method_ids' two top
 * bits). */
enum { FRAME_HELD = 1, FRAME_STOP = 2 };
#define METHOD_HELD ((uint64_t)FRAME_HELD << 32)
#define METHOD_STOP ((uint64_t)FRAME_STOP << 32)
/* method_ids' entries: a name id below ID_HELD - 1 (a larger id is not kept
 * there, it could read as ID_UNKNOWN), ID_STOP set when the name ends a
 * stack, ID_HELD when the visitor has an inert function and it said the
 * name is not inert (the frame must be handed); ID_UNKNOWN not resolved.
 * 32 bits, not 64: half the cache
 * lines for the frame loop's lookups (a chunk's 7,000 methods, both
 * variants). */
#define ID_STOP (UINT32_C(1) << 31)
#define ID_HELD (UINT32_C(1) << 30)
#define ID_UNKNOWN UINT32_MAX
#define DIRECT_METHODS (UINT64_C(1) << 22)
#define DIRECT_KEYS (UINT64_C(1) << 22) /* stack keys below this go to an array */

struct cur {
	const uint8_t *p, *end;
	bool bad;
};

/* A field's value in an event or struct: where it starts, and its field. */
struct at {
	const uint8_t *p;
	const struct field *f;
};

struct str {
	const char *s;
	size_t len;
};

struct jfr {
	fg_input *in;
	fg_names *names;
	fg_stack_fn fn;
	fg_stop_fn stop;         /* the visitor's (profile.h), or NULL */
	fg_inert_fn inert;       /* the visitor's (profile.h), or NULL */
	void *ctx;
	fg_profile_info *info;
	const fg_read_options *opts;
	fg_error *err;

	/* The chunk being read: base NULL past the last.  Its bytes are read
	 * into buf (CHUNK_PADDING zeroed bytes after them), this reader's own,
	 * so that the other reader of the two-thread reading may read the
	 * next chunk meanwhile. */
	const uint8_t *base;
	size_t size;
	uint8_t *buf;
	size_t buf_cap;
	bool visit;              /* read_chunk() left aggregated stacks for visit_chunk() */
	int64_t start_nanos, start_ticks, ticks_per_second;
	uint64_t chunk_no;

	/* Its metadata. */
	char *arena;             /* decoded metadata strings */
	size_t arena_len, arena_cap;
	uint32_t *mstr;          /* string index -> arena offset */
	size_t nmstr, mstr_cap;
	struct jclass *classes;
	size_t nclasses, classes_cap;
	struct field *fields;
	size_t nfields, fields_cap;
	fg_keymap class_by_id;   /* class id -> index */
	uint32_t c_string, c_method, c_class, c_thread, c_stack; /* or UINT32_MAX */
	/* A StackTrace whose fields before its frames are all integers
	 * (async-profiler's and the JDK's: truncated): how to step over them
	 * (bit i set: field i a byte, else a varint) to the frames field; NULL
	 * when it is otherwise (then walked). */
	const struct field *st_frames;
	uint32_t st_before, st_bytes;
	bool st_last;            /* and the frames field is its last */
	uint64_t last_type;      /* a one-entry cache of class_by_id for events */
	uint32_t last_cls;

	/* Its constant pools and memoised names. */
	fg_keymap pool;          /* (class index, key) -> offset of the value in the chunk */
	fg_keymap name_cache;    /* (enum name_kind, key, variant) -> name id */
	uint64_t *sdirect;       /* stack key -> weight, for samples without thread or class */
	size_t sdirect_len;
	uint32_t *sused;         /* the stack keys of sdirect in use */
	size_t nsused, sused_cap;
	uint32_t **pdirect;      /* per class index: key -> offset in the chunk (0: none), dense keys */
	size_t *pdirect_len;
	size_t npdirect;
	size_t pdirect_total;    /* the sum of pdirect_len */
	uint64_t pool_announced; /* the chunk's pool entries, as its pools' counts say */
	uint64_t pool_sparse;    /* the chunk's entries in the map */
	/* (method key << 1 | native) -> name id | ID_STOP when stop said the
	 * name ends a stack | ID_HELD when inert said it is not inert,
	 * ID_UNKNOWN unknown; for small keys and ids. */
	uint32_t *method_ids;
	size_t method_ids_len;
	bool cut;                /* this chunk's stack traces may end at a METHOD_STOP frame */
	fg_keymap samples[2];    /* (stack key, thread key, class key) -> weight; [1]: class frame is kernel */

	enum event event;        /* the event read; EV_NONE until chosen */
	bool have_samples;
	int64_t rec_start;       /* ns: the first chunk's start */
	bool have_rec_start;
	int64_t from_ns, to_ns;  /* the kept window, relative to rec_start */
	bool window;

	char *scratch;           /* converted strings (UTF-16, Latin-1), valid until the next */
	size_t scratch_cap;
	char *name;              /* a name being built */
	size_t name_len, name_cap;
	fg_stackbuf stack;
};

static int bad(struct jfr *j, const char *what)
{
	return fg_error_set(j->err, FG_EINVALID, fg_input_name(j->in), "chunk %llu: %s",
			    (unsigned long long)j->chunk_no, what);
}

static int nomem(struct jfr *j)
{
	return fg_error_oom(j->err, fg_input_name(j->in));
}

/* ---- primitives ---------------------------------------------------------- */

/* JFR's compressed integer: 7 bits a byte, low first, the 9th byte whole. */
static uint64_t varint_long(struct cur *c)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++) {
		if (c->p >= c->end) {
			c->bad = true;
			return 0;
		}
		uint8_t b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return v;
	}
	if (c->p >= c->end) {
		c->bad = true;
		return 0;
	}
	return v | (uint64_t)*c->p++ << 56;
}

/* varint() where 9 bytes are known to be there: no bounds to check.  A
 * varint of several bytes (time stamps, large keys) is read as one word:
 * its end is the first byte with the top bit clear. */
static inline uint64_t varint_in(const uint8_t **pp)
{
	const uint8_t *p = *pp;
	if (p[0] < 0x80) {
		*pp = p + 1;
		return p[0];
	}
	if (p[1] < 0x80) {
		*pp = p + 2;
		return (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
	}
	uint64_t v;
	if (fg_varint_word(pp, &v))
		return v;
	/* Eight bytes with the top bit set: the ninth is whole. */
	*pp = p + 9;
	return fg_varint_pack(fg_varint_load(p)) | (uint64_t)p[8] << 56;
}

/* varint_in() for a value not needed. */
static inline void skip_in(const uint8_t **pp)
{
	const uint8_t *p = *pp;
	if (p[0] < 0x80) {
		*pp = p + 1;
		return;
	}
	uint64_t ends = ~fg_varint_load(p) & FG_VARINT_TOPS;
	*pp = p + (ends ? ((unsigned)__builtin_ctzll(ends) >> 3) + 1 : 9);
}

/* Most integers (keys, line numbers, types) fit in one byte. */
static inline uint64_t varint(struct cur *c)
{
	if (c->end - c->p >= 9)
		return varint_in(&c->p);
	return varint_long(c);
}

/* Steps over m varints, as m calls of varint() would, a word at a time:
 * from a varint's start, every byte with the top bit clear within the next
 * eight ends one varint (the 9-byte form needs eight bytes with the top bit
 * set), so the word's varints end at its last such byte and number as many
 * as the word holds such bytes.  The constant pool pass steps over every
 * frame of every stack trace this way. */
/* The constant pool pass's loop, also compiled for processors with a
 * popcount instruction (chosen when the program loads); the baseline x86-64
 * has none, and counts the bits with a few shifts and a multiply.  (Not
 * under ThreadSanitizer: the choice runs before its runtime is set up, and
 * the instrumented chooser crashes the program at load.) */
#if defined(__SSE2__) && defined(__GNUC__) && defined(__linux__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("popcnt", "default")))
#endif
static void skip_varints(struct cur *c, uint64_t m)
{
	const uint8_t *p = c->p;
	size_t avail = (size_t)(c->end - p);
#if defined(__SSE2__)
	/* First 64 bytes a step at a fixed stride, so that a block's loads do
	 * not wait for the previous block's answer (the loop below steps to
	 * each block's last end byte, and ran at the latency of that chain).
	 * Every end byte ends one varint while no nine-byte varint is possible:
	 * no eight bytes in a row with the top bit set, within the block or
	 * across its start (the previous block's trailing run).  A block is
	 * counted whole when its end bytes are fewer than the varints left; p
	 * then stands after its last end byte, at a varint's start, where the
	 * loops below go on when a block is not hazard-free or not whole. */
	const uint8_t *at = p;
	unsigned trail = 0; /* the bytes with the top bit set before at, to p */
	while (m > 0 && (size_t)(c->end - at) >= 64) {
		const __m128i *blk = (const __m128i *)(const void *)at;
		uint64_t cont = (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_loadu_si128(blk)) |
				(uint64_t)(uint32_t)_mm_movemask_epi8(_mm_loadu_si128(blk + 1)) << 16 |
				(uint64_t)(uint32_t)_mm_movemask_epi8(_mm_loadu_si128(blk + 2)) << 32 |
				(uint64_t)(uint32_t)_mm_movemask_epi8(_mm_loadu_si128(blk + 3)) << 48;
		uint64_t run = cont & cont >> 1;
		run &= run >> 2;
		run &= run >> 4;
		uint64_t ends = ~cont;
		if (run || (unsigned)__builtin_ctzll(ends) + trail >= 8)
			break;
		uint64_t n = (uint64_t)__builtin_popcountll(ends);
		if (n >= m) {
			/* The last varint ends in this block, at its m-th end
			 * byte: found by halves, the end bytes of each counted. */
			unsigned at_bit = 0;
			for (unsigned half = 32; half; half >>= 1) {
				uint64_t below = (uint64_t)__builtin_popcountll(ends & ((UINT64_C(1) << half) - 1));
				if (m > below) {
					m -= below;
					ends >>= half;
					at_bit += half;
				}
			}
			p = at + at_bit + 1;
			m = 0;
			break;
		}
		m -= n;
		trail = (unsigned)__builtin_clzll(ends);
		at += 64;
		p = at - trail;
	}
	avail = (size_t)(c->end - p);
	/* 32 bytes at a time, the same way: their top bits in one mask.  Nine
	 * bytes with the top bit set before the last end byte would hold a
	 * 9-byte varint whose ninth byte has it set too (not an end byte):
	 * only possible when nine of the bytes up to it are not end bytes,
	 * and the rest is then left to the word loop below. */
	while (m >= 32 && avail >= 32) {
		const __m128i *q = (const __m128i *)(const void *)p;
		uint32_t ends = ~((uint32_t)_mm_movemask_epi8(_mm_loadu_si128(q)) |
				  (uint32_t)_mm_movemask_epi8(_mm_loadu_si128(q + 1)) << 16);
		unsigned n = (unsigned)__builtin_popcount(ends);
		unsigned last = 31u ^ (unsigned)__builtin_clz(ends | 1);
		if (!ends || last + 1 - n >= 9)
			break;
		p += last + 1;
		avail -= last + 1;
		m -= n;
	}
#endif
	while (m >= 8 && avail >= 9) {
		uint64_t ends = ~fg_varint_load(p) & FG_VARINT_TOPS;
		if (!ends) {
			const uint8_t *from = p;
			skip_in(&p);
			avail -= (size_t)(p - from);
			m--;
			continue;
		}
		/* 63 ^ clz: the bit of the last end byte, 8k + 7. */
		size_t step = ((63u ^ (unsigned)__builtin_clzll(ends)) >> 3) + 1;
		p += step;
		avail -= step;
		/* The count of end bytes: one bit a byte, summed by a multiply
		 * (no popcount instruction in the baseline x86-64). */
		m -= (ends >> 7) * UINT64_C(0x0101010101010101) >> 56;
	}
	c->p = p;
	for (; m > 0 && !c->bad; m--)
		varint(c);
}

static void skip(struct cur *c, uint64_t n)
{
	if (n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		c->p = c->end;
	} else {
		c->p += n;
	}
}

static uint8_t byte(struct cur *c)
{
	if (c->p >= c->end) {
		c->bad = true;
		return 0;
	}
	return *c->p++;
}

static uint64_t be(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static bool utf8_put(struct jfr *j, size_t *len, uint32_t cp)
{
	if (!fg_array_reserve((void **)&j->scratch, &j->scratch_cap, *len + 4, 1))
		return false;
	char *o = j->scratch + *len;
	if (cp < 0x80) {
		o[0] = (char)cp;
		*len += 1;
	} else if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		*len += 2;
	} else if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		*len += 3;
	} else {
		o[0] = (char)(0xf0 | cp >> 18);
		o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[3] = (char)(0x80 | (cp & 0x3f));
		*len += 4;
	}
	return true;
}

/* The length of a table indexed by key that holds key, from len: doubled,
 * then past 64 Ki entries grown by steps of that much, not doubled (its new
 * part is cleared: doubling touched twice the memory the largest key needs,
 * 1,400 of a 175 MB recording's 12,600 page faults). */
static size_t key_table_len(size_t len, uint64_t key)
{
	const size_t step = (size_t)1 << 16;
	while (len <= key && len < step)
		len *= 2;
	return len > key ? len : ((size_t)key / step + 1) * step;
}

static bool pool_cursor(struct jfr *j, uint32_t cls, uint64_t key, struct cur *c)
{
	uint64_t off;
	if (cls < j->npdirect && key < j->pdirect_len[cls] && j->pdirect[cls][key]) {
		off = j->pdirect[cls][key];
	} else {
		uint64_t *o = fg_keymap_get(&j->pool, cls, key, 0);
		if (!o)
			return false;
		off = *o;
	}
	*c = (struct cur){ j->base + off, j->base + j->size, false };
	return true;
}

/* The most entries a chunk's constant pools may keep in the map: one per
 * 64 bytes of the chunk, at least 2^19 (the map takes about 200 bytes an
 * entry at its peak: 110 MB). */
#define POOL_SPARSE_MIN (UINT64_C(1) << 19)
#define POOL_SPARSE_PER 64

/* Whether the per-type arrays may grow by more slots: their total stays
 * within twice the pool entries the chunk announced (its pools' counts,
 * each bounded by the bytes left) plus 2^16, so that the memory follows
 * the chunk's bytes whatever keys it names; sparse keys go to the map. */
static bool pool_direct_fits(const struct jfr *j, size_t more)
{
	return j->size <= UINT32_MAX && more <= 2 * j->pool_announced + 65536 &&
	       j->pdirect_total + more <= 2 * j->pool_announced + 65536;
}

static int pool_put_sparse(struct jfr *j, uint32_t cls, uint64_t key, uint64_t off)
{
	uint64_t *v;
	bool added;
	int rc = fg_keymap_put(&v, &added, &j->pool, cls, key, 0, j->err);
	if (rc)
		return rc;
	*v = off;
	uint64_t limit = j->size / POOL_SPARSE_PER > POOL_SPARSE_MIN ? j->size / POOL_SPARSE_PER : POOL_SPARSE_MIN;
	if (added && ++j->pool_sparse > limit)
		return fg_error_set(j->err, FG_EINVALID, fg_input_name(j->in),
				    "chunk %llu: more than %llu sparse constant-pool keys (the limit: one per %d bytes of "
				    "the chunk, at least %llu; docs/bad-inputs.md)",
				    (unsigned long long)j->chunk_no, (unsigned long long)limit, POOL_SPARSE_PER,
				    (unsigned long long)POOL_SPARSE_MIN);
	return 0;
}

/* Where a pool entry's value starts: dense keys in a per-type array (an
 * offset is never 0: the chunk header comes first), others in the map. */
static int pool_put(struct jfr *j, uint32_t cls, uint64_t key, uint64_t off)
{
	if (j->size > UINT32_MAX)
		return pool_put_sparse(j, cls, key, off);
	if (cls >= j->npdirect) {
		size_t n = j->nclasses;
		uint32_t **d = realloc(j->pdirect, n * sizeof(*d));
		size_t *l = d ? realloc(j->pdirect_len, n * sizeof(*l)) : NULL;
		if (d)
			j->pdirect = d;
		if (!l)
			return nomem(j);
		j->pdirect_len = l;
		for (size_t i = j->npdirect; i < n; i++) {
			j->pdirect[i] = NULL;
			j->pdirect_len[i] = 0;
		}
		j->npdirect = n;
	}
	if (key >= j->pdirect_len[cls]) {
		if (key >= SIZE_MAX / 8)
			return pool_put_sparse(j, cls, key, off);
		size_t len = key_table_len(j->pdirect_len[cls] ? j->pdirect_len[cls] : 256, key);
		if (!pool_direct_fits(j, len - j->pdirect_len[cls]))
			return pool_put_sparse(j, cls, key, off);
		uint32_t *a = realloc(j->pdirect[cls], len * sizeof(*a));
		if (!a)
			return nomem(j);
		memset(a + j->pdirect_len[cls], 0, (len - j->pdirect_len[cls]) * sizeof(*a));
		j->pdirect[cls] = a;
		j->pdirect_total += len - j->pdirect_len[cls];
		j->pdirect_len[cls] = len;
	}
	j->pdirect[cls][key] = (uint32_t)off;
	return 0;
}

/* A string: encoding byte 0 null, 1 empty, 2 a java.lang.String pool key,
 * 3 UTF-8, 4 UTF-16 code units as integers, 5 Latin-1.  The text is in the
 * chunk or in the scratch buffer (valid until the next string).  A null,
 * or a pool key without an entry, gives s = NULL.  False when malformed. */
static bool string(struct jfr *j, struct cur *c, struct str *out, int depth)
{
	uint8_t enc = byte(c);
	out->s = NULL;
	out->len = 0;
	switch (enc) {
	case 0:
		return !c->bad;
	case 1:
		out->s = "";
		return !c->bad;
	case 2: {
		uint64_t key = varint(c);
		struct cur pc;
		if (c->bad || depth > 0)
			return false;
		if (j->c_string == UINT32_MAX || !pool_cursor(j, j->c_string, key, &pc))
			return true;
		return string(j, &pc, out, depth + 1);
	}
	case 3:
	case 5: {
		uint64_t n = varint(c);
		const uint8_t *s = c->p;
		skip(c, n);
		if (c->bad)
			return false;
		bool ascii = true;
		for (uint64_t i = 0; enc == 5 && i < n && ascii; i++)
			ascii = s[i] < 0x80;
		if (ascii) {
			out->s = (const char *)s;
			out->len = n;
			return true;
		}
		size_t len = 0;
		for (uint64_t i = 0; i < n; i++)
			if (!utf8_put(j, &len, s[i]))
				return false;
		out->s = j->scratch;
		out->len = len;
		return true;
	}
	case 4: {
		uint64_t n = varint(c);
		if (c->bad || n > (uint64_t)(c->end - c->p))
			return false;
		size_t len = 0;
		for (uint64_t i = 0; i < n; i++) {
			uint32_t u = (uint32_t)varint(c) & 0xffff;
			if (u >= 0xd800 && u < 0xdc00 && i + 1 < n) {
				struct cur peek = *c;
				uint32_t lo = (uint32_t)varint(&peek) & 0xffff;
				if (lo >= 0xdc00 && lo < 0xe000) {
					*c = peek;
					i++;
					u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				}
			}
			if (!utf8_put(j, &len, u))
				return false;
		}
		out->s = j->scratch;
		out->len = len;
		return !c->bad;
	}
	default:
		return false;
	}
}

/* ---- values, as the metadata lays them out ---------------------------- */

static bool skip_value(struct jfr *j, struct cur *c, uint32_t cls, int depth);

static bool skip_one(struct jfr *j, struct cur *c, const struct field *f, int depth)
{
	if (f->cpool) {
		varint(c);
		return !c->bad;
	}
	return skip_value(j, c, f->cls, depth);
}

static bool skip_field(struct jfr *j, struct cur *c, const struct field *f, int depth)
{
	if (!f->array)
		return skip_one(j, c, f, depth);
	uint64_t n = varint(c);
	/* Every element takes a byte at least: a larger count is damage (and
	 * would loop for long over zero-sized elements). */
	if (c->bad || n > (uint64_t)(c->end - c->p))
		return false;
	uint8_t flat = f->cpool ? 0 : j->classes[f->cls].flat;
	if (flat) {
		skip_varints(c, n * flat);
		return !c->bad;
	}
	for (uint64_t i = 0; i < n; i++)
		if (!skip_one(j, c, f, depth))
			return false;
	return true;
}

/* Walks a struct value, noting where each field with a role starts (at may
 * be NULL: skip only); stops at the field of role `until` (R_NONE: walks it
 * all) without skipping it. */
static bool walk_until(struct jfr *j, struct cur *c, uint32_t cls, struct at *at, int depth, uint8_t until)
{
	if (depth > MAX_NESTING)
		return false;
	const struct jclass *k = &j->classes[cls];
	for (uint32_t i = 0; i < k->nfields; i++) {
		const struct field *f = &j->fields[k->field0 + i];
		if (at && f->role)
			at[f->role] = (struct at){ c->p, f };
		if (until && f->role == until)
			return !c->bad;
		if (!skip_field(j, c, f, depth + 1))
			return false;
	}
	return !c->bad;
}

static bool walk(struct jfr *j, struct cur *c, uint32_t cls, struct at *at, int depth)
{
	return walk_until(j, c, cls, at, depth, R_NONE);
}

static bool skip_value(struct jfr *j, struct cur *c, uint32_t cls, int depth)
{
	switch (j->classes[cls].kind) {
	case K_BYTE: skip(c, 1); break;
	case K_VARINT: varint(c); break;
	case K_FLOAT: skip(c, 4); break;
	case K_DOUBLE: skip(c, 8); break;
	case K_STRING: {
		/* Not string(): no conversion, no pool lookup. */
		uint8_t enc = byte(c);
		if (enc == 2)
			varint(c);
		else if (enc == 3 || enc == 5)
			skip(c, varint(c));
		else if (enc == 4) {
			uint64_t n = varint(c);
			if (n > (uint64_t)(c->end - c->p))
				return false;
			for (uint64_t i = 0; i < n && !c->bad; i++)
				varint(c);
		} else if (enc > 1)
			return false;
		break;
	}
	default:
		if (j->classes[cls].flat) {
			skip_varints(c, j->classes[cls].flat);
			break;
		}
		return walk(j, c, cls, NULL, depth);
	}
	return !c->bad;
}

/* An integer field (a pool key for pool fields); 0 when absent. */
static uint64_t field_u64(struct jfr *j, struct at a)
{
	if (!a.p)
		return 0;
	struct cur c = { a.p, j->base + j->size, false };
	if (a.f->cpool || j->classes[a.f->cls].kind == K_VARINT)
		return varint(&c);
	if (j->classes[a.f->cls].kind == K_BYTE)
		return byte(&c);
	return 0;
}

/* The value of a field, through the constant pool when it is a key:
 * 1 found (c, *cls set), 0 absent or a key without an entry. */
static int field_value(struct jfr *j, struct at a, struct cur *c, uint32_t *cls)
{
	if (!a.p)
		return 0;
	*cls = a.f->cls;
	*c = (struct cur){ a.p, j->base + j->size, false };
	if (!a.f->cpool)
		return 1;
	uint64_t key = varint(c);
	return pool_cursor(j, a.f->cls, key, c) ? 1 : 0;
}

/* The text of a field: a string, or the string/description/name field of
 * the struct it holds (a Symbol, a FrameType, a Class's name...). */
static bool field_text(struct jfr *j, struct at a, struct str *out, int depth)
{
	struct cur c;
	uint32_t cls;
	out->s = NULL;
	out->len = 0;
	if (depth > 4)
		return false;
	if (!field_value(j, a, &c, &cls))
		return true;
	if (j->classes[cls].kind == K_STRING)
		return string(j, &c, out, 0);
	if (j->classes[cls].kind != K_STRUCT)
		return true;
	struct at at[R_COUNT] = { 0 };
	if (!walk(j, &c, cls, at, 0))
		return false;
	struct at t = at[R_STRING].p ? at[R_STRING] : at[R_DESCRIPTION].p ? at[R_DESCRIPTION] : at[R_NAME];
	return field_text(j, t, out, depth + 1);
}

/* ---- metadata ------------------------------------------------------------ */

static const char *mstring(struct jfr *j, uint64_t i)
{
	return i < j->nmstr ? j->arena + j->mstr[i] : NULL;
}

static int metadata_element(struct jfr *j, struct cur *c, int depth, bool in_class)
{
	if (depth > 16)
		return bad(j, "metadata nests too deeply");
	const char *name = mstring(j, varint(c));
	uint64_t nattr = varint(c);
	if (c->bad || !name || nattr > (uint64_t)(c->end - c->p))
		return bad(j, "malformed metadata");
	const char *a_name = NULL, *a_id = NULL, *a_class = NULL, *a_cpool = NULL, *a_dim = NULL;
	for (uint64_t i = 0; i < nattr; i++) {
		const char *k = mstring(j, varint(c)), *v = mstring(j, varint(c));
		if (c->bad || !k || !v)
			return bad(j, "malformed metadata attribute");
		if (!strcmp(k, "name"))
			a_name = v;
		else if (!strcmp(k, "id"))
			a_id = v;
		else if (!strcmp(k, "class"))
			a_class = v;
		else if (!strcmp(k, "constantPool"))
			a_cpool = v;
		else if (!strcmp(k, "dimension"))
			a_dim = v;
	}
	bool is_class = !strcmp(name, "class") && !in_class;
	if (is_class) {
		if (!a_name || !a_id)
			return bad(j, "metadata class without a name or id");
		if (!fg_array_reserve((void **)&j->classes, &j->classes_cap, j->nclasses + 1, sizeof(*j->classes)))
			return nomem(j);
		struct jclass *k = &j->classes[j->nclasses];
		*k = (struct jclass){ .id = strtoull(a_id, NULL, 10), .name = a_name,
				      .field0 = (uint32_t)j->nfields, .event = EV_NONE };
		static const struct { const char *name; uint8_t kind; } prims[] = {
			{ "boolean", K_BYTE }, { "byte", K_BYTE }, { "char", K_VARINT }, { "short", K_VARINT },
			{ "int", K_VARINT }, { "long", K_VARINT }, { "float", K_FLOAT }, { "double", K_DOUBLE },
			{ "java.lang.String", K_STRING },
		};
		for (size_t i = 0; i < sizeof(prims) / sizeof(prims[0]); i++)
			if (!strcmp(a_name, prims[i].name))
				k->kind = prims[i].kind;
		for (size_t i = 0; i < sizeof(event_types) / sizeof(event_types[0]); i++)
			if (!strcmp(a_name, event_types[i].name)) {
				k->event = (int8_t)event_types[i].event;
				k->class_frame = event_types[i].class_frame;
			}
		uint64_t *v;
		bool added;
		int rc = fg_keymap_put(&v, &added, &j->class_by_id, k->id, 0, 0, j->err);
		if (rc)
			return rc;
		if (!added)
			return bad(j, "metadata declares a class id twice");
		*v = j->nclasses++;
	} else if (in_class && !strcmp(name, "field")) {
		if (!a_name || !a_class)
			return bad(j, "metadata field without a name or class");
		if (!fg_array_reserve((void **)&j->fields, &j->fields_cap, j->nfields + 1, sizeof(*j->fields)))
			return nomem(j);
		struct field *f = &j->fields[j->nfields++];
		*f = (struct field){ .type_id = strtoull(a_class, NULL, 10),
				     .cpool = a_cpool && !strcmp(a_cpool, "true"),
				     .array = a_dim && strcmp(a_dim, "0") };
		for (int r = 1; r < R_COUNT; r++)
			if (!strcmp(a_name, role_names[r]))
				f->role = (uint8_t)r;
		/* Lock events name their class monitorClass / parkedClass. */
		if (!strcmp(a_name, "monitorClass") || !strcmp(a_name, "parkedClass"))
			f->role = R_CLASS;
		j->classes[j->nclasses - 1].nfields++;
	}
	uint64_t nchildren = varint(c);
	if (c->bad || nchildren > (uint64_t)(c->end - c->p))
		return bad(j, "malformed metadata");
	for (uint64_t i = 0; i < nchildren; i++) {
		/* Only a class's direct children are its fields. */
		int rc = metadata_element(j, c, depth + 1, is_class);
		if (rc)
			return rc;
	}
	return 0;
}

static uint32_t class_named(struct jfr *j, const char *name)
{
	for (size_t i = 0; i < j->nclasses; i++)
		if (!strcmp(j->classes[i].name, name))
			return (uint32_t)i;
	return UINT32_MAX;
}

static int read_metadata(struct jfr *j, uint64_t off)
{
	if (off < HEADER_SIZE || off >= j->size)
		return bad(j, "metadata offset outside the chunk");
	struct cur c = { j->base + off, j->base + j->size, false };
	uint64_t size = varint(&c);
	if (c.bad || size > j->size - off)
		return bad(j, "metadata event runs past the chunk");
	c.end = j->base + off + size;
	if (varint(&c) != 0)
		return bad(j, "no metadata event at the metadata offset");
	varint(&c); /* start */
	varint(&c); /* duration */
	varint(&c); /* metadata id */
	uint64_t n = varint(&c);
	if (c.bad || n > (uint64_t)(c.end - c.p))
		return bad(j, "malformed metadata string table");
	j->nmstr = j->arena_len = j->nclasses = j->nfields = 0;
	fg_keymap_clear(&j->class_by_id);
	if (!fg_array_reserve((void **)&j->mstr, &j->mstr_cap, n + 1, sizeof(*j->mstr)))
		return nomem(j);
	j->c_string = UINT32_MAX;
	for (uint64_t i = 0; i < n; i++) {
		struct str s;
		if (!string(j, &c, &s, 1))
			return bad(j, "malformed metadata string");
		if (!s.s)
			s.s = "";
		if (!fg_array_reserve((void **)&j->arena, &j->arena_cap, j->arena_len + s.len + 1, 1))
			return nomem(j);
		memcpy(j->arena + j->arena_len, s.s, s.len);
		j->arena[j->arena_len + s.len] = '\0';
		if (memchr(s.s, '\0', s.len))
			return bad(j, "NUL in a metadata string");
		j->mstr[j->nmstr++] = (uint32_t)j->arena_len;
		j->arena_len += s.len + 1;
	}
	int rc = metadata_element(j, &c, 0, false);
	if (rc)
		return rc;
	for (size_t i = 0; i < j->nfields; i++) {
		uint64_t *k = fg_keymap_get(&j->class_by_id, j->fields[i].type_id, 0, 0);
		if (!k)
			return bad(j, "metadata field of an undeclared type");
		j->fields[i].cls = (uint32_t)*k;
	}
	j->c_string = class_named(j, "java.lang.String");
	j->c_method = class_named(j, "jdk.types.Method");
	j->c_class = class_named(j, "java.lang.Class");
	j->c_thread = class_named(j, "java.lang.Thread");
	j->c_stack = class_named(j, "jdk.types.StackTrace");
	for (size_t i = 0; i < j->nclasses; i++) {
		struct jclass *k = &j->classes[i];
		bool flat = k->kind == K_STRUCT && k->nfields > 0 && k->nfields <= MAX_FLAT;
		for (uint32_t f = 0; flat && f < k->nfields; f++) {
			const struct field *fd = &j->fields[k->field0 + f];
			flat = !fd->array && (fd->cpool || j->classes[fd->cls].kind == K_VARINT);
		}
		k->flat = flat ? (uint8_t)k->nfields : 0;
		k->flat_stack_ref = false;
		k->method_at = k->type_at = -1;
		for (uint32_t f = 0; k->flat && f < k->nfields; f++) {
			const struct field *fd = &j->fields[k->field0 + f];
			k->flat_stack_ref |= fd->role == R_STACK && fd->cpool;
			k->method_at = fd->role == R_METHOD && fd->cpool ? (int8_t)f : k->method_at;
			k->type_at = fd->role == R_TYPE && fd->cpool ? (int8_t)f : k->type_at;
		}
	}
	j->st_frames = NULL;
	j->st_before = j->st_bytes = 0;
	j->st_last = false;
	for (uint32_t f = 0; j->c_stack != UINT32_MAX && f < j->classes[j->c_stack].nfields && f < 32; f++) {
		const struct field *fd = &j->fields[j->classes[j->c_stack].field0 + f];
		uint8_t kind = j->classes[fd->cls].kind;
		if (fd->role == R_FRAMES) {
			j->st_frames = fd->array && !fd->cpool ? fd : NULL;
			j->st_before = f;
			j->st_last = f + 1 == j->classes[j->c_stack].nfields;
			break;
		}
		if (fd->array || (!fd->cpool && kind != K_VARINT && kind != K_BYTE))
			break;
		j->st_bytes |= (uint32_t)(!fd->cpool && kind == K_BYTE) << f;
	}
	j->last_type = UINT64_MAX;
	return 0;
}

/* ---- constant pools ------------------------------------------------------ */

/* Steps over a StackTrace's fields before its frames (j->st_frames set),
 * as walk_until() would; false when they run past the end. */
static bool to_frames(const struct jfr *j, struct cur *c)
{
	for (uint32_t f = 0; f < j->st_before; f++) {
		if (j->st_bytes >> f & 1)
			byte(c);
		else
			varint(c);
	}
	return !c->bad;
}

static int read_checkpoint(struct jfr *j, struct cur *c)
{
	varint(c); /* start */
	varint(c); /* duration */
	varint(c); /* delta to the next checkpoint: every event is scanned anyway */
	byte(c);   /* flush / checkpoint type */
	uint64_t npools = varint(c);
	if (c->bad || npools > (uint64_t)(c->end - c->p))
		return bad(j, "malformed constant pool");
	for (uint64_t i = 0; i < npools; i++) {
		uint64_t type = varint(c), count = varint(c);
		uint64_t *k = fg_keymap_get(&j->class_by_id, type, 0, 0);
		if (c->bad || !k || count > (uint64_t)(c->end - c->p))
			return bad(j, k || c->bad ? "corrupt constant pool" : "constant pool of an undeclared type");
		j->pool_announced += count;
		for (uint64_t e = 0; e < count; e++) {
			uint64_t key = varint(c);
			int rc = pool_put(j, (uint32_t)*k, key, (uint64_t)(c->p - j->base));
			if (rc)
				return rc;
			/* A StackTrace ending in its frames: stepped over without the
			 * generic walk (skip_value() would call skip_field() so). */
			bool ok = (uint32_t)*k == j->c_stack && j->st_frames && j->st_last
					  ? to_frames(j, c) && skip_field(j, c, j->st_frames, 1)
					  : skip_value(j, c, (uint32_t)*k, 0);
			if (!ok)
				return bad(j, "corrupt constant pool");
		}
	}
	return 0;
}

/* ---- names --------------------------------------------------------------- */

static bool name_append(struct jfr *j, const char *s, size_t n)
{
	if (!fg_array_reserve((void **)&j->name, &j->name_cap, j->name_len + n + 1, 1))
		return false;
	memcpy(j->name + j->name_len, s, n);
	j->name_len += n;
	return true;
}

/* A JVM class name as async-profiler's converter writes it: arrays as
 * "elem[]" ("[Ljava/lang/String;" -> "java/lang/String[]", "[B" -> "byte[]"). */
static bool java_class_name(struct jfr *j, struct str s)
{
	size_t dims = 0;
	while (dims < s.len && s.s[dims] == '[')
		dims++;
	if (dims == 0 || dims == s.len)
		return name_append(j, s.s, s.len);
	const char *e = s.s + dims;
	size_t el = s.len - dims;
	static const char *const prims[] = { ['B' - 'B'] = "byte", ['C' - 'B'] = "char", ['D' - 'B'] = "double",
					     ['F' - 'B'] = "float", ['I' - 'B'] = "int", ['J' - 'B'] = "long",
					     ['S' - 'B'] = "short", ['Z' - 'B'] = "boolean" };
	bool ok;
	if (e[0] == 'L')
		ok = name_append(j, e + 1, el > 1 && e[el - 1] == ';' ? el - 2 : el - 1);
	else if (el == 1 && e[0] >= 'B' && e[0] <= 'Z' && prims[e[0] - 'B'])
		ok = name_append(j, prims[e[0] - 'B'], strlen(prims[e[0] - 'B']));
	else
		ok = name_append(j, e, el);
	for (size_t i = 0; ok && i < dims; i++)
		ok = name_append(j, "[]", 2);
	return ok;
}

enum name_kind { NAME_METHOD, NAME_THREAD, NAME_CLASS };

/* Names are memoised per chunk by (kind, pool key, variant); a miss starts
 * an empty name in j->name. */
static bool cached_name(struct jfr *j, enum name_kind kind, uint64_t key, uint64_t variant, uint32_t *id)
{
	uint64_t *v = fg_keymap_get(&j->name_cache, kind, key, variant);
	if (v)
		*id = (uint32_t)*v;
	j->name_len = 0;
	return v != NULL;
}

/* Interns the name built in j->name ("unknown" when empty). */
static int intern_name(struct jfr *j, uint32_t *id)
{
	if (j->name_len && memchr(j->name, '\0', j->name_len))
		return bad(j, "NUL in a name");
	if (j->name_len == 0)
		return fg_names_intern(id, j->names, "unknown", 7, j->err);
	return fg_names_intern(id, j->names, j->name, j->name_len, j->err);
}

/* intern_name(), and memoises the name. */
static int remember_name(struct jfr *j, enum name_kind kind, uint64_t key, uint64_t variant, uint32_t *id)
{
	int rc = intern_name(j, id);
	uint64_t *v;
	bool added;
	if (rc || (rc = fg_keymap_put(&v, &added, &j->name_cache, kind, key, variant, j->err)) != 0)
		return rc;
	*v = *id;
	return 0;
}

/* Appends the name of the java.lang.Class value at c. */
static int class_name_at(struct jfr *j, struct cur *c, uint32_t cls)
{
	if (j->classes[cls].kind != K_STRUCT)
		return 0;
	struct at at[R_COUNT] = { 0 };
	struct str s;
	if (!walk(j, c, cls, at, 0) || !field_text(j, at[R_NAME], &s, 0))
		return bad(j, "corrupt class in the constant pool");
	if (s.s && !java_class_name(j, s))
		return nomem(j);
	return 0;
}

static int method_name_slow(struct jfr *j, uint64_t key, bool native, uint32_t *id);

/* "Class.method" as the converter names a frame; a native, C++ or kernel
 * frame is the method's name alone.  *v: its name id, with METHOD_STOP when
 * the chunk's stacks may be cut and the visitor's stop says the name ends a
 * stack, METHOD_HELD when the visitor's inert says the name is not inert
 * (each asked once per small key; a large key never stops a stack and is
 * always held). */
static int method_name(struct jfr *j, uint64_t key, bool native, uint64_t *v)
{
	/* Per frame: small keys (async-profiler numbers its methods from 1)
	 * are looked up in an array, others in the hash map (the bound is on
	 * the key: key << 1 could wrap onto another key's slot). */
	uint64_t slot = key << 1 | native;
	if (key < j->method_ids_len / 2 && j->method_ids[slot] != ID_UNKNOWN) {
		uint32_t m = j->method_ids[slot];
		*v = (m & ~(ID_STOP | ID_HELD)) | (uint64_t)(m >> 30) << 32;
		return 0;
	}
	uint32_t id;
	int rc = method_name_slow(j, key, native, &id);
	*v = id | METHOD_HELD;
	if (rc || key >= DIRECT_METHODS / 2 || id >= ID_HELD - 1)
		return rc;
	bool stop = false, inert = false;
	if (j->cut && (rc = j->stop(j->ctx, id, &stop, j->err)) != 0)
		return rc;
	if (j->inert && (rc = j->inert(j->ctx, id, &inert, j->err)) != 0)
		return rc;
	bool held = j->inert && !inert;
	*v = id | (stop ? METHOD_STOP : 0) | (held ? METHOD_HELD : 0);
	if (slot >= j->method_ids_len) {
		size_t len = j->method_ids_len ? j->method_ids_len : 1024;
		while (len <= slot)
			len *= 2;
		uint32_t *m = realloc(j->method_ids, len * sizeof(*m));
		if (!m)
			return nomem(j);
		memset(m + j->method_ids_len, 0xff, (len - j->method_ids_len) * sizeof(*m));
		j->method_ids = m;
		j->method_ids_len = len;
	}
	j->method_ids[slot] = id | (stop ? ID_STOP : 0) | (held ? ID_HELD : 0);
	return 0;
}

/* Whether this chunk's stack traces may be cut at a METHOD_STOP frame
 * (j->cut) without changing an answer or an error: only when every method
 * of its pool resolves (the Class.method form: the other checks that and
 * more), as a frame's method is then either one of them or absent (named
 * "unknown"), so no frame stepped over could have failed the read.  The
 * methods are resolved here, as their frames would resolve them (their
 * names interned, ids remembered, the visitor asked); on a failure the ids
 * are forgotten and every frame is read, for the failure in its place. */
static void check_methods(struct jfr *j)
{
	j->cut = j->stop && j->c_method != UINT32_MAX;
	uint32_t cls = j->c_method;
	size_t direct = cls < j->npdirect ? j->pdirect_len[cls] : 0;
	uint64_t v;
	for (size_t key = 0; j->cut && key < direct; key++)
		j->cut = !j->pdirect[cls][key] || !method_name(j, key, false, &v);
	for (uint32_t i = 0; j->cut && i < fg_keymap_capacity(&j->pool); i++) {
		const fg_keymap_entry *e = fg_keymap_at(&j->pool, i);
		j->cut = !e->used || e->key[0] != cls || !method_name(j, e->key[1], false, &v);
	}
	if (j->stop && !j->cut) {
		fg_error_clear(j->err);
		if (j->method_ids)
			memset(j->method_ids, 0xff, j->method_ids_len * sizeof(*j->method_ids));
	}
}

static int method_name_slow(struct jfr *j, uint64_t key, bool native, uint32_t *id)
{
	/* A small key's id is memoised in method_ids by method_name(): the
	 * map only for large ones (its lookups missed the cache, 3 % of the
	 * time, for nothing). */
	bool small = key < DIRECT_METHODS / 2;
	j->name_len = 0;
	if (!small && cached_name(j, NAME_METHOD, key, native, id))
		return 0;
	struct cur c;
	uint32_t cls;
	int rc;
	if (j->c_method != UINT32_MAX && pool_cursor(j, j->c_method, key, &c)) {
		struct at at[R_COUNT] = { 0 };
		if (!walk(j, &c, j->c_method, at, 0))
			return bad(j, "corrupt method in the constant pool");
		if (!native && field_value(j, at[R_TYPE], &c, &cls) && (rc = class_name_at(j, &c, cls)) != 0)
			return rc;
		struct str m;
		if (!field_text(j, at[R_NAME], &m, 0))
			return bad(j, "corrupt method name in the constant pool");
		if (m.s && m.len && ((j->name_len && !name_append(j, ".", 1)) || !name_append(j, m.s, m.len)))
			return nomem(j);
	}
	return small ? intern_name(j, id) : remember_name(j, NAME_METHOD, key, native, id);
}

/* "[name tid=N]" as -t graphs have it ("[tid=N]" without a name). */
static int thread_name(struct jfr *j, uint64_t key, uint32_t *id)
{
	if (cached_name(j, NAME_THREAD, key, 0, id))
		return 0;
	struct str name = { NULL, 0 };
	uint64_t tid = key;
	struct cur c;
	if (j->c_thread != UINT32_MAX && pool_cursor(j, j->c_thread, key, &c)) {
		struct at at[R_COUNT] = { 0 };
		if (!walk(j, &c, j->c_thread, at, 0))
			return bad(j, "corrupt thread in the constant pool");
		uint64_t os = field_u64(j, at[R_OS_TID]);
		if (os)
			tid = os;
		if (!field_text(j, at[R_JAVA_NAME], &name, 0))
			return bad(j, "corrupt thread name");
		if (!name.s && !field_text(j, at[R_OS_NAME], &name, 0))
			return bad(j, "corrupt thread name");
	}
	char num[32];
	int nl = snprintf(num, sizeof(num), "tid=%llu]", (unsigned long long)tid);
	bool ok;
	if (name.s && name.len >= 5 && !memcmp(name.s, "[tid=", 5))
		ok = name_append(j, name.s, name.len);
	else if (name.s)
		ok = name_append(j, "[", 1) && name_append(j, name.s, name.len) && name_append(j, " ", 1) &&
		     name_append(j, num, (size_t)nl);
	else
		ok = name_append(j, "[", 1) && name_append(j, num, (size_t)nl);
	if (!ok)
		return nomem(j);
	return remember_name(j, NAME_THREAD, key, 0, id);
}

/* The allocated or locked class, as a leaf frame. */
static int class_frame_name(struct jfr *j, uint64_t key, uint32_t *id)
{
	if (cached_name(j, NAME_CLASS, key, 0, id))
		return 0;
	struct cur c;
	int rc;
	if (j->c_class != UINT32_MAX && pool_cursor(j, j->c_class, key, &c) &&
	    (rc = class_name_at(j, &c, j->c_class)) != 0)
		return rc;
	return remember_name(j, NAME_CLASS, key, 0, id);
}

/* ---- events -------------------------------------------------------------- */

static uint32_t event_class(struct jfr *j, uint64_t type)
{
	if (type != j->last_type) {
		uint64_t *k = fg_keymap_get(&j->class_by_id, type, 0, 0);
		j->last_type = type;
		j->last_cls = k ? (uint32_t)*k : UINT32_MAX;
	}
	return j->last_cls;
}

/* Nanoseconds since the recording's start for a tick count of this chunk. */
static int64_t event_time(const struct jfr *j, uint64_t ticks)
{
	/* 128 bits: damaged headers and time stamps must not overflow. */
	__int128 d = ((__int128)ticks - j->start_ticks) * 1000000000 / j->ticks_per_second +
		     ((__int128)j->start_nanos - j->rec_start);
	return d > INT64_MAX ? INT64_MAX : d < INT64_MIN ? INT64_MIN : (int64_t)d;
}

/* Aggregates weight on (stack, thread, class); the common (stack) alone with
 * a small key goes to an array. */
static int add_sample(struct jfr *j, uint64_t stack, uint64_t thread, uint64_t cls_key, bool kernel, uint64_t weight)
{
	uint64_t *v;
	if (!thread && !cls_key && !kernel && stack < DIRECT_KEYS) {
		if (stack >= j->sdirect_len) {
			size_t len = key_table_len(j->sdirect_len ? j->sdirect_len : 4096, stack);
			uint64_t *d = realloc(j->sdirect, len * sizeof(*d));
			if (!d)
				return nomem(j);
			memset(d + j->sdirect_len, 0, (len - j->sdirect_len) * sizeof(*d));
			j->sdirect = d;
			j->sdirect_len = len;
		}
		v = &j->sdirect[stack];
		if (*v == 0) {
			if (!fg_array_reserve((void **)&j->sused, &j->sused_cap, j->nsused + 1, sizeof(*j->sused)))
				return nomem(j);
			j->sused[j->nsused++] = (uint32_t)stack;
		}
	} else {
		bool added;
		int rc = fg_keymap_put(&v, &added, &j->samples[kernel], stack, thread, cls_key, j->err);
		if (rc)
			return rc;
	}
	if (*v > UINT64_MAX - weight)
		return bad(j, "sample counts overflow 64 bits");
	*v += weight;
	return 0;
}

/* The fields of an event that matter, by role: read the generic way, or as
 * plain varints for an all-integer layout (the usual one). */
struct ev {
	uint64_t v[R_COUNT];
	bool has[R_COUNT];
	bool stack_ref; /* the stack trace is a pool key */
};

static int event_fields(struct jfr *j, struct cur *c, const struct jclass *k, uint32_t cls, struct ev *e)
{
	memset(e->has, 0, sizeof(e->has));
	e->stack_ref = false;
	if (k->flat) {
		/* Unchecked where the chunk holds 9 bytes a field, the event's
		 * end checked once after: the varints lie in order, so they are
		 * all inside it when the last ends inside it; else they are
		 * read again, checked, for the same answer as before. */
		uint64_t v[MAX_FLAT];
		const uint8_t *p = c->p;
		bool done = (size_t)(j->base + j->size - p) >= (size_t)9 * k->flat;
		/* The fields read_event() does not read are only stepped over
		 * (a time stamp's five bytes need no unpacking). */
		for (uint32_t i = 0; done && i < k->flat; i++) {
			if (k->needed >> i & 1)
				v[i] = varint_in(&p);
			else
				skip_in(&p);
		}
		if (done && p <= c->end)
			c->p = p;
		else {
			for (uint32_t i = 0; i < k->flat; i++)
				v[i] = varint(c);
			if (c->bad)
				return bad(j, "malformed event");
		}
		const struct field *f = &j->fields[k->field0];
		for (uint32_t m = k->needed; m; m &= m - 1) {
			uint32_t i = (uint32_t)__builtin_ctz(m);
			e->v[f[i].role] = v[i];
			e->has[f[i].role] = true;
		}
		e->has[R_NONE] = false;
		e->stack_ref = k->flat_stack_ref;
		return 0;
	}
	struct at at[R_COUNT] = { 0 };
	if (!walk(j, c, cls, at, 0))
		return bad(j, "malformed event");
	for (int r = 1; r < R_COUNT; r++) {
		if (!at[r].p)
			continue;
		e->v[r] = field_u64(j, at[r]);
		e->has[r] = true;
	}
	e->stack_ref = at[R_STACK].p && at[R_STACK].f->cpool;
	return 0;
}

/* The roles read_event() reads for the event chosen and the options. */
static bool role_needed(const struct jfr *j, const struct jclass *k, uint8_t role)
{
	switch (role) {
	case R_START: return j->window;
	case R_STACK: return true;
	case R_SAMPLES: return j->event == EV_WALL;
	case R_WEIGHT: case R_TLAB_SIZE: case R_ALLOC_SIZE: return j->event == EV_ALLOC;
	case R_DURATION: return j->event == EV_LOCK;
	case R_SAMPLED_THREAD: case R_EVENT_THREAD: return j->opts && j->opts->threads;
	case R_CLASS: return k->class_frame != 0;
	default: return false;
	}
}

/* jclass.needed of the chunk's flat event types, once the event is chosen. */
static void set_needed(struct jfr *j)
{
	for (size_t c = 0; c < j->nclasses; c++) {
		struct jclass *k = &j->classes[c];
		k->needed = 0;
		for (uint32_t i = 0; k->event != EV_NONE && i < k->flat; i++)
			k->needed |= (uint16_t)(role_needed(j, k, j->fields[k->field0 + i].role) << i);
	}
}

static int read_event(struct jfr *j, struct cur *c, const struct jclass *k, uint32_t cls)
{
	struct ev e;
	int rc = event_fields(j, c, k, cls, &e);
	if (rc)
		return rc;
	if (j->window) {
		int64_t t = event_time(j, e.has[R_START] ? e.v[R_START] : 0);
		if (t < j->from_ns || t >= j->to_ns)
			return 0;
	}
	if (!e.stack_ref)
		return bad(j, "an event without a stack trace reference");
	uint64_t stack = e.v[R_STACK];
	if (stack == 0)
		return 0; /* no stack recorded */
	uint64_t weight = 1;
	switch (j->event) {
	case EV_WALL:
		if (e.has[R_SAMPLES])
			weight = e.v[R_SAMPLES];
		break;
	case EV_ALLOC:
		weight = e.has[R_WEIGHT] ? e.v[R_WEIGHT]
		       : e.has[R_TLAB_SIZE] && e.v[R_TLAB_SIZE] ? e.v[R_TLAB_SIZE]
		       : e.has[R_ALLOC_SIZE] ? e.v[R_ALLOC_SIZE] : 0;
		break;
	case EV_LOCK: {
		/* Durations are in ticks. */
		__int128 ns = (__int128)(e.has[R_DURATION] ? e.v[R_DURATION] : 0) * 1000000000 / j->ticks_per_second;
		weight = ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
		break;
	}
	default: break;
	}
	if (weight == 0)
		return 0;
	uint64_t thread = 0;
	if (j->opts && j->opts->threads)
		thread = e.has[R_SAMPLED_THREAD] ? e.v[R_SAMPLED_THREAD] : e.has[R_EVENT_THREAD] ? e.v[R_EVENT_THREAD] : 0;
	uint64_t cls_key = k->class_frame && e.has[R_CLASS] ? e.v[R_CLASS] : 0;
	return add_sample(j, stack, thread, cls_key, k->class_frame == FG_FRAME_KERNEL, weight);
}

/* The method ids of the current chunk, in locals while frames are written
 * (the type stores, a byte array, could alias any field of j). */
struct ids {
	const uint32_t *id;  /* j->method_ids */
	uint64_t keys;       /* keys with a slot for both variants */
};

/* A frame's method not in method_ids yet (a miss of put_frame): resolved,
 * the table reloaded.  The name id to *name; its FRAME_ flags (FRAME_STOP
 * when the name ends the stack), or an error. */
static __attribute__((noinline)) int frame_miss(struct jfr *j, struct ids *ids, uint64_t method, bool native,
						uint32_t *name)
{
	uint64_t v;
	int rc = method_name(j, method, native, &v);
	if (rc)
		return rc;
	ids->id = j->method_ids;
	ids->keys = j->method_ids_len / 2;
	*name = (uint32_t)v;
	return (int)(v >> 32);
}

/* A type field's frame type, and whether its frames are named by the
 * method alone, the other variant of the key (native, C++, kernel): 0 or
 * 1, the low bit of the key's slot in method_ids, so that the slot is
 * method * 2 + native with no test.  Types past the table are native
 * (frame_kinds[KINDS - 1] stands for them all). */
enum { KINDS = 128 };
static const struct frame_kind {
	uint8_t type, native;
} frame_kinds[KINDS] = {
	[FG_FRAME_INTERPRETED] = { FG_FRAME_INTERPRETED, 0 }, [FG_FRAME_JIT] = { FG_FRAME_JIT, 0 },
	[FG_FRAME_INLINED] = { FG_FRAME_INLINED, 0 }, [FG_FRAME_NATIVE] = { FG_FRAME_NATIVE, 1 },
	[FG_FRAME_CPP] = { FG_FRAME_CPP, 1 }, [FG_FRAME_KERNEL] = { FG_FRAME_KERNEL, 1 },
	[FG_FRAME_C1] = { FG_FRAME_C1, 0 }, [FG_FRAME_TYPE_COUNT ... KINDS - 1] = { FG_FRAME_NATIVE, 1 },
};

/* A frame of method key `method` and type field t (the JIT type when the
 * frame has none) at names[0] / types[0]: 0, or 1 when its name ends the
 * stack (METHOD_STOP), or an error. */
static inline __attribute__((always_inline)) int put_frame(struct jfr *j, struct ids *ids, uint64_t method,
							   uint64_t t, uint32_t *names, uint8_t *types)
{
	const struct frame_kind *kind = &frame_kinds[t < KINDS ? t : KINDS - 1];
	bool native = kind->native;
	*types = kind->type;
	/* method_name()'s array, here: a call a frame saved. */
	uint32_t v = method < ids->keys ? ids->id[method << 1 | native] : ID_UNKNOWN;
	if (__builtin_expect(v == ID_UNKNOWN, 0)) {
		int rc = frame_miss(j, ids, method, native, names);
		return rc < 0 ? rc : rc >> 1;
	}
	*names = v & ~(ID_STOP | ID_HELD);
	return (int)(v >> 31);
}

/* The n frames of a flat StackFrame (fields all varints: the method key
 * field mi, the type field ti, or -1 for none) at fc, written from the
 * leaf's slot down, every varint checked against the chunk's end; up to
 * the first whose name ends the stack (*written: how many were). */
static int flat_frames(struct jfr *j, struct cur *fc, uint64_t n, uint32_t flat, uint32_t mi, int ti,
		       uint32_t *names, uint8_t *types, uint64_t *written)
{
	struct ids ids = { j->method_ids, j->method_ids_len / 2 };
	*written = n;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t method = 0, t = FG_FRAME_JIT;
		for (uint32_t f = 0; f < flat; f++) {
			uint64_t v = varint(fc);
			method = f == mi ? v : method;
			t = (int)f == ti ? v : t;
		}
		if (fc->bad)
			return bad(j, "corrupt stack trace in the constant pool");
		int rc = put_frame(j, &ids, method, t, names - i, types - i);
		if (rc) {
			*written = i + 1;
			return rc < 0 ? rc : 0;
		}
	}
	return 0;
}

/* flat_frames() for the layout both async-profiler and the JDK write
 * (method, lineNumber, bytecodeIndex, type), where the frames' 36 bytes
 * each are known to be there: no bounds to check, the fields unrolled,
 * put_frame() written out with the table in registers.  *held: false when
 * the visitor has an inert function and it said every frame written is
 * inert. */
static int std_frames(struct jfr *j, struct cur *fc, uint64_t n, uint32_t *names, uint8_t *types,
		      uint64_t *written, bool *held)
{
	struct ids ids = { j->method_ids, j->method_ids_len / 2 };
	const uint32_t *id = ids.id;
	uint64_t keys = ids.keys;
	const uint8_t *p = fc->p;
	/* Frame k (leaf first) goes to names[-k]: to name[i] for i from n - 1
	 * down, one index for both arrays. */
	uint32_t *name = names + 1 - n;
	uint8_t *type = types + 1 - n;
	int seen = 0; /* the FRAME_HELD flags of the frames written */
	for (uint64_t i = n; i != 0;) {
		i--;
		uint64_t method, t;
		/* The common frames, from one load: a method key of one byte or
		 * two, and a line number, bytecode index and type of one byte
		 * each (the top bits of the frame's bytes tested at once); else
		 * the varints one by one. */
		uint64_t w = fg_varint_load(p);
		if (!(w & UINT64_C(0x80808080))) {
			/* (the top bits are clear: bytes taken whole) */
			method = w & 0xff;
			t = (uint32_t)w >> 24;
			p += 4;
		} else if ((w & UINT64_C(0x8080808080)) == 0x80) {
			method = (w & 0xff) + (w >> 1 & 0x7f80) - 0x80;
			t = w >> 32 & 0xff;
			p += 5;
		} else {
			method = varint_in(&p);
			skip_in(&p);
			skip_in(&p);
			t = varint_in(&p);
			t = t < KINDS ? t : KINDS - 1;
		}
		type[i] = frame_kinds[t].type;
		uint64_t slot = method * 2 + frame_kinds[t].native;
		uint32_t v = method < keys ? id[slot] : ID_UNKNOWN;
		name[i] = v;
		/* One test for the rare cases: a miss, a stop, a frame held
		 * (with an inert function, the names that are not inert). */
		if (__builtin_expect(v >= ID_HELD, 0)) {
			int rc;
			if (v == ID_UNKNOWN) {
				rc = frame_miss(j, &ids, method, slot & 1, &name[i]);
				id = ids.id;
				keys = ids.keys;
				if (rc < 0)
					return rc;
			} else {
				rc = (int)(v >> 30);
				name[i] = v & ~(ID_STOP | ID_HELD);
			}
			if (rc & FRAME_STOP) {
				*written = n - i;
				return 0;
			}
			seen |= rc;
		}
	}
	*written = n;
	*held = !j->inert || seen;
	fc->p = p;
	return 0;
}

/* The stack of one aggregated entry, root first, to the visitor.  The
 * trace holds its frames leaf first: they are written from the end of the
 * stack down, after the root and the thread frame, before the class frame. */
static int add_stack(struct jfr *j, const fg_keymap_entry *e, uint8_t class_frame)
{
	fg_stackbuf *s = &j->stack;
	int rc;
	uint32_t id;
	struct cur c;
	if (j->c_stack == UINT32_MAX || !pool_cursor(j, j->c_stack, e->key[0], &c))
		return bad(j, "corrupt constant pool: a sample's stack trace is missing");
	const struct field *ff = j->st_frames;
	if (ff) {
		if (!to_frames(j, &c))
			return bad(j, "corrupt stack trace in the constant pool");
	} else {
		struct at at[R_COUNT] = { 0 };
		/* Up to the frames only: walking them all to find them would read them twice. */
		if (!walk_until(j, &c, j->c_stack, at, 0, R_FRAMES) || !at[R_FRAMES].p || !at[R_FRAMES].f->array)
			return bad(j, "corrupt stack trace in the constant pool");
		ff = at[R_FRAMES].f;
		c.p = at[R_FRAMES].p;
	}
	struct cur fc = { c.p, j->base + j->size, false };
	uint64_t n = varint(&fc);
	if (fc.bad || n > (uint64_t)(fc.end - fc.p))
		return bad(j, "corrupt stack trace in the constant pool");
	bool thread = j->opts && j->opts->threads;
	size_t len = 1 + thread + (size_t)n + (class_frame != 0);
	if ((rc = fg_stackbuf_reserve(s, len, j->err)) != 0)
		return rc;
	s->len = len;
	if (thread) {
		if ((rc = thread_name(j, e->key[1], &id)) != 0)
			return rc;
		s->names[1] = id;
		s->types[1] = FG_FRAME_NATIVE;
	}
	if (class_frame) {
		if ((rc = class_frame_name(j, e->key[2], &id)) != 0)
			return rc;
		s->names[len - 1] = id;
		s->types[len - 1] = class_frame;
	}
	/* The slot of the trace's leaf; the frames go down from it. */
	size_t at_leaf = 1 + thread + (size_t)n - 1;
	const struct jclass *fk = &j->classes[ff->cls];
	if (!ff->cpool && fk->flat) {
		/* The usual StackFrame: its fields as varints, method and type
		 * picked by position. */
		int mi = fk->method_at, ti = fk->type_at;
		if (mi < 0)
			return bad(j, "corrupt stack frame in the constant pool");
		uint32_t *names = s->names + at_leaf;
		uint8_t *types = s->types + at_leaf;
		uint64_t written;
		bool held = true;
		if (fk->flat == 4 && mi == 0 && ti == 3 && (uint64_t)(fc.end - fc.p) / 36 >= n)
			rc = std_frames(j, &fc, n, names, types, &written, &held);
		else
			rc = flat_frames(j, &fc, n, fk->flat, (uint32_t)mi, ti, names, types, &written);
		if (rc)
			return rc;
		/* Cut at a frame that ends the stack: that frame and the leaf
		 * are all the visitor needs of it (fg_stop_fn), the frame put
		 * just before the leaf (over frames no longer needed). */
		if (written < n) {
			size_t from = len - 1;
			if (written > 1 || class_frame) {
				from = len - 2;
				s->names[from] = s->names[at_leaf + 1 - (size_t)written];
				s->types[from] = s->types[at_leaf + 1 - (size_t)written];
			}
			return fg_stackbuf_emit_partial(s, from, e->value, j->fn, j->ctx, j->err);
		}
		/* Every frame of the trace inert (fg_inert_fn): the visitor needs
		 * of them only the leaf, the thread frame (put before it, over
		 * frames no longer needed) and the class frame. */
		if (!held && n > 1) {
			if (thread) {
				s->names[at_leaf - 1] = s->names[1];
				s->types[at_leaf - 1] = s->types[1];
			}
			return fg_stackbuf_emit_short(s, at_leaf - thread, e->value, j->fn, j->ctx, j->err);
		}
		n = 0;
	}
	for (uint64_t i = 0; i < n; i++) {
		struct at fa[R_COUNT] = { 0 };
		if (ff->cpool || j->classes[ff->cls].kind != K_STRUCT || !walk(j, &fc, ff->cls, fa, 0) ||
		    !fa[R_METHOD].p || !fa[R_METHOD].f->cpool)
			return bad(j, "corrupt stack frame in the constant pool");
		uint8_t type = FG_FRAME_JIT;
		if (fa[R_TYPE].p && fa[R_TYPE].f->cpool) {
			uint64_t t = field_u64(j, fa[R_TYPE]);
			type = t < FG_FRAME_TYPE_COUNT ? (uint8_t)t : FG_FRAME_NATIVE;
		}
		bool native = type == FG_FRAME_NATIVE || type == FG_FRAME_CPP || type == FG_FRAME_KERNEL;
		uint64_t v;
		if ((rc = method_name(j, field_u64(j, fa[R_METHOD]), native, &v)) != 0)
			return rc;
		s->names[at_leaf - i] = (uint32_t)v;
		s->types[at_leaf - i] = type;
	}
	return fg_stackbuf_emit(s, e->value, j->fn, j->ctx, j->err);
}

static int read_chunk(struct jfr *j)
{
	const uint8_t *b = j->base;
	j->visit = false;
	j->start_nanos = (int64_t)be(b + 32, 8);
	j->start_ticks = (int64_t)be(b + 48, 8);
	j->ticks_per_second = (int64_t)be(b + 56, 8);
	if (j->ticks_per_second <= 0)
		return bad(j, "no tick frequency in the chunk header");
	if (!j->have_rec_start) {
		j->rec_start = j->start_nanos;
		j->have_rec_start = true;
	}
	fg_keymap_clear(&j->pool);
	j->pool_announced = j->pool_sparse = 0;
	/* A new chunk's metadata may number its types otherwise. */
	for (size_t i = 0; i < j->npdirect; i++)
		if (j->pdirect[i])
			memset(j->pdirect[i], 0, j->pdirect_len[i] * sizeof(*j->pdirect[i]));
	fg_keymap_clear(&j->name_cache);
	if (j->method_ids)
		memset(j->method_ids, 0xff, j->method_ids_len * sizeof(*j->method_ids));
	fg_keymap_clear(&j->samples[0]);
	fg_keymap_clear(&j->samples[1]);
	int rc = read_metadata(j, be(b + 24, 8));
	if (rc)
		return rc;
	/* Pass 1: the constant pools, and which events the chunk holds. */
	uint64_t present[EV_COUNT] = { 0 };
	for (size_t pos = HEADER_SIZE; pos < j->size;) {
		struct cur c = { b + pos, b + j->size, false };
		uint64_t size = varint(&c), type = varint(&c);
		if (c.bad || size < 2 || size > j->size - pos)
			return bad(j, "event size runs past the chunk");
		c.end = b + pos + size;
		if (type == 1) {
			if ((rc = read_checkpoint(j, &c)) != 0)
				return rc;
		} else if (type > 1) {
			uint32_t cls = event_class(j, type);
			if (cls != UINT32_MAX && j->classes[cls].event != EV_NONE)
				present[j->classes[cls].event]++;
		}
		pos += size;
	}
	if (j->event == EV_NONE)
		for (int e = 0; e < EV_COUNT && j->event == EV_NONE; e++)
			if (present[e])
				j->event = (enum event)e;
	if (j->event == EV_NONE || !present[j->event])
		return 0;
	j->visit = true;
	return 0;
}

/* The chunk read_chunk() passed over, if it holds the chosen event: pass 2,
 * its samples aggregated; then the stacks resolved once each and handed to
 * the visitor. */
static int visit_chunk(struct jfr *j)
{
	const uint8_t *b = j->base;
	int rc;
	if (!j->visit)
		return 0;
	j->visit = false;
	set_needed(j);
	for (size_t pos = HEADER_SIZE; pos < j->size;) {
		struct cur c = { b + pos, b + j->size, false };
		uint64_t size = varint(&c), type = varint(&c);
		c.end = b + pos + size;
		pos += size;
		if (type <= 1)
			continue;
		uint32_t cls = event_class(j, type);
		if (cls == UINT32_MAX || j->classes[cls].event != (int8_t)j->event)
			continue;
		if ((rc = read_event(j, &c, &j->classes[cls], cls)) != 0)
			return rc;
	}
	check_methods(j);
	uint8_t leaf = j->event == EV_ALLOC || j->event == EV_LOCK ? FG_FRAME_INLINED : 0;
	for (size_t i = 0; i < j->nsused; i++) {
		fg_keymap_entry e = { .key = { j->sused[i], 0, 0 }, .value = j->sdirect[j->sused[i]], .used = true };
		j->sdirect[j->sused[i]] = 0;
		if ((rc = add_stack(j, &e, leaf)) != 0)
			return rc;
		j->have_samples = true;
	}
	j->nsused = 0;
	for (int k = 0; k < 2; k++) {
		for (uint32_t i = 0; i < fg_keymap_capacity(&j->samples[k]); i++) {
			const fg_keymap_entry *e = fg_keymap_at(&j->samples[k], i);
			if (!e->used)
				continue;
			uint8_t frame = 0;
			if (j->event == EV_ALLOC || j->event == EV_LOCK)
				frame = k ? FG_FRAME_KERNEL : FG_FRAME_INLINED;
			if ((rc = add_stack(j, e, frame)) != 0)
				return rc;
			j->have_samples = true;
		}
	}
	return 0;
}

/* A chunk header's start and end (ns) for the recording's extent. */
static int check_header(struct jfr *j, const uint8_t *h, size_t avail, uint64_t *size)
{
	if (avail < HEADER_SIZE)
		return fg_error_set(j->err, FG_EINVALID, fg_input_name(j->in),
				    "truncated: chunk %llu ends inside its header", (unsigned long long)j->chunk_no);
	if (memcmp(h, "FLR\0", 4))
		return bad(j, "not a JFR chunk (no FLR magic): trailing garbage?");
	uint64_t major = be(h + 4, 2);
	if (major != 1 && major != 2)
		return bad(j, "unsupported JFR version");
	*size = be(h + 8, 8);
	if (*size == 0)
		return bad(j, "the recording was not finished (chunk size 0: still being written?)");
	if (*size < HEADER_SIZE)
		return bad(j, "chunk size smaller than its header");
	return 0;
}

static int64_t bound_ns(const fg_time_bound *b, int64_t extent, int64_t dflt)
{
	if (!b->set)
		return dflt;
	double v = b->percent ? b->value / 100.0 * (double)extent : b->value * 1e9;
	if (v >= 9e18)
		return INT64_MAX;
	if (v <= -9e18)
		return INT64_MIN;
	return (int64_t)v;
}

/* The recording's start and length, for percentage bounds: the whole input
 * is peeked (the only case that holds more than a chunk in memory). */
static int recording_extent(struct jfr *j, int64_t *start, int64_t *length)
{
	const char *d;
	size_t n;
	int rc = fg_input_peek(&d, &n, j->in, SIZE_MAX, j->err);
	if (rc)
		return rc;
	int64_t first = 0, last = 0;
	for (size_t pos = 0; pos < n;) {
		uint64_t size;
		const uint8_t *h = (const uint8_t *)d + pos;
		j->chunk_no++;
		if ((rc = check_header(j, h, n - pos, &size)) != 0)
			return rc;
		int64_t s = (int64_t)be(h + 32, 8), e;
		if (__builtin_add_overflow(s, (int64_t)be(h + 40, 8), &e))
			return bad(j, "chunk start and duration out of range");
		if (pos == 0 || s < first)
			first = s;
		if (pos == 0 || e > last)
			last = e;
		if (size > n - pos)
			break;
		pos += size;
	}
	j->chunk_no = 0;
	*start = first;
	if (__builtin_sub_overflow(last, first, length))
		return bad(j, "chunk times out of range");
	return 0;
}

/* The pages of a chunk buffer's new part mapped in one call where the
 * system can (Linux 5.14+), not faulted in one at a time by the read: the
 * two-thread reading's second buffer made 10,000 more faults of the large
 * recording (21,500), each some 2 us of system time here; with this, 4,100.
 * Best effort: the read faults in whatever is left. */
static void populate(uint8_t *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t page = 4096, lo = ((uintptr_t)p + page - 1) & ~(page - 1), hi = ((uintptr_t)p + n) & ~(page - 1);
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}

/* The next chunk read into j's buffer and passed over (read_chunk); j->base
 * NULL at the end of the recording.  The buffer grows with the bytes read,
 * not to the size the header claims (a damaged size must not allocate what
 * the file does not hold), to the largest chunk. */
static int load_chunk(struct jfr *j)
{
	const char *d;
	size_t n;
	uint64_t size;
	j->base = NULL;
	int rc = fg_input_peek_most(&d, &n, j->in, HEADER_SIZE, j->err);
	if (rc || (n == 0 && j->chunk_no > 0))
		return rc;
	j->chunk_no++;
	if ((rc = check_header(j, (const uint8_t *)d, n, &size)) != 0)
		return rc;
	if (size > SIZE_MAX / 2)
		return bad(j, "chunk too large");
	/* When the input is known to hold the whole chunk, the buffer grows to
	 * it at once (each growth of a large block is an mremap, costlier once
	 * two threads share the mappings). */
	uint64_t total;
	bool whole = fg_input_plain_size(&total, j->in) && total >= fg_input_offset(j->in) &&
		     total - fg_input_offset(j->in) >= size;
	size_t got = 0;
	while (got < size) {
		if (got == j->buf_cap) {
			size_t cap = whole ? (size_t)size : j->buf_cap ? j->buf_cap * 2 : (size_t)1 << 18;
			cap = cap < size ? cap : (size_t)size;
			uint8_t *b = realloc(j->buf, cap + CHUNK_PADDING);
			if (!b)
				return nomem(j);
			populate(b + j->buf_cap, cap - j->buf_cap);
			j->buf = b;
			j->buf_cap = cap;
		}
		size_t k, want = (size_t)size - got;
		want = want < j->buf_cap - got ? want : j->buf_cap - got;
		if ((rc = fg_input_read(&k, j->in, j->buf + got, want, j->err)) != 0)
			return rc;
		got += k;
		if (k < want)
			return fg_error_set(j->err, FG_EINVALID, fg_input_name(j->in),
					    "truncated: chunk %llu should hold %llu bytes, the file has %zu left",
					    (unsigned long long)j->chunk_no, (unsigned long long)size, got);
	}
	memset(j->buf + size, 0, CHUNK_PADDING);
	j->base = j->buf;
	j->size = (size_t)size;
	return read_chunk(j);
}

/* ---- Chunks on two threads -----------------------------------------------
 *
 * A chunk is self-contained: its passes (load_chunk) need nothing of the
 * chunks before it but the event chosen, the recording's start and the
 * chunk count, which a reader carries to the next in file order.  With
 * fg_read_options.split, this thread loads the first chunk, then a second
 * thread, the only one to read the input from then on, loads the others in
 * turn into two readers (struct jfr), each with its own chunk buffer and
 * tables, while this thread visits them in order (base/handoff.h, room for
 * two chunks): it visits chunk k in one reader while the second thread
 * loads chunk k + 1 into the other.  A
 * failure of the second thread is its reader's record, taken only when this
 * thread reaches that chunk, so the first failure in file order is the one
 * reported, as on one thread; when this thread fails, the second is told to
 * stop and what it has loaded is dropped.  The names, the stack buffer and
 * the visitor are this thread's alone: a reader visited borrows them
 * (visit_in).  Memory: a second chunk buffer (the largest chunk of the other
 * parity) and a second set of per-chunk tables. */

struct pipe {
	struct jfr *r[2];        /* r[0] the caller's reader; chunk i (from 0) in r[i % 2] */
	fg_error errs[2];        /* the second thread's failures, by reader */
	int rc[2];
};

/* A reader for the second thread: the caller's settings, no chunk yet. */
static void reader_like(struct jfr *r, const struct jfr *j)
{
	*r = (struct jfr){ .in = j->in, .names = j->names, .fn = j->fn, .stop = j->stop, .inert = j->inert,
			   .ctx = j->ctx, .info = j->info, .opts = j->opts, .window = j->window,
			   .from_ns = j->from_ns, .to_ns = j->to_ns, .event = EV_NONE };
}

/* What a reader passes on to the one that loads the next chunk. */
static void carry(struct jfr *to, const struct jfr *from)
{
	to->event = from->event;
	to->rec_start = from->rec_start;
	to->have_rec_start = from->have_rec_start;
	to->chunk_no = from->chunk_no;
}

/* The second thread: chunk i loaded into r[i % 2] once chunk i - 2 is
 * visited (the hand-off's room of 2), then published (position i + 1). */
static void load_thread(fg_handoff *h, void *arg)
{
	struct pipe *p = arg;
	for (uint64_t i = 1; fg_handoff_room(h, i); i++) {
		struct jfr *r = p->r[i % 2];
		carry(r, p->r[(i - 1) % 2]);
		r->err = &p->errs[i % 2];
		int rc = p->rc[i % 2] = load_chunk(r);
		bool end = rc || !r->base;
		fg_handoff_publish(h, i + 1, end);
		if (end)
			return;
	}
}

/* visit_chunk() of reader r with j's stack buffer and counts (which stay
 * this thread's, also while the second thread loads a chunk into j), its
 * errors the caller's. */
static int visit_in(struct jfr *j, struct jfr *r, fg_error *err)
{
	r->err = err;
	if (r == j)
		return visit_chunk(j);
	fg_stackbuf s = r->stack;
	r->stack = j->stack;
	int rc = visit_chunk(r);
	j->stack = r->stack;
	r->stack = s;
	j->have_samples |= r->have_samples;
	return rc;
}

static void free_reader(struct jfr *j)
{
	free(j->buf);
	free(j->arena);
	free(j->mstr);
	free(j->classes);
	free(j->fields);
	free(j->scratch);
	free(j->name);
	fg_keymap_free(&j->class_by_id);
	fg_keymap_free(&j->pool);
	fg_keymap_free(&j->name_cache);
	free(j->method_ids);
	free(j->sdirect);
	free(j->sused);
	for (size_t i = 0; i < j->npdirect; i++)
		free(j->pdirect[i]);
	free(j->pdirect);
	free(j->pdirect_len);
	fg_keymap_free(&j->samples[0]);
	fg_keymap_free(&j->samples[1]);
}

/* Whether a second thread may load chunks after the first: asked for, and
 * more of the input may follow (plain content of a known size may say it
 * does not). */
static bool split_chunks(const struct jfr *j)
{
	uint64_t size;
	if (!j->opts || !j->opts->split)
		return false;
	return !fg_input_plain_size(&size, j->in) || fg_input_offset(j->in) < size;
}

/* The chunks after the first (loaded in j), visited in order, the others
 * loaded by a second thread; 1 when it could not be started (nothing
 * done: the caller reads on alone). */
static int read_split(struct jfr *j)
{
	struct jfr second;
	reader_like(&second, j);
	struct pipe p = { .r = { j, &second } };
	fg_error *err = j->err;
	fg_handoff *h;
	if (fg_handoff_start(&h, 2, load_thread, &p))
		return 1;
	int rc = 0;
	struct jfr *last = j;
	bool end;
	for (uint64_t i = 0;; i++) {
		struct jfr *r = p.r[i % 2];
		if (i > 0) {
			fg_handoff_wait(h, i, &end);
			last = r;
			if ((rc = p.rc[i % 2]) != 0) {
				*err = p.errs[i % 2];
				break;
			}
			if (!r->base)
				break;
		}
		if ((rc = visit_in(j, r, err)) != 0)
			break;
		fg_handoff_take(h, i + 1);
	}
	fg_handoff_stop(h);
	j->event = last->event;
	j->err = err;
	free_reader(&second);
	fg_stackbuf_free(&second.stack);
	return rc;
}

int fg_jfr_read(fg_profile_info *info, fg_input *in, fg_names *names, const fg_read_options *opts,
		fg_stack_fn fn, fg_stop_fn stop, fg_inert_fn inert, void *ctx, fg_error *err)
{
	struct jfr j = { .in = in, .names = names, .fn = fn, .stop = stop, .inert = inert, .ctx = ctx, .info = info,
			 .opts = opts, .err = err, .event = EV_NONE };
	fg_stackbuf_limit(&j.stack, opts, fg_input_name(in));
	int rc = fg_stackbuf_init(&j.stack, names, err);
	if (rc)
		return rc;
	info->format = FG_FORMAT_JFR;
	if (opts && opts->event) {
		for (int e = 0; e < EV_COUNT; e++)
			if (!strcmp(opts->event, event_names[e]))
				j.event = (enum event)e;
		if (j.event == EV_NONE) {
			rc = fg_error_set(err, FG_EUSAGE, fg_input_name(in),
					  "unknown event '%s' (a JFR recording holds cpu, wall, alloc or lock events)",
					  opts->event);
			goto out;
		}
	}
	if (opts && (opts->from.set || opts->to.set)) {
		int64_t start = 0, length = 0;
		if ((opts->from.percent || opts->to.percent) && (rc = recording_extent(&j, &start, &length)) != 0)
			goto out;
		j.window = true;
		j.rec_start = start;
		j.have_rec_start = opts->from.percent || opts->to.percent;
		j.from_ns = bound_ns(&opts->from, length, INT64_MIN);
		j.to_ns = bound_ns(&opts->to, length, INT64_MAX);
		if (j.from_ns >= j.to_ns) {
			rc = fg_error_set(err, FG_EUSAGE, fg_input_name(in), "--from is not before --to");
			goto out;
		}
	}
	if ((rc = load_chunk(&j)) == 0 && j.base && (!split_chunks(&j) || (rc = read_split(&j)) == 1)) {
		/* One thread: each chunk visited, then the next loaded. */
		while (!(rc = visit_chunk(&j)) && !(rc = load_chunk(&j)) && j.base)
			;
	}
	if (!rc && !j.have_samples) {
		if (j.event == EV_NONE)
			rc = fg_error_set(err, FG_EINVALID, fg_input_name(in),
					  "no samples: the recording holds no execution, wall-clock, allocation or lock events");
		else
			rc = fg_error_set(err, FG_EINVALID, fg_input_name(in), "no samples: no %s events%s",
					  event_names[j.event], j.window ? " between --from and --to" : "");
	}
out:
	info->total = j.stack.total;
	info->frames = j.stack.stacks;
	if (j.event != EV_NONE) {
		snprintf(info->event, sizeof(info->event), "%s", event_names[j.event]);
		snprintf(info->unit, sizeof(info->unit), "%s", event_units[j.event]);
	}
	free_reader(&j);
	fg_stackbuf_free(&j.stack);
	return rc;
}

/* ---- frame types as the converter merges them --------------------------- */

/* Java frame types per tree node, weighed by samples: async-profiler's
 * converter merges the interpreted, C1, JIT and inlined frames of a method at
 * one place of the tree into one node and types it by majority. */
struct fg_jfr_typing {
	fg_tree *tree;
	struct java_types { uint64_t total, inlined, c1, interpreted; } *counts; /* by node id */
	uint32_t cap;
};

int fg_jfr_typing_new(fg_jfr_typing **out, fg_tree *tree, fg_error *err)
{
	if (!(*out = calloc(1, sizeof(**out))))
		return fg_error_oom(err, NULL);
	(*out)->tree = tree;
	return 0;
}

void fg_jfr_typing_free(fg_jfr_typing *t)
{
	if (t)
		free(t->counts);
	free(t);
}

static bool is_java(uint8_t type)
{
	return type == FG_FRAME_INTERPRETED || type == FG_FRAME_JIT || type == FG_FRAME_INLINED || type == FG_FRAME_C1;
}

int fg_jfr_typing_add_stack(void *ctx, const fg_stack *stack, fg_error *err)
{
	fg_jfr_typing *t = ctx;
	int rc = fg_tree_add_stack(t->tree, stack->names + 1, stack->types + 1, stack->depth, stack->count, err);
	uint32_t node = 0;
	for (size_t i = 1; !rc && i <= stack->depth; i++) {
		uint8_t type = stack->types[i];
		node = fg_tree_find_child(t->tree, node, stack->names[i], type);
		if (!is_java(type))
			continue;
		if (node >= t->cap) {
			uint32_t cap = t->cap ? t->cap : 1024;
			while (cap <= node)
				cap *= 2;
			struct java_types *n = realloc(t->counts, (size_t)cap * sizeof(*n));
			if (!n)
				return fg_error_oom(err, NULL);
			memset(n + t->cap, 0, (size_t)(cap - t->cap) * sizeof(*n));
			t->counts = n;
			t->cap = cap;
		}
		struct java_types *c = &t->counts[node];
		uint64_t w = stack->count;
		c->total += w;
		c->inlined += type == FG_FRAME_INLINED ? w : 0;
		c->c1 += type == FG_FRAME_C1 ? w : 0;
		c->interpreted += type == FG_FRAME_INTERPRETED ? w : 0;
	}
	return rc;
}

/* Frame.getType of the converter: inlined when a third of the node's
 * samples were, else C1 or interpreted by half, else JIT compiled. */
void fg_jfr_typing_apply(fg_jfr_typing *t)
{
	for (uint32_t id = 1; id < t->cap && id < fg_tree_size(t->tree); id++) {
		const struct java_types *c = &t->counts[id];
		if (!c->total)
			continue;
		uint8_t type = (unsigned __int128)c->inlined * 3 >= c->total        ? FG_FRAME_INLINED
			       : (unsigned __int128)c->c1 * 2 >= c->total          ? FG_FRAME_C1
			       : (unsigned __int128)c->interpreted * 2 >= c->total ? FG_FRAME_INTERPRETED
										: FG_FRAME_JIT;
		fg_tree_set_type(t->tree, id, type);
	}
}
