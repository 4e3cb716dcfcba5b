/*
 * cls-sleeper MS SECONDS [THREADS]: a little work, then nanosleep(MS), for
 * SECONDS, in THREADS threads (default 1, the main one included, up to
 * 32768 on small stacks).  pf-classify: OFF_CPU at 10 ms (about 100
 * voluntary switches a second per thread), IDLE at 1000 ms.  With
 * thousands of threads and MS 1000, a mostly idle process with many
 * threads: what pf-classify's own cost is measured against.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "wl-now.h"

static long ms = 10;
static double end;

static void *
sleeper(void *arg)
{
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };
	volatile unsigned long x = 0;
	int i;

	(void)arg;
	while (now() < end) {
		for (i = 0; i < 1000; i++)
			x += i;
		nanosleep(&d, NULL);
	}
	(void)x;	/* read once: clang counts a volatile only written as unused */
	return NULL;
}

int
main(int argc, char **argv)
{
	int n = argc > 3 ? atoi(argv[3]) : 1, i;
	pthread_attr_t attr;
	pthread_t *t;

	ms = argc > 1 ? atol(argv[1]) : 10;
	end = now() + (argc > 2 ? atof(argv[2]) : 10);
	if (n < 1 || n > 32768 || ms < 1)
		return 2;
	if ((t = calloc((size_t)n, sizeof(*t))) == NULL)
		return 3;
	/* Small stacks: thousands of threads, little memory. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (i = 1; i < n; i++)
		if (pthread_create(&t[i], &attr, sleeper, NULL) != 0)
			return 3;
	sleeper(NULL);
	for (i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
