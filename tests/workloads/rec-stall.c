/*
 * rec-stall: how much of its time a CPU-bound thread loses, for measuring
 * what a sampling profiler costs the process it samples.
 *
 * The thread does nothing but read CLOCK_MONOTONIC (through the vDSO: no
 * system call) for SECONDS of wall time.  Two reads normally lie well
 * under a microsecond apart; a longer step means the thread was not
 * running: a timer or sampling interrupt, a VM exit, preemption.  Those
 * steps are summed.  A fixed amount of work under a profiler takes
 * (1 - stalled share alone) / (1 - stalled share sampled) times as long,
 * and this measures it without timing whole runs, whose length varies by
 * far more than a few percent on a shared virtual machine.
 *
 *   rec-stall [-g NS] [SECONDS]
 *
 * -g NS sets the smallest step counted as a stall (default 2000 ns).
 * Prints one line: "elapsed_ns E stalled_ns S stalls N".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	double seconds = 3;
	uint64_t gap = 2000, t0, t, prev, end, stalled = 0, nstalls = 0;
	int ch;

	while ((ch = getopt(argc, argv, "g:")) != -1) {
		switch (ch) {
		case 'g':
			gap = strtoull(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: rec-stall [-g NS] [SECONDS]\n");
			return 2;
		}
	}
	if (optind < argc)
		seconds = atof(argv[optind]);
	if (!(seconds > 0 && seconds <= 3600) || gap == 0) {
		fprintf(stderr, "rec-stall: bad arguments\n");
		return 2;
	}
	t0 = prev = now_ns();
	end = t0 + (uint64_t)(seconds * 1e9);
	do {
		t = now_ns();
		if (t - prev >= gap) {
			stalled += t - prev;
			nstalls++;
		}
		prev = t;
	} while (t < end);
	printf("elapsed_ns %llu stalled_ns %llu stalls %llu\n",
	    (unsigned long long)(t - t0), (unsigned long long)stalled,
	    (unsigned long long)nstalls);
	return 0;
}
