/*
 * unit.h: what the unit drivers of tests/unit share.  CHECK counts a check
 * and, when it fails, prints its file, line and message; unit_main runs
 * the one group named on the command line and prints "GROUP: N checks,
 * M failed", the line tests/bats/lib-common.bats reads, exiting 1 when a
 * check failed and 2 on a usage error.
 */
#ifndef PF_TEST_UNIT_H
#define PF_TEST_UNIT_H

#include <stdio.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...) do {						\
	checks++;							\
	if (!(cond)) {							\
		failures++;						\
		fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);	\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
	}								\
} while (0)

struct unit_group {
	const char *name;
	void (*fn)(void);
};

/* argv[1] names one of the n groups: run it and report. */
static int
unit_main(int argc, char **argv, const struct unit_group *groups, size_t n)
{
	const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	size_t k;

	if (argc != 2) {
		fprintf(stderr, "usage: %s GROUP\n", prog);
		return 2;
	}
	for (k = 0; k < n; k++)
		if (strcmp(argv[1], groups[k].name) == 0)
			break;
	if (k == n) {
		fprintf(stderr, "%s: no group %s\n", prog, argv[1]);
		return 2;
	}
	groups[k].fn();
	printf("%s: %d checks, %d failed\n", argv[1], checks, failures);
	return failures ? 1 : 0;
}

#endif
