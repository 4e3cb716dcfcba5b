/*
 * outfile: O_EXCL|O_NOFOLLOW creation, so a recording run as root can
 * never be pointed at /etc/passwd through a planted symlink, and never
 * silently clobbers yesterday's evidence.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

int
pf_open_output(const char *path, int force)
{
	int fd;
	struct stat st;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd != -1 || errno != EEXIST || !force)
		return fd;
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == -1)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	if (ftruncate(fd, 0) == -1 || fchmod(fd, 0600) == -1)
		goto fail;
	return fd;
fail:
	{
		int e = errno;
		close(fd);
		errno = e;
	}
	return -1;
}
