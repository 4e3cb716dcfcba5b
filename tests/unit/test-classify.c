/*
 * test-classify: checks of lib/common/snapshot, pf-classify's snapshots,
 * sampling and figures, run by tests/bats/lib-common.bats as
 * "test-classify GROUP".  The figures are checked on snapshots built in
 * memory, the readers on a small /proc tree written here and on a child
 * process.  Each failed check prints what it expected and what it got;
 * the exit status says whether any failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "classify.h"
#include "snapshot.h"

#include "unit.h"


/* Figures are compared to two decimals, as pf-classify prints them. */
#define NEAR(x, want) (fabs((x) - (want)) < 0.005)

static struct pf_sysstat *
sysstat_new(void)
{
	struct pf_sysstat *s = calloc(1, sizeof(*s));

	if (s == NULL) {
		perror("calloc");
		exit(2);
	}
	return s;
}

/* mpstat's arithmetic from two /proc/stat reads. */
static void
test_cpu(void)
{
	struct pf_sysstat *a = sysstat_new(), *b = sysstat_new();
	struct pf_cpu_figures f;

	/* 1000 ticks in all: guest (100) is inside user (300). */
	a->all = (struct pf_cpu_ticks){ .user = 1000, .system = 500, .idle = 8000,
	    .iowait = 50, .irq = 70, .guest = 400 };
	b->all = (struct pf_cpu_ticks){ .user = 1300, .system = 600, .idle = 8500,
	    .iowait = 100, .irq = 60, .steal = 50, .guest = 500 };
	a->ctxt = 1000;
	b->ctxt = 3000;
	a->intr = 50;
	b->intr = 10;	/* went back: a reset, never a huge number */
	a->ncpu = 2;
	a->cpu_id[0] = 0;
	a->cpu_id[1] = 1;
	a->cpu[0] = (struct pf_cpu_ticks){ .user = 0, .idle = 0 };
	a->cpu[1] = (struct pf_cpu_ticks){ .user = 0, .idle = 0 };
	/* CPU 1 went offline, CPU 2 came up: only CPU 0 is at both ends. */
	b->ncpu = 2;
	b->cpu_id[0] = 0;
	b->cpu_id[1] = 2;
	b->cpu[0] = (struct pf_cpu_ticks){ .user = 90, .idle = 10 };
	b->cpu[1] = (struct pf_cpu_ticks){ .user = 100 };
	pf_cpu_figures(a, b, 2.0, &f);
	CHECK(NEAR(f.usr, 20), "usr without guest: %.2f, want 20", f.usr);
	CHECK(NEAR(f.guest, 10), "guest: %.2f, want 10", f.guest);
	CHECK(NEAR(f.sys, 10), "sys: %.2f", f.sys);
	CHECK(NEAR(f.idle, 50), "idle: %.2f", f.idle);
	CHECK(NEAR(f.iowait, 5), "iowait: %.2f", f.iowait);
	CHECK(NEAR(f.steal, 5), "steal: %.2f", f.steal);
	CHECK(NEAR(f.irq, 0), "irq that went back: %.2f, want 0", f.irq);
	CHECK(NEAR(f.busy, 40), "busy = 100 - idle - iowait - steal: %.2f", f.busy);
	CHECK(NEAR(f.busiest_cpu, 90), "busiest CPU matched by number: %.2f, want 90",
	    f.busiest_cpu);
	CHECK(NEAR(f.ctxt_s, 1000), "ctxt/s: %.2f", f.ctxt_s);
	CHECK(NEAR(f.intr_s, 0), "intr/s of a reset counter: %.2f", f.intr_s);
	CHECK(f.ncpu == 2, "ncpu %d", f.ncpu);

	/* No tick at all is all idle, never a division by zero. */
	pf_cpu_figures(a, a, 2.0, &f);
	CHECK(NEAR(f.idle, 100) && NEAR(f.busy, 0) && NEAR(f.usr, 0),
	    "no ticks: idle %.2f busy %.2f", f.idle, f.busy);
	free(a);
	free(b);
}

/* A snapshot's box part, for the box and system figures. */
static void
snap_box(struct pf_snap *s, uint64_t some_cpu, uint64_t full_mem, bool have_io_psi,
    uint64_t oom, uint64_t running, uint64_t blocked)
{
	memset(s, 0, sizeof(*s));
	s->sys = sysstat_new();
	s->sys->all.idle = 1000;
	s->sys->ncpu = 4;
	s->sys->procs_running = running;
	s->sys->procs_blocked = blocked;
	s->have_psi[PF_PSI_CPU] = s->have_psi[PF_PSI_MEM] = true;
	s->have_psi[PF_PSI_IO] = have_io_psi;
	s->psi[PF_PSI_CPU].some_total = some_cpu;
	s->psi[PF_PSI_MEM].have_full = true;
	s->psi[PF_PSI_MEM].full_total = full_mem;
	s->vm[PF_VM_OOM_KILL] = oom;
	s->have_vm[PF_VM_OOM_KILL] = true;
}

/* PSI shares, OOM kills and the run queue without pf-classify itself. */
static void
test_box(void)
{
	struct pf_snap a, b;
	struct pf_samples sm;
	struct pf_cpu_figures f;
	struct pf_cls_system in;

	snap_box(&a, 1000000, 0, true, 3, 1, 0);
	snap_box(&b, 1500000, 200000, false, 5, 3, 2);
	pf_box_figures(&a, &b, 2.0, &f, &in.box);
	CHECK(NEAR(in.box.psi_some[PF_PSI_CPU], 25), "cpu some: %.2f, want 25",
	    in.box.psi_some[PF_PSI_CPU]);
	CHECK(NEAR(in.box.psi_full[PF_PSI_MEM], 10), "memory full: %.2f, want 10",
	    in.box.psi_full[PF_PSI_MEM]);
	CHECK(in.box.psi_some[PF_PSI_IO] == -1 && in.box.psi_full[PF_PSI_IO] == -1,
	    "io missing at one end: -1");
	CHECK(in.box.psi_full[PF_PSI_CPU] == -1, "cpu has no full line: -1");
	CHECK(in.box.oom_kills == 2, "oom kills %llu", (unsigned long long)in.box.oom_kills);

	/* Without a sample: the second snapshot's counts, itself taken off. */
	memset(&sm, 0, sizeof(sm));
	pf_system_inputs(&b, &sm, &f, &in);
	CHECK(NEAR(in.runq, 2) && NEAR(in.blocked, 2), "runq %.2f blocked %.2f",
	    in.runq, in.blocked);
	sm.sys_rounds = 4;
	sm.running_sum = 2;	/* fewer than one a round: never below 0 */
	sm.blocked_sum = 6;
	pf_system_inputs(&b, &sm, &f, &in);
	CHECK(NEAR(in.runq, 0) && NEAR(in.blocked, 1.5), "sampled runq %.2f blocked %.2f",
	    in.runq, in.blocked);
	CHECK(in.ncpu == 4, "ncpu %d", in.ncpu);
	free(a.sys);
	free(b.sys);
}

/* One thread of an in-memory snapshot. */
static struct pf_snap_thread
thr(int tid, uint64_t start, uint64_t run_ms, uint64_t wait_ms, uint64_t slices,
    uint64_t ticks)
{
	struct pf_snap_thread t;

	memset(&t, 0, sizeof(t));
	t.tid = tid;
	t.starttime = start;
	t.utime = ticks;
	t.have_ticks = true;
	t.sched.run_ns = run_ms * 1000000;
	t.sched.wait_ns = wait_ms * 1000000;
	t.sched.slices = slices;
	t.have_sched = true;
	t.fd[0] = t.fd[1] = t.fd[2] = -1;
	return t;
}

static const struct pf_thread_figures *
figures_of(const struct pf_pid_figures *p, int tid)
{
	int i;

	for (i = 0; i < p->threads; i++)
		if (p->thread[i].t1->tid == tid)
			return &p->thread[i];
	return NULL;
}

/*
 * The process figures from two snapshots: threads matched by tid and
 * start time, the usable CPUs, the shares the decision reads.
 */
static void
test_pid(void)
{
	struct pf_snap_thread t0[3], t1[3];
	struct pf_snap a, b;
	struct pf_samples sm;
	struct pf_pid_figures p;
	struct pf_cls_pid in;
	const struct pf_thread_figures *tf;
	size_t k;

	snap_box(&a, 0, 0, true, 0, 0, 0);
	snap_box(&b, 0, 0, true, 0, 0, 0);
	a.alive = b.alive = true;
	a.proc.utime = 100;
	b.proc.utime = 250;
	b.proc.stime = 50;
	a.proc.majflt = 7;
	b.proc.majflt = 27;
	a.have_io = b.have_io = true;
	b.io.read_bytes = 4 * 1024 * 1024;
	b.status.cpus_allowed = 2;
	a.have_cg = b.have_cg = true;
	a.cg.have_throttle = b.cg.have_throttle = true;
	a.cg.nr_periods = 100;
	a.cg.nr_throttled = 10;
	b.cg.nr_periods = 120;
	b.cg.nr_throttled = 15;
	b.cg.throttled_us = 200000;
	b.cg.quota_cpus = 1.5;
	/*
	 * 10 runs 1.5 s and queues 0.3 s; 11 exited and its tid was taken
	 * by a new thread that ran 0.4 s (matched by tid alone, the old
	 * one's 5 s would make a delta of 0); 12 was born and never ran;
	 * 13 exited.
	 */
	t0[0] = thr(10, 5, 1000, 0, 10, 0);
	t0[1] = thr(11, 5, 5000, 0, 50, 0);
	t0[2] = thr(13, 5, 0, 0, 1, 0);
	t1[0] = thr(10, 5, 2500, 300, 30, 150);
	t1[1] = thr(11, 9, 400, 0, 4, 40);
	t1[2] = thr(12, 9, 0, 0, 0, 0);
	t0[0].samples = 4;
	t0[0].samples_d = 1;
	snprintf(t0[0].wchan, sizeof(t0[0].wchan), "futex_wait_queue");
	a.thr = t0;
	a.nthr = 3;
	b.thr = t1;
	b.nthr = 3;
	memset(&sm, 0, sizeof(sm));
	sm.thread_points = 10;
	sm.in_d = 3;
	sm.in_s = 5;

	CHECK(pf_pid_figures(&a, &b, &sm, 2.0, 100, &p) == 0, "figures");
	CHECK(NEAR(p.cpu, 100) && NEAR(p.usr, 75) && NEAR(p.system, 25),
	    "%%CPU %.2f usr %.2f system %.2f", p.cpu, p.usr, p.system);
	CHECK(NEAR(p.sysshare, 0.25), "sysshare %.2f", p.sysshare);
	CHECK(NEAR(p.majflt_s, 10) && NEAR(p.kb_rd_s, 2048), "majflt/s %.2f kB_rd/s %.2f",
	    p.majflt_s, p.kb_rd_s);
	CHECK(p.threads == 3 && p.active == 2, "threads %d active %d", p.threads, p.active);
	CHECK(NEAR(p.on_s, 1.9) && NEAR(p.runq_s, 0.3),
	    "on %.2f s (the recycled tid counts from 0), queued %.2f s", p.on_s, p.runq_s);
	CHECK(p.have_sched && !p.have_cs && p.have_switches, "schedstat known, switches from slices");
	CHECK(NEAR(p.switches_s, 12), "switches/s from slices: %.2f, want (20 + 4) / 2",
	    p.switches_s);
	CHECK(NEAR(p.cpus, 1.5) && NEAR(p.capacity, 1.5),
	    "cpus: the quota below the affinity and the CPUs: %.2f, capacity %.2f",
	    p.cpus, p.capacity);
	CHECK(NEAR(p.util, 1.9 / 3), "util %.4f", p.util);
	CHECK(NEAR(p.wait_share, 0.3 / 2.2), "wait_share %.4f", p.wait_share);
	CHECK(NEAR(p.wait, 15), "%%wait %.2f", p.wait);
	CHECK(NEAR(p.d_state, 0.3) && NEAR(p.s_state, 0.5), "d_state %.2f s_state %.2f",
	    p.d_state, p.s_state);
	CHECK(NEAR(p.throttled_ratio, 0.25) && NEAR(p.throttled_pct, 10),
	    "throttled ratio %.2f pct %.2f", p.throttled_ratio, p.throttled_pct);
	CHECK(!p.threads_lost, "190 of 200 process ticks are the threads': nothing lost");

	tf = figures_of(&p, 10);
	CHECK(tf != NULL && tf->t0 == &t0[0] && NEAR(tf->on, 0.75) && NEAR(tf->rq, 0.15) &&
	    NEAR(tf->io, 0.25) && tf->state == PF_THR_RUNNING,
	    "thread 10: on %.2f rq %.2f io (its D samples) %.2f, running",
	    tf ? tf->on : -1, tf ? tf->rq : -1, tf ? tf->io : -1);
	tf = figures_of(&p, 11);
	CHECK(tf != NULL && tf->t0 == NULL && NEAR(tf->on, 0.2),
	    "thread 11, a new thread: no first snapshot, on %.2f", tf ? tf->on : -1);
	tf = figures_of(&p, 12);
	CHECK(tf != NULL && tf->state == PF_THR_IDLE, "thread 12, never ran: idle");
	CHECK(p.nstate[PF_THR_RUNNING] == 1 && p.nstate[PF_THR_SLEEP] == 1 &&
	    p.nstate[PF_THR_IDLE] == 1, "states: running %u sleep %u idle %u",
	    p.nstate[PF_THR_RUNNING], p.nstate[PF_THR_SLEEP], p.nstate[PF_THR_IDLE]);

	pf_pid_inputs(&p, 2.0, &in);
	CHECK(NEAR(in.on_cpu, 0.95) && NEAR(in.runq_wait, 0.15) && NEAR(in.runnable, 1.1) &&
	    NEAR(in.runnable_share, 0.55) && in.threads_active == 2 && NEAR(in.cpus, 1.5),
	    "inputs: on_cpu %.2f runq_wait %.2f runnable %.2f share %.2f",
	    in.on_cpu, in.runq_wait, in.runnable, in.runnable_share);
	CHECK(in.have_cs && NEAR(in.switches_s, 12), "inputs: switches");
	pf_pid_figures_free(&p);

	/*
	 * schedstat switched off ("0 0 0" everywhere): the process's ticks
	 * stand in, and a gap between them and the threads' is work of
	 * threads that exited.
	 */
	for (k = 0; k < 3; k++) {
		memset(&t0[k].sched, 0, sizeof(t0[k].sched));
		memset(&t1[k].sched, 0, sizeof(t1[k].sched));
		t1[k].utime = t0[k].utime;
	}
	t1[0].utime = 30;
	b.have_cg = false;
	CHECK(pf_pid_figures(&a, &b, &sm, 2.0, 100, &p) == 0, "figures, no schedstat");
	CHECK(!p.have_sched && NEAR(p.on_s, 2) && NEAR(p.runq_s, 0),
	    "no schedstat: on %.2f s from the process's ticks", p.on_s);
	CHECK(p.threads_lost, "30 of 200 ticks: threads' work lost");
	CHECK(NEAR(p.cpus, 2), "cpus from the affinity: %.2f", p.cpus);
	CHECK(p.throttled_ratio == -1, "no cgroup: throttling unknown");
	pf_pid_figures_free(&p);

	/* A process with no thread read still has one active "thread". */
	b.nthr = 0;
	CHECK(pf_pid_figures(&a, &b, &sm, 2.0, 100, &p) == 0 && p.threads == 0 &&
	    p.active == 1, "no threads: active %d", p.active);
	pf_pid_figures_free(&p);
	free(a.sys);
	free(b.sys);
}

/* A process of test_group: its two snapshots' process part. */
static void
group_proc(struct pf_snap *a, struct pf_snap *b, int pid, uint64_t utime, uint64_t stime)
{
	snap_box(a, 0, 0, true, 0, 0, 0);
	snap_box(b, 0, 0, true, 0, 0, 0);
	a->pid = b->pid = pid;
	a->alive = b->alive = true;
	b->proc.utime = utime;
	b->proc.stime = stime;
}

/* A cgroup's throttling counters at both ends, and its quota. */
static void
group_cg(struct pf_snap *a, struct pf_snap *b, uint64_t periods, uint64_t throttled,
    uint64_t us, double quota)
{
	a->have_cg = b->have_cg = true;
	a->cg.have_throttle = b->cg.have_throttle = true;
	b->cg.nr_periods = periods;
	b->cg.nr_throttled = throttled;
	b->cg.throttled_us = us;
	a->cg.quota_cpus = b->cg.quota_cpus = quota;
}

/*
 * A group of processes as one: a master that sleeps (pid 100, in cgroup
 * Y) and two workers (200 and 300) sharing cgroup X.  Threads pooled,
 * shares made of pooled counts (not means of each process's), and each
 * cgroup's quota and throttling counted once.
 */
static void
test_group(void)
{
	struct pf_snap a[3], b[3];
	struct pf_snap_thread t0[4], t1[4];
	struct pf_samples sm[3], all;
	struct pf_cgroup x, y;
	struct pf_group_member m[3];
	struct pf_pid_figures p, one;
	struct pf_cls_pid in;
	struct pf_cls_verdict v;
	size_t k;
	int i, of200 = 0, of300 = 0;

	memset(&x, 0, sizeof(x));
	memset(&y, 0, sizeof(y));
	x.cpu_version = y.cpu_version = 2;
	snprintf(x.cpu_dir, sizeof(x.cpu_dir), "/sys/fs/cgroup/x");
	snprintf(y.cpu_dir, sizeof(y.cpu_dir), "/sys/fs/cgroup/y");
	/* The master: 20 system ticks, its thread asleep throughout. */
	group_proc(&a[0], &b[0], 100, 0, 20);
	group_cg(&a[0], &b[0], 10, 5, 100000, 0.5);
	t0[0] = thr(101, 1, 0, 0, 0, 0);
	t1[0] = thr(101, 1, 0, 0, 0, 0);
	t1[0].stime = 20;
	/* 200: 2 threads running 1.8 s each of 2 s, queued 0.1 s. */
	group_proc(&a[1], &b[1], 200, 360, 0);
	group_cg(&a[1], &b[1], 30, 3, 300000, 1.5);
	a[1].have_io = b[1].have_io = true;
	b[1].io.read_bytes = 2 * 1024 * 1024;
	t0[1] = thr(201, 1, 0, 0, 0, 0);
	t0[2] = thr(202, 1, 0, 0, 0, 0);
	t1[1] = thr(201, 1, 1800, 100, 20, 180);
	t1[2] = thr(202, 1, 1800, 100, 20, 180);
	/* 300: in 200's cgroup, which it read a moment later; 1 thread at 1 s. */
	group_proc(&a[2], &b[2], 300, 100, 0);
	group_cg(&a[2], &b[2], 31, 4, 310000, 1.5);
	t0[3] = thr(301, 1, 0, 0, 0, 0);
	t1[3] = thr(301, 1, 1000, 0, 10, 100);
	a[0].thr = &t0[0];
	b[0].thr = &t1[0];
	a[0].nthr = b[0].nthr = 1;
	a[1].thr = &t0[1];
	b[1].thr = &t1[1];
	a[1].nthr = b[1].nthr = 2;
	a[2].thr = &t0[3];
	b[2].thr = &t1[3];
	a[2].nthr = b[2].nthr = 1;
	for (k = 0; k < 3; k++) {
		memset(&sm[k], 0, sizeof(sm[k]));
		m[k] = (struct pf_group_member){ &a[k], &b[k], &sm[k], k == 0 ? &y : &x };
	}
	sm[0].thread_points = 10;	/* the master asleep */
	sm[0].in_s = 10;
	sm[1].thread_points = 30;	/* 15 of the workers' in D */
	sm[1].in_d = 15;
	sm[1].in_r = 15;

	CHECK(pf_group_figures(m, 3, 2.0, 100, &p) == 0, "group figures");
	CHECK(p.threads == 4 && p.active == 3, "threads %d active %d: the master's is not",
	    p.threads, p.active);
	CHECK(NEAR(p.on_s, 4.6) && NEAR(p.runq_s, 0.2), "on %.2f s, queued %.2f s: summed",
	    p.on_s, p.runq_s);
	CHECK(NEAR(p.cpu, 240) && NEAR(p.usr, 230) && NEAR(p.system, 10),
	    "%%CPU %.2f usr %.2f system %.2f: summed", p.cpu, p.usr, p.system);
	CHECK(NEAR(p.sysshare, 20.0 / 480), "sysshare %.4f: of the pooled ticks, not a mean "
	    "of each process's (0.33)", p.sysshare);
	CHECK(NEAR(p.d_state, 15.0 / 40) && NEAR(p.s_state, 10.0 / 40),
	    "d_state %.3f s_state %.3f: samples pooled", p.d_state, p.s_state);
	CHECK(p.have_io && NEAR(p.kb_rd_s, 1024), "kB_rd/s %.2f of the one process with io",
	    p.kb_rd_s);
	CHECK(NEAR(p.cpus, 2.0), "cpus %.2f: Y's 0.5 and X's 1.5 once (3.5 with X twice)",
	    p.cpus);
	CHECK(NEAR(p.capacity, 2.0) && NEAR(p.util, 4.6 / 4), "capacity %.2f util %.3f",
	    p.capacity, p.util);
	CHECK(NEAR(p.throttled_ratio, 8.0 / 40) && NEAR(p.throttled_pct, 10),
	    "throttled ratio %.3f pct %.2f: X's counters once", p.throttled_ratio,
	    p.throttled_pct);
	CHECK(!p.threads_lost, "every process's ticks are its threads'");
	for (i = 0; i < p.threads; i++) {
		of200 += p.thread[i].pid == 200;
		of300 += p.thread[i].pid == 300;
	}
	CHECK(of200 == 2 && of300 == 1, "threads by pid: %d of 200, %d of 300", of200, of300);
	memset(&in, 0, sizeof(in));
	for (k = 0; k < PF_NPSI; k++)
		in.box.psi_some[k] = in.box.psi_full[k] = -1;
	pf_pid_inputs(&p, 2.0, &in);
	pf_classify_pid(&in, &v);
	CHECK(strcmp(v.cls, "IO_WAIT") == 0, "the group's class: %s (d_state 0.375)", v.cls);
	sm[1].in_d = 0;
	pf_pid_figures_free(&p);
	CHECK(pf_group_figures(m, 3, 2.0, 100, &p) == 0, "group figures");
	pf_pid_inputs(&p, 2.0, &in);
	pf_classify_pid(&in, &v);
	CHECK(strcmp(v.cls, "ON_CPU_USER") == 0, "without the D samples: %s, util %.2f", v.cls,
	    p.util);
	pf_pid_figures_free(&p);

	/* Without cgroups known, each process's own limits, summed. */
	for (k = 0; k < 3; k++)
		m[k].cg = NULL;
	CHECK(pf_group_figures(m, 3, 2.0, 100, &p) == 0 && NEAR(p.cpus, 3.5) &&
	    NEAR(p.throttled_ratio, 12.0 / 71), "no cgroup known: cpus %.2f ratio %.3f",
	    p.cpus, p.throttled_ratio);
	pf_pid_figures_free(&p);

	/* One member is pf_pid_figures. */
	CHECK(pf_group_figures(&m[1], 1, 2.0, 100, &p) == 0 &&
	    pf_pid_figures(&a[1], &b[1], &sm[1], 2.0, 100, &one) == 0 &&
	    p.cpu == one.cpu && p.on_s == one.on_s && p.cpus == one.cpus && p.util == one.util &&
	    p.throttled_ratio == one.throttled_ratio && p.threads == one.threads,
	    "one member: the process's own figures");
	pf_pid_figures_free(&p);
	pf_pid_figures_free(&one);

	/* The wait channels of a group pooled. */
	memset(&all, 0, sizeof(all));
	snprintf(sm[0].wchan[0], sizeof(sm[0].wchan[0]), "do_epoll_wait");
	sm[0].wchan_count[0] = 3;
	sm[0].nwchan = 1;
	sm[0].wchan_seen = 3;
	snprintf(sm[1].wchan[0], sizeof(sm[1].wchan[0]), "futex_wait_queue");
	sm[1].wchan_count[0] = 2;
	snprintf(sm[1].wchan[1], sizeof(sm[1].wchan[1]), "do_epoll_wait");
	sm[1].wchan_count[1] = 2;
	sm[1].nwchan = 2;
	sm[1].wchan_seen = 4;
	pf_samples_add_wchan(&all, &sm[0]);
	pf_samples_add_wchan(&all, &sm[1]);
	k = (size_t)pf_samples_top_wchan(&all);
	CHECK(all.nwchan == 2 && all.wchan_seen == 7 && strcmp(all.wchan[k], "do_epoll_wait") == 0 &&
	    all.wchan_count[k] == 5, "pooled wait channels: %zu, top %s %u/%u", all.nwchan,
	    all.wchan[k], all.wchan_count[k], all.wchan_seen);
	for (k = 0; k < 3; k++) {
		free(a[k].sys);
		free(b[k].sys);
	}
}

/* Write path (under dir) with the printf-formatted text, making directories. */
static void put(const char *dir, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
put(const char *dir, const char *path, const char *fmt, ...)
{
	char full[PATH_MAX], *slash;
	va_list ap;
	FILE *fp;

	snprintf(full, sizeof(full), "%s/%s", dir, path);
	for (slash = strchr(full + strlen(dir) + 1, '/'); slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		(void)mkdir(full, 0755);
		*slash = '/';
	}
	if ((fp = fopen(full, "w")) == NULL) {
		perror(full);
		exit(2);
	}
	va_start(ap, fmt);
	vfprintf(fp, fmt, ap);
	va_end(ap);
	fclose(fp);
}

/* A thread's stat line: state, utime, stime, start time, blkio ticks. */
static void
put_stat(const char *dir, const char *path, int tid, char state, int utime, int start,
    int blkio)
{
	put(dir, path, "%d (app (x)) %c 1 1 1 0 -1 0 0 0 0 0 %d 0 0 0 20 0 1 0 %d "
	    "1000 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 %d 0 0\n", tid, state, utime, start,
	    blkio);
}

/* One moment of a /proc with process 42 and its threads 42 and 43. */
static void
put_proc(const char *dir, const char *root, int moment)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/stat", root);
	put(dir, p, "cpu  %d 0 100 %d 0 0 0 0 0 0\ncpu0 %d 0 100 %d 0 0 0 0 0 0\n"
	    "ctxt %d\nintr 5\nprocs_running 2\nprocs_blocked 0\n",
	    100 + moment * 150, 1000 + moment * 50, 100 + moment * 150,
	    1000 + moment * 50, 1000 + moment * 400);
	snprintf(p, sizeof(p), "%s/pressure/cpu", root);
	put(dir, p, "some avg10=0.00 avg60=0.00 avg300=0.00 total=%d\n", moment * 200000);
	snprintf(p, sizeof(p), "%s/vmstat", root);
	put(dir, p, "pgmajfault 3\noom_kill %d\npswpin 0\n", moment);
	snprintf(p, sizeof(p), "%s/42/stat", root);
	put_stat(dir, p, 42, 'S', 50 + moment * 100, 77, 0);
	snprintf(p, sizeof(p), "%s/42/status", root);
	put(dir, p, "Name:\tapp\nCpus_allowed_list:\t0-1\nvoluntary_ctxt_switches:\t1\n"
	    "nonvoluntary_ctxt_switches:\t1\n");
	snprintf(p, sizeof(p), "%s/42/io", root);
	put(dir, p, "rchar: 0\nwchar: 0\nread_bytes: %d\nwrite_bytes: 0\n", moment * 2048);
	snprintf(p, sizeof(p), "%s/42/task/42/stat", root);
	put_stat(dir, p, 42, 'R', 50 + moment * 100, 77, 0);
	snprintf(p, sizeof(p), "%s/42/task/42/schedstat", root);
	put(dir, p, "%d 0 %d\n", 500000000 + moment * 1000000000, 10 + moment * 100);
	snprintf(p, sizeof(p), "%s/42/task/42/status", root);
	put(dir, p, "voluntary_ctxt_switches:\t%d\nnonvoluntary_ctxt_switches:\t%d\n",
	    moment * 10, moment * 90);
	snprintf(p, sizeof(p), "%s/42/task/43/stat", root);
	put_stat(dir, p, 43, 'D', 0, 78, moment * 40);
	snprintf(p, sizeof(p), "%s/42/task/43/schedstat", root);
	put(dir, p, "1000 %d 5\n", moment * 1000);
}

/* One recorded sampling round: each thread's state, and 43's wait channel. */
static void
put_round(const char *dir, int n, char s42, char s43, const char *wchan)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "samples/%03d/proc/42/task/42/stat", n);
	put_stat(dir, p, 42, s42, 0, 77, 0);
	snprintf(p, sizeof(p), "samples/%03d/proc/42/task/43/stat", n);
	put_stat(dir, p, 43, s43, 0, 78, 0);
	snprintf(p, sizeof(p), "samples/%03d/proc/42/task/43/wchan", n);
	put(dir, p, "%s", wchan);
}

/*
 * Snapshots and sampling rounds read by path from a recorded tree, as a
 * replay reads them, and the figures over them.
 */
static void
test_read(void)
{
	char dir[] = "/tmp/pf-unit-cls-XXXXXX", t0[PATH_MAX], t1[PATH_MAX], cmd[PATH_MAX];
	struct pf_snap_reader r;
	struct pf_snap a, b;
	struct pf_samples sm;
	struct pf_pid_figures p;
	struct pf_cpu_figures f;
	struct pf_cls_box box;
	const struct pf_snap_thread *t;
	long top;

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		exit(2);
	}
	put_proc(dir, "t0/proc", 0);
	put_proc(dir, "t1/proc", 1);
	put_round(dir, 1, 'R', 'D', "io_schedule\n");
	put_round(dir, 2, 'S', 'D', "io_schedule\n");
	put_round(dir, 3, 'R', 'S', "do_fsync\n");
	snprintf(t0, sizeof(t0), "%s/t0/proc", dir);
	snprintf(t1, sizeof(t1), "%s/t1/proc", dir);

	pf_snap_reader_init(&r, 42, true);
	CHECK(r.taskdir == -1 && !r.brief, "a reader starts by path");
	CHECK(pf_snap_read(&r, t0, NULL, NULL, &a) == 0, "first snapshot: %s", strerror(errno));
	CHECK(a.alive && a.nthr == 2 && a.thr[0].tid == 42 && a.thr[1].tid == 43,
	    "process 42 and threads 42, 43: alive %d, %zu threads", a.alive, a.nthr);
	CHECK(a.sys->ncpu == 1 && a.have_psi[PF_PSI_CPU] && !a.have_psi[PF_PSI_IO] &&
	    a.have_vm[PF_VM_OOM_KILL] && a.have_io && a.status.cpus_allowed == 2,
	    "box and process files");
	t = pf_snap_thread_find(&a, 43);
	CHECK(t != NULL && t->starttime == 78 && t->have_sched && t->sched.slices == 5 &&
	    !t->have_cs && !t->kept, "thread 43 by path: schedstat, no status, not kept");
	CHECK(pf_snap_thread_find(&a, 44) == NULL, "no thread 44");

	pf_samples_start(&sm, &r, &a);
	CHECK(sm.first == &a && sm.base == NULL, "by path: sampled from listings");
	CHECK(pf_samples_replay(&r, &sm, dir) == 3, "three rounds replayed");
	CHECK(sm.rounds == 3 && sm.thread_points == 6 && sm.in_d == 2 && sm.in_r == 2 &&
	    sm.in_s == 2, "states: %u rounds, %llu points, D %llu R %llu S %llu", sm.rounds,
	    (unsigned long long)sm.thread_points, (unsigned long long)sm.in_d,
	    (unsigned long long)sm.in_r, (unsigned long long)sm.in_s);
	t = pf_snap_thread_find(&a, 43);
	CHECK(t != NULL && t->samples == 3 && t->samples_d == 2 &&
	    strcmp(t->wchan, "do_fsync") == 0,
	    "thread 43 tallied: %u samples, %u in D, last wchan %s", t ? t->samples : 0,
	    t ? t->samples_d : 0, t ? t->wchan : "");
	top = pf_samples_top_wchan(&sm);
	CHECK(top >= 0 && strcmp(sm.wchan[top], "io_schedule") == 0 &&
	    sm.wchan_count[top] == 2 && sm.wchan_seen == 3,
	    "top wait channel io_schedule 2/3");
	{
		struct pf_snap c;
		struct pf_samples shared;

		/* One of a group of 16: a round reads one thread, not both. */
		r.share = 16;
		CHECK(pf_snap_read(&r, t0, NULL, NULL, &c) == 0, "a group's first snapshot");
		pf_samples_start(&shared, &r, &c);
		CHECK(pf_samples_replay(&r, &shared, dir) == 3 && shared.thread_points == 3,
		    "a group's reader: %llu states in 3 rounds, want 3",
		    (unsigned long long)shared.thread_points);
		pf_samples_free(&shared);
		pf_snap_free(&c);
		r.share = 0;
	}
	CHECK(a.pid == 42, "the snapshot names its pid: %d", a.pid);

	CHECK(pf_snap_read(&r, t1, NULL, &a, &b) == 0, "second snapshot");
	pf_box_figures(&a, &b, 1.0, &f, &box);
	CHECK(NEAR(f.usr, 75) && NEAR(f.ctxt_s, 400) && NEAR(box.psi_some[PF_PSI_CPU], 20) &&
	    box.oom_kills == 1, "box: usr %.2f ctxt/s %.2f cpu some %.2f",
	    f.usr, f.ctxt_s, box.psi_some[PF_PSI_CPU]);
	CHECK(pf_pid_figures(&a, &b, &sm, 1.0, 100, &p) == 0, "figures");
	CHECK(NEAR(p.on_s, 1.0) && NEAR(p.cpu, 100) && NEAR(p.kb_rd_s, 2) &&
	    NEAR(p.d_state, 2.0 / 6) && NEAR(p.cpus, 1),
	    "on %.2f %%CPU %.2f kB_rd/s %.2f d_state %.2f cpus %.2f",
	    p.on_s, p.cpu, p.kb_rd_s, p.d_state, p.cpus);
	CHECK(p.have_cs && NEAR(p.cswch_s, 10) && NEAR(p.nvcswch_s, 90) &&
	    NEAR(p.switches_s, 100 + 0), "switches: 10 + 90 from 42's status, 43 has none");
	CHECK(p.iodelay == 40 && NEAR(p.bio_s, 0.4), "iodelay %llu",
	    (unsigned long long)p.iodelay);
	t = pf_snap_thread_find(&b, 43);
	{
		const struct pf_thread_figures *tf = NULL;
		int i;

		for (i = 0; i < p.threads; i++)
			if (p.thread[i].t1 == t)
				tf = &p.thread[i];
		CHECK(tf != NULL && NEAR(tf->io, 0.67) && tf->state == PF_THR_DISK,
		    "thread 43: io from its D samples %.2f (above its 0.4 s of delay), disk",
		    tf ? tf->io : -1);
	}
	pf_pid_figures_free(&p);

	/* The end-of-interval fallback: the wait channels as they are now. */
	{
		struct pf_samples *end = calloc(1, sizeof(*end));
		char p43[PATH_MAX];

		snprintf(p43, sizeof(p43), "t1/proc/42/task/43/wchan");
		put(dir, p43, "pipe_read\n");
		CHECK(end != NULL, "calloc");
		if (end != NULL) {
			pf_samples_wchan_now(&r, end, t1, &b);
			top = pf_samples_top_wchan(end);
			CHECK(top >= 0 && strcmp(end->wchan[top], "pipe_read") == 0 &&
			    end->wchan_seen == 1, "at the end: pipe_read");
		}
		free(end);
	}
	pf_snap_free(&a);
	pf_snap_free(&b);
	CHECK(a.thr == NULL && a.nthr == 0 && a.sys == NULL, "freed and zeroed");

	/* A process gone is no error; a /proc without stat is. */
	pf_snap_reader_init(&r, 99, false);
	CHECK(pf_snap_read(&r, t0, NULL, NULL, &a) == 0 && !a.alive && a.nthr == 0,
	    "pid 99 is not there: alive false");
	pf_snap_free(&a);
	snprintf(cmd, sizeof(cmd), "%s/none", dir);
	CHECK(pf_snap_read(&r, cmd, NULL, NULL, &a) == -1 && errno == ENOENT,
	    "no stat: -1 ENOENT");
	pf_snap_free(&a);
	pf_samples_free(&sm);

	/* System mode reads the box alone and samples the run queue. */
	pf_snap_reader_init(&r, 0, false);
	CHECK(pf_snap_read(&r, t0, NULL, NULL, &a) == 0 && !a.alive && a.nthr == 0,
	    "system mode: no process");
	pf_samples_start(&sm, &r, &a);
	pf_samples_round(&r, &sm, t0);
	pf_samples_round(&r, &sm, t1);
	CHECK(sm.rounds == 2 && sm.sys_rounds == 2 && sm.running_sum == 4 &&
	    sm.thread_points == 0, "system rounds: running sum %llu",
	    (unsigned long long)sm.running_sum);
	pf_snap_free(&a);
	pf_samples_free(&sm);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "test-classify: %s failed\n", cmd);
}

/* Whether fd is an open descriptor. */
static bool
is_open(int fd)
{
	return fd >= 0 && fcntl(fd, F_GETFD) != -1;
}

/*
 * Live: a child read below its task directory, its descriptors kept from
 * the first snapshot for the second and for the sampling, closed when
 * freed; once it has exited, a kept descriptor no longer answers.
 */
static void
test_live(void)
{
	struct pf_snap_reader r;
	struct pf_snap a, b, c;
	struct pf_samples sm;
	int pipefd[2], fds[PF_SNAP_NFILES], k, taskdir;
	pid_t child;
	char ch;

	if (pipe(pipefd) == -1) {
		perror("pipe");
		exit(2);
	}
	if ((child = fork()) == 0) {
		close(pipefd[1]);
		/* Asleep in read(2) until the test is done. */
		_exit(read(pipefd[0], &ch, 1) == -1);
	}
	CHECK(child > 0, "fork");
	close(pipefd[0]);
	pf_snap_reader_init(&r, (int)child, false);
	CHECK(pf_snap_reader_live(&r, "/proc") == 0 && r.taskdir != -1 && r.keep_budget > 0,
	    "live: the task directory is open, descriptors may be kept");
	taskdir = r.taskdir;
	CHECK(pf_snap_read(&r, "/proc", NULL, NULL, &a) == 0 && a.alive && a.nthr == 1 &&
	    a.thr[0].tid == (int)child, "first snapshot of the child");
	CHECK(a.nthr == 1 && a.thr[0].kept && a.thr[0].have_ticks, "its files are kept");
	for (k = 0; k < PF_SNAP_NFILES; k++)
		fds[k] = a.nthr == 1 ? a.thr[0].fd[k] : -1;
	CHECK(is_open(fds[PF_SNAP_STAT]) && is_open(fds[PF_SNAP_SCHED]) &&
	    is_open(fds[PF_SNAP_STATUS]), "three kept descriptors");

	/* Once the child sleeps in read(2), a round samples it in S. */
	for (k = 0; k < 500; k++) {
		struct pf_taskstat ts;

		if (pf_taskstat_read("/proc", (int)child, 0, &ts) == 0 && ts.state == 'S')
			break;
		usleep(10000);
	}
	pf_samples_start(&sm, &r, &a);
	pf_samples_round(&r, &sm, "/proc");
	CHECK(sm.thread_points == 1 && sm.in_s == 1 && a.thr[0].samples == 1,
	    "one round: %llu points, %llu in S", (unsigned long long)sm.thread_points,
	    (unsigned long long)sm.in_s);

	CHECK(pf_snap_read(&r, "/proc", NULL, &a, &b) == 0 && b.alive && b.nthr == 1 &&
	    b.thr[0].tid == (int)child && b.thr[0].starttime == a.thr[0].starttime &&
	    !b.thr[0].kept, "second snapshot: the same thread, re-read");
	pf_snap_free(&b);

	/* Gone: the kept descriptors no longer answer, the process is not alive. */
	close(pipefd[1]);
	waitpid(child, NULL, 0);
	CHECK(pf_snap_read(&r, "/proc", NULL, &a, &c) == 0 && !c.alive && c.nthr == 0,
	    "after the exit: not alive");
	pf_snap_free(&c);
	pf_samples_free(&sm);
	pf_snap_free(&a);
	CHECK(!is_open(fds[PF_SNAP_STAT]) && !is_open(fds[PF_SNAP_SCHED]) &&
	    !is_open(fds[PF_SNAP_STATUS]), "freeing closes the kept descriptors");
	pf_snap_reader_close(&r);
	CHECK(r.taskdir == -1 && !is_open(taskdir), "closed: reads go by path again");
	CHECK(pf_snap_reader_live(&r, "/nonexistent/pf-proc") == -1 && errno == ENOENT &&
	    r.taskdir == -1, "no task directory: -1 ENOENT, by path");
}

int
main(int argc, char **argv)
{
	static const struct unit_group groups[] = {
		{ "cpu", test_cpu }, { "box", test_box }, { "pid", test_pid },
		{ "group", test_group },
		{ "read", test_read }, { "live", test_live },
	};

	return unit_main(argc, argv, groups, sizeof(groups) / sizeof(groups[0]));
}
