#include "io/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef FG_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#else
#include <zlib.h>
#endif

#define BUF_INITIAL (256u << 10)
/* Bytes after the buffer's capacity: the '\n' sentinel (or a last line's
 * '\0'), then room, so that a reader may load 8 bytes at any position of a
 * line without running off the allocation (FG_INPUT_PADDING).  The buffer
 * is not cleared (a 256 KiB calloc was a sixth of reading a 55 KB profile);
 * instead the FG_INPUT_PADDING bytes after the sentinel are zeroed at each
 * fill, so that what such a load sees past the data is always defined. */
#define BUF_EXTRA (1 + FG_INPUT_PADDING)
#define RAW_SIZE (128u << 10)

/* The inflater: ISA-L's igzip when CMake found it (about three times
 * zlib's speed on profiles, streaming all the same), else zlib.  Both parse
 * the gzip header and check the CRC and length of every member. */
struct inflater {
#ifdef FG_HAVE_ISAL
	struct inflate_state *s; /* some 20 KB of tables: on the heap */
#else
	z_stream s;
#endif
};

static int inflater_start(struct inflater *f, const unsigned char *in, size_t n)
{
#ifdef FG_HAVE_ISAL
	if (!(f->s = malloc(sizeof(*f->s))))
		return -1;
	isal_inflate_init(f->s);
	f->s->crc_flag = ISAL_GZIP;
	f->s->next_in = (uint8_t *)in;
	f->s->avail_in = (uint32_t)n;
	return 0;
#else
	memset(&f->s, 0, sizeof(f->s));
	if (inflateInit2(&f->s, 15 + 16) != Z_OK)
		return -1;
	f->s.next_in = (unsigned char *)in;
	f->s.avail_in = (uInt)n;
	return 0;
#endif
}

static void inflater_end(struct inflater *f)
{
#ifdef FG_HAVE_ISAL
	free(f->s);
#else
	inflateEnd(&f->s);
#endif
}

#ifdef FG_HAVE_ISAL
#define INFLATER(f) (*(f)->s)
#else
#define INFLATER(f) ((f)->s)
#endif

/* The next member of a multi-member stream. */
static int inflater_reset(struct inflater *f)
{
#ifdef FG_HAVE_ISAL
	uint8_t *next = f->s->next_in;
	uint32_t avail = f->s->avail_in;
	isal_inflate_reset(f->s);
	f->s->crc_flag = ISAL_GZIP;
	f->s->next_in = next;
	f->s->avail_in = avail;
	return 0;
#else
	return inflateReset(&f->s) == Z_OK ? 0 : -1;
#endif
}

/* One inflate step: 0 and *member_end, FG_ENOMEM, or FG_EINVALID with *why
 * set (zlib's words for the same faults). */
static int inflater_step(struct inflater *f, bool *member_end, const char **why)
{
#ifdef FG_HAVE_ISAL
	int r = isal_inflate(f->s);
	*member_end = f->s->block_state == ISAL_BLOCK_FINISH;
	switch (r) {
	case ISAL_DECOMP_OK:
	case ISAL_END_INPUT:
	case ISAL_OUT_OVERFLOW:
		return 0;
	case ISAL_INVALID_BLOCK: *why = "invalid block type"; break;
	case ISAL_INVALID_SYMBOL: *why = "invalid code"; break;
	case ISAL_INVALID_LOOKBACK: *why = "invalid distance too far back"; break;
	case ISAL_INVALID_WRAPPER: *why = "incorrect header check"; break;
	case ISAL_UNSUPPORTED_METHOD: *why = "unknown compression method"; break;
	case ISAL_INCORRECT_CHECKSUM: *why = "incorrect data check"; break;
	default: *why = "bad stream"; break;
	}
	return FG_EINVALID;
#else
	int zr = inflate(&f->s, Z_NO_FLUSH);
	*member_end = zr == Z_STREAM_END;
	if (zr == Z_MEM_ERROR)
		return FG_ENOMEM;
	if (zr != Z_OK && zr != Z_BUF_ERROR && zr != Z_STREAM_END) {
		*why = f->s.msg ? f->s.msg : "bad stream";
		return FG_EINVALID;
	}
	return 0;
#endif
}

struct fg_input {
	char name[512];
	int fd;                  /* -1 for memory input */
	bool close_fd;
	const unsigned char *mem;
	size_t mem_len, mem_pos;

	bool gzip;
	bool z_started, z_member_done;
	struct inflater z;
	unsigned char *raw;      /* compressed bytes read from fd/mem */
	bool raw_eof;

	char *buf;               /* decompressed content: [start, end) unread */
	size_t cap, start, end;
	bool eof;                /* no more content after end */
	uint64_t produced;       /* decompressed bytes so far */
	uint64_t max_size;
	uint64_t max_line;
	uint64_t base;           /* absolute offset of buf[0] */

	bool reject_nul;
	uint64_t nul_at;         /* absolute offset of the first NUL, or UINT64_MAX */
	uint64_t line_no;
	bool missing_newline;
	size_t read_size;        /* at most this many raw bytes a read; 0 = no limit */
	off_t fd_start;          /* where a regular file's reading began, for fg_input_rewind; -1 otherwise */
	off_t pread_at;          /* >= 0: reads with pread from here (fg_input_open_at: the fd is shared) */
	fg_input_pull_fn pull;   /* the raw bytes come from this function (fg_input_open_pull), not fd or mem */
	void *pull_ctx;
	const char *bomb;        /* what a content over --max-size may be, when not gzip ("a zip bomb?") */
	uint64_t limit;          /* the content ends here for now (fg_input_set_limit); UINT64_MAX = none */
};

/* The '\n' after the buffered content (the sentinel of fg_input_window) and
 * the zeroed padding after it. */
static void put_sentinel(fg_input *in)
{
	in->buf[in->end] = '\n';
	memset(in->buf + in->end + 1, 0, FG_INPUT_PADDING);
}

/* The reading state of an input at the start of its content: nothing read,
 * inflated, counted or seen yet (a new input, and fg_input_rewind's). */
static void at_start(fg_input *in)
{
	in->mem_pos = 0;
	in->gzip = in->z_started = in->z_member_done = in->raw_eof = in->eof = in->missing_newline = false;
	in->start = in->end = 0;
	in->produced = in->base = in->line_no = 0;
	in->nul_at = UINT64_MAX;
	put_sentinel(in);
}

static int input_init(fg_input **out, const char *name, uint64_t max_size, fg_error *err)
{
	fg_input *in = calloc(1, sizeof(*in));
	if (!in)
		return fg_error_oom(err, name);
	snprintf(in->name, sizeof(in->name), "%s", name);
	in->fd = -1;
	in->fd_start = -1;
	in->pread_at = -1;
	in->limit = UINT64_MAX;
	in->max_size = max_size ? max_size : FG_INPUT_DEFAULT_MAX_SIZE;
	in->max_line = FG_INPUT_DEFAULT_MAX_LINE;
	in->cap = BUF_INITIAL;
	in->buf = malloc(in->cap + BUF_EXTRA);
	in->raw = malloc(RAW_SIZE);
	if (!in->buf || !in->raw) {
		fg_input_free(in);
		return fg_error_oom(err, name);
	}
	at_start(in);
	*out = in;
	return 0;
}

/* The names a shell passes for `<(...)`: an already connected pipe. */
static bool names_inherited_descriptor(const char *path)
{
	return !strcmp(path, "/dev/stdin") || !strncmp(path, "/dev/fd/", 8) || !strncmp(path, "/proc/self/fd/", 14);
}

static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

int fg_input_open_file(int *fd, const char *path, fg_error *err)
{
	*fd = -1;
	/* O_NONBLOCK: opening a FIFO without a writer (or a tty, a tape) must
	 * not hang before the type can be checked. */
	int f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (f < 0)
		return fg_error_set(err, FG_EFETCH, path, "%s", strerror(errno));
	struct stat st;
	if (fstat(f, &st) < 0) {
		int rc = fg_error_set(err, FG_EFETCH, path, "%s", strerror(errno));
		close(f);
		return rc;
	}
	if (!S_ISREG(st.st_mode) && !(S_ISFIFO(st.st_mode) && names_inherited_descriptor(path))) {
		close(f);
		return fg_error_set(err, FG_EFETCH, path, "%s, not a regular file", file_kind(st.st_mode));
	}
	int flags = fcntl(f, F_GETFL);
	if (flags < 0 || fcntl(f, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		int rc = fg_error_set(err, FG_EFETCH, path, "%s", strerror(errno));
		close(f);
		return rc;
	}
	*fd = f;
	return 0;
}

void fg_input_set_read_size(fg_input *in, size_t n)
{
	in->read_size = n;
}

void fg_input_set_max_line(fg_input *in, uint64_t max_line)
{
	in->max_line = max_line ? max_line : FG_INPUT_DEFAULT_MAX_LINE;
}

int fg_input_open(fg_input **out, const char *path, uint64_t max_size, fg_error *err)
{
	bool is_stdin = strcmp(path, "-") == 0;
	int fd = STDIN_FILENO;
	if (!is_stdin) {
		fg_error oerr;
		if (fg_input_open_file(&fd, path, &oerr) < 0)
			return fg_error_set(err, FG_EFETCH, path, "cannot open: %s", oerr.message);
	}
	int rc = input_init(out, is_stdin ? "<stdin>" : path, max_size, err);
	if (rc) {
		if (!is_stdin)
			close(fd);
		return rc;
	}
	(*out)->fd = fd;
	(*out)->close_fd = !is_stdin;
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		(*out)->fd_start = lseek(fd, 0, SEEK_CUR);
	return 0;
}

int fg_input_open_pull(fg_input **out, fg_input_pull_fn pull, void *ctx, const char *name, const char *bomb,
		       uint64_t max_size, fg_error *err)
{
	int rc = input_init(out, name, max_size, err);
	if (rc)
		return rc;
	(*out)->pull = pull;
	(*out)->pull_ctx = ctx;
	(*out)->bomb = bomb;
	return 0;
}

int fg_input_open_memory(fg_input **out, const void *data, size_t len, const char *name,
			 uint64_t max_size, fg_error *err)
{
	int rc = input_init(out, name, max_size, err);
	if (rc)
		return rc;
	(*out)->mem = data;
	(*out)->mem_len = len;
	return 0;
}

void fg_input_free(fg_input *in)
{
	if (!in)
		return;
	if (in->close_fd)
		close(in->fd);
	if (in->z_started)
		inflater_end(&in->z);
	free(in->raw);
	free(in->buf);
	free(in);
}

/* Reads raw (possibly compressed) bytes; 0 at end of input. */
static int read_raw(size_t *got, fg_input *in, unsigned char *dst, size_t want, fg_error *err)
{
	if (in->read_size && want > in->read_size)
		want = in->read_size;
	if (in->pull)
		return in->pull(got, in->pull_ctx, dst, want, err);
	if (in->fd < 0) {
		size_t n = in->mem_len - in->mem_pos;
		if (n > want)
			n = want;
		memcpy(dst, in->mem + in->mem_pos, n);
		in->mem_pos += n;
		*got = n;
		return 0;
	}
	for (;;) {
		ssize_t n = in->pread_at >= 0 ? pread(in->fd, dst, want, in->pread_at) : read(in->fd, dst, want);
		if (n >= 0) {
			*got = (size_t)n;
			if (in->pread_at >= 0)
				in->pread_at += n;
			return 0;
		}
		if (errno != EINTR)
			return fg_error_set(err, FG_EFETCH, in->name, "read error: %s", strerror(errno));
	}
}

/* Appends up to room decompressed bytes at dst; *got 0 means the end. */
static int produce_gzip(size_t *got, fg_input *in, char *dst, size_t room, fg_error *err)
{
	if (room > (1u << 30))
		room = 1u << 30;
	INFLATER(&in->z).next_out = (unsigned char *)dst;
	INFLATER(&in->z).avail_out = (uint32_t)room;
	while (INFLATER(&in->z).avail_out == room) {
		if (INFLATER(&in->z).avail_in == 0 && !in->raw_eof) {
			size_t n;
			int rc = read_raw(&n, in, in->raw, RAW_SIZE, err);
			if (rc)
				return rc;
			INFLATER(&in->z).next_in = in->raw;
			INFLATER(&in->z).avail_in = (uint32_t)n;
			in->raw_eof = n == 0;
		}
		if (in->z_member_done) {
			if (INFLATER(&in->z).avail_in == 0 && in->raw_eof)
				break;
			if (INFLATER(&in->z).avail_in == 0)
				continue;
			/* Another gzip member follows (as `cat a.gz b.gz` makes). */
			if (INFLATER(&in->z).next_in[0] != 0x1f)
				return fg_error_set(err, FG_EINVALID, in->name, "trailing garbage after gzip data");
			if (inflater_reset(&in->z))
				return fg_error_set(err, FG_EINVALID, in->name, "corrupt gzip data");
			in->z_member_done = false;
		}
		if (INFLATER(&in->z).avail_in == 0 && in->raw_eof)
			return fg_error_set(err, FG_EINVALID, in->name,
					    "truncated gzip data (the compressed stream ends early)");
		const char *why = NULL;
		int rc = inflater_step(&in->z, &in->z_member_done, &why);
		if (rc == FG_ENOMEM)
			return fg_error_oom(err, in->name);
		if (rc)
			return fg_error_set(err, FG_EINVALID, in->name, "corrupt gzip data: %s", why);
	}
	*got = room - INFLATER(&in->z).avail_out;
	return 0;
}

/* Content after the gzip magic is sniffed: up to room bytes at dst, from
 * the inflater or the raw source; *got 0 (and in->eof) at the end. */
static int produce(size_t *got, fg_input *in, char *dst, size_t room, fg_error *err)
{
	int rc = in->gzip ? produce_gzip(got, in, dst, room, err)
			  : read_raw(got, in, (unsigned char *)dst, room, err);
	if (!rc && *got == 0)
		in->eof = true;
	return rc;
}

/* What content over a cap may be: "; a gzip bomb?" and the like. */
static const char *bomb_hint(const fg_input *in)
{
	return in->gzip ? "; a gzip bomb?" : in->bomb ? in->bomb : "";
}

/* got bytes just produced at dst, the next of the content: the first NUL
 * noted, the count kept, --max-size checked. */
static int count_produced(fg_input *in, const char *dst, size_t got, fg_error *err)
{
	if (in->reject_nul && in->nul_at == UINT64_MAX) {
		const char *z = memchr(dst, '\0', got);
		if (z)
			in->nul_at = in->produced + (uint64_t)(z - dst);
	}
	in->produced += got;
	if (in->produced > in->max_size)
		return fg_error_set(err, FG_EINVALID, in->name,
				    "content is larger than --max-size (%llu bytes)%s",
				    (unsigned long long)in->max_size, bomb_hint(in));
	return 0;
}

/* The unread bytes moved to the buffer's start. */
static void compact(fg_input *in)
{
	memmove(in->buf, in->buf + in->start, in->end - in->start);
	in->base += in->start;
	in->end -= in->start;
	in->start = 0;
}

/* Reads more content after end, at most `most` bytes once the format is
 * sniffed (0: as many as fit); grows the buffer when it is full. */
static int fill_most(fg_input *in, size_t most, fg_error *err)
{
	if (in->eof)
		return 0;
	if (in->start > 0 && (in->start == in->end || in->end == in->cap))
		compact(in);
	if (in->end == in->cap) {
		/* One line fills the whole buffer: grow, up to --max-line. */
		if (in->cap >= in->max_line)
			return fg_error_set(err, FG_EINVALID, in->name,
					    "line %llu is longer than --max-line (%llu bytes)%s",
					    (unsigned long long)in->line_no + 1, (unsigned long long)in->max_line,
					    bomb_hint(in));
		size_t cap = in->cap * 2;
		if (cap > in->max_line)
			cap = (size_t)in->max_line;
		char *b = realloc(in->buf, cap + BUF_EXTRA);
		if (!b)
			return fg_error_set(err, FG_ENOMEM, in->name, "out of memory (a line of %zu bytes)", in->cap);
		in->buf = b;
		in->cap = cap;
	}
	size_t room = in->cap - in->end, got = 0;
	if (in->limit - in->produced < room) {
		/* Plain content only (fg_input_set_limit): what is read is what
		 * is produced. */
		room = (size_t)(in->limit - in->produced);
		if (room == 0) {
			in->eof = true;
			return 0;
		}
	}
	if (!in->z_started && !in->gzip && in->produced == 0) {
		/* First read: sniff the gzip magic in the raw bytes. */
		size_t n = 0, got_raw = 1;
		/* A pipe may deliver a single byte first: the magic needs two. */
		while (n < 2 && got_raw > 0) {
			int rc = read_raw(&got_raw, in, in->raw + n, RAW_SIZE - n, err);
			if (rc)
				return rc;
			n += got_raw;
		}
		if (n >= 2 && in->raw[0] == 0x1f && in->raw[1] == 0x8b) {
			in->gzip = true;
			if (inflater_start(&in->z, in->raw, n))
				return fg_error_oom(err, in->name);
			in->z_started = true;
		} else {
			if (n > room)
				n = room; /* cannot happen: RAW_SIZE < BUF_INITIAL */
			memcpy(in->buf + in->end, in->raw, n);
			got = n;
			if (n == 0)
				in->eof = true;
			goto produced;
		}
	}
	if (most && room > most)
		room = most;
	int rc = produce(&got, in, in->buf + in->end, room, err);
	if (rc)
		return rc;
produced:
	in->end += got;
	put_sentinel(in);
	return count_produced(in, in->buf + in->end - got, got, err);
}

static int fill(fg_input *in, fg_error *err)
{
	return fill_most(in, 0, err);
}

int fg_input_peek_most(const char **data, size_t *len, fg_input *in, size_t want, fg_error *err)
{
	if (in->start > 0 && want > in->cap - in->start)
		compact(in);
	while (in->end - in->start < want && !in->eof) {
		int rc = fill_most(in, want - (in->end - in->start), err);
		if (rc)
			return rc;
	}
	*data = in->buf + in->start;
	*len = in->end - in->start;
	return 0;
}

int fg_input_read(size_t *got, fg_input *in, void *dst, size_t n, fg_error *err)
{
	*got = 0;
	while (*got < n) {
		size_t have = in->end - in->start, k = n - *got;
		int rc;
		if (have) {
			k = k < have ? k : have;
			memcpy((char *)dst + *got, in->buf + in->start, k);
			in->start += k;
		} else if (in->eof) {
			break;
		} else if (!in->gzip && in->produced == 0) {
			/* The first read sniffs the gzip magic: through the buffer. */
			if ((rc = fill_most(in, k, err)) != 0)
				return rc;
			continue;
		} else {
			if (in->limit - in->produced < k && (k = (size_t)(in->limit - in->produced)) == 0) {
				in->eof = true;
				break;
			}
			if ((rc = produce(&k, in, (char *)dst + *got, k, err)) != 0)
				return rc;
			/* The buffer, empty, now starts after these bytes. */
			in->base += k;
			if ((rc = count_produced(in, (char *)dst + *got, k, err)) != 0)
				return rc;
		}
		*got += k;
	}
	return 0;
}

int fg_input_peek(const char **data, size_t *len, fg_input *in, size_t want, fg_error *err)
{
	while (in->end - in->start < want && !in->eof) {
		int rc = fill(in, err);
		if (rc)
			return rc;
	}
	*data = in->buf + in->start;
	*len = in->end - in->start;
	return 0;
}

bool fg_input_can_rewind(const fg_input *in)
{
	return !in->pull && (in->fd < 0 || in->fd_start >= 0);
}

/* The raw source to go on at content offset `offset`: any input's start
 * (0), or an offset of plain content (a file is sought, or read with pread
 * from there; memory).  False, with errno, when the file cannot be sought. */
static bool raw_seek(fg_input *in, uint64_t offset)
{
	if (in->pull) {
		errno = ESPIPE;
		return false;
	}
	if (in->fd < 0) {
		in->mem_pos = offset < in->mem_len ? (size_t)offset : in->mem_len;
		return true;
	}
	off_t at = in->fd_start + (off_t)offset;
	if (in->pread_at >= 0) {
		in->pread_at = at;
		return true;
	}
	return lseek(in->fd, at, SEEK_SET) == at;
}

int fg_input_rewind(fg_input *in, fg_error *err)
{
	if (!raw_seek(in, 0))
		return fg_error_set(err, FG_EFETCH, in->name, "cannot read it again: %s", strerror(errno));
	if (in->z_started)
		inflater_end(&in->z);
	at_start(in);
	return 0;
}

void fg_input_reject_nul(fg_input *in)
{
	in->reject_nul = true;
	char *z = memchr(in->buf + in->start, '\0', in->end - in->start);
	if (z && in->nul_at == UINT64_MAX)
		in->nul_at = in->base + (uint64_t)(z - in->buf);
}

int fg_input_line(char **line, size_t *len, fg_input *in, fg_error *err)
{
	size_t scanned = in->start;
	char *nl;
	for (;;) {
		nl = memchr(in->buf + scanned, '\n', in->end - scanned);
		if (nl || in->eof)
			break;
		/* A NUL in an unfinished line fails now: a line of NULs (a
		 * zeroed-out file, a bomb) would otherwise fill memory first. */
		if (in->nul_at < in->base + in->end)
			return fg_error_set(err, FG_EINVALID, in->name, "NUL byte in the data at line %llu",
					    (unsigned long long)in->line_no + 1);
		size_t off = scanned - in->start;
		int rc = fill(in, err);
		if (rc)
			return rc;
		scanned = in->start + off;
	}
	if (!nl) {
		if (in->start == in->end)
			return 0;
		in->missing_newline = true;
		nl = in->buf + in->end; /* the sentinel's byte: room for the '\0' */
	}
	size_t s = in->start, e = (size_t)(nl - in->buf);
	in->line_no++;
	if (in->nul_at < in->base + e + 1)
		return fg_error_set(err, FG_EINVALID, in->name, "NUL byte in the data at line %llu",
				    (unsigned long long)in->line_no);
	in->start = e < in->end ? e + 1 : e;
	if (e > s && in->buf[e - 1] == '\r')
		e--;
	in->buf[e] = '\0';
	*line = in->buf + s;
	*len = e - s;
	return 1;
}

uint64_t fg_input_offset(const fg_input *in)
{
	return in->base + in->start;
}

bool fg_input_plain_size(uint64_t *size, const fg_input *in)
{
	if (in->gzip || in->pull)
		return false;
	if (in->fd < 0) {
		*size = in->mem_len;
		return true;
	}
	struct stat st;
	if (in->fd_start < 0 || fstat(in->fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < in->fd_start)
		return false;
	*size = (uint64_t)(st.st_size - in->fd_start);
	return true;
}

int fg_input_seek(fg_input *in, uint64_t offset, uint64_t line_no, fg_error *err)
{
	if (!raw_seek(in, offset))
		return fg_error_set(err, FG_EFETCH, in->name, "cannot seek: %s", strerror(errno));
	in->start = in->end = 0;
	in->base = in->produced = offset;
	in->eof = in->missing_newline = false;
	in->line_no = line_no;
	in->limit = UINT64_MAX;
	if (in->nul_at >= offset)
		in->nul_at = UINT64_MAX; /* not seen yet */
	put_sentinel(in);
	return 0;
}

int fg_input_open_at(fg_input **out, const fg_input *in, uint64_t offset, fg_error *err)
{
	fg_input *n;
	int rc = input_init(&n, in->name, in->max_size, err);
	if (rc)
		return rc;
	n->fd = in->fd;
	n->fd_start = in->fd_start;
	n->pread_at = in->fd >= 0 ? in->fd_start : -1;
	n->mem = in->mem;
	n->mem_len = in->mem_len;
	n->max_line = in->max_line;
	n->read_size = in->read_size;
	n->reject_nul = in->reject_nul;
	if ((rc = fg_input_seek(n, offset, 0, err)) != 0) {
		fg_input_free(n);
		return rc;
	}
	*out = n;
	return 0;
}

int fg_input_set_limit(fg_input *in, uint64_t limit, fg_error *err)
{
	if (in->base + in->end > limit) {
		/* What is buffered past the limit is dropped, and read again
		 * once the limit is cleared. */
		if (!raw_seek(in, limit))
			return fg_error_set(err, FG_EFETCH, in->name, "cannot seek: %s", strerror(errno));
		in->end = (size_t)(limit - in->base);
		in->produced = limit;
		in->eof = false;
		if (in->nul_at >= limit)
			in->nul_at = UINT64_MAX; /* not seen yet */
		put_sentinel(in);
	}
	if (in->eof && in->produced == in->limit)
		in->eof = false; /* it was the limit, not the end */
	in->limit = limit;
	return 0;
}

bool fg_input_at_limit(const fg_input *in)
{
	return in->eof && in->produced == in->limit;
}

void fg_input_window(const char **data, const char **end, const fg_input *in)
{
	*data = in->buf + in->start;
	*end = in->buf + in->end;
}

void fg_input_consume_lines(fg_input *in, const char *next, uint64_t lines)
{
	in->start = (size_t)(next - in->buf);
	in->line_no += lines;
}

uint64_t fg_input_line_number(const fg_input *in)
{
	return in->line_no;
}

bool fg_input_missing_final_newline(const fg_input *in)
{
	return in->missing_newline;
}

bool fg_input_is_gzip(const fg_input *in)
{
	return in->gzip;
}

void fg_input_set_name(fg_input *in, const char *name)
{
	snprintf(in->name, sizeof(in->name), "%s", name);
}

const char *fg_input_name(const fg_input *in)
{
	return in->name;
}
