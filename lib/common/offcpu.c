/*
 * offcpu: pairing switch-out samples with switch-ins (offcpu.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hash.h"
#include "offcpu.h"
#include "pyrec.h"

enum { K_SAMPLE, K_OUT, K_IN, K_EXIT };

/* One record to pair. */
struct item {
	uint64_t time;
	uint32_t kind, tid;
	uint64_t ref;		/* sample offset, or preempt flag for K_OUT */
	uint64_t seq;		/* read order, to keep ties stable */
};

/* A sample looked up among the sums. */
struct sum_key {
	const struct pf_offcpu *o;
	const struct pf_rawsample *s;
};

void
pf_offcpu_init(struct pf_offcpu *o)
{
	memset(o, 0, sizeof(*o));
	o->min_block_ns = 1000;
	o->max_block_ns = UINT64_MAX;
}

void
pf_offcpu_aggregate(struct pf_offcpu *o)
{
	o->aggregating = true;
}

static int
cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The open interval of tid, a new empty one if none.  NULL with ENOMEM. */
static struct pf_offcpu_open *
open_slot(struct pf_offcpu *o, uint32_t tid)
{
	uint64_t h = pf_hash_u64(tid);
	struct pf_htab_slot *s;

	if (o->opens.index.slots == NULL && pf_htab_init(&o->opens.index, 64) == -1)
		return NULL;
	if ((s = pf_htab_claim(&o->opens.index, h, pf_htab_u64_eq, NULL)) == NULL)
		return NULL;
	if (s->idx)
		return &o->opens.v[s->idx - 1];
	if (pf_grow(&o->opens.v, &o->opens.cap, o->opens.n + 1, sizeof(*o->opens.v)) == -1)
		return NULL;
	o->opens.v[o->opens.n] = (struct pf_offcpu_open){ .tid = tid };
	pf_htab_set(&o->opens.index, s, h, o->opens.n);
	return &o->opens.v[o->opens.n++];
}

static bool
sum_eq(const void *arg, size_t idx)
{
	const struct sum_key *k = arg;
	const struct pf_rawsample *a = k->s;
	const struct pf_rawsample *b = (const void *)(k->o->sums.samples.data +
	    k->o->sums.v[idx].off);

	return a->tid == b->tid && a->pid == b->pid && a->nr == b->nr && a->py == b->py &&
	    memcmp(a + 1, b + 1, (size_t)a->nr * 8) == 0;
}

/*
 * The Python frames of the sample at off were read after its thread came
 * back on a CPU ns after it (both clocks CLOCK_MONOTONIC): they may not
 * be the ones it blocked in, and are written as a mismatch.
 */
static void
late(const struct pf_rawrec *rec, uint64_t off, uint64_t ns)
{
	struct pf_rawsample *s = (void *)(rec->samples.data + off);

	if (s->py != PF_PYREC_NONE && s->py != PF_PYREC_UNFOUND &&
	    (uint64_t)s->py_lag_us * 1000 > ns)
		s->py = PF_PYREC_LATE;
}

/* Add ns to the sum of s's thread and stack.  -1 with ENOMEM. */
static int
sum_add(struct pf_offcpu *o, const struct pf_rawsample *s, uint64_t ns)
{
	uint64_t h = pf_hash_u64(pf_hash(s + 1, (size_t)s->nr * 8) ^
	    ((uint64_t)s->pid << 32 | s->tid) ^ ((uint64_t)s->py << 17));
	struct sum_key k = { o, s };
	struct pf_htab_slot *sl;

	if (o->sums.index.slots == NULL && pf_htab_init(&o->sums.index, 1024) == -1)
		return -1;
	if ((sl = pf_htab_claim(&o->sums.index, h, sum_eq, &k)) == NULL)
		return -1;
	if (sl->idx) {
		o->sums.v[sl->idx - 1].period += ns;
		return 0;
	}
	if (pf_grow(&o->sums.v, &o->sums.cap, o->sums.n + 1, sizeof(*o->sums.v)) == -1)
		return -1;
	o->sums.v[o->sums.n] = (struct pf_rawref){ o->sums.samples.len, ns };
	if (pf_buf_append(&o->sums.samples, s, pf_rawsample_size(s)) == -1)
		return -1;
	pf_htab_set(&o->sums.index, sl, h, o->sums.n++);
	return 0;
}

/*
 * The records to pair, sorted: the samples and exits timed from lo to hi
 * and the switches up to hi (a switch that came late is still wanted).
 * *nsamples gets how many are samples.  NULL with ENOMEM.
 */
static struct item *
collect(const struct pf_rawrec *rec, uint64_t lo, uint64_t hi, size_t *np,
    size_t *nsamples)
{
	size_t n = 0, ns = 0, ne = 0, off;
	struct item *it;
	uint64_t seq = 0;

	/* Counted from the buffers, whatever the record counters say. */
	for (off = 0; off + sizeof(struct pf_rawevent) <= rec->events.len;
	    off += pf_rawevent_size((const void *)(rec->events.data + off)))
		ne++;
	it = calloc(rec->samples.len / sizeof(struct pf_rawsample) + rec->switches.len /
	    sizeof(struct pf_rawswitch) + ne + 1, sizeof(*it));
	if (it == NULL)
		return NULL;
	for (off = 0; off < rec->samples.len;) {
		const struct pf_rawsample *s = pf_rawrec_sample(rec, off);

		if (s->time >= lo && s->time <= hi) {
			it[n++] = (struct item){ s->time, K_SAMPLE, s->tid, off, seq++ };
			ns++;
		}
		off += pf_rawsample_size(s);
	}
	for (off = 0; off + sizeof(struct pf_rawswitch) <= rec->switches.len;
	    off += sizeof(struct pf_rawswitch)) {
		const struct pf_rawswitch *w = (const void *)(rec->switches.data + off);

		if (w->time <= hi)
			it[n++] = (struct item){ w->time, w->out ? K_OUT : K_IN, w->tid,
			    w->preempt, seq++ };
	}
	for (off = 0; off + sizeof(struct pf_rawevent) <= rec->events.len;) {
		const struct pf_rawevent *e = (const void *)(rec->events.data + off);

		if (e->type == PF_EV_EXIT && e->time >= lo && e->time <= hi)
			it[n++] = (struct item){ e->time, K_EXIT, e->tid, 0, seq++ };
		off += pf_rawevent_size(e);
	}
	qsort(it, n, sizeof(*it), cmp_item);
	*np = n;
	*nsamples = ns;
	return it;
}

/*
 * Walk n sorted records through the open intervals.  Each interval that
 * passes the settings becomes bl[(*nb)++], or with bl NULL goes into its
 * sum.  -1 with ENOMEM.
 */
static int
walk(struct pf_offcpu *o, const struct pf_rawrec *rec, const struct item *it, size_t n,
    struct pf_rawref *bl, size_t *nb)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct pf_offcpu_open *op;
		uint64_t ns;

		if (it[i].tid == 0) {	/* the idle task: idle is not blocked */
			o->fig.idle += it[i].kind == K_SAMPLE;
			continue;
		}
		if ((op = open_slot(o, it[i].tid)) == NULL)
			return -1;
		switch (it[i].kind) {
		case K_SAMPLE:
			if (op->off != UINT64_MAX && op->time)
				o->fig.unpaired++;	/* its switch-in was lost */
			op->off = it[i].ref;
			op->time = it[i].time;
			op->preempt = false;
			break;
		case K_OUT:
			if (op->off != UINT64_MAX && op->time)
				op->preempt = it[i].ref != 0;
			break;
		case K_IN:
			if (op->off == UINT64_MAX || op->time == 0)
				break;
			/*
			 * Older than the interval's switch-out: come after a
			 * later drain had paired up to the switch-out (CPU clocks
			 * out of step), it cannot end it.
			 */
			if (it[i].time < op->time)
				break;
			ns = it[i].time - op->time;
			late(rec, op->off, ns);
			if (op->preempt && !o->include_preempted)
				o->fig.preempted++;
			else if (ns < o->min_block_ns || ns > o->max_block_ns)
				o->fig.filtered++;
			else if (bl != NULL) {
				bl[*nb].off = op->off;
				bl[(*nb)++].period = ns;
				o->fig.paired++;
			} else {
				if (sum_add(o, pf_rawrec_sample(rec, op->off), ns) == -1)
					return -1;
				o->fig.paired++;
			}
			op->off = UINT64_MAX;
			break;
		case K_EXIT:
			op->off = UINT64_MAX;
			break;
		}
	}
	return 0;
}

/*
 * Aggregating: pair everything up to time hi into the sums, then keep
 * only what is still to pair (samples of open intervals, later records).
 * The raw records and the sums together stay under the cap on raw data:
 * over it rec->over is set, and the window stops at the size cap as it
 * does below the rate cap.  -1 with ENOMEM.
 */
static int
fold(struct pf_offcpu *o, struct pf_rawrec *rec, uint64_t hi)
{
	struct item *it;
	size_t n, nsamples, off, dst;

	if ((it = collect(rec, o->folded_lo, hi, &n, &nsamples)) == NULL)
		return -1;
	if (walk(o, rec, it, n, NULL, NULL) == -1) {
		free(it);
		return -1;
	}
	free(it);
	o->folded_lo = hi == UINT64_MAX ? hi : hi + 1;
	o->folded_all = hi == UINT64_MAX;
	/* Offsets only move down: each open interval's sample moves with it. */
	for (off = dst = 0; off < rec->samples.len;) {
		const struct pf_rawsample *s = pf_rawrec_sample(rec, off);
		size_t sz = pf_rawsample_size(s);
		bool keep = s->time > hi;

		if (!keep && s->tid != 0 && o->opens.index.slots != NULL) {
			struct pf_htab_slot *sl = pf_htab_find(&o->opens.index,
			    pf_hash_u64(s->tid), pf_htab_u64_eq, NULL);
			struct pf_offcpu_open *op = sl->idx ? &o->opens.v[sl->idx - 1] : NULL;

			if (op != NULL && op->time && op->off == off) {
				op->off = dst;
				keep = true;
			}
		}
		if (keep) {
			memmove(rec->samples.data + dst, rec->samples.data + off, sz);
			dst += sz;
		}
		off += sz;
	}
	rec->samples.len = dst;
	for (off = dst = 0; off + sizeof(struct pf_rawswitch) <= rec->switches.len;
	    off += sizeof(struct pf_rawswitch)) {
		const struct pf_rawswitch *w = (const void *)(rec->switches.data + off);

		if (w->time > hi) {
			memmove(rec->switches.data + dst, w, sizeof(*w));
			dst += sizeof(*w);
		}
	}
	rec->switches.len = dst;
	if (o->sums.samples.len + rec->samples.len + rec->events.len + rec->switches.len >
	    rec->cap_bytes)
		rec->over = true;
	return 0;
}

/* The newest time among the samples and switches drained since the last call. */
static uint64_t
newest(const struct pf_offcpu *o, const struct pf_rawrec *rec)
{
	uint64_t t = 0;
	size_t off;

	for (off = o->seen_samples; off < rec->samples.len;) {
		const struct pf_rawsample *s = pf_rawrec_sample(rec, off);

		if (s->time > t)
			t = s->time;
		off += pf_rawsample_size(s);
	}
	for (off = o->seen_switches; off + sizeof(struct pf_rawswitch) <= rec->switches.len;
	    off += sizeof(struct pf_rawswitch)) {
		const struct pf_rawswitch *w = (const void *)(rec->switches.data + off);

		if (w->time > t)
			t = w->time;
	}
	return t;
}

/*
 * Rings are read in turn, each up to its end: a record timed before the
 * newest one the previous drain saw was in its ring before this drain
 * began, so everything up to that time is here.
 */
int
pf_offcpu_drained(struct pf_offcpu *o, struct pf_rawrec *rec, bool last)
{
	uint64_t t = newest(o, rec);

	if (o->aggregating && fold(o, rec, last ? UINT64_MAX : o->seen_max) == -1)
		return -1;
	if (t > o->seen_max)
		o->seen_max = t;
	o->seen_samples = rec->samples.len;
	o->seen_switches = rec->switches.len;
	return 0;
}

struct pf_rawref *
pf_offcpu_blocks(struct pf_offcpu *o, struct pf_rawrec *rec, size_t *nblocks)
{
	struct pf_rawref *bl;
	struct item *it;
	size_t n, nsamples, nb = 0, i;

	if (!o->aggregating) {
		if ((it = collect(rec, 0, UINT64_MAX, &n, &nsamples)) == NULL)
			return NULL;
		if ((bl = calloc(nsamples + 1, sizeof(*bl))) == NULL ||
		    walk(o, rec, it, n, bl, &nb) == -1) {
			free(it);
			free(bl);
			errno = ENOMEM;
			return NULL;
		}
		free(it);
	} else {
		/* The last drain paired everything; the sums become the samples. */
		if (!o->folded_all && fold(o, rec, UINT64_MAX) == -1)
			return NULL;
		if ((bl = calloc(o->sums.n + 1, sizeof(*bl))) == NULL)
			return NULL;
		pf_buf_free(&rec->samples);
		rec->samples = o->sums.samples;
		o->sums.samples = (struct pf_buf){ 0 };
		nb = o->sums.n;
		if (nb > 0)
			memcpy(bl, o->sums.v, nb * sizeof(*bl));
	}
	/* Threads still off the CPU at the end: their interval has no end. */
	for (i = 0; i < o->opens.n; i++)
		if (o->opens.v[i].off != UINT64_MAX && o->opens.v[i].time)
			o->fig.unpaired++;
	pf_rawrec_sort(rec, bl, nb);
	*nblocks = nb;
	return bl;
}

void
pf_offcpu_free(struct pf_offcpu *o)
{
	free(o->opens.v);
	pf_htab_free(&o->opens.index);
	pf_buf_free(&o->sums.samples);
	free(o->sums.v);
	pf_htab_free(&o->sums.index);
	pf_offcpu_init(o);
}
