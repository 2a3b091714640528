/* Rules files: the format, precedence, matching (dotted names, more than one
 * matcher's worth of patterns) and every error with its line. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "analysis/rules.h"

static fg_rules *parse(const char *text, fg_error *err)
{
	fg_rules *r = NULL;
	fg_error_clear(err);
	if (fg_rules_parse(&r, text, strlen(text), "t.rules", err))
		return NULL;
	return r;
}

static size_t match(fg_rules *r, fg_names *names, const char *frame)
{
	uint32_t id;
	size_t rule = 999;
	fg_error err;
	if (fg_names_intern(&id, names, frame, strlen(frame), &err) || fg_rules_match(&rule, r, names, id, &err))
		return 998;
	return rule;
}

/* The error of a malformed file: "SOURCE:LINE" and a message part. */
static void check_error(const char *text, const char *where, const char *message, int line)
{
	fg_error err;
	fg_rules *r = parse(text, &err);
	check_count++;
	if (r || err.code != FG_EUSAGE || strcmp(err.source, where) || !strstr(err.message, message)) {
		check_failures++;
		fprintf(stderr, "%s:%d: expected %s: ...%s..., got code %d %s: %s\n", __FILE__, line, where, message,
			err.code, err.source, err.message);
	}
	fg_rules_free(r);
}

static void test_format(void)
{
	fg_error err;
	fg_rules *r = parse("# rules\n"
			    "\n"
			    "subsystem first scope=stack   # trailing comment\n"
			    "\tpattern io/camunda/A\n"
			    "  pattern has space # and hash   \n"
			    "subsystem second\r\n"
			    "pattern B\r\n"
			    "   # indented comment\n"
			    "subsystem third\n"
			    "\tpattern io/camunda/",
			    &err);
	CHECK(r != NULL);
	if (!r) {
		fprintf(stderr, "%s: %s\n", err.source, err.message);
		return;
	}
	CHECK_U64(fg_rules_count(r), 3);
	CHECK_STR(fg_rules_name(r, 0), "first");
	CHECK_STR(fg_rules_name(r, 1), "second");
	CHECK_STR(fg_rules_name(r, 3), "other");
	CHECK_U64(fg_rules_pattern_count(r, 0), 2);
	CHECK_STR(fg_rules_pattern(r, 0, 1), "has space # and hash");
	CHECK_STR(fg_rules_pattern(r, 1, 0), "B");
	CHECK_STR(fg_rules_pattern(r, 2, 0), "io/camunda/");

	fg_names *names = NULL;
	CHECK(fg_names_new(&names, &err) == 0);
	/* First rule in file order wins, whichever pattern matched. */
	CHECK_U64(match(r, names, "io/camunda/A.run"), 0);
	CHECK_U64(match(r, names, "io/camunda/Bee.run"), 1);
	CHECK_U64(match(r, names, "io/camunda/C.run"), 2);
	CHECK_U64(match(r, names, "java/lang/Thread.run"), 3);
	/* Dotted frames match in their slashed form; so do cached answers. */
	CHECK_U64(match(r, names, "io.camunda.Cee.run"), 2);
	CHECK_U64(match(r, names, "io.camunda.A.run"), 0);
	CHECK_U64(match(r, names, "io.camunda.A.run"), 0);
	fg_names_free(names);
	fg_rules_free(r);
}

/* More patterns than one matcher holds: precedence still follows the file. */
static void test_many_patterns(void)
{
	char text[8192] = "subsystem many\n";
	for (int i = 0; i < 70; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "pattern p%02dx\n", i);
	strcat(text, "subsystem late\npattern p69\npattern late\n");
	fg_error err;
	fg_rules *r = parse(text, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	fg_names *names = NULL;
	CHECK(fg_names_new(&names, &err) == 0);
	CHECK_U64(match(r, names, "a/p69x"), 0);  /* pattern 69: the second matcher */
	CHECK_U64(match(r, names, "a/p69y"), 1);
	CHECK_U64(match(r, names, "a/late"), 1);
	CHECK_U64(match(r, names, "a/p00x;late"), 0);
	CHECK_U64(match(r, names, "nothing"), 2);
	fg_names_free(names);
	fg_rules_free(r);
}

static void test_errors(void)
{
	check_error("pattern x\n", "t.rules:1", "before any 'subsystem'", __LINE__);
	check_error("# c\nsubsystem a\n\tpatern x\n", "t.rules:3", "unknown keyword 'patern'", __LINE__);
	check_error("subsystem a\n\tpattern   \t\n", "t.rules:2", "empty pattern", __LINE__);
	check_error("subsystem a\npattern x\n\nsubsystem a\npattern y\n", "t.rules:4", "already defined on line 1",
		    __LINE__);
	check_error("subsystem a\nsubsystem b\npattern y\n", "t.rules:1", "subsystem 'a' has no pattern", __LINE__);
	check_error("subsystem a\npattern x\nsubsystem b\n# end\n", "t.rules:3", "subsystem 'b' has no pattern",
		    __LINE__);
	check_error("subsystem other\npattern x\n", "t.rules:1", "reserved", __LINE__);
	check_error("subsystem a scope=leaf\npattern x\n", "t.rules:1", "unknown scope 'leaf'", __LINE__);
	check_error("subsystem a speed=1\npattern x\n", "t.rules:1", "unknown option 'speed=1'", __LINE__);
	check_error("subsystem a/b\npattern x\n", "t.rules:1", "subsystem name 'a/b'", __LINE__);
	check_error("subsystem\n", "t.rules:1", "wants a name", __LINE__);
	check_error("# nothing\n\n", "t.rules", "no subsystem defined", __LINE__);

	fg_error err;
	fg_rules *r = NULL;
	static const char nul[] = "subsystem a\npattern x\0y\n";
	CHECK(fg_rules_parse(&r, nul, sizeof(nul) - 1, "t.rules", &err) == FG_EUSAGE);
	CHECK_STR(err.source, "t.rules:2");
	CHECK(fg_rules_load(&r, "/nonexistent/zeebe.rules", NULL, NULL, &err) == FG_EFETCH);
	CHECK_STR(err.source, "/nonexistent/zeebe.rules");
	CHECK(strstr(err.message, "cannot read") != NULL);
}

/* The shipped Zeebe rules: zeebe.md §4's order. */
static void test_zeebe_rules(void)
{
	const char *dir = getenv("FG_SOURCE_DIR");
	if (!dir)
		return;
	char path[4096];
	snprintf(path, sizeof(path), "%s/contrib/zeebe.rules", dir);
	fg_error err;
	fg_rules *r = NULL;
	CHECK(fg_rules_load(&r, path, NULL, NULL, &err) == 0);
	if (!r)
		return;
	static const char *const order[] = { "gc", "replay", "processing", "exporter", "rocksdb-state",
					     "journal-flush", "rest", "grpc", "gateway", "raft-netty", "other" };
	CHECK_U64(fg_rules_count(r), 10);
	for (size_t i = 0; i < 11; i++)
		CHECK_STR(fg_rules_name(r, i), order[i]);
	fg_names *names = NULL;
	CHECK(fg_names_new(&names, &err) == 0);
	CHECK_U64(match(r, names, "G1ParScanThreadState::trim_queue"), 0);
	CHECK_U64(match(r, names, "org.apache.coyote.http11.Http11Processor.service"), 6);
	CHECK_U64(match(r, names, "io/camunda/zeebe/gateway/grpc/GatewayGrpcService.createProcessInstance"), 7);
	CHECK_U64(match(r, names, "io/camunda/zeebe/gateway/impl/broker/BrokerClientImpl.send"), 8);
	CHECK_U64(match(r, names, "/tmp/librocksdbjni123456.so"), 4);
	fg_names_free(names);
	fg_rules_free(r);
}

int main(void)
{
	test_format();
	test_many_patterns();
	test_errors();
	test_zeebe_rules();
	return check_status("test_rules");
}
