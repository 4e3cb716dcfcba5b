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

int
main(int argc, char **argv)
{
	char buf[4096];
	double secs = argc > 2 ? atof(argv[2]) : 10, end;
	struct timespec ts;
	int fd, n = 0;

	if (argc < 2)
		return 2;
	if ((fd = open(argv[1], O_WRONLY | O_CREAT | O_EXCL, 0600)) == -1)
		return 1;
	/* Unlinked at once: the writes still reach the disk, and a kill leaves nothing behind. */
	unlink(argv[1]);
	memset(buf, 'x', sizeof(buf));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + secs;
	for (;;) {
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || fdatasync(fd) == -1)
			break;
		/* Keep the file small: rewrite the first MiB over and over. */
		if (++n % 256 == 0)
			(void)lseek(fd, 0, SEEK_SET);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (ts.tv_sec + ts.tv_nsec / 1e9 >= end)
			break;
	}
	close(fd);
	return 0;
}
