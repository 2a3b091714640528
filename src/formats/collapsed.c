#include "formats/collapsed.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/idarray.h"
#include "formats/stackbuf.h"

static const char *const suffixes[FG_FRAME_TYPE_COUNT] = {
	[FG_FRAME_INTERPRETED] = "_[0]", [FG_FRAME_JIT] = "_[j]", [FG_FRAME_INLINED] = "_[i]",
	[FG_FRAME_NATIVE] = "", [FG_FRAME_CPP] = "", [FG_FRAME_KERNEL] = "_[k]", [FG_FRAME_C1] = "_[1]",
};

const char *fg_frame_type_suffix(enum fg_frame_type type)
{
	return type < FG_FRAME_TYPE_COUNT ? suffixes[type] : "";
}

/* Whether s[0..len) holds what: memchr to each candidate first byte (a
 * byte loop was a quarter of reading a collapsed file). */
static bool contains(const char *s, size_t len, const char *what)
{
	size_t n = strlen(what);
	const char *end = s + len;
	for (const char *p = s; n <= (size_t)(end - p) && (p = memchr(p, what[0], (size_t)(end - p) - n + 1)); p++)
		if (!memcmp(p, what, n))
			return true;
	return false;
}

size_t fg_collapsed_frame_type(const char *name, size_t len, uint8_t *type)
{
	if (len > 4 && name[len - 4] == '_' && name[len - 3] == '[' && name[len - 1] == ']') {
		switch (name[len - 2]) {
		case 'j': *type = FG_FRAME_JIT; return len - 4;
		case 'i': *type = FG_FRAME_INLINED; return len - 4;
		case 'k': *type = FG_FRAME_KERNEL; return len - 4;
		case '0': *type = FG_FRAME_INTERPRETED; return len - 4;
		case '1': *type = FG_FRAME_C1; return len - 4;
		default: break;
		}
	}
	/* async-profiler's converter guesses the same way (FlameGraph.detectType). */
	if (contains(name, len, "::") || (len > 1 && (name[0] == '-' || name[0] == '+') && name[1] == '['))
		*type = FG_FRAME_CPP;
	else if ((len > 0 && name[0] != '[' && memchr(name + 1, '/', len - 1)) ||
		 (len > 0 && name[0] >= 'A' && name[0] <= 'Z' && memchr(name, '.', len)))
		*type = FG_FRAME_JIT;
	else
		*type = FG_FRAME_NATIVE;
	return len;
}

static int bad_line(fg_input *in, fg_error *err, const char *what)
{
	return fg_error_set(err, FG_EINVALID, fg_input_name(in), "line %llu: %s",
			    (unsigned long long)fg_input_line_number(in), what);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The count that ends s[0..*len): the digits after the last blank, with
 * something before the blank.  Moves *len to that blank; false when there
 * is no such count. */
static bool last_count(const char *s, size_t *len)
{
	const char *e = s + *len, *d = e;
	while (d > s && d[-1] >= '0' && d[-1] <= '9')
		d--;
	if (d == e || d - s < 2 || !is_blank(d[-1]))
		return false;
	*len = (size_t)(d - 1 - s);
	return true;
}

/* The decimal digits s[0..len) as a number; false when it overflows. */
static bool parse_count(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

/* The previous line's stack text and where each of its frames ends (the
 * offset of its ';', or the text's length for the leaf).  A frame this line
 * shares with it, byte for byte up to and including the ';' after it, has
 * the same name and type, which the stack buffer still holds: only the
 * frames after the shared ones are typed and interned.  Sorted collapsed
 * files (every converter writes them so) share most of a line with the one
 * before. */
struct prev_line {
	char *text;
	size_t len, cap;
	size_t *ends;
	size_t nframes, ends_cap;
};

/* The number of leading frames of prev that s[0..len) shares. */
static size_t shared_frames(const struct prev_line *p, const char *s, size_t len)
{
	size_t m = len < p->len ? len : p->len, i = 0;
	while (i < m && s[i] == p->text[i])
		i++;
	size_t k = 0;
	/* A frame ending before the first difference is shared; one ending at
	 * it only when both texts end there, or this line's next byte is the
	 * ';' prev's end stood for, or this line ends where prev has its ';'. */
	while (k < p->nframes && (p->ends[k] < i ||
				  (p->ends[k] == i && (i == p->len ? i == len || s[i] == ';' : i == len))))
		k++;
	return k;
}

static int prev_reserve(struct prev_line *p, size_t len, size_t nframes, fg_error *err)
{
	if (len > p->cap) {
		char *t = realloc(p->text, len);
		if (!t)
			return fg_error_oom(err, NULL);
		p->text = t;
		p->cap = len;
	}
	if (nframes > p->ends_cap) {
		size_t cap = nframes * 2;
		size_t *e = realloc(p->ends, cap * sizeof(*e));
		if (!e)
			return fg_error_oom(err, NULL);
		p->ends = e;
		p->ends_cap = cap;
	}
	return 0;
}

int fg_collapsed_read(fg_profile_info *info, fg_input *in, fg_names *names, const fg_read_options *opts,
		      fg_stack_fn fn, void *ctx, fg_error *err)
{
	fg_stackbuf b = { 0 };
	struct prev_line prev = { 0 };
	char *line;
	size_t len;
	int rc;
	bool reversed = opts && opts->reversed, base_column = opts && opts->base_column;
	unsigned columns = 0; /* counts a line: 1, or 2 (stack BASE CURRENT); 0 before the first line */
	info->format = FG_FORMAT_COLLAPSED;
	fg_stackbuf_limit(&b, opts, fg_input_name(in));
	if ((rc = fg_stackbuf_init(&b, names, err)) != 0)
		goto out;
	while ((rc = fg_input_line(&line, &len, in, err)) > 0) {
		/* As FlameGraph's scripts (`\s+(\d+)\s*$`): blanks after the count
		 * are dropped, and a tab may separate it from the stack. */
		while (len > 0 && is_blank(line[len - 1]))
			len--;
		if (len == 0)
			continue;
		/* The count is the digits after the last blank: names may hold
		 * spaces (and digits). */
		size_t stack = len;
		if (!last_count(line, &stack)) {
			rc = bad_line(in, err, "not a collapsed stack (expected 'frame;frame;... COUNT')");
			break;
		}
		/* async-profiler's --diff and difffolded.pl write two counts,
		 * 'stack BASE CURRENT': a number after a blank at the end of the
		 * stack is a count, never glued onto the leaf's name.  A file
		 * holds one kind of line. */
		size_t cur = stack + 1, base = stack;
		unsigned counts = last_count(line, &base) ? 2 : 1;
		if (columns == 0)
			columns = counts;
		if (counts != columns) {
			rc = bad_line(in, err, columns == 2 ? "one count after lines of two (stack BASE CURRENT): "
							      "the file mixes one- and two-count lines"
							    : "two counts (stack BASE CURRENT) after lines of one: "
							      "the file mixes one- and two-count lines");
			break;
		}
		if (columns == 1 && base_column) {
			rc = fg_error_set(err, FG_EUSAGE, fg_input_name(in),
					  "line %llu: --base-column reads the first of two counts a line (stack BASE "
					  "CURRENT), and this file has one",
					  (unsigned long long)fg_input_line_number(in));
			break;
		}
		uint64_t current, first = 0;
		if (!parse_count(line + cur, len - cur, &current) ||
		    (counts == 2 && !parse_count(line + base + 1, stack - base - 1, &first))) {
			rc = bad_line(in, err, "sample count overflows 64 bits");
			break;
		}
		uint64_t count = base_column ? first : current;
		if (counts == 2)
			stack = base;
		if (b.total > UINT64_MAX - count) {
			rc = bad_line(in, err, "sample counts overflow 64 bits");
			break;
		}
		char *sp = line + stack;
		/* Reversed stacks are turned round in the buffer: nothing to reuse. */
		size_t shared = reversed ? 0 : shared_frames(&prev, line, stack);
		size_t n = 1 + shared; /* names[0] is the root */
		for (char *f = shared ? line + prev.ends[shared - 1] + 1 : line; f <= sp; n++) {
			char *e = memchr(f, ';', (size_t)(sp - f));
			if (!e)
				e = sp;
			if (e == f) {
				rc = bad_line(in, err, "empty frame name");
				goto out;
			}
			if ((rc = fg_stackbuf_reserve(&b, n + 1, err)) != 0 ||
			    (!reversed && (rc = prev_reserve(&prev, stack, n, err)) != 0))
				goto out;
			size_t nl = fg_collapsed_frame_type(f, (size_t)(e - f), &b.types[n]);
			if ((rc = fg_names_intern(&b.names[n], names, f, nl, err)) != 0)
				goto out;
			if (!reversed)
				prev.ends[n - 1] = (size_t)(e - line);
			f = e + 1;
		}
		b.len = n;
		if (reversed) {
			fg_stackbuf_reverse(&b, 1);
		} else {
			if ((rc = prev_reserve(&prev, stack, n - 1, err)) != 0)
				goto out;
			memcpy(prev.text, line, stack);
			prev.len = stack;
			prev.nframes = n - 1;
		}
		if ((rc = fg_stackbuf_emit(&b, count, fn, ctx, err)) != 0) {
			/* The message is formatted into the record it comes from:
			 * copy it first (snprintf's source and target must not overlap). */
			char why[sizeof(err->message)];
			snprintf(why, sizeof(why), "%s", err->message);
			fg_error_set(err, rc, fg_input_name(in), "line %llu: %s",
				     (unsigned long long)fg_input_line_number(in), why);
			break;
		}
	}
	if (rc == 0 && b.stacks == 0)
		rc = fg_error_set(err, FG_EINVALID, fg_input_name(in), "no stacks: an empty profile");
	/* Lines of 0 samples only: as an HTML graph of width 0, no profile (every
	 * share would be 0/0). */
	else if (rc == 0 && b.total == 0)
		rc = fg_error_set(err, FG_EINVALID, fg_input_name(in), "no samples: every stack counts 0%s",
				  columns == 2 ? (base_column ? " in the BASE column" : " in the CURRENT column") : "");
	info->differential = columns == 2;
	info->missing_final_newline = fg_input_missing_final_newline(in);
	info->total = b.total;
	info->frames = b.stacks;
out:
	free(prev.text);
	free(prev.ends);
	fg_stackbuf_free(&b);
	return rc < 0 ? rc : 0;
}

/* The current stack as text: frame names joined by ';', ends[d] the length
 * after the frame at depth d (the root, depth 0, is not written). */
struct line {
	char *buf;
	size_t cap;
	size_t *ends;
	size_t ends_cap;
	bool annotate;
};

/* Puts a frame at depth (>= 1) after the frames above it. */
static int line_set(struct line *l, uint32_t depth, const fg_names *names, uint32_t name, uint8_t type,
		    fg_error *err)
{
	if (depth >= l->ends_cap) {
		size_t cap = l->ends_cap ? l->ends_cap * 2 : 256;
		while (cap <= depth)
			cap *= 2;
		size_t *e = realloc(l->ends, cap * sizeof(*e));
		if (!e)
			return fg_error_oom(err, NULL);
		l->ends = e;
		l->ends_cap = cap;
	}
	size_t start = depth == 1 ? 0 : l->ends[depth - 1];
	const char *suffix = l->annotate || type == FG_FRAME_KERNEL ? fg_frame_type_suffix(type) : "";
	size_t nl = fg_names_length(names, name), sl = strlen(suffix);
	size_t need = start + 1 + nl + sl + 24;
	if (need > l->cap) {
		size_t cap = need * 2;
		char *b = realloc(l->buf, cap);
		if (!b)
			return fg_error_oom(err, NULL);
		l->buf = b;
		l->cap = cap;
	}
	char *p = l->buf + start;
	if (depth > 1)
		*p++ = ';';
	memcpy(p, fg_names_get(names, name), nl);
	memcpy(p + nl, suffix, sl);
	l->ends[depth] = (size_t)(p + nl + sl - l->buf);
	return 0;
}

/* Writes the stack down to depth with its count. */
static int line_write(FILE *out, struct line *l, uint32_t depth, uint64_t count, fg_error *err)
{
	size_t len = l->ends[depth];
	len += (size_t)snprintf(l->buf + len, 24, " %llu\n", (unsigned long long)count);
	if (fwrite(l->buf, 1, len, out) != len)
		return fg_error_set(err, FG_EOUTPUT, NULL, "cannot write the output: %s", strerror(errno));
	return 0;
}

struct writer {
	FILE *out;
	const fg_tree *tree;
	const fg_names *names;
	struct line line;
};

static int write_node(void *ctx, uint32_t id, fg_error *err)
{
	struct writer *w = ctx;
	const fg_tree_node *n = fg_tree_node_at(w->tree, id);
	if (n->depth == 0)
		return 0;
	int rc = line_set(&w->line, n->depth, w->names, n->name, n->type, err);
	if (!rc && n->self > 0)
		rc = line_write(w->out, &w->line, n->depth, n->self, err);
	return rc;
}

int fg_collapsed_write(FILE *out, const fg_tree *tree, const fg_names *names,
		       const fg_collapsed_write_options *opts, fg_error *err)
{
	struct writer w = { .out = out, .tree = tree, .names = names, .line.annotate = opts && opts->annotate };
	int rc = fg_tree_walk(tree, names, write_node, &w, err);
	free(w.line.buf);
	free(w.line.ends);
	return rc;
}

struct fg_collapsed_sorter {
	fg_name_map_fn map;
	void *map_ctx;
	/* By frame, in stream order: a frame's subtree is the frames after it
	 * up to end (exclusive), its children the first of them and each end
	 * from there. */
	uint32_t *name, *end;
	uint8_t *type;
	uint64_t *total;
	uint32_t count, cap;
	uint32_t *open;          /* the open frames by depth */
	uint32_t nopen, open_cap;
	uint64_t roots, below;   /* the counts at depth 0 and at depth 1 */
};

int fg_collapsed_sorter_new(fg_collapsed_sorter **out, fg_name_map_fn map, void *map_ctx, fg_error *err)
{
	fg_collapsed_sorter *s = calloc(1, sizeof(*s));
	if (!s)
		return fg_error_oom(err, NULL);
	s->map = map;
	s->map_ctx = map_ctx;
	*out = s;
	return 0;
}

void fg_collapsed_sorter_free(fg_collapsed_sorter *s)
{
	if (!s)
		return;
	free(s->name);
	free(s->end);
	free(s->type);
	free(s->total);
	free(s->open);
	free(s);
}

static int sorter_grow(fg_collapsed_sorter *s, fg_error *err)
{
	if (s->count >= UINT32_MAX - 1)
		return fg_error_set(err, FG_EINVALID, NULL, "too many frames for one tree");
	uint32_t cap = s->cap ? (s->cap > UINT32_MAX / 2 ? UINT32_MAX : s->cap * 2) : 4096;
	void *a[4] = { s->name, s->end, s->type, s->total };
	size_t width[4] = { 4, 4, 1, 8 };
	for (int k = 0; k < 4; k++) {
		void *grown = realloc(a[k], (size_t)cap * width[k]);
		if (!grown)
			return fg_error_oom(err, NULL);
		a[k] = grown;
		/* Stored at once, so that a later failure leaves nothing dangling. */
		s->name = a[0], s->end = a[1], s->type = a[2], s->total = a[3];
	}
	s->cap = cap;
	return 0;
}

int fg_collapsed_sorter_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	fg_collapsed_sorter *s = ctx;
	for (const fg_frame *f = frames; f && f < frames + n; f++) {
		if (f->depth > s->nopen)
			return fg_error_set(err, FG_EINTERNAL, NULL, "frame stream skips a level");
		while (s->nopen > f->depth)
			s->end[s->open[--s->nopen]] = s->count;
		int rc = s->count == s->cap ? sorter_grow(s, err) : 0;
		if (!rc && s->nopen == s->open_cap) {
			uint32_t cap = s->open_cap ? s->open_cap * 2 : 256;
			uint32_t *o = realloc(s->open, (size_t)cap * sizeof(*o));
			if (o)
				s->open = o, s->open_cap = cap;
			else
				rc = fg_error_oom(err, NULL);
		}
		uint32_t name = f->name;
		if (!rc && f->depth > 0 && s->map)
			rc = s->map(s->map_ctx, f->name, &name, err);
		uint64_t *sum = f->depth == 0 ? &s->roots : f->depth == 1 ? &s->below : NULL;
		if (!rc && sum && *sum > UINT64_MAX - f->total)
			rc = fg_error_set(err, FG_EINVALID, NULL, "sample counts overflow 64 bits");
		if (rc)
			return rc;
		if (sum)
			*sum += f->total;
		uint32_t i = s->count++;
		s->name[i] = name;
		s->type[i] = f->type;
		s->total[i] = f->total;
		s->open[s->nopen++] = i;
	}
	if (!frames)
		while (s->nopen > 0)
			s->end[s->open[--s->nopen]] = s->count;
	return 0;
}

uint64_t fg_collapsed_sorter_root_samples(const fg_collapsed_sorter *s)
{
	return s->roots > s->below ? s->roots - s->below : 0;
}

/* A frame as siblings are ordered: its name's rank, then kernel-ness (the
 * tree's key), then stream order (the first of merged siblings gives the
 * merged frame's type, as the tree keeps the first frame's). */
struct sibling {
	uint64_t key;
	uint32_t frame;
};

static int compare_siblings(const void *a, const void *b)
{
	const struct sibling *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/* The merged frames being written: the frames of each merged frame on the
 * current stack and of its merged siblings still to write, as runs of
 * sibling[] (one level a run). */
struct merge {
	struct sibling *at;
	size_t n, cap;
	struct level { size_t start, end, pos; } *levels;
	size_t nlevels, levels_cap;
};

/* Appends the children of the frames sibling[first..last) in sibling order
 * as a new level; *total and *children are the frames' counts and their
 * children's. */
static int merge_children(struct merge *m, const fg_collapsed_sorter *s, const uint32_t *rank, size_t first,
			  size_t last, uint64_t *total, uint64_t *children, fg_error *err)
{
	size_t start = m->n;
	*total = *children = 0;
	for (size_t k = first; k < last; k++) {
		uint32_t f = m->at[k].frame;
		if (*total > UINT64_MAX - s->total[f])
			return fg_error_set(err, FG_EINVALID, NULL, "sample counts overflow 64 bits");
		*total += s->total[f];
		for (uint32_t c = f + 1; c < s->end[f]; c = s->end[c]) {
			if (m->n == m->cap && !fg_array_reserve((void **)&m->at, &m->cap, m->n + 1, sizeof(*m->at)))
				return fg_error_oom(err, NULL);
			m->at[m->n++] = (struct sibling){ (uint64_t)rank[s->name[c]] << 1 | (s->type[c] == FG_FRAME_KERNEL), c };
			*children += s->total[c];
		}
	}
	if (*children > *total)
		return fg_error_set(err, FG_EINVALID, NULL, "children outweigh their parent frame");
	qsort(m->at + start, m->n - start, sizeof(*m->at), compare_siblings);
	if (m->nlevels == m->levels_cap &&
	    !fg_array_reserve((void **)&m->levels, &m->levels_cap, m->nlevels + 1, sizeof(*m->levels)))
		return fg_error_oom(err, NULL);
	m->levels[m->nlevels++] = (struct level){ start, m->n, start };
	return 0;
}

int fg_collapsed_sorter_write(FILE *out, const fg_collapsed_sorter *s, const fg_names *names,
			      const fg_collapsed_write_options *opts, fg_error *err)
{
	struct line line = { .annotate = opts && opts->annotate };
	struct merge m = { 0 };
	uint32_t *rank = NULL;
	int rc = fg_names_rank(&rank, names, err);
	/* The root: every frame at depth 0, merged. */
	for (uint32_t f = 0; !rc && f < s->count; f = s->end[f]) {
		if (!fg_array_reserve((void **)&m.at, &m.cap, m.n + 1, sizeof(*m.at)))
			rc = fg_error_oom(err, NULL);
		else
			m.at[m.n++] = (struct sibling){ 0, f };
	}
	uint64_t total, children;
	if (!rc)
		rc = merge_children(&m, s, rank, 0, m.n, &total, &children, err);
	while (!rc && m.nlevels > 0) {
		struct level *l = &m.levels[m.nlevels - 1];
		if (l->pos == l->end) {
			m.n = l->start;
			m.nlevels--;
			continue;
		}
		/* The next merged frame: the siblings of one key. */
		size_t first = l->pos, last = first + 1;
		while (last < l->end && m.at[last].key == m.at[first].key)
			last++;
		l->pos = last;
		uint32_t f = m.at[first].frame, depth = (uint32_t)m.nlevels;
		rc = line_set(&line, depth, names, s->name[f], s->type[f], err);
		if (!rc)
			rc = merge_children(&m, s, rank, first, last, &total, &children, err);
		if (!rc && total > children)
			rc = line_write(out, &line, depth, total - children, err);
	}
	free(rank);
	free(m.at);
	free(m.levels);
	free(line.buf);
	free(line.ends);
	return rc;
}

/* An open frame of the DFS stream: its total and its children's. */
struct open_frame {
	uint64_t total, children;
};

struct fg_collapsed_stream {
	FILE *out;
	const fg_names *names;
	struct line line;
	struct open_frame *open; /* by depth */
	uint32_t nopen, open_cap;
	uint64_t root_samples;   /* samples that stopped at the root: not written */
};

int fg_collapsed_stream_new(fg_collapsed_stream **out, FILE *f, const fg_names *names,
			    const fg_collapsed_write_options *opts, fg_error *err)
{
	fg_collapsed_stream *s = calloc(1, sizeof(*s));
	if (!s)
		return fg_error_oom(err, NULL);
	s->out = f;
	s->names = names;
	s->line.annotate = opts && opts->annotate;
	*out = s;
	return 0;
}

void fg_collapsed_stream_free(fg_collapsed_stream *s)
{
	if (!s)
		return;
	free(s->line.buf);
	free(s->line.ends);
	free(s->open);
	free(s);
}

/* Closes the frames at depth >= d: a frame's self samples are known when it
 * closes, and they are its stack's line. */
static int stream_close_to(fg_collapsed_stream *s, uint32_t d, fg_error *err)
{
	while (s->nopen > d) {
		const struct open_frame *o = &s->open[--s->nopen];
		uint64_t self = o->total - o->children;
		if (s->nopen == 0)
			s->root_samples += self;
		else if (self > 0) {
			int rc = line_write(s->out, &s->line, s->nopen, self, err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

uint64_t fg_collapsed_stream_root_samples(const fg_collapsed_stream *s)
{
	return s->root_samples;
}

int fg_collapsed_stream_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	fg_collapsed_stream *s = ctx;
	if (!frames)
		return stream_close_to(s, 0, err);
	for (const fg_frame *f = frames; f < frames + n; f++) {
		int rc = stream_close_to(s, f->depth, err);
		if (!rc && f->depth > s->nopen)
			rc = fg_error_set(err, FG_EINTERNAL, NULL, "frame stream skips a level");
		if (!rc && f->depth > 0) {
			s->open[f->depth - 1].children += f->total;
			rc = line_set(&s->line, f->depth, s->names, f->name, f->type, err);
		}
		if (!rc && s->nopen == s->open_cap) {
			uint32_t cap = s->open_cap ? s->open_cap * 2 : 256;
			struct open_frame *o = realloc(s->open, (size_t)cap * sizeof(*o));
			if (o) {
				s->open = o;
				s->open_cap = cap;
			} else {
				rc = fg_error_oom(err, NULL);
			}
		}
		if (rc)
			return rc;
		s->open[s->nopen++] = (struct open_frame){ f->total, 0 };
	}
	return 0;
}

int fg_collapsed_stream_stack(void *ctx, const fg_stack *st, fg_error *err)
{
	fg_collapsed_stream *s = ctx;
	if (st->depth == 0)
		s->root_samples += st->count;
	if (st->depth == 0 || st->count == 0)
		return 0;
	for (size_t i = 1; i <= st->depth; i++) {
		int rc = line_set(&s->line, (uint32_t)i, s->names, st->names[i], st->types[i], err);
		if (rc)
			return rc;
	}
	return line_write(s->out, &s->line, (uint32_t)st->depth, st->count, err);
}
