/*
 * cls-duty PERCENT SECONDS: spin PERCENT of every 20 ms and sleep the rest.
 * pf-classify: MIXED at 50.
 */
#include <stdlib.h>
#include <time.h>

#include "wl-now.h"

int
main(int argc, char **argv)
{
	double pct = argc > 1 ? atof(argv[1]) : 50, secs = argc > 2 ? atof(argv[2]) : 10;
	double end = now() + secs, t;
	volatile unsigned long x = 0;
	struct timespec d;

	d.tv_sec = 0;
	d.tv_nsec = (long)(20e6 * (100 - pct) / 100);
	while ((t = now()) < end) {
		while (now() < t + 0.020 * pct / 100)
			x++;
		nanosleep(&d, NULL);
	}
	return 0;
}
