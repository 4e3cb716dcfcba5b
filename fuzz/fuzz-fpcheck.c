/*
 * fuzz-fpcheck: lib/common/fpcheck.c's pf_fp_probe, which -g auto and
 * pf-precheck run on a target's executable files, as root and before
 * the recorder confines itself: libelf and libdw read the file's
 * section headers (every one, for .text and Go's marks), .eh_frame_hdr
 * and .eh_frame at up to PF_FP_PROBES addresses over .text, all of it
 * the target's to write.  The input is
 * the file, put in a memfd (the probe takes a descriptor), each time
 * into the same one, so a run opens nothing.
 *
 * Besides the sanitizers' findings and libFuzzer's time and memory
 * limits, it aborts when the answer is out of fpcheck.h's range: 0 with
 * up to PF_FP_PROBES addresses probed (at least one, unless Go) and no
 * more of them rbp-based, or -1 with EINVAL and nothing counted nor Go;
 * when pf_fp_kept is not "more than half rbp-based"; when pf_fp_verdict
 * does not put Go first, then pf_fp_kept; when the file is called
 * dynamic without a PT_INTERP program header in it (looked for here from
 * the ELF header alone), or Go without the names .debug_frame and
 * .note.go.buildid or .go.buildinfo anywhere in it; when the descriptor
 * is no longer the caller's, or a second probe of the same file answers
 * otherwise.
 *
 * Known, and reported rather than fuzzed again and again: libdw (0.188)
 * grows a frame's register table to any register number a CFI program
 * names, so a file of under 1 KiB makes one probe allocate and clear
 * gigabytes (fuzz/corpus/fuzz-fpcheck/huge-register names 2^27 - 1).
 * Here no realloc above 4 MiB succeeds (libdw then fails the probe with
 * DWARF_E_NOMEM, which pf_fp_probe must take like any other), so the
 * fuzzing goes on past it.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fpcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAXIN = 1 << 18, MAXREALLOC = 4 << 20 };

static int fd = -1;

/*
 * ASan's realloc, which a strong realloc here takes the place of (its
 * own is a weak alias): libdw's register table grows through realloc.
 */
void *__interceptor_realloc(void *p, size_t n);
void *realloc(void *p, size_t n);

void *
realloc(void *p, size_t n)
{
	if (n > MAXREALLOC) {
		errno = ENOMEM;
		return NULL;
	}
	return __interceptor_realloc(p, n);
}

/* The n-byte unsigned number at p, in the byte order of EI_DATA d. */
static uint64_t
num(const uint8_t *p, size_t n, uint8_t d)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[d == ELFDATA2LSB ? i : n - 1 - i] << (8 * i);
	return v;
}

/*
 * Whether some program header slot from e_phoff on, as far as the file
 * goes, says PT_INTERP: what has_interp could have found, and more.
 */
static bool
maybe_interp(const uint8_t *data, size_t size)
{
	uint8_t cls, d;
	uint64_t off;
	size_t ent;

	if (size < EI_NIDENT || memcmp(data, ELFMAG, SELFMAG) != 0)
		return false;
	cls = data[EI_CLASS];
	d = data[EI_DATA];
	if ((cls != ELFCLASS32 && cls != ELFCLASS64) ||
	    (d != ELFDATA2LSB && d != ELFDATA2MSB))
		return false;
	if (cls == ELFCLASS64) {
		if (size < sizeof(Elf64_Ehdr))
			return false;
		off = num(data + offsetof(Elf64_Ehdr, e_phoff), 8, d);
		ent = sizeof(Elf64_Phdr);
	} else {
		if (size < sizeof(Elf32_Ehdr))
			return false;
		off = num(data + offsetof(Elf32_Ehdr, e_phoff), 4, d);
		ent = sizeof(Elf32_Phdr);
	}
	for (; off < size && size - off >= 4; off += ent)
		if (num(data + off, 4, d) == PT_INTERP)
			return true;
	return false;
}

/* Whether s and its NUL are in the input, as a section name in a string table must be. */
static bool
has(const uint8_t *data, size_t size, const char *s)
{
	return memmem(data, size, s, strlen(s) + 1) != NULL;
}

static int
probe(struct pf_fpinfo *fi, int *err)
{
	int rc;

	memset(fi, 0xa5, sizeof(*fi));
	errno = 0;
	rc = pf_fp_probe(fd, fi);
	*err = errno;
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pf_fpinfo fi, again;
	int rc, rc2, err, err2;

	if (size > MAXIN)
		return 0;
	if (fd == -1 && (fd = memfd_create("fuzz-fpcheck", MFD_CLOEXEC)) == -1)
		abort();
	if (ftruncate(fd, 0) == -1 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	rc = probe(&fi, &err);
	if (rc == 0) {
		if ((fi.probed < 1 && !fi.go) || fi.probed > PF_FP_PROBES || fi.rbp > fi.probed)
			abort();
	} else if (rc != -1 || err != EINVAL || fi.probed != 0 || fi.rbp != 0 || fi.go) {
		abort();
	}
	if (pf_fp_kept(&fi) != (2 * fi.rbp > fi.probed))
		abort();
	if (pf_fp_verdict(&fi) != (fi.go ? PF_FP_GO : pf_fp_kept(&fi) ? PF_FP_WALKS : PF_FP_LACKING))
		abort();
	if (fi.dynamic && !maybe_interp(data, size))
		abort();
	if (fi.go && (!has(data, size, ".debug_frame") ||
	    (!has(data, size, ".note.go.buildid") && !has(data, size, ".go.buildinfo"))))
		abort();
	if (fcntl(fd, F_GETFD) == -1)
		abort();	/* closed under the caller */
	rc2 = probe(&again, &err2);
	if (rc2 != rc || (rc == -1 && err2 != err) || again.probed != fi.probed ||
	    again.rbp != fi.rbp || again.dynamic != fi.dynamic || again.go != fi.go)
		abort();
	return 0;
}
