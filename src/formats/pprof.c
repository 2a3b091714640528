#include "formats/pprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "formats/collapsed.h"
#include "base/idarray.h"
#include "formats/keymap.h"
#include "formats/stackbuf.h"
#include "formats/varint.h"

/* profile.proto field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3, LABEL_NUM_UNIT = 4,
	MAPPING_ID = 1, MAPPING_FILENAME = 5,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_FILENAME = 4,
};

enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_LEN = 2, WIRE_FIXED32 = 5 };

#define MAX_SAMPLE_TYPES 64
#define LOC_ONE (UINT64_C(1) << 40)
#define LOC_STOP (UINT64_C(1) << 41)

struct pb {
	const uint8_t *p, *end;
};

/* One field: its number, wire type, and value (a varint) or bytes. */
struct pb_field {
	uint64_t num;
	int wire;
	uint64_t v;
	struct pb sub;
};

struct span {
	const uint8_t *p;
	size_t len;
};

/* Pass 1's record of the samples, so that the input is inflated once: each
 * sample's location ids, leaf first, front-coded against the previous
 * sample's (stacks that follow each other share their callers, the end of
 * the list: only the ids before the shared part are kept), and its values.
 * Per sample, as varints: the ids shared; the bytes of the ids kept << 2,
 * | 2 when the values are those of the sample before, | 1 when the ids are
 * one-id fields (else varints); those ids; unless the same, the values'
 * count and the values.  Given up (pass 2 then reads the samples from
 * the input again, as without it) past RECORD_MAX bytes, for a sample pass 2
 * would find malformed (pass 2 then says so, in its order), with labels
 * asked for (their messages are not kept), or out of memory. */
#define RECORD_MAX ((size_t)32 << 20)
/* Samples that share little with the one before (written in no order)
 * make a record nearly as large as they are: past this many bytes of
 * samples, a record over a quarter of them is given up early. */
#define RECORD_TRIAL ((size_t)1 << 20)

struct record {
	bool on;
	size_t max;              /* RECORD_MAX, or the tests' bound (fg_pprof_read_bounded) */
	size_t max_ids;          /* --max-depth: a sample of more ids is not recorded (pass 2 refuses it) */
	size_t seen;             /* the bytes of the samples recorded */
	uint8_t *buf;
	size_t len, cap;
	/* The path, the last sample's location ids, what the next sample's are
	 * front-coded against: for its first `known` depths from the root, the
	 * bytes the samples wrote them in, leaf first, at the end of bytes[]
	 * (one-id fields, or a packed field's varints when packed), depth d and
	 * those nearer the root in the last ends[d] bytes. */
	uint8_t *bytes;
	size_t bytes_cap, *ends, ends_cap, known;
	bool packed;
	size_t tail;             /* the bytes after the last run of one-id fields */
	/* The sample being read: where its run's ids begin, their count, and
	 * its ids and values when they are needed as numbers. */
	uint64_t *offs, *ids, *values;
	size_t nids, offs_cap, ids_cap, values_cap;
	/* The last values written (most samples have those of the one before:
	 * the record then says so). */
	uint64_t *last;
	size_t nlast, last_cap;
};

struct pprof {
	fg_input *in;
	fg_names *names;
	fg_stack_fn fn;
	fg_stop_fn stop;          /* the visitor's (profile.h), or NULL */
	void *ctx;
	fg_error *err;

	/* The message's fields but its samples, in their order (pass 1 copies
	 * them here): the tables' spans point into it. */
	uint8_t *tables;
	size_t tables_len, tables_cap;
	struct span *strings;
	size_t nstrings, strings_cap;
	struct { uint64_t type, unit; } types[MAX_SAMPLE_TYPES];
	size_t ntypes;
	uint64_t default_type;
	fg_keymap functions;   /* function id -> name string index | filename string index << 32 */
	fg_keymap mappings;    /* mapping id -> filename string index */
	fg_keymap locations;   /* location id -> index into locs */
	struct loc {
		struct span msg;
		uint64_t id;
		uint32_t first, n; /* its frames in frames[], leaf first, once expanded */
		bool expanded;
		bool stop;         /* once expanded: stop says one of its frames ends a stack */
	} *locs;
	size_t nlocs, locs_cap;
	/* Location id -> index into locs, for ids up to a few times their
	 * count (writers number them from 1): a load per frame instead of a
	 * hash lookup.  UINT32_MAX where no location has the id. */
	uint32_t *loc_direct;
	size_t nloc_direct;
	/* By the same ids: a location of one frame, once expanded, as
	 * LOC_ONE | LOC_STOP if it ends a stack | type << 32 | name id; else 0. */
	uint64_t *loc_one;
	fg_stackbuf frames;       /* the expanded locations' frames */
	fg_stackbuf stack;
	/* --label: the keys asked for, whether a sample had each, and the
	 * current sample's labels (the messages) and label frame's name. */
	const char *const *keys;
	size_t nkeys;
	bool *key_seen;
	struct span *labels;
	size_t nlabels, labels_cap;
	char *label_name;
	size_t label_name_cap;
	struct record rec;
};

static int bad(struct pprof *pp, const char *what)
{
	return fg_error_set(pp->err, FG_EINVALID, fg_input_name(pp->in), "pprof: %s", what);
}

static int nomem(struct pprof *pp)
{
	return fg_error_oom(pp->err, fg_input_name(pp->in));
}

/* A base-128 varint of at most 10 bytes (non-minimal forms allowed, as
 * async-profiler pads lengths); one that ends within 8 bytes of a message
 * holding 8 more is read as one word. */
static inline bool pb_varint(struct pb *b, uint64_t *out)
{
	if (b->p < b->end && b->p[0] < 0x80) {
		*out = *b->p++;
		return true;
	}
	if (b->end - b->p >= 8) {
		if (b->p[1] < 0x80) {
			*out = (uint64_t)(b->p[0] & 0x7f) | (uint64_t)b->p[1] << 7;
			b->p += 2;
			return true;
		}
		if (fg_varint_word(&b->p, out))
			return true;
	}
	uint64_t v = 0;
	for (int i = 0; i < 10; i++) {
		if (b->p >= b->end)
			return false;
		uint8_t c = *b->p++;
		v |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80)) {
			*out = v;
			return true;
		}
	}
	return false;
}

/* The next field; 1, 0 at the end, -1 when malformed. */
static int pb_next(struct pb *b, struct pb_field *f)
{
	uint64_t key;
	if (b->p == b->end)
		return 0;
	if (!pb_varint(b, &key) || key >> 3 == 0)
		return -1;
	f->num = key >> 3;
	f->wire = (int)(key & 7);
	switch (f->wire) {
	case WIRE_VARINT:
		return pb_varint(b, &f->v) ? 1 : -1;
	case WIRE_FIXED64:
	case WIRE_FIXED32: {
		size_t n = f->wire == WIRE_FIXED64 ? 8 : 4;
		if ((size_t)(b->end - b->p) < n)
			return -1;
		b->p += n;
		return 1;
	}
	case WIRE_LEN: {
		uint64_t n;
		if (!pb_varint(b, &n) || n > (uint64_t)(b->end - b->p))
			return -1;
		f->sub = (struct pb){ b->p, b->p + n };
		b->p += n;
		return 1;
	}
	default:
		return -1; /* groups (3, 4) and unknown wire types */
	}
}

/* A repeated integer field: packed (one length-delimited run) or not.
 * Calls back for every value; false when malformed. */
static bool pb_each_int(const struct pb_field *f, bool (*fn)(void *, uint64_t), void *ctx)
{
	if (f->wire == WIRE_VARINT)
		return fn(ctx, f->v);
	if (f->wire != WIRE_LEN)
		return false;
	struct pb b = f->sub;
	while (b.p < b.end) {
		uint64_t v;
		if (!pb_varint(&b, &v) || !fn(ctx, v))
			return false;
	}
	return true;
}

/* The message's top-level fields, a window of the input at a time: the
 * samples are read where they were inflated (still in cache, and no page of
 * memory for each of them), and only the largest field is ever whole in
 * memory.  An input that cannot be read twice (a pipe) is held whole. */
struct fields {
	fg_input *in;
	bool held;              /* [start, end) is the whole message */
	bool ended;             /* the window holds the rest of the input */
	const uint8_t *start;   /* held: the message */
	const uint8_t *p, *end; /* the window's unread bytes */
	const uint8_t *field;   /* where the last field read began */
};

/* The next field: *got as pb_next() says (1, 0 at the end, -1 when
 * malformed: only once the input is read to its end, so that its own errors
 * come first, as when the message was read whole).  Non-zero: the input's
 * error. */
static int fields_next(int *got, struct fields *s, struct pb_field *f, fg_error *err)
{
	for (;;) {
		struct pb b = { s->p, s->end };
		*got = pb_next(&b, f);
		if (*got > 0 || s->held || s->ended) {
			s->field = s->p;
			s->p = b.p;
			return 0;
		}
		/* Not whole in the window: more of the input. */
		const char *d;
		size_t have = s->p ? (size_t)(s->end - s->p) : 0, n;
		if (s->p)
			fg_input_consume_lines(s->in, (const char *)s->p, 0);
		int rc = fg_input_peek(&d, &n, s->in, have + 1, err);
		if (rc)
			return rc;
		s->p = (const uint8_t *)d;
		s->end = s->p + n;
		s->ended = n == have;
	}
}

/* Back to the message's first field. */
static int fields_rewind(struct fields *s, fg_error *err)
{
	if (s->held) {
		s->p = s->start;
		return 0;
	}
	s->p = s->end = NULL;
	s->ended = false;
	return fg_input_rewind(s->in, err);
}

bool fg_pprof_sniff(const unsigned char *d, size_t n)
{
	/* Field 1 (sample_type, length-delimited), a short message of fields:
	 * text cannot start so (a newline, then a control byte as a length). */
	if (n < 4 || d[0] != 0x0a || d[1] == 0 || d[1] > 40 || (size_t)d[1] + 2 > n)
		return false;
	struct pb b = { d + 2, d + 2 + d[1] };
	struct pb_field f;
	int rc;
	while ((rc = pb_next(&b, &f)) > 0)
		;
	return rc == 0;
}

static int put_id(struct pprof *pp, fg_keymap *m, uint64_t id, uint64_t value, const char *what)
{
	uint64_t *v;
	bool added;
	int rc = fg_keymap_put(&v, &added, m, id, 0, 0, pp->err);
	if (rc)
		return rc;
	if (!added) {
		char msg[64];
		snprintf(msg, sizeof(msg), "two %s with id %llu", what, (unsigned long long)id);
		return bad(pp, msg);
	}
	*v = value;
	return 0;
}

static void record_drop(struct record *r)
{
	free(r->buf);
	free(r->bytes);
	free(r->ends);
	free(r->offs);
	free(r->ids);
	free(r->values);
	free(r->last);
	*r = (struct record){ 0 };
}

/* fg_array_reserve() without a call when there is room: once a sample. */
static inline bool room_for(void *buf, size_t *cap, size_t need, size_t elem)
{
	return need <= *cap || fg_array_reserve(buf, cap, need, elem);
}

/* Appends v to the array *a of *n (capacity *cap); false when out of memory. */
static inline bool record_push(uint64_t **a, size_t *n, size_t *cap, uint64_t v)
{
	if (*n == *cap && !fg_array_reserve((void **)a, cap, *n + 1, sizeof(**a)))
		return false;
	(*a)[(*n)++] = v;
	return true;
}

static inline uint8_t *record_varint(uint8_t *p, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		*p++ = (uint8_t)(v | 0x80);
	*p++ = (uint8_t)v;
	return p;
}

/* The next number of the record: a varint pb_varint() read whole. */
static inline uint64_t record_next(const uint8_t **pp)
{
	const uint8_t *p = *pp;
	uint64_t v = p[0];
	if (v < 0x80) {
		*pp = p + 1;
		return v;
	}
	v = (v & 0x7f) | (uint64_t)(p[1] & 0x7f) << 7;
	if (p[1] < 0x80) {
		*pp = p + 2;
		return v;
	}
	p++;
	for (unsigned shift = 14; *p++ & 0x80; shift += 7)
		v |= (uint64_t)(*p & 0x7f) << shift;
	*pp = p;
	return v;
}

/* How many bytes before a and before b are the same, up to n. */
static size_t common_suffix(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t k = 0;
#if defined(__SSE2__)
	while (n - k >= 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(a - k - 16));
		__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(b - k - 16));
		unsigned differ = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) ^ 0xffff;
		if (differ)
			return k + (size_t)__builtin_clz(differ) - 16;
		k += 16;
	}
#endif
	while (n - k >= 8) {
		uint64_t x = fg_varint_load(a - k - 8) ^ fg_varint_load(b - k - 8);
		if (x)
			return k + (size_t)__builtin_clzll(x) / 8;
		k += 8;
	}
	while (k < n && a[-1 - (ptrdiff_t)k] == b[-1 - (ptrdiff_t)k])
		k++;
	return k;
}

/* How many of the path's depths, from the root, have their bytes at the end
 * of the run [start, run_end). */
static size_t record_same(const struct record *r, const uint8_t *start, const uint8_t *run_end)
{
	const size_t *ends = r->ends;
	size_t most = ends[r->known - 1] < (size_t)(run_end - start) ? ends[r->known - 1] : (size_t)(run_end - start);
	size_t same = common_suffix(run_end, r->bytes + r->bytes_cap, most), lo = 0, hi = r->known;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ends[mid] <= same)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The ids of a run from start up to stop (end: the sample's), each checked
 * as pb_varint() reads it, their offsets from start in r->offs (and the end
 * of the last), their count in r->nids: the end of the last, or NULL when
 * one is malformed or out of memory.  A run of one-id fields ends early at
 * a byte that is not such a field's key.  Its state in locals: the stores
 * to the array could alias it. */
static const uint8_t *record_skip(struct record *r, const uint8_t *start, const uint8_t *stop, const uint8_t *end,
				  bool packed)
{
	enum { ROOM = 256 };
	const uint8_t *p = start;
	uint64_t *offs = r->offs;
	size_t n = 0, room = r->offs_cap;
	while (p < stop && (packed || *p == (SAMPLE_LOCATION_ID << 3 | WIRE_VARINT))) {
		const uint8_t *q = p + !packed;
		if (end - q >= 2 && q[0] < 0x80) {
			q++;
		} else if (end - q >= 2 && q[1] < 0x80) {
			q += 2;
		} else {
			struct pb s = { q, end };
			uint64_t id;
			if (!pb_varint(&s, &id))
				return NULL;
			q = s.p;
		}
		if (n + 1 >= room) {
			if (n > r->max_ids ||
			    !fg_array_reserve((void **)&r->offs, &r->offs_cap, n + ROOM, sizeof(*r->offs)))
				return NULL;
			offs = r->offs;
			room = r->offs_cap;
		}
		offs[n++] = (uint64_t)(p - start);
		p = q;
	}
	if (n + 1 > room && !fg_array_reserve((void **)&r->offs, &r->offs_cap, n + 1, sizeof(*r->offs)))
		return NULL;
	r->offs[n] = (uint64_t)(p - start);
	r->nids = n;
	return p;
}

/* A sample's first run of location ids at b: its one-id fields (as
 * async-profiler writes them, a run read as put_unpacked() reads it) or a
 * packed field's ids (as Go writes them), stepped over (b past it) as
 * record_skip() does; false when an id is malformed, or out of memory.
 * When the run ends in the bytes of the path's ids from a depth d to the
 * root, *shared is d + 1 (else 0) and r->nids the ids before those.  A
 * packed run's end is its field's; a run of fields is first taken to end
 * where the previous sample's did, as far from the sample's end (its values
 * and labels as long): the ids before the path's bytes, stepped over from
 * the start, landing on them, and the run ending there, prove it.  Else the
 * whole run is stepped over and its end compared. */
static bool record_run(size_t *shared, struct record *r, struct pb *b, bool packed)
{
	const uint8_t *const start = b->p, *const end = b->end, *p;
	bool match = packed == r->packed && r->known;
	*shared = 0;
	if (match) {
		const uint8_t *run_end = end - (packed || r->tail > (size_t)(end - start) ? 0 : r->tail);
		size_t same;
		if ((run_end == end || *run_end != (SAMPLE_LOCATION_ID << 3 | WIRE_VARINT)) &&
		    (same = record_same(r, start, run_end)) != 0) {
			const uint8_t *q = run_end - r->ends[same - 1];
			if ((p = record_skip(r, start, q, end, packed)) == NULL)
				return false;
			if (p == q) {
				*shared = same;
				b->p = run_end;
				return true;
			}
		}
	}
	if ((p = record_skip(r, start, end, end, packed)) == NULL)
		return false;
	b->p = p;
	if (!packed)
		r->tail = (size_t)(end - p);
	/* The most depths whose bytes end the run where an id begins. */
	for (size_t same = match ? record_same(r, start, p) : 0; same; same--) {
		uint64_t at = (uint64_t)(p - start) - r->ends[same - 1];
		size_t lo = 0, hi = r->nids;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (r->offs[mid] < at)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < r->nids && r->offs[lo] == at) {
			r->nids = lo;
			*shared = same;
			break;
		}
	}
	return true;
}

/* Appends the ids in [p, end) (checked), one-id fields unless packed, to
 * r->ids; false when out of memory. */
static bool record_ids(struct record *r, const uint8_t *p, const uint8_t *end, bool packed)
{
	while (p < end) {
		struct pb s = { p + !packed, end };
		uint64_t id = 0;
		pb_varint(&s, &id);
		if (!record_push(&r->ids, &r->nids, &r->ids_cap, id))
			return false;
		p = s.p;
	}
	return true;
}

/* A sample's location ids and values, read as read_samples() reads them,
 * into the record; the record given up when read_samples() would find the
 * sample malformed (it then reads it and says so) or the record grows too
 * large.  The usual sample holds its ids in one run, first (its first
 * field): the record keeps the run's bytes before those it shares with the
 * path and makes the path its run.  Else (its ids in several fields) they
 * are all kept, as varints, and the path has no bytes. */
static void record_sample(struct pprof *pp, struct pb b)
{
	struct record *r = &pp->rec;
	struct pb_field g;
	size_t nv = 0, shared = 0;
	const uint8_t *run = NULL; /* the run record_run() read */
	bool packed = false, whole = false; /* whole: every id in r->ids */
	int got;
	r->nids = 0;
	r->seen += (size_t)(b.end - b.p);
	if (b.p < b.end && *b.p == (SAMPLE_LOCATION_ID << 3 | WIRE_VARINT)) {
		run = b.p;
		if (!record_run(&shared, r, &b, false))
			goto drop;
	}
	while ((got = pb_next(&b, &g)) > 0) {
		if (g.num == SAMPLE_LOCATION_ID && g.wire == WIRE_LEN && !run && !whole) {
			run = g.sub.p;
			packed = true;
			if (!record_run(&shared, r, &g.sub, true))
				goto drop;
			continue;
		}
		if (g.num != SAMPLE_LOCATION_ID && g.num != SAMPLE_VALUE)
			continue;
		bool loc = g.num == SAMPLE_LOCATION_ID;
		if (loc && !whole) {
			/* More ids: the run's and the path's they share, as ids. */
			size_t kept = run ? r->offs[r->nids] : 0;
			r->nids = 0;
			if ((run && !record_ids(r, run, run + kept, packed)) ||
			    (shared && !record_ids(r, r->bytes + r->bytes_cap - r->ends[shared - 1], r->bytes + r->bytes_cap,
						   r->packed)))
				goto drop;
			shared = 0;
			whole = true;
		}
		if (loc && r->nids > r->max_ids)
			goto drop;
		if (g.wire == WIRE_VARINT) {
			if (!(loc ? record_push(&r->ids, &r->nids, &r->ids_cap, g.v)
				  : record_push(&r->values, &nv, &r->values_cap, g.v)))
				goto drop;
			continue;
		}
		if (g.wire != WIRE_LEN)
			goto drop;
		while (g.sub.p < g.sub.end) {
			uint64_t v;
			if (!pb_varint(&g.sub, &v) || (loc && r->nids > r->max_ids) ||
			    !(loc ? record_push(&r->ids, &r->nids, &r->ids_cap, v)
				  : record_push(&r->values, &nv, &r->values_cap, v)))
				goto drop;
		}
	}
	if (got < 0)
		goto drop;
	/* Kept: the run's bytes before the shared ones, or every id. */
	size_t kept = whole ? 0 : run ? r->offs[r->nids] : 0;
	if (whole)
		for (size_t i = 0; i < r->nids; i++)
			kept += 10;
	if (kept + 10 * nv > r->max - r->len ||
	    !room_for(&r->buf, &r->cap, r->len + kept + 10 * (nv + 3), 1))
		goto drop;
	bool same = nv == r->nlast && (!nv || !memcmp(r->values, r->last, nv * sizeof(*r->values)));
	uint8_t *p = record_varint(r->buf + r->len, shared), *form = p;
	if (whole) {
		uint8_t *ids = p + 10;
		for (size_t i = 0; i < r->nids; i++)
			ids = record_varint(ids, r->ids[i]);
		kept = (size_t)(ids - (p + 10));
		p = record_varint(p, kept << 2 | same << 1);
		memmove(p, form + 10, kept);
	} else {
		p = record_varint(p, kept << 2 | same << 1 | !packed);
		if (kept)
			memcpy(p, run, kept);
	}
	p += kept;
	if (!same) {
		p = record_varint(p, nv);
		for (size_t i = 0; i < nv; i++)
			p = record_varint(p, r->values[i]);
		uint64_t *t = r->last;
		size_t cap = r->last_cap;
		r->last = r->values;
		r->last_cap = r->values_cap;
		r->nlast = nv;
		r->values = t;
		r->values_cap = cap;
	}
	r->len = (size_t)(p - r->buf);
	if (r->len > r->max || (r->seen > RECORD_TRIAL && r->len > r->seen / 4))
		goto drop;
	if (whole) {
		r->known = 0;
		return;
	}
	/* The path: the kept ids' bytes before the shared ones'. */
	size_t depth = shared + r->nids, tail = shared ? r->ends[shared - 1] : 0, len = tail + kept;
	if (!room_for(&r->ends, &r->ends_cap, depth, sizeof(*r->ends)))
		goto drop;
	for (size_t i = r->nids, d = shared, e = tail; i-- > 0; d++) {
		e += r->offs[i + 1] - r->offs[i];
		r->ends[d] = e;
	}
	if (len > r->bytes_cap) {
		size_t cap = r->bytes_cap ? r->bytes_cap : 256;
		while (cap < len)
			cap *= 2;
		uint8_t *nb = malloc(cap);
		if (!nb)
			goto drop;
		if (tail)
			memcpy(nb + cap - tail, r->bytes + r->bytes_cap - tail, tail);
		free(r->bytes);
		r->bytes = nb;
		r->bytes_cap = cap;
	}
	if (kept)
		memcpy(r->bytes + r->bytes_cap - len, run, kept);
	r->known = depth;
	r->packed = packed;
	return;
drop:
	record_drop(r);
}

/* Pass 1: the message read to its end, its fields but the samples copied
 * to pp->tables; *malformed when it is (the fields before the fault copied).
 * Non-zero: the input's error, or out of memory. */
static int copy_tables(bool *malformed, struct pprof *pp, struct fields *s)
{
	struct pb_field f;
	int got, rc;
	while (!(rc = fields_next(&got, s, &f, pp->err)) && got > 0) {
		if (f.num == PROFILE_SAMPLE && f.wire == WIRE_LEN) {
			if (pp->rec.on)
				record_sample(pp, f.sub);
			continue;
		}
		size_t n = (size_t)(s->p - s->field);
		if (!fg_array_reserve((void **)&pp->tables, &pp->tables_cap, pp->tables_len + n, 1))
			return nomem(pp);
		memcpy(pp->tables + pp->tables_len, s->field, n);
		pp->tables_len += n;
	}
	*malformed = got < 0;
	return rc;
}

/* The tables (strings, sample types, functions, mappings, locations) from
 * the fields pass 1 copied (whole fields: the walk cannot fail); samples are
 * read once these are all known. */
static int read_tables(struct pprof *pp, struct pb top)
{
	struct pb_field f, g;
	int rc, r;
	while (pb_next(&top, &f) > 0) {
		if (f.wire != WIRE_LEN && f.num != PROFILE_DEFAULT_SAMPLE_TYPE)
			continue;
		switch (f.num) {
		case PROFILE_STRING_TABLE:
			if (!fg_array_reserve((void **)&pp->strings, &pp->strings_cap, pp->nstrings + 1, sizeof(*pp->strings)))
				return nomem(pp);
			pp->strings[pp->nstrings++] = (struct span){ f.sub.p, (size_t)(f.sub.end - f.sub.p) };
			break;
		case PROFILE_SAMPLE_TYPE: {
			if (pp->ntypes == MAX_SAMPLE_TYPES)
				return bad(pp, "more than 64 sample types");
			uint64_t type = 0, unit = 0;
			while ((r = pb_next(&f.sub, &g)) > 0) {
				if (g.num == VALUE_TYPE_TYPE && g.wire == WIRE_VARINT)
					type = g.v;
				else if (g.num == VALUE_TYPE_UNIT && g.wire == WIRE_VARINT)
					unit = g.v;
			}
			if (r < 0)
				return bad(pp, "malformed sample type");
			pp->types[pp->ntypes].type = type;
			pp->types[pp->ntypes++].unit = unit;
			break;
		}
		case PROFILE_DEFAULT_SAMPLE_TYPE:
			if (f.wire == WIRE_VARINT)
				pp->default_type = f.v;
			break;
		case PROFILE_FUNCTION:
		case PROFILE_MAPPING: {
			bool fn = f.num == PROFILE_FUNCTION;
			uint64_t id = 0, name = 0, file = 0;
			while ((r = pb_next(&f.sub, &g)) > 0) {
				if (g.wire != WIRE_VARINT)
					continue;
				if (g.num == (fn ? FUNCTION_ID : MAPPING_ID))
					id = g.v;
				else if (g.num == (fn ? FUNCTION_NAME : MAPPING_FILENAME))
					name = g.v;
				else if (fn && g.num == FUNCTION_FILENAME)
					file = g.v;
			}
			/* A function's source file rides in the upper half (string
			 * indices beyond 32 bits are out of range anyway). */
			if (fn)
				name = (name > UINT32_MAX ? UINT32_MAX : name) | (file > UINT32_MAX ? 0 : file) << 32;
			if (r < 0)
				return bad(pp, fn ? "malformed function" : "malformed mapping");
			if ((rc = put_id(pp, fn ? &pp->functions : &pp->mappings, id, name, fn ? "functions" : "mappings")))
				return rc;
			break;
		}
		case PROFILE_LOCATION: {
			uint64_t id = 0;
			struct pb s = f.sub;
			while ((r = pb_next(&s, &g)) > 0)
				if (g.num == LOCATION_ID && g.wire == WIRE_VARINT)
					id = g.v;
			if (r < 0)
				return bad(pp, "malformed location");
			if (!fg_array_reserve((void **)&pp->locs, &pp->locs_cap, pp->nlocs + 1, sizeof(*pp->locs)))
				return nomem(pp);
			pp->locs[pp->nlocs] = (struct loc){ .msg = { f.sub.p, (size_t)(f.sub.end - f.sub.p) }, .id = id };
			if ((rc = put_id(pp, &pp->locations, id, pp->nlocs++, "locations")) != 0)
				return rc;
			break;
		}
		default:
			break;
		}
	}
	uint64_t max_id = 0;
	for (size_t i = 0; i < pp->nlocs; i++)
		max_id = pp->locs[i].id > max_id ? pp->locs[i].id : max_id;
	if (pp->nlocs && max_id < 4 * (uint64_t)pp->nlocs + 4096 && pp->nlocs < UINT32_MAX) {
		if (!(pp->loc_direct = malloc((size_t)(max_id + 1) * sizeof(*pp->loc_direct))) ||
		    !(pp->loc_one = calloc((size_t)max_id + 1, sizeof(*pp->loc_one))))
			return nomem(pp);
		memset(pp->loc_direct, 0xff, (size_t)(max_id + 1) * sizeof(*pp->loc_direct));
		pp->nloc_direct = (size_t)max_id + 1;
		for (size_t i = 0; i < pp->nlocs; i++)
			pp->loc_direct[pp->locs[i].id] = (uint32_t)i;
	}
	return 0;
}

static const struct span *string_at(const struct pprof *pp, uint64_t i)
{
	return i < pp->nstrings ? &pp->strings[i] : NULL;
}

static bool span_is(const struct span *s, const char *text)
{
	size_t n = strlen(text);
	return s && s->len == n && !memcmp(s->p, text, n);
}

static int add_frame(struct pprof *pp, const char *name, size_t len)
{
	if (len == 0) {
		name = "unknown";
		len = 7;
	}
	if (memchr(name, '\0', len))
		return bad(pp, "NUL in a function name");
	uint8_t type;
	uint32_t id;
	size_t n = fg_collapsed_frame_type(name, len, &type);
	int rc = fg_names_intern(&id, pp->names, name, n, pp->err);
	return rc ? rc : fg_stackbuf_push(&pp->frames, id, type, pp->err);
}

/* A location's frames, leaf first: one per line (line[0] is the innermost
 * inlined function), or its address when it has no line. */
static int expand_location(struct pprof *pp, struct loc *l)
{
	struct pb s = { l->msg.p, l->msg.p + l->msg.len };
	struct pb_field f, g;
	uint64_t address = 0, mapping = 0;
	int r, rc;
	l->first = (uint32_t)pp->frames.len;
	while ((r = pb_next(&s, &f)) > 0) {
		if (f.num == LOCATION_ADDRESS && f.wire == WIRE_VARINT)
			address = f.v;
		else if (f.num == LOCATION_MAPPING_ID && f.wire == WIRE_VARINT)
			mapping = f.v;
		else if (f.num == LOCATION_LINE && f.wire == WIRE_LEN) {
			uint64_t fn = 0;
			while ((r = pb_next(&f.sub, &g)) > 0)
				if (g.num == LINE_FUNCTION_ID && g.wire == WIRE_VARINT)
					fn = g.v;
			if (r < 0)
				return bad(pp, "malformed location line");
			uint64_t *name = fg_keymap_get(&pp->functions, fn, 0, 0);
			if (!name)
				return bad(pp, "a location names a function that is not in the profile");
			const struct span *str = string_at(pp, *name & UINT32_MAX), *file = string_at(pp, *name >> 32);
			if (!str)
				return bad(pp, "string index out of range");
			if ((rc = add_frame(pp, (const char *)str->p, str->len)) != 0)
				return rc;
			/* Its source file (hotfiles maps native frames with it). */
			if (*name >> 32 && file && file->len && !memchr(file->p, '\0', file->len) &&
			    (rc = fg_names_set_file(pp->names, pp->frames.names[pp->frames.len - 1], (const char *)file->p,
						    file->len, pp->err)) != 0)
				return rc;
		}
	}
	if (r < 0)
		return bad(pp, "malformed location");
	if (pp->frames.len == l->first) {
		/* Not symbolised: the address, in its mapping when it has a name. */
		char buf[600];
		uint64_t *file = mapping ? fg_keymap_get(&pp->mappings, mapping, 0, 0) : NULL;
		const struct span *fs = file ? string_at(pp, *file) : NULL;
		int n;
		if (fs && fs->len) {
			const uint8_t *base = fs->p + fs->len;
			while (base > fs->p && base[-1] != '/')
				base--;
			int bl = (int)(fs->p + fs->len - base);
			n = snprintf(buf, sizeof(buf), "%.*s+0x%llx", bl > 500 ? 500 : bl, (const char *)base,
				     (unsigned long long)address);
		} else {
			n = snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)address);
		}
		if ((rc = add_frame(pp, buf, (size_t)n)) != 0)
			return rc;
	}
	l->n = (uint32_t)(pp->frames.len - l->first);
	l->expanded = true;
	/* A location ends a stack when one of its frames does (the inlined
	 * functions of a line are all in it). */
	for (uint32_t i = 0; pp->stop && !l->stop && i < l->n; i++)
		if ((rc = pp->stop(pp->ctx, pp->frames.names[l->first + i], &l->stop, pp->err)) != 0)
			return rc;
	return 0;
}

/* A sample's frames fill pp->stack from its end down, leaf first as the
 * sample lists them, from slot `low` on; moved to slot 1 on once complete
 * (a copy, not a reversal).  Slot 0 stays the root's. */
struct sample_ctx {
	struct pprof *pp;
	size_t low;
	size_t value_index, nvalues;
	uint64_t value;
	/* After a location that ends the stack (stop): the frames from it down
	 * to the leaf (they stay at the buffer's end when it grows), and
	 * whether a location id came after it (checked, not written). */
	bool stopped, cut;
	size_t stop_frames;
	size_t checked;           /* the location ids checked after it: with the frames, within --max-depth */
};

/* Room for k more frames below c->low: the buffer grown, the frames so
 * far moved to its new end. */
static int grow_below(struct sample_ctx *c, size_t k)
{
	fg_stackbuf *s = &c->pp->stack;
	size_t used = s->cap - c->low;
	if (k > SIZE_MAX / 2 - used)
		return nomem(c->pp);
	int rc = fg_stackbuf_grow(s, used + k + 1, c->pp->err);
	if (rc)
		return rc;
	memmove(s->names + s->cap - used, s->names + c->low, used * sizeof(*s->names));
	memmove(s->types + s->cap - used, s->types + c->low, used);
	c->low = s->cap - used;
	return 0;
}

/* What the location loop reads and writes, in locals (its byte stores
 * could alias any field of the reader's state); reloaded after a location
 * is expanded or the stack grown. */
struct fill {
	const struct loc *locs;
	const uint32_t *direct;
	size_t ndirect;           /* 0 without direct (then one is NULL) */
	const uint64_t *one;
	const uint32_t *from;
	const uint8_t *from_types;
	uint32_t *names;
	uint8_t *types;
	size_t low;
};

static void fill_load(struct fill *f, const struct pprof *pp, size_t low)
{
	*f = (struct fill){ pp->locs, pp->loc_direct, pp->nloc_direct, pp->loc_one, pp->frames.names, pp->frames.types,
			    pp->stack.names, pp->stack.types, low };
}

/* Location id, expanded (f reloaded when it was just now). */
static inline __attribute__((always_inline)) int find_location(struct pprof *pp, struct fill *f, uint64_t id,
								const struct loc **out)
{
	uint64_t *idx = NULL, direct = UINT32_MAX;
	if (f->direct)
		direct = id < f->ndirect ? f->direct[id] : UINT32_MAX;
	else if ((idx = fg_keymap_get(&pp->locations, id, 0, 0)) != NULL)
		direct = *idx;
	if (direct == UINT32_MAX)
		return bad(pp, "a sample names a location that is not in the profile");
	*out = &pp->locs[direct];
	if (!(*out)->expanded) {
		int rc = expand_location(pp, &pp->locs[direct]);
		if (rc)
			return rc;
		fill_load(f, pp, f->low);
	}
	return 0;
}

/* Location id's frames below f->low: 0, or 1 when it ends the stack. */
static inline __attribute__((always_inline)) int put_location(struct sample_ctx *c, struct fill *f, uint64_t id)
{
	struct pprof *pp = c->pp;
	const struct loc *l = NULL;
	int rc = find_location(pp, f, id, &l);
	if (rc)
		return rc;
	if (l->n >= f->low) {
		c->low = f->low;
		if ((rc = grow_below(c, l->n)) != 0)
			return rc;
		fill_load(f, pp, c->low);
	}
	uint32_t n = l->n;
	const uint32_t *from = f->from + l->first;
	const uint8_t *from_types = f->from_types + l->first;
	uint32_t *names = f->names + f->low - 1;
	uint8_t *types = f->types + f->low - 1;
	if (n == 1) { /* the usual location: one line, no inlined functions */
		*names = *from;
		*types = *from_types;
		f->low--;
		if (f->direct)
			pp->loc_one[id] = LOC_ONE | (l->stop ? LOC_STOP : 0) | (uint64_t)*from_types << 32 | *from;
		return l->stop;
	}
	for (uint32_t i = 0; i < n; i++) {
		names[-(ptrdiff_t)i] = from[i];
		types[-(ptrdiff_t)i] = from_types[i];
	}
	f->low -= n;
	return l->stop;
}

/* The location ids after one that ended the stack: each checked as
 * put_location() would check it (and expanded as it would, the first time
 * it is met), none written. */
static inline __attribute__((always_inline)) int check_location(struct sample_ctx *c, struct fill *f, uint64_t id)
{
	const struct loc *l = NULL;
	c->cut = true;
	return id < f->ndirect && f->one[id] ? 0 : find_location(c->pp, f, id, &l);
}

/* Location ids at b: a packed run (as Go writes them), or the run of
 * one-id fields at its start (as async-profiler does), read as pb_next()
 * would.  Compiled for each (packed a constant). */
static inline __attribute__((always_inline)) int put_locations(struct sample_ctx *c, struct pb *b, bool packed)
{
	struct fill f;
	fill_load(&f, c->pp, c->low);
	struct pb s = *b;
	int rc = 0;
	while (!rc && s.p < s.end) {
		uint64_t id;
		if (!packed) {
			if (*s.p != (SAMPLE_LOCATION_ID << 3 | WIRE_VARINT))
				break;
			s.p++;
		}
		if (!pb_varint(&s, &id)) {
			rc = bad(c->pp, "malformed sample");
			break;
		}
		if (c->stopped) {
			/* Not held, but a stack of a million frames is none a
			 * profiler wrote, whatever the visitor keeps of it. */
			if (++c->checked + (c->pp->stack.cap - f.low) > c->pp->stack.max_depth) {
				rc = fg_stackbuf_too_deep(&c->pp->stack, c->pp->err);
				break;
			}
			if ((rc = check_location(c, &f, id)) != 0)
				break;
			continue;
		}
		uint64_t one = id < f.ndirect ? f.one[id] : 0;
		if (one && f.low > 1) {
			f.low--;
			f.names[f.low] = (uint32_t)one;
			f.types[f.low] = (uint8_t)(one >> 32);
			rc = (one & LOC_STOP) != 0;
		} else {
			rc = put_location(c, &f, id);
		}
		if (rc > 0) {
			c->stopped = true;
			c->stop_frames = c->pp->stack.cap - f.low;
			rc = 0;
		}
	}
	*b = s;
	c->low = f.low;
	return rc;
}

static int put_packed(struct sample_ctx *c, struct pb *b)
{
	return put_locations(c, b, true);
}

static int put_unpacked(struct sample_ctx *c, struct pb *b)
{
	return put_locations(c, b, false);
}

static bool sample_value(void *ctx, uint64_t v)
{
	struct sample_ctx *c = ctx;
	if (c->nvalues++ == c->value_index) {
		c->value = v;
	}
	return true;
}

/* Which sample type to read: asked for by name, else the first samples or
 * cpu type, else the profile's default, else the first. */
static int choose_type(size_t *out, struct pprof *pp, const char *want)
{
	if (pp->ntypes == 0)
		return bad(pp, "no sample types");
	for (size_t i = 0; i < pp->ntypes; i++) {
		const struct span *t = string_at(pp, pp->types[i].type), *u = string_at(pp, pp->types[i].unit);
		if (!t || !u)
			return bad(pp, "string index out of range");
		if (want) {
			const char *slash = strchr(want, '/');
			size_t tl = slash ? (size_t)(slash - want) : strlen(want);
			if (t->len == tl && !memcmp(t->p, want, tl) && (!slash || span_is(u, slash + 1))) {
				*out = i;
				return 0;
			}
		} else if (span_is(t, "samples") || span_is(t, "cpu")) {
			*out = i;
			return 0;
		}
	}
	if (want) {
		char list[512];
		size_t len = 0;
		list[0] = '\0';
		for (size_t i = 0; i < pp->ntypes && len < sizeof(list) - 1; i++) {
			const struct span *t = string_at(pp, pp->types[i].type), *u = string_at(pp, pp->types[i].unit);
			int n = snprintf(list + len, sizeof(list) - len, "%s%.*s/%.*s", i ? ", " : "", (int)t->len,
					 (const char *)t->p, (int)u->len, (const char *)u->p);
			len += n > 0 ? (size_t)n : 0;
			if (len >= sizeof(list))
				len = sizeof(list) - 1;
		}
		return fg_error_set(pp->err, FG_EUSAGE, fg_input_name(pp->in),
				    "no sample type '%s' in this pprof profile (it has %s)", want, list);
	}
	*out = 0;
	for (size_t i = 0; pp->default_type && i < pp->ntypes; i++)
		if (pp->types[i].type == pp->default_type)
			*out = i;
	return 0;
}

/* What the chosen type measures, in the words of the rest of fgbisect. */
static void describe(fg_profile_info *info, const struct span *type, const struct span *unit)
{
	static const struct { const char *type, *event; } events[] = {
		{ "samples", "cpu" }, { "cpu", "cpu" }, { "wall", "wall" }, { "alloc", "alloc" },
		{ "alloc_objects", "alloc" }, { "alloc_space", "alloc" }, { "inuse_objects", "alloc" },
		{ "inuse_space", "alloc" }, { "contentions", "lock" }, { "delay", "lock" }, { "lock", "lock" },
	};
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (span_is(type, events[i].type))
			snprintf(info->event, sizeof(info->event), "%s", events[i].event);
	if (!info->event[0])
		snprintf(info->event, sizeof(info->event), "%.*s", (int)type->len, (const char *)type->p);
	if (span_is(unit, "count"))
		snprintf(info->unit, sizeof(info->unit), "%s",
			 span_is(type, "contentions") ? "lock waits" : "samples");
	else if (span_is(unit, "nanoseconds"))
		snprintf(info->unit, sizeof(info->unit), "ns");
	else
		snprintf(info->unit, sizeof(info->unit), "%.*s", (int)unit->len, (const char *)unit->p);
}

/* Appends text to the label frame's name at *len; false when out of memory. */
static bool name_append(struct pprof *pp, size_t *len, const void *text, size_t n)
{
	if (!fg_array_reserve((void **)&pp->label_name, &pp->label_name_cap, *len + n + 1, 1))
		return false;
	memcpy(pp->label_name + *len, text, n);
	*len += n;
	return true;
}

/* The frame "[KEY=VALUE]" of key k for the current sample: its values in
 * the order of its labels, joined by ',' as pprof's -tagroot joins them; a
 * number with its unit when it has one; "[no KEY]" without a label. */
static int label_frame(struct sample_ctx *c, size_t k)
{
	struct pprof *pp = c->pp;
	const char *key = pp->keys[k];
	size_t klen = strlen(key), len = 0, values = 0;
	bool ok = name_append(pp, &len, "[", 1) && name_append(pp, &len, key, klen) && name_append(pp, &len, "=", 1);
	for (size_t i = 0; ok && i < pp->nlabels; i++) {
		struct pb b = { pp->labels[i].p, pp->labels[i].p + pp->labels[i].len };
		struct pb_field f;
		uint64_t kidx = 0, str = 0, num = 0, unit = 0;
		bool has_num = false;
		int r;
		while ((r = pb_next(&b, &f)) > 0) {
			if (f.wire != WIRE_VARINT)
				continue;
			if (f.num == LABEL_KEY)
				kidx = f.v;
			else if (f.num == LABEL_STR)
				str = f.v;
			else if (f.num == LABEL_NUM) {
				num = f.v;
				has_num = true;
			} else if (f.num == LABEL_NUM_UNIT)
				unit = f.v;
		}
		if (r < 0)
			return bad(pp, "malformed label");
		const struct span *ks = string_at(pp, kidx), *vs = string_at(pp, str), *us = string_at(pp, unit);
		if (!ks || !vs || !us)
			return bad(pp, "string index out of range");
		if (ks->len != klen || memcmp(ks->p, key, klen))
			continue;
		ok = !values++ || name_append(pp, &len, ",", 1);
		if (ok && has_num) {
			char digits[24];
			int n = snprintf(digits, sizeof(digits), "%lld", (long long)num);
			ok = name_append(pp, &len, digits, (size_t)n) &&
			     (!us->len || (name_append(pp, &len, " ", 1) && name_append(pp, &len, us->p, us->len)));
		} else if (ok) {
			ok = name_append(pp, &len, vs->p, vs->len);
		}
	}
	if (ok && values == 0) {
		len = 0;
		ok = name_append(pp, &len, "[no ", 4) && name_append(pp, &len, key, klen);
	}
	if (!ok || !name_append(pp, &len, "]", 1))
		return nomem(pp);
	if (memchr(pp->label_name, '\0', len))
		return bad(pp, "NUL in a label");
	pp->key_seen[k] = pp->key_seen[k] || values > 0;
	uint32_t id;
	int rc = fg_names_intern(&id, pp->names, pp->label_name, len, pp->err);
	if (!rc && c->low <= 1)
		rc = grow_below(c, 1);
	if (!rc) {
		c->low--;
		pp->stack.names[c->low] = id;
		pp->stack.types[c->low] = FG_FRAME_NATIVE;
	}
	return rc;
}

/* Pass 2: the samples, read from the message's start again. */
/* The checks of a sample's values, the same whether the samples are read
 * from the input or replayed from the record: as many as there are sample
 * types, the one read (value) not negative. */
static int sample_values(struct pprof *pp, uint64_t nvalues, uint64_t value)
{
	if (nvalues != pp->ntypes)
		return bad(pp, "a sample's values do not match the sample types");
	if ((int64_t)value < 0)
		return bad(pp, "a negative sample value");
	return 0;
}

/* A profile whose every sample has the value 0 (either reading). */
static int no_samples(struct pprof *pp)
{
	return fg_error_set(pp->err, FG_EINVALID, fg_input_name(pp->in), "no samples: every sample is 0");
}

static int read_samples(struct pprof *pp, struct fields *top, size_t value_index)
{
	struct pb_field f, g = { 0 }; /* g.v: only read for a varint, which sets it (-O3 cannot tell) */
	int r, in_rc;
	uint64_t samples = 0;
	while (!(in_rc = fields_next(&r, top, &f, pp->err)) && r > 0) {
		if (f.num != PROFILE_SAMPLE || f.wire != WIRE_LEN)
			continue;
		struct sample_ctx c = { .pp = pp, .low = pp->stack.cap, .value_index = value_index };
		pp->nlabels = 0;
		for (;;) {
			/* Location ids one field each (as async-profiler writes them;
			 * Go packs them), the usual next field, in a loop of their own:
			 * the same as pb_next() would read. */
			int rc = put_unpacked(&c, &f.sub);
			if (rc)
				return rc;
			if ((r = pb_next(&f.sub, &g)) <= 0)
				break;
			bool ok = true;
			if (g.num == SAMPLE_LOCATION_ID && g.wire == WIRE_VARINT) {
				/* (After a packed run or a value: the loop above takes the rest.) */
				struct fill fl;
				fill_load(&fl, pp, c.low);
				rc = c.stopped ? check_location(&c, &fl, g.v) : put_location(&c, &fl, g.v);
				c.low = fl.low;
				if (rc > 0) {
					c.stopped = true;
					c.stop_frames = pp->stack.cap - c.low;
					rc = 0;
				}
			} else if (g.num == SAMPLE_LOCATION_ID && g.wire == WIRE_LEN) {
				rc = put_packed(&c, &g.sub);
			} else if (g.num == SAMPLE_LOCATION_ID)
				ok = false;
			else if (g.num == SAMPLE_VALUE)
				ok = pb_each_int(&g, sample_value, &c);
			else if (g.num == SAMPLE_LABEL && g.wire == WIRE_LEN && pp->nkeys) {
				if (!fg_array_reserve((void **)&pp->labels, &pp->labels_cap, pp->nlabels + 1,
						      sizeof(*pp->labels)))
					return nomem(pp);
				pp->labels[pp->nlabels++] = (struct span){ g.sub.p, (size_t)(g.sub.end - g.sub.p) };
			}
			if (rc)
				return rc;
			if (!ok)
				return bad(pp, "malformed sample");
		}
		if (r < 0)
			return bad(pp, "malformed sample");
		int vrc = sample_values(pp, c.nvalues, c.value);
		if (vrc)
			return vrc;
		if (c.value == 0)
			continue;
		/* Leaf first: the label frames go last, the first key last of
		 * all; then all of them root first from slot 1. */
		for (size_t k = pp->nkeys; k-- > 0;) {
			int rc = label_frame(&c, k);
			if (rc)
				return rc;
		}
		fg_stackbuf *s = &pp->stack;
		int rc;
		if (c.stopped && (c.cut || pp->nkeys)) {
			/* Frames (or label frames) were left out nearer the root. */
			s->len = s->cap;
			rc = fg_stackbuf_emit_partial(s, s->cap - c.stop_frames, c.value, pp->fn, pp->ctx, pp->err);
		} else {
			s->len = 1 + s->cap - c.low;
			memmove(s->names + 1, s->names + c.low, (s->len - 1) * sizeof(*s->names));
			memmove(s->types + 1, s->types + c.low, s->len - 1);
			rc = fg_stackbuf_emit(&pp->stack, c.value, pp->fn, pp->ctx, pp->err);
		}
		if (rc)
			return rc;
		samples++;
	}
	if (in_rc)
		return in_rc; /* the input's (pass 1 read it without one: it changed since) */
	if (r < 0)
		return bad(pp, "malformed protobuf");
	if (samples == 0)
		return no_samples(pp);
	for (size_t k = 0; k < pp->nkeys; k++)
		if (!pp->key_seen[k])
			return fg_error_set(pp->err, FG_EUSAGE, fg_input_name(pp->in),
					    "no sample of this pprof profile has the label '%s'", pp->keys[k]);
	return 0;
}

/* A path step of replay_samples(): the frames up to its location's last
 * (stack slots 1 to end), and 1 + the depth of the deepest location from
 * the root to it whose frames end a stack (0: none). */
struct step {
	size_t end, stop;
};

/* The samples from pass 1's record, as read_samples() reads them from the
 * input: the same checks in the same order (each sample's location ids leaf
 * first: the ids it shares with the previous sample were checked there) and
 * the same stacks.  The stack buffer holds the path, root first, that the
 * record's front coding follows: a sample writes the frames of the ids it
 * does not share, and a stack cut by stop is the buffer's end. */
static int replay_samples(struct pprof *pp, size_t value_index)
{
	struct record *r = &pp->rec;
	const uint8_t *p = r->buf, *const end_of_record = r->len ? r->buf + r->len : r->buf;
	struct step *path = NULL;
	size_t path_cap = 0, depth = 0;
	uint64_t samples = 0, nv = 0, value = 0;
	int rc = 0;
	while (!rc && p < end_of_record) {
		uint64_t shared = record_next(&p), kept = record_next(&p);
		const uint8_t *ids = p, *const ids_end = p + (kept >> 2);
		bool fields = kept & 1; /* one-id fields, else varints */
		p = ids_end;
		if (!room_for(&r->ids, &r->ids_cap, (size_t)(kept >> 2), sizeof(*r->ids))) {
			rc = nomem(pp);
			break;
		}
		struct fill f;
		fill_load(&f, pp, 0);
		for (r->nids = 0; ids < ids_end; r->nids++) {
			ids += fields;
			uint64_t id = record_next(&ids), one = id < f.ndirect ? f.one[id] : 0;
			if (!one) {
				const struct loc *l = NULL;
				if ((rc = find_location(pp, &f, id, &l)) != 0)
					break;
				one = (uint64_t)(l - pp->locs);
				if (l->n == 1 && f.direct)
					one = pp->loc_one[id] = LOC_ONE | (l->stop ? LOC_STOP : 0) |
							  (uint64_t)f.from_types[l->first] << 32 | f.from[l->first];
			}
			r->ids[r->nids] = one;
		}
		if (rc)
			break;
		depth = (size_t)shared;
		size_t end = depth ? path[depth - 1].end : 0, stop = depth ? path[depth - 1].stop : 0;
		if (!room_for(&path, &path_cap, depth + r->nids, sizeof(*path))) {
			rc = nomem(pp);
			break;
		}
		if ((rc = fg_stackbuf_reserve(&pp->stack, end + r->nids + 1, pp->err)) != 0)
			break;
		for (size_t i = r->nids; i-- > 0;) {
			uint64_t one = r->ids[i];
			if (one & LOC_ONE) {
				end++;
				pp->stack.names[end] = (uint32_t)one;
				pp->stack.types[end] = (uint8_t)(one >> 32);
				stop = one & LOC_STOP ? depth + 1 : stop;
				path[depth++] = (struct step){ end, stop };
				continue;
			}
			const struct loc *l = &pp->locs[one];
			if ((rc = fg_stackbuf_reserve(&pp->stack, end + l->n + i + 1, pp->err)) != 0)
				break;
			const uint32_t *from = pp->frames.names + l->first;
			const uint8_t *from_types = pp->frames.types + l->first;
			for (uint32_t j = l->n; j-- > 0;) {
				end++;
				pp->stack.names[end] = from[j];
				pp->stack.types[end] = from_types[j];
			}
			if (l->stop)
				stop = depth + 1;
			path[depth++] = (struct step){ end, stop };
		}
		if (rc)
			break;
		if (!(kept & 2)) { /* else the values of the sample before */
			nv = record_next(&p);
			value = 0;
			for (uint64_t i = 0; i < nv; i++) {
				uint64_t v = record_next(&p);
				value = i == value_index ? v : value;
			}
		}
		if ((rc = sample_values(pp, nv, value)) != 0)
			break;
		if (value == 0)
			continue;
		fg_stackbuf *s = &pp->stack;
		s->len = end + 1;
		if (stop > 1) {
			/* Cut at the location at depth stop - 1: its first frame
			 * follows the root's slot, the frame there put back after. */
			size_t from = path[stop - 2].end + 1;
			uint32_t name = s->names[from - 1];
			uint8_t type = s->types[from - 1];
			rc = fg_stackbuf_emit_partial(s, from, value, pp->fn, pp->ctx, pp->err);
			s->names[from - 1] = name;
			s->types[from - 1] = type;
		} else {
			rc = fg_stackbuf_emit(s, value, pp->fn, pp->ctx, pp->err);
		}
		samples++;
	}
	free(path);
	if (!rc && samples == 0)
		rc = no_samples(pp);
	return rc;
}

int fg_pprof_read(fg_profile_info *info, fg_input *in, fg_names *names, const fg_read_options *opts,
		  fg_stack_fn fn, fg_stop_fn stop, void *ctx, fg_error *err)
{
	return fg_pprof_read_bounded(info, in, names, opts, fn, stop, ctx, RECORD_MAX, err);
}

int fg_pprof_read_bounded(fg_profile_info *info, fg_input *in, fg_names *names, const fg_read_options *opts,
			  fg_stack_fn fn, fg_stop_fn stop, void *ctx, size_t record_max, fg_error *err)
{
	struct pprof pp = { .in = in, .names = names, .fn = fn, .stop = stop, .ctx = ctx, .err = err,
			    .keys = opts ? opts->labels : NULL, .nkeys = opts ? opts->nlabels : 0 };
	size_t type = 0;
	struct fields top = { .in = in };
	pp.rec = (struct record){ .on = !pp.nkeys, .max = record_max, .nlast = SIZE_MAX };
	info->format = FG_FORMAT_PPROF;
	/* The string table comes after the samples that index it: two passes,
	 * the second reading the input again; a pipe's message is held whole
	 * (bounded by --max-size). */
	fg_stackbuf_limit(&pp.stack, opts, fg_input_name(in));
	pp.rec.max_ids = pp.stack.max_depth;
	int rc = fg_stackbuf_init(&pp.stack, names, err);
	if (!rc && pp.nkeys && !(pp.key_seen = calloc(pp.nkeys, sizeof(*pp.key_seen))))
		rc = nomem(&pp);
	if (!rc && !fg_input_can_rewind(in)) {
		const char *d;
		size_t n;
		if (!(rc = fg_input_peek(&d, &n, in, SIZE_MAX, err))) {
			top.held = true;
			top.start = top.p = (const uint8_t *)d;
			top.end = top.p + n;
		}
	}
	if (!rc) {
		static const uint8_t none[1];
		bool malformed = false;
		rc = copy_tables(&malformed, &pp, &top);
		const uint8_t *t = pp.tables ? pp.tables : none;
		/* A table's fault before the message's comes first, as in one walk. */
		if (!rc && !(rc = read_tables(&pp, (struct pb){ t, t + pp.tables_len })) && malformed)
			rc = bad(&pp, "malformed protobuf (truncated or not a pprof profile)");
	}
	if (!rc)
		rc = choose_type(&type, &pp, opts ? opts->sample_type : NULL);
	if (!rc && !pp.rec.on)
		rc = fields_rewind(&top, err);
	if (!rc) {
		describe(info, string_at(&pp, pp.types[type].type), string_at(&pp, pp.types[type].unit));
		rc = pp.rec.on ? replay_samples(&pp, type) : read_samples(&pp, &top, type);
		info->total = pp.stack.total;
		info->frames = pp.stack.stacks;
	}
	record_drop(&pp.rec);
	free(pp.tables);
	free(pp.strings);
	free(pp.locs);
	free(pp.loc_direct);
	free(pp.loc_one);
	free(pp.key_seen);
	free(pp.labels);
	free(pp.label_name);
	fg_stackbuf_free(&pp.frames);
	fg_keymap_free(&pp.functions);
	fg_keymap_free(&pp.mappings);
	fg_keymap_free(&pp.locations);
	fg_stackbuf_free(&pp.stack);
	return rc;
}
