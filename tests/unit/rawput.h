/*
 * rawput.h: records put into a struct pf_rawrec by hand, laid out as
 * pf_rawrec_on_record keeps them, for the drivers of the off-CPU
 * pairing engine (tests/unit/test-offcpu.c, fuzz/fuzz-offcpu.c).  An
 * allocation that fails aborts: these are test inputs.
 */
#ifndef PF_TESTS_RAWPUT_H
#define PF_TESTS_RAWPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "rawrec.h"

/* A switch-out sample of pid/tid at time, period 1, with the nr frames at ip. */
static inline void
rawput_sample(struct pf_rawrec *r, uint32_t pid, uint32_t tid, uint64_t time,
    const uint64_t *ip, uint32_t nr)
{
	struct pf_rawsample s = { .pid = pid, .tid = tid, .nr = nr, .time = time, .period = 1 };

	if (pf_buf_append(&r->samples, &s, sizeof(s)) == -1 ||
	    pf_buf_append(&r->samples, ip, (size_t)nr * sizeof(*ip)) == -1)
		abort();
	r->nsamples++;
}

/* A switch of tid: out (preempted or not) or in. */
static inline void
rawput_switch(struct pf_rawrec *r, uint32_t tid, uint64_t time, bool out, bool preempt)
{
	struct pf_rawswitch w = { .time = time, .tid = tid, .out = out, .preempt = preempt };

	if (pf_buf_append(&r->switches, &w, sizeof(w)) == -1)
		abort();
	r->nswitches++;
}

/* A thread's exit, as add_event stores it: the record, a NUL, 8-byte aligned. */
static inline void
rawput_exit(struct pf_rawrec *r, uint32_t pid, uint32_t tid, uint64_t time)
{
	struct pf_rawevent e = { .time = time, .type = PF_EV_EXIT, .pid = pid, .tid = tid };
	static const char pad[8];

	if (pf_buf_append(&r->events, &e, sizeof(e)) == -1 ||
	    pf_buf_append(&r->events, pad, pf_rawevent_size(&e) - sizeof(e)) == -1)
		abort();
	r->nevents++;
}

#endif
