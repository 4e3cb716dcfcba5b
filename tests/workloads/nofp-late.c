/*
 * nofp-late LIB DELAY_MS SECONDS: a library loaded in the middle of a
 * recording.  main spins in late_before for DELAY_MS, then dlopens LIB
 * (RTLD_NOW) and calls its late_work(seconds) until SECONDS of wall time
 * have passed since the start.  Built without frame pointers (the
 * Makefile's nofp- rule), as is the library the tests build: only the
 * call-frame information of both tells a frame's caller.  A recorder
 * that cannot read LIB (it lives in a directory the recorder may not
 * enter) names none of late_work's frames and loses main above them.
 * Exits 2 when LIB cannot be loaded.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "wl-text.h"

__attribute__((noinline)) static void
late_before(double until)
{
	while (now() < until)
		for (volatile int i = 0; i < 100000; i++)
			;
}

int
main(int argc, char **argv)
{
	void (*work)(double);
	double t0 = now();
	void *h;

	if (argc != 4) {
		fprintf(stderr, "usage: nofp-late LIB DELAY_MS SECONDS\n");
		return 1;
	}
	late_before(t0 + atof(argv[2]) / 1000.0);
	if ((h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) == NULL ||
	    (*(void **)&work = dlsym(h, "late_work")) == NULL) {
		fprintf(stderr, "nofp-late: %s\n", dlerror());
		return 2;
	}
	work(t0 + atof(argv[3]));
	return 0;
}
