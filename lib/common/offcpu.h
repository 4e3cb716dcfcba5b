/*
 * offcpu: off-CPU intervals from context switches.  Each switch-out
 * sample of a thread is paired with the thread's next switch-in: the
 * difference is the time it was off the CPU, kept as one interval, or,
 * above pf-offcpu's rate cap, summed per thread and stack as the records
 * arrive.  The records are those a recorder keeps during its window
 * (rawrec.h, with keep_switches): samples, PF_EV_EXIT events, switches.
 *
 * Every switch-out sample and every switch record goes into one list
 * sorted by time (a thread may leave on one CPU and come back on another,
 * so the rings only agree after the merge).  Per thread: a sample opens an
 * interval, the SWITCH-OUT record that follows it says whether it was a
 * preemption, the next SWITCH-IN closes it, an EXIT record drops it.  The
 * idle task (tid 0) is never blocked.
 *
 * Up to the rate cap the pairing happens once, at pf_offcpu_blocks, and
 * each interval is one sample.  Once pf_offcpu_aggregate is called, the
 * records are paired after every drain of the rings (pf_offcpu_drained),
 * up to the newest time the previous drain saw (every ring has passed it
 * since), each interval added to the sum of its thread and stack, and the
 * records paired dropped from the caller's pf_rawrec: what is kept grows
 * with the distinct stacks and the records of one drain, not with the
 * switches.  The whole window is summed then, not only its part above the
 * cap, so every sample of the output means the same.
 *
 * The state is the caller's struct pf_offcpu; the module neither prints
 * nor exits.
 */
#ifndef PF_OFFCPU_H
#define PF_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "htab.h"
#include "rawrec.h"

/* What the pairing counted (pf-offcpu --stats). */
struct pf_offcpu_figures {
	uint64_t paired;	/* intervals kept, as samples or in the sums */
	uint64_t preempted;	/* left out: preempted, and preemption not included */
	uint64_t filtered;	/* left out by min_block_ns or max_block_ns */
	uint64_t unpaired;	/* switch-outs whose switch-in never came */
	uint64_t idle;		/* samples of the idle task */
};

/* One thread's interval; private to offcpu.c. */
struct pf_offcpu_open {
	uint32_t tid;
	bool preempt;
	uint64_t off;		/* its sample's offset in samples; UINT64_MAX: none */
	uint64_t time;		/* the sample's time; 0: no interval open */
};

/*
 * One window's pairing.  pf_offcpu_init it, then set the three settings
 * before the first pf_offcpu_drained; read fig and aggregating; the rest
 * is private.  Free with pf_offcpu_free.
 */
struct pf_offcpu {
	bool include_preempted;		/* count preempted intervals too */
	uint64_t min_block_ns;		/* shorter intervals are left out */
	uint64_t max_block_ns;		/* longer ones too */

	struct pf_offcpu_figures fig;
	bool aggregating;		/* pf_offcpu_aggregate was called */

	/* The open intervals, one per thread seen, indexed by tid. */
	struct {
		struct pf_offcpu_open *v;
		size_t n, cap;
		struct pf_htab index;
	} opens;
	/* Aggregating: one sample per thread and stack, with its summed time. */
	struct {
		struct pf_buf samples;	/* the first sample of each, as in pf_rawrec */
		struct pf_rawref *v;	/* its offset there, and the sum */
		size_t n, cap;
		struct pf_htab index;
	} sums;
	uint64_t seen_max;	/* the newest record time seen by the last drain */
	uint64_t folded_lo;	/* samples and exits from this time on are not paired yet */
	bool folded_all;	/* the last drain was paired: nothing is left */
	size_t seen_samples, seen_switches;	/* bytes of the records already looked at */
};

/*
 * Empty state with the defaults: preemption left out, intervals of 1 µs
 * and more kept, no upper bound.  Allocates nothing; cannot fail.
 */
void pf_offcpu_init(struct pf_offcpu *o);

/*
 * From now on, sum per thread and stack: the intervals of the whole
 * window, also those of the records already kept.
 */
void pf_offcpu_aggregate(struct pf_offcpu *o);

/*
 * Call after every drain of the rings into rec, last true after the
 * final one.  Aggregating, this pairs what every ring has passed and
 * drops from rec the records it no longer needs, and sets rec->over when
 * the records and the sums together are over rec->cap_bytes.  Records
 * must arrive as the rings give them: every record timed up to the
 * newest one of a drain has arrived by the end of the next drain; a
 * switch-in that comes later than that and is older than the switch-out
 * it would pair with ends nothing (never a negative time).  0, or -1
 * with ENOMEM (pairing cannot go on).
 */
int pf_offcpu_drained(struct pf_offcpu *o, struct pf_rawrec *rec, bool last);

/*
 * The end of the window: the intervals that pass the settings, sorted by
 * switch-out time, each as a reference to its switch-out sample in rec
 * with the time off the CPU as the period.  Aggregating, rec's samples
 * are replaced by one per thread and stack and each period is the sum.
 * Threads still off the CPU count as unpaired.  Call once.  *n gets the
 * count; NULL with ENOMEM; the caller frees.
 */
struct pf_rawref *pf_offcpu_blocks(struct pf_offcpu *o, struct pf_rawrec *rec, size_t *n);

/* Release what o holds; o is then as pf_offcpu_init leaves it. */
void pf_offcpu_free(struct pf_offcpu *o);

#endif
