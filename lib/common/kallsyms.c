/*
 * kallsyms: a sorted array of (address, name) and a binary search.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addrsearch.h"
#include "buf.h"
#include "grow.h"
#include "kallsyms.h"
#include "linereader.h"
#include "parse.h"

struct ksym {
	uint64_t addr;
	uint32_t name;		/* offset into strs */
	uint32_t module;	/* offset into strs, 0 = core kernel */
};

struct pf_kallsyms {
	struct ksym *syms;
	size_t n, cap;
	struct pf_buf strs;
};

int
pf_kallsyms_fd_visible(int fd)
{
	char buf[4096];
	const char *pos = buf, *line;
	size_t len, j;
	ssize_t n;
	int lines = 0, nonzero = 0;

	if (lseek(fd, 0, SEEK_SET) == -1)
		return -1;
	if ((n = read(fd, buf, sizeof(buf) - 1)) < 0)
		return -1;
	buf[n] = '\0';
	/* The address is the first field; hidden ones are all zeros. */
	while (lines < 32 && pf_lr_text_next(&pos, &line, &len) == 1) {
		lines++;
		for (j = 0; j < len && line[j] != ' '; j++)
			if (line[j] != '0')
				nonzero = 1;
	}
	if (lseek(fd, 0, SEEK_SET) == -1)
		return -1;
	return nonzero;
}

static int
add_line(struct pf_kallsyms *k, const char *s, size_t len)
{
	uint64_t addr = 0;
	size_t i, nstart, nend, mstart = 0, mend = 0;
	const char *e;
	char type;

	/* An address above 2^64 is malformed: the line is skipped, not wrapped. */
	if ((e = pf_span_x64(s, s + len, &addr)) == NULL)
		return 0;
	i = (size_t)(e - s);
	if (addr == 0 || i + 3 >= len || s[i] != ' ' || s[i + 2] != ' ')
		return 0;
	type = s[i + 1];
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	nstart = i + 3;
	for (nend = nstart; nend < len && s[nend] != '\t' && s[nend] != ' '; nend++)
		;
	if (nend == nstart)
		return 0;
	if (nend < len) {
		for (mstart = nend; mstart < len && s[mstart] != '['; mstart++)
			;
		if (mstart < len) {
			mstart++;
			for (mend = mstart; mend < len && s[mend] != ']'; mend++)
				;
		}
	}
	if (pf_grow(&k->syms, &k->cap, k->n + 1, sizeof(*k->syms)) == -1)
		return -1;
	k->syms[k->n].addr = addr;
	k->syms[k->n].name = (uint32_t)k->strs.len;
	if (pf_buf_append(&k->strs, s + nstart, nend - nstart) == -1 ||
	    pf_buf_putc(&k->strs, '\0') == -1)
		return -1;
	k->syms[k->n].module = 0;
	if (mend > mstart) {
		k->syms[k->n].module = (uint32_t)k->strs.len;
		if (pf_buf_append(&k->strs, s + mstart, mend - mstart) == -1 ||
		    pf_buf_putc(&k->strs, '\0') == -1)
			return -1;
	}
	k->n++;
	return 0;
}

static int
cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static struct pf_kallsyms *
table_new(void)
{
	struct pf_kallsyms *k;

	if ((k = calloc(1, sizeof(*k))) == NULL)
		return NULL;
	/* Offset 0 of strs is the empty string: "no module". */
	if (pf_buf_putc(&k->strs, '\0') == -1) {
		free(k);
		return NULL;
	}
	return k;
}

static void
table_sort(struct pf_kallsyms *k)
{
	/* No symbol at all (every address hidden) leaves syms NULL: qsort wants an array. */
	if (k->n > 1)
		qsort(k->syms, k->n, sizeof(*k->syms), cmp_ksym);
}

static struct pf_kallsyms *
load_fd(int fd)
{
	struct pf_kallsyms *k;
	struct pf_linereader *lr;
	char *line;
	size_t len;
	int r;

	if ((k = table_new()) == NULL)
		return NULL;
	if ((lr = pf_lr_new(fd, "kallsyms")) == NULL) {
		pf_kallsyms_free(k);
		return NULL;
	}
	while ((r = pf_lr_next(lr, &line, &len)) == 1)
		if (add_line(k, line, len) == -1)
			goto fail;
	if (r == -1)
		goto fail;
	pf_lr_free(lr);
	table_sort(k);
	return k;
fail:
	r = errno;
	pf_lr_free(lr);
	pf_kallsyms_free(k);
	errno = r;
	return NULL;
}

struct pf_kallsyms *
pf_kallsyms_load_text(const char *text, size_t len)
{
	struct pf_kallsyms *k;
	const char *p = text, *end = text + len, *nl;

	if ((k = table_new()) == NULL)
		return NULL;
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (add_line(k, p, (size_t)(nl - p)) == -1) {
			pf_kallsyms_free(k);
			errno = ENOMEM;
			return NULL;
		}
	}
	table_sort(k);
	return k;
}

struct pf_kallsyms *
pf_kallsyms_load(int fd)
{
	if (lseek(fd, 0, SEEK_SET) == -1)
		return NULL;
	return load_fd(fd);
}

struct pf_kallsyms *
pf_kallsyms_load_path(const char *path)
{
	struct pf_kallsyms *k;
	int fd, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	k = load_fd(fd);
	e = errno;
	close(fd);
	errno = e;
	return k;
}

const char *
pf_kallsyms_lookup(const struct pf_kallsyms *k, uint64_t addr, uint64_t *off,
    const char **module)
{
	size_t lo;

	if (k == NULL || (lo = PF_ADDR_FLOOR(k->syms, k->n, addr, addr)) == SIZE_MAX)
		return NULL;
	/* Past the last symbol by more than a generous function size: unknown. */
	if (lo == k->n - 1 && addr - k->syms[lo].addr > (1u << 20))
		return NULL;
	*off = addr - k->syms[lo].addr;
	if (module)
		*module = k->syms[lo].module ? k->strs.data + k->syms[lo].module : NULL;
	return k->strs.data + k->syms[lo].name;
}

uint64_t
pf_kallsyms_count(const struct pf_kallsyms *k)
{
	return k ? k->n : 0;
}

void
pf_kallsyms_free(struct pf_kallsyms *k)
{
	if (k == NULL)
		return;
	free(k->syms);
	pf_buf_free(&k->strs);
	free(k);
}
