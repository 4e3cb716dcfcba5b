/*
 * snapshot: what pf-classify measures over an interval (doc/classification.md).
 * A snapshot of the box's counters (/proc/stat, PSI, /proc/vmstat) and, in
 * PID mode, of one process and each of its threads; the 10 Hz sampling of
 * thread states (or the run and blocked counts) between two snapshots;
 * and the figures of the interval computed from them.  Reading state is
 * kept in a struct pf_snap_reader the caller owns.  Nothing here prints
 * or exits: a failure is -1 with errno.
 *
 * Live PID mode reads each thread's files relative to one descriptor of
 * <proc>/<pid>/task and keeps the first snapshot's descriptors open for
 * the second and for the state sampling: on a process with thousands of
 * threads the opens, closes and path walks are most of pf-classify's cost.
 */
#ifndef PF_SNAPSHOT_H
#define PF_SNAPSHOT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup.h"
#include "classify.h"
#include "procstat.h"
#include "psi.h"

#define PF_SNAP_MAX_TASKS	8192	/* threads of one process read per snapshot */
#define PF_SNAP_HZ		10	/* sampling rounds a second */
#define PF_SNAP_MAX_ROUNDS	600	/* rounds a replay reads at most */
#define PF_SNAP_MAX_WCHAN	64	/* distinct wait channels tallied */
#define PF_SNAP_BRIEF_ABOVE	256	/* threads above which a live read is brief */

/* A thread's files kept open from the first snapshot to the second. */
enum { PF_SNAP_STAT, PF_SNAP_SCHED, PF_SNAP_STATUS, PF_SNAP_NFILES };

/* The /proc/vmstat counters a snapshot keeps. */
enum { PF_VM_OOM_KILL, PF_VM_PSWPIN, PF_VM_PGMAJFAULT, PF_NVM };

/* The names of the PSI resources, in PF_PSI_* order: "cpu", "io", "memory". */
extern const char *const pf_snap_psi_names[PF_NPSI];

/* One thread in a snapshot. */
struct pf_snap_thread {
	int tid;
	uint64_t starttime;		/* with tid, the thread's identity */
	uint64_t utime, stime, blkio;	/* ticks */
	bool have_ticks;		/* stat was read: starttime, utime, stime, blkio */
	struct pf_schedstat sched;
	bool have_sched;
	uint64_t vcs, nvcs;		/* voluntary, involuntary switches */
	bool have_cs;
	bool kept;			/* fd[] are open (live mode, first snapshot) */
	int fd[PF_SNAP_NFILES];		/* -1: that file is not read */
	/* First snapshot only: its state samples, and where it last slept. */
	unsigned samples, samples_d;
	char wchan[64];
};

/* The box, and in PID mode the process and its threads, at one moment. */
struct pf_snap {
	struct pf_sysstat *sys;		/* malloc'd: it is large */
	struct pf_psi psi[PF_NPSI];
	bool have_psi[PF_NPSI];
	uint64_t vm[PF_NVM];
	bool have_vm[PF_NVM];
	/* PID mode */
	int pid;			/* the reader's; 0 in system mode */
	bool alive;			/* the process's stat could be read */
	struct pf_taskstat proc;
	struct pf_status status;
	struct pf_io io;
	bool have_io;
	struct pf_snap_thread *thr;	/* ascending tid, nthr of them (malloc'd) */
	size_t nthr;
	bool truncated;			/* more than PF_SNAP_MAX_TASKS threads */
	struct pf_cgroup_cpu cg;
	bool have_cg;
};

/*
 * How snapshots and samples of one process are read: the caller's.  A
 * group of processes watched together has a reader each, with share set
 * to their number before pf_snap_reader_live: they split the descriptors
 * kept and each sampling round's reads, so the group costs what one
 * process of as many threads does.  brief may be set by the caller of a
 * live reader before the first snapshot (a group of more than
 * PF_SNAP_BRIEF_ABOVE threads in all); else that snapshot sets it for a
 * process of more.
 */
struct pf_snap_reader {
	int pid;			/* 0: the box alone (system mode) */
	bool delayacct;			/* blkio ticks mean something */
	int taskdir;			/* -1: path reads (replay, or no task dir) */
	long keep_budget;		/* threads whose files may still be kept */
	unsigned share;			/* readers of one group (0 or 1: alone) */
	bool brief;			/* threads read in brief: schedstat (and stat) */
	/* One read buffer per thread file, sized as procstat's own readers. */
	char buf_stat[1024], buf_sched[128], buf_status[8192];
};

/*
 * Set up r to read process pid (0: system mode) by path, as a replay
 * does; delayacct says whether kernel.task_delayacct is on.
 */
void pf_snap_reader_init(struct pf_snap_reader *r, int pid, bool delayacct);

/*
 * Live PID mode: open <proc_root>/<pid>/task, below which the per-thread
 * files are read, and let as many threads keep their files open as the
 * descriptor limit allows (its r->share of them), raising the soft
 * RLIMIT_NOFILE toward the hard one (64 descriptors are left for
 * everything else).  0, or -1 with errno when the directory cannot be
 * opened: r goes on reading by path.
 */
int pf_snap_reader_live(struct pf_snap_reader *r, const char *proc_root);

/* Close what pf_snap_reader_live opened; r reads by path again. */
void pf_snap_reader_close(struct pf_snap_reader *r);

/*
 * Read a snapshot from proc_root into s: the box, and in PID mode the
 * process (its cgroup's cpu.stat through cg, which may be NULL) and each
 * of its threads, at most PF_SNAP_MAX_TASKS.  prev is the first snapshot
 * when this is the second (NULL otherwise): live, its kept descriptors
 * serve the re-reads, and a process whose threads are all still there is
 * not listed again.  The first live snapshot of a process of more than
 * 256 threads sets r->brief.  0, or -1 with errno when /proc/stat cannot
 * be read or memory runs out; a vanished process is not an error
 * (s->alive false).  Free s with pf_snap_free either way.
 */
int pf_snap_read(struct pf_snap_reader *r, const char *proc_root,
    const struct pf_cgroup *cg, const struct pf_snap *prev, struct pf_snap *s);

/* Close s's kept descriptors and free it; s is zeroed. */
void pf_snap_free(struct pf_snap *s);

/* The thread tid of s, or NULL. */
const struct pf_snap_thread *pf_snap_thread_find(const struct pf_snap *s, int tid);

/* The state samples taken during the interval: the caller's. */
struct pf_samples {
	/* Wait channels seen in D or S, distinct names and how often. */
	char wchan[PF_SNAP_MAX_WCHAN][64];
	unsigned wchan_count[PF_SNAP_MAX_WCHAN];
	size_t nwchan;
	unsigned wchan_seen;
	unsigned rounds;		/* sampling rounds */
	/* PID mode: thread states sampled, and how many were D, R, S. */
	uint64_t thread_points, in_d, in_r, in_s, in_t;
	/* System mode: sums of procs_running and procs_blocked. */
	uint64_t running_sum, blocked_sum;
	unsigned sys_rounds;		/* rounds whose /proc/stat was read */
	/* Where the sampling stands. */
	unsigned long rot;		/* where the next round starts in the thread list */
	struct pf_snap *base;		/* live, many threads: sample these */
	struct pf_snap *first;		/* the thread samples are tallied here */
	int *tids;			/* the thread list being sampled */
	long ntids;
	char root[PATH_MAX];		/* the proc root tids came from */
};

/*
 * Start sampling after first, the first snapshot, into sm (zeroed here):
 * each thread's samples are tallied into it, and live, a process of more
 * than 256 threads is sampled from its threads rather than listed again.
 */
void pf_samples_start(struct pf_samples *sm, const struct pf_snap_reader *r,
    struct pf_snap *first);

/*
 * One sampling round from proc_root.  PID mode: the state letter of at
 * most 16 threads (8 read in brief), rotating through the thread list,
 * which is re-read once a second, and the wait channel of at most 4 of
 * those in D or S; a reader of a group takes its r->share of each (at
 * least one).  System mode: procs_running and procs_blocked.  What
 * cannot be read is left out of the round.
 */
void pf_samples_round(struct pf_snap_reader *r, struct pf_samples *sm,
    const char *proc_root);

/* CLOCK_MONOTONIC now, in seconds. */
double pf_snap_clock(void);

/*
 * Sample live at PF_SNAP_HZ from start until end (pf_snap_clock times),
 * then sleep until end.
 */
void pf_samples_run(struct pf_snap_reader *r, struct pf_samples *sm,
    const char *proc_root, double start, double end);

/* The same for a group: each round samples r[i] into sm[i], i < n. */
void pf_samples_run_group(struct pf_snap_reader *const *r, struct pf_samples *const *sm,
    size_t n, const char *proc_root, double start, double end);

/*
 * Replay the rounds recorded under <dir>/samples/NN/proc, in name order,
 * at most PF_SNAP_MAX_ROUNDS.  The number replayed (0 when there are
 * none or the directory cannot be read).
 */
long pf_samples_replay(struct pf_snap_reader *r, struct pf_samples *sm,
    const char *dir);

/*
 * Tally into sm the wait channels of s's first PF_SNAP_MAX_WCHAN threads
 * as they are now: where they sleep at the end of an interval too short
 * to have sampled any.
 */
void pf_samples_wchan_now(struct pf_snap_reader *r, struct pf_samples *sm,
    const char *proc_root, const struct pf_snap *s);

/*
 * Add src's wait channels and their counts to dst's (a group's pooled),
 * as far as dst has room for distinct ones.
 */
void pf_samples_add_wchan(struct pf_samples *dst, const struct pf_samples *src);

/* The index of sm's most common wait channel, or -1 when none was seen. */
long pf_samples_top_wchan(const struct pf_samples *sm);

/* Free what sampling allocated (the thread list). */
void pf_samples_free(struct pf_samples *sm);

/* mpstat's figures over the interval, from two /proc/stat reads (percent). */
struct pf_cpu_figures {
	double usr, nice, sys, iowait, irq, soft, steal, guest, gnice, idle, busy;
	double busiest_cpu;		/* the busiest single CPU */
	double ctxt_s, intr_s;		/* context switches and interrupts a second */
	int ncpu;
};

/*
 * The CPU figures of the interval between a and b, seconds long: every
 * counter's delta is 0 when it went back; no ticks at all is all idle.
 */
void pf_cpu_figures(const struct pf_sysstat *a, const struct pf_sysstat *b,
    double seconds, struct pf_cpu_figures *f);

/*
 * The box figures both modes decide on: the CPU figures into f, and into
 * box %steal, each PSI resource's some and full share (-1 when its file
 * is missing at either end) and the OOM kills.
 */
void pf_box_figures(const struct pf_snap *a, const struct pf_snap *b,
    double seconds, struct pf_cpu_figures *f, struct pf_cls_box *box);

/*
 * System mode: the decision's inputs from the box figures and the
 * samples' mean run and blocked counts (the second snapshot's without a
 * sample), pf-classify itself taken off the run queue.
 */
void pf_system_inputs(const struct pf_snap *b, const struct pf_samples *sm,
    const struct pf_cpu_figures *f, struct pf_cls_system *in);

/* One thread's figures over the interval. */
struct pf_thread_figures {
	const struct pf_snap_thread *t0, *t1;	/* t0 NULL: born in the interval */
	int pid;			/* its process */
	double on, rq, io;		/* shares of the interval */
	double sw;			/* switches a second, -1 unknown */
	int state;			/* PF_THR_* */
};

/* The PID-mode figures (doc/classification.md). */
struct pf_pid_figures {
	/* The process's own counters, pidstat's columns (% of one CPU). */
	double usr, system, guest, cpu, wait;
	double majflt_s, minflt_s, kb_rd_s, kb_wr_s;
	bool have_io;			/* kb_rd_s and kb_wr_s are known */
	double sysshare;		/* system / (user + system) time */
	/* Summed over its threads. */
	double cswch_s, nvcswch_s;
	double switches_s;		/* from status, else schedstat slices */
	uint64_t iodelay;		/* blkio ticks */
	double on_s, runq_s, bio_s;	/* seconds on a CPU, queued, in block I/O */
	int threads, active;		/* threads; active ones (at least 1) */
	double cpus;			/* CPUs it may use */
	double capacity, util, wait_share, d_state, s_state;
	double t_state;			/* share of thread samples stopped (T or t) */
	double throttled_ratio, throttled_pct;	/* -1 when unknown */
	struct pf_thread_figures *thread;	/* threads of them (malloc'd) */
	unsigned nstate[PF_NTHR_STATE];		/* threads in each state */
	bool have_sched;		/* schedstat counts: not switched off */
	bool have_cs;			/* cswch_s and nvcswch_s are known */
	bool have_switches;		/* switches_s is known */
	bool threads_lost;		/* exited threads' work is missing */
};

/*
 * The figures of process pid between a and b (both alive, the same
 * process), seconds long, with hz ticks a second and sm's state samples.
 * Threads are matched by tid and start time; one born in the interval
 * counts from zero.  0, or -1 with ENOMEM; free p with
 * pf_pid_figures_free.
 */
int pf_pid_figures(const struct pf_snap *a, const struct pf_snap *b,
    const struct pf_samples *sm, double seconds, long hz, struct pf_pid_figures *p);

/* One process of a group: its two snapshots, its samples and its cgroup. */
struct pf_group_member {
	const struct pf_snap *a, *b;	/* both alive, the same process */
	const struct pf_samples *sm;
	const struct pf_cgroup *cg;	/* NULL: shares no cgroup with another member */
};

/*
 * The figures of the n processes of m over the interval as if they were
 * one process (doc/classification.md, "A group of processes"): their
 * threads pooled, their counters and state samples summed, the CPUs
 * they may use and their cgroups' throttling counted once per cgroup.
 * With n 1, pf_pid_figures.  The thread figures name their pid.  0, or
 * -1 with ENOMEM; free p with pf_pid_figures_free.
 */
int pf_group_figures(const struct pf_group_member *m, size_t n, double seconds, long hz,
    struct pf_pid_figures *p);

void pf_pid_figures_free(struct pf_pid_figures *p);

/* The decision's view of the process figures (in->box is left alone). */
void pf_pid_inputs(const struct pf_pid_figures *p, double seconds, struct pf_cls_pid *in);

#endif
