/*
 * flamelayout: the frames of a flame graph placed in rows and pruned.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "flamelayout.h"
#include "flametree.h"
#include "grow.h"

/* qsort_r's argument is not const: the graph goes in a holder. */
struct by_name {
	const struct pf_flame *f;
};

static int
cmp_names(const void *a, const void *b, void *arg)
{
	const struct pf_flame *f = ((const struct by_name *)arg)->f;
	uint32_t x = f->nodes[*(const uint32_t *)a].name;
	uint32_t y = f->nodes[*(const uint32_t *)b].name;
	size_t lx = pf_flame_name_len(f, x), ly = pf_flame_name_len(f, y);
	int c = memcmp(pf_flame_name(f, x), pf_flame_name(f, y), lx < ly ? lx : ly);

	if (c != 0)
		return c;
	return lx < ly ? -1 : lx > ly;
}

struct work {
	uint32_t node, depth;
	uint64_t start;
};

struct pf_flame_placed *
pf_flame_layout(const struct pf_flame *f, double threshold, size_t *np,
    uint32_t *maxdepth)
{
	struct pf_flame_placed *pl = NULL;
	struct work *st = NULL;
	uint32_t *kids = NULL;
	size_t npl = 0, cappl = 0, nst = 0, capst = 0, capk = 0;
	struct by_name by = { f };

	*maxdepth = 0;
	if (pf_grow(&st, &capst, 1, sizeof(*st)) == -1)
		return NULL;
	st[nst++] = (struct work){ 0, 0, 0 };
	while (nst > 0) {
		struct work w = st[--nst];
		const struct pf_flame_node *n = &f->nodes[w.node];
		size_t nk = 0, i;
		uint64_t off;
		uint32_t c;

		if (pf_grow(&pl, &cappl, npl + 1, sizeof(*pl)) == -1)
			goto fail;
		pl[npl++] = (struct pf_flame_placed){ w.node, w.depth, w.start };
		if (w.depth > *maxdepth)
			*maxdepth = w.depth;
		for (c = n->first_child; c != PF_FLAME_NONE;
		    c = f->nodes[c].next_sibling) {
			if (pf_grow(&kids, &capk, nk + 1, sizeof(*kids)) == -1)
				goto fail;
			kids[nk++] = c;
		}
		if (nk == 0)
			continue;
		if (f->flamechart) {
			for (i = 0; i < nk / 2; i++) {
				uint32_t t = kids[i];
				kids[i] = kids[nk - 1 - i];
				kids[nk - 1 - i] = t;
			}
		} else if (nk > 1) {
			qsort_r(kids, nk, sizeof(*kids), cmp_names, &by);
		}
		/* Push survivors right to left so they pop left to right. */
		off = w.start;
		for (i = 0; i < nk; i++)
			off += f->nodes[kids[i]].value;
		for (i = nk; i-- > 0;) {
			const struct pf_flame_node *k = &f->nodes[kids[i]];
			off -= k->value;
			if (k->value == 0 || (double)k->value < threshold)
				continue;
			if (pf_grow(&st, &capst, nst + 1, sizeof(*st)) == -1)
				goto fail;
			st[nst++] = (struct work){ kids[i], w.depth + 1, off };
		}
	}
	free(st);
	free(kids);
	*np = npl;
	return pl;
fail:
	free(st);
	free(kids);
	free(pl);
	errno = ENOMEM;
	return NULL;
}
