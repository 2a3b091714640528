/* fgbisect protocol: gRPC, REST or unknown, per profile, with the evidence. */
#include <stdlib.h>

#include "cmd/cli.h"
#include "output/json_writer.h"
#include "cmd/commands.h"
#include "model/names.h"
#include "base/parallel.h"
#include "analysis/protocol.h"

static const char description[] =
	"Tells, for each profile, which API the Zeebe gateway in it serves:\n"
	"  rest     a frame of org/apache/coyote/, org/apache/catalina/,\n"
	"           FrameworkServlet, BearerTokenAuthenticationFilter or\n"
	"           org/springframework/security/web/FilterChainProxy;\n"
	"  grpc     else io/grpc/ frames (Netty alone is not enough: Raft runs on it);\n"
	"  unknown  neither (an answer, not an error: the exit status is 0).\n"
	"Dotted frame names count as their slashed form.  The evidence is up to 5\n"
	"marker frames of the verdict with the most samples; the event (cpu, alloc,\n"
	"wall, lock) comes from the graph's title when it has one.\n"
	"PROFILE: any format of 'fgbisect --help' (HTML, collapsed, JFR, pprof, perf\n"
	"script, SVG), plain, gzip or in a zip/tar archive, a path, - for stdin, or a\n"
	"URL.  A profile that cannot be read is reported (with --json, as an error\n"
	"object in its place) and the others answered; the exit status is then the\n"
	"first such profile's error.\n";

struct result {
	const char *source;
	fg_protocol_kind kind;
	const char *event;
	char title[256];    /* the <h1>, or "" */
	const char *evidence[FG_PROTOCOL_MAX_EVIDENCE]; /* interned: valid until the names go */
	size_t nevidence;
	int rc;             /* the profile could not be read: err says why */
	fg_error err;
};

static void print_json(const struct result *results, size_t n)
{
	fg_json j;
	fg_json_init(&j, stdout);
	fg_json_object(&j);
	fg_json_key(&j, "profiles");
	fg_json_array(&j);
	for (size_t i = 0; i < n; i++) {
		const struct result *r = &results[i];
		if (r->rc) {
			cli_error_json(&j, &r->err);
			continue;
		}
		fg_json_object(&j);
		fg_json_member_string(&j, "source", cli_shown(r->source));
		fg_json_member_string(&j, "protocol", fg_protocol_name(r->kind));
		fg_json_member_string(&j, "event", r->event);
		fg_json_member_string(&j, "title", r->title[0] ? r->title : NULL);
		fg_json_key(&j, "evidence");
		fg_json_array(&j);
		for (size_t e = 0; e < r->nevidence; e++)
			fg_json_string(&j, r->evidence[e]);
		fg_json_end(&j);
		fg_json_end(&j);
	}
	fg_json_end(&j);
	fg_json_end(&j);
}

static void print_text(const struct result *results, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct result *r = &results[i];
		if (r->rc) {
			fflush(stdout); /* the answers before it first, on a terminal */
			cli_report_error(&r->err, false);
			continue;
		}
		printf("%s  %s  event %s", cli_shown(r->source), fg_protocol_name(r->kind),
		       r->event ? r->event : "unknown");
		printf(r->title[0] ? "  \"%s\"\n" : "\n", cli_text(r->title));
		for (size_t e = 0; e < r->nevidence; e++) {
			fputs("  ", stdout);
			cli_put_text(stdout, r->evidence[e]);
			putchar('\n');
		}
	}
}

int cmd_protocol(int argc, char **argv)
{
	struct cli_profile_options po = { 0 };
	uint64_t jobs = fg_parallel_cores();
	const struct cli_option table[] = {
		CLI_OPT_READ_JOBS(&jobs),
		CLI_PROFILE_OPTIONS(&po),
		CLI_OPT_END(),
	};
	const struct cli_command_spec spec = {
		.name = "protocol", .synopsis = "[options] PROFILE...", .description = description, .options = table,
		.usage_status = FG_EXIT_USAGE,
	};
	struct cli_args args;
	int status = cli_parse(&spec, &args, argc, argv);
	po.split = jobs >= 2;
	if (status == CLI_PARSED && args.argc == 0)
		status = cli_spec_usage_error(&spec, &args, "give at least one PROFILE");
	if (status != CLI_PARSED) {
		cli_args_free(&args);
		return status;
	}
	status = 0;
	int nargs = args.argc;
	char **operands = args.argv;
	cli_args_free(&args);

	fg_error err;
	fg_error_clear(&err);
	fg_names *names = NULL;
	fg_protocol *detector = NULL;
	size_t nprofiles = (size_t)nargs;
	struct result *results = calloc(nprofiles, sizeof(*results));
	int rc = results ? 0 : fg_error_oom(&err, NULL);
	if (!rc)
		rc = fg_names_new(&names, &err);
	if (!rc)
		rc = fg_protocol_new(&detector, names, &err);
	/* Every profile is read: one that fails is reported with the others'
	 * answers, and the first failure gives the exit status. */
	size_t nread = 0;
	for (size_t i = 0; !rc && i < nprofiles; i++) {
		struct result *r = &results[i];
		fg_profile_info info;
		r->source = operands[i];
		fg_protocol_reset(detector);
		r->rc = cli_read_profile(&info, r->source, names, &po,
					 &(fg_visitor){ fg_protocol_frames, fg_protocol_stack, detector, NULL, NULL }, &r->err);
		if (r->rc) {
			if (!status)
				status = fg_error_exit_status(&r->err);
			continue;
		}
		nread++;
		r->kind = fg_protocol_result(detector);
		r->event = fg_protocol_event(&info);
		snprintf(r->title, sizeof(r->title), "%s", info.title);
		r->nevidence = fg_protocol_evidence_count(detector);
		for (size_t e = 0; e < r->nevidence; e++)
			r->evidence[e] = fg_protocol_evidence(detector, e);
	}
	if (rc) {
		status = cli_report_error(&err, po.json);
		goto out;
	}
	if (nread == 0) {
		/* No answer at all: the errors, the first as the JSON output. */
		for (size_t i = 0; i < nprofiles; i++)
			cli_report_error(&results[i].err, po.json && i == 0);
		goto out;
	}

	if (po.json)
		print_json(results, nprofiles);
	else
		print_text(results, nprofiles);
out:
	fg_protocol_free(detector);
	fg_names_free(names);
	free(results);
	return status;
}
