/*
 * intern: adding a key.  The slots double when a key would fill more
 * than half of them, and the pool and the offsets grow as pf_buf and
 * pf_grow do; each is grown before anything is written, so a failure
 * leaves the table as it was.  A rehash reads the hashes kept in the
 * slots, never the keys.
 */
#include <errno.h>
#include <stdlib.h>

#include "grow.h"
#include "intern.h"

int
pf_intern_init(struct pf_intern *t, size_t nkeys)
{
	size_t n = 16;

	memset(t, 0, sizeof(*t));
	if (nkeys > PF_INTERN_MAX) {
		errno = ENOMEM;
		return -1;
	}
	while (n < nkeys * 2)
		n *= 2;
	t->slots = calloc(n, sizeof(*t->slots));
	t->mask = (uint32_t)(n - 1);
	/* One offset more than keys: off[0] is 0, and the pool never NULL. */
	if (t->slots == NULL ||
	    pf_grow(&t->off, &t->cap, nkeys + 1, sizeof(*t->off)) == -1 ||
	    pf_buf_reserve(&t->pool, 0) == -1) {
		pf_intern_free(t);
		errno = ENOMEM;
		return -1;
	}
	t->off[0] = 0;
	return 0;
}

void
pf_intern_free(struct pf_intern *t)
{
	free(t->slots);
	free(t->off);
	pf_buf_free(&t->pool);
	memset(t, 0, sizeof(*t));
}

/* Twice the slots, each placed again by the hash it keeps. */
static int
grow_slots(struct pf_intern *t)
{
	uint32_t mask = t->mask * 2 + 1, i, j;
	struct pf_intern_slot *s;

	if ((s = calloc((size_t)mask + 1, sizeof(*s))) == NULL)
		return -1;
	for (i = 0; i <= t->mask; i++) {
		if (t->slots[i].id1 == 0)
			continue;
		for (j = t->slots[i].hash & mask; s[j].id1 != 0; j = (j + 1) & mask)
			;
		s[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = s;
	t->mask = mask;
	return 0;
}

int
pf_intern_insert(struct pf_intern *t, const void *p, size_t len,
    uint32_t h, uint32_t slot, uint32_t *id)
{
	if (t->n >= PF_INTERN_MAX) {
		errno = ENOMEM;
		return -1;
	}
	if (pf_grow(&t->off, &t->cap, (size_t)t->n + 2, sizeof(*t->off)) == -1 ||
	    pf_buf_reserve(&t->pool, len) == -1)
		return -1;
	/*
	 * At most half full.  The mask stays below 2^32: it doubles only
	 * while n * 2 passes it, and n < 2^31.
	 */
	if (t->n * 2 > t->mask) {
		if (grow_slots(t) == -1)
			return -1;
		for (slot = h & t->mask; t->slots[slot].id1 != 0;
		    slot = (slot + 1) & t->mask)
			;
	}
	/* The room was reserved above: this append cannot fail. */
	if (pf_buf_append(&t->pool, p, len) == -1)
		return -1;
	t->off[t->n + 1] = t->pool.len;
	t->slots[slot] = (struct pf_intern_slot){ h, t->n + 1 };
	*id = t->n++;
	return 1;
}
