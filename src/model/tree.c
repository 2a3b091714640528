#include "model/tree.h"

#include <stdlib.h>
#include <string.h>

#include "base/hashtab.h"

/* Children are found by a scan of the sibling list while a node has few of
 * them (the common case, and the siblings sit close in memory), through a
 * hash index once it has more: the index then holds only the children of
 * wide nodes.  The key lives in the slot, so a probe touches the table only. */
#define SCAN_CHILDREN 12

struct slot {
	uint32_t parent;
	uint32_t name;
	uint32_t node;    /* node id + 1 (0 = empty), bit 31: kernel frame */
};

#define SLOT_KERNEL 0x80000000u

struct fg_tree {
	fg_tree_node *nodes;
	uint32_t count, capacity;
	fg_hashtab slots;  /* of struct slot */
	uint32_t *path;   /* node ids by depth, for DFS streams */
	uint32_t path_len, path_cap;
};

static bool is_kernel(uint8_t type)
{
	return type == FG_FRAME_KERNEL;
}

static uint32_t slot_hash(uint32_t parent, uint32_t name, bool kernel)
{
	/* murmur3's finaliser: a plain multiplicative hash of (parent, name)
	 * keeps their linear structure and clusters badly under linear probing. */
	uint64_t h = ((uint64_t)parent << 32 | name) ^ (kernel ? UINT64_C(0x5bd1e9955bd1e995) : 0);
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return (uint32_t)h;
}

int fg_tree_new(fg_tree **out, uint32_t root_name, fg_error *err)
{
	fg_tree *t = calloc(1, sizeof(*t));
	if (!t)
		return fg_error_oom(err, NULL);
	t->capacity = 1024;
	t->nodes = malloc(t->capacity * sizeof(*t->nodes));
	t->path_cap = 64;
	t->path = malloc(t->path_cap * sizeof(*t->path));
	if (!t->nodes || !t->path || fg_hashtab_init(&t->slots, sizeof(struct slot), 2048, NULL)) {
		fg_tree_free(t);
		return fg_error_oom(err, NULL);
	}
	t->nodes[0] = (fg_tree_node){ .name = root_name, .type = FG_FRAME_NATIVE, .parent = FG_TREE_NONE,
				      .first_child = FG_TREE_NONE, .next_sibling = FG_TREE_NONE };
	t->count = 1;
	*out = t;
	return 0;
}

void fg_tree_free(fg_tree *tree)
{
	if (!tree)
		return;
	free(tree->nodes);
	fg_hashtab_free(&tree->slots);
	free(tree->path);
	free(tree);
}

uint32_t fg_tree_size(const fg_tree *tree)
{
	return tree->count;
}

const fg_tree_node *fg_tree_node_at(const fg_tree *tree, uint32_t id)
{
	return &tree->nodes[id];
}

struct key {
	uint32_t parent, name, kernel;  /* kernel: SLOT_KERNEL or 0 */
};

static inline bool stop(const void *slot, const void *key)
{
	const struct slot *s = slot;
	const struct key *k = key;
	return s->node == 0 || (s->parent == k->parent && s->name == k->name && (s->node & SLOT_KERNEL) == k->kernel);
}

static inline bool stored_hash(uint64_t *hash, const void *slot, const void *ctx)
{
	(void)ctx;
	const struct slot *s = slot;
	if (s->node)
		*hash = slot_hash(s->parent, s->name, s->node & SLOT_KERNEL);
	return s->node != 0;
}

/* The slot holding the key, or the empty slot where it belongs. */
static struct slot *find_slot(const fg_tree *t, uint32_t parent, uint32_t name, bool kernel)
{
	struct key k = { parent, name, kernel ? SLOT_KERNEL : 0 };
	return fg_hashtab_probe(&t->slots, sizeof(struct slot), slot_hash(parent, name, kernel), stop, &k);
}

uint32_t fg_tree_find_child(const fg_tree *t, uint32_t parent, uint32_t name, uint8_t type)
{
	bool k = is_kernel(type);
	if (t->nodes[parent].nchildren <= SCAN_CHILDREN) {
		for (uint32_t c = t->nodes[parent].first_child; c != FG_TREE_NONE; c = t->nodes[c].next_sibling)
			if (t->nodes[c].name == name && is_kernel(t->nodes[c].type) == k)
				return c;
		return FG_TREE_NONE;
	}
	const struct slot *s = find_slot(t, parent, name, k);
	return s->node ? (s->node & ~SLOT_KERNEL) - 1 : FG_TREE_NONE;
}

void fg_tree_set_type(fg_tree *t, uint32_t id, uint8_t type)
{
	if (id < t->count && is_kernel(t->nodes[id].type) == is_kernel(type))
		t->nodes[id].type = type;
}

static int index_child(fg_tree *t, uint32_t id, fg_error *err)
{
	int rc = fg_hashtab_reserve(&t->slots, sizeof(struct slot), stored_hash, NULL, err);
	if (rc < 0)
		return rc;
	const fg_tree_node *n = &t->nodes[id];
	*find_slot(t, n->parent, n->name, is_kernel(n->type)) =
		(struct slot){ n->parent, n->name, (id + 1) | (is_kernel(n->type) ? SLOT_KERNEL : 0) };
	t->slots.count++;
	return 0;
}

/* Finds or adds the child and adds count to its total. */
static int add_child(uint32_t *out, fg_tree *t, uint32_t parent, uint32_t name, uint8_t type,
		     uint64_t count, fg_error *err)
{
	uint32_t id = fg_tree_find_child(t, parent, name, type);
	if (id == FG_TREE_NONE) {
		if (t->count >= SLOT_KERNEL - 1)
			return fg_error_set(err, FG_EINVALID, NULL, "too many frames for one tree");
		if (t->count == t->capacity) {
			uint32_t cap = t->capacity * 2;
			fg_tree_node *nodes = realloc(t->nodes, (size_t)cap * sizeof(*nodes));
			if (!nodes)
				return fg_error_oom(err, NULL);
			t->nodes = nodes;
			t->capacity = cap;
		}
		id = t->count++;
		fg_tree_node *p = &t->nodes[parent];
		t->nodes[id] = (fg_tree_node){ .name = name, .type = type, .parent = parent,
					       .first_child = FG_TREE_NONE, .next_sibling = p->first_child,
					       .depth = p->depth + 1 };
		p->first_child = id;
		/* Past the scan limit, index the node's children (all of them once). */
		int rc = 0;
		if (++p->nchildren == SCAN_CHILDREN + 1) {
			for (uint32_t c = p->first_child; c != FG_TREE_NONE && !rc; c = t->nodes[c].next_sibling)
				rc = index_child(t, c, err);
		} else if (p->nchildren > SCAN_CHILDREN) {
			rc = index_child(t, id, err);
		}
		if (rc)
			return rc;
	}
	fg_tree_node *n = &t->nodes[id];
	if (n->total > UINT64_MAX - count)
		return fg_error_set(err, FG_EINVALID, NULL, "sample counts overflow 64 bits");
	n->total += count;
	*out = id;
	return 0;
}

static int add_root(fg_tree *t, uint64_t count, fg_error *err)
{
	if (t->nodes[0].total > UINT64_MAX - count)
		return fg_error_set(err, FG_EINVALID, NULL, "sample counts overflow 64 bits");
	t->nodes[0].total += count;
	return 0;
}

static int add_frame(fg_tree *t, const fg_frame *f, fg_error *err)
{
	uint32_t node = 0;
	if (f->depth == 0) {
		int rc = add_root(t, f->total, err);
		if (rc)
			return rc;
	} else {
		if (f->depth > t->path_len)
			return fg_error_set(err, FG_EINTERNAL, NULL, "frame stream skips a level");
		int rc = add_child(&node, t, t->path[f->depth - 1], f->name, f->type, f->total, err);
		if (rc)
			return rc;
	}
	if (f->depth >= t->path_cap) {
		uint32_t cap = t->path_cap * 2;
		uint32_t *p = realloc(t->path, (size_t)cap * sizeof(*p));
		if (!p)
			return fg_error_oom(err, NULL);
		t->path = p;
		t->path_cap = cap;
	}
	t->path[f->depth] = node;
	t->path_len = f->depth + 1;
	return 0;
}

int fg_tree_add_frames(void *ctx, const fg_frame *frames, size_t n, fg_error *err)
{
	fg_tree *t = ctx;
	if (!frames)
		return fg_tree_finish(t, err);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		rc = add_frame(t, &frames[i], err);
	return rc;
}

int fg_tree_add_mapped_frames(fg_tree *tree, const fg_frame *frames, size_t n, fg_name_map_fn map, void *map_ctx,
			      fg_error *err)
{
	if (!frames)
		return fg_tree_add_frames(tree, NULL, 0, err);
	fg_frame mapped[FG_FRAME_BATCH];
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i += FG_FRAME_BATCH) {
		size_t k = n - i < FG_FRAME_BATCH ? n - i : FG_FRAME_BATCH;
		for (size_t j = 0; j < k && !rc; j++) {
			mapped[j] = frames[i + j];
			if (mapped[j].depth > 0)
				rc = map(map_ctx, mapped[j].name, &mapped[j].name, err);
		}
		if (!rc)
			rc = fg_tree_add_frames(tree, mapped, k, err);
	}
	return rc;
}

int fg_tree_add_stack(fg_tree *t, const uint32_t *names, const uint8_t *types, size_t n,
		      uint64_t count, fg_error *err)
{
	int rc = add_root(t, count, err);
	uint32_t node = 0;
	for (size_t i = 0; i < n && !rc; i++)
		rc = add_child(&node, t, node, names[i], types[i], count, err);
	return rc;
}

int fg_tree_merge(fg_tree *t, const fg_tree *from, const uint32_t *names, fg_error *err)
{
	/* A node's parent was made before it: at[] is filled in id order. */
	uint32_t *at = malloc((size_t)from->count * sizeof(*at));
	if (!at)
		return fg_error_oom(err, NULL);
	at[0] = 0;
	int rc = add_root(t, from->nodes[0].total, err);
	for (uint32_t i = 1; i < from->count && !rc; i++) {
		const fg_tree_node *n = &from->nodes[i];
		rc = add_child(&at[i], t, at[n->parent], names[n->name], n->type, n->total, err);
	}
	free(at);
	return rc;
}

int fg_tree_rename(fg_tree *t, const uint32_t *names, fg_error *err)
{
	for (uint32_t i = 0; i < t->count; i++)
		t->nodes[i].name = names[t->nodes[i].name];
	/* The index is keyed by name: made again, of the same children. */
	fg_hashtab_clear(&t->slots, sizeof(struct slot));
	for (uint32_t i = 1; i < t->count; i++) {
		int rc = t->nodes[t->nodes[i].parent].nchildren > SCAN_CHILDREN ? index_child(t, i, err) : 0;
		if (rc)
			return rc;
	}
	return 0;
}

bool fg_tree_is_empty(const fg_tree *t)
{
	return t->count == 1 && t->nodes[0].total == 0;
}

int fg_tree_finish(fg_tree *t, fg_error *err)
{
	for (uint32_t i = 0; i < t->count; i++)
		t->nodes[i].self = t->nodes[i].total;
	for (uint32_t i = 1; i < t->count; i++) {
		fg_tree_node *p = &t->nodes[t->nodes[i].parent];
		if (p->self < t->nodes[i].total)
			return fg_error_set(err, FG_EINVALID, NULL, "children outweigh their parent frame");
		p->self -= t->nodes[i].total;
	}
	return 0;
}

struct order {
	uint64_t key; /* name rank << 1 | kernel, so siblings sort by name bytes */
	uint32_t node;
};

static int compare_order_desc(const void *a, const void *b)
{
	const struct order *x = a, *y = b;
	return x->key < y->key ? 1 : x->key > y->key ? -1 : 0;
}

int fg_tree_walk(const fg_tree *t, const fg_names *names, fg_tree_walk_fn fn, void *ctx, fg_error *err)
{
	/* Rank every name once, so sibling order is an integer comparison. */
	uint32_t *rank = NULL;
	struct order *stack = malloc((size_t)t->count * sizeof(*stack));
	int rc = stack ? fg_names_rank(&rank, names, err) : fg_error_oom(err, NULL);
	if (rc)
		goto out;

	/* Iterative DFS: pop a node, visit it, push its children in reverse
	 * order.  Each node is pushed once, so the stack never exceeds count. */
	size_t top = 0;
	stack[top++] = (struct order){ 0, 0 };
	while (top > 0 && !rc) {
		uint32_t id = stack[--top].node;
		rc = fn(ctx, id, err);
		size_t first = top;
		for (uint32_t c = t->nodes[id].first_child; c != FG_TREE_NONE; c = t->nodes[c].next_sibling)
			stack[top++] = (struct order){ (uint64_t)rank[t->nodes[c].name] << 1 | is_kernel(t->nodes[c].type), c };
		qsort(stack + first, top - first, sizeof(*stack), compare_order_desc);
	}
out:
	free(rank);
	free(stack);
	return rc;
}

struct visit {
	const fg_tree *tree;
	fg_frames_fn fn;
	void *ctx;
	fg_frame batch[FG_FRAME_BATCH];
	size_t n;
};

static int visit_node(void *ctx, uint32_t id, fg_error *err)
{
	struct visit *v = ctx;
	const fg_tree_node *n = &v->tree->nodes[id];
	v->batch[v->n++] = (fg_frame){ .depth = n->depth, .name = n->name, .type = n->type, .total = n->total };
	if (v->n < FG_FRAME_BATCH)
		return 0;
	v->n = 0;
	return v->fn(v->ctx, v->batch, FG_FRAME_BATCH, err);
}

int fg_tree_visit(const fg_tree *t, const fg_names *names, fg_frames_fn fn, void *ctx, fg_error *err)
{
	struct visit *v = malloc(sizeof(*v));
	if (!v)
		return fg_error_oom(err, NULL);
	v->tree = t;
	v->fn = fn;
	v->ctx = ctx;
	v->n = 0;
	int rc = fg_tree_walk(t, names, visit_node, v, err);
	if (!rc && v->n)
		rc = fn(ctx, v->batch, v->n, err);
	free(v);
	return rc ? rc : fn(ctx, NULL, 0, err);
}
