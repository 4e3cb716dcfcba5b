/*
 * grow: the capacity rule and the realloc behind pf_grow.  The caller's
 * pointer is read and written with memcpy: it is a T *, not a void *,
 * and the two are only alike in their bytes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

size_t
pf_grow_cap(size_t cap, size_t need, size_t size)
{
	size_t max;

	if (size == 0 || need > SIZE_MAX / size)
		return 0;
	if (need <= cap)
		return cap;
	max = SIZE_MAX / size;
	if (cap < PF_GROW_MIN)
		cap = PF_GROW_MIN;
	while (cap < need)
		cap = cap > max / 2 ? max : cap * 2;
	return cap < max ? cap : max;
}

int
pf_grow_slow(void *arrp, size_t *cap, size_t need, size_t size)
{
	void *old, *p;
	size_t ncap;

	if (need <= *cap)
		return 0;
	if ((ncap = pf_grow_cap(*cap, need, size)) == 0) {
		errno = size == 0 ? EINVAL : EOVERFLOW;
		return -1;
	}
	memcpy(&old, arrp, sizeof(old));
	if ((p = realloc(old, ncap * size)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(arrp, &p, sizeof(p));
	*cap = ncap;
	return 0;
}
