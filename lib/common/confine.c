/*
 * confine: a seccomp deny-list and a read-only Landlock allow-list for a
 * recorder after its setup.  See confine.h for what each layer is for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "confine.h"
#include "pf.h"

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

int
pf_confine_seccomp(bool allow_ptrace)
{
#ifdef PF_AUDIT_ARCH
	/* arch check, x32 check, one compare per denied call, two returns */
	struct sock_filter f[6 + PF_ARRAY_LEN(denied) + 1 + 2];
	struct sock_fprog prog;
	size_t n = 0, i, ndeny = PF_ARRAY_LEN(denied);

	/*
	 * A foreign ABI (i386 int 0x80 from a 64-bit process, x32) numbers
	 * its calls differently, so the list below would not hold: refuse it
	 * whole.  Then each denied call jumps to the final EPERM.
	 */
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
