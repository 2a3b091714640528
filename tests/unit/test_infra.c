/* The shared infrastructure every command uses: the JSON writer (commas,
 * nesting, escaping), the UTF-8 validator, the hash table (and the interner
 * and key map built on it), reading a whole file under a cap,
 * the source layer (gzip sniffed on local files as on cached downloads), the
 * process launcher, and the exit-code table. */
#include <errno.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "base/error.h"
#include "base/exitcode.h"
#include "base/hashtab.h"
#include "formats/keymap.h"
#include "model/names.h"
#include "io/textfile.h"
#include "gzip_bytes.h"
#include "output/json_writer.h"
#include "base/process.h"
#include "formats/source.h"
#include "base/utf8.h"

/* What fn writes through a writer, as a string (malloc'ed). */
static char *json_of(void (*fn)(fg_json *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fg_json j;
	fg_json_init(&j, f);
	fn(&j);
	fclose(f);
	return buf;
}

static void nested(fg_json *j)
{
	fg_json_object(j);
	fg_json_member_string(j, "source", "a.html");
	fg_json_key(j, "frames");
	fg_json_array(j);
	for (int i = 0; i < 3; i++) {
		fg_json_object(j);
		fg_json_member_u64(j, "samples", (uint64_t)i);
		fg_json_member_fixed(j, "share", i / 3.0 * 100, 4);
		fg_json_end(j);
	}
	fg_json_end(j);
	fg_json_key(j, "empty");
	fg_json_array(j);
	fg_json_end(j);
	fg_json_key(j, "nothing");
	fg_json_object(j);
	fg_json_end(j);
	fg_json_member_bool(j, "gzip", false);
	fg_json_key(j, "missing");
	fg_json_string(j, NULL);
	fg_json_key(j, "list");
	fg_json_array(j);
	fg_json_u64(j, 1);
	fg_json_i64(j, -2);
	fg_json_raw(j, "3.50");
	fg_json_fixed(j, 0.0 / 0.0, 2);
	fg_json_end(j);
	fg_json_end(j);
}

static void escapes(fg_json *j)
{
	fg_json_array(j);
	fg_json_string(j, "q\"b\\s\n\t\x01");
	fg_json_string(j, "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\xa5");
	fg_json_string(j, "bad \xff \xc3 end");     /* stray byte, cut sequence */
	fg_json_string(j, "\xc0\xaf \xed\xa0\x80");  /* overlong '/', a surrogate */
	fg_json_string(j, "cut \xe2\x86");            /* cut at the very end */
	fg_json_end(j);
}

static void test_json(void)
{
	char *s = json_of(nested);
	CHECK_STR(s, "{\"source\":\"a.html\",\"frames\":[{\"samples\":0,\"share\":0.0000},{\"samples\":1,"
		     "\"share\":33.3333},{\"samples\":2,\"share\":66.6667}],\"empty\":[],\"nothing\":{},"
		     "\"gzip\":false,\"missing\":null,\"list\":[1,-2,3.50,null]}\n");
	free(s);
	s = json_of(escapes);
	CHECK_STR(s, "[\"q\\\"b\\\\s\\u000a\\u0009\\u0001\",\"caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\xa5\","
		     "\"bad \\ufffd \\ufffd end\",\"\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd\",\"cut \\ufffd\\ufffd\"]\n");
	free(s);
}

static void test_utf8(void)
{
	CHECK_U64(fg_utf8_sequence((const unsigned char *)"a", 1), 1);
	CHECK_U64(fg_utf8_sequence((const unsigned char *)"\xc3\xa9", 2), 2);
	CHECK_U64(fg_utf8_sequence((const unsigned char *)"\xc3\xa9", 1), 0);     /* cut short */
	CHECK_U64(fg_utf8_sequence((const unsigned char *)"\xe2\x86\x92", 3), 3);
	CHECK_U64(fg_utf8_sequence((const unsigned char *)"\xf0\x9f\x94\xa5", 4), 4);
	CHECK_U64(fg_utf8_sequence((const unsigned char *)"\xf4\x90\x80\x80", 4), 0); /* > U+10FFFF */
	CHECK_U64(fg_utf8_sequence((const unsigned char *)"\xed\xa0\x80", 3), 0);     /* surrogate */
	CHECK_U64(fg_utf8_sequence((const unsigned char *)"\xe0\x80\xaf", 3), 0);     /* overlong */
	CHECK_U64(fg_utf8_sequence((const unsigned char *)"\x80", 1), 0);
	CHECK_U64(fg_utf8_sequence((const unsigned char *)"", 0), 0);
	CHECK_U64(fg_utf8_cut("ab\xe2\x86\x92", 3), 2);
	CHECK_U64(fg_utf8_cut("ab\xe2\x86\x92", 4), 2);
	CHECK_U64(fg_utf8_cut("ab\xe2\x86\x92", 2), 2);
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	fwrite(data, 1, len, f);
	fclose(f);
}

static void test_file(const char *dir)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/ten", dir);
	write_file(path, "0123456789", 10);
	char *buf;
	size_t len;
	fg_error err;
	CHECK(fg_textfile_read(&buf, &len, path, 10, "list", FG_ECONFIG, &err) == 0);
	CHECK_U64(len, 10);
	CHECK(buf && buf[10] == '\0' && !memcmp(buf, "0123456789", 10));
	free(buf);
	CHECK(fg_textfile_read(&buf, &len, path, 9, "list", FG_ECONFIG, &err) == FG_ECONFIG && !buf);
	CHECK_STR(err.message, "too large for a list");
	snprintf(path, sizeof(path), "%s/empty", dir);
	write_file(path, "", 0);
	CHECK(fg_textfile_read(&buf, &len, path, 10, "list", FG_ECONFIG, &err) == 0 && len == 0 && buf && !buf[0]);
	free(buf);
	snprintf(path, sizeof(path), "%s/none", dir);
	CHECK(fg_textfile_read(&buf, &len, path, 10, "list", FG_EFETCH, &err) == FG_EFETCH);
	CHECK_STR(err.message, "cannot read the list: No such file or directory");
	CHECK(fg_textfile_read(&buf, &len, dir, 10, "list", FG_EFETCH, &err) == FG_EFETCH);
	CHECK_STR(err.message, "cannot read the list: a directory, not a regular file");
	/* A FIFO without a writer is refused at once, not waited on. */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	CHECK(mkfifo(path, 0600) == 0);
	CHECK(fg_textfile_read(&buf, &len, path, 10, "list", FG_EFETCH, &err) == FG_EFETCH);
	CHECK_STR(err.message, "cannot read the list: a FIFO, not a regular file");
}

static void test_source(const char *dir)
{
	static const char text[] = "# date commit node protocol event location\n"
				   "2026-11-01 4f1c2a9e3b broker-0 grpc cpu a.html\n";
	unsigned char gz[512];
	size_t n = gzip_bytes(gz, sizeof(gz), text, strlen(text));
	char plain[512], packed[512], none[512];
	snprintf(plain, sizeof(plain), "%s/runs.txt", dir);
	snprintf(packed, sizeof(packed), "%s/runs.txt.gz", dir);
	snprintf(none, sizeof(none), "%s/no-runs.txt", dir);
	write_file(plain, text, strlen(text));
	write_file(packed, gz, n);
	fg_error err;
	char *buf;
	size_t len;
	char warning[256];
	/* Plain and gzip'ed (as the cache stores downloads) read the same. */
	CHECK(fg_source_read_all(&buf, &len, plain, "runs file", 1 << 20, NULL, warning, &err) == 0);
	CHECK_STR(buf, text);
	CHECK_STR(warning, "");
	free(buf);
	CHECK(fg_source_read_all(&buf, &len, packed, "runs file", 1 << 20, NULL, NULL, &err) == 0);
	CHECK_STR(buf, text);
	CHECK_U64(len, strlen(text));
	free(buf);
	/* The cap holds for the decompressed size too. */
	CHECK(fg_source_read_all(&buf, &len, packed, "runs file", 20, NULL, NULL, &err) == FG_EFETCH);
	CHECK(fg_source_read_all(&buf, &len, plain, "runs file", 20, NULL, NULL, &err) == FG_EFETCH);
	CHECK_STR(err.message, "too large for a runs file");
	CHECK(fg_source_read_all(&buf, &len, none, "runs file", 1 << 20, NULL, NULL, &err) == FG_EFETCH);
	CHECK_STR(err.message, "cannot read the runs file: No such file or directory");
	CHECK_STR(err.source, none);
	/* A file:// URL goes through the fetch layer and reads the same. */
	char url[600];
	snprintf(url, sizeof(url), "file://%s", packed);
	CHECK(fg_source_read_all(&buf, &len, url, "runs file", 1 << 20, NULL, NULL, &err) == 0);
	CHECK_STR(buf, text);
	free(buf);
	/* Corrupt gzip is an invalid input, named as given. */
	gz[n - 5] ^= 0xff;
	write_file(packed, gz, n);
	CHECK(fg_source_read_all(&buf, &len, packed, "runs file", 1 << 20, NULL, NULL, &err) == FG_EINVALID);
	CHECK_STR(err.source, packed);
}

static void test_process(void)
{
	fg_process_options o;
	fg_process_options_init(&o);
	o.out = FG_PROCESS_STDOUT_CAPTURE;
	fg_process_result r;
	fg_error err;
	CHECK(fg_process_run(&r, (const char *[]){ "sh", "-c", "printf 'out\\n'; exit 3", NULL }, &o, &err) == 0);
	CHECK_STR(r.output, "out\n");
	CHECK_U64(r.exit_status, 3);
	CHECK(!r.signal && !r.timed_out);
	fg_process_result_clear(&r);
	/* The child sees SIGPIPE at its default although we ignore it. */
	signal(SIGPIPE, SIG_IGN);
	CHECK(fg_process_run(&r, (const char *[]){ "sh", "-c", "kill -PIPE $$", NULL }, &o, &err) == 0);
	CHECK_U64(r.signal, SIGPIPE);
	CHECK(r.exit_status == -1);
	fg_process_result_clear(&r);
	o.dir = "/";
	CHECK(fg_process_run(&r, (const char *[]){ "pwd", NULL }, &o, &err) == 0);
	CHECK_STR(r.output, "/\n");
	fg_process_result_clear(&r);
	/* A timeout ends the whole group, a background child included. */
	fg_process_options_init(&o);
	o.own_process_group = true;
	o.timeout_s = 0.3;
	CHECK(fg_process_run(&r, (const char *[]){ "sh", "-c", "sleep 30 & sleep 30", NULL }, &o, &err) == 0);
	CHECK(r.timed_out && r.signal == SIGTERM);
	fg_process_result_clear(&r);
	CHECK(fg_process_run(&r, (const char *[]){ "/no/such/program", NULL }, NULL, &err) == FG_EFETCH);
	CHECK_STR(err.source, "/no/such/program");
}

static void test_exit_codes(void)
{
	fg_error e;
	fg_error_set(&e, FG_EUSAGE, NULL, "x");
	CHECK_U64(fg_error_exit_status(&e), FG_EXIT_USAGE);
	fg_error_set(&e, FG_ECONFIG, NULL, "x");
	CHECK_U64(fg_error_exit_status(&e), 2);
	fg_error_set(&e, FG_EINVALID, NULL, "x");
	CHECK_U64(fg_error_exit_status(&e), 3);
	fg_error_set(&e, FG_EFETCH, NULL, "x");
	CHECK_U64(fg_error_exit_status(&e), 4);
	fg_error_set(&e, FG_EGIT, NULL, "x");
	CHECK_U64(fg_error_exit_status(&e), 4);
	fg_error_set(&e, FG_EOUTPUT, NULL, "x");
	CHECK_U64(fg_error_exit_status(&e), 1);
	CHECK_U64(FG_EXIT_SKIP, 125);
	CHECK_U64(FG_EXIT_ABORT, 255);
}

/* A slot is a key (never 0); the hash keeps only key % 7, so keys collide
 * in long runs and probes wrap past the table's end. */
static inline bool key_stop(const void *slot, const void *key)
{
	uint64_t s = *(const uint64_t *)slot;
	return s == 0 || s == *(const uint64_t *)key;
}

static inline bool key_hash(uint64_t *hash, const void *slot, const void *ctx)
{
	(void)ctx;
	uint64_t s = *(const uint64_t *)slot;
	*hash = s % 7 + (UINT64_C(1) << 32) - 3; /* the low bits: the table's last slots */
	return s != 0;
}

static uint64_t *key_slot(fg_hashtab *t, uint64_t key)
{
	uint64_t h;
	key_hash(&h, &key, NULL);
	return fg_hashtab_probe(t, sizeof(uint64_t), h, key_stop, &key);
}

static void test_hashtab(void)
{
	fg_hashtab t = { 0 };
	fg_error err = { 0 };
	CHECK_U64(fg_hashtab_capacity(&t), 0);
	for (uint64_t round = 0; round < 2; round++) {
		for (uint64_t k = 1; k <= 5000; k++) {
			CHECK(fg_hashtab_reserve(&t, sizeof(uint64_t), key_hash, NULL, &err) >= 0);
			uint64_t *s = key_slot(&t, k);
			if (!*s) {
				*s = k;
				t.count++;
			}
		}
	}
	CHECK_U64(t.count, 5000);
	CHECK_U64(fg_hashtab_capacity(&t), 16384); /* 1024 doubled while 5001 would pass half */
	uint64_t found = 0, in_slots = 0;
	for (uint64_t k = 1; k <= 6000; k++)
		found += *key_slot(&t, k) == k;
	for (uint32_t i = 0; i < fg_hashtab_capacity(&t); i++)
		in_slots += ((uint64_t *)t.slots)[i] != 0;
	CHECK_U64(found, 5000);
	CHECK_U64(in_slots, 5000);
	fg_hashtab_clear(&t, sizeof(uint64_t));
	CHECK_U64(t.count, 0);
	CHECK_U64(fg_hashtab_capacity(&t), 16384);
	CHECK_U64(*key_slot(&t, 1), 0);
	fg_hashtab_free(&t);

	/* The key map and the interner, across their growths. */
	fg_keymap m = { 0 };
	bool all = true;
	for (uint64_t k = 0; k < 100000; k++) {
		uint64_t *v;
		bool added;
		all &= fg_keymap_put(&v, &added, &m, k % 3, k, k * k, &err) == 0 && added;
		*v = k + 1;
	}
	for (uint64_t k = 0; k < 100000; k++) {
		const uint64_t *v = fg_keymap_get(&m, k % 3, k, k * k);
		all &= v && *v == k + 1 && !fg_keymap_get(&m, k % 3 + 1, k, k * k);
	}
	CHECK(all);
	fg_keymap_free(&m);
	fg_names *names;
	CHECK(fg_names_new(&names, &err) == 0);
	char buf[32];
	all = true;
	for (uint32_t round = 0; round < 2; round++) {
		for (uint32_t i = 0; i < 100000; i++) {
			uint32_t id;
			int len = snprintf(buf, sizeof(buf), "frame%u", i * 7919u);
			all &= fg_names_intern(&id, names, buf, (size_t)len, &err) == 0 && id == i &&
			       !strcmp(fg_names_get(names, id), buf);
		}
	}
	CHECK(all);
	CHECK_U64(fg_names_count(names), 100000);
	fg_names_free(names);
}

int main(void)
{
	char dir[] = "/tmp/fg-test-infra-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	test_json();
	test_utf8();
	test_hashtab();
	test_file(dir);
	test_source(dir);
	test_process();
	test_exit_codes();
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	return check_status("test_infra");
}
