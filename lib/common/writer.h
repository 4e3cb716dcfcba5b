/*
 * writer: the recorders' output, a sample stream (perf-script text),
 * written under hard caps.  Every byte goes through here so the caps
 * hold by construction:
 *
 *  - size: a sample is accepted only if it, everything before it and the
 *    room reserved for the trailer fit in max_size, so the output ends at
 *    a sample boundary and never exceeds the cap;
 *  - disk floor: on a regular file, a sample is accepted only if the
 *    filesystem keeps min_free bytes free after it (and the trailer), and
 *    the free space is measured again before every write of at most
 *    PF_WRITER_PIECE bytes: when another writer has filled the disk
 *    meanwhile, nothing more is written, so the floor is overshot by at
 *    most one piece (written between a look and another writer's fill);
 *  - disk full / I/O error: what reached the file is cut back to the last
 *    whole sample, and the trailer's room is kept allocated ahead
 *    (fallocate) so the trailer can still be written.
 */
#ifndef PF_WRITER_H
#define PF_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stop.h"

/*
 * The version in a stream's first line ("# pf-record 2 ...").  2: every
 * name in the stream is escaped (xmlesc.h, pf_name_escape); 1 wrote them
 * as they came.  Readers take both.
 */
#define PF_STREAM_VERSION 2

/* Room kept for the trailer line; it is never longer. */
#define PF_WRITER_TRAILER_MAX 512

/*
 * The most one write(2) puts in the file.  Samples are buffered up to it
 * and written together; a longer sample is written in several pieces.
 */
#define PF_WRITER_PIECE (16 * 1024)

struct pf_writer;

/*
 * A writer on fd (the caller keeps fd).  max_size counts every byte,
 * header and trailer included.  min_free is the disk floor in bytes,
 * applied only when fd is a regular file (0: none).  NULL with errno.
 */
struct pf_writer *pf_writer_new(int fd, uint64_t max_size, uint64_t min_free);

/*
 * Write header lines (each must start with "# " and end with '\n'); they
 * reach the file at once.  Returns PF_STOP_NONE, or the reason nothing
 * more may be written.
 */
enum pf_stop pf_writer_header(struct pf_writer *w, const char *text, size_t len);

/*
 * Offer comment lines written after the header, before the samples (the
 * build-id lines: each must start with "# " and end with '\n'): under
 * both caps as a sample is, but no sample.  PF_STOP_NONE when they were
 * accepted; otherwise the reason, as pf_writer_sample.
 */
enum pf_stop pf_writer_comment(struct pf_writer *w, const char *text, size_t len);

/*
 * Offer one whole sample (its lines and the blank line that ends it).
 * PF_STOP_NONE when it was accepted; otherwise the reason it was not,
 * and every later call returns that reason too.
 */
enum pf_stop pf_writer_sample(struct pf_writer *w, const char *text, size_t len);

/*
 * Flush and write the trailer
 *   # pf-record: samples=N lost=N throttled=N stop=REASON bytes=N
 * where samples counts the samples in the output and bytes is the stream's total size including the trailer itself.
 * With pf_writer_trailer_truncated, " truncated=N" follows throttled, then
 * with pf_writer_trailer_aggregated " aggregated=N", then with
 * pf_writer_trailer_chains " unknown-chain=N", then with
 * pf_writer_trailer_incomplete " incomplete=N" and, when N > 0,
 * " incomplete-causes=CAUSE:N,..."
 * tool is e.g. "pf-record".  The stop reason the writer hit itself (size
 * cap, disk) overrides reason.  Returns the final reason; PF_STOP_PIPE or
 * PF_STOP_IO when even the trailer could not be written.
 */
enum pf_stop pf_writer_finish(struct pf_writer *w, const char *tool, uint64_t lost,
    uint64_t throttled, enum pf_stop reason);

/* -g dwarf: the trailer says how many written stacks were cut short. */
void pf_writer_trailer_truncated(struct pf_writer *w, uint64_t n);

/*
 * pf-offcpu above its rate cap: the trailer says how many blocked
 * intervals were summed into the samples written.
 */
void pf_writer_trailer_aggregated(struct pf_writer *w, uint64_t n);

/* The trailer says how many written stacks ended in [unknown-chain]. */
void pf_writer_trailer_chains(struct pf_writer *w, uint64_t n);

/*
 * The trailer says how many written stacks reach no entry frame, and
 * why: causes is "CAUSE:N,..." (at most PF_WRITER_CAUSES_MAX bytes,
 * copied), the main cause first.
 */
#define PF_WRITER_CAUSES_MAX 192
void pf_writer_trailer_incomplete(struct pf_writer *w, uint64_t n, const char *causes);

/*
 * Python frames were read: the trailer says how many written stacks had
 * them merged, and how many kept their native frames and [py-mismatch]
 * (" py-merged=N py-mismatch=M", after the incomplete words).
 */
void pf_writer_trailer_python(struct pf_writer *w, uint64_t merged, uint64_t mismatch);

/* Samples accepted, and bytes written so far. */
uint64_t pf_writer_samples(const struct pf_writer *w);
uint64_t pf_writer_bytes(const struct pf_writer *w);

/* errno of the write failure behind PF_STOP_IO/DISK_FULL, else 0. */
int pf_writer_errno(const struct pf_writer *w);

void pf_writer_free(struct pf_writer *w);

#endif
