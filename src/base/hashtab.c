#include "base/hashtab.h"

#include <stdlib.h>

int fg_hashtab_init(fg_hashtab *t, size_t size, uint64_t capacity, fg_error *err)
{
	t->slots = fg_hashtab_alloc(capacity, size, err);
	if (!t->slots)
		return FG_ENOMEM;
	t->mask = (uint32_t)(capacity - 1);
	t->count = 0;
	return 0;
}

void *fg_hashtab_alloc(uint64_t capacity, size_t size, fg_error *err)
{
	if (capacity > (UINT64_C(1) << 31)) {
		fg_error_set(err, FG_ENOMEM, NULL, "out of memory (hash table full)");
		return NULL;
	}
	void *slots = calloc(capacity, size);
	if (!slots)
		fg_error_oom(err, NULL);
	return slots;
}

void fg_hashtab_clear(fg_hashtab *t, size_t size)
{
	if (t->slots)
		memset(t->slots, 0, (size_t)fg_hashtab_capacity(t) * size);
	t->count = 0;
}

void fg_hashtab_free(fg_hashtab *t)
{
	free(t->slots);
	*t = (fg_hashtab){ 0 };
}
