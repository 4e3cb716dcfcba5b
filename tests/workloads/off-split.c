/*
 * off-split: a known split of blocked time across named functions, for
 * checking an off-CPU profiler's shares.  Each round, off_alpha sleeps
 * 30 ms in nanosleep and off_beta waits 20 ms in poll on a pipe nobody
 * writes, so blocked time splits 60/40.  Runs for SECONDS (default 3) of
 * wall time.  With -t N the rounds run in N threads started after 0.2 s
 * (threads created while a profiler is attached).  With -s it instead
 * switches as often as it can (sched_yield against a sleeping peer is not
 * enough on an idle CPU, so it ping-pongs a byte through two pipes with a
 * second thread) to test a rate cap.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "wl-now.h"
#include "wl-sys3.h"

static double seconds = 3;
static int pa[2], pb[2];

__attribute__((noinline)) void
off_alpha(void)
{
	struct timespec ts = { 0, 30 * 1000000L };

	(void)sys3(SYS_nanosleep, (long)&ts, 0, 0);
}

__attribute__((noinline)) void
off_beta(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	(void)sys3(SYS_poll, (long)&p, 1, 20);
}

static void *
rounds(void *arg)
{
	int fd[2];
	double end = now() + seconds;

	(void)arg;
	if (pipe(fd) == -1) {
		perror("pipe");
		exit(1);
	}
	while (now() < end) {
		off_alpha();
		off_beta(fd[0]);
	}
	close(fd[0]);
	close(fd[1]);
	return NULL;
}

static void *
pong(void *arg)
{
	char c;

	(void)arg;
	while (read(pa[0], &c, 1) == 1)
		if (write(pb[1], &c, 1) != 1)
			break;
	return NULL;
}

static void
switcher(void)
{
	pthread_t t;
	double end = now() + seconds;
	char c = 'x';

	if (pipe(pa) == -1 || pipe(pb) == -1 || pthread_create(&t, NULL, pong, NULL) != 0) {
		perror("switcher");
		exit(1);
	}
	while (now() < end)
		if (write(pa[1], &c, 1) != 1 || read(pb[0], &c, 1) != 1)
			break;
	close(pa[1]);
	pthread_join(t, NULL);
}

int
main(int argc, char **argv)
{
	int nthreads = 0, sw = 0, i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else if (strcmp(argv[i], "-s") == 0)
			sw = 1;
		else {
			fprintf(stderr, "usage: off-split [-s] [-t threads] [seconds]\n");
			return 2;
		}
	}
	if (i < argc)
		seconds = atof(argv[i]);
	if (sw) {
		switcher();
		return 0;
	}
	if (nthreads > 0) {
		pthread_t *t = calloc((size_t)nthreads, sizeof(*t));
		struct timespec d = { 0, 200 * 1000000L };

		if (t == NULL)
			return 1;
		nanosleep(&d, NULL);
		seconds -= 0.2;
		for (i = 0; i < nthreads; i++)
			pthread_create(&t[i], NULL, rounds, NULL);
		for (i = 0; i < nthreads; i++)
			pthread_join(t[i], NULL);
		free(t);
		return 0;
	}
	rounds(NULL);
	return 0;
}
