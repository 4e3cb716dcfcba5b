/*
 * lines.h: the harnesses' way of splitting an input into lines.  Each
 * line (without its '\n'; the last one may have none) goes to the
 * reader in a heap copy of exactly its bytes, so ASan sees a read past
 * its end.
 */
#ifndef PF_FUZZ_LINES_H
#define PF_FUZZ_LINES_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "perfscript.h"

/* fn(line, len, arg) for each line of the size bytes at data. */
static inline void
fuzz_each_line(const char *data, size_t size, void (*fn)(const char *, size_t, void *),
    void *arg)
{
	const char *p = data, *end = data + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line;

		if ((line = malloc(n ? n : 1)) == NULL)
			abort();
		memcpy(line, p, n);
		fn(line, n, arg);
		free(line);
		p += n + 1;
	}
}

/* One line to perfscript; the callbacks never fail, so the only error is a malformed line. */
static inline void
fuzz_ps_line(const char *line, size_t n, void *ps)
{
	if (pf_ps_line(ps, line, n) == -1 && errno != EBADMSG)
		abort();
}

#endif
