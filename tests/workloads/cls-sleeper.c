/*
 * cls-sleeper MS SECONDS: a little work, then nanosleep(MS), for SECONDS.
 * pf-classify: OFF_CPU at 10 ms (about 100 voluntary switches a second),
 * IDLE at 1000 ms.
 */
#include <stdlib.h>
#include <time.h>

int
main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 10;
	double secs = argc > 2 ? atof(argv[2]) : 10;
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000L }, ts;
	volatile unsigned long x = 0;
	double end;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + secs;
	for (;;) {
		for (i = 0; i < 1000; i++)
			x += i;
		nanosleep(&d, NULL);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (ts.tv_sec + ts.tv_nsec / 1e9 >= end)
			break;
	}
	return 0;
}
