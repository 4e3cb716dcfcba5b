/*
 * rec-mangled: CPU work in functions whose symbols carry C++ (Itanium),
 * Rust legacy and Rust v0 mangled names (given with asm labels, so no C++
 * or Rust compiler is needed), for checking that a profiler demangles
 * what it samples.  Runs for SECONDS (default 3).
 */
#include <stdlib.h>
#include <time.h>

#include "wl-now.h"

#define SPIN 200000UL

void cxx_spin(double) __asm__("_ZN2ns1WIdE4spinEd");
void rust_legacy_spin(void) __asm__("_ZN7mycrate6legacy4spin17h0123456789abcdefE");
void rust_v0_spin(void) __asm__("_RNvNtCs1234_7mycrate2v04spin");

__attribute__((noinline, aligned(64))) void
cxx_spin(double x)
{
	for (volatile unsigned long i = 0; i < SPIN; i++)
		(void)x;
}

__attribute__((noinline, aligned(64))) void
rust_legacy_spin(void)
{
	for (volatile unsigned long i = 0; i < SPIN; i++)
		;
}

__attribute__((noinline, aligned(64))) void
rust_v0_spin(void)
{
	for (volatile unsigned long i = 0; i < SPIN; i++)
		;
}

int
main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	double end;

	end = now() + seconds;
	do {
		cxx_spin(1.0);
		rust_legacy_spin();
		rust_v0_spin();
	} while (now() < end);
	return 0;
}
