/*
 * nofp-chain: code built without frame pointers whose hot loop keeps a
 * pointer in rbp, as optimising compilers do once rbp is a general
 * register.  The pointer walks a ring of heap nodes laid out like stack
 * frames (next pointer, then a word where a return address would be), so
 * a frame-pointer walk from inside the loop follows the ring as far as
 * the kernel lets it, every "return address" a number no code is mapped
 * at.  Runs for SECONDS (default 5) of wall time.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "wl-now.h"

#define NODES	16
#define LAPS	100000UL

struct node {
	struct node *next;
	uintptr_t word;		/* where a frame's return address would be */
};

/*
 * LAPS steps around the ring with rbp as the cursor.  rbp is saved and
 * restored around the loop, below a red zone the compiler may be using.
 */
__attribute__((noinline)) void
nofp_chase(struct node *ring, unsigned long laps)
{
	__asm__ volatile(
	    "lea -128(%%rsp), %%rsp\n\t"
	    "push %%rbp\n\t"
	    "mov %0, %%rbp\n"
	    "1:\n\t"
	    "mov (%%rbp), %%rbp\n\t"
	    "dec %1\n\t"
	    "jnz 1b\n\t"
	    "pop %%rbp\n\t"
	    "lea 128(%%rsp), %%rsp"
	    : "+r"(ring), "+r"(laps) : : "memory", "cc");
}

int
main(int argc, char **argv)
{
	struct node *ring = calloc(NODES, sizeof(*ring));
	double end = now() + (argc > 1 ? atof(argv[1]) : 5);
	unsigned i;

	if (ring == NULL)
		return 1;
	/* Small numbers and heap addresses: data, never code. */
	for (i = 0; i < NODES; i++) {
		ring[i].next = &ring[(i + 1) % NODES];
		ring[i].word = i % 2 ? (uintptr_t)&ring[i] : 0x1000 + 8 * i;
	}
	while (now() < end)
		nofp_chase(ring, LAPS);
	free(ring);
	return 0;
}
