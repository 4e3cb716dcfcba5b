/*
 * wl-file.h: the FILE of the workloads that write to disk (cls-fsync,
 * cls-service, nofp-service), opened as they all open it.
 */
#ifndef WL_FILE_H
#define WL_FILE_H

#include <fcntl.h>
#include <unistd.h>

/*
 * path created for writing (it must not exist) and unlinked at once: the
 * writes still reach the disk, and a kill leaves nothing behind.  The
 * descriptor, or -1.
 */
static __attribute__((unused)) int
scratch_open(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);

	if (fd != -1)
		unlink(path);
	return fd;
}

#endif
