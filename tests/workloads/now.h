/*
 * now.h: the workloads' clock: CLOCK_MONOTONIC in seconds, for the ones
 * that run for a number of seconds of wall time.  A static function, as
 * each workload had its own: it stays a frame named now in their stacks.
 */
#ifndef PF_WORKLOADS_NOW_H
#define PF_WORKLOADS_NOW_H

#include <time.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
