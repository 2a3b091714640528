#include "cmd/options.h"

#include "cmd/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/json_writer.h"

/* The column where option help starts. */
#define HELP_COLUMN 24

void cli_args_free(struct cli_args *args)
{
	free(args->before);
	args->before = NULL;
	args->nbefore = 0;
	free(args->given);
	free(args->given_arg);
	args->given = NULL;
	args->given_arg = NULL;
	args->ngiven = 0;
}

static size_t table_size(const struct cli_option *t)
{
	size_t n = 0;
	while (t[n].kind != CLI_OPT_KIND_END)
		n++;
	return n;
}

const struct cli_option *cli_find_option(const struct cli_option *table, const char *long_name)
{
	for (const struct cli_option *o = table; o->kind != CLI_OPT_KIND_END; o++)
		if (o->long_name && !strcmp(o->long_name, long_name))
			return o;
	return NULL;
}

static void vreport(const struct cli_command_spec *spec, bool json, const char *fmt, va_list ap)
{
	fg_error err;
	fg_error_clear(&err);
	err.code = FG_EUSAGE;
	vsnprintf(err.message, sizeof(err.message), fmt, ap);
	/* The message may quote an argument: written as terminal-safe text. */
	fprintf(stderr, "fgbisect %s: ", spec->name);
	cli_put_text(stderr, err.message);
	fprintf(stderr, "\nTry 'fgbisect %s --help'.\n", spec->name);
	if (json) {
		fg_json j;
		fg_json_init(&j, stdout);
		cli_error_json(&j, &err);
	}
}

int cli_spec_usage_error(const struct cli_command_spec *spec, const struct cli_args *args, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(spec, args && args->json, fmt, ap);
	va_end(ap);
	return spec->usage_status;
}

static bool parse_u64(const char *s, uint64_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

bool cli_parse_percent(const char *s, double *out)
{
	if (!s || !*s)
		return false;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (errno || end == s)
		return false;
	if (*end == '%')
		end++;
	if (*end || !(v >= 0.0 && v <= 100.0))
		return false;
	*out = v;
	return true;
}

static bool parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!s || *s < '0' || *s > '9')
		return false;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned shift = 0;
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	default: break;
	}
	if (errno || *end || v == 0 || v > (UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

static bool parse_seconds(const char *s, double max, double *out)
{
	char *end;
	errno = 0;
	double v = s ? strtod(s, &end) : 0;
	if (!s || errno || end == s || *end || !(v > 0 && v <= max))
		return false;
	*out = v;
	return true;
}

/* "--name" or "-n" as the user may have written it. */
static void option_label(char *buf, size_t size, const struct cli_option *o)
{
	if (o->long_name)
		snprintf(buf, size, "--%s", o->long_name);
	else
		snprintf(buf, size, "-%c", o->short_name);
}

/* Stores arg for o; NULL, or the usage error's message in msg. */
static const char *apply(const struct cli_option *o, const char *arg, bool *seen, char *msg, size_t size)
{
	char label[64];
	option_label(label, sizeof(label), o);
	if ((o->flags & CLI_OPT_ONCE) && *seen) {
		snprintf(msg, size, "give one %s", label);
		return msg;
	}
	*seen = true;
	switch (o->kind) {
	case CLI_OPT_KIND_BOOL:
		*(bool *)o->value = true;
		return NULL;
	case CLI_OPT_KIND_CLEAR:
		*(bool *)o->value = false;
		return NULL;
	case CLI_OPT_KIND_STRING:
		*(const char **)o->value = arg;
		return NULL;
	case CLI_OPT_KIND_LIST: {
		struct cli_list *l = o->value;
		const char *why = o->cb ? o->cb(o, arg, msg, size) : NULL;
		if (why)
			return why;
		if (l->n == CLI_LIST_MAX) {
			snprintf(msg, size, "at most %d %s options", CLI_LIST_MAX, label);
			return msg;
		}
		l->items[l->n++] = arg;
		return NULL;
	}
	case CLI_OPT_KIND_U64: {
		uint64_t v;
		if (!parse_u64(arg, &v) || v < o->min || v > o->max) {
			if (o->max == UINT64_MAX)
				snprintf(msg, size, "%s wants a number, not '%s'", label, arg);
			else
				snprintf(msg, size, "%s wants a number (%llu-%llu), not '%s'", label,
					 (unsigned long long)o->min, (unsigned long long)o->max, arg);
			return msg;
		}
		*(uint64_t *)o->value = v;
		return NULL;
	}
	case CLI_OPT_KIND_PERCENT:
		if (!cli_parse_percent(arg, o->value)) {
			snprintf(msg, size, "%s wants a percentage (0-100), not '%s'", label, arg);
			return msg;
		}
		return NULL;
	case CLI_OPT_KIND_SIZE: {
		uint64_t v;
		if (!parse_size(arg, &v)) {
			snprintf(msg, size, "%s wants a size in bytes (K, M, G allowed), not '%s'", label, arg);
			return msg;
		}
		if (v < o->min) {
			snprintf(msg, size, "%s wants a size in bytes of at least %lluK, not '%s'", label,
				 (unsigned long long)(o->min >> 10), arg);
			return msg;
		}
		*(uint64_t *)o->value = v;
		return NULL;
	}
	case CLI_OPT_KIND_SECONDS:
		if (!parse_seconds(arg, (double)o->max, o->value)) {
			snprintf(msg, size, "%s wants seconds (more than 0, at most %llu), not '%s'", label,
				 (unsigned long long)o->max, arg);
			return msg;
		}
		return NULL;
	case CLI_OPT_KIND_CALLBACK: {
		const char *why = o->cb(o, arg, msg, size);
		if (!why)
			*(const char **)o->value = arg;
		return why;
	}
	case CLI_OPT_KIND_END:
		break;
	}
	return "internal error: an option of no kind";
}

const char *cli_check_choice(const struct cli_option *opt, const char *arg, char *msg, size_t size)
{
	size_t len = strlen(arg);
	for (const char *v = opt->values; v && *v;) {
		size_t n = strcspn(v, "|");
		if (n == len && !strncmp(v, arg, n))
			return NULL;
		v += n + (v[n] == '|');
	}
	/* "--color wants self or inclusive, not 'x'" */
	size_t used = (size_t)snprintf(msg, size, "--%s wants ", opt->long_name);
	for (const char *v = opt->values; v && *v && used < size;) {
		size_t n = strcspn(v, "|");
		const char *sep = v == opt->values ? "" : v[n] ? ", " : " or ";
		used += (size_t)snprintf(msg + used, size - used, "%s%.*s", sep, (int)n, v);
		v += n + (v[n] == '|');
	}
	if (used < size)
		snprintf(msg + used, size - used, ", not '%s'", arg);
	return msg;
}

/* --list-values NAME: the values of --NAME, one a line. */
static int list_values(const struct cli_command_spec *spec, const char *name)
{
	const struct cli_option *o = cli_find_option(spec->options, name[0] == '-' && name[1] == '-' ? name + 2 : name);
	if (!o)
		return cli_spec_usage_error(spec, NULL, "--list-values: no option '%s'", name);
	for (const char *v = o->values; v && *v;) {
		size_t n = strcspn(v, "|");
		printf("%.*s\n", (int)n, v);
		v += n + (v[n] == '|');
	}
	return 0;
}

/* The left column of an option in --help: "  -f, --frame PAT". */
static int left_column(char *buf, size_t size, const struct cli_option *o)
{
	char shortpart[8] = "    ";
	if (o->short_name)
		snprintf(shortpart, sizeof(shortpart), "-%c%s", o->short_name, o->long_name ? ", " : "");
	return snprintf(buf, size, "  %s%s%s%s%s", shortpart, o->long_name ? "--" : "", o->long_name ? o->long_name : "",
			o->argname ? " " : "", o->argname ? o->argname : "");
}

/* One option of --help: the left column, the help's lines beside it. */
static void help_option(const struct cli_option *o)
{
	char left[128];
	int n = left_column(left, sizeof(left), o);
	const char *h = o->help ? o->help : "";
	size_t len = strcspn(h, "\n");
	if (n + 2 > HELP_COLUMN)
		printf("%s\n%*s%.*s\n", left, HELP_COLUMN, "", (int)len, h);
	else
		printf("%-*s%.*s\n", HELP_COLUMN, left, (int)len, h);
	for (h += len; *h == '\n'; h += len) {
		h++;
		len = strcspn(h, "\n");
		printf("%*s%.*s\n", HELP_COLUMN, "", (int)len, h);
	}
}

void cli_print_help(const struct cli_command_spec *spec)
{
	const char *syn = spec->synopsis;
	const char *shown = spec->usage_name ? spec->usage_name : spec->name;
	bool first = true;
	int indent = (int)strlen("usage: fgbisect ") + (int)strlen(shown) + 1;
	while (syn && *syn) {
		size_t len = strcspn(syn, "\n");
		if (syn[0] == ' ')
			printf("%*s%.*s\n", indent, "", (int)(len - strspn(syn, " ")), syn + strspn(syn, " "));
		else
			printf("%s%s %.*s\n", first ? "usage: fgbisect " : "       fgbisect ", shown, (int)len, syn);
		first = false;
		syn += len + (syn[len] == '\n');
	}
	if (spec->description)
		printf("\n%s", spec->description);
	/* The command's own options first, then the reading and fetching
	 * options every command that reads profiles shares, once, under their
	 * heading. */
	printf("\n");
	for (const struct cli_option *o = spec->options; o->kind != CLI_OPT_KIND_END; o++)
		if (!(o->flags & (CLI_OPT_HIDDEN | CLI_OPT_COMMON)))
			help_option(o);
	printf("%-*s%s\n", HELP_COLUMN, "  -h, --help", "this help");
	bool heading = false;
	for (const struct cli_option *o = spec->options; o->kind != CLI_OPT_KIND_END; o++) {
		if ((o->flags & (CLI_OPT_HIDDEN | CLI_OPT_COMMON)) != CLI_OPT_COMMON)
			continue;
		if (!heading)
			printf("\nreading profiles and fetching URLs (the same in every command):\n");
		heading = true;
		help_option(o);
	}
	if (spec->epilogue)
		printf("\n%s", spec->epilogue);
}

/* --list-options: one option a line, "--name" plus " ARG" when it takes one,
 * for completion and the documentation check. */
static void list_options(const struct cli_command_spec *spec)
{
	for (const struct cli_option *o = spec->options; o->kind != CLI_OPT_KIND_END; o++) {
		if (o->flags & CLI_OPT_HIDDEN)
			continue;
		if (o->long_name)
			printf("--%s%s%s\n", o->long_name, o->argname ? " " : "", o->argname ? o->argname : "");
		if (o->short_name)
			printf("-%c%s%s\n", o->short_name, o->argname ? " " : "", o->argname ? o->argname : "");
	}
	printf("--help\n-h\n");
}

/* s as roff text: '-' and '\\' escaped, a leading '.' or '\'' neutralised. */
static void roff(const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", stdout);
	for (; *s; s++) {
		if (*s == '-' || *s == '\\')
			putchar('\\');
		if (*s == '\n') {
			putchar(' ');
			continue;
		}
		putchar(*s);
	}
}

static void man_option(const struct cli_option *o)
{
	fputs(".TP\n", stdout);
	if (o->short_name && o->long_name)
		printf(".BR \\-%c \", \" \\-\\-", o->short_name);
	else if (o->short_name)
		printf(".B \\-%c", o->short_name);
	else
		fputs(".BR \\-\\-", stdout);
	if (o->long_name)
		roff(o->long_name);
	if (o->argname) {
		fputs(" \" \" \\fI", stdout);
		roff(o->argname);
		fputs("\\fR", stdout);
	}
	fputs("\n", stdout);
	roff(o->help ? o->help : "");
	fputs(".\n", stdout);
}

/* --man-options / --man-common: see options.h. */
static void man_options(const struct cli_command_spec *spec, bool common)
{
	if (!common)
		printf(".SS \"fgbisect %s\"\n", spec->usage_name ? spec->usage_name : spec->name);
	size_t ncommon = 0, nown = 0;
	for (const struct cli_option *o = spec->options; o->kind != CLI_OPT_KIND_END; o++) {
		if (o->flags & CLI_OPT_HIDDEN)
			continue;
		if (!!(o->flags & CLI_OPT_COMMON) == common) {
			man_option(o);
			nown++;
		} else {
			ncommon++;
		}
	}
	if (common || !ncommon)
		return;
	fputs(nown ? ".PP\nand the common options" : "The common options", stdout);
	size_t k = 0;
	for (const struct cli_option *o = spec->options; o->kind != CLI_OPT_KIND_END; o++)
		if ((o->flags & CLI_OPT_COMMON) && !(o->flags & CLI_OPT_HIDDEN)) {
			fputs(k++ ? ", \\fB\\-\\-" : " \\fB\\-\\-", stdout);
			roff(o->long_name);
			fputs("\\fR", stdout);
		}
	fputs(".\n", stdout);
}

enum { VAL_BASE = 256, VAL_HELP = 255, VAL_LIST = 254, VAL_MAN = 253, VAL_MAN_COMMON = 252, VAL_VALUES = 251 };

int cli_parse(const struct cli_command_spec *spec, struct cli_args *args, int argc, char **argv)
{
	memset(args, 0, sizeof(*args));
	const struct cli_option *t = spec->options;
	size_t n = table_size(t);
	bool has_json = cli_find_option(t, "json") != NULL;
	/* Known before parsing, so that every usage error honours it. */
	for (int i = 1; has_json && i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json"))
			args->json = true;

	struct option *longopts = calloc(n + 6, sizeof(*longopts));
	char *shortopts = malloc(3 * n + 8);
	bool *seen = calloc(n + 1, sizeof(*seen));
	args->given = calloc((size_t)argc + 1, sizeof(*args->given));
	args->given_arg = calloc((size_t)argc + 1, sizeof(*args->given_arg));
	args->before = calloc((size_t)argc + 1, sizeof(*args->before));
	int status = CLI_PARSED;
	if (!longopts || !shortopts || !seen || !args->given || !args->given_arg || !args->before) {
		status = cli_spec_usage_error(spec, args, "out of memory");
		goto out;
	}
	size_t k = 0, nl = 0;
	/* GNU getopt permutes: options may follow operands, as they always
	 * could; in_order hands the operands back in order instead. */
	if (spec->in_order)
		shortopts[k++] = '-';
	shortopts[k++] = ':';
	for (size_t i = 0; i < n; i++) {
		bool takes = t[i].argname != NULL;
		if (t[i].long_name)
			longopts[nl++] = (struct option){ t[i].long_name, takes ? required_argument : no_argument, NULL,
							  VAL_BASE + (int)i };
		if (t[i].short_name) {
			shortopts[k++] = t[i].short_name;
			if (takes)
				shortopts[k++] = ':';
		}
	}
	shortopts[k++] = 'h';
	shortopts[k] = '\0';
	longopts[nl++] = (struct option){ "help", no_argument, NULL, VAL_HELP };
	longopts[nl++] = (struct option){ "list-options", no_argument, NULL, VAL_LIST };
	longopts[nl++] = (struct option){ "man-options", no_argument, NULL, VAL_MAN };
	longopts[nl++] = (struct option){ "man-common", no_argument, NULL, VAL_MAN_COMMON };
	longopts[nl++] = (struct option){ "list-values", required_argument, NULL, VAL_VALUES };

	opterr = 0;
	optind = 0; /* a full re-initialisation of GNU getopt */
	int opt;
	while (status == CLI_PARSED && (opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct cli_option *o = NULL;
		if (opt == 1) {
			args->before[args->nbefore++] = optarg;
			continue;
		}
		if (opt == VAL_HELP || opt == 'h') {
			cli_print_help(spec);
			status = 0;
			break;
		}
		if (opt == VAL_LIST) {
			list_options(spec);
			status = 0;
			break;
		}
		if (opt == VAL_VALUES) {
			status = list_values(spec, optarg);
			break;
		}
		if (opt == VAL_MAN || opt == VAL_MAN_COMMON) {
			man_options(spec, opt == VAL_MAN_COMMON);
			status = 0;
			break;
		}
		if (opt == '?') {
			if (optopt && optopt < VAL_BASE)
				status = cli_spec_usage_error(spec, args, "unknown option '-%c'", optopt);
			else
				status = cli_spec_usage_error(spec, args, "unknown option '%s'", argv[optind - 1]);
			break;
		}
		if (opt == ':') {
			status = cli_spec_usage_error(spec, args, "option '%s' needs an argument", argv[optind - 1]);
			break;
		}
		if (opt >= VAL_BASE) {
			o = &t[opt - VAL_BASE];
		} else {
			for (size_t i = 0; i < n && !o; i++)
				if (t[i].short_name == opt)
					o = &t[i];
		}
		if (!o) {
			status = cli_spec_usage_error(spec, args, "unknown option");
			break;
		}
		char msg[512];
		const char *why = apply(o, o->argname ? optarg : NULL, &seen[o - t], msg, sizeof(msg));
		if (why) {
			status = cli_spec_usage_error(spec, args, "%s", why);
			break;
		}
		args->given[args->ngiven] = o;
		args->given_arg[args->ngiven++] = o->argname ? optarg : NULL;
	}
	if (status == CLI_PARSED) {
		args->separated = spec->in_order && optind > 1 && !strcmp(argv[optind - 1], "--");
		args->argc = argc - optind;
		args->argv = argv + optind;
	}
out:
	free(longopts);
	free(shortopts);
	free(seen);
	if (status != CLI_PARSED)
		cli_args_free(args);
	return status;
}

const char *cli_given_arg(const struct cli_args *args, const char *long_name)
{
	for (size_t i = args->ngiven; i-- > 0;)
		if (args->given[i]->long_name && !strcmp(args->given[i]->long_name, long_name))
			return args->given_arg[i];
	return NULL;
}
