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
#include "pyrec.h"
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
 * Why a sample's user stack does not reach an entry frame (the trailer's
 * incomplete=, by cause: man/pf-formats.5): PF_INCOMPLETE_NONE when it
 * does, or when the sample has no user stack.
 */
enum pf_incomplete {
	PF_INCOMPLETE_NONE,
	PF_INCOMPLETE_STACK_COPY,	/* the stack copy, or the frame limit, ended it */
	PF_INCOMPLETE_FP_DATA,		/* a frame-pointer chain ran into data ([unknown-chain]) */
	PF_INCOMPLETE_NO_UNWIND,	/* code without unwind information */
	PF_INCOMPLETE_UNREADABLE,	/* a mapped file that could not be read */
	PF_INCOMPLETE_BUDGET,		/* a cost budget ([budget]) */
	PF_INCOMPLETE_CAUSES
};

/* The cause's name in the trailer ("stack-copy"...; "none"). */
const char *pf_incomplete_name(enum pf_incomplete why);

/*
 * Whether name is an entry frame, where a program's or a thread's stack
 * starts (_start, __libc_start_main, main, start_thread, clone, Go's
 * runtime.goexit...), whatever leading underscores, __GI_ prefix or
 * symbol version it has.
 */
bool pf_entry_frame(const char *name);

/* How pf_replay_format's sample ended. */
struct pf_stack_end {
	bool cut;		/* in one "[unknown-chain]" frame */
	enum pf_incomplete why;
	int py;			/* PF_PY_MERGE_*: what became of its Python frames */
};

#define PF_PY_MERGE_NONE	0	/* it had none */
#define PF_PY_MERGE_DONE	1	/* merged at the evaluation frames */
#define PF_PY_MERGE_MISMATCH	2	/* native frames kept, with [py-mismatch] */

/* The most evaluation frames of one stack that Python frames are merged at. */
#define PF_PY_MERGE_MAX		512


/*
 * Append sample s as perf-script text to b: the event line with period
 * and evname, one line per frame (symbolized through sym) preceded by one
 * "(inlined)" line per function inlined there, a blank line.  A user
 * chain that reaches a return address outside every executable mapping
 * of a process whose mappings are known ends there in one
 * "[unknown-chain]" frame; a walk stopped at a cost budget short of an
 * entry frame ends in one "[budget]" frame.  *end says how the stack ended.  0, or -1 with
 * ENOMEM when memory ran out (b then holds no whole sample).  Every comm,
 * function and file name is escaped as it is written (pf_name_escape):
 * none can end its line or split its field.
 *
 * Python frames: when py is not NULL and the sample carries Python
 * frames (s->py), they are merged into the native stack: each group of
 * them that one evaluation call ran (innermost first, each group ending
 * at its entry frame) takes the place of one "_PyEval_EvalFrameDefault"
 * frame, in order, as "py::QUALNAME:FILE" frames (escaped as the other
 * names).  Merged only when the groups and the evaluation frames are as
 * many; or fewer evaluation frames where the native stack was cut short
 * (the outer groups then end the stack), or more where the Python walk
 * was (the frames it did read, then its end's marker, at the next
 * evaluation frame).  Otherwise the native frames stay and one
 * "[py-mismatch]" frame ends the stack.  A -X perf trampoline's "py::"
 * frame is left out of a merged stack: the function shows once.
 */
int pf_replay_format(struct pf_symbolizer *sym, struct pf_comms *comms,
    const struct pf_pyrec *py, const struct pf_rawsample *s, uint64_t period,
    const char *evname, struct pf_buf *b, struct pf_stack_end *end);

#endif
