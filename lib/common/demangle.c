/*
 * demangle: libiberty's callback entry points, with the output counted
 * as it comes.  Rust is tried before C++, as libiberty's own automatic
 * mode does: a legacy Rust name is also a valid Itanium name, which would
 * keep its hash.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "demangle.h"

struct sink {
	jmp_buf over;
	size_t len;
	char s[PF_DEMANGLE_MAX_OUT];
};

/*
 * libiberty's printer walks the whole expansion and cannot be told to
 * stop, so a sink that merely dropped the bytes past the cap would still
 * spend time in proportion to the full expansion (18 s for a crafted name
 * of 246 bytes).  Jumping out is safe because the callback entry points
 * keep all their state on the stack: no malloc, no globals, no locks.
 */
static void
sink_put(const char *s, size_t n, void *arg)
{
	struct sink *k = arg;

	if (n == 0)	/* libiberty's Rust printer sends (NULL, 0) */
		return;
	if (n > sizeof(k->s) - k->len)
		longjmp(k->over, 1);
	memcpy(k->s + k->len, s, n);
	k->len += n;
}

/* 1 demangled into k, 0 not such a name, -1 over the output cap. */
static int
run(struct sink *k, const char *name, int rust)
{
	k->len = 0;
	if (setjmp(k->over) != 0)
		return -1;
	if (rust)
		return rust_demangle_callback(name, DMGL_NO_OPTS, sink_put, k) != 0;
	return cplus_demangle_v3_callback(name, DMGL_NO_OPTS, sink_put, k) != 0;
}

char *
pf_demangle(const char *name)
{
	struct sink *k;
	char *d = NULL;
	int r;

	if (name == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (strnlen(name, PF_DEMANGLE_MAX_IN) == PF_DEMANGLE_MAX_IN) {
		errno = E2BIG;
		return NULL;
	}
	if ((k = malloc(sizeof(*k))) == NULL)
		return NULL;
	if ((r = run(k, name, 1)) == 0)
		r = run(k, name, 0);
	/* A failed parse may have printed a part before giving up: dropped. */
	if (r == 1 && k->len > 0)
		d = strndup(k->s, k->len);
	else
		errno = r == -1 ? E2BIG : EINVAL;
	free(k);
	return d;
}
