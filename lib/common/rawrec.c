/*
 * rawrec: ring records decoded into compact raw records.  Fields are
 * copied out of the ring bytes (memcpy), never read through a cast, and
 * their offsets come from PF_RAWREC_SAMPLE_TYPE: the compiler folds them
 * to constants, so the window pays nothing for deriving them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pyrec.h"
#include "rawrec.h"
#include "unwind.h"

#define TYPE PF_RAWREC_SAMPLE_TYPE

_Static_assert(!(TYPE & PERF_SAMPLE_READ), "PERF_SAMPLE_READ is not decoded");
_Static_assert((TYPE & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
    PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)) == (PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN),
    "a sample needs its thread, time, cpu, period and callchain");

/* The dwarf layout only adds to the end of the frame-pointer one. */
_Static_assert((PF_RAWREC_SAMPLE_TYPE_DWARF & ~(uint64_t)(PERF_SAMPLE_REGS_USER |
    PERF_SAMPLE_STACK_USER)) == TYPE, "the dwarf layout extends the fp one");
_Static_assert(!(TYPE & (PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK)),
    "nothing may sit between the callchain and the user registers");

/* Bytes of the 8-byte fields of TYPE in mask. */
#define WORDS(mask) ((size_t)(8 * __builtin_popcountll(TYPE & (mask))))

/* A sample's fields, in the kernel's order (perf_output_sample). */
#define S_TID	WORDS(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP)
#define S_TIME	(S_TID + WORDS(PERF_SAMPLE_TID))
#define S_CPU	(S_TIME + WORDS(PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
		    PERF_SAMPLE_STREAM_ID))
#define S_PERIOD (S_CPU + WORDS(PERF_SAMPLE_CPU))
#define S_NR	(S_PERIOD + WORDS(PERF_SAMPLE_PERIOD))
#define S_IPS	(S_NR + 8)

/*
 * The sample_id trailer of the other records (perf_event__output_id_sample):
 * tid, time, id, stream_id, cpu, identifier; offsets from its start.
 */
#define ID_SIZE	WORDS(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		    PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
#define ID_TID	((size_t)4)
#define ID_TIME	WORDS(PERF_SAMPLE_TID)

/* A sample's Python frames as read at its drain (pyrec.h), and its innermost code's bytes. */
struct pyread {
	uint32_t id, lag_us;
	uint64_t lo, hi, instr;
};

static inline uint64_t
u64_at(const char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t
u32_at(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The raw data alone is over the output's cap: the window should stop. */
static inline void
check_cap(struct pf_rawrec *r)
{
	if (r->samples.len + r->events.len + r->switches.len > r->cap_bytes)
		r->over = true;
}

/*
 * The evaluation loop keeps where it is in its Python frame's code (its
 * next instruction: the instruction the frame records, or past it by its
 * inline cache, at most 20 bytes in 3.13 (LOAD_ATTR's); before 3.11 the
 * code object itself) while it runs it: a word of a sample's registers
 * or stack that says so.  Not before the instruction: a slot left from an
 * earlier pass over the function held such a word (Debian's 3.11, 10
 * bytes before).
 */
#define PY_NEXT_MAX	24

static bool
py_word(const struct pyread *py, uint64_t w)
{
	if (py->instr != 0)
		return w >= py->instr && w <= py->instr + PY_NEXT_MAX;
	return w >= py->lo && w < py->hi;
}

static bool
py_words(const struct pyread *py, const char *q, size_t n)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		if (py_word(py, u64_at(q + i)))
			return true;
	return false;
}

/* The top words of a stack frame, where its function's prologue saves the caller's registers. */
#define SAVED_WORDS	6

/*
 * Whether the registers, or the registers the callees of frame i saved
 * (the top words of frames 0 to i - 1), hold a word py_word takes.
 */
static bool
py_in_registers(const struct pyread *py, const uint64_t *regs, const char *stack, size_t len,
    const uint64_t *sps, size_t i)
{
	uint64_t lo, hi, sp0 = regs[7];
	size_t j;

	if (py_words(py, (const char *)regs, PF_UNWIND_NREGS * 8))
		return true;
	for (j = 1; j <= i; j++) {
		if (sps[j] < sp0 + 8 || sps[j] - sp0 > len || sps[j - 1] < sp0)
			continue;
		hi = sps[j] - sp0 - 8;	/* below the return address */
		lo = hi > SAVED_WORDS * 8 ? hi - SAVED_WORDS * 8 : 0;
		if (lo < sps[j - 1] - sp0)
			lo = sps[j - 1] - sp0;
		if (lo < hi && py_words(py, stack + lo, (size_t)(hi - lo)))
			return true;
	}
	return false;
}

/*
 * Learn from a sample shown fresh (ls: its process's slots) which slots
 * of the evaluation frame [lo, hi) of the copy, whose CFA is at cfa, hold
 * a pointer into the code: the loop's own (its next instruction's spill
 * slot) does in nearly every such sample, one a pass over other code left
 * behind only in some.
 */
static void
py_learn(struct pf_pyrec_slots *ls, const struct pyread *range, const char *stack, uint64_t lo,
    uint64_t hi, uint64_t cfa)
{
	uint64_t x;
	size_t j, low;

	ls->confirmed++;
	for (x = lo; x + 8 <= hi; x += 8) {
		uint32_t off;

		if (!py_word(range, u64_at(stack + x)) || cfa - x > UINT32_MAX)
			continue;
		off = (uint32_t)(cfa - x);
		for (j = 0; j < ls->n && ls->off[j] != off; j++)
			;
		if (j == ls->n) {
			if (ls->n < PF_PYREC_SLOTS)
				ls->n++;
			else {
				for (low = 0, j = 1; j < PF_PYREC_SLOTS; j++)
					if (ls->hits[j] < ls->hits[low])
						low = j;
				j = low;
			}
			ls->off[j] = off;
			ls->hits[j] = 0;
		}
		ls->hits[j]++;
	}
}

/* Samples a process's slots are learned from before only learned slots count (before 3.11). */
#define PY_LEARN_MIN	16

/* Whether a learned slot of the frame (one that held the pointer in most fresh samples) holds one. */
static bool
py_learned(const struct pf_pyrec_slots *ls, const struct pyread *range, const char *stack,
    uint64_t lo, uint64_t hi, uint64_t cfa)
{
	size_t j;

	for (j = 0; j < ls->n; j++) {
		uint64_t x = cfa - ls->off[j];

		if (ls->hits[j] < 8 || ls->hits[j] * 4 < ls->confirmed * 3 || x < lo || x + 8 > hi)
			continue;
		if (py_word(range, u64_at(stack + x)))
			return true;
	}
	return false;
}

/*
 * Whether a -g dwarf sample's Python frames, read as it was drained, are
 * the ones its native stack was running, by the innermost evaluation
 * frame (in the interpreter's _PyEval_EvalFrameDefault) i.  The loop
 * keeps where it is in the innermost Python frame's code (3.11 on, its
 * next instruction, within PY_NEXT_MAX past the instruction the frame
 * records; before, the code object) in a register or in a slot of its
 * stack frame, while it runs it or a function it called:
 *
 *  - at the instruction the frame read records: a register, one a callee
 *    saved (the top words of each callee's frame), or a slot of its own
 *    stack frame holds it.  Fresh, and the slots of its frame that point
 *    into the code are learned (py_learn);
 *  - the frame gone on within its function since: a register, or one a
 *    callee saved, points into the code object, or a learned slot does.
 *    Not any slot of its frame: one a pass over another function left
 *    there held a pointer into that one (Debian's 3.11);
 *  - before 3.11 (no instruction read), a register, or one a callee
 *    saved, pointing at the code object (the loop's local co), or a slot
 *    of its frame (once learned, a learned one) doing so.
 *
 * A read that came after the thread had gone on to other code finds none:
 * stale.  Where nothing can be told (no code object's bytes, no
 * evaluation frame, its stack frame not in the copy), true: the merge's
 * own check decides.
 */
static bool
py_fresh(const struct pf_rawrec *r, const struct pf_rawsample *s, const struct pyread *py,
    const uint64_t *regs, const char *stack, size_t len, const uint64_t *pcs, size_t k)
{
	struct pyread range = *py;
	struct pf_pyrec_slots *ls;
	const uint64_t *sps;
	uint64_t elo, ehi, lo, hi, cfa, sp0 = regs[7];
	size_t nsps, i;

	if (py->hi <= py->lo || !pf_pyrec_eval_code(r->py, s->pid, &elo, &ehi) ||
	    (ls = pf_pyrec_slots(r->py, s->pid)) == NULL)
		return true;
	sps = pf_unwind_sps(r->unwind, &nsps);
	for (i = 0; i < k && i < nsps; i++)
		if (pcs[i] >= elo && pcs[i] < ehi)
			break;
	if (i == k || i == nsps || sps[i] < sp0)
		return true;
	range.instr = 0;
	lo = sps[i] - sp0;
	cfa = i + 1 < nsps && sps[i + 1] > sps[i] ? sps[i + 1] - sp0 : 0;
	hi = cfa != 0 ? cfa : lo + 4096;
	if (hi > len)
		hi = len;
	if (lo >= hi)
		return true;
	/*
	 * Before 3.11, no instruction: a register holding the code object,
	 * or a slot of its frame.  The loop's own slot holds it in nearly
	 * every sample; a sibling call's activation (the one before, at the
	 * same stack addresses) leaves its code object in slots this one has
	 * not written, in a few: once the slots are learned, only those count.
	 */
	if (py->instr == 0) {
		bool any;

		if (i == 0 ? py_words(&range, (const char *)regs, PF_UNWIND_NREGS * 8) :
		    py_in_registers(&range, regs, stack, len, sps, i))
			return true;
		any = py_words(&range, stack + lo, (size_t)(hi - lo));
		if (cfa == 0 || cfa > len)
			return any;
		if (any)
			py_learn(ls, &range, stack, lo, hi, cfa);
		return ls->confirmed < PY_LEARN_MIN ? any :
		    py_learned(ls, &range, stack, lo, hi, cfa);
	}
	if ((i > 0 && py_in_registers(py, regs, stack, len, sps, i)) ||
	    py_words(py, stack + lo, (size_t)(hi - lo))) {
		if (cfa != 0 && cfa <= len)
			py_learn(ls, &range, stack, lo, hi, cfa);
		return true;
	}
	if (i == 0 ? py_words(&range, (const char *)regs, PF_UNWIND_NREGS * 8) :
	    py_in_registers(&range, regs, stack, len, sps, i))
		return true;
	return cfa != 0 && cfa <= len && py_learned(ls, &range, stack, lo, hi, cfa);
}

/*
 * A dwarf sample's chain: the kernel part of the sampled one, then the
 * user frames unwound from the registers and stack bytes at q (regs_user
 * {abi, regs[]}, stack_user {size, data[size], dyn_size}).  The
 * frame-pointer chain stays when unwinding did worse (code without
 * unwind information, JIT).  n: the sampled chain's length; the new one
 * goes to out, its length returned.  Unless final, a walk that reached
 * code in no known mapping sets *later and returns 0: the sample waits.
 */
static size_t
unwind_chain(struct pf_rawrec *r, struct pf_rawsample *s, const char *ips, size_t n,
    const char *q, const char *end, uint64_t *out, bool final, bool *later,
    const struct pyread *py)
{
	uint64_t regs[PF_UNWIND_NREGS], abi, size, dyn, pcs[PF_UNWIND_MAX_FRAMES];
	enum pf_unwind_end how;
	struct timespec t0, t1;
	size_t user = n, k, m, i;

	for (i = 0; i < n; i++)
		out[i] = u64_at(ips + i * 8);
	if ((size_t)(end - q) < 8)
		return n;
	abi = u64_at(q);
	q += 8;
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)
		return n;	/* no user context (a kernel thread) */
	if ((size_t)(end - q) < sizeof(regs) + 8)
		return n;
	memcpy(regs, q, sizeof(regs));
	q += sizeof(regs);
	size = u64_at(q);
	q += 8;
	if (size == 0 || size > (size_t)(end - q) || (size_t)(end - q) - size < 8)
		return n;
	dyn = u64_at(q + size);
	if (dyn > size)
		dyn = size;
	for (i = 0; i < n; i++)
		if (out[i] == (uint64_t)PERF_CONTEXT_USER) {
			user = i;
			break;
		}
	/* What unwinding costs is a figure of --stats and of the bench: the vDSO clock is cheap. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	k = pf_unwind_sample(r->unwind, (pid_t)s->pid, (pid_t)s->tid, regs, q, dyn, pcs,
	    PF_UNWIND_MAX_FRAMES, &how);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->unwind_ns += (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ULL +
	    (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
	/* The frame-pointer chain's user frames, after the marker. */
	m = user < n ? n - user - 1 : 0;
	if (how == PF_UNWIND_UNMAPPED && !final) {
		*later = true;
		return 0;
	}
	if (s->py != PF_PYREC_NONE && s->py != PF_PYREC_LATE && s->py != PF_PYREC_UNFOUND &&
	    r->py != NULL &&
	    !py_fresh(r, s, py, regs, q, (size_t)dyn, pcs, k)) {
		s->py = PF_PYREC_STALE;
		r->py_stale++;
	}
	if (k == 0 || (how != PF_UNWIND_COMPLETE && how != PF_UNWIND_TRUNCATED && k < m)) {
		r->fp_fallback++;
		/* The chain kept may end where the walk did: say why, for incomplete=. */
		if (how == PF_UNWIND_BUDGET)
			out[n++] = PF_RAWREC_BUDGET;
		else if (how == PF_UNWIND_UNREADABLE)
			out[n++] = PF_RAWREC_UNREADABLE;
		return n;
	}
	out[user] = (uint64_t)PERF_CONTEXT_USER;
	memcpy(out + user + 1, pcs, k * 8);
	n = user + 1 + k;
	switch (how) {
	case PF_UNWIND_TRUNCATED:
		out[n++] = PF_RAWREC_TRUNCATED;
		r->truncated++;
		break;
	case PF_UNWIND_COMPLETE:
		out[n++] = PF_RAWREC_OUTERMOST;
		break;
	case PF_UNWIND_UNREADABLE:
		out[n++] = PF_RAWREC_UNREADABLE;
		break;
	case PF_UNWIND_BUDGET:
		out[n++] = PF_RAWREC_BUDGET;
		break;
	default:
		break;
	}
	return n;
}

/* Whether a record of len bytes finds no more room among the held-back ones. */
static bool
pending_full(const struct pf_rawrec *r, size_t len)
{
	return r->npending == PF_RAWREC_PENDING ||
	    len > PF_RAWREC_PENDING_BYTES - r->pending_bytes;
}

/* A held-back sample: its length, its py and py_lag_us, then its ring bytes. */
#define PEND_HDR (sizeof(size_t) + sizeof(struct pyread))

/* Hold back a sample's ring bytes [p, end) until its mapping's record; -1 when full or ENOMEM. */
static int
defer(struct pf_rawrec *r, const char *p, const char *end, const struct pyread *py)
{
	size_t len = (size_t)(end - p);
	char *c;

	if (pending_full(r, len) || (c = malloc(len + PEND_HDR)) == NULL)
		return -1;
	memcpy(c, &len, sizeof(len));
	memcpy(c + sizeof(len), py, sizeof(*py));
	memcpy(c + PEND_HDR, p, len);
	r->pending[r->npending++] = c;
	r->pending_bytes += len;
	r->deferred++;
	return 0;
}

/*
 * One sample from its ring bytes.  final: a -g dwarf sample is kept
 * however its walk ended; else one that reached unknown code is held
 * back (*held set) while there is room.
 */
static int
add_sample(struct pf_rawrec *r, const char *p, const char *end, bool final, bool *held,
    const struct pyread *py)
{
	/* The kernel's part (max_stack and its markers), the user part, the cut. */
	uint64_t chain[2 * PF_UNWIND_MAX_FRAMES + 8];
	struct pf_rawsample s;
	uint64_t nr;
	bool later = false;

	if ((size_t)(end - p) < S_IPS)
		return 0;
	s.pid = u32_at(p + S_TID);
	s.tid = u32_at(p + S_TID + 4);
	s.time = u64_at(p + S_TIME);
	s.cpu = u32_at(p + S_CPU);
	s.period = u64_at(p + S_PERIOD);
	nr = u64_at(p + S_NR);
	if (nr > (uint64_t)((size_t)(end - p) - S_IPS) / 8)
		return 0;
	s.nr = (uint32_t)nr;
	s.py = py->id;
	s.py_lag_us = py->lag_us;
	if (r->unwind != NULL && nr <= PF_UNWIND_MAX_FRAMES + 4) {
		s.nr = (uint32_t)unwind_chain(r, &s, p + S_IPS, (size_t)nr, p + S_IPS + nr * 8,
		    end, chain, final || pending_full(r, (size_t)(end - p)), &later, py);
		if (later && defer(r, p, end, py) == 0) {
			*held = true;
			return 0;
		}
		if (later)	/* no room after all */
			s.nr = (uint32_t)unwind_chain(r, &s, p + S_IPS, (size_t)nr,
			    p + S_IPS + nr * 8, end, chain, true, &later, py);
		r->unwound++;
		if (pf_buf_append(&r->samples, &s, sizeof(s)) == -1 ||
		    pf_buf_append(&r->samples, chain, (size_t)s.nr * 8) == -1)
			return -1;
		r->nsamples++;
		check_cap(r);
		return 0;
	}
	if (pf_buf_append(&r->samples, &s, sizeof(s)) == -1 ||
	    pf_buf_append(&r->samples, p + S_IPS, nr * 8) == -1)
		return -1;
	r->nsamples++;
	check_cap(r);
	return 0;
}

static int
add_switch(struct pf_rawrec *r, const struct perf_event_header *h, const char *end)
{
	const char *id = end - ID_SIZE;
	struct pf_rawswitch sw;

	sw.time = u64_at(id + ID_TIME);
	sw.tid = u32_at(id + ID_TID);
	sw.out = (h->misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
	sw.preempt = (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
	if (pf_buf_append(&r->switches, &sw, sizeof(sw)) == -1)
		return -1;
	r->nswitches++;
	check_cap(r);
	return 0;
}

static int
add_event(struct pf_rawrec *r, const struct pf_rawevent *ev, const char *str)
{
	if (pf_buf_append(&r->events, ev, sizeof(*ev)) == -1 ||
	    pf_buf_append(&r->events, str, ev->slen) == -1 ||
	    pf_buf_putc(&r->events, '\0') == -1)
		return -1;
	/* Keep records 8-byte aligned. */
	while (r->events.len % 8)
		if (pf_buf_putc(&r->events, '\0') == -1)
			return -1;
	r->nevents++;
	return 0;
}

/*
 * The rest of a record that starts with pid and tid, carries a string at
 * byte stroff of its body and ends with the sample_id trailer (MMAP2,
 * COMM): at most maxlen bytes of the string are kept.
 */
static int
add_named(struct pf_rawrec *r, struct pf_rawevent *ev, const char *p, const char *end,
    size_t stroff, uint32_t maxlen)
{
	size_t n = strnlen(p + stroff, (size_t)(end - p) - stroff);

	ev->pid = u32_at(p);
	ev->tid = u32_at(p + 4);
	ev->time = u64_at(end - ID_SIZE + ID_TIME);
	ev->slen = n > maxlen ? maxlen : (uint32_t)n;
	return add_event(r, ev, p + stroff);
}

/*
 * The held-back samples of process pid (all with pid 0), once more; with
 * final they are all kept.  -1 with ENOMEM.
 */
static int
retry_pending(struct pf_rawrec *r, uint32_t pid, bool final)
{
	char *batch[PF_RAWREC_PENDING];
	size_t i, n = 0, keep = 0, len;
	int rc = 0;

	/* Out of the queue first: add_sample may hold one back again. */
	for (i = 0; i < r->npending; i++) {
		if (pid == 0 || u32_at(r->pending[i] + PEND_HDR + S_TID) == pid) {
			batch[n++] = r->pending[i];
			memcpy(&len, r->pending[i], sizeof(len));
			r->pending_bytes -= len;
		} else {
			r->pending[keep++] = r->pending[i];
		}
	}
	r->npending = keep;
	for (i = 0; i < n; i++) {
		bool held = false;
		struct pyread py;

		memcpy(&len, batch[i], sizeof(len));
		memcpy(&py, batch[i] + sizeof(len), sizeof(py));
		if (rc == 0)
			rc = add_sample(r, batch[i] + PEND_HDR, batch[i] + PEND_HDR + len,
			    final, &held, &py);
		free(batch[i]);
	}
	return rc;
}

int
pf_rawrec_flush(struct pf_rawrec *r)
{
	return retry_pending(r, 0, true);
}

/* An executable mapping (MMAP2) as an event; other mappings are dropped. */
static int
add_mmap2(struct pf_rawrec *r, const struct perf_event_header *h, const char *p,
    const char *end)
{
	struct pf_rawevent ev = { .type = PF_EV_MMAP };
	size_t bidlen;
	bool named;

	/* pid, tid, addr, len, pgoff, maj, min, ino, ino_gen, prot, flags */
	if ((size_t)(end - p) < 64 + ID_SIZE)
		return 0;
	/* Only executable mappings name frames. */
	if (!(u32_at(p + 56) & 4))
		return 0;
	ev.addr = u64_at(p + 8);
	ev.len = u64_at(p + 16);
	ev.pgoff = u64_at(p + 24);
	/*
	 * Either the file's device and inode, or (attr.build_id) its build-id:
	 * a size byte, three reserved, then up to 20 bytes, in their place.
	 */
	if (!(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
		ev.maj = u32_at(p + 32);
		ev.min = u32_at(p + 36);
		ev.ino = u64_at(p + 40);
		bidlen = 0;
	} else
		bidlen = (unsigned char)p[32] <= 20 ? (unsigned char)p[32] : 0;
	/* The unwinder places the file too (a path without its NUL is not one). */
	named = strnlen(p + 64, (size_t)(end - p) - 64) < (size_t)(end - p) - 64;
	if (r->unwind != NULL && named &&
	    pf_unwind_map(r->unwind, (pid_t)u32_at(p), ev.addr, ev.len, ev.pgoff, p + 64,
	    ev.maj, ev.min, ev.ino, (const unsigned char *)p + 36, bidlen,
	    u64_at(end - ID_SIZE + ID_TIME)) == -1)
		return -1;
	if (r->py != NULL && named && ev.len > 0 && ev.addr + ev.len > ev.addr &&
	    pf_pyrec_map(r->py, (pid_t)u32_at(p), ev.addr, ev.addr + ev.len, ev.pgoff, p + 64,
	    ev.ino, u64_at(end - ID_SIZE + ID_TIME)) == -1)
		return -1;
	if (r->on_map != NULL && named && ev.len > 0 && ev.addr + ev.len > ev.addr &&
	    r->on_map(r->on_map_arg, (pid_t)u32_at(p), ev.addr, ev.addr + ev.len, p + 64,
	    ev.maj, ev.min, ev.ino) == -1)
		return -1;
	/* The mapping samples held back were waiting for, maybe. */
	if (r->npending > 0 && retry_pending(r, u32_at(p), false) == -1)
		return -1;
	return add_named(r, &ev, p, end, 64, UINT32_MAX);
}

/* A thread's new name (COMM), or its exec when the kernel flags one. */
static int
add_comm(struct pf_rawrec *r, const struct perf_event_header *h, const char *p,
    const char *end)
{
	struct pf_rawevent ev = { .type = PF_EV_COMM };

	if ((size_t)(end - p) < 8 + ID_SIZE)
		return 0;
	ev.exec = (h->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
	if (ev.exec && r->unwind != NULL)
		pf_unwind_exec(r->unwind, (pid_t)u32_at(p), u64_at(end - ID_SIZE + ID_TIME));
	if (ev.exec && r->py != NULL)
		pf_pyrec_exec(r->py, (pid_t)u32_at(p), u64_at(end - ID_SIZE + ID_TIME));
	/* The kernel keeps 15 bytes of a name. */
	return add_named(r, &ev, p, end, 8, 15);
}

/* A thread's start (FORK) or end (EXIT): pid, ppid, tid, ptid, time. */
static int
add_task(struct pf_rawrec *r, const struct perf_event_header *h, const char *p,
    const char *end)
{
	struct pf_rawevent ev = {
		.type = h->type == PERF_RECORD_FORK ? PF_EV_FORK : PF_EV_EXIT,
	};

	if ((size_t)(end - p) < 24)
		return 0;
	ev.pid = u32_at(p);
	ev.ppid = u32_at(p + 4);
	ev.tid = u32_at(p + 8);
	ev.ptid = u32_at(p + 12);
	ev.time = u64_at(p + 16);
	if (ev.type == PF_EV_FORK && ev.pid != ev.ppid && r->unwind != NULL &&
	    pf_unwind_fork(r->unwind, (pid_t)ev.ppid, (pid_t)ev.pid) == -1)
		return -1;
	if (ev.type == PF_EV_FORK && ev.pid != ev.ppid && r->py != NULL)
		pf_pyrec_fork(r->py, (pid_t)ev.ppid, (pid_t)ev.pid);
	return add_event(r, &ev, "");
}

int
pf_rawrec_on_record(const struct perf_event_header *h, const char *rec, void *arg)
{
	struct pf_rawrec *r = arg;
	const char *p = rec + sizeof(*h);
	const char *end = rec + h->size;

	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		bool held = false;
		struct pyread py = { 0 };

		/* The Python frames first: they go on changing while the sample waits. */
		if (r->py != NULL && (size_t)(end - p) >= S_IPS) {
			struct timespec now;
			uint64_t t, ts = u64_at(p + S_TIME);

			py.id = pf_pyrec_sample(r->py, u32_at(p + S_TID), u32_at(p + S_TID + 4));
			if (py.id != PF_PYREC_NONE && py.id != PF_PYREC_UNFOUND)
				(void)pf_pyrec_leaf_code(r->py, &py.lo, &py.hi, &py.instr);

			clock_gettime(CLOCK_MONOTONIC, &now);
			t = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
			py.lag_us = t <= ts ? 0 : (t - ts) / 1000 >= UINT32_MAX ? UINT32_MAX :
			    (uint32_t)((t - ts) / 1000);
		}
		return add_sample(r, p, end, false, &held, &py);
	}
	case PERF_RECORD_MMAP2:
		return add_mmap2(r, h, p, end);
	case PERF_RECORD_COMM:
		return add_comm(r, h, p, end);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return add_task(r, h, p, end);
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		/* Both kinds end with the sample_id trailer. */
		if (!r->keep_switches || (size_t)(end - p) < ID_SIZE)
			return 0;
		return add_switch(r, h, end);
	case PERF_RECORD_LOST:
		/* id, lost */
		if (end - p >= 16)
			r->lost += u64_at(p + 8);
		return 0;
	case PERF_RECORD_THROTTLE:
		r->throttled++;
		return 0;
	default:
		r->unknown++;
		return 0;
	}
}

/* Samples by time; the rings are each in order, not with each other. */
static int
cmp_ref(const void *a, const void *b, void *arg)
{
	const char *base = arg;
	const struct pf_rawref *x = a, *y = b;
	uint64_t ta = ((const struct pf_rawsample *)(base + x->off))->time;
	uint64_t tb = ((const struct pf_rawsample *)(base + y->off))->time;

	if (ta != tb)
		return ta < tb ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

struct pf_rawref *
pf_rawrec_sample_order(const struct pf_rawrec *r, size_t *np)
{
	struct pf_rawref *v;
	size_t off = 0, n = 0;

	if ((v = calloc(r->nsamples + 1, sizeof(*v))) == NULL)
		return NULL;
	while (off < r->samples.len && n < r->nsamples) {
		const struct pf_rawsample *s = pf_rawrec_sample(r, off);

		v[n].off = off;
		v[n++].period = s->period;
		off += pf_rawsample_size(s);
	}
	pf_rawrec_sort(r, v, n);
	*np = n;
	return v;
}

void
pf_rawrec_sort(const struct pf_rawrec *r, struct pf_rawref *v, size_t n)
{
	qsort_r(v, n, sizeof(*v), cmp_ref, r->samples.data);
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
	while (r->npending > 0)
		free(r->pending[--r->npending]);
	r->pending_bytes = 0;
}
