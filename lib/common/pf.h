/*
 * pf.h: what every pf tool and module shares: the version and the exit
 * statuses.  The statuses are the contract documented in every man page.
 */
#ifndef PF_H
#define PF_H

#define PF_VERSION "0.1.0"

enum {
	PF_EXIT_OK = 0,		/* done, nothing to report */
	PF_EXIT_FINDING = 1,	/* a finding or a refusal: check failed, safety cap hit */
	PF_EXIT_USAGE = 2,	/* bad command line; nothing was done */
	PF_EXIT_FAIL = 3	/* runtime failure: I/O, malformed input, permission */
};

#define PF_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
