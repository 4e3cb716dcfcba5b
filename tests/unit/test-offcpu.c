/*
 * test-offcpu: checks of lib/common/offcpu, the pairing of switch-out
 * samples with switch-ins, on records built by hand as pf_rawrec_on_record
 * keeps them.  Run by tests/bats/lib-common.bats as "test-offcpu GROUP";
 * each failed check prints what it expected and what it got, and the
 * exit status is 1 when any failed.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offcpu.h"
#include "rawrec.h"

#include "rawput.h"
#include "unit.h"


/* A switch-out sample of tid (pid tid) with a one-frame stack at ip. */
static void
sample(struct pf_rawrec *r, uint32_t tid, uint64_t time, uint64_t ip)
{
	rawput_sample(r, tid, tid, time, &ip, 1);
}

static void
sw(struct pf_rawrec *r, uint32_t tid, uint64_t time, bool out, bool preempt)
{
	rawput_switch(r, tid, time, out, preempt);
}

static void
texit(struct pf_rawrec *r, uint32_t tid, uint64_t time)
{
	rawput_exit(r, tid, tid, time);
}

/* A blocked interval: the sample and switch-out at from, the switch-in at to. */
static void
blocked(struct pf_rawrec *r, uint32_t tid, uint64_t from, uint64_t to, uint64_t ip,
    bool preempt)
{
	sample(r, tid, from, ip);
	sw(r, tid, from, true, preempt);
	sw(r, tid, to, false, false);
}

static const struct pf_rawsample *
at(const struct pf_rawrec *r, const struct pf_rawref *b)
{
	return pf_rawrec_sample(r, b->off);
}

static uint64_t
ip_of(const struct pf_rawsample *s)
{
	uint64_t ip;

	memcpy(&ip, s + 1, sizeof(ip));
	return ip;
}

/* The end of a case: its blocks, its engine and its records. */
static void
release(struct pf_rawref *b, struct pf_offcpu *o, struct pf_rawrec *r)
{
	free(b);
	pf_offcpu_free(o);
	pf_rawrec_free(r);
}

/* Pair rec at once (below the rate cap), with the given settings. */
static struct pf_rawref *
pair_all(struct pf_offcpu *o, struct pf_rawrec *r, size_t *n)
{
	struct pf_rawref *b;

	if (pf_offcpu_drained(o, r, true) == -1 || (b = pf_offcpu_blocks(o, r, n)) == NULL)
		abort();
	return b;
}

static void
test_pair(void)
{
	struct pf_rawrec r = { .cap_bytes = UINT64_MAX, .keep_switches = true };
	struct pf_offcpu o;
	struct pf_rawref *b;
	size_t n;

	pf_offcpu_init(&o);
	CHECK(!o.include_preempted && o.min_block_ns == 1000 && o.max_block_ns == UINT64_MAX,
	    "defaults: preempted %d min %llu max %llu", o.include_preempted,
	    (unsigned long long)o.min_block_ns, (unsigned long long)o.max_block_ns);
	/* Two CPUs' rings, each in order, not with each other. */
	blocked(&r, 7, 10000, 15000, 0x70, false);	/* CPU 0: tid 7 out, 5 µs */
	blocked(&r, 7, 40000, 42000, 0x71, false);	/* ... again, 2 µs, another stack */
	sample(&r, 8, 20000, 0x80);			/* CPU 1: tid 8 out */
	sw(&r, 8, 20000, true, false);
	sw(&r, 8, 50000, false, false);			/* back in after 30 µs */
	sw(&r, 9, 12000, false, false);			/* a switch-in with no switch-out seen */
	sample(&r, 0, 13000, 0x1);			/* the idle task: never blocked */
	sw(&r, 0, 13000, true, false);
	sw(&r, 0, 14000, false, false);
	sample(&r, 10, 60000, 0xa0);			/* still off the CPU at the end */
	sw(&r, 10, 60000, true, false);
	b = pair_all(&o, &r, &n);
	CHECK(n == 3, "3 blocks, got %zu", n);
	if (n == 3) {
		CHECK(at(&r, &b[0])->tid == 7 && at(&r, &b[0])->time == 10000 &&
		    b[0].period == 5000 && ip_of(at(&r, &b[0])) == 0x70,
		    "first: tid %u at %llu for %llu", at(&r, &b[0])->tid,
		    (unsigned long long)at(&r, &b[0])->time, (unsigned long long)b[0].period);
		CHECK(at(&r, &b[1])->tid == 8 && b[1].period == 30000,
		    "second (switch-out order): tid %u for %llu", at(&r, &b[1])->tid,
		    (unsigned long long)b[1].period);
		CHECK(at(&r, &b[2])->tid == 7 && b[2].period == 2000 &&
		    ip_of(at(&r, &b[2])) == 0x71, "third: tid %u for %llu", at(&r, &b[2])->tid,
		    (unsigned long long)b[2].period);
	}
	CHECK(o.fig.paired == 3 && o.fig.unpaired == 1 && o.fig.idle == 1 &&
	    o.fig.preempted == 0 && o.fig.filtered == 0,
	    "figures: paired %llu unpaired %llu idle %llu", (unsigned long long)o.fig.paired,
	    (unsigned long long)o.fig.unpaired, (unsigned long long)o.fig.idle);
	release(b, &o, &r);

	/* A lost switch-in: the next switch-out starts over, the first is unpaired. */
	memset(&r, 0, sizeof(r));
	r.cap_bytes = UINT64_MAX;
	pf_offcpu_init(&o);
	sample(&r, 5, 1000, 0x50);
	sw(&r, 5, 1000, true, false);
	blocked(&r, 5, 9000, 12000, 0x51, false);
	b = pair_all(&o, &r, &n);
	CHECK(n == 1 && b[0].period == 3000 && ip_of(at(&r, &b[0])) == 0x51,
	    "after a lost switch-in: %zu blocks, first %llu", n,
	    n ? (unsigned long long)b[0].period : 0ULL);
	CHECK(o.fig.unpaired == 1, "unpaired %llu", (unsigned long long)o.fig.unpaired);
	release(b, &o, &r);

	/* Nothing at all: no block, and an array to free. */
	memset(&r, 0, sizeof(r));
	pf_offcpu_init(&o);
	b = pair_all(&o, &r, &n);
	CHECK(b != NULL && n == 0, "empty: %zu blocks", n);
	release(b, &o, &r);
}

static void
test_preempt(void)
{
	static const bool incl[] = { false, true };
	size_t k, n;

	for (k = 0; k < 2; k++) {
		struct pf_rawrec r = { .cap_bytes = UINT64_MAX };
		struct pf_offcpu o;
		struct pf_rawref *b;

		pf_offcpu_init(&o);
		o.include_preempted = incl[k];
		blocked(&r, 3, 1000, 9000, 0x30, true);		/* preempted: runnable */
		blocked(&r, 3, 20000, 25000, 0x31, false);	/* blocked: the flag does not stay */
		/* A switch-out record that comes after the switch-in does not flag it. */
		sample(&r, 4, 30000, 0x40);
		sw(&r, 4, 31000, false, false);
		sw(&r, 4, 32000, true, true);
		b = pair_all(&o, &r, &n);
		if (!incl[k]) {
			CHECK(n == 2 && b[0].period == 5000 && b[1].period == 1000,
			    "excluded: %zu blocks", n);
			CHECK(o.fig.preempted == 1, "preempted %llu",
			    (unsigned long long)o.fig.preempted);
		} else {
			CHECK(n == 3 && b[0].period == 8000 && b[1].period == 5000,
			    "included: %zu blocks", n);
			CHECK(o.fig.preempted == 0, "preempted %llu with it included",
			    (unsigned long long)o.fig.preempted);
		}
		release(b, &o, &r);
	}
}

static void
test_filter(void)
{
	static const struct {
		uint64_t min, max, len;
		bool kept;
	} t[] = {
		{ 1000, UINT64_MAX, 999, false }, { 1000, UINT64_MAX, 1000, true },
		{ 0, UINT64_MAX, 0, true }, { 0, 5000, 5000, true }, { 0, 5000, 5001, false },
		{ 2000, 2000, 2000, true }, { 2000, 2000, 1999, false },
		{ 1000, UINT64_MAX, UINT64_MAX - 100, true },
	};
	size_t k, n;

	for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		struct pf_rawrec r = { .cap_bytes = UINT64_MAX };
		struct pf_offcpu o;
		struct pf_rawref *b;

		pf_offcpu_init(&o);
		o.min_block_ns = t[k].min;
		o.max_block_ns = t[k].max;
		blocked(&r, 2, 50, 50 + t[k].len, 0x20, false);
		b = pair_all(&o, &r, &n);
		CHECK(n == (t[k].kept ? 1u : 0u) && o.fig.filtered == (t[k].kept ? 0u : 1u) &&
		    (n == 0 || b[0].period == t[k].len), "min %llu max %llu: %llu ns %s",
		    (unsigned long long)t[k].min, (unsigned long long)t[k].max,
		    (unsigned long long)t[k].len, t[k].kept ? "kept" : "filtered");
		release(b, &o, &r);
	}
}

static void
test_exit(void)
{
	static const bool agg[] = { false, true };
	size_t k, n;

	for (k = 0; k < 2; k++) {
		struct pf_rawrec r = { .cap_bytes = UINT64_MAX };
		struct pf_offcpu o;
		struct pf_rawref *b;

		pf_offcpu_init(&o);
		if (agg[k])
			pf_offcpu_aggregate(&o);
		/* Out, then gone: a new thread with its tid switching in is not its end. */
		sample(&r, 6, 1000, 0x60);
		sw(&r, 6, 1000, true, false);
		texit(&r, 6, 2000);
		sw(&r, 6, 900000, false, false);
		/* An exit before the switch-out drops nothing. */
		texit(&r, 11, 100);
		blocked(&r, 11, 3000, 7000, 0xb0, false);
		/* The same time: the exit sorts after the switch-in, which still counts. */
		blocked(&r, 12, 5000, 8000, 0xc0, false);
		texit(&r, 12, 8000);
		b = pair_all(&o, &r, &n);
		CHECK(n == 2 && at(&r, &b[0])->tid == 11 && b[0].period == 4000 &&
		    at(&r, &b[1])->tid == 12 && b[1].period == 3000,
		    "%s: %zu blocks", agg[k] ? "summed" : "one each", n);
		CHECK(o.fig.paired == 2 && o.fig.unpaired == 0, "%s: paired %llu unpaired %llu",
		    agg[k] ? "summed" : "one each", (unsigned long long)o.fig.paired,
		    (unsigned long long)o.fig.unpaired);
		release(b, &o, &r);
	}
}

/*
 * Records drained in turn from two rings: a record of ring 0 timed before
 * the newest of ring 1 arrives a drain later.  Summed across the drain
 * boundary, the intervals come out as paired all at once.
 */
static void
test_order(void)
{
	struct pf_rawrec r = { .cap_bytes = UINT64_MAX };
	struct pf_offcpu o;
	struct pf_rawref *b;
	size_t n;

	pf_offcpu_init(&o);
	o.min_block_ns = 0;
	pf_offcpu_aggregate(&o);
	/* Drain 1: ring 0 has tid 5 leave at 100; ring 1, read later, is at 300. */
	sample(&r, 5, 100, 0x50);
	sw(&r, 5, 100, true, false);
	sample(&r, 6, 300, 0x60);
	sw(&r, 6, 300, true, false);
	CHECK(pf_offcpu_drained(&o, &r, false) == 0 && o.sums.n == 0,
	    "drain 1 pairs nothing yet: %zu sums", o.sums.n);
	/* Drain 2: ring 0's switch-in of tid 5 at 200, older than 300; tid 6 back at 2300. */
	sw(&r, 5, 200, false, false);
	sw(&r, 6, 2300, false, false);
	CHECK(pf_offcpu_drained(&o, &r, false) == 0 && o.sums.n == 1 &&
	    o.sums.v[0].period == 100, "drain 2 pairs tid 5 up to 300: %zu sums", o.sums.n);
	/* tid 6's sample is kept for its interval; the paired records are gone. */
	CHECK(r.samples.len == sizeof(struct pf_rawsample) + 8 &&
	    pf_rawrec_sample(&r, 0)->tid == 6, "kept: %zu bytes of samples", r.samples.len);
	CHECK(r.switches.len == sizeof(struct pf_rawswitch), "kept: %zu bytes of switches",
	    r.switches.len);
	/* Drain 3 holds tid 7, all of it older than the newest of drain 2. */
	blocked(&r, 7, 1000, 1500, 0x70, false);
	CHECK(pf_offcpu_drained(&o, &r, true) == 0, "last drain");
	b = pf_offcpu_blocks(&o, &r, &n);
	CHECK(b != NULL && n == 3, "3 sums, got %zu", n);
	if (b != NULL && n == 3)
		CHECK(at(&r, &b[0])->tid == 5 && b[0].period == 100 &&
		    at(&r, &b[1])->tid == 6 && b[1].period == 2000 &&
		    at(&r, &b[2])->tid == 7 && b[2].period == 500,
		    "sums: %u %llu, %u %llu, %u %llu", at(&r, &b[0])->tid,
		    (unsigned long long)b[0].period, at(&r, &b[1])->tid,
		    (unsigned long long)b[1].period, at(&r, &b[2])->tid,
		    (unsigned long long)b[2].period);
	release(b, &o, &r);

	/*
	 * A switch-in later than the rings promise, older than the switch-out
	 * it would end (CPU clocks out of step): it ends nothing, where it
	 * was once a block of 2^64 - 5000 ns (found by fuzz/fuzz-offcpu.c).
	 */
	memset(&r, 0, sizeof(r));
	r.cap_bytes = UINT64_MAX;
	pf_offcpu_init(&o);
	pf_offcpu_aggregate(&o);
	sample(&r, 5, 10000, 0x50);
	sw(&r, 5, 10000, true, false);
	CHECK(pf_offcpu_drained(&o, &r, false) == 0, "drain 1");
	sample(&r, 6, 30000, 0x60);
	sw(&r, 6, 30000, true, false);
	CHECK(pf_offcpu_drained(&o, &r, false) == 0, "drain 2 pairs up to 10000");
	sw(&r, 5, 5000, false, false);		/* late, and before 10000 */
	sw(&r, 5, 40000, false, false);
	sw(&r, 6, 32000, false, false);
	CHECK(pf_offcpu_drained(&o, &r, true) == 0, "last drain");
	b = pf_offcpu_blocks(&o, &r, &n);
	CHECK(b != NULL && n == 2 && b[0].period == 30000 && b[1].period == 2000,
	    "a late switch-in: %zu blocks, first %llu", n,
	    b != NULL && n ? (unsigned long long)b[0].period : 0ULL);
	release(b, &o, &r);
}

/* A small deterministic generator (the checks must not vary run to run). */
static uint64_t
rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

enum { NTHREADS = 6, NSTACKS = 4, NCPUS = 3 };

/*
 * A generated window: each thread in turn runs, leaves (blocked or
 * preempted, with one of NSTACKS stacks) and comes back, on CPUs picked
 * at random; each CPU's ring holds its records in time order.  The rings
 * are drained in turn, ring i up to now + i * lag, so a ring read later
 * is ahead of the earlier ones.  Aggregating, pf_offcpu_drained runs after
 * every drain; without, once at the end.
 */
static struct pf_rawref *
window(struct pf_offcpu *o, struct pf_rawrec *r, uint64_t seed, size_t nintervals,
    bool aggregate, size_t *n, size_t *peak)
{
	struct ev { uint64_t time; int kind; uint32_t tid; uint64_t ip; bool preempt; };
	struct ev *ring[NCPUS];
	size_t len[NCPUS] = { 0 }, pos[NCPUS] = { 0 }, i, c;
	uint64_t t[NTHREADS + 1], s = seed, now, end = 0, lag = 3000;
	struct pf_rawref *b;

	for (c = 0; c < NCPUS; c++)
		if ((ring[c] = calloc(3 * nintervals + 1, sizeof(*ring[c]))) == NULL)
			abort();
	for (i = 1; i <= NTHREADS; i++)
		t[i] = rnd(&s) % 1000;
	for (i = 0; i < nintervals; i++) {
		uint32_t tid = 1 + (uint32_t)(rnd(&s) % NTHREADS);
		size_t out = rnd(&s) % NCPUS, in = rnd(&s) % NCPUS;
		uint64_t from = t[tid] + 1 + rnd(&s) % 5000, to = from + rnd(&s) % 20000;
		uint64_t ip = 0x1000 + rnd(&s) % NSTACKS;
		bool pre = rnd(&s) % 4 == 0;

		/* Per CPU, in time order: each thread's records only move forward. */
		if (len[out] && ring[out][len[out] - 1].time > from)
			from = ring[out][len[out] - 1].time;
		if (to < from)
			to = from;
		if (len[in] && ring[in][len[in] - 1].time > to)
			to = ring[in][len[in] - 1].time;
		ring[out][len[out]++] = (struct ev){ from, 0, tid, ip, pre };
		ring[in][len[in]++] = (struct ev){ to, 1, tid, 0, false };
		t[tid] = to;
		if (to > end)
			end = to;
	}
	*peak = 0;
	for (now = 0; ; now += 10000) {
		bool more = false;

		for (c = 0; c < NCPUS; c++) {
			for (; pos[c] < len[c] && ring[c][pos[c]].time <= now + c * lag; pos[c]++) {
				const struct ev *e = &ring[c][pos[c]];

				if (e->kind == 0) {
					sample(r, e->tid, e->time, e->ip);
					sw(r, e->tid, e->time, true, e->preempt);
				} else
					sw(r, e->tid, e->time, false, false);
			}
			more |= pos[c] < len[c];
		}
		if (aggregate) {
			if (pf_offcpu_drained(o, r, !more) == -1)
				abort();
			if (r->samples.len + r->switches.len + o->sums.samples.len > *peak)
				*peak = r->samples.len + r->switches.len + o->sums.samples.len;
		}
		if (!more)
			break;
	}
	if (!aggregate && pf_offcpu_drained(o, r, true) == -1)
		abort();
	if ((b = pf_offcpu_blocks(o, r, n)) == NULL)
		abort();
	for (c = 0; c < NCPUS; c++)
		free(ring[c]);
	return b;
}

/* Blocked time by thread and stack: tot[tid][stack]. */
static void
totals(const struct pf_rawrec *r, const struct pf_rawref *b, size_t n,
    uint64_t tot[NTHREADS + 1][NSTACKS])
{
	size_t i;

	memset(tot, 0, sizeof(uint64_t) * (NTHREADS + 1) * NSTACKS);
	for (i = 0; i < n; i++) {
		const struct pf_rawsample *s = at(r, &b[i]);

		tot[s->tid][ip_of(s) - 0x1000] += b[i].period;
	}
}

static void
test_aggregate(void)
{
	static const uint64_t seeds[] = { 1, 2, 3, 42, 2026 };
	size_t k;

	for (k = 0; k < sizeof(seeds) / sizeof(seeds[0]); k++) {
		struct pf_rawrec ra = { .cap_bytes = UINT64_MAX }, rb = { .cap_bytes = UINT64_MAX };
		struct pf_offcpu oa, ob;
		struct pf_rawref *ba, *bb;
		uint64_t ta[NTHREADS + 1][NSTACKS], tb[NTHREADS + 1][NSTACKS];
		size_t na, nb, peak, i;

		pf_offcpu_init(&oa);
		pf_offcpu_init(&ob);
		oa.max_block_ns = ob.max_block_ns = 15000;
		pf_offcpu_aggregate(&ob);
		ba = window(&oa, &ra, seeds[k], 2000, false, &na, &peak);
		bb = window(&ob, &rb, seeds[k], 2000, true, &nb, &peak);
		totals(&ra, ba, na, ta);
		totals(&rb, bb, nb, tb);
		CHECK(memcmp(ta, tb, sizeof(ta)) == 0, "seed %llu: the sums differ from the "
		    "intervals", (unsigned long long)seeds[k]);
		CHECK(oa.fig.paired == ob.fig.paired && oa.fig.preempted == ob.fig.preempted &&
		    oa.fig.filtered == ob.fig.filtered && oa.fig.unpaired == ob.fig.unpaired,
		    "seed %llu: figures paired %llu/%llu preempted %llu/%llu filtered %llu/%llu "
		    "unpaired %llu/%llu", (unsigned long long)seeds[k],
		    (unsigned long long)oa.fig.paired, (unsigned long long)ob.fig.paired,
		    (unsigned long long)oa.fig.preempted, (unsigned long long)ob.fig.preempted,
		    (unsigned long long)oa.fig.filtered, (unsigned long long)ob.fig.filtered,
		    (unsigned long long)oa.fig.unpaired, (unsigned long long)ob.fig.unpaired);
		/* Each interval counted once, and a window that tests something. */
		CHECK(oa.fig.paired + oa.fig.preempted + oa.fig.filtered == 2000 &&
		    oa.fig.paired > 500 && oa.fig.preempted > 100 && oa.fig.filtered > 100,
		    "seed %llu: paired %llu preempted %llu filtered %llu of 2000",
		    (unsigned long long)seeds[k], (unsigned long long)oa.fig.paired,
		    (unsigned long long)oa.fig.preempted, (unsigned long long)oa.fig.filtered);
		/* One sample per thread and stack, each its own, in time order. */
		CHECK(nb <= NTHREADS * NSTACKS && nb == rb.samples.len /
		    (sizeof(struct pf_rawsample) + 8), "seed %llu: %zu sums", (unsigned long long)seeds[k], nb);
		for (i = 1; i < nb; i++)
			CHECK(at(&rb, &bb[i - 1])->time <= at(&rb, &bb[i])->time, "sorted");
		release(ba, &oa, &ra);
		release(bb, &ob, &rb);
	}
}

/*
 * Summing keeps memory bounded: what stays between drains is one drain's
 * records and the open intervals, however long the window; past the cap
 * on raw data the window is told to stop.
 */
static void
test_memory(void)
{
	static const size_t lens[] = { 500, 5000, 50000 };
	size_t peaks[3], k, n;

	for (k = 0; k < 3; k++) {
		struct pf_rawrec r = { .cap_bytes = UINT64_MAX };
		struct pf_offcpu o;
		struct pf_rawref *b;

		pf_offcpu_init(&o);
		pf_offcpu_aggregate(&o);
		b = window(&o, &r, 7, lens[k], true, &n, &peaks[k]);
		CHECK(n <= NTHREADS * NSTACKS && o.sums.n == n, "%zu intervals: %zu sums",
		    lens[k], n);
		CHECK(!r.over, "%zu intervals: not over an unbounded cap", lens[k]);
		release(b, &o, &r);
	}
	/* 100 times the switches, not 100 times the memory. */
	CHECK(peaks[2] < 2 * peaks[0], "peak %zu bytes for %zu intervals, %zu for %zu",
	    peaks[2], lens[2], peaks[0], lens[0]);

	/* Below the rate cap everything is kept until the end. */
	{
		struct pf_rawrec r = { .cap_bytes = UINT64_MAX };
		struct pf_offcpu o;
		struct pf_rawref *b;
		size_t peak;

		pf_offcpu_init(&o);
		b = window(&o, &r, 7, lens[2], false, &n, &peak);
		CHECK(r.samples.len >= lens[2] * (sizeof(struct pf_rawsample) + 8),
		    "unsummed: %zu bytes of samples", r.samples.len);
		release(b, &o, &r);
	}

	/*
	 * Over the cap on raw data, records and sums together, over is set:
	 * a new stack each drain, 40 bytes of sum each (a one-frame sample).
	 */
	{
		struct pf_rawrec r = { .cap_bytes = 1000 };
		struct pf_offcpu o;
		size_t i;

		pf_offcpu_init(&o);
		pf_offcpu_aggregate(&o);
		for (i = 0; i < 40; i++) {
			blocked(&r, 1, 10000 * i + 1, 10000 * i + 5001, 0x100 + i, false);
			if (pf_offcpu_drained(&o, &r, false) == -1)
				abort();
			if (i == 10)
				CHECK(!r.over && o.sums.n == 10, "10 sums: over %d, %zu sums",
				    r.over, o.sums.n);
		}
		CHECK(r.over && o.sums.n == 39, "39 sums in 1000 bytes: over %d, %zu sums",
		    r.over, o.sums.n);
		pf_offcpu_free(&o);
		pf_rawrec_free(&r);
	}
}

int
main(int argc, char **argv)
{
	static const struct unit_group groups[] = {
		{ "pair", test_pair }, { "preempt", test_preempt }, { "filter", test_filter },
		{ "exit", test_exit }, { "order", test_order }, { "aggregate", test_aggregate },
		{ "memory", test_memory },
	};

	return unit_main(argc, argv, groups, sizeof(groups) / sizeof(groups[0]));
}
