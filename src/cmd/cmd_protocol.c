/* fgbisect protocol: gRPC, REST or unknown, per profile, with the evidence. */
#include <getopt.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "names.h"
#include "protocol.h"

static const char usage[] =
	"usage: fgbisect protocol [options] PROFILE...\n"
	"\n"
	"Tells, for each profile, which API the Zeebe gateway in it serves:\n"
	"  rest     a frame of org/apache/coyote/, org/apache/catalina/,\n"
	"           FrameworkServlet, BearerTokenAuthenticationFilter or\n"
	"           org/springframework/security/web/FilterChainProxy;\n"
	"  grpc     else io/grpc/ frames (Netty alone is not enough: Raft runs on it);\n"
	"  unknown  neither (an answer, not an error: the exit status is 0).\n"
	"Dotted frame names count as their slashed form.  The evidence is up to 5\n"
	"marker frames of the verdict with the most samples; the event (cpu, alloc,\n"
	"wall, lock) comes from the graph's title when it has one.\n"
	"PROFILE: an async-profiler HTML flame graph (2.x-4.x) or collapsed stacks,\n"
	"plain or gzip, a path, - for stdin, or a URL.\n"
	"\n"
	CLI_PROFILE_OPTIONS_HELP;

struct result {
	const char *source;
	fg_protocol_kind kind;
	const char *event;
	const char *evidence[FG_PROTOCOL_MAX_EVIDENCE]; /* interned: valid until the names go */
	size_t nevidence;
};

int cmd_protocol(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_PROFILE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	struct cli_profile_options po = { 0 };
	int status = 0, opt;
	while (!status && (opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (cli_profile_option(&po, opt, optarg, "protocol", &status))
			continue;
		switch (opt) {
		case 'h': fputs(usage, stdout); return 0;
		default: status = cli_usage_error("protocol", "unknown option"); break;
		}
	}
	if (!status && optind == argc)
		status = cli_usage_error("protocol", "give at least one PROFILE");
	if (status)
		return status;

	fg_error err;
	fg_error_clear(&err);
	fg_names *names = NULL;
	fg_protocol *detector = NULL;
	size_t nprofiles = (size_t)(argc - optind);
	struct result *results = calloc(nprofiles, sizeof(*results));
	int rc = results ? 0 : fg_error_set(&err, FG_ENOMEM, NULL, "out of memory");
	if (!rc)
		rc = fg_names_new(&names, &err);
	if (!rc)
		rc = fg_protocol_new(&detector, names, &err);
	for (size_t i = 0; !rc && i < nprofiles; i++) {
		struct result *r = &results[i];
		fg_profile_info info;
		r->source = argv[optind + (int)i];
		fg_protocol_reset(detector);
		rc = cli_read_profile(&info, r->source, names, &po,
				      &(fg_visitor){ fg_protocol_frames, fg_protocol_stack, detector }, &err);
		if (rc)
			break;
		r->kind = fg_protocol_result(detector);
		r->event = fg_profile_event(&info);
		r->nevidence = fg_protocol_evidence_count(detector);
		for (size_t e = 0; e < r->nevidence; e++)
			r->evidence[e] = fg_protocol_evidence(detector, e);
	}
	if (rc) {
		status = cli_report_error(&err, po.json);
		goto out;
	}

	if (po.json)
		fputs("{\"profiles\":[", stdout);
	for (size_t i = 0; i < nprofiles; i++) {
		const struct result *r = &results[i];
		if (po.json) {
			fputs(i ? ",{\"source\":" : "{\"source\":", stdout);
			cli_json_string(stdout, cli_shown(r->source));
			printf(",\"protocol\":\"%s\",\"event\":", fg_protocol_name(r->kind));
			if (r->event)
				cli_json_string(stdout, r->event);
			else
				fputs("null", stdout);
			fputs(",\"evidence\":[", stdout);
			for (size_t e = 0; e < r->nevidence; e++) {
				if (e)
					fputc(',', stdout);
				cli_json_string(stdout, r->evidence[e]);
			}
			fputs("]}", stdout);
		} else {
			printf("%s  %s  event %s\n", cli_shown(r->source), fg_protocol_name(r->kind),
			       r->event ? r->event : "unknown");
			for (size_t e = 0; e < r->nevidence; e++) {
				fputs("  ", stdout);
				cli_put_text(stdout, r->evidence[e]);
				putchar('\n');
			}
		}
	}
	if (po.json)
		fputs("]}\n", stdout);
out:
	fg_protocol_free(detector);
	fg_names_free(names);
	free(results);
	return status;
}
