/*
 * rawrec: the compact raw records a recorder keeps during its window
 * (samples, and the tracking records that name them: mmap, comm, fork,
 * exit, context switches), thread names, and the replay after the window
 * that writes each sample as perf-script text with the mappings and names
 * of its own moment.  Shared by pf-record and pf-offcpu.
 *
 * Samples must be opened with PERF_SAMPLE_IP | TID | TIME | CPU | PERIOD |
 * CALLCHAIN and sample_id_all with TID | TIME | CPU, the layout parsed here.
 */
#ifndef PF_RAWREC_H
#define PF_RAWREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "buf.h"
#include "symbolize.h"

/* One sample; followed by nr u64 callchain entries. */
struct pf_rawsample {
	uint32_t pid, tid, cpu;
	uint32_t nr;
	uint64_t time, period;
};

enum { PF_EV_MMAP, PF_EV_COMM, PF_EV_FORK, PF_EV_EXIT };

/* A tracking record; followed by a NUL-terminated string of slen bytes. */
struct pf_rawevent {
	uint64_t time;
	uint32_t type, pid, tid, ppid;
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

/* Thread names by tid (open addressing). */
struct pf_comms {
	struct pf_comm_ent *v;
	size_t n, cap;
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
	/* replay state */
	const struct pf_rawevent **ev;
	size_t nev, evi;
};

/*
 * The pf_perf_drain callback (arg: struct pf_rawrec *).  Keeps samples,
 * executable mmaps, comm, fork, exit and (with keep_switches) switch
 * records; counts lost and throttle records.  -1 with ENOMEM.
 */
int pf_rawrec_on_record(const struct perf_event_header *h, void *arg);

/*
 * Byte offsets of the samples in r->samples, in time order (rings are
 * each in order, not with each other).  *n gets the count.  NULL with
 * errno; the caller frees.
 */
uint64_t *pf_rawrec_sample_order(const struct pf_rawrec *r, size_t *n);

/* Sort the tracking records by time for the replay.  -1 with ENOMEM. */
int pf_rawrec_replay_begin(struct pf_rawrec *r);

/* Apply the tracking records up to time t to sym and comms. */
void pf_rawrec_replay_to(struct pf_rawrec *r, struct pf_symbolizer *sym,
    struct pf_comms *comms, uint64_t t);

void pf_rawrec_free(struct pf_rawrec *r);

/*
 * Append sample s as perf-script text to b: the event line with period
 * and evname, one line per frame (symbolized through sym), a blank line.
 */
void pf_rawrec_format(struct pf_symbolizer *sym, struct pf_comms *comms,
    const struct pf_rawsample *s, uint64_t period, const char *evname,
    struct pf_buf *b);

/* Name tid: remembered, else /proc (if alive), else ":tid" as perf prints. */
const char *pf_comms_get(struct pf_comms *c, uint32_t pid, uint32_t tid, char *buf,
    size_t len);
void pf_comms_set(struct pf_comms *c, uint32_t tid, const char *name);

/* Remember the names of pid's threads now, while /proc is readable. */
void pf_comms_read_proc(struct pf_comms *c, pid_t pid);

void pf_comms_free(struct pf_comms *c);

#endif
