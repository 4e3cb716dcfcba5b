/*
 * cls-spin THREADS SECONDS: THREADS threads (the main one included) spin
 * in user space for SECONDS, then exit.  pf-classify: ON_CPU_USER with 1
 * thread, CPU_BOUND_OVERSUBSCRIBED with more threads than CPUs.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "wl-now.h"

static double stop_at;

static void *
spin(void *arg)
{
	volatile unsigned long x = 0;
	unsigned long i;

	(void)arg;
	while (now() < stop_at)
		for (i = 0; i < 100000; i++)
			x += i;
	(void)x;	/* read once: clang counts a volatile only written as unused */
	return NULL;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, i;
	double secs = argc > 2 ? atof(argv[2]) : 10;
	pthread_t t[64];

	if (n < 1 || n > 64)
		return 2;
	stop_at = now() + secs;
	for (i = 1; i < n; i++)
		pthread_create(&t[i], NULL, spin, NULL);
	spin(NULL);
	for (i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
