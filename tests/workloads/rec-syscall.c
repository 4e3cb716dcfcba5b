/*
 * rec-syscall: spends most of its CPU time in the kernel, reading
 * /dev/zero and writing /dev/null in 64 KiB chunks, for checking that a
 * profiler shows symbolized kernel frames.  Runs for SECONDS (default 5).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "wl-now.h"

static char buf[65536];

__attribute__((noinline)) static void
rec_syscalls(void)
{
	static int zero = -1, null = -1;

	if (zero == -1) {
		zero = open("/dev/zero", O_RDONLY);
		null = open("/dev/null", O_WRONLY);
	}
	if (read(zero, buf, sizeof(buf)) < 0 || write(null, buf, sizeof(buf)) < 0)
		exit(1);
}

int
main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;
	double end;

	end = now() + seconds;
	do {
		int i;

		for (i = 0; i < 100; i++)
			rec_syscalls();
	} while (now() < end);
	return 0;
}
