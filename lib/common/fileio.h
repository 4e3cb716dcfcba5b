/*
 * fileio: whole writes and small whole-file reads on descriptors and
 * paths, the two system-call loops every tool and reader needs.
 */
#ifndef PF_FILEIO_H
#define PF_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

/* Write all n bytes at p to fd, retrying short writes and EINTR.  0, or -1 with errno. */
int pf_write_all(int fd, const void *p, size_t n);

/*
 * A close-on-exec memfd named name holding the n bytes at p (our own
 * vDSO image, for libdw, which reads ELF files from descriptors).  The
 * descriptor, or -1 with errno.
 */
int pf_memfd_copy(const char *name, const void *p, size_t n);

/*
 * Read the small file at path (a /proc or /sys file, produced whole by
 * one read(2)) into buf, at most cap - 1 bytes, NUL-terminated.  Returns
 * the length, or -1 with errno (EINVAL when cap is 0).
 */
ssize_t pf_read_small(const char *path, char *buf, size_t cap);

#endif
