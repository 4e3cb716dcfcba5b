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
 *   rec-stall [-g NS] [-s KIB] [-v FILE] [SECONDS]
 *
 * -g NS sets the smallest step counted as a stall (default 2000 ns).
 * -s KIB runs the loop under KIB kibibytes of stack (1 KiB a call), so
 * that each sample of a -g dwarf recorder copies as many stack bytes as
 * it asks for: the cost of the copy's size.
 * -v FILE writes this process's vDSO image to FILE before the loop: a
 * test reads which addresses the vDSO's own .dynsym covers, which depends
 * on the kernel and on the clocksource (kvm-clock's reader is a static
 * function that no symbol covers).
 * Prints one line: "elapsed_ns E stalled_ns S stalls N".
 */
#include <inttypes.h>
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

/* dump_vdso FILE: the [vdso] mapping of /proc/self/maps into FILE.  0 on
 * success. */
static int
dump_vdso(const char *path)
{
	char line[512];
	uintptr_t lo = 0, hi = 0;
	FILE *maps, *out;
	int ok = 0;

	if ((maps = fopen("/proc/self/maps", "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), maps) != NULL) {
		if (strstr(line, "[vdso]") != NULL &&
		    sscanf(line, "%" SCNxPTR "-%" SCNxPTR, &lo, &hi) == 2) {
			ok = 1;
			break;
		}
	}
	fclose(maps);
	if (!ok || hi <= lo)
		return -1;
	if ((out = fopen(path, "w")) == NULL)
		return -1;
	ok = fwrite((const void *)lo, 1, hi - lo, out) == hi - lo;
	ok = (fclose(out) == 0) && ok;
	return ok ? 0 : -1;
}

struct result {
	uint64_t elapsed, stalled, nstalls;
};

/* The loop, for seconds of wall time. */
static void
measure(double seconds, uint64_t gap, struct result *r)
{
	uint64_t t0, t, prev, end;

	t0 = prev = now_ns();
	end = t0 + (uint64_t)(seconds * 1e9);
	do {
		t = now_ns();
		if (t - prev >= gap) {
			r->stalled += t - prev;
			r->nstalls++;
		}
		prev = t;
	} while (t < end);
	r->elapsed = t - t0;
}

/* The loop under kib calls of 1 KiB of stack each. */
__attribute__((noinline)) static void
deep(unsigned kib, double seconds, uint64_t gap, struct result *r)
{
	volatile char pad[1024];

	pad[0] = (char)kib;
	if (kib > 0)
		deep(kib - 1, seconds, gap, r);
	else
		measure(seconds, gap, r);
	pad[1] = pad[0];
}

int
main(int argc, char **argv)
{
	const char *vdso = NULL;
	double seconds = 3;
	uint64_t gap = 2000;
	unsigned kib = 0;
	struct result r = { 0, 0, 0 };
	int ch;

	while ((ch = getopt(argc, argv, "g:s:v:")) != -1) {
		switch (ch) {
		case 'g':
			gap = strtoull(optarg, NULL, 10);
			break;
		case 's':
			kib = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'v':
			vdso = optarg;
			break;
		default:
			fprintf(stderr, "usage: rec-stall [-g NS] [-s KIB] [-v FILE] [SECONDS]\n");
			return 2;
		}
	}
	if (optind < argc)
		seconds = atof(argv[optind]);
	if (!(seconds > 0 && seconds <= 3600) || gap == 0 || kib > 4096) {
		fprintf(stderr, "rec-stall: bad arguments\n");
		return 2;
	}
	if (vdso != NULL && dump_vdso(vdso) != 0) {
		fprintf(stderr, "rec-stall: %s: cannot write the vDSO image\n", vdso);
		return 1;
	}
	deep(kib, seconds, gap, &r);
	printf("elapsed_ns %llu stalled_ns %llu stalls %llu\n",
	    (unsigned long long)r.elapsed, (unsigned long long)r.stalled,
	    (unsigned long long)r.nstalls);
	return 0;
}
