/*
 * pf-record: on-CPU sampling of a process, a command or the whole system
 * through perf_event_open(2), written as perf-script text under hard caps.
 *
 * The cpu-clock software event samples each target thread on every CPU
 * (one fd per CPU x thread, one ring per CPU) with frame-pointer
 * callchains.  The sampling window only drains the rings into compact raw
 * records; symbols are resolved after it (libdwfl per file, kallsyms,
 * /tmp/perf-PID.map) and the stream is written through lib/common/script,
 * which enforces the size cap and the disk floor before every write.
 * Privileged resources (events, rings, kallsyms, output, module files) are
 * opened first; then every capability is dropped and no_new_privs set.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "kallsyms.h"
#include "msg.h"
#include "outfile.h"
#include "parse.h"
#include "perfring.h"
#include "pf.h"
#include "privs.h"
#include "script.h"
#include "symbolize.h"

#define FREQ_CEILING	999
#define DUR_CEILING	120
#define DUR_CEILING_ALL	30
#define SIZE_CEILING	(1ULL << 30)
#define SIZE_MIN	4096
#define MAX_PIDS	64
#define RING_PAGES	128
#define MAX_STACK	127

static const char synopsis[] =
    "usage: pf-record [-F hz] [-d seconds] [-g fp] [-o file [--force]]\n"
    "                 [--max-size size] [--min-free size|N%] [--no-progress] [--stats]\n"
    "                 -p pid[,pid...] | -a | -- command [arg...]\n";

static struct {
	const char *pids;
	bool all;
	char **cmd;
	uint64_t freq;
	uint64_t duration_ns;	/* 0: the default for the mode */
	uint64_t max_size;
	uint64_t min_free_bytes;
	double min_free_pct;	/* < 0: bytes, or the default when bytes is 0 too */
	const char *output;
	bool force;
	bool progress;
	bool stats;
} opt = {
	.freq = 99,
	.max_size = 64ULL << 20,
	.min_free_pct = -1,
	.progress = true,
};

static volatile sig_atomic_t got_signal;

static void
usage(void)
{
	printf("%s", synopsis);
	printf("\n"
	    "  -p, --pid PID[,PID...]  sample these processes (all threads, present and future)\n"
	    "  -a, --all-cpus          sample the whole system\n"
	    "  -- COMMAND [ARG...]     run COMMAND and sample it from its exec\n"
	    "  -F, --freq HZ           sampling rate (default 99, ceiling 999)\n"
	    "  -d, --duration SECONDS  window (default 15, -a 10; ceiling 120, -a 30)\n"
	    "  -g, --call-graph fp     stacks from frame pointers (the default)\n"
	    "  -o, --output FILE       write to FILE (created 0600) instead of stdout\n"
	    "      --force             replace an existing FILE\n"
	    "      --max-size SIZE     cap on the output, trailer included (default 64M, ceiling 1G)\n"
	    "      --min-free SIZE|N%%  keep this much free on the output filesystem\n"
	    "                          (default the larger of 1G and 5%%)\n"
	    "      --no-progress       no progress line on a terminal\n"
	    "      --stats             print timing and symbol-cache figures to stderr at the end\n"
	    "  -h, --help              this help\n"
	    "      --version           print the version\n");
}

static void
on_signal(int sig)
{
	got_signal = sig;
}

/* ------------------------------------------------------------------ */
/* Raw records gathered during the window. */

struct rawsample {
	uint32_t pid, tid, cpu;
	uint32_t nr;
	uint64_t time, period;
	/* followed by nr u64 callchain entries */
};

enum { EV_MMAP, EV_COMM, EV_FORK, EV_EXIT };

struct rawevent {
	uint64_t time;
	uint32_t type, pid, tid, ppid;
	uint64_t addr, len, pgoff, ino;
	uint32_t maj, min;
	uint32_t exec;		/* COMM_EXEC */
	uint32_t slen;		/* followed by a NUL-terminated string of slen bytes */
};

struct rec {
	struct pf_buf samples;	/* rawsample records */
	struct pf_buf events;	/* rawevent records */
	uint64_t nsamples, nevents, lost, throttled, unknown;
	uint64_t cap_bytes;	/* stop the window when raw data passes this */
	bool over;
	struct pf_buf comms;	/* tid\tcomm lines from /proc at start */
};

static int
on_record(const struct perf_event_header *h, void *arg)
{
	struct rec *r = arg;
	const char *p = (const char *)(h + 1);
	const char *end = (const char *)h + h->size;
	struct rawevent ev;
	size_t slen;

	/* sample_id trailer of non-sample records: pid,tid, time, cpu,res. */
#define ID_TIME() (end - p >= 24 ? *(const uint64_t *)(end - 16) : 0)
	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		struct rawsample s;
		uint64_t nr;

		if (end - p < 48)
			return 0;
		/* ip, pid/tid, time, cpu/res, period, nr, ips[] */
		s.pid = *(const uint32_t *)(p + 8);
		s.tid = *(const uint32_t *)(p + 12);
		s.time = *(const uint64_t *)(p + 16);
		s.cpu = *(const uint32_t *)(p + 24);
		s.period = *(const uint64_t *)(p + 32);
		nr = *(const uint64_t *)(p + 40);
		if (nr > (uint64_t)(end - p - 48) / 8)
			return 0;
		s.nr = (uint32_t)nr;
		if (pf_buf_append(&r->samples, &s, sizeof(s)) == -1 ||
		    pf_buf_append(&r->samples, p + 48, nr * 8) == -1)
			return -1;
		r->nsamples++;
		if (r->samples.len + r->events.len > r->cap_bytes)
			r->over = true;
		return 0;
	}
	case PERF_RECORD_MMAP2:
		if (end - p < 64)
			return 0;
		memset(&ev, 0, sizeof(ev));
		ev.type = EV_MMAP;
		ev.pid = *(const uint32_t *)p;
		ev.tid = *(const uint32_t *)(p + 4);
		ev.addr = *(const uint64_t *)(p + 8);
		ev.len = *(const uint64_t *)(p + 16);
		ev.pgoff = *(const uint64_t *)(p + 24);
		if (!(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
			ev.maj = *(const uint32_t *)(p + 32);
			ev.min = *(const uint32_t *)(p + 36);
			ev.ino = *(const uint64_t *)(p + 40);
		}
		/* prot at 56: only executable mappings matter. */
		if (!(*(const uint32_t *)(p + 56) & 4))
			return 0;
		ev.time = ID_TIME();
		p += 64;
		slen = strnlen(p, (size_t)(end - p));
		break;
	case PERF_RECORD_COMM:
		if (end - p < 8)
			return 0;
		memset(&ev, 0, sizeof(ev));
		ev.type = EV_COMM;
		ev.pid = *(const uint32_t *)p;
		ev.tid = *(const uint32_t *)(p + 4);
		ev.exec = (h->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
		ev.time = ID_TIME();
		p += 8;
		slen = strnlen(p, (size_t)(end - p));
		if (slen > 15)
			slen = 15;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (end - p < 24)
			return 0;
		memset(&ev, 0, sizeof(ev));
		ev.type = h->type == PERF_RECORD_FORK ? EV_FORK : EV_EXIT;
		ev.pid = *(const uint32_t *)p;
		ev.ppid = *(const uint32_t *)(p + 4);
		ev.tid = *(const uint32_t *)(p + 8);
		ev.time = *(const uint64_t *)(p + 16);
		slen = 0;
		p = "";
		break;
	case PERF_RECORD_LOST:
		if (end - p >= 16)
			r->lost += *(const uint64_t *)(p + 8);
		return 0;
	case PERF_RECORD_THROTTLE:
		r->throttled++;
		return 0;
	default:
		r->unknown++;
		return 0;
	}
#undef ID_TIME
	ev.slen = (uint32_t)slen;
	if (pf_buf_append(&r->events, &ev, sizeof(ev)) == -1 ||
	    pf_buf_append(&r->events, p, slen) == -1 ||
	    pf_buf_putc(&r->events, '\0') == -1)
		return -1;
	/* Keep records 8-byte aligned. */
	while (r->events.len % 8)
		if (pf_buf_putc(&r->events, '\0') == -1)
			return -1;
	r->nevents++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Thread names. */

struct comm {
	uint32_t tid;
	char name[16];
};

struct comms {
	struct comm *v;
	size_t n, cap;		/* open addressing, cap a power of two */
};

static struct comm *
comm_slot(struct comms *c, uint32_t tid, bool create)
{
	size_t h, i;

	if (create && (c->n + 1) * 2 > c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 256;
		struct comm *v = calloc(nc, sizeof(*v));

		if (v == NULL)
			return NULL;
		for (i = 0; i < c->cap; i++)
			if (c->v[i].tid) {
				h = (c->v[i].tid * 2654435761u) & (nc - 1);
				while (v[h].tid)
					h = (h + 1) & (nc - 1);
				v[h] = c->v[i];
			}
		free(c->v);
		c->v = v;
		c->cap = nc;
	}
	if (c->cap == 0 || tid == 0)
		return NULL;
	h = (tid * 2654435761u) & (c->cap - 1);
	while (c->v[h].tid) {
		if (c->v[h].tid == tid)
			return &c->v[h];
		h = (h + 1) & (c->cap - 1);
	}
	if (!create)
		return NULL;
	c->v[h].tid = tid;
	c->n++;
	return &c->v[h];
}

static void
comm_set(struct comms *c, uint32_t tid, const char *name)
{
	struct comm *e = comm_slot(c, tid, true);

	if (e)
		snprintf(e->name, sizeof(e->name), "%s", name);
}

/* The name of tid: recorded, else /proc (still alive), else ":tid" as perf prints. */
static const char *
comm_get(struct comms *c, uint32_t pid, uint32_t tid, char *buf, size_t len)
{
	struct comm *e = comm_slot(c, tid, false);
	char path[64];

	if (e)
		return e->name;
	if (tid == 0)		/* the idle task, as perf names it */
		return "swapper";
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	if (pf_read_small(path, buf, len) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		comm_set(c, tid, buf);
		return buf;
	}
	snprintf(buf, len, ":%u", tid);
	comm_set(c, tid, buf);
	return buf;
}

/* ------------------------------------------------------------------ */
/* Targets. */

struct target {
	pid_t pids[MAX_PIDS];
	size_t npids;
	pid_t child;		/* -- CMD */
	int go_fd, err_fd;	/* release pipe, exec-error pipe */
};

static void
parse_pids(const char *s, struct target *t)
{
	char *copy, *tok, *save = NULL;
	uint64_t v;

	if ((copy = strdup(s)) == NULL)
		pf_die(PF_EXIT_FAIL, "strdup");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (pf_parse_u64(tok, 1, INT_MAX, &v) == -1)
			pf_usage_error(synopsis, "-p: invalid pid '%s'", tok);
		if (t->npids == MAX_PIDS)
			pf_usage_error(synopsis, "-p: more than %d pids", MAX_PIDS);
		t->pids[t->npids++] = (pid_t)v;
	}
	free(copy);
	if (t->npids == 0)
		pf_usage_error(synopsis, "-p: no pid given");
}

/* Whether pid still runs: not gone, not a zombie waiting to be reaped. */
static bool
alive(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (pf_read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return false;
	return p[2] != 'Z' && p[2] != 'X';
}

static void
spawn(struct target *t, char **cmd)
{
	int go[2], er[2];
	char c;

	if (pipe2(go, O_CLOEXEC) == -1 || pipe2(er, O_CLOEXEC) == -1)
		pf_die(PF_EXIT_FAIL, "pipe");
	if ((t->child = fork()) == -1)
		pf_die(PF_EXIT_FAIL, "fork");
	if (t->child == 0) {
		int e;

		close(go[1]);
		close(er[0]);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* Wait until the events are open: counting starts at exec. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		e = errno;
		(void)!write(er[1], &e, sizeof(e));
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	t->go_fd = go[1];
	t->err_fd = er[0];
}

static void
kill_child(struct target *t)
{
	int i, st;

	if (t->child <= 0)
		return;
	kill(t->child, SIGTERM);
	for (i = 0; i < 100; i++) {
		if (waitpid(t->child, &st, WNOHANG) != 0)
			goto done;
		usleep(10000);
	}
	kill(t->child, SIGKILL);
	waitpid(t->child, &st, 0);
done:
	t->child = 0;
}

/* ------------------------------------------------------------------ */

struct ctx {
	struct pf_caps caps;
	long paranoid, kptr, max_rate, max_stack;
	bool kernel;
	char excluded[256];
	int kallsyms_fd;
	struct target t;
	struct pf_perf *perf;
	struct pf_symbolizer *sym;
	struct pf_kallsyms *ksyms;
	struct comms comms;
	struct rec rec;
	int out_fd;
	uint64_t min_free;
	bool floor_applies;
	enum pf_stop stop;
	struct timespec start_wall;
	uint64_t dur_ns;
	const struct rawevent **ev;	/* tracking records, by time */
	size_t nev, evi;		/* how many, how many applied */
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A refused perf_event_open named by what would allow it. */
static void __attribute__((noreturn))
perf_denied(struct ctx *c, pid_t pid, int e)
{
	const char *call = pf_perf_failed_call(c->perf);

	if (strcmp(call, "mmap") == 0 && e == EPERM)
		pf_diex(PF_EXIT_FAIL, "ring buffer: mmap refused by the locked-memory limit: "
		    "needs CAP_IPC_LOCK, a larger RLIMIT_MEMLOCK or kernel.perf_event_mlock_kb");
	if (e == ESRCH)
		pf_diex(PF_EXIT_FAIL, "pid %d: no such process", (int)pid);
	if (e == EACCES || e == EPERM) {
		if (opt.all)
			pf_diex(PF_EXIT_FAIL, "system-wide sampling not permitted: needs CAP_PERFMON "
			    "(or CAP_SYS_ADMIN) or kernel.perf_event_paranoid <= 0 (it is %ld)",
			    c->paranoid);
		if (c->paranoid > 2)
			pf_diex(PF_EXIT_FAIL, "perf events refused: kernel.perf_event_paranoid=%ld "
			    "forbids unprivileged use: needs CAP_PERFMON (or CAP_SYS_ADMIN) or "
			    "kernel.perf_event_paranoid <= 2", c->paranoid);
		pf_diex(PF_EXIT_FAIL, "pid %d: not permitted to sample this process "
		    "(another user's or not dumpable): needs CAP_PERFMON (or CAP_SYS_ADMIN) "
		    "or CAP_SYS_PTRACE", (int)pid);
	}
	errno = e;
	pf_die(PF_EXIT_FAIL, "%s (pid %d)", call, (int)pid);
}

/* Open the events of every thread of pid, re-reading the task list until stable. */
static void
open_process(struct ctx *c, pid_t pid)
{
	char path[64];
	int round, added;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	for (round = 0; round < 10; round++) {
		DIR *d = opendir(path);
		struct dirent *de;

		if (d == NULL) {
			if (errno == ENOENT)
				pf_diex(PF_EXIT_FAIL, "pid %d: no such process", (int)pid);
			pf_die(PF_EXIT_FAIL, "%s", path);
		}
		added = 0;
		while ((de = readdir(d)) != NULL) {
			uint64_t tid;
			size_t before = pf_perf_nfds(c->perf);

			if (pf_parse_u64(de->d_name, 1, INT_MAX, &tid) == -1)
				continue;
			if (pf_perf_open_task(c->perf, (pid_t)tid) == -1) {
				if (errno == ESRCH)	/* the thread just exited */
					continue;
				closedir(d);
				perf_denied(c, pid, errno);
			}
			added += pf_perf_nfds(c->perf) != before;
		}
		closedir(d);
		if (added == 0)
			return;
	}
}

/* Thread names of pid's threads now, while /proc is readable. */
static void
read_comms(struct ctx *c, pid_t pid)
{
	char path[PATH_MAX], buf[32];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		uint64_t tid;

		if (pf_parse_u64(de->d_name, 1, INT_MAX, &tid) == -1)
			continue;
		(void)comm_get(&c->comms, (uint32_t)pid, (uint32_t)tid, buf, sizeof(buf));
	}
	closedir(d);
}

/* All processes' executable mappings (for -a), before privileges go. */
static void
load_all_maps(struct ctx *c)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		uint64_t pid;

		if (pf_parse_u64(de->d_name, 1, INT_MAX, &pid) == -1)
			continue;
		(void)pf_sym_load_proc(c->sym, "/proc", (pid_t)pid, false);
	}
	closedir(d);
}

static void
decide_kernel(struct ctx *c)
{
	bool may = pf_may_sample_kernel(c->paranoid, &c->caps);
	int vis;

	c->kallsyms_fd = -1;
	if (!may) {
		snprintf(c->excluded, sizeof(c->excluded),
		    "kernel.perf_event_paranoid=%ld and no CAP_PERFMON or CAP_SYS_ADMIN "
		    "(kernel sampling needs one of them, or paranoid <= 1)", c->paranoid);
		return;
	}
	if ((c->kallsyms_fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(c->excluded, sizeof(c->excluded), "/proc/kallsyms: %s", strerror(errno));
		return;
	}
	vis = pf_kallsyms_fd_visible(c->kallsyms_fd);
	if (vis != 1) {
		snprintf(c->excluded, sizeof(c->excluded),
		    "/proc/kallsyms shows no addresses (kernel.kptr_restrict=%ld; "
		    "needs CAP_SYSLOG, or kptr_restrict 0 with paranoid <= 1)", c->kptr);
		close(c->kallsyms_fd);
		c->kallsyms_fd = -1;
		return;
	}
	c->kernel = true;
}

static void
progress(struct ctx *c, uint64_t elapsed, bool last)
{
	fprintf(stderr, "\rpf-record: %.1fs of %.0fs, %llu samples%s",
	    (double)elapsed / 1e9, (double)c->dur_ns / 1e9,
	    (unsigned long long)c->rec.nsamples, last ? "\033[K\n" : "\033[K");
}

/* The sampling window: drain, watch the clock, the targets, signals and caps. */
static void
window(struct ctx *c)
{
	bool tty = opt.progress && isatty(2);
	uint64_t t0 = now_ns(), last_disk = t0, last_prog = 0, t;
	size_t i;

	for (;;) {
		pf_perf_poll(c->perf, 100);
		if (pf_perf_drain(c->perf, on_record, &c->rec) == -1)
			pf_die(PF_EXIT_FAIL, "raw records");
		t = now_ns();
		if (got_signal) {
			c->stop = PF_STOP_SIGNAL;
			break;
		}
		if (c->rec.over) {
			c->stop = PF_STOP_SIZE_CAP;
			break;
		}
		if (t - t0 >= c->dur_ns) {
			c->stop = PF_STOP_DURATION;
			break;
		}
		if (c->t.child > 0) {
			int st;

			if (waitpid(c->t.child, &st, WNOHANG) == c->t.child) {
				c->t.child = 0;
				c->stop = PF_STOP_TARGET_EXIT;
				break;
			}
		} else if (c->t.npids) {
			for (i = 0; i < c->t.npids; i++)
				if (alive(c->t.pids[i]))
					break;
			if (i == c->t.npids) {
				c->stop = PF_STOP_TARGET_EXIT;
				break;
			}
		}
		if (c->floor_applies && t - last_disk >= 1000000000ULL) {
			struct statvfs sv;

			last_disk = t;
			if (fstatvfs(c->out_fd, &sv) == 0 &&
			    (uint64_t)sv.f_bavail * sv.f_frsize < c->min_free) {
				c->stop = PF_STOP_DISK_FLOOR;
				break;
			}
		}
		if (tty && t - last_prog >= 250000000ULL) {
			last_prog = t;
			progress(c, t - t0, false);
		}
	}
	pf_perf_disable(c->perf);
	if (pf_perf_drain(c->perf, on_record, &c->rec) == -1)
		pf_die(PF_EXIT_FAIL, "raw records");
	if (tty)
		progress(c, now_ns() - t0, true);
}

/* ------------------------------------------------------------------ */
/*
 * After the window: samples and tracking records (mmap, comm, fork) in
 * time order, so each sample is named with the mappings and thread names
 * of its own moment, as perf script does: a library unmapped or a program
 * exec'd during the window still names the samples taken before.
 */

static int
cmp_ev(const void *a, const void *b)
{
	const struct rawevent *x = *(const struct rawevent *const *)a;
	const struct rawevent *y = *(const struct rawevent *const *)b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	/* Same time: the order they were read in, within a ring. */
	return x < y ? -1 : x > y;
}

static void
sort_events(struct ctx *c)
{
	size_t off = 0;

	if ((c->ev = calloc(c->rec.nevents + 1, sizeof(*c->ev))) == NULL)
		pf_die(PF_EXIT_FAIL, "events");
	while (off < c->rec.events.len) {
		const struct rawevent *e = (const void *)(c->rec.events.data + off);

		c->ev[c->nev++] = e;
		off += sizeof(*e) + e->slen + 1;
		off = (off + 7) & ~(size_t)7;
	}
	qsort(c->ev, c->nev, sizeof(*c->ev), cmp_ev);
}

/* Apply the tracking records up to time t. */
static void
apply_events(struct ctx *c, uint64_t t)
{
	for (; c->evi < c->nev && c->ev[c->evi]->time <= t; c->evi++) {
		const struct rawevent *e = c->ev[c->evi];
		const char *str = (const char *)(e + 1);

		switch (e->type) {
		case EV_MMAP:
			pf_sym_add_map(c->sym, (pid_t)e->pid, e->addr, e->addr + e->len,
			    e->pgoff, str, e->maj, e->min, e->ino);
			break;
		case EV_COMM:
			if (e->exec)
				pf_sym_exec(c->sym, (pid_t)e->pid);
			comm_set(&c->comms, e->tid, str);
			break;
		case EV_FORK:
			if (e->pid != e->ppid)
				pf_sym_fork(c->sym, (pid_t)e->ppid, (pid_t)e->pid);
			{
				/* A new thread starts with its creator's name. */
				struct comm *pc = comm_slot(&c->comms, e->ppid, false);

				if (pc && comm_slot(&c->comms, e->tid, false) == NULL) {
					char name[16];

					memcpy(name, pc->name, sizeof(name));
					comm_set(&c->comms, e->tid, name);
				}
			}
			break;
		default:
			break;
		}
	}
}

/* Sample offsets by time; the rings are each in order, not with each other. */
static int
cmp_sample(const void *a, const void *b, void *arg)
{
	const char *base = arg;
	uint64_t oa = *(const uint64_t *)a, ob = *(const uint64_t *)b;
	uint64_t ta = ((const struct rawsample *)(base + oa))->time;
	uint64_t tb = ((const struct rawsample *)(base + ob))->time;

	if (ta != tb)
		return ta < tb ? -1 : 1;
	return oa < ob ? -1 : oa > ob;
}

static void
write_header(struct ctx *c, struct pf_script *w, enum pf_stop *st)
{
	struct pf_buf h = { 0 };
	struct utsname u;
	struct tm tm;
	char when[32];
	size_t i;

	uname(&u);
	gmtime_r(&c->start_wall.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	pf_buf_printf(&h, "# pf-record 1 host=%s kernel=%s target=", u.nodename, u.release);
	if (opt.all)
		pf_buf_puts(&h, "all");
	else if (opt.cmd) {
		const char *b = strrchr(opt.cmd[0], '/');

		pf_buf_printf(&h, "cmd:%s", b ? b + 1 : opt.cmd[0]);
	} else
		for (i = 0; i < c->t.npids; i++)
			pf_buf_printf(&h, "%s%d", i ? "," : "pid:", (int)c->t.pids[i]);
	pf_buf_printf(&h, " freq=%llu callgraph=fp kernel-stacks=%s start=%s\n",
	    (unsigned long long)opt.freq, c->kernel ? "yes" : "no", when);
	if (!c->kernel)
		pf_buf_printf(&h, "# pf-record: kernel frames excluded: %s\n", c->excluded);
	pf_buf_printf(&h, "# pf-record: caps duration=%.3gs max-size=%llu min-free=%llu "
	    "rings=%zux%u pages fds=%zu\n", (double)c->dur_ns / 1e9,
	    (unsigned long long)opt.max_size,
	    (unsigned long long)(c->floor_applies ? c->min_free : 0),
	    pf_perf_nrings(c->perf), pf_perf_ring_pages(c->perf), pf_perf_nfds(c->perf));
	*st = pf_script_header(w, h.data, h.len);
	pf_buf_free(&h);
}

static void
format_sample(struct ctx *c, const struct rawsample *s, const uint64_t *ips,
    const char *evname, struct pf_buf *b)
{
	char cbuf[32], tbuf[32];
	const char *comm = comm_get(&c->comms, s->pid, s->tid, cbuf, sizeof(cbuf));
	bool kernel = false, first_in_ctx = true;
	uint32_t i;

	snprintf(tbuf, sizeof(tbuf), "%llu.%06llu",
	    (unsigned long long)(s->time / 1000000000ULL),
	    (unsigned long long)(s->time % 1000000000ULL / 1000));
	/*
	 * PID/TID, as perf script -F pid,tid prints it: with the pid in the
	 * stream, pf-fold --pid and --filter-pid work for every thread of a
	 * multi-process recording, not only for main threads.
	 */
	pf_buf_printf(b, "%s %5u/%-5u [%03u] %12s: %10llu %s: \n", comm, s->pid, s->tid,
	    s->cpu, tbuf, (unsigned long long)s->period, evname);
	for (i = 0; i < s->nr; i++) {
		struct pf_frame_in in;
		struct pf_frame_out out;
		uint64_t ip = ips[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			if (ip == (uint64_t)PERF_CONTEXT_KERNEL)
				kernel = true;
			else if (ip == (uint64_t)PERF_CONTEXT_USER)
				kernel = false;
			else
				continue;	/* hv/guest: not sampled here */
			first_in_ctx = true;
			continue;
		}
		in.addr = ip;
		in.kernel = kernel;
		/* The first address of a context is where it was interrupted. */
		in.retaddr = !first_in_ctx;
		first_in_ctx = false;
		pf_sym_frame(c->sym, (pid_t)s->pid, &in, &out);
		if (out.sym)
			pf_buf_printf(b, "\t%16llx %s+0x%llx (%s)\n", (unsigned long long)out.addr,
			    out.sym, (unsigned long long)out.off, out.dso ? out.dso : "[unknown]");
		else
			pf_buf_printf(b, "\t%16llx [unknown] (%s)\n", (unsigned long long)out.addr,
			    out.dso ? out.dso : "[unknown]");
	}
	pf_buf_putc(b, '\n');
}

/*
 * The samples and the trailer; the header went out before the window (so
 * even a run stopped at once by the disk floor says what it was).
 */
static enum pf_stop
emit(struct ctx *c, struct pf_script *w, enum pf_stop st)
{
	struct pf_buf b = { 0 };
	const char *evname = c->kernel ? "cpu-clock" : "cpu-clock:u";
	enum pf_stop fin;
	uint64_t *order;
	size_t off = 0, n = 0, i;

	if ((order = calloc(c->rec.nsamples + 1, sizeof(*order))) == NULL)
		pf_die(PF_EXIT_FAIL, "samples");
	while (off < c->rec.samples.len && n < c->rec.nsamples) {
		const struct rawsample *s = (const void *)(c->rec.samples.data + off);

		order[n++] = off;
		off += sizeof(*s) + (size_t)s->nr * 8;
	}
	qsort_r(order, n, sizeof(*order), cmp_sample, c->rec.samples.data);
	sort_events(c);
	for (i = 0; st == PF_STOP_NONE && i < n; i++) {
		const struct rawsample *s = (const void *)(c->rec.samples.data + order[i]);
		const uint64_t *ips = (const uint64_t *)(s + 1);

		apply_events(c, s->time);
		pf_buf_reset(&b);
		format_sample(c, s, ips, evname, &b);
		st = pf_script_sample(w, b.data, b.len);
	}
	free(order);
	free(c->ev);
	c->ev = NULL;
	pf_buf_free(&b);
	fin = pf_script_finish(w, "pf-record", c->rec.lost,
	    c->rec.throttled, c->stop);
	if (fin == PF_STOP_IO) {
		errno = pf_script_errno(w);
		pf_die(PF_EXIT_FAIL, "%s", opt.output ? opt.output : "stdout");
	}
	if (fin == PF_STOP_DISK_FULL)
		pf_warnx("%s: %s: stopped, what was written is complete up to the last sample",
		    opt.output ? opt.output : "stdout", strerror(pf_script_errno(w)));
	else if (fin == PF_STOP_SIZE_CAP)
		pf_warnx("stopped at the size cap (--max-size %llu)",
		    (unsigned long long)opt.max_size);
	else if (fin == PF_STOP_DISK_FLOOR)
		pf_warnx("stopped at the disk floor: keeping %llu bytes free (--min-free)",
		    (unsigned long long)c->min_free);
	pf_script_free(w);
	return fin;
}

/* ------------------------------------------------------------------ */

static void
parse_options(int argc, char **argv)
{
	enum { OPT_FORCE = 256, OPT_MAX_SIZE, OPT_MIN_FREE, OPT_NO_PROGRESS, OPT_STATS,
	    OPT_VERSION };
	static const struct option longopts[] = {
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "call-graph", required_argument, NULL, 'g' },
		{ "duration", required_argument, NULL, 'd' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "freq", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "min-free", required_argument, NULL, OPT_MIN_FREE },
		{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t v;
	int ch;

	while ((ch = getopt_long(argc, argv, "+F:ad:g:ho:p:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'F':
			if (pf_parse_u64(optarg, 1, UINT32_MAX, &v) == -1)
				pf_usage_error(synopsis, "-F: invalid rate '%s'", optarg);
			opt.freq = v;
			break;
		case 'a':
			opt.all = true;
			break;
		case 'd':
			if (pf_parse_duration(optarg, 1000000000ULL, 1000000ULL,
			    UINT64_MAX / 2, &v) == -1)
				pf_usage_error(synopsis, "-d: invalid duration '%s'", optarg);
			opt.duration_ns = v;
			break;
		case 'g':
			if (strcmp(optarg, "dwarf") == 0)
				pf_usage_error(synopsis, "-g dwarf: not supported yet; use -g fp");
			if (strcmp(optarg, "fp") != 0)
				pf_usage_error(synopsis, "-g: unknown call graph '%s' (fp)", optarg);
			break;
		case 'h':
			usage();
			pf_exit_checked(PF_EXIT_OK);
		case 'o':
			opt.output = optarg;
			break;
		case 'p':
			opt.pids = optarg;
			break;
		case OPT_FORCE:
			opt.force = true;
			break;
		case OPT_MAX_SIZE:
			if (pf_parse_size(optarg, 0, UINT64_MAX, &v) == -1)
				pf_usage_error(synopsis, "--max-size: invalid size '%s'", optarg);
			opt.max_size = v;
			break;
		case OPT_MIN_FREE:
			if (pf_parse_size_or_percent(optarg, &opt.min_free_bytes,
			    &opt.min_free_pct) == -1)
				pf_usage_error(synopsis, "--min-free: invalid size or percentage '%s'",
				    optarg);
			/* "0" means no floor, not the default. */
			if (opt.min_free_pct < 0 && opt.min_free_bytes == 0)
				opt.min_free_pct = 0;
			break;
		case OPT_NO_PROGRESS:
			opt.progress = false;
			break;
		case OPT_STATS:
			opt.stats = true;
			break;
		case OPT_VERSION:
			pf_print_version();
		default:
			fputs(synopsis, stderr);
			exit(PF_EXIT_USAGE);
		}
	}
	if (optind < argc)
		opt.cmd = argv + optind;
	if ((opt.pids != NULL) + opt.all + (opt.cmd != NULL) != 1)
		pf_usage_error(synopsis, "give exactly one target: -p PID, -a or -- COMMAND");
	if (opt.freq > FREQ_CEILING)
		pf_usage_error(synopsis, "-F %llu: above the ceiling of %d Hz",
		    (unsigned long long)opt.freq, FREQ_CEILING);
	v = opt.all ? DUR_CEILING_ALL : DUR_CEILING;
	if (opt.duration_ns > v * 1000000000ULL)
		pf_usage_error(synopsis, "-d: %.3gs is above the ceiling of %llus%s",
		    (double)opt.duration_ns / 1e9, (unsigned long long)v,
		    opt.all ? " for -a" : "");
	if (opt.max_size > SIZE_CEILING)
		pf_usage_error(synopsis, "--max-size %llu: above the ceiling of 1G",
		    (unsigned long long)opt.max_size);
	if (opt.max_size < SIZE_MIN)
		pf_usage_error(synopsis, "--max-size %llu: below the minimum of 4K",
		    (unsigned long long)opt.max_size);
}

/* Where the output lands and whether the disk floor holds there. */
static void
check_floor(struct ctx *c)
{
	struct statvfs sv;
	struct stat st;
	uint64_t avail, total;

	if (fstat(c->out_fd, &st) == -1 || !S_ISREG(st.st_mode))
		return;		/* a pipe or a terminal: no filesystem to fill */
	if (fstatvfs(c->out_fd, &sv) == -1)
		pf_die(PF_EXIT_FAIL, "%s", opt.output ? opt.output : "stdout");
	avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	total = (uint64_t)sv.f_blocks * sv.f_frsize;
	c->min_free = pf_min_free(total, opt.min_free_bytes, opt.min_free_pct);
	c->floor_applies = c->min_free > 0;
	if (c->floor_applies && avail < c->min_free) {
		if (opt.output && !opt.force)
			unlink(opt.output);
		pf_diex(PF_EXIT_FINDING, "%s: %llu bytes free, below the floor of %llu "
		    "(--min-free): not starting", opt.output ? opt.output : "stdout",
		    (unsigned long long)avail, (unsigned long long)c->min_free);
	}
}

int
main(int argc, char **argv)
{
	static struct ctx c;
	struct pf_perf_attr a = { 0 };
	struct sigaction sa;
	enum pf_stop fin;
	enum pf_stop hst = PF_STOP_NONE;
	uint64_t t_end;
	struct pf_script *w;
	struct rlimit rl;
	size_t i;

	parse_options(argc, argv);
	/* libdwfl must never reach the network. */
	unsetenv("DEBUGINFOD_URLS");
	/* One fd per CPU x thread: a busy server needs more than the soft limit. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}

	c.dur_ns = opt.duration_ns ? opt.duration_ns : (opt.all ? 10 : 15) * 1000000000ULL;
	if (pf_sysctl_long(NULL, "sys/kernel/perf_event_paranoid", &c.paranoid) == -1)
		pf_diex(PF_EXIT_FAIL, "perf events not available: "
		    "/proc/sys/kernel/perf_event_paranoid: %s", strerror(errno));
	if (pf_sysctl_long(NULL, "sys/kernel/kptr_restrict", &c.kptr) == -1)
		c.kptr = 2;
	if (pf_sysctl_long(NULL, "sys/kernel/perf_event_max_sample_rate", &c.max_rate) == 0 &&
	    (long)opt.freq > c.max_rate)
		pf_usage_error(synopsis, "-F %llu: above kernel.perf_event_max_sample_rate (%ld)",
		    (unsigned long long)opt.freq, c.max_rate);
	if (pf_sysctl_long(NULL, "sys/kernel/perf_event_max_stack", &c.max_stack) == -1)
		c.max_stack = MAX_STACK;
	if (pf_caps_get(&c.caps) == -1)
		pf_die(PF_EXIT_FAIL, "capabilities");
	if (opt.pids)
		parse_pids(opt.pids, &c.t);
	if (opt.all && !pf_may_sample_cpu(c.paranoid, &c.caps))
		pf_diex(PF_EXIT_FAIL, "system-wide sampling not permitted: needs CAP_PERFMON "
		    "(or CAP_SYS_ADMIN) or kernel.perf_event_paranoid <= 0 (it is %ld)", c.paranoid);
	if (!pf_may_sample_user(c.paranoid, &c.caps))
		pf_diex(PF_EXIT_FAIL, "perf events refused: kernel.perf_event_paranoid=%ld forbids "
		    "unprivileged use: needs CAP_PERFMON (or CAP_SYS_ADMIN)", c.paranoid);

	/* Output first: a bad path fails before anything runs. */
	c.out_fd = STDOUT_FILENO;
	if (opt.output && (c.out_fd = pf_open_output(opt.output, opt.force)) == -1)
		pf_die(PF_EXIT_FAIL, "%s", opt.output);
	check_floor(&c);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	decide_kernel(&c);
	if (opt.cmd)
		spawn(&c.t, opt.cmd);

	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = opt.freq;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	a.exclude_kernel = !c.kernel;
	a.inherit = !opt.all;
	a.enable_on_exec = opt.cmd != NULL;
	a.max_stack = (uint16_t)(c.max_stack < MAX_STACK ? c.max_stack : MAX_STACK);
	if ((c.perf = pf_perf_new(&a, RING_PAGES)) == NULL)
		pf_die(PF_EXIT_FAIL, "perf events");
	if ((c.sym = pf_sym_new(NULL)) == NULL)
		pf_die(PF_EXIT_FAIL, "symbolizer");
	c.rec.cap_bytes = opt.max_size;

	if (opt.all) {
		if (pf_perf_open_task(c.perf, -1) == -1)
			perf_denied(&c, -1, errno);
		load_all_maps(&c);
	} else if (opt.cmd) {
		if (pf_perf_open_task(c.perf, c.t.child) == -1) {
			int e = errno;

			close(c.t.go_fd);
			waitpid(c.t.child, NULL, 0);
			perf_denied(&c, c.t.child, e);
		}
	} else {
		for (i = 0; i < c.t.npids; i++)
			open_process(&c, c.t.pids[i]);
		/* After the events: a mapping made in between is in both, not neither. */
		for (i = 0; i < c.t.npids; i++) {
			if (pf_sym_load_proc(c.sym, "/proc", c.t.pids[i], true) == -1 &&
			    errno != ENOENT)
				pf_warn("pid %d: maps (symbols will be missing)", (int)c.t.pids[i]);
			read_comms(&c, c.t.pids[i]);
		}
	}

	if (pf_drop_privileges() == -1)
		pf_die(PF_EXIT_FAIL, "dropping privileges");

	clock_gettime(CLOCK_REALTIME, &c.start_wall);
	if ((w = pf_script_new(c.out_fd, opt.max_size, c.floor_applies ? c.min_free : 0)) == NULL)
		pf_die(PF_EXIT_FAIL, "output");
	write_header(&c, w, &hst);
	if (opt.cmd) {
		int e;
		ssize_t n;

		if (write(c.t.go_fd, "x", 1) != 1)
			pf_die(PF_EXIT_FAIL, "starting %s", opt.cmd[0]);
		close(c.t.go_fd);
		n = read(c.t.err_fd, &e, sizeof(e));
		close(c.t.err_fd);
		if (n == (ssize_t)sizeof(e)) {
			waitpid(c.t.child, NULL, 0);
			errno = e;
			pf_die(PF_EXIT_FAIL, "%s", opt.cmd[0]);
		}
	} else if (pf_perf_enable(c.perf) == -1)
		pf_die(PF_EXIT_FAIL, "enabling perf events");

	window(&c);
	t_end = now_ns();
	kill_child(&c.t);

	/* Symbolize after the window: nothing heavy ran while sampling. */
	if (c.kernel && c.kallsyms_fd != -1) {
		c.ksyms = pf_kallsyms_load(c.kallsyms_fd);
		close(c.kallsyms_fd);
		pf_sym_set_kallsyms(c.sym, c.ksyms);
	}
	fin = emit(&c, w, hst);
	if (opt.stats) {
		struct pf_sym_stats ss;

		pf_sym_stats(c.sym, &ss);
		pf_warnx("stats: window-end-to-last-byte %.3fs samples %llu raw-bytes %zu "
		    "files %llu files-failed %llu lookups %llu cache-hits %llu",
		    (double)(now_ns() - t_end) / 1e9, (unsigned long long)c.rec.nsamples,
		    c.rec.samples.len + c.rec.events.len, (unsigned long long)ss.files,
		    (unsigned long long)ss.files_failed, (unsigned long long)ss.lookups,
		    (unsigned long long)ss.cache_hits);
	}
	pf_perf_free(c.perf);
	pf_sym_free(c.sym);
	pf_kallsyms_free(c.ksyms);
	if (fin == PF_STOP_PIPE)
		exit(PF_EXIT_OK);
	if (opt.output && close(c.out_fd) == -1)
		pf_die(PF_EXIT_FAIL, "%s", opt.output);
	pf_exit_checked(pf_stop_is_cap(fin) ? PF_EXIT_FINDING : PF_EXIT_OK);
}
