/*
 * off-switch: context switches as fast as two threads can make them, with
 * a known split of the blocked time, for checking an off-CPU profiler
 * above its rate cap.  The main thread sends a byte through a pipe to a
 * peer thread and waits for it to come back, three rounds in five in
 * sw_alpha and two in five in sw_beta: the waits are alike, so the main
 * thread's blocked time splits 60/40 between them whatever the rate.  The
 * peer waits in sw_peer.
 *
 *   off-switch [-r rounds-per-second] [-n rounds] [seconds]
 *
 * -r paces the rounds (the pause is a nanosleep in sw_pace), for a
 * reference run below the cap; -n stops after that many rounds instead of
 * after SECONDS (default 3).  At the end it prints
 * "rounds N elapsed_ns T switches S": S counts the voluntary and
 * involuntary context switches of both threads (getrusage).
 *
 * Both threads stay on the CPU the program starts on: a wake-up on the
 * same CPU is a plain switch, while a ping-pong across CPUs pays an
 * interrupt each way and runs some ten times slower (36,000 against
 * 370,000 switches a second on the 2-CPU test machine), and would depend
 * on where the scheduler put each thread.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "wl-sys3.h"

static int pa[2], pb[2];

static unsigned long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

__attribute__((noinline)) long
sw_alpha(int fd, char *c)
{
	return sys3(SYS_read, fd, (long)c, 1);
}

__attribute__((noinline)) long
sw_beta(int fd, char *c)
{
	return sys3(SYS_read, fd, (long)c, 1);
}

__attribute__((noinline)) long
sw_peer(int fd, char *c)
{
	return sys3(SYS_read, fd, (long)c, 1);
}

__attribute__((noinline)) void
sw_pace(unsigned long long ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) };

	(void)sys3(SYS_nanosleep, (long)&ts, 0, 0);
}

static void *
peer(void *arg)
{
	char c;

	(void)arg;
	while (sw_peer(pa[0], &c) == 1)
		if (sys3(SYS_write, pb[1], (long)&c, 1) != 1)
			break;
	return NULL;
}

int
main(int argc, char **argv)
{
	unsigned long long rate = 0, limit = 0, rounds = 0, t0, t, end;
	double seconds = 3;
	struct rusage ru;
	pthread_t th;
	char c = 'x';
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			rate = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			limit = strtoull(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: off-switch [-r rounds-per-second] [-n rounds] "
			    "[seconds]\n");
			return 2;
		}
	}
	if (i < argc)
		seconds = atof(argv[i]);
	{
		cpu_set_t one;
		int cpu = sched_getcpu();

		if (cpu >= 0) {
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			(void)sched_setaffinity(0, sizeof(one), &one);
		}
	}
	if (pipe(pa) == -1 || pipe(pb) == -1 || pthread_create(&th, NULL, peer, NULL) != 0) {
		perror("off-switch");
		return 1;
	}
	t0 = now_ns();
	end = t0 + (unsigned long long)(seconds * 1e9);
	for (t = t0; limit ? rounds < limit : t < end; rounds++) {
		if (sys3(SYS_write, pa[1], (long)&c, 1) != 1)
			break;
		if ((rounds % 5 < 3 ? sw_alpha(pb[0], &c) : sw_beta(pb[0], &c)) != 1)
			break;
		t = now_ns();
		if (rate) {
			unsigned long long due = t0 + (rounds + 1) * 1000000000ULL / rate;

			if (due > t)
				sw_pace(due - t);
		}
	}
	t = now_ns();
	close(pa[1]);
	pthread_join(th, NULL);
	getrusage(RUSAGE_SELF, &ru);
	printf("rounds %llu elapsed_ns %llu switches %ld\n", rounds, t - t0,
	    ru.ru_nvcsw + ru.ru_nivcsw);
	return 0;
}
