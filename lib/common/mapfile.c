/*
 * mapfile: opening a target's mapped file, and the helper that does it
 * for a confined recorder.  See mapfile.h for the order of the
 * candidates and for what the helper holds and may do.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "confine.h"
#include "mapfile.h"
#include "pf.h"
#include "privs.h"
#include "procstat.h"

/*
 * A request: which mapping of which process, (kind REQ_JIT, start and end
 * 0) its JIT map, (kind REQ_MEM) start the address and end the length of
 * a memory read, or (kind REQ_PAGES) end the count of the page-aligned
 * addresses in pages[] to read a page at each.  Fixed size, nothing to
 * parse.
 */
enum { REQ_MAPPING, REQ_JIT, REQ_MEM, REQ_PAGES };

struct req {
	int32_t pid;
	uint32_t kind;
	uint64_t start, end;
	uint64_t pages[PF_MAPFILES_PAGES_MAX];
};

/*
 * An answer: 0 with a descriptor attached (files) or len bytes after it
 * (memory, len the length asked), or an errno value and len 0.
 */
struct rep {
	int32_t err;
	uint32_t len;
};

/* An answer to REQ_MEM. */
struct rep_mem {
	struct rep h;
	unsigned char data[PF_MAPFILES_READ_MAX];
};

/*
 * An answer to REQ_PAGES (0, len the whole of ok and data), or an errno
 * value and len 0: the largest message either side handles.  A page not
 * read is ok 0 and zeros.
 */
struct rep_pages {
	struct rep h;
	unsigned char ok[PF_MAPFILES_PAGES_MAX];
	unsigned char data[PF_MAPFILES_PAGES_MAX][PF_MAPFILES_READ_MAX];
};

struct pf_mapfiles {
	int sock;
	pid_t pid;
	uint64_t asked, got;
	bool broken;
};

/* Descendants of the targets the helper has found, kept for later requests. */
#define KIN_MAX		4096
/* Parent links followed from a requested process towards a target. */
#define KIN_DEPTH	64

static int
open_regular(const char *path, uint64_t ino)
{
	struct stat st;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (ino != 0 && (uint64_t)st.st_ino != ino)) {
		close(fd);
		errno = ENOENT;
		return -1;
	}
	return fd;
}

static void
map_files_name(char *buf, size_t len, const char *proc_root, pid_t pid, uint64_t start,
    uint64_t end)
{
	/* The kernel's own spelling: lower-case hex, no leading zeros. */
	snprintf(buf, len, "%s/%d/map_files/%llx-%llx", proc_root, (int)pid,
	    (unsigned long long)start, (unsigned long long)end);
}

/* ------------------------------------------------------------------ */
/* The recorder's side */

/*
 * Send q and receive the answer into mh: its length, or -1 (EIO) when the
 * helper did not answer in time or is gone, and then it is asked nothing
 * more.
 */
static ssize_t
exchange(struct pf_mapfiles *mf, const struct req *q, struct msghdr *mh)
{
	struct pollfd pfd = { .fd = mf->sock, .events = POLLIN };
	ssize_t n;
	int rc;

	if (send(mf->sock, q, sizeof(*q), MSG_NOSIGNAL) != (ssize_t)sizeof(*q))
		goto broken;
	do
		rc = poll(&pfd, 1, PF_MAPFILES_TIMEOUT_MS);
	while (rc == -1 && errno == EINTR);
	if (rc != 1)
		goto broken;
	do
		n = recvmsg(mf->sock, mh, MSG_CMSG_CLOEXEC);
	while (n == -1 && errno == EINTR);
	if (n <= 0)
		goto broken;
	return n;
broken:
	/* A late answer must not be read as the next request's. */
	mf->broken = true;
	errno = EIO;
	return -1;
}

/* Ask the helper for a descriptor; -1 when it refused, or stopped answering. */
static int
ask(struct pf_mapfiles *mf, uint32_t kind, pid_t pid, uint64_t start, uint64_t end)
{
	struct req q = { .pid = (int32_t)pid, .kind = kind, .start = start, .end = end };
	struct rep a;
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &a, sizeof(a) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	ssize_t n;
	int fd = -1;

	mf->asked++;
	if ((n = exchange(mf, &q, &mh)) == -1)
		return -1;
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (n != (ssize_t)sizeof(a) || (mh.msg_flags & MSG_TRUNC) || a.len != 0) {
		/* Not an answer to this request: nothing more is asked. */
		if (fd != -1)
			close(fd);
		mf->broken = true;
		errno = EIO;
		return -1;
	}
	if (a.err != 0 || fd == -1) {
		if (fd != -1)
			close(fd);
		errno = a.err != 0 ? a.err : EPROTO;
		return -1;
	}
	mf->got++;
	return fd;
}

int
pf_mapfile_open(struct pf_mapfiles *mf, const char *proc_root, pid_t pid, uint64_t start,
    uint64_t end, const char *path, uint64_t ino)
{
	char buf[PATH_MAX];
	int fd = -1;

	if (pid > 0 && start < end) {
		if (mf != NULL && !mf->broken)
			fd = ask(mf, REQ_MAPPING, pid, start, end);
		if (fd == -1) {
			map_files_name(buf, sizeof(buf), proc_root, pid, start, end);
			fd = open_regular(buf, 0);
		}
	}
	if (fd == -1 && pid > 0 && path[0] == '/' &&
	    snprintf(buf, sizeof(buf), "%s/%d/root%s", proc_root, (int)pid, path) <
	    (int)sizeof(buf))
		fd = open_regular(buf, ino);
	if (fd == -1 && path[0] == '/')
		fd = open_regular(path, ino);
	if (fd != -1 && fcntl(fd, F_SETFL, 0) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

int
pf_mapfiles_open_jit(struct pf_mapfiles *mf, pid_t pid)
{
	if (mf == NULL || mf->broken || pid <= 0) {
		errno = ENOENT;
		return -1;
	}
	return ask(mf, REQ_JIT, pid, 0, 0);
}

/*
 * Whether an answer of got bytes (header h, received with flags) to a
 * memory request is one: 0 when it brings the want bytes asked (at most
 * room), -1 with its errno when it is a refusal; anything else is no
 * answer to it: nothing more is asked of the helper (EIO).
 */
static int
mem_answer(struct pf_mapfiles *mf, ssize_t got, const struct rep *h, int flags, size_t want,
    size_t room)
{
	if (got < (ssize_t)sizeof(*h) || (flags & (MSG_TRUNC | MSG_CTRUNC)) || h->len > room ||
	    (size_t)got != sizeof(*h) + h->len || (h->err == 0 && h->len != want) ||
	    (h->err != 0 && h->len != 0)) {
		mf->broken = true;
		errno = EIO;
		return -1;
	}
	if (h->err != 0) {
		errno = h->err;
		return -1;
	}
	return 0;
}

int
pf_mapfiles_read(struct pf_mapfiles *mf, pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct req q = { .pid = (int32_t)pid, .kind = REQ_MEM, .start = addr, .end = len };
	struct rep_mem a;
	struct iovec iov = { &a, sizeof(a) };
	/* No room for a descriptor: one sent anyway is closed by the kernel. */
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (mf == NULL || mf->broken) {
		errno = EIO;
		return -1;
	}
	/*
	 * The length is not checked here: the helper's check is the one that
	 * holds against a sampler taken over, and this one copies only what
	 * matches what it asked.
	 */
	if ((n = exchange(mf, &q, &mh)) == -1 ||
	    mem_answer(mf, n, &a.h, mh.msg_flags, len, sizeof(a.data)) == -1)
		return -1;
	memcpy(buf, a.data, len);
	return 0;
}

int
pf_mapfiles_read_pages(struct pf_mapfiles *mf, pid_t pid, const uint64_t *pages, size_t n,
    void *buf, bool *ok)
{
	static struct rep_pages a;
	struct req q = { .pid = (int32_t)pid, .kind = REQ_PAGES, .end = n };
	struct iovec iov = { &a, sizeof(a) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	size_t i, want;
	ssize_t got;

	if (mf == NULL || mf->broken) {
		errno = EIO;
		return -1;
	}
	/* As for one read, the helper checks the count and the addresses. */
	memcpy(q.pages, pages, (n < PF_MAPFILES_PAGES_MAX ? n : PF_MAPFILES_PAGES_MAX) * 8);
	want = sizeof(a.ok) + (n <= PF_MAPFILES_PAGES_MAX ? n : 0) * PF_MAPFILES_READ_MAX;
	if ((got = exchange(mf, &q, &mh)) == -1 ||
	    mem_answer(mf, got, &a.h, mh.msg_flags, want, sizeof(a) - sizeof(a.h)) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		ok[i] = a.ok[i] == 1;
		if (ok[i])
			memcpy((char *)buf + i * PF_MAPFILES_READ_MAX, a.data[i], PF_MAPFILES_READ_MAX);
	}
	return 0;
}

pid_t
pf_mapfiles_pid(const struct pf_mapfiles *mf)
{
	return mf->pid;
}

void
pf_mapfiles_stats(const struct pf_mapfiles *mf, uint64_t *asked, uint64_t *got, bool *broken)
{
	*asked = mf ? mf->asked : 0;
	*got = mf ? mf->got : 0;
	*broken = mf ? mf->broken : false;
}

void
pf_mapfiles_free(struct pf_mapfiles *mf)
{
	int e = errno;

	if (mf == NULL)
		return;
	close(mf->sock);
	/*
	 * It has nothing to finish: killed rather than trusted to exit, so no
	 * helper stuck in an open (or in its runtime) keeps the recorder
	 * waiting here.
	 */
	kill(mf->pid, SIGKILL);
	while (waitpid(mf->pid, NULL, 0) == -1 && errno == EINTR)
		;
	free(mf);
	errno = e;
}

/* ------------------------------------------------------------------ */
/* The helper */

/*
 * A process the helper answers for, by its PID and its start time (in
 * clock ticks since boot): once it has ended, another process given the
 * same PID is not it.
 */
struct kin {
	pid_t pid;
	uint64_t start;
};

#define NO_START UINT64_MAX

struct helper {
	int sock;
	bool any;
	enum pf_mapfiles_mem mem;
	struct kin *kin;	/* the targets, then descendants found */
	size_t nkin, capkin;
};

/*
 * The parent of process pid and its start time, from /proc/PID/stat
 * (fields 4 and 22); -1 when it cannot be read.  The name (the target's
 * to choose, 15 bytes at most) ends at the last ')' of the line; what
 * follows is numbers the kernel writes.
 */
static pid_t
stat_of(pid_t pid, uint64_t *start)
{
	char path[64], buf[1024], *p, *q;
	unsigned long long v;
	long pp;
	ssize_t n;
	int fd, field;

	*start = NO_START;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ' || p[2] == '\0' || p[3] != ' ')
		return -1;
	errno = 0;
	pp = strtol(p + 4, &q, 10);
	if (errno != 0 || q == p + 4 || *q != ' ' || pp < 0 || pp > INT_MAX)
		return -1;
	/* q is at the space before field 5. */
	for (field = 5; field < 22 && q != NULL; field++)
		q = strchr(q + 1, ' ');
	if (q == NULL)
		return -1;
	v = strtoull(q + 1, &p, 10);
	if (errno != 0 || p == q + 1 || (*p != ' ' && *p != '\n' && *p != '\0'))
		return -1;
	*start = (uint64_t)v;
	return (pid_t)pp;
}

/*
 * Whether pid is one of the helper's processes: the same PID and the
 * same start time (a PID reused by another process is not; its entry is
 * forgotten).  *parent gets pid's parent (-1: unreadable).
 */
static bool
is_kin(struct helper *h, pid_t pid, pid_t *parent)
{
	uint64_t start;
	size_t i;

	*parent = stat_of(pid, &start);
	for (i = 0; i < h->nkin; i++) {
		if (h->kin[i].pid != pid)
			continue;
		if (start != NO_START && h->kin[i].start == start)
			return true;
		h->kin[i] = h->kin[--h->nkin];
		return false;
	}
	return false;
}

/*
 * Whether the helper answers for pid, its files or (mem) its memory: a
 * target, or one of its descendants; any process under any, for memory
 * only with PF_MAPFILES_MEM_ALL.
 */
static bool
allowed(struct helper *h, pid_t pid, bool mem)
{
	pid_t p, parent;
	uint64_t start;
	int depth;

	if (mem && h->mem == PF_MAPFILES_MEM_NONE)
		return false;
	if (h->any && (!mem || h->mem == PF_MAPFILES_MEM_ALL))
		return true;
	if (is_kin(h, pid, &parent))
		return true;
	/* -a and memory for the targets only: there are none. */
	if (h->nkin == 0)
		return false;
	for (depth = 0, p = parent; depth < KIN_DEPTH && p > 1; depth++) {
		if (is_kin(h, p, &parent)) {
			/* Kept with its start time as it is now, after the look. */
			if (h->nkin < h->capkin && stat_of(pid, &start) != -1 && start != NO_START)
				h->kin[h->nkin++] = (struct kin){ pid, start };
			return true;
		}
		p = parent;
	}
	return false;
}

static void
answer(int sock, int err, int fd)
{
	struct rep a = { .err = err, .len = 0 };
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &a, sizeof(a) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (fd != -1) {
		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	(void)sendmsg(sock, &mh, MSG_NOSIGNAL);
}

/*
 * The len bytes (from 1 to PF_MAPFILES_READ_MAX: serve checks) at addr in
 * process pid, sent whole, or an errno value: a short read (a range running into
 * an unmapped page) is EFAULT, and nothing of it is sent.
 */
static void
answer_mem(int sock, pid_t pid, uint64_t addr, uint64_t len)
{
	static struct rep_mem a;
	struct iovec local = { a.data, (size_t)len };
	struct iovec remote = { (void *)(uintptr_t)addr, (size_t)len };
	ssize_t n;

	a.h.err = 0;
	a.h.len = 0;
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n == -1)
		a.h.err = errno ? errno : EFAULT;
	else if ((uint64_t)n != len)
		a.h.err = EFAULT;
	else
		a.h.len = (uint32_t)len;
	(void)send(sock, &a, sizeof(a.h) + a.h.len, MSG_NOSIGNAL);
}

/* REQ_PAGES: each page whole or not at all, in one answer. */
static void
answer_pages(int sock, pid_t pid, const uint64_t *pages, size_t n)
{
	static struct rep_pages a;
	size_t i;

	a.h.err = 0;
	a.h.len = (uint32_t)(sizeof(a.ok) + n * PF_MAPFILES_READ_MAX);
	memset(a.ok, 0, sizeof(a.ok));
	for (i = 0; i < n; i++) {
		struct iovec local = { a.data[i], PF_MAPFILES_READ_MAX };
		struct iovec remote = { (void *)(uintptr_t)pages[i], PF_MAPFILES_READ_MAX };

		if (process_vm_readv(pid, &local, 1, &remote, 1, 0) == PF_MAPFILES_READ_MAX)
			a.ok[i] = 1;
		else
			memset(a.data[i], 0, PF_MAPFILES_READ_MAX);
	}
	(void)send(sock, &a, sizeof(a.h) + a.h.len, MSG_NOSIGNAL);
}

/* Whether a REQ_PAGES request's count and addresses are ones to read. */
static bool
pages_valid(const struct req *q)
{
	uint64_t i;

	if (q->end == 0 || q->end > PF_MAPFILES_PAGES_MAX || q->start != 0)
		return false;
	for (i = 0; i < q->end; i++)
		if (q->pages[i] % PF_MAPFILES_READ_MAX != 0)
			return false;
	return true;
}

/*
 * The JIT map process pid writes in its own /tmp under the PID it has in
 * its own namespace (the last of NSpid), through its root: a symbolic
 * link there is refused (ELOOP), as is anything but a regular file.
 */
static int
open_jit(pid_t pid)
{
	char path[96];
	struct pf_status st;
	struct stat sb;
	int fd, ns = (int)pid;

	if (pf_status_read("/proc", (int)pid, 0, &st) == 0 && st.nspid > 0)
		ns = st.nspid;
	snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map", (int)pid, ns);
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return -1;
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		close(fd);
		errno = ENOENT;
		return -1;
	}
	return fd;
}

static void
serve(struct helper *h)
{
	char path[128];
	struct req q;
	ssize_t n;
	int fd;

	for (;;) {
		n = recv(h->sock, &q, sizeof(q), MSG_WAITALL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(q))
			return;
		if (q.pid <= 0 || (q.kind == REQ_MAPPING && q.start >= q.end) ||
		    (q.kind == REQ_JIT && (q.start != 0 || q.end != 0)) ||
		    (q.kind == REQ_MEM && (q.end == 0 || q.end > PF_MAPFILES_READ_MAX)) ||
		    (q.kind == REQ_PAGES && !pages_valid(&q)) || q.kind > REQ_PAGES) {
			answer(h->sock, EINVAL, -1);
			continue;
		}
		if (!allowed(h, (pid_t)q.pid, q.kind == REQ_MEM || q.kind == REQ_PAGES)) {
			answer(h->sock, EPERM, -1);
			continue;
		}
		if (q.kind == REQ_MEM) {
			answer_mem(h->sock, (pid_t)q.pid, q.start, q.end);
			continue;
		}
		if (q.kind == REQ_PAGES) {
			answer_pages(h->sock, (pid_t)q.pid, q.pages, (size_t)q.end);
			continue;
		}
		if (q.kind == REQ_JIT)
			fd = open_jit((pid_t)q.pid);
		else {
			map_files_name(path, sizeof(path), "/proc", (pid_t)q.pid, q.start, q.end);
			fd = open_regular(path, 0);
		}
		if (fd == -1) {
			answer(h->sock, errno ? errno : ENOENT, -1);
			continue;
		}
		answer(h->sock, 0, fd);
		close(fd);
	}
}

/* Every descriptor but keep. */
static void
close_others(int keep)
{
	int fd, max = (int)sysconf(_SC_OPEN_MAX);

#ifdef SYS_close_range
	if ((keep == 0 || syscall(SYS_close_range, 0u, (unsigned)keep - 1, 0u) == 0) &&
	    syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) == 0)
		return;
#endif
	if (max < 0 || max > 1 << 20)
		max = 1 << 20;
	for (fd = 0; fd < max; fd++)
		if (fd != keep)
			(void)close(fd);
}

/* What the helper may call once it serves. */
static const int helper_calls[] = {
	SYS_read, SYS_recvfrom, SYS_recvmsg, SYS_sendmsg, SYS_sendto, SYS_openat,
	SYS_close, SYS_fstat, SYS_newfstatat, SYS_exit, SYS_exit_group, SYS_rt_sigreturn,
	SYS_restart_syscall, SYS_getpid,
	/* Memory reads (REQ_MEM), for the processes allowed() answers for. */
	SYS_process_vm_readv,
#ifdef SYS_open
	SYS_open,
#endif
#ifdef SYS_statx
	SYS_statx,
#endif
	/*
	 * The sanitizer builds' runtime maps memory for its own use and, at
	 * _exit, looks at the signal stack: refused, it spun for good.
	 */
	SYS_mmap, SYS_munmap, SYS_brk, SYS_madvise, SYS_futex, SYS_write, SYS_sigaltstack,
	SYS_rt_sigprocmask,
};

static const int helper_caps[] = {
	PF_CAP_SYS_ADMIN, PF_CAP_CHECKPOINT_RESTORE, PF_CAP_SYS_PTRACE, PF_CAP_DAC_READ_SEARCH,
};

static void __attribute__((noreturn))
helper_main(struct helper *h, pid_t parent, const char *comm)
{
	struct sigaction sa;

	/* The recorder's death ends it, even one killed before it could close its end. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 || getppid() != parent)
		_exit(1);
	(void)prctl(PR_SET_NAME, comm);
	/* A Ctrl-C reaches the whole group: the recorder decides when this ends. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	close_others(h->sock);
	if (pf_keep_privileges(helper_caps, PF_ARRAY_LEN(helper_caps)) == -1 ||
	    pf_confine_seccomp_only(helper_calls, PF_ARRAY_LEN(helper_calls)) == -1)
		_exit(1);
	serve(h);
	/* No exit handlers: they belong to the recorder. */
	_exit(0);
}

struct pf_mapfiles *
pf_mapfiles_start(const pid_t *pids, size_t n, bool any, enum pf_mapfiles_mem mem,
    const char *comm)
{
	struct helper h = { .any = any, .mem = mem };
	struct pf_mapfiles *mf;
	struct pf_caps c;
	pid_t parent = getpid();
	int sv[2];

	if (pf_caps_get(&c) == -1)
		return NULL;
	if (!(c.sys_admin || c.checkpoint_restore)) {
		errno = EPERM;
		return NULL;
	}
	if ((mf = calloc(1, sizeof(*mf))) == NULL)
		return NULL;
	/* Every table is made before the helper's filter forbids making more. */
	h.capkin = n + KIN_MAX;
	if ((h.kin = calloc(h.capkin, sizeof(*h.kin))) == NULL) {
		free(mf);
		return NULL;
	}
	for (h.nkin = 0; h.nkin < n; h.nkin++) {
		h.kin[h.nkin].pid = pids[h.nkin];
		(void)stat_of(pids[h.nkin], &h.kin[h.nkin].start);
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		goto fail;
	fflush(NULL);
	switch ((mf->pid = fork())) {
	case -1:
		close(sv[0]);
		close(sv[1]);
		goto fail;
	case 0:
		h.sock = sv[1];
		helper_main(&h, parent, comm);
	default:
		break;
	}
	close(sv[1]);
	free(h.kin);
	mf->sock = sv[0];
	return mf;
fail:
	free(h.kin);
	free(mf);
	return NULL;
}
