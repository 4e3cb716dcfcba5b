/*
 * test-stacks: checks of the stack path of the recorders, run by
 * tests/bats/lib-common.bats as "test-stacks GROUP": the DWARF unwinder
 * and the symbolizer against this very binary (a stack of its own,
 * captured with its registers, and its own symbols), and the writer of
 * the sample stream, byte for byte and read back by the stream's parser.
 * Each failed check prints what it expected and what it got; the exit
 * status is 1 when any failed, so a crash or a wrong value fails the test.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <gnu/libc-version.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "buf.h"
#include "buildid.h"
#include "fileio.h"
#include "kallsyms.h"
#include "perfscript.h"
#include "procmaps.h"
#include "pyframe.h"
#include "pyrec.h"
#include "rawrec.h"
#include "replay.h"
#include "symbolize.h"
#include "unwind.h"
#include "writer.h"
#include "capregs.h"

#include "unit.h"


/* Pids no process has: above any pid_max the kernel allows (2^22). */
#define FAKE_PID	2000000001
#define FAKE_CHILD	2000000002
/* Where a fake process maps a file: above any address this one uses. */
#define FAKE_START	0x7e0000000000ULL

/* ---- a stack of our own ------------------------------------------------ */

/*
 * st_outer -> (st_inl, inlined) -> st_middle -> st_leaf: st_leaf takes
 * its registers and a copy of the stack above them as a sample would
 * carry them, and each function keeps its own return address, which is
 * what the unwinder must find.  noipa: no clone, no split, no inlining,
 * so the symbols are these names (clang, which lacks it: no inlining and
 * no tail calls).
 */
#ifdef __clang__
#define ST_NOIPA noinline, disable_tail_calls
#else
#define ST_NOIPA noipa
#endif
static struct {
	uint64_t regs[PF_UNWIND_NREGS];
	char stack[32768];
	size_t len;
	uintptr_t stack_end;	/* the end of [stack] */
	uintptr_t ra_leaf, ra_middle, ra_outer;	/* return addresses, innermost first */
} cap;

/*
 * The copy reads the live stack, redzones of other frames included: the
 * address sanitizer must not look at it.
 */
__attribute__((ST_NOIPA, no_sanitize_address)) static int
st_leaf(int x)
{
	uint64_t *r = cap.regs;
	const volatile char *sp;
	size_t i, n;

	PF_CAPTURE_REGS(r);
	cap.ra_leaf = (uintptr_t)__builtin_return_address(0);
	sp = (const volatile char *)(uintptr_t)r[7];
	n = cap.stack_end - (uintptr_t)sp;
	if (n > sizeof(cap.stack))
		n = sizeof(cap.stack);
	for (i = 0; i < n; i++)
		cap.stack[i] = sp[i];
	cap.len = n;
	return x + 1;
}

__attribute__((ST_NOIPA)) static int
st_middle(int x)
{
	cap.ra_middle = (uintptr_t)__builtin_return_address(0);
	return st_leaf(x) * 3;
}

static inline __attribute__((always_inline)) int
st_inl(int x)
{
	return st_middle(x + 2) - 1;
}

__attribute__((ST_NOIPA)) static int
st_outer(int x)
{
	cap.ra_outer = (uintptr_t)__builtin_return_address(0);
	return st_inl(x) + 5;
}

static int
stack_end_cb(const struct pf_maps_entry *e, void *arg)
{
	if (strcmp(e->path, "[stack]") == 0)
		*(uintptr_t *)arg = (uintptr_t)e->end;
	return 0;
}

/* Take the sample; false when this process's stack cannot be found. */
static bool
capture(void)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	cap.stack_end = 0;
	if (fd != -1) {
		(void)pf_maps_read(fd, stack_end_cb, &cap.stack_end);
		close(fd);
	}
	if (cap.stack_end == 0)
		return false;
	return st_outer(1) == ((1 + 2 + 1) * 3 - 1) + 5;
}

/* Our executable: its path, identity and text mapping. */
static struct self {
	char path[PATH_MAX];
	struct stat st;
	uint64_t start, end, pgoff;	/* the executable mapping */
	char libc[PATH_MAX];		/* libc's executable mapping */
	uint64_t lstart, lend, lpgoff;
	unsigned char bid[64];
	size_t bidlen;
} self;

static int
self_map_cb(const struct pf_maps_entry *e, void *arg)
{
	struct self *s = arg;

	if (e->exec && strcmp(e->path, s->path) == 0 && s->end == 0) {
		s->start = e->start;
		s->end = e->end;
		s->pgoff = e->pgoff;
	}
	if (e->exec && strstr(e->path, "/libc.so") && s->lend == 0 &&
	    strlen(e->path) < sizeof(s->libc)) {
		strcpy(s->libc, e->path);
		s->lstart = e->start;
		s->lend = e->end;
		s->lpgoff = e->pgoff;
	}
	return 0;
}

/* The GNU build-id note of the main program, from its program headers. */
static int
self_bid_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct self *s = arg;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
			const char *name = p + sizeof(*nh);
			const char *desc = name + ((nh->n_namesz + 3) & ~3U);

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && nh->n_descsz <= sizeof(s->bid)) {
				memcpy(s->bid, desc, nh->n_descsz);
				s->bidlen = nh->n_descsz;
			}
			p = desc + ((nh->n_descsz + 3) & ~3U);
		}
	}
	return 1;	/* the first object is the program */
}

static bool
load_self(void)
{
	ssize_t n = readlink("/proc/self/exe", self.path, sizeof(self.path) - 1);
	int fd;

	if (n <= 0)
		return false;
	self.path[n] = '\0';
	if (stat(self.path, &self.st) == -1)
		return false;
	if ((fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)) == -1)
		return false;
	(void)pf_maps_read(fd, self_map_cb, &self);
	close(fd);
	dl_iterate_phdr(self_bid_cb, &self);
	return self.end != 0 && self.lend != 0;
}

/* ---- unwind ------------------------------------------------------------ */

static void
file_cb(const char *path, uint32_t maj, uint32_t min, uint64_t ino, int fd, void *arg)
{
	int *found = arg;
	struct stat st;

	if (strcmp(path, self.path) == 0 && ino == (uint64_t)self.st.st_ino &&
	    maj == major(self.st.st_dev) && min == minor(self.st.st_dev) &&
	    fstat(fd, &st) == 0 && st.st_ino == self.st.st_ino)
		(*found)++;
}

/* The three frames st_leaf..st_outer, as the captured return addresses say. */
static void
check_top(const uint64_t *pcs, size_t n, const char *what)
{
	CHECK(n >= 4, "%s: %zu frames, want st_leaf, st_middle, st_outer and its caller", what, n);
	if (n < 4)
		return;
	CHECK(pcs[0] == cap.regs[8], "%s: frame 0 %#llx, the sampled ip %#llx", what,
	    (unsigned long long)pcs[0], (unsigned long long)cap.regs[8]);
	CHECK(pcs[1] == cap.ra_leaf, "%s: frame 1 %#llx, st_leaf returns to %#llx", what,
	    (unsigned long long)pcs[1], (unsigned long long)cap.ra_leaf);
	CHECK(pcs[2] == cap.ra_middle, "%s: frame 2 %#llx, st_middle returns to %#llx", what,
	    (unsigned long long)pcs[2], (unsigned long long)cap.ra_middle);
	CHECK(pcs[3] == cap.ra_outer, "%s: frame 3 %#llx, st_outer returns to %#llx", what,
	    (unsigned long long)pcs[3], (unsigned long long)cap.ra_outer);
}

/* Whether a caller's frame of the walk lies in libc (which calls main). */
static bool
reaches_libc(const uint64_t *pcs, size_t n)
{
	size_t i;

	for (i = 4; i < n; i++)
		if (pcs[i] > self.lstart && pcs[i] - 1 < self.lend)
			return true;
	return false;
}

static void
test_unwind(void)
{
	struct pf_unwinder *u;
	uint64_t pcs[PF_UNWIND_MAX_FRAMES];
	enum pf_unwind_end end;
	unsigned char badbid[20];
	size_t n, i, whole = 0;
	int found;

	if (!load_self() || !capture()) {
		CHECK(0, "this process's executable mapping or stack not found");
		return;
	}
	CHECK(self.bidlen > 0, "the unit binary carries a GNU build-id");

	/* Every mapping from /proc: the whole walk, to the outermost frame. */
	if ((u = pf_unwind_new()) == NULL) {
		CHECK(0, "pf_unwind_new: %s", strerror(errno));
		return;
	}
	CHECK(pf_unwind_load_proc(u, getpid()) == 0, "load_proc self: %s", strerror(errno));
	n = pf_unwind_sample(u, getpid(), gettid(), cap.regs, cap.stack, cap.len, pcs,
	    PF_UNWIND_MAX_FRAMES, &end);
	check_top(pcs, n, "whole stack");
	CHECK(end == PF_UNWIND_COMPLETE, "whole stack: end %d, want complete", (int)end);
	CHECK(reaches_libc(pcs, n), "whole stack: no frame in libc, main's caller");
	whole = n;
	found = 0;
	pf_unwind_foreach_file(u, file_cb, &found);
	CHECK(found == 1, "foreach_file names the unit binary once with its identity (%d)", found);

	/* The frame limit: cut as the copy would be. */
	n = pf_unwind_sample(u, getpid(), gettid(), cap.regs, cap.stack, cap.len, pcs, 2, &end);
	CHECK(n == 2 && end == PF_UNWIND_TRUNCATED, "max 2: %zu frames, end %d", n, (int)end);
	CHECK(n == 2 && pcs[0] == cap.regs[8] && pcs[1] == cap.ra_leaf, "max 2: the two innermost");

	/* A truncated copy: no byte of the stack, then one word short of the caller's. */
	n = pf_unwind_sample(u, getpid(), gettid(), cap.regs, cap.stack, 0, pcs,
	    PF_UNWIND_MAX_FRAMES, &end);
	CHECK(n == 1 && pcs[0] == cap.regs[8] && end == PF_UNWIND_TRUNCATED,
	    "empty copy: %zu frames, end %d, want the sampled ip and truncated", n, (int)end);
	n = pf_unwind_sample(u, getpid(), gettid(), cap.regs, cap.stack, 64, pcs,
	    PF_UNWIND_MAX_FRAMES, &end);
	CHECK(n >= 1 && n < whole && end == PF_UNWIND_TRUNCATED,
	    "64-byte copy: %zu frames (whole %zu), end %d, want fewer and truncated",
	    n, whole, (int)end);
	CHECK(n >= 1 && pcs[0] == cap.regs[8] && (n < 2 || pcs[1] == cap.ra_leaf),
	    "64-byte copy: the frames it has are the innermost");

	/* Fork: the child walks with the parent's mappings; exec forgets them. */
	CHECK(pf_unwind_fork(u, getpid(), FAKE_CHILD) == 0, "fork");
	n = pf_unwind_sample(u, FAKE_CHILD, FAKE_CHILD, cap.regs, cap.stack, cap.len, pcs,
	    PF_UNWIND_MAX_FRAMES, &end);
	check_top(pcs, n, "forked child");
	CHECK(end == PF_UNWIND_COMPLETE, "forked child: end %d", (int)end);
	pf_unwind_exec(u, FAKE_CHILD, 1);
	n = pf_unwind_sample(u, FAKE_CHILD, FAKE_CHILD, cap.regs, cap.stack, cap.len, pcs,
	    PF_UNWIND_MAX_FRAMES, &end);
	CHECK(n == 0 && end == PF_UNWIND_UNMAPPED, "after exec: %zu frames, end %d", n, (int)end);
	CHECK(pf_unwind_fork(u, FAKE_PID, FAKE_CHILD + 1) == 0, "fork of an unknown parent");
	n = pf_unwind_sample(u, FAKE_CHILD + 1, FAKE_CHILD + 1, cap.regs, cap.stack, cap.len,
	    pcs, PF_UNWIND_MAX_FRAMES, &end);
	CHECK(n == 0 && end == PF_UNWIND_UNMAPPED, "unknown parent's child: %zu, end %d",
	    n, (int)end);
	n = pf_unwind_sample(u, FAKE_PID, FAKE_PID, cap.regs, cap.stack, cap.len, pcs,
	    PF_UNWIND_MAX_FRAMES, &end);
	CHECK(n == 0 && end == PF_UNWIND_UNMAPPED, "unknown pid: %zu, end %d", n, (int)end);
	pf_unwind_free(u);

	/*
	 * Only the executable, named by its build-id: the walk stops at the
	 * first frame in libc, which is not mapped.
	 */
	u = pf_unwind_new();
	CHECK(u != NULL, "pf_unwind_new");
	if (u == NULL)
		return;
	CHECK(pf_unwind_map(u, FAKE_PID, self.start, self.end - self.start, self.pgoff,
	    self.path, major(self.st.st_dev), minor(self.st.st_dev), (uint64_t)self.st.st_ino,
	    self.bid, self.bidlen, 0) == 0, "map self");
	n = pf_unwind_sample(u, FAKE_PID, FAKE_PID, cap.regs, cap.stack, cap.len, pcs,
	    PF_UNWIND_MAX_FRAMES, &end);
	check_top(pcs, n, "executable only");
	CHECK(end == PF_UNWIND_UNMAPPED, "executable only: end %d, want unmapped (libc)",
	    (int)end);
	/* A mapping made after the exec stays. */
	pf_unwind_exec(u, FAKE_PID, 0);
	n = pf_unwind_sample(u, FAKE_PID, FAKE_PID, cap.regs, cap.stack, cap.len, pcs,
	    PF_UNWIND_MAX_FRAMES, &end);
	CHECK(n >= 4 && end == PF_UNWIND_UNMAPPED, "a mapping of the exec's time stays (%zu)", n);
	pf_unwind_free(u);

	/*
	 * The same mapping with another build-id, another inode or a missing
	 * file is never read: beside a readable libc, the walk stops at the
	 * sampled ip, its file unreadable (incomplete=: unreadable); alone, there is nothing to walk with (broken,
	 * and the recorder keeps the frame-pointer chain instead).
	 */
	memset(badbid, 0xa5, sizeof(badbid));
	u = pf_unwind_new();
	CHECK(u != NULL, "pf_unwind_new");
	if (u == NULL)
		return;
	for (i = 0; i < 3; i++) {
		static const char *const what[] = { "wrong build-id", "wrong inode", "missing file" };
		pid_t pid = FAKE_PID + 10 + (pid_t)i;

		CHECK(pf_unwind_map(u, pid, self.start, self.end - self.start, self.pgoff,
		    i == 2 ? "/nonexistent/pf-unit/test-stacks" : self.path, 0, 0,
		    i == 1 ? (uint64_t)self.st.st_ino + 1 : 0, i == 0 ? badbid : NULL,
		    i == 0 ? sizeof(badbid) : 0, 0) == 0, "%s: map", what[i]);
		n = pf_unwind_sample(u, pid, pid, cap.regs, cap.stack, cap.len, pcs,
		    PF_UNWIND_MAX_FRAMES, &end);
		CHECK(n == 0 && end == PF_UNWIND_BROKEN,
		    "%s alone: %zu frames, end %d, want none, broken", what[i], n, (int)end);
		CHECK(pf_unwind_map(u, pid, self.lstart, self.lend - self.lstart, self.lpgoff,
		    self.libc, 0, 0, 0, NULL, 0, 0) == 0, "%s: map libc", what[i]);
		n = pf_unwind_sample(u, pid, pid, cap.regs, cap.stack, cap.len, pcs,
		    PF_UNWIND_MAX_FRAMES, &end);
		CHECK(n == 1 && pcs[0] == cap.regs[8] && end == PF_UNWIND_UNREADABLE,
		    "%s beside libc: %zu frames, end %d, want the ip alone, unreadable", what[i],
		    n, (int)end);
	}
	found = 0;
	pf_unwind_foreach_file(u, file_cb, &found);
	CHECK(found == 0, "no refused file is kept open (%d)", found);
	/* A mapping that is no file is not kept at all. */
	CHECK(pf_unwind_map(u, FAKE_PID + 20, self.start, self.end - self.start, 0, "[anon:x]",
	    0, 0, 0, NULL, 0, 0) == 0, "map, not a file");
	n = pf_unwind_sample(u, FAKE_PID + 20, FAKE_PID + 20, cap.regs, cap.stack, cap.len, pcs,
	    PF_UNWIND_MAX_FRAMES, &end);
	CHECK(n == 0 && end == PF_UNWIND_UNMAPPED, "only a non-file mapping: %zu, end %d",
	    n, (int)end);
	/*
	 * Nor anonymous code as a ring names it ("//anon": a JIT's, CPython's
	 * -X perf trampolines), a memfd, /dev/zero or SysV memory: once taken
	 * for a file that could not be read, walks through a trampoline ended
	 * "unreadable" under -- CMD.
	 */
	{
		static const char *const anon[] = { "//anon", "/memfd:jit (deleted)", "/dev/zero",
		    "/SYSV00000000" };
		size_t a;

		for (a = 0; a < sizeof(anon) / sizeof(anon[0]); a++) {
			CHECK(pf_unwind_map(u, FAKE_PID + 21 + (pid_t)a, self.start,
			    self.end - self.start, 0, anon[a], 0, 0, 0, NULL, 0, 0) == 0, "map %s",
			    anon[a]);
			n = pf_unwind_sample(u, FAKE_PID + 21 + (pid_t)a, FAKE_PID + 21 + (pid_t)a,
			    cap.regs, cap.stack, cap.len, pcs, PF_UNWIND_MAX_FRAMES, &end);
			CHECK(n == 0 && end == PF_UNWIND_UNMAPPED, "only %s: %zu, end %d", anon[a], n,
			    (int)end);
		}
	}
	pf_unwind_free(u);

	errno = 0;
	u = pf_unwind_new();
	CHECK(u != NULL && pf_unwind_load_proc(u, FAKE_PID) == -1 && errno == ENOENT,
	    "load_proc of no process: ENOENT (%s)", strerror(errno));
	pf_unwind_free(u);
}

/*
 * A small ELF file of our own: one PT_LOAD over it, .text (int3 from
 * TINY_TEXT, TINY_TEXT_LEN bytes) and .shstrtab, no call-frame
 * information at all.
 */
#define TINY_TEXT	0x100
#define TINY_TEXT_LEN	0x100

static bool
tiny_elf(const char *path)
{
	static const char names[] = "\0.text\0.shstrtab";
	unsigned char img[0x400];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)(void *)img;
	Elf64_Phdr *ph = (Elf64_Phdr *)(void *)(img + sizeof(*eh));
	Elf64_Shdr *sh = (Elf64_Shdr *)(void *)(img + 0x300);
	bool ok;
	int fd;

	memset(img, 0, sizeof(img));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = 0x300;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = 3;
	eh->e_shstrndx = 2;
	ph->p_type = PT_LOAD;
	ph->p_flags = PF_R | PF_X;
	ph->p_filesz = ph->p_memsz = TINY_TEXT + TINY_TEXT_LEN;
	ph->p_align = 0x1000;
	memset(img + TINY_TEXT, 0xcc, TINY_TEXT_LEN);
	memcpy(img + 0x200, names, sizeof(names));
	sh[1].sh_name = 1;
	sh[1].sh_type = SHT_PROGBITS;
	sh[1].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	sh[1].sh_addr = sh[1].sh_offset = TINY_TEXT;
	sh[1].sh_size = TINY_TEXT_LEN;
	sh[2].sh_name = 7;
	sh[2].sh_type = SHT_STRTAB;
	sh[2].sh_offset = 0x200;
	sh[2].sh_size = sizeof(names);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) == -1)
		return false;
	ok = pf_write_all(fd, img, sizeof(img)) == 0;
	close(fd);
	return ok;
}

static void
blocked(int sig)
{
	static const char msg[] = "FAIL: the unwinder or the symbolizer still blocked after 30 s\n";
	ssize_t n;

	(void)sig;
	n = write(2, msg, sizeof(msg) - 1);
	(void)n;
	_exit(1);
}

/*
 * What a target may do to the unwinder with its paths and its mappings:
 * put a FIFO where a mapped file was, or beside a file of its own where
 * a search for separate debuginfo would look (FILE.debug), so that an
 * open blocks the recorder for good (found by fuzz-unwind); exec, then
 * map as many files as it had, one of them where a pc it sampled before
 * was in none (the unwinder still took it as unmapped); map a part of a
 * file's text and run outside it (walked on or not, as earlier walks
 * had offered that mapping or another: found by fuzz-unwind).
 */
static void
test_unwind_hostile(void)
{
	const char *tmp = getenv("BATS_TEST_TMPDIR");
	char dir[PATH_MAX], fifo[PATH_MAX + 16], tiny[PATH_MAX + 16], debug[PATH_MAX + 32];
	uint64_t pcs[PF_UNWIND_MAX_FRAMES], regs[PF_UNWIND_NREGS];
	struct pf_unwinder *u;
	enum pf_unwind_end end;
	uint64_t pg;
	size_t n;

	if (!load_self() || !capture()) {
		CHECK(0, "this process's executable mapping or stack not found");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/pf-unit-unwind.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(fifo, sizeof(fifo), "%s/lib.so", dir);
	snprintf(tiny, sizeof(tiny), "%s/tiny.so", dir);
	snprintf(debug, sizeof(debug), "%s.debug", tiny);
	if (mkfifo(fifo, 0600) == -1 || mkfifo(debug, 0600) == -1 || !tiny_elf(tiny)) {
		CHECK(0, "FIFOs and tiny.so in %s: %s", dir, strerror(errno));
		goto out;
	}
	signal(SIGALRM, blocked);
	alarm(30);
	if ((u = pf_unwind_new()) == NULL) {
		CHECK(0, "pf_unwind_new: %s", strerror(errno));
		goto out;
	}

	/* Our executable's mapping, its path now a FIFO: not read, nothing to walk. */
	CHECK(pf_unwind_map(u, FAKE_PID, self.start, self.end - self.start, self.pgoff, fifo,
	    0, 0, 0, NULL, 0, 0) == 0, "map a FIFO");
	n = pf_unwind_sample(u, FAKE_PID, FAKE_PID, cap.regs, cap.stack, cap.len, pcs,
	    PF_UNWIND_MAX_FRAMES, &end);
	CHECK(n == 0 && end == PF_UNWIND_BROKEN, "a FIFO mapped: %zu frames, end %d", n, (int)end);

	/*
	 * A file without call-frame information, FILE.debug a FIFO beside
	 * it: the pc is a frame, and the walk ends there.
	 */
	CHECK(pf_unwind_map(u, FAKE_PID + 1, 0x100000000000ull, 0x1000, 0, tiny, 0, 0, 0, NULL, 0,
	    0) == 0, "map tiny.so");
	memcpy(regs, cap.regs, sizeof(regs));
	regs[6] = 0;	/* no frame pointer for libdw to fall back on */
	regs[8] = 0x100000000000ull + TINY_TEXT + 0x10;
	n = pf_unwind_sample(u, FAKE_PID + 1, FAKE_PID + 1, regs, cap.stack, cap.len, pcs,
	    PF_UNWIND_MAX_FRAMES, &end);
	CHECK(n == 1 && pcs[0] == regs[8] && end == PF_UNWIND_BROKEN,
	    "no CFI, FILE.debug a FIFO: %zu frames, end %d, want the pc alone, broken", n, (int)end);

	/*
	 * One page of our executable's text mapped, not the sampled pc's:
	 * the module libdwfl makes of the file spans the pc, but no mapping
	 * holds it.  It was walked on or not as earlier walks had offered
	 * that mapping or another (fuzz-unwind); now always unmapped.
	 */
	pg = cap.regs[8] - self.start >= 0x1000 ? 0 : self.end - self.start - 0x1000;
	CHECK(pf_unwind_map(u, FAKE_PID + 2, self.start + pg, 0x1000, self.pgoff + pg, self.path,
	    0, 0, 0, NULL, 0, 0) == 0, "map a page of our text");
	n = pf_unwind_sample(u, FAKE_PID + 2, FAKE_PID + 2, cap.regs, cap.stack, cap.len, pcs,
	    PF_UNWIND_MAX_FRAMES, &end);
	CHECK(n == 1 && pcs[0] == cap.regs[8] && end == PF_UNWIND_UNMAPPED,
	    "a pc in the module, in no mapping: %zu frames, end %d, want the pc alone, unmapped",
	    n, (int)end);
	pf_unwind_free(u);

	/*
	 * Two mappings, neither of them our executable: the sampled pc is
	 * in none.  After an exec, libc first and then our executable: the
	 * walk reaches past our frames, as a new unwinder's does.
	 */
	u = pf_unwind_new();
	CHECK(u != NULL, "pf_unwind_new");
	if (u == NULL)
		goto out;
	CHECK(pf_unwind_map(u, FAKE_PID, self.lstart, self.lend - self.lstart, self.lpgoff,
	    self.libc, 0, 0, 0, NULL, 0, 0) == 0 &&
	    pf_unwind_map(u, FAKE_PID, 0x100000000000ull, self.end - self.start, self.pgoff,
	    self.path, 0, 0, 0, NULL, 0, 0) == 0, "map libc, and our executable elsewhere");
	n = pf_unwind_sample(u, FAKE_PID, FAKE_PID, cap.regs, cap.stack, cap.len, pcs,
	    PF_UNWIND_MAX_FRAMES, &end);
	CHECK(n == 1 && end == PF_UNWIND_UNMAPPED, "before the exec: %zu frames, end %d, want "
	    "the pc alone, unmapped", n, (int)end);
	pf_unwind_exec(u, FAKE_PID, 1);
	CHECK(pf_unwind_map(u, FAKE_PID, self.lstart, self.lend - self.lstart, self.lpgoff,
	    self.libc, 0, 0, 0, NULL, 0, 2) == 0 &&
	    pf_unwind_map(u, FAKE_PID, self.start, self.end - self.start, self.pgoff,
	    self.path, 0, 0, 0, NULL, 0, 2) == 0, "map libc and our executable after the exec");
	n = pf_unwind_sample(u, FAKE_PID, FAKE_PID, cap.regs, cap.stack, cap.len, pcs,
	    PF_UNWIND_MAX_FRAMES, &end);
	check_top(pcs, n, "after the exec");
	CHECK(end == PF_UNWIND_COMPLETE, "after the exec: end %d, want complete", (int)end);
	pf_unwind_free(u);

	/*
	 * The symbolizer opens a mapped file by its path too (after the
	 * target's /proc views): a FIFO there blocked it as it did the
	 * unwinder.  The frame is then the mapping's, unnamed.
	 */
	{
		struct pf_frame_in in = { .addr = 0x100000000000ull + 0x10 };
		struct pf_frame_out o;
		struct pf_symbolizer *s = pf_sym_new(NULL);

		CHECK(s != NULL && pf_sym_add_map(s, FAKE_PID, 0x100000000000ull,
		    0x100000001000ull, 0, fifo, 0, 0, 0) == 0, "symbolizer: map a FIFO");
		if (s != NULL) {
			pf_sym_frame(s, FAKE_PID, &in, &o);
			CHECK(o.sym == NULL, "symbolizer: a FIFO named %s", o.sym);
			pf_sym_free(s);
		}
	}
out:
	alarm(0);
	unlink(fifo);
	unlink(debug);
	unlink(tiny);
	rmdir(dir);
}

/* ---- symbolize --------------------------------------------------------- */

/* The file offset of our address a: where the symbolizer's address column points. */
struct foff {
	uintptr_t addr;
	uint64_t off;
	bool ok;
};

static int
foff_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct foff *f = arg;
	uintptr_t va = f->addr - info->dlpi_addr;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && va >= ph->p_vaddr && va < ph->p_vaddr + ph->p_filesz) {
			f->off = ph->p_offset + (va - ph->p_vaddr);
			f->ok = true;
		}
	}
	return 1;
}

static uint64_t
file_offset(uintptr_t a)
{
	struct foff f = { a, 0, false };

	dl_iterate_phdr(foff_cb, &f);
	return f.ok ? f.off : UINT64_MAX;
}

/* pc (a return address when ret) of pid is function fn at pc - fn. */
static void
check_frame(struct pf_symbolizer *s, pid_t pid, uintptr_t pc, bool ret, const char *name,
    uintptr_t fn, const char *dso)
{
	struct pf_frame_in in = { .addr = pc, .kernel = false, .retaddr = ret };
	struct pf_frame_out out;

	pf_sym_frame(s, pid, &in, &out);
	CHECK(out.sym != NULL && strcmp(out.sym, name) == 0, "%#lx: %s, want %s",
	    (unsigned long)pc, out.sym ? out.sym : "(null)", name);
	CHECK(out.off == pc - fn, "%s: offset %#llx, want %#lx", name,
	    (unsigned long long)out.off, (unsigned long)(pc - fn));
	CHECK(out.dso != NULL && strcmp(out.dso, dso) == 0, "%s: dso %s, want %s", name,
	    out.dso ? out.dso : "(null)", dso);
	CHECK(out.addr == file_offset(pc), "%s: address %#llx, want the file offset %#llx",
	    name, (unsigned long long)out.addr, (unsigned long long)file_offset(pc));
}

static void
foreach_cb(const char *path, uint32_t maj, uint32_t min, uint64_t ino, void *arg)
{
	int *found = arg;

	(void)maj;
	(void)min;
	if (strcmp(path, self.path) == 0 && ino == (uint64_t)self.st.st_ino)
		(*found)++;
	else if (strcmp(path, "/nonexistent/pf-unit/test-stacks") == 0 && ino == 0)
		*found += 100;
}

/* A fake proc root: PID/maps naming our executable's text at another address. */
static bool
fake_proc(char *root, size_t len, uint64_t start)
{
	char path[1100], line[PATH_MAX + 128];
	const char *tmp = getenv("BATS_TEST_TMPDIR");
	int fd, n;

	snprintf(root, len, "%s/pf-unit-proc.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(root) == NULL)
		return false;
	snprintf(path, sizeof(path), "%s/%d", root, FAKE_PID);
	if (mkdir(path, 0700) == -1)
		return false;
	snprintf(path, sizeof(path), "%s/%d/maps", root, FAKE_PID);
	n = snprintf(line, sizeof(line),
	    "%llx-%llx r-xp %08llx %02x:%02x %llu %s\n"
	    "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n",
	    (unsigned long long)start, (unsigned long long)(start + (self.end - self.start)),
	    (unsigned long long)self.pgoff, major(self.st.st_dev), minor(self.st.st_dev),
	    (unsigned long long)self.st.st_ino, self.path);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) == -1)
		return false;
	if (pf_write_all(fd, line, (size_t)n) == -1) {
		close(fd);
		return false;
	}
	close(fd);
	return true;
}

static void
rm_fake_proc(const char *root)
{
	char path[1100];

	snprintf(path, sizeof(path), "%s/%d/maps", root, FAKE_PID);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%d", root, FAKE_PID);
	rmdir(path);
	rmdir(root);
}

/* Descriptors open now. */
static int
open_fds(void)
{
	int n = 0, fd;

	for (fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) != -1;
	return n;
}

/*
 * A file that is no ELF file, offered 50 times: libdwfl refuses it and
 * left the descriptor open each time (fuzz-symelf found it: 100 calls, 100
 * descriptors).
 */
static void
test_junk_fds(void)
{
	char path[] = "/tmp/pf-unit-junk.XXXXXX";
	struct pf_sym_fileinfo fi;
	int fd = mkstemp(path), before, i;

	if (fd == -1 || write(fd, "no ELF file, only words\n", 24) != 24) {
		CHECK(0, "junk file: %s", strerror(errno));
		return;
	}
	close(fd);
	before = open_fds();
	for (i = 0; i < 50; i++) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			break;
		CHECK(pf_sym_file_info(fd, path, &fi) == -1, "junk read as an ELF file");
		close(fd);
	}
	CHECK(open_fds() == before, "a file that is no ELF file: %d descriptors left open after "
	    "50 tries", open_fds() - before);
	unlink(path);
}

/*
 * The symbol index gives the answers of a plain pass over every symbol
 * under perf's rule: on this system's C library, python3.11 and libLLVM
 * (the big C++ case, when installed), at a few thousand addresses each.
 */
static void
test_symindex(void)
{
	static const char *const files[] = {
		"/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/bin/python3.11",
		"/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1", "/usr/bin/xz",
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
	};
	uint64_t checked, differ;
	char first[512];
	size_t i;
	int tried = 0;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (access(files[i], R_OK) != 0)
			continue;
		first[0] = '\0';
		CHECK(pf_sym_index_check(files[i], 1500, &checked, &differ, first,
		    sizeof(first)) == 0, "%s: %s", files[i], strerror(errno));
		CHECK(differ == 0, "%s: %llu of %llu differ, first %s", files[i],
		    (unsigned long long)differ, (unsigned long long)checked, first);
		CHECK(checked >= 1000, "%s: only %llu addresses compared", files[i],
		    (unsigned long long)checked);
		tried++;
	}
	CHECK(tried >= 1, "none of the files to compare is on this system");
	test_junk_fds();
}

/* What the symbolizer names the function at p of this process. */
static const char *
own_name(struct pf_symbolizer *s, const void *p, uint64_t *off)
{
	struct pf_frame_in in = { .addr = (uint64_t)(uintptr_t)p };
	struct pf_frame_out out;

	pf_sym_frame(s, getpid(), &in, &out);
	*off = out.off;
	return out.sym ? out.sym : "(none)";
}

/*
 * Names as perf 6.1 prints them.  The aliases glibc 2.36's debug file
 * gives one address (Debian 12's libc6-dbg: the perf agreement test of
 * pf-record.bats checks the rule on others): perf keeps the one with a
 * size, then not weak, then global, then with fewer leading
 * underscores, then the longer name (versions count), then the first.
 * And the unit binary's own .plt: slot i after the header is the
 * function of relocation i of .rela.plt, name@plt, read here with
 * libelf.
 */
static void
test_names(void)
{
	static const struct { const char *fn, *want; } alias[] = {
		{ "getpid", "__getpid" },		/* global over weak and locals */
		{ "close", "__close" },
		{ "malloc", "malloc" },			/* fewer underscores */
		{ "free", "cfree" },			/* longer: cfree@GLIBC_2.2.5 */
		{ "fstatat64", "__GI___fstatat64" },	/* not weak; the longest local */
		{ "brk", "__brk" },			/* a local over a weak one */
		{ "pthread_mutex_lock", "pthread_mutex_lock" },
	};
	struct pf_symbolizer *s = pf_sym_new(NULL), *d;
	struct pf_sym_fileinfo fi;
	Dl_info dli;
	uint64_t off = 0;
	size_t i, nslots = 0, named = 0;
	int fd;

	CHECK(s != NULL && pf_sym_load_proc(s, "/proc", getpid(), false) == 0, "load self");
	if (s == NULL)
		return;
	fd = open("/usr/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY | O_CLOEXEC);
	if (fd != -1 && pf_sym_file_info(fd, "/usr/lib/x86_64-linux-gnu/libc.so.6", &fi) == 0 &&
	    fi.debuginfo && strcmp(gnu_get_libc_version(), "2.36") == 0) {
		/* libc's own, not a sanitizer's interceptor of the same name. */
		void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);

		CHECK(libc != NULL, "dlopen libc.so.6: %s", dlerror());
		for (i = 0; libc != NULL && i < sizeof(alias) / sizeof(alias[0]); i++) {
			void *p = dlsym(libc, alias[i].fn);
			const char *got = p ? own_name(s, p, &off) : "(no such function)";

			CHECK(strcmp(got, alias[i].want) == 0 && off == 0, "%s: %s+%#llx, want %s",
			    alias[i].fn, got, (unsigned long long)off, alias[i].want);
		}
		/*
		 * As perf script names -g dwarf stacks, by addr2line: the
		 * function glibc's DWARF says (__libc_start_main is
		 * __libc_start_main_impl there), and of the assembler's
		 * subprograms for one routine the last (memmove's is
		 * memcpy's, whichever variant the CPU picked).
		 */
		if (libc != NULL && (d = pf_sym_new(NULL)) != NULL) {
			void *start = dlsym(libc, "__libc_start_main"), *mm = dlsym(libc, "memmove");
			char plain[256] = "";
			const char *got;

			pf_sym_set_inlines(d, true);
			pf_sym_set_dwarf_names(d, true);
			CHECK(pf_sym_load_proc(d, "/proc", getpid(), false) == 0, "load self");
			got = start ? own_name(d, start, &off) : "(no such function)";
			CHECK(strcmp(got, "__libc_start_main_impl") == 0 && off == 0,
			    "dwarf names: __libc_start_main: %s+%#llx", got, (unsigned long long)off);
			if (mm != NULL)
				snprintf(plain, sizeof(plain), "%s", own_name(s, mm, &off));
			CHECK(strncmp(plain, "__memmove_", 10) == 0, "memmove's routine: %s", plain);
			got = mm ? own_name(d, mm, &off) : "(no such function)";
			CHECK(strncmp(got, "__memcpy_", 9) == 0 && strcmp(got + 9, plain + 10) == 0 &&
			    off == 0, "dwarf names: %s is %s", plain, got);
			pf_sym_free(d);
		}
		if (libc != NULL)
			dlclose(libc);
	} else
		fprintf(stderr, "names: glibc 2.36's debug file not here: aliases not checked\n");
	if (fd != -1)
		close(fd);

	/* The unit binary's PLT, from its own relocations. */
	CHECK(dladdr((void *)test_names, &dli) != 0, "dladdr");
	if ((fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) != -1) {
		Elf *elf;
		Elf_Scn *scn = NULL;
		GElf_Shdr sh, plt = { 0 }, rel = { 0 }, dyn = { 0 };
		Elf_Data *reld = NULL, *dynd = NULL;
		size_t shstr;

		elf_version(EV_CURRENT);
		elf = elf_begin(fd, ELF_C_READ, NULL);
		CHECK(elf != NULL && elf_getshdrstrndx(elf, &shstr) == 0, "own ELF");
		while (elf && (scn = elf_nextscn(elf, scn)) != NULL) {
			const char *n;

			if (gelf_getshdr(scn, &sh) == NULL ||
			    (n = elf_strptr(elf, shstr, sh.sh_name)) == NULL)
				continue;
			if (strcmp(n, ".plt") == 0)
				plt = sh;
			else if (strcmp(n, ".rela.plt") == 0) {
				rel = sh;
				reld = elf_getdata(scn, NULL);
			} else if (sh.sh_type == SHT_DYNSYM) {
				dyn = sh;
				dynd = elf_getdata(scn, NULL);
			}
		}
		CHECK(plt.sh_size > 0 && reld != NULL && dynd != NULL && plt.sh_entsize == 16,
		    "the unit binary has a .plt of 16-byte entries and its relocations");
		for (i = 0; reld && dynd && plt.sh_entsize == 16 && i < rel.sh_size / sizeof(Elf64_Rela);
		    i++) {
			GElf_Rela r;
			GElf_Sym sym;
			char want[256];
			const char *got, *n;
			uint64_t at = plt.sh_addr + 16 * (i + 1) + 5;

			if (gelf_getrela(reld, (int)i, &r) == NULL ||
			    gelf_getsym(dynd, (int)GELF_R_SYM(r.r_info), &sym) == NULL ||
			    (n = elf_strptr(elf, dyn.sh_link, sym.st_name)) == NULL)
				continue;
			snprintf(want, sizeof(want), "%s@plt", n);
			got = own_name(s, (const char *)dli.dli_fbase + at, &off);
			nslots++;
			named += strcmp(got, want) == 0 && off == 5;
			if (strcmp(got, want) != 0 || off != 5)
				CHECK(0, "PLT slot %zu: %s+%#llx, want %s+0x5", i, got,
				    (unsigned long long)off, want);
		}
		CHECK(nslots >= 20 && named == nslots, "%zu of %zu PLT slots named", named, nslots);
		if (elf)
			elf_end(elf);
		close(fd);
	}
	pf_sym_free(s);
}

/*
 * A function the driver exports (a global symbol, not a static one),
 * and one written in assembly whose symbol ends before 64 bytes that no
 * symbol covers: an address there lies in the driver's executable
 * mapping and is named by nothing.
 */
int stacks_global(int x);
void stacks_sized(void);

__attribute__((ST_NOIPA)) int
stacks_global(int x)
{
	return x * 7 + 1;
}

__asm__(".pushsection .text.stacks_sized, \"ax\", @progbits\n"
    "\t.globl stacks_sized\n"
    "\t.type stacks_sized, @function\n"
    "stacks_sized:\n"
    "\tret\n"
    "\t.size stacks_sized, . - stacks_sized\n"
    "\t.skip 64, 0xcc\n"
    "\t.popsection\n");

/*
 * A symbolizer of this process's own mappings (inlines: with inlined
 * functions), after its stack is captured (cap); NULL, said, when
 * either cannot be had.
 */
static struct pf_symbolizer *
self_symbolizer(bool inlines)
{
	struct pf_symbolizer *s;

	if (!load_self() || !capture()) {
		CHECK(0, "this process's executable mapping or stack not found");
		return NULL;
	}
	if ((s = pf_sym_new(NULL)) == NULL) {
		CHECK(0, "pf_sym_new: %s", strerror(errno));
		return NULL;
	}
	pf_sym_set_inlines(s, inlines);
	CHECK(pf_sym_load_proc(s, "/proc", getpid(), false) == 0, "load_proc self");
	return s;
}

static void
test_symbolize(void)
{
	static const char ksyms[] =
	    "ffffffff81000000 T _stext\n"
	    "ffffffff81000100 T do_work\n"
	    "ffffffff81000200 T do_more\n"
	    "ffffffffc0001000 t mod_fn\t[mymod]\n"
	    "ffffffffc0001100 t mod_end\t[mymod]\n";
	struct pf_symbolizer *s;
	struct pf_kallsyms *k;
	struct pf_frame_in in;
	struct pf_frame_out out;
	struct pf_sym_stats st;
	char root[1024];
	uint64_t base = 0x100000000000ULL;
	uintptr_t pc;
	int found, fd;

	unsetenv("DEBUGINFOD_URLS");
	if ((s = self_symbolizer(true)) == NULL)
		return;

	/* The interrupted pc, and return addresses (looked up a byte before). */
	check_frame(s, getpid(), (uintptr_t)cap.regs[8], false, "st_leaf", (uintptr_t)st_leaf,
	    self.path);
	check_frame(s, getpid(), cap.ra_leaf, true, "st_middle", (uintptr_t)st_middle,
	    self.path);
	check_frame(s, getpid(), (uintptr_t)st_middle, false, "st_middle",
	    (uintptr_t)st_middle, self.path);
	/* st_inl was inlined where st_outer calls st_middle: one frame above it. */
	in = (struct pf_frame_in){ .addr = cap.ra_middle, .retaddr = true };
	pf_sym_frame(s, getpid(), &in, &out);
	CHECK(out.sym && strcmp(out.sym, "st_outer") == 0, "st_middle returns into st_outer (%s)",
	    out.sym ? out.sym : "(null)");
	CHECK(out.ninl == 1 && strcmp(out.inl[0], "st_inl") == 0,
	    "st_inl inlined there: %zu inlined, first %s", out.ninl,
	    out.ninl ? out.inl[0] : "-");
	in = (struct pf_frame_in){ .addr = cap.ra_leaf, .retaddr = true };
	pf_sym_frame(s, getpid(), &in, &out);
	CHECK(out.ninl == 0, "nothing inlined where st_middle calls st_leaf (%zu)", out.ninl);

	/* Not found: an address in no mapping, and one in an anonymous mapping. */
	in = (struct pf_frame_in){ .addr = 0x10 };
	pf_sym_frame(s, getpid(), &in, &out);
	CHECK(out.sym == NULL && out.dso == NULL && out.addr == 0x10,
	    "0x10: %s in %s, want nothing", out.sym ? out.sym : "-", out.dso ? out.dso : "-");
	CHECK(pf_sym_add_map(s, FAKE_PID, 0x5000, 0x6000, 0, "//anon", 0, 0, 0) == 0, "anon map");
	CHECK(pf_sym_add_map(s, FAKE_PID, 0x7000, 0x8000, 0, "[vdso-like]", 0, 0, 0) == 0,
	    "named map");
	in = (struct pf_frame_in){ .addr = 0x5010 };
	pf_sym_frame(s, FAKE_PID, &in, &out);
	CHECK(out.sym == NULL && out.dso == NULL && out.addr == 0x5010,
	    "anonymous: %s in %s, want nothing", out.sym ? out.sym : "-",
	    out.dso ? out.dso : "-");
	in = (struct pf_frame_in){ .addr = 0x7010 };
	pf_sym_frame(s, FAKE_PID, &in, &out);
	CHECK(out.sym == NULL && out.dso && strcmp(out.dso, "[vdso-like]") == 0,
	    "named non-file mapping: its name, no symbol (%s in %s)", out.sym ? out.sym : "-",
	    out.dso ? out.dso : "-");
	/* Kernel frames without kallsyms: the kernel's DSO, no symbol. */
	in = (struct pf_frame_in){ .addr = 0xffffffff81000110ULL, .kernel = true };
	pf_sym_frame(s, getpid(), &in, &out);
	CHECK(out.sym == NULL && out.dso && strcmp(out.dso, "[kernel.kallsyms]") == 0,
	    "kernel, no kallsyms: %s", out.sym ? out.sym : "(null)");

	/* Kernel frames: core and module symbols, a return address a byte before. */
	k = pf_kallsyms_load_text(ksyms, sizeof(ksyms) - 1);
	CHECK(k != NULL, "kallsyms: %s", strerror(errno));
	pf_sym_set_kallsyms(s, k);
	pf_sym_frame(s, 0, &in, &out);
	CHECK(out.sym && strcmp(out.sym, "do_work") == 0 && out.off == 0x10 &&
	    strcmp(out.dso, "[kernel.kallsyms]") == 0, "kernel: %s+%#llx in %s",
	    out.sym ? out.sym : "-", (unsigned long long)out.off, out.dso);
	in = (struct pf_frame_in){ .addr = 0xffffffff81000200ULL, .kernel = true, .retaddr = true };
	pf_sym_frame(s, 0, &in, &out);
	CHECK(out.sym && strcmp(out.sym, "do_work") == 0 && out.off == 0x100,
	    "kernel return address at do_more's start is do_work+0x100: %s+%#llx",
	    out.sym ? out.sym : "-", (unsigned long long)out.off);
	in = (struct pf_frame_in){ .addr = 0xffffffffc0001004ULL, .kernel = true };
	pf_sym_frame(s, 0, &in, &out);
	CHECK(out.sym && strcmp(out.sym, "mod_fn") == 0 && out.off == 4 &&
	    strcmp(out.dso, "[mymod]") == 0, "module: %s+%#llx in %s",
	    out.sym ? out.sym : "-", (unsigned long long)out.off, out.dso);
	in = (struct pf_frame_in){ .addr = 0xffffffff80000000ULL, .kernel = true };
	pf_sym_frame(s, 0, &in, &out);
	CHECK(out.sym == NULL, "kernel below the first symbol: unknown");
	pf_sym_set_kallsyms(s, NULL);
	in = (struct pf_frame_in){ .addr = 0xffffffff81000110ULL, .kernel = true };
	pf_sym_frame(s, 0, &in, &out);
	CHECK(out.sym == NULL, "kallsyms set back to none: unknown");
	pf_kallsyms_free(k);

	/* Fork and exec: the child has the parent's mappings until it execs. */
	CHECK(pf_sym_fork(s, getpid(), FAKE_CHILD) == 0, "fork");
	check_frame(s, FAKE_CHILD, cap.ra_leaf, true, "st_middle", (uintptr_t)st_middle,
	    self.path);
	pf_sym_exec(s, FAKE_CHILD);
	in = (struct pf_frame_in){ .addr = cap.ra_leaf, .retaddr = true };
	pf_sym_frame(s, FAKE_CHILD, &in, &out);
	CHECK(out.sym == NULL && out.dso == NULL, "after exec: %s", out.sym ? out.sym : "-");

	found = 0;
	pf_sym_foreach_file(s, foreach_cb, &found);
	CHECK(found == 1, "foreach_file names the unit binary with its inode (%d)", found);
	pf_sym_stats(s, &st);
	CHECK(st.lookups == 16 && st.cache_hits >= 2 && st.files >= 1 && st.inline_lookups >= 2,
	    "stats: %llu lookups, %llu cache hits, %llu files, %llu inline lookups",
	    (unsigned long long)st.lookups, (unsigned long long)st.cache_hits,
	    (unsigned long long)st.files, (unsigned long long)st.inline_lookups);
	CHECK(pf_sym_jit_refusal(s) == NULL, "no JIT map refused");

	/* A global function, at its start and inside it, as a pc and as a return address. */
	check_frame(s, getpid(), (uintptr_t)stacks_global, false, "stacks_global",
	    (uintptr_t)stacks_global, self.path);
	check_frame(s, getpid(), (uintptr_t)stacks_global + 1, false, "stacks_global",
	    (uintptr_t)stacks_global, self.path);
	check_frame(s, getpid(), (uintptr_t)stacks_global + 1, true, "stacks_global",
	    (uintptr_t)stacks_global, self.path);
	/* Past the end of stacks_sized (one ret), in its padding: no name, not its. */
	check_frame(s, getpid(), (uintptr_t)stacks_sized, false, "stacks_sized",
	    (uintptr_t)stacks_sized, self.path);
	pc = (uintptr_t)stacks_sized + 1 + 32;
	in = (struct pf_frame_in){ .addr = pc };
	pf_sym_frame(s, getpid(), &in, &out);
	CHECK(out.sym == NULL && out.mapped && out.dso && strcmp(out.dso, self.path) == 0 &&
	    out.addr == file_offset(pc), "%#lx, between symbols: %s+%#llx in %s at %#llx, "
	    "want no symbol in %s at %#llx", (unsigned long)pc, out.sym ? out.sym : "-",
	    (unsigned long long)out.off, out.dso ? out.dso : "-", (unsigned long long)out.addr,
	    self.path, (unsigned long long)file_offset(pc));
	pf_sym_free(s);

	/*
	 * A mapping given by hand at another address, its file gone from the
	 * path it names: unknown, until a descriptor of that inode is offered.
	 */
	s = pf_sym_new(NULL);
	CHECK(s != NULL, "pf_sym_new");
	if (s == NULL)
		return;
	CHECK(pf_sym_add_map(s, FAKE_PID, base, base + (self.end - self.start), self.pgoff,
	    "/nonexistent/pf-unit/test-stacks", 0, 0, 0) == 0, "add_map, missing file");
	pc = (uintptr_t)st_middle + 4;
	in = (struct pf_frame_in){ .addr = base + (pc - self.start) };
	pf_sym_frame(s, FAKE_PID, &in, &out);
	CHECK(out.sym == NULL && out.dso && strcmp(out.dso, "/nonexistent/pf-unit/test-stacks") == 0,
	    "missing file: no symbol, its path (%s)", out.sym ? out.sym : "-");
	found = 0;
	pf_sym_foreach_file(s, foreach_cb, &found);
	CHECK(found == 100, "foreach_file names the missing file without an inode (%d)", found);
	pf_sym_free(s);

	s = pf_sym_new(NULL);
	CHECK(s != NULL, "pf_sym_new");
	if (s == NULL)
		return;
	CHECK(pf_sym_add_map(s, FAKE_PID, base, base + (self.end - self.start), self.pgoff,
	    "/nonexistent/pf-unit/test-stacks", major(self.st.st_dev), minor(self.st.st_dev),
	    (uint64_t)self.st.st_ino) == 0, "add_map, offered file");
	if ((fd = open(self.path, O_RDONLY | O_CLOEXEC)) != -1) {
		pf_sym_offer_file("/nonexistent/pf-unit/test-stacks", major(self.st.st_dev),
		    minor(self.st.st_dev), (uint64_t)self.st.st_ino, fd, s);
		close(fd);	/* the symbolizer keeps its own */
	}
	pf_sym_frame(s, FAKE_PID, &in, &out);
	CHECK(out.sym && strcmp(out.sym, "st_middle") == 0 && out.off == 4 &&
	    out.addr == file_offset(pc),
	    "offered descriptor: %s+%#llx at %#llx, want st_middle+0x4 at %#llx",
	    out.sym ? out.sym : "-", (unsigned long long)out.off,
	    (unsigned long long)out.addr, (unsigned long long)file_offset(pc));
	pf_sym_free(s);

	/*
	 * A JIT map: the path is the convention's (/tmp/perf-PID.map), so
	 * it is this process's own, made here and removed.  Ours: trusted;
	 * another user's (as root): refused, and said so.
	 */
	{
		char jpath[64], why[128];
		static const char jtext[] = "40001000 1000 jitted_fn\n";

		snprintf(jpath, sizeof(jpath), "/tmp/perf-%d.map", (int)getpid());
		CHECK(pf_sym_jit_vet(getpid(), why, sizeof(why)) == 0, "no JIT map: 0");
		if ((fd = open(jpath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) == -1 ||
		    pf_write_all(fd, jtext, sizeof(jtext) - 1) == -1) {
			CHECK(0, "%s: %s", jpath, strerror(errno));
		} else {
			CHECK(pf_sym_jit_vet(getpid(), why, sizeof(why)) == 1, "our JIT map: 1");
			s = pf_sym_new(NULL);
			CHECK(s != NULL, "pf_sym_new");
			in = (struct pf_frame_in){ .addr = 0x40001234, .retaddr = true };
			if (s != NULL) {
				pf_sym_frame(s, getpid(), &in, &out);
				CHECK(out.sym && strcmp(out.sym, "jitted_fn") == 0 &&
				    out.off == 0x234 && strcmp(out.dso, jpath) == 0,
				    "JIT: %s+%#llx in %s", out.sym ? out.sym : "-",
				    (unsigned long long)out.off, out.dso ? out.dso : "-");
				pf_sym_stats(s, &st);
				CHECK(st.jit_maps == 1 && st.jit_refused == 0, "one JIT map read");
				CHECK(pf_sym_jit_refusal(s) == NULL, "none refused");
				pf_sym_free(s);
			}
			if (geteuid() == 0 && fchown(fd, 65534, 65534) == 0) {
				why[0] = '\0';
				CHECK(pf_sym_jit_vet(getpid(), why, sizeof(why)) == -1 && why[0],
				    "another user's JIT map: refused (%s)", why);
				s = pf_sym_new(NULL);
				CHECK(s != NULL, "pf_sym_new");
				if (s != NULL) {
					char want[128];

					pf_sym_frame(s, getpid(), &in, &out);
					CHECK(out.sym == NULL, "refused JIT map: unknown");
					snprintf(want, sizeof(want), "%s: ", jpath);
					CHECK(pf_sym_jit_refusal(s) != NULL &&
					    strncmp(pf_sym_jit_refusal(s), want, strlen(want)) == 0,
					    "the refusal names the map: %s", pf_sym_jit_refusal(s) ?
					    pf_sym_jit_refusal(s) : "(null)");
					pf_sym_free(s);
				}
			}
		}
		if (fd != -1) {
			close(fd);
			unlink(jpath);
		}
	}

	/* A whole proc root of our own, read as a system-wide recording does. */
	if (!fake_proc(root, sizeof(root), base)) {
		CHECK(0, "fake proc root: %s", strerror(errno));
		return;
	}
	s = pf_sym_new(NULL);
	CHECK(s != NULL, "pf_sym_new");
	if (s == NULL)
		return;
	CHECK(pf_sym_load_all(s, root) == 0, "load_all %s", root);
	in = (struct pf_frame_in){ .addr = base + (pc - self.start) };
	pf_sym_frame(s, FAKE_PID, &in, &out);
	CHECK(out.sym && strcmp(out.sym, "st_middle") == 0 && out.off == 4 &&
	    strcmp(out.dso, self.path) == 0 && out.addr == file_offset(pc),
	    "load_all: %s+%#llx in %s", out.sym ? out.sym : "-",
	    (unsigned long long)out.off, out.dso ? out.dso : "-");
	in.addr = 0x7f0000000010ULL;
	pf_sym_frame(s, FAKE_PID, &in, &out);
	CHECK(out.sym == NULL && out.dso == NULL, "a data mapping is not loaded");
	errno = 0;
	CHECK(pf_sym_load_proc(s, root, FAKE_PID + 1, false) == -1 && errno == ENOENT,
	    "load_proc of a pid without maps: ENOENT (%s)", strerror(errno));
	errno = 0;
	CHECK(pf_sym_load_all(s, "/nonexistent/pf-unit") == -1 && errno == ENOENT,
	    "load_all of no proc root: ENOENT (%s)", strerror(errno));
	pf_sym_free(s);
	rm_fake_proc(root);
}

/* ---- writer: the sample-stream writer ---------------------------------- */

/* The whole content of fd. */
static size_t
slurp(int fd, struct pf_buf *b)
{
	char tmp[4096];
	ssize_t n;
	off_t at = 0;

	pf_buf_reset(b);
	while ((n = pread(fd, tmp, sizeof(tmp), at)) > 0) {
		if (pf_buf_append(b, tmp, (size_t)n) == -1)
			break;
		at += n;
	}
	return b->len;
}

static bool
same_bytes(const struct pf_buf *b, const char *want, size_t len)
{
	return b->len == len && memcmp(b->data, want, len) == 0;
}

static int
memfd(void)
{
	return memfd_create("pf-unit-writer", MFD_CLOEXEC);
}

/* Folded stacks the parser makes of a stream, one "stack weight\n" each. */
static int
fold_cb(const struct pf_ps_sample *s, void *arg)
{
	struct pf_buf *b = arg;

	return pf_buf_printf(b, "%s %llu\n", s->stack, (unsigned long long)s->weight);
}

static int
read_back(const struct pf_buf *in, struct pf_buf *out)
{
	struct pf_ps_config cfg = { .include_pid = 1 };
	struct pf_perfscript *ps = pf_ps_new(&cfg, fold_cb, out);
	size_t i = 0, nl;
	int rc = 0;

	if (ps == NULL)
		return -1;
	while (rc == 0 && i < in->len) {
		const char *p = memchr(in->data + i, '\n', in->len - i);

		nl = p ? (size_t)(p - in->data) : in->len;
		rc = pf_ps_line(ps, in->data + i, nl - i);
		i = nl + 1;
	}
	if (rc == 0)
		rc = pf_ps_finish(ps);
	pf_ps_free(ps);
	return rc;
}

int main(int argc, char **argv);

/*
 * pf_replay_format's end of a user stack (the trailer's incomplete=):
 * chains of this process's own frames, with and without an entry frame
 * (main), and each marker of how an unwind ended.
 */
static void
stack_end_case(struct pf_symbolizer *sym, struct pf_comms *comms, const uint64_t *chain,
    uint32_t nr, bool cut, enum pf_incomplete why, const char *marker, const char *what)
{
	struct {
		struct pf_rawsample s;
		uint64_t ips[8];
	} r = { .s = { .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(), .nr = nr } };
	struct pf_stack_end end = { .cut = !cut, .why = PF_INCOMPLETE_CAUSES };
	struct pf_buf b = { 0 };

	memcpy(r.ips, chain, nr * sizeof(*chain));
	CHECK(pf_replay_format(sym, comms, NULL, &r.s, 1, "cpu-clock", &b, &end) == 0, "%s: format",
	    what);
	CHECK(end.cut == cut && end.why == why, "%s: cut %d why %s, want cut %d why %s", what,
	    end.cut, pf_incomplete_name(end.why), cut, pf_incomplete_name(why));
	CHECK(marker == NULL || (b.data && strstr(b.data, marker) != NULL),
	    "%s: no %s line in %.*s", what, marker ? marker : "", (int)b.len, b.data);
	/* Only a stack that reached no entry frame says a budget ended it. */
	CHECK((marker != NULL && strcmp(marker, "[budget]") == 0) ||
	    strstr(b.data ? b.data : "", "[budget]") == NULL, "%s: a [budget] line in %.*s", what,
	    (int)b.len, b.data);
	pf_buf_free(&b);
}

static void
test_stack_end(void)
{
	const uint64_t U = (uint64_t)PERF_CONTEXT_USER, K = (uint64_t)PERF_CONTEXT_KERNEL;
	struct pf_comms comms = { 0 };
	struct pf_symbolizer *s;
	uint64_t leaf, mid, top, n127[140];
	size_t i;

	/* The names: prefixes, versions and lookalikes. */
	CHECK(pf_entry_frame("_start") && pf_entry_frame("main") &&
	    pf_entry_frame("__libc_start_main_impl") && pf_entry_frame("__libc_start_call_main") &&
	    pf_entry_frame("__GI___clone3") && pf_entry_frame("clone3@GLIBC_2.34") &&
	    pf_entry_frame("start_thread") && pf_entry_frame("runtime.goexit") &&
	    pf_entry_frame("runtime.main"), "entry frames");
	CHECK(!pf_entry_frame("main_loop") && !pf_entry_frame("ns::main") &&
	    !pf_entry_frame("domain") && !pf_entry_frame("") && !pf_entry_frame(NULL) &&
	    !pf_entry_frame("runtime.mallocgc") && !pf_entry_frame("st_leaf") &&
	    !pf_entry_frame("clone@plt") && !pf_entry_frame("__libc_start_main@plt"),
	    "not entry frames");
	CHECK(strcmp(pf_incomplete_name(PF_INCOMPLETE_STACK_COPY), "stack-copy") == 0 &&
	    strcmp(pf_incomplete_name(PF_INCOMPLETE_FP_DATA), "fp-into-data") == 0 &&
	    strcmp(pf_incomplete_name(PF_INCOMPLETE_NO_UNWIND), "no-unwind-info") == 0 &&
	    strcmp(pf_incomplete_name(PF_INCOMPLETE_UNREADABLE), "unreadable") == 0 &&
	    strcmp(pf_incomplete_name(PF_INCOMPLETE_BUDGET), "budget") == 0,
	    "the causes' names (man/pf-formats.5)");

	if ((s = self_symbolizer(false)) == NULL)
		return;
	leaf = (uint64_t)cap.regs[8];
	mid = (uint64_t)cap.ra_leaf;
	/* A return address into main: the call is the byte before. */
	top = (uint64_t)(uintptr_t)main + 1;
	{
		const struct {
			uint64_t chain[5];
			uint32_t nr;
			bool cut;
			enum pf_incomplete why;
			const char *marker, *what;
		} cases[] = {
			{ { U, leaf, mid, top }, 4, false, PF_INCOMPLETE_NONE, NULL, "up to main" },
			{ { U, leaf, mid }, 3, false, PF_INCOMPLETE_NO_UNWIND, NULL,
			    "ends in st_middle" },
			{ { U, leaf, mid, PF_RAWREC_TRUNCATED }, 4, false, PF_INCOMPLETE_STACK_COPY,
			    "[truncated]", "the copy ended it" },
			{ { U, leaf, mid, PF_RAWREC_BUDGET }, 4, false, PF_INCOMPLETE_BUDGET,
			    "[budget]", "a budget ended it" },
			{ { U, leaf, mid, PF_RAWREC_UNREADABLE }, 4, false, PF_INCOMPLETE_UNREADABLE,
			    NULL, "an unreadable file ended it" },
			{ { U, leaf, mid, PF_RAWREC_OUTERMOST }, 4, false, PF_INCOMPLETE_NONE, NULL,
			    "an outermost frame by its CFI, unnamed" },
			{ { U, leaf, mid, 0x10, top }, 5, true, PF_INCOMPLETE_FP_DATA,
			    "[unknown-chain]", "a chain into data, cut before main" },
			{ { K, 0xffffffff81000100ULL }, 2, false, PF_INCOMPLETE_NONE, NULL,
			    "no user stack" },
			{ { U, leaf, top, PF_RAWREC_BUDGET }, 4, false, PF_INCOMPLETE_NONE, NULL,
			    "main reached before the budget" },
		};

		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			stack_end_case(s, &comms, cases[i].chain, cases[i].nr, cases[i].cut,
			    cases[i].why, cases[i].marker, cases[i].what);
	}
	/* A chain of the kernel's full length (127 entries) was cut there. */
	n127[0] = U;
	for (i = 1; i < 127; i++)
		n127[i] = mid;
	n127[1] = leaf;
	{
		struct {
			struct pf_rawsample s;
			uint64_t ips[140];
		} r = { .s = { .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(), .nr = 127 } };
		struct pf_stack_end end;
		struct pf_buf b = { 0 };

		memcpy(r.ips, n127, 127 * sizeof(*n127));
		CHECK(pf_replay_format(s, &comms, NULL, &r.s, 1, "cpu-clock", &b, &end) == 0 &&
		    end.why == PF_INCOMPLETE_STACK_COPY, "127 entries: %s",
		    pf_incomplete_name(end.why));
		r.s.nr = 126;
		CHECK(pf_replay_format(s, &comms, NULL, &r.s, 1, "cpu-clock", &b, &end) == 0 &&
		    end.why == PF_INCOMPLETE_NO_UNWIND, "126 entries: %s",
		    pf_incomplete_name(end.why));
		pf_buf_free(&b);
	}
	pf_sym_free(s);
	pf_comms_free(&comms);
}

/* One sample as the recorders write it (pf_replay_format's layout). */
static void
sample_text(struct pf_buf *b, const char *comm, unsigned pid, unsigned tid, uint64_t period,
    const char *const *frames, size_t n)
{
	size_t i;

	pf_buf_reset(b);
	pf_buf_printf(b, "%s %5u/%-5u [%03u] %12s: %10llu %s: \n", comm, pid, tid, 1u,
	    "12.000345", (unsigned long long)period, "cpu-clock");
	for (i = 0; i < n; i++)
		pf_buf_printf(b, "\t%16llx %s+0x%x (/usr/lib/x.so)\n",
		    (unsigned long long)(0x1000 + i), frames[i], (unsigned)i);
	pf_buf_putc(b, '\n');
}

/* A writer on a new memfd, or false, said. */
static bool
memfd_writer(int *fd, struct pf_writer **w, uint64_t max_size, uint64_t min_free)
{
	*w = NULL;
	if ((*fd = memfd()) == -1 || (*w = pf_writer_new(*fd, max_size, min_free)) == NULL) {
		CHECK(0, "memfd writer: %s", strerror(errno));
		if (*fd != -1)
			close(*fd);
		return false;
	}
	return true;
}

/* Whether fd holds exactly the len bytes of want; said when it does not. */
static void
check_file(int fd, const char *want, size_t len, const char *what)
{
	struct pf_buf got = { 0 };

	slurp(fd, &got);
	CHECK(got.len == len && (len == 0 || memcmp(got.data, want, len) == 0),
	    "%s: %zu bytes, want %zu:\n%.*s", what, got.len, len,
	    (int)(got.len > 400 ? 400 : got.len), got.data ? got.data : "");
	pf_buf_free(&got);
}

#define WR_HDR	"# pf-record: version 1\n# pf-record: target pid=7\n"	/* 49 bytes */
#define WR_S1	"a 7/7 [000] 1.000000: 1 cpu-clock: \n\t1 f+0x1 (m)\n\n"	/* 50 */

/*
 * Header lines reach the file at once; comments and samples wait in the
 * buffer, counted by pf_writer_bytes but not by pf_writer_samples until
 * they are written, and a comment is never a sample.
 */
static void
writer_buffering(void)
{
	static const char com[] = "# build-id 0 /x\n";
	struct pf_writer *w;
	int fd;

	if (!memfd_writer(&fd, &w, 1 << 20, 0))
		return;
	CHECK(pf_writer_header(w, "# pf-record: version 1\n", 23) == PF_STOP_NONE, "header 1");
	check_file(fd, "# pf-record: version 1\n", 23, "the first header line at once");
	CHECK(pf_writer_header(w, "# pf-record: target pid=7\n", 26) == PF_STOP_NONE, "header 2");
	check_file(fd, WR_HDR, 49, "the second header line at once");
	CHECK(pf_writer_comment(w, com, sizeof(com) - 1) == PF_STOP_NONE, "comment");
	CHECK(pf_writer_sample(w, WR_S1, 50) == PF_STOP_NONE, "sample");
	check_file(fd, WR_HDR, 49, "the comment and the sample wait in the buffer");
	CHECK(pf_writer_bytes(w) == 49 + sizeof(com) - 1 + 50 && pf_writer_samples(w) == 0,
	    "buffered: %llu bytes (want %zu), %llu samples (want 0)",
	    (unsigned long long)pf_writer_bytes(w), 49 + sizeof(com) - 1 + 50,
	    (unsigned long long)pf_writer_samples(w));
	CHECK(pf_writer_finish(w, "pf-record", 0, 0, PF_STOP_DURATION) == PF_STOP_DURATION,
	    "finish");
	CHECK(pf_writer_samples(w) == 1, "the comment is no sample: %llu samples, want 1",
	    (unsigned long long)pf_writer_samples(w));
	check_file(fd, WR_HDR "# build-id 0 /x\n" WR_S1
	    "# pf-record: samples=1 lost=0 throttled=0 stop=duration bytes=181\n", 181,
	    "header, comment, sample, trailer");
	CHECK(pf_writer_bytes(w) == 181, "bytes after the trailer: %llu, want 181",
	    (unsigned long long)pf_writer_bytes(w));
	pf_writer_free(w);
	close(fd);
}

/*
 * Each trailer form alone, and finish with each stop reason a caller
 * passes: one sample "s\n\n", then exactly the trailer.
 */
static void
writer_trailers(void)
{
	enum extra { X_NONE, X_TRUNC, X_AGGR, X_CHAINS, X_INCOMPLETE };
	static const struct {
		const char *tool;
		uint64_t lost, throttled;
		enum pf_stop reason;
		enum extra extra;
		uint64_t n;
		const char *causes;
		const char *want;
	} t[] = {
		{ "pf-record", 0, 0, PF_STOP_DURATION, X_NONE, 0, NULL,
		  "# pf-record: samples=1 lost=0 throttled=0 stop=duration bytes=68\n" },
		{ "pf-record", 0, 0, PF_STOP_SIGNAL, X_NONE, 0, NULL,
		  "# pf-record: samples=1 lost=0 throttled=0 stop=signal bytes=66\n" },
		{ "pf-record", 0, 0, PF_STOP_TARGET_EXIT, X_NONE, 0, NULL,
		  "# pf-record: samples=1 lost=0 throttled=0 stop=target-exit bytes=71\n" },
		{ "pf-record", 0, 0, PF_STOP_SIZE_CAP, X_NONE, 0, NULL,
		  "# pf-record: samples=1 lost=0 throttled=0 stop=size-cap bytes=68\n" },
		{ "pf-record", 0, 0, PF_STOP_DISK_FLOOR, X_NONE, 0, NULL,
		  "# pf-record: samples=1 lost=0 throttled=0 stop=disk-floor bytes=70\n" },
		{ "pf-record", 0, 0, PF_STOP_DISK_FULL, X_NONE, 0, NULL,
		  "# pf-record: samples=1 lost=0 throttled=0 stop=disk-full bytes=69\n" },
		{ "pf-record", 0, 0, PF_STOP_RATE_CAP, X_NONE, 0, NULL,
		  "# pf-record: samples=1 lost=0 throttled=0 stop=rate-cap bytes=68\n" },
		{ "pf-record", 0, 0, PF_STOP_MEMORY, X_NONE, 0, NULL,
		  "# pf-record: samples=1 lost=0 throttled=0 stop=memory bytes=66\n" },
		{ "pf-record", UINT64_MAX, UINT64_MAX, PF_STOP_DURATION, X_NONE, 0, NULL,
		  "# pf-record: samples=1 lost=18446744073709551615 "
		  "throttled=18446744073709551615 stop=duration bytes=107\n" },
		{ "pf-record", 0, 0, PF_STOP_DURATION, X_TRUNC, 5, NULL,
		  "# pf-record: samples=1 lost=0 throttled=0 truncated=5 stop=duration bytes=80\n" },
		{ "pf-offcpu", 0, 0, PF_STOP_SIGNAL, X_AGGR, 6, NULL,
		  "# pf-offcpu: samples=1 lost=0 throttled=0 aggregated=6 stop=signal bytes=79\n" },
		{ "pf-record", 0, 0, PF_STOP_DURATION, X_CHAINS, 7, NULL,
		  "# pf-record: samples=1 lost=0 throttled=0 unknown-chain=7 stop=duration "
		  "bytes=84\n" },
		/* No incomplete stack: its causes are not said, whatever they were. */
		{ "pf-record", 0, 0, PF_STOP_DURATION, X_INCOMPLETE, 0, "budget:1",
		  "# pf-record: samples=1 lost=0 throttled=0 incomplete=0 stop=duration bytes=81\n" },
		{ "pf-record", 0, 0, PF_STOP_DURATION, X_INCOMPLETE, 2, "",
		  "# pf-record: samples=1 lost=0 throttled=0 incomplete=2 stop=duration bytes=81\n" },
		{ "pf-record", 0, 0, PF_STOP_DURATION, X_INCOMPLETE, 2, NULL,
		  "# pf-record: samples=1 lost=0 throttled=0 incomplete=2 stop=duration bytes=81\n" },
		{ "pf-record", 0, 0, PF_STOP_DURATION, X_INCOMPLETE, 3, "budget:3",
		  "# pf-record: samples=1 lost=0 throttled=0 incomplete=3 "
		  "incomplete-causes=budget:3 stop=duration bytes=109\n" },
		/* Causes past PF_WRITER_CAUSES_MAX (192): cut to it; made below. */
		{ "pf-record", 0, 0, PF_STOP_DURATION, X_INCOMPLETE, 2, NULL, NULL },
	};
	char causes[300], want[512], what[32];
	struct pf_writer *w;
	enum pf_stop r;
	size_t i;
	int fd, n;

	memset(causes, 'a', sizeof(causes) - 1);
	causes[sizeof(causes) - 1] = '\0';
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *c = t[i].causes;

		if (t[i].want != NULL)
			n = snprintf(want, sizeof(want), "s\n\n%s", t[i].want);
		else {
			c = causes;
			n = snprintf(want, sizeof(want), "s\n\n# pf-record: samples=1 lost=0 "
			    "throttled=0 incomplete=2 incomplete-causes=%.192s stop=duration "
			    "bytes=293\n", causes);
		}
		if (!memfd_writer(&fd, &w, 1 << 20, 0))
			return;
		if (t[i].extra == X_TRUNC)
			pf_writer_trailer_truncated(w, t[i].n);
		else if (t[i].extra == X_AGGR)
			pf_writer_trailer_aggregated(w, t[i].n);
		else if (t[i].extra == X_CHAINS)
			pf_writer_trailer_chains(w, t[i].n);
		else if (t[i].extra == X_INCOMPLETE)
			pf_writer_trailer_incomplete(w, t[i].n, c);
		CHECK(pf_writer_sample(w, "s\n\n", 3) == PF_STOP_NONE, "trailer %zu: sample", i);
		r = pf_writer_finish(w, t[i].tool, t[i].lost, t[i].throttled, t[i].reason);
		CHECK(r == t[i].reason, "trailer %zu: finish returns %s, want %s", i,
		    pf_stop_name(r), pf_stop_name(t[i].reason));
		snprintf(what, sizeof(what), "trailer %zu", i);
		check_file(fd, want, (size_t)n, what);
		pf_writer_free(w);
		close(fd);
	}
}

/*
 * Under a size cap of max bytes, a header of hlen bytes and then samples
 * of slen bytes each until one is refused: exactly the samples that fit
 * with the trailer's room (PF_WRITER_TRAILER_MAX, 512) kept are taken,
 * the stream ends with the last of them, then the trailer, and is never
 * longer than max.
 */
static void
size_cap_case(uint64_t max, size_t hlen, size_t slen)
{
	uint64_t fit = (max - 512 - hlen) / slen, k;
	struct pf_buf hdr = { 0 }, smp = { 0 }, got = { 0 };
	struct pf_writer *w;
	enum pf_stop r = PF_STOP_NONE;
	char want[128];
	int fd, n;

	if (!memfd_writer(&fd, &w, max, 0))
		return;
	pf_buf_printf(&smp, "%*s\n\n", (int)slen - 2, "s");
	if (hlen > 0) {
		pf_buf_printf(&hdr, "# %*s\n", (int)hlen - 3, "h");
		CHECK(pf_writer_header(w, hdr.data, hdr.len) == PF_STOP_NONE,
		    "cap %llu: the header fits", (unsigned long long)max);
	}
	for (k = 0; k <= fit + 1; k++)
		if ((r = pf_writer_sample(w, smp.data, smp.len)) != PF_STOP_NONE)
			break;
	CHECK(r == PF_STOP_SIZE_CAP && k == fit, "cap %llu: %llu samples of %zu taken (want "
	    "%llu), then %s", (unsigned long long)max, (unsigned long long)k, slen,
	    (unsigned long long)fit, pf_stop_name(r));
	CHECK(pf_writer_sample(w, "\n", 1) == PF_STOP_SIZE_CAP, "cap %llu: it stays",
	    (unsigned long long)max);
	CHECK(pf_writer_finish(w, "pf-record", 0, 0, PF_STOP_SIGNAL) == PF_STOP_SIZE_CAP,
	    "cap %llu: the writer's reason over the caller's", (unsigned long long)max);
	slurp(fd, &got);
	n = snprintf(want, sizeof(want), "# pf-record: samples=%llu lost=0 throttled=0 "
	    "stop=size-cap bytes=%zu\n", (unsigned long long)k, got.len);
	CHECK(got.len <= max, "cap %llu: %zu bytes written", (unsigned long long)max, got.len);
	CHECK(got.len == hlen + k * slen + (size_t)n &&
	    (hlen == 0 || memcmp(got.data, hdr.data, hlen) == 0) &&
	    memcmp(got.data + hlen + k * slen, want, (size_t)n) == 0,
	    "cap %llu: the header, %llu samples, then %.*s, got %zu bytes ending %.*s",
	    (unsigned long long)max, (unsigned long long)k, n - 1, want, got.len,
	    got.len > 100 ? 100 : (int)got.len, got.data + (got.len > 100 ? got.len - 100 : 0));
	for (n = 0; (uint64_t)n < k && got.len >= hlen + k * slen; n++)
		if (memcmp(got.data + hlen + (size_t)n * slen, smp.data, slen) != 0)
			break;
	CHECK((uint64_t)n == k, "cap %llu: sample %d is not whole", (unsigned long long)max, n);
	pf_writer_free(w);
	close(fd);
	pf_buf_free(&hdr);
	pf_buf_free(&smp);
	pf_buf_free(&got);
}

static void
writer_size_cap(void)
{
	uint64_t max;

	/* Every cap from the header and the trailer's room to 3 samples past it. */
	for (max = 49 + 512; max <= 49 + 512 + 3 * 37 + 1; max++)
		size_cap_case(max, 49, 37);
	/* Past a write piece (16 KiB): 39 samples of 1000 bytes, flushed on the way. */
	size_cap_case(40000, 0, 1000);
	size_cap_case(39512, 0, 1000);
	size_cap_case(39511, 0, 1000);
	/* A sample longer than a piece. */
	size_cap_case(4 * 20000 + 512 + 100, 100, 20000);
}

/*
 * Write errors: what the writer says (its stop reason and errno), that
 * it keeps saying it, and what is in the output.
 */
static void
writer_errors(void)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, oldpipe, oldxfsz;
	const char *tmp = getenv("BATS_TEST_TMPDIR");
	char path[PATH_MAX + 32];
	struct rlimit lim, old;
	struct pf_writer *w;
	struct pf_buf want = { 0 }, smp = { 0 };
	enum pf_stop r = PF_STOP_NONE;
	int fd, p[2], k;

	sigemptyset(&ign.sa_mask);
	/* A full device: the header fails at once, ENOSPC. */
	if ((fd = open("/dev/full", O_WRONLY | O_CLOEXEC)) != -1 &&
	    (w = pf_writer_new(fd, 1 << 20, 0)) != NULL) {
		CHECK(pf_writer_header(w, WR_HDR, 49) == PF_STOP_DISK_FULL,
		    "/dev/full: the header, disk-full");
		CHECK(pf_writer_errno(w) == ENOSPC, "/dev/full: ENOSPC (%d)", pf_writer_errno(w));
		CHECK(pf_writer_sample(w, WR_S1, 50) == PF_STOP_DISK_FULL,
		    "/dev/full: no sample after it");
		CHECK(pf_writer_finish(w, "pf-record", 0, 0, PF_STOP_DURATION) == PF_STOP_DISK_FULL,
		    "/dev/full: finish, disk-full");
		CHECK(pf_writer_samples(w) == 0, "/dev/full: no sample written (%llu)",
		    (unsigned long long)pf_writer_samples(w));
		pf_writer_free(w);
		close(fd);
	} else
		CHECK(0, "/dev/full: %s", strerror(errno));

	/* A pipe whose reader is gone before anything: EPIPE at the header, no trailer. */
	sigaction(SIGPIPE, &ign, &oldpipe);
	if (pipe2(p, O_CLOEXEC) == 0) {
		close(p[0]);
		if ((w = pf_writer_new(p[1], 1 << 20, 0)) != NULL) {
			CHECK(pf_writer_header(w, WR_HDR, 49) == PF_STOP_PIPE,
			    "closed pipe: the header, pipe");
			CHECK(pf_writer_errno(w) == EPIPE, "closed pipe: EPIPE (%d)",
			    pf_writer_errno(w));
			CHECK(pf_writer_sample(w, WR_S1, 50) == PF_STOP_PIPE,
			    "closed pipe: no sample after it");
			CHECK(pf_writer_finish(w, "pf-record", 0, 0, PF_STOP_SIGNAL) ==
			    PF_STOP_PIPE, "closed pipe: finish, pipe");
			pf_writer_free(w);
		} else
			CHECK(0, "pipe writer: %s", strerror(errno));
		close(p[1]);
	} else
		CHECK(0, "pipe: %s", strerror(errno));
	sigaction(SIGPIPE, &oldpipe, NULL);

	/*
	 * A regular file that cannot grow past 20,000 bytes (RLIMIT_FSIZE, as
	 * a full filesystem, without one: EFBIG): the header and sixteen
	 * samples of 1000 bytes reach it in the first 16 KiB piece; the next
	 * piece is cut short by the limit, taken back to the last whole
	 * sample, and the trailer still goes after it.  A file of the test's
	 * filesystem, not a memfd: ext4's fallocate(KEEP_SIZE) lets the
	 * trailer's room past the limit, so the write itself stops part way
	 * (tmpfs refuses the room first, and nothing of the piece is written).
	 */
	snprintf(path, sizeof(path), "%s/pf-unit-efbig.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (getrlimit(RLIMIT_FSIZE, &old) == -1 || (fd = mkstemp(path)) == -1) {
		CHECK(0, "RLIMIT_FSIZE, %s: %s", path, strerror(errno));
		return;
	}
	unlink(path);
	if ((w = pf_writer_new(fd, 1 << 20, 0)) == NULL) {
		CHECK(0, "writer: %s", strerror(errno));
		close(fd);
		return;
	}
	lim = old;
	lim.rlim_cur = 20000;
	sigaction(SIGXFSZ, &ign, &oldxfsz);
	if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur < 40000)
		CHECK(0, "RLIMIT_FSIZE is already %llu", (unsigned long long)old.rlim_cur);
	else if (setrlimit(RLIMIT_FSIZE, &lim) == -1)
		CHECK(0, "setrlimit RLIMIT_FSIZE: %s", strerror(errno));
	else {
		pf_buf_printf(&smp, "%998s\n\n", "s");
		CHECK(pf_writer_header(w, WR_HDR, 49) == PF_STOP_NONE, "EFBIG: header");
		for (k = 0; k < 40; k++)
			if ((r = pf_writer_sample(w, smp.data, smp.len)) != PF_STOP_NONE)
				break;
		CHECK(k == 32 && r == PF_STOP_DISK_FULL, "EFBIG: %d samples taken (want 32), then "
		    "%s (want disk-full)", k, pf_stop_name(r));
		CHECK(pf_writer_errno(w) == EFBIG, "EFBIG: errno %d", pf_writer_errno(w));
		CHECK(pf_writer_samples(w) == 16, "EFBIG: %llu samples written, want 16",
		    (unsigned long long)pf_writer_samples(w));
		pf_buf_puts(&want, WR_HDR);
		for (k = 0; k < 16; k++)
			pf_buf_append(&want, smp.data, smp.len);
		check_file(fd, want.data, want.len, "EFBIG: cut back to the last whole sample");
		CHECK(pf_writer_finish(w, "pf-record", 0, 0, PF_STOP_DURATION) == PF_STOP_DISK_FULL,
		    "EFBIG: finish, disk-full");
		pf_buf_puts(&want, "# pf-record: samples=16 lost=0 throttled=0 stop=disk-full "
		    "bytes=16119\n");
		check_file(fd, want.data, want.len, "EFBIG: the trailer after the last whole sample");
		if (setrlimit(RLIMIT_FSIZE, &old) == -1)
			CHECK(0, "setrlimit back: %s", strerror(errno));
	}
	sigaction(SIGXFSZ, &oldxfsz, NULL);
	pf_writer_free(w);
	close(fd);
	pf_buf_free(&want);
	pf_buf_free(&smp);
}

/* Free bytes for us on fd's filesystem, as the writer measures them; 0 unknown. */
static uint64_t
free_bytes(int fd)
{
	struct statvfs sv;

	if (fstatvfs(fd, &sv) == -1)
		return 0;
	return (uint64_t)sv.f_bavail * sv.f_frsize;
}

/*
 * A file of n bytes' blocks in dir (another writer filling the disk),
 * its descriptor, or -1.
 */
static int
fill(const char *dir, uint64_t n)
{
	char path[PATH_MAX + 16];
	int fd;

	snprintf(path, sizeof(path), "%s/filler.XXXXXX", dir);
	if ((fd = mkstemp(path)) == -1)
		return -1;
	unlink(path);
	if (fallocate(fd, 0, 0, (off_t)n) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The free-disk floor on a regular file of the test's filesystem, its
 * free space read as the writer reads it (fstatvfs).  A memfd has none
 * to read (its filesystem reports no blocks), so these need a real one.
 * The floor is put M below the free space, so that what other writers
 * do meanwhile (far less than M in the instants between) changes no
 * answer.
 */
static void
writer_floor(void)
{
	const uint64_t M = 16 << 20;
	const char *tmp = getenv("BATS_TEST_TMPDIR");
	char dir[PATH_MAX], path[PATH_MAX + 16];
	struct pf_writer *w;
	uint64_t avail;
	void *huge;
	int fd = -1, filler;

	snprintf(dir, sizeof(dir), "%s/pf-unit-floor.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/out", dir);
	huge = mmap(NULL, 2 * M, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	/* A floor above the free space: nothing written, but the trailer. */
	if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) == -1 ||
	    (avail = free_bytes(fd)) < 4 * M || huge == MAP_FAILED) {
		CHECK(0, "%s: %llu bytes free (want %llu): %s", path,
		    (unsigned long long)(fd == -1 ? 0 : free_bytes(fd)),
		    (unsigned long long)(4 * M), strerror(errno));
		goto out;
	}
	if ((w = pf_writer_new(fd, 1 << 20, avail + M)) != NULL) {
		CHECK(pf_writer_header(w, WR_HDR, 49) == PF_STOP_DISK_FLOOR,
		    "floor above the free space: the header, disk-floor");
		CHECK(pf_writer_sample(w, WR_S1, 50) == PF_STOP_DISK_FLOOR,
		    "floor above the free space: no sample");
		check_file(fd, "", 0, "floor above the free space: nothing");
		CHECK(pf_writer_finish(w, "pf-record", 0, 0, PF_STOP_DURATION) ==
		    PF_STOP_DISK_FLOOR, "floor above the free space: finish, disk-floor");
		check_file(fd, "# pf-record: samples=0 lost=0 throttled=0 stop=disk-floor "
		    "bytes=67\n", 67, "floor above the free space: the trailer alone");
		pf_writer_free(w);
	} else
		CHECK(0, "writer: %s", strerror(errno));
	close(fd);

	/* A sample that would take the free space below the floor is refused, and every later one. */
	if ((fd = open(path, O_RDWR | O_TRUNC | O_CLOEXEC)) == -1 ||
	    (w = pf_writer_new(fd, UINT64_MAX, free_bytes(fd) - M)) == NULL) {
		CHECK(0, "%s: %s", path, strerror(errno));
		goto out;
	}
	CHECK(pf_writer_header(w, WR_HDR, 49) == PF_STOP_NONE, "floor: the header fits");
	CHECK(pf_writer_sample(w, WR_S1, 50) == PF_STOP_NONE, "floor: a sample fits");
	CHECK(pf_writer_sample(w, huge, 2 * M) == PF_STOP_DISK_FLOOR,
	    "floor: a sample of twice the room left, disk-floor");
	CHECK(pf_writer_sample(w, WR_S1, 50) == PF_STOP_DISK_FLOOR, "floor: and no sample after");
	CHECK(pf_writer_finish(w, "pf-record", 0, 0, PF_STOP_SIGNAL) == PF_STOP_DISK_FLOOR,
	    "floor: finish, disk-floor over the caller's signal");
	check_file(fd, WR_HDR WR_S1 "# pf-record: samples=1 lost=0 throttled=0 stop=disk-floor "
	    "bytes=167\n", 167, "floor: the sample taken, then the trailer");
	pf_writer_free(w);
	close(fd);

	/*
	 * Another writer takes twice the room left while a sample waits in
	 * the buffer: measured again before the write, the floor stops it.
	 */
	if ((fd = open(path, O_RDWR | O_TRUNC | O_CLOEXEC)) == -1 ||
	    (w = pf_writer_new(fd, UINT64_MAX, free_bytes(fd) - M)) == NULL) {
		CHECK(0, "%s: %s", path, strerror(errno));
		goto out;
	}
	CHECK(pf_writer_header(w, WR_HDR, 49) == PF_STOP_NONE, "filled: the header fits");
	CHECK(pf_writer_sample(w, WR_S1, 50) == PF_STOP_NONE, "filled: a sample waits");
	if ((filler = fill(dir, 2 * M)) == -1)
		CHECK(0, "filling %s: %s", dir, strerror(errno));
	else {
		CHECK(pf_writer_finish(w, "pf-record", 0, 0, PF_STOP_DURATION) ==
		    PF_STOP_DISK_FLOOR, "filled: finish, disk-floor");
		check_file(fd, WR_HDR "# pf-record: samples=0 lost=0 throttled=0 "
		    "stop=disk-floor bytes=117\n", 117, "filled: the waiting sample not written");
		close(filler);
	}
	pf_writer_free(w);
out:
	if (fd != -1)
		close(fd);
	if (huge != MAP_FAILED)
		munmap(huge, 2 * M);
	unlink(path);
	rmdir(dir);
}

static void
test_writer(void)
{
	static const char hdr[] = "# pf-record: version 1\n# pf-record: target pid=7\n";
	static const char s1[] = "a 7/7 [000] 1.000000: 1 cpu-clock: \n\t1 f+0x1 (m)\n\n";
	static const char s2[] = "b 8/8 [001] 2.000000: 2 cpu-clock: \n\t2 g+0x2 (m)\n\n";
	/* Bytes the writer must pass as they are: it owns the caps, not the names. */
	static const char hostile[] =
	    "x\x1b]0;t\x07 9/9 [000] 3.000000: 3 cpu-clock: \n"
	    "\t3 \x01\x7f\xff\xc0\x80;\"<>+0x3 (m)\n\n";
	struct pf_writer *w;
	struct pf_buf got = { 0 }, want = { 0 }, smp = { 0 }, folded = { 0 };
	char *big;
	size_t bigname = 20000;
	char pbuf[4];
	int fd, p[2];

	/* Header, samples, trailer: the stream is exactly what was given, then the trailer. */
	if ((fd = memfd()) == -1 || (w = pf_writer_new(fd, 1 << 20, 0)) == NULL) {
		CHECK(0, "memfd writer: %s", strerror(errno));
		return;
	}
	CHECK(pf_writer_header(w, hdr, sizeof(hdr) - 1) == PF_STOP_NONE, "header");
	CHECK(slurp(fd, &got) == sizeof(hdr) - 1, "the header reaches the file at once (%zu)",
	    got.len);
	CHECK(pf_writer_bytes(w) == sizeof(hdr) - 1 && pf_writer_samples(w) == 0,
	    "after the header: %llu bytes, %llu samples",
	    (unsigned long long)pf_writer_bytes(w), (unsigned long long)pf_writer_samples(w));
	CHECK(pf_writer_sample(w, s1, sizeof(s1) - 1) == PF_STOP_NONE, "sample 1");
	CHECK(pf_writer_sample(w, s2, sizeof(s2) - 1) == PF_STOP_NONE, "sample 2");
	CHECK(pf_writer_bytes(w) == sizeof(hdr) - 1 + sizeof(s1) - 1 + sizeof(s2) - 1,
	    "bytes count the buffered samples (%llu)", (unsigned long long)pf_writer_bytes(w));
	CHECK(pf_writer_samples(w) == 0, "buffered samples are not counted before they are written");
	CHECK(pf_writer_sample(w, hostile, sizeof(hostile) - 1) == PF_STOP_NONE, "hostile");
	CHECK(pf_writer_finish(w, "pf-record", 3, 4, PF_STOP_DURATION) == PF_STOP_DURATION,
	    "finish: duration");
	CHECK(pf_writer_samples(w) == 3, "3 samples written (%llu)",
	    (unsigned long long)pf_writer_samples(w));
	CHECK(pf_writer_errno(w) == 0, "no error");
	pf_buf_append(&want, hdr, sizeof(hdr) - 1);
	pf_buf_append(&want, s1, sizeof(s1) - 1);
	pf_buf_append(&want, s2, sizeof(s2) - 1);
	pf_buf_append(&want, hostile, sizeof(hostile) - 1);
	/* 49 + 50 + 50 + 64 bytes before it, 66 of its own. */
	pf_buf_puts(&want, "# pf-record: samples=3 lost=3 throttled=4 stop=duration bytes=279\n");
	slurp(fd, &got);
	CHECK(same_bytes(&got, want.data, want.len), "stream: %zu bytes, want %zu:\n%.*s",
	    got.len, want.len, (int)got.len, got.data);
	CHECK(pf_writer_bytes(w) == 279, "bytes= is the stream's size (%llu)",
	    (unsigned long long)pf_writer_bytes(w));
	pf_writer_free(w);
	close(fd);

	/* The trailer's extras, in their order. */
	if ((fd = memfd()) == -1 || (w = pf_writer_new(fd, 1 << 20, 0)) == NULL) {
		CHECK(0, "memfd writer: %s", strerror(errno));
		return;
	}
	pf_writer_trailer_incomplete(w, 4, "stack-copy:3,budget:1");
	pf_writer_trailer_chains(w, 7);
	pf_writer_trailer_aggregated(w, 6);
	pf_writer_trailer_truncated(w, 5);
	CHECK(pf_writer_sample(w, "s\n\n", 3) == PF_STOP_NONE, "sample");
	CHECK(pf_writer_finish(w, "pf-offcpu", 0, 0, PF_STOP_SIGNAL) == PF_STOP_SIGNAL,
	    "finish: signal");
	slurp(fd, &got);
	pf_buf_reset(&want);
	pf_buf_puts(&want, "s\n\n# pf-offcpu: samples=1 lost=0 throttled=0 truncated=5 "
	    "aggregated=6 unknown-chain=7 incomplete=4 incomplete-causes=stack-copy:3,budget:1 "
	    "stop=signal bytes=161\n");
	CHECK(same_bytes(&got, want.data, want.len), "extras: %.*s", (int)got.len, got.data);
	pf_writer_free(w);
	close(fd);

	if ((fd = memfd()) == -1 || (w = pf_writer_new(fd, 1 << 20, 0)) == NULL) {
		CHECK(0, "memfd writer: %s", strerror(errno));
		return;
	}
	/* bytes= counts its own digits: 35 + 62 + 3 digits + newline = 101, not 100. */
	CHECK(pf_writer_sample(w, "012345678901234567890123456789012\n\n", 35) == PF_STOP_NONE,
	    "sample");
	CHECK(pf_writer_finish(w, "pf-record", 0, 0, PF_STOP_DURATION) == PF_STOP_DURATION,
	    "finish");
	slurp(fd, &got);
	pf_buf_reset(&want);
	pf_buf_puts(&want, "012345678901234567890123456789012\n\n"
	    "# pf-record: samples=1 lost=0 throttled=0 stop=duration bytes=101\n");
	CHECK(same_bytes(&got, want.data, want.len), "101 bytes, trailer included: %.*s",
	    (int)got.len, got.data);
	pf_writer_free(w);
	close(fd);

	/* A sample longer than a write piece, with a 20,000-byte name: whole, in pieces. */
	big = malloc(bigname + 1);
	if (big == NULL) {
		CHECK(0, "malloc");
		return;
	}
	memset(big, 'n', bigname);
	big[bigname] = '\0';
	{
		const char *frames[] = { "leaf", big, "main" };

		sample_text(&smp, "long", 11, 12, 5, frames, 3);
	}
	CHECK(smp.len > PF_WRITER_PIECE, "the long sample is longer than a piece");
	if ((fd = memfd()) == -1 || (w = pf_writer_new(fd, 1 << 20, 0)) == NULL) {
		CHECK(0, "memfd writer: %s", strerror(errno));
		free(big);
		return;
	}
	CHECK(pf_writer_sample(w, s1, sizeof(s1) - 1) == PF_STOP_NONE, "short sample");
	CHECK(pf_writer_sample(w, smp.data, smp.len) == PF_STOP_NONE, "long sample");
	CHECK(pf_writer_samples(w) == 2, "both written once past a piece (%llu)",
	    (unsigned long long)pf_writer_samples(w));
	CHECK(slurp(fd, &got) == sizeof(s1) - 1 + smp.len &&
	    memcmp(got.data + sizeof(s1) - 1, smp.data, smp.len) == 0,
	    "the long sample reaches the file whole (%zu bytes)", got.len);
	pf_writer_free(w);
	close(fd);

	/*
	 * Round trip: what the writer wrote, read by the stream's parser, is
	 * the stacks that went in (a comm with spaces and escape bytes, an
	 * escape sequence and a 20,000-byte name among the frames).
	 */
	if ((fd = memfd()) == -1 || (w = pf_writer_new(fd, 1 << 20, 0)) == NULL) {
		CHECK(0, "memfd writer: %s", strerror(errno));
		free(big);
		return;
	}
	CHECK(pf_writer_header(w, hdr, sizeof(hdr) - 1) == PF_STOP_NONE, "header");
	{
		const char *f1[] = { "leaf\x1b[2J", "mid", "main" };
		const char *f2[] = { "other", big, "main" };

		sample_text(&smp, "my prog\x1b", 21, 22, 1000, f1, 3);
		CHECK(pf_writer_sample(w, smp.data, smp.len) == PF_STOP_NONE, "rt sample 1");
		sample_text(&smp, "thr", 21, 23, 250, f2, 3);
		CHECK(pf_writer_sample(w, smp.data, smp.len) == PF_STOP_NONE, "rt sample 2");
	}
	CHECK(pf_writer_finish(w, "pf-record", 0, 0, PF_STOP_DURATION) == PF_STOP_DURATION,
	    "finish");
	slurp(fd, &got);
	CHECK(read_back(&got, &folded) == 0, "the parser reads the stream: %s", strerror(errno));
	pf_buf_reset(&want);
	pf_buf_puts(&want, "my_prog\x1b-21;main;mid;leaf\x1b[2J 1000\nthr-21;main;");
	pf_buf_puts(&want, big);
	pf_buf_puts(&want, ";other 250\n");
	CHECK(same_bytes(&folded, want.data, want.len), "read back: %.*s", (int)folded.len > 200 ?
	    200 : (int)folded.len, folded.data);
	pf_writer_free(w);
	close(fd);
	free(big);

	/* The size cap: the sample that would pass it is refused, and every one after. */
	if ((fd = memfd()) == -1 ||
	    (w = pf_writer_new(fd, (sizeof(s1) - 1) * 2 + PF_WRITER_TRAILER_MAX, 0)) == NULL) {
		CHECK(0, "memfd writer: %s", strerror(errno));
		return;
	}
	CHECK(pf_writer_sample(w, s1, sizeof(s1) - 1) == PF_STOP_NONE, "first fits");
	CHECK(pf_writer_sample(w, s1, sizeof(s1) - 1) == PF_STOP_NONE, "second fits exactly");
	CHECK(pf_writer_sample(w, "\n", 1) == PF_STOP_SIZE_CAP, "one byte more: size-cap");
	CHECK(pf_writer_sample(w, "", 0) == PF_STOP_SIZE_CAP, "and it stays");
	CHECK(pf_writer_finish(w, "pf-record", 0, 0, PF_STOP_DURATION) == PF_STOP_SIZE_CAP,
	    "the cap overrides the caller's reason");
	slurp(fd, &got);
	CHECK(got.len <= (sizeof(s1) - 1) * 2 + PF_WRITER_TRAILER_MAX &&
	    got.len > (sizeof(s1) - 1) * 2 &&
	    memcmp(got.data + (sizeof(s1) - 1) * 2, "# pf-record: samples=2 lost=0 throttled=0 "
	    "stop=size-cap bytes=", 62) == 0, "capped stream: %.*s", (int)got.len, got.data);
	pf_writer_free(w);
	close(fd);

	/* The disk floor: nothing is written when the filesystem cannot keep it. */
	if ((fd = memfd()) == -1 || (w = pf_writer_new(fd, 1 << 20, UINT64_MAX / 2)) == NULL) {
		CHECK(0, "memfd writer: %s", strerror(errno));
		return;
	}
	CHECK(pf_writer_header(w, hdr, sizeof(hdr) - 1) == PF_STOP_DISK_FLOOR, "header: floor");
	CHECK(pf_writer_sample(w, s1, sizeof(s1) - 1) == PF_STOP_DISK_FLOOR, "sample: floor");
	CHECK(slurp(fd, &got) == 0, "nothing below the floor (%zu bytes)", got.len);
	pf_writer_free(w);
	close(fd);

	/* Write errors: a full device, a descriptor not open for writing, a closed pipe. */
	if ((fd = open("/dev/full", O_WRONLY | O_CLOEXEC)) != -1 &&
	    (w = pf_writer_new(fd, 1 << 20, 0)) != NULL) {
		CHECK(pf_writer_sample(w, s1, sizeof(s1) - 1) == PF_STOP_NONE, "buffered");
		CHECK(pf_writer_finish(w, "pf-record", 0, 0, PF_STOP_DURATION) == PF_STOP_DISK_FULL,
		    "/dev/full: disk-full");
		CHECK(pf_writer_errno(w) == ENOSPC, "/dev/full: ENOSPC (%d)", pf_writer_errno(w));
		pf_writer_free(w);
		close(fd);
	} else
		CHECK(0, "/dev/full: %s", strerror(errno));
	if ((fd = memfd()) != -1) {
		int ro;
		char path[64];

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if ((ro = open(path, O_RDONLY | O_CLOEXEC)) != -1 &&
		    (w = pf_writer_new(ro, 1 << 20, 0)) != NULL) {
			CHECK(pf_writer_header(w, hdr, sizeof(hdr) - 1) == PF_STOP_IO,
			    "read-only descriptor: io-error");
			CHECK(pf_writer_errno(w) == EBADF, "EBADF (%d)", pf_writer_errno(w));
			CHECK(pf_writer_finish(w, "pf-record", 0, 0, PF_STOP_DURATION) == PF_STOP_IO,
			    "finish: io-error, no trailer");
			CHECK(slurp(fd, &got) == 0, "nothing written (%zu)", got.len);
			pf_writer_free(w);
		} else
			CHECK(0, "read-only reopen: %s", strerror(errno));
		if (ro != -1)
			close(ro);
		close(fd);
	}
	/* Comments after the header: under the caps, buffered, no sample. */
	if ((fd = memfd()) != -1 && (w = pf_writer_new(fd, 4096, 0)) != NULL) {
		CHECK(pf_writer_header(w, "# h\n", 4) == PF_STOP_NONE, "comments: header");
		CHECK(pf_writer_comment(w, "# c\n", 4) == PF_STOP_NONE, "comments: one");
		CHECK(pf_writer_sample(w, s1, sizeof(s1) - 1) == PF_STOP_NONE, "comments: sample");
		CHECK(pf_writer_finish(w, "pf-record", 0, 0, PF_STOP_DURATION) == PF_STOP_DURATION,
		    "comments: finish");
		CHECK(pf_writer_samples(w) == 1, "comments: 1 sample (%llu)",
		    (unsigned long long)pf_writer_samples(w));
		slurp(fd, &got);
		CHECK(got.len > 8 + sizeof(s1) - 1 && memcmp(got.data, "# h\n# c\n", 8) == 0 &&
		    memcmp(got.data + 8, s1, sizeof(s1) - 1) == 0, "comments: in their place");
		pf_writer_free(w);
		close(fd);
	} else
		CHECK(0, "memfd writer: %s", strerror(errno));
	if ((fd = memfd()) != -1 && (w = pf_writer_new(fd, 4096, 0)) != NULL) {
		char line[4096];

		memset(line, 'x', sizeof(line));
		line[0] = '#';
		line[sizeof(line) - 1] = '\n';
		CHECK(pf_writer_comment(w, line, sizeof(line)) == PF_STOP_SIZE_CAP,
		    "a comment past the size cap stops the stream");
		CHECK(pf_writer_sample(w, s1, sizeof(s1) - 1) == PF_STOP_SIZE_CAP,
		    "and no sample follows");
		pf_writer_free(w);
		close(fd);
	} else
		CHECK(0, "memfd writer: %s", strerror(errno));
	signal(SIGPIPE, SIG_IGN);
	/* The reader does not wait: a header that did not arrive fails, never hangs. */
	if (pipe2(p, O_CLOEXEC) == 0 && fcntl(p[0], F_SETFL, O_NONBLOCK) == 0 &&
	    (w = pf_writer_new(p[1], 1 << 20, 0)) != NULL) {
		CHECK(pf_writer_header(w, "# h\n", 4) == PF_STOP_NONE, "pipe: header");
		CHECK(read(p[0], pbuf, 4) == 4 && memcmp(pbuf, "# h\n", 4) == 0,
		    "pipe: the header is there at once");
		close(p[0]);
		CHECK(pf_writer_sample(w, s1, sizeof(s1) - 1) == PF_STOP_NONE, "pipe: buffered");
		CHECK(pf_writer_finish(w, "pf-record", 0, 0, PF_STOP_DURATION) == PF_STOP_PIPE,
		    "closed pipe: pipe");
		CHECK(pf_writer_errno(w) == EPIPE, "EPIPE (%d)", pf_writer_errno(w));
		pf_writer_free(w);
		close(p[1]);
	} else
		CHECK(0, "pipe: %s", strerror(errno));
	pf_writer_free(NULL);

	pf_buf_free(&got);
	pf_buf_free(&want);
	pf_buf_free(&smp);
	pf_buf_free(&folded);

	writer_buffering();
	writer_trailers();
	writer_size_cap();
	writer_errors();
	writer_floor();
}

/* ---- build-ids and debug files ----------------------------------------- */

struct bid_seen {
	const char *want;	/* the path looked for */
	int found;
	struct pf_buildid id;
	size_t files;
};

static void
bid_cb(const char *path, const struct pf_buildid *id, void *arg)
{
	struct bid_seen *b = arg;

	b->files++;
	if (strcmp(path, b->want) == 0) {
		b->found++;
		b->id = *id;
	}
}

/* A copy of the file at from in dir/name, made mode 0600: its path, or NULL. */
static char *
copy_file(const char *from, const char *dir, const char *name)
{
	static char to[PATH_MAX];
	struct pf_buf b = { 0 };
	int in, out;
	char chunk[65536];
	ssize_t n;
	bool ok;

	snprintf(to, sizeof(to), "%s/%s", dir, name);
	if ((in = open(from, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	while ((n = read(in, chunk, sizeof(chunk))) > 0)
		pf_buf_append(&b, chunk, (size_t)n);
	close(in);
	if ((out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) == -1) {
		pf_buf_free(&b);
		return NULL;
	}
	ok = pf_write_all(out, b.data, b.len) == 0;
	close(out);
	pf_buf_free(&b);
	return ok ? to : NULL;
}

/*
 * Where our own build-id note lies in our file: its descriptor's type
 * word, found by the bytes around it (type 3, "GNU\0", the build-id).
 */
static off_t
note_type_at(const char *path)
{
	unsigned char pat[8 + PF_BUILDID_MAX];
	struct pf_buf b = { 0 };
	char chunk[65536];
	const char *hit;
	ssize_t n;
	off_t at = -1;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		pf_buf_append(&b, chunk, (size_t)n);
	close(fd);
	pat[0] = 3, pat[1] = pat[2] = pat[3] = 0;
	memcpy(pat + 4, "GNU", 4);
	memcpy(pat + 8, self.bid, self.bidlen);
	if (b.data && (hit = memmem(b.data, b.len, pat, 8 + self.bidlen)) != NULL)
		at = (off_t)(hit - b.data);
	pf_buf_free(&b);
	return at;
}

/* The main program's load bias. */
static int
load_bias_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr;
	return 1;
}

static void
test_debugfile(void)
{
	struct pf_symbolizer *s;
	struct pf_frame_out out;
	struct pf_frame_in in;
	struct pf_sym_saved *sv;
	struct bid_seen seen = { 0 };
	char dir[] = "/tmp/pf-unit-debugXXXXXX", got[2 * PF_BUILDID_MAX + 1], *copy;
	char hex[2 * PF_BUILDID_MAX + 1];
	unsigned char other[PF_BUILDID_MAX];
	uint64_t va, leaf_off, leaf_va, base, bias = 0;
	int fd, h;
	off_t at;

	unsetenv("DEBUGINFOD_URLS");
	if (!load_self() || !capture() || self.bidlen == 0) {
		CHECK(0, "this process's executable mapping, stack or build-id not found");
		return;
	}
	if ((s = pf_sym_new(NULL)) == NULL || mkdtemp(dir) == NULL) {
		CHECK(0, "pf_sym_new, mkdtemp: %s", strerror(errno));
		pf_sym_free(s);
		return;
	}
	pf_sym_set_inlines(s, true);
	CHECK(pf_sym_load_proc(s, "/proc", getpid(), false) == 0, "load_proc self");
	/* Nothing marked, nothing listed. */
	seen.want = self.path;
	pf_sym_foreach_buildid(s, bid_cb, &seen);
	CHECK(seen.files == 0, "%zu files listed before any mark", seen.files);

	/*
	 * A pass over mappings to come (a copy of ours mapped by another
	 * process, ours unmapped by an exec), its frames marked, then the
	 * mappings put back: the copy is listed, and ours are as they were.
	 */
	if ((sv = pf_sym_save(s)) == NULL || (copy = copy_file(self.path, dir, "copy")) == NULL) {
		CHECK(0, "save, copy: %s", strerror(errno));
		pf_sym_restore(s, sv);
	} else {
		in = (struct pf_frame_in){ .addr = FAKE_START + 0x10 };
		CHECK(pf_sym_add_map(s, FAKE_PID, FAKE_START, FAKE_START + 0x1000, 0x1000, copy, 0,
		    0, 0) == 0, "map the copy");
		pf_sym_mark(s, FAKE_PID, &in);
		pf_sym_exec(s, getpid());
		in = (struct pf_frame_in){ .addr = (uintptr_t)st_leaf };
		pf_sym_mark(s, getpid(), &in);
		pf_sym_restore(s, sv);
		in = (struct pf_frame_in){ .addr = FAKE_START + 0x10 };
		pf_sym_frame(s, FAKE_PID, &in, &out);
		CHECK(out.dso == NULL, "the copy's mapping is gone again (%s)", out.dso ? out.dso : "-");
		seen.want = copy;
		pf_sym_foreach_buildid(s, bid_cb, &seen);
		CHECK(seen.found == 1 && seen.files == 1 && seen.id.idlen == self.bidlen &&
		    memcmp(seen.id.id, self.bid, self.bidlen) == 0,
		    "the marked copy is listed with our build-id, and nothing else (%d, %zu files)",
		    seen.found, seen.files);
	}
	check_frame(s, getpid(), (uintptr_t)st_leaf, false, "st_leaf", (uintptr_t)st_leaf,
	    self.path);

	/* Our own file, once a frame in it is marked: a segment holds our code. */
	in = (struct pf_frame_in){ .addr = cap.ra_leaf, .retaddr = true };
	pf_sym_mark(s, getpid(), &in);
	in = (struct pf_frame_in){ .addr = 0xffffffff81000000ULL, .kernel = true };
	pf_sym_mark(s, getpid(), &in);
	memset(&seen, 0, sizeof(seen));
	seen.want = self.path;
	pf_sym_foreach_buildid(s, bid_cb, &seen);
	CHECK(seen.found == 1 && seen.id.idlen == self.bidlen &&
	    memcmp(seen.id.id, self.bid, self.bidlen) == 0, "our file once, with our build-id "
	    "(%d of %zu files)", seen.found, seen.files);
	CHECK(seen.files == 2, "the copy and ours, not libc (%zu files)", seen.files);
	/* st_leaf's offset in the file, as a stream prints it, to its ELF address. */
	leaf_off = (uintptr_t)st_leaf - self.start + self.pgoff;
	base = self.start - self.pgoff;
	CHECK(pf_buildid_vaddr(&seen.id, leaf_off, &va), "a segment holds st_leaf (%zu segments)",
	    seen.id.nseg);
	/* The address the symbol table speaks of: run-time minus the load bias. */
	leaf_va = va;
	dl_iterate_phdr(load_bias_cb, &bias);
	CHECK(leaf_va == (uintptr_t)st_leaf - bias, "st_leaf at %#llx in the file, want %#llx",
	    (unsigned long long)leaf_va, (unsigned long long)((uintptr_t)st_leaf - bias));

	/* Our own file as its debug file: named as the recorder names it. */
	fd = open(self.path, O_RDONLY | O_CLOEXEC);
	h = pf_sym_debug_add(s, fd, self.path, self.bid, self.bidlen, got, sizeof(got));
	CHECK(h >= 0, "our file as its own debug file: %s", strerror(errno));
	pf_sym_debug_frame(s, h, leaf_va, false, &out);
	CHECK(out.sym && strcmp(out.sym, "st_leaf") == 0 && out.off == 0 && out.dso == NULL,
	    "st_leaf's start: %s+%#llx", out.sym ? out.sym : "-", (unsigned long long)out.off);
	pf_buildid_vaddr(&seen.id, cap.ra_leaf - base, &va);
	pf_sym_debug_frame(s, h, va, true, &out);
	CHECK(out.sym && strcmp(out.sym, "st_middle") == 0 &&
	    out.off == cap.ra_leaf - (uintptr_t)st_middle, "st_leaf returns into st_middle: "
	    "%s+%#llx", out.sym ? out.sym : "-", (unsigned long long)out.off);
	pf_buildid_vaddr(&seen.id, cap.ra_middle - base, &va);
	pf_sym_debug_frame(s, h, va, true, &out);
	CHECK(out.sym && strcmp(out.sym, "st_outer") == 0 && out.ninl == 1 &&
	    strcmp(out.inl[0], "st_inl") == 0, "st_middle returns into st_outer, st_inl inlined: "
	    "%s, %zu inlined", out.sym ? out.sym : "-", out.ninl);
	pf_sym_debug_frame(s, h, 0x10, false, &out);
	CHECK(out.sym == NULL, "0x10: %s, want nothing", out.sym ? out.sym : "-");
	pf_sym_debug_frame(s, h + 1, leaf_va, false, &out);
	CHECK(out.sym == NULL, "no such handle: nothing");

	/* Another build-id: refused, saying what it has. */
	memcpy(other, self.bid, self.bidlen);
	other[0] ^= 0xff;
	fd = open(self.path, O_RDONLY | O_CLOEXEC);
	pf_buildid_hex(self.bid, self.bidlen, hex);
	CHECK(pf_sym_debug_add(s, fd, self.path, other, self.bidlen, got, sizeof(got)) == -1 &&
	    errno == ESTALE && strcmp(got, hex) == 0, "another build-id: errno %d, got %s",
	    errno, got);
	fd = open(self.path, O_RDONLY | O_CLOEXEC);
	CHECK(pf_sym_debug_add(s, fd, self.path, self.bid, self.bidlen - 1, got, sizeof(got)) ==
	    -1 && errno == ESTALE, "a shorter build-id is another");
	/* Not ELF at all. */
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	CHECK(pf_sym_debug_add(s, fd, "maps", self.bid, self.bidlen, got, sizeof(got)) == -1 &&
	    errno == EINVAL, "not ELF: errno %d", errno);
	/* An ELF file whose note is no build-id (its type word cleared). */
	if ((copy = copy_file(self.path, dir, "nobid")) != NULL &&
	    (at = note_type_at(copy)) != -1 && (fd = open(copy, O_RDWR | O_CLOEXEC)) != -1) {
		CHECK(pwrite(fd, "\0", 1, at) == 1, "clear the note's type");
		close(fd);
		fd = open(copy, O_RDONLY | O_CLOEXEC);
		CHECK(pf_sym_debug_add(s, fd, copy, self.bid, self.bidlen, got, sizeof(got)) == -1 &&
		    errno == ENODATA, "no build-id: errno %d", errno);
		unlink(copy);
	} else
		CHECK(0, "a copy without a build-id: %s", strerror(errno));
	snprintf(got, sizeof(got), "%s/copy", dir);
	unlink(got);
	rmdir(dir);
	pf_sym_free(s);
}

/* ---- samples held back for a mapping record ----------------------------- */

/*
 * A -g dwarf ring record of pid's: no callchain, the registers zero but
 * sp and ip, and stack bytes of copy, all of them valid.  Returns the
 * record's size (header included), its bytes in rec.
 */
static size_t
dwarf_record(char *rec, size_t room, uint32_t pid, uint64_t time, size_t copy)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 0 };
	uint64_t w[6 + 1 + 1 + PF_UNWIND_NREGS + 1] = { 0 };
	size_t n = 0, at;

	w[n++] = FAKE_START + 0x100;			/* ip */
	w[n++] = (uint64_t)pid | (uint64_t)pid << 32;	/* pid, tid */
	w[n++] = time;
	w[n++] = 0;					/* cpu */
	w[n++] = 1;					/* period */
	w[n++] = 0;					/* nr: no callchain */
	w[n++] = PERF_SAMPLE_REGS_ABI_64;
	w[n + 7] = 0x7ffc00000000ULL;			/* sp (R_SP: the 8th register) */
	w[n + 8] = FAKE_START + 0x100;			/* ip (R_IP) */
	n += PF_UNWIND_NREGS;
	w[n++] = copy;					/* the stack copy's size */
	at = sizeof(h) + n * 8;
	if (at + copy + 8 > room || at + copy + 8 > UINT16_MAX)
		return 0;
	h.size = (uint16_t)(at + copy + 8);
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), w, n * 8);
	memset(rec + at, 0x5a, copy);
	memcpy(rec + at + copy, &copy, 8);		/* dyn_size */
	return h.size;
}

/*
 * Samples of a process no mapping record has named yet wait for one: at
 * most PF_RAWREC_PENDING of them and PF_RAWREC_PENDING_BYTES of their
 * records, whatever the stack copy's size; past that each is unwound as
 * it comes, and every sample is kept.
 */
static void
test_defer(void)
{
	static const size_t copies[] = { 512, 16384, 65000 };
	static char rec[70000];
	size_t c, i, len, want, sent;

	for (c = 0; c < sizeof(copies) / sizeof(copies[0]); c++) {
		struct pf_rawrec r;
		struct perf_event_header h;

		memset(&r, 0, sizeof(r));
		r.cap_bytes = UINT64_MAX;
		if ((r.unwind = pf_unwind_new()) == NULL) {
			CHECK(0, "pf_unwind_new: %s", strerror(errno));
			return;
		}
		len = dwarf_record(rec, sizeof(rec), FAKE_PID, 1, copies[c]);
		CHECK(len > 0, "a record of %zu stack bytes", copies[c]);
		if (len == 0)
			continue;
		/* The records wait while both caps leave room. */
		want = PF_RAWREC_PENDING_BYTES / (len - sizeof(h));
		if (want > PF_RAWREC_PENDING)
			want = PF_RAWREC_PENDING;
		sent = want + 10;
		for (i = 0; i < sent; i++) {
			memcpy(&h, rec, sizeof(h));
			CHECK(pf_rawrec_on_record(&h, rec, &r) == 0, "record %zu: %s", i, strerror(errno));
		}
		CHECK(r.deferred == want && r.npending == want,
		    "%zu-byte copies: %llu held back (%zu waiting), want %zu", copies[c],
		    (unsigned long long)r.deferred, r.npending, want);
		CHECK(r.pending_bytes <= PF_RAWREC_PENDING_BYTES,
		    "%zu-byte copies: %zu bytes held back", copies[c], r.pending_bytes);
		CHECK(r.nsamples == sent - want, "%zu-byte copies: %llu kept as they came, want %zu",
		    copies[c], (unsigned long long)r.nsamples, sent - want);
		CHECK(pf_rawrec_flush(&r) == 0 && r.npending == 0 && r.pending_bytes == 0 &&
		    r.nsamples == sent, "%zu-byte copies: after the flush %llu of %zu samples kept",
		    copies[c], (unsigned long long)r.nsamples, sent);
		pf_unwind_free(r.unwind);
		pf_rawrec_free(&r);
	}
}

/*
 * A function of the unit binary named as CPython's evaluation loop, so
 * that a chain of this process's own addresses has evaluation frames for
 * pf_replay_format to merge Python frames at.
 */
__attribute__((noinline, used)) void _PyEval_EvalFrameDefault(void);
__attribute__((noinline, used)) void
_PyEval_EvalFrameDefault(void)
{
	__asm__ volatile("");
}

/* The frame lines of b (the sample's text), names only, joined by ';' from the leaf. */
static void
frame_names(const struct pf_buf *b, char *out, size_t size)
{
	const char *p = b->data, *end = b->data + b->len, *nl;
	size_t n = 0;

	out[0] = '\0';
	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		const char *name, *sp;

		if (*p == '\t') {
			/* "\t<addr> NAME+0x.. (dso)", the address right-aligned: the name up to its offset or " (". */
			name = p + 1;
			while (name < nl && *name == ' ')
				name++;
			while (name < nl && *name != ' ')
				name++;
			while (name < nl && *name == ' ')
				name++;
			sp = name;
			while (sp < nl && !(sp[0] == '+' && sp[1] == '0' && sp[2] == 'x') &&
			    !(sp[0] == ' ' && sp[1] == '('))
				sp++;
			n += (size_t)snprintf(out + n, n < size ? size - n : 0, "%s%.*s",
			    n ? ";" : "", (int)(sp - name), name);
		}
		p = nl + 1;
	}
}

static void
pymerge_case(struct pf_symbolizer *sym, struct pf_comms *comms, const struct pf_pyrec *py,
    uint32_t id, const uint64_t *chain, uint32_t nr, int want, const char *names,
    const char *what)
{
	struct {
		struct pf_rawsample s;
		uint64_t ips[16];
	} r = { .s = { .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(), .nr = nr, .py = id } };
	struct pf_stack_end end;
	struct pf_buf b = { 0 };
	char got[2048];

	memcpy(r.ips, chain, nr * sizeof(*chain));
	CHECK(pf_replay_format(sym, comms, py, &r.s, 1, "cpu-clock", &b, &end) == 0, "%s: format",
	    what);
	frame_names(&b, got, sizeof(got));
	CHECK(end.py == want, "%s: merge %d, want %d: %s", what, end.py, want, got);
	CHECK(strcmp(got, names) == 0, "%s:\n  got  %s\n  want %s", what, got, names);
	pf_buf_free(&b);
}

/*
 * pf_replay_format's merge of a sample's Python frames (replay.h): each
 * group of them in place of one evaluation frame; a cut native stack
 * ended by the outer groups; a cut Python walk's frames and marker at the
 * next evaluation frame; anything else, or a read too late, the native
 * frames and [py-mismatch]; names escaped.
 */
static void
test_pymerge(void)
{
	const uint64_t U = (uint64_t)PERF_CONTEXT_USER;
	struct pf_comms comms = { 0 };
	struct pf_symbolizer *s;
	struct pf_pyrec *py;
	uint64_t ev, top, leaf;
	uint32_t one, two, cut, odd, nonentry;

	if ((s = self_symbolizer(false)) == NULL)
		return;
	if ((py = pf_pyrec_new(NULL, false)) == NULL) {
		CHECK(0, "pf_pyrec_new: %s", strerror(errno));
		pf_sym_free(s);
		return;
	}
	ev = (uint64_t)(uintptr_t)_PyEval_EvalFrameDefault + 1;
	top = (uint64_t)(uintptr_t)main + 1;
	leaf = (uint64_t)cap.regs[8];
	{
		/* 3.11: one evaluation call ran three frames. */
		static const char *const n1[] = { "inner:/a.py", "mid:/a.py", "outer:/a.py" };
		static const bool e1[] = { false, false, true };
		/* 3.9: a group of one frame per call. */
		static const char *const n2[] = { "f:/b.py", "g:/b.py" };
		static const bool e2[] = { true, true };
		/* A walk cut by a loop: one whole group, then a frame of the next. */
		static const char *const n3[] = { "x:/c.py", "y:/c.py" };
		static const bool e3[] = { true, false };
		/* The target's names: ';', a newline, a backslash. */
		static const char *const n4[] = { "a;b\nc\\d:/e f.py" };
		static const bool e4[] = { true };
		/* No entry frame at the end of a walk that ended as it should. */
		static const char *const n5[] = { "z:/d.py" };
		static const bool e5[] = { false };

		one = pf_pyrec_add_stack(py, n1, e1, 3, PF_PY_END_DONE);
		two = pf_pyrec_add_stack(py, n2, e2, 2, PF_PY_END_DONE);
		cut = pf_pyrec_add_stack(py, n3, e3, 2, PF_PY_END_LOOP);
		odd = pf_pyrec_add_stack(py, n4, e4, 1, PF_PY_END_DONE);
		nonentry = pf_pyrec_add_stack(py, n5, e5, 1, PF_PY_END_DONE);
	}
	CHECK(one && two && cut && odd && nonentry && one != two, "stacks added");
	{
		const uint64_t c1[] = { U, leaf, ev, top };
		const uint64_t c2[] = { U, leaf, ev, leaf, ev, top };
		const uint64_t c3[] = { U, leaf, ev, top };
		const uint64_t c4[] = { U, leaf, ev, PF_RAWREC_TRUNCATED };
		const uint64_t c5[] = { U, leaf, ev, leaf, ev, leaf, ev, top };
		const uint64_t c6[] = { U, leaf, top };

		pymerge_case(s, &comms, py, one, c1, 4, PF_PY_MERGE_DONE,
		    "st_leaf;py::inner:/a.py;py::mid:/a.py;py::outer:/a.py;main",
		    "three frames of one call, at its evaluation frame");
		pymerge_case(s, &comms, py, two, c2, 6, PF_PY_MERGE_DONE,
		    "st_leaf;py::f:/b.py;st_leaf;py::g:/b.py;main",
		    "a group at each of two evaluation frames, in order");
		pymerge_case(s, &comms, py, two, c3, 4, PF_PY_MERGE_MISMATCH,
		    "st_leaf;_PyEval_EvalFrameDefault;main;[py-mismatch]",
		    "two groups, one evaluation frame, the stack complete: a mismatch");
		pymerge_case(s, &comms, py, two, c4, 4, PF_PY_MERGE_DONE,
		    "st_leaf;py::f:/b.py;[truncated];py::g:/b.py",
		    "a native stack cut short: the outer group ends it");
		pymerge_case(s, &comms, py, cut, c5, 8, PF_PY_MERGE_DONE,
		    "st_leaf;py::x:/c.py;st_leaf;py::y:/c.py;[py-loop];st_leaf;"
		    "_PyEval_EvalFrameDefault;main",
		    "a walk cut by a loop: what it read and its marker at the next evaluation frame");
		pymerge_case(s, &comms, py, one, c2, 6, PF_PY_MERGE_MISMATCH,
		    "st_leaf;_PyEval_EvalFrameDefault;st_leaf;_PyEval_EvalFrameDefault;main;"
		    "[py-mismatch]", "one group, two evaluation frames: a mismatch");
		pymerge_case(s, &comms, py, nonentry, c1, 4, PF_PY_MERGE_MISMATCH,
		    "st_leaf;_PyEval_EvalFrameDefault;main;[py-mismatch]",
		    "a finished walk whose last frame is no entry: a mismatch");
		pymerge_case(s, &comms, py, PF_PYREC_LATE, c1, 4, PF_PY_MERGE_MISMATCH,
		    "st_leaf;_PyEval_EvalFrameDefault;main;[py-mismatch]",
		    "read after the thread ran again: a mismatch");
		pymerge_case(s, &comms, py, PF_PYREC_STALE, c1, 4, PF_PY_MERGE_MISMATCH,
		    "st_leaf;_PyEval_EvalFrameDefault;main;[py-mismatch]",
		    "not the sample's own frames: a mismatch");
		pymerge_case(s, &comms, py, PF_PYREC_UNFOUND, c1, 4, PF_PY_MERGE_MISMATCH,
		    "st_leaf;_PyEval_EvalFrameDefault;main;[py-mismatch]",
		    "no thread state for a thread that ran Python (it ended before the read): a mismatch");
		pymerge_case(s, &comms, py, PF_PYREC_UNFOUND, c6, 3, PF_PY_MERGE_NONE,
		    "st_leaf;main", "no thread state for a thread that runs no Python: native");
		pymerge_case(s, &comms, py, odd, c1, 4, PF_PY_MERGE_DONE,
		    "st_leaf;py::a\\x3bb\\x0ac\\\\d:/e f.py;main",
		    "the target's names escaped as every name is");
		pymerge_case(s, &comms, NULL, one, c1, 4, PF_PY_MERGE_NONE,
		    "st_leaf;_PyEval_EvalFrameDefault;main", "no Python frames read: native");
	}
	pf_pyrec_free(py);
	pf_sym_free(s);
	pf_comms_free(&comms);
}

int
main(int argc, char **argv)
{
	static const struct unit_group groups[] = {
		{ "unwind", test_unwind }, { "unwind-hostile", test_unwind_hostile },
		{ "symbolize", test_symbolize },
		{ "symindex", test_symindex }, { "debugfile", test_debugfile },
		{ "names", test_names },
		{ "writer", test_writer }, { "stack-end", test_stack_end },
		{ "defer", test_defer }, { "pymerge", test_pymerge },
	};

	return unit_main(argc, argv, groups, sizeof(groups) / sizeof(groups[0]));
}
