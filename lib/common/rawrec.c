/*
 * rawrec: raw records of a window and their replay as perf-script text.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "parse.h"
#include "rawrec.h"

int
pf_rawrec_on_record(const struct perf_event_header *h, void *arg)
{
	struct pf_rawrec *r = arg;
	const char *p = (const char *)(h + 1);
	const char *end = (const char *)h + h->size;
	struct pf_rawevent ev;
	size_t slen;

	/* sample_id trailer of non-sample records: pid,tid, time, cpu,res. */
#define ID_TIME() (end - p >= 24 ? *(const uint64_t *)(end - 16) : 0)
	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		struct pf_rawsample s;
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
		if (r->samples.len + r->events.len + r->switches.len > r->cap_bytes)
			r->over = true;
		return 0;
	}
	case PERF_RECORD_MMAP2:
		if (end - p < 64)
			return 0;
		memset(&ev, 0, sizeof(ev));
		ev.type = PF_EV_MMAP;
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
		ev.type = PF_EV_COMM;
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
		ev.type = h->type == PERF_RECORD_FORK ? PF_EV_FORK : PF_EV_EXIT;
		ev.pid = *(const uint32_t *)p;
		ev.ppid = *(const uint32_t *)(p + 4);
		ev.tid = *(const uint32_t *)(p + 8);
		ev.time = *(const uint64_t *)(p + 16);
		slen = 0;
		p = "";
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE: {
		struct pf_rawswitch sw;

		/* Both kinds end with sample_id: pid,tid, time, cpu,res. */
		if (!r->keep_switches || end - p < 24)
			return 0;
		sw.time = *(const uint64_t *)(end - 16);
		sw.tid = *(const uint32_t *)(end - 20);
		sw.out = (h->misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
		sw.preempt = (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
		if (pf_buf_append(&r->switches, &sw, sizeof(sw)) == -1)
			return -1;
		r->nswitches++;
		if (r->samples.len + r->events.len + r->switches.len > r->cap_bytes)
			r->over = true;
		return 0;
	}
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

struct pf_comm_ent {
	uint32_t tid;
	char name[16];
};

static struct pf_comm_ent *
comm_slot(struct pf_comms *c, uint32_t tid, bool create)
{
	size_t h, i;

	if (create && (c->n + 1) * 2 > c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 256;
		struct pf_comm_ent *v = calloc(nc, sizeof(*v));

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

void
pf_comms_set(struct pf_comms *c, uint32_t tid, const char *name)
{
	struct pf_comm_ent *e = comm_slot(c, tid, true);

	if (e)
		snprintf(e->name, sizeof(e->name), "%s", name);
}

/* The name of tid: recorded, else /proc (still alive), else ":tid" as perf prints. */
const char *
pf_comms_get(struct pf_comms *c, uint32_t pid, uint32_t tid, char *buf, size_t len)
{
	struct pf_comm_ent *e = comm_slot(c, tid, false);
	char path[64];

	if (e)
		return e->name;
	if (tid == 0)		/* the idle task, as perf names it */
		return "swapper";
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	if (pf_read_small(path, buf, len) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		pf_comms_set(c, tid, buf);
		return buf;
	}
	snprintf(buf, len, ":%u", tid);
	pf_comms_set(c, tid, buf);
	return buf;
}

/* Thread names of pid's threads now, while /proc is readable. */
void
pf_comms_read_proc(struct pf_comms *c, pid_t pid)
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
		(void)pf_comms_get(c, (uint32_t)pid, (uint32_t)tid, buf, sizeof(buf));
	}
	closedir(d);
}

static int
cmp_ev(const void *a, const void *b)
{
	const struct pf_rawevent *x = *(const struct pf_rawevent *const *)a;
	const struct pf_rawevent *y = *(const struct pf_rawevent *const *)b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	/* Same time: the order they were read in, within a ring. */
	return x < y ? -1 : x > y;
}

int
pf_rawrec_replay_begin(struct pf_rawrec *c)
{
	size_t off = 0;

	free(c->ev);
	c->nev = c->evi = 0;
	if ((c->ev = calloc(c->nevents + 1, sizeof(*c->ev))) == NULL)
		return -1;
	while (off < c->events.len) {
		const struct pf_rawevent *e = (const void *)(c->events.data + off);

		c->ev[c->nev++] = e;
		off += sizeof(*e) + e->slen + 1;
		off = (off + 7) & ~(size_t)7;
	}
	qsort(c->ev, c->nev, sizeof(*c->ev), cmp_ev);
	return 0;
}

void
pf_rawrec_replay_to(struct pf_rawrec *c, struct pf_symbolizer *sym,
    struct pf_comms *comms, uint64_t t)
{
	for (; c->evi < c->nev && c->ev[c->evi]->time <= t; c->evi++) {
		const struct pf_rawevent *e = c->ev[c->evi];
		const char *str = (const char *)(e + 1);

		switch (e->type) {
		case PF_EV_MMAP:
			pf_sym_add_map(sym, (pid_t)e->pid, e->addr, e->addr + e->len,
			    e->pgoff, str, e->maj, e->min, e->ino);
			break;
		case PF_EV_COMM:
			if (e->exec)
				pf_sym_exec(sym, (pid_t)e->pid);
			pf_comms_set(comms, e->tid, str);
			break;
		case PF_EV_FORK:
			if (e->pid != e->ppid)
				pf_sym_fork(sym, (pid_t)e->ppid, (pid_t)e->pid);
			{
				/* A new thread starts with its creator's name. */
				struct pf_comm_ent *pc = comm_slot(comms, e->ppid, false);

				if (pc && comm_slot(comms, e->tid, false) == NULL) {
					char name[16];

					memcpy(name, pc->name, sizeof(name));
					pf_comms_set(comms, e->tid, name);
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
	uint64_t ta = ((const struct pf_rawsample *)(base + oa))->time;
	uint64_t tb = ((const struct pf_rawsample *)(base + ob))->time;

	if (ta != tb)
		return ta < tb ? -1 : 1;
	return oa < ob ? -1 : oa > ob;
}

void
pf_rawrec_format(struct pf_symbolizer *sym, struct pf_comms *comms,
    const struct pf_rawsample *s, uint64_t period, const char *evname,
    struct pf_buf *b)
{
	const uint64_t *ips = (const uint64_t *)(s + 1);
	char cbuf[32], tbuf[32];
	const char *comm = pf_comms_get(comms, s->pid, s->tid, cbuf, sizeof(cbuf));
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
	    s->cpu, tbuf, (unsigned long long)period, evname);
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
		pf_sym_frame(sym, (pid_t)s->pid, &in, &out);
		if (out.sym)
			pf_buf_printf(b, "\t%16llx %s+0x%llx (%s)\n", (unsigned long long)out.addr,
			    out.sym, (unsigned long long)out.off, out.dso ? out.dso : "[unknown]");
		else
			pf_buf_printf(b, "\t%16llx [unknown] (%s)\n", (unsigned long long)out.addr,
			    out.dso ? out.dso : "[unknown]");
	}
	pf_buf_putc(b, '\n');
}


uint64_t *
pf_rawrec_sample_order(const struct pf_rawrec *r, size_t *np)
{
	uint64_t *order;
	size_t off = 0, n = 0;

	if ((order = calloc(r->nsamples + 1, sizeof(*order))) == NULL)
		return NULL;
	while (off < r->samples.len && n < r->nsamples) {
		const struct pf_rawsample *s = (const void *)(r->samples.data + off);

		order[n++] = off;
		off += sizeof(*s) + (size_t)s->nr * 8;
	}
	qsort_r(order, n, sizeof(*order), cmp_sample, r->samples.data);
	*np = n;
	return order;
}

void
pf_rawrec_free(struct pf_rawrec *r)
{
	pf_buf_free(&r->samples);
	pf_buf_free(&r->events);
	pf_buf_free(&r->switches);
	free(r->ev);
	r->ev = NULL;
	r->nev = r->evi = 0;
}

void
pf_comms_free(struct pf_comms *c)
{
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}
