/*
 * cls-fsync FILE SECONDS: 4 KiB write + fdatasync in a loop on FILE (use
 * a disk-backed filesystem, not tmpfs; it is unlinked at once).  pf-classify:
 * IO_WAIT (the thread sits in D state waiting for the device).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wl-file.h"
#include "wl-now.h"

int
main(int argc, char **argv)
{
	char buf[4096];
	double secs = argc > 2 ? atof(argv[2]) : 10, end;
	int fd, n = 0;

	if (argc < 2)
		return 2;
	if ((fd = scratch_open(argv[1])) == -1)
		return 1;
	memset(buf, 'x', sizeof(buf));
	end = now() + secs;
	for (;;) {
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || fdatasync(fd) == -1)
			break;
		/* Keep the file small: rewrite the first MiB over and over. */
		if (++n % 256 == 0)
			(void)lseek(fd, 0, SEEK_SET);
		if (now() >= end)
			break;
	}
	close(fd);
	return 0;
}
