/*
 * fuzz-symelf: the symbolizer (lib/common/symbolize.c) reading a
 * target's ELF file: its program headers, .symtab or .dynsym, its PLT
 * sections and their relocations (seeds with .plt, .plt.sec and
 * .plt.got), and with inlines on its DWARF, through libdwfl, as the recorders do after the
 * window for every file a sampled process mapped; and pf_sym_file_info,
 * pf-precheck's look at the same file (build-id, symbol table).  No live
 * process is needed: the input's file is put in a memfd and offered
 * (pf_sym_offer_file) as the file of one executable mapping of a pid
 * above the kernel's limit, so nothing else is opened for it, and no
 * JIT map is found.  Its name's directory does not exist, so no
 * separate debuginfo is found beside it; and an input that names a
 * section .gnu_debug* (debuglink, debugaltlink, debugdata) or
 * .debug_sup is passed over: libdwfl opens the path a debuglink names
 * under /usr/lib/debug too, ".." and all, and libdw an alternate
 * file's path as it is, so a mutated one could make this open any of
 * the host's files or devices (as root, in CI).  That a target can do
 * so to the recorders, and hang them on a FIFO, is reported, not
 * fuzzed.
 *
 * The first byte: inlines on, pf_sym_file_info too, the mapping's page
 * offset; the rest is the file.  Frames at 256 points over the mapping
 * (interrupted addresses and return addresses) are looked up twice.
 * Besides the sanitizers' findings, it aborts when an answer breaks
 * symbolize.h: the frame's DSO is not the mapping's path; its address
 * column is not the file offset; a symbol, offset or inlined functions
 * come without a symbol, inlined functions while inlines are off, a
 * name is empty or one of them NULL; the second look-up (from the
 * cache) answers otherwise; the file is opened more than once.  And
 * when pf_sym_file_info's build-id is not hex of whole bytes, its
 * separate debuginfo is named without being found, the descriptor is
 * no longer the caller's, or a second look answers otherwise.
 *
 * With the first byte's bit 2, the file is also offered as a debug file
 * (pf_sym_debug_add, as pf-fold --debug-dir opens the files of a
 * .build-id tree the user names, which may come from anywhere): under its
 * own build-id when it has one (taken), or another (refused, saying which
 * it has); it aborts when the refusal is not one symbolize.h names, a
 * taken file names an address with an empty name, an offset or inlined
 * functions without a symbol, or a second look answers otherwise.
 *
 * Known, and reported: when dwfl_report_elf refuses a file, the
 * duplicate of the descriptor symbolize.c handed it stays open (libdwfl
 * closes only what it opened itself), in open_file and in
 * pf_sym_file_info alike: one descriptor a file that is not ELF.  Each
 * input makes three such calls at most, so up to three duplicates of
 * the memfd are closed here after it; a fourth is a new leak, a finding.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "symbolize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAXIN = 1 << 20, NPROBE = 256 };

#define PID	((pid_t)0x7fff0001)
#define START	0x7f0000000000ull
#define PATH	"/nonexistent-pf-fuzz/lib/libtarget.so"
#define INO	4242

static int fd = -1;
static struct stat fd_st;

/*
 * A full unwind of each allocation (libdw keeps no frame pointers), so
 * that a leak's report names libdw's frames.
 */
const char *__asan_default_options(void);

const char *
__asan_default_options(void)
{
	return "fast_unwind_on_malloc=0";
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	unsetenv("DEBUGINFOD_URLS");	/* symbolize.h: never the network */
	return 0;
}

static void
check_frame(const struct pf_frame_out *o, uint64_t addr, uint64_t pgoff, bool inlines)
{
	size_t j;

	if (o->dso == NULL || strcmp(o->dso, PATH) != 0 || o->addr != addr - START + pgoff)
		abort();
	if (o->sym == NULL && (o->off != 0 || o->ninl != 0))
		abort();
	if (o->sym != NULL && o->sym[0] == '\0')
		abort();
	if ((o->ninl != 0) != (o->inl != NULL) || (o->ninl != 0 && !inlines))
		abort();
	for (j = 0; j < o->ninl; j++)
		if (o->inl[j] == NULL || o->inl[j][0] == '\0')
			abort();
}

/*
 * An answer as bytes, its names copied (they last only until the next
 * look-up): the symbol, the offset, then each inlined name, each name
 * after its length.
 */
static void
keep(struct pf_buf *b, const struct pf_frame_out *o)
{
	size_t j, n;

	pf_buf_reset(b);
	n = o->sym ? strlen(o->sym) : SIZE_MAX;
	if (pf_buf_append(b, &n, sizeof(n)) == -1 ||
	    (o->sym && pf_buf_append(b, o->sym, n) == -1) ||
	    pf_buf_append(b, &o->off, sizeof(o->off)) == -1 ||
	    pf_buf_append(b, &o->ninl, sizeof(o->ninl)) == -1)
		abort();
	for (j = 0; j < o->ninl; j++) {
		n = strlen(o->inl[j]);
		if (pf_buf_append(b, &n, sizeof(n)) == -1 ||
		    pf_buf_append(b, o->inl[j], n) == -1)
			abort();
	}
}

static bool
same(const struct pf_buf *a, const struct pf_buf *b)
{
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

static void
symbolize(size_t size, uint8_t f)
{
	struct pf_symbolizer *s;
	static struct pf_buf a[NPROBE][2], now;
	struct pf_sym_stats st;
	uint64_t pgoff = (uint64_t)(f >> 4) << 12, span;
	bool inlines = f & 1;
	int pass, k, r;

	if ((s = pf_sym_new(NULL)) == NULL)
		abort();
	pf_sym_set_inlines(s, inlines);
	span = (size + 0xfff) & ~0xfffull;
	if (span == 0)
		span = 0x1000;
	if (pf_sym_add_map(s, PID, START, START + span, pgoff, PATH, 0, 0, INO) == -1)
		abort();
	pf_sym_offer_file(PATH, 0, 0, INO, fd, s);
	for (pass = 0; pass < 2; pass++)
		for (k = 0; k < NPROBE; k++)
			for (r = 0; r < 2; r++) {
				struct pf_frame_in in = {
					.addr = START + (uint64_t)k * span / NPROBE + (uint64_t)r,
					.retaddr = r,
				};
				struct pf_frame_out o;

				pf_sym_frame(s, PID, &in, &o);
				check_frame(&o, in.addr, pgoff, inlines);
				/* The second pass, from the cache, names the same. */
				keep(pass == 0 ? &a[k][r] : &now, &o);
				if (pass == 1 && !same(&a[k][r], &now))
					abort();
			}
	pf_sym_stats(s, &st);
	if (st.files > 1 || st.files_failed > st.files || st.lookups != 2 * 2 * NPROBE)
		abort();
	pf_sym_free(s);
}

static bool
hex(const char *s)
{
	size_t n = strlen(s), i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return n % 2 == 0;
}

static void
file_info(void)
{
	struct pf_sym_fileinfo a, b;
	int ra, rb, ea, eb;

	memset(&a, 0xa5, sizeof(a));
	memset(&b, 0x5a, sizeof(b));
	errno = 0;
	ra = pf_sym_file_info(fd, PATH, &a);
	ea = errno;
	if (fcntl(fd, F_GETFD) == -1)
		abort();	/* closed under the caller */
	errno = 0;
	rb = pf_sym_file_info(fd, PATH, &b);
	eb = errno;
	if ((ra != 0 && ra != -1) || ra != rb ||
	    (ra == -1 && (ea != eb || (ea != EINVAL && ea != ENOMEM))))
		abort();
	if (ra != 0)
		return;
	if (memchr(a.buildid, '\0', sizeof(a.buildid)) == NULL || !hex(a.buildid) ||
	    memchr(a.debugfile, '\0', sizeof(a.debugfile)) == NULL ||
	    (a.debugfile[0] != '\0') != a.debuginfo || (a.symtab && a.debuginfo))
		abort();
	if (a.symtab != b.symtab || a.debuginfo != b.debuginfo ||
	    strcmp(a.buildid, b.buildid) != 0 || strcmp(a.debugfile, b.debugfile) != 0)
		abort();
}

/* 2n hex digits to n bytes. */
static size_t
unhex(const char *h, unsigned char *out, size_t max)
{
	size_t n = strlen(h) / 2, i;

	if (n > max)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned hi = (unsigned)(h[2 * i] <= '9' ? h[2 * i] - '0' : h[2 * i] - 'a' + 10);
		unsigned lo = (unsigned)(h[2 * i + 1] <= '9' ? h[2 * i + 1] - '0' :
		    h[2 * i + 1] - 'a' + 10);

		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return n;
}

/*
 * The file as a debug file, under its own build-id (or another, the
 * first byte flipped): taken or refused as symbolize.h says, and what it
 * names stays the same on a second look.
 */
static void
debug_file(size_t size, uint8_t f)
{
	struct pf_sym_fileinfo fi;
	struct pf_symbolizer *s;
	unsigned char want[PF_BUILDID_MAX] = { 0 };
	char got[2 * PF_BUILDID_MAX + 1];
	size_t wantlen = 0;
	uint64_t span = (size + 0xfff) & ~0xfffull;
	int dup, h, k, r, e;

	if (pf_sym_file_info(fd, PATH, &fi) == 0 && hex(fi.buildid))
		wantlen = unhex(fi.buildid, want, sizeof(want));
	if (wantlen == 0)
		wantlen = 20;	/* none: any build-id is another */
	else if (f & 8)
		want[0] ^= 0xff;
	if ((s = pf_sym_new(NULL)) == NULL || (dup = fcntl(fd, F_DUPFD_CLOEXEC, 0)) == -1)
		abort();
	pf_sym_set_inlines(s, f & 1);
	memset(got, 'x', sizeof(got));
	errno = 0;
	h = pf_sym_debug_add(s, dup, PATH, want, wantlen, got, sizeof(got));
	e = errno;
	if (h == -1) {
		if (e != EINVAL && e != ENODATA && e != ESTALE && e != ENOMEM)
			abort();
		if (memchr(got, '\0', sizeof(got)) == NULL || (e == ESTALE && !hex(got)))
			abort();
		pf_sym_free(s);
		return;
	}
	if (h != 0)
		abort();
	for (k = 0; k < NPROBE; k++)
		for (r = 0; r < 2; r++) {
			/* Low addresses (a shared object's) and an executable's. */
			uint64_t va = (r ? 0x400000 : 0) + (uint64_t)k * span / NPROBE;
			static struct pf_buf ka, kb;
			struct pf_frame_out a, b;
			size_t j;

			pf_sym_debug_frame(s, h, va, r, &a);
			if (a.addr != va || a.dso != NULL || (a.sym == NULL && (a.off != 0 ||
			    a.ninl != 0)) || (a.sym != NULL && a.sym[0] == '\0') ||
			    (a.ninl != 0 && !(f & 1)))
				abort();
			for (j = 0; j < a.ninl; j++)
				if (a.inl[j] == NULL || a.inl[j][0] == '\0')
					abort();
			keep(&ka, &a);
			pf_sym_debug_frame(s, h, va, r, &b);
			keep(&kb, &b);
			if (!same(&ka, &kb))
				abort();
		}
	pf_sym_free(s);
}

/* Close the duplicates of fd left open; abort if more than the known three. */
static void
lost_duplicates(void)
{
	DIR *d;
	struct dirent *e;
	struct stat st;
	int n = 0, x;

	if ((d = opendir("/proc/self/fd")) == NULL)
		abort();
	while ((e = readdir(d)) != NULL) {
		if ((x = atoi(e->d_name)) <= 2 || x == fd || x == dirfd(d))
			continue;
		if (fstat(x, &st) == 0 && st.st_dev == fd_st.st_dev && st.st_ino == fd_st.st_ino) {
			close(x);
			n++;
		}
	}
	closedir(d);
	if (n > 3)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t f;

	if (size < 1 || size > MAXIN)
		return 0;
	f = data[0];
	data++;
	size--;
	if (memmem(data, size, ".gnu_debug", 10) != NULL ||
	    memmem(data, size, "debug_sup", 9) != NULL)
		return 0;	/* see above: no file named by the input is opened */
	if (fd == -1 && ((fd = memfd_create("fuzz-symelf", MFD_CLOEXEC)) == -1 ||
	    fstat(fd, &fd_st) == -1))
		abort();
	if (ftruncate(fd, 0) == -1 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	symbolize(size, f);
	if (f & 2)
		file_info();
	if (f & 4)
		debug_file(size, f);
	lost_duplicates();
	return 0;
}
