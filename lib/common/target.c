/*
 * target: pids, the held child, thread enumeration.
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
#include "msg.h"
#include "parse.h"
#include "target.h"

int
pf_target_parse_pids(struct pf_target *t, const char *s, const char **bad)
{
	static char badtok[32];
	char *copy, *tok, *save = NULL;
	uint64_t v;

	*bad = NULL;
	if ((copy = strdup(s)) == NULL)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (pf_parse_u64(tok, 1, INT_MAX, &v) == -1) {
			snprintf(badtok, sizeof(badtok), "%s", tok);
			*bad = badtok;
			free(copy);
			errno = EINVAL;
			return -1;
		}
		if (t->npids == PF_TARGET_MAX_PIDS) {
			free(copy);
			errno = E2BIG;
			return -1;
		}
		t->pids[t->npids++] = (pid_t)v;
	}
	free(copy);
	if (t->npids == 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

bool
pf_pid_alive(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (pf_read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return false;
	return p[2] != 'Z' && p[2] != 'X';
}

int
pf_target_spawn(struct pf_target *t, char **cmd)
{
	int go[2], er[2];
	char c;

	if (pipe2(go, O_CLOEXEC) == -1)
		return -1;
	if (pipe2(er, O_CLOEXEC) == -1) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	if ((t->child = fork()) == -1)
		return -1;
	if (t->child == 0) {
		int e;

		close(go[1]);
		close(er[0]);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* Wait until the events are open: counting starts at exec. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		e = errno;
		(void)!write(er[1], &e, sizeof(e));
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	t->go_fd = go[1];
	t->err_fd = er[0];
	return 0;
}

int
pf_target_start(struct pf_target *t)
{
	int e;
	ssize_t n;

	if (write(t->go_fd, "x", 1) != 1)
		return -1;
	close(t->go_fd);
	n = read(t->err_fd, &e, sizeof(e));
	close(t->err_fd);
	if (n == (ssize_t)sizeof(e)) {
		waitpid(t->child, NULL, 0);
		t->child = 0;
		errno = e;
		return -1;
	}
	return 0;
}

void
pf_target_abandon(struct pf_target *t)
{
	close(t->go_fd);
	close(t->err_fd);
	waitpid(t->child, NULL, 0);
	t->child = 0;
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

void
pf_target_kill(struct pf_target *t)
{
	int i, st;

	if (t->child <= 0)
		return;
	kill(t->child, SIGTERM);
	for (i = 0; i < 100; i++) {
		if (waitpid(t->child, &st, WNOHANG) != 0)
			goto done;
		usleep(10000);
	}
	kill(t->child, SIGKILL);
	waitpid(t->child, &st, 0);
done:
	t->child = 0;
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
pf_target_attach(struct pf_target *t, bool all, struct pf_perf *perf,
    struct pf_symbolizer *sym, struct pf_comms *comms, pid_t *failed)
{
	size_t i;
	int e;

	if (all) {
		*failed = -1;
		if (pf_perf_open_task(perf, -1) == -1)
			return -1;
		(void)pf_sym_load_all(sym, "/proc");
		return 0;
	}
	if (t->child > 0) {
		*failed = t->child;
		if (pf_perf_open_task(perf, t->child) == -1) {
			e = errno;
			pf_target_abandon(t);
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
	for (i = 0; i < t->npids; i++) {
		if (pf_sym_load_proc(sym, "/proc", t->pids[i], true) == -1 && errno != ENOENT)
			pf_warn("pid %d: maps (symbols will be missing)", (int)t->pids[i]);
		pf_comms_read_proc(comms, t->pids[i]);
	}
	return 0;
}
