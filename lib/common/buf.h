/*
 * buf: a growable byte buffer.
 *
 * Unlike the other modules this struct is public: it is used on the hot
 * path of every parser and writer, where a function call per byte would
 * cost more than the work.  Treat the fields as read-only outside buf.c
 * except through the functions below.  A zeroed struct pf_buf is empty
 * and valid; pf_buf_free() releases it and leaves it empty again.
 */
#ifndef PF_BUF_H
#define PF_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct pf_buf {
	char *data;	/* NUL-terminated when cap > 0 */
	size_t len;
	size_t cap;
};

/* Make room for n more bytes (plus the NUL).  -1 with ENOMEM on failure. */
int pf_buf_reserve(struct pf_buf *b, size_t n);

/* Append bytes / a string / one byte / a formatted string.  -1 on ENOMEM. */
int pf_buf_append(struct pf_buf *b, const void *p, size_t n);
int pf_buf_puts(struct pf_buf *b, const char *s);
int pf_buf_printf(struct pf_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append v in decimal. */
int pf_buf_put_u64(struct pf_buf *b, uint64_t v);

static inline int
pf_buf_putc(struct pf_buf *b, char c)
{
	if (b->len + 2 > b->cap && pf_buf_reserve(b, 1) == -1)
		return -1;
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
	return 0;
}

/* Forget the contents, keep the memory. */
static inline void
pf_buf_reset(struct pf_buf *b)
{
	b->len = 0;
	if (b->cap)
		b->data[0] = '\0';
}

void pf_buf_free(struct pf_buf *b);

#endif
