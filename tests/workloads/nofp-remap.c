/*
 * nofp-remap: code run from a mapping made a moment before, on another
 * CPU than the one that made it, built without frame pointers (the
 * Makefile's nofp- rule).  Each round pins itself to one CPU, maps its
 * own text again at a new address, moves to the other CPU and spins in
 * remap_spin's copy there for ROUND_MS (150) ms; rounds go on for SECONDS
 * (default 3) of wall time, the CPUs swapping each round.  The mapping's
 * record goes to the first CPU's ring, the samples to the second's: a
 * recorder that drains the second ring first sees samples in code it has
 * not heard of.  Copies are kept, so each round's is at a new address.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "wl-text.h"

#define ROUND_MS	150
#define CHUNK		200000UL
#define SPAN		(4UL << 20)	/* more than the file's image */

/* No calls and no absolute addresses: it runs as well from a copy. */
__attribute__((noinline)) void
remap_spin(unsigned long n)
{
	for (volatile unsigned long i = 0; i < n; i++)
		;
}

static void
pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	(void)sched_setaffinity(0, sizeof(set), &set);
	sched_yield();
}

/* Spin in a fresh copy of remap_spin for ROUND_MS ms. */
__attribute__((noinline)) static int
remap_round(int fd, int from, int to)
{
	uintptr_t start, end;
	unsigned long off;
	void (*spin)(unsigned long);
	char *base, *copy;
	double stop;

	if (text_of((uintptr_t)remap_spin, &start, &end, &off) == -1)
		return -1;
	pin(from);
	/*
	 * Where the whole file would go, as the loader places it: the text
	 * at its own offset from a base (vaddr = offset here), the rest of
	 * the span reserved, so no two copies' images overlap.
	 */
	if ((base = mmap(NULL, SPAN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
		return -1;
	copy = mmap(base + off, end - start, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd,
	    (off_t)off);
	if (copy == MAP_FAILED)
		return -1;
	pin(to);
	spin = (void (*)(unsigned long))(uintptr_t)(copy + ((uintptr_t)remap_spin - start));
	stop = now() + ROUND_MS / 1000.0;
	while (now() < stop)
		spin(CHUNK);
	return 0;
}

int
main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 3);
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC), round = 0;

	if (fd == -1 || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return 1;
	while (now() < end) {
		if (remap_round(fd, round % 2, (round + 1) % 2) == -1)
			return 1;
		round++;
	}
	return 0;
}
