/*
 * buf: growable byte buffer with doubling growth.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "buf.h"

int
pf_buf_reserve(struct pf_buf *b, size_t n)
{
	size_t need, cap;
	char *p;

	if (n > SIZE_MAX - b->len - 1) {
		errno = ENOMEM;
		return -1;
	}
	need = b->len + n + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	if ((p = realloc(b->data, cap)) == NULL)
		return -1;
	b->data = p;
	b->cap = cap;
	b->data[b->len] = '\0';
	return 0;
}

int
pf_buf_append(struct pf_buf *b, const void *p, size_t n)
{
	if (pf_buf_reserve(b, n) == -1)
		return -1;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int
pf_buf_puts(struct pf_buf *b, const char *s)
{
	return pf_buf_append(b, s, strlen(s));
}

int
pf_buf_printf(struct pf_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if (pf_buf_reserve(b, (size_t)n) == -1)
		return -1;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

int
pf_buf_put_u64(struct pf_buf *b, uint64_t v)
{
	char tmp[24];
	char *p = tmp + sizeof(tmp);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return pf_buf_append(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

void
pf_buf_free(struct pf_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
