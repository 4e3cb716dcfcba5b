/*
 * fuzz-unwind: the -g dwarf unwinder (lib/common/unwind.c) on what a
 * target controls: the registers and stack bytes each sample brings, the
 * call-frame information of the files it maps, and the mappings it
 * makes, forks and execs.
 *
 * The input is a file and a script.  The file is a small ELF64 written
 * here (header, a PT_LOAD over it, .text, .eh_frame_hdr, .eh_frame,
 * .debug_frame, .gnu_debuglink) whose text and sections come from the
 * input: raw bytes, or (flag 16) an orderly .eh_frame (one CIE, FDEs in
 * order over .text, none overlapping) and a right .eh_frame_hdr, each
 * entry's instructions from the input.  It is rewritten in place for
 * each input, in a directory made once, and read by unwinders made for
 * that input alone.  The script maps a region (this executable, libc,
 * the fuzzed file, the vDSO) into one of six processes, in one of two
 * slots of its own far apart, with the identity, path, page offset,
 * length and time varied; forks; execs; maps our own executable
 * mappings into process 0 (this one), as pf_unwind_load_proc would from
 * /proc/self/maps (read once at start: read each time, its 1 MiB buffer,
 * mapped and unmapped by the address sanitizer, cost most of a run; the
 * reading is fuzz-procmaps's); and takes samples.  A sample is written
 * from the input (registers and stack words, each optionally relocated
 * to a region's text or the stack, the instruction pointer steered into
 * a region's text), or is a stack of our own, captured once at start
 * through three frames (for process 0 as it is, for the others moved to
 * the slots), cut and patched byte by byte.  The stack copy is a buffer
 * of exactly its length, and the frames an array of exactly the room
 * given: a read or a write past either is the address sanitizer's.
 *
 * Besides the sanitizers' findings and libFuzzer's limits, it aborts,
 * saying which, when an answer breaks unwind.h:
 *
 *   - more frames than max or PF_UNWIND_MAX_FRAMES, an end that is no
 *     enum value, a complete walk without a frame, a first frame that
 *     is not the sampled instruction pointer;
 *   - a frame outside every file the process maps (this process's
 *     objects, the windows of the slots mapped) that is not the last
 *     frame of a walk that ended at a mapping (unmapped, unreadable or
 *     past the budget);
 *   - pf_unwind_refused or pf_unwind_cfi_refused going down, the latter
 *     going up by more than one a sample, or for a walk that did not
 *     end at a frame by the budget (PF_UNWIND_BUDGET);
 *   - a file handed on by pf_unwind_foreach_file that is no regular
 *     file open, or not the one it names;
 *   - the same sample unwound twice in a row answering otherwise; with
 *     a smaller max, anything but the first max frames, truncated (so
 *     the fast walk, which stops at the limit, and libdw's walk, which
 *     a later frame may have needed, agree on the frames before);
 *   - after the script, every sample unwound again by the unwinder that
 *     saw it all and by a new one given the same mappings (the samples
 *     in reverse order) answering otherwise: the rule cache, the
 *     mappings offered and the addresses remembered as unmapped must
 *     not change an answer.  A process whose mappings overlapped (two
 *     different ones in one slot at once: which module holds a pc then
 *     depends on which was offered first) is left out.
 *
 * The directory also holds FIFOs where a target could put them: at
 * "fifo" (a path a mapping names, as if its file were replaced since),
 * and at t.so.debug beside the fuzzed t.so (where libdwfl's standard
 * search for separate debuginfo looks).  Opening either blocks for
 * good, a finding (a timeout): the unwinder runs during the window, as
 * root.  The fuzzed .gnu_debuglink has any '/' replaced, so that it
 * names nothing outside the directory.
 *
 * Known, and stepped around:
 *
 *   - libdw (0.188) grows a frame's register table to any register
 *     number a CFI program names, so a few bytes of .eh_frame make one
 *     look-up allocate and clear gigabytes (as fuzz-fpcheck found).  No
 *     realloc above 4 MiB succeeds here (libdw then fails that look-up
 *     with DWARF_E_NOMEM, which the unwinder takes like any failure).
 *   - libdw's look-up of an FDE is stateful (stateful() says how), so
 *     with raw CFI in the fuzzed file the answers about a process
 *     mapping it depend on the order pcs were looked up in, and libdw's
 *     walk may evaluate an expression unwind.c's refusal never saw: one
 *     it gives up leaks its stack (libdw's realloc(NULL, 256), doubled
 *     as it grows).  For such a process only the answers' own checks
 *     are made, not the comparisons; with raw CFI the stacks libdw
 *     leaves are freed after the input (realloc and free here track
 *     them), so that LeakSanitizer sees none and memory does not grow.
 *     With orderly CFI all of it holds, and such a leak is a finding.
 *
 * libelf and libdw are not instrumented: libFuzzer sees their paths only
 * through unwind.c's and this file's, so the number of frames and the
 * end of each walk are made coverage here.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <sanitizer/lsan_interface.h>

#include "procmaps.h"
#include "unwind.h"
#include "../tests/unit/capregs.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
	MAXIN = 1 << 16,
	MAXREALLOC = 4 << 20,
	NPID = 6,		/* process 0 is this one, the others are made up */
	NSLOT = 2,		/* slots a region can be mapped in, per process */
	MAXOPS = 64,
	MAXSAMPLES = 12,
	MAXSTACK = 16384,	/* what pf-record copies */
	NSPAN = 64,
	BIDMAX = 20,
};

/* The regions a mapping can name. */
enum { R_SELF, R_LIBC, R_FUZZ, R_VDSO, NREGION };

/* Above PID_MAX_LIMIT (4194304): no such process under /proc. */
#define FAKE_PID	0x7fff0100
/* The made-up address space: slot k's window is [SLOTS + k * 2^36, + 2^36). */
#define SLOTS		0x100000000000ull
#define SLOT_BITS	36
/* Where the made-up stacks are. */
#define SP_BASE		0x7ffc00000000ull
#define SLACK		0x200000ull

/* The fuzzed file's layout: fixed, so that seeds can point into it. */
#define TEXT_OFF	0x100
#define TEXT_LEN	0x300
#define HDR_OFF		0x400
#define HDR_MAX		0x400
#define EH_OFF		0x800
#define EH_MAX		0x1000
#define DF_MAX		0x1000
#define LINK_MAX	64
#define FILE_MAX	(EH_OFF + EH_MAX + DF_MAX + LINK_MAX + 0x400)

/* PF_UNWIND_REGS_MASK order. */
enum { G_BP = 6, G_SP = 7, G_IP = 8 };

/*
 * ASan's realloc and free, which strong ones here take the place of
 * (its own are weak aliases): libdw's register table grows through
 * realloc, and its expression evaluator's stack is made with it.
 */
void *__interceptor_realloc(void *p, size_t n);
void __interceptor_free(void *p);
void *realloc(void *p, size_t n);
void free(void *p);

/*
 * libdw's text; whether its evaluator's stacks may leak (raw CFI), and
 * those it has made since, not freed yet.
 */
static uintptr_t libdw_lo, libdw_hi;
static bool raw_cfi;
static void *evals[1024];
static size_t nevals;

static bool
forget_eval(void *p)
{
	size_t i;

	for (i = nevals; p != NULL && i-- > 0;)
		if (evals[i] == p) {
			evals[i] = evals[--nevals];
			return true;
		}
	return false;
}

static void
keep_eval(void *p)
{
	if (p == NULL)
		return;
	if (nevals < sizeof(evals) / sizeof(evals[0]))
		evals[nevals++] = p;
	else
		__lsan_ignore_object(p);
}

void *
realloc(void *p, size_t n)
{
	bool eval;
	void *q;

	/* libdw's register table, grown to any register number (see above). */
	if (n > MAXREALLOC) {
		errno = ENOMEM;
		return NULL;
	}
	/*
	 * The evaluator's stack: 32 words from libdw's realloc(NULL, 256),
	 * doubled as it grows.  With raw CFI, libdw's walk may evaluate an
	 * expression unwind.c never saw (see stateful()), and one it gives
	 * up on leaks that stack (a known libdw 0.188 leak): not a finding
	 * there, so those left are freed after the input, and the
	 * sanitizer sees none.  With orderly CFI a leak is one.
	 */
	eval = forget_eval(p) || (p == NULL && n == 256 && raw_cfi &&
	    (uintptr_t)__builtin_return_address(0) - libdw_lo < libdw_hi - libdw_lo);
	q = __interceptor_realloc(p, n);
	if (eval)
		keep_eval(q != NULL ? q : p);	/* failed, p is still the stack */
	return q;
}

void
free(void *p)
{
	(void)forget_eval(p);
	__interceptor_free(p);
}

/* A check failed: say which, for whoever reads the finding's log. */
static void
broken(const char *what)
{
	fprintf(stderr, "fuzz-unwind: %s\n", what);
	abort();
}

/* ---- what this process has, found once -------------------------------- */

struct region {
	char path[PATH_MAX];
	uint64_t start, len, pgoff;	/* its executable mapping here (R_FUZZ: the file's) */
	uint64_t ino;
	uint32_t maj, min;
	unsigned char bid[BIDMAX];
	size_t bidlen;
};

struct span {
	uint64_t lo, hi;
};

/* A mapping as pf_unwind_map takes it, and as add_map compares two. */
struct mapping {
	uint64_t start, len, pgoff, ino, time;
	uint32_t maj, min;
	unsigned char bid[BIDMAX + 1];
	size_t bidlen;
	const char *path;
};

static struct region reg[NREGION];
/* Our own executable mappings, as pf_unwind_load_proc takes them from /proc/self/maps. */
static struct mapping real[NSPAN];
static size_t nreal;
/* Every object loaded here, as libdwfl spans its module: for process 0. */
static struct span spans[NSPAN];
static size_t nspans;
static char dir[PATH_MAX], tpath[PATH_MAX + 16], fifo[PATH_MAX + 16], dbgfifo[PATH_MAX + 16];
static int tfd = -1;
static uint64_t stack_end;

/* The captured stack: as taken (process 0) and moved into the slots (the others). */
static struct {
	uint64_t regs[PF_UNWIND_NREGS];
	char stack[MAXSTACK];
	size_t len;
} cap, capm;

static int
maps_cb(const struct pf_maps_entry *e, void *arg)
{
	struct region *r = NULL;

	(void)arg;
	if (strcmp(e->path, "[stack]") == 0)
		stack_end = e->end;
	if (!e->exec)
		return 0;
	if (!e->deleted && (e->path[0] == '/' || strcmp(e->path, "[vdso]") == 0) &&
	    nreal < NSPAN) {
		if ((real[nreal].path = strdup(e->path)) == NULL)
			abort();
		real[nreal].start = e->start;
		real[nreal].len = e->end - e->start;
		real[nreal].pgoff = e->pgoff;
		real[nreal].maj = e->maj;
		real[nreal].min = e->min;
		real[nreal].ino = e->ino;
		nreal++;
	}
	if (strcmp(e->path, reg[R_SELF].path) == 0)
		r = &reg[R_SELF];
	else if (strcmp(e->path, "[vdso]") == 0)
		r = &reg[R_VDSO];
	else if (strstr(e->path, "/libc.so") != NULL && strlen(e->path) < sizeof(reg[R_LIBC].path))
		r = &reg[R_LIBC];
	if (r == NULL || r->len != 0)
		return 0;
	if (r != &reg[R_SELF])
		strcpy(r->path, e->path);
	r->start = e->start;
	r->len = e->end - e->start;
	r->pgoff = e->pgoff;
	r->ino = e->ino;
	r->maj = e->maj;
	r->min = e->min;
	return 0;
}

static int
phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	int i;

	(void)size;
	(void)arg;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_vaddr < lo)
			lo = ph->p_vaddr;
		if (ph->p_vaddr + ph->p_memsz > hi)
			hi = ph->p_vaddr + ph->p_memsz;
	}
	if (hi != 0 && nspans < NSPAN) {
		spans[nspans].lo = info->dlpi_addr + lo;
		spans[nspans].hi = info->dlpi_addr + hi;
		nspans++;
	}
	if (hi != 0 && info->dlpi_name != NULL && strstr(info->dlpi_name, "/libdw") != NULL) {
		libdw_lo = info->dlpi_addr + lo;
		libdw_hi = info->dlpi_addr + hi;
	}
	return 0;
}

static void
file_bid(struct region *r)
{
	const void *bits;
	Elf *elf;
	ssize_t n;
	int fd;

	if ((fd = open(r->path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	elf_version(EV_CURRENT);
	if ((elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) != NULL) {
		if ((n = dwelf_elf_gnu_build_id(elf, &bits)) > 0 && (size_t)n <= BIDMAX) {
			memcpy(r->bid, bits, (size_t)n);
			r->bidlen = (size_t)n;
		}
		elf_end(elf);
	}
	close(fd);
}

/* ---- a stack of our own ------------------------------------------------ */

/*
 * cap_outer -> cap_middle -> cap_leaf: the leaf takes its registers and
 * the stack above them as a sample carries them.  The copy reads the
 * live stack, other frames' redzones included: the address sanitizer
 * must not look at it.
 */
__attribute__((noinline, disable_tail_calls, no_sanitize_address)) static int
cap_leaf(int x)
{
	uint64_t *r = cap.regs;
	const volatile char *sp;
	size_t i, n;

	PF_CAPTURE_REGS(r);
	sp = (const volatile char *)(uintptr_t)r[G_SP];
	n = stack_end > (uintptr_t)sp ? stack_end - (uintptr_t)sp : 0;
	if (n > sizeof(cap.stack))
		n = sizeof(cap.stack);
	for (i = 0; i < n; i++)
		cap.stack[i] = sp[i];
	cap.len = n;
	return x + 1;
}

__attribute__((noinline, disable_tail_calls)) static int
cap_middle(int x)
{
	return cap_leaf(x) * 3;
}

__attribute__((noinline, disable_tail_calls)) static int
cap_outer(int x)
{
	return cap_middle(x) + 5;
}

/* ---- the address spaces ------------------------------------------------- */

static uint64_t
slot_start(int region, int slot)
{
	return SLOTS + ((uint64_t)(region * NSLOT + slot) << SLOT_BITS) + (1ull << (SLOT_BITS - 1));
}

/* The length of a region's text, where an instruction pointer is steered. */
static uint64_t
text_len(int region)
{
	return region == R_FUZZ ? TEXT_LEN : reg[region].len;
}

/*
 * Where region's text starts for a process: this one's own for process
 * 0 (the fuzzed file is in no real mapping: its slots), else its slot.
 */
static uint64_t
text_at(int pidx, int region, int slot)
{
	if (region == R_FUZZ)
		return slot_start(region, slot) + TEXT_OFF;
	if (pidx == 0 && slot == 0)
		return reg[region].start;
	return slot_start(region, slot);
}

/* The address a relocation kind adds (0: none), for process pidx. */
static uint64_t
base(int pidx, unsigned kind, uint64_t sp)
{
	switch (kind % 8) {
	case 1:
		return text_at(pidx, R_SELF, 0);
	case 2:
		return text_at(pidx, R_LIBC, 0);
	case 3:
		return text_at(pidx, R_FUZZ, 0);
	case 4:
		return text_at(pidx, R_VDSO, 0);
	case 5:
		return sp;
	case 6:
		return text_at(pidx, R_FUZZ, 1);
	case 7:
		return text_at(pidx, R_SELF, 1);
	default:
		return 0;
	}
}

static int
kind_region(unsigned kind)
{
	static const int r[8] = { -1, R_SELF, R_LIBC, R_FUZZ, R_VDSO, -1, R_FUZZ, R_SELF };

	return r[kind % 8];
}

/* ---- the model: what each process has mapped ----------------------- */

/*
 * A process's mappings in the slots, kept as add_map keeps them: a
 * mapping equal to one it has is dropped (the first stays, with its
 * time), an exec drops those older than it, a fork copies them all.
 */
struct pmodel {
	struct mapping m[MAXOPS];
	size_t n;
	bool real;		/* our own mappings (time 0) */
	bool overlap;		/* two different mappings in one slot at once */
};

static bool
same_mapping(const struct mapping *a, const struct mapping *b)
{
	size_t ab = a->bidlen <= BIDMAX ? a->bidlen : 0, bb = b->bidlen <= BIDMAX ? b->bidlen : 0;

	return a->start == b->start && a->len == b->len && a->ino == b->ino && ab == bb &&
	    memcmp(a->bid, b->bid, ab) == 0 && strcmp(a->path, b->path) == 0;
}

/* Files and the vDSO are kept; anonymous code and names that are no path are not. */
static bool
unwindable(const char *path)
{
	return pf_maps_file_path(path) || strcmp(path, "[vdso]") == 0;
}

static void
model_map(struct pmodel *pm, const struct mapping *m)
{
	size_t i;

	if (!unwindable(m->path))
		return;
	for (i = 0; i < pm->n; i++) {
		if (same_mapping(&pm->m[i], m))
			return;
		if (pm->m[i].start == m->start)
			pm->overlap = true;
	}
	/* Never more than the distinct mappings the script made. */
	if (pm->n == MAXOPS)
		broken("the model's mappings overflowed");
	pm->m[pm->n++] = *m;
}

/* Whether pc (a return address: one past its call) is in something pidx has mapped. */
static bool
plausible(const struct pmodel *pm, uint64_t pc)
{
	uint64_t win;
	size_t i;

	/* libdwfl aligns a module's first segment down: up to 2 MiB of slack. */
	if (pm->real)
		for (i = 0; i < nspans; i++)
			if (pc + SLACK >= spans[i].lo && pc <= spans[i].hi + SLACK)
				return true;
	/* A slot's mapping is in the middle of its window, its module in the window. */
	for (i = 0; i < pm->n; i++) {
		win = pm->m[i].start - (1ull << (SLOT_BITS - 1));
		if (pc - win <= (1ull << SLOT_BITS))
			return true;
	}
	return false;
}

/* ---- the input ------------------------------------------------------- */

struct in {
	const uint8_t *p;
	size_t left;
};

/* n bytes of the input, zeros once it ends. */
static void
take(struct in *in, void *out, size_t n)
{
	size_t k = n < in->left ? n : in->left;

	memcpy(out, in->p, k);
	memset((char *)out + k, 0, n - k);
	in->p += k;
	in->left -= k;
}

static uint8_t
u8(struct in *in)
{
	uint8_t v;

	take(in, &v, 1);
	return v;
}

static uint16_t
u16(struct in *in)
{
	uint8_t b[2];

	take(in, b, 2);
	return (uint16_t)(b[0] | b[1] << 8);
}

static uint32_t
u32(struct in *in)
{
	uint8_t b[4];

	take(in, b, 4);
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t
u64(struct in *in)
{
	uint64_t lo = u32(in);

	return lo | (uint64_t)u32(in) << 32;
}

/* ---- the fuzzed file --------------------------------------------------- */

static uint8_t image[FILE_MAX];

struct sect {
	const char *name;
	uint32_t type;
	uint64_t flags, off, size;
};

/*
 * An orderly .eh_frame at EH_OFF: one CIE ("zR": pc-relative 4-byte
 * addresses; code alignment 1, data alignment -8, return address 16)
 * with the input's initial instructions, then up to 16 FDEs over .text
 * in order, none overlapping another, each with the input's
 * instructions, then the terminator; with hdr, a right .eh_frame_hdr at
 * HDR_OFF, its length in *hlen.  The .eh_frame's length.
 */
static size_t
orderly(struct in *in, bool hdr, size_t *hlen)
{
	uint8_t *e = image + EH_OFF, *h = image + HDR_OFF;
	uint32_t table[16][2], v;
	size_t at, len, n, nfde = 0, k, lo, hi = 0;
	int32_t rel;

	/* The CIE: length, id 0, version 1, "zR", 1, -8, 16, one byte of augmentation. */
	memcpy(e + 4, "\0\0\0\0\1zR\0\1\x78\x10\1\x1b", 13);
	at = 17;
	n = u8(in) % 64;
	take(in, e + at, n);
	at += n;
	while (at % 8 != 0)
		e[at++] = 0;	/* DW_CFA_nop */
	v = (uint32_t)(at - 4);
	memcpy(e, &v, 4);
	for (k = u8(in) % 17; k > 0; k--) {
		lo = hi + u8(in);
		len = u8(in) % 64 + 1;
		if (lo + len > TEXT_LEN)
			break;
		hi = lo + len;
		table[nfde][0] = (uint32_t)(TEXT_OFF + lo - HDR_OFF);
		table[nfde][1] = (uint32_t)(EH_OFF + at - HDR_OFF);
		nfde++;
		n = at;
		v = (uint32_t)(at + 4);		/* back to the CIE, at 0 */
		memcpy(e + at + 4, &v, 4);
		rel = (int32_t)(TEXT_OFF + lo) - (int32_t)(EH_OFF + at + 8);
		memcpy(e + at + 8, &rel, 4);
		v = (uint32_t)len;
		memcpy(e + at + 12, &v, 4);
		e[at + 16] = 0;			/* no augmentation data */
		at += 17;
		len = u8(in) % 64;
		take(in, e + at, len);
		at += len;
		while (at % 8 != 0)
			e[at++] = 0;
		v = (uint32_t)(at - n - 4);
		memcpy(e + n, &v, 4);
	}
	memset(e + at, 0, 4);
	at += 4;
	*hlen = 0;
	if (hdr) {
		/* Version 1, pc-relative eh_frame_ptr, a 4-byte count, a data-relative table. */
		memcpy(h, "\1\x1b\x03\x3b", 4);
		rel = (int32_t)EH_OFF - (int32_t)(HDR_OFF + 4);
		memcpy(h + 4, &rel, 4);
		v = (uint32_t)nfde;
		memcpy(h + 8, &v, 4);
		memcpy(h + 12, table, nfde * sizeof(table[0]));
		*hlen = 12 + nfde * sizeof(table[0]);
	}
	return at;
}

/*
 * Write the file from the input's sections: .text's bytes (the rest
 * int3), .eh_frame_hdr (flag 2), .eh_frame (none when empty),
 * .debug_frame (flag 4), .gnu_debuglink (flag 8); with flag 16 an
 * orderly .eh_frame (and .eh_frame_hdr) instead, and no .debug_frame.
 */
static void
write_file(struct in *in, uint8_t flags)
{
	static const char names[] = "\0.text\0.eh_frame_hdr\0.eh_frame\0.debug_frame\0"
	    ".gnu_debuglink\0.shstrtab";
	struct sect s[8];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)(void *)image;
	Elf64_Phdr *ph = (Elf64_Phdr *)(void *)(image + sizeof(*eh));
	Elf64_Shdr sh;
	size_t ns = 0, tlen, hlen = 0, elen, dlen = 0, llen = 0, end, off, i, nph = 1;

	memset(image, 0, sizeof(image));
	tlen = u16(in) % (TEXT_LEN + 1);
	take(in, image + TEXT_OFF, tlen);
	memset(image + TEXT_OFF + tlen, 0xcc, TEXT_LEN - tlen);
	s[ns++] = (struct sect){ ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, TEXT_OFF, TEXT_LEN };
	if (flags & 16) {
		elen = orderly(in, flags & 2, &hlen);
	} else {
		if (flags & 2) {
			hlen = u16(in) % (HDR_MAX + 1);
			take(in, image + HDR_OFF, hlen);
		}
		elen = u16(in) % (EH_MAX + 1);
		take(in, image + EH_OFF, elen);
	}
	if (flags & 2)
		s[ns++] = (struct sect){ ".eh_frame_hdr", SHT_PROGBITS, SHF_ALLOC, HDR_OFF, hlen };
	if (elen > 0)
		s[ns++] = (struct sect){ ".eh_frame", SHT_PROGBITS, SHF_ALLOC, EH_OFF, elen };
	end = off = EH_OFF + elen;
	if ((flags & 4) && !(flags & 16)) {
		off = (off + 7) & ~(size_t)7;
		dlen = u16(in) % (DF_MAX + 1);
		take(in, image + off, dlen);
		s[ns++] = (struct sect){ ".debug_frame", SHT_PROGBITS, 0, off, dlen };
		off += dlen;
	}
	if (flags & 8) {
		/* A name (no '/': nothing outside the directory), its NUL, padding, a CRC. */
		off = (off + 3) & ~(size_t)3;
		llen = u8(in) % (LINK_MAX - 8);
		take(in, image + off, llen);
		for (i = 0; i < llen; i++)
			if (image[off + i] == '/')
				image[off + i] = '_';
		llen = ((llen + 1 + 3) & ~(size_t)3) + 4;
		take(in, image + off + llen - 4, 4);
		s[ns++] = (struct sect){ ".gnu_debuglink", SHT_PROGBITS, 0, off, llen };
		off += llen;
	}
	s[ns++] = (struct sect){ ".shstrtab", SHT_STRTAB, 0, off, sizeof(names) };
	memcpy(image + off, names, sizeof(names));
	off = (off + sizeof(names) + 7) & ~(size_t)7;

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_entry = TEXT_OFF;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = off;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_shentsize = sizeof(sh);
	eh->e_shnum = (uint16_t)(ns + 1);
	eh->e_shstrndx = (uint16_t)ns;
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0,
	    .p_vaddr = 0, .p_paddr = 0, .p_filesz = end, .p_memsz = end, .p_align = 0x1000 };
	if (hlen > 0)
		ph[nph++] = (Elf64_Phdr){ .p_type = PT_GNU_EH_FRAME, .p_flags = PF_R,
		    .p_offset = HDR_OFF, .p_vaddr = HDR_OFF, .p_paddr = HDR_OFF, .p_filesz = hlen,
		    .p_memsz = hlen, .p_align = 4 };
	eh->e_phnum = (uint16_t)nph;
	memset(image + off, 0, sizeof(sh));
	for (i = 0; i < ns; i++) {
		sh = (Elf64_Shdr){
			.sh_name = (uint32_t)((const char *)memmem(names, sizeof(names),
			    s[i].name, strlen(s[i].name) + 1) - names),
			.sh_type = s[i].type, .sh_flags = s[i].flags,
			.sh_addr = (s[i].flags & SHF_ALLOC) ? s[i].off : 0,
			.sh_offset = s[i].off, .sh_size = s[i].size, .sh_addralign = 1,
		};
		memcpy(image + off + (i + 1) * sizeof(sh), &sh, sizeof(sh));
	}
	off += (ns + 1) * sizeof(sh);
	if (pwrite(tfd, image, off, 0) != (ssize_t)off || ftruncate(tfd, (off_t)off) == -1)
		abort();
	reg[R_FUZZ].len = (end + 0xfff) & ~0xfffull;
}

/* ---- operations, kept to be replayed ----------------------------------- */

enum { OP_MAP, OP_FORK, OP_EXEC, OP_REAL };

struct op {
	int kind;
	pid_t pid, child;
	struct mapping m;
};

struct sample {
	int pidx;
	pid_t tid;
	uint64_t regs[PF_UNWIND_NREGS];
	char *stack;		/* exactly len bytes */
	size_t len;
	uint8_t max;		/* the smaller max tried */
};

struct run {
	struct pf_unwinder *u;
	bool raw;		/* the fuzzed file's CFI is the input's bytes (no flag 16) */
	struct pmodel pm[NPID];
	struct op ops[MAXOPS];
	size_t nops;
	struct sample s[MAXSAMPLES];
	size_t ns;
	uint64_t refused, cfi_refused;
};

static pid_t
pid_of(int pidx)
{
	return pidx == 0 ? getpid() : (pid_t)(FAKE_PID + pidx);
}

static int
pidx_of(pid_t pid)
{
	return pid == getpid() ? 0 : (int)(pid - FAKE_PID);
}

static void
apply(struct pf_unwinder *u, const struct op *o)
{
	size_t i;

	switch (o->kind) {
	case OP_MAP:
		if (pf_unwind_map(u, o->pid, o->m.start, o->m.len, o->m.pgoff, o->m.path,
		    o->m.maj, o->m.min, o->m.ino, o->m.bidlen ? o->m.bid : NULL, o->m.bidlen,
		    o->m.time) == -1)
			abort();
		break;
	case OP_FORK:
		if (pf_unwind_fork(u, o->pid, o->child) == -1)
			abort();
		break;
	case OP_EXEC:
		pf_unwind_exec(u, o->pid, o->m.time);
		break;
	case OP_REAL:
		for (i = 0; i < nreal; i++)
			if (pf_unwind_map(u, o->pid, real[i].start, real[i].len, real[i].pgoff,
			    real[i].path, real[i].maj, real[i].min, real[i].ino, NULL, 0, 0) == -1)
				abort();
		break;
	}
}

/* The refused counters only grow. */
static void
counters(struct run *r, bool sampled, enum pf_unwind_end end, size_t n)
{
	uint64_t a = pf_unwind_refused(r->u), c = pf_unwind_cfi_refused(r->u);

	if (a < r->refused || c < r->cfi_refused)
		broken("a refused count went down");
	if (c != r->cfi_refused && (!sampled || c - r->cfi_refused > 1 ||
	    end != PF_UNWIND_BUDGET || n == 0))
		broken("cfi_refused grew, but not by one walk ended at a frame by the budget");
	r->refused = a;
	r->cfi_refused = c;
}

static void
op(struct run *r, const struct op *o)
{
	struct pmodel *pm;
	size_t i, n;

	apply(r->u, o);
	counters(r, false, PF_UNWIND_BROKEN, 0);
	if (r->nops < MAXOPS)
		r->ops[r->nops++] = *o;
	pm = &r->pm[pidx_of(o->pid)];
	switch (o->kind) {
	case OP_MAP:
		model_map(pm, &o->m);
		break;
	case OP_FORK: {
		struct pmodel *c = &r->pm[pidx_of(o->child)];

		for (i = 0, n = pm->n; i < n; i++)
			model_map(c, &pm->m[i]);
		c->real |= pm->real;
		break;
	}
	case OP_EXEC:
		for (i = n = 0; i < pm->n; i++)
			if (pm->m[i].time >= o->m.time)
				pm->m[n++] = pm->m[i];
		pm->n = n;
		if (o->m.time > 0)
			pm->real = false;
		break;
	case OP_REAL:
		pm->real = true;
		break;
	}
}

static volatile size_t sink;

/* Coverage for libFuzzer: how far a walk went, and how it ended. */
static void
feedback(enum pf_unwind_end end, size_t n)
{
	switch (end * 8 + (n < 8 ? n : 7)) {
#define F(k)	case k: sink += k; break;
	F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15)
	F(16) F(17) F(18) F(19) F(20) F(21) F(22) F(23) F(24) F(25) F(26) F(27) F(28) F(29)
	F(30) F(31) F(32) F(33) F(34) F(35) F(36) F(37) F(38) F(39) F(40) F(41) F(42) F(43)
	F(44) F(45) F(46) F(47)
#undef F
	default:
		abort();
	}
}

struct answer {
	size_t n;
	enum pf_unwind_end end;
	uint64_t pcs[PF_UNWIND_MAX_FRAMES];
};

/* Unwind s with room for max frames into *a, and check what unwind.h says of it. */
static void
unwind(struct run *r, struct pf_unwinder *u, const struct sample *s, size_t max,
    struct answer *a)
{
	const struct pmodel *pm = &r->pm[s->pidx];
	uint64_t *pcs = malloc(max * sizeof(*pcs));	/* exactly the room given */
	size_t i;

	if (pcs == NULL && max != 0)
		abort();
	memset(&a->end, 0xa5, sizeof(a->end));
	a->n = pf_unwind_sample(u, pid_of(s->pidx), s->tid, s->regs, s->stack, s->len, pcs, max,
	    &a->end);
	if (a->n > max || a->n > PF_UNWIND_MAX_FRAMES || (unsigned)a->end > PF_UNWIND_BUDGET)
		broken("more frames than max, or no end");
	if ((a->end == PF_UNWIND_COMPLETE && a->n == 0) || (a->n > 0 && pcs[0] != s->regs[G_IP]))
		broken("complete without a frame, or a first frame that is not the ip");
	for (i = 0; i < a->n; i++)
		if (!(i == a->n - 1 && (a->end == PF_UNWIND_UNMAPPED ||
		    a->end == PF_UNWIND_UNREADABLE || a->end == PF_UNWIND_BUDGET)) &&
		    !plausible(pm, pcs[i]))
			broken("a frame in no mapped file, and not the last of an unmapped walk");
	memcpy(a->pcs, pcs, a->n * sizeof(*pcs));
	free(pcs);
	if (u == r->u)
		counters(r, true, a->end, a->n);
	feedback(a->end, a->n);
}

static bool
same(const struct answer *a, const struct answer *b)
{
	return a->n == b->n && a->end == b->end && memcmp(a->pcs, b->pcs, a->n * sizeof(a->pcs[0])) == 0;
}

/*
 * Whether answers about process pidx depend on the order libdw looked
 * pcs up in: it maps the fuzzed file with its raw CFI.  libdw's look-up
 * of an FDE is stateful (fde.c): a look-up that meets an entry it
 * cannot read fails, and the next one goes on past it; of two FDEs
 * over one pc, the one interned first is found.  So the first pc looked
 * up in such a file may be found unwindable by one unwinder and not by
 * another, and by unwind.c's rule cache and not by libdw's walk right
 * after it.
 */
static bool
stateful(const struct run *r, int pidx)
{
	const struct pmodel *pm = &r->pm[pidx];
	size_t i;

	for (i = 0; r->raw && i < pm->n; i++)
		if (strcmp(pm->m[i].path, reg[R_FUZZ].path) == 0)
			return true;
	return false;
}

/* Unwind a sample now: twice, and with a smaller max. */
static void
sample(struct run *r, struct sample *s)
{
	struct answer a, b, c;

	unwind(r, r->u, s, PF_UNWIND_MAX_FRAMES, &a);
	unwind(r, r->u, s, PF_UNWIND_MAX_FRAMES, &b);
	unwind(r, r->u, s, s->max, &c);
	if (stateful(r, s->pidx))
		return;
	if (!same(&a, &b))
		broken("the same sample, unwound again, answered otherwise");
	if (s->max < a.n) {
		if (c.n != s->max || c.end != PF_UNWIND_TRUNCATED ||
		    memcmp(a.pcs, c.pcs, c.n * sizeof(c.pcs[0])) != 0)
			broken("a smaller max gave other than the first frames, truncated");
	} else if (!same(&a, &c)) {
		broken("a max above the frames found answered otherwise");
	}
}

/* ---- reading the script ------------------------------------------------ */

static const char *
map_path(uint8_t v, int region)
{
	switch (v % 8) {
	case 1:
		return reg[(region + 1) % NREGION].path;
	case 2:
		return "[vdso]";
	case 3:
		return "[anon:fuzz]";
	case 4:
		return "/nonexistent-pf-fuzz/lib.so";
	case 5:
		return fifo;
	case 6:
		return "t.so";
	default:
		return reg[region].path;
	}
}

static void
read_map(struct in *in, struct op *o, int *pidx)
{
	const struct region *g;
	uint8_t id, pv, pg, ln;
	int region, slot;

	*pidx = u8(in) % NPID;
	region = u8(in) % NREGION;
	slot = u8(in) % NSLOT;
	id = u8(in);
	pv = u8(in);
	pg = u8(in);
	ln = u8(in);
	g = &reg[region];
	memset(o, 0, sizeof(*o));
	o->kind = OP_MAP;
	o->pid = pid_of(*pidx);
	o->m.start = slot_start(region, slot);
	o->m.len = ln == 0 ? g->len : (uint64_t)ln << 12;
	o->m.pgoff = pg == 0 ? g->pgoff : pg < 128 ? (uint64_t)pg << 12 : pg;
	o->m.path = map_path(pv, region);
	o->m.maj = g->maj;
	o->m.min = g->min;
	/* The identity: unknown, right or wrong inode; no, right or wrong build-id. */
	o->m.ino = (id & 3) == 0 ? 0 : (id & 3) == 2 ? g->ino + 1 : g->ino;
	switch ((id >> 2) & 3) {
	case 1:
		memcpy(o->m.bid, g->bid, g->bidlen);
		o->m.bidlen = g->bidlen;
		break;
	case 2:
		memcpy(o->m.bid, g->bid, g->bidlen);
		o->m.bid[0] ^= 1;
		o->m.bidlen = g->bidlen ? g->bidlen : 20;
		break;
	case 3:
		o->m.bidlen = BIDMAX + 1;	/* too long: taken as none */
		break;
	}
	o->m.time = u8(in);
}

/* A sample written by the input. */
static void
read_sample(struct in *in, struct sample *s)
{
	uint8_t ipk, nreg, nrel, k, kind;
	uint32_t ipoff;
	size_t i, w;
	uint64_t v;
	int region;

	ipk = u8(in);
	ipoff = u32(in);
	s->regs[G_SP] = SP_BASE + ((uint64_t)u8(in) << 4);
	nreg = u8(in) % 18;
	for (i = 0; i < nreg; i++) {
		k = u8(in) % PF_UNWIND_NREGS;
		kind = u8(in);
		v = u64(in);
		s->regs[k] = base(s->pidx, kind, s->regs[G_SP]) + v;
	}
	region = kind_region(ipk);
	if (region >= 0)
		s->regs[G_IP] = base(s->pidx, ipk, 0) + ipoff % text_len(region);
	else
		s->regs[G_IP] = base(s->pidx, ipk, s->regs[G_SP]) + ipoff;
	s->len = u16(in) % (MAXSTACK + 1);
	if ((s->stack = malloc(s->len)) == NULL && s->len != 0)
		abort();
	take(in, s->stack, s->len);
	nrel = u8(in);
	for (i = 0; i < nrel; i++) {
		w = u16(in);
		kind = u8(in);
		if (s->len < 8 || w >= s->len / 8)
			continue;
		memcpy(&v, s->stack + w * 8, 8);
		v += base(s->pidx, kind, s->regs[G_SP]);
		memcpy(s->stack + w * 8, &v, 8);
	}
}

/* The captured stack, cut and patched by the input. */
static void
read_captured(struct in *in, struct sample *s)
{
	const __typeof__(cap) *c = s->pidx == 0 ? &cap : &capm;
	uint8_t np, x;
	uint16_t cut, at;
	size_t i, room;

	cut = u16(in);
	s->len = cut == 0 ? c->len : cut % (c->len + 1);
	memcpy(s->regs, c->regs, sizeof(s->regs));
	if ((s->stack = malloc(s->len)) == NULL && s->len != 0)
		abort();
	memcpy(s->stack, c->stack, s->len);
	np = u8(in);
	room = sizeof(s->regs) + s->len;
	for (i = 0; i < np; i++) {
		at = u16(in);
		x = u8(in);
		if (at % room < sizeof(s->regs))
			((uint8_t *)s->regs)[at % room] ^= x;
		else
			s->stack[at % room - sizeof(s->regs)] ^= (char)x;
	}
}

/* ---- one input ------------------------------------------------------ */

/* Every file the unwinder hands on is a regular file, still open. */
static void
file_cb(const char *path, uint32_t maj, uint32_t min, uint64_t ino, int fd, void *arg)
{
	struct stat st;

	(void)maj;
	(void)min;
	(void)arg;
	if (path == NULL || path[0] != '/' || fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (ino != 0 && st.st_ino != ino))
		broken("a file handed on that is no regular file open, or not the one named");
}

static void
fresh_check(struct run *r)
{
	struct pf_unwinder *v;
	struct answer a, b;
	size_t i;

	if ((v = pf_unwind_new()) == NULL)
		abort();
	for (i = 0; i < r->nops; i++)
		apply(v, &r->ops[i]);
	for (i = r->ns; i-- > 0;) {
		if (r->pm[r->s[i].pidx].overlap || stateful(r, r->s[i].pidx))
			continue;
		unwind(r, r->u, &r->s[i], PF_UNWIND_MAX_FRAMES, &a);
		unwind(r, v, &r->s[i], PF_UNWIND_MAX_FRAMES, &b);
		if (!same(&a, &b))
			broken("a new unwinder with the same mappings answered otherwise");
	}
	pf_unwind_free(v);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct run r;
	struct in in = { data, size };
	struct op o;
	uint8_t flags, code;
	size_t i;
	int pidx;

	if (size > MAXIN)
		return 0;
	memset(&r, 0, sizeof(r));
	flags = u8(&in);
	r.raw = raw_cfi = !(flags & 16);
	write_file(&in, flags);
	if ((r.u = pf_unwind_new()) == NULL)
		abort();
	if (flags & 1) {
		o = (struct op){ .kind = OP_REAL, .pid = getpid() };
		op(&r, &o);
	}
	while (in.left > 0 && r.nops < MAXOPS) {
		code = u8(&in);
		switch (code % 8) {
		case 0:
		case 5:
			read_map(&in, &o, &pidx);
			op(&r, &o);
			break;
		case 1:
			memset(&o, 0, sizeof(o));
			o.kind = OP_FORK;
			o.pid = pid_of(u8(&in) % NPID);
			o.child = pid_of(1 + u8(&in) % (NPID - 1));
			op(&r, &o);
			break;
		case 2:
			memset(&o, 0, sizeof(o));
			o.kind = OP_EXEC;
			o.pid = pid_of(u8(&in) % NPID);
			o.m.time = u8(&in);
			op(&r, &o);
			break;
		case 3:
		case 4:
			if (r.ns == MAXSAMPLES)
				goto done;
			memset(&r.s[r.ns], 0, sizeof(r.s[r.ns]));
			r.s[r.ns].pidx = u8(&in) % NPID;
			r.s[r.ns].tid = pid_of(r.s[r.ns].pidx) + u8(&in);
			r.s[r.ns].max = u8(&in) % (PF_UNWIND_MAX_FRAMES + 1);
			if (code % 8 == 3)
				read_sample(&in, &r.s[r.ns]);
			else
				read_captured(&in, &r.s[r.ns]);
			sample(&r, &r.s[r.ns++]);
			break;
		default:
			o = (struct op){ .kind = OP_REAL, .pid = getpid() };
			op(&r, &o);
			break;
		}
	}
done:
	fresh_check(&r);
	pf_unwind_foreach_file(r.u, file_cb, NULL);
	pf_unwind_free(r.u);
	for (i = 0; i < r.ns; i++)
		free(r.s[i].stack);
	while (nevals > 0)
		__interceptor_free(evals[--nevals]);
	return 0;
}

/* ---- set up once ------------------------------------------------------ */

static void
cleanup(void)
{
	unlink(tpath);
	unlink(fifo);
	unlink(dbgfifo);
	rmdir(dir);
}

/* The captured stack as a made-up process sees it: our objects moved to their slots. */
static uint64_t
moved(uint64_t w)
{
	static const int rs[] = { R_SELF, R_LIBC, R_VDSO };
	const struct region *g;
	size_t i, j;

	for (i = 0; i < sizeof(rs) / sizeof(rs[0]); i++) {
		g = &reg[rs[i]];
		for (j = 0; j < nspans; j++)
			if (g->start >= spans[j].lo && g->start < spans[j].hi &&
			    w >= spans[j].lo && w < spans[j].hi)
				return w - g->start + slot_start(rs[i], 0);
	}
	return w;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;
	uint64_t w;
	ssize_t n;
	size_t i;
	int fd;

	(void)argc;
	(void)argv;
	unsetenv("DEBUGINFOD_URLS");	/* never the network */
	if ((n = readlink("/proc/self/exe", reg[R_SELF].path, sizeof(reg[R_SELF].path) - 1)) <= 0)
		abort();
	reg[R_SELF].path[n] = '\0';
	if ((fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)) == -1)
		abort();
	if (pf_maps_read(fd, maps_cb, NULL) == -1)
		abort();
	close(fd);
	if (reg[R_SELF].len == 0 || reg[R_LIBC].len == 0 || reg[R_VDSO].len == 0 ||
	    stack_end == 0) {
		fprintf(stderr, "fuzz-unwind: this process's text, libc, vDSO or stack not found\n");
		abort();
	}
	file_bid(&reg[R_SELF]);
	file_bid(&reg[R_LIBC]);
	dl_iterate_phdr(phdr_cb, NULL);
	if (libdw_hi == 0)
		broken("libdw not found among the loaded objects");
	if (cap_outer(1) != (1 + 1) * 3 + 5 || cap.len == 0)
		abort();
	capm = cap;
	for (i = 0; i < PF_UNWIND_NREGS; i++)
		capm.regs[i] = moved(cap.regs[i]);
	for (i = 0; i + 8 <= capm.len; i += 8) {
		memcpy(&w, capm.stack + i, 8);
		w = moved(w);
		memcpy(capm.stack + i, &w, 8);
	}

	snprintf(dir, sizeof(dir), "%s/pf-fuzz-unwind-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL)
		abort();
	snprintf(tpath, sizeof(tpath), "%s/t.so", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(dbgfifo, sizeof(dbgfifo), "%s/t.so.debug", dir);
	if ((tfd = open(tpath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) == -1 ||
	    mkfifo(fifo, 0600) == -1 || mkfifo(dbgfifo, 0600) == -1 || fstat(tfd, &st) == -1)
		abort();
	atexit(cleanup);
	strcpy(reg[R_FUZZ].path, tpath);
	reg[R_FUZZ].ino = st.st_ino;
	reg[R_FUZZ].maj = major(st.st_dev);
	reg[R_FUZZ].min = minor(st.st_dev);
	reg[R_FUZZ].pgoff = 0;
	reg[R_FUZZ].len = 0x1000;
	return 0;
}
