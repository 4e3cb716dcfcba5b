/*
 * rec-split: a known split of CPU time across named leaf functions, for
 * checking a profiler's shares.  Each round calls rec_alpha 5 times,
 * rec_beta 3 times and rec_gamma 2 times; every call spins the same fixed
 * number of iterations, so the CPU time splits 50/30/20 whatever else the
 * machine is doing.  Runs for SECONDS (default 5) of wall time; with -t N
 * the work runs in N threads started after 0.3 s (to test threads created
 * while a profiler is attached).  With -n ROUNDS it does exactly ROUNDS
 * rounds, prints the CPU time they took and exits (for overhead
 * benchmarks).  With -x PROG ARGS after
 * SECONDS it then execs PROG in the same process (to test a profiler
 * that follows an exec during its window).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wl-now.h"

#define SPIN 200000UL

static double seconds = 5;

/* The loops live in the leaves so every sample's first frame names one. */
__attribute__((noinline, aligned(64))) void
rec_alpha(void)
{
	for (volatile unsigned long i = 0; i < SPIN; i++)
		;
}

__attribute__((noinline, aligned(64))) void
rec_beta(void)
{
	for (volatile unsigned long i = 0; i < SPIN; i++)
		;
}

__attribute__((noinline, aligned(64))) void
rec_gamma(void)
{
	for (volatile unsigned long i = 0; i < SPIN; i++)
		;
}

/*
 * One round: 5 alpha, 3 beta, 2 gamma calls in a shuffled order.  A fixed
 * order would alias with the sampling period (a round lasts a few ms, the
 * period is 1-10 ms) and bias a run's shares far beyond sampling noise.
 */
__attribute__((noinline)) static void
round_once(unsigned *seed)
{
	static void (*const calls[10])(void) = {
		rec_alpha, rec_alpha, rec_alpha, rec_alpha, rec_alpha,
		rec_beta, rec_beta, rec_beta, rec_gamma, rec_gamma
	};
	void (*order[10])(void);
	int i;

	memcpy(order, calls, sizeof(order));
	for (i = 9; i > 0; i--) {
		int j = (int)(rand_r(seed) % (unsigned)(i + 1));
		void (*t)(void) = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < 10; i++)
		order[i]();
}

static void *
work(void *arg)
{
	double end = *(double *)arg;
	unsigned seed = (unsigned)(uintptr_t)&end ^ (unsigned)getpid();

	while (now() < end)
		round_once(&seed);
	return NULL;
}

int
main(int argc, char **argv)
{
	int nthreads = 0, i;
	double end;

	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		/*
		 * A fixed amount of work, for timing a profiler's overhead:
		 * prints the CPU time it took, to the nanosecond.
		 */
		unsigned seed = 1;
		long n = atol(argv[2]);
		struct timespec a, b;

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
		while (n-- > 0)
			round_once(&seed);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
		printf("cpu_ns %lld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000LL +
		    (b.tv_nsec - a.tv_nsec));
		return 0;
	}
	if (argc > 2 && strcmp(argv[1], "-t") == 0) {
		nthreads = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc > 1)
		seconds = atof(argv[1]);
	end = now() + seconds;
	if (nthreads > 0) {
		pthread_t t[16];

		if (nthreads > 16)
			nthreads = 16;
		usleep(300000);
		for (i = 0; i < nthreads; i++)
			pthread_create(&t[i], NULL, work, &end);
		for (i = 0; i < nthreads; i++)
			pthread_join(t[i], NULL);
		return 0;
	}
	work(&end);
	if (argc > 3 && strcmp(argv[2], "-x") == 0) {
		execv(argv[3], argv + 3);
		perror(argv[3]);
		return 127;
	}
	return 0;
}
