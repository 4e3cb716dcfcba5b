/*
 * fuzz-procmaps: /proc/PID/maps lines.  A target chooses its mappings'
 * paths (any bytes but NUL and newline, " (deleted)" included), so the
 * recorders' maps reader must survive any line.  The line parser takes
 * each line alone; one input in sixteen also goes through a memfd and
 * the fd reader (whose line reader's megabyte buffer would make every run
 * slow), which must keep the same lines.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fileio.h"
#include "procmaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Touch every field, so a wild path pointer or length shows up in ASan. */
static int
check(const struct pf_maps_entry *e, void *arg)
{
	size_t *n = arg;

	if (e->path == NULL)
		abort();
	*n += strlen(e->path) + (e->exec ? 1 : 0) + (e->deleted ? 1 : 0);
	if (e->start > e->end && e->ino == UINT64_MAX)
		*n += 1;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pf_maps_entry e;
	size_t i, start, n = 0, nfd = 0;
	char *line;
	int fd;

	/* Each line alone, in a buffer of exactly its length plus the NUL. */
	for (start = 0; start <= size; start = i + 1) {
		for (i = start; i < size && data[i] != '\n'; i++)
			;
		if ((line = malloc(i - start + 1)) == NULL)
			return 0;
		memcpy(line, data + start, i - start);
		line[i - start] = '\0';
		if (pf_maps_parse_line(line, &e) == 0)
			(void)check(&e, &n);
		free(line);
	}
	if ((size & 15) != 0 || (fd = memfd_create("fuzz-maps", MFD_CLOEXEC)) == -1)
		return 0;
	if (pf_write_all(fd, data, size) == 0 && lseek(fd, 0, SEEK_SET) == 0 &&
	    pf_maps_read(fd, check, &nfd) == 0 && nfd != n)
		abort();	/* the fd reader kept other lines than the line parser */
	close(fd);
	return 0;
}
