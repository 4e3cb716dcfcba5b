/*
 * htab: growth by doubling; the stored hashes make a rehash a pass over
 * the slots that never touches the caller's keys.
 */
#include <errno.h>
#include <stdlib.h>

#include "htab.h"

int
pf_htab_init(struct pf_htab *t, size_t nslots)
{
	size_t n = 16;

	while (n < nslots) {
		if (n > SIZE_MAX / 2 / sizeof(*t->slots)) {
			errno = ENOMEM;
			return -1;
		}
		n *= 2;
	}
	if ((t->slots = calloc(n, sizeof(*t->slots))) == NULL)
		return -1;
	t->nslots = n;
	t->n = 0;
	return 0;
}

int
pf_htab_reserve(struct pf_htab *t)
{
	struct pf_htab_slot *s;
	size_t n, i, j;

	if ((t->n + 1) * 4 <= t->nslots * 3)
		return 0;
	if (t->nslots > SIZE_MAX / 2 / sizeof(*s)) {
		errno = ENOMEM;
		return -1;
	}
	n = t->nslots * 2;
	if ((s = calloc(n, sizeof(*s))) == NULL)
		return -1;
	for (i = 0; i < t->nslots; i++) {
		if (t->slots[i].idx == 0)
			continue;
		for (j = t->slots[i].hash & (n - 1); s[j].idx; j = (j + 1) & (n - 1))
			;
		s[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = s;
	t->nslots = n;
	return 1;
}

void
pf_htab_free(struct pf_htab *t)
{
	free(t->slots);
	t->slots = NULL;
	t->nslots = t->n = 0;
}
