/*
 * rawrec: the compact raw records a recorder keeps during its window:
 * samples, and the tracking records that name them (mmap, comm, fork,
 * exit, context switches).  Decoding a ring record costs a few copies;
 * everything else (names, symbols, text) waits for the window's end
 * (comms.h, replay.h).  Shared by pf-record and pf-offcpu.
 */
#ifndef PF_RAWREC_H
#define PF_RAWREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "buf.h"

struct pf_unwinder;
struct pf_pyrec;

/*
 * The sample layout, stated once: the recorders open their events with
 * it and the decoder derives every field's offset from it.  sample_id_all
 * trailers carry the TID, TIME and CPU bits of it.  PERF_SAMPLE_READ, of
 * variable size before the callchain, is not decoded.
 */
#define PF_RAWREC_SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

/*
 * With -g dwarf the samples also carry the user registers
 * (PF_UNWIND_REGS_MASK) and a copy of the top of the user stack, after
 * the callchain.  They are unwound as they are drained and only the
 * frames are kept: the stack bytes never outlive the drain.
 */
#define PF_RAWREC_SAMPLE_TYPE_DWARF (PF_RAWREC_SAMPLE_TYPE | PERF_SAMPLE_REGS_USER | \
	PERF_SAMPLE_STACK_USER)

/*
 * A callchain entry ending a user stack that went on beyond what was
 * copied (or beyond the frame limit): written as a "[truncated]" frame.
 * Among the kernel's context markers but not one of them.
 */
#define PF_RAWREC_TRUNCATED ((uint64_t)PERF_CONTEXT_MAX + 1)

/*
 * -g dwarf: callchain entries after the user frames that say how the walk
 * ended, where that is not in the frames: at an outermost frame (by its
 * call-frame information: the stack is complete whatever its names), at
 * a file that could not be read, or at a cost budget (a mapping or a
 * rule refused: written as a "[budget]" frame).  Among the kernel's
 * context markers but not one of them; the writer reads them for the
 * trailer's incomplete= (pf_replay_format).
 */
#define PF_RAWREC_OUTERMOST ((uint64_t)PERF_CONTEXT_MAX + 2)
#define PF_RAWREC_UNREADABLE ((uint64_t)PERF_CONTEXT_MAX + 3)
#define PF_RAWREC_BUDGET ((uint64_t)PERF_CONTEXT_MAX + 4)

/*
 * One sample; followed by nr u64 callchain entries.  With -g dwarf the
 * user part of the chain is the unwound one (the frame-pointer one when
 * unwinding found nothing better).
 */
struct pf_rawsample {
	uint32_t pid, tid, cpu;
	uint32_t nr;
	/*
	 * The thread's Python frames as on_sample read them as the sample
	 * was drained (pyrec.h: a stack number, PF_PYREC_NONE or _LATE),
	 * and how long after the sample they were read, in microseconds
	 * (UINT32_MAX: that long or longer).
	 */
	uint32_t py, py_lag_us;
	uint64_t time, period;
};

enum { PF_EV_MMAP, PF_EV_COMM, PF_EV_FORK, PF_EV_EXIT };

/* A tracking record; followed by a NUL-terminated string of slen bytes. */
struct pf_rawevent {
	uint64_t time;
	uint32_t type, pid, tid, ppid;
	uint32_t ptid;		/* FORK: the creating thread, whose name the new one starts with */
	uint64_t addr, len, pgoff, ino;
	uint32_t maj, min;
	uint32_t exec;		/* COMM_EXEC */
	uint32_t slen;
};

/* A context switch of one thread (PERF_RECORD_SWITCH / SWITCH_CPU_WIDE). */
struct pf_rawswitch {
	uint64_t time;
	uint32_t tid;
	uint16_t out;		/* switch-out (else switch-in) */
	uint16_t preempt;	/* switch-out while still runnable */
};

/*
 * -g dwarf samples held back because they ran in code no mapping record
 * had named yet: the record may come through another CPU's ring, drained
 * after this one.  Each is retried when its process's next mapping
 * arrives and unwound as it is at pf_rawrec_flush or when the queue is
 * full.  At most this many, and this many bytes of records: a sample
 * copies up to 64 KiB of stack, so 4 MiB hold 64 of the deepest, and 256
 * of 16 KiB (a ring drained every 100 ms holds some 100 samples at 999
 * Hz).
 */
#define PF_RAWREC_PENDING 256
#define PF_RAWREC_PENDING_BYTES (4u << 20)

/* A sample to write: its offset in samples and the period to write. */
struct pf_rawref {
	uint64_t off, period;
};

/*
 * The records of one window.  Zero-initialise, set cap_bytes (the window
 * should stop once over turns true) and keep_switches when wanted; free
 * with pf_rawrec_free.
 */
struct pf_rawrec {
	struct pf_buf samples;	/* pf_rawsample records */
	struct pf_buf events;	/* pf_rawevent records, 8-byte aligned */
	struct pf_buf switches;	/* pf_rawswitch records */
	uint64_t nsamples, nevents, nswitches, lost, throttled, unknown;
	uint64_t cap_bytes;	/* raw data beyond this sets over */
	bool over;
	bool keep_switches;
	/*
	 * -g dwarf: samples have the PF_RAWREC_SAMPLE_TYPE_DWARF layout and
	 * are unwound with this as they arrive; mappings, forks and execs
	 * are passed on to it.  NULL: the frame-pointer layout.
	 */
	struct pf_unwinder *unwind;
	/*
	 * Called with each executable file mapping as its record arrives,
	 * while the mapping exists (the recorder opens the file then), or
	 * NULL.  path is the record's, NUL-terminated.  -1 (ENOMEM) ends
	 * the drain as the other failures do.
	 */
	int (*on_map)(void *arg, pid_t pid, uint64_t start, uint64_t end, const char *path,
	    uint32_t maj, uint32_t min, uint64_t ino);
	void *on_map_arg;
	/*
	 * The Python frames (pyrec.h), or NULL: each sample's are read as it
	 * is drained, first of all, and kept as its py, with its lag from
	 * the sample's time (CLOCK_MONOTONIC: the events must clock by it)
	 * as py_lag_us; mappings, forks and execs are passed on to it.
	 */
	struct pf_pyrec *py;
	uint64_t py_stale;	/* -g dwarf samples whose Python frames were not theirs */
	uint64_t truncated;	/* stacks cut short (the [truncated] frame) */
	uint64_t fp_fallback;	/* dwarf samples left with their frame-pointer chain */
	uint64_t unwound;	/* dwarf samples kept */
	uint64_t unwind_ns;	/* the time unwinding took (monotonic clock) */
	uint64_t deferred;	/* dwarf samples held back for a mapping record */
	char *pending[PF_RAWREC_PENDING];	/* their ring records, copied */
	size_t npending;
	size_t pending_bytes;	/* their records' bytes */
	/* replay state (replay.h) */
	const struct pf_rawevent **ev;
	size_t nev, evi;
};

/*
 * The pf_perf_drain callback (arg: struct pf_rawrec *).  Keeps samples,
 * executable mmaps, comm, fork, exit and (with keep_switches) switch
 * records; counts lost and throttle records.  -1 with ENOMEM.
 */
int pf_rawrec_on_record(const struct perf_event_header *h, const char *rec, void *arg);

/*
 * The samples in time order (rings are each in order, not with each
 * other), each with its own period.  *n gets the count.  NULL with
 * errno; the caller frees.
 */
struct pf_rawref *pf_rawrec_sample_order(const struct pf_rawrec *r, size_t *n);

/*
 * Unwind and keep the -g dwarf samples still held back (see
 * PF_RAWREC_PENDING): call once the rings are drained for the last time.
 * 0, or -1 with ENOMEM.
 */
int pf_rawrec_flush(struct pf_rawrec *r);

/* Sort n refs into r's samples by the samples' time (then offset). */
void pf_rawrec_sort(const struct pf_rawrec *r, struct pf_rawref *v, size_t n);

void pf_rawrec_free(struct pf_rawrec *r);

/* The sample at byte offset off of r->samples. */
static inline const struct pf_rawsample *
pf_rawrec_sample(const struct pf_rawrec *r, size_t off)
{
	return (const void *)(r->samples.data + off);
}

/* The bytes a stored sample or event takes, to step to the next one. */
static inline size_t
pf_rawsample_size(const struct pf_rawsample *s)
{
	return sizeof(*s) + (size_t)s->nr * 8;
}

static inline size_t
pf_rawevent_size(const struct pf_rawevent *e)
{
	return (sizeof(*e) + e->slen + 1 + 7) & ~(size_t)7;
}

#endif
