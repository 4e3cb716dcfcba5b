/*
 * wl-now.h: the workloads' clock, CLOCK_MONOTONIC in seconds, for those
 * that run for a time of the wall clock.  A static function, as each
 * workload once had its own: it stays a frame named now in its stacks.
 */
#ifndef WL_NOW_H
#define WL_NOW_H

#include <time.h>

static __attribute__((unused)) double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
