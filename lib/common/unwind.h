/*
 * unwind: user stacks from DWARF call-frame information (-g dwarf), for
 * code built without frame pointers.  Each sample brings the user
 * registers and a copy of the top of the user stack; libdw walks the
 * frames from them with the .eh_frame/.debug_frame of the files the
 * process maps.  The target is never read, ptraced or stopped: memory
 * comes from the sampled bytes and from the mapped files alone.
 *
 * One Dwfl per process, reported from its executable mappings (its maps
 * at attach, the MMAP2 records after), built at the process's first
 * sample and kept for a bounded number of processes at once.
 */
#ifndef PF_UNWIND_H
#define PF_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/perf_event.h>
#include <asm/perf_regs.h>

/* Frames an unwound stack keeps, at most. */
#define PF_UNWIND_MAX_FRAMES	127

/*
 * The user registers a sample carries: the general-purpose ones, which
 * is what x86-64 call-frame information can refer to.  In a sample they
 * come in the order of their bits (PERF_REG_X86_*).
 */
#define PF_UNWIND_REGS_MASK						\
	((1ULL << PERF_REG_X86_AX) | (1ULL << PERF_REG_X86_BX) |	\
	 (1ULL << PERF_REG_X86_CX) | (1ULL << PERF_REG_X86_DX) |	\
	 (1ULL << PERF_REG_X86_SI) | (1ULL << PERF_REG_X86_DI) |	\
	 (1ULL << PERF_REG_X86_BP) | (1ULL << PERF_REG_X86_SP) |	\
	 (1ULL << PERF_REG_X86_IP) | (1ULL << PERF_REG_X86_R8) |	\
	 (1ULL << PERF_REG_X86_R9) | (1ULL << PERF_REG_X86_R10) |	\
	 (1ULL << PERF_REG_X86_R11) | (1ULL << PERF_REG_X86_R12) |	\
	 (1ULL << PERF_REG_X86_R13) | (1ULL << PERF_REG_X86_R14) |	\
	 (1ULL << PERF_REG_X86_R15))
#define PF_UNWIND_NREGS	17

/* How an unwind ended. */
enum pf_unwind_end {
	PF_UNWIND_COMPLETE,	/* at the outermost frame */
	PF_UNWIND_TRUNCATED,	/* the stack went on beyond the copy (or the frame limit) */
	PF_UNWIND_BROKEN,	/* no unwind information, or bad data, on the way */
	PF_UNWIND_UNMAPPED,	/* at a pc in no file known (yet) to be mapped there */
	PF_UNWIND_UNREADABLE,	/* at a pc in a mapped file that could not be read */
	PF_UNWIND_BUDGET,	/* at a mapping or a rule refused to bound the cost */
};

struct pf_unwinder;

/* A new unwinder, or NULL with errno. */
struct pf_unwinder *pf_unwind_new(void);

/*
 * Open the targets' files through the recorder's file helper (mapfile.h)
 * from now on; NULL opens them directly.  The helper outlives the
 * unwinder's use of it.
 */
struct pf_mapfiles;
void pf_unwind_set_mapfiles(struct pf_unwinder *u, struct pf_mapfiles *mf);

void pf_unwind_free(struct pf_unwinder *u);

/*
 * An executable mapping of file path at [start, start + len) from file
 * offset pgoff in process pid, made at time (the records' clock; 0:
 * before the window).  maj/min/ino name the file (0: unknown), or the
 * kernel's record gave its GNU build-id (bid, bidlen bytes; bidlen 0:
 * none); a file found at path with another inode or another build-id is
 * not used.  Remembered only
 * (cheap): the file is opened when the process is first unwound, and
 * kept open.  "[vdso]" is read from our own.  0, or -1 with ENOMEM.
 */
int pf_unwind_map(struct pf_unwinder *u, pid_t pid, uint64_t start, uint64_t len,
    uint64_t pgoff, const char *path, uint32_t maj, uint32_t min, uint64_t ino,
    const unsigned char *bid, size_t bidlen, uint64_t time);

/* The executable mappings of a live process, from /proc/PID/maps.  0, or -1 with errno. */
int pf_unwind_load_proc(struct pf_unwinder *u, pid_t pid);

/* Process child forked from parent: it starts with the parent's mappings. */
int pf_unwind_fork(struct pf_unwinder *u, pid_t parent, pid_t child);

/*
 * Process pid exec'd at time: its mappings made before are gone.  The
 * rings are drained one after the other, so the new image's mappings may
 * have come already: those stay.
 */
void pf_unwind_exec(struct pf_unwinder *u, pid_t pid, uint64_t time);

/*
 * Unwind one sample of thread tid of process pid: regs are the sampled
 * user registers in PF_UNWIND_REGS_MASK order, stack the len bytes copied
 * from the stack pointer up.  Writes the frames' addresses, innermost
 * first, as a callchain has them (return addresses, not adjusted) into
 * pcs (room for max) and returns their count, with *end saying how the
 * walk ended.  The bytes are not kept.
 */
size_t pf_unwind_sample(struct pf_unwinder *u, pid_t pid, pid_t tid, const uint64_t *regs,
    const char *stack, size_t len, uint64_t *pcs, size_t max, enum pf_unwind_end *end);

/*
 * The stack pointer each frame of the last pf_unwind_sample had (its
 * first *n frames; 0 where libdw could not say): frame i's own stack
 * frame is [sps[i], sps[i + 1]).  Valid until the next walk.
 */
#define PF_UNWIND_SPS	(PF_UNWIND_MAX_FRAMES + 1)
const uint64_t *pf_unwind_sps(const struct pf_unwinder *u, size_t *n);

/*
 * Call fn with every file the unwinder opened, with the identity the
 * mapping gave (ino 0: unknown) and its descriptor (fn may dup it; the
 * unwinder keeps it): a file replaced on disk since stays readable
 * through it.
 */
void pf_unwind_foreach_file(const struct pf_unwinder *u,
    void (*fn)(const char *path, uint32_t maj, uint32_t min, uint64_t ino, int fd, void *arg),
    void *arg);

/*
 * The unwinder's budget: a process's mappings are offered to libdwfl as
 * the walks reach them, PF_UNWIND_MODULES_MAX at most per process (each
 * offer costs libdwfl a pass over every module it has).  How many
 * offers were refused past it, over every process: a walk that needed
 * one of those mappings ended there.
 */
#define PF_UNWIND_MODULES_MAX 2048
uint64_t pf_unwind_refused(const struct pf_unwinder *u);

/*
 * The samples whose walk ended at a frame with a call-frame expression
 * libdw's evaluator might not finish (one that jumps back, one of more
 * than 256 operations, an operation it does not carry out): libdw 0.188
 * leaks at each such evaluation, so neither walk makes one.  Such a
 * stack ends at that frame, broken.
 */
uint64_t pf_unwind_cfi_refused(const struct pf_unwinder *u);

#endif
