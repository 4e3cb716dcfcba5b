/*
 * pprof-split: CPU time split 60/25/15 across three leaf functions, for
 * checking the shares a profile reader shows.  Each round calls pp_sixty
 * 12 times, pp_quarter 5 times and pp_fifteen 3 times, every call the same
 * fixed spin, so the split holds whatever else the machine does.  The
 * calls of a round come in a shuffled order: a fixed order repeats with a
 * period near the sampler's, and the samples would then fall on the same
 * calls round after round.  Runs
 * for SECONDS (default 5) of wall time.  Needs only libc: the static
 * binaries' test builds it with -static for an empty root.
 */
#include <stdlib.h>
#include <time.h>

#include "wl-now.h"

#define SPIN 100000UL

__attribute__((noinline, aligned(64))) void
pp_sixty(void)
{
	for (volatile unsigned long i = 0; i < SPIN; i++)
		;
}

__attribute__((noinline, aligned(64))) void
pp_quarter(void)
{
	for (volatile unsigned long i = 0; i < SPIN; i++)
		;
}

__attribute__((noinline, aligned(64))) void
pp_fifteen(void)
{
	for (volatile unsigned long i = 0; i < SPIN; i++)
		;
}

__attribute__((noinline)) static void
pp_round(void)
{
	static void (*calls[20])(void);
	static unsigned long seed = 1;
	void (*t)(void);
	int i, j;

	for (i = 0; i < 20; i++)
		calls[i] = i < 12 ? pp_sixty : i < 17 ? pp_quarter : pp_fifteen;
	for (i = 19; i > 0; i--) {
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		j = (int)((seed >> 33) % (unsigned long)(i + 1));
		t = calls[i];
		calls[i] = calls[j];
		calls[j] = t;
	}
	for (i = 0; i < 20; i++)
		calls[i]();
}

int
main(int argc, char *argv[])
{
	double seconds = argc > 1 ? atof(argv[1]) : 5, end = now() + seconds;

	while (now() < end)
		pp_round();
	return 0;
}
