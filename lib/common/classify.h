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
	double runq_wait;		/* run-queue seconds per second */
	double on_cpu;			/* CPU seconds per second */
	int threads_active;
	double cpus;			/* CPUs it may use */
	double util;			/* on_cpu / min(active threads, cpus) */
	double sysshare;		/* system / (user + system) time */
	bool have_cs;			/* the switch counts are known */
	double switches_s;		/* voluntary + involuntary per second */
};

/*
 * A verdict.  next is the tool to run next ("none", or a command to
 * which pf-classify adds the pid when it ends in "-p"); hint may be NULL.
 */
struct pf_cls_verdict {
	const char *cls;
	const char *next;
	const char *hint;
	bool competing_load;		/* raise the competing-load flag */
};

/* The system mode table, first match wins. */
void pf_classify_system(const struct pf_cls_system *in, struct pf_cls_verdict *v);

/* The process mode table, first match wins. */
void pf_classify_pid(const struct pf_cls_pid *in, struct pf_cls_verdict *v);

#endif
