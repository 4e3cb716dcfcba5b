/*
 * cls-service FILE SECONDS: a small C service that mostly waits, a few %
 * of a CPU in all.  One thread writes 4 KiB and fdatasyncs FILE in a loop
 * (use a disk-backed filesystem, not tmpfs; the file is unlinked at once);
 * three threads take turns on a mutex whose holder sleeps 10 ms and works
 * 100 us before letting go; the main thread waits for them.
 * pf-classify: waiting (OFF_CPU or IO_WAIT), never a CPU class, even with
 * every CPU kept busy by other processes.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wl-file.h"
#include "wl-now.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double end;
static int fd;

/* Burn about us microseconds of CPU. */
static void
work(double us)
{
	double until = now() + us / 1e6;
	volatile unsigned long x = 0;

	while (now() < until)
		x++;
}

static void *
syncer(void *arg)
{
	char buf[4096];
	int n = 0;

	(void)arg;
	memset(buf, 'x', sizeof(buf));
	while (now() < end) {
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || fdatasync(fd) == -1)
			break;
		/* Keep the file small: rewrite its first MiB. */
		if (++n % 256 == 0)
			(void)lseek(fd, 0, SEEK_SET);
	}
	return NULL;
}

static void *
locker(void *arg)
{
	struct timespec hold = { 0, 10000000 };

	(void)arg;
	while (now() < end) {
		pthread_mutex_lock(&lock);
		nanosleep(&hold, NULL);
		work(100);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[4];
	int i;

	if (argc < 2)
		return 2;
	end = now() + (argc > 2 ? atof(argv[2]) : 10);
	if ((fd = scratch_open(argv[1])) == -1)
		return 1;
	if (pthread_create(&t[0], NULL, syncer, NULL) != 0)
		return 3;
	for (i = 1; i < 4; i++)
		if (pthread_create(&t[i], NULL, locker, NULL) != 0)
			return 3;
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	close(fd);
	return 0;
}
