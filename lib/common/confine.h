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

/*
 * Install the seccomp filter.  no_new_privs must be set already
 * (pf_drop_privileges does).  allow_ptrace keeps ptrace(2), which
 * LeakSanitizer needs to stop the process's threads at exit: sanitizer
 * builds pass true.  0, or -1 with errno (EINVAL where the kernel has no
 * seccomp filter mode, EACCES without no_new_privs).
 */
int pf_confine_seccomp(bool allow_ptrace);

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

#endif
