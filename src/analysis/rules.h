/* fgbisect — subsystem rules files.
 *
 * A rules file names subsystems, each with frame patterns (docs/subsystems.md):
 *
 *     # a comment (a line whose first non-blank byte is '#')
 *     subsystem processing [scope=stack]
 *         pattern io/camunda/zeebe/stream/impl/ProcessingStateMachine
 *         pattern TypedRecordProcessor
 *
 * A pattern is the rest of its line after `pattern` and blanks, trailing
 * blanks removed (so it may hold blanks and '#'); it is a case-sensitive
 * substring of the slash-form frame name: a frame matches when the pattern
 * is in its raw name or in its normalised name (src/model/normalize.h), which
 * writes dotted Java frames (`io.camunda.Foo.run`) slashed.  Rules keep file
 * order, which is their precedence: the first rule that matches wins.  The
 * only scope is `stack` (the default): a sample belongs to a rule when any
 * frame of its stack matches.  The name `other` is reserved for samples no
 * rule matches. */
#ifndef FG_RULES_H
#define FG_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/names.h"

#define FG_RULES_MAX 1024          /* rules in a file */
#define FG_RULES_MAX_NAME 64       /* bytes of a subsystem name */
#define FG_RULES_OTHER "other"

/* Cost: a rule lookup tests the patterns once per distinct name and caches
 * the answer by id.  Not thread-safe (the cache fills on lookup); read-only
 * after parsing otherwise. */
typedef struct fg_rules fg_rules;

/* Parses text[0..len) (source names it in errors).  Fails with FG_EUSAGE and
 * "SOURCE:LINE: problem" in the message on a malformed file. */
int fg_rules_parse(fg_rules **out, const char *text, size_t len, const char *source, fg_error *err);

/* Reads (a path, "-" or a URL, through the source layer: src/formats/source.h) and
 * parses a rules file.  FG_EFETCH when it cannot be read or fetched (exit 4,
 * as for every input), FG_EUSAGE when malformed; fetch may be NULL, warning
 * as fg_source_read_all fills it. */
struct fg_fetch_options;
int fg_rules_load(fg_rules **out, const char *source, const struct fg_fetch_options *fetch, char warning[256],
		  fg_error *err);

void fg_rules_free(fg_rules *rules);

/* The rules file to use when none is given: $FGBISECT_RULES when set and
 * not empty, else the installed contrib/zeebe.rules
 * (${datadir}/fgbisect/zeebe.rules), else BINDIR/../share/fgbisect/zeebe.rules
 * of the running binary (an installation moved elsewhere), else a
 * zeebe.rules beside it (the build tree has a copy, so a build-tree binary
 * works), else NULL.  Not thread-safe (one static buffer); call it once. */
const char *fg_rules_default_path(void);

size_t fg_rules_count(const fg_rules *rules);
/* Rule names; fg_rules_name(rules, fg_rules_count(rules)) is "other". */
const char *fg_rules_name(const fg_rules *rules, size_t rule);
size_t fg_rules_pattern_count(const fg_rules *rules, size_t rule);
const char *fg_rules_pattern(const fg_rules *rules, size_t rule, size_t i);

/* The first rule (in file order) with a pattern matching the name, or
 * fg_rules_count(rules) when none does.  The answer is cached per name id,
 * so callers may ask per frame.  Returns 0 or FG_ENOMEM. */
int fg_rules_match(size_t *rule, fg_rules *rules, const fg_names *names, uint32_t name, fg_error *err);

#endif
