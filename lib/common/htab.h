/*
 * htab: the one open-addressing table of lib/common, an index from 64-bit
 * hashes (hash.h) to entry numbers.  The entries and their keys stay in
 * the caller's own array, so one probing and growth logic serves string
 * keys (stack strings, paths, names) and integer keys (pids, addresses)
 * alike; the caller's comparison says whether entry idx holds the key.
 *
 * Linear probing over a power-of-two slot array kept at most 3/4 full.
 * The probe is inline so a comparison given as a constant function
 * inlines with it: pf-fold's stack table pays no call per probe.
 * Entries cannot be removed.
 */
#ifndef PF_HTAB_H
#define PF_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pf_htab_slot {
	uint64_t hash;
	size_t idx;		/* entry number + 1; 0 = empty */
};

/* A zeroed struct pf_htab is not usable: pf_htab_init it. */
struct pf_htab {
	struct pf_htab_slot *slots;
	size_t nslots;		/* power of two */
	size_t n;		/* used slots */
};

/* Whether entry idx of the caller's array holds the key described by arg. */
typedef bool pf_htab_eq(const void *arg, size_t idx);

/*
 * The comparison for integer keys hashed with pf_hash_u64 (hash.h): that
 * hash is a bijection of 64-bit values, so an equal hash is an equal key
 * and the entry need not be read.
 */
static inline bool
pf_htab_u64_eq(const void *arg, size_t idx)
{
	(void)arg;
	(void)idx;
	return true;
}

/*
 * An empty table of at least nslots slots (rounded up to a power of
 * two, at least 16).  0, or -1 with ENOMEM.
 */
int pf_htab_init(struct pf_htab *t, size_t nslots);

/*
 * Room for one more entry: grows (rehashing every slot) when the next
 * insert would fill more than 3/4.  1 when it grew, which moves every
 * slot (find again), 0 when it did not, -1 with ENOMEM (the table is
 * unchanged and still valid).
 */
int pf_htab_reserve(struct pf_htab *t);

/*
 * The slot of the entry with hash h for which eq(arg, idx) is true, or
 * the empty slot where such an entry would go (slot->idx == 0).
 */
static inline struct pf_htab_slot *
pf_htab_find(const struct pf_htab *t, uint64_t h, pf_htab_eq *eq, const void *arg)
{
	size_t mask = t->nslots - 1, i;

	for (i = h & mask; t->slots[i].idx; i = (i + 1) & mask)
		if (t->slots[i].hash == h && eq(arg, t->slots[i].idx - 1))
			break;
	return &t->slots[i];
}

/*
 * pf_htab_find, with room made when the key is absent: the slot of the
 * entry (slot->idx != 0) or the empty slot to pf_htab_set for it.  NULL
 * with ENOMEM (the table is unchanged).
 */
static inline struct pf_htab_slot *
pf_htab_claim(struct pf_htab *t, uint64_t h, pf_htab_eq *eq, const void *arg)
{
	struct pf_htab_slot *s = pf_htab_find(t, h, eq, arg);

	if (s->idx != 0)
		return s;
	switch (pf_htab_reserve(t)) {
	case -1:
		return NULL;
	case 1:
		return pf_htab_find(t, h, eq, arg);
	default:
		return s;
	}
}

/*
 * Fill the empty slot s (from pf_htab_claim, or from pf_htab_find after
 * pf_htab_reserve, with no growth since) with entry idx of hash h.
 */
static inline void
pf_htab_set(struct pf_htab *t, struct pf_htab_slot *s, uint64_t h, size_t idx)
{
	s->hash = h;
	s->idx = idx + 1;
	t->n++;
}

void pf_htab_free(struct pf_htab *t);

#endif
