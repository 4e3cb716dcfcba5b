/*
 * fuzz-jitmap: lib/common/jitmap.c on arbitrary /tmp/perf-PID.map
 * contents, which the target writes.  Checks the parser's contract: it
 * never keeps more than PF_JITMAP_MAX_ENTRIES, every name it returns is a
 * string with no newline, and a lookup answers inside the entry it names.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jitmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t probes[] = { 0, 1, 0x10, 0x1000, 0x1050, 0xffff, UINT64_MAX };
	struct pf_jitmap *m;
	const char *name;
	uint64_t off;
	size_t k;
	int fd;

	if ((fd = memfd_create("fuzz-jitmap", MFD_CLOEXEC)) == -1)
		return 0;
	if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return 0;
	}
	m = pf_jitmap_load(fd);
	close(fd);
	if (m == NULL)
		return 0;
	if (pf_jitmap_count(m) > PF_JITMAP_MAX_ENTRIES)
		abort();
	for (k = 0; k < sizeof(probes) / sizeof(probes[0]); k++) {
		off = UINT64_MAX;
		if ((name = pf_jitmap_lookup(m, probes[k], &off)) == NULL)
			continue;
		if (name[0] == '\0' || strchr(name, '\n') || off > probes[k])
			abort();
	}
	pf_jitmap_free(m);
	return 0;
}
