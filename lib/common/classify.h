/*
 * classify: pf-classify's decision tables as pure functions, figures in,
 * class out, so each rule can be tested without a /proc.  The figures are
 * computed, and the verdict printed, by the tool.
 */
#ifndef PF_CLASSIFY_H
#define PF_CLASSIFY_H

#include <stdbool.h>
#include <stdint.h>

/* The PSI resources, in the order the figures arrays use. */
enum { PF_PSI_CPU, PF_PSI_IO, PF_PSI_MEM, PF_NPSI };

/* What both modes know of the box over the interval. */
struct pf_cls_box {
	double steal;			/* %steal of all CPUs */
	double psi_some[PF_NPSI];	/* % of the interval; -1 when unavailable */
	double psi_full[PF_NPSI];
	uint64_t oom_kills;
};

/* System mode figures (pf-classify(1) names them in its output). */
struct pf_cls_system {
	struct pf_cls_box box;
	double busy, idle, hot_busy;	/* % */
	double sys, irq_soft, iowait;	/* % */
	double runq, blocked;		/* mean tasks over the samples */
	int ncpu;
};

/* Process mode figures. */
struct pf_cls_pid {
	struct pf_cls_box box;
	double throttled_ratio;		/* cgroup periods throttled; -1 unknown */
	double wait_share;		/* run-queue wait / (on CPU + wait) */
	double io_share;		/* block-I/O delay per active thread-second */
	double d_state;			/* share of thread samples in D */
	double t_state;			/* share stopped: T (a signal) or t (a tracer) */
	double runq_wait;		/* run-queue seconds per second */
	double on_cpu;			/* CPU seconds per second */
	double runnable;		/* on_cpu + runq_wait: threads wanting a CPU */
	double runnable_share;		/* runnable / active threads: the rest waits */
	int threads_active;
	double cpus;			/* CPUs it may use */
	double util;			/* on_cpu / min(active threads, cpus) */
	double sysshare;		/* system / (user + system) time */
	bool have_cs;			/* the switch counts are known */
	double switches_s;		/* voluntary + involuntary per second */
};

/*
 * A verdict.  next is the tool to run next ("none", or a command to
 * which pf-classify adds the pid when it ends in "-p"); also, when not
 * NULL, a second one, for a verdict about other processes: the asked
 * process's own profile beside the system's.  hint may be NULL.
 */
struct pf_cls_verdict {
	const char *cls;
	const char *next;
	const char *also;
	const char *hint;
	bool competing_load;		/* raise the competing-load flag */
};

/*
 * One thread over the interval, in shares of the interval: on a CPU,
 * runnable and waiting for one, waiting for the disk (block I/O delay, or
 * its D-state samples), the rest asleep.
 */
struct pf_cls_thread {
	double on, rq, io;
	bool lock;			/* its wait channel is a futex */
	bool woke;			/* it was switched in at all */
};

/* The states a thread is put in, in the order pf_cls_thread_state uses. */
enum { PF_THR_RUNNING, PF_THR_RUNNABLE, PF_THR_DISK, PF_THR_LOCK, PF_THR_SLEEP,
    PF_THR_IDLE, PF_NTHR_STATE };

extern const char *const pf_cls_thread_names[PF_NTHR_STATE];

/*
 * Where a thread spent most of the interval: running, runnable, disk,
 * lock or sleep; idle when it was never switched in and did not wait for
 * the disk (a lock waiter blocked throughout is lock, not idle).
 */
int pf_cls_thread_state(const struct pf_cls_thread *in);

/* The system mode table, first match wins. */
void pf_classify_system(const struct pf_cls_system *in, struct pf_cls_verdict *v);

/* The process mode table, first match wins. */
void pf_classify_pid(const struct pf_cls_pid *in, struct pf_cls_verdict *v);

#endif
