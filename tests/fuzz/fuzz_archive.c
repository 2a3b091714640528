/* libFuzzer target: profiles inside archives (src/io/archive.c through the
 * reader).  The first byte picks what the rest is: an archive as it is
 * (mutated zips and tars: libarchive's parsers, the choice of the member,
 * the several-profiles and no-profile errors, an archive inside an archive),
 * or a profile that the target wraps in a zip of one member, stored or
 * deflated; that one must read exactly as the profile itself does (the same
 * outcome, message, shares and top entries), or the target traps. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "fuzz_analyses.h"
#include "formats/pprof.h"
#include "io/archive.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t *put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	return p + 2;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	p = put16(p, v & 0xffff);
	return put16(p, v >> 16);
}

/* A zip of one member "p.txt" holding data, deflated or stored; its
 * length in *len, NULL when it cannot be made. */
static uint8_t *make_zip(size_t *len, const uint8_t *data, size_t size, bool deflated)
{
	static const char name[] = "p.txt";
	size_t cap = size + size / 8 + 256;
	uint8_t *z = malloc(cap), *body = z ? z + 30 + 5 : NULL;
	size_t csize = size;
	if (!z)
		return NULL;
	if (deflated) {
		z_stream s = { 0 };
		if (deflateInit2(&s, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			free(z);
			return NULL;
		}
		s.next_in = (Bytef *)data;
		s.avail_in = (uInt)size;
		s.next_out = body;
		s.avail_out = (uInt)(cap - 35 - 100);
		int rc = deflate(&s, Z_FINISH);
		csize = (size_t)(s.next_out - body);
		deflateEnd(&s);
		if (rc != Z_STREAM_END) {
			free(z);
			return NULL;
		}
	} else {
		memcpy(body, data, size);
	}
	uint32_t crc = (uint32_t)crc32(0, data, (uInt)size);
	uint8_t *p = put32(z, 0x04034b50);
	p = put16(put16(put16(p, 20), 0), deflated ? 8 : 0);
	p = put32(put16(put16(p, 0), 0x21), crc);
	p = put32(put32(p, (uint32_t)csize), (uint32_t)size);
	p = put16(put16(p, 5), 0);
	memcpy(p, name, 5);
	p = body + csize;
	uint8_t *cd = p;
	p = put32(p, 0x02014b50);
	p = put16(put16(put16(put16(p, 20), 20), 0), deflated ? 8 : 0);
	p = put32(put16(put16(p, 0), 0x21), crc);
	p = put32(put32(p, (uint32_t)csize), (uint32_t)size);
	p = put16(put16(put16(put16(put16(p, 5), 0), 0), 0), 0);
	p = put32(put32(p, 0), 0);
	memcpy(p, name, 5);
	p += 5;
	uint32_t cdsize = (uint32_t)(p - cd);
	p = put32(p, 0x06054b50);
	p = put16(put16(put16(put16(p, 0), 0), 1), 1);
	p = put16(put32(put32(p, cdsize), (uint32_t)(cd - z)), 0);
	*len = (size_t)(p - z);
	return z;
}

/* Reads data into a (a new interner, or b's), its outcome in err. */
static int read_into(struct analyses *a, fg_names *names, const void *data, size_t size, fg_error *err)
{
	fg_read_options o;
	fg_read_options_init(&o);
	o.max_size = FUZZ_MAX_SIZE;
	int rc = analyses_new(a, names, err);
	if (rc)
		return -1000 + rc;
	fg_profile_info info;
	fg_visitor v = { analyses_frames, analyses_stack, a, NULL, NULL };
	return fg_reader_read_memory(&info, data, size, "fuzz", a->names, &o, &v, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t mode = data[0] % 3;
	data++;
	size--;
	if (mode == 0) {
		analyses_run(data, size, false, analyses_sink());
		return 0;
	}
	/* The member's profile, read plain and through the zip.  Not compared:
	 * an empty member (no profile), an archive (inside an archive), pprof
	 * (which may read its message twice: a member is read once), gzip (its
	 * content may be a tar: a .tar.gz read plain, an archive inside an
	 * archive in a zip). */
	if (size == 0 || fg_archive_sniff((const char *)data, size) ||
	    fg_pprof_sniff(data, size) || (size >= 2 && data[0] == 0x1f && data[1] == 0x8b))
		return 0;
	size_t zlen;
	uint8_t *zip = make_zip(&zlen, data, size, mode == 2);
	if (!zip)
		return 0;
	struct analyses plain = { 0 }, member = { 0 };
	fg_error perr, merr;
	fg_error_clear(&perr);
	fg_error_clear(&merr);
	int prc = read_into(&plain, NULL, data, size, &perr);
	int mrc = prc <= -1000 ? prc : read_into(&member, plain.names, zip, zlen, &merr);
	if (prc > -1000 && mrc > -1000) {
		/* A member is read once, so a last line cut short stays the
		 * reader's syntax error where the plain read, which reads the
		 * input again, says "truncated" (src/formats/reader.c,
		 * explain_cut): the same status, only the wording differs. */
		static const char cut[] = "truncated: the data ends in the middle of line";
		bool reworded = !strncmp(perr.message, cut, sizeof(cut) - 1);
		if (prc != mrc || (prc && !reworded && strcmp(perr.message, merr.message)))
			__builtin_trap();
		if (!prc)
			analyses_same(&plain, &member);
	}
	analyses_free(&member);
	analyses_free(&plain);
	free(zip);
	return 0;
}
