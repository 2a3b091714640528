/* libFuzzer target: the metric rules parser (with the interpretation of
 * what it parsed) and the Prometheus answer decoder must never crash or leak
 * on any input.  The first byte chooses: even the rules file, odd an answer
 * (its value the HTTP status class). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "metrics/metrics.h"
#include "metrics/metrics_rules.h"
#include "metrics/prom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	fg_error err;
	const char *text = (const char *)data + 1;
	size--;
	if (data[0] & 1) {
		fg_prom_result r;
		long status = data[0] & 2 ? 400 : 200;
		if (!fg_prom_decode(&r, text, size, status, "fuzz", &err))
			fg_prom_result_clear(&r);
		return 0;
	}
	fg_metrics_rules *rules;
	if (fg_metrics_rules_parse(&rules, text, size, "fuzz.metrics", &err))
		return 0;
	size_t n = fg_metrics_rules_signal_count(rules);
	/* Values that reach every state of a condition: zero, negative and
	 * positive means, standard errors from none to wide, sides with too few
	 * points. */
	fg_metric_value *b = calloc(n, sizeof(*b)), *c = calloc(n, sizeof(*c));
	for (size_t i = 0; b && c && i < n; i++) {
		fg_metric_status st = i % 3 ? FG_METRIC_OK : FG_METRIC_MISSING;
		b[i] = (fg_metric_value){ .status = st, .value = (double)(i % 5), .points = (i % 4) * 3, .se = (double)(i % 3) * 0.5,
		                          .neff = (double)(i % 6) };
		c[i] = (fg_metric_value){ .status = st, .value = (double)((i * 3) % 7) - 1, .points = (i % 5) * 3,
		                          .se = (double)(i % 2) * 0.25, .neff = (double)(i % 4) * 7 };
	}
	fg_metrics_result *r;
	fg_metrics_delta d[] = { { "processing", 2.0 }, { "exporter", -1.0 } };
	if (b && c && !fg_metrics_from_values(&r, rules, b, c, &err)) {
		fg_metrics_interpret(r, d, 2, &err);
		fg_metrics_interpret(r, NULL, 0, &err);
		fg_metrics_result_free(r);
	}
	free(b);
	free(c);
	fg_metrics_rules_free(rules);
	return 0;
}
