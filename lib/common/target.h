/*
 * target: what a recorder watches (-p PID[,PID...] or -- CMD), shared by
 * pf-record and pf-offcpu: the pid list, a child held before exec until
 * the events are open, every thread of a process opened in a perf set,
 * and whether the targets are gone.
 */
#ifndef PF_TARGET_H
#define PF_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "perfring.h"
#include "rawrec.h"
#include "symbolize.h"

#define PF_TARGET_MAX_PIDS 64

struct pf_target {
	pid_t pids[PF_TARGET_MAX_PIDS];
	size_t npids;
	pid_t child;		/* -- CMD, 0 when none or reaped */
	int go_fd, err_fd;	/* release pipe, exec-error pipe */
};

/*
 * Parse "PID[,PID...]" into t.  -1 with errno EINVAL (*bad points to a
 * static copy of the bad token, or is NULL for an empty list) or E2BIG
 * (more than PF_TARGET_MAX_PIDS).
 */
int pf_target_parse_pids(struct pf_target *t, const char *s, const char **bad);

/* Whether pid still runs: not gone, not a zombie waiting to be reaped. */
bool pf_pid_alive(pid_t pid);

/*
 * Fork cmd, held before exec until pf_target_start.  -1 with errno from
 * pipe or fork.
 */
int pf_target_spawn(struct pf_target *t, char **cmd);

/*
 * Let the child exec.  -1 with errno: the exec's own error (the child
 * is reaped), or the write's.
 */
int pf_target_start(struct pf_target *t);

/*
 * Close the release pipe without starting the child and reap it (the
 * events could not be opened).
 */
void pf_target_abandon(struct pf_target *t);

/* Whether the child exited (it is reaped) or every pid is gone. */
bool pf_target_gone(struct pf_target *t);

/* SIGTERM the child, SIGKILL after a second, reap it.  No child: no-op. */
void pf_target_kill(struct pf_target *t);

/*
 * Open the events of every thread of pid in p, re-reading the task list
 * until no new thread appears.  -1 with errno: ESRCH when pid does not
 * exist, else pf_perf_open_task's.
 */
int pf_target_open_process(struct pf_perf *p, pid_t pid);

/*
 * Open the events on what t names: every CPU (all), the held child, or
 * each pid's threads; then read the pids' mappings into sym and their
 * thread names into comms, after the events, so a mapping made in between
 * is in both, not neither.  0, or -1 with errno and *failed set to the pid
 * whose events were refused (-1 for system-wide); a refused child has been
 * abandoned.
 */
int pf_target_attach(struct pf_target *t, bool all, struct pf_perf *perf,
    struct pf_symbolizer *sym, struct pf_comms *comms, pid_t *failed);

#endif
