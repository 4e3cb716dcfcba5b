/*
 * pprof: a profile in pprof's profile.proto format (man/pf-formats.5),
 * built from the sample stream and written uncompressed, which every
 * pprof reader accepts: no zlib joins the run-time dependencies.
 *
 * The folded stack perfscript hands over has lost what pprof keeps apart
 * (the module, the address, pid/tid/comm, inlining), so the builder reads
 * the same lines itself: feed each line to pprof_line after perfscript
 * has seen it, and when perfscript emits a sample (its filters passed),
 * pprof_add_current adds the sample those lines described.  perfscript
 * emits a sample while it reads the line after the sample's last, and
 * before pprof_line has seen that line, so "current" is always the one
 * emitted.
 *
 * The encoder functions below are exported for the unit tests.
 */
#ifndef PF_PPROF_H
#define PF_PPROF_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

struct pprof;

/* An empty profile, or NULL with ENOMEM. */
struct pprof *pprof_new(void);

/*
 * One line of the sample stream (len bytes, no newline).  Header lines of
 * pf-record and pf-offcpu become the profile's comments and give its
 * start time, duration and sampling period.  0, or -1 with ENOMEM.
 */
int pprof_line(struct pprof *pp, const char *line, size_t len);

/*
 * Add the sample of the last event line fed, weighing weight (its
 * period).  0, or -1 with ENOMEM, or EOVERFLOW when a total would pass
 * 2^63-1 (pprof's values are signed).
 */
int pprof_add_current(struct pprof *pp, uint64_t weight);

/*
 * Encode the profile into out (appended).  event names what the weights
 * count (the event kept, NULL if none): cpu-clock and task-clock weigh
 * CPU nanoseconds, offcpu-time blocked nanoseconds, any other event its
 * own count.  0, or -1 with ENOMEM.
 */
int pprof_encode(struct pprof *pp, const char *event, struct pf_buf *out);

/* Samples added so far (after merging identical ones: the distinct ones). */
size_t pprof_nsamples(const struct pprof *pp);

/*
 * Samples perfscript emitted that the builder could not match to lines
 * of its own (an event line it did not read as one): left out of the
 * profile, and counted here so the caller can say so.
 */
uint64_t pprof_unmatched(const struct pprof *pp);

void pprof_free(struct pprof *pp);

/* Protocol buffers wire format: a base-128 varint, low group first. */
int pb_varint(struct pf_buf *b, uint64_t v);

/* Field number field as a varint (wire type 0). */
int pb_uint(struct pf_buf *b, unsigned field, uint64_t v);

/* Field number field, length-delimited (wire type 2): bytes, a string or a message. */
int pb_bytes(struct pf_buf *b, unsigned field, const void *p, size_t n);

/* A packed repeated varint field; nothing at all for n == 0. */
int pb_packed(struct pf_buf *b, struct pf_buf *tmp, unsigned field, const uint64_t *v, size_t n);

#endif
