/* libFuzzer target: the volatile-name normaliser (src/model/normalize.h).  Every
 * name of the input (split at newlines and ';', as collapsed stacks hold
 * them) must normalise to the same bytes with and without the shortcut for
 * names no rule can change, never to a longer name, and a second pass must
 * change nothing (the rules are idempotent). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/normalize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *name, size_t len, char *a, char *b, char *c)
{
	size_t na = fg_normalize_name(a, name, len);
	size_t nb = fg_normalize_name_all_rules(b, name, len);
	if (na != nb || memcmp(a, b, na) || na > len || a[na] != '\0')
		abort();
	size_t nc = fg_normalize_name(c, a, na);
	if (nc != na || memcmp(c, a, na))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Names are NUL-free (the contract); each is copied to exactly its
	 * length so that ASan sees any read past it. */
	char *a = malloc(size + 1), *b = malloc(size + 1), *c = malloc(size + 1);
	if (!a || !b || !c)
		goto out;
	size_t start = 0;
	for (size_t i = 0; i <= size; i++) {
		if (i < size && data[i] != '\n' && data[i] != ';' && data[i] != '\0')
			continue;
		size_t len = i - start;
		char *name = malloc(len ? len : 1);
		if (!name)
			goto out;
		memcpy(name, data + start, len);
		check(name, len, a, b, c);
		free(name);
		start = i + 1;
	}
out:
	free(a);
	free(b);
	free(c);
	return 0;
}
