/*
 * privs: what this caller may do with perf events and kernel symbols, and
 * dropping privileges.  Shared by pf-precheck (which explains the answers)
 * and pf-record / pf-offcpu (which act on them), so the two can never
 * disagree.  The settings the rules take (perf_event_paranoid,
 * kptr_restrict) are read with sysctl.h.
 */
#ifndef PF_PRIVS_H
#define PF_PRIVS_H

#include <stdbool.h>
#include <stddef.h>

/* The effective capabilities pf cares about. */
struct pf_caps {
	bool perfmon;		/* CAP_PERFMON (5.8+) */
	bool sys_admin;		/* CAP_SYS_ADMIN: also grants perf before 5.8 */
	bool syslog;		/* CAP_SYSLOG: kallsyms addresses */
	bool sys_ptrace;	/* CAP_SYS_PTRACE: other users' processes */
	bool ipc_lock;		/* CAP_IPC_LOCK: ring buffers beyond memlock */
	bool checkpoint_restore; /* CAP_CHECKPOINT_RESTORE: /proc/PID/map_files */
};

/* Fill *c from this process's effective set (libcap).  -1 with errno. */
int pf_caps_get(struct pf_caps *c);

/* perf privilege: CAP_PERFMON or CAP_SYS_ADMIN. */
bool pf_caps_perf(const struct pf_caps *c);

/*
 * The kernel's rules (Documentation/admin-guide/perf-security.rst), for a
 * caller with caps c under perf_event_paranoid p.  Values 3 and above are
 * distribution patches (Debian, Ubuntu) that refuse every unprivileged
 * perf_event_open.
 */
bool pf_may_sample_user(long paranoid, const struct pf_caps *c);	/* own processes, user stacks */
bool pf_may_sample_kernel(long paranoid, const struct pf_caps *c);	/* kernel stacks, sw context-switch samples */
bool pf_may_sample_cpu(long paranoid, const struct pf_caps *c);	/* system-wide (-a) */

/*
 * Whether /proc/kallsyms shows real addresses to this caller
 * (kernel/kallsyms.c kallsyms_show_value): kptr_restrict 0 with
 * paranoid <= 1, or kptr_restrict <= 1 with CAP_SYSLOG; never at 2.
 */
bool pf_kallsyms_visible(long kptr_restrict, long paranoid, const struct pf_caps *c);

/*
 * Drop every capability (effective, permitted, inheritable, and the
 * bounding set where permitted) and set no_new_privs, so nothing this
 * process does afterwards runs with privilege.  0, or -1 with errno.
 */
int pf_drop_privileges(void);

/* The capabilities a recorder's file helper keeps (mapfile.h), by number. */
#define PF_CAP_DAC_READ_SEARCH		2
#define PF_CAP_SYS_PTRACE		19
#define PF_CAP_SYS_ADMIN		21
#define PF_CAP_CHECKPOINT_RESTORE	40

/*
 * Keep only the n capabilities caps (those of them this process holds)
 * in its effective and permitted sets, drop every other from the bounding
 * set, clear the inheritable set and set no_new_privs.  0, or -1 with
 * errno.
 */
int pf_keep_privileges(const int *caps, size_t n);

#endif
