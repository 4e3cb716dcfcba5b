/*
 * hash: the one hash function of pf's open-addressing tables.
 *
 * pf_hash mixes bytes eight at a time; pf_hash_u64 is its finaliser alone,
 * for integer keys (a tid, an address).  Neither is keyed: the tables that
 * use them hold data the caller reads anyway, and a table whose keys an
 * attacker chooses must bound its own probing.
 */
#ifndef PF_HASH_H
#define PF_HASH_H

#include <stddef.h>
#include <stdint.h>

/* A 64-bit hash of len bytes at p. */
uint64_t pf_hash(const void *p, size_t len);

/* A 64-bit hash of one integer (the murmur3 finaliser). */
static inline uint64_t
pf_hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif
