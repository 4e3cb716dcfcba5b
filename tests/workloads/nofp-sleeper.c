/*
 * nofp-sleeper: a known amount of blocked time in one named function,
 * built without frame pointers (the Makefile's nofp- rule).  main calls
 * sleeper_loop, which sleeps ROUNDS (default 200) times US microseconds
 * (default 10000) through libc's nanosleep: 2 s of blocked time at the
 * defaults; many short sleeps measure a profiler's cost per switch.  Debian's libc
 * keeps no frame pointers either, so a frame-pointer unwind from inside
 * clock_nanosleep loses sleeper_loop and main; one that unwinds with the
 * call-frame information finds both.
 */
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

	/* Not a tail call: main stays on the stack below sleeper_loop. */
	return sleeper_loop(rounds, us) != 0 ? 1 : 0;
}
