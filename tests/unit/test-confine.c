/*
 * test-confine: applies lib/common/confine to itself, then tries what a
 * confined recorder must no longer be able to do, and what it must still
 * do.  Run by tests/bats/lib-confine.bats as
 *
 *   test-confine seccomp [ptrace]     the filter (ptrace kept with "ptrace")
 *   test-confine landlock PATH...     read-only beneath the std paths, then
 *                                     try to open each PATH for reading
 *   test-confine mapped GOOD BAD      the allow-list given GOOD as a mapped
 *                                     file with its own device and inode,
 *                                     BAD with another inode; then open both
 *
 * Each attempt prints "NAME ok" or "NAME errno=E"; the exit status is 0
 * once confinement was applied, 3 when it could not be.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "confine.h"

static void
report(const char *what, int rc)
{
	if (rc == -1)
		printf("%s errno=%s\n", what, strerrorname_np(errno));
	else
		printf("%s ok\n", what);
}

static int
try_exec(void)
{
	static char prog[] = "/bin/true";
	char *argv[] = { prog, NULL };

	return execve(argv[0], argv, environ);
}

static int
try_socket(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd >= 0)
		close(fd);
	return fd < 0 ? -1 : 0;
}

static int
try_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0600);

	if (fd >= 0)
		close(fd);
	return fd < 0 ? -1 : 0;
}

int
main(int argc, char **argv)
{
	int abi, i;

	if (argc < 2)
		return 2;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		perror("no_new_privs");
		return 3;
	}
	if (strcmp(argv[1], "seccomp") == 0) {
		if (pf_confine_seccomp(argc > 2 && strcmp(argv[2], "ptrace") == 0) == -1) {
			perror("seccomp");
			return 3;
		}
		report("getpid", getpid() > 0 ? 0 : -1);
		report("read-proc", try_open("/proc/self/status", O_RDONLY));
		report("socket", try_socket());
		report("ptrace", (int)ptrace(PTRACE_TRACEME, 0, NULL, NULL));
		report("fork", (int)syscall(SYS_fork));
		report("unshare", unshare(0x00020000 /* CLONE_NEWNS */));
		fflush(stdout);
		report("execve", try_exec());
		fflush(stdout);
		/* Not exit(): a sanitizer build's leak check needs ptrace. */
		_exit(0);
	}
	if (strcmp(argv[1], "landlock") == 0) {
		const char *const *std = pf_confine_std_paths();
		size_t n = 0;

		while (std[n] != NULL)
			n++;
		if (pf_confine_landlock(std, n, &abi) == -1) {
			perror("landlock");
			return 3;
		}
		printf("abi %d\n", abi);
		for (i = 2; i < argc; i++)
			report(argv[i], try_open(argv[i], O_RDONLY));
		report("create-in-tmp", try_open("/tmp/pf-confine-test-never", O_WRONLY | O_CREAT | O_EXCL));
		return 0;
	}
	if (strcmp(argv[1], "mapped") == 0 && argc == 4) {
		struct pf_confine_allow *a;
		struct stat good, bad;
		size_t n;

		if (stat(argv[2], &good) == -1 || stat(argv[3], &bad) == -1) {
			perror("stat");
			return 2;
		}
		if ((a = pf_confine_allow_new()) == NULL)
			return 3;
		pf_confine_allow_mapped(argv[2], major(good.st_dev), minor(good.st_dev),
		    good.st_ino, a);
		/* What a process in another root, or a replaced file, would name. */
		pf_confine_allow_mapped(argv[3], major(bad.st_dev), minor(bad.st_dev),
		    bad.st_ino + 1, a);
		if (pf_confine_allow_apply(a, &abi, &n) == -1) {
			perror("landlock");
			pf_confine_allow_free(a);
			return 3;
		}
		pf_confine_allow_free(a);
		printf("abi %d\n", abi);
		report("good", try_open(argv[2], O_RDONLY));
		report("bad", try_open(argv[3], O_RDONLY));
		return 0;
	}
	return 2;
}
