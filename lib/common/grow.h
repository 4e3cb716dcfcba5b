/*
 * grow: the one growable array of lib/common.  A module keeps its own
 * pointer, count and capacity (in elements) and asks for room before it
 * writes:
 *
 *	if (pf_grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v)) == -1)
 *		return -1;
 *	t->v[t->n++] = x;
 *
 * The capacity doubles, from PF_GROW_MIN elements, so n appends cost
 * O(n) copies; the byte size is checked, never wrapped: a size past
 * SIZE_MAX is refused, not turned into a short array that the next
 * write runs past.  The check that room is already there is inline, so
 * an append that needs no growth costs one comparison.
 *
 * The capacity is a size_t: a module that numbers its elements in fewer
 * bits (32-bit node ids) keeps its count in those bits and checks its
 * own bound before asking for room, since that bound is the module's,
 * not the array's.  Arrays grown side by side (one capacity for several
 * arrays) grow each from a copy of the capacity and keep the smallest,
 * so that a failure half-way leaves every array at least as large as
 * the capacity says.  A byte buffer is struct pf_buf (buf.h), which
 * keeps a NUL behind its contents.
 */
#ifndef PF_GROW_H
#define PF_GROW_H

#include <stddef.h>

/* The capacity an empty array is given first, in elements. */
#define PF_GROW_MIN	((size_t)16)

/*
 * The capacity pf_grow gives an array of cap elements of size bytes
 * that must hold need: cap (at least PF_GROW_MIN) doubled until it holds
 * need, but never more elements than SIZE_MAX / size; cap itself when
 * it already holds need.  0 when need elements of size bytes are more
 * than SIZE_MAX bytes, or size is 0 (and for cap and need both 0).
 */
size_t pf_grow_cap(size_t cap, size_t need, size_t size);

/* The growing part of pf_grow, out of line: call pf_grow. */
int pf_grow_slow(void *arrp, size_t *cap, size_t need, size_t size);

/*
 * Room for at least need elements of size bytes in the array *arrp
 * (arrp is the address of the caller's element pointer, NULL or from
 * malloc, holding *cap elements): grown with realloc to pf_grow_cap's
 * capacity, which is stored in *cap.  The first *cap elements are kept;
 * the new ones are not initialised.  0, also when need <= *cap (nothing
 * done); -1 with EOVERFLOW when need elements would pass SIZE_MAX bytes,
 * EINVAL when size is 0, ENOMEM when realloc fails: then *arrp and *cap
 * are untouched and the array is still valid.  An append (need one more
 * than the elements held) never fails with EOVERFLOW, since the elements
 * held fit in memory: there a failure is ENOMEM, as a caller that says
 * "memory" (or tells EOVERFLOW from a count that would wrap) expects.
 */
static inline int
pf_grow(void *arrp, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	return pf_grow_slow(arrp, cap, need, size);
}

#endif
