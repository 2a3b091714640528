#include "git/history_internal.h"

/* ---- tree cache: see TCACHE_SLOTS in history_internal.h ------------------- */

void fg_history_tcache_clear(fg_history *h)
{
	for (size_t i = 0; i < TCACHE_SLOTS; i++)
		if (h->tcache[i].tree)
			fg_history_tree_unload(&h->tcache[i]);
	h->tcache_used = 0;
}

int fg_history_tree_get(const fg_rawtree **out, fg_history *h, const git_oid *idp, fg_error *err)
{
	/* idp often points into a cached tree's entry, which a clear frees. */
	git_oid idcopy = *idp;
	const git_oid *id = &idcopy;
	size_t mask = TCACHE_SLOTS - 1;
	size_t i = (size_t)oid_hash(id) & mask;
	while (h->tcache[i].tree) {
		if (git_oid_equal(&h->tcache[i].id, id)) {
			*out = h->tcache[i].tree;
			return 0;
		}
		i = (i + 1) & mask;
	}
	if (h->tcache_used >= TCACHE_SLOTS * 3 / 4) {
		fg_history_tcache_clear(h);
		i = (size_t)oid_hash(id) & mask;
	}
	tcache_slot t;
	int rc = fg_history_tree_load(&t, h, id, err);
	if (rc < 0)
		return rc;
	h->tcache[i] = t;
	h->tcache_used++;
	*out = t.tree;
	return 0;
}

int fg_history_tree_load(tcache_slot *out, fg_history *h, const git_oid *id, fg_error *err)
{
	memset(out, 0, sizeof(*out));
	char hex[41];
	/* The packs read directly first (src/git/pack.h); libgit2 reads (or
	 * reports) what they cannot give. */
	const unsigned char *bytes;
	size_t len;
	fg_pack_object *pobj = NULL;
	git_odb_object *obj = NULL;
	if (h->pack && fg_pack_read(&pobj, h->pack, id->id) && fg_pack_object_type(pobj) == FG_PACK_TREE) {
		bytes = fg_pack_object_data(pobj);
		len = fg_pack_object_size(pobj);
	} else {
		fg_pack_object_free(pobj);
		pobj = NULL;
		if (git_odb_read(&obj, h->odb, id) < 0)
			return fg_history_git_fail(err, git_oid_tostr(hex, sizeof(hex), id), "cannot read tree");
		if (git_odb_object_type(obj) != GIT_OBJECT_TREE) {
			int rc = fg_error_set(err, FG_EGIT, git_oid_tostr(hex, sizeof(hex), id),
					      "cannot read tree: a %s, not a tree",
					      git_object_type2string(git_odb_object_type(obj)));
			git_odb_object_free(obj);
			return rc;
		}
		bytes = git_odb_object_data(obj);
		len = git_odb_object_size(obj);
	}
	fg_rawtree *t;
	int rc = fg_rawtree_parse(&t, bytes, len, err);
	if (rc < 0) {
		if (rc == FG_EGIT && err)
			git_oid_tostr(err->source, sizeof(err->source), id); /* only now: costly for every tree read */
		fg_pack_object_free(pobj);
		git_odb_object_free(obj);
		return rc;
	}
	*out = (tcache_slot){ .id = *id, .pobj = pobj, .obj = obj, .tree = t };
	return 0;
}

void fg_history_tree_unload(tcache_slot *t)
{
	fg_rawtree_free(t->tree);
	fg_pack_object_free(t->pobj);
	git_odb_object_free(t->obj);
	memset(t, 0, sizeof(*t));
}
