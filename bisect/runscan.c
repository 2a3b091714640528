#include "bisect/runscan.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "io/archive.h"
#include "io/input.h"
#include "git/repo.h"
#include "bisect/runs.h"

/* Artifact trees are two levels deep; the cap only guards against loops
 * through bind mounts and absurd trees. */
#define SCAN_MAX_DEPTH 16
#define MAX_TOKENS 64

struct entry {
	fg_runscan_entry pub;
	char *mem; /* one block holding every string of pub */
};

struct fg_runscan {
	char *dir;      /* as given */
	char *absdir;   /* dir made absolute, not resolved: its names are read */
	struct entry *entries;
	size_t n, cap;
	fg_runscan_skip *skips;
	size_t nskips, skipcap;
};

/* What one name (a folder or the file) says about a profile; empty strings
 * when it does not say. */
typedef struct facts {
	char date[11];
	char commit[41];
	char protocol[5];
	char event[16];
	char node[64];
} facts;

typedef struct tok {
	const char *p;
	size_t n;
} tok;

static bool tok_is(tok t, const char *s)
{
	return strlen(s) == t.n && !memcmp(t.p, s, t.n);
}

static bool tok_digits(tok t, size_t min, size_t max)
{
	if (t.n < min || t.n > max)
		return false;
	for (size_t i = 0; i < t.n; i++)
		if (t.p[i] < '0' || t.p[i] > '9')
			return false;
	return true;
}

/* Copies the text from token a through token b (inclusive) into dst. */
static bool tok_copy(char *dst, size_t cap, tok a, tok b)
{
	size_t n = (size_t)(b.p + b.n - a.p);
	if (n >= cap)
		return false;
	memcpy(dst, a.p, n);
	dst[n] = '\0';
	return true;
}

/* async-profiler's event names that occur in Camunda's file names; the
 * list is what separates an optional test type from the event. */
static bool is_event(tok t)
{
	static const char *const events[] = { "cpu", "wall", "alloc", "lock", "itimer", "ctimer",
	                                      "nativemem" };
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (tok_is(t, events[i]))
			return true;
	return false;
}

/* A StatefulSet pod name, `camunda-0`: a name with a letter, then an
 * ordinal (short, so that an 8-digit capture date is never taken for one). */
static bool is_pod(const tok *t)
{
	bool letter = false;
	for (size_t i = 0; i < t[0].n; i++) {
		char c = t[0].p[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
			letter = true;
		else if (c < '0' || c > '9')
			return false;
	}
	return letter && tok_digits(t[1], 1, 4);
}

static size_t tokenize(tok *t, const char *s, size_t len)
{
	size_t n = 0;
	const char *end = s + len;
	while (s <= end) {
		const char *dash = memchr(s, '-', (size_t)(end - s));
		const char *e = dash ? dash : end;
		if (n == MAX_TOKENS)
			return MAX_TOKENS + 1;
		t[n].p = s;
		t[n].n = (size_t)(e - s);
		n++;
		s = e + 1;
	}
	return n;
}

/* Finds `medic-daily-YYYY-MM-DD-SHA-test` in t[0..n): fills f->date and
 * f->commit and returns the index after `test`, or 0 when absent. */
static size_t find_benchmark(facts *f, const tok *t, size_t n)
{
	for (size_t i = 0; i + 7 <= n; i++) {
		if (!tok_is(t[i], "medic") || !tok_is(t[i + 1], "daily") || !tok_is(t[i + 6], "test"))
			continue;
		char date[11];
		if (!tok_digits(t[i + 2], 4, 4) || !tok_digits(t[i + 3], 2, 2) || !tok_digits(t[i + 4], 2, 2) ||
		    !tok_copy(date, sizeof(date), t[i + 2], t[i + 4]) || !fg_runs_valid_date(date, 10) ||
		    !fg_repo_valid_id(t[i + 5].p, t[i + 5].n))
			continue;
		memcpy(f->date, date, sizeof(date));
		tok_copy(f->commit, sizeof(f->commit), t[i + 5], t[i + 5]);
		for (char *c = f->commit; *c; c++)
			if (*c >= 'A' && *c <= 'F')
				*c = (char)(*c - 'A' + 'a');
		return i + 7;
	}
	return 0;
}

/* The protocol a variant or test type names: grpc or rest; the others
 * (none, elasticsearch, opensearch, ...) name the storage, not the API. */
static void set_protocol(facts *f, tok a, tok b)
{
	if (a.p == b.p && (tok_is(a, "grpc") || tok_is(a, "rest")))
		tok_copy(f->protocol, sizeof(f->protocol), a, a);
}

/* The part of a benchmark-derived name after the benchmark (or after
 * `flamegraph-` in an artifact folder without one):
 * `[VARIANT-]EVENT[-POD][-YYYYMMDD]` or `[VARIANT-]POD[-YYYYMMDD]`.
 * A variant is only allowed after a benchmark name.  False when the tokens
 * do not have that shape. */
static bool parse_tail(facts *f, const tok *t, size_t s, size_t n, bool benchmark)
{
	if (n > s && tok_digits(t[n - 1], 8, 8))
		n--;
	size_t e = s;
	while (e < n && !is_event(t[e]))
		e++;
	size_t variant_end;
	if (e < n) {
		if (!(n - e == 1 || (n - e == 3 && is_pod(&t[e + 1]))))
			return false;
		tok_copy(f->event, sizeof(f->event), t[e], t[e]);
		if (n - e == 3 && !tok_copy(f->node, sizeof(f->node), t[e + 1], t[e + 2]))
			return false;
		variant_end = e;
	} else if (n - s >= 2 && is_pod(&t[n - 2])) {
		if (!tok_copy(f->node, sizeof(f->node), t[n - 2], t[n - 1]))
			return false;
		variant_end = n - 2;
	} else {
		variant_end = n;
	}
	if (variant_end > s) {
		if (!benchmark)
			return false;
		set_protocol(f, t[s], t[variant_end - 1]);
	}
	return true;
}

/* A folder name.  Only artifact folders (`flamegraph-...`) and names holding
 * a benchmark name say anything: `camunda-0` or `2026-08-31` alone are too
 * common to be trusted. */
static void parse_folder(facts *f, const char *name)
{
	tok t[MAX_TOKENS];
	size_t n = tokenize(t, name, strlen(name));
	if (n > MAX_TOKENS)
		return;
	size_t k = find_benchmark(f, t, n);
	facts tail = { 0 };
	if (tok_is(t[0], "flamegraph") || k) {
		if (parse_tail(&tail, t, k ? k : 1, n, k != 0)) {
			memcpy(f->protocol, tail.protocol, sizeof(f->protocol));
			memcpy(f->event, tail.event, sizeof(f->event));
			memcpy(f->node, tail.node, sizeof(f->node));
		}
	}
}

/* A file name: `[POD-]flamegraph[-TEST_TYPE][-EVENT][-YYYYMMDD].html[.gz]`,
 * where POD may start with the namespace, which holds the benchmark name.
 * NULL, or the reason it is not a Camunda flame-graph name. */
static const char *parse_file(facts *f, const char *name)
{
	size_t len = strlen(name);
	if (len > 8 && !strcmp(name + len - 8, ".html.gz"))
		len -= 8;
	else
		len -= 5; /* .html: only such names get here */
	tok t[MAX_TOKENS];
	size_t n = tokenize(t, name, len);
	if (n > MAX_TOKENS)
		return "not a flame-graph name (too many parts)";
	size_t fg = n;
	for (size_t i = n; i-- > 0;)
		if (tok_is(t[i], "flamegraph")) {
			fg = i;
			break;
		}
	if (fg == n)
		return "not a flame-graph name (POD-flamegraph[-TYPE]-EVENT-YYYYMMDD.html)";

	size_t j = fg + 1;
	if (j + 1 < n && !is_event(t[j]) && is_event(t[j + 1])) {
		set_protocol(f, t[j], t[j]);
		j++;
	}
	if (j < n && is_event(t[j])) {
		tok_copy(f->event, sizeof(f->event), t[j], t[j]);
		j++;
	}
	/* The capture time: YYYYMMDD now, YYYY-MM-DD_HH-MM-SS in 2025. */
	for (; j < n; j++)
		for (size_t c = 0; c < t[j].n; c++)
			if ((t[j].p[c] < '0' || t[j].p[c] > '9') && t[j].p[c] != '_')
				return "not a flame-graph name (POD-flamegraph[-TYPE]-EVENT-YYYYMMDD.html)";

	size_t k = find_benchmark(f, t, fg);
	if (k) {
		facts pod = { 0 };
		if (!parse_tail(&pod, t, k, fg, true) || pod.event[0])
			return "unrecognised pod name before -flamegraph";
		memcpy(f->node, pod.node, sizeof(f->node));
		if (pod.protocol[0]) {
			if (f->protocol[0] && strcmp(f->protocol, pod.protocol))
				return "the variant and the test type name different protocols";
			memcpy(f->protocol, pod.protocol, sizeof(f->protocol));
		}
	} else if (fg >= 2 && is_pod(&t[fg - 2])) {
		tok_copy(f->node, sizeof(f->node), t[fg - 2], t[fg - 1]);
	}
	return NULL;
}

/* Merges what an outer name says into acc (the inner names' facts win
 * where both speak); a reason when they contradict each other. */
static const char *merge(facts *acc, const facts *outer, const char *folder, char *why, size_t whylen)
{
	if (outer->date[0]) {
		if (!acc->date[0]) {
			memcpy(acc->date, outer->date, sizeof(acc->date));
			memcpy(acc->commit, outer->commit, sizeof(acc->commit));
		} else {
			size_t a = strlen(acc->commit), b = strlen(outer->commit);
			if (strcmp(acc->date, outer->date) || strncmp(acc->commit, outer->commit, a < b ? a : b)) {
				snprintf(why, whylen, "folder '%s' names another build (%s %s, not %s %s)", folder,
				         outer->date, outer->commit, acc->date, acc->commit);
				return why;
			}
			if (b > a)
				memcpy(acc->commit, outer->commit, sizeof(acc->commit));
		}
	}
	struct {
		char *mine;
		const char *theirs;
		size_t size;
		const char *what;
	} fields[] = {
		{ acc->protocol, outer->protocol, sizeof(acc->protocol), "protocol" },
		{ acc->event, outer->event, sizeof(acc->event), "event" },
		{ acc->node, outer->node, sizeof(acc->node), "node" },
	};
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (!fields[i].theirs[0])
			continue;
		if (!fields[i].mine[0]) {
			memcpy(fields[i].mine, fields[i].theirs, fields[i].size);
		} else if (strcmp(fields[i].mine, fields[i].theirs)) {
			snprintf(why, whylen, "folder '%s' names another %s (%s, not %s)", folder,
			         fields[i].what, fields[i].theirs, fields[i].mine);
			return why;
		}
	}
	return NULL;
}

void fg_runscan_free(fg_runscan *scan)
{
	if (!scan)
		return;
	for (size_t i = 0; i < scan->n; i++)
		free(scan->entries[i].mem);
	for (size_t i = 0; i < scan->nskips; i++) {
		free((char *)scan->skips[i].path);
		free((char *)scan->skips[i].reason);
	}
	free(scan->entries);
	free(scan->skips);
	free(scan->dir);
	free(scan->absdir);
	free(scan);
}

static int add_skip(fg_runscan *scan, const char *rel, const char *reason, fg_error *err)
{
	if (scan->nskips == scan->skipcap) {
		size_t cap = scan->skipcap ? scan->skipcap * 2 : 16;
		fg_runscan_skip *s = realloc(scan->skips, cap * sizeof(*s));
		if (!s)
			return fg_error_oom(err, scan->dir);
		scan->skips = s;
		scan->skipcap = cap;
	}
	char *p = strdup(rel), *r = strdup(reason);
	if (!p || !r) {
		free(p);
		free(r);
		return fg_error_oom(err, scan->dir);
	}
	scan->skips[scan->nskips].path = p;
	scan->skips[scan->nskips].reason = r;
	scan->nskips++;
	return 0;
}

static int add_entry(fg_runscan *scan, const facts *f, const char *rel, fg_error *err)
{
	if (scan->n == scan->cap) {
		size_t cap = scan->cap ? scan->cap * 2 : 64;
		struct entry *e = realloc(scan->entries, cap * sizeof(*e));
		if (!e)
			return fg_error_oom(err, scan->dir);
		scan->entries = e;
		scan->cap = cap;
	}
	const char *parts[] = { f->date, f->commit, f->node, f->protocol, f->event, rel };
	size_t size = 0;
	for (size_t i = 0; i < 6; i++)
		size += strlen(parts[i]) + 1;
	char *mem = malloc(size);
	if (!mem)
		return fg_error_oom(err, scan->dir);
	const char *s[6];
	char *p = mem;
	for (size_t i = 0; i < 6; i++) {
		size_t n = strlen(parts[i]) + 1;
		memcpy(p, parts[i], n);
		s[i] = *parts[i] ? p : NULL;
		p += n;
	}
	struct entry *e = &scan->entries[scan->n++];
	e->mem = mem;
	e->pub = (fg_runscan_entry){ .date = s[0], .commit = s[1], .node = s[2], .protocol = s[3],
	                             .event = s[4], .path = s[5] };
	return 0;
}

/* Classifies one .html / .html.gz file from the names in its path rel, the
 * innermost first; location is what the runs file holds for it (rel, or
 * ARCHIVE#MEMBER for a member, whose rel is the archive's name without its
 * suffix as a folder, and the member's path). */
static int classify(fg_runscan *scan, const char *rel, const char *location, fg_error *err)
{
	if (location[strcspn(location, " \t\n\r")] || location[0] == '#')
		return add_skip(scan, location,
		                "a runs file cannot hold a location with whitespace or a leading '#'", err);
	size_t len = strlen(scan->absdir) + 1 + strlen(rel) + 1;
	char *path = malloc(len);
	if (!path)
		return fg_error_oom(err, scan->dir);
	snprintf(path, len, "%s/%s", scan->absdir, rel);

	facts acc = { 0 };
	char *slash = strrchr(path, '/');
	const char *reason = parse_file(&acc, slash + 1);
	char why[512];
	while (!reason && slash > path) {
		*slash = '\0';
		slash = strrchr(path, '/');
		facts outer = { 0 };
		parse_folder(&outer, slash + 1);
		reason = merge(&acc, &outer, slash + 1, why, sizeof(why));
	}
	free(path);
	if (!reason && !acc.date[0])
		reason = "no benchmark name (medic-daily-YYYY-MM-DD-SHA-test) in the file or folder names";
	return reason ? add_skip(scan, location, reason, err) : add_entry(scan, &acc, location, err);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && !strcmp(s + n - m, suffix);
}

static bool is_flame_graph(const char *name)
{
	return has_suffix(name, ".html") || has_suffix(name, ".html.gz");
}

/* The length of an archive's suffix (a downloaded artifact's .zip, a CI
 * system's .tar.gz), 0 for other names. */
static size_t archive_suffix(const char *name)
{
	static const char *const suffixes[] = { ".zip", ".tar.gz", ".tgz", ".tar" };
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (has_suffix(name, suffixes[i]))
			return strlen(suffixes[i]);
	return 0;
}

/* Classifies the flame graphs inside the archive rel (full: its path) as
 * if the archive were a folder named without its suffix; an archive that
 * cannot be read or holds none is a skip. */
static int scan_archive(fg_runscan *scan, const char *rel, const char *full, size_t suffix, fg_error *err)
{
	fg_input *in = NULL;
	fg_archive *a = NULL;
	fg_error aerr;
	const char *member;
	size_t found = 0;
	int rc = 0, arc = fg_input_open(&in, full, 0, &aerr);
	if (!arc)
		arc = fg_archive_open(&a, in, &aerr);
	while (!arc && !rc && (arc = fg_archive_next(&member, a, &aerr)) == 1) {
		arc = 0;
		if (!is_flame_graph(member))
			continue;
		char names[PATH_MAX], location[PATH_MAX];
		if (snprintf(names, sizeof(names), "%.*s/%s", (int)(strlen(rel) - suffix), rel, member) >=
		            (int)sizeof(names) ||
		    snprintf(location, sizeof(location), "%s#%s", rel, member) >= (int)sizeof(location))
			rc = add_skip(scan, rel, "path too long", err);
		else
			rc = classify(scan, names, location, err);
		found++;
	}
	fg_archive_free(a);
	fg_input_free(in);
	if (!rc && arc)
		rc = add_skip(scan, rel, aerr.message, err);
	else if (!rc && !found)
		rc = add_skip(scan, rel, "an archive without a flame graph (.html, .html.gz) in it", err);
	return rc;
}

static int walk(fg_runscan *scan, const char *rel, int depth, fg_error *err)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s%s%s", scan->dir, *rel ? "/" : "", rel) >= (int)sizeof(path))
		return add_skip(scan, rel, "path too long", err);
	DIR *d = opendir(path);
	if (!d) {
		if (!*rel)
			return fg_error_set(err, FG_EFETCH, scan->dir, "cannot read the folder: %s",
			                    strerror(errno));
		return add_skip(scan, rel, strerror(errno), err);
	}
	/* Sorted, so that the skipped list and equal entries come out the same
	 * on every file system. */
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	struct dirent *de;
	while (!rc && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			char **nn = realloc(names, cap * sizeof(*nn));
			if (!nn) {
				rc = fg_error_oom(err, scan->dir);
				break;
			}
			names = nn;
		}
		if (!(names[n] = strdup(de->d_name)))
			rc = fg_error_oom(err, scan->dir);
		else
			n++;
	}
	closedir(d);
	if (!rc && n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; !rc && i < n; i++) {
		char child[PATH_MAX], full[PATH_MAX];
		if (snprintf(child, sizeof(child), "%s%s%s", rel, *rel ? "/" : "", names[i]) >= (int)sizeof(child) ||
		    snprintf(full, sizeof(full), "%s/%s", path, names[i]) >= (int)sizeof(full)) {
			rc = add_skip(scan, names[i], "path too long", err);
			continue;
		}
		struct stat st;
		if (lstat(full, &st) < 0)
			continue; /* removed while we walk */
		if (S_ISDIR(st.st_mode)) {
			if (depth < SCAN_MAX_DEPTH)
				rc = walk(scan, child, depth + 1, err);
			continue;
		}
		size_t suffix = archive_suffix(names[i]);
		if (!suffix && !is_flame_graph(names[i]))
			continue;
		if (S_ISLNK(st.st_mode) && stat(full, &st) < 0)
			continue;
		if (S_ISREG(st.st_mode))
			rc = suffix ? scan_archive(scan, child, full, suffix, err) : classify(scan, child, child, err);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

static const char *dash(const char *s)
{
	return s ? s : "-";
}

static int by_fields(const void *a, const void *b)
{
	const fg_runscan_entry *x = &((const struct entry *)a)->pub;
	const fg_runscan_entry *y = &((const struct entry *)b)->pub;
	int c = strcmp(x->date, y->date);
	if (!c)
		c = strcmp(x->commit, y->commit);
	if (!c)
		c = strcmp(dash(x->node), dash(y->node));
	if (!c)
		c = strcmp(dash(x->protocol), dash(y->protocol));
	if (!c)
		c = strcmp(dash(x->event), dash(y->event));
	if (!c)
		c = strcmp(x->path, y->path);
	return c;
}

int fg_runscan_dir(fg_runscan **out, const char *dir, fg_error *err)
{
	*out = NULL;
	fg_runscan *scan = calloc(1, sizeof(*scan));
	if (!scan)
		return fg_error_oom(err, dir);
	/* Folder names above DIR count too (`runs scan .` inside a folder named
	 * for the build), so keep DIR absolute; symbolic links are left as
	 * they are because their names are what the user chose. */
	char cwd[PATH_MAX];
	size_t len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		len--;
	scan->dir = strndup(dir, len);
	if (scan->dir && dir[0] != '/' && getcwd(cwd, sizeof(cwd))) {
		scan->absdir = malloc(strlen(cwd) + 1 + len + 1);
		if (scan->absdir)
			sprintf(scan->absdir, "%s/%s", cwd, scan->dir);
	} else if (scan->dir) {
		/* Without a current directory only the names inside DIR count. */
		scan->absdir = strdup(scan->dir);
	}
	if (!scan->dir || !scan->absdir) {
		fg_runscan_free(scan);
		return fg_error_oom(err, dir);
	}
	int rc = walk(scan, "", 0, err);
	if (rc) {
		fg_runscan_free(scan);
		return rc;
	}
	fg_runscan_finish(scan);
	*out = scan;
	return 0;
}

int fg_runscan_new(fg_runscan **out, fg_error *err)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : fg_error_oom(err, NULL);
}

int fg_runscan_add_artifact(fg_runscan *scan, const char *name, const char *commit, const char *date,
                            const char *location, fg_error *err)
{
	facts f = { 0 };
	parse_folder(&f, name);
	/* The benchmark name says which build was measured (a reuse-tag run's
	 * is older than the workflow's commit); the run's own full id when it
	 * is that build. */
	if (!f.date[0]) {
		snprintf(f.date, sizeof(f.date), "%.10s", date);
		snprintf(f.commit, sizeof(f.commit), "%s", commit);
	} else if (!strncasecmp(commit, f.commit, strlen(f.commit))) {
		snprintf(f.commit, sizeof(f.commit), "%s", commit);
	}
	if (!fg_runs_valid_date(f.date, strlen(f.date)) || !fg_repo_valid_id(f.commit, strlen(f.commit)))
		return add_skip(scan, location, "no valid date or commit for the run", err);
	if (location[strcspn(location, " \t\n\r")] || location[0] == '#')
		return add_skip(scan, location, "a runs file cannot hold a location with whitespace or a leading '#'",
		                err);
	return add_entry(scan, &f, location, err);
}

void fg_runscan_finish(fg_runscan *scan)
{
	if (scan->n)
		qsort(scan->entries, scan->n, sizeof(*scan->entries), by_fields);
}

size_t fg_runscan_count(const fg_runscan *scan)
{
	return scan->n;
}

size_t fg_runscan_skipped_count(const fg_runscan *scan)
{
	return scan->nskips;
}

const fg_runscan_skip *fg_runscan_skipped_at(const fg_runscan *scan, size_t i)
{
	return i < scan->nskips ? &scan->skips[i] : NULL;
}

/* A growing string for the formatted file. */
typedef struct strbuf {
	char *p;
	size_t n, cap;
	bool failed;
} strbuf;

static void sb_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(strbuf *sb, const char *fmt, ...)
{
	if (sb->failed)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int need = vsnprintf(sb->p ? sb->p + sb->n : NULL, sb->p ? sb->cap - sb->n : 0, fmt, ap);
		va_end(ap);
		if (need < 0) {
			sb->failed = true;
			return;
		}
		if (sb->p && sb->n + (size_t)need < sb->cap) {
			sb->n += (size_t)need;
			return;
		}
		size_t cap = (sb->cap ? sb->cap * 2 : 4096) + (size_t)need;
		char *p = realloc(sb->p, cap);
		if (!p) {
			sb->failed = true;
			return;
		}
		sb->p = p;
		sb->cap = cap;
	}
}

/* Number of '/'-separated non-empty components of an absolute path. */
static size_t components(const char *s, const char **at, size_t max)
{
	size_t n = 0;
	while (*s) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		if (n < max)
			at[n] = s;
		n++;
		while (*s && *s != '/')
			s++;
	}
	return n;
}

static bool same_component(const char *a, const char *b)
{
	size_t la = strcspn(a, "/"), lb = strcspn(b, "/");
	return la == lb && !memcmp(a, b, la);
}

int fg_runscan_format(char **out, const fg_runscan *scan, const char *relative_to, fg_error *err)
{
	*out = NULL;
	/* The prefix that leads from relative_to to DIR: resolved paths, so
	 * that `..` and symbolic links in either do not fool the comparison. */
	char prefix[PATH_MAX * 2] = "";
	if (relative_to) {
		char from[PATH_MAX], to[PATH_MAX];
		if (!realpath(relative_to, from))
			return fg_error_set(err, FG_EFETCH, relative_to, "cannot resolve the folder: %s",
			                    strerror(errno));
		if (!realpath(scan->dir, to))
			return fg_error_set(err, FG_EFETCH, scan->dir, "cannot resolve the folder: %s",
			                    strerror(errno));
		const char *fc[PATH_MAX / 2], *tc[PATH_MAX / 2];
		size_t nf = components(from, fc, PATH_MAX / 2), nt = components(to, tc, PATH_MAX / 2);
		size_t common = 0;
		while (common < nf && common < nt && same_component(fc[common], tc[common]))
			common++;
		size_t o = 0;
		for (size_t i = common; i < nf && o < sizeof(prefix); i++)
			o += (size_t)snprintf(prefix + o, sizeof(prefix) - o, "../");
		for (size_t i = common; i < nt && o < sizeof(prefix); i++)
			o += (size_t)snprintf(prefix + o, sizeof(prefix) - o, "%.*s/", (int)strcspn(tc[i], "/"),
			                      tc[i]);
	}

	size_t w[5] = { strlen("# date"), strlen("commit"), strlen("node"), strlen("protocol"),
	                strlen("event") };
	for (size_t i = 0; i < scan->n; i++) {
		const fg_runscan_entry *e = &scan->entries[i].pub;
		const char *v[5] = { e->date, e->commit, dash(e->node), dash(e->protocol), dash(e->event) };
		for (size_t k = 0; k < 5; k++)
			if (strlen(v[k]) > w[k])
				w[k] = strlen(v[k]);
	}
	strbuf sb = { 0 };
	sb_printf(&sb, "%-*s  %-*s  %-*s  %-*s  %-*s  location\n", (int)w[0], "# date", (int)w[1], "commit",
	          (int)w[2], "node", (int)w[3], "protocol", (int)w[4], "event");
	for (size_t i = 0; i < scan->n; i++) {
		const fg_runscan_entry *e = &scan->entries[i].pub;
		sb_printf(&sb, "%-*s  %-*s  %-*s  %-*s  %-*s  %s%s\n", (int)w[0], e->date, (int)w[1], e->commit,
		          (int)w[2], dash(e->node), (int)w[3], dash(e->protocol), (int)w[4], dash(e->event),
		          prefix, e->path);
	}
	if (sb.failed) {
		free(sb.p);
		return fg_error_oom(err, scan->dir);
	}
	*out = sb.p;
	return 0;
}

/* The date field of a runs file's data line (NULL for a comment, a blank
 * line or a line without a date). */
static bool line_date(char out[11], const char *line, size_t len)
{
	while (len && (*line == ' ' || *line == '\t'))
		line++, len--;
	size_t n = 0;
	while (n < len && line[n] != ' ' && line[n] != '\t')
		n++;
	if (!len || line[0] == '#' || n != 10 || !fg_runs_valid_date(line, 10))
		return false;
	memcpy(out, line, 10);
	out[10] = '\0';
	return true;
}

void fg_runscan_last_date(char out[11], const char *old)
{
	out[0] = '\0';
	char d[11];
	for (const char *p = old; *p;) {
		size_t len = strcspn(p, "\n");
		if (line_date(d, p, len) && strcmp(d, out) > 0)
			memcpy(out, d, sizeof(d));
		p += len + (p[len] == '\n');
	}
}

int fg_runscan_format_after(char **out, const fg_runscan *scan, const char *old, const char *since, fg_error *err)
{
	char *fresh;
	int rc = fg_runscan_format(&fresh, scan, NULL, err);
	if (rc)
		return rc;
	strbuf sb = { 0 };
	size_t header = strcspn(fresh, "\n") + 1;
	sb_printf(&sb, "%.*s", (int)header, fresh);
	char d[11];
	for (const char *p = old; *p;) {
		size_t len = strcspn(p, "\n");
		if (line_date(d, p, len) && strcmp(d, since) < 0)
			sb_printf(&sb, "%.*s\n", (int)len, p);
		p += len + (p[len] == '\n');
	}
	sb_printf(&sb, "%s", fresh + header);
	free(fresh);
	if (sb.failed) {
		free(sb.p);
		return fg_error_oom(err, NULL);
	}
	*out = sb.p;
	return 0;
}

bool fg_runscan_benchmark(char *out, size_t cap, const char *path)
{
	const char *s = path;
	while (*s) {
		size_t len = strcspn(s, "/?#");
		tok t[MAX_TOKENS];
		size_t n = len ? tokenize(t, s, len) : 0;
		facts f;
		size_t k = n && n <= MAX_TOKENS ? find_benchmark(&f, t, n) : 0;
		if (k) {
			tok last = t[k - 1];
			/* A variant is a plain word: not "grpc.html" of a file name. */
			if (k < n && t[k].n && !memchr(t[k].p, '.', t[k].n) && !is_event(t[k]) && !tok_digits(t[k], 8, 8) &&
			    !tok_is(t[k], "flamegraph") && !(k + 1 < n && is_pod(&t[k])))
				last = t[k];
			return tok_copy(out, cap, t[k - 7], last);
		}
		s += len;
		if (*s)
			s++;
	}
	return false;
}

int fg_runscan_write_text(const char *path, const char *text, fg_error *err)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + sizeof(".tmp.XXXXXX"));
	if (!tmp)
		return fg_error_oom(err, path);
	memcpy(tmp, path, len);
	memcpy(tmp + len, ".tmp.XXXXXX", sizeof(".tmp.XXXXXX"));
	fg_cleanup_item item;
	int fd = fg_cleanup_mkstemp(&item, tmp);
	if (fd < 0) {
		int rc = fg_error_set(err, FG_EFETCH, path, "cannot write: %s", strerror(errno));
		free(tmp);
		return rc;
	}
	FILE *f = fdopen(fd, "w");
	bool ok = f && fputs(text, f) >= 0;
	if (f) {
		ok = fclose(f) == 0 && ok;
	} else {
		close(fd);
	}
	/* mkstemp creates 0600; a runs file is as public as its folder. */
	if (ok) {
		mode_t mask = umask(0);
		umask(mask);
		ok = chmod(tmp, 0666 & ~mask) == 0;
	}
	if (!ok || rename(tmp, path) != 0) {
		int rc = fg_error_set(err, FG_EFETCH, path, "cannot write: %s", strerror(errno));
		unlink(tmp);
		fg_cleanup_remove(&item);
		free(tmp);
		return rc;
	}
	fg_cleanup_remove(&item);
	free(tmp);
	return 0;
}

/* The folder of path, for locations relative to the output file. */
static char *folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

int fg_runscan_write(const fg_runscan *scan, const char *path, fg_error *err)
{
	char *folder = folder_of(path), *text = NULL;
	int rc = folder ? fg_runscan_format(&text, scan, folder, err) : fg_error_oom(err, path);
	if (!rc)
		rc = fg_runscan_write_text(path, text, err);
	free(text);
	free(folder);
	return rc;
}
