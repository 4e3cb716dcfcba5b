/*
 * nofp-service FILE SECONDS: a service whose threads wait on a mutex held
 * across fdatasync, built without frame pointers (the Makefile's nofp-
 * rule).  Four threads run handle_requests: each request takes some 50 us
 * of CPU, then append_record takes the journal's mutex, writes 4 KiB to
 * FILE and fdatasyncs it before letting go (use a disk-backed filesystem,
 * not tmpfs; the file is unlinked at once).  So one thread at a time waits
 * for the disk while the three others wait for the lock: some three
 * quarters of the blocked time is append_record in pthread_mutex_lock,
 * the rest is fdatasync.  The main thread waits for them in pthread_join
 * from before any window opens, which pf-offcpu does not count.  Debian's
 * libc keeps no frame pointers either: only an unwind with the call-frame
 * information finds append_record above the lock.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wl-file.h"
#include "wl-now.h"

#define THREADS 4

static pthread_mutex_t journal = PTHREAD_MUTEX_INITIALIZER;
static double end;
static int fd;

/*
 * One record on the disk, under the lock: the lock is held across the
 * sync.  Neither inlined nor cloned (no append_record.constprop.0): the
 * tests look for the function by its name.
 */
__attribute__((noinline, noclone)) static int
append_record(const char *rec, size_t len)
{
	static int n;
	int r = 0;

	pthread_mutex_lock(&journal);
	if (write(fd, rec, len) != (ssize_t)len || fdatasync(fd) == -1)
		r = -1;
	/* Keep the file small: rewrite its first MiB. */
	if (++n % 256 == 0)
		(void)lseek(fd, 0, SEEK_SET);
	pthread_mutex_unlock(&journal);
	return r;
}

/* Each request: some 50 us of work, then its record. */
__attribute__((noinline, noclone)) static void *
handle_requests(void *arg)
{
	char rec[4096];
	volatile unsigned long x = 0;
	double until;

	(void)arg;
	memset(rec, 'x', sizeof(rec));
	while (now() < end) {
		until = now() + 50e-6;
		while (now() < until)
			x++;
		if (append_record(rec, sizeof(rec)) == -1)
			break;
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[THREADS];
	int i;

	if (argc < 2)
		return 2;
	end = now() + (argc > 2 ? atof(argv[2]) : 10);
	if ((fd = scratch_open(argv[1])) == -1)
		return 1;
	for (i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, handle_requests, NULL) != 0)
			return 3;
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	close(fd);
	return 0;
}
