/*
 * confine: what a recorder may still do once its privileged setup is
 * done.  Dropping capabilities leaves a recorder started by root running
 * as uid 0, which still owns /etc/shadow and may exec, connect and
 * ptrace.  After setup a recorder only drains rings, reads /proc, /sys
 * and the objects its targets map, and writes to descriptors it already
 * holds; these two layers take the rest away:
 *
 *  - seccomp: a filter that fails with EPERM the system calls a recorder
 *    never makes after setup (exec, fork, sockets, ptrace, mounts,
 *    namespaces, modules, keys, bpf, clock setting...);
 *  - Landlock (Linux 5.13+): files may be opened for reading only beneath
 *    an allow-list of directories, and nothing may be created, written,
 *    removed or executed through a path.
 *
 * Both are inherited by every thread and cannot be lifted.
 */
#ifndef PF_CONFINE_H
#define PF_CONFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Install the seccomp filter.  no_new_privs must be set already
 * (pf_drop_privileges does).  allow_ptrace keeps ptrace(2), which
 * LeakSanitizer needs to stop the process's threads at exit: sanitizer
 * builds pass true.  0, or -1 with errno (EINVAL where the kernel has no
 * seccomp filter mode, EACCES without no_new_privs).
 */
int pf_confine_seccomp(bool allow_ptrace);

/*
 * An allow-list filter instead: every system call but the nallowed
 * numbers allowed (at most 64) fails with EPERM, as does a foreign ABI.
 * For a process that does one thing (a recorder's file helper).  0, or
 * -1 with errno.
 */
int pf_confine_seccomp_only(const int *allowed, size_t nallowed);

/*
 * Restrict this process with Landlock so that files may only be opened
 * for reading, and only beneath the n paths given (directories or files;
 * one that does not exist is skipped).  *abi gets the Landlock ABI
 * version used.  0, or -1 with errno: EOPNOTSUPP when the kernel has
 * Landlock but it is disabled, ENOSYS when it has none (the caller goes
 * on unconfined by Landlock and says so), or the error of a rule.
 */
int pf_confine_landlock(const char *const *paths, size_t n, int *abi);

/*
 * The directories every recorder may read after setup: /proc, /sys, the
 * system's object and debug-info trees and the directories of JIT maps
 * (/tmp).  A NULL-terminated static array.
 */
const char *const *pf_confine_std_paths(void);

/*
 * The allow-list a recorder builds just before it confines itself.
 * Beside pf_confine_std_paths it holds the directories of the objects the
 * targets map (a library loaded later usually sits beside its siblings,
 * debug files in .debug beneath), the command's directory, and the roots
 * of targets in another filesystem root (a container).  "/" and /etc are
 * never allowed whole: a file there is allowed alone.  Adding never
 * fails on its own; running out of memory is reported by apply.
 */
struct pf_confine_allow;

/* An empty list, or NULL with ENOMEM. */
struct pf_confine_allow *pf_confine_allow_new(void);

/* file's directory (absolute, canonical paths only). */
void pf_confine_allow_dir_of(struct pf_confine_allow *a, const char *file);

/*
 * A target's mapped file (a pf_sym_foreach_file callback, arg the list):
 * allowed only where path names here the same file (device and inode) as
 * in the maps, so a process in another root, or one whose file was
 * replaced, cannot choose which of our directories become readable.
 */
void pf_confine_allow_mapped(const char *path, uint32_t maj, uint32_t min, uint64_t ino,
    void *arg);

/* The directory execvp(file) would run file from.  -1 when it finds none. */
int pf_confine_allow_command(struct pf_confine_allow *a, const char *file);

/* /proc/PID/root, when pid lives in another root than ours. */
void pf_confine_allow_root_of(struct pf_confine_allow *a, pid_t pid);

/* The same for every process (a system-wide recording). */
void pf_confine_allow_all_roots(struct pf_confine_allow *a);

/*
 * pf_confine_landlock over the standard paths and the list; *npaths gets
 * how many were given.  0, or -1 with errno (ENOMEM when the list could
 * not be kept whole, else pf_confine_landlock's).
 */
int pf_confine_allow_apply(struct pf_confine_allow *a, int *abi, size_t *npaths);

/* NULL is a no-op. */
void pf_confine_allow_free(struct pf_confine_allow *a);

#endif
