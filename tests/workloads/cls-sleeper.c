/*
 * cls-sleeper MS SECONDS [THREADS]: a little work, then nanosleep(MS), for
 * SECONDS, in THREADS threads (default 1).  pf-classify: OFF_CPU at 10 ms
 * (about 100 voluntary switches a second per thread), IDLE at 1000 ms.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "now.h"

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
	pthread_t t[1024];

	ms = argc > 1 ? atol(argv[1]) : 10;
	end = now() + (argc > 2 ? atof(argv[2]) : 10);
	if (n < 1 || n > 1024)
		return 2;
	for (i = 1; i < n; i++)
		pthread_create(&t[i], NULL, sleeper, NULL);
	sleeper(NULL);
	for (i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
