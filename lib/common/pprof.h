/*
 * pprof: a profile in pprof's profile.proto format (man/pf-formats.5),
 * built from the sample stream and written uncompressed, which every
 * pprof reader accepts: no zlib joins the run-time dependencies.
 *
 * The builder reads no line of the stream itself: perfscript parses it
 * (with keep_frames, so each sample comes with its frames' address,
 * function and module), pf_pprof_add_sample adds each sample perfscript
 * emits (its filters passed), and pf_pprof_comment reads the '#' lines
 * perfscript hands to its comment callback.
 *
 * The encoder functions below are exported for the unit tests.
 */
#ifndef PF_PPROF_H
#define PF_PPROF_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "perfscript.h"

struct pf_pprof;

/* An empty profile, or NULL with ENOMEM. */
struct pf_pprof *pf_pprof_new(void);

/*
 * One '#' line of the stream (len bytes, no newline).  The header, caps
 * and trailer lines of pf-record and pf-offcpu become the profile's
 * comments and give its start time, duration and sampling period; other
 * comments are ignored.  0, or -1 with ENOMEM.
 */
int pf_pprof_comment(struct pf_pprof *pp, const char *line, size_t len);

/*
 * Add one sample as perfscript hands it over: its frames (leaf first),
 * its comm, pid and tid as labels, its weight (the period) and its time.
 * 0, or -1 with ENOMEM, or EOVERFLOW when a total would pass 2^63-1
 * (pprof's values are signed): the sample is then not added.
 */
int pf_pprof_add_sample(struct pf_pprof *pp, const struct pf_ps_sample *s);

/*
 * Encode the profile into out (appended).  event names what the weights
 * count (the event kept, NULL if none): cpu-clock and task-clock weigh
 * CPU nanoseconds, offcpu-time blocked nanoseconds, any other event its
 * own count.  0, or -1 with ENOMEM.
 */
int pf_pprof_encode(struct pf_pprof *pp, const char *event, struct pf_buf *out);

/* Samples added so far (after merging identical ones: the distinct ones). */
size_t pf_pprof_nsamples(const struct pf_pprof *pp);

void pf_pprof_free(struct pf_pprof *pp);

/* Protocol buffers wire format: a base-128 varint, low group first. */
int pf_pb_varint(struct pf_buf *b, uint64_t v);

/* Field number field as a varint (wire type 0). */
int pf_pb_uint(struct pf_buf *b, unsigned field, uint64_t v);

/* Field number field, length-delimited (wire type 2): bytes, a string or a message. */
int pf_pb_bytes(struct pf_buf *b, unsigned field, const void *p, size_t n);

/* A packed repeated varint field; nothing at all for n == 0. */
int pf_pb_packed(struct pf_buf *b, struct pf_buf *tmp, unsigned field, const uint64_t *v, size_t n);

#endif
