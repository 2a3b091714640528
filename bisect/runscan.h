/* fgbisect — a runs file from a folder of Camunda daily flame-graph artifacts
 * (`fgbisect runs scan DIR`).
 *
 * The daily load tests (zeebe.md §2) publish one artifact per variant, event
 * and pod:
 *
 *     flamegraph-medic-daily-2026-08-31-abc1234-test-grpc-cpu-camunda-0-20260831/
 *         c8-medic-daily-2026-08-31-abc1234-test-grpc-camunda-0-flamegraph-grpc-cpu-20260831.html
 *
 * Both that layout and the files side by side are read; the build date and
 * the commit come from the benchmark name `medic-daily-DATE-SHA-test[-VARIANT]`
 * found in the file name or any folder above it (DIR's own path included),
 * never from the capture date.  docs/runs-file.md has the rules. */
#ifndef FG_RUNSCAN_H
#define FG_RUNSCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/* Cost: one directory walk; names only, no flame graph is opened.  An
 * archive (.zip, .tar.gz, .tgz, .tar: a downloaded GitHub Actions artifact)
 * is read once to list its members (which loads the module that reads
 * archives: src/io/archive.h).  Immutable once made. */
typedef struct fg_runscan fg_runscan;

/* One profile found.  Strings live as long as the scan. */
typedef struct fg_runscan_entry {
	const char *date;     /* build date, YYYY-MM-DD */
	const char *commit;   /* the short sha of the benchmark name */
	const char *node;     /* the pod, "camunda-0"; NULL when no name tells */
	const char *protocol; /* "grpc" or "rest" from the variant or test type; NULL otherwise */
	const char *event;    /* "cpu", "wall", "alloc", ...; NULL when no name tells */
	const char *path;     /* the file, relative to DIR; ARCHIVE#MEMBER for a member */
} fg_runscan_entry;

/* A flame-graph file (.html or .html.gz) that was left out, and why. */
typedef struct fg_runscan_skip {
	const char *path;     /* relative to DIR */
	const char *reason;
} fg_runscan_skip;

/* Walks dir (hidden entries and symbolic links to folders are not followed)
 * and classifies every .html and .html.gz file by its path, and those inside
 * archives as if the archive (named without its suffix) were a folder; an
 * archive that cannot be read or holds none is skipped, with the reason.  Files of other
 * types are ignored silently; flame graphs whose names do not identify a
 * build are reported as skipped.  The entries come out sorted by date,
 * commit, node, protocol, event and path.
 * A folder without any usable flame graph gives an empty scan (the skipped
 * list says why).  FG_EFETCH when dir or a folder below it cannot be read. */
int fg_runscan_dir(fg_runscan **out, const char *dir, fg_error *err);

/* An empty scan, for artifacts listed elsewhere (`runs github`): filled with
 * fg_runscan_add_artifact, sorted by fg_runscan_finish, written by
 * fg_runscan_format with relative_to NULL (locations as given). */
int fg_runscan_new(fg_runscan **out, fg_error *err);

/* Adds an artifact by its name, read as an artifact folder's name
 * (flamegraph-medic-daily-DATE-SHA-test[-VARIANT]-EVENT-camunda-N-YYYYMMDD:
 * node, protocol, event; the build's date and commit), downloaded from
 * location.  commit (a full id) and date (YYYY-MM-DD...) are its run's: the
 * build's when the name holds no benchmark name, and the commit's full id
 * when it starts with the name's short one.  Skipped (with the reason) when
 * neither gives a valid date and commit, or location cannot be a runs-file
 * location. */
int fg_runscan_add_artifact(fg_runscan *scan, const char *name, const char *commit, const char *date,
                            const char *location, fg_error *err);

/* Sorts the entries as fg_runscan_dir does (date, commit, node, protocol,
 * event, location). */
void fg_runscan_finish(fg_runscan *scan);

void fg_runscan_free(fg_runscan *scan);

size_t fg_runscan_count(const fg_runscan *scan);

size_t fg_runscan_skipped_count(const fg_runscan *scan);
const fg_runscan_skip *fg_runscan_skipped_at(const fg_runscan *scan, size_t i);

/* The runs file text (*out, NUL-terminated, free() it): a header comment and
 * one aligned line per entry.  Locations are relative to the folder
 * relative_to (the runs file's folder), or to DIR when relative_to is NULL.
 * FG_EFETCH when relative_to cannot be resolved. */
int fg_runscan_format(char **out, const fg_runscan *scan, const char *relative_to, fg_error *err);

/* The runs file written to path, its locations relative to path's folder,
 * through a temporary file in that folder renamed into place (a reader never
 * sees half a runs file; a signal removes the temporary), as public as the
 * umask lets a new file be.  FG_EFETCH when it cannot be written. */
int fg_runscan_write(const fg_runscan *scan, const char *path, fg_error *err);

/* text written to path the same way (runs github: a file it extends). */
int fg_runscan_write_text(const char *path, const char *text, fg_error *err);

/* The last date of a runs file's lines (old: its text), or "" when none:
 * where `runs github` goes on when it extends a runs file. */
void fg_runscan_last_date(char out[11], const char *old);

/* fg_runscan_format (locations as given) after the lines of old (a runs
 * file's text) dated before since, kept as they are: a runs file extended
 * with the runs from since on, which replace old's lines of those days. */
int fg_runscan_format_after(char **out, const fg_runscan *scan, const char *old, const char *since, fg_error *err);

/* The benchmark name in a path or URL (the first folder or file name that
 * holds one): `medic-daily-DATE-SHA-test`, with its `-VARIANT` when the name
 * goes on with one (grpc, rest, none, elasticsearch ...: not an event, a pod
 * or a capture date).  The daily namespace is `c8-` and this name.  Copies it
 * to out (cap bytes) and returns true; false when no name holds one. */
bool fg_runscan_benchmark(char *out, size_t cap, const char *path);

#endif
