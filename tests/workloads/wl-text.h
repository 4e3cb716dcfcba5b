/*
 * wl-text.h: for the workloads that run their own code from a copy of
 * their executable (nofp-remap, rec-forge): where that code is mapped,
 * and the time.
 */
#ifndef WL_TEXT_H
#define WL_TEXT_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The executable mapping holding addr: start, end and file offset. */
static int
text_of(uintptr_t addr, uintptr_t *start, uintptr_t *end, unsigned long *off)
{
	char line[512], perm[8];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = -1;

	if (f == NULL)
		return -1;
	while (found == -1 && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%lx-%lx %7s %lx", start, end, perm, off) == 4 &&
		    perm[2] == 'x' && addr >= *start && addr < *end)
			found = 0;
	fclose(f);
	return found;
}

#endif
