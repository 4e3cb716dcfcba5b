/*
 * target: what a recorder watches (-p PID[,PID...] or -- CMD), shared by
 * pf-record and pf-offcpu: the pid list or the held child (spawn.h),
 * every thread of a process opened in a perf set, and whether the targets
 * are gone.
 */
#ifndef PF_TARGET_H
#define PF_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "perfring.h"

#define PF_TARGET_MAX_PIDS 64

struct pf_target {
	pid_t pids[PF_TARGET_MAX_PIDS];
	size_t npids;
	pid_t child;		/* -- CMD, 0 when none or reaped */
	int go_fd, err_fd;	/* release pipe, exec-error pipe */
};

/*
 * pid's state letter from /proc/PID/stat ('R', 'S', 'Z' for a zombie...),
 * or 0 when it cannot be read (gone).
 */
char pf_pid_state(pid_t pid);

/* Whether pid still runs: not gone, not a zombie waiting to be reaped. */
bool pf_pid_alive(pid_t pid);

/* Whether the child exited (it is reaped) or every pid is gone. */
bool pf_target_gone(struct pf_target *t);

/*
 * Open the events of every thread of pid in p, re-reading the task list
 * until no new thread appears.  -1 with errno: ESRCH when pid does not
 * exist, else pf_perf_open_task's.
 */
int pf_target_open_process(struct pf_perf *p, pid_t pid);

/*
 * Open the events on what t names: every CPU (all), the held child, or
 * each pid's threads.  0, or -1 with errno and *failed set to the pid
 * whose events were refused (-1 for system-wide); a refused child has been
 * abandoned.
 */
int pf_target_attach(struct pf_target *t, bool all, struct pf_perf *perf, pid_t *failed);

#endif
