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
 *   test-confine helper               a file helper (mapfile.h) started for
 *                                     a child; the driver then drops every
 *                                     capability and asks it for the child's
 *                                     mapping of this driver, a grandchild's,
 *                                     its own, and one after killing it
 *   test-confine helper-mem           memory reads through helpers started
 *                                     for a child (mapfile.h): its bytes, and
 *                                     what each refuses once the driver has
 *                                     dropped every capability
 *   test-confine helper-bench N       the mean cost of a file through the
 *                                     helper, and opened directly; of a 64-
 *                                     and a 4096-byte read through it, and
 *                                     with process_vm_readv directly
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
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "confine.h"
#include "mapfile.h"
#include "privs.h"

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

/* The first executable mapping of this driver's file in pid's maps. */
static int
driver_map(pid_t pid, uint64_t *start, uint64_t *end)
{
	char path[64], line[4096], self[4096];
	unsigned long long a, b;
	ssize_t n;
	FILE *f;
	int rc = -1;

	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
		return -1;
	self[n] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (rc == -1 && fgets(line, sizeof(line), f) != NULL) {
		char perm[8], *p;

		line[strcspn(line, "\n")] = '\0';
		p = strchr(line, '/');
		if (sscanf(line, "%llx-%llx %7s", &a, &b, perm) == 3 && perm[2] == 'x' &&
		    p != NULL && strcmp(p, self) == 0) {
			*start = a;
			*end = b;
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

/* Ask mf for pid's mapping of this driver: "NAME ok" with the driver's inode, or why not. */
static void
ask_helper(struct pf_mapfiles *mf, const char *what, pid_t pid, uint64_t start, uint64_t end,
    ino_t want)
{
	uint64_t asked, got, got0;
	struct stat st;
	bool broken;
	int fd;

	pf_mapfiles_stats(mf, &asked, &got0, &broken);
	/* No path to fall back on: only the helper can answer. */
	fd = pf_mapfile_open(mf, "/proc", pid, start, end, "", 0);
	pf_mapfiles_stats(mf, &asked, &got, &broken);
	if (fd != -1 && got == got0 + 1 && fstat(fd, &st) == 0 && st.st_ino == want)
		printf("%s ok\n", what);
	else if (fd != -1)
		printf("%s wrong-file\n", what);
	else
		printf("%s refused%s\n", what, broken ? " helper-stopped" : "");
	if (fd != -1)
		close(fd);
}

static int
helper(void)
{
	int go[2], back[2];
	pid_t child, grandchild = 0;
	uint64_t start, end, s2, e2;
	struct pf_mapfiles *mf;
	struct stat self;
	char c;

	if (stat("/proc/self/exe", &self) == -1 || pipe(go) == -1 || pipe(back) == -1 ||
	    driver_map(getpid(), &start, &end) == -1)
		return 2;
	if ((child = fork()) == 0) {
		/* The child forks a grandchild after the helper started, then both wait. */
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		if ((grandchild = fork()) == 0) {
			pause();
			_exit(0);
		}
		(void)!write(back[1], &grandchild, sizeof(grandchild));
		pause();
		_exit(0);
	}
	if ((mf = pf_mapfiles_start(&child, 1, false, PF_MAPFILES_MEM_NONE, "test-files")) == NULL) {
		perror("helper");
		kill(child, SIGKILL);
		return 3;
	}
	(void)!write(go[1], "g", 1);
	if (read(back[0], &grandchild, sizeof(grandchild)) != sizeof(grandchild))
		return 2;
	/* The driver now holds what a confined recorder holds: nothing. */
	if (pf_drop_privileges() == -1 || pf_confine_seccomp(false) == -1) {
		perror("drop");
		return 3;
	}
	printf("helper-pid %s\n", pf_mapfiles_pid(mf) > 0 ? "ok" : "none");
	ask_helper(mf, "child", child, start, end, self.st_ino);
	ask_helper(mf, "grandchild", grandchild, start, end, self.st_ino);
	/* Not the process it was started for, nor one of its descendants. */
	ask_helper(mf, "self", getpid(), start, end, self.st_ino);
	/* A range that is no mapping, and a request that makes no sense. */
	s2 = start + 4096;
	e2 = end;
	ask_helper(mf, "not-a-mapping", child, s2 < e2 ? s2 : start, e2 + 4096, self.st_ino);
	ask_helper(mf, "empty-range", child, end, start, self.st_ino);
	kill(pf_mapfiles_pid(mf), SIGKILL);
	ask_helper(mf, "after-kill", child, start, end, self.st_ino);
	ask_helper(mf, "after-kill-again", child, start, end, self.st_ino);
	kill(grandchild, SIGKILL);
	kill(child, SIGKILL);
	fflush(stdout);
	pf_mapfiles_free(mf);
	_exit(0);
}

/* What the target child holds: a pattern only it has (the driver's copy stays 0). */
static unsigned char pattern[2 * PF_MAPFILES_READ_MAX] __attribute__((aligned(4096)));

static unsigned char
pattern_byte(size_t i)
{
	return (unsigned char)((i * 7 + 3) ^ (i >> 8));
}

/* A child that fills pattern, says so and waits; -1 on failure. */
static pid_t
pattern_child(void)
{
	int p[2];
	pid_t pid;
	size_t i;
	char c;

	if (pipe(p) == -1)
		return -1;
	if ((pid = fork()) == 0) {
		for (i = 0; i < sizeof(pattern); i++)
			pattern[i] = pattern_byte(i);
		(void)!write(p[1], "r", 1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (pid == -1 || read(p[0], &c, 1) != 1) {
		close(p[0]);
		return -1;
	}
	close(p[0]);
	return pid;
}

/*
 * Read len bytes at addr of pid through mf: "NAME ok" when they are the
 * child's pattern from off on, "NAME wrong-bytes" otherwise; "NAME
 * errno=E" when refused, with " dirty" when the buffer was written anyway
 * and " helper-stopped" once nothing more is asked of the helper.
 */
static void
ask_mem(struct pf_mapfiles *mf, const char *what, pid_t pid, uint64_t addr, size_t len,
    size_t off)
{
	static unsigned char buf[2 * PF_MAPFILES_READ_MAX];
	uint64_t asked, got;
	size_t i;
	bool same = true, clean = true, broken;

	memset(buf, 0xa5, sizeof(buf));
	if (pf_mapfiles_read(mf, pid, addr, buf, len) == 0) {
		for (i = 0; i < len; i++)
			same = same && buf[i] == pattern_byte(off + i);
		printf("%s %s\n", what, same ? "ok" : "wrong-bytes");
		return;
	}
	printf("%s errno=%s", what, strerrorname_np(errno));
	for (i = 0; i < sizeof(buf); i++)
		clean = clean && buf[i] == 0xa5;
	pf_mapfiles_stats(mf, &asked, &got, &broken);
	printf("%s%s\n", clean ? "" : " dirty", broken ? " helper-stopped" : "");
}

/*
 * Read the n pages at pages[] of pid through mf in one request: "NAME" and,
 * for each page, "ok" when it is the child's pattern from its address on
 * (p the pattern's), "wrong-bytes", or "no" when it was not read; "NAME
 * errno=E" when the request was refused.
 */
static void
ask_pages(struct pf_mapfiles *mf, const char *what, pid_t pid, const uint64_t *pages, size_t n,
    uint64_t p)
{
	static unsigned char buf[PF_MAPFILES_PAGES_MAX + 1][PF_MAPFILES_READ_MAX];
	bool ok[PF_MAPFILES_PAGES_MAX + 1];
	size_t i, j;

	if (pf_mapfiles_read_pages(mf, pid, pages, n, buf, ok) == -1) {
		printf("%s errno=%s\n", what, strerrorname_np(errno));
		return;
	}
	printf("%s", what);
	for (i = 0; i < n; i++) {
		bool same = true;

		for (j = 0; ok[i] && j < PF_MAPFILES_READ_MAX; j++)
			same = same && buf[i][j] == pattern_byte((size_t)(pages[i] - p) + j);
		printf(" %s", !ok[i] ? "no" : same ? "ok" : "wrong-bytes");
	}
	printf("\n");
}

/*
 * A pattern child with the PID dead had (reaped): the kernel's next PID
 * set just below it (/proc/sys/kernel/ns_last_pid, as root) before each
 * fork, 50 tries, as another process may fork in between; -1 when none
 * got it.
 */
static pid_t
same_pid_child(pid_t dead)
{
	char v[32];
	pid_t pid;
	int i, fd, len;

	for (i = 0; i < 50; i++) {
		if ((fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC)) == -1)
			return -1;
		len = snprintf(v, sizeof(v), "%d", (int)dead - 1);
		if (write(fd, v, (size_t)len) != len) {
			close(fd);
			return -1;
		}
		close(fd);
		if ((pid = pattern_child()) == dead)
			return pid;
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
	}
	return -1;
}

static int
helper_mem(void)
{
	struct pf_mapfiles *mf, *any, *all, *none, *gone;
	uint64_t p, start, end, hole;
	pid_t child, other, victim, again;
	unsigned char *m;
	struct stat self;

	if (stat("/proc/self/exe", &self) == -1 || driver_map(getpid(), &start, &end) == -1)
		return 2;
	/* Two pages, the second unmapped: the child inherits the hole. */
	if ((m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) ==
	    MAP_FAILED || munmap(m + 4096, 4096) == -1)
		return 2;
	hole = (uint64_t)(uintptr_t)(m + 4096);
	if ((child = pattern_child()) == -1)
		return 2;
	if ((other = pattern_child()) == -1) {
		kill(child, SIGKILL);
		return 2;
	}
	mf = pf_mapfiles_start(&child, 1, false, PF_MAPFILES_MEM_TARGETS, "test-mem");
	any = pf_mapfiles_start(&child, 1, true, PF_MAPFILES_MEM_TARGETS, "test-mem-any");
	all = pf_mapfiles_start(&child, 1, true, PF_MAPFILES_MEM_ALL, "test-mem-all");
	none = pf_mapfiles_start(&child, 1, false, PF_MAPFILES_MEM_NONE, "test-mem-none");
	/*
	 * A target that ends, and another process given its PID: the helper
	 * started for the first answers nothing for the second.
	 */
	victim = pattern_child();
	gone = victim > 0 ? pf_mapfiles_start(&victim, 1, false, PF_MAPFILES_MEM_TARGETS,
	    "test-mem-gone") : NULL;
	if (victim > 0) {
		kill(victim, SIGKILL);
		waitpid(victim, NULL, 0);
	}
	/*
	 * Start times count clock ticks (10 ms): a PID is reused only after
	 * every other one was, far later, unless set as here.
	 */
	usleep(30000);
	again = victim > 0 ? same_pid_child(victim) : -1;
	if (mf == NULL || any == NULL || all == NULL || none == NULL || gone == NULL) {
		perror("helper");
		kill(child, SIGKILL);
		kill(other, SIGKILL);
		return 3;
	}
	/* The driver now holds what a confined recorder holds: nothing. */
	if (pf_drop_privileges() == -1 || pf_confine_seccomp(false) == -1) {
		perror("drop");
		return 3;
	}
	p = (uint64_t)(uintptr_t)pattern;
	{
		/* What the helper is for: the sampler itself may not read it. */
		unsigned char b[64];
		struct iovec l = { b, sizeof(b) }, r = { pattern, sizeof(b) };

		printf("direct %s\n", process_vm_readv(child, &l, 1, &r, 1, 0) == -1 ?
		    strerrorname_np(errno) : "read");
	}
	ask_mem(mf, "read-64", child, p + 100, 64, 100);
	ask_mem(mf, "read-max", child, p + 4096, PF_MAPFILES_READ_MAX, 4096);
	ask_mem(mf, "over-max", child, p, PF_MAPFILES_READ_MAX + 1, 0);
	ask_mem(mf, "empty", child, p, 0, 0);
	ask_mem(mf, "other-child", other, p, 64, 0);
	ask_mem(mf, "self", getpid(), p, 64, 0);
	ask_mem(mf, "unmapped", child, hole, 64, 0);
	ask_mem(mf, "across-the-end", child, hole - 32, 64, 0);
	{
		/* Pages in one request: each whole or not read, a count and addresses checked. */
		uint64_t a = (p + PF_MAPFILES_READ_MAX - 1) & ~(uint64_t)(PF_MAPFILES_READ_MAX - 1);
		uint64_t pg[PF_MAPFILES_PAGES_MAX + 1] = { a, hole, a };
		size_t i;

		ask_pages(mf, "pages", child, pg, 3, p);
		pg[1] = a + 8;
		ask_pages(mf, "pages-unaligned", child, pg, 2, p);
		for (i = 0; i <= PF_MAPFILES_PAGES_MAX; i++)
			pg[i] = a;
		ask_pages(mf, "pages-max", child, pg, PF_MAPFILES_PAGES_MAX, p);
		ask_pages(mf, "pages-over-max", child, pg, PF_MAPFILES_PAGES_MAX + 1, p);
		ask_pages(mf, "pages-none", child, pg, 0, p);
		ask_pages(mf, "pages-other-child", other, pg, 1, p);
		ask_pages(none, "pages-none-target", child, pg, 1, p);
	}
	/* Refusals leave it answering. */
	ask_mem(mf, "still-answers", child, p, 64, 0);
	/* Under any: files of any process, memory of the targets only. */
	ask_mem(any, "any-target", child, p, 64, 0);
	ask_mem(any, "any-other", other, p, 64, 0);
	ask_helper(any, "any-other-file", other, start, end, self.st_ino);
	/* Asked for (a future --python under -a): any process's memory. */
	ask_mem(all, "all-other", other, p, 64, 0);
	/* No memory reads at all, files as before. */
	ask_mem(none, "none-target", child, p, 64, 0);
	ask_helper(none, "none-file", child, start, end, self.st_ino);
	/* The PID reused: neither its memory nor its files. */
	if (again == -1) {
		printf("reused-pid not-made\n");
	} else {
		ask_mem(gone, "reused-pid", again, p, 64, 0);
		ask_helper(gone, "reused-pid-file", again, start, end, self.st_ino);
		kill(again, SIGKILL);
	}
	kill(pf_mapfiles_pid(mf), SIGKILL);
	ask_mem(mf, "after-kill", child, p, 64, 0);
	ask_mem(mf, "after-kill-again", child, p, 64, 0);
	kill(child, SIGKILL);
	kill(other, SIGKILL);
	fflush(stdout);
	pf_mapfiles_free(mf);
	pf_mapfiles_free(any);
	pf_mapfiles_free(all);
	pf_mapfiles_free(none);
	pf_mapfiles_free(gone);
	_exit(0);
}

static double
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * The mean cost of one read of len bytes of the child's pattern, through
 * the helper and with process_vm_readv directly (the capabilities the
 * helper keeps), n times each: "read-LEN helper-ns X direct-ns Y"; -1
 * when a read failed.
 */
static int
mem_bench(struct pf_mapfiles *mf, pid_t child, size_t len, int n)
{
	unsigned char buf[PF_MAPFILES_READ_MAX];
	struct iovec l = { buf, len }, r = { pattern, len };
	double t0, th, td;
	int i, j;

	t0 = mono_ns();
	for (i = 0; i < n; i++)
		if (pf_mapfiles_read(mf, child, (uint64_t)(uintptr_t)pattern, buf, len) == -1)
			return -1;
	th = (mono_ns() - t0) / n;
	t0 = mono_ns();
	for (j = 0; j < n; j++)
		if (process_vm_readv(child, &l, 1, &r, 1, 0) != (ssize_t)len)
			return -1;
	td = (mono_ns() - t0) / n;
	printf("read-%zu helper-ns %.0f direct-ns %.0f\n", len, th, td);
	return 0;
}

/*
 * helper-bench N: the cost of one file through the helper (a request, the
 * open of map_files there, the descriptor passed back, closed here), N
 * times over, beside the same open made directly with the capabilities
 * the helper keeps: "helper-ns X direct-ns Y" (means); then the same for
 * a 64- and a 4096-byte memory read (mem_bench).
 */
static int
helper_bench(int n)
{
	struct pf_mapfiles *mf;
	uint64_t start, end;
	pid_t child;
	double t0, th, td;
	int i, fd, rc;

	if (n <= 0 || driver_map(getpid(), &start, &end) == -1)
		return 2;
	if ((child = pattern_child()) == -1)
		return 2;
	if ((mf = pf_mapfiles_start(&child, 1, false, PF_MAPFILES_MEM_TARGETS,
	    "test-files")) == NULL) {
		kill(child, SIGKILL);
		return 3;
	}
	t0 = mono_ns();
	for (i = 0; i < n; i++) {
		if ((fd = pf_mapfile_open(mf, "/proc", child, start, end, "", 0)) == -1)
			break;
		close(fd);
	}
	th = (mono_ns() - t0) / n;
	t0 = mono_ns();
	for (i = 0; i < n; i++) {
		if ((fd = pf_mapfile_open(NULL, "/proc", child, start, end, "", 0)) == -1)
			break;
		close(fd);
	}
	td = (mono_ns() - t0) / n;
	printf("helper-ns %.0f direct-ns %.0f\n", th, td);
	rc = i == n ? 0 : 1;
	if (mem_bench(mf, child, 64, n) == -1 ||
	    mem_bench(mf, child, PF_MAPFILES_READ_MAX, n) == -1)
		rc = 1;
	kill(child, SIGKILL);
	pf_mapfiles_free(mf);
	return rc;
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
	if (strcmp(argv[1], "helper") == 0)
		return helper();
	if (strcmp(argv[1], "helper-mem") == 0)
		return helper_mem();
	if (strcmp(argv[1], "helper-bench") == 0 && argc == 3)
		return helper_bench(atoi(argv[2]));
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
