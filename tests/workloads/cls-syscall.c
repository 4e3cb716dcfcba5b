/*
 * cls-syscall SECONDS: a loop of read(/dev/zero, 64 KiB) and getppid(),
 * so most CPU time is system time.  pf-classify: ON_CPU_KERNEL.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	static char buf[65536];
	double secs = argc > 1 ? atof(argv[1]) : 10;
	struct timespec ts;
	double end;
	int fd = open("/dev/zero", O_RDONLY), i;

	if (fd == -1)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + secs;
	for (;;) {
		for (i = 0; i < 100; i++) {
			if (read(fd, buf, sizeof(buf)) < 0)
				return 1;
			syscall(SYS_getppid);
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (ts.tv_sec + ts.tv_nsec / 1e9 >= end)
			break;
	}
	return 0;
}
