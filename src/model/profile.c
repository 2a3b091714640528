#include "model/profile.h"

#include <string.h>

void fg_read_options_init(fg_read_options *opts)
{
	opts->reversed = false;
	opts->max_size = 0;
	opts->max_line = 0;
	opts->max_depth = 0;
	opts->threads = false;
	opts->merge_threads = false;
	opts->event = NULL;
	opts->sample_type = NULL;
	opts->from = opts->to = (fg_time_bound){ 0 };
	opts->base_column = false;
	opts->labels = NULL;
	opts->nlabels = 0;
	opts->split = false;
	opts->split_permille = 0;
	opts->split_test.min_block = opts->split_test.at = opts->split_test.rec_words = 0;
	opts->split_test.joined = opts->split_test.skipped = NULL;
}

const char *fg_format_name(enum fg_format format)
{
	switch (format) {
	case FG_FORMAT_HTML_V2: return "html-2.x";
	case FG_FORMAT_HTML_V3: return "html-3.x-4.x";
	case FG_FORMAT_COLLAPSED: return "collapsed";
	case FG_FORMAT_JFR: return "jfr";
	case FG_FORMAT_PPROF: return "pprof";
	case FG_FORMAT_SVG: return "svg";
	case FG_FORMAT_PERF_SCRIPT: return "perf-script";
	default: return "unknown";
	}
}

const char *fg_profile_unit(const fg_profile_info *info)
{
	if (info->unit[0])
		return !strcmp(info->unit, "samples") ? "samples" : info->unit;
	/* async-profiler --total: "<title> (<units>)". */
	const char *t = info->title, *open = strrchr(t, '(');
	size_t n = strlen(t);
	if (open && open > t && open[-1] == ' ' && n > 0 && t[n - 1] == ')') {
		static const struct { const char *says, *unit; } units[] = {
			{ "bytes", "bytes" }, { "ns", "ns" }, { "nanoseconds", "ns" }, { "samples", "samples" },
			{ "counts", "samples" },
		};
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strlen(units[i].says) == (size_t)(t + n - 1 - open - 1) &&
			    !memcmp(open + 1, units[i].says, strlen(units[i].says)))
				return units[i].unit;
	}
	return "samples";
}

bool fg_profile_counts_samples(const fg_profile_info *info)
{
	return !strcmp(fg_profile_unit(info), "samples");
}
