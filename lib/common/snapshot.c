/*
 * snapshot: pf-classify's snapshots, the state sampling between them and
 * the figures of the interval (doc/classification.md has the formulas).
 * Threads are matched by tid and start time, so a recycled tid never
 * produces a negative or huge delta, and every counter that went back
 * counts as 0 (a reset is never a huge number).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "grow.h"
#include "snapshot.h"

#define SAMPLE_THREADS	16	/* thread states read per sampling round */
#define SAMPLE_BRIEF	8	/* the same, for a process read in brief */
#define SAMPLE_LIST_MAX	256	/* above: sample the first snapshot's threads */
#define BRIEF_ABOVE	PF_SNAP_BRIEF_ABOVE	/* above: read threads in brief (schedstat) */
#define FD_RESERVE	64	/* descriptors left for everything else */
#define WCHAN_READS	4	/* wait channels read per sampling round */

const char *const pf_snap_psi_names[PF_NPSI] = { "cpu", "io", "memory" };

static const char *const vm_keys[PF_NVM] = { "oom_kill", "pswpin", "pgmajfault" };
static const char *const file_names[PF_SNAP_NFILES] = { "stat", "schedstat", "status" };

/* How far a counter moved from before to after; 0 when it went back. */
static uint64_t
counter_delta(uint64_t before, uint64_t after)
{
	return after > before ? after - before : 0;
}

static int
cmp_thread(const void *a, const void *b)
{
	const struct pf_snap_thread *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

void
pf_snap_reader_init(struct pf_snap_reader *r, int pid, bool delayacct)
{
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->delayacct = delayacct;
	r->taskdir = -1;
}

int
pf_snap_reader_live(struct pf_snap_reader *r, const char *proc_root)
{
	char path[PATH_MAX];
	struct rlimit rl;
	rlim_t want = (rlim_t)PF_SNAP_MAX_TASKS * PF_SNAP_NFILES + FD_RESERVE;
	int n;

	n = snprintf(path, sizeof(path), "%s/%d/task", proc_root, r->pid);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((r->taskdir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return 0;	/* read below the directory, but keep nothing */
	if (rl.rlim_cur < want && rl.rlim_cur < rl.rlim_max) {
		rlim_t cur = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			rl.rlim_cur = cur;
	}
	if (rl.rlim_cur > FD_RESERVE)
		r->keep_budget = (long)((rl.rlim_cur - FD_RESERVE) / PF_SNAP_NFILES /
		    (r->share > 1 ? r->share : 1));
	return 0;
}

void
pf_snap_reader_close(struct pf_snap_reader *r)
{
	if (r->taskdir != -1)
		close(r->taskdir);
	r->taskdir = -1;
	r->keep_budget = 0;
}

void
pf_snap_free(struct pf_snap *s)
{
	size_t i;
	int k;

	for (i = 0; i < s->nthr; i++)
		if (s->thr[i].kept)
			for (k = 0; k < PF_SNAP_NFILES; k++)
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
thread_parse(struct pf_snap_thread *t, const char *stat, const char *sched,
    const char *status)
{
	struct pf_taskstat ts;
	struct pf_status st;

	t->have_ticks = stat != NULL && pf_taskstat_parse(stat, &ts) == 0;
	if (t->have_ticks) {
		t->starttime = ts.starttime;
		t->utime = ts.utime;
		t->stime = ts.stime;
		t->blkio = ts.blkio_ticks;
	}
	t->have_sched = sched != NULL && pf_schedstat_parse(sched, &t->sched) == 0;
	if (!t->have_ticks && !t->have_sched)
		return -1;
	t->have_cs = false;
	if (status != NULL && pf_status_parse(status, &st) == 0 && st.have_ctxt) {
		t->have_cs = true;
		t->vcs = st.vcs;
		t->nvcs = st.nvcs;
	}
	return 0;
}

/* The read buffer of file k of a thread, and its size. */
static char *
file_buf(struct pf_snap_reader *r, int k, size_t *cap)
{
	switch (k) {
	case PF_SNAP_STAT:
		*cap = sizeof(r->buf_stat);
		return r->buf_stat;
	case PF_SNAP_SCHED:
		*cap = sizeof(r->buf_sched);
		return r->buf_sched;
	default:
		*cap = sizeof(r->buf_status);
		return r->buf_status;
	}
}

/*
 * Which of a thread's files a live read opens.  All three, unless the
 * process has so many threads that reading them would cost more than the
 * 1 % of a CPU pf-classify promises: then schedstat alone (run and wait
 * time, and its slice count for the switches), plus stat when delay
 * accounting makes its blkio ticks worth having.
 */
static bool
thread_wants(const struct pf_snap_reader *r, int k)
{
	if (!r->brief)
		return true;
	return k == PF_SNAP_SCHED || (k == PF_SNAP_STAT && r->delayacct);
}

/*
 * Read thread tid's files afresh into t: by path, or (live mode) opened
 * below the task directory and kept open when keep and the budget allow.
 * -1 when the thread is gone.
 */
static int
thread_read(struct pf_snap_reader *r, struct pf_snap_thread *t, const char *proc_root,
    int tid, bool keep)
{
	const char *txt[PF_SNAP_NFILES];
	int fd[PF_SNAP_NFILES], k, rc;
	size_t cap;
	char *buf;

	t->tid = tid;
	t->kept = false;
	if (r->taskdir == -1) {
		for (k = 0; k < PF_SNAP_NFILES; k++) {
			buf = file_buf(r, k, &cap);
			txt[k] = pf_proc_read(proc_root, r->pid, tid, file_names[k],
			    buf, cap) == -1 ? NULL : buf;
		}
		return thread_parse(t, txt[PF_SNAP_STAT], txt[PF_SNAP_SCHED],
		    txt[PF_SNAP_STATUS]);
	}
	/* A thread whose descriptors are not kept is known by its start time. */
	keep = keep && r->keep_budget > 0;
	for (k = 0; k < PF_SNAP_NFILES; k++) {
		fd[k] = -1;
		txt[k] = NULL;
		if (!thread_wants(r, k) && !(k == PF_SNAP_STAT && !keep))
			continue;
		buf = file_buf(r, k, &cap);
		fd[k] = pf_proc_openat(r->taskdir, tid, file_names[k]);
		if (fd[k] != -1 && pf_proc_pread(fd[k], buf, cap) != -1)
			txt[k] = buf;
	}
	rc = thread_parse(t, txt[PF_SNAP_STAT], txt[PF_SNAP_SCHED], txt[PF_SNAP_STATUS]);
	if (rc == 0 && keep && (fd[PF_SNAP_SCHED] != -1 || fd[PF_SNAP_STAT] != -1)) {
		r->keep_budget--;
		t->kept = true;
		memcpy(t->fd, fd, sizeof(fd));
		return 0;
	}
	for (k = 0; k < PF_SNAP_NFILES; k++)
		if (fd[k] != -1)
			close(fd[k]);
	return rc;
}

/* pread a kept descriptor into buf, or NULL when it is not kept or fails. */
static const char *
kept_pread(int fd, char *buf, size_t cap)
{
	return fd != -1 && pf_proc_pread(fd, buf, cap) != -1 ? buf : NULL;
}

/*
 * Read thread before again through the descriptors kept since the first
 * snapshot, into t.  A thread whose schedstat has not moved was not
 * switched in since (a switch-in counts a slice, a switch-out adds run
 * time): its ticks, I/O delay and context switches cannot have moved
 * either, so only that one small file is read.  -1 when the task the
 * descriptors belong to has exited (its tid may name a new thread now).
 */
static int
thread_reread(struct pf_snap_reader *r, struct pf_snap_thread *t,
    const struct pf_snap_thread *before)
{
	struct pf_schedstat ss;
	const char *sched;

	sched = kept_pread(before->fd[PF_SNAP_SCHED], r->buf_sched, sizeof(r->buf_sched));
	if (sched == NULL && before->fd[PF_SNAP_SCHED] != -1)
		return -1;
	if (sched != NULL && before->have_sched && pf_schedstat_parse(sched, &ss) == 0 &&
	    ss.slices > 0 && ss.run_ns > 0 && ss.run_ns == before->sched.run_ns &&
	    ss.wait_ns == before->sched.wait_ns && ss.slices == before->sched.slices) {
		*t = *before;
		t->kept = false;
		return 0;
	}
	t->tid = before->tid;
	t->kept = false;
	if (thread_parse(t, kept_pread(before->fd[PF_SNAP_STAT], r->buf_stat,
	    sizeof(r->buf_stat)), sched, kept_pread(before->fd[PF_SNAP_STATUS],
	    r->buf_status, sizeof(r->buf_status))) == -1)
		return -1;
	/* The descriptors, not a start time, tie this read to the first. */
	if (!t->have_ticks)
		t->starttime = before->starttime;
	return 0;
}

/* The same as pf_snap_thread_find, for tallying into the first snapshot. */
static struct pf_snap_thread *
thread_find_mut(struct pf_snap *s, int tid)
{
	struct pf_snap_thread key = { .tid = tid };

	if (s == NULL || s->nthr == 0)
		return NULL;
	return bsearch(&key, s->thr, s->nthr, sizeof(*s->thr), cmp_thread);
}

const struct pf_snap_thread *
pf_snap_thread_find(const struct pf_snap *s, int tid)
{
	struct pf_snap_thread key = { .tid = tid };

	if (s == NULL || s->nthr == 0)
		return NULL;
	return bsearch(&key, s->thr, s->nthr, sizeof(*s->thr), cmp_thread);
}

/*
 * The second snapshot without listing the threads again (a listing makes
 * the kernel build a dentry per thread): when the first snapshot kept
 * every thread's descriptors, the process has as many threads as then and
 * every one of them still answers, no thread was born in between.  False
 * (s->thr left empty) when that cannot be shown.
 */
static bool
same_threads(struct pf_snap_reader *r, struct pf_snap *s, const struct pf_snap *prev)
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
		if (thread_reread(r, &s->thr[i], &prev->thr[i]) == -1) {
			free(s->thr);
			s->thr = NULL;
			return false;
		}
	s->nthr = prev->nthr;
	return true;
}

/* The box's counters: /proc/stat, PSI and /proc/vmstat. */
static int
read_box(const char *proc_root, struct pf_snap *s)
{
	char path[PATH_MAX];
	size_t k;

	if ((s->sys = malloc(sizeof(*s->sys))) == NULL)
		return -1;
	if (pf_sysstat_read(proc_root, s->sys) == -1)
		return -1;
	for (k = 0; k < PF_NPSI; k++)
		s->have_psi[k] = pf_psi_read_system(proc_root, pf_snap_psi_names[k],
		    &s->psi[k]) == 0;
	if ((size_t)snprintf(path, sizeof(path), "%s/vmstat", proc_root) < sizeof(path))
		(void)pf_keyvals_read(path, vm_keys, PF_NVM, s->vm, s->have_vm);
	return 0;
}

int
pf_snap_read(struct pf_snap_reader *r, const char *proc_root,
    const struct pf_cgroup *cg, const struct pf_snap *prev, struct pf_snap *s)
{
	int *tids = NULL;
	long n, i;

	memset(s, 0, sizeof(*s));
	s->pid = r->pid;
	if (r->taskdir == -1)
		prev = NULL;	/* nothing kept: read afresh */
	if (read_box(proc_root, s) == -1)
		return -1;
	if (r->pid == 0)
		return 0;
	if (pf_taskstat_read(proc_root, r->pid, 0, &s->proc) == -1)
		return 0;
	s->alive = true;
	(void)pf_status_read(proc_root, r->pid, 0, &s->status);
	s->have_io = pf_io_read(proc_root, r->pid, &s->io) == 0;
	if (cg != NULL && cg->cpu_version != 0)
		s->have_cg = pf_cgroup_cpu_read(cg, &s->cg) == 0;
	if (prev != NULL && same_threads(r, s, prev))
		return 0;
	n = pf_tasks_list(proc_root, r->pid, PF_SNAP_MAX_TASKS, &tids, &s->truncated);
	if (n <= 0) {
		free(tids);
		return 0;
	}
	/* Decided once, on the first snapshot: both must read the same files. */
	if (prev == NULL && r->taskdir != -1 && n > BRIEF_ABOVE)
		r->brief = true;
	if ((s->thr = calloc((size_t)n, sizeof(*s->thr))) == NULL) {
		free(tids);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct pf_snap_thread *t = &s->thr[s->nthr];
		const struct pf_snap_thread *before = pf_snap_thread_find(prev, tids[i]);

		if (before != NULL && before->kept && thread_reread(r, t, before) == 0) {
			s->nthr++;
			continue;
		}
		if (thread_read(r, t, proc_root, tids[i], prev == NULL) == -1)
			continue;	/* exited between the listing and the read */
		s->nthr++;
	}
	free(tids);
	qsort(s->thr, s->nthr, sizeof(*s->thr), cmp_thread);
	return 0;
}

void
pf_samples_start(struct pf_samples *sm, const struct pf_snap_reader *r,
    struct pf_snap *first)
{
	memset(sm, 0, sizeof(*sm));
	sm->first = first;
	if (r->taskdir != -1 && first->nthr > SAMPLE_LIST_MAX)
		sm->base = first;
}

/*
 * Count where thread tid sleeps.  Sampled through the interval rather than
 * read once at its end, so one unlucky moment (the thread just woken and
 * waiting for a CPU, wchan "0") cannot hide where it spends its time.
 */
static void
tally_wchan(struct pf_snap_reader *r, struct pf_samples *sm, const char *proc_root,
    int tid, struct pf_snap_thread *first)
{
	char buf[64];
	size_t k;

	if (r->taskdir != -1) {
		int fd = pf_proc_openat(r->taskdir, tid, "wchan");
		long n = fd == -1 ? -1 : pf_proc_pread(fd, buf, sizeof(buf));

		if (fd != -1)
			close(fd);
		if (n <= 0)
			return;
	} else if (pf_proc_read(proc_root, r->pid, tid, "wchan", buf, sizeof(buf)) <= 0)
		return;
	buf[strcspn(buf, "\n")] = '\0';
	if (buf[0] == '\0' || strcmp(buf, "0") == 0)
		return;		/* running, or not waiting anywhere */
	if (first != NULL)
		snprintf(first->wchan, sizeof(first->wchan), "%s", buf);
	for (k = 0; k < sm->nwchan && strcmp(sm->wchan[k], buf) != 0; k++)
		;
	if (k == sm->nwchan) {
		if (sm->nwchan == PF_SNAP_MAX_WCHAN)
			return;
		snprintf(sm->wchan[k], sizeof(sm->wchan[k]), "%s", buf);
		sm->wchan_count[k] = 0;
		sm->nwchan++;
	}
	sm->wchan_count[k]++;
	sm->wchan_seen++;
}

/* System mode's round: the run queue and the blocked count. */
static void
sample_box(struct pf_samples *sm, const char *proc_root)
{
	struct pf_sysstat *sys;

	if ((sys = malloc(sizeof(*sys))) != NULL && pf_sysstat_read(proc_root, sys) == 0) {
		sm->running_sum += sys->procs_running;
		sm->blocked_sum += sys->procs_blocked;
		sm->sys_rounds++;
	}
	free(sys);
}

/*
 * Read one thread's state line: through its kept stat descriptor, below
 * the task directory, or by path.  The length read, or -1.
 */
static long
read_thread_stat(struct pf_snap_reader *r, const char *proc_root,
    const struct pf_snap_thread *t, int tid, char *buf, size_t cap)
{
	long n;

	if (t != NULL && t->kept && t->fd[PF_SNAP_STAT] != -1)
		return pf_proc_pread(t->fd[PF_SNAP_STAT], buf, cap);
	if (t != NULL && r->taskdir != -1) {
		int fd = pf_proc_openat(r->taskdir, tid, "stat");

		n = fd == -1 ? -1 : pf_proc_pread(fd, buf, cap);
		if (fd != -1)
			close(fd);
		return n;
	}
	return pf_proc_read(proc_root, r->pid, tid, "stat", buf, cap);
}

void
pf_samples_round(struct pf_snap_reader *r, struct pf_samples *sm, const char *proc_root)
{
	bool trunc;
	long nthreads, per_round, i, j, share = r->share > 1 ? (long)r->share : 1;
	int wchan_reads = 0, wchan_max = WCHAN_READS / share > 0 ? WCHAN_READS / (int)share : 1;

	sm->rounds++;
	if (r->pid == 0) {
		sample_box(sm, proc_root);
		return;
	}
	/*
	 * At most SAMPLE_THREADS states a round (SAMPLE_BRIEF for a process
	 * read in brief, whose sampling would otherwise be a third of the
	 * cost), rotating through the threads, so a process with thousands of
	 * threads costs no more to watch than one with a few dozen.
	 *
	 * The thread list is refreshed once a second, not every round; a
	 * process with more than SAMPLE_LIST_MAX threads is sampled from the
	 * first snapshot's threads, through its kept descriptors, and not
	 * listed again (a listing costs a dentry per thread).
	 */
	if (sm->base == NULL && (sm->tids == NULL || sm->rounds % PF_SNAP_HZ == 1 ||
	    strcmp(proc_root, sm->root) != 0)) {
		free(sm->tids);
		sm->tids = NULL;
		sm->ntids = pf_tasks_list(proc_root, r->pid, PF_SNAP_MAX_TASKS, &sm->tids, &trunc);
		snprintf(sm->root, sizeof(sm->root), "%s", proc_root);
	}
	nthreads = sm->base != NULL ? (long)sm->base->nthr : sm->ntids;
	per_round = (r->brief ? SAMPLE_BRIEF : SAMPLE_THREADS) / share;
	if (per_round < 1)
		per_round = 1;
	if (nthreads < per_round)
		per_round = nthreads;
	for (j = 0; j < per_round; j++) {
		char buf[512];
		const char *p;
		struct pf_snap_thread *t = NULL, *first;
		int tid;

		i = (long)((sm->rot + (unsigned long)j) % (unsigned long)nthreads);
		if (sm->base != NULL) {
			t = &sm->base->thr[i];
			tid = t->tid;
		} else
			tid = sm->tids[i];
		if (read_thread_stat(r, proc_root, t, tid, buf, sizeof(buf)) <= 0 ||
		    (p = strrchr(buf, ')')) == NULL || p[1] != ' ')
			continue;
		first = t != NULL ? t : thread_find_mut(sm->first, tid);
		if (first != NULL) {
			first->samples++;
			first->samples_d += p[2] == 'D';
		}
		sm->thread_points++;
		if (p[2] == 'D')
			sm->in_d++;
		else if (p[2] == 'R')
			sm->in_r++;
		else if (p[2] == 'S')
			sm->in_s++;
		else if (p[2] == 'T' || p[2] == 't')
			sm->in_t++;
		if ((p[2] == 'D' || p[2] == 'S') && wchan_reads++ < wchan_max)
			tally_wchan(r, sm, proc_root, tid, first);
	}
	if (per_round > 0)
		sm->rot += (unsigned long)per_round;
}

double
pf_snap_clock(void)
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

void
pf_samples_run_group(struct pf_snap_reader *const *r, struct pf_samples *const *sm,
    size_t n, const char *proc_root, double start, double end)
{
	double next;
	size_t i;

	for (next = start + 1.0 / PF_SNAP_HZ; next < end - 0.001; next += 1.0 / PF_SNAP_HZ) {
		sleep_until(next);
		for (i = 0; i < n; i++)
			pf_samples_round(r[i], sm[i], proc_root);
	}
	sleep_until(end);
}

void
pf_samples_run(struct pf_snap_reader *r, struct pf_samples *sm, const char *proc_root,
    double start, double end)
{
	pf_samples_run_group(&r, &sm, 1, proc_root, start, end);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

long
pf_samples_replay(struct pf_snap_reader *r, struct pf_samples *sm, const char *dir)
{
	char path[PATH_MAX], root[PATH_MAX];
	struct dirent **list;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	long replayed = 0;
	int k, c;

	snprintf(path, sizeof(path), "%s/samples", dir);
	c = scandir(path, &list, NULL, alphasort);
	for (k = 0; k < c; k++) {
		if (list[k]->d_name[0] != '.' && n < PF_SNAP_MAX_ROUNDS &&
		    pf_grow(&names, &cap, n + 1, sizeof(*names)) == 0)
			names[n++] = strdup(list[k]->d_name);
		free(list[k]);
	}
	if (c >= 0)
		free(list);
	if (n > 0)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		if (names[i] != NULL) {
			k = snprintf(root, sizeof(root), "%s/%s/proc", path, names[i]);
			if (k > 0 && (size_t)k < sizeof(root)) {
				pf_samples_round(r, sm, root);
				replayed++;
			}
		}
		free(names[i]);
	}
	free(names);
	return replayed;
}

void
pf_samples_wchan_now(struct pf_snap_reader *r, struct pf_samples *sm,
    const char *proc_root, const struct pf_snap *s)
{
	size_t i;

	for (i = 0; i < s->nthr && i < PF_SNAP_MAX_WCHAN; i++)
		tally_wchan(r, sm, proc_root, s->thr[i].tid, NULL);
}

void
pf_samples_add_wchan(struct pf_samples *dst, const struct pf_samples *src)
{
	size_t i, k;

	for (i = 0; i < src->nwchan; i++) {
		for (k = 0; k < dst->nwchan && strcmp(dst->wchan[k], src->wchan[i]) != 0; k++)
			;
		if (k == dst->nwchan) {
			if (dst->nwchan == PF_SNAP_MAX_WCHAN)
				continue;
			snprintf(dst->wchan[k], sizeof(dst->wchan[k]), "%s", src->wchan[i]);
			dst->wchan_count[k] = 0;
			dst->nwchan++;
		}
		dst->wchan_count[k] += src->wchan_count[i];
		dst->wchan_seen += src->wchan_count[i];
	}
}

long
pf_samples_top_wchan(const struct pf_samples *sm)
{
	size_t k, best = 0;

	if (sm->nwchan == 0)
		return -1;
	for (k = 1; k < sm->nwchan; k++)
		if (sm->wchan_count[k] > sm->wchan_count[best])
			best = k;
	return (long)best;
}

void
pf_samples_free(struct pf_samples *sm)
{
	free(sm->tids);
	sm->tids = NULL;
	sm->ntids = 0;
}

/* The ticks of one cpu line over the interval, the guest times left out. */
static double
interval_ticks(const struct pf_cpu_ticks *a, const struct pf_cpu_ticks *b)
{
	return (double)(counter_delta(a->user, b->user) + counter_delta(a->nice, b->nice) +
	    counter_delta(a->system, b->system) + counter_delta(a->idle, b->idle) +
	    counter_delta(a->iowait, b->iowait) + counter_delta(a->irq, b->irq) +
	    counter_delta(a->softirq, b->softirq) + counter_delta(a->steal, b->steal));
}

/* part less what of it is already counted in guest (never below 0). */
static uint64_t
less_guest(uint64_t part, uint64_t guest)
{
	return part - (guest <= part ? guest : part);
}

/* The busiest CPU present at both ends, matched by number, in percent. */
static double
busiest_cpu(const struct pf_sysstat *a, const struct pf_sysstat *b)
{
	double busiest = 0;
	int i, j;

	/* A CPU that went offline is skipped. */
	for (j = 0; j < b->ncpu; j++) {
		for (i = 0; i < a->ncpu; i++) {
			double ticks, busy;

			if (a->cpu_id[i] != b->cpu_id[j])
				continue;
			ticks = interval_ticks(&a->cpu[i], &b->cpu[j]);
			if (ticks > 0) {
				busy = 100.0 * (ticks -
				    (double)counter_delta(a->cpu[i].idle, b->cpu[j].idle) -
				    (double)counter_delta(a->cpu[i].iowait, b->cpu[j].iowait) -
				    (double)counter_delta(a->cpu[i].steal, b->cpu[j].steal)) / ticks;
				if (busy > busiest)
					busiest = busy;
			}
			break;
		}
	}
	return busiest;
}

void
pf_cpu_figures(const struct pf_sysstat *a, const struct pf_sysstat *b, double seconds,
    struct pf_cpu_figures *f)
{
	const struct pf_cpu_ticks *x = &a->all, *y = &b->all;
	double ticks = interval_ticks(x, y);

	memset(f, 0, sizeof(*f));
	f->ncpu = b->ncpu > 0 ? b->ncpu : 1;
	if (ticks <= 0) {
		f->idle = 100;
	} else {
		/* guest is inside user and guest_nice inside nice (proc(5)). */
		f->usr = 100.0 * (double)counter_delta(less_guest(x->user, x->guest),
		    less_guest(y->user, y->guest)) / ticks;
		f->nice = 100.0 * (double)counter_delta(less_guest(x->nice, x->guest_nice),
		    less_guest(y->nice, y->guest_nice)) / ticks;
		f->sys = 100.0 * (double)counter_delta(x->system, y->system) / ticks;
		f->iowait = 100.0 * (double)counter_delta(x->iowait, y->iowait) / ticks;
		f->irq = 100.0 * (double)counter_delta(x->irq, y->irq) / ticks;
		f->soft = 100.0 * (double)counter_delta(x->softirq, y->softirq) / ticks;
		f->steal = 100.0 * (double)counter_delta(x->steal, y->steal) / ticks;
		f->guest = 100.0 * (double)counter_delta(x->guest, y->guest) / ticks;
		f->gnice = 100.0 * (double)counter_delta(x->guest_nice, y->guest_nice) / ticks;
		f->idle = 100.0 * (double)counter_delta(x->idle, y->idle) / ticks;
	}
	f->busy = 100.0 - f->idle - f->iowait - f->steal;
	if (f->busy < 0)
		f->busy = 0;
	f->busiest_cpu = busiest_cpu(a, b);
	if (seconds > 0) {
		f->ctxt_s = (double)counter_delta(a->ctxt, b->ctxt) / seconds;
		f->intr_s = (double)counter_delta(a->intr, b->intr) / seconds;
	}
}

/* PSI percentages over the interval; -1 when absent at either end. */
static void
psi_shares(const struct pf_snap *a, const struct pf_snap *b, double seconds,
    double some[PF_NPSI], double full[PF_NPSI])
{
	size_t k;

	for (k = 0; k < PF_NPSI; k++) {
		some[k] = full[k] = -1;
		if (!a->have_psi[k] || !b->have_psi[k])
			continue;
		some[k] = pf_psi_pct(a->psi[k].some_total, b->psi[k].some_total, seconds * 1e6);
		if (a->psi[k].have_full && b->psi[k].have_full)
			full[k] = pf_psi_pct(a->psi[k].full_total, b->psi[k].full_total,
			    seconds * 1e6);
	}
}

void
pf_box_figures(const struct pf_snap *a, const struct pf_snap *b, double seconds,
    struct pf_cpu_figures *f, struct pf_cls_box *box)
{
	pf_cpu_figures(a->sys, b->sys, seconds, f);
	psi_shares(a, b, seconds, box->psi_some, box->psi_full);
	box->steal = f->steal;
	box->oom_kills = 0;
	if (a->have_vm[PF_VM_OOM_KILL] && b->have_vm[PF_VM_OOM_KILL])
		box->oom_kills = counter_delta(a->vm[PF_VM_OOM_KILL], b->vm[PF_VM_OOM_KILL]);
}

void
pf_system_inputs(const struct pf_snap *b, const struct pf_samples *sm,
    const struct pf_cpu_figures *f, struct pf_cls_system *in)
{
	/* procs_running counts this reader; take it off. */
	in->runq = sm->sys_rounds ? (double)sm->running_sum / sm->sys_rounds - 1 :
	    (double)b->sys->procs_running - 1;
	if (in->runq < 0)
		in->runq = 0;
	in->blocked = sm->sys_rounds ? (double)sm->blocked_sum / sm->sys_rounds :
	    (double)b->sys->procs_blocked;
	in->busy = f->busy;
	in->idle = f->idle;
	in->hot_busy = f->busiest_cpu;
	in->sys = f->sys;
	in->irq_soft = f->irq + f->soft;
	in->iowait = f->iowait;
	in->ncpu = f->ncpu;
}

/*
 * pidstat's columns from the process's own stat and io, added to p's (a
 * group's are sums); its user and system ticks added to *user_system and
 * *system, of which p's sysshare is made.
 */
static void
process_figures(const struct pf_snap *a, const struct pf_snap *b, double seconds,
    long hz, struct pf_pid_figures *p, uint64_t *user_system, uint64_t *system_ticks)
{
	const struct pf_taskstat *x = &a->proc, *y = &b->proc;
	double cpu_ticks = (double)hz * seconds;
	uint64_t user = counter_delta(x->utime, y->utime);
	uint64_t system = counter_delta(x->stime, y->stime);

	p->usr += 100.0 * (double)counter_delta(less_guest(x->utime, x->guest_time),
	    less_guest(y->utime, y->guest_time)) / cpu_ticks;
	p->system += 100.0 * (double)system / cpu_ticks;
	p->guest += 100.0 * (double)counter_delta(x->guest_time, y->guest_time) / cpu_ticks;
	p->cpu += 100.0 * (double)(user + system) / cpu_ticks;
	*user_system += user + system;
	*system_ticks += system;
	p->majflt_s += (double)counter_delta(x->majflt, y->majflt) / seconds;
	p->minflt_s += (double)counter_delta(x->minflt, y->minflt) / seconds;
	if (a->have_io && b->have_io) {
		p->have_io = true;
		p->kb_rd_s += (double)counter_delta(a->io.read_bytes, b->io.read_bytes) / 1024 /
		    seconds;
		p->kb_wr_s += (double)counter_delta(a->io.write_bytes, b->io.write_bytes) / 1024 /
		    seconds;
	}
}

/*
 * The thread of a, from *next on (a's threads ascend by tid, as b's do),
 * that is t: the same tid and start time.  NULL when t was born in the
 * interval, or its tid was recycled.
 */
static const struct pf_snap_thread *
thread_before(const struct pf_snap *a, size_t *next, const struct pf_snap_thread *t)
{
	while (*next < a->nthr && a->thr[*next].tid < t->tid)
		(*next)++;
	if (*next < a->nthr && a->thr[*next].tid == t->tid &&
	    a->thr[*next].starttime == t->starttime)
		return &a->thr[*next];
	return NULL;
}

/*
 * A thread's seconds on a CPU and queued for one, from schedstat, or
 * without it from its ticks (and no queueing known).
 */
static void
thread_seconds(const struct pf_snap_thread *before, const struct pf_snap_thread *after,
    long hz, double *on, double *queued)
{
	if (after->have_sched && before->have_sched) {
		*on = (double)counter_delta(before->sched.run_ns, after->sched.run_ns) / 1e9;
		*queued = (double)counter_delta(before->sched.wait_ns, after->sched.wait_ns) / 1e9;
	} else {
		*on = (double)(counter_delta(before->utime, after->utime) +
		    counter_delta(before->stime, after->stime)) / (double)hz;
		*queued = 0;
	}
}

/*
 * One thread's shares of the interval and the state it spent it in;
 * first is its entry in the first snapshot (NULL: born since), which
 * holds its state samples and wait channel.
 */
static void
thread_figures(const struct pf_snap_thread *before, const struct pf_snap_thread *after,
    const struct pf_snap_thread *first, double on, double queued, double seconds,
    long hz, struct pf_thread_figures *tf)
{
	struct pf_cls_thread ct;
	double io = (double)counter_delta(before->blkio, after->blkio) / (double)hz / seconds;

	tf->t0 = first;
	tf->t1 = after;
	tf->on = on / seconds;
	tf->rq = queued / seconds;
	/* Without delay accounting, its share of D-state samples. */
	if (first != NULL && first->samples > 0 &&
	    (double)first->samples_d / first->samples > io)
		io = (double)first->samples_d / first->samples;
	tf->io = io > 1 ? 1 : io;
	tf->sw = -1;
	if (after->have_cs && before->have_cs)
		tf->sw = (double)(counter_delta(before->vcs, after->vcs) +
		    counter_delta(before->nvcs, after->nvcs)) / seconds;
	else if (after->have_sched && before->have_sched)
		tf->sw = (double)counter_delta(before->sched.slices, after->sched.slices) /
		    seconds;
	ct.on = tf->on;
	ct.rq = tf->rq;
	ct.io = tf->io;
	ct.lock = first != NULL && strstr(first->wchan, "futex") != NULL;
	ct.woke = on + queued > 0 || tf->sw > 0;
	tf->state = pf_cls_thread_state(&ct);
}

/* A thread's context switches added to the process's (not yet per second). */
static void
add_switches(const struct pf_snap_thread *before, const struct pf_snap_thread *after,
    struct pf_pid_figures *p)
{
	if (after->have_cs && before->have_cs) {
		p->have_cs = true;
		p->cswch_s += (double)counter_delta(before->vcs, after->vcs);
		p->nvcswch_s += (double)counter_delta(before->nvcs, after->nvcs);
		p->have_switches = true;
		p->switches_s += (double)(counter_delta(before->vcs, after->vcs) +
		    counter_delta(before->nvcs, after->nvcs));
	} else if (after->have_sched && before->have_sched) {
		/*
		 * Without the switch counts of the thread's status file, the
		 * third field of its schedstat file stands in: it counts the
		 * timeslices the thread ran, and each time the thread is
		 * switched onto a CPU it starts one, so the count is its
		 * switches.  It does not say which were voluntary, so only the
		 * total is known and cswch_s, nvcswch_s stay unknown.
		 */
		p->have_switches = true;
		p->switches_s += (double)counter_delta(before->sched.slices, after->sched.slices);
	}
}

/*
 * Each thread alive at b, matched to a by tid and start time (a new one
 * counts from 0), into p's sums and its own figures.  The process's
 * ticks the threads account for.
 */
static double
threads_figures(const struct pf_snap *a, const struct pf_snap *b, double seconds,
    long hz, struct pf_pid_figures *p)
{
	double thread_ticks = 0;
	size_t i, next = 0;

	for (i = 0; i < b->nthr; i++) {
		const struct pf_snap_thread *after = &b->thr[i], *first, *before;
		struct pf_snap_thread born = { 0 };
		double on, queued;

		first = thread_before(a, &next, after);
		before = first;
		if (before == NULL) {
			born.have_sched = after->have_sched;
			born.have_cs = after->have_cs;
			born.have_ticks = after->have_ticks;
			before = &born;
		}
		p->threads++;
		p->thread[p->threads - 1].pid = b->pid;
		p->iodelay += counter_delta(before->blkio, after->blkio);
		thread_seconds(before, after, hz, &on, &queued);
		if (after->have_sched && before->have_sched &&
		    (after->sched.run_ns || after->sched.wait_ns || after->sched.slices))
			p->have_sched = true;
		if (after->have_ticks && before->have_ticks)
			thread_ticks += (double)(counter_delta(before->utime, after->utime) +
			    counter_delta(before->stime, after->stime));
		else
			thread_ticks += on * (double)hz;
		p->on_s += on;
		p->runq_s += queued;
		if (on + queued > 0.01 * seconds)
			p->active++;
		thread_figures(before, after, first, on, queued, seconds, hz,
		    &p->thread[p->threads - 1]);
		p->nstate[p->thread[p->threads - 1].state]++;
		add_switches(before, after, p);
	}
	return thread_ticks;
}

/*
 * The CPUs the process may use: the online ones, fewer when its affinity
 * or its cgroup's quota allows fewer.
 */
static double
usable_cpus(const struct pf_snap *b)
{
	double cpus = b->sys->ncpu > 0 ? b->sys->ncpu : 1;

	if (b->status.cpus_allowed > 0 && b->status.cpus_allowed < cpus)
		cpus = b->status.cpus_allowed;
	if (b->have_cg && b->cg.quota_cpus > 0 && b->cg.quota_cpus < cpus)
		cpus = b->cg.quota_cpus;
	return cpus;
}

/* Whether member i is in the CPU cgroup of a member before it. */
static bool
cgroup_seen(const struct pf_group_member *m, size_t i)
{
	const struct pf_cgroup *c = m[i].cg;
	size_t j;

	if (c == NULL || c->cpu_version == 0)
		return false;
	for (j = 0; j < i; j++)
		if (m[j].cg != NULL && m[j].cg->cpu_version == c->cpu_version &&
		    strcmp(m[j].cg->cpu_dir, c->cpu_dir) == 0)
			return true;
	return false;
}

/*
 * The CPUs a group may use: each process's summed (their affinities are
 * counts, not masks: taken as disjoint), no more than the online CPUs,
 * nor than its cgroups' quotas, each cgroup's once (a cgroup without a
 * quota allows every CPU).  One process: its own.
 */
static double
group_cpus(const struct pf_group_member *m, size_t n)
{
	double online = m[0].b->sys->ncpu > 0 ? m[0].b->sys->ncpu : 1;
	double sum = 0, quota = 0, cpus;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct pf_snap *b = m[i].b;

		sum += usable_cpus(b);
		if (!cgroup_seen(m, i))
			quota += b->have_cg && b->cg.quota_cpus > 0 ? b->cg.quota_cpus : online;
	}
	cpus = sum;
	if (online < cpus)
		cpus = online;
	if (quota < cpus)
		cpus = quota;
	return cpus;
}

/*
 * The share of periods throttled and the time throttled of the cgroups
 * of m, each cgroup's counters once: periods pooled, the time their mean
 * in percent of the interval; -1 unknown.
 */
static void
throttling(const struct pf_group_member *m, size_t n, double seconds,
    struct pf_pid_figures *p)
{
	uint64_t periods = 0, throttled = 0, us = 0;
	size_t i, k = 0;

	p->throttled_ratio = p->throttled_pct = -1;
	for (i = 0; i < n; i++) {
		const struct pf_snap *a = m[i].a, *b = m[i].b;

		if (!a->have_cg || !b->have_cg || !a->cg.have_throttle || !b->cg.have_throttle ||
		    cgroup_seen(m, i))
			continue;
		periods += counter_delta(a->cg.nr_periods, b->cg.nr_periods);
		throttled += counter_delta(a->cg.nr_throttled, b->cg.nr_throttled);
		us += counter_delta(a->cg.throttled_us, b->cg.throttled_us);
		k++;
	}
	if (k == 0)
		return;
	p->throttled_ratio = periods ? (double)throttled / (double)periods : 0;
	p->throttled_pct = 100.0 * (double)us / (double)k / (seconds * 1e6);
}

int
pf_group_figures(const struct pf_group_member *m, size_t n, double seconds, long hz,
    struct pf_pid_figures *p)
{
	double process_ticks = 0, thread_ticks, one;
	uint64_t user_system = 0, system = 0, points = 0, in_d = 0, in_s = 0, in_t = 0;
	size_t i, nthr = 0;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < n; i++)
		nthr += m[i].b->nthr;
	if ((p->thread = calloc(nthr > 0 ? nthr : 1, sizeof(*p->thread))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		const struct pf_snap *a = m[i].a, *b = m[i].b;

		process_figures(a, b, seconds, hz, p, &user_system, &system);
		one = (double)(counter_delta(a->proc.utime, b->proc.utime) +
		    counter_delta(a->proc.stime, b->proc.stime));
		process_ticks += one;
		thread_ticks = threads_figures(a, b, seconds, hz, p);
		/*
		 * Exited threads keep their CPU in the process totals only.
		 * Tick sampling and the two reads not being simultaneous make
		 * small gaps normal: flag only a gap of 10 % and a fifth of a
		 * CPU second, in any process.
		 */
		if (one - thread_ticks > 0.1 * one && one - thread_ticks > (double)hz / 5)
			p->threads_lost = true;
		points += m[i].sm->thread_points;
		in_d += m[i].sm->in_d;
		in_s += m[i].sm->in_s;
		in_t += m[i].sm->in_t;
	}
	p->sysshare = user_system > 0 ? (double)system / (double)user_system : 0;
	/* schedstat "0 0 0" for busy tasks means it is switched off: use ticks. */
	if (!p->have_sched) {
		p->on_s = process_ticks / (double)hz;
		p->runq_s = 0;
	}
	p->cswch_s /= seconds;
	p->nvcswch_s /= seconds;
	p->switches_s /= seconds;
	p->wait = 100.0 * p->runq_s / seconds;
	p->bio_s = (double)p->iodelay / (double)hz;
	if (p->active < 1)
		p->active = 1;
	p->cpus = group_cpus(m, n);
	p->capacity = p->active < p->cpus ? p->active : p->cpus;
	p->util = p->on_s / (seconds * p->capacity);
	p->wait_share = p->on_s + p->runq_s > 0 ? p->runq_s / (p->on_s + p->runq_s) : 0;
	p->d_state = points ? (double)in_d / (double)points : 0;
	p->s_state = points ? (double)in_s / (double)points : 0;
	p->t_state = points ? (double)in_t / (double)points : 0;
	throttling(m, n, seconds, p);
	return 0;
}

int
pf_pid_figures(const struct pf_snap *a, const struct pf_snap *b,
    const struct pf_samples *sm, double seconds, long hz, struct pf_pid_figures *p)
{
	const struct pf_group_member m = { .a = a, .b = b, .sm = sm, .cg = NULL };

	return pf_group_figures(&m, 1, seconds, hz, p);
}

void
pf_pid_figures_free(struct pf_pid_figures *p)
{
	free(p->thread);
	p->thread = NULL;
}

void
pf_pid_inputs(const struct pf_pid_figures *p, double seconds, struct pf_cls_pid *in)
{
	in->throttled_ratio = p->throttled_ratio;
	in->wait_share = p->wait_share;
	in->io_share = p->bio_s / (p->active * seconds);
	in->d_state = p->d_state;
	in->t_state = p->t_state;
	in->runq_wait = p->runq_s / seconds;
	in->on_cpu = p->on_s / seconds;
	in->runnable = (p->on_s + p->runq_s) / seconds;
	in->runnable_share = (p->on_s + p->runq_s) / (seconds * p->active);
	in->threads_active = p->active;
	in->cpus = p->cpus;
	in->util = p->util;
	in->sysshare = p->sysshare;
	in->have_cs = p->have_switches;
	in->switches_s = p->switches_s;
}
