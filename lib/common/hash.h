/*
 * hash: the one hash function of pf's open-addressing tables.
 *
 * pf_hash mixes bytes eight at a time; pf_hash_u64 is its finaliser alone,
 * for integer keys (a tid, an address).  Both are keyed with a seed drawn
 * at start (getrandom), so a target cannot choose names or addresses that
 * collide in our tables: it would have to know the seed.  No output may
 * depend on it: what is printed is sorted or in input order, never in
 * table order.  PF_HASH_SEED=N in the environment fixes the seed, so the
 * tests can run the same input under two seeds and compare the bytes.
 */
#ifndef PF_HASH_H
#define PF_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The seed, set before main (hash.c). */
extern uint64_t pf_hash_seed;

/* A 64-bit hash of len bytes at p. */
uint64_t pf_hash(const void *p, size_t len);

/* A 64-bit hash of one integer (the murmur3 finaliser, over x and the seed). */
static inline uint64_t
pf_hash_u64(uint64_t x)
{
	x ^= pf_hash_seed;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif
