/*
 * classify: the ordered rules.  The rules both modes share (hypervisor
 * steal, memory pressure) are written once and head both tables, but in
 * the process table steal, like the run-queue classes, applies only to a
 * process whose threads mostly want a CPU: a process that mostly waits is
 * never starved or oversubscribed because others keep the CPUs busy; its
 * waits are what to profile.
 */
#include <stddef.h>
#include <string.h>

#include "classify.h"

static void
verdict(struct pf_cls_verdict *v, const char *cls, const char *next, const char *hint)
{
	v->cls = cls;
	v->next = next;
	v->also = NULL;
	v->hint = hint;
	v->competing_load = false;
}

/* Others' virtual CPUs run on ours: nothing in the guest can fix it. */
static bool
starved_steal(const struct pf_cls_box *b, struct pf_cls_verdict *v)
{
	if (b->steal < 10)
		return false;
	verdict(v, "STARVED_STEAL", "none",
	    "the hypervisor runs others on these CPUs: resize or move the instance");
	return true;
}

static bool
memory_pressure(const struct pf_cls_box *b)
{
	return b->psi_full[PF_PSI_MEM] >= 5 || b->psi_some[PF_PSI_MEM] >= 20 ||
	    b->oom_kills > 0;
}

void
pf_classify_system(const struct pf_cls_system *in, struct pf_cls_verdict *v)
{
	const struct pf_cls_box *b = &in->box;
	bool cpu_sat = in->runq > in->ncpu || b->psi_some[PF_PSI_CPU] >= 20;

	if (starved_steal(b, v))
		return;
	if (memory_pressure(b))
		verdict(v, "MEMORY", "none",
		    "vmstat 1; sort processes by RSS; check memory.events of busy cgroups");
	else if (b->psi_full[PF_PSI_IO] >= 5 || b->psi_some[PF_PSI_IO] >= 20 ||
	    (in->iowait >= 10 && in->blocked >= 1))
		verdict(v, "IO_WAIT", "pf-classify -p PID",
		    "iostat -xz 1; classify the processes in D state (ps -eo pid,stat,wchan | awk '$2 ~ /D/')");
	else if (cpu_sat && in->busy >= 90)
		verdict(v, "CPU_SATURATED", "pf-record -a", NULL);
	else if (cpu_sat && in->idle >= 20)
		verdict(v, "CPU_CONSTRAINED", "pf-record -a",
		    "run queue with idle CPUs: look for cgroup quotas (nr_throttled) and CPU affinity");
	else if (in->busy >= 70 || in->hot_busy >= 90)
		verdict(v, in->sys >= 20 || in->irq_soft >= 20 ? "ON_CPU_KERNEL" : "ON_CPU_USER",
		    "pf-record -a", NULL);
	else if (in->busy < 5 && in->runq < 1)
		verdict(v, "IDLE", "none", "nothing is busy: check that the workload is being driven");
	else
		verdict(v, "LOW_UTILISATION", "pf-classify -p PID",
		    "the latency is off-CPU or elsewhere: classify the slow service, then pf-offcpu");
}

/*
 * Whether the process's active threads are runnable (on a CPU or queued
 * for one) for at least half of the interval: only such a process can be
 * short of CPU.
 */
static bool
wants_cpu(const struct pf_cls_pid *in)
{
	return in->runnable_share >= 0.5;
}

/* The run-queue classes, below the I/O one. */
static bool
cpu_contention(const struct pf_cls_pid *in, struct pf_cls_verdict *v)
{
	bool queued = in->wait_share >= 0.2 && in->runq_wait >= 0.05;

	if (!wants_cpu(in))
		return false;
	if (queued && in->threads_active > in->cpus && in->runnable > in->cpus &&
	    in->util >= 0.3) {
		/*
		 * More threads want a CPU at once than it may use (on average,
		 * not only more threads that ran at all), and it keeps a fair
		 * part of those CPUs busy itself: the process queues behind
		 * itself whatever else runs, and fewer threads is the fix.
		 * Below that others hold the CPUs: starved, not oversubscribed.
		 */
		verdict(v, "CPU_BOUND_OVERSUBSCRIBED", "pf-record -p",
		    "more runnable threads than CPUs: consider fewer threads");
		v->competing_load = in->util < 0.7;
		return true;
	}
	if (queued && in->util < 0.7) {
		/*
		 * The cause is other processes: the system profile names
		 * them, and the process's own profile is what it did with the
		 * CPU it got.
		 */
		verdict(v, "STARVED_CPU", "pf-record -a",
		    "others take its CPUs: find them (pidstat 1), check affinity and cgroup weights");
		v->also = "pf-record -p";
		return true;
	}
	return false;
}

void
pf_classify_pid(const struct pf_cls_pid *in, struct pf_cls_verdict *v)
{
	const struct pf_cls_box *b = &in->box;

	if (wants_cpu(in) && starved_steal(b, v))
		return;
	/*
	 * Stopped by a signal or held by a tracer: nothing runs until it is
	 * let go, so nothing is worth recording; not idle, which would send
	 * the engineer to the load.
	 */
	if (in->t_state >= 0.5)
		verdict(v, "STOPPED", "none",
		    "stopped (SIGSTOP, job control) or held by a tracer: TracerPid in "
		    "/proc/PID/status names it; kill -CONT resumes a stopped process");
	else if (in->throttled_ratio >= 0.2 && in->wait_share >= 0.1)
		verdict(v, "STARVED_THROTTLED", "pf-record -p",
		    "the cgroup CPU quota throttles it: raise cpu.max / cpu.cfs_quota_us, or profile what uses the quota");
	else if (memory_pressure(b))
		verdict(v, "MEMORY", "none",
		    "memory pressure: check RSS against limits, memory.stat, vmstat 1");
	else if (in->io_share >= 0.2 || in->d_state >= 0.2)
		verdict(v, "IO_WAIT", "pf-offcpu -p", "iostat -xz 1; pidstat -d 1 shows who does the I/O");
	else if (cpu_contention(in, v))
		return;
	else if (in->util >= 0.7)
		verdict(v, in->sysshare >= 0.5 ? "ON_CPU_KERNEL" : "ON_CPU_USER", "pf-record -p", NULL);
	else if (in->util >= 0.3)
		verdict(v, "MIXED", "pf-record -p", "then pf-offcpu for the time it is off the CPU");
	else if (in->on_cpu < 0.02 && (!in->have_cs || in->switches_s < 10))
		verdict(v, "IDLE", "none", "nothing to profile: check that the workload is being driven");
	else
		verdict(v, "OFF_CPU", "pf-offcpu -p",
		    "its threads mostly wait: the thread lines say on what (lock, disk, sleep)");
	/* A waiting process slowed by its wake-ups' queueing says so. */
	if (strcmp(v->cls, "OFF_CPU") == 0 || strcmp(v->cls, "IO_WAIT") == 0 ||
	    strcmp(v->cls, "MIXED") == 0)
		v->competing_load = in->wait_share >= 0.2 && in->runq_wait >= 0.05;
}

const char *const pf_cls_thread_names[PF_NTHR_STATE] = {
	"running", "runnable", "disk", "lock", "sleep", "idle",
};

int
pf_cls_thread_state(const struct pf_cls_thread *in)
{
	double off = 1 - in->on - in->rq - in->io;

	if (!in->woke && in->io < 0.01)
		return in->lock ? PF_THR_LOCK : PF_THR_IDLE;
	if (in->on >= in->rq && in->on >= in->io && in->on >= off)
		return PF_THR_RUNNING;
	if (in->rq >= in->io && in->rq >= off)
		return PF_THR_RUNNABLE;
	if (in->io >= off)
		return PF_THR_DISK;
	return in->lock ? PF_THR_LOCK : PF_THR_SLEEP;
}
