/*
 * spawn: the recorders' -- CMD child, held between fork and exec.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"

/* In the child: its standard output as out says.  -1 with errno. */
static int
child_stdout(enum pf_spawn_stdout out)
{
	int fd, rc;

	switch (out) {
	case PF_SPAWN_STDOUT_KEEP:
		return 0;
	case PF_SPAWN_STDOUT_STDERR:
		return dup2(STDERR_FILENO, STDOUT_FILENO) == -1 ? -1 : 0;
	case PF_SPAWN_STDOUT_NULL:
		if ((fd = open("/dev/null", O_WRONLY)) == -1)
			return -1;
		rc = dup2(fd, STDOUT_FILENO) == -1 ? -1 : 0;
		if (fd != STDOUT_FILENO)
			close(fd);
		return rc;
	}
	return 0;
}

int
pf_spawn_cmd(struct pf_target *t, char **cmd, enum pf_spawn_stdout out)
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
	if ((t->child = fork()) == -1) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		close(er[0]);
		close(er[1]);
		errno = e;
		return -1;
	}
	if (t->child == 0) {
		ssize_t n;
		int e;

		close(go[1]);
		close(er[0]);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* Wait until the events are open: counting starts at exec. */
		while ((n = read(go[0], &c, 1)) == -1 && errno == EINTR)
			;
		if (n != 1)
			_exit(127);
		if (child_stdout(out) == 0)
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

/*
 * The recorders' handlers are installed without SA_RESTART, so that a
 * signal ends their waits: here a Ctrl-C must not end the read early, or
 * a command that could not exec would read as started.
 */
int
pf_spawn_start(struct pf_target *t)
{
	int e;
	ssize_t n;

	while ((n = write(t->go_fd, "x", 1)) == -1 && errno == EINTR)
		;
	if (n != 1)
		return -1;
	close(t->go_fd);
	while ((n = read(t->err_fd, &e, sizeof(e))) == -1 && errno == EINTR)
		;
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
pf_spawn_abandon(struct pf_target *t)
{
	close(t->go_fd);
	close(t->err_fd);
	waitpid(t->child, NULL, 0);
	t->child = 0;
}

void
pf_spawn_kill(struct pf_target *t)
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
pf_spawn_path(const char *file, char *buf)
{
	const char *path = getenv("PATH"), *p, *colon;
	char cand[PATH_MAX];
	struct stat st;
	size_t n;

	if (strchr(file, '/') != NULL)
		return realpath(file, buf) == NULL ? -1 : 0;
	if (path == NULL)
		path = "/bin:/usr/bin";
	for (p = path; ; p = colon + 1) {
		colon = strchrnul(p, ':');
		n = (size_t)(colon - p);
		if (snprintf(cand, sizeof(cand), "%.*s%s%s", (int)n, n ? p : ".", "/", file) <
		    (int)sizeof(cand) && access(cand, X_OK) == 0 && stat(cand, &st) == 0 &&
		    S_ISREG(st.st_mode) && realpath(cand, buf) != NULL)
			return 0;
		if (*colon == '\0')
			return -1;
	}
}
