/*
 * dbg-split: a program shipped stripped, as distributions ship theirs
 * (the Makefile builds build/workloads/dbg-split without a symbol table
 * and keeps its symbols and DWARF in dbg-split.debug, which nothing links
 * to): a recording names none of its functions, a debug file found by its
 * build-id names them all afterwards.  main calls dbg_outer, which calls
 * dbg_alpha (whose loop is dbg_spin, inlined) and dbg_beta, so the time
 * splits about 50/50 under dbg_outer.  Runs for SECONDS (default 5).
 */
#include <stdlib.h>
#include <time.h>

#include "wl-now.h"

#define SPIN 200000UL

/* Inlined into dbg_alpha: a frame only the DWARF of the debug file names. */
static inline __attribute__((always_inline)) void
dbg_spin(unsigned long n)
{
	for (volatile unsigned long i = 0; i < n; i++)
		;
}

__attribute__((noinline)) static void
dbg_alpha(void)
{
	dbg_spin(SPIN);
}

__attribute__((noinline)) static void
dbg_beta(void)
{
	for (volatile unsigned long i = 0; i < SPIN; i++)
		;
}

__attribute__((noinline)) static void
dbg_outer(void)
{
	dbg_alpha();
	dbg_beta();
}

int
main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5, end = now() + seconds;

	while (now() < end)
		dbg_outer();
	return 0;
}
