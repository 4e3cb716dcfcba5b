/*
 * fuzz-pyframe: lib/common/pyframe's walks over a target's memory made
 * of the input.  The input is the memory at a fixed base address (the
 * runtime at its start, as tests/unit/test-pyframe.c lays its images
 * out: the seeds are its images, PF_PY_SEEDS); every other address is
 * unreadable.  Each version's layout, 3.9 to 3.13 (3.13's from the
 * debug offsets the input holds), walks it: the thread list, the thread
 * of tid 4242, and the frames of every thread state found and of the
 * one at the image's thread-state slot.
 *
 * An input that starts as an ELF file does is also looked at as the
 * interpreter's or the C library's file (pf_py_elf_probe,
 * pf_py_elf_pthread_tid, from a memfd named python3.9): it aborts when
 * a version found is not one pyframe.h says, or a tid offset lies past
 * 64 KiB.  Its seeds are two small shared objects built for it: one
 * with Py_Version, _PyRuntime and the descriptor, one with a soname.
 *
 * The line of each of a walk's first frames is looked up in its code's
 * line table as read from the input (pf_py_code_linetable), and the
 * input's start is taken for a line table of each version at a few
 * instructions (pf_py_addr2line).
 *
 * Besides the sanitizers' findings, it aborts when an answer breaks
 * pyframe.h: more frames or thread states than the most, an end or a
 * name status not in the header, a name longer than PF_PY_NAME_MAX or
 * not NUL-terminated at its length, a refused name without its marker,
 * a read longer than 4 * PF_PY_NAME_MAX, a walk making more reads
 * than its bounds allow, a line table longer than PF_PY_LINETABLE_MAX or
 * read in more reads than its length needs, or a negative line.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pyframe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BASE		0x10000000ull
#define TSTATE		(BASE + 0x2000)	/* test-pyframe.c's O_TSTATE */
#define TID		4242
#define TID_OFF		0x2d0

/*
 * Reads a walk may make: per frame visited (twice the frames, for
 * shims) five, per code object three and per name three; per thread
 * state three and per interpreter two, and a few to start.  A line
 * table: its pointer and length, then a read per 4 * PF_PY_NAME_MAX.
 */
#define FRAME_READS	(2 * PF_PY_FRAMES_MAX * (5 + 3 + 2 * 3) + 8)
#define TABLE_READS	(2 + PF_PY_LINETABLE_MAX / (4 * PF_PY_NAME_MAX))
/* The frames of a walk whose lines are looked up. */
#define LINE_FRAMES	2
#define THREAD_READS	(PF_PY_THREADS_MAX * 3 + PF_PY_INTERPS_MAX * 2 + 8)

struct mem {
	const uint8_t *data;
	size_t size;
	unsigned long reads;
};

static int
mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct mem *m = ctx;

	m->reads++;
	if (len > 4 * PF_PY_NAME_MAX)
		abort();
	if (addr < BASE || addr - BASE > m->size || len > m->size - (addr - BASE))
		return -1;
	memcpy(buf, m->data + (addr - BASE), len);
	return 0;
}

static void
check_name(const char *s, size_t len, unsigned char st)
{
	static const char *const marker[] = {
		[PF_PY_NAME_LONG] = "[name too long]",
		[PF_PY_NAME_UNREADABLE] = "[unreadable]",
		[PF_PY_NAME_NOTSTR] = "[not a string]",
	};

	if (st > PF_PY_NAME_NOTSTR || len > PF_PY_NAME_MAX || s[len] != '\0')
		abort();
	if (st >= PF_PY_NAME_LONG && strcmp(s, marker[st]) != 0)
		abort();
}

static struct pf_py_stack stack;
static unsigned char table[PF_PY_LINETABLE_MAX];

static void
frames(const struct pf_py *py, struct mem *m, uint64_t ts)
{
	size_t i, len;

	m->reads = 0;
	pf_py_thread_frames(py, ts, &stack);
	if (stack.n > PF_PY_FRAMES_MAX || stack.end < PF_PY_END_DONE ||
	    stack.end > PF_PY_END_DEPTH || m->reads > FRAME_READS)
		abort();
	for (i = 0; i < stack.n; i++) {
		check_name(stack.frame[i].name, stack.frame[i].namelen, stack.frame[i].name_st);
		check_name(stack.frame[i].file, stack.frame[i].filelen, stack.frame[i].file_st);
		if (i >= LINE_FRAMES)
			continue;
		m->reads = 0;
		if (pf_py_code_linetable(py, stack.frame[i].code, table, &len) == 0 &&
		    (len > PF_PY_LINETABLE_MAX || m->reads > TABLE_READS ||
		    pf_py_addr2line(py->lay.minor, table, len, stack.frame[i].firstline,
		    stack.frame[i].lasti) < 0))
			abort();
	}
}

/* The input's first KiB as a line table of each version. */
static void
lines(const uint8_t *data, size_t size)
{
	int64_t at[] = { PF_PY_LASTI_NONE, -2, 2, INT64_MAX };
	int minor;
	size_t i;

	if (size > 1024)
		size = 1024;
	for (minor = PF_PY_MINOR_MIN; minor <= PF_PY_MINOR_MAX; minor++)
		for (i = 0; i < sizeof(at) / sizeof(at[0]); i++)
			if (pf_py_addr2line(minor, data, size, 1, at[i]) < 0)
				abort();
}

static int fd = -1;

static void
elf(const uint8_t *data, size_t size)
{
	struct pf_py_elf e;
	uint32_t off;

	if (fd == -1 && (fd = memfd_create("python3.9", MFD_CLOEXEC)) == -1)
		abort();
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if (pf_py_elf_probe(fd, "/usr/bin/python3.9", &e) == 0) {
		if (e.from < PF_PY_VER_NONE || e.from > PF_PY_VER_FILENAME)
			abort();
		if (e.from == PF_PY_VER_NONE && (e.major != 0 || e.minor != 0 || e.hexversion != 0))
			abort();
		if ((e.from == PF_PY_VER_SONAME || e.from == PF_PY_VER_FILENAME) &&
		    (e.major != 3 || e.minor < 1 || e.minor > 99 ||
		    e.hexversion != (3u << 24 | (uint32_t)e.minor << 16)))
			abort();
	}
	if (pf_py_elf_pthread_tid(fd, &off) == 0 && off > 65536 - 4)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pf_py_thread th[PF_PY_THREADS_MAX];
	struct mem m = { data, size, 0 };
	struct pf_py py;
	uint64_t ts;
	size_t n, i;
	int minor, end;

	if (size >= 4 && memcmp(data, "\177ELF", 4) == 0)
		elf(data, size);
	lines(data, size);
	for (minor = PF_PY_MINOR_MIN; minor <= PF_PY_MINOR_MAX; minor++) {
		if (pf_py_init(&py, minor, BASE, TID_OFF, mem_read, &m) != 0)
			continue;
		m.reads = 0;
		if (pf_py_threads(&py, th, PF_PY_THREADS_MAX, &n, &end) != 0 ||
		    n > PF_PY_THREADS_MAX || end < PF_PY_END_DONE || end > PF_PY_END_DEPTH ||
		    m.reads > THREAD_READS)
			abort();
		/* The first four states listed: not a thousand walks an input. */
		for (i = 0; i < n && i < 4; i++)
			frames(&py, &m, th[i].tstate);
		m.reads = 0;
		if (pf_py_find_thread(&py, TID, &ts) == 0) {
			if (m.reads > THREAD_READS)
				abort();
			frames(&py, &m, ts);
		}
		frames(&py, &m, TSTATE);
	}
	return 0;
}
