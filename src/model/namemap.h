/* fgbisect — name id -> normalised name id.
 *
 * Normalised names are interned in the same table as the raw ones, so two
 * frames of different runs compare as two integers.  Each raw name is
 * normalised once. */
#ifndef FG_NAMEMAP_H
#define FG_NAMEMAP_H

#include "model/names.h"

/* Cost: one normalisation per distinct name (cached by id), then O(1) per
 * lookup.  Not thread-safe (the cache grows on lookup). */
typedef struct fg_namemap fg_namemap;

int fg_namemap_new(fg_namemap **out, fg_names *names, fg_error *err);
void fg_namemap_free(fg_namemap *map);

/* Normal forms by name bytes, for the maps one thread makes one after
 * another over interners of their own (a profile each: diff's parts): a name
 * is then normalised once per thread, not once per profile.  The map interns
 * the same names in the same order with or without it.  Cost: the distinct
 * names and their normal forms, once more.  Not thread-safe. */
typedef struct fg_namemap_cache fg_namemap_cache;

int fg_namemap_cache_new(fg_namemap_cache **out, fg_error *err);
void fg_namemap_cache_free(fg_namemap_cache *cache);

/* A map that takes normal forms from cache, adding those it computes; cache
 * (NULL: none) must outlive the map. */
int fg_namemap_new_cached(fg_namemap **out, fg_names *names, fg_namemap_cache *cache, fg_error *err);

/* The id of name's normalised form (ctx = the fg_namemap; fits
 * fg_name_map_fn). */
int fg_namemap_get(void *map, uint32_t name, uint32_t *normalised, fg_error *err);

#endif
