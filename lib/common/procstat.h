/*
 * procstat: readers for the /proc files pf-classify and pf-precheck sample:
 * /proc/stat, /proc/vmstat, /proc/PID/{stat,schedstat,status,io} and the
 * task (thread) list.  Every path is built from a proc root ("/proc" on a
 * live system, a fixture tree in tests).  Each file is read with one
 * read(2) into a bounded buffer so a sample is as close to atomic as the
 * kernel allows, and nothing here allocates per line.
 */
#ifndef PF_PROCSTAT_H
#define PF_PROCSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One "cpu" line of /proc/stat, in USER_HZ ticks; missing fields are 0. */
struct pf_cpu_ticks {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal,
	    guest, guest_nice;
};

#define PF_MAX_CPUS 1024

/* The parts of /proc/stat that pf uses. */
struct pf_sysstat {
	struct pf_cpu_ticks all;
	int ncpu;			/* online CPUs: the cpuN lines present */
	int cpu_id[PF_MAX_CPUS];	/* N of each cpuN line, in file order */
	struct pf_cpu_ticks cpu[PF_MAX_CPUS];
	uint64_t ctxt, intr, procs_running, procs_blocked;
};

/*
 * Read <proc_root>/stat into *s (which is large: allocate it).  0, or -1
 * with errno (open/read errors, EINVAL when there is no "cpu " line).
 */
int pf_sysstat_read(const char *proc_root, struct pf_sysstat *s);

/*
 * Read the values of the named keys of a "key value" file such as
 * /proc/vmstat or a cgroup cpu.stat: vals[i] gets the value of keys[i];
 * found[i] says whether it was present.  0, or -1 with errno.
 */
int pf_keyvals_read(const char *path, const char *const *keys, size_t n,
    uint64_t *vals, bool *found);

/* /proc/PID/stat or /proc/PID/task/TID/stat (proc(5) field numbers). */
struct pf_taskstat {
	int pid;			/* 1 */
	char comm[64];			/* 2, without the parentheses */
	char state;			/* 3 */
	uint64_t minflt, majflt;	/* 10, 12 */
	uint64_t utime, stime;		/* 14, 15: ticks */
	long num_threads;		/* 20 */
	uint64_t starttime;		/* 22: ticks since boot, the identity */
	int processor;			/* 39 */
	uint64_t blkio_ticks;		/* 42: delay accounting, 0 when off */
	uint64_t guest_time;		/* 43 */
};

/*
 * Parse the text of a stat file (comm may hold spaces and parentheses:
 * the last ')' ends it).  0, or -1 with EINVAL.
 */
int pf_taskstat_parse(const char *text, struct pf_taskstat *t);

/* "run_ns wait_ns slices" of a schedstat file. */
struct pf_schedstat {
	uint64_t run_ns, wait_ns, slices;
};

int pf_schedstat_parse(const char *text, struct pf_schedstat *s);

/* What pf uses from a status file. */
struct pf_status {
	bool have_ctxt;			/* the *_ctxt_switches lines exist */
	uint64_t vcs, nvcs;		/* voluntary / nonvoluntary switches */
	int cpus_allowed;		/* CPUs in Cpus_allowed_list, 0 if absent */
	int nspid;			/* innermost NSpid, 0 if absent */
	int nspid_levels;		/* PID namespaces the task is seen in */
	long uid;			/* real uid, -1 if absent */
};

int pf_status_parse(const char *text, struct pf_status *s);

/* /proc/PID/io (bytes). */
struct pf_io {
	uint64_t rchar, wchar, read_bytes, write_bytes, cancelled_write_bytes;
};

int pf_io_parse(const char *text, struct pf_io *io);

/*
 * Read <proc_root>/<pid>[/task/<tid>]/<name> (tid 0: the process file)
 * into buf (NUL-terminated, at most cap-1 bytes, one read).  Returns the
 * length, or -1 with errno (ENOENT/ESRCH when the task is gone).
 */
long pf_proc_read(const char *proc_root, int pid, int tid, const char *name,
    char *buf, size_t cap);

/*
 * Open <tid>/<name> below dirfd, an open <proc_root>/<pid>/task: two
 * path components to walk instead of five, for the per-thread files a
 * snapshot reads.  The descriptor (O_CLOEXEC), or -1 with errno.
 */
int pf_proc_openat(int dirfd, int tid, const char *name);

/*
 * Read an open /proc file again from its start into buf (NUL-terminated,
 * at most cap-1 bytes, one pread(2)).  A /proc file regenerates its text
 * at offset 0, so a descriptor kept open saves the open and close of a
 * re-read, and it stays bound to the task it was opened on: once that
 * task has exited the read fails with ESRCH even if its tid was reused.
 * The length, or -1 with errno.
 */
long pf_proc_pread(int fd, char *buf, size_t cap);

/* pf_proc_read then the matching parser.  -1 with errno on either. */
int pf_taskstat_read(const char *proc_root, int pid, int tid, struct pf_taskstat *t);
int pf_schedstat_read(const char *proc_root, int pid, int tid, struct pf_schedstat *s);
int pf_status_read(const char *proc_root, int pid, int tid, struct pf_status *s);
int pf_io_read(const char *proc_root, int pid, struct pf_io *io);

/*
 * The thread ids of process pid (tid 0 lists the numeric entries of the
 * proc root itself: every process), ascending, at most max of them, into
 * *out (malloc'd, the caller frees).  *truncated says whether more
 * existed.  Returns the count, or -1 with errno.
 */
long pf_tasks_list(const char *proc_root, int pid, size_t max, int **out,
    bool *truncated);

/*
 * The context switches a second (voluntary and not) of every thread of
 * the n processes pids, over ms milliseconds (slept here), from their
 * tasks' status files, at most PF_SWITCH_RATE_TASKS tasks a process; -1
 * when no process could be read.  pf-offcpu's -g auto keeps fp above
 * PF_OFFCPU_AUTO_RATE (recorder.h), and pf-precheck says so.
 */
#define PF_SWITCH_RATE_TASKS 4096
double pf_switch_rate(const char *proc_root, const int *pids, size_t n, unsigned ms);

/*
 * Count the CPUs in a cpulist such as "0-3,8,10-11".  -1 on junk.
 */
int pf_cpulist_count(const char *list);

#endif
