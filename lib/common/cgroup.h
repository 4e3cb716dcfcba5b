/*
 * cgroup: where a task's CPU controller lives (cgroup v2, or the v1 "cpu"
 * hierarchy on legacy and hybrid systems) and its throttling counters
 * and quota.  Mount points are looked for at their conventional places
 * under the sys root (<sys>/fs/cgroup for pure v2, <sys>/fs/cgroup/unified
 * for the hybrid v2 tree, <sys>/fs/cgroup/cpu or cpu,cpuacct for v1), so
 * fixture trees need no mountinfo.
 */
#ifndef PF_CGROUP_H
#define PF_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct pf_cgroup {
	int cpu_version;	/* 2 or 1: which tree cpu_dir is in; 0 none found */
	char cpu_dir[PATH_MAX];	/* the task's cgroup directory holding cpu.stat */
	char v2_dir[PATH_MAX];	/* its v2 directory ("" without v2): *.pressure */
	char path[PATH_MAX];	/* the cgroup path of cpu_dir as /proc/PID/cgroup says */
	bool nested;		/* path is not "/": a container or a service slice */
};

/*
 * Find the cgroups of pid (0: the caller) from <proc_root>/<pid>/cgroup.
 * 0 (cpu_version 0 when no controller could be located), or -1 with
 * errno when the cgroup file cannot be read.
 */
int pf_cgroup_find(const char *proc_root, const char *sys_root, int pid,
    struct pf_cgroup *cg);

struct pf_cgroup_cpu {
	bool have_throttle;	/* nr_periods/nr_throttled/throttled time present */
	uint64_t nr_periods, nr_throttled;
	uint64_t throttled_us;	/* v1 throttled_time (ns) converted */
	double quota_cpus;	/* tightest quota/period of the group and its ancestors; < 0 unlimited */
};

/* Read cpu.stat and the quota of cg.  0, or -1 with errno. */
int pf_cgroup_cpu_read(const struct pf_cgroup *cg, struct pf_cgroup_cpu *c);

/*
 * --cgroup ARG: the cgroup directory of a recording's target, opened
 * read-only (the descriptor perf_event_open takes with
 * PERF_FLAG_PID_CGROUP), its path in dir.  ARG is a path in the cgroup
 * v2 tree (<sys>/fs/cgroup, or <sys>/fs/cgroup/unified on a hybrid host)
 * or in a v1 perf_event hierarchy, given whole (/sys/fs/cgroup/...) or
 * from the tree's root ("system.slice/nginx.service", as /proc/PID/cgroup
 * writes it).  A ".." component is refused (EINVAL); none found, or not
 * a cgroup, is ENOENT.  The descriptor, or -1 with errno.
 */
int pf_cgroup_open_target(const char *sys_root, const char *arg, char *dir, size_t len);

/* Levels of child cgroups pf_cgroup_procs descends. */
#define PF_CGROUP_DEPTH	8

/*
 * The processes of the cgroup open at dirfd and of its children (as
 * perf's cgroup events count them), at most max, into pids.  The count.
 */
size_t pf_cgroup_procs(int dirfd, pid_t *pids, size_t max);

#endif
