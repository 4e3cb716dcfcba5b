/*
 * many-threads: N threads (default 2001, counting the main one) that only
 * sleep, for S seconds (default 30): a target whose thread count, not its
 * CPU use, is what matters (one event descriptor per CPU per thread).
 *
 *   many-threads [N [S]]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *
sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2001, s = argc > 2 ? atol(argv[2]) : 30, i;
	pthread_attr_t a;
	pthread_t t;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (i = 1; i < n; i++)
		if (pthread_create(&t, &a, sleeper, NULL) != 0) {
			fprintf(stderr, "many-threads: thread %ld of %ld: cannot start\n", i, n);
			return 1;
		}
	printf("ready %ld\n", n);
	fflush(stdout);
	sleep((unsigned)s);
	return 0;
}
