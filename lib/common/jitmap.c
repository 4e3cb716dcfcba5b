/*
 * jitmap: parsed once after the sampling window, looked up by binary
 * search over entries sorted by start (stable, so later lines win ties).
 * The file is read through one fixed chunk, never whole, so its size
 * costs nothing but the capped read time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "addrsearch.h"
#include "buf.h"
#include "grow.h"
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
	int truncated;
};

/* [0x]HEX: the end of the digits, or NULL (none, or above 2^64). */
static const char *
hex(const char *s, const char *end, uint64_t *out)
{
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	return pf_span_x64(s, end, out);
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
	/* A NUL would cut the name, to nothing at worst: malformed. */
	if (p >= end || memchr(p, '\0', (size_t)(end - p)) != NULL)
		return 0;
	if (pf_grow(&m->e, &m->cap, m->n + 1, sizeof(*m->e)) == -1)
		return -1;
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

int
pf_jitmap_open(const char *path, uid_t owner, char *why, size_t whylen)
{
	int fd, e;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		e = errno;
		snprintf(why, whylen, "%s", e == ELOOP ? "a symbolic link" : strerror(e));
		errno = e == ELOOP ? EPERM : e;
		return -1;
	}
	return pf_jitmap_vet(fd, owner, why, whylen);
}

int
pf_jitmap_vet(int fd, uid_t owner, char *why, size_t whylen)
{
	struct stat st;
	int e;

	if (fstat(fd, &st) == -1) {
		e = errno;
		snprintf(why, whylen, "%s", strerror(e));
		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode))
		snprintf(why, whylen, "not a regular file");
	else if (st.st_uid != 0 && st.st_uid != owner) {
		if (owner == (uid_t)-1)
			snprintf(why, whylen, "owned by uid %u, not root (the target's uid is unknown)",
			    (unsigned)st.st_uid);
		else
			snprintf(why, whylen, "owned by uid %u, not root or the target's uid %u",
			    (unsigned)st.st_uid, (unsigned)owner);
	} else
		return fd;
	close(fd);
	errno = EPERM;
	return -1;
}

struct pf_jitmap *
pf_jitmap_load(int fd)
{
	struct pf_jitmap *m;
	char *chunk = NULL;
	size_t have = 0, total = 0, i, start;
	int skipping = 0;	/* inside a line longer than the cap */
	ssize_t n;

	if ((m = calloc(1, sizeof(*m))) == NULL)
		return NULL;
	/* One line of up to the cap, plus room to read behind it. */
	if ((chunk = malloc(2 * PF_JITMAP_MAX_LINE)) == NULL)
		goto fail;
	for (;;) {
		if (total >= PF_JITMAP_MAX_BYTES || m->n >= PF_JITMAP_MAX_ENTRIES) {
			m->truncated = 1;
			break;
		}
		n = read(fd, chunk + have, 2 * PF_JITMAP_MAX_LINE - have);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)	/* O_NONBLOCK on a file that blocks: done */
				break;
			goto fail;
		}
		if (n == 0)
			break;
		total += (size_t)n;
		have += (size_t)n;
		start = 0;
		for (i = 0; i < have && m->n < PF_JITMAP_MAX_ENTRIES; i++) {
			if (chunk[i] != '\n')
				continue;
			if (!skipping && add(m, chunk + start, i - start) == -1)
				goto fail;
			skipping = 0;
			start = i + 1;
		}
		memmove(chunk, chunk + start, have - start);
		have -= start;
		if (have >= PF_JITMAP_MAX_LINE) {
			/* Over-long: drop what we have and the rest up to its newline. */
			skipping = 1;
			have = 0;
		}
	}
	if (have > 0 && !skipping && m->n < PF_JITMAP_MAX_ENTRIES && !m->truncated &&
	    add(m, chunk, have) == -1)
		goto fail;
	free(chunk);
	if (m->n > 1)
		qsort(m->e, m->n, sizeof(*m->e), cmp_jent);
	return m;
fail:
	free(chunk);
	pf_jitmap_free(m);
	return NULL;
}

const char *
pf_jitmap_lookup(const struct pf_jitmap *m, uint64_t addr, uint64_t *off)
{
	size_t lo, i, best = SIZE_MAX;

	if (m == NULL || (lo = PF_ADDR_FLOOR(m->e, m->n, start, addr)) == SIZE_MAX)
		return NULL;
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

int
pf_jitmap_truncated(const struct pf_jitmap *m)
{
	return m ? m->truncated : 0;
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
