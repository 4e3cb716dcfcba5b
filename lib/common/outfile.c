/*
 * outfile: O_EXCL|O_NOFOLLOW creation, so a recording run as root can
 * never be pointed at /etc/passwd through a planted symlink, and never
 * silently clobbers yesterday's evidence.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fsfree.h"
#include "outfile.h"
#include "privs.h"

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

int
pf_output_floor(int fd, uint64_t bytes, double percent, uint64_t *min_free,
    uint64_t *avail)
{
	struct statvfs sv;
	struct stat st;

	*min_free = 0;
	*avail = 0;
	if (fstat(fd, &st) == -1)
		return -1;
	if (!S_ISREG(st.st_mode))
		return 0;
	if (fstatvfs(fd, &sv) == -1)
		return -1;
	*avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	*min_free = pf_min_free((uint64_t)sv.f_blocks * sv.f_frsize, bytes, percent);
	return 1;
}

bool
pf_output_below(int fd, uint64_t min_free)
{
	struct statvfs sv;

	return fstatvfs(fd, &sv) == 0 && (uint64_t)sv.f_bavail * sv.f_frsize < min_free;
}
