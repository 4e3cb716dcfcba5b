/*
 * confine: a seccomp deny-list and a read-only Landlock allow-list for a
 * recorder after its setup.  See confine.h for what each layer is for.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "confine.h"
#include "grow.h"
#include "pf.h"
#include "spawn.h"
#include "parse.h"

/* ------------------------------------------------------------------ */
/* seccomp */

#if defined(__x86_64__)
#define PF_AUDIT_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define PF_AUDIT_ARCH	AUDIT_ARCH_AARCH64
#endif

/*
 * What a recorder never calls after setup.  A name the libc headers of
 * this architecture lack (fork on arm64, say) simply is not listed.
 */
static const int denied[] = {
#ifdef SYS_execve
	SYS_execve,
#endif
#ifdef SYS_execveat
	SYS_execveat,
#endif
#ifdef SYS_fork
	SYS_fork,
#endif
#ifdef SYS_vfork
	SYS_vfork,
#endif
#ifdef SYS_socket
	SYS_socket,
#endif
#ifdef SYS_socketpair
	SYS_socketpair,
#endif
#ifdef SYS_connect
	SYS_connect,
#endif
#ifdef SYS_bind
	SYS_bind,
#endif
#ifdef SYS_listen
	SYS_listen,
#endif
#ifdef SYS_accept
	SYS_accept,
#endif
#ifdef SYS_accept4
	SYS_accept4,
#endif
#ifdef SYS_process_vm_readv
	SYS_process_vm_readv,
#endif
#ifdef SYS_process_vm_writev
	SYS_process_vm_writev,
#endif
#ifdef SYS_pidfd_getfd
	SYS_pidfd_getfd,
#endif
#ifdef SYS_kcmp
	SYS_kcmp,
#endif
#ifdef SYS_mount
	SYS_mount,
#endif
#ifdef SYS_umount2
	SYS_umount2,
#endif
#ifdef SYS_pivot_root
	SYS_pivot_root,
#endif
#ifdef SYS_chroot
	SYS_chroot,
#endif
#ifdef SYS_open_tree
	SYS_open_tree,
#endif
#ifdef SYS_move_mount
	SYS_move_mount,
#endif
#ifdef SYS_fsopen
	SYS_fsopen,
#endif
#ifdef SYS_fsconfig
	SYS_fsconfig,
#endif
#ifdef SYS_fsmount
	SYS_fsmount,
#endif
#ifdef SYS_fspick
	SYS_fspick,
#endif
#ifdef SYS_mount_setattr
	SYS_mount_setattr,
#endif
#ifdef SYS_setns
	SYS_setns,
#endif
#ifdef SYS_unshare
	SYS_unshare,
#endif
#ifdef SYS_open_by_handle_at
	SYS_open_by_handle_at,
#endif
#ifdef SYS_name_to_handle_at
	SYS_name_to_handle_at,
#endif
#ifdef SYS_init_module
	SYS_init_module,
#endif
#ifdef SYS_finit_module
	SYS_finit_module,
#endif
#ifdef SYS_delete_module
	SYS_delete_module,
#endif
#ifdef SYS_kexec_load
	SYS_kexec_load,
#endif
#ifdef SYS_kexec_file_load
	SYS_kexec_file_load,
#endif
#ifdef SYS_bpf
	SYS_bpf,
#endif
#ifdef SYS_keyctl
	SYS_keyctl,
#endif
#ifdef SYS_add_key
	SYS_add_key,
#endif
#ifdef SYS_request_key
	SYS_request_key,
#endif
#ifdef SYS_userfaultfd
	SYS_userfaultfd,
#endif
#ifdef SYS_swapon
	SYS_swapon,
#endif
#ifdef SYS_swapoff
	SYS_swapoff,
#endif
#ifdef SYS_reboot
	SYS_reboot,
#endif
#ifdef SYS_acct
	SYS_acct,
#endif
#ifdef SYS_quotactl
	SYS_quotactl,
#endif
#ifdef SYS_iopl
	SYS_iopl,
#endif
#ifdef SYS_ioperm
	SYS_ioperm,
#endif
#ifdef SYS_settimeofday
	SYS_settimeofday,
#endif
#ifdef SYS_clock_settime
	SYS_clock_settime,
#endif
#ifdef SYS_clock_adjtime
	SYS_clock_adjtime,
#endif
#ifdef SYS_adjtimex
	SYS_adjtimex,
#endif
#ifdef SYS_sethostname
	SYS_sethostname,
#endif
#ifdef SYS_setdomainname
	SYS_setdomainname,
#endif
};

#define DENY_ERRNO	(SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))

#ifdef PF_AUDIT_ARCH
/*
 * The start of both filters, at f (six instructions at most): a foreign
 * ABI (i386 int 0x80 from a 64-bit process, x32) numbers its calls
 * differently, so no list of numbers would hold: it is refused whole.
 * Then the call's number is loaded.  The count written.
 */
static size_t
prologue(struct sock_filter *f)
{
	size_t n = 0;

	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PF_AUDIT_ARCH, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, DENY_ERRNO);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, DENY_ERRNO);
#endif
	return n;
}
#endif

int
pf_confine_seccomp(bool allow_ptrace)
{
#ifdef PF_AUDIT_ARCH
	/* arch check, x32 check, one compare per denied call, two returns */
	struct sock_filter f[6 + PF_ARRAY_LEN(denied) + 1 + 2];
	struct sock_fprog prog;
	size_t n, i, ndeny = PF_ARRAY_LEN(denied);

	/* Each denied call jumps to the final EPERM. */
	n = prologue(f);
	/* The ptrace compare, when kept, sits just before the returns. */
	for (i = 0; i < ndeny; i++) {
		size_t left = ndeny - i - 1 + (allow_ptrace ? 0 : 1);

		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		    (uint32_t)denied[i], (uint8_t)(left + 1), 0);
	}
	if (!allow_ptrace)
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		    (uint32_t)SYS_ptrace, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, DENY_ERRNO);

	prog.len = (unsigned short)n;
	prog.filter = f;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) == -1 ? -1 : 0;
#else
	(void)allow_ptrace;
	errno = ENOSYS;
	return -1;
#endif
}

int
pf_confine_seccomp_only(const int *allowed, size_t nallowed)
{
#ifdef PF_AUDIT_ARCH
	struct sock_filter f[6 + 64 + 2];
	struct sock_fprog prog;
	size_t n, i;

	if (nallowed > 64) {
		errno = EINVAL;
		return -1;
	}
	n = prologue(f);
	/* Each allowed call jumps to the ALLOW after the final EPERM. */
	for (i = 0; i < nallowed; i++)
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		    (uint32_t)allowed[i], (uint8_t)(nallowed - i), 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, DENY_ERRNO);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);

	prog.len = (unsigned short)n;
	prog.filter = f;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) == -1 ? -1 : 0;
#else
	(void)allowed;
	(void)nallowed;
	errno = ENOSYS;
	return -1;
#endif
}

/* ------------------------------------------------------------------ */
/* Landlock: the uapi as of ABI 1-5, defined here because older libc
 * headers (Debian 12's stop at ABI 2) lack parts of it. */

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

#define LL_CREATE_RULESET_VERSION	(1U << 0)
#define LL_RULE_PATH_BENEATH		1

#define LL_FS_EXECUTE		(1ULL << 0)
#define LL_FS_READ_FILE		(1ULL << 2)
#define LL_FS_READ_DIR		(1ULL << 3)
#define LL_FS_ABI1		((1ULL << 13) - 1)	/* EXECUTE .. MAKE_SYM */
#define LL_FS_REFER		(1ULL << 13)		/* ABI 2 */
#define LL_FS_TRUNCATE		(1ULL << 14)		/* ABI 3 */
#define LL_FS_IOCTL_DEV		(1ULL << 15)		/* ABI 5 */

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

static const char *const std_paths[] = {
	"/proc", "/sys",
	"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/opt",
	"/tmp",			/* /tmp/perf-PID.map */
	NULL
};

const char *const *
pf_confine_std_paths(void)
{
	return std_paths;
}

/* Every filesystem right this ABI knows: all are refused unless allowed. */
static uint64_t
handled_for(int abi)
{
	uint64_t h = LL_FS_ABI1;

	if (abi >= 2)
		h |= LL_FS_REFER;
	if (abi >= 3)
		h |= LL_FS_TRUNCATE;
	if (abi >= 5)
		h |= LL_FS_IOCTL_DEV;
	return h;
}

static int
add_path(int ruleset, const char *path)
{
	struct ll_path_beneath_attr pb;
	struct stat st;
	int fd, e;

	if ((fd = open(path, O_PATH | O_CLOEXEC)) == -1)
		return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -1;
	if (fstat(fd, &st) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	/* Directory rights on a file are EINVAL. */
	pb.allowed_access = S_ISDIR(st.st_mode) ? LL_FS_READ_FILE | LL_FS_READ_DIR :
	    LL_FS_READ_FILE;
	pb.parent_fd = fd;
	if (syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	return 0;
}

int
pf_confine_landlock(const char *const *paths, size_t n, int *abi)
{
	struct ll_ruleset_attr ra;
	long v;
	int rs, e;
	size_t i;

	*abi = 0;
#ifdef PF_COVERAGE
	/*
	 * The coverage build (make COVERAGE=1, never installed) writes its
	 * .gcda files at exit: it runs as on a kernel without Landlock.
	 */
	(void)paths, (void)n, (void)v, (void)rs, (void)e, (void)i, (void)ra;
	errno = ENOSYS;
	return -1;
#endif
	v = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	if (v < 1)
		return -1;	/* ENOSYS: no Landlock; EOPNOTSUPP: disabled at boot */
	ra.handled_access_fs = handled_for((int)v);
	if ((rs = (int)syscall(SYS_landlock_create_ruleset, &ra, sizeof(ra), 0)) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (paths[i] != NULL && add_path(rs, paths[i]) == -1)
			goto fail;
	if (syscall(SYS_landlock_restrict_self, rs, 0) == -1)
		goto fail;
	close(rs);
	*abi = (int)v;
	return 0;
fail:
	e = errno;
	close(rs);
	errno = e;
	return -1;
}

/* ------------------------------------------------------------------ */
/* The allow-list (see confine.h). */

struct pf_confine_allow {
	char **v;
	size_t n, cap;
	struct { dev_t dev; ino_t ino; } roots[64];
	size_t nroots;
	bool nomem;
};

static void
allow_add(struct pf_confine_allow *a, const char *path)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (strcmp(a->v[i], path) == 0)
			return;
	if (pf_grow(&a->v, &a->cap, a->n + 1, sizeof(*a->v)) == -1) {
		a->nomem = true;
		return;
	}
	if ((a->v[a->n] = strdup(path)) == NULL)
		a->nomem = true;
	else
		a->n++;
}

static bool
beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* file's directory, or file alone in "/" and beneath /etc; canonical paths only. */
void
pf_confine_allow_dir_of(struct pf_confine_allow *a, const char *file)
{
	const char *const *std = pf_confine_std_paths();
	const char *slash = strrchr(file, '/');
	char dir[PATH_MAX];
	size_t i, n;

	if (file[0] != '/' || slash == NULL)
		return;
	for (i = 0; std[i] != NULL; i++)
		if (beneath(file, std[i]))
			return;
	n = (size_t)(slash - file);
	if (n == 0 || beneath(file, "/etc")) {
		allow_add(a, file);
		return;
	}
	memcpy(dir, file, n);
	dir[n] = '\0';
	allow_add(a, dir);
}

/*
 * A mapped file counts only where its path names the same file here: a
 * process in another root (or one that mapped a file since replaced)
 * must not choose which of our directories become readable.
 */
void
pf_confine_allow_mapped(const char *path, uint32_t maj, uint32_t min, uint64_t ino,
    void *arg)
{
	struct stat st;

	if (ino == 0 || stat(path, &st) == -1 || !S_ISREG(st.st_mode) || st.st_ino != ino ||
	    major(st.st_dev) != maj || minor(st.st_dev) != min)
		return;
	pf_confine_allow_dir_of(arg, path);
}

/* /proc/PID/root, when it is another root than ours and not listed yet. */
static void
root_of(struct pf_confine_allow *a, const struct stat *ours, pid_t pid)
{
	char path[64];
	struct stat st;
	size_t i;

	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	if (stat(path, &st) == -1 || (st.st_dev == ours->st_dev && st.st_ino == ours->st_ino))
		return;
	for (i = 0; i < a->nroots; i++)
		if (a->roots[i].dev == st.st_dev && a->roots[i].ino == st.st_ino)
			return;
	if (a->nroots < PF_ARRAY_LEN(a->roots)) {
		a->roots[a->nroots].dev = st.st_dev;
		a->roots[a->nroots++].ino = st.st_ino;
	}
	allow_add(a, path);
}

void
pf_confine_allow_root_of(struct pf_confine_allow *a, pid_t pid)
{
	struct stat ours;

	if (stat("/", &ours) == 0)
		root_of(a, &ours, pid);
}

void
pf_confine_allow_all_roots(struct pf_confine_allow *a)
{
	struct stat ours;
	struct dirent *d;
	DIR *dir;

	if (stat("/", &ours) == -1 || (dir = opendir("/proc")) == NULL)
		return;
	while ((d = readdir(dir)) != NULL) {
		uint64_t pid;

		if (pf_parse_u64(d->d_name, 1, INT_MAX, &pid) == 0)
			root_of(a, &ours, (pid_t)pid);
	}
	closedir(dir);
}

int
pf_confine_allow_command(struct pf_confine_allow *a, const char *file)
{
	char exe[PATH_MAX];

	if (pf_spawn_path(file, exe) == -1)
		return -1;
	pf_confine_allow_dir_of(a, exe);
	return 0;
}

struct pf_confine_allow *
pf_confine_allow_new(void)
{
	return calloc(1, sizeof(struct pf_confine_allow));
}

int
pf_confine_allow_apply(struct pf_confine_allow *a, int *abi, size_t *npaths)
{
	const char *const *std = pf_confine_std_paths();
	const char **list;
	size_t nstd = 0, i;
	int rc, e;

	*abi = 0;
	*npaths = 0;
	while (std[nstd] != NULL)
		nstd++;
	if (a->nomem || (list = calloc(nstd + a->n, sizeof(*list))) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < nstd; i++)
		list[i] = std[i];
	for (i = 0; i < a->n; i++)
		list[nstd + i] = a->v[i];
	*npaths = nstd + a->n;
	rc = pf_confine_landlock(list, nstd + a->n, abi);
	e = errno;
	free(list);
	errno = e;
	return rc;
}

void
pf_confine_allow_free(struct pf_confine_allow *a)
{
	size_t i;

	if (a == NULL)
		return;
	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	free(a);
}
