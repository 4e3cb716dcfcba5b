/*
 * wl-text.h: for the workloads that run their own code from a copy of
 * their executable (nofp-remap, rec-forge) or from anonymous memory
 * (rec-jit, rec-jitcall): where that code is mapped, a copy of machine
 * code in anonymous executable memory, and the time (wl-now.h).
 */
#ifndef WL_TEXT_H
#define WL_TEXT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "wl-now.h"

/*
 * n bytes of code copied to offset 64 of a fresh anonymous page (int3
 * around it), made executable and no longer writable; NULL on failure.
 */
static __attribute__((unused)) unsigned char *
anon_code(const unsigned char *code, size_t n)
{
	unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED || n > 4096 - 64)
		return NULL;
	memset(mem, 0xcc, 4096);
	memcpy(mem + 64, code, n);
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC) == -1)
		return NULL;
	return mem + 64;
}

/* The executable mapping holding addr: start, end and file offset. */
static __attribute__((unused)) int
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
