/*
 * fuzz-kallsyms: /proc/kallsyms text.  Module names and symbol names
 * are set by whoever loads a module, and a fixture may be anything: the
 * loader and the lookups must survive any bytes.  Every input goes
 * through pf_kallsyms_load_text; one in sixteen also through a memfd and
 * pf_kallsyms_load, as the recorders read the real file (the line
 * reader's megabyte buffer would make every run slow), and the two
 * tables must agree.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fileio.h"
#include "kallsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The symbol at addr, its strings read whole (a bad offset shows in ASan). */
static const char *
lookup(const struct pf_kallsyms *k, uint64_t addr, uint64_t *off, const char **module)
{
	const char *name;

	*module = NULL;
	*off = 0;
	if ((name = pf_kallsyms_lookup(k, addr, off, module)) == NULL)
		return NULL;
	if (strlen(name) + (*module != NULL ? strlen(*module) : 0) == SIZE_MAX || *off > addr)
		abort();
	return name;
}

/* Look up the same addresses in a and (when not NULL) b: same answers. */
static void
lookups(const struct pf_kallsyms *a, const struct pf_kallsyms *b, const uint8_t *data, size_t size)
{
	uint64_t addrs[64 + 3], oa, ob;
	const char *na, *nb, *ma, *mb;
	size_t i, n = 0;

	/* Addresses from the input itself, and the ends. */
	for (i = 0; i + 8 <= size && n < 64; i += 8)
		memcpy(&addrs[n++], data + i, 8);
	addrs[n++] = 0;
	addrs[n++] = UINT64_MAX;
	addrs[n++] = 0xffffffff81000000ULL;
	for (i = 0; i < n; i++) {
		na = lookup(a, addrs[i], &oa, &ma);
		if (b == NULL)
			continue;
		nb = lookup(b, addrs[i], &ob, &mb);
		if ((na == NULL) != (nb == NULL) || (na != NULL && (strcmp(na, nb) != 0 ||
		    oa != ob || (ma == NULL) != (mb == NULL) || (ma != NULL && strcmp(ma, mb) != 0))))
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pf_kallsyms *k, *kf = NULL;
	int fd;

	if ((k = pf_kallsyms_load_text((const char *)data, size)) == NULL)
		return 0;
	if ((size & 15) == 0 && (fd = memfd_create("fuzz-kallsyms", MFD_CLOEXEC)) != -1) {
		if (pf_write_all(fd, data, size) == 0) {
			(void)pf_kallsyms_fd_visible(fd);
			kf = pf_kallsyms_load(fd);
		}
		close(fd);
		if (kf != NULL && pf_kallsyms_count(kf) != pf_kallsyms_count(k))
			abort();
	}
	lookups(k, kf, data, size);
	pf_kallsyms_free(kf);
	pf_kallsyms_free(k);
	return 0;
}
