/*
 * addrsearch: the "largest start <= address" search shared by every
 * table of address ranges (kernel symbols, process mappings, JIT maps).
 * The tables differ in what follows the start (an end, a size, nothing)
 * and so in how they decide the address is really inside; the search
 * itself is this one.
 */
#ifndef PF_ADDRSEARCH_H
#define PF_ADDRSEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * In the array of n elements of stride bytes at base, sorted by the
 * uint64_t at byte offset start_off of each, the index of the last
 * element whose start is <= addr (the last of equal starts).  SIZE_MAX
 * when n is 0 or addr is below the first start.
 */
static inline size_t
pf_addr_floor(const void *base, size_t n, size_t stride, size_t start_off, uint64_t addr)
{
	const unsigned char *b = base;
	size_t lo = 0, hi = n;
	uint64_t v;

	/* Invariant: starts before lo are <= addr, starts from hi on are > addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		memcpy(&v, b + mid * stride + start_off, sizeof(v));
		if (v <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? SIZE_MAX : lo - 1;
}

/* pf_addr_floor over array arr of n structs sorted by their member field. */
#define PF_ADDR_FLOOR(arr, n, field, addr)				\
	pf_addr_floor((arr), (n), sizeof(*(arr)),			\
	    offsetof(__typeof__(*(arr)), field), (addr))

#endif
