/*
 * intern: the one interning table of lib/common.  Byte strings (any
 * bytes, any length, "" too) are numbered 0, 1, 2... in the order they
 * are first seen; a key seen again gets its number back, and a number
 * gives back the key's bytes, kept one after another in a pool.  pf-svg's
 * frame names, pf-report's functions, groups and waiters, pprof's
 * strings, functions, mappings, locations and samples, and the
 * symbolizer's symbol names (each with its NUL) are interned here.
 *
 * The table is not htab.h's, whose 16-byte slots are filled up to 3/4:
 * here a slot is 8 bytes, 32 bits of the key's hash beside its number,
 * and the slots are at most half full, so a probe rarely reads a second
 * cache line and almost never a key that is not the one asked for.
 * pf-svg hashes each frame name as it finds its end and asks for the
 * slots of a whole stack at once (pf_intern_prefetch) before it looks
 * them up.  htab.h's slots were measured on pf-svg's names: over
 * bench/pf-svg.sh's 110 MB shuffled input it took 0.455 s of CPU (median
 * of 22 runs) against 0.43 s with these, slower in 15 of 22 pairs.
 *
 * The hash is the caller's to choose, one for all keys of a table:
 * pf_intern_add uses pf_hash (hash.h, seeded, so a target cannot choose
 * keys that collide); pf_intern_add_hashed takes one the caller already
 * has, which must depend on the key's bytes alone.  Numbers are 32 bits:
 * at most PF_INTERN_MAX keys.  Keys cannot be removed.  What a table
 * keeps lives in the struct its caller owns.
 */
#ifndef PF_INTERN_H
#define PF_INTERN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "hash.h"

/* The most keys a table holds: numbers and the slot mask fit 32 bits. */
#define PF_INTERN_MAX	((uint32_t)1 << 31)

struct pf_intern_slot {
	uint32_t hash;		/* the low 32 bits of the key's hash */
	uint32_t id1;		/* its number + 1; 0: empty */
};

/*
 * A zeroed struct pf_intern is not usable: pf_intern_init it.  Read the
 * fields only through the functions below.
 */
struct pf_intern {
	struct pf_intern_slot *slots;
	uint32_t mask;		/* slots - 1, a power of two less one */
	uint32_t n;		/* keys */
	size_t *off;		/* key i is pool.data[off[i], off[i + 1]) */
	size_t cap;		/* of off */
	struct pf_buf pool;
};

/*
 * An empty table with room for about nkeys keys before it grows.  0, or
 * -1 with ENOMEM (nothing to free).
 */
int pf_intern_init(struct pf_intern *t, size_t nkeys);

/* The memory of t; t is then empty and must be initialised again. */
void pf_intern_free(struct pf_intern *t);

/* The hash pf_intern_add gives len bytes at p. */
static inline uint32_t
pf_intern_hash(const void *p, size_t len)
{
	return (uint32_t)pf_hash(p, len);
}

/* The number of keys. */
static inline uint32_t
pf_intern_count(const struct pf_intern *t)
{
	return t->n;
}

/* Key id's bytes (not NUL-terminated), its length in *len. */
static inline const char *
pf_intern_key(const struct pf_intern *t, uint32_t id, size_t *len)
{
	*len = t->off[id + 1] - t->off[id];
	return t->pool.data + t->off[id];
}

/* The length of key id. */
static inline size_t
pf_intern_len(const struct pf_intern *t, uint32_t id)
{
	return t->off[id + 1] - t->off[id];
}

/*
 * A hint that a key of hash h is looked up soon: its first slot is
 * fetched into the cache, so that the misses of many keys overlap.
 */
static inline void
pf_intern_prefetch(const struct pf_intern *t, uint32_t h)
{
	__builtin_prefetch(&t->slots[h & t->mask]);
}

/*
 * The same for the key's bytes, once its slot is in the cache: those of
 * the key in its first slot, when that slot's hash is h.
 */
static inline void
pf_intern_prefetch_key(const struct pf_intern *t, uint32_t h)
{
	const struct pf_intern_slot *s = &t->slots[h & t->mask];

	if (s->id1 != 0 && s->hash == h)
		__builtin_prefetch(t->pool.data + t->off[s->id1 - 1]);
}

/*
 * The adding half of pf_intern_add_hashed, out of line: call that.  slot
 * is the empty slot its probe ended at.
 */
int pf_intern_insert(struct pf_intern *t, const void *p, size_t len,
    uint32_t h, uint32_t slot, uint32_t *id);

/*
 * The number of the key of len bytes at p, whose hash (by the table's
 * one rule) is h, in *id: 0 when the key was there, 1 when it is added
 * now as number pf_intern_count() - 1.  -1 with ENOMEM when it cannot be
 * added (also past PF_INTERN_MAX keys): the table is unchanged and
 * valid.  The bytes are copied; p need not outlive the call.
 */
static inline int
pf_intern_add_hashed(struct pf_intern *t, const void *p, size_t len,
    uint32_t h, uint32_t *id)
{
	uint32_t i, k;

	for (i = h & t->mask; t->slots[i].id1 != 0; i = (i + 1) & t->mask) {
		if (t->slots[i].hash != h)
			continue;
		k = t->slots[i].id1 - 1;
		if (t->off[k + 1] - t->off[k] == len &&
		    (len == 0 || memcmp(t->pool.data + t->off[k], p, len) == 0)) {
			*id = k;
			return 0;
		}
	}
	return pf_intern_insert(t, p, len, h, i, id);
}

/* pf_intern_add_hashed with the key's pf_intern_hash. */
static inline int
pf_intern_add(struct pf_intern *t, const void *p, size_t len, uint32_t *id)
{
	return pf_intern_add_hashed(t, p, len, pf_intern_hash(p, len), id);
}

#endif
