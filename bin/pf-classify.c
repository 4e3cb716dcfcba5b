/*
 * pf-classify: say what a box, or one process, is doing over a short
 * interval — on-CPU in user or kernel code, waiting for I/O, blocked
 * off-CPU, starved of CPU (run queue, cgroup quota, hypervisor steal),
 * under memory pressure, or idle — and which pf tool to run next.
 *
 * It takes a full snapshot of the counters it needs (/proc/stat, PSI,
 * /proc/vmstat, the process and each of its threads, the cgroup's
 * cpu.stat), samples thread states (or the run/blocked counts in system
 * mode) at 10 Hz during the interval, takes a second snapshot, puts each
 * thread in the state it spent the interval in, and applies the ordered
 * decision table (lib/common/classify.c) to what the threads did.  The
 * verdict is printed first, then the busiest threads, then the figures.
 * Threads are matched by tid and starttime, so a recycled tid never
 * produces a negative or huge delta.  With --replay the snapshots and
 * samples come from a recorded directory instead (tests/capture-proc.sh
 * makes them), so every class can be tested exactly.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
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
#include "sysctl.h"

#define MAX_TASKS	8192	/* threads of one process read per snapshot */
#define SAMPLE_HZ	10
#define MAX_SAMPLES	600
#define SAMPLE_THREADS	16	/* thread states read per sampling round */
#define SAMPLE_BRIEF	8	/* the same, for a process read in brief */
#define SAMPLE_LIST_MAX	256	/* above: sample the first snapshot's threads */
#define BRIEF_ABOVE	256	/* above: read threads in brief (schedstat) */

static const char synopsis[] =
    "usage: pf-classify [-p PID] [-i SECONDS] [-t N] [--proc-root DIR] [--sys-root DIR]\n"
    "       pf-classify --replay DIR [-p PID] [-t N]\n";

static struct {
	int pid;			/* 0: system mode */
	uint64_t interval_ns;
	const char *proc_root;
	const char *sys_root;
	const char *replay;
	int threads;			/* thread lines printed at most */
} opt = {
	.threads = 8,
	.pid = 0,
	.interval_ns = 5000000000ULL,
	.proc_root = "/proc",
	.sys_root = "/sys",
	.replay = NULL,
};

static const char *const psi_names[PF_NPSI] = { "cpu", "io", "memory" };

enum { VM_OOM, VM_PSWPIN, VM_PGMAJ, NVM };
static const char *const vm_keys[NVM] = { "oom_kill", "pswpin", "pgmajfault" };

/* A thread's files kept open from the first snapshot to the second. */
enum { TF_STAT, TF_SCHED, TF_STATUS, NTF };
static const char *const tf_names[NTF] = { "stat", "schedstat", "status" };

struct thr {
	int tid;
	uint64_t start;
	uint64_t utime, stime, blkio;
	bool have_ticks;		/* stat was read: start, utime, stime, blkio */
	struct pf_schedstat ss;
	bool have_ss;
	uint64_t vcs, nvcs;
	bool have_cs;
	bool kept;			/* fd[] are open (live mode, first snapshot) */
	int fd[NTF];			/* -1: that file is not read */
	/* First snapshot only: its state samples, and where it last slept. */
	unsigned smp, smp_d;
	char wchan[64];
};

/*
 * Live PID mode reads each thread's files relative to one descriptor of
 * <proc>/<pid>/task and keeps the first snapshot's descriptors open for
 * the second and for the state sampling: on a process with thousands of
 * threads the opens, closes and path walks are most of pf-classify's cost.
 */
#define FD_RESERVE	64	/* descriptors left for everything else */
static struct {
	int taskdir;			/* -1: path reads (replay, or no task dir) */
	long keep_budget;		/* threads whose files may still be kept */
	bool brief;			/* read schedstat (and stat for blkio) only */
	bool delayacct;			/* blkio ticks mean something */
} live = { -1, 0, false, false };

struct snap {
	struct pf_sysstat *sys;
	struct pf_psi psi[PF_NPSI];
	bool have_psi[PF_NPSI];
	uint64_t vm[NVM];
	bool have_vm[NVM];
	/* PID mode */
	bool alive;
	struct pf_taskstat proc;
	struct pf_status status;
	struct pf_io io;
	bool have_io;
	struct thr *thr;
	size_t nthr;
	bool truncated;
	struct pf_cgroup_cpu cg;
	bool have_cg;
};

/*
 * Wait channels tallied while sampling: the distinct names seen (at most
 * MAX_WCHAN) and how often.  At most WCHAN_READS are read a round, so the
 * tally costs little even for processes with many threads.
 */
#define MAX_WCHAN 64
#define WCHAN_READS 4

/* State samples taken during the interval. */
struct samples {
	char wchan[MAX_WCHAN][64];
	unsigned wchan_count[MAX_WCHAN];
	size_t nwchan;
	unsigned wchan_seen;
	unsigned n;			/* sampling rounds */
	uint64_t thr_points, d, r, s;	/* PID mode: thread x round points by state */
	uint64_t running, blocked;	/* system mode: sums of procs_running/procs_blocked */
	unsigned sys_n;
	unsigned long rot;		/* where the next round starts in the thread list */
	struct snap *base;		/* live, many threads: sample these */
	struct snap *first;		/* the thread samples are tallied here */
	int *tids;			/* the thread list being sampled */
	long ntids;
	char root[PATH_MAX];		/* the proc root it came from */
};

static void
usage(void)
{
	fputs(synopsis, stdout);
	fputs("\n"
	    "  -p, --pid PID        classify one process (all its threads); default: the box\n"
	    "  -i, --interval SECS  sampling interval, 1-60 (default 5)\n"
	    "  -t, --threads N      PID mode: show the N busiest threads, 0-1000 (default 8)\n"
	    "      --proc-root DIR  read /proc from DIR (fixture trees)\n"
	    "      --sys-root DIR   read /sys from DIR (cgroup files)\n"
	    "      --replay DIR     classify a recorded pair of snapshots (see pf-classify(1))\n"
	    "  -h, --help           this help\n"
	    "      --version        print the version\n", stdout);
}

static int
cmp_thr(const void *a, const void *b)
{
	const struct thr *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static void
snap_free(struct snap *s)
{
	size_t i;
	int k;

	for (i = 0; i < s->nthr; i++)
		if (s->thr[i].kept)
			for (k = 0; k < NTF; k++)
				if (s->thr[i].fd[k] != -1)
					close(s->thr[i].fd[k]);
	free(s->sys);
	free(s->thr);
	memset(s, 0, sizeof(*s));
}

/*
 * Parse what was read of a thread's files into t (tid and kept left
 * alone): at least stat or schedstat.  Without stat (brief) the thread is
 * known by its kept descriptors, not by its start time.
 */
static int
thr_parse(struct thr *t, const char *stat, const char *sched, const char *status)
{
	struct pf_taskstat ts;
	struct pf_status st;

	t->have_ticks = stat != NULL && pf_taskstat_parse(stat, &ts) == 0;
	if (t->have_ticks) {
		t->start = ts.starttime;
		t->utime = ts.utime;
		t->stime = ts.stime;
		t->blkio = ts.blkio_ticks;
	}
	t->have_ss = sched != NULL && pf_schedstat_parse(sched, &t->ss) == 0;
	if (!t->have_ticks && !t->have_ss)
		return -1;
	t->have_cs = false;
	if (status != NULL && pf_status_parse(status, &st) == 0 && st.have_ctxt) {
		t->have_cs = true;
		t->vcs = st.vcs;
		t->nvcs = st.nvcs;
	}
	return 0;
}

/* Per-thread read buffers, one each: sized as procstat's own readers. */
static char tbuf_stat[1024], tbuf_sched[128], tbuf_status[8192];
static char *const tbuf[NTF] = { tbuf_stat, tbuf_sched, tbuf_status };
static const size_t tbuf_cap[NTF] = { sizeof(tbuf_stat), sizeof(tbuf_sched),
    sizeof(tbuf_status) };

/*
 * Which of a thread's files a live read opens.  All three, unless the
 * process has so many threads that reading them would cost more than the
 * 1 % of a CPU pf-classify promises: then schedstat alone (run and wait
 * time, and its slice count for the switches), plus stat when delay
 * accounting makes its blkio ticks worth having.
 */
static bool
thr_wants(int k)
{
	if (!live.brief)
		return true;
	return k == TF_SCHED || (k == TF_STAT && live.delayacct);
}

/*
 * Read thread tid's files afresh into t: by path, or (live mode) opened
 * below the task directory and kept open when keep and the budget allow.
 * -1 when the thread is gone.
 */
static int
thr_read(struct thr *t, const char *proc_root, int tid, bool keep)
{
	const char *txt[NTF];
	int fd[NTF], k, rc;

	t->tid = tid;
	t->kept = false;
	if (live.taskdir == -1) {
		for (k = 0; k < NTF; k++)
			txt[k] = pf_proc_read(proc_root, opt.pid, tid, tf_names[k],
			    tbuf[k], tbuf_cap[k]) == -1 ? NULL : tbuf[k];
		return thr_parse(t, txt[TF_STAT], txt[TF_SCHED], txt[TF_STATUS]);
	}
	/* A thread whose descriptors are not kept is known by its start time. */
	keep = keep && live.keep_budget > 0;
	for (k = 0; k < NTF; k++) {
		fd[k] = -1;
		txt[k] = NULL;
		if (!thr_wants(k) && !(k == TF_STAT && !keep))
			continue;
		fd[k] = pf_proc_openat(live.taskdir, tid, tf_names[k]);
		if (fd[k] != -1 && pf_proc_pread(fd[k], tbuf[k], tbuf_cap[k]) != -1)
			txt[k] = tbuf[k];
	}
	rc = thr_parse(t, txt[TF_STAT], txt[TF_SCHED], txt[TF_STATUS]);
	if (rc == 0 && keep && (fd[TF_SCHED] != -1 || fd[TF_STAT] != -1)) {
		live.keep_budget--;
		t->kept = true;
		memcpy(t->fd, fd, sizeof(fd));
		return 0;
	}
	for (k = 0; k < NTF; k++)
		if (fd[k] != -1)
			close(fd[k]);
	return rc;
}

/* pread a kept descriptor into buf, or NULL when it is not kept or fails. */
static const char *
thr_pread(int fd, char *buf, size_t cap)
{
	return fd != -1 && pf_proc_pread(fd, buf, cap) != -1 ? buf : NULL;
}

/*
 * Read thread o again through the descriptors kept since the first
 * snapshot, into t.  A thread whose schedstat has not moved was not
 * switched in since (a switch-in counts a slice, a switch-out adds run
 * time): its ticks, I/O delay and context switches cannot have moved
 * either, so only that one small file is read.  -1 when the task the
 * descriptors belong to has exited (its tid may name a new thread now).
 */
static int
thr_reread(struct thr *t, const struct thr *o)
{
	struct pf_schedstat ss;
	const char *sched;

	sched = thr_pread(o->fd[TF_SCHED], tbuf_sched, sizeof(tbuf_sched));
	if (sched == NULL && o->fd[TF_SCHED] != -1)
		return -1;
	if (sched != NULL && o->have_ss && pf_schedstat_parse(sched, &ss) == 0 &&
	    ss.slices > 0 && ss.run_ns > 0 && ss.run_ns == o->ss.run_ns &&
	    ss.wait_ns == o->ss.wait_ns && ss.slices == o->ss.slices) {
		*t = *o;
		t->kept = false;
		return 0;
	}
	t->tid = o->tid;
	t->kept = false;
	if (thr_parse(t, thr_pread(o->fd[TF_STAT], tbuf_stat, sizeof(tbuf_stat)), sched,
	    thr_pread(o->fd[TF_STATUS], tbuf_status, sizeof(tbuf_status))) == -1)
		return -1;
	/* The descriptors, not a start time, tie this read to the first. */
	if (!t->have_ticks)
		t->start = o->start;
	return 0;
}

/* The same, for tallying into the first snapshot. */
static struct thr *
thr_find_mut(struct snap *s, int tid)
{
	struct thr key = { .tid = tid };

	if (s == NULL || s->nthr == 0)
		return NULL;
	return bsearch(&key, s->thr, s->nthr, sizeof(*s->thr), cmp_thr);
}

static const struct thr *
thr_find(const struct snap *s, int tid)
{
	struct thr key = { .tid = tid };

	if (s == NULL || s->nthr == 0)
		return NULL;
	return bsearch(&key, s->thr, s->nthr, sizeof(*s->thr), cmp_thr);
}

/*
 * The second snapshot without listing the threads again (a listing makes
 * the kernel build a dentry per thread): when the first snapshot kept
 * every thread's descriptors, the process has as many threads as then and
 * every one of them still answers, no thread was born in between.  False
 * (s->thr left empty) when that cannot be shown.
 */
static bool
snap_same_threads(struct snap *s, const struct snap *prev)
{
	size_t i;

	if (prev->truncated || prev->nthr == 0 || s->proc.num_threads != (long)prev->nthr)
		return false;
	for (i = 0; i < prev->nthr; i++)
		if (!prev->thr[i].kept)
			return false;
	if ((s->thr = calloc(prev->nthr, sizeof(*s->thr))) == NULL)
		return false;
	for (i = 0; i < prev->nthr; i++)
		if (thr_reread(&s->thr[i], &prev->thr[i]) == -1) {
			free(s->thr);
			s->thr = NULL;
			return false;
		}
	s->nthr = prev->nthr;
	return true;
}

/*
 * Read one snapshot from proc_root/sys_root; prev, when given, is the
 * live first snapshot whose kept descriptors serve the re-reads.  Returns
 * 0, or -1 with errno when /proc/stat itself cannot be read (a runtime
 * failure); a vanished target is not an error (alive = false).
 */
static int
snap_read(struct snap *s, const char *proc_root, const struct pf_cgroup *cg,
    const struct snap *prev)
{
	char path[PATH_MAX];
	int *tids = NULL;
	long n, i;
	size_t k;

	memset(s, 0, sizeof(*s));
	if ((s->sys = malloc(sizeof(*s->sys))) == NULL)
		return -1;
	if (pf_sysstat_read(proc_root, s->sys) == -1)
		return -1;
	for (k = 0; k < PF_NPSI; k++)
		s->have_psi[k] = pf_psi_read_system(proc_root, psi_names[k], &s->psi[k]) == 0;
	if ((size_t)snprintf(path, sizeof(path), "%s/vmstat", proc_root) < sizeof(path))
		(void)pf_keyvals_read(path, vm_keys, NVM, s->vm, s->have_vm);
	if (opt.pid == 0)
		return 0;
	if (pf_taskstat_read(proc_root, opt.pid, 0, &s->proc) == -1)
		return 0;
	s->alive = true;
	(void)pf_status_read(proc_root, opt.pid, 0, &s->status);
	s->have_io = pf_io_read(proc_root, opt.pid, &s->io) == 0;
	if (cg != NULL && cg->cpu_version != 0)
		s->have_cg = pf_cgroup_cpu_read(cg, &s->cg) == 0;
	if (prev != NULL && snap_same_threads(s, prev))
		return 0;
	n = pf_tasks_list(proc_root, opt.pid, MAX_TASKS, &tids, &s->truncated);
	if (n <= 0) {
		free(tids);
		return 0;
	}
	/* Decided once, on the first snapshot: both must read the same files. */
	if (prev == NULL && live.taskdir != -1 && n > BRIEF_ABOVE)
		live.brief = true;
	if ((s->thr = calloc((size_t)n, sizeof(*s->thr))) == NULL) {
		free(tids);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct thr *t = &s->thr[s->nthr];
		const struct thr *o = thr_find(prev, tids[i]);

		if (o != NULL && o->kept && thr_reread(t, o) == 0) {
			s->nthr++;
			continue;
		}
		if (thr_read(t, proc_root, tids[i], prev == NULL) == -1)
			continue;	/* exited between the listing and the read */
		s->nthr++;
	}
	free(tids);
	qsort(s->thr, s->nthr, sizeof(*s->thr), cmp_thr);
	return 0;
}

/*
 * Live PID mode: open the task directory the per-thread files are read
 * below, and let as many threads keep their three files open as the
 * descriptor limit allows (raising the soft limit toward the hard one).
 * Without the directory every read goes by path, as in a replay.
 */
static void
live_open(const char *proc_root)
{
	char path[PATH_MAX];
	struct rlimit rl;
	rlim_t want = (rlim_t)MAX_TASKS * NTF + FD_RESERVE;

	if ((size_t)snprintf(path, sizeof(path), "%s/%d/task", proc_root, opt.pid) >= sizeof(path) ||
	    (live.taskdir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		live.taskdir = -1;
		return;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return;
	if (rl.rlim_cur < want && rl.rlim_cur < rl.rlim_max) {
		rlim_t cur = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			rl.rlim_cur = cur;
	}
	if (rl.rlim_cur > FD_RESERVE)
		live.keep_budget = (long)((rl.rlim_cur - FD_RESERVE) / NTF);
}

/*
 * Count where thread tid sleeps.  Sampled through the interval rather than
 * read once at its end, so one unlucky moment (the thread just woken and
 * waiting for a CPU, wchan "0") cannot hide where it spends its time.
 */
static void
tally_wchan(struct samples *sm, const char *proc_root, int tid, struct thr *ft)
{
	char buf[64];
	size_t k;

	if (live.taskdir != -1) {
		int fd = pf_proc_openat(live.taskdir, tid, "wchan");
		long r = fd == -1 ? -1 : pf_proc_pread(fd, buf, sizeof(buf));

		if (fd != -1)
			close(fd);
		if (r <= 0)
			return;
	} else if (pf_proc_read(proc_root, opt.pid, tid, "wchan", buf, sizeof(buf)) <= 0)
		return;
	buf[strcspn(buf, "\n")] = '\0';
	if (buf[0] == '\0' || strcmp(buf, "0") == 0)
		return;		/* running, or not waiting anywhere */
	if (ft != NULL)
		snprintf(ft->wchan, sizeof(ft->wchan), "%s", buf);
	for (k = 0; k < sm->nwchan && strcmp(sm->wchan[k], buf) != 0; k++)
		;
	if (k == sm->nwchan) {
		if (sm->nwchan == MAX_WCHAN)
			return;
		snprintf(sm->wchan[k], sizeof(sm->wchan[k]), "%s", buf);
		sm->wchan_count[k] = 0;
		sm->nwchan++;
	}
	sm->wchan_count[k]++;
	sm->wchan_seen++;
}

/* One sampling round: thread states (PID mode) and run/blocked counts. */
static void
sample_once(struct samples *sm, const char *proc_root)
{
	struct pf_sysstat *sys;
	const int *tids;
	bool trunc;
	long n, i, j, k;
	int wchan_reads = 0;

	sm->n++;
	if (opt.pid == 0) {
		if ((sys = malloc(sizeof(*sys))) != NULL && pf_sysstat_read(proc_root, sys) == 0) {
			sm->running += sys->procs_running;
			sm->blocked += sys->procs_blocked;
			sm->sys_n++;
		}
		free(sys);
		return;
	}
	/*
	 * At most SAMPLE_THREADS states a round (SAMPLE_BRIEF for a process
	 * read in brief, whose sampling would otherwise be a third of the
	 * cost), rotating through the threads, so a process with thousands of
	 * threads costs no more to watch than one with a few dozen.
	 */
	/*
	 * The thread list is refreshed once a second, not every round; a
	 * process with more than SAMPLE_LIST_MAX threads is sampled from the
	 * first snapshot's threads, through its kept descriptors, and not
	 * listed again (a listing costs a dentry per thread).
	 */
	if (sm->base == NULL && (sm->tids == NULL || sm->n % SAMPLE_HZ == 1 ||
	    strcmp(proc_root, sm->root) != 0)) {
		free(sm->tids);
		sm->tids = NULL;
		sm->ntids = pf_tasks_list(proc_root, opt.pid, MAX_TASKS, &sm->tids, &trunc);
		snprintf(sm->root, sizeof(sm->root), "%s", proc_root);
	}
	tids = sm->tids;
	n = sm->base != NULL ? (long)sm->base->nthr : sm->ntids;
	k = live.brief ? SAMPLE_BRIEF : SAMPLE_THREADS;
	if (n < k)
		k = n;
	for (j = 0; j < k; j++) {
		char buf[512];
		const char *p;
		struct thr *t = NULL, *ft;
		int tid;
		long r;

		i = (long)((sm->rot + (unsigned long)j) % (unsigned long)n);
		if (sm->base != NULL) {
			t = &sm->base->thr[i];
			tid = t->tid;
		} else
			tid = tids[i];
		if (t != NULL && t->kept && t->fd[TF_STAT] != -1)
			r = pf_proc_pread(t->fd[TF_STAT], buf, sizeof(buf));
		else if (t != NULL && live.taskdir != -1) {
			int fd = pf_proc_openat(live.taskdir, tid, "stat");

			r = fd == -1 ? -1 : pf_proc_pread(fd, buf, sizeof(buf));
			if (fd != -1)
				close(fd);
		} else
			r = pf_proc_read(proc_root, opt.pid, tid, "stat", buf, sizeof(buf));
		if (r <= 0 || (p = strrchr(buf, ')')) == NULL || p[1] != ' ')
			continue;
		ft = t != NULL ? t : thr_find_mut(sm->first, tid);
		if (ft != NULL) {
			ft->smp++;
			ft->smp_d += p[2] == 'D';
		}
		sm->thr_points++;
		if (p[2] == 'D')
			sm->d++;
		else if (p[2] == 'R')
			sm->r++;
		else if (p[2] == 'S')
			sm->s++;
		if ((p[2] == 'D' || p[2] == 'S') && wchan_reads++ < WCHAN_READS)
			tally_wchan(sm, proc_root, tid, ft);
	}
	if (k > 0)
		sm->rot += (unsigned long)k;
}

static uint64_t
d64(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;	/* a counter that went back is a reset */
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
sleep_until(double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* mpstat's figures over the interval, from two /proc/stat reads. */
struct cpufig {
	double usr, nice, sys, iowait, irq, soft, steal, guest, gnice, idle, busy;
	double hot_busy;	/* the busiest single CPU */
	double ctxt_s, intr_s;
	int ncpu;
};

static double
ticks_itv(const struct pf_cpu_ticks *a, const struct pf_cpu_ticks *b)
{
	return (double)(d64(a->user, b->user) + d64(a->nice, b->nice) +
	    d64(a->system, b->system) + d64(a->idle, b->idle) +
	    d64(a->iowait, b->iowait) + d64(a->irq, b->irq) +
	    d64(a->softirq, b->softirq) + d64(a->steal, b->steal));
}

static void
cpu_fig(const struct pf_sysstat *a, const struct pf_sysstat *b, double T, struct cpufig *f)
{
	const struct pf_cpu_ticks *x = &a->all, *y = &b->all;
	double itv = ticks_itv(x, y);
	int i, j;

	memset(f, 0, sizeof(*f));
	f->ncpu = b->ncpu > 0 ? b->ncpu : 1;
	if (itv <= 0) {
		f->idle = 100;
	} else {
		/* guest is inside user and guest_nice inside nice (proc(5)). */
		f->usr = 100.0 * (double)d64(x->user - (x->guest <= x->user ? x->guest : x->user),
		    y->user - (y->guest <= y->user ? y->guest : y->user)) / itv;
		f->nice = 100.0 * (double)d64(x->nice - (x->guest_nice <= x->nice ? x->guest_nice : x->nice),
		    y->nice - (y->guest_nice <= y->nice ? y->guest_nice : y->nice)) / itv;
		f->sys = 100.0 * (double)d64(x->system, y->system) / itv;
		f->iowait = 100.0 * (double)d64(x->iowait, y->iowait) / itv;
		f->irq = 100.0 * (double)d64(x->irq, y->irq) / itv;
		f->soft = 100.0 * (double)d64(x->softirq, y->softirq) / itv;
		f->steal = 100.0 * (double)d64(x->steal, y->steal) / itv;
		f->guest = 100.0 * (double)d64(x->guest, y->guest) / itv;
		f->gnice = 100.0 * (double)d64(x->guest_nice, y->guest_nice) / itv;
		f->idle = 100.0 * (double)d64(x->idle, y->idle) / itv;
	}
	f->busy = 100.0 - f->idle - f->iowait - f->steal;
	if (f->busy < 0)
		f->busy = 0;
	/* Per CPU, matched by CPU number: a CPU that went offline is skipped. */
	for (j = 0; j < b->ncpu; j++) {
		for (i = 0; i < a->ncpu; i++) {
			double ci, busy;

			if (a->cpu_id[i] != b->cpu_id[j])
				continue;
			ci = ticks_itv(&a->cpu[i], &b->cpu[j]);
			if (ci > 0) {
				busy = 100.0 * (ci - (double)d64(a->cpu[i].idle, b->cpu[j].idle) -
				    (double)d64(a->cpu[i].iowait, b->cpu[j].iowait) -
				    (double)d64(a->cpu[i].steal, b->cpu[j].steal)) / ci;
				if (busy > f->hot_busy)
					f->hot_busy = busy;
			}
			break;
		}
	}
	if (T > 0) {
		f->ctxt_s = (double)d64(a->ctxt, b->ctxt) / T;
		f->intr_s = (double)d64(a->intr, b->intr) / T;
	}
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

static void
kv(const char *key, double v)
{
	printf("%s %.2f\n", key, v);
}

/* PSI percentages over the interval; -1 when absent at either end. */
static void
psi_pct(const struct snap *a, const struct snap *b, double T, double some[PF_NPSI], double full[PF_NPSI])
{
	size_t k;

	for (k = 0; k < PF_NPSI; k++) {
		some[k] = full[k] = -1;
		if (!a->have_psi[k] || !b->have_psi[k])
			continue;
		some[k] = pf_psi_pct(a->psi[k].some_total, b->psi[k].some_total, T * 1e6);
		if (a->psi[k].have_full && b->psi[k].have_full)
			full[k] = pf_psi_pct(a->psi[k].full_total, b->psi[k].full_total, T * 1e6);
	}
}

static void
print_psi(const double some[PF_NPSI], const double full[PF_NPSI])
{
	char key[64];
	size_t k;

	for (k = 0; k < PF_NPSI; k++) {
		if (some[k] < 0)
			continue;
		snprintf(key, sizeof(key), "psi_%s_some", psi_names[k]);
		kv(key, some[k]);
		if (full[k] >= 0 && k != PF_PSI_CPU) {
			snprintf(key, sizeof(key), "psi_%s_full", psi_names[k]);
			kv(key, full[k]);
		}
	}
}

/* The box figures both modes decide on. */
static void
box_fig(const struct snap *a, const struct snap *b, double T, struct cpufig *f,
    struct pf_cls_box *box)
{
	cpu_fig(a->sys, b->sys, T, f);
	psi_pct(a, b, T, box->psi_some, box->psi_full);
	box->steal = f->steal;
	box->oom_kills = 0;
	if (a->have_vm[VM_OOM] && b->have_vm[VM_OOM])
		box->oom_kills = d64(a->vm[VM_OOM], b->vm[VM_OOM]);
}

/* The first lines of both modes: the verdict, then the figures behind it. */
static void
print_verdict(const struct pf_cls_verdict *v, const struct flags *fl, const char *next)
{
	printf("class %s\n", v->cls);
	printf("flags %s\n", fl->buf[0] ? fl->buf : "none");
	printf("next %s\n", next);
	if (v->hint != NULL)
		printf("hint %s\n", v->hint);
}

static void
system_flags(const struct cpufig *f, const struct pf_cls_box *box, struct flags *fl)
{
	if (f->steal >= 3)
		flag(fl, "steal");
	psi_flags(fl, box->psi_some);
	if (box->psi_some[PF_PSI_CPU] < 0 || box->psi_some[PF_PSI_IO] < 0 ||
	    box->psi_some[PF_PSI_MEM] < 0)
		flag(fl, "psi-unavailable");
	if (f->hot_busy >= 90 && f->busy <= 60)
		flag(fl, "hot-cpu");
	if (f->irq + f->soft >= 20)
		flag(fl, "irq-high");
	if (f->sys >= 20)
		flag(fl, "sys-high");
}

static void
print_system(const struct cpufig *f, const struct pf_cls_system *in, double T)
{
	printf("mode system\n");
	kv("interval", T);
	printf("ncpu %d\n", f->ncpu);
	kv("%usr", f->usr);
	kv("%nice", f->nice);
	kv("%sys", f->sys);
	kv("%iowait", f->iowait);
	kv("%irq", f->irq);
	kv("%soft", f->soft);
	kv("%steal", f->steal);
	kv("%guest", f->guest);
	kv("%gnice", f->gnice);
	kv("%idle", f->idle);
	kv("busy", f->busy);
	kv("busiest_cpu", f->hot_busy);
	kv("cswch/s", f->ctxt_s);
	kv("intr/s", f->intr_s);
	kv("runq", in->runq);
	kv("blocked", in->blocked);
	print_psi(in->box.psi_some, in->box.psi_full);
	printf("oom_kills %llu\n", (unsigned long long)in->box.oom_kills);
}

static int
classify_system(const struct snap *a, const struct snap *b, const struct samples *sm, double T)
{
	struct cpufig f;
	struct flags fl = { "" };
	struct pf_cls_system in;
	struct pf_cls_verdict v;

	box_fig(a, b, T, &f, &in.box);
	/* procs_running counts this reader; take it off. */
	in.runq = sm->sys_n ? (double)sm->running / sm->sys_n - 1 : (double)b->sys->procs_running - 1;
	if (in.runq < 0)
		in.runq = 0;
	in.blocked = sm->sys_n ? (double)sm->blocked / sm->sys_n : (double)b->sys->procs_blocked;
	in.busy = f.busy;
	in.idle = f.idle;
	in.hot_busy = f.hot_busy;
	in.sys = f.sys;
	in.irq_soft = f.irq + f.soft;
	in.iowait = f.iowait;
	in.ncpu = f.ncpu;

	system_flags(&f, &in.box, &fl);
	pf_classify_system(&in, &v);
	print_verdict(&v, &fl, v.next);
	print_system(&f, &in, T);
	return PF_EXIT_OK;
}

/* One thread's figures over the interval. */
struct tfig {
	const struct thr *t0, *t1;	/* t0 NULL: born in the interval */
	double on, rq, io;		/* shares of the interval */
	double sw;			/* switches per second, -1 unknown */
	int state;			/* PF_THR_* */
};

/* The PID-mode figures (doc/classification.md). */
struct pidfig {
	double usr, system, guest, cpu, wait;	/* pidstat columns, % of one CPU */
	double cs, ncs, kb_rd, kb_wr, majflt, minflt;
	uint64_t iodelay;			/* ticks, all threads */
	double on, rq, bio;			/* seconds */
	int nth, nact;
	double ncpu_eff, cap, util, wshare, dfrac, sfrac, sysshare;
	double thr_ratio, thr_pct;		/* -1 when unknown */
	double sw;				/* switches: status, else schedstat slices */
	struct tfig *tf;			/* per thread, nth of them (malloc'd) */
	unsigned nstate[PF_NTHR_STATE];		/* threads in each state */
	bool have_sched, have_cs, have_sw, threads_lost;
};

static void
pid_fig(const struct snap *a, const struct snap *b, const struct samples *sm,
    double T, long hz, struct pidfig *p)
{
	const struct pf_taskstat *x = &a->proc, *y = &b->proc;
	double tick = (double)hz * T;
	uint64_t dut, dst;
	size_t i, j = 0;
	double sum_ticks = 0;

	memset(p, 0, sizeof(*p));
	if ((p->tf = calloc(b->nthr > 0 ? b->nthr : 1, sizeof(*p->tf))) == NULL)
		pf_die(PF_EXIT_FAIL, "per-thread figures");
	dut = d64(x->utime, y->utime);
	dst = d64(x->stime, y->stime);
	p->usr = 100.0 * (double)d64(x->utime - (x->guest_time <= x->utime ? x->guest_time : x->utime),
	    y->utime - (y->guest_time <= y->utime ? y->guest_time : y->utime)) / tick;
	p->system = 100.0 * (double)dst / tick;
	p->guest = 100.0 * (double)d64(x->guest_time, y->guest_time) / tick;
	p->cpu = 100.0 * (double)(dut + dst) / tick;
	p->sysshare = dut + dst > 0 ? (double)dst / (double)(dut + dst) : 0;
	p->majflt = (double)d64(x->majflt, y->majflt) / T;
	p->minflt = (double)d64(x->minflt, y->minflt) / T;
	if (a->have_io && b->have_io) {
		p->kb_rd = (double)d64(a->io.read_bytes, b->io.read_bytes) / 1024 / T;
		p->kb_wr = (double)d64(a->io.write_bytes, b->io.write_bytes) / 1024 / T;
	}
	/* Threads alive at t1, matched to t0 by tid and starttime; new ones count from 0. */
	for (i = 0; i < b->nthr; i++) {
		const struct thr *t = &b->thr[i], *o = NULL;
		struct thr zero = { 0 };
		double on, rq;

		while (j < a->nthr && a->thr[j].tid < t->tid)
			j++;
		if (j < a->nthr && a->thr[j].tid == t->tid && a->thr[j].start == t->start)
			o = &a->thr[j];
		if (o == NULL) {
			zero.have_ss = t->have_ss;
			zero.have_cs = t->have_cs;
			zero.have_ticks = t->have_ticks;
			o = &zero;
		}
		p->nth++;
		p->iodelay += d64(o->blkio, t->blkio);
		if (t->have_ss && o->have_ss) {
			on = (double)d64(o->ss.run_ns, t->ss.run_ns) / 1e9;
			rq = (double)d64(o->ss.wait_ns, t->ss.wait_ns) / 1e9;
			if (t->ss.run_ns || t->ss.wait_ns || t->ss.slices)
				p->have_sched = true;
		} else {
			on = (double)(d64(o->utime, t->utime) + d64(o->stime, t->stime)) / (double)hz;
			rq = 0;
		}
		if (t->have_ticks && o->have_ticks)
			sum_ticks += (double)(d64(o->utime, t->utime) + d64(o->stime, t->stime));
		else
			sum_ticks += on * (double)hz;
		p->on += on;
		p->rq += rq;
		if (on + rq > 0.01 * T)
			p->nact++;
		{
			struct tfig *tf = &p->tf[p->nth - 1];
			struct pf_cls_thread ct;
			const struct thr *f = o == &zero ? NULL : o;
			double io = (double)d64(o->blkio, t->blkio) / (double)hz / T;

			tf->t0 = f;
			tf->t1 = t;
			tf->on = on / T;
			tf->rq = rq / T;
			/* Without delay accounting, its share of D-state samples. */
			if (f != NULL && f->smp > 0 && (double)f->smp_d / f->smp > io)
				io = (double)f->smp_d / f->smp;
			tf->io = io > 1 ? 1 : io;
			tf->sw = -1;
			if (t->have_cs && o->have_cs)
				tf->sw = (double)(d64(o->vcs, t->vcs) + d64(o->nvcs, t->nvcs)) / T;
			else if (t->have_ss && o->have_ss)
				tf->sw = (double)d64(o->ss.slices, t->ss.slices) / T;
			ct.on = tf->on;
			ct.rq = tf->rq;
			ct.io = tf->io;
			ct.lock = f != NULL && strstr(f->wchan, "futex") != NULL;
			ct.woke = on + rq > 0 || tf->sw > 0;
			tf->state = pf_cls_thread_state(&ct);
			p->nstate[tf->state]++;
		}
		if (t->have_cs && o->have_cs) {
			p->have_cs = true;
			p->cs += (double)d64(o->vcs, t->vcs);
			p->ncs += (double)d64(o->nvcs, t->nvcs);
			p->have_sw = true;
			p->sw += (double)(d64(o->vcs, t->vcs) + d64(o->nvcs, t->nvcs));
		} else if (t->have_ss && o->have_ss) {
			/* Every switch in starts a slice: the switches, unsplit. */
			p->have_sw = true;
			p->sw += (double)d64(o->ss.slices, t->ss.slices);
		}
	}
	/* schedstat "0 0 0" for busy tasks means it is switched off: use ticks. */
	if (!p->have_sched) {
		p->on = (double)(dut + dst) / (double)hz;
		p->rq = 0;
	}
	/*
	 * Exited threads keep their CPU in the process totals only.  Tick
	 * sampling and the two reads not being simultaneous make small gaps
	 * normal: flag only a gap of 10 % and a fifth of a CPU second.
	 */
	if ((double)(dut + dst) - sum_ticks > 0.1 * (double)(dut + dst) &&
	    (double)(dut + dst) - sum_ticks > (double)hz / 5)
		p->threads_lost = true;
	p->cs /= T;
	p->ncs /= T;
	p->sw /= T;
	p->wait = 100.0 * p->rq / T;
	p->bio = (double)p->iodelay / (double)hz;
	if (p->nact < 1)
		p->nact = 1;
	p->ncpu_eff = b->sys->ncpu > 0 ? b->sys->ncpu : 1;
	if (b->status.cpus_allowed > 0 && b->status.cpus_allowed < p->ncpu_eff)
		p->ncpu_eff = b->status.cpus_allowed;
	if (b->have_cg && b->cg.quota_cpus > 0 && b->cg.quota_cpus < p->ncpu_eff)
		p->ncpu_eff = b->cg.quota_cpus;
	p->cap = p->nact < p->ncpu_eff ? p->nact : p->ncpu_eff;
	p->util = p->on / (T * p->cap);
	p->wshare = p->on + p->rq > 0 ? p->rq / (p->on + p->rq) : 0;
	p->dfrac = sm->thr_points ? (double)sm->d / (double)sm->thr_points : 0;
	p->sfrac = sm->thr_points ? (double)sm->s / (double)sm->thr_points : 0;
	p->thr_ratio = p->thr_pct = -1;
	if (a->have_cg && b->have_cg && a->cg.have_throttle && b->cg.have_throttle) {
		uint64_t per = d64(a->cg.nr_periods, b->cg.nr_periods);

		p->thr_ratio = per ? (double)d64(a->cg.nr_throttled, b->cg.nr_throttled) / (double)per : 0;
		p->thr_pct = 100.0 * (double)d64(a->cg.throttled_us, b->cg.throttled_us) / (T * 1e6);
	}
}

/*
 * Where the threads sleep: the most common kernel wait channel, a hint
 * for off-CPU analysis (futex: locks; ep_poll, do_select: event loops;
 * hrtimer_nanosleep: sleeps; I/O functions: the disk).  From the tally
 * made while sampling; where there is none (too short an interval), from
 * the threads at the end of the interval.
 */
static void
print_wchan(const char *proc_root, const struct snap *b, const struct samples *sampled)
{
	struct samples *end = NULL;	/* big: not on the stack */
	const struct samples *sm = sampled;
	size_t i, k, best = 0;

	if (sm->nwchan == 0) {
		if ((end = calloc(1, sizeof(*end))) == NULL)
			return;
		for (i = 0; i < b->nthr && i < MAX_WCHAN; i++)
			tally_wchan(end, proc_root, b->thr[i].tid, NULL);
		sm = end;
	}
	if (sm->nwchan == 0) {
		free(end);
		return;
	}
	for (k = 1; k < sm->nwchan; k++)
		if (sm->wchan_count[k] > sm->wchan_count[best])
			best = k;
	printf("wchan %s\n", sm->wchan[best]);
	printf("wchan_share %u/%u\n", sm->wchan_count[best], sm->wchan_seen);
	free(end);
}

/* Why the process is no longer the one measured at the start, or NULL. */
static const char *
pid_gone(const struct snap *a, const struct snap *b)
{
	if (!b->alive)
		return "gone";
	if (b->proc.starttime != a->proc.starttime)
		return "pid-reused";
	if ((b->proc.state == 'Z' && b->nthr <= 1) || b->proc.state == 'X')
		return "zombie";
	return NULL;
}

static void
pid_flags(const struct cpufig *f, const struct pf_cls_box *box, const struct pidfig *p,
    const struct pf_cls_pid *in, const struct snap *b, const struct pf_cgroup *cg,
    bool delayacct, struct flags *fl)
{
	if (f->steal >= 3)
		flag(fl, "steal");
	if (p->wshare >= 0.1)
		flag(fl, "runq-wait");
	if (p->sysshare >= 0.2)
		flag(fl, "sys-high");
	psi_flags(fl, box->psi_some);
	if (p->dfrac >= 0.1 || in->io_share >= 0.1)
		flag(fl, "d-state");
	if (f->hot_busy >= 90 && f->busy <= 60)
		flag(fl, "hot-cpu");
	if (!delayacct)
		flag(fl, "delayacct-off");
	if (!p->have_sched)
		flag(fl, "schedstat-unavailable");
	if (box->psi_some[PF_PSI_CPU] < 0 || box->psi_some[PF_PSI_IO] < 0 ||
	    box->psi_some[PF_PSI_MEM] < 0)
		flag(fl, "psi-unavailable");
	if (cg->cpu_version == 1)
		flag(fl, "cgroup-v1");
	if (cg->nested)
		flag(fl, "container");
	if (live.brief)
		flag(fl, "threads-brief");
	if (b->truncated)
		flag(fl, "threads-truncated");
	if (p->threads_lost)
		flag(fl, "threads-exited");
	if (b->proc.state == 'Z')
		flag(fl, "leader-zombie");
}

/* The decision's view of the process figures. */
static void
pid_inputs(const struct pidfig *p, double T, struct pf_cls_pid *in)
{
	in->throttled_ratio = p->thr_ratio;
	in->wait_share = p->wshare;
	in->io_share = p->bio / (p->nact * T);
	in->d_state = p->dfrac;
	in->runq_wait = p->rq / T;
	in->on_cpu = p->on / T;
	in->runnable = (p->on + p->rq) / T;
	in->runnable_share = (p->on + p->rq) / (T * p->nact);
	in->threads_active = p->nact;
	in->cpus = p->ncpu_eff;
	in->util = p->util;
	in->sysshare = p->sysshare;
	in->have_cs = p->have_sw;
	in->switches_s = p->sw;
}

/* A command that profiles one process gets its pid. */
static void
pid_next(const char *next, char *buf, size_t size)
{
	if (strcmp(next, "none") == 0 || strcmp(next, "pf-record -a") == 0)
		snprintf(buf, size, "%s", next);
	else
		snprintf(buf, size, "%s %d", next, opt.pid);
}

static void
print_pid(const struct snap *a, const struct snap *b, const struct samples *sm,
    const struct pidfig *p, const struct cpufig *f, const struct pf_cls_box *box,
    const struct pf_cgroup *cg, double T)
{
	printf("threads %d\n", p->nth);
	printf("threads_active %d\n", p->nact);
	kv("cpus", p->ncpu_eff);
	kv("%usr", p->usr);
	kv("%system", p->system);
	kv("%guest", p->guest);
	kv("%CPU", p->cpu);
	kv("%wait", p->wait);
	if (p->have_sw)
		kv("switches/s", p->sw);
	if (p->have_cs) {
		kv("cswch/s", p->cs);
		kv("nvcswch/s", p->ncs);
	}
	if (a->have_io && b->have_io) {
		kv("kB_rd/s", p->kb_rd);
		kv("kB_wr/s", p->kb_wr);
	}
	printf("iodelay %llu\n", (unsigned long long)p->iodelay);
	kv("majflt/s", p->majflt);
	kv("minflt/s", p->minflt);
	kv("on_cpu", p->on / T);
	kv("runq_wait", p->rq / T);
	kv("capacity", p->cap);
	kv("util", p->util);
	kv("wait_share", p->wshare);
	kv("d_state", p->dfrac);
	kv("sysshare", p->sysshare);
	printf("state_samples %u\n", sm->n);
	if (p->thr_ratio >= 0) {
		kv("throttled_ratio", p->thr_ratio);
		kv("throttled_pct", p->thr_pct);
	}
	printf("cgroup %s\n", cg->path[0] ? cg->path : "-");
	kv("%steal", f->steal);
	kv("%iowait", f->iowait);
	kv("busy", f->busy);
	print_psi(box->psi_some, box->psi_full);
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

static void
print_pid_head(const struct snap *a, double T)
{
	char comm[sizeof(a->proc.comm)];

	snprintf(comm, sizeof(comm), "%s", a->proc.comm[0] ? a->proc.comm : "-");
	word(comm);
	printf("mode pid\n");
	printf("pid %d\n", opt.pid);
	printf("comm %s\n", comm);
	kv("interval", T);
}

/* The threads most worth a look first: the busiest, then the most switching. */
static int
cmp_tfig(const void *x, const void *y)
{
	const struct tfig *a = x, *b = y;
	double ba = a->on + a->rq + a->io, bb = b->on + b->rq + b->io;

	if (ba != bb)
		return ba < bb ? 1 : -1;
	if (a->sw != b->sw)
		return a->sw < b->sw ? 1 : -1;
	return (a->t1->tid > b->t1->tid) - (a->t1->tid < b->t1->tid);
}

/*
 * The per-thread table: how many threads are in each state, then the top
 * opt.threads threads that are not idle, one line each, as pidstat -t
 * shows them (percentages of one CPU), with the state the decision saw.
 */
static void
print_threads(struct pidfig *p, const char *proc_root)
{
	struct pf_taskstat ts;
	char wchan[64], comm[64];
	int k, shown = 0, i;

	printf("thread_states");
	for (k = 0; k < PF_NTHR_STATE; k++)
		printf(" %s=%u", pf_cls_thread_names[k], p->nstate[k]);
	printf("\n");
	qsort(p->tf, (size_t)p->nth, sizeof(*p->tf), cmp_tfig);
	for (i = 0; i < p->nth && shown < opt.threads; i++)
		if (p->tf[i].state != PF_THR_IDLE)
			shown++;
	printf("threads_shown %d\n", shown);
	for (i = 0; i < p->nth && shown > 0; i++) {
		const struct tfig *t = &p->tf[i];

		if (t->state == PF_THR_IDLE)
			continue;
		shown--;
		snprintf(comm, sizeof(comm), "-");
		if (pf_taskstat_read(proc_root, opt.pid, t->t1->tid, &ts) == 0 && ts.comm[0])
			snprintf(comm, sizeof(comm), "%s", ts.comm);
		/* Where it slept while sampled, else where it sleeps now. */
		snprintf(wchan, sizeof(wchan), "-");
		if (t->t0 != NULL && t->t0->wchan[0])
			snprintf(wchan, sizeof(wchan), "%s", t->t0->wchan);
		else if (pf_proc_read(proc_root, opt.pid, t->t1->tid, "wchan", wchan,
		    sizeof(wchan)) <= 0 || wchan[0] == '\0' || strcmp(wchan, "0") == 0)
			snprintf(wchan, sizeof(wchan), "-");
		wchan[strcspn(wchan, "\n")] = '\0';
		word(comm);
		word(wchan);
		printf("thread %d state=%s %%CPU=%.2f %%wait=%.2f %%io=%.2f", t->t1->tid,
		    pf_cls_thread_names[t->state], 100 * t->on, 100 * t->rq, 100 * t->io);
		if (t->sw >= 0)
			printf(" switches/s=%.2f", t->sw);
		printf(" samples=%u wchan=%s comm=%s\n", t->t0 != NULL ? t->t0->smp : 0,
		    wchan, comm);
	}
}

static int
classify_pid(const struct snap *a, const struct snap *b, const struct samples *sm,
    double T, long hz, const struct pf_cgroup *cg, bool delayacct, const char *proc1)
{
	struct cpufig f;
	struct pidfig p;
	struct flags fl = { "" };
	struct pf_cls_pid in;
	struct pf_cls_verdict v;
	const char *gone;
	char next[128];

	box_fig(a, b, T, &f, &in.box);
	if (!a->alive)
		pf_diex(PF_EXIT_FAIL, "pid %d: no such process at the start", opt.pid);
	if ((gone = pid_gone(a, b)) != NULL) {
		printf("class EXITED\n");
		printf("flags %s\n", gone);
		printf("next none\n");
		print_pid_head(a, T);
		return PF_EXIT_FINDING;
	}
	pid_fig(a, b, sm, T, hz, &p);
	pid_inputs(&p, T, &in);
	pid_flags(&f, &in.box, &p, &in, b, cg, delayacct, &fl);
	pf_classify_pid(&in, &v);
	if (v.competing_load)
		flag(&fl, "competing-load");
	pid_next(v.next, next, sizeof(next));

	print_verdict(&v, &fl, next);
	print_pid_head(a, T);
	print_threads(&p, proc1);
	print_pid(a, b, sm, &p, &f, &in.box, cg, T);
	if (strcmp(v.cls, "OFF_CPU") == 0 || strcmp(v.cls, "IO_WAIT") == 0 ||
	    strcmp(v.cls, "MIXED") == 0)
		print_wchan(proc1, b, sm);
	free(p.tf);
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

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replay the sampling rounds recorded under DIR/samples/NN (name order). */
static void
replay_samples(struct samples *sm)
{
	char path[PATH_MAX], root[PATH_MAX];
	char **names = NULL;
	size_t n = 0, i;

	snprintf(path, sizeof(path), "%s/samples", opt.replay);
	{
		struct dirent **list;
		int k, c;

		c = scandir(path, &list, NULL, alphasort);
		for (k = 0; k < c; k++) {
			if (list[k]->d_name[0] != '.' && n < MAX_SAMPLES) {
				char **nn = realloc(names, (n + 1) * sizeof(*names));

				if (nn != NULL) {
					names = nn;
					names[n++] = strdup(list[k]->d_name);
				}
			}
			free(list[k]);
		}
		if (c >= 0)
			free(list);
	}
	if (n > 0)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		if (names[i] != NULL) {
			int k = snprintf(root, sizeof(root), "%s/%s/proc", path, names[i]);

			if (k > 0 && (size_t)k < sizeof(root))
				sample_once(sm, root);
		}
		free(names[i]);
	}
	free(names);
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
			if (pf_parse_u64(optarg, 1, INT_MAX, &v) == -1)
				pf_usage_error(synopsis, "-p %s: not a process id", optarg);
			opt.pid = (int)v;
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

int
main(int argc, char **argv)
{
	char proc0[PATH_MAX], proc1[PATH_MAX], sys1[PATH_MAX];
	const char *p0, *p1, *s1;
	struct snap a, b;
	struct samples sm = { 0 };
	struct pf_cgroup cg;
	struct stat st;
	double T, t0 = 0, t_end, next_t, d;
	long hz, delay = 0;
	int rc;

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
		if (opt.pid == 0 && replay_number("pid", 1, INT_MAX, &d) == 0)
			opt.pid = (int)d;
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
	live.delayacct = delay > 0;

	memset(&cg, 0, sizeof(cg));
	if (opt.pid != 0)
		(void)pf_cgroup_find(p1, s1, opt.pid, &cg);
	/* The t0 snapshot of a replay reads t0's sys tree: same cgroup path. */
	if (opt.replay != NULL) {
		struct pf_cgroup cg0 = cg;
		char sys0[PATH_MAX];

		snprintf(sys0, sizeof(sys0), "%s/t0/sys", opt.replay);
		if (opt.pid != 0)
			(void)pf_cgroup_find(p0, sys0, opt.pid, &cg0);
		if (snap_read(&a, p0, &cg0, NULL) == -1)
			pf_die(PF_EXIT_FAIL, "%s/stat", p0);
		sm.first = &a;
		replay_samples(&sm);
	} else {
		if (opt.pid != 0)
			live_open(p0);
		if (snap_read(&a, p0, &cg, NULL) == -1)
			pf_die(PF_EXIT_FAIL, "%s/stat", p0);
		if (opt.pid != 0 && !a.alive)
			pf_diex(PF_EXIT_FAIL, "pid %d: no such process", opt.pid);
		if (live.taskdir != -1 && a.nthr > SAMPLE_LIST_MAX)
			sm.base = &a;
		sm.first = &a;
		t0 = now_s();
		t_end = t0 + T;
		for (next_t = t0 + 1.0 / SAMPLE_HZ; next_t < t_end - 0.001; next_t += 1.0 / SAMPLE_HZ) {
			sleep_until(next_t);
			sample_once(&sm, p0);
		}
		sleep_until(t_end);
	}
	if (snap_read(&b, p1, &cg, live.taskdir != -1 ? &a : NULL) == -1)
		pf_die(PF_EXIT_FAIL, "%s/stat", p1);
	if (live.taskdir != -1)
		close(live.taskdir);
	if (opt.replay == NULL)
		T = now_s() - t0;

	if (opt.pid == 0)
		rc = classify_system(&a, &b, &sm, T);
	else
		rc = classify_pid(&a, &b, &sm, T, hz, &cg, delay > 0, p1);
	snap_free(&a);
	snap_free(&b);
	free(sm.tids);
	pf_exit_checked(rc);
}
