/*
 * nofp-sleeper: a known amount of blocked time in one named function,
 * built without frame pointers (the Makefile's nofp- rule).  main calls
 * sleeper_loop, which sleeps ROUNDS (default 200) times US microseconds
 * (default 10000) through libc's nanosleep: 2 s of blocked time at the
 * defaults; many short sleeps measure a profiler's cost per switch.  With
 * a third argument FILE it writes there the nanoseconds sleeper_loop took
 * by the clock: each sleep overshoots a little, more on a busy host.  Debian's libc
 * keeps no frame pointers either, so a frame-pointer unwind from inside
 * clock_nanosleep loses sleeper_loop and main; one that unwinds with the
 * call-frame information finds both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) int
sleeper_loop(int rounds, long us)
{
	const struct timespec ts = { us / 1000000, us % 1000000 * 1000 };
	int failed = 0;

	for (int i = 0; i < rounds; i++)
		failed += nanosleep(&ts, NULL) != 0;
	return failed;
}

int
main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	long us = argc > 2 ? atol(argv[2]) : 10000;

	struct timespec a, b;
	int failed;
	FILE *f;

	clock_gettime(CLOCK_MONOTONIC, &a);
	failed = sleeper_loop(rounds, us);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (argc > 3) {
		if ((f = fopen(argv[3], "w")) == NULL)
			return 1;
		fprintf(f, "%lld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000LL +
		    (b.tv_nsec - a.tv_nsec));
		if (fclose(f) != 0)
			return 1;
	}
	/* main stays on the stack below sleeper_loop (no tail call). */
	return failed != 0 ? 1 : 0;
}
