/*
 * outfile: open a file a pf tool writes, safely.
 */
#ifndef PF_OUTFILE_H
#define PF_OUTFILE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Create path for writing, mode 0600, never following a symlink in the
 * last component.  Without force an existing file is an error (EEXIST);
 * with force an existing regular file is truncated and replaced.
 * Returns the fd (O_CLOEXEC) or -1 with errno set.
 */
int pf_open_output(const char *path, int force);

/*
 * The free-space floor where fd's output lands.  0 when fd is not a
 * regular file (a pipe or a terminal fills no filesystem): no floor.
 * Otherwise 1, with *min_free the floor for bytes/percent as
 * pf_min_free() computes it and *avail the bytes free now.  -1 with errno.
 */
int pf_output_floor(int fd, uint64_t bytes, double percent, uint64_t *min_free,
    uint64_t *avail);

/* Whether the filesystem holding fd now has less than min_free bytes free. */
bool pf_output_below(int fd, uint64_t min_free);

#endif
