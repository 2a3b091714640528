/* The pack reader (src/git/pack.h): every object of packs git wrote — whole
 * objects and OFS_DELTA chains, one pack and two, offsets through the
 * index's 64-bit table — read byte for byte as libgit2 reads them; what it
 * must leave to libgit2 (REF_DELTA, loose objects, damaged or unknown
 * files) answered "not here", never with other bytes. */
#include <git2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "git/pack.h"
#include "io/textfile.h"

static char tmp[] = "/tmp/fg-test-pack-XXXXXX";
#include "git_test.h"

#define MAX_IDS 4096

static git_oid ids[MAX_IDS];
static size_t nids;

/* Every object of the repository r, as git lists them. */
static void list_objects(void)
{
	sh("cd r && git cat-file --batch-all-objects --batch-check='%%(objectname)' >../ids");
	char path[512];
	snprintf(path, sizeof(path), "%s/ids", tmp);
	FILE *f = fopen(path, "r");
	char line[64];
	nids = 0;
	while (f && nids < MAX_IDS && fgets(line, sizeof(line), f)) {
		line[40] = '\0';
		if (git_oid_fromstr(&ids[nids], line) == 0)
			nids++;
	}
	if (f)
		fclose(f);
}

/* A number the shell wrote into the file name. */
static size_t number(const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	FILE *f = fopen(path, "r");
	unsigned long long v = 0;
	if (!f || fscanf(f, "%llu", &v) != 1)
		v = (unsigned long long)-1;
	if (f)
		fclose(f);
	return (size_t)v;
}

static git_object_t git_type(fg_pack_type t)
{
	return t == FG_PACK_COMMIT ? GIT_OBJECT_COMMIT : t == FG_PACK_TREE ? GIT_OBJECT_TREE
	       : t == FG_PACK_BLOB ? GIT_OBJECT_BLOB : GIT_OBJECT_TAG;
}

/* fg_pack_read_commit_head of id, which libgit2 read as g: nothing for
 * another type; for a commit, when it gives bytes, g's first ones, through
 * the end of g's first committer line (the walk's headers), or all of g.
 * Returns whether it gave. */
static bool check_head(fg_pack *p, const git_oid *id, git_odb_object *g)
{
	const unsigned char *b;
	size_t n;
	bool given = fg_pack_read_commit_head(&b, &n, p, id->id);
	if (git_odb_object_type(g) != GIT_OBJECT_COMMIT) {
		CHECK(!given && !b && !n);
		return given;
	}
	if (!given)
		return false;
	const char *data = git_odb_object_data(g);
	size_t size = git_odb_object_size(g);
	const char *c = strstr(data, "\ncommitter ");
	const char *eol = c ? strchr(c + 1, '\n') : NULL;
	size_t need = eol ? (size_t)(eol + 1 - data) : size;
	CHECK(n <= size && !memcmp(b, data, n));
	CHECK(n >= need);
	return given;
}

/* Reads every listed object through p; each one it gives must be libgit2's
 * exactly, and a commit's head (check_head) is given too.  Returns how many
 * it gave. */
static size_t compare_all(fg_pack *p, git_odb *odb)
{
	size_t found = 0;
	for (int round = 0; round < 2; round++) { /* the second from the pack's cache */
		found = 0;
		for (size_t i = 0; i < nids; i++) {
			fg_pack_object *o;
			if (!fg_pack_read(&o, p, ids[i].id)) {
				CHECK(o == NULL);
				continue;
			}
			found++;
			git_odb_object *g;
			if (git_odb_read(&g, odb, &ids[i]) < 0) {
				CHECK(!"libgit2 reads it");
				fg_pack_object_free(o);
				continue;
			}
			CHECK(git_type(fg_pack_object_type(o)) == git_odb_object_type(g));
			CHECK_U64(fg_pack_object_size(o), git_odb_object_size(g));
			CHECK(fg_pack_object_size(o) == git_odb_object_size(g) &&
			      !memcmp(fg_pack_object_data(o), git_odb_object_data(g), git_odb_object_size(g)));
			CHECK(check_head(p, &ids[i], g) == (fg_pack_object_type(o) == FG_PACK_COMMIT));
			git_odb_object_free(g);
			fg_pack_object_free(o);
		}
	}
	return found;
}

static git_odb *open_odb(void)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/r/.git/objects", tmp);
	git_odb *odb = NULL;
	CHECK(git_odb_open(&odb, path) == 0);
	return odb;
}

static fg_pack *open_pack(void)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/r/.git/objects", tmp);
	fg_pack *p = NULL;
	CHECK(fg_pack_open(&p, path, NULL) == 0 && p);
	return p;
}

static unsigned char *slurp(size_t *len, const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	char *buf = NULL;
	if (fg_textfile_read(&buf, len, path, (size_t)64 << 20, "pack", FG_EINVALID, NULL) < 0)
		return NULL;
	return (unsigned char *)buf;
}

/* The one pack's index rewritten with every offset in the 64-bit table
 * (as an index of a pack over 2 GiB holds the far ones), the pack itself,
 * and damaged copies of both. */
static void test_buffers(git_odb *odb, size_t total)
{
	sh("cp r/.git/objects/pack/pack-*.idx one.idx && cp r/.git/objects/pack/pack-*.pack one.pack");
	size_t ilen, plen;
	unsigned char *idx = slurp(&ilen, "one.idx"), *pack = slurp(&plen, "one.pack");
	if (!idx || !pack) {
		CHECK(!"read the pack");
		free(idx);
		free(pack);
		return;
	}
	fg_pack *p;
	CHECK(fg_pack_from_buffers(&p, idx, ilen, pack, plen, NULL) == 0 && p);
	if (p) {
		CHECK_U64(compare_all(p, odb), total);
		fg_pack_free(p);
	}

	uint32_t n = be32(idx + 8 + 255 * 4);
	size_t off32 = 8 + 1024 + (size_t)n * 24, tail = off32 + (size_t)n * 4;
	size_t wlen = ilen + (size_t)n * 8;
	unsigned char *wide = malloc(wlen);
	if (wide) {
		memcpy(wide, idx, tail);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t v = be32(idx + off32 + (size_t)i * 4);
			put_be32(wide + off32 + (size_t)i * 4, 0x80000000u | i);
			put_be32(wide + tail + (size_t)i * 8, 0);
			put_be32(wide + tail + (size_t)i * 8 + 4, v);
		}
		memcpy(wide + tail + (size_t)n * 8, idx + tail, ilen - tail);
		CHECK(fg_pack_from_buffers(&p, wide, wlen, pack, plen, NULL) == 0 && p);
		if (p) {
			CHECK_U64(compare_all(p, odb), total);
			fg_pack_free(p);
		}
		/* A 64-bit table one entry short: the last object's offset
		 * is out of it. */
		put_be32(wide + off32 + (size_t)(n - 1) * 4, 0x80000000u | n);
		CHECK(fg_pack_from_buffers(&p, wide, wlen, pack, plen, NULL) == 0 && p);
		if (p) {
			CHECK_U64(compare_all(p, odb), total - 1);
			fg_pack_free(p);
		}
		free(wide);
	}

	/* Another index version, a pack that counts other objects, an index
	 * cut short: not used at all. */
	idx[7] = 3;
	CHECK(fg_pack_from_buffers(&p, idx, ilen, pack, plen, NULL) == 0 && !p);
	idx[7] = 2;
	pack[11] ^= 1;
	CHECK(fg_pack_from_buffers(&p, idx, ilen, pack, plen, NULL) == 0 && !p);
	pack[11] ^= 1;
	CHECK(fg_pack_from_buffers(&p, idx, ilen - 1, pack, plen, NULL) == 0 && !p);
	CHECK(fg_pack_from_buffers(&p, idx, ilen, pack, 31, NULL) == 0 && !p);

	/* The pack cut in half: not its index's pack (the index names the
	 * pack by its last 20 bytes).  Cut in half but for those: what lies
	 * beyond is not there, what it still gives is libgit2's (compare_all
	 * checks each). */
	CHECK(fg_pack_from_buffers(&p, idx, ilen, pack, plen / 2, NULL) == 0 && !p);
	unsigned char *half = malloc(plen / 2 + 20);
	CHECK(half != NULL);
	if (half) {
		memcpy(half, pack, plen / 2);
		memcpy(half + plen / 2, pack + plen - 20, 20);
		CHECK(fg_pack_from_buffers(&p, idx, ilen, half, plen / 2 + 20, NULL) == 0 && p);
		if (p) {
			size_t got = compare_all(p, odb);
			CHECK(got > 0 && got < total);
			fg_pack_free(p);
		}
		free(half);
	}
	/* The index of another object format (SHA-256: 32-byte ids and
	 * checksums) may have the size a SHA-1 index of other counts has; its
	 * pack checksum is not 20 bytes of the pack's: not used. */
	idx[ilen - 40] ^= 1;
	CHECK(fg_pack_from_buffers(&p, idx, ilen, pack, plen, NULL) == 0 && !p);
	idx[ilen - 40] ^= 1;
	/* Bytes of the entries changed in turn: never a crash, and what the
	 * reader still gives is what libgit2 reads from the same damaged pack
	 * (a changed byte mostly makes a stream fail its check or a size
	 * disagree; one in a delta's base offset may pick another base of the
	 * same size, which libgit2 applies as well). */
	sh("mkdir -p d/pack");
	char dir[512], ipath[512], ppath[512];
	snprintf(dir, sizeof(dir), "%s/d", tmp);
	snprintf(ipath, sizeof(ipath), "%s/d/pack/pack-x.idx", tmp);
	snprintf(ppath, sizeof(ppath), "%s/d/pack/pack-x.pack", tmp);
	FILE *f = fopen(ipath, "wb");
	CHECK(f && fwrite(idx, 1, ilen, f) == ilen);
	if (f)
		fclose(f);
	size_t given = 0;
	for (size_t at = 12; at + 20 < plen && at < 3000; at += 5) {
		pack[at] ^= 0x21;
		f = fopen(ppath, "wb");
		CHECK(f && fwrite(pack, 1, plen, f) == plen);
		if (f)
			fclose(f);
		git_odb *damaged = NULL;
		if (fg_pack_from_buffers(&p, idx, ilen, pack, plen, NULL) == 0 && p && git_odb_open(&damaged, dir) == 0) {
			for (size_t i = 0; i < nids; i++) {
				fg_pack_object *o;
				if (!fg_pack_read(&o, p, ids[i].id))
					continue;
				given++;
				git_odb_object *g;
				if (git_odb_read(&g, damaged, &ids[i]) < 0) {
					CHECK(!"libgit2 reads what the reader gives");
				} else {
					CHECK(git_odb_object_size(g) == fg_pack_object_size(o) &&
					      !memcmp(fg_pack_object_data(o), git_odb_object_data(g), git_odb_object_size(g)));
					check_head(p, &ids[i], g);
					git_odb_object_free(g);
				}
				fg_pack_object_free(o);
			}
		}
		git_odb_free(damaged);
		fg_pack_free(p);
		pack[at] ^= 0x21;
	}
	CHECK(given > 0);
	free(idx);
	free(pack);
}

static void test_repository(void)
{
	/* 40 commits editing files in two directories and the root: trees and
	 * blobs become delta chains once repacked; their messages, long from
	 * the 20th on, make deltas of commits too, and heads that stop
	 * inflating well before the message's end. */
	sh("git init -q r && cd r && mkdir -p a b/c && for i in $(seq 1 40); do "
	   "seq 1 $((i * 3)) >a/f && seq $i 90 >b/c/g && echo $i >>log && "
	   "git add -A && git commit -q -m \"change $i\" -m \"$(seq $((i * 7)) $((i / 20 * 3000)))\"; done && "
	   "git tag -a -m tagged t1 && git repack -q -a -d -f && "
	   "git verify-pack -v .git/objects/pack/*.idx | awk 'NF == 7' | wc -l >../ndeltas");
	list_objects();
	CHECK(nids > 160);
	CHECK(number("ndeltas") > 20 && number("ndeltas") != (size_t)-1);
	sh("cd r && git verify-pack -v .git/objects/pack/*.idx | awk 'NF == 7 && $2 == \"commit\"' | wc -l >../ncdeltas");
	CHECK(number("ncdeltas") > 5 && number("ncdeltas") != (size_t)-1);
	git_odb *odb = open_odb();
	fg_pack *p = open_pack();
	if (!odb || !p) {
		fg_pack_free(p);
		git_odb_free(odb);
		return;
	}
	CHECK_U64(compare_all(p, odb), nids);
	fg_pack_free(p);

	test_buffers(odb, nids);

	/* A new commit is loose: not in the packs (libgit2 reads it). */
	sh("cd r && echo new >>log && git add -A && git commit -q -m new && "
	   "find .git/objects -type f | grep -v -e pack -e info | wc -l >../nloose");
	list_objects();
	p = open_pack();
	if (p) {
		CHECK_U64(compare_all(p, odb), nids - number("nloose"));
		fg_pack_free(p);
	}
	/* Packed into a second pack: both are read. */
	sh("cd r && git repack -q -d && ls .git/objects/pack/*.idx | wc -l >../npacks");
	CHECK_U64(number("npacks"), 2);
	git_odb_free(odb);
	odb = open_odb();
	p = open_pack();
	if (p && odb)
		CHECK_U64(compare_all(p, odb), nids);
	fg_pack_free(p);

	/* Deltas that name their base by id (REF_DELTA) are libgit2's. */
	sh("cd r && git -c repack.useDeltaBaseOffset=false repack -q -a -d -f && "
	   "git verify-pack -v .git/objects/pack/*.idx | awk 'NF == 7' | wc -l >../nref");
	CHECK(number("nref") > 20 && number("nref") != (size_t)-1);
	git_odb_free(odb);
	odb = open_odb();
	p = open_pack();
	if (p && odb)
		CHECK_U64(compare_all(p, odb), nids - number("nref"));
	fg_pack_free(p);
	git_odb_free(odb);

	/* No pack directory, or nothing readable in it: no reader. */
	sh("mkdir -p empty/pack && touch empty/pack/pack-x.idx empty/pack/pack-x.pack");
	char path[512];
	snprintf(path, sizeof(path), "%s/empty", tmp);
	CHECK(fg_pack_open(&p, path, NULL) == 0 && !p);
	snprintf(path, sizeof(path), "%s/none", tmp);
	CHECK(fg_pack_open(&p, path, NULL) == 0 && !p);
}

int main(void)
{
	int rc = git_test_setup();
	if (rc)
		return rc == 77 ? check_status("test_pack") : rc;
	git_libgit2_init();
	/* As the history walk reads (src/git/history.c), so that libgit2 gives
	 * a damaged pack's bytes rather than refusing them. */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	test_repository();
	git_libgit2_shutdown();
	git_test_cleanup(check_failures);
	return check_status("test_pack");
}
