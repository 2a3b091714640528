/* Tiny test harness: CHECK records a failure and goes on; main returns
 * check_status(). */
#ifndef FG_CHECK_H
#define FG_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond) do { \
	check_count++; \
	if (!(cond)) { \
		check_failures++; \
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

#define CHECK_STR(actual, expected) do { \
	const char *a_ = (actual), *e_ = (expected); \
	check_count++; \
	if (!a_ || !e_ || strcmp(a_, e_)) { \
		check_failures++; \
		fprintf(stderr, "%s:%d: expected\n---\n%s\n--- got\n%s\n---\n", __FILE__, __LINE__, \
			e_ ? e_ : "(null)", \
			a_ ? a_ : "(null)"); \
	} \
} while (0)

#define CHECK_U64(actual, expected) do { \
	unsigned long long a_ = (actual), e_ = (expected); \
	check_count++; \
	if (a_ != e_) { \
		check_failures++; \
		fprintf(stderr, "%s:%d: %s: expected %llu, got %llu\n", __FILE__, __LINE__, #actual, e_, a_); \
	} \
} while (0)

static inline int check_status(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
	return check_failures ? 1 : 0;
}

#endif
