/*
 * nofp-inline: a hot loop the compiler inlines, built without frame
 * pointers (the Makefile's nofp- rule, -O2 -g).  inl_outer (never
 * inlined) calls inl_spin (always inlined into it) for most of its time
 * and inl_tail (also inlined) for the rest, so inl_spin's samples are all
 * at addresses of inl_outer, and only the DWARF says whose they are.
 * Runs for SECONDS (default 3) of wall time.
 */
#include <stdlib.h>
#include <time.h>

#include "wl-now.h"

#define SPIN 200000UL

__attribute__((always_inline)) static inline unsigned long
inl_spin(unsigned long x)
{
	for (unsigned long i = 0; i < SPIN; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL + (x >> 29);
	return x;
}

__attribute__((always_inline)) static inline unsigned long
inl_tail(unsigned long x)
{
	for (unsigned long i = 0; i < SPIN / 8; i++)
		x ^= (x << 7) + (x >> 3) + i;
	return x;
}

__attribute__((noinline)) unsigned long
inl_outer(unsigned long x)
{
	x = inl_spin(x);
	return inl_tail(x);
}

int
main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 3);
	volatile unsigned long sink = 1;

	while (now() < end)
		sink = inl_outer(sink);
	return sink == 42;
}
