/*
 * jitmap: parsed once after the sampling window, looked up by binary
 * search over entries sorted by start (stable, so later lines win ties).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "jitmap.h"
#include "parse.h"

struct jent {
	uint64_t start, size;
	uint32_t name;
	uint32_t seq;
};

struct pf_jitmap {
	struct jent *e;
	size_t n, cap;
	struct pf_buf strs;
};

static const char *
hex(const char *s, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	s = p;
	while (p < end) {
		int d = pf_hexval((unsigned char)*p);

		if (d < 0)
			break;
		if (v >> 60)
			return NULL;
		v = v << 4 | (uint64_t)d;
		p++;
	}
	if (p == s)
		return NULL;
	*out = v;
	return p;
}

static int
add(struct pf_jitmap *m, const char *line, size_t len)
{
	const char *end = line + len, *p;
	uint64_t start, size;

	while (end > line && (end[-1] == '\r' || end[-1] == '\n'))
		end--;
	if ((p = hex(line, end, &start)) == NULL || p >= end || *p != ' ')
		return 0;
	if ((p = hex(p + 1, end, &size)) == NULL || p >= end || *p != ' ' || size == 0)
		return 0;
	p++;
	if (p >= end)
		return 0;
	if (m->n == m->cap) {
		size_t c = m->cap ? m->cap * 2 : 256;
		struct jent *e = realloc(m->e, c * sizeof(*e));

		if (e == NULL)
			return -1;
		m->e = e;
		m->cap = c;
	}
	m->e[m->n].start = start;
	m->e[m->n].size = size;
	m->e[m->n].seq = (uint32_t)m->n;
	m->e[m->n].name = (uint32_t)m->strs.len;
	if (pf_buf_append(&m->strs, p, (size_t)(end - p)) == -1 ||
	    pf_buf_putc(&m->strs, '\0') == -1)
		return -1;
	m->n++;
	return 0;
}

static int
cmp_jent(const void *a, const void *b)
{
	const struct jent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct pf_jitmap *
pf_jitmap_load(int fd)
{
	struct pf_jitmap *m;
	struct pf_buf all = { 0 };
	char chunk[65536];
	ssize_t n;
	size_t i, start = 0;

	if ((m = calloc(1, sizeof(*m))) == NULL)
		return NULL;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (pf_buf_append(&all, chunk, (size_t)n) == -1)
			goto fail;
	}
	for (i = 0; i < all.len; i++)
		if (all.data[i] == '\n') {
			if (add(m, all.data + start, i - start) == -1)
				goto fail;
			start = i + 1;
		}
	if (start < all.len && add(m, all.data + start, all.len - start) == -1)
		goto fail;
	pf_buf_free(&all);
	qsort(m->e, m->n, sizeof(*m->e), cmp_jent);
	return m;
fail:
	pf_buf_free(&all);
	pf_jitmap_free(m);
	return NULL;
}

const char *
pf_jitmap_lookup(const struct pf_jitmap *m, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi, i, best = SIZE_MAX;

	if (m == NULL || m->n == 0 || addr < m->e[0].start)
		return NULL;
	hi = m->n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->e[mid].start <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* Look back over a few earlier starts for a covering, later-written entry. */
	for (i = lo + 1; i-- > 0 && lo - i < 64;) {
		const struct jent *e = &m->e[i];

		if (addr - e->start < e->size &&
		    (best == SIZE_MAX || e->seq > m->e[best].seq))
			best = i;
	}
	if (best == SIZE_MAX)
		return NULL;
	*off = addr - m->e[best].start;
	return m->strs.data + m->e[best].name;
}

uint64_t
pf_jitmap_count(const struct pf_jitmap *m)
{
	return m ? m->n : 0;
}

void
pf_jitmap_free(struct pf_jitmap *m)
{
	if (m == NULL)
		return;
	free(m->e);
	pf_buf_free(&m->strs);
	free(m);
}
