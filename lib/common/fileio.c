/*
 * fileio: the write and read loops, with EINTR retried and errno kept
 * across the close of a failed read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fileio.h"

int
pf_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	ssize_t w;

	while (n > 0) {
		w = write(fd, c, n);
		if (w == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

ssize_t
pf_read_small(const char *path, char *buf, size_t cap)
{
	int fd;
	ssize_t r;

	if (cap == 0) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	do
		r = read(fd, buf, cap - 1);
	while (r == -1 && errno == EINTR);
	if (r < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	buf[r] = '\0';
	return r;
}

int
pf_memfd_copy(const char *name, const void *p, size_t n)
{
	int fd, e;

	if ((fd = memfd_create(name, MFD_CLOEXEC)) == -1)
		return -1;
	if (pf_write_all(fd, p, n) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}
