/*
 * perfring: events and rings; the read side follows the protocol of
 * include/uapi/linux/perf_event.h (acquire data_head, release data_tail).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <time.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "grow.h"
#include "perfring.h"

struct ring {
	int cpu;
	int fd;			/* the fd the ring is mapped on */
	void *base;
	size_t len;		/* mapping length */
	size_t data_size;
	char *data;
};

struct pf_perf {
	struct pf_perf_attr a;
	unsigned pages;
	int ncpu;
	int *fds;
	size_t nfds, capfds;
	struct ring *rings;	/* indexed by cpu; fd -1 when none yet */
	pid_t *tids;
	size_t ntids, captids;
	const char *failed;
	char scratch[65536];
};

/* pid is a cgroup's directory descriptor when cgroup is set. */
static long
perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, bool cgroup)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, -1,
	    PERF_FLAG_FD_CLOEXEC | (cgroup ? PERF_FLAG_PID_CGROUP : 0));
}

static int
ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (int)n : 1;
}

struct pf_perf *
pf_perf_new(const struct pf_perf_attr *attr, unsigned pages)
{
	struct pf_perf *p;
	int i;

	if (pages == 0 || (pages & (pages - 1)) != 0) {
		errno = EINVAL;
		return NULL;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->a = *attr;
	p->pages = pages;
	p->ncpu = ncpus();
	if ((p->rings = calloc((size_t)p->ncpu, sizeof(*p->rings))) == NULL) {
		free(p);
		return NULL;
	}
	for (i = 0; i < p->ncpu; i++) {
		p->rings[i].cpu = i;
		p->rings[i].fd = -1;
	}
	return p;
}

static void
fill_attr(const struct pf_perf *p, struct perf_event_attr *e, bool task)
{
	memset(e, 0, sizeof(*e));
	e->size = sizeof(*e);
	e->type = p->a.type;
	e->config = p->a.config;
	if (p->a.freq) {
		e->freq = 1;
		e->sample_freq = p->a.freq;
	} else
		e->sample_period = p->a.period;
	e->sample_type = p->a.sample_type;
	e->disabled = 1;
	e->inherit = task && p->a.inherit;
	e->enable_on_exec = task && p->a.enable_on_exec;
	e->exclude_kernel = p->a.exclude_kernel;
	e->exclude_callchain_kernel = p->a.exclude_kernel;
	e->exclude_hv = 1;
	e->mmap = 1;
	e->mmap2 = 1;
	e->comm = 1;
	e->comm_exec = 1;
	e->task = 1;
	e->sample_id_all = 1;
	e->context_switch = p->a.context_switch;
	e->sample_max_stack = p->a.max_stack;
	e->sample_regs_user = p->a.regs_user;
	e->sample_stack_user = p->a.stack_user;
	e->build_id = p->a.build_id;
	if (p->a.clock_monotonic) {
		e->use_clockid = 1;
		e->clockid = CLOCK_MONOTONIC;
	}
	if (p->a.wake_each) {
		e->watermark = 0;
		e->wakeup_events = 1;
		return;
	}
	/* Wake the reader at a quarter of the ring; set once the size is known. */
	e->watermark = 1;
	e->wakeup_watermark = (uint32_t)((size_t)p->pages * (size_t)getpagesize() / 4);
}

/* Map a ring on fd, halving the page count while the memlock limit refuses. */
static int
map_ring(struct pf_perf *p, struct ring *r, int fd)
{
	size_t pg = (size_t)getpagesize();
	void *m;

	for (;;) {
		size_t len = (1 + (size_t)p->pages) * pg;

		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m != MAP_FAILED) {
			struct perf_event_mmap_page *mp = m;

			r->fd = fd;
			r->base = m;
			r->len = len;
			r->data_size = mp->data_size ? mp->data_size : (size_t)p->pages * pg;
			r->data = (char *)m + (mp->data_offset ? mp->data_offset : pg);
			return 0;
		}
		if (errno != EPERM || p->pages == 1)
			return -1;
		p->pages /= 2;
	}
}

static int
add_fd(struct pf_perf *p, int fd)
{
	if (pf_grow(&p->fds, &p->capfds, p->nfds + 1, sizeof(*p->fds)) == -1)
		return -1;
	p->fds[p->nfds++] = fd;
	return 0;
}

static bool
have_tid(const struct pf_perf *p, pid_t tid)
{
	size_t i;

	for (i = 0; i < p->ntids; i++)
		if (p->tids[i] == tid)
			return true;
	return false;
}

/*
 * The events of thread tid on every CPU (tid -1: each CPU whole), or with
 * cgroup those of the cgroup whose directory descriptor tid is.
 */
static int
open_events(struct pf_perf *p, pid_t tid, bool cgroup)
{
	struct perf_event_attr e;
	int cpu, fd, opened = 0, e_last = ENODEV;
	bool task = tid >= 0 && !cgroup;

	for (cpu = 0; cpu < p->ncpu; cpu++) {
		struct ring *r = &p->rings[cpu];

		fill_attr(p, &e, task);
		fd = (int)perf_open(&e, tid, cpu, cgroup);
		/* A kernel before 5.12 knows no build_id bit: inodes must do. */
		if (fd == -1 && errno == EINVAL && p->a.build_id) {
			p->a.build_id = false;
			fill_attr(p, &e, task);
			fd = (int)perf_open(&e, tid, cpu, cgroup);
		}
		if (fd == -1) {
			p->failed = "perf_event_open";
			/* An offline CPU is not an error; anything else is. */
			if (errno == ENODEV) {
				e_last = errno;
				continue;
			}
			return -1;
		}
		if (add_fd(p, fd) == -1) {
			close(fd);
			return -1;
		}
		if (r->fd == -1) {
			if (map_ring(p, r, fd) == -1)
				return p->failed = "mmap", -1;
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) == -1)
			return p->failed = "ioctl", -1;
		opened++;
	}
	if (opened == 0) {
		errno = e_last;
		return -1;
	}
	if (task) {
		if (pf_grow(&p->tids, &p->captids, p->ntids + 1, sizeof(*p->tids)) == -1)
			return -1;
		p->tids[p->ntids++] = tid;
	}
	return 0;
}

int
pf_perf_open_task(struct pf_perf *p, pid_t tid)
{
	if (tid >= 0 && have_tid(p, tid))
		return 0;
	return open_events(p, tid, false);
}

int
pf_perf_open_cgroup(struct pf_perf *p, int cgroup_fd)
{
	return open_events(p, cgroup_fd, true);
}

size_t
pf_perf_nfds(const struct pf_perf *p)
{
	return p->nfds;
}

size_t
pf_perf_nrings(const struct pf_perf *p)
{
	size_t n = 0;
	int i;

	for (i = 0; i < p->ncpu; i++)
		n += p->rings[i].fd != -1;
	return n;
}

unsigned
pf_perf_ring_pages(const struct pf_perf *p)
{
	return p->pages;
}

static int
ioctl_all(struct pf_perf *p, unsigned long req)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < p->nfds; i++)
		if (ioctl(p->fds[i], req, 0) == -1)
			rc = -1;
	return rc;
}

int
pf_perf_enable(struct pf_perf *p)
{
	return ioctl_all(p, PERF_EVENT_IOC_ENABLE);
}

int
pf_perf_disable(struct pf_perf *p)
{
	return ioctl_all(p, PERF_EVENT_IOC_DISABLE);
}

int
pf_perf_poll(struct pf_perf *p, int timeout_ms)
{
	struct pollfd pfd[1024];
	nfds_t n = 0;
	int i, rc;

	for (i = 0; i < p->ncpu && n < (nfds_t)(sizeof(pfd) / sizeof(pfd[0])); i++)
		if (p->rings[i].fd != -1) {
			pfd[n].fd = p->rings[i].fd;
			pfd[n].events = POLLIN;
			n++;
		}
	rc = poll(pfd, n, timeout_ms);
	if (rc == -1 && errno == EINTR)
		return 0;
	return rc;
}

static long
drain_ring(struct pf_perf *p, struct ring *r, pf_perf_record_cb cb, void *arg)
{
	struct perf_event_mmap_page *mp = r->base;
	uint64_t head, tail, size = r->data_size;
	long n = 0;

	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	/*
	 * In a ring mapped writable the kernel never writes over records not
	 * yet read: it drops new ones and says so (PERF_RECORD_LOST).  A head
	 * more than a ring ahead of the tail is then no state the kernel
	 * makes; should it be seen, only the last ring's worth is read, and
	 * never bytes outside the ring.
	 */
	if (head - tail > size)
		tail = head - size;
	while (tail < head) {
		uint64_t off = tail & (size - 1);
		const char *rec = r->data + off;
		struct perf_event_header h;

		memcpy(&h, rec, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			break;
		if (off + h.size > size) {
			size_t first = size - off;

			memcpy(p->scratch, r->data + off, first);
			memcpy(p->scratch + first, r->data, h.size - first);
			rec = p->scratch;
		}
		if (cb(&h, rec, arg) == -1) {
			__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
			return -1;
		}
		tail += h.size;
		n++;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

long
pf_perf_drain(struct pf_perf *p, pf_perf_record_cb cb, void *arg)
{
	long n = 0, r;
	int i;

	for (i = 0; i < p->ncpu; i++) {
		if (p->rings[i].fd == -1)
			continue;
		if ((r = drain_ring(p, &p->rings[i], cb, arg)) == -1)
			return -1;
		n += r;
	}
	return n;
}

void
pf_perf_free(struct pf_perf *p)
{
	size_t i;
	int c;

	if (p == NULL)
		return;
	for (c = 0; c < p->ncpu; c++)
		if (p->rings[c].base)
			munmap(p->rings[c].base, p->rings[c].len);
	for (i = 0; i < p->nfds; i++)
		close(p->fds[i]);
	free(p->fds);
	free(p->rings);
	free(p->tids);
	free(p);
}

const char *
pf_perf_failed_call(const struct pf_perf *p)
{
	return p->failed ? p->failed : "perf_event_open";
}
