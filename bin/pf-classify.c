/*
 * pf-classify: say what a box, or one process, is doing over a short
 * interval — on-CPU in user or kernel code, waiting for I/O, blocked
 * off-CPU, starved of CPU (run queue, cgroup quota, hypervisor steal),
 * under memory pressure, or idle — and which pf tool to run next.
 *
 * It takes a full snapshot of the counters it needs (/proc/stat, PSI,
 * /proc/vmstat, the process and each of its threads, the cgroup's
 * cpu.stat), samples thread states (or the run/blocked counts in system
 * mode) at 10 Hz during the interval, takes a second snapshot, and from
 * the figures of the interval (all three in lib/common/snapshot.c) puts
 * each thread in the state it spent the interval in and applies the
 * ordered decision table (lib/common/classify.c) to what the threads did.
 * This file holds the flow, the flags and the report: the verdict first,
 * then the busiest threads, then the figures.  With --replay the
 * snapshots and samples come from a recorded directory instead
 * (tests/capture-proc.sh makes them), so every class can be tested
 * exactly.  A list of processes (-p PID,PID,...) is classified as one
 * process whose threads are all of theirs (pf_group_figures).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "classify.h"
#include "fileio.h"
#include "msg.h"
#include "parse.h"
#include "pf.h"
#include "procstat.h"
#include "privs.h"
#include "psi.h"
#include "snapshot.h"
#include "sysctl.h"
#include "target.h"

static const char synopsis[] =
    "usage: pf-classify [-p PID[,PID...]] [-i SECONDS] [-t N] [--proc-root DIR]\n"
    "                   [--sys-root DIR]\n"
    "       pf-classify --replay DIR [-p PID[,PID...]] [-t N]\n";

static struct {
	pid_t pids[PF_TARGET_MAX_PIDS];	/* -p, repeats dropped */
	size_t npids;			/* 0: system mode */
	uint64_t interval_ns;
	const char *proc_root;
	const char *sys_root;
	const char *replay;
	int threads;			/* thread lines printed at most */
} opt = {
	.threads = 8,
	.npids = 0,
	.interval_ns = 5000000000ULL,
	.proc_root = "/proc",
	.sys_root = "/sys",
	.replay = NULL,
};

static void
usage(void)
{
	fputs(synopsis, stdout);
	fputs("\n"
	    "  -p, --pid PID[,PID...]\n"
	    "                       classify one process (all its threads), or a list of at\n"
	    "                       most 64 as one; default: the box\n"
	    "  -i, --interval SECS  sampling interval, 1-60 (default 5)\n"
	    "  -t, --threads N      PID mode: show the N busiest threads, 0-1000 (default 8)\n"
	    "      --proc-root DIR  read /proc from DIR (fixture trees)\n"
	    "      --sys-root DIR   read /sys from DIR (cgroup files)\n"
	    "      --replay DIR     classify a recorded pair of snapshots (see pf-classify(1))\n"
	    "  -h, --help           this help\n"
	    "      --version        print the version\n", stdout);
}

/* Flags accumulate into one comma-separated value. */
struct flags {
	char buf[512];
};

static void
flag(struct flags *f, const char *name)
{
	size_t l = strlen(f->buf);

	snprintf(f->buf + l, sizeof(f->buf) - l, "%s%s", l ? "," : "", name);
}

/* The pressure flags both modes raise: any PSI "some" of 10% or more. */
static void
psi_flags(struct flags *fl, const double *some)
{
	if (some[PF_PSI_CPU] >= 10)
		flag(fl, "psi-cpu");
	if (some[PF_PSI_IO] >= 10)
		flag(fl, "psi-io");
	if (some[PF_PSI_MEM] >= 10)
		flag(fl, "psi-memory");
}

/* One "key value" line of the figures, two decimals. */
static void
print_figure(const char *key, double v)
{
	printf("%s %.2f\n", key, v);
}

static void
print_psi(const double some[PF_NPSI], const double full[PF_NPSI])
{
	char key[64];
	size_t k;

	for (k = 0; k < PF_NPSI; k++) {
		if (some[k] < 0)
			continue;
		snprintf(key, sizeof(key), "psi_%s_some", pf_snap_psi_names[k]);
		print_figure(key, some[k]);
		if (full[k] >= 0 && k != PF_PSI_CPU) {
			snprintf(key, sizeof(key), "psi_%s_full", pf_snap_psi_names[k]);
			print_figure(key, full[k]);
		}
	}
}

/* The first lines of both modes: the verdict, then the figures behind it. */
static void
print_verdict(const struct pf_cls_verdict *v, const struct flags *fl, const char *next,
    const char *also)
{
	printf("class %s\n", v->cls);
	printf("flags %s\n", fl->buf[0] ? fl->buf : "none");
	printf("next %s\n", next);
	if (also != NULL)
		printf("next %s\n", also);
	if (v->hint != NULL)
		printf("hint %s\n", v->hint);
}

static void
system_flags(const struct pf_cpu_figures *f, const struct pf_cls_box *box, struct flags *fl)
{
	if (f->steal >= 3)
		flag(fl, "steal");
	psi_flags(fl, box->psi_some);
	if (box->psi_some[PF_PSI_CPU] < 0 || box->psi_some[PF_PSI_IO] < 0 ||
	    box->psi_some[PF_PSI_MEM] < 0)
		flag(fl, "psi-unavailable");
	if (f->busiest_cpu >= 90 && f->busy <= 60)
		flag(fl, "hot-cpu");
	if (f->irq + f->soft >= 20)
		flag(fl, "irq-high");
	if (f->sys >= 20)
		flag(fl, "sys-high");
}

static void
print_system(const struct pf_cpu_figures *f, const struct pf_cls_system *in, double T)
{
	printf("mode system\n");
	print_figure("interval", T);
	printf("ncpu %d\n", f->ncpu);
	printf("percent_basis %%usr to %%idle of all CPUs' time over the interval "
	    "(they add up to 100); busy and busiest_cpu the same of all CPUs and of "
	    "the busiest one\n");
	print_figure("%usr", f->usr);
	print_figure("%nice", f->nice);
	print_figure("%sys", f->sys);
	print_figure("%iowait", f->iowait);
	print_figure("%irq", f->irq);
	print_figure("%soft", f->soft);
	print_figure("%steal", f->steal);
	print_figure("%guest", f->guest);
	print_figure("%gnice", f->gnice);
	print_figure("%idle", f->idle);
	print_figure("busy", f->busy);
	print_figure("busiest_cpu", f->busiest_cpu);
	print_figure("cswch/s", f->ctxt_s);
	print_figure("intr/s", f->intr_s);
	print_figure("runq", in->runq);
	print_figure("blocked", in->blocked);
	print_psi(in->box.psi_some, in->box.psi_full);
	printf("oom_kills %llu\n", (unsigned long long)in->box.oom_kills);
}

static int
classify_system(const struct pf_snap *a, const struct pf_snap *b,
    const struct pf_samples *sm, double T)
{
	struct pf_cpu_figures f;
	struct flags fl = { "" };
	struct pf_cls_system in;
	struct pf_cls_verdict v;

	pf_box_figures(a, b, T, &f, &in.box);
	pf_system_inputs(b, sm, &f, &in);
	system_flags(&f, &in.box, &fl);
	pf_classify_system(&in, &v);
	print_verdict(&v, &fl, v.next, v.also);
	print_system(&f, &in, T);
	return PF_EXIT_OK;
}

/* One process of -p: how it is read, what was read, and its cgroup. */
struct member {
	int pid;
	struct pf_snap_reader r;
	struct pf_snap a, b;
	struct pf_samples sm;
	struct pf_cgroup cg;
	const char *gone;	/* why it is not the process of the start, or NULL */
};

/* Why the process is no longer the one measured at the start, or NULL. */
static const char *
pid_gone(const struct pf_snap *a, const struct pf_snap *b)
{
	if (!b->alive)
		return "gone";
	if (b->proc.starttime != a->proc.starttime)
		return "pid-reused";
	if ((b->proc.state == 'Z' && b->nthr <= 1) || b->proc.state == 'X')
		return "zombie";
	return NULL;
}

/*
 * The flags of PID mode, of the n members of m left at the end (all but
 * those gone; any gone raises process-exited).
 */
static void
pid_flags(const struct pf_cpu_figures *f, const struct pf_cls_box *box,
    const struct pf_pid_figures *p, const struct pf_cls_pid *in, const struct member *m,
    size_t n, bool exited, struct flags *fl)
{
	bool v1 = false, nested = false, brief = false, trunc = false, zombie = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (m[i].gone != NULL)
			continue;
		v1 |= m[i].cg.cpu_version == 1;
		nested |= m[i].cg.nested;
		brief |= m[i].r.brief;
		trunc |= m[i].b.truncated;
		zombie |= m[i].b.proc.state == 'Z';
	}
	if (f->steal >= 3)
		flag(fl, "steal");
	if (p->wait_share >= 0.1)
		flag(fl, "runq-wait");
	if (p->sysshare >= 0.2)
		flag(fl, "sys-high");
	psi_flags(fl, box->psi_some);
	if (p->d_state >= 0.1 || in->io_share >= 0.1)
		flag(fl, "d-state");
	if (f->busiest_cpu >= 90 && f->busy <= 60)
		flag(fl, "hot-cpu");
	if (!m[0].r.delayacct)
		flag(fl, "delayacct-off");
	if (!p->have_sched)
		flag(fl, "schedstat-unavailable");
	if (box->psi_some[PF_PSI_CPU] < 0 || box->psi_some[PF_PSI_IO] < 0 ||
	    box->psi_some[PF_PSI_MEM] < 0)
		flag(fl, "psi-unavailable");
	if (v1)
		flag(fl, "cgroup-v1");
	if (nested)
		flag(fl, "container");
	if (brief)
		flag(fl, "threads-brief");
	if (trunc)
		flag(fl, "threads-truncated");
	if (p->threads_lost)
		flag(fl, "threads-exited");
	if (zombie)
		flag(fl, "leader-zombie");
	if (exited)
		flag(fl, "process-exited");
}

/* The processes left at the end, as -p takes them: "12" or "12,34". */
static void
pids_left(const struct member *m, size_t n, char *buf, size_t size)
{
	size_t i, l = 0;

	buf[0] = '\0';
	for (i = 0; i < n && l < size; i++)
		if (m[i].gone == NULL)
			l += (size_t)snprintf(buf + l, size - l, "%s%d", l ? "," : "", m[i].pid);
}

/* A command that profiles one process gets its pid, or the list of them. */
static void
pid_next(const char *next, const char *pids, char *buf, size_t size)
{
	if (strcmp(next, "none") == 0 || strcmp(next, "pf-record -a") == 0)
		snprintf(buf, size, "%s", next);
	else
		snprintf(buf, size, "%s %s", next, pids);
}

/*
 * Text from /proc made one printable word: a process names itself, and a
 * name with a newline or a space must not become a line or a key of its
 * own (a "class" line of its choosing) in a report that scripts parse.
 */
static void
word(char *s)
{
	for (; *s != '\0'; s++)
		if (*s <= ' ' || *s > '~')
			*s = '?';
}

/*
 * The cgroup lines: one, or one per distinct cgroup of the members left.
 * A path is a name too (a delegated subtree's owner chooses it): one word.
 */
static void
print_cgroups(const struct member *m, size_t n)
{
	char path[sizeof(m->cg.path)];
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (m[i].gone != NULL && n > 1)
			continue;
		for (j = 0; j < i; j++)
			if (m[j].gone == NULL && strcmp(m[j].cg.path, m[i].cg.path) == 0)
				break;
		if (j < i)
			continue;
		snprintf(path, sizeof(path), "%s", m[i].cg.path[0] ? m[i].cg.path : "-");
		word(path);
		printf("cgroup %s\n", path);
	}
}

static void
print_pid(const struct member *m, size_t n, unsigned rounds,
    const struct pf_pid_figures *p, const struct pf_cpu_figures *f,
    const struct pf_cls_box *box, double T)
{
	printf("threads %d\n", p->threads);
	printf("threads_active %d\n", p->active);
	/* What each percentage is of: they are not shares of one whole. */
	printf("percent_basis %%usr %%system %%guest %%CPU %%wait of one CPU over the "
	    "interval (100 = one whole CPU, more with several threads); a thread's "
	    "%%CPU %%wait %%io each of the interval, measured apart (run time, queue "
	    "time, block-I/O delay or D-state samples), so they can add up past 100\n");
	print_figure("cpus", p->cpus);
	print_figure("%usr", p->usr);
	print_figure("%system", p->system);
	print_figure("%guest", p->guest);
	print_figure("%CPU", p->cpu);
	print_figure("%wait", p->wait);
	if (p->have_switches)
		print_figure("switches/s", p->switches_s);
	if (p->have_cs) {
		print_figure("cswch/s", p->cswch_s);
		print_figure("nvcswch/s", p->nvcswch_s);
	}
	if (p->have_io) {
		print_figure("kB_rd/s", p->kb_rd_s);
		print_figure("kB_wr/s", p->kb_wr_s);
	}
	printf("iodelay %llu\n", (unsigned long long)p->iodelay);
	print_figure("majflt/s", p->majflt_s);
	print_figure("minflt/s", p->minflt_s);
	print_figure("on_cpu", p->on_s / T);
	print_figure("runq_wait", p->runq_s / T);
	print_figure("capacity", p->capacity);
	print_figure("util", p->util);
	print_figure("wait_share", p->wait_share);
	print_figure("d_state", p->d_state);
	print_figure("t_state", p->t_state);
	print_figure("sysshare", p->sysshare);
	printf("state_samples %u\n", rounds);
	if (p->throttled_ratio >= 0) {
		print_figure("throttled_ratio", p->throttled_ratio);
		print_figure("throttled_pct", p->throttled_pct);
	}
	print_cgroups(m, n);
	print_figure("%steal", f->steal);
	print_figure("%iowait", f->iowait);
	print_figure("busy", f->busy);
	print_psi(box->psi_some, box->psi_full);
}

/* A process's %CPU over the interval, of one CPU; 0 when a counter went back. */
static double
process_cpu(const struct member *m, double T, long hz)
{
	uint64_t x = m->a.proc.utime + m->a.proc.stime, y = m->b.proc.utime + m->b.proc.stime;

	return y > x ? 100.0 * (double)(y - x) / ((double)hz * T) : 0;
}

/*
 * After the verdict: the mode, the process and the interval.  One
 * process: "pid" and "comm".  A list: "pids", then a "process" line each,
 * its threads and %CPU, or why it is not there any more.
 */
static void
print_pid_head(const struct member *m, size_t n, double T, long hz)
{
	char comm[sizeof(m->a.proc.comm)];
	size_t i;

	if (n == 1) {
		snprintf(comm, sizeof(comm), "%s", m->a.proc.comm[0] ? m->a.proc.comm : "-");
		word(comm);
		printf("mode pid\n");
		printf("pid %d\n", m->pid);
		printf("comm %s\n", comm);
		print_figure("interval", T);
		return;
	}
	printf("mode pids\n");
	printf("pids");
	for (i = 0; i < n; i++)
		printf("%c%d", i ? ',' : ' ', m[i].pid);
	printf("\n");
	for (i = 0; i < n; i++) {
		const struct pf_snap *s = m[i].gone != NULL ? &m[i].a : &m[i].b;

		snprintf(comm, sizeof(comm), "%s", s->proc.comm[0] ? s->proc.comm : "-");
		word(comm);
		if (m[i].gone != NULL)
			printf("process %d exited=%s comm=%s\n", m[i].pid, m[i].gone, comm);
		else
			printf("process %d threads=%ld %%CPU=%.2f comm=%s\n", m[i].pid,
			    s->proc.num_threads, process_cpu(&m[i], T, hz), comm);
	}
	print_figure("interval", T);
}

/* The threads most worth a look first: the busiest, then the most switching. */
static int
cmp_thread_figures(const void *x, const void *y)
{
	const struct pf_thread_figures *a = x, *b = y;
	double busy_a = a->on + a->rq + a->io, busy_b = b->on + b->rq + b->io;

	if (busy_a != busy_b)
		return busy_a < busy_b ? 1 : -1;
	if (a->sw != b->sw)
		return a->sw < b->sw ? 1 : -1;
	if (a->t1->tid != b->t1->tid)
		return (a->t1->tid > b->t1->tid) - (a->t1->tid < b->t1->tid);
	return (a->pid > b->pid) - (a->pid < b->pid);
}

/*
 * The per-thread table: how many threads are in each state, then the top
 * opt.threads threads that are not idle, one line each, as pidstat -t
 * shows them (percentages of one CPU), with the state the decision saw;
 * of a list, with the pid each thread belongs to.
 */
static void
print_threads(struct pf_pid_figures *p, const char *proc_root, bool group)
{
	struct pf_taskstat ts;
	char wchan[64], comm[64];
	int k, shown = 0, i;

	printf("thread_states");
	for (k = 0; k < PF_NTHR_STATE; k++)
		printf(" %s=%u", pf_cls_thread_names[k], p->nstate[k]);
	printf("\n");
	qsort(p->thread, (size_t)p->threads, sizeof(*p->thread), cmp_thread_figures);
	for (i = 0; i < p->threads && shown < opt.threads; i++)
		if (p->thread[i].state != PF_THR_IDLE)
			shown++;
	printf("threads_shown %d\n", shown);
	for (i = 0; i < p->threads && shown > 0; i++) {
		const struct pf_thread_figures *t = &p->thread[i];

		if (t->state == PF_THR_IDLE)
			continue;
		shown--;
		snprintf(comm, sizeof(comm), "-");
		if (pf_taskstat_read(proc_root, t->pid, t->t1->tid, &ts) == 0 && ts.comm[0])
			snprintf(comm, sizeof(comm), "%s", ts.comm);
		/* Where it slept while sampled, else where it sleeps now. */
		snprintf(wchan, sizeof(wchan), "-");
		if (t->t0 != NULL && t->t0->wchan[0])
			snprintf(wchan, sizeof(wchan), "%s", t->t0->wchan);
		else if (pf_proc_read(proc_root, t->pid, t->t1->tid, "wchan", wchan,
		    sizeof(wchan)) <= 0 || wchan[0] == '\0' || strcmp(wchan, "0") == 0)
			snprintf(wchan, sizeof(wchan), "-");
		wchan[strcspn(wchan, "\n")] = '\0';
		word(comm);
		word(wchan);
		printf("thread %d", t->t1->tid);
		if (group)
			printf(" pid=%d", t->pid);
		printf(" state=%s %%CPU=%.2f %%wait=%.2f %%io=%.2f",
		    pf_cls_thread_names[t->state], 100 * t->on, 100 * t->rq, 100 * t->io);
		if (t->sw >= 0)
			printf(" switches/s=%.2f", t->sw);
		printf(" samples=%u wchan=%s comm=%s\n", t->t0 != NULL ? t->t0->samples : 0,
		    wchan, comm);
	}
}

/*
 * Where the threads sleep: the most common kernel wait channel, a hint
 * for off-CPU analysis (futex: locks; ep_poll, do_select: event loops;
 * hrtimer_nanosleep: sleeps; I/O functions: the disk).  From the tally
 * made while sampling, of every member left; where there is none (too
 * short an interval), from the threads at the end of the interval, if
 * at_end.
 */
static void
print_wchan(struct member *m, size_t n, const char *proc_root, bool at_end)
{
	struct pf_samples *all;		/* big: not on the stack */
	long best;
	size_t i;

	if ((all = calloc(1, sizeof(*all))) == NULL)
		return;
	for (i = 0; i < n; i++)
		if (m[i].gone == NULL)
			pf_samples_add_wchan(all, &m[i].sm);
	if (all->nwchan == 0 && at_end)
		for (i = 0; i < n; i++)
			if (m[i].gone == NULL)
				pf_samples_wchan_now(&m[i].r, all, proc_root, &m[i].b);
	if ((best = pf_samples_top_wchan(all)) != -1) {
		printf("wchan %s\n", all->wchan[best]);
		printf("wchan_share %u/%u\n", all->wchan_count[best], all->wchan_seen);
	}
	free(all);
}

/*
 * PID mode, for one process or a list of n taken as one.  A member gone
 * at the start is an error; one gone at the end is left out and said, and
 * when none is left the class is EXITED.  Live, the wait channels at the
 * end of the interval (when no sample saw one) have never been read: the
 * task directory they are read below was closed by then.  That is kept as
 * it was; a replay reads them.
 */
static int
classify_pid(struct member *m, size_t n, double T, long hz, const char *proc1)
{
	struct pf_group_member *gm;
	struct pf_cpu_figures f;
	struct pf_pid_figures p;
	struct flags fl = { "" };
	struct pf_cls_pid in;
	struct pf_cls_verdict v;
	char pids[PF_TARGET_MAX_PIDS * 12], next[sizeof(pids) + 32], also[sizeof(next)];
	size_t i, k = 0;
	unsigned rounds = 0;

	pf_box_figures(&m[0].a, &m[0].b, T, &f, &in.box);
	for (i = 0; i < n; i++)
		if (!m[i].a.alive)
			pf_diex(PF_EXIT_FAIL, "pid %d: no such process at the start", m[i].pid);
	if ((gm = calloc(n, sizeof(*gm))) == NULL)
		pf_die(PF_EXIT_FAIL, "per-thread figures");
	for (i = 0; i < n; i++) {
		if ((m[i].gone = pid_gone(&m[i].a, &m[i].b)) != NULL) {
			/* Each reason once, in the order of the list. */
			if (strstr(fl.buf, m[i].gone) == NULL)
				flag(&fl, m[i].gone);
			continue;
		}
		gm[k++] = (struct pf_group_member){ &m[i].a, &m[i].b, &m[i].sm, &m[i].cg };
		if (rounds < m[i].sm.rounds)
			rounds = m[i].sm.rounds;
	}
	if (k == 0) {
		printf("class EXITED\n");
		printf("flags %s\n", fl.buf);
		printf("next none\n");
		print_pid_head(m, n, T, hz);
		free(gm);
		return PF_EXIT_FINDING;
	}
	fl.buf[0] = '\0';
	if (pf_group_figures(gm, k, T, hz, &p) == -1)
		pf_die(PF_EXIT_FAIL, "per-thread figures");
	free(gm);
	pf_pid_inputs(&p, T, &in);
	pid_flags(&f, &in.box, &p, &in, m, n, k < n, &fl);
	pf_classify_pid(&in, &v);
	if (v.competing_load)
		flag(&fl, "competing-load");
	pids_left(m, n, pids, sizeof(pids));
	pid_next(v.next, pids, next, sizeof(next));
	if (v.also != NULL)
		pid_next(v.also, pids, also, sizeof(also));

	print_verdict(&v, &fl, next, v.also != NULL ? also : NULL);
	print_pid_head(m, n, T, hz);
	print_threads(&p, proc1, n > 1);
	print_pid(m, n, rounds, &p, &f, &in.box, T);
	if (strcmp(v.cls, "OFF_CPU") == 0 || strcmp(v.cls, "IO_WAIT") == 0 ||
	    strcmp(v.cls, "MIXED") == 0)
		print_wchan(m, n, proc1, opt.replay != NULL);
	pf_pid_figures_free(&p);
	return PF_EXIT_OK;
}

/* Read a small decimal file of a replay directory. */
static int
replay_number(const char *name, double min, double max, double *out)
{
	char path[PATH_MAX], buf[64];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", opt.replay, name);
	if ((n = pf_read_small(path, buf, sizeof(buf))) == -1)
		return -1;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	if (pf_parse_double(buf, min, max, out) == -1)
		pf_diex(PF_EXIT_FAIL, "%s: not a number in [%g, %g]: '%s'", path, min, max, buf);
	return 0;
}

/*
 * The processes of a replay directory, its pid file: one pid, or a list
 * as -p takes it.  Nothing when there is no such file (system mode).
 */
static void
replay_pids(void)
{
	char path[PATH_MAX], buf[PF_TARGET_MAX_PIDS * 12], why[96];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/pid", opt.replay);
	if ((n = pf_read_small(path, buf, sizeof(buf))) == -1)
		return;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	if (pf_parse_pid_arg(buf, opt.pids, PF_TARGET_MAX_PIDS, &opt.npids, why,
	    sizeof(why)) == -1)
		pf_diex(PF_EXIT_FAIL, "%s: not a pid list (%s)", path, why);
	opt.npids = pf_pid_list_unique(opt.pids, opt.npids);
}

/* The command line into opt; any misuse is exit 2 (pf_usage_error). */
static void
parse_options(int argc, char **argv)
{
	enum { OPT_PROC_ROOT = 256, OPT_REPLAY, OPT_SYS_ROOT, OPT_VERSION };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "interval", required_argument, NULL, 'i' },
		{ "pid", required_argument, NULL, 'p' },
		{ "proc-root", required_argument, NULL, OPT_PROC_ROOT },
		{ "replay", required_argument, NULL, OPT_REPLAY },
		{ "sys-root", required_argument, NULL, OPT_SYS_ROOT },
		{ "threads", required_argument, NULL, 't' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	static const char shortopts[] = ":hi:p:t:";
	char why[96];
	uint64_t v;
	int c;

	opterr = 0;	/* one line of our own, from pf_usage_getopt */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage();
			pf_exit_checked(PF_EXIT_OK);
		case 'i':
			if (pf_parse_duration(optarg, 1000000000ULL, 1000000000ULL,
			    60000000000ULL, &opt.interval_ns) == -1)
				pf_usage_error(synopsis, "-i %s: want 1 to 60 seconds", optarg);
			break;
		case OPT_PROC_ROOT:
			opt.proc_root = optarg;
			break;
		case 'p':
			if (pf_parse_pid_arg(optarg, opt.pids, PF_TARGET_MAX_PIDS, &opt.npids, why,
			    sizeof(why)) == -1)
				pf_usage_error(synopsis, "%s", why);
			opt.npids = pf_pid_list_unique(opt.pids, opt.npids);
			break;
		case OPT_REPLAY:
			opt.replay = optarg;
			break;
		case 't':
			if (pf_parse_u64(optarg, 0, 1000, &v) == -1)
				pf_usage_error(synopsis, "-t %s: want 0 to 1000 threads", optarg);
			opt.threads = (int)v;
			break;
		case OPT_SYS_ROOT:
			opt.sys_root = optarg;
			break;
		case OPT_VERSION:
			pf_print_version();
		default:
			pf_usage_getopt(synopsis, shortopts, c, argv);
		}
	}
	if (optind != argc)
		pf_usage_error(synopsis, "%s: unexpected argument", argv[optind]);
}

/* System mode: the box alone, one reader. */
static int
run_system(const char *p0, const char *p1, double *T, bool delayacct)
{
	struct pf_snap_reader r;
	struct pf_snap a, b;
	struct pf_samples sm;
	double t0 = 0;
	int rc;

	pf_snap_reader_init(&r, 0, delayacct);
	if (pf_snap_read(&r, p0, NULL, NULL, &a) == -1)
		pf_die(PF_EXIT_FAIL, "%s/stat", p0);
	pf_samples_start(&sm, &r, &a);
	if (opt.replay != NULL)
		(void)pf_samples_replay(&r, &sm, opt.replay);
	else {
		t0 = pf_snap_clock();
		pf_samples_run(&r, &sm, p0, t0, t0 + *T);
	}
	if (pf_snap_read(&r, p1, NULL, &a, &b) == -1)
		pf_die(PF_EXIT_FAIL, "%s/stat", p1);
	if (opt.replay == NULL)
		*T = pf_snap_clock() - t0;
	rc = classify_system(&a, &b, &sm, *T);
	pf_snap_free(&a);
	pf_snap_free(&b);
	pf_samples_free(&sm);
	return rc;
}

/*
 * A live group of more than PF_SNAP_BRIEF_ABOVE threads in all is read in
 * brief, as one process of as many would be: the cost is the threads'.
 */
static void
group_brief(struct member *m, size_t n, const char *proc_root)
{
	struct pf_taskstat ts;
	long threads = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (pf_taskstat_read(proc_root, m[i].pid, 0, &ts) == 0 && ts.num_threads > 0)
			threads += ts.num_threads;
	if (threads <= PF_SNAP_BRIEF_ABOVE)
		return;
	for (i = 0; i < n; i++)
		if (m[i].r.taskdir != -1)
			m[i].r.brief = true;
}

/* PID mode: each process of -p read at both ends and sampled between. */
static int
run_pids(const char *p0, const char *p1, const char *s1, double *T, long hz,
    bool delayacct)
{
	struct pf_snap_reader **rs;
	struct pf_samples **sms;
	struct member *m;
	size_t i, n = opt.npids;
	double t0 = 0;
	int rc;

	m = calloc(n, sizeof(*m));
	rs = calloc(n, sizeof(*rs));
	sms = calloc(n, sizeof(*sms));
	if (m == NULL || rs == NULL || sms == NULL)
		pf_die(PF_EXIT_FAIL, "%zu processes", n);
	for (i = 0; i < n; i++) {
		m[i].pid = (int)opt.pids[i];
		pf_snap_reader_init(&m[i].r, m[i].pid, delayacct);
		m[i].r.share = (unsigned)n;
		(void)pf_cgroup_find(p1, s1, m[i].pid, &m[i].cg);
		rs[i] = &m[i].r;
		sms[i] = &m[i].sm;
	}
	if (opt.replay != NULL) {
		char sys0[PATH_MAX];

		/* The t0 snapshot of a replay reads t0's sys tree: same cgroup path. */
		snprintf(sys0, sizeof(sys0), "%s/t0/sys", opt.replay);
		for (i = 0; i < n; i++) {
			struct pf_cgroup cg0 = m[i].cg;

			(void)pf_cgroup_find(p0, sys0, m[i].pid, &cg0);
			if (pf_snap_read(&m[i].r, p0, &cg0, NULL, &m[i].a) == -1)
				pf_die(PF_EXIT_FAIL, "%s/stat", p0);
			pf_samples_start(&m[i].sm, &m[i].r, &m[i].a);
			(void)pf_samples_replay(&m[i].r, &m[i].sm, opt.replay);
		}
	} else {
		/* Without the task directory every read goes by path. */
		for (i = 0; i < n; i++)
			(void)pf_snap_reader_live(&m[i].r, p0);
		if (n > 1)
			group_brief(m, n, p0);
		for (i = 0; i < n; i++) {
			if (pf_snap_read(&m[i].r, p0, &m[i].cg, NULL, &m[i].a) == -1)
				pf_die(PF_EXIT_FAIL, "%s/stat", p0);
			if (!m[i].a.alive)
				pf_diex(PF_EXIT_FAIL, "pid %d: no such process", m[i].pid);
			pf_samples_start(&m[i].sm, &m[i].r, &m[i].a);
		}
		t0 = pf_snap_clock();
		pf_samples_run_group(rs, sms, n, p0, t0, t0 + *T);
	}
	for (i = 0; i < n; i++) {
		if (pf_snap_read(&m[i].r, p1, &m[i].cg, &m[i].a, &m[i].b) == -1)
			pf_die(PF_EXIT_FAIL, "%s/stat", p1);
		pf_snap_reader_close(&m[i].r);
	}
	if (opt.replay == NULL)
		*T = pf_snap_clock() - t0;
	rc = classify_pid(m, n, *T, hz, p1);
	for (i = 0; i < n; i++) {
		pf_snap_free(&m[i].a);
		pf_snap_free(&m[i].b);
		pf_samples_free(&m[i].sm);
	}
	free(m);
	free(rs);
	free(sms);
	return rc;
}

int
main(int argc, char **argv)
{
	char proc0[PATH_MAX], proc1[PATH_MAX], sys1[PATH_MAX];
	const char *p0, *p1, *s1;
	struct stat st;
	double T, d;
	long hz, delay = 0;

	parse_options(argc, argv);

	hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0)
		hz = 100;
	if (opt.replay != NULL) {
		if (stat(opt.replay, &st) == -1)
			pf_die(PF_EXIT_FAIL, "%s", opt.replay);
		snprintf(proc0, sizeof(proc0), "%s/t0/proc", opt.replay);
		snprintf(proc1, sizeof(proc1), "%s/t1/proc", opt.replay);
		snprintf(sys1, sizeof(sys1), "%s/t1/sys", opt.replay);
		p0 = proc0;
		p1 = proc1;
		s1 = sys1;
		if (replay_number("interval", 0.01, 3600, &T) == -1)
			pf_die(PF_EXIT_FAIL, "%s/interval", opt.replay);
		if (opt.npids == 0)
			replay_pids();
		if (replay_number("clk_tck", 1, 100000, &d) == 0)
			hz = (long)d;
	} else {
		p0 = p1 = opt.proc_root;
		s1 = opt.sys_root;
		T = (double)opt.interval_ns / 1e9;
	}
	if (stat(p0, &st) == -1)
		pf_die(PF_EXIT_FAIL, "%s", p0);
	if (pf_sysctl_long(p1, "sys/kernel/task_delayacct", &delay) == -1)
		delay = 0;
	if (opt.npids == 0)
		pf_exit_checked(run_system(p0, p1, &T, delay > 0));
	pf_exit_checked(run_pids(p0, p1, s1, &T, hz, delay > 0));
}
