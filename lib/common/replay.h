/*
 * replay: after the window, the tracking records applied in time order to
 * the symbolizer and the thread names, so each sample is written as
 * perf-script text with the mappings and names of its own moment.
 */
#ifndef PF_REPLAY_H
#define PF_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "comms.h"
#include "rawrec.h"
#include "symbolize.h"

/* Sort the tracking records by time for the replay.  -1 with ENOMEM. */
int pf_replay_begin(struct pf_rawrec *r);

/*
 * Mark the file of every user frame of the n samples at refs (in time
 * order, as they will be written) with pf_sym_mark, applying the mapping
 * records to sym as the writing will, then put sym's mappings and the
 * replay back as they were: pf_sym_foreach_buildid then lists the files
 * the samples ran in, before the first is written.  After
 * pf_replay_begin.  0, or -1 with ENOMEM (nothing marked).
 */
int pf_replay_mark_files(struct pf_rawrec *r, struct pf_symbolizer *sym,
    const struct pf_rawref *refs, size_t n);

/* Apply the tracking records up to time t to sym and comms (NULL: sym only). */
void pf_replay_to(struct pf_rawrec *r, struct pf_symbolizer *sym,
    struct pf_comms *comms, uint64_t t);

/*
 * Append sample s as perf-script text to b: the event line with period
 * and evname, one line per frame (symbolized through sym) preceded by one
 * "(inlined)" line per function inlined there, a blank line.  A user
 * chain that reaches a return address outside every executable mapping
 * of a process whose mappings are known ends there in one
 * "[unknown-chain]" frame: 1 when s's was cut so, else 0; -1 with
 * ENOMEM when memory ran out (b then holds no whole sample).  Every comm,
 * function and file name is escaped as it is written (pf_name_escape):
 * none can end its line or split its field.
 */
int pf_replay_format(struct pf_symbolizer *sym, struct pf_comms *comms,
    const struct pf_rawsample *s, uint64_t period, const char *evname,
    struct pf_buf *b);

#endif
