/* fgbisect — a byte source read once, line by line, through a small buffer.
 *
 * Plain or gzip-compressed (detected by the magic bytes, several members
 * allowed), from a file, stdin or memory.  The decompressed size is capped so
 * that a gzip bomb stops with a clear error.  The buffer grows only for a line
 * longer than itself. */
#ifndef FG_INPUT_H
#define FG_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* A line (from fg_input_line or the window) may be read this many bytes past
 * its end: word-at-a-time parsers need no bounds check. */
#define FG_INPUT_PADDING 8

/* Default cap on the decompressed input: 4 GiB. */
#define FG_INPUT_DEFAULT_MAX_SIZE (UINT64_C(4) << 30)

/* Default cap on one line: 64 MiB.  The line buffer grows only for a line
 * longer than itself, so this bounds the reader's memory separately from
 * --max-size: a gzip bomb that is one endless line stops here instead of
 * growing the buffer to the size of the bomb. */
#define FG_INPUT_DEFAULT_MAX_LINE (UINT64_C(64) << 20)

typedef struct fg_input fg_input;

/* Opens a path, or stdin for "-".  max_size 0 means the default.  The path
 * is opened with fg_input_open_file's checks. */
int fg_input_open(fg_input **out, const char *path, uint64_t max_size, fg_error *err);

/* Opens a local input file for reading without ever blocking in open():
 * a regular file, or a pipe named /dev/stdin, /dev/fd/N or /proc/self/fd/N
 * (what a shell's process substitution `<(...)` passes).  A directory, a
 * named FIFO, a device or a socket is refused at once with FG_EFETCH
 * ("a FIFO, not a regular file"): reading one would block forever or never
 * end.  The message is strerror's or that, without the path.  *fd is blocking again and close-on-exec. */
int fg_input_open_file(int *fd, const char *path, fg_error *err);

/* Caps one line at max_line bytes (0: FG_INPUT_DEFAULT_MAX_LINE); a longer
 * line fails with FG_EINVALID naming --max-line. */
void fg_input_set_max_line(fg_input *in, uint64_t max_line);

/* Reads at most n raw bytes at a time (0: as many as fit, the default).
 * With n = 1 on plain input no line is whole in the buffer before
 * fg_input_line returns it, so a reader's hot loop over the whole lines of
 * the window sees none of them and its line-at-a-time path sees them all:
 * the fuzz targets compare the two. */
void fg_input_set_read_size(fg_input *in, size_t n);

/* Reads from memory (not copied; must outlive the input).  name is used in
 * error messages. */
int fg_input_open_memory(fg_input **out, const void *data, size_t len, const char *name,
			 uint64_t max_size, fg_error *err);

/* Where fg_input_open_pull's raw bytes come from: up to n bytes at dst,
 * *got 0 at the end; an error fills err (naming its source). */
typedef int (*fg_input_pull_fn)(size_t *got, void *ctx, void *dst, size_t n, fg_error *err);

/* Reads the raw bytes from pull(ctx) (an archive's member: src/io/archive.h),
 * gunzipped when they are gzip, under max_size (0: the default) as any
 * input.  bomb ends the --max-size and --max-line messages when the content
 * is not gzip ("; a zip bomb?"; NULL: nothing); it must outlive the input.
 * Such an input cannot be rewound, sought or split. */
int fg_input_open_pull(fg_input **out, fg_input_pull_fn pull, void *ctx, const char *name, const char *bomb,
		       uint64_t max_size, fg_error *err);

void fg_input_free(fg_input *in);

/* Makes at least want bytes of decompressed content available without
 * consuming them (fewer at the end of the input). */
int fg_input_peek(const char **data, size_t *len, fg_input *in, size_t want, fg_error *err);

/* fg_input_peek() that reads no further than want, and first moves the
 * unread bytes to the buffer's start when want would not fit after them: a
 * reader of large records (JFR chunks) then touches no more memory than its
 * largest record, where fg_input_peek's read-ahead would fill the buffer
 * grown for it (a 64 MB buffer for chunks of 36 MB: 7,500 more page faults,
 * 8 % of reading a 175 MB recording). */
int fg_input_peek_most(const char **data, size_t *len, fg_input *in, size_t want, fg_error *err);

/* Reads n bytes of content into dst, consumed: the buffered unread bytes
 * first, the rest straight from the source, not through the buffer; *got < n
 * only at the end of the content.  The count, the first NUL and --max-size
 * are kept as fg_input_peek_most's reads keep them (a reader of large
 * records into buffers of its own: JFR chunks read on two threads). */
int fg_input_read(size_t *got, fg_input *in, void *dst, size_t n, fg_error *err);

/* True when the input can be read again from its start: memory, or a
 * regular file (not a pipe). */
bool fg_input_can_rewind(const fg_input *in);

/* Reads the input again from its start (fg_input_can_rewind), as if just
 * opened: for a reader that makes two passes over a large message without
 * holding it (pprof).  Fails with FG_EFETCH when the
 * file cannot be sought. */
int fg_input_rewind(fg_input *in, fg_error *err);

/* From now on a NUL byte in the content is an error (profiles are text;
 * binary formats are recognised by peeking first). */
void fg_input_reject_nul(fg_input *in);

/* The next line, without its '\n' and a '\r' before it.  The line is
 * writable and valid until the next call; line[len] is addressable (the byte
 * after it may be overwritten).  Returns 1 for a line, 0 at the end, < 0 on
 * error. */
int fg_input_line(char **line, size_t *len, fg_input *in, fg_error *err);

/* Direct access for hot loops: the unread bytes [*data, *end).  *end is
 * always a '\n' sentinel (not part of the content), so a scan for a line end
 * needs no bounds check; a line that reaches *end is not whole yet: use
 * fg_input_line for it. */
void fg_input_window(const char **data, const char **end, const fg_input *in);

/* Consumes the window up to next (just past a '\n'), which holds lines whole
 * lines. */
void fg_input_consume_lines(fg_input *in, const char *next, uint64_t lines);

/* 1-based number of the last line returned. */
uint64_t fg_input_line_number(const fg_input *in);

/* True when the input ended with a line that had no '\n'. */
bool fg_input_missing_final_newline(const fg_input *in);

bool fg_input_is_gzip(const fg_input *in);

/* ---- Reading one plain input in two parts (html.c's split) ----
 * For content that is not compressed, where content offsets are file offsets:
 * one thread reads the start up to a limit, another the rest through a second
 * input over the same bytes, and the first then goes on where the second
 * stopped (or from the limit, when the second part's reading is not taken). */

/* The absolute content offset of the next unread byte. */
uint64_t fg_input_offset(const fg_input *in);

/* True, with the content's size, for plain (not gzip) content of a known
 * size: memory, or a regular file.  Call after the first read (the gzip
 * magic is sniffed then). */
bool fg_input_plain_size(uint64_t *size, const fg_input *in);

/* A second input over in's plain content (fg_input_plain_size) from offset:
 * memory is shared, a file is read with pread on in's descriptor (which stays
 * in's), so both may be read at once from two threads.  Line numbers count
 * from offset (the first line is 1).  The NUL check, --max-line and the read
 * size are in's. */
int fg_input_open_at(fg_input **out, const fg_input *in, uint64_t offset, fg_error *err);

/* Plain content: the input goes on at offset, whatever is buffered dropped,
 * with line_no lines counted before it; the limit is cleared. */
int fg_input_seek(fg_input *in, uint64_t offset, uint64_t line_no, fg_error *err);

/* Plain content: from now on the content ends at offset limit (not before
 * what was consumed), as if the input ended there (fg_input_at_limit tells
 * the two apart); what is buffered past it is dropped.  UINT64_MAX clears it,
 * and the input goes on from the limit.  Fails (nothing changed) only when
 * the file cannot be sought. */
int fg_input_set_limit(fg_input *in, uint64_t limit, fg_error *err);

/* True when the content read so far ends at the limit, not at the end. */
bool fg_input_at_limit(const fg_input *in);
const char *fg_input_name(const fg_input *in);

/* Names the input in messages from now on (a URL for its cache file). */
void fg_input_set_name(fg_input *in, const char *name);

#endif
