/*
 * target: the pids' liveness and the events of every thread they have.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "fileio.h"
#include "parse.h"
#include "spawn.h"
#include "target.h"

char
pf_pid_state(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (pf_read_small(path, buf, sizeof(buf)) <= 0)
		return 0;
	/* The state follows the last ')': a comm may hold ") " itself. */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return 0;
	return p[2];
}

bool
pf_pid_alive(pid_t pid)
{
	char s = pf_pid_state(pid);

	return s != 0 && s != 'Z' && s != 'X';
}

bool
pf_target_gone(struct pf_target *t)
{
	size_t i;

	if (t->child > 0) {
		int st;

		if (waitpid(t->child, &st, WNOHANG) == t->child) {
			t->child = 0;
			return true;
		}
		return false;
	}
	if (t->npids == 0)
		return false;
	for (i = 0; i < t->npids; i++)
		if (pf_pid_alive(t->pids[i]))
			return false;
	return true;
}

int
pf_target_open_process(struct pf_perf *p, pid_t pid)
{
	char path[64];
	int round, added;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	for (round = 0; round < 10; round++) {
		DIR *d = opendir(path);
		struct dirent *de;

		if (d == NULL) {
			if (errno == ENOENT)
				errno = ESRCH;
			return -1;
		}
		added = 0;
		while ((de = readdir(d)) != NULL) {
			uint64_t tid;
			size_t before = pf_perf_nfds(p);

			if (pf_parse_u64(de->d_name, 1, INT_MAX, &tid) == -1)
				continue;
			if (pf_perf_open_task(p, (pid_t)tid) == -1) {
				int e = errno;

				if (e == ESRCH)	/* the thread just exited */
					continue;
				closedir(d);
				errno = e;
				return -1;
			}
			added += pf_perf_nfds(p) != before;
		}
		closedir(d);
		if (added == 0)
			return 0;
	}
	return 0;
}

int
pf_target_attach(struct pf_target *t, bool all, struct pf_perf *perf, pid_t *failed)
{
	size_t i;
	int e;

	if (all) {
		*failed = -1;
		return pf_perf_open_task(perf, -1);
	}
	if (t->child > 0) {
		*failed = t->child;
		if (pf_perf_open_task(perf, t->child) == -1) {
			e = errno;
			pf_spawn_abandon(t);
			errno = e;
			return -1;
		}
		return 0;
	}
	for (i = 0; i < t->npids; i++) {
		*failed = t->pids[i];
		if (pf_target_open_process(perf, t->pids[i]) == -1)
			return -1;
	}
	return 0;
}
