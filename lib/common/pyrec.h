/*
 * pyrec: the recorders' Python frames.  Which target processes run a
 * CPython 3.9 to 3.13 (an executable file mapping whose name holds
 * "python" and whose symbols hold _PyRuntime, pyframe.h), and for a
 * sample of one of their threads, the Python frames that thread is in
 * now: read from the target's memory through the file helper
 * (pf_mapfiles_read, mapfile.h) as the sample is drained, and kept as a
 * number the sample carries (pf_rawsample.py).  replay.c merges them
 * into the native stack at the evaluation frames.
 *
 * Cost, bounded whatever the target holds: one sample's walk reads at
 * most PF_PYREC_PAGES pages of 4 KiB (each one helper request; a page
 * read once serves every read in it during that walk), and a code
 * object's names are read once: they are kept by code object while the
 * code object still holds the same name and file objects and first line.
 * A thread's state is kept by tid and checked against the tid it holds;
 * the thread list is walked again at most every PF_PYREC_RELIST_NS per
 * process when a thread is not in it.  Names are kept unescaped (the
 * stream's writer escapes them, replay.c).
 */
#ifndef PF_PYREC_H
#define PF_PYREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "buf.h"

struct pf_mapfiles;

/* The most processes read; a process beyond them keeps native stacks. */
#define PF_PYREC_PROCS		256
/* The most 4 KiB pages one walk reads. */
#define PF_PYREC_PAGES		64
/* How often a process's thread list is walked again for a thread not in it. */
#define PF_PYREC_RELIST_NS	200000000ULL
/* Code objects whose names are kept; the cache starts over beyond. */
#define PF_PYREC_CODES		65536

/* A sample's Python frames: none (0), or read after the thread ran again (pf-offcpu). */
#define PF_PYREC_NONE		0
#define PF_PYREC_LATE		UINT32_MAX
/* ... or read, but not the ones the sample's own stack was running (pf_pyrec_leaf_code). */
#define PF_PYREC_STALE		(UINT32_MAX - 1)
/*
 * ... or none: the interpreter holds no thread state of the sample's
 * thread (a thread that ended before the read, or one that runs no
 * Python: its stack says which).
 */
#define PF_PYREC_UNFOUND	(UINT32_MAX - 2)

struct pf_pyrec;

/*
 * A new state reading through mf (which must be the recorder's helper:
 * without one, nothing is read), lines: names end in ":LINE", the line
 * the frame is at (":?" when not known).  NULL with ENOMEM.
 */
struct pf_pyrec *pf_pyrec_new(struct pf_mapfiles *mf, bool lines);
void pf_pyrec_free(struct pf_pyrec *p);

/*
 * Executable file mapping [start, end) at file offset pgoff of process
 * pid, named path, made at time (0: before the recording): a file whose
 * name holds "python", or that pf_pyrec_exe named pid's executable, is
 * probed for an interpreter (and the C library, for 3.9 and 3.10, for
 * its thread ids) by opening it through the helper.  -1 only with
 * ENOMEM.
 */
int pf_pyrec_map(struct pf_pyrec *p, pid_t pid, uint64_t start, uint64_t end, uint64_t pgoff,
    const char *path, uint64_t ino, uint64_t time);

/*
 * Process pid's executable is path (a -p target's, a command's as it
 * will exec): probed whatever its name, for an interpreter embedded in
 * a program named otherwise.  At most PF_PYREC_EXES; -1 with ENOMEM,
 * or ENOSPC beyond.
 */
#define PF_PYREC_EXES		64
int pf_pyrec_exe(struct pf_pyrec *p, pid_t pid, const char *path);

/* Whether an interpreter (read or not) was found in any process. */
bool pf_pyrec_found(const struct pf_pyrec *p);

/*
 * Process pid exec'd at time: what was found in it is forgotten, unless a
 * mapping of the new image (time after it: the rings are drained one
 * after another) told it already.
 */
void pf_pyrec_exec(struct pf_pyrec *p, pid_t pid, uint64_t time);

/* pid forked child (a new process): it runs the parent's interpreter. */
void pf_pyrec_fork(struct pf_pyrec *p, pid_t ppid, pid_t child);

/*
 * The Python frames thread tid of process pid is in now: a number for
 * pf_pyrec_stack, or PF_PYREC_NONE (not an interpreter's thread, or
 * nothing to read).  Never fails: memory that runs out reads as none.
 */
uint32_t pf_pyrec_sample(struct pf_pyrec *p, uint32_t pid, uint32_t tid);

/*
 * The innermost Python frame of the last pf_pyrec_sample that returned a
 * stack: its code object's bytes [*lo, *hi) and, from 3.11, where in them
 * it was (*instr: prev_instr, 3.13's instr_ptr; 0 when not known).
 * false when the code object's bytes are not known.  rawrec.c checks a
 * -g dwarf sample's registers and stack against them (py_fresh).
 */
bool pf_pyrec_leaf_code(const struct pf_pyrec *p, uint64_t *lo, uint64_t *hi, uint64_t *instr);

/*
 * Where process pid's _PyEval_EvalFrameDefault is, [*lo, *hi): false
 * when it has no interpreter found, or its file does not say.
 */
bool pf_pyrec_eval_code(const struct pf_pyrec *p, uint32_t pid, uint64_t *lo, uint64_t *hi);

/*
 * What rawrec.c learns of process pid's evaluation loop (py_fresh): the
 * slots of its stack frame, by offset below its CFA, that held a pointer
 * into the innermost Python frame's code in samples whose frames were
 * shown fresh otherwise, and how many such samples there were.  NULL
 * for a process without an interpreter found.
 */
#define PF_PYREC_SLOTS	16
struct pf_pyrec_slots {
	uint32_t off[PF_PYREC_SLOTS];	/* bytes below the CFA, 8-aligned */
	uint32_t hits[PF_PYREC_SLOTS];
	uint32_t n, confirmed;
};
struct pf_pyrec_slots *pf_pyrec_slots(struct pf_pyrec *p, uint32_t pid);

/*
 * A stack of n frames, innermost first, named names[i] ("QUALNAME:FILE",
 * as pf_pyrec_name gives them back), entry frames where entry[i], ended
 * as end says (PF_PY_END_*): its number, as pf_pyrec_sample gives, or
 * PF_PYREC_NONE when memory ran out.  For the tests and the fuzz harness
 * of the merge (replay.c), which read no interpreter.
 */
uint32_t pf_pyrec_add_stack(struct pf_pyrec *p, const char *const *names, const bool *entry,
    size_t n, int end);

/* One frame of a stack: its name (pf_pyrec_name) and whether it is an entry frame. */
#define PF_PYREC_ENTRY	0x80000000u

/*
 * Stack number id's frames, innermost first (read each with
 * pf_pyrec_frame): each a name number, with
 * PF_PYREC_ENTRY when the frame is the first its evaluation call ran;
 * *n the count, *end how the walk ended (PF_PY_END_*).  NULL for an id
 * that is not one.
 */
const unsigned char *pf_pyrec_stack(const struct pf_pyrec *p, uint32_t id, size_t *n,
    int *end);

/* Frame i of a stack pf_pyrec_stack gave (its bytes need not be aligned). */
static inline uint32_t
pf_pyrec_frame(const unsigned char *st, size_t i)
{
	uint32_t k;

	memcpy(&k, st + 4 * i, sizeof(k));
	return k;
}

/* Name number k's bytes ("QUALNAME:FILE[:LINE]", unescaped), *len long. */
const char *pf_pyrec_name(const struct pf_pyrec *p, uint32_t k, size_t *len);

/*
 * The header's lines, one per interpreter process found:
 * "# python pid=N version=3.M[.P] frames=read" or "... frames=off reason=WHY".
 */
int pf_pyrec_header(const struct pf_pyrec *p, struct pf_buf *b);

/* Figures for --stats: samples read, helper reads, code-cache hits and misses. */
void pf_pyrec_stats(const struct pf_pyrec *p, struct pf_buf *b);

#endif
