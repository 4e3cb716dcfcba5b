/*
 * fsfree: free space of the filesystem a recording is written to, and
 * the floor below which the recorders refuse to write.
 */
#ifndef PF_FSFREE_H
#define PF_FSFREE_H

#include <stdint.h>

/*
 * Free space for an unprivileged writer (f_bavail) and the size of the
 * filesystem holding path, in bytes.  -1 with errno.
 */
int pf_fs_space(const char *path, uint64_t *avail, uint64_t *total);

/*
 * The free-space floor in bytes.  With percent >= 0 it is that share of
 * total; with bytes > 0 it is bytes; with neither (bytes == 0,
 * percent < 0) the default: the larger of 1 GiB and 5 % of total.
 */
uint64_t pf_min_free(uint64_t total, uint64_t bytes, double percent);

#endif
