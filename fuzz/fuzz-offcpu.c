/*
 * fuzz-offcpu: the off-CPU pairing engine (lib/common/offcpu) on
 * synthetic switch and sample sequences.  The input decodes to records
 * (a switch-out sample, a switch-out, a switch-in, a thread's exit) of
 * sixteen threads on four rings, and to the drains and the start of
 * summing the recorder would call for.
 *
 * The first two bytes pick the settings and one of two modes:
 *
 *   - as the rings give them: each ring in time order, drained in turn
 *     so that a ring read later is ahead of the others, as the engine
 *     expects.  The records are paired twice, at once below the rate cap
 *     and summed drain by drain above it, and both must come to the same
 *     time per thread and stack and the same figures;
 *   - anything: times that go back, drains and the start of summing
 *     anywhere.  The engine must still not fail, nor count more time.
 *
 * In both, every block refers to a whole sample in the records, and no
 * thread is off the CPU longer than the records span (from the earliest
 * time to the latest): its intervals never overlap.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "offcpu.h"
#include "rawrec.h"

#include "../tests/unit/rawput.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { NTIDS = 16, NSTACKS = 8, NRINGS = 4, MAXREC = 4096 };
enum { R_SAMPLE, R_OUT, R_IN, R_EXIT, R_DRAIN, R_SUM };

/* Drains, in ring order: ring c up to k * STEP + c * STEP / NRINGS. */
#define STEP 50000

struct rec {
	uint64_t time;
	uint8_t kind, tid, stack, preempt;
};

/* One record into r, as pf_rawrec_on_record keeps it. */
static void
put(struct pf_rawrec *r, const struct rec *x)
{
	uint64_t ip[3] = { 0x1000 + x->stack, 0x2000, 0x3000 };
	uint32_t pid = 100 + x->tid / 4;

	switch (x->kind) {
	case R_SAMPLE:
		rawput_sample(r, pid, x->tid, x->time, ip, 1 + x->stack % 3);
		break;
	case R_OUT:
	case R_IN:
		rawput_switch(r, x->tid, x->time, x->kind == R_OUT,
		    x->kind == R_OUT && x->preempt);
		break;
	case R_EXIT:
		rawput_exit(r, pid, x->tid, x->time);
		break;
	}
}

/* The stack index of a sample put by put. */
static unsigned
stack_of(const struct pf_rawsample *s)
{
	uint64_t ip;

	memcpy(&ip, s + 1, sizeof(ip));
	return (unsigned)(ip - 0x1000) % NSTACKS;
}

/*
 * Check the blocks against r and add each one's time to tot[tid][stack].
 * Every reference is a whole sample of r; no thread's total passes span.
 */
static void
check(const struct pf_rawrec *r, const struct pf_rawref *b, size_t n, uint64_t span,
    uint64_t tot[NTIDS][NSTACKS])
{
	uint64_t per[NTIDS] = { 0 };
	size_t i;

	memset(tot, 0, sizeof(uint64_t) * NTIDS * NSTACKS);
	for (i = 0; i < n; i++) {
		const struct pf_rawsample *s;

		if (b[i].off > r->samples.len || r->samples.len - b[i].off < sizeof(*s))
			abort();
		s = pf_rawrec_sample(r, b[i].off);
		if (r->samples.len - b[i].off < pf_rawsample_size(s) || s->tid == 0 ||
		    s->tid >= NTIDS || s->nr < 1 || s->nr > 3)
			abort();
		if (i > 0 && pf_rawrec_sample(r, b[i - 1].off)->time > s->time)
			abort();	/* not in switch-out order */
		if (b[i].period > span || per[s->tid] > span - b[i].period)
			abort();	/* off the CPU longer than the records span */
		per[s->tid] += b[i].period;
		tot[s->tid][stack_of(s)] += b[i].period;
	}
}

static void
settings(struct pf_offcpu *o, uint8_t f)
{
	static const uint64_t mins[] = { 0, 1, 1000, 40000 };
	static const uint64_t maxs[] = { UINT64_MAX, 60000, 1000, 0 };

	pf_offcpu_init(o);
	o->include_preempted = f & 1;
	o->min_block_ns = mins[(f >> 2) & 3];
	o->max_block_ns = maxs[(f >> 4) & 3];
}

/*
 * As the rings give them: x[] holds each ring's records in time order
 * (ring[i] says which); pair them at once in ra and drain by drain,
 * summed, in rb.
 */
static void
as_rings(const struct rec *x, const uint8_t *ring, size_t n, uint8_t f, uint64_t span)
{
	struct pf_rawrec ra = { .cap_bytes = UINT64_MAX }, rb = { .cap_bytes = UINT64_MAX };
	struct pf_offcpu oa, ob;
	struct pf_rawref *ba, *bb;
	uint64_t ta[NTIDS][NSTACKS], tb[NTIDS][NSTACKS];
	static size_t idx[NRINGS][MAXREC];
	size_t len[NRINGS] = { 0 }, pos[NRINGS] = { 0 }, na, nb, c, i;
	bool more = true;
	uint64_t k = 0;

	for (i = 0; i < n; i++)
		idx[ring[i]][len[ring[i]]++] = i;
	settings(&oa, f);
	settings(&ob, f);
	pf_offcpu_aggregate(&ob);
	while (more) {
		uint64_t next = UINT64_MAX;

		more = false;
		for (c = 0; c < NRINGS; c++) {
			for (; pos[c] < len[c]; pos[c]++) {
				const struct rec *e = &x[idx[c][pos[c]]];

				if (e->time > k * STEP + c * (STEP / NRINGS))
					break;
				put(&ra, e);
				put(&rb, e);
			}
			if (pos[c] < len[c]) {
				more = true;
				/* The first drain that reaches ring c's next record. */
				i = (size_t)((x[idx[c][pos[c]]].time - c * (STEP / NRINGS)) / STEP);
				if (i < next)
					next = i;
			}
		}
		if (pf_offcpu_drained(&ob, &rb, !more) == -1)
			abort();
		/* An empty drain or two between, then on to the next with records. */
		k = next > k + 2 ? next : k + 1;
	}
	if (pf_offcpu_drained(&oa, &ra, true) == -1)
		abort();
	if ((ba = pf_offcpu_blocks(&oa, &ra, &na)) == NULL ||
	    (bb = pf_offcpu_blocks(&ob, &rb, &nb)) == NULL)
		abort();
	check(&ra, ba, na, span, ta);
	check(&rb, bb, nb, span, tb);
	if (memcmp(ta, tb, sizeof(ta)) != 0)
		abort();	/* the sums are not the intervals' */
	if (oa.fig.paired != ob.fig.paired || oa.fig.preempted != ob.fig.preempted ||
	    oa.fig.filtered != ob.fig.filtered || oa.fig.unpaired != ob.fig.unpaired ||
	    oa.fig.idle != ob.fig.idle)
		abort();
	if (na != oa.fig.paired || nb > NTIDS * NSTACKS)
		abort();
	free(ba);
	free(bb);
	pf_offcpu_free(&oa);
	pf_offcpu_free(&ob);
	pf_rawrec_free(&ra);
	pf_rawrec_free(&rb);
}

/* Anything: records, drains and the start of summing as they come. */
static void
anything(const struct rec *x, size_t n, uint8_t f, uint8_t g, uint64_t span)
{
	struct pf_rawrec r = { .cap_bytes = g & 2 ? 4096 : UINT64_MAX };
	struct pf_offcpu o;
	struct pf_rawref *b;
	uint64_t t[NTIDS][NSTACKS];
	size_t nb, i, nin = 0;

	settings(&o, f);
	if (f & 0x40)
		pf_offcpu_aggregate(&o);
	for (i = 0; i < n; i++) {
		if (x[i].kind == R_DRAIN) {
			if (pf_offcpu_drained(&o, &r, false) == -1)
				abort();
		} else if (x[i].kind == R_SUM)
			pf_offcpu_aggregate(&o);
		else
			put(&r, &x[i]);
		nin += x[i].kind == R_IN;
	}
	/* Without the last drain, blocks pairs what is left. */
	if (!(g & 1) && pf_offcpu_drained(&o, &r, true) == -1)
		abort();
	if ((b = pf_offcpu_blocks(&o, &r, &nb)) == NULL)
		abort();
	check(&r, b, nb, span, t);
	/* A switch-in ends one interval at most. */
	if (o.fig.paired + o.fig.preempted + o.fig.filtered > nin)
		abort();
	free(b);
	pf_offcpu_free(&o);
	pf_rawrec_free(&r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rec x[MAXREC];
	static uint8_t ring[MAXREC];
	uint64_t clock[NRINGS] = { 0 }, lo = UINT64_MAX, hi = 0, now = 0;
	size_t n = 0, off;
	uint8_t f, g;
	bool rings;

	/*
	 * f: include_preempted, the mode, min_block_ns, max_block_ns, and in
	 * the second mode summing from the start; g, in the second mode: no
	 * last drain, a small cap on raw data.
	 */
	if (size < 2)
		return 0;
	f = data[0];
	g = data[1];
	rings = (f & 0x02) != 0;
	/* Four bytes a record: kind, preempt and tid; ring and stack; time step. */
	for (off = 2; size - off >= 4 && n < MAXREC; off += 4) {
		uint8_t a = data[off], b = data[off + 1];
		uint64_t step = (uint64_t)data[off + 2] | (uint64_t)data[off + 3] << 8;
		struct rec *e = &x[n];

		e->kind = a & 7;
		e->preempt = (a >> 3) & 1;
		e->tid = a >> 4;
		e->stack = (b >> 2) & (NSTACKS - 1);
		if (e->kind > R_SUM)
			e->kind = a & 1 ? R_OUT : R_SAMPLE;	/* the two of a switch-out */
		if (rings) {
			if (e->kind >= R_DRAIN)
				continue;	/* drains come from the rings' times */
			ring[n] = b & (NRINGS - 1);
			e->time = clock[ring[n]] += step;
		} else if (b & 0x80)		/* back in time, the clock left as it is */
			e->time = now > step ? now - step : 0;
		else
			e->time = now += step;
		if (e->kind < R_DRAIN) {
			lo = e->time < lo ? e->time : lo;
			hi = e->time > hi ? e->time : hi;
		}
		n++;
	}
	if (rings)
		as_rings(x, ring, n, f, hi >= lo ? hi - lo : 0);
	else
		anything(x, n, f, g, hi >= lo ? hi - lo : 0);
	return 0;
}
