/*
 * unwind: DWARF unwinding of sampled user stacks with libdw.  The state
 * libdw walks is the sample's: registers from the sample, memory from
 * the copied stack bytes or from the mapped files.  A read above the copy
 * (the stack went on) marks the walk as truncated rather than broken.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>

#include "fileio.h"
#include "grow.h"
#include "hash.h"
#include "htab.h"
#include "mapfile.h"
#include "procmaps.h"
#include "symbolize.h"
#include "unwind.h"

/*
 * Processes with a Dwfl at once: each holds its files' ELF handles and
 * CFI.  The least recently unwound one gives its Dwfl up (its mappings
 * stay; the Dwfl is rebuilt when it is sampled again).
 */
#define LIVE_MAX	32
/*
 * Modules offered to one process's Dwfl, at most.  A process maps a few
 * hundred files at most (a browser some 500); past this a target is
 * making mappings to cost us time.
 */
#define MODULES_MAX	PF_UNWIND_MODULES_MAX
/* libdw walks of one sample, at most, each after offering one more module. */
#define OFFER_RETRIES	8

/* How far above the copy a read still counts as "the stack went on". */
#define STACK_REACH	(8ULL << 20)

/*
 * Files held open from their first use to the end: a file replaced on
 * disk during the window (an upgrade) is still read as the process
 * mapped it, and is handed on to the symbolizer at the end.
 */
#define FILES_MAX	512

/* The longest GNU build-id a record carries (the kernel's BUILD_ID_SIZE_MAX). */
#define BID_MAX		20

struct map {
	uint64_t start, end, pgoff, time;
	uint64_t ino;		/* the mapped file's inode, 0 when unknown */
	uint32_t maj, min;
	unsigned char bid[BID_MAX];	/* its build-id from the kernel, bidlen 0 when none */
	size_t bidlen;
	char *path;
	bool offered;		/* offered to the process's Dwfl (report()) */
	bool refused;		/* past MODULES_MAX: counted once in proc's refused */
	bool unreadable;	/* offered, but its file could not be opened or used */
};

/* A file opened for its call-frame information, and which one it is. */
struct ufile {
	char *path;
	uint32_t maj, min;
	uint64_t ino;
	unsigned char bid[BID_MAX];	/* the file's own GNU build-id, bidlen 0 when none */
	size_t bidlen;
	int fd;
};

/*
 * The unwind rule at one pc, when it is one of the simple kinds nearly
 * all compiled code has: the CFA is rsp or rbp plus an offset, the return
 * address is saved at an offset from the CFA (or undefined: the outermost
 * frame), and rbp is either kept or saved at an offset from the CFA.
 * Cached per process so that a pc seen before costs a lookup, not a run
 * of its CFI program; any other rule goes to libdw's own unwinder, but
 * for one libdw's evaluator could not finish (RULE_REFUSED, see
 * refused_expr): the walk ends at that frame, whichever walk it is.
 */
#define RULES		4096	/* a direct-mapped cache of that many pcs, per process */

enum { RULE_EMPTY, RULE_FRAME, RULE_OUTERMOST, RULE_NOMODULE, RULE_COMPLEX, RULE_REFUSED };

/*
 * The registers whose rules libdw's unwinder evaluates at each frame: the
 * x86-64 DWARF numbers 0 to 16 (the return address is 16).
 */
#define CFI_NREGS	17
/*
 * Operations of an expression libdw is let evaluate, at most.  libdw
 * 0.188 gives up after 4096 steps (and leaks); an expression with no
 * backward jump takes at most one step an operation.  Compilers write a
 * handful (the PLT's CFA: 9).
 */
#define EXPR_OPS_MAX	256

struct rule {
	uint64_t pc;		/* the address looked up (pc, or pc - 1 for a caller) */
	int32_t cfa_off, ra_off, bp_off;
	uint8_t kind;		/* RULE_* */
	uint8_t cfa_bp;		/* the CFA is based on rbp, not rsp */
	uint8_t bp_saved;	/* rbp is restored from CFA + bp_off */
	uint8_t sig;		/* a signal frame's: its caller's pc is no return address */
};

/* An address found in no mapping, while the process had nmaps of them. */
struct nomap {
	uint64_t addr;
	size_t nmaps;
};

#define NOMAP	16

struct proc {
	pid_t pid;
	struct nomap nomap[NOMAP];
	struct map *maps;
	size_t nmaps, cap;
	uint64_t top;		/* no map ends above it (it may be above them all) */
	size_t seen;		/* maps there were when the rules were last good */
	size_t offered;		/* maps offered to dwfl, at most MODULES_MAX */
	uint64_t refused;	/* offers refused past MODULES_MAX */
	Dwfl *dwfl;
	bool attached;
	uint64_t used;		/* tick of the last unwind */
	struct rule *rules;	/* RULES entries while dwfl lives, else NULL */
};

/*
 * CPython 3.12's and 3.13's perf trampoline (-X perf), copied for each
 * Python function into anonymous memory that has no unwind information:
 * _Py_trampoline_func_start, "sub $8,%rsp; call *%rcx; add $8,%rsp; ret".
 * Its return address from the call is the sixth byte; there its caller's
 * return address is at rsp + 8 and its caller's rsp is rsp + 16, and it
 * touches no other register.
 */
static const unsigned char trampoline[] = {
	0x48, 0x83, 0xec, 0x08, 0xff, 0xd1, 0x48, 0x83, 0xc4, 0x08, 0xc3,
};
#define TRAMP_RA	6	/* the return address's offset in it */
#define TRAMP_CACHE	64	/* pcs remembered, by hash */
#define TRAMP_HOPS	64	/* trampolines one stack is walked through, at most */

struct tramp {
	pid_t pid;
	uint64_t pc;
	bool yes;
};

struct pf_unwinder {
	struct proc *procs;
	size_t n, cap;
	struct pf_htab idx;	/* pid -> procs[] */
	size_t nlive;
	uint64_t tick;
	Dwfl_Callbacks cb;
	struct ufile *files;
	size_t nfiles, capfiles;
	int vdso_fd;		/* a copy of our own vDSO, the same as the targets' */
	struct pf_mapfiles *mf;	/* the recorder's file helper, or NULL */
	/* The sample being unwound. */
	pid_t tid;
	const uint64_t *regs;
	const char *stack;
	uint64_t sp, len;
	struct proc *proc;	/* its process */
	bool beyond;		/* a read above the copy */
	/* libdw's walk: frames found when a read above the copy, or outside it, was refused */
	size_t beyond_at, unread;	/* 0: none (see memory_read) */
	/* The registers of the frame a walk stopped at in no file (walk's continuation). */
	uint64_t cont[PF_UNWIND_NREGS];
	bool cont_ok;
	struct tramp tramp[TRAMP_CACHE];	/* pcs known to be, or not be, trampolines */
	bool miss;		/* the walk stopped at a pc in no file it knows */
	bool refused;		/* the walk stopped at a frame with a RULE_REFUSED rule */
	bool sig;		/* libdw's walk: the frame before was a signal frame */
	uint64_t nrefused;	/* samples whose walk did, in all */
	uint64_t miss_pc;	/* that pc, as libdw's walk saw it */
	uint64_t *pcs;
	uint64_t sps[PF_UNWIND_SPS];	/* each frame's stack pointer (pf_unwind_sps) */
	size_t npcs, max;
};

/* PF_UNWIND_REGS_MASK order: ax bx cx dx si di bp sp ip r8..r15. */
enum { R_AX, R_BX, R_CX, R_DX, R_SI, R_DI, R_BP, R_SP, R_IP, R_R8 };

_Static_assert(PF_UNWIND_NREGS == 17 && __builtin_popcountll(PF_UNWIND_REGS_MASK) == 17,
    "the register list and its mask disagree");

struct key {
	const struct pf_unwinder *u;
	pid_t pid;
};

static bool
key_eq(const void *arg, size_t i)
{
	const struct key *k = arg;

	return k->u->procs[i].pid == k->pid;
}

static struct proc *
find(struct pf_unwinder *u, pid_t pid)
{
	struct key k = { u, pid };
	struct pf_htab_slot *s = pf_htab_find(&u->idx, pf_hash_u64((uint64_t)pid), key_eq, &k);

	return s->idx ? &u->procs[s->idx - 1] : NULL;
}

/* pid's entry, made when missing.  NULL with ENOMEM. */
static struct proc *
get(struct pf_unwinder *u, pid_t pid)
{
	struct key k = { u, pid };
	struct pf_htab_slot *s;
	uint64_t h = pf_hash_u64((uint64_t)pid);
	struct proc *p;

	if ((p = find(u, pid)) != NULL)
		return p;
	if (pf_grow(&u->procs, &u->cap, u->n + 1, sizeof(*u->procs)) == -1)
		return NULL;
	if (pf_htab_reserve(&u->idx) == -1)
		return NULL;
	s = pf_htab_find(&u->idx, h, key_eq, &k);
	p = &u->procs[u->n];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	pf_htab_set(&u->idx, s, h, u->n++);
	return p;
}

static void
drop_dwfl(struct pf_unwinder *u, struct proc *p)
{
	if (p->dwfl == NULL)
		return;
	dwfl_end(p->dwfl);
	p->dwfl = NULL;
	/* The rules came from that Dwfl's modules. */
	free(p->rules);
	p->rules = NULL;
	p->attached = false;
	p->seen = p->offered = 0;
	for (size_t i = 0; i < p->nmaps; i++)
		p->maps[i].offered = p->maps[i].refused = p->maps[i].unreadable = false;
	u->nlive--;
}

static void
clear_maps(struct proc *p)
{
	size_t i;

	for (i = 0; i < p->nmaps; i++)
		free(p->maps[i].path);
	p->nmaps = 0;
	p->seen = 0;
	p->top = 0;
}

/*
 * Our vDSO as a file libdw can read: the kernel gives every process the
 * same image, and the one a sample stopped in has call-frame information
 * too.  Made before the recorder confines itself.  -1 when there is none.
 */
static int
vdso_fd(void)
{
	const char *base = (const char *)getauxval(AT_SYSINFO_EHDR);
	Elf64_Ehdr eh;
	size_t size;

	if (base == NULL)
		return -1;
	memcpy(&eh, base, sizeof(eh));
	/* The image ends with its section headers. */
	size = (size_t)eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || size < sizeof(eh) || size > (1 << 20))
		return -1;
	return pf_memfd_copy("pf-unwind-vdso", base, size);
}

/*
 * No separate debuginfo (find_debuginfo is pf_dwfl_no_debuginfo, below):
 * the CFI is the mapped files' own (.eh_frame, or
 * .debug_frame), which libdw reads at a pc .eh_frame does not cover.
 * libdwfl's standard search opened, as root and blocking, what a file's
 * debug link names and FILE.debug beside it, the target's to choose: a
 * FIFO there stopped the recorder for good (found by fuzz-unwind).  By
 * build-id, at a pc in libc that .eh_frame did not cover, libc6-dbg's
 * libc was read and decompressed for each process's Dwfl: 90 ms and
 * 13 MB each (437 MB with 32 processes live), for a .debug_frame that
 * Debian's debug files do not have.
 */

struct pf_unwinder *
pf_unwind_new(void)
{
	struct pf_unwinder *u;

	if ((u = calloc(1, sizeof(*u))) == NULL)
		return NULL;
	if (pf_htab_init(&u->idx, 64) == -1) {
		free(u);
		return NULL;
	}
	u->vdso_fd = vdso_fd();
	u->cb.find_elf = dwfl_build_id_find_elf;
	u->cb.find_debuginfo = pf_dwfl_no_debuginfo;
	return u;
}

void
pf_unwind_set_mapfiles(struct pf_unwinder *u, struct pf_mapfiles *mf)
{
	u->mf = mf;
}

void
pf_unwind_free(struct pf_unwinder *u)
{
	size_t i;

	if (u == NULL)
		return;
	for (i = 0; i < u->n; i++) {
		drop_dwfl(u, &u->procs[i]);
		clear_maps(&u->procs[i]);
		free(u->procs[i].maps);
	}
	free(u->procs);
	pf_htab_free(&u->idx);
	for (i = 0; i < u->nfiles; i++) {
		close(u->files[i].fd);
		free(u->files[i].path);
	}
	free(u->files);
	if (u->vdso_fd != -1)
		close(u->vdso_fd);
	free(u);
}

static int
add_map(struct proc *p, const struct map *nm)
{
	size_t i;

	/*
	 * The same mapping twice (from /proc/PID/maps and from its record) is
	 * kept once.  One above all the others (every line of /proc/PID/maps,
	 * read in order) is none of them: no look, so 60,000 mappings cost
	 * no square.
	 */
	for (i = 0; nm->start < p->top && i < p->nmaps; i++)
		if (p->maps[i].start == nm->start && p->maps[i].end == nm->end &&
		    p->maps[i].ino == nm->ino && p->maps[i].bidlen == nm->bidlen &&
		    memcmp(p->maps[i].bid, nm->bid, nm->bidlen) == 0 &&
		    strcmp(p->maps[i].path, nm->path) == 0)
			return 0;
	if (pf_grow(&p->maps, &p->cap, p->nmaps + 1, sizeof(*p->maps)) == -1)
		return -1;
	if (nm->end > p->top)
		p->top = nm->end;
	p->maps[p->nmaps] = *nm;
	p->maps[p->nmaps].offered = false;
	p->maps[p->nmaps].refused = false;
	p->maps[p->nmaps].unreadable = false;
	if ((p->maps[p->nmaps].path = strdup(nm->path)) == NULL)
		return -1;
	p->nmaps++;
	return 0;
}

/* Files have call-frame information to read, and the vDSO; anonymous code has none. */
static bool
unwindable(const char *path)
{
	return pf_maps_file_path(path) || strcmp(path, "[vdso]") == 0;
}

int
pf_unwind_map(struct pf_unwinder *u, pid_t pid, uint64_t start, uint64_t len,
    uint64_t pgoff, const char *path, uint32_t maj, uint32_t min, uint64_t ino,
    const unsigned char *bid, size_t bidlen, uint64_t time)
{
	struct map m = {
		.start = start, .end = start + len, .pgoff = pgoff, .time = time,
		.ino = ino, .maj = maj, .min = min, .path = (char *)(uintptr_t)path,
	};
	struct proc *p;

	if (bid != NULL && bidlen > 0 && bidlen <= BID_MAX) {
		memcpy(m.bid, bid, bidlen);
		m.bidlen = bidlen;
	}
	if (!unwindable(path))
		return 0;
	if ((p = get(u, pid)) == NULL)
		return -1;
	return add_map(p, &m);
}

static int
maps_line(const struct pf_maps_entry *e, void *arg)
{
	struct proc *p = arg;
	struct map m = {
		.start = e->start, .end = e->end, .pgoff = e->pgoff, .ino = e->ino,
		.maj = e->maj, .min = e->min, .path = (char *)(uintptr_t)e->path,
	};

	if (!e->exec || e->deleted || !unwindable(e->path))
		return 0;
	return add_map(p, &m);
}

int
pf_unwind_load_proc(struct pf_unwinder *u, pid_t pid)
{
	char path[64];
	struct proc *p;
	int fd, rc, e;

	if ((p = get(u, pid)) == NULL)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	rc = pf_maps_read(fd, maps_line, p);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

int
pf_unwind_fork(struct pf_unwinder *u, pid_t parent, pid_t child)
{
	struct proc *pp, *cp;
	size_t i, n;

	if (find(u, parent) == NULL)
		return 0;
	if ((cp = get(u, child)) == NULL)
		return -1;
	/* get() may have moved the array. */
	pp = find(u, parent);
	n = pp->nmaps;
	for (i = 0; i < n; i++) {
		struct map m = pp->maps[i];

		if (add_map(cp, &m) == -1)
			return -1;
		pp = find(u, parent);
	}
	return 0;
}

void
pf_unwind_exec(struct pf_unwinder *u, pid_t pid, uint64_t time)
{
	struct proc *p = find(u, pid);
	size_t i, n = 0;

	if (p == NULL)
		return;
	drop_dwfl(u, p);
	for (i = 0; i < p->nmaps; i++) {
		if (p->maps[i].time < time)
			free(p->maps[i].path);
		else
			p->maps[n++] = p->maps[i];
	}
	p->nmaps = n;
	p->seen = 0;
	/*
	 * An address remembered as in no mapping was so among the mappings
	 * just dropped, and the memory holds while their count is the same:
	 * once as many new ones had come, a pc in one of them was still
	 * taken as unmapped.
	 */
	memset(p->nomap, 0, sizeof(p->nomap));
	/* Nor is the code at an address what it was: the trampolines it held are forgotten. */
	for (i = 0; i < TRAMP_CACHE; i++)
		if (u->tramp[i].pid == pid)
			u->tramp[i].pc = 0;
}

/*
 * The bias of path mapped at start from pgoff: where its PT_LOAD segment
 * of that offset landed, against where the file places it.  -1 when the
 * file is not an ELF file or has no such segment.
 */
static int
load_bias(Elf *elf, const struct map *m, uint64_t *bias)
{
	GElf_Ehdr eh;
	size_t nph, i;

	if (gelf_getehdr(elf, &eh) == NULL || elf_getphdrnum(elf, &nph) != 0)
		return -1;
	if (eh.e_type == ET_EXEC) {
		*bias = 0;
		return 0;
	}
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_LOAD)
			continue;
		if (m->pgoff >= (ph.p_offset & ~(uint64_t)0xfff) &&
		    m->pgoff < ph.p_offset + ph.p_filesz) {
			/* The page of file offset pgoff holds vaddr p_vaddr - (p_offset - pgoff). */
			*bias = m->start - (ph.p_vaddr - (ph.p_offset - m->pgoff));
			return 0;
		}
	}
	return -1;
}

/* The GNU build-id of the ELF file on fd into f (bidlen 0 when it has none). */
static void
file_bid(struct ufile *f, int fd)
{
	const void *bits;
	Elf *elf;
	ssize_t n;

	f->bidlen = 0;
	if ((elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL)
		return;
	if ((n = dwelf_elf_gnu_build_id(elf, &bits)) > 0 && (size_t)n <= BID_MAX) {
		memcpy(f->bid, bits, (size_t)n);
		f->bidlen = (size_t)n;
	}
	elf_end(elf);
}

/* Whether file f is the one map m names, as far as m says. */
static bool
same_file(const struct ufile *f, const struct map *m)
{
	if (m->ino != 0 && m->ino != f->ino)
		return false;
	return m->bidlen == 0 ||
	    (f->bidlen == m->bidlen && memcmp(f->bid, m->bid, m->bidlen) == 0);
}

/*
 * A descriptor of the file m maps (the caller closes it), or -1.  The
 * file is the one the mapping named: one whose inode or build-id differs
 * (replaced on disk since, or rewritten in place) is refused rather than
 * read as if it were the same code.  The first one opened is kept, so
 * later readers (another process, a Dwfl rebuilt) get the same file even
 * once it is replaced.  It is reached as every target's file is
 * (pf_mapfile_open): the mapping itself through map_files first, so a
 * file the target mapped from anywhere, at any moment, is read, and a
 * path (the target's to replace) only as a fallback, without blocking
 * (a FIFO put there blocked the recorder, as root, for good: found by
 * fuzz-unwind).
 */
static int
map_fd(struct pf_unwinder *u, pid_t pid, const struct map *m)
{
	struct ufile *f, nf = { 0 };
	struct stat st;
	size_t i;
	int fd;

	if (strcmp(m->path, "[vdso]") == 0)
		return u->vdso_fd == -1 ? -1 : fcntl(u->vdso_fd, F_DUPFD_CLOEXEC, 0);
	for (i = 0; i < u->nfiles; i++) {
		f = &u->files[i];
		if (strcmp(f->path, m->path) == 0 && same_file(f, m))
			return fcntl(f->fd, F_DUPFD_CLOEXEC, 0);
	}
	if ((fd = pf_mapfile_open(u->mf, "/proc", pid, m->start, m->end, m->path, m->ino)) == -1)
		return -1;
	if (fstat(fd, &st) == -1) {
		close(fd);
		return -1;
	}
	nf.ino = (uint64_t)st.st_ino;
	file_bid(&nf, fd);
	if (!same_file(&nf, m)) {
		close(fd);
		return -1;
	}
	if (u->nfiles == FILES_MAX)
		return fd;
	if (pf_grow(&u->files, &u->capfiles, u->nfiles + 1, sizeof(*u->files)) == -1)
		return fd;
	f = &u->files[u->nfiles];
	if ((f->path = strdup(m->path)) == NULL)
		return fd;
	f->ino = nf.ino;
	memcpy(f->bid, nf.bid, nf.bidlen);
	f->bidlen = nf.bidlen;
	f->maj = m->maj;
	f->min = m->min;
	f->fd = fd;
	u->nfiles++;
	return fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

/*
 * Offer map m to p's Dwfl: true when it made a module.  A file that
 * cannot be read (or is not the ELF file mapped) is skipped and m marked
 * unreadable: a walk that ends in it ends for that cause.
 */
static bool
report(struct pf_unwinder *u, struct proc *p, struct map *m)
{
	const char *base;
	uint64_t bias;
	Elf *elf;
	int fd, ok;

	if (dwfl_addrmodule(p->dwfl, m->start) != NULL)
		return false;	/* another segment of a file reported already */
	m->unreadable = true;
	if ((fd = map_fd(u, p->pid, m)) == -1)
		return false;
	if ((elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL) {
		close(fd);
		return false;
	}
	ok = load_bias(elf, m, &bias) == 0;
	elf_end(elf);
	if (!ok) {
		close(fd);
		return false;
	}
	base = strrchr(m->path, '/');
	base = base ? base + 1 : m->path;
	/* dwfl_report_elf takes the fd, also when it fails. */
	m->unreadable = dwfl_report_elf(p->dwfl, base, m->path, fd, bias, true) == NULL;
	return !m->unreadable;
}

/*
 * A word of the sampled stack.  Nothing else is read: a return address
 * or a saved register is on the stack, and a rule that reaches elsewhere
 * (a frame pointer used as a general register, a garbage CFA) would read
 * a file's bytes at an address that is no stack.  Reading a mapped
 * file's contents there, as this once did for the modules offered so
 * far, made the answer depend on which modules earlier samples had
 * offered (found by fuzz-unwind: a new unwinder answered otherwise).  A
 * read refused here is remembered with the frames found so far: libdw
 * takes a return address it could not read for the outermost frame, so
 * a walk that ends at the frame being unwound then is cut (truncated
 * above the copy, else not complete); libdw goes on past a saved
 * register it could not read, and then the refusal says nothing.
 */
static bool
memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *out, void *arg)
{
	struct pf_unwinder *u = arg;

	(void)dwfl;
	if (addr >= u->sp && addr - u->sp <= u->len && u->len - (addr - u->sp) >= 8) {
		memcpy(out, u->stack + (addr - u->sp), 8);
		return true;
	}
	if (addr >= u->sp + u->len && addr - u->sp < STACK_REACH)
		u->beyond_at = u->npcs;
	else
		u->unread = u->npcs;
	return false;
}

static pid_t
next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct pf_unwinder *u = arg;

	(void)dwfl;
	if (*thread_argp != NULL)
		return 0;
	*thread_argp = u;
	return u->tid;
}

static bool
get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct pf_unwinder *u = arg;

	(void)dwfl;
	if (tid != u->tid)
		return false;
	*thread_argp = u;
	return true;
}

/* The sampled registers, in the x86-64 DWARF numbering. */
static bool
set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct pf_unwinder *u = arg;
	const uint64_t *r = u->regs;
	Dwarf_Word d[17] = {
		r[R_AX], r[R_DX], r[R_CX], r[R_BX], r[R_SI], r[R_DI], r[R_BP], r[R_SP],
		r[R_R8], r[R_R8 + 1], r[R_R8 + 2], r[R_R8 + 3], r[R_R8 + 4], r[R_R8 + 5],
		r[R_R8 + 6], r[R_R8 + 7], r[R_IP],
	};

	return dwfl_thread_state_registers(thread, 0, 17, d);
}

static const Dwfl_Thread_Callbacks thread_cb = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static const struct rule *rule_at(struct pf_unwinder *u, struct proc *p, uint64_t pc);

/*
 * The registers of the frame libdw's walk stopped at, for walk() to go on
 * past a trampoline: as libdw unwound them (one it could not gives 0).
 */
static void
keep_regs(struct pf_unwinder *u, Dwfl_Frame *state, uint64_t pc)
{
	/* PF_UNWIND_REGS_MASK order, from the x86-64 DWARF numbers. */
	static const int dw[PF_UNWIND_NREGS] = {
		0, 3, 2, 1, 4, 5, 6, 7, -1, 8, 9, 10, 11, 12, 13, 14, 15,
	};
	Dwarf_Word v;
	size_t i;

	for (i = 0; i < PF_UNWIND_NREGS; i++)
		u->cont[i] = dw[i] >= 0 && dwfl_frame_reg(state, (unsigned)dw[i], &v) == 0 ? v : 0;
	u->cont[R_IP] = pc;
	u->cont_ok = dwfl_frame_reg(state, 7, &v) == 0;
}

static int
frame(Dwfl_Frame *state, void *arg)
{
	struct pf_unwinder *u = arg;
	const struct rule *r;
	Dwarf_Addr pc, at;

	/*
	 * Not asked whether the frame is an activation: to answer, libdw
	 * unwinds the frame, which is what the rule is looked at for first.
	 */
	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	/*
	 * Where libdw looks the frame's rule up: a caller's pc is a return
	 * address, the call is the byte before; the first frame's pc, and
	 * that of a frame a signal frame returns to, are where it stopped.
	 */
	at = u->npcs == 0 || u->sig ? pc : pc - 1;
	if (u->npcs == u->max) {
		u->beyond = true;	/* the frame limit: cut like the copy */
		return DWARF_CB_ABORT;
	}
	{
		Dwarf_Word sp;

		if (u->npcs < PF_UNWIND_SPS)
			u->sps[u->npcs] = dwfl_frame_reg(state, 7, &sp) == 0 ? sp : 0;
	}
	u->pcs[u->npcs++] = pc;
	/*
	 * Code in no module has no unwind tables: what libdw would guess
	 * beyond it is not a stack.
	 */
	if (dwfl_addrmodule(dwfl_thread_dwfl(dwfl_frame_thread(state)), at) == NULL) {
		u->miss = true;
		u->miss_pc = at;
		keep_regs(u, state, pc);
		return DWARF_CB_ABORT;
	}
	/*
	 * libdw works out this frame's caller once we return: not from a
	 * rule its evaluator would not finish.  The module is there, so
	 * rule_at offers none (never inside a walk).  A rule that cannot be
	 * looked up (no memory) is not risked either.
	 */
	if ((r = rule_at(u, u->proc, at)) == NULL || r->kind == RULE_REFUSED) {
		u->refused = true;
		return DWARF_CB_ABORT;
	}
	/* Nor is a pc in no mapping, whatever module spans it (see rule_at). */
	if (r->kind == RULE_NOMODULE) {
		u->miss = true;
		u->miss_pc = at;
		keep_regs(u, state, pc);
		return DWARF_CB_ABORT;
	}
	u->sig = r->sig;
	return DWARF_CB_OK;
}

/*
 * The newest mapping of p that holds addr, NULL when none does.  A look
 * over every mapping, so an address found in none is remembered (with the
 * count of mappings then): a pc outside every file, met in each sample,
 * costs one look until a mapping comes.
 */
static struct map *
map_at(struct proc *p, uint64_t addr)
{
	struct nomap *nm = &p->nomap[pf_hash_u64(addr) % NOMAP];
	size_t i;

	if (nm->addr == addr && nm->nmaps == p->nmaps && nm->nmaps != 0)
		return NULL;
	for (i = p->nmaps; i-- > 0;)
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	nm->addr = addr;
	nm->nmaps = p->nmaps;
	return NULL;
}

/*
 * Offer m to p's Dwfl, between dwfl_report_begin(_add) and _end.  Past
 * MODULES_MAX offers a process gets no more: each one makes libdwfl
 * rebuild its tables of every module, so a target with tens of thousands
 * of mappings would cost the square of them.  Those refused are counted.
 */
static bool
offer(struct pf_unwinder *u, struct proc *p, struct map *m)
{
	if (m->offered)
		return false;
	if (p->offered >= MODULES_MAX) {
		p->refused += !m->refused;
		m->refused = true;
		return false;
	}
	m->offered = true;
	p->offered++;
	return report(u, p, m);
}

/*
 * Modules are offered as the walks need them, never all at once: the
 * mapping that holds pc, when it was not offered yet.  True when pc now
 * has a module.  Never inside a libdw walk (it may hold the module table).
 */
static bool
offer_at(struct pf_unwinder *u, struct proc *p, uint64_t pc)
{
	struct map *m = map_at(p, pc);

	if (m == NULL || m->offered || p->offered >= MODULES_MAX) {
		if (m != NULL && !m->offered && !m->refused) {
			p->refused++;
			m->refused = true;
		}
		return false;
	}
	dwfl_report_begin_add(p->dwfl);
	offer(u, p, m);
	dwfl_report_end(p->dwfl, NULL, NULL);
	return dwfl_addrmodule(p->dwfl, pc) != NULL;
}

/*
 * A first module for p's Dwfl, between dwfl_report_begin(_add) and _end
 * (libdwfl takes the machine from it): the file of the sample's pc, else
 * any of the first 16 files not offered yet.  Whether one was made.
 */
static bool
offer_first(struct pf_unwinder *u, struct proc *p)
{
	struct map *m = map_at(p, u->regs[R_IP]);
	bool made = m != NULL && offer(u, p, m);
	size_t i, tries = 0;

	for (i = 0; !made && i < p->nmaps && tries < 16; i++)
		if (!p->maps[i].offered) {
			tries++;
			made = offer(u, p, &p->maps[i]);
		}
	return made;
}

/*
 * p's Dwfl, made with a first module, or brought up to new mappings
 * (which may change the rules cached, and may give the first module that
 * was missing); false when it cannot unwind.
 */
static bool
ready(struct pf_unwinder *u, struct proc *p)
{
	size_t i;

	if (p->dwfl == NULL) {
		if (u->nlive >= LIVE_MAX) {
			struct proc *old = NULL;

			for (i = 0; i < u->n; i++)
				if (u->procs[i].dwfl && (old == NULL || u->procs[i].used < old->used))
					old = &u->procs[i];
			if (old != NULL)
				drop_dwfl(u, old);
		}
		if ((p->dwfl = dwfl_begin(&u->cb)) == NULL)
			return false;
		u->nlive++;
		p->seen = p->nmaps;
		dwfl_report_begin(p->dwfl);
		(void)offer_first(u, p);
		dwfl_report_end(p->dwfl, NULL, NULL);
	} else if (p->seen < p->nmaps) {
		/* New mappings: a pc the cache knew may now have another rule. */
		free(p->rules);
		p->rules = NULL;
		p->seen = p->nmaps;
		if (!p->attached) {
			dwfl_report_begin_add(p->dwfl);
			(void)offer_first(u, p);
			dwfl_report_end(p->dwfl, NULL, NULL);
		}
	} else
		return p->attached;
	if (!p->attached)
		p->attached = dwfl_attach_state(p->dwfl, NULL, p->pid, &thread_cb, u);
	return p->attached;
}

/* The rule of a simple CFI frame into r; false when it is not simple. */
static bool
simple_rule(Dwarf_Frame *fr, struct rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	bool sig;
	Dwarf_Addr lo, hi;

	if (dwarf_frame_info(fr, &lo, &hi, &sig) < 0 || sig)
		return false;
	/* CFA: one DW_OP_bregx on rsp (7) or rbp (6). */
	if (dwarf_frame_cfa(fr, &ops, &nops) != 0 || nops != 1 || ops[0].atom != DW_OP_bregx ||
	    (ops[0].number != 7 && ops[0].number != 6) ||
	    (int64_t)ops[0].number2 != (int32_t)ops[0].number2)
		return false;
	r->cfa_bp = ops[0].number == 6;
	r->cfa_off = (int32_t)ops[0].number2;
	/* The return address (16): undefined, or saved at CFA + offset. */
	if (dwarf_frame_register(fr, 16, mem, &ops, &nops) != 0)
		return false;
	if (nops == 0 && ops == mem) {
		r->kind = RULE_OUTERMOST;
		return true;
	}
	if (nops == 0 || nops > 2 || ops[0].atom != DW_OP_call_frame_cfa ||
	    (nops == 2 && ops[1].atom != DW_OP_plus_uconst) ||
	    (nops == 2 && (int64_t)ops[1].number != (int32_t)ops[1].number))
		return false;
	r->ra_off = nops == 2 ? (int32_t)ops[1].number : 0;
	/* rbp (6): kept, or saved at CFA + offset. */
	if (dwarf_frame_register(fr, 6, mem, &ops, &nops) != 0)
		return false;
	if (nops == 0 && ops == NULL)
		r->bp_saved = 0;
	else if (nops >= 1 && nops <= 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    (nops == 1 || (ops[1].atom == DW_OP_plus_uconst &&
	    (int64_t)ops[1].number == (int32_t)ops[1].number))) {
		r->bp_saved = 1;
		r->bp_off = nops == 2 ? (int32_t)ops[1].number : 0;
	} else
		return false;
	r->kind = RULE_FRAME;
	return true;
}

/*
 * Whether libdw's evaluator might not finish the expression ops[nops]:
 * libdw 0.188 leaves it without freeing its stack (256 bytes) when it
 * stops at its step limit or meets an operation it does not carry out.
 * A target writes its own call-frame information, so the looping kind
 * (DW_OP_skip or DW_OP_bra jumping back, or to itself) and the long one
 * cost the recorder memory at each sample.  libdw keeps the 2-byte
 * offset of a jump in number, as read (sign-extended or not).
 */
static bool
refused_expr(const Dwarf_Op *ops, size_t nops)
{
	size_t i;

	if (nops > EXPR_OPS_MAX)
		return true;
	for (i = 0; i < nops; i++) {
		switch (ops[i].atom) {
		case DW_OP_skip:
		case DW_OP_bra:
			if ((int16_t)ops[i].number < 0)
				return true;
			break;
		case DW_OP_lit0 ... DW_OP_lit31:
		case DW_OP_reg0 ... DW_OP_reg31:
		case DW_OP_breg0 ... DW_OP_breg31:
		case DW_OP_addr:
		case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u: case DW_OP_const2s:
		case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u: case DW_OP_const8s:
		case DW_OP_constu: case DW_OP_consts:
		case DW_OP_regx: case DW_OP_bregx:
		case DW_OP_dup: case DW_OP_drop: case DW_OP_pick: case DW_OP_over:
		case DW_OP_swap: case DW_OP_rot:
		case DW_OP_deref: case DW_OP_deref_size:
		case DW_OP_abs: case DW_OP_neg: case DW_OP_not: case DW_OP_plus_uconst:
		case DW_OP_and: case DW_OP_div: case DW_OP_minus: case DW_OP_mod:
		case DW_OP_mul: case DW_OP_or: case DW_OP_plus: case DW_OP_shl:
		case DW_OP_shr: case DW_OP_shra: case DW_OP_xor:
		case DW_OP_le: case DW_OP_ge: case DW_OP_eq: case DW_OP_lt:
		case DW_OP_gt: case DW_OP_ne:
		case DW_OP_nop: case DW_OP_call_frame_cfa: case DW_OP_stack_value:
			break;
		default:
			return true;
		}
	}
	return false;
}

/*
 * Whether any rule of fr that libdw's unwinder evaluates is an expression
 * refused_expr refuses: the CFA's, and those of registers 0 to 16 (the
 * return address included), whichever walk would use them.  A rule libdw
 * cannot read is not evaluated.
 */
static bool
refused_frame(Dwarf_Frame *fr)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int reg;

	if (dwarf_frame_cfa(fr, &ops, &nops) == 0 && refused_expr(ops, nops))
		return true;
	for (reg = 0; reg < CFI_NREGS; reg++)
		if (dwarf_frame_register(fr, reg, mem, &ops, &nops) == 0 && refused_expr(ops, nops))
			return true;
	return false;
}

/*
 * The rule at pc, looked up in the cache or worked out (and cached).  The
 * expressions are checked only here, once per pc while it stays cached.
 */
static const struct rule *
rule_at(struct pf_unwinder *u, struct proc *p, uint64_t pc)
{
	struct rule *r;
	Dwfl_Module *mod;
	Dwarf_CFI *cfi;
	Dwarf_Frame *fr = NULL;
	Dwarf_Addr bias, lo, hi;
	bool sig;

	if (p->rules == NULL && (p->rules = calloc(RULES, sizeof(*p->rules))) == NULL)
		return NULL;
	r = &p->rules[pf_hash_u64(pc) % RULES];
	if (r->kind != RULE_EMPTY && r->pc == pc)
		return r;
	memset(r, 0, sizeof(*r));
	r->pc = pc;
	r->kind = RULE_COMPLEX;
	/*
	 * Not cached: the mapping's record may come later.  A pc in no
	 * mapping is unmapped even where a module spans it (a file's module
	 * spans all its segments, its mapping may be its text alone): else
	 * whether a walk went on there would depend on which mappings earlier
	 * walks happened to offer (found by fuzz-unwind's comparison with a
	 * new unwinder).
	 */
	if (map_at(p, pc) == NULL || ((mod = dwfl_addrmodule(p->dwfl, pc)) == NULL &&
	    (!offer_at(u, p, pc) || (mod = dwfl_addrmodule(p->dwfl, pc)) == NULL))) {
		static const struct rule none = { .kind = RULE_NOMODULE };

		r->kind = RULE_EMPTY;
		return &none;
	}
	/* As libdw's unwinder: .eh_frame first, then .debug_frame. */
	if ((cfi = dwfl_module_eh_cfi(mod, &bias)) == NULL ||
	    dwarf_cfi_addrframe(cfi, pc - bias, &fr) != 0) {
		fr = NULL;
		if ((cfi = dwfl_module_dwarf_cfi(mod, &bias)) == NULL ||
		    dwarf_cfi_addrframe(cfi, pc - bias, &fr) != 0)
			fr = NULL;
	}
	if (fr != NULL && dwarf_frame_info(fr, &lo, &hi, &sig) >= 0)
		r->sig = sig;
	if (fr != NULL && refused_frame(fr))
		r->kind = RULE_REFUSED;
	else if (fr == NULL || !simple_rule(fr, r))
		r->kind = RULE_COMPLEX;
	free(fr);
	return r;
}

/* A word of the sampled stack at addr: 1, 0 above the copy, -1 elsewhere. */
static int
stack_word(const struct pf_unwinder *u, uint64_t addr, uint64_t *out)
{
	if (addr >= u->sp && addr - u->sp <= u->len && u->len - (addr - u->sp) >= 8) {
		memcpy(out, u->stack + (addr - u->sp), 8);
		return 1;
	}
	return addr >= u->sp + u->len && addr - u->sp < STACK_REACH ? 0 : -1;
}

/*
 * The walk by cached simple rules, which ends the way libdw's would:
 * true with u->pcs, u->beyond and u->miss set and *complete for an
 * outermost frame (u->refused for a frame whose rule is refused: the
 * stack is broken there); false when a frame needs more than the simple
 * rules (the caller then walks the sample with libdw from the start).
 */
static bool
fast_walk(struct pf_unwinder *u, struct proc *p, bool caller, bool *complete)
{
	uint64_t pc = u->regs[R_IP], sp = u->regs[R_SP], bp = u->regs[R_BP], cfa, ra;
	const struct rule *r;
	bool first = !caller;
	int got;

	*complete = false;
	for (;;) {
		if (u->npcs == u->max) {
			u->beyond = true;
			return true;
		}
		if (u->npcs < PF_UNWIND_SPS)
			u->sps[u->npcs] = sp;
		u->pcs[u->npcs++] = pc;
		/* A caller's pc is a return address: the call is the byte before. */
		if ((r = rule_at(u, p, first ? pc : pc - 1)) == NULL || r->kind == RULE_COMPLEX)
			return false;
		if (r->kind == RULE_NOMODULE) {
			u->miss = true;
			u->miss_pc = first ? pc : pc - 1;
			/* The registers this walk restores: enough for a trampoline. */
			memcpy(u->cont, u->regs, sizeof(u->cont));
			u->cont[R_IP] = pc;
			u->cont[R_SP] = sp;
			u->cont[R_BP] = bp;
			u->cont_ok = true;
			return true;
		}
		if (r->kind == RULE_REFUSED) {
			u->refused = true;
			return true;
		}
		if (r->kind == RULE_OUTERMOST) {
			*complete = true;
			return true;
		}
		cfa = (r->cfa_bp ? bp : sp) + (uint64_t)(int64_t)r->cfa_off;
		if ((got = stack_word(u, cfa + (uint64_t)(int64_t)r->ra_off, &ra)) <= 0 ||
		    (r->bp_saved && (got = stack_word(u, cfa + (uint64_t)(int64_t)r->bp_off, &bp)) <= 0)) {
			if (got == 0) {
				u->beyond = true;
				return true;
			}
			return false;
		}
		/* A zero return address: let libdw say what it makes of it. */
		if (ra == 0)
			return false;
		sp = cfa;
		pc = ra;
		first = false;
	}
}

/*
 * How a walk ended (complete: at an outermost frame, as the walk saw
 * it).  A pc in a mapping whose file could not be read, or that was
 * refused past MODULES_MAX, ends it for that cause, not as unmapped: no
 * mapping record to come would change it.
 */
static enum pf_unwind_end
walk_end(struct pf_unwinder *u, struct proc *p, bool complete)
{
	const struct map *m;

	u->nrefused += u->refused;
	if (u->beyond || (u->beyond_at != 0 && u->beyond_at == u->npcs))
		return PF_UNWIND_TRUNCATED;
	if (u->refused)
		return PF_UNWIND_BUDGET;
	if (u->miss) {
		if ((m = map_at(p, u->miss_pc)) != NULL && m->refused)
			return PF_UNWIND_BUDGET;
		if (m != NULL && m->unreadable)
			return PF_UNWIND_UNREADABLE;
		return PF_UNWIND_UNMAPPED;
	}
	return complete ? PF_UNWIND_COMPLETE : PF_UNWIND_BROKEN;
}

/*
 * Whether pc, a return address of process pid in no file, is in one of
 * CPython's perf trampolines: its code, read through the file helper
 * (the target's memory, 11 bytes), is the trampoline's.  Remembered by
 * pc; no helper, no trampoline.
 */
static bool
trampoline_at(struct pf_unwinder *u, pid_t pid, uint64_t pc)
{
	struct tramp *t = &u->tramp[pf_hash_u64(pc ^ (uint64_t)pid) % TRAMP_CACHE];
	unsigned char code[sizeof(trampoline)];

	if (u->mf == NULL || pc < TRAMP_RA)
		return false;
	if (t->pc == pc && t->pid == pid)
		return t->yes;
	t->pid = pid;
	t->pc = pc;
	t->yes = pf_mapfiles_read(u->mf, pid, pc - TRAMP_RA, code, sizeof(code)) == 0 &&
	    memcmp(code, trampoline, sizeof(code)) == 0;
	return t->yes;
}

/*
 * After a walk stopped at a pc in no file: when that frame is a return
 * into a CPython trampoline, the registers its caller's frame starts
 * with, into regs (the trampoline's own frame is the last of u->pcs).
 */
static bool
past_trampoline(struct pf_unwinder *u, struct proc *p, uint64_t *regs)
{
	uint64_t ra;

	if (!u->cont_ok || u->npcs < 2 || u->npcs >= u->max ||
	    !trampoline_at(u, p->pid, u->pcs[u->npcs - 1]) ||
	    stack_word(u, u->cont[R_SP] + 8, &ra) != 1)
		return false;
	memcpy(regs, u->cont, sizeof(u->cont));
	regs[R_SP] = u->cont[R_SP] + 16;
	regs[R_IP] = ra;
	return true;
}

/*
 * One walk from u->regs, its frames after the first base of u->pcs (a
 * walk after a trampoline: its first pc is a return address).
 */
static void
walk_from(struct pf_unwinder *u, struct proc *p, pid_t tid, size_t base,
    enum pf_unwind_end *end)
{
	bool complete;
	int rc, tries;

	u->beyond = false;
	u->beyond_at = 0;
	u->miss = false;
	u->refused = false;
	u->cont_ok = false;
	u->npcs = base;
	if (fast_walk(u, p, base > 0, &complete)) {
		*end = walk_end(u, p, complete);
		return;
	}
	/*
	 * libdw's walk, again each time it stopped at a pc whose mapping was
	 * not offered yet (offered between walks, never inside one).
	 */
	for (tries = 0;; tries++) {
		u->beyond = false;
		u->miss = false;
		u->refused = false;
		u->sig = false;
		u->beyond_at = 0;
		u->unread = 0;
		u->cont_ok = false;
		u->npcs = base;
		rc = dwfl_getthread_frames(p->dwfl, tid, frame, u);
		if (!u->miss || tries == OFFER_RETRIES || !offer_at(u, p, u->miss_pc))
			break;
	}
	/*
	 * The last frame's caller could not be read: the stack is cut there,
	 * not ended (an outermost frame's return address is undefined by its
	 * rule, or zero on the stack, and read as such).
	 */
	*end = walk_end(u, p, rc == 0 && (u->unread == 0 || u->unread != u->npcs));
}

/*
 * A sample's walk: on past each CPython perf trampoline it stops at
 * (TRAMP_HOPS at most), from the trampoline's caller, as a walk of its
 * own whose frames follow.
 */
static size_t
walk(struct pf_unwinder *u, struct proc *p, pid_t tid, enum pf_unwind_end *end)
{
	const uint64_t *regs = u->regs;
	uint64_t next[PF_UNWIND_NREGS];
	int hops;

	*end = PF_UNWIND_BROKEN;
	u->npcs = 0;
	if (p->nmaps == 0 || !ready(u, p))
		return 0;
	for (hops = 0;; hops++) {
		walk_from(u, p, tid, u->npcs, end);
		if (*end != PF_UNWIND_UNMAPPED || hops == TRAMP_HOPS || !past_trampoline(u, p, next))
			break;
		u->regs = next;
	}
	u->regs = regs;
	return u->npcs;
}

size_t
pf_unwind_sample(struct pf_unwinder *u, pid_t pid, pid_t tid, const uint64_t *regs,
    const char *stack, size_t len, uint64_t *pcs, size_t max, enum pf_unwind_end *end)
{
	struct proc *p = find(u, pid);
	size_t k;

	*end = PF_UNWIND_UNMAPPED;
	if (p == NULL || p->nmaps == 0)
		return 0;
	p->used = ++u->tick;
	u->proc = p;
	u->tid = tid;
	u->regs = regs;
	u->stack = stack;
	u->sp = regs[R_SP];
	u->len = len;
	u->pcs = pcs;
	u->max = max;
	k = walk(u, p, tid, end);
	u->stack = NULL;
	u->proc = NULL;
	return k;
}

const uint64_t *
pf_unwind_sps(const struct pf_unwinder *u, size_t *n)
{
	*n = u->npcs < PF_UNWIND_SPS ? u->npcs : PF_UNWIND_SPS;
	return u->sps;
}

void
pf_unwind_foreach_file(const struct pf_unwinder *u,
    void (*fn)(const char *path, uint32_t maj, uint32_t min, uint64_t ino, int fd, void *arg),
    void *arg)
{
	size_t i;

	for (i = 0; i < u->nfiles; i++)
		fn(u->files[i].path, u->files[i].maj, u->files[i].min, u->files[i].ino,
		    u->files[i].fd, arg);
}

uint64_t
pf_unwind_refused(const struct pf_unwinder *u)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < u->n; i++)
		n += u->procs[i].refused;
	return n;
}

uint64_t
pf_unwind_cfi_refused(const struct pf_unwinder *u)
{
	return u->nrefused;
}
