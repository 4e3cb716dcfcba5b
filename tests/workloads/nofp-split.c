/*
 * nofp-split: a known 60/40 split of CPU time between two leaf functions
 * called from main, built without frame pointers (the Makefile's nofp-
 * rule), as Debian builds its packages.  Each round calls nofp_sixty 3
 * times and nofp_forty 2 times in a shuffled order; every call spins the
 * same number of iterations.  Runs for SECONDS (default 5) of wall time.
 * A profiler that follows frame pointers loses main above the leaves; one
 * that unwinds with the call-frame information finds it.  main keeps a
 * marker string on its stack, which a recording must never contain.
 * With "deep" after SECONDS the work runs 400 calls deep, each with 1 KiB
 * of its own: 400 KiB, more than any copied stack holds (the kernel's
 * ceiling is 65528 bytes), reached in fewer frames than an unwinder's
 * limit (127), so every stack is cut short by the copy.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wl-now.h"

#define SPIN 150000UL

__attribute__((noinline)) void
nofp_sixty(void)
{
	for (volatile unsigned long i = 0; i < SPIN; i++)
		;
}

__attribute__((noinline)) void
nofp_forty(void)
{
	for (volatile unsigned long i = 0; i < SPIN; i++)
		;
}

/* Inlined into its callers: the leaves' caller is main itself. */
__attribute__((always_inline)) static inline void
work(double end)
{
	unsigned seed = 7;

	while (now() < end) {
		/* 3 of 5 calls are nofp_sixty; the order varies so as not to alias with the period. */
		unsigned left6 = 3, left4 = 2;

		while (left6 + left4 > 0) {
			if (left4 == 0 || (left6 > 0 && rand_r(&seed) % (left6 + left4) < left6)) {
				nofp_sixty();
				left6--;
			} else {
				nofp_forty();
				left4--;
			}
		}
	}
}

/* Each level keeps 1 KiB of its own: 400 levels are 400 KiB and more of stack. */
__attribute__((noinline)) void
nofp_deep(int n, double end)
{
	volatile char pad[1024];

	pad[0] = (char)n;
	if (n > 0)
		nofp_deep(n - 1, end);
	else
		work(end);
	pad[1] = pad[0];
}

int
main(int argc, char **argv)
{
	volatile char mark[32];
	double end = now() + (argc > 1 ? atof(argv[1]) : 5);

	/* Assembled at run time, so the marker is not in the binary's own text. */
	memcpy((char *)mark, "pf-stack-", 9);
	memcpy((char *)mark + 9, "marker-7c1d", 12);
	if (argc > 2 && strcmp(argv[2], "deep") == 0)
		nofp_deep(400, end);
	else
		work(end);
	return mark[0] == 'x';
}
