/*
 * procstat: /proc readers.  Parsers take text so they can be tested and
 * fuzzed without a /proc; readers add the path and the single read.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "grow.h"
#include "linereader.h"
#include "parse.h"
#include "pf.h"
#include "procstat.h"

#define SYSSTAT_BUF (64 << 10)	/* first try; grown for machines with many IRQs */
#define SYSSTAT_MAX (16 << 20)

/* Parse an unsigned decimal at *p, advance past it; -1 if none. */
static int
scan_u64(const char **p, uint64_t *out)
{
	const char *s = *p;

	while (*s == ' ' || *s == '\t')
		s++;
	if ((s = pf_span_u64(s, s + strlen(s), out)) == NULL)
		return -1;
	*p = s;
	return 0;
}

/* A signed field (stat has a few, e.g. priority); the value is dropped. */
static int
skip_field(const char **p)
{
	const char *s = *p;

	while (*s == ' ')
		s++;
	if (*s == '\0' || *s == '\n')
		return -1;
	while (*s != ' ' && *s != '\0' && *s != '\n')
		s++;
	*p = s;
	return 0;
}

static int
read_file(const char *path, char *buf, size_t cap)
{
	return (int)pf_read_small(path, buf, cap);
}

static int
parse_cpu_line(const char *p, struct pf_cpu_ticks *c)
{
	uint64_t *f[] = { &c->user, &c->nice, &c->system, &c->idle,
	    &c->iowait, &c->irq, &c->softirq, &c->steal, &c->guest,
	    &c->guest_nice };
	size_t i;

	memset(c, 0, sizeof(*c));
	/* Older kernels print fewer fields: zero-fill the rest. */
	for (i = 0; i < PF_ARRAY_LEN(f); i++)
		if (scan_u64(&p, f[i]) == -1)
			break;
	return i >= 4 ? 0 : -1;
}

int
pf_sysstat_read(const char *proc_root, struct pf_sysstat *s)
{
	char path[PATH_MAX];
	char *buf;
	size_t cap;
	int r;
	const char *pos, *line, *p;
	size_t len;
	uint64_t v;
	bool have_all = false;

	if ((size_t)snprintf(path, sizeof(path), "%s/stat", proc_root) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	/* The intr line grows with the IRQ count: retry bigger when full. */
	for (cap = SYSSTAT_BUF;; cap *= 4) {
		if ((buf = malloc(cap)) == NULL)
			return -1;
		if ((r = read_file(path, buf, cap)) == -1) {
			free(buf);
			return -1;
		}
		if ((size_t)r < cap - 1 || cap >= SYSSTAT_MAX)
			break;
		free(buf);
	}
	memset(s, 0, sizeof(*s));
	for (pos = buf; pf_lr_text_next(&pos, &line, &len) == 1;) {
		if (strncmp(line, "cpu ", 4) == 0) {
			have_all = parse_cpu_line(line + 4, &s->all) == 0;
		} else if (strncmp(line, "cpu", 3) == 0 && line[3] >= '0' && line[3] <= '9') {
			p = line + 3;
			if (scan_u64(&p, &v) == 0 && v < INT_MAX && s->ncpu < PF_MAX_CPUS &&
			    parse_cpu_line(p, &s->cpu[s->ncpu]) == 0)
				s->cpu_id[s->ncpu++] = (int)v;
		} else if (strncmp(line, "ctxt ", 5) == 0) {
			p = line + 5;
			(void)scan_u64(&p, &s->ctxt);
		} else if (strncmp(line, "intr ", 5) == 0) {
			p = line + 5;
			(void)scan_u64(&p, &s->intr);
		} else if (strncmp(line, "procs_running ", 14) == 0) {
			p = line + 14;
			(void)scan_u64(&p, &s->procs_running);
		} else if (strncmp(line, "procs_blocked ", 14) == 0) {
			p = line + 14;
			(void)scan_u64(&p, &s->procs_blocked);
		}
	}
	free(buf);
	if (!have_all) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
pf_keyvals_read(const char *path, const char *const *keys, size_t n,
    uint64_t *vals, bool *found)
{
	char buf[16384];
	const char *pos, *line, *p;
	size_t i, kl, len;

	if (read_file(path, buf, sizeof(buf)) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		vals[i] = 0;
		found[i] = false;
	}
	for (pos = buf; pf_lr_text_next(&pos, &line, &len) == 1;) {
		for (i = 0; i < n; i++) {
			kl = strlen(keys[i]);
			if (strncmp(line, keys[i], kl) == 0 && line[kl] == ' ') {
				p = line + kl;
				if (scan_u64(&p, &vals[i]) == 0)
					found[i] = true;
				break;
			}
		}
	}
	return 0;
}

int
pf_taskstat_parse(const char *text, struct pf_taskstat *t)
{
	const char *open, *close, *p;
	uint64_t v;
	size_t n;
	int field;

	memset(t, 0, sizeof(*t));
	p = text;
	if (scan_u64(&p, &v) == -1 || v > INT_MAX)
		goto bad;
	t->pid = (int)v;
	if ((open = strchr(p, '(')) == NULL || (close = strrchr(open, ')')) == NULL)
		goto bad;
	n = (size_t)(close - open - 1);
	if (n >= sizeof(t->comm))
		n = sizeof(t->comm) - 1;
	memcpy(t->comm, open + 1, n);
	t->comm[n] = '\0';
	p = close + 1;
	while (*p == ' ')
		p++;
	if (*p == '\0' || *p == '\n')
		goto bad;
	t->state = *p++;
	/* Fields 4.. are numbers; 5 of them (priority, nice...) may be negative. */
	for (field = 4; field <= 52; field++) {
		const char *save = p;
		uint64_t *dst = NULL;

		switch (field) {
		case 10: dst = &t->minflt; break;
		case 12: dst = &t->majflt; break;
		case 14: dst = &t->utime; break;
		case 15: dst = &t->stime; break;
		case 22: dst = &t->starttime; break;
		case 42: dst = &t->blkio_ticks; break;
		case 43: dst = &t->guest_time; break;
		default: break;
		}
		if (field == 20 || field == 39) {
			if (scan_u64(&p, &v) == -1 || v > INT_MAX) {
				p = save;
				if (skip_field(&p) == -1)
					break;
				continue;
			}
			if (field == 20)
				t->num_threads = (long)v;
			else
				t->processor = (int)v;
			continue;
		}
		if (dst != NULL) {
			if (scan_u64(&p, dst) == -1) {
				if (field <= 22)
					goto bad;
				break;	/* older kernels end earlier */
			}
			continue;
		}
		if (skip_field(&p) == -1) {
			if (field <= 22)
				goto bad;
			break;
		}
	}
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

int
pf_schedstat_parse(const char *text, struct pf_schedstat *s)
{
	const char *p = text;

	if (scan_u64(&p, &s->run_ns) == -1 || scan_u64(&p, &s->wait_ns) == -1 ||
	    scan_u64(&p, &s->slices) == -1) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
pf_cpulist_count(const char *list)
{
	const char *p = list;
	uint64_t a, b;
	int n = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	for (;;) {
		if (scan_u64(&p, &a) == -1)
			return -1;
		b = a;
		if (*p == '-') {
			p++;
			if (scan_u64(&p, &b) == -1 || b < a || b - a > PF_MAX_CPUS * 64)
				return -1;
		}
		n += (int)(b - a + 1);
		if (*p != ',')
			break;
		p++;
	}
	return n;
}

int
pf_status_parse(const char *text, struct pf_status *s)
{
	const char *pos, *line, *p;
	size_t len;
	uint64_t v;
	bool have_v = false, have_nv = false;

	memset(s, 0, sizeof(*s));
	s->uid = -1;
	for (pos = text; pf_lr_text_next(&pos, &line, &len) == 1;) {
		if (strncmp(line, "voluntary_ctxt_switches:", 24) == 0) {
			p = line + 24;
			have_v = scan_u64(&p, &s->vcs) == 0;
		} else if (strncmp(line, "nonvoluntary_ctxt_switches:", 27) == 0) {
			p = line + 27;
			have_nv = scan_u64(&p, &s->nvcs) == 0;
		} else if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
			char tmp[4096];
			size_t n = len - 18;

			if (n >= sizeof(tmp))
				n = sizeof(tmp) - 1;
			memcpy(tmp, line + 18, n);
			tmp[n] = '\0';
			s->cpus_allowed = pf_cpulist_count(tmp);
			if (s->cpus_allowed < 0)
				s->cpus_allowed = 0;
		} else if (strncmp(line, "NSpid:", 6) == 0) {
			p = line + 6;
			while (scan_u64(&p, &v) == 0) {
				s->nspid_levels++;
				s->nspid = v > INT_MAX ? 0 : (int)v;
			}
		} else if (strncmp(line, "Uid:", 4) == 0) {
			p = line + 4;
			if (scan_u64(&p, &v) == 0 && v <= LONG_MAX)
				s->uid = (long)v;
		}
	}
	s->have_ctxt = have_v && have_nv;
	return 0;
}

int
pf_io_parse(const char *text, struct pf_io *io)
{
	static const char *const keys[] = { "rchar:", "wchar:", "read_bytes:",
	    "write_bytes:", "cancelled_write_bytes:" };
	uint64_t *dst[] = { &io->rchar, &io->wchar, &io->read_bytes,
	    &io->write_bytes, &io->cancelled_write_bytes };
	const char *pos, *line, *p;
	size_t i, len, found = 0;

	memset(io, 0, sizeof(*io));
	for (pos = text; pf_lr_text_next(&pos, &line, &len) == 1;) {
		for (i = 0; i < PF_ARRAY_LEN(keys); i++) {
			size_t kl = strlen(keys[i]);

			if (strncmp(line, keys[i], kl) == 0) {
				p = line + kl;
				if (scan_u64(&p, dst[i]) == 0)
					found++;
				break;
			}
		}
	}
	if (found == 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

long
pf_proc_read(const char *proc_root, int pid, int tid, const char *name,
    char *buf, size_t cap)
{
	char path[PATH_MAX];
	int n;

	if (tid > 0)
		n = snprintf(path, sizeof(path), "%s/%d/task/%d/%s", proc_root, pid, tid, name);
	else
		n = snprintf(path, sizeof(path), "%s/%d/%s", proc_root, pid, name);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return read_file(path, buf, cap);
}

int
pf_proc_openat(int dirfd, int tid, const char *name)
{
	char rel[64];
	int n;

	n = snprintf(rel, sizeof(rel), "%d/%s", tid, name);
	if (n < 0 || (size_t)n >= sizeof(rel)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return openat(dirfd, rel, O_RDONLY | O_CLOEXEC);
}

long
pf_proc_pread(int fd, char *buf, size_t cap)
{
	ssize_t r;

	if (cap == 0) {
		errno = EINVAL;
		return -1;
	}
	do
		r = pread(fd, buf, cap - 1, 0);
	while (r == -1 && errno == EINTR);
	if (r < 0)
		return -1;
	buf[r] = '\0';
	return (long)r;
}

int
pf_taskstat_read(const char *proc_root, int pid, int tid, struct pf_taskstat *t)
{
	char buf[1024];

	if (pf_proc_read(proc_root, pid, tid, "stat", buf, sizeof(buf)) == -1)
		return -1;
	return pf_taskstat_parse(buf, t);
}

int
pf_schedstat_read(const char *proc_root, int pid, int tid, struct pf_schedstat *s)
{
	char buf[128];

	if (pf_proc_read(proc_root, pid, tid, "schedstat", buf, sizeof(buf)) == -1)
		return -1;
	return pf_schedstat_parse(buf, s);
}

int
pf_status_read(const char *proc_root, int pid, int tid, struct pf_status *s)
{
	char buf[8192];

	if (pf_proc_read(proc_root, pid, tid, "status", buf, sizeof(buf)) == -1)
		return -1;
	return pf_status_parse(buf, s);
}

int
pf_io_read(const char *proc_root, int pid, struct pf_io *io)
{
	char buf[512];

	if (pf_proc_read(proc_root, pid, 0, "io", buf, sizeof(buf)) == -1)
		return -1;
	return pf_io_parse(buf, io);
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

long
pf_tasks_list(const char *proc_root, int pid, size_t max, int **out, bool *truncated)
{
	char path[PATH_MAX];
	DIR *d;
	struct dirent *de;
	int *v = NULL;
	size_t n = 0, cap = 0;
	int k;

	*truncated = false;
	if (pid > 0)
		k = snprintf(path, sizeof(path), "%s/%d/task", proc_root, pid);
	else
		k = snprintf(path, sizeof(path), "%s", proc_root);
	if (k < 0 || (size_t)k >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		const char *p = de->d_name;
		uint64_t id;

		if (scan_u64(&p, &id) == -1 || *p != '\0' || id == 0 || id > INT_MAX)
			continue;
		if (n == max) {
			*truncated = true;
			break;
		}
		if (pf_grow(&v, &cap, n + 1, sizeof(*v)) == -1) {
			free(v);
			closedir(d);
			errno = ENOMEM;
			return -1;
		}
		v[n++] = (int)id;
	}
	closedir(d);
	if (n > 0)
		qsort(v, n, sizeof(*v), cmp_int);
	*out = v;
	return (long)n;
}

/* The switches so far of every listed task of pid, added to *sum: 0, or -1. */
static int
switches_of(const char *proc_root, int pid, uint64_t *sum)
{
	struct pf_status st;
	bool more;
	int *tids = NULL;
	long n, i;

	if ((n = pf_tasks_list(proc_root, pid, PF_SWITCH_RATE_TASKS, &tids, &more)) <= 0) {
		free(tids);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (pf_status_read(proc_root, pid, tids[i], &st) == 0 && st.have_ctxt)
			*sum += st.vcs + st.nvcs;
	free(tids);
	return 0;
}

double
pf_switch_rate(const char *proc_root, const int *pids, size_t n, unsigned ms)
{
	struct timespec t0, t1, nap = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
	uint64_t before = 0, after = 0;
	size_t i, read = 0;
	double secs;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++)
		read += switches_of(proc_root, pids[i], &before) == 0;
	if (read == 0)
		return -1;
	while (nanosleep(&nap, &nap) == -1 && errno == EINTR)
		;
	for (i = 0; i < n; i++)
		(void)switches_of(proc_root, pids[i], &after);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	/* A thread that ended took its count along: never below 0. */
	return after > before && secs > 0 ? (double)(after - before) / secs : 0;
}
