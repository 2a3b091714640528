/* Unit tests against repositories built with git: a temporary folder with a
 * private HOME (home/ inside it) and no outside git settings, fixed
 * identities, and a shell helper that runs in the folder.  The including
 * test defines `static char tmp[] = "/tmp/NAME-XXXXXX";` first. */
#ifndef FG_GIT_TEST_H
#define FG_GIT_TEST_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Runs a shell command in the temporary folder; aborts the test on failure
 * since everything after depends on the repository it builds. */
static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void sh(const char *fmt, ...)
{
	char cmd[16384];
	int n = snprintf(cmd, sizeof(cmd), "set -e; cd '%s'; ", tmp);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd + n, sizeof(cmd) - (size_t)n, fmt, ap);
	va_end(ap);
	if (system(cmd) != 0) {
		fprintf(stderr, "command failed: %s\n", cmd);
		exit(1);
	}
}

/* Big-endian 32-bit numbers, as git's binary files hold them. */
static inline uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* 0 when the folder and the environment are ready; else the exit status for
 * main: 77 (skip) without git, 1 when the folder cannot be made. */
static int git_test_setup(void)
{
	if (system("git --version > /dev/null 2>&1") != 0) {
		puts("SKIP: git is not installed");
		return 77;
	}
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	char home[512];
	snprintf(home, sizeof(home), "%s/home", tmp);
	if (mkdir(home, 0700) < 0) {
		perror("mkdir");
		return 1;
	}
	setenv("HOME", home, 1);
	setenv("XDG_CONFIG_HOME", home, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "Test Author", 1);
	setenv("GIT_AUTHOR_EMAIL", "author@example.org", 1);
	setenv("GIT_COMMITTER_NAME", "Test Committer", 1);
	setenv("GIT_COMMITTER_EMAIL", "committer@example.org", 1);
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	unsetenv("GIT_INDEX_FILE");
	return 0;
}

/* Removes the folder when every check passed, else says where it is. */
static void git_test_cleanup(int failures)
{
	if (!failures)
		sh("cd ..; rm -rf '%s'", tmp);
	else
		fprintf(stderr, "%d check(s) failed; the repository is in %s\n", failures, tmp);
}

#endif
