#include "formats/html.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/handoff.h"

/* The page is read line by line: the template header (title, drawing flag,
 * maxdiff), then either the 3.x+ cpool and f/u/n block, or the 2.x f() lines,
 * then the footer.  Frames are checked as they stream: inside the parent, no
 * overlap with the previous sibling, levels rising by one at most. */

/* A call's arguments kept (f's key, level, dx, width and three counters);
 * a call may carry more, up to MAX_CALL_ARGS, which are read and ignored as
 * the page's JavaScript ignores them. */
enum { MAX_COUNTERS = 7, MAX_CALL_ARGS = 64 };

struct level {
	uint64_t left, right; /* the frame's extent */
	uint64_t next;        /* where its next child may start */
};

/* The hot state of the frame stream.  The frame loop works on a local copy
 * (so that its stores into levels and the batch cannot alias it and force
 * reloads) and writes it back when it leaves. */
struct cursor {
	struct level *levels;  /* by depth: the open frames of the current path */
	uint32_t levels_cap;
	bool started;          /* the root has been seen */
	uint64_t depth;        /* depth of the last frame (the JS writer's level0) */
	uint64_t left0, width0;/* the JS writer's running state (3.x+): the last frame's left and width */
	const uint32_t *cpool; /* cpool index -> name id; NULL when the identity */
	uint64_t ncpool;
	fg_frame *batch;
	size_t nbatch;
	uint64_t lines;        /* lines the frame loop parsed and has not consumed yet */
	/* Levels below this one are not known: they are the other thread's
	 * (the second part of a split page, see split_start); 0 otherwise. */
	uint64_t unknown;
};

struct part;

struct parser {
	fg_input *in;
	fg_names *names;
	fg_frames_fn fn;
	void *ctx;
	fg_profile_info *info;
	fg_error *err;

	uint32_t *cpool;       /* cpool index -> name id */
	size_t ncpool, cpool_cap;
	/* cpool[i] == i: the usual case (the table is interned first, in order,
	 * into fresh names), which spares the hot loop a load per frame. */
	bool cpool_identity;
	char *prev;            /* the previous full cpool string */
	size_t prev_len, prev_cap;

	bool old_types;        /* 2.0-2.6 type numbering (root type 4) */
	const fg_read_options *opts;
	uint64_t max_depth;    /* --max-depth: a deeper level is refused (reserve_level) */
	struct part *part;     /* thread 1: the second part being read; thread 2: its own */
	bool coded;            /* thread 2: the frame loop codes its frames straight into part's records */
	/* Thread 1, reading on from the cut after it had visited thread 2's
	 * first frames (split_join): the full batches not to hand again. */
	uint64_t skip;
	struct cursor cur;
	fg_frame batch[FG_FRAME_BATCH];
};

static int invalid(struct parser *p, const char *msg)
{
	return fg_error_set(p->err, FG_EINVALID, fg_input_name(p->in), "line %llu: %s",
			    (unsigned long long)fg_input_line_number(p->in), msg);
}

/* A frame that fails a check; lines: parsed by the frame loop, not yet
 * consumed (the current one included). */
__attribute__((noinline, cold)) static int bad_frame(struct parser *p, uint64_t lines, const char *msg)
{
	return fg_error_set(p->err, FG_EINVALID, fg_input_name(p->in), "line %llu: %s",
			    (unsigned long long)(fg_input_line_number(p->in) + lines), msg);
}

size_t fg_html_unescape(char *s, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 1 < len && (s[i + 1] == '\\' || s[i + 1] == '\'')) {
			s[o++] = s[++i];
			continue;
		}
		s[o++] = s[i];
	}
	return o;
}

/* Parses a decimal number at *s; fails on overflow or no digit. */
static bool parse_u64(const char **s, const char *end, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;
	if (p >= end || *p < '0' || *p > '9')
		return false;
	while (p < end && *p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
		p++;
	}
	*s = p;
	*out = v;
	return true;
}

/* Levels rise by one at most, so doubling always makes room; never past
 * most (so that a level beyond it comes back to reserve_level).  Takes and
 * returns values, not the cursor, so that the cursor stays in registers. */
__attribute__((noinline)) static struct level *grow_levels(struct level *old, uint32_t *cap, uint64_t most)
{
	uint32_t n = *cap ? *cap * 2 : 256;
	if (n > most)
		n = (uint32_t)most;
	struct level *l = realloc(old, (size_t)n * sizeof(*l));
	if (!l)
		return NULL;
	*cap = n;
	return l;
}

/* Hands the batch to the visitor: one call for FG_FRAME_BATCH frames. */
__attribute__((noinline)) static int flush(struct parser *p, size_t n)
{
	if (p->skip) {
		p->skip--;
		return 0;
	}
	p->info->frames += n;
	return n ? p->fn(p->ctx, p->batch, n, p->err) : 0;
}

/* Appends a checked frame to the batch. */
__attribute__((always_inline)) static inline int push(struct parser *p, struct cursor *c, uint64_t level, uint32_t name,
						      uint8_t type, uint64_t width)
{
	c->batch[c->nbatch++] = (fg_frame){ .depth = (uint32_t)level, .name = name, .type = type, .total = width };
	if (c->nbatch < FG_FRAME_BATCH)
		return 0;
	c->nbatch = 0;
	return flush(p, FG_FRAME_BATCH);
}

/* A frame at a level beyond --max-depth: a stack of 10^7 frames is a 73 KB
 * gzip'd page of u() lines, which took 4.7 s and 630 MB to share, 14 s and
 * 1.4 GB to collapse; refused as the stack-based readers refuse one
 * (fg_stackbuf_too_deep), at its line. */
__attribute__((noinline, cold)) static int too_deep(struct parser *p, const struct cursor *c)
{
	return fg_error_set(p->err, FG_EINVALID, fg_input_name(p->in),
			    "line %llu: a stack deeper than --max-depth (%llu frames; profilers write thousands at "
			    "most): refused (a larger --max-depth reads it)",
			    (unsigned long long)(fg_input_line_number(p->in) + c->lines),
			    (unsigned long long)p->max_depth);
}

/* Makes room for a frame at level; 0 or an error.  The levels grow to
 * --max-depth + 1 at most, so the frame loop (which checks its room in
 * them) leaves a deeper frame to this check. */
__attribute__((always_inline)) static inline int reserve_level(struct parser *p, struct cursor *c, uint64_t level)
{
	if (level < c->levels_cap)
		return 0;
	if (level > p->max_depth)
		return too_deep(p, c);
	uint32_t cap = c->levels_cap;
	struct level *l = level < UINT32_MAX / 2 ? grow_levels(c->levels, &cap, p->max_depth + 1) : NULL;
	if (!l)
		return fg_error_oom(p->err, fg_input_name(p->in));
	c->levels = l;
	c->levels_cap = cap;
	return 0;
}

static int part_boundary(struct parser *p, struct cursor *c, uint64_t level, uint64_t left, uint64_t width,
			 uint32_t name, uint8_t type);

/* The frame, checked, takes its level (its extent, no child yet) and is the
 * last one. */
__attribute__((always_inline)) static inline int enter(struct parser *p, struct cursor *c, uint64_t level,
						       uint64_t left, uint64_t width, uint32_t name, uint8_t type)
{
	int rc = reserve_level(p, c, level);
	if (rc)
		return rc;
	c->levels[level] = (struct level){ left, left + width, left };
	c->depth = level;
	return push(p, c, level, name, type, width);
}

/* Checks one frame against the tree so far and appends it to the batch. */
__attribute__((always_inline)) static inline int emit(struct parser *p, struct cursor *c, uint64_t level, uint64_t left,
						      uint64_t width, uint32_t name, uint8_t type)
{
	if (width == 0)
		return bad_frame(p, c->lines, c->started ? "frame of zero width"
							 : "no samples: an empty flame graph (its root has width 0)");
	if (!c->started) {
		if (level != 0 || left != 0)
			return bad_frame(p, c->lines, "the first frame is not the root at level 0");
		p->info->total = width;
		c->started = true;
	} else {
		if (level == 0)
			return bad_frame(p, c->lines, "a second root frame");
		if (level > c->depth + 1)
			return bad_frame(p, c->lines, "level jumps by more than one");
		if (__builtin_expect(level <= c->unknown, 0))
			return part_boundary(p, c, level, left, width, name, type);
		struct level *parent = &c->levels[level - 1];
		if (left < parent->next)
			return bad_frame(p, c->lines, left < parent->left ? "frame starts left of its parent"
									  : "frame overlaps its previous sibling");
		if (left > parent->right || width > parent->right - left)
			return bad_frame(p, c->lines, "frame is wider than its parent");
		parent->next = left + width;
	}
	return enter(p, c, level, left, width, name, type);
}

/* Leading blanks are taken off a line of the frame block: third-party
 * writers of the template indent calls (the root f(0,0,...) line, the
 * search() footer), and the page's JavaScript does not care.  A line of
 * blanks only is then a blank line. */
static char *unindent(char *line, size_t *len)
{
	size_t i = 0;
	while (i < *len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	*len -= i;
	return line + i;
}

static int truncated(struct parser *p)
{
	return fg_error_set(p->err, FG_EINVALID, fg_input_name(p->in),
			    "truncated: the flame graph data ends before the page footer");
}

static bool is_diff_line(const char *line, size_t len)
{
	if (len < 3 || line[0] != 'd' || line[1] != '=')
		return false;
	if (len == 3 && line[2] == 'U')
		return true;
	size_t i = 2 + (line[2] == '-');
	if (i == len)
		return false;
	for (; i < len; i++)
		if (line[i] < '0' || line[i] > '9')
			return false;
	return true;
}

/* After the footer: the rest is read too, so that a gzip stream is checked
 * to its end (CRC, length), and a page cut inside its closing lines is seen.
 * (A cut right after the search() line leaves nothing to see.) */
static int read_tail(struct parser *p)
{
	char *line;
	size_t len;
	int rc;
	bool empty = true, closed = false;
	while ((rc = fg_input_line(&line, &len, p->in, p->err)) > 0) {
		line = unindent(line, &len);
		empty = empty && len == 0;
		closed = closed || strcasestr(line, "</html>");
		/* Frames after the footer would be silently dropped: a page
		 * glued together from two, or data pasted below the script. */
		if (len >= 2 && (line[0] == 'f' || line[0] == 'u' || line[0] == 'n') && line[1] == '(')
			return invalid(p, "frame data after the page footer");
		if (is_diff_line(line, len))
			return invalid(p, "frame data after the page footer");
	}
	if (rc < 0)
		return rc;
	if (!empty && !closed)
		return fg_error_set(p->err, FG_EINVALID, fg_input_name(p->in),
				    "truncated: the page ends before </html>");
	return 0;
}

/* The frame block ends with search() (or render() in 2.0-2.6 pages). */
static int footer_line(struct parser *p, const char *line)
{
	if (!strncmp(line, "search(", 7) || !strncmp(line, "render(", 7))
		return read_tail(p);
	return invalid(p, "unexpected line after the frame data");
}

static int read_footer(struct parser *p)
{
	char *line;
	size_t len;
	int rc;
	do {
		rc = fg_input_line(&line, &len, p->in, p->err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			return truncated(p);
		line = unindent(line, &len);
	} while (len == 0);
	return footer_line(p, line);
}

/* ---- 3.x and 4.x: cpool + f/u/n ---------------------------------------- */

static int cpool_add(struct parser *p, char *line, size_t len)
{
	/* 'X...' or 'X...', — the content lies between the first and last quote. */
	char *q = memrchr(line, '\'', len);
	if (len < 2 || line[0] != '\'' || !q || q == line || !(q + 1 == line + len || (q[1] == ',' && q + 2 == line + len)))
		return invalid(p, "malformed cpool entry");
	char *s = line + 1;
	size_t n = fg_html_unescape(s, (size_t)(q - s));
	if (p->ncpool == p->cpool_cap) {
		size_t cap = p->cpool_cap ? p->cpool_cap * 2 : 4096;
		uint32_t *c = realloc(p->cpool, cap * sizeof(*c));
		if (!c)
			return fg_error_oom(p->err, fg_input_name(p->in));
		p->cpool = c;
		p->cpool_cap = cap;
	}
	const char *full = s;
	size_t full_len = n;
	if (p->ncpool == 0) {
		if (n != 3 || memcmp(s, "all", 3) != 0)
			return invalid(p, "the cpool does not start with 'all'");
	} else {
		/* The first byte is 32 + the length of the prefix shared with the
		 * previous string, in bytes (as the native writer counts). */
		if (n == 0 || (unsigned char)s[0] < 32 || (unsigned char)s[0] > 32 + 95)
			return invalid(p, "bad prefix length in cpool entry");
		size_t prefix = (unsigned char)s[0] - 32;
		if (prefix > p->prev_len)
			return invalid(p, "cpool prefix longer than the previous string");
		size_t need = prefix + n - 1;
		if (need > p->prev_cap) {
			size_t cap = need * 2;
			char *b = realloc(p->prev, cap);
			if (!b)
				return fg_error_oom(p->err, fg_input_name(p->in));
			p->prev = b;
			p->prev_cap = cap;
		}
		memcpy(p->prev + prefix, s + 1, n - 1);
		full = p->prev;
		full_len = need;
		if (memchr(full, '\0', full_len))
			return invalid(p, "NUL in a name");
	}
	uint32_t id;
	int rc = fg_names_intern(&id, p->names, full, full_len, p->err);
	if (rc)
		return rc;
	if (p->ncpool == 0)
		memcpy(p->prev, "all", 3); /* the JS unpack() chains from 'all' */
	p->prev_len = full_len;
	p->cpool_identity = p->cpool_identity && id == p->ncpool;
	p->cpool[p->ncpool++] = id;
	return 0;
}

/* The leading decimal digits at s, at most DIGITS_MAX of them, eight bytes
 * at a time without a branch per digit: the numbers of a frame line are 1 to
 * 7 digits of unpredictable length, and the loop exit mispredicted on each
 * cost more than the arithmetic.  Reads 8 bytes (the input buffer is padded
 * for it, FG_INPUT_PADDING).  In two steps, so that a caller can look at the
 * byte after the digits while the value is combined: digit_scan() returns the
 * digit count (0 to DIGITS_MAX; with more digits, DIGITS_MAX, and the byte
 * after them is a digit: callers look at it, so they see it) and the bytes
 * less '0'; digit_value() makes the number of them (garbage for 0 digits). */
#if defined(__SSE2__)
enum { DIGITS_MAX = 8 };

__attribute__((always_inline)) static inline unsigned digit_scan(const char *s, uint64_t *v)
{
	__m128i d = _mm_sub_epi8(_mm_loadl_epi64((const __m128i *)(const void *)s), _mm_set1_epi8('0'));
	/* A digit less '0' is at most 9 (unsigned); the eight zero bytes above
	 * the load are no digits, so the count stops at 8. */
	unsigned digit = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d));
	*v = (uint64_t)_mm_cvtsi128_si64(d);
	return (unsigned)__builtin_ctz(~digit);
}
#else
enum { DIGITS_MAX = 7 };

__attribute__((always_inline)) static inline unsigned digit_scan(const char *s, uint64_t *v)
{
	uint64_t chunk;
	memcpy(&chunk, s, 8);
	*v = chunk - UINT64_C(0x3030303030303030);
	/* A byte is a digit when c - '0' <= 9: no high bit in it nor in
	 * c - '0' + 0x76.  Borrows only spill past the first non-digit.  The
	 * top bit stops the count at 7. */
	uint64_t nondigit = ((chunk + UINT64_C(0x4646464646464646)) | *v | UINT64_C(1) << 63) &
			    UINT64_C(0x8080808080808080);
	return (unsigned)__builtin_ctzll(nondigit) >> 3;
}
#endif

__attribute__((always_inline)) static inline uint64_t digit_value(uint64_t v, unsigned len, uint64_t times2561)
{
	/* Shift the digits to the top, zeros (digit 0) below (by 64 - 8 * len,
	 * taken mod 64: with no digit the value is garbage); the digit bytes
	 * are 0 to 9 and the bytes shifted in 0, so no byte needs masking.
	 * Then combine pairs, quads and octets. */
	v <<= (64 - 8 * len) & 63;
	v = ((v * times2561) >> 8) & UINT64_C(0x00FF00FF00FF00FF);
	v = ((v * 6553601) >> 16) & UINT64_C(0x0000FFFF0000FFFF);
	return (v * UINT64_C(42949672960001)) >> 32;
}

/* Both steps: the value, and *len digits. */
__attribute__((always_inline)) static inline uint64_t swar_digits(const char *s, int *len)
{
	uint64_t v;
	unsigned n = digit_scan(s, &v);
	*len = (int)n;
	return digit_value(v, n, 2561);
}

/* Parses "N,N,...,N)" at s and sets *after past the ')': the hot loop of a
 * 3.x+ file, so no bounds checks (the caller's line ends in '\0' or '\n', and
 * 19 digits always fit in 64 bits).  Keeps the first MAX_COUNTERS in args.
 * Returns the count, -1 when malformed (or more than MAX_CALL_ARGS), -2 on
 * a minus sign. */
__attribute__((always_inline)) static inline int parse_call_args(const char *s, uint64_t *args, const char **after)
{
	int n = 0;
	for (;;) {
		int len;
		uint64_t v = swar_digits(s, &len);
		if (len == 0)
			return *s == '-' ? -2 : -1;
		if (s[len] < '0' || s[len] > '9') {
			s += len;
		} else {
			/* More than DIGITS_MAX digits: rare, the plain way. */
			const char *first = s;
			unsigned d;
			v = 0;
			while ((d = (unsigned)(*s - '0')) <= 9) {
				v = v * 10 + d;
				s++;
			}
			if (s - first > 19)
				return -1; /* may have wrapped: refuse rather than guess */
		}
		if (n < MAX_COUNTERS)
			args[n] = v;
		n++;
		if (*s == ',' && n < MAX_CALL_ARGS) {
			s++;
			continue;
		}
		if (*s != ')')
			return -1;
		*after = s + 1;
		return n;
	}
}

/* u(key[,width]): the first child of the last frame (five calls in six),
 * its key checked.  Its parent is that frame, whose extent is [left0,
 * left0 + width0) and which has no child yet, so of emit()'s checks only the
 * width can fail, and only when given (0 or absent means the parent's width,
 * as the JS does): the caller checks it. */
__attribute__((always_inline)) static inline int first_child(struct parser *p, struct cursor *c, uint64_t key,
							     uint64_t width)
{
	uint64_t level = c->depth + 1;
	if (level >= c->levels_cap) {
		int rc = reserve_level(p, c, level);
		if (rc)
			return rc;
	}
	c->levels[c->depth].next = c->left0 + width;
	c->levels[level] = (struct level){ c->left0, c->left0 + width, c->left0 };
	c->depth = level;
	c->width0 = width;
	return push(p, c, level, c->cpool ? c->cpool[key >> 3] : (uint32_t)(key >> 3), (uint8_t)(key & 7), width);
}

/* A call with a number of arguments the converter does not write (f: 3, 4
 * or 7, 2.x: 5 or 8; u and n: 1, 2 or 5), as a fork of it may: the page's JavaScript
 * reads the known ones and ignores the rest, and so does this (the first
 * one met is kept for the warning). */
__attribute__((noinline, cold)) static void odd_call(struct parser *p, char call, int n)
{
	if (!p->info->odd_call) {
		p->info->odd_call = call;
		p->info->odd_call_args = (uint8_t)n;
	}
}

/* One f/u/n call, its arguments parsed. */
__attribute__((always_inline)) static inline int frame_call(struct parser *p, struct cursor *c, char call,
							    const uint64_t *a, int n)
{
	uint64_t key = a[0], level, dx, width = 0;
	switch (call) {
	case 'u':
		if (n != 1 && n != 2 && n != 5)
			odd_call(p, call, n);
		if (!c->started)
			return bad_frame(p, c->lines, "u() before the root frame");
		if ((key >> 3) >= c->ncpool)
			return bad_frame(p, c->lines, "string index out of range");
		if ((key & 7) >= FG_FRAME_TYPE_COUNT)
			return bad_frame(p, c->lines, "unknown frame type");
		width = n > 1 && a[1] ? a[1] : c->width0;
		if (width > c->width0)
			return bad_frame(p, c->lines, "frame is wider than its parent");
		return first_child(p, c, key, width);
	case 'f':
		if (n < 3)
			return bad_frame(p, c->lines, "malformed f() call");
		if (n != 4 && n != 3 && n != 7)
			odd_call(p, call, n);
		level = a[1];
		dx = a[2];
		if (n > 3)
			width = a[3];
		break;
	case 'n':
		if (n != 1 && n != 2 && n != 5)
			odd_call(p, call, n);
		level = c->depth;
		dx = c->width0;
		if (n > 1)
			width = a[1];
		break;
	default:
		return bad_frame(p, c->lines, "unexpected line in the frame block");
	}
	if ((key >> 3) >= c->ncpool)
		return bad_frame(p, c->lines, "string index out of range");
	if ((key & 7) >= FG_FRAME_TYPE_COUNT)
		return bad_frame(p, c->lines, "unknown frame type");
	if (c->left0 > UINT64_MAX - dx)
		return bad_frame(p, c->lines, "offset overflows");
	/* As the JS does: width 0 or absent means "the previous width". */
	if (width == 0)
		width = c->width0;
	c->left0 += dx;
	c->width0 = width;
	uint32_t name = c->cpool ? c->cpool[key >> 3] : (uint32_t)(key >> 3);
	return emit(p, c, level, c->left0, width, name, (uint8_t)(key & 7));
}

/* A frame-block line read the slow way (NUL-terminated). */
static int frame_line(struct parser *p, const char *line, size_t len)
{
	uint64_t a[MAX_COUNTERS];
	const char *after;
	if (len < 4 || line[1] != '(')
		return invalid(p, "unexpected line in the frame block");
	int n = parse_call_args(line + 2, a, &after);
	if (n == -2)
		return invalid(p, "negative offset or count");
	if (n < 0 || *after != '\0')
		return invalid(p, "malformed frame call");
	return frame_call(p, &p->cur, line[0], a, n);
}

/* The leading digits at s (1 to DIGITS_MAX; callers check the byte after them) as a
 * number: the end of the digits, or NULL when there is none. */
__attribute__((always_inline)) static inline const char *short_number(const char *s, uint64_t *v, uint64_t times2561)
{
	uint64_t digits;
	unsigned len = digit_scan(s, &digits);
	*v = digit_value(digits, len, times2561);
	return len ? s + len : NULL;
}

/* "u(" and ")\n" as 16-bit loads see them. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PAIR(a, b) ((uint16_t)((a) | (b) << 8))
#else
#define PAIR(a, b) ((uint16_t)((a) << 8 | (b)))
#endif
#define OPEN_U PAIR('u', '(')
#define CLOSE_LINE PAIR(')', '\n')

/* The longest line the frame loop takes: "f(", four numbers of DIGITS_MAX
 * digits, three commas and ")\n".  Starting at least this far before the
 * window's end, such a line ends inside the window (the sentinel '\n' at the
 * end cannot pass for its own), and no read of it passes the end. */
enum { PLAIN_LINE_MAX = 2 + 4 * DIGITS_MAX + 3 + 2 };

/* The records of a split's second part, 32-bit words: name << 5 | type << 2
 * | how; how 0: one level down, as wide as the frame before (what a u(KEY)
 * line gives); 1: the same level, as wide (n(KEY)); 2: one level down, the
 * total in the next two words; 3: the depth in the next word, then the
 * total.  4 bytes for a u(KEY) line of at least 5, 16 for an f(K,L,DX,W)
 * line of some 20 (the large fixture: 5.6 bytes a frame, its lines 10.2).
 * Names take 27 bits, all ones excepted (split_start checks): REC_MARK,
 * then the level, start and width (1 + 2 + 2 words) of a boundary frame
 * (part_boundary), comes before that frame's record. */
enum { REC_MAX = 4, REC_NAMES = 1 << 27, REC_MARK_WORDS = 6 };
#define REC_MARK UINT32_MAX

/* One frame's record after the frame (depth, total) before it. */
__attribute__((always_inline)) static inline uint32_t *code_frame(uint32_t *o, uint32_t name, uint8_t type,
								  uint64_t d, uint64_t w, uint64_t depth,
								  uint64_t total)
{
	uint32_t head = name << 5 | (uint32_t)type << 2;
	if (__builtin_expect(w == total && d - depth <= 1, 1)) {
		*o++ = head | (uint32_t)(d == depth);
		return o;
	}
	if (d == depth + 1) {
		*o++ = head | 2;
	} else {
		*o++ = head | 3;
		*o++ = (uint32_t)d;
	}
	*o++ = (uint32_t)w;
	*o++ = (uint32_t)(w >> 32);
	return o;
}

/* The state plain_calls() works on, in and out. */
struct run {
	const char *s;        /* the next line */
	fg_frame *out;        /* the next batch slot */
	uint32_t *word;       /* or, coding the frames (a split's second part), the next record word */
	uint64_t depth, left0, width0;
	uint64_t n;           /* the lines it was not given time for */
};

/* The line at s other than "u(KEY)\n", q past its key: the level, start and
 * width of the frame it adds, checked as emit() would; NULL for anything the
 * general path is to see. */
__attribute__((always_inline)) static inline const char *other_call(const char *s, const char *q,
								   const struct level *levels, uint64_t depth,
								   uint64_t left0, uint64_t width0, uint64_t times2561,
								   uint64_t *level_out, uint64_t *left_out, uint64_t *width_out)
{
	const char call = s[0];
	uint64_t level = 0, dx = 0, width = 0;
	if (s[1] != '(')
		return NULL;
	if (call == 'f') {
		q = *q == ',' ? short_number(q + 1, &level, times2561) : NULL;
		q = q && *q == ',' ? short_number(q + 1, &dx, times2561) : NULL;
	} else if (call == 'n') {
		level = depth;
		dx = width0;
	} else if (call != 'u') {
		return NULL;
	}
	if (q && *q == ',')
		q = short_number(q + 1, &width, times2561);
	uint16_t close;
	if (!q || (memcpy(&close, q, 2), close != CLOSE_LINE))
		return NULL;
	if (width == 0)
		width = width0; /* as the JS: 0 or absent is the previous width */
	uint64_t left;
	if (call == 'u') {
		level = depth + 1;
		left = left0;
		if (width > width0)
			return NULL;
	} else {
		if (left0 > UINT64_MAX - dx || level - 1 > depth)
			return NULL; /* wraps; level 0 (a second root) or a jump */
		left = left0 + dx;
		const struct level *parent = &levels[level - 1];
		if (left < parent->next || left > parent->right || width > parent->right - left)
			return NULL;
	}
	*level_out = level;
	*left_out = left;
	*width_out = width;
	return q;
}

/* At most n lines "u(...)\n", "n(...)\n", "f(...)\n" straight from the input
 * buffer; stops early at the first line that needs the general path (not a
 * call, the blank line closing the block).
 *
 * After the root, the plain calls (u(K[,W]), n(K[,W]), f(K,L,DX[,W]): every
 * line of the large fixture but the root) have a loop of their own with the
 * state in locals.  It accepts a line only when frame_call() would take it
 * the same way and pass every check, and it changes nothing before it has
 * checked the line; anything else (counters, a number of more than
 * DIGITS_MAX digits, a check that fails) leaves the line to frame_call(),
 * the reference, which reports the error.  Its checks:
 * - the key: the cpool index in range, a known type;
 * - u: the parent is the last frame, [left0, left0 + width0), which has no
 *   child yet, so only a given width can be wrong (wider than the parent);
 * - n and f: emit()'s (a parent at level - 1, the start not left of its next
 *   free offset nor right of its end, the width inside it), and for f an
 *   offset that does not wrap.
 * The checks that hold for a run of lines at once are the caller's, in n:
 * room in the batch, room in the level stack (a line adds one level at
 * most), and the line ending inside the window (PLAIN_LINE_MAX).
 * tests/fuzz/fuzz_html.c reads every input also one byte at a time, which
 * sends every line down the general path, and traps when the two differ. */
__attribute__((always_inline)) static inline void plain_calls(struct run *r, struct level *const levels,
							      const uint32_t *const cpool, const uint64_t nkeys,
							      uint64_t n, const bool coded)
{
	const char *s = r->s;
	fg_frame *out = r->out;
	uint32_t *word = r->word;
	uint64_t depth = r->depth, left0 = r->left0, width0 = r->width0;
	struct level *top = levels + depth; /* the last frame's */
	/* A multiplier the compiler is not to turn into shifts and adds. */
	uint64_t times2561 = 2561;
	__asm__("" : "+r"(times2561));
	for (; n; n--) {
		uint16_t head, close;
		memcpy(&head, s, 2);
		uint64_t digits;
		unsigned len = digit_scan(s + 2, &digits);
		const char *q = s + 2 + len;
		memcpy(&close, q, 2);
		uint64_t key = digit_value(digits, len, times2561);
		/* No digit, a cpool index out of range, an unknown type. */
		if (!len || key >= nkeys || (key & 7) >= FG_FRAME_TYPE_COUNT)
			break;
		uint64_t level, left, width;
		if (__builtin_expect(head == OPEN_U && close == CLOSE_LINE, 1)) {
			/* u(KEY): the first child of the last frame, as wide. */
			level = depth + 1;
			left = left0;
			width = width0;
			top++;
		} else if ((q = other_call(s, q, levels, depth, left0, width0, times2561, &level, &left, &width))) {
			top = levels + level;
		} else {
			break;
		}
		top[-1].next = left + width;
		*top = (struct level){ left, left + width, left };
		uint32_t name = cpool ? cpool[key >> 3] : (uint32_t)(key >> 3);
		if (coded)
			word = code_frame(word, name, (uint8_t)(key & 7), level, width, depth, width0);
		else
			*out++ = (fg_frame){ .depth = (uint32_t)level, .name = name, .type = (uint8_t)(key & 7),
					     .total = width };
		depth = level;
		left0 = left;
		width0 = width;
		s = q + 2;
	}
	*r = (struct run){ s, out, word, depth, left0, width0, n };
}

/* The loop for either kind of cpool: with the identity table (the usual
 * case), no load per frame.  Leaf functions, so that the state stays in
 * registers. */
__attribute__((noinline)) static void plain_calls_identity(struct run *r, struct level *levels, uint64_t nkeys,
							   uint64_t n)
{
	plain_calls(r, levels, NULL, nkeys, n, false);
}

__attribute__((noinline)) static void plain_calls_mapped(struct run *r, struct level *levels, const uint32_t *cpool,
							 uint64_t nkeys, uint64_t n)
{
	plain_calls(r, levels, cpool, nkeys, n, false);
}

/* The same loops coding the frames (a split's second part, split_start). */
__attribute__((noinline)) static void plain_calls_identity_coded(struct run *r, struct level *levels, uint64_t nkeys,
								 uint64_t n)
{
	plain_calls(r, levels, NULL, nkeys, n, true);
}

__attribute__((noinline)) static void plain_calls_mapped_coded(struct run *r, struct level *levels,
							       const uint32_t *cpool, uint64_t nkeys, uint64_t n)
{
	plain_calls(r, levels, cpool, nkeys, n, true);
}

static int coded_run(struct parser *p, const char **s, const char *end, uint64_t nkeys, uint64_t *lines);

static int fast_frames(struct parser *p)
{
	const char *s, *end, *after;
	uint64_t a[MAX_COUNTERS];
	int rc = 0;
	struct cursor *c = &p->cur;
	uint64_t lines = 0;
	/* The keys whose index is in the cpool (ncpool is far below 2^61). */
	const uint64_t nkeys = (uint64_t)c->ncpool << 3;
	fg_input_window(&s, &end, p->in);
	for (;;) {
		if (c->started && p->coded) {
			if ((rc = coded_run(p, &s, end, nkeys, &lines)) != 0)
				break;
		} else if (c->started) {
			/* The run's checks merged: lines that fit the batch, the
			 * level stack and the window. */
			uint64_t n = FG_FRAME_BATCH - c->nbatch;
			uint64_t room = c->levels_cap - 1 - c->depth;
			uint64_t whole = (uint64_t)(end - s) / PLAIN_LINE_MAX;
			n = n < room ? n : room;
			n = n < whole ? n : whole;
			struct run r = { s, p->batch + c->nbatch, NULL, c->depth, c->left0, c->width0, 0 };
			if (c->cpool)
				plain_calls_mapped(&r, c->levels, c->cpool, nkeys, n);
			else
				plain_calls_identity(&r, c->levels, nkeys, n);
			lines += (uint64_t)(r.out - (p->batch + c->nbatch)); /* a frame a line */
			s = r.s;
			c->depth = r.depth;
			c->left0 = r.left0;
			c->width0 = r.width0;
			c->nbatch = (size_t)(r.out - p->batch);
			if (c->nbatch == FG_FRAME_BATCH) {
				c->nbatch = 0;
				if ((rc = flush(p, FG_FRAME_BATCH)) != 0)
					break;
				continue;
			}
		}
		if (!((s[0] == 'u' || s[0] == 'f' || s[0] == 'n') && s[1] == '('))
			break;
		int n = parse_call_args(s + 2, a, &after);
		if (n < 0 || *after != '\n' || after >= end)
			break;
		c->lines = ++lines;
		if ((rc = frame_call(p, c, s[0], a, n)) != 0)
			break;
		s = after + 1;
	}
	fg_input_consume_lines(p->in, s, lines - (rc != 0));
	c->lines = 0;
	return rc;
}

/* The input ended before the blank line that closes the frame block. */
enum { BLOCK_END = 1 };

/* The frame block from the current line to the blank line that closes it
 * (read too): 0, an error, or BLOCK_END. */
static int frame_block(struct parser *p)
{
	char *line;
	size_t len;
	int rc;
	for (;;) {
		if ((rc = fast_frames(p)) != 0)
			return rc;
		rc = fg_input_line(&line, &len, p->in, p->err);
		if (rc <= 0)
			return rc < 0 ? rc : BLOCK_END;
		line = unindent(line, &len);
		if (len == 0)
			return 0;
		if (line[0] == 'd' && is_diff_line(line, len)) {
			/* Deltas belong to differential graphs (maxdiff >= 0) only:
			 * elsewhere the page was edited or generated wrong. */
			if (!p->info->differential)
				return invalid(p, "a d= line in a graph that is not differential (maxdiff < 0)");
			continue;
		}
		if ((rc = frame_line(p, line, len)) != 0)
			return rc;
	}
}

/* ---- One page on two threads ---------------------------------------------
 *
 * A large 3.x+ frame block in plain content of known size is cut at a line
 * f(K,L,DX,W): a level and a width of its own, so that what follows needs
 * of what precedes only the extents of the frame's ancestors.  Thread 1
 * reads up to the cut as always, visiting as it goes; thread 2 reads from
 * the cut to the blank line that closes the block with the same code, its
 * offsets counted from the cut's running offset (left0, unknown to it: 0),
 * into its own parser whose frames go into a compact record buffer instead
 * of a visitor.  Thread 2 does not know the levels below the cut frame's:
 * they hold values no frame fits in (next UINT64_MAX, right 0), so that the
 * frame loop leaves their children (the cut frame first) to the general
 * path, where emit() records them (part_boundary) instead of checking them.
 * At the cut, thread 1 takes thread 2's frames as it publishes them
 * (split_join), making those checks in order against its own levels with
 * real offsets when the stream reaches each; when all hold, thread 1 goes on
 * past the block.  When anything does not hold (thread 2 stopped, a check
 * fails, an offset would wrap), thread 1 reads on from the cut without
 * handing the visitor again the batches it has: the single-thread reading,
 * every batch and error included. */

/* A frame of the second part whose parent it could not know (a REC_MARK
 * record). */
struct bound {
	uint64_t level, left, width;
};

struct part {
	struct parser p;       /* thread 2's: its own input, cursor and batch */
	fg_profile_info info;
	fg_error err;
	/* Thread 2 hands thread 1 its records as it codes them: the position
	 * published is the count of record words thread 1 may read, every
	 * PART_PUBLISH words and at the end (with rc, end and lines). */
	fg_handoff *h;
	size_t pub_nrec;       /* thread 2's: the words published */
	int rc;                /* 0: the block read to its blank line */
	uint64_t end, lines;   /* then: the offset past the blank line, the lines read */
	/* The frames, each coded against the one before (part_frames).  The
	 * buffer is never moved: thread 1 reads what is published of it while
	 * thread 2 writes on. */
	uint32_t *rec;
	size_t nrec, rec_cap;
	uint64_t prev_depth, prev_total;
};

/* The default smallest frame block read on two threads (a thread's start is
 * some 50 us), and where the cut is looked for, in thousandths of the block.
 * Thread 1 visits its part, then decodes and visits thread 2's frames while
 * thread 2 still reads: the wall time is the longer thread's, least where
 * the two take as long (the large fixture's share, callgrind per thread:
 * 270.7 / 176.3 M instructions at 42 %, 241.7 / 221.1 M at 27 %, 233.8 /
 * 233.5 M at 23 %; one thread 381.5 M). */
#define SPLIT_MIN_BLOCK (UINT64_C(4) << 20)
#define SPLIT_PERMILLE 230
/* The cut is looked for this far at most (then no split), and its level is
 * below this bound (a deeper one is a damaged page: no split). */
#define SPLIT_SCAN (64u << 10)
#define SPLIT_MAX_LEVEL 65536

/* Thread 2 publishes its records every this many words (some 6,000
 * frames of the large fixture; a lock and unlock each). */
#define PART_PUBLISH (32u << 10)

/* Room in the record buffer for n frames; -1 when it is full (rare lines
 * have records longer than themselves: the part is then not read on two
 * threads, as for any error of thread 2). */
static int part_room(struct part *t, size_t n)
{
	return t->rec_cap - t->nrec >= n * REC_MAX ? 0 : -1;
}

/* What thread 2 has coded made readable to thread 1; end: thread 2 is
 * done (t->rc says how). */
static void part_publish(struct part *t, bool end)
{
	t->pub_nrec = t->nrec;
	fg_handoff_publish(t->h, t->nrec, end);
}

/* Thread 2: the frames in the batch coded, so that what is written into the
 * records next comes after them. */
static int coded_batch(struct parser *p, struct cursor *c)
{
	size_t n = c->nbatch;
	c->nbatch = 0;
	return n ? flush(p, n) : 0;
}

/* fast_frames' run on thread 2: the general path's frames (in the batch)
 * coded first, so that the records keep the file's order, then the lines
 * that fit the level stack, the window and the record buffer coded
 * straight from the frame loop. */
static int coded_run(struct parser *p, const char **s, const char *end, uint64_t nkeys, uint64_t *lines)
{
	struct cursor *c = &p->cur;
	struct part *t = p->part;
	int rc = coded_batch(p, c);
	if (rc)
		return rc;
	uint64_t room = c->levels_cap - 1 - c->depth;
	uint64_t whole = (uint64_t)(end - *s) / PLAIN_LINE_MAX;
	uint64_t n = room < whole ? room : whole;
	if (n > 4096)
		n = 4096; /* (so that a cancel is seen that often) */
	if (part_room(t, (size_t)n) != 0)
		return fg_error_set(p->err, FG_ENOMEM, NULL, "record buffer full");
	struct run r = { *s, NULL, t->rec + t->nrec, c->depth, c->left0, c->width0, 0 };
	if (c->cpool)
		plain_calls_mapped_coded(&r, c->levels, c->cpool, nkeys, n);
	else
		plain_calls_identity_coded(&r, c->levels, nkeys, n);
	*lines += n - r.n;
	p->info->frames += n - r.n;
	*s = r.s;
	t->nrec = (size_t)(r.word - t->rec);
	if (r.n != n) {
		/* The last frame coded (before any, the cursor's start is no
		 * frame's). */
		t->prev_depth = r.depth;
		t->prev_total = r.width0;
	}
	c->depth = r.depth;
	c->left0 = r.left0;
	c->width0 = r.width0;
	if (t->nrec - t->pub_nrec >= PART_PUBLISH)
		part_publish(t, false);
	if (fg_handoff_stopped(t->h))
		return fg_error_set(p->err, FG_EINTERNAL, NULL, "cancelled");
	return 0;
}

/* Thread 2's visitor: the frames coded into the record buffer. */
static int part_frames(void *ctx, const fg_frame *f, size_t n, fg_error *err)
{
	struct part *t = ctx;
	if (fg_handoff_stopped(t->h))
		return fg_error_set(err, FG_EINTERNAL, NULL, "cancelled");
	if (part_room(t, n) != 0)
		return fg_error_set(err, FG_ENOMEM, NULL, "record buffer full");
	uint32_t *o = t->rec + t->nrec;
	uint64_t depth = t->prev_depth, total = t->prev_total;
	for (const fg_frame *e = f + n; f < e; f++) {
		o = code_frame(o, f->name, f->type, f->depth, f->total, depth, total);
		depth = f->depth;
		total = f->total;
	}
	t->prev_depth = depth;
	t->prev_total = total;
	t->nrec = (size_t)(o - t->rec);
	return 0;
}

/* emit()'s hook for a frame whose parent thread 2 does not know (level <=
 * c->unknown, thread 2 only): recorded for split_join to check (a REC_MARK
 * record before the frame's, the frames before it coded first), the parent
 * left unknown (its next child is checked at the join too), and the frame's
 * own level known from now on.  (level < SPLIT_MAX_LEVEL: one word.) */
__attribute__((noinline, cold)) static int part_boundary(struct parser *p, struct cursor *c, uint64_t level,
							 uint64_t left, uint64_t width, uint32_t name, uint8_t type)
{
	struct part *t = p->part;
	int rc = coded_batch(p, c);
	if (rc)
		return rc;
	if (t->rec_cap - t->nrec < REC_MARK_WORDS)
		return fg_error_set(p->err, FG_ENOMEM, NULL, "record buffer full");
	uint32_t *o = t->rec + t->nrec;
	*o++ = REC_MARK;
	*o++ = (uint32_t)level;
	*o++ = (uint32_t)left;
	*o++ = (uint32_t)(left >> 32);
	*o++ = (uint32_t)width;
	*o++ = (uint32_t)(width >> 32);
	t->nrec += REC_MARK_WORDS;
	c->unknown = level;
	return enter(p, c, level, left, width, name, type);
}

/* Thread 2 (t->h is set before it starts). */
static void part_run(fg_handoff *h, void *arg)
{
	(void)h;
	struct part *t = arg;
	struct parser *p = &t->p;
	int rc = frame_block(p);
	if (!rc)
		rc = flush(p, p->cur.nbatch);
	t->end = fg_input_offset(p->in);
	t->lines = fg_input_line_number(p->in);
	t->rc = rc;
	part_publish(t, true);
}

static void part_free(struct part *t)
{
	fg_input_free(t->p.in);
	free(t->p.cur.levels);
	free(t->rec);
	free(t);
}

/* A line "f(K,L,DX,W)\n" at s (data up to end): four numbers, L and W not 0,
 * L below SPLIT_MAX_LEVEL; its level. */
static bool cut_line(const char *s, const char *end, uint64_t *level)
{
	uint64_t a[4];
	if (end - s < 2 || s[0] != 'f' || s[1] != '(')
		return false;
	s += 2;
	for (int i = 0; i < 4; i++) {
		if (!parse_u64(&s, end, &a[i]) || s >= end || *s++ != (i < 3 ? ',' : ')'))
			return false;
	}
	*level = a[1];
	return s < end && *s == '\n' && a[1] >= 1 && a[1] < SPLIT_MAX_LEVEL && a[3] != 0;
}

/* Thread 2's input from the first cut line at or after target; false when
 * there is none within SPLIT_SCAN. */
static bool find_cut(fg_input **out, uint64_t *cut, uint64_t *level, const struct parser *p, uint64_t target)
{
	fg_input *in;
	fg_error err;
	const char *d;
	size_t n;
	if (fg_input_open_at(&in, p->in, target - 1, &err) != 0)
		return false;
	if (fg_input_peek(&d, &n, in, SPLIT_SCAN, &err) == 0) {
		if (n > SPLIT_SCAN)
			n = SPLIT_SCAN;
		/* Line starts: after each '\n' (target - 1 is the byte before the first). */
		for (const char *s = memchr(d, '\n', n); s; s = memchr(s, '\n', (size_t)(d + n - s))) {
			s++;
			if (cut_line(s, d + n, level)) {
				*cut = target - 1 + (uint64_t)(s - d);
				fg_input_consume_lines(in, s, 0);
				*out = in;
				return true;
			}
		}
	}
	fg_input_free(in);
	return false;
}

/* Thread 2 stopped and its work dropped (or taken); thread 1's input
 * unlimited. */
static void split_stop(struct parser *p)
{
	if (!p->part)
		return;
	fg_handoff_stop(p->part->h);
	part_free(p->part);
	p->part = NULL;
	/* (Clearing a limit seeks nothing: it cannot fail.) */
	fg_input_set_limit(p->in, UINT64_MAX, NULL);
}

/* Past the blank line that opens the frame block: starts thread 2 when the
 * options allow it and the block is worth it, and limits thread 1's input
 * to the cut.  Anything in the way is no split, never an error. */
static void split_start(struct parser *p)
{
	const fg_read_options *o = p->opts;
	uint64_t size, from = fg_input_offset(p->in);
	/* (Names beyond the records' 27 bits: not split; thread 2 meets no
	 * name the cpool did not give.) */
	if (!o || !o->split || !fg_input_plain_size(&size, p->in) || size <= from ||
	    fg_names_count(p->names) >= REC_NAMES - 1 ||
	    size - from < (o->split_test.min_block ? o->split_test.min_block : SPLIT_MIN_BLOCK) ||
	    (o->max_size && size > o->max_size) || size > FG_INPUT_DEFAULT_MAX_SIZE)
		return;
	/* (Content above --max-size fails where the reading crosses it, which
	 * depends on how it was read: not split.) */
	uint64_t permille = o->split_permille && o->split_permille < 1000 ? o->split_permille : SPLIT_PERMILLE;
	uint64_t target = o->split_test.at ? o->split_test.at : from + (size - from) / 1000 * permille;
	if (target <= from || target >= size)
		return;
	struct part *t = calloc(1, sizeof(*t));
	if (!t)
		return;
	uint64_t cut, level;
	if (!find_cut(&t->p.in, &cut, &level, p, target)) {
		free(t);
		return;
	}
	struct parser *q = &t->p;
	/* Records are shorter than their lines but for rare ones (an n(K,W)
	 * line of 7 bytes takes 16; a part of many such lines fills the buffer
	 * and thread 2 stops): room for all of them at once, never moved, for
	 * thread 1 reads it while thread 2 writes (its pages are taken as they
	 * are written), in huge pages where the kernel has them
	 * (the large fixture cut at 27 %: 3,400 page faults fewer, some 3 ms
	 * of the second thread's). */
	t->rec_cap = (size_t)(size - cut) / sizeof(*t->rec) + FG_FRAME_BATCH * REC_MAX;
	if (o->split_test.rec_words && o->split_test.rec_words < t->rec_cap)
		t->rec_cap = (size_t)o->split_test.rec_words;
	void *rec;
	if (posix_memalign(&rec, 2u << 20, t->rec_cap * sizeof(*t->rec))) {
		part_free(t);
		return;
	}
	t->rec = rec;
#ifdef MADV_HUGEPAGE
	madvise(rec, t->rec_cap * sizeof(*t->rec), MADV_HUGEPAGE); /* advice: its failure changes nothing */
#endif
	t->info = *p->info;
	q->names = p->names;
	q->fn = part_frames;
	q->ctx = t;
	q->info = &t->info;
	q->err = &t->err;
	q->part = t;
	q->coded = true;
	q->max_depth = p->max_depth;
	/* The cpool is thread 1's, and stays as it is from now on. */
	q->cur = (struct cursor){ .started = true, .depth = level - 1, .unknown = level, .cpool = p->cur.cpool,
				  .ncpool = p->cur.ncpool, .batch = q->batch };
	/* Levels below the cut frame's: nothing fits in them. */
	int rc = 0;
	while (!rc && q->cur.levels_cap <= level)
		rc = reserve_level(q, &q->cur, q->cur.levels_cap);
	if (!rc) {
		for (uint64_t l = 0; l < level; l++)
			q->cur.levels[l] = (struct level){ 0, 0, UINT64_MAX };
		rc = fg_handoff_start(&t->h, 0, part_run, t);
	}
	if (rc) {
		part_free(t);
		return;
	}
	p->part = t;
	fg_error err;
	if (fg_input_set_limit(p->in, cut, &err) != 0)
		split_stop(p);
}

/* Thread 1's reading of thread 2's records as they come (split_join). */
struct consume {
	const uint32_t *r;     /* the next record word */
	uint64_t depth, total; /* the frame before's */
	struct level *levels;  /* a copy of thread 1's (the checks change next) */
	uint64_t flushes;      /* the full batches handed to the visitor */
};

/* emit()'s checks of a boundary frame against thread 1's levels with real
 * offsets (the part's are the real ones less left0 at the cut).  The first
 * is the cut frame: its level against thread 1's depth, and its parent
 * level and those above copied, for thread 1 needs them intact if it reads
 * on from the cut.  Each boundary frame is at most as deep as the one
 * before (its parent is unknown to thread 2, so above the last boundary
 * frame), so its parent is one of thread 1's levels, as the frames before
 * changed it.  No real offset wraps unless a boundary frame's does (every
 * frame of the part lies in one), and that fails its check: a wrapped start
 * is below left0 at the cut, and the parent's next free offset is not (the
 * parent is on thread 1's last path: it is the last frame, or its child on
 * that path ends past left0). */
static bool split_check(struct consume *k, const struct cursor *c, const struct bound *b)
{
	if (!k->levels) {
		if (b->level > c->depth + 1 || !(k->levels = malloc((size_t)b->level * sizeof(*k->levels))))
			return false;
		memcpy(k->levels, c->levels, (size_t)b->level * sizeof(*k->levels));
	}
	struct level *parent = &k->levels[b->level - 1];
	uint64_t left = c->left0 + b->left;
	if (left < parent->next || left > parent->right || b->width > parent->right - left)
		return false;
	parent->next = left + b->width;
	return true;
}

/* Thread 2's frames up to end to the visitor, in batches as thread 1 makes
 * them, each boundary frame checked before it is decoded; *ok false when a
 * check fails (the frames before it taken). */
static int split_frames(struct parser *p, struct consume *k, const uint32_t *end, bool *ok)
{
	struct cursor *c = &p->cur;
	const uint32_t *r = k->r;
	uint64_t depth = k->depth, total = k->total;
	int rc = 0;
	/* The batch through locals: its stores cannot alias them. */
	fg_frame *out = c->batch + c->nbatch, *full = c->batch + FG_FRAME_BATCH;
	while (r < end) {
		uint32_t v = *r++;
		if (__builtin_expect(v == REC_MARK, 0)) {
			struct bound b = { r[0], r[1] | (uint64_t)r[2] << 32, r[3] | (uint64_t)r[4] << 32 };
			if (!(*ok = split_check(k, c, &b)))
				break;
			r += REC_MARK_WORDS - 1;
			continue;
		}
		if (__builtin_expect(v & 2, 0)) {
			if (v & 1)
				depth = *r++;
			else
				depth++;
			total = r[0] | (uint64_t)r[1] << 32;
			r += 2;
		} else {
			depth += !(v & 1);
		}
		*out++ = (fg_frame){ .depth = (uint32_t)depth, .name = v >> 5, .type = (uint8_t)(v >> 2 & 7),
				     .total = total };
		if (out == full) {
			out = c->batch;
			k->flushes++;
			if ((rc = flush(p, FG_FRAME_BATCH)) != 0)
				break;
		}
	}
	c->nbatch = (size_t)(out - c->batch);
	k->r = r;
	k->depth = depth;
	k->total = total;
	return rc;
}

/* At the cut (thread 1's input at its limit): takes thread 2's frames as it
 * publishes them, checking its boundary frames against thread 1's levels
 * (split_check), and waits for more when it has caught up.  Thread 2 done
 * to the block's blank line and every check held: *joined, and the input
 * past that line.  Otherwise (thread 2 stopped, a check failed) thread 1
 * reads on from the cut with its cursor as it was there: every frame it has
 * taken is one that reading gives, in the same order (the same bytes
 * through the same code; only the boundary checks depend on part 1), and
 * it has handed the visitor only full batches, those the reading gives: it
 * skips handing them again (parser.skip) and writes the frames of the batch
 * under way again where they are.  Fails only as the visitor or the input
 * does. */
static int split_join(struct parser *p, bool *joined)
{
	struct part *t = p->part;
	struct cursor *c = &p->cur;
	*joined = false;
	fg_input_set_limit(p->in, UINT64_MAX, NULL);
	struct consume k = { .r = t->rec };
	size_t nbatch = c->nbatch;
	bool ok = true, end;
	int rc = 0;
	do {
		uint64_t pos = fg_handoff_wait(t->h, (uint64_t)(k.r - t->rec), &end);
		rc = split_frames(p, &k, t->rec + pos, &ok);
	} while (!rc && ok && !end);
	ok = ok && end && t->rc == 0;
	free(k.levels);
	if (ok && !rc) {
		/* Nothing reads the cursor's levels after the blank line that
		 * closes the block: they are not carried over. */
		rc = fg_input_seek(p->in, t->end, fg_input_line_number(p->in) + t->lines, p->err);
		*joined = rc == 0;
		if (*joined && t->info.odd_call)
			odd_call(p, t->info.odd_call, t->info.odd_call_args);
		if (*joined && p->opts->split_test.joined)
			++*p->opts->split_test.joined;
	} else if (!rc) {
		c->nbatch = nbatch;
		p->skip = k.flushes;
		if (p->opts->split_test.skipped)
			*p->opts->split_test.skipped += k.flushes;
	}
	split_stop(p);
	return rc;
}

static int read_v3(struct parser *p)
{
	char *line;
	size_t len;
	int rc;
	p->info->format = FG_FORMAT_HTML_V3;
	/* The string table, up to "];". */
	for (;;) {
		rc = fg_input_line(&line, &len, p->in, p->err);
		if (rc <= 0)
			goto cut;
		line = unindent(line, &len);
		if (len >= 2 && line[0] == ']' && line[1] == ';')
			break;
		if ((rc = cpool_add(p, line, len)) != 0)
			return rc;
	}
	if (p->ncpool == 0)
		return invalid(p, "empty cpool");
	p->cur.cpool = p->cpool_identity ? NULL : p->cpool;
	p->cur.ncpool = p->ncpool;
	/* Skip to the blank line that opens the frame block (past unpack()). */
	do {
		rc = fg_input_line(&line, &len, p->in, p->err);
		if (rc <= 0)
			goto cut;
		unindent(line, &len);
	} while (len != 0);
	split_start(p);
	for (;;) {
		rc = frame_block(p);
		if (rc != BLOCK_END || !p->part || !fg_input_at_limit(p->in))
			break;
		bool joined;
		if ((rc = split_join(p, &joined)) != 0 || joined)
			break;
		/* Not taken: the rest of the block read here. */
	}
	split_stop(p);
	if (rc == BLOCK_END)
		return truncated(p);
	if (rc)
		return rc;
	return read_footer(p);
cut:
	return rc < 0 ? rc : truncated(p);
}

/* ---- 2.x: f(level,left,width,type,'title'[,inln,c1,int]) -------------- */

static const uint8_t old_type_map[5] = {
	FG_FRAME_JIT, FG_FRAME_INLINED, FG_FRAME_KERNEL, FG_FRAME_CPP, FG_FRAME_NATIVE
};

static bool looks_like_v2_frame(const char *line, size_t len)
{
	/* f(digits,digits,digits,digits,' */
	const char *s = line + 2, *end = line + len;
	if (len < 11 || line[0] != 'f' || line[1] != '(')
		return false;
	for (int i = 0; i < 4; i++) {
		uint64_t v;
		if (!parse_u64(&s, end, &v) || s >= end || *s != ',')
			return false;
		s++;
	}
	return s < end && *s == '\'';
}

static int frame_v2(struct parser *p, char *line, size_t len)
{
	const char *s = line + 2, *end = line + len;
	uint64_t a[4];
	for (int i = 0; i < 4; i++) {
		if (s < end && *s == '-')
			return invalid(p, "negative offset or count");
		if (!parse_u64(&s, end, &a[i]) || s >= end || *s != ',')
			return invalid(p, "malformed f() call");
		s++;
	}
	/* The title runs to the last quote: native 2.x writers do not escape
	 * backslashes, so scanning for an unescaped quote could stop early. */
	char *open = (char *)s, *close = memrchr(line, '\'', len);
	if (s >= end || *open != '\'' || close == open)
		return invalid(p, "malformed f() title");
	uint64_t counters[MAX_COUNTERS];
	const char *rest = close + 1;
	if (!(rest + 1 == end && *rest == ')')) {
		const char *after;
		int k = rest < end && *rest == ',' ? parse_call_args(rest + 1, counters, &after) : -1;
		if (k < 0 || *after)
			return invalid(p, "malformed f() call after the title");
		if (k != 3)
			odd_call(p, 'f', 5 + k);
	}
	size_t n = fg_html_unescape(open + 1, (size_t)(close - open - 1));
	uint64_t type = a[3];
	if (!p->cur.started)
		p->old_types = type == 4; /* the root is native: 4 before 2.7, 3 after */
	if (p->old_types ? type > 4 : type >= FG_FRAME_TYPE_COUNT)
		return invalid(p, "unknown frame type");
	uint8_t t = p->old_types ? old_type_map[type] : (uint8_t)type;
	uint32_t id;
	int rc = fg_names_intern(&id, p->names, open + 1, n, p->err);
	if (rc)
		return rc;
	return emit(p, &p->cur, a[0], a[1], a[2], id, t);
}

static int read_v2(struct parser *p, char *line, size_t len)
{
	int rc;
	p->info->format = FG_FORMAT_HTML_V2;
	for (;;) {
		if ((rc = frame_v2(p, line, len)) != 0)
			return rc;
		rc = fg_input_line(&line, &len, p->in, p->err);
		if (rc <= 0)
			goto cut;
		line = unindent(line, &len);
		if (len < 2 || line[0] != 'f' || line[1] != '(')
			break;
	}
	if (len != 0)
		return footer_line(p, line);
	return read_footer(p);
cut:
	return rc < 0 ? rc : truncated(p);
}

/* ---- the template header ------------------------------------------------ */

/* The value of a declaration "let|var|const NAME = VALUE;", past a writer's
 * marker comment; NULL for other lines (assignments in the page's code). */
static const char *js_value(const char *line, size_t len, const char *name)
{
	const char *s = line, *end = line + len;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	size_t nl = strlen(name);
	if ((size_t)(end - s) > 4 && (!strncmp(s, "let ", 4) || !strncmp(s, "var ", 4)))
		s += 4;
	else if ((size_t)(end - s) > 6 && !strncmp(s, "const ", 6))
		s += 6;
	else
		return NULL;
	if ((size_t)(end - s) < nl + 3 || strncmp(s, name, nl) || strncmp(s + nl, " = ", 3))
		return NULL;
	s += nl + 3;
	if (end - s > 2 && s[0] == '/' && s[1] == '*') {
		const char *c = strstr(s, "*/");
		if (!c)
			return NULL;
		s = c + 2;
	}
	return s;
}

static void header_line(struct parser *p, const char *line, size_t len)
{
	const char *v;
	const char *h1 = len >= 4 ? strstr(line, "<h1>") : NULL;
	if (h1) {
		const char *e = strstr(h1, "</h1>");
		size_t n = e ? (size_t)(e - h1 - 4) : strlen(h1 + 4);
		if (n >= sizeof(p->info->title))
			n = sizeof(p->info->title) - 1;
		memcpy(p->info->title, h1 + 4, n);
		p->info->title[n] = '\0';
	} else if ((v = js_value(line, len, "inverted")) || (v = js_value(line, len, "reverse"))) {
		p->info->inverted = !strncmp(v, "true", 4);
	} else if ((v = js_value(line, len, "maxdiff"))) {
		p->info->differential = *v >= '0' && *v <= '9';
	} else if ((v = js_value(line, len, "units")) && (*v == '\'' || *v == '"')) {
		/* Templates that name the counter: units = 'bytes'. */
		const char *e = strchr(v + 1, *v);
		size_t n = e ? (size_t)(e - v - 1) : 0;
		if (n > 0 && n < sizeof(p->info->unit)) {
			memcpy(p->info->unit, v + 1, n);
			p->info->unit[n] = '\0';
			if (!strcmp(p->info->unit, "nanoseconds"))
				strcpy(p->info->unit, "ns");
		}
	}
}

int fg_html_read(fg_profile_info *info, fg_input *in, fg_names *names, const fg_read_options *opts,
		 fg_frames_fn fn, void *ctx, fg_error *err)
{
	/* The batch makes the parser some pages large: on the heap. */
	struct parser *p = calloc(1, sizeof(*p));
	if (!p)
		return fg_error_oom(err, fg_input_name(in));
	*p = (struct parser){ .in = in, .names = names, .fn = fn, .ctx = ctx, .info = info, .err = err,
			      .cpool_identity = true, .opts = opts,
			      .max_depth = opts && opts->max_depth ? opts->max_depth : FG_READ_DEFAULT_MAX_DEPTH };
	p->cur.batch = p->batch;
	char *line;
	size_t len;
	int rc;
	p->prev_cap = 256;
	if (!(p->prev = malloc(p->prev_cap))) {
		free(p);
		return fg_error_oom(err, fg_input_name(in));
	}
	while ((rc = fg_input_line(&line, &len, in, err)) > 0) {
		size_t flen = len;
		char *f = unindent(line, &flen);
		if (flen >= 15 && !strncmp(f, "const cpool = [", 15)) {
			rc = read_v3(p);
			goto done;
		}
		if (f[0] == 'f' && looks_like_v2_frame(f, flen)) {
			rc = read_v2(p, f, flen);
			goto done;
		}
		header_line(p, line, len);
	}
	if (rc == 0)
		rc = fg_error_set(err, FG_EINVALID, fg_input_name(in),
				  "an HTML page without async-profiler flame graph data");
done:
	if (rc == 0 && !p->cur.started)
		rc = fg_error_set(err, FG_EINVALID, fg_input_name(in), "the flame graph has no frames");
	if (rc == 0)
		rc = flush(p, p->cur.nbatch);
	if (rc == 0)
		rc = fn(ctx, NULL, 0, err);
	free(p->cpool);
	free(p->prev);
	free(p->cur.levels);
	free(p);
	return rc;
}
