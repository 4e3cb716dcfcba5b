/*
 * cls-threads THREADS SECONDS [MS]: THREADS threads in all (the main one
 * included), each waking every MS milliseconds (default 1000) to do a
 * trifle of work and sleeping again, for SECONDS.  A mostly idle process
 * with many threads: what pf-classify's own cost is measured against.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "now.h"

static long ms = 1000;
static double end;

static void *
idler(void *arg)
{
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };
	volatile unsigned long x = 0;
	int i;

	(void)arg;
	while (now() < end) {
		for (i = 0; i < 100; i++)
			x += i;
		nanosleep(&d, NULL);
	}
	(void)x;	/* read once: clang counts a volatile only written as unused */
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t *t;
	int n, i;

	n = argc > 1 ? atoi(argv[1]) : 2001;
	end = now() + (argc > 2 ? atof(argv[2]) : 60);
	ms = argc > 3 ? atol(argv[3]) : 1000;
	if (n < 1 || n > 32768 || ms < 1)
		return 2;
	if ((t = calloc((size_t)n, sizeof(*t))) == NULL)
		return 3;
	/* Small stacks: thousands of threads, little memory. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (i = 1; i < n; i++)
		if (pthread_create(&t[i], &attr, idler, NULL) != 0)
			return 3;
	idler(NULL);
	for (i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
