/*
 * test-pyframe: lib/common/pyframe against real interpreters and against
 * memory images made to be hostile.
 *
 *   pyelf      the ELF look: _PyRuntime and the version of each
 *              interpreter present, an unknown version refused, libc's
 *              pthread tid offset
 *   pylive     each interpreter present (pyenv's 3.9 to 3.13, skipped
 *              with a reason when absent; Debian's /usr/bin/python3.11
 *              always) runs a script with a known call chain in two
 *              threads; its memory is read with process_vm_readv and each
 *              thread's walk must give exactly the expected frames, each
 *              at its line (a caller at its call's)
 *   pylines    each interpreter present dumps the code objects of some
 *              of its library's modules (line table, first line, and
 *              the line of each instruction as its own co_positions,
 *              co_lines or dis.findlinestarts say): pf_py_addr2line
 *              must give the same line at every instruction; hostile
 *              tables give no line, within their bytes
 *   pyhostile  synthetic images: a cyclic frame chain, a bogus string
 *              length, a garbage pointer, a 100k-deep chain, a looping
 *              thread list, strings of every kind, 3.12's shims, 3.13's
 *              debug offsets refused when wrong
 *   pyfake     the fake CPython 3.11 of tests/workloads/py-fake.c
 *              (PF_PY_FAKE names it), running: found by its ELF as an
 *              interpreter would be, its thread by its tid, its cyclic
 *              chain ended as a loop and its bogus names marked, each
 *              walk bounded and prompt
 *
 * With PF_PY_SEEDS=DIR, pyhostile also writes its images there: the
 * seeds of fuzz/corpus/fuzz-pyframe (fuzz/fuzz-pyframe.c reads them at
 * the same base, the runtime at its start).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pyframe.h"
#include "unit.h"

/* Images: the target's memory at IMG_BASE, read within bounds. */
#define IMG_BASE	0x10000000ull

struct img {
	unsigned char *mem;
	size_t size;
	unsigned long reads;
	size_t maxlen;
};

static int
img_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct img *m = ctx;

	m->reads++;
	if (len > m->maxlen)
		m->maxlen = len;
	if (addr < IMG_BASE || addr - IMG_BASE > m->size || len > m->size - (addr - IMG_BASE))
		return -1;
	memcpy(buf, m->mem + (addr - IMG_BASE), len);
	return 0;
}

static void
img_new(struct img *m, size_t size)
{
	m->mem = calloc(1, size);
	m->size = size;
	m->reads = 0;
	m->maxlen = 0;
	if (m->mem == NULL)
		abort();
}

/* At image offset at (the address IMG_BASE + at). */
static void
put64(struct img *m, uint64_t at, uint64_t v)
{
	memcpy(m->mem + at, &v, 8);
}

static void
put32(struct img *m, uint64_t at, uint32_t v)
{
	memcpy(m->mem + at, &v, 4);
}

/* A compact str of n code points of kind k (1, 2, 4), ASCII when ascii. */
static void
put_str(struct img *m, const struct pf_py_layout *l, uint64_t at, const uint32_t *cp, size_t n,
    int64_t length, unsigned kind, bool ascii, bool compact)
{
	uint32_t state = (kind << __builtin_ctz(l->uni_kind)) | (compact ? l->uni_compact : 0) |
	    (ascii ? l->uni_ascii : 0) | l->uni_ready;
	uint64_t data = at + (uint64_t)(ascii ? l->uni_ascii_size : l->uni_compact_size);
	size_t i;

	put64(m, at + (uint64_t)l->uni_length, (uint64_t)length);
	put32(m, at + (uint64_t)l->uni_state, state);
	for (i = 0; i < n; i++)
		memcpy(m->mem + data + i * kind, &cp[i], kind);	/* little-endian */
}

static void
put_ascii(struct img *m, const struct pf_py_layout *l, uint64_t at, const char *s)
{
	uint32_t cp[64];
	size_t i, n = strlen(s);

	for (i = 0; i < n && i < 64; i++)
		cp[i] = (unsigned char)s[i];
	put_str(m, l, at, cp, i, (int64_t)i, 1, true, true);
}

/* 3.13's debug offsets at image offset 0, from the table's row (what the headers say). */
static void
put_debug_offsets(struct img *m, const struct pf_py_layout *l)
{
	memcpy(m->mem, "xdebugpy", 8);
	put64(m, 8, 0x030d00f0);
	put64(m, 24, 4096);
	put64(m, 40, (uint64_t)l->rt_interp_head);
	put64(m, 48, 8192);
	put64(m, 64, (uint64_t)l->is_next);
	put64(m, 72, (uint64_t)l->is_threads_head);
	put64(m, 152, 512);
	put64(m, 168, (uint64_t)l->ts_next);
	put64(m, 184, (uint64_t)l->ts_frame);
	put64(m, 200, (uint64_t)l->ts_tid);
	put64(m, 224, 80);
	put64(m, 232, (uint64_t)l->fr_previous);
	put64(m, 240, (uint64_t)l->fr_code);
	put64(m, 264, (uint64_t)l->fr_owner);
	put64(m, 272, 256);
	put64(m, 280, (uint64_t)l->co_filename);
	put64(m, 296, (uint64_t)l->co_name);
	put64(m, 312, (uint64_t)l->co_firstlineno);
	put64(m, 536, 64);
	put64(m, 544, (uint64_t)l->uni_state);
	put64(m, 552, (uint64_t)l->uni_length);
	put64(m, 560, (uint64_t)l->uni_ascii_size);
}

/*
 * The image's plan (offsets from IMG_BASE): runtime 0 (3.13's debug
 * offsets there too, the interpreters' head past them), interpreter
 * 0x1000, thread state 0x2000 (tid 4242), its _PyCFrame 0x2800, the
 * pthread of 3.9/3.10 0x2c00, code objects from 0x3000 (0x100 each),
 * their strings from 0x3400 (name and file, 0x100 each), frames from
 * O_FRAMES (STRIDE each): an image of three frames is some 17 KiB.
 */
#define O_INTERP	0x1000
#define O_TSTATE	0x2000
#define O_CFRAME	0x2800
#define O_PTHREAD	0x2c00
#define O_CODE		0x3000
#define O_STR		0x3400
#define O_FRAMES	0x4000
#define STRIDE		0x80
#define TID		4242
#define TID_OFF		0x2d0

/* The runtime, one interpreter, one thread whose first frame is the one at frame0. */
static void
put_runtime(struct img *m, const struct pf_py_layout *l, uint64_t frame0)
{
	if (l->minor >= 13)
		put_debug_offsets(m, l);
	put64(m, (uint64_t)l->rt_interp_head, IMG_BASE + O_INTERP);
	put64(m, O_INTERP + (uint64_t)l->is_threads_head, IMG_BASE + O_TSTATE);
	if (l->ts_tid_pthread) {
		put64(m, O_TSTATE + (uint64_t)l->ts_tid, IMG_BASE + O_PTHREAD);
		put32(m, O_PTHREAD + TID_OFF, TID);
	} else
		put64(m, O_TSTATE + (uint64_t)l->ts_tid, TID);
	if (l->cf_frame >= 0) {
		put64(m, O_TSTATE + (uint64_t)l->ts_frame, IMG_BASE + O_CFRAME);
		put64(m, O_CFRAME + (uint64_t)l->cf_frame, frame0);
	} else
		put64(m, O_TSTATE + (uint64_t)l->ts_frame, frame0);
}

/* Code object k named name in file file, first line line. */
static void
put_code(struct img *m, const struct pf_py_layout *l, int k, const char *name, const char *file,
    int line)
{
	uint64_t co = O_CODE + (uint64_t)k * 0x100, sn = O_STR + (uint64_t)k * 0x200;

	put64(m, co + (uint64_t)l->co_name, IMG_BASE + sn);
	put64(m, co + (uint64_t)l->co_filename, IMG_BASE + sn + 0x100);
	put32(m, co + (uint64_t)l->co_firstlineno, (uint32_t)line);
	put_ascii(m, l, sn, name);
	put_ascii(m, l, sn + 0x100, file);
}

/* Frame i: code object k, previous frame prev (an address, 0 for none), owner. */
static void
put_frame(struct img *m, const struct pf_py_layout *l, size_t i, int k, uint64_t prev, int owner)
{
	uint64_t fr = O_FRAMES + i * STRIDE;

	put64(m, fr + (uint64_t)l->fr_code, IMG_BASE + O_CODE + (uint64_t)k * 0x100);
	put64(m, fr + (uint64_t)l->fr_previous, prev);
	if (l->fr_owner >= 0)
		m->mem[fr + (uint64_t)l->fr_owner] = (unsigned char)owner;
}

#define FRAME(i)	(IMG_BASE + O_FRAMES + (uint64_t)(i) * STRIDE)

static struct pf_py_stack stack;

static void
seed(const struct img *m, const char *name)
{
	const char *dir = getenv("PF_PY_SEEDS");
	char path[4096];
	FILE *f;

	if (dir == NULL)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "w")) == NULL || fwrite(m->mem, 1, m->size, f) != m->size ||
	    fclose(f) != 0)
		CHECK(0, "%s: cannot write the seed", path);
}

/* A three-frame chain for 3.minor: walked whole, names, lines and entries as built. */
static void
hostile_plain(int minor)
{
	const struct pf_py_layout *l = pf_py_layout(minor);
	struct pf_py py;
	struct pf_py_thread th[4];
	struct img m;
	uint64_t ts;
	size_t n;
	int end, cst = l->owner_cstack;
	char name[32];

	img_new(&m, O_FRAMES + 8 * STRIDE);
	put_runtime(&m, l, FRAME(0));
	put_code(&m, l, 0, "checksum", "/srv/app.py", 3);
	put_code(&m, l, 1, "Server.handler", "/srv/app.py", 9);
	put_code(&m, l, 2, "<module>", "/srv/app.py", 1);
	/* 3.12+: frame 1 was called from C (a shim below it), and so was 2. */
	if (cst >= 0) {
		put_frame(&m, l, 0, 0, FRAME(1), 0);
		put_frame(&m, l, 1, 1, FRAME(3), 0);
		put_frame(&m, l, 3, 0, FRAME(2), cst);
		put_frame(&m, l, 2, 2, FRAME(4), 0);
		put_frame(&m, l, 4, 0, 0, cst);
	} else {
		put_frame(&m, l, 0, 0, FRAME(1), 0);
		put_frame(&m, l, 1, 1, FRAME(2), 0);
		put_frame(&m, l, 2, 2, 0, 0);
		if (l->fr_is_entry >= 0) {
			m.mem[O_FRAMES + 1 * STRIDE + (uint64_t)l->fr_is_entry] = 1;
			m.mem[O_FRAMES + 2 * STRIDE + (uint64_t)l->fr_is_entry] = 1;
		}
	}
	CHECK(pf_py_init(&py, minor, IMG_BASE, TID_OFF, img_read, &m) == 0,
	    "3.%d: init: %s", minor, strerror(errno));
	CHECK(pf_py_threads(&py, th, 4, &n, &end) == 0 && n == 1 && end == PF_PY_END_DONE &&
	    th[0].tid == TID && th[0].tstate == IMG_BASE + O_TSTATE,
	    "3.%d: threads: %zu, end %d, tid %u", minor, n, end, n > 0 ? th[0].tid : 0);
	CHECK(pf_py_find_thread(&py, TID, &ts) == 0 && ts == IMG_BASE + O_TSTATE,
	    "3.%d: thread %d not found", minor, TID);
	CHECK(pf_py_find_thread(&py, TID + 1, &ts) == -1 && errno == ENOENT,
	    "3.%d: a tid not there was found", minor);
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	CHECK(stack.n == 3 && stack.end == PF_PY_END_DONE, "3.%d: %zu frames, end %d", minor,
	    stack.n, stack.end);
	if (stack.n == 3) {
		CHECK(strcmp(stack.frame[0].name, "checksum") == 0 &&
		    strcmp(stack.frame[1].name, "Server.handler") == 0 &&
		    strcmp(stack.frame[2].name, "<module>") == 0 &&
		    strcmp(stack.frame[2].file, "/srv/app.py") == 0 &&
		    stack.frame[2].filelen == 11 && stack.frame[0].namelen == 8,
		    "3.%d: names %s %s %s", minor, stack.frame[0].name, stack.frame[1].name,
		    stack.frame[2].name);
		CHECK(stack.frame[0].firstline == 3 && stack.frame[1].firstline == 9 &&
		    stack.frame[2].firstline == 1, "3.%d: lines", minor);
		CHECK(stack.frame[0].entry == (minor < 11) && stack.frame[1].entry &&
		    stack.frame[2].entry, "3.%d: entries %d %d %d", minor, stack.frame[0].entry,
		    stack.frame[1].entry, stack.frame[2].entry);
		CHECK(stack.frame[1].addr == FRAME(1), "3.%d: frame address", minor);
	}
	snprintf(name, sizeof(name), "plain-3.%d", minor);
	seed(&m, name);
	free(m.mem);
}

/* The hostile cases, over 3.11's layout unless said. */
static void
test_pyhostile(void)
{
	const struct pf_py_layout *l = pf_py_layout(11), *l12 = pf_py_layout(12);
	struct pf_py py;
	struct pf_py_thread th[8];
	struct img m;
	size_t i, n;
	int minor, end;
	struct timespec t0, t1;
	double secs;
	uint32_t cp[8];

	for (minor = PF_PY_MINOR_MIN; minor <= PF_PY_MINOR_MAX; minor++)
		hostile_plain(minor);
	CHECK(pf_py_layout(8) == NULL && pf_py_layout(14) == NULL, "3.8 or 3.14 has a layout");
	CHECK(pf_py_init(&py, 8, IMG_BASE, 0, img_read, &m) == -1 && errno == ENOTSUP,
	    "3.8 taken");
	CHECK(pf_py_init(&py, 14, IMG_BASE, 0, img_read, &m) == -1 && errno == ENOTSUP,
	    "3.14 taken");
	CHECK(pf_py_init(&py, 9, IMG_BASE, 0, img_read, &m) == -1 && errno == EINVAL,
	    "3.9 taken without the pthread tid offset");

	/* A cyclic chain: 0 -> 1 -> 2 -> 1. */
	img_new(&m, O_FRAMES + 8 * STRIDE);
	put_runtime(&m, l, FRAME(0));
	put_code(&m, l, 0, "a", "f.py", 1);
	put_frame(&m, l, 0, 0, FRAME(1), 0);
	put_frame(&m, l, 1, 0, FRAME(2), 0);
	put_frame(&m, l, 2, 0, FRAME(1), 0);
	pf_py_init(&py, 11, IMG_BASE, 0, img_read, &m);
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	CHECK(stack.n == 3 && stack.end == PF_PY_END_LOOP, "cycle: %zu frames, end %d", stack.n,
	    stack.end);
	seed(&m, "cycle");

	/* A garbage pointer: frame 1's previous points nowhere; the walk keeps what it had. */
	put_frame(&m, l, 1, 0, 0xdead0000beef0000ull, 0);
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	CHECK(stack.n == 2 && stack.end == PF_PY_END_READ && strcmp(stack.frame[1].name, "a") == 0,
	    "garbage: %zu frames, end %d", stack.n, stack.end);
	seed(&m, "garbage");
	/* A garbage code pointer: the frame is kept, its names marked unreadable. */
	put_frame(&m, l, 1, 0, 0, 0);
	put64(&m, O_FRAMES + STRIDE + (uint64_t)l->fr_code, 0x7ff0000000000000ull);
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	CHECK(stack.n == 2 && stack.end == PF_PY_END_DONE &&
	    stack.frame[1].name_st == PF_PY_NAME_UNREADABLE &&
	    stack.frame[1].file_st == PF_PY_NAME_UNREADABLE &&
	    strcmp(stack.frame[1].name, "[unreadable]") == 0 && stack.frame[1].firstline == 0,
	    "garbage code: %zu frames, end %d, name %s", stack.n, stack.end, stack.frame[1].name);
	/* A garbage thread state: no frame, read. */
	pf_py_thread_frames(&py, 0x7ff0000000000000ull, &stack);
	CHECK(stack.n == 0 && stack.end == PF_PY_END_READ, "garbage tstate: end %d", stack.end);

	/* A thread list that loops on itself; an interpreter list that does. */
	put64(&m, O_TSTATE + (uint64_t)l->ts_next, IMG_BASE + O_TSTATE);
	CHECK(pf_py_threads(&py, th, 8, &n, &end) == 0 && n == 1 && end == PF_PY_END_LOOP,
	    "thread loop: %zu, end %d", n, end);
	CHECK(pf_py_find_thread(&py, 1, &th[0].tstate) == -1, "thread loop: found tid 1");
	put64(&m, O_TSTATE + (uint64_t)l->ts_next, 0);
	put64(&m, O_INTERP + (uint64_t)l->is_next, IMG_BASE + O_INTERP);
	CHECK(pf_py_threads(&py, th, 8, &n, &end) == 0 && n == 1 && end == PF_PY_END_LOOP,
	    "interpreter loop: %zu, end %d", n, end);
	seed(&m, "interp-loop");
	put64(&m, O_INTERP + (uint64_t)l->is_next, 0);

	/* Names: a bogus length (2^62), one past the most, the most, and every kind. */
	put64(&m, O_STR + (uint64_t)l->uni_length, 1ull << 62);
	m.maxlen = 0;
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	CHECK(stack.n == 2 && stack.frame[0].name_st == PF_PY_NAME_LONG &&
	    strcmp(stack.frame[0].name, "[name too long]") == 0 && m.maxlen <= 4 * PF_PY_NAME_MAX,
	    "bogus length: %s, read %zu bytes at once", stack.frame[0].name, m.maxlen);
	seed(&m, "bogus-length");
	free(m.mem);

	img_new(&m, 0x20000);
	put_runtime(&m, l, FRAME(0));
	put_code(&m, l, 0, "a", "f.py", 1);
	put_frame(&m, l, 0, 0, 0, 0);
	pf_py_init(&py, 11, IMG_BASE, 0, img_read, &m);
	/* 1024 ASCII characters: kept; 1025: refused whole. */
	memset(m.mem + O_STR + (uint64_t)l->uni_ascii_size, 'x', PF_PY_NAME_MAX + 1);
	put64(&m, O_STR + (uint64_t)l->uni_length, PF_PY_NAME_MAX);
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	CHECK(stack.n == 1 && stack.frame[0].name_st == PF_PY_NAME_OK &&
	    stack.frame[0].namelen == PF_PY_NAME_MAX && stack.frame[0].name[PF_PY_NAME_MAX] == '\0',
	    "1024 characters: status %d, %zu bytes", stack.frame[0].name_st, stack.frame[0].namelen);
	/* Refused by its length: none of its characters read. */
	put64(&m, O_STR + (uint64_t)l->uni_length, PF_PY_NAME_MAX + 1);
	m.maxlen = 0;
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	CHECK(stack.n == 1 && stack.frame[0].name_st == PF_PY_NAME_LONG && m.maxlen <= 8,
	    "1025 characters: status %d, read %zu bytes at once", stack.frame[0].name_st, m.maxlen);
	/* Latin-1 (kind 1, not ASCII) as UTF-8. */
	cp[0] = 'c'; cp[1] = 'a'; cp[2] = 'f'; cp[3] = 0xe9;
	put_str(&m, l, O_STR, cp, 4, 4, 1, false, true);
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	CHECK(stack.frame[0].name_st == PF_PY_NAME_OK && strcmp(stack.frame[0].name, "caf\xc3\xa9") == 0,
	    "latin-1: %s", stack.frame[0].name);
	/* 600 characters of U+00E9: 1200 bytes of UTF-8, past the most: refused. */
	for (i = 0; i < 600; i++)
		m.mem[O_STR + (uint64_t)l->uni_compact_size + i] = 0xe9;
	put64(&m, O_STR + (uint64_t)l->uni_length, 600);
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	CHECK(stack.frame[0].name_st == PF_PY_NAME_LONG, "1200 bytes of UTF-8: status %d",
	    stack.frame[0].name_st);
	/* UCS-2 with a lone surrogate: decoded, the surrogate a '?'. */
	cp[0] = 0x3c0; cp[1] = 0xd800; cp[2] = 'x';
	put_str(&m, l, O_STR, cp, 3, 3, 2, false, true);
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	CHECK(stack.frame[0].name_st == PF_PY_NAME_MARKED &&
	    strcmp(stack.frame[0].name, "\xcf\x80?x") == 0, "ucs-2: %s", stack.frame[0].name);
	/* UCS-4 past U+10FFFF: a '?'. */
	cp[0] = 0x1f600; cp[1] = 0x110000;
	put_str(&m, l, O_STR, cp, 2, 2, 4, false, true);
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	CHECK(stack.frame[0].name_st == PF_PY_NAME_MARKED &&
	    strcmp(stack.frame[0].name, "\xf0\x9f\x98\x80?") == 0, "ucs-4: %s", stack.frame[0].name);
	/* ASCII said, a byte above 0x7f held: a '?'. */
	cp[0] = 'a'; cp[1] = 0xff;
	put_str(&m, l, O_STR, cp, 2, 2, 1, true, true);
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	CHECK(stack.frame[0].name_st == PF_PY_NAME_MARKED && strcmp(stack.frame[0].name, "a?") == 0,
	    "false ascii: %s", stack.frame[0].name);
	/* Not compact, a kind 3, a negative length: not strings. */
	put_str(&m, l, O_STR, cp, 1, 1, 1, true, false);
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	CHECK(stack.frame[0].name_st == PF_PY_NAME_NOTSTR &&
	    strcmp(stack.frame[0].name, "[not a string]") == 0, "not compact: %s",
	    stack.frame[0].name);
	put_str(&m, l, O_STR, cp, 1, 1, 3, false, true);
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	CHECK(stack.frame[0].name_st == PF_PY_NAME_NOTSTR, "kind 3: status %d",
	    stack.frame[0].name_st);
	put_str(&m, l, O_STR, cp, 1, -1, 1, true, true);
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	CHECK(stack.frame[0].name_st == PF_PY_NAME_NOTSTR, "length -1: status %d",
	    stack.frame[0].name_st);
	free(m.mem);

	/* 3.9's layout: a string not ready (a legacy one being built) is not one either. */
	l = pf_py_layout(9);
	img_new(&m, O_FRAMES + 8 * STRIDE);
	put_runtime(&m, l, FRAME(0));
	put_code(&m, l, 0, "a", "f.py", 1);
	put_frame(&m, l, 0, 0, 0, 0);
	pf_py_init(&py, 9, IMG_BASE, TID_OFF, img_read, &m);
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	CHECK(stack.n == 1 && stack.frame[0].name_st == PF_PY_NAME_OK, "3.9: %s", stack.frame[0].name);
	put32(&m, O_STR + (uint64_t)l->uni_state, l->uni_compact | l->uni_ascii |
	    1u << __builtin_ctz(l->uni_kind));
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	CHECK(stack.n == 1 && stack.frame[0].name_st == PF_PY_NAME_NOTSTR, "3.9 not ready: status %d",
	    stack.frame[0].name_st);
	free(m.mem);
	l = pf_py_layout(11);

	/* A 100k-deep chain: 256 frames, then depth, in a bounded number of reads. */
	img_new(&m, O_FRAMES + 100000 * STRIDE);
	put_runtime(&m, l, FRAME(0));
	put_code(&m, l, 0, "deep", "f.py", 1);
	for (i = 0; i < 100000; i++)
		put_frame(&m, l, i, 0, i + 1 < 100000 ? FRAME(i + 1) : 0, 0);
	pf_py_init(&py, 11, IMG_BASE, 0, img_read, &m);
	m.reads = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	CHECK(stack.n == PF_PY_FRAMES_MAX && stack.end == PF_PY_END_DEPTH && m.reads < 20 * 256,
	    "100k deep: %zu frames, end %d, %lu reads", stack.n, stack.end, m.reads);
	fprintf(stderr, "100k-deep chain: %zu frames, %lu reads, %.4f s\n", stack.n, m.reads, secs);
	free(m.mem);

	/* 3.12's shims only: no frame, and 600 of them end at the walk's most. */
	img_new(&m, O_FRAMES + 700 * STRIDE);
	put_runtime(&m, l12, FRAME(0));
	put_code(&m, l12, 0, "a", "f.py", 1);
	for (i = 0; i < 600; i++)
		put_frame(&m, l12, i, 0, i + 1 < 600 ? FRAME(i + 1) : 0, l12->owner_cstack);
	pf_py_init(&py, 12, IMG_BASE, 0, img_read, &m);
	pf_py_thread_frames(&py, IMG_BASE + O_TSTATE, &stack);
	CHECK(stack.n == 0 && stack.end == PF_PY_END_DEPTH, "600 shims: %zu frames, end %d",
	    stack.n, stack.end);
	free(m.mem);

	/* 3.13: the debug offsets refused when the cookie, the version or a bound is wrong. */
	l = pf_py_layout(13);
	img_new(&m, O_FRAMES + 8 * STRIDE);
	put_runtime(&m, l, 0);
	CHECK(pf_py_init(&py, 13, IMG_BASE, 0, img_read, &m) == 0, "3.13: %s", strerror(errno));
	m.mem[0] = 'X';
	CHECK(pf_py_init(&py, 13, IMG_BASE, 0, img_read, &m) == -1 && errno == EPROTO,
	    "3.13: a wrong cookie taken");
	m.mem[0] = 'x';
	put64(&m, 8, 0x030c00f0);
	CHECK(pf_py_init(&py, 13, IMG_BASE, 0, img_read, &m) == -1 && errno == EPROTO,
	    "3.13: 3.12's version taken");
	put64(&m, 8, 0x030d00f0);
	put64(&m, 16, 1);
	CHECK(pf_py_init(&py, 13, IMG_BASE, 0, img_read, &m) == -1 && errno == ENOTSUP,
	    "3.13: free-threaded taken");
	put64(&m, 16, 0);
	put64(&m, 232, 80);	/* previous at the frame's size */
	CHECK(pf_py_init(&py, 13, IMG_BASE, 0, img_read, &m) == -1 && errno == EPROTO,
	    "3.13: an offset past its structure taken");
	CHECK(pf_py_init(&py, 13, IMG_BASE + 0x100000, 0, img_read, &m) == -1 && errno == EIO,
	    "3.13: unreadable offsets taken");
	free(m.mem);
}

/* ELF */

/*
 * The driver's own _PyRuntime, in its static symbol table: a program
 * without Py_Version or a soname, whose version only its name can say.
 */
__attribute__((used)) char _PyRuntime[64];

static int
probe_path(const char *path, struct pf_py_elf *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd == -1)
		return -2;
	rc = pf_py_elf_probe(fd, path, e);
	close(fd);
	return rc;
}

struct interp {
	const char *exe;	/* the program */
	const char *lib;	/* the file holding _PyRuntime */
	int minor, from;
	bool must;		/* never skipped */
};

static const struct interp interps[] = {
	{ "/root/.pyenv/versions/3.9.18/bin/python3.9",
	  "/root/.pyenv/versions/3.9.18/lib/libpython3.9.so.1.0", 9, PF_PY_VER_SONAME, false },
	{ "/root/.pyenv/versions/3.10.13/bin/python3.10",
	  "/root/.pyenv/versions/3.10.13/lib/libpython3.10.so.1.0", 10, PF_PY_VER_SONAME, false },
	{ "/root/.pyenv/versions/3.11.7/bin/python3.11",
	  "/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0", 11, PF_PY_VER_PY_VERSION, false },
	{ "/root/.pyenv/versions/3.12.1/bin/python3.12",
	  "/root/.pyenv/versions/3.12.1/lib/libpython3.12.so.1.0", 12, PF_PY_VER_PY_VERSION, false },
	{ "/root/.pyenv/versions/3.13.0/bin/python3.13",
	  "/root/.pyenv/versions/3.13.0/lib/libpython3.13.so.1.0", 13, PF_PY_VER_PY_VERSION, false },
	{ "/usr/bin/python3.11", "/usr/bin/python3.11", 11, PF_PY_VER_PY_VERSION, true },
};

static void
test_pyelf(void)
{
	struct pf_py_elf e;
	size_t k;
	uint32_t off;
	int fd, rc;

	for (k = 0; k < sizeof(interps) / sizeof(interps[0]); k++) {
		const struct interp *ip = &interps[k];

		if (!ip->must && access(ip->lib, R_OK) != 0) {
			fprintf(stderr, "skip %s: absent\n", ip->lib);
			continue;
		}
		rc = probe_path(ip->lib, &e);
		CHECK(rc == 0 && e.runtime != 0 && e.major == 3 && e.minor == ip->minor &&
		    e.from == ip->from && (e.hexversion >> 16) == (0x0300u | (unsigned)ip->minor),
		    "%s: rc %d, 3.%d from %d, %#x", ip->lib, rc, e.minor, e.from, e.hexversion);
	}
	/* Debian's 3.11.2: Py_Version says the patch release. */
	CHECK(probe_path("/usr/bin/python3.11", &e) == 0 && e.hexversion >> 8 == 0x030b02,
	    "/usr/bin/python3.11: %#x", e.hexversion);
	/* The name rule: python3.N with an optional ABI flag, nothing else. */
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	CHECK(fd != -1 && pf_py_elf_probe(fd, "/opt/py/bin/python3.9", &e) == 0 &&
	    e.from == PF_PY_VER_FILENAME && e.minor == 9 && e.hexversion == 0x03090000 &&
	    ((uint64_t)(uintptr_t)_PyRuntime - e.runtime) % 4096 == 0,
	    "python3.9 by name: from %d, 3.%d, runtime %#llx", e.from, e.minor,
	    (unsigned long long)e.runtime);
	CHECK(fd != -1 && pf_py_elf_probe(fd, "python3.13d", &e) == 0 &&
	    e.from == PF_PY_VER_FILENAME && e.minor == 13, "python3.13d by name: 3.%d", e.minor);
	for (k = 0; k < 6; k++) {
		static const char *const bad[] = { "python3", "python3.09", "python3.9x",
		    "python3.100", "python2.7", "/usr/bin/py3.9" };

		CHECK(fd != -1 && pf_py_elf_probe(fd, bad[k], &e) == 0 && e.from == PF_PY_VER_NONE &&
		    e.minor == 0 && e.hexversion == 0, "%s: a version by name (3.%d)", bad[k], e.minor);
	}
	if (fd != -1)
		close(fd);
	/* A file without _PyRuntime, a file that is not ELF. */
	CHECK(probe_path("/bin/sh", &e) == -1 && errno == ENOENT, "/bin/sh is an interpreter");
	CHECK(probe_path("/etc/passwd", &e) == -1 && errno == EINVAL, "/etc/passwd is ELF");
	/* 3.8: its version said, and refused by pf_py_init. */
	if (access("/root/.pyenv/versions/3.8.18/lib/libpython3.8.so.1.0", R_OK) == 0) {
		CHECK(probe_path("/root/.pyenv/versions/3.8.18/lib/libpython3.8.so.1.0", &e) == 0 &&
		    e.minor == 8 && e.from == PF_PY_VER_SONAME && pf_py_layout(e.minor) == NULL,
		    "3.8: 3.%d from %d", e.minor, e.from);
	} else
		fprintf(stderr, "skip 3.8's libpython: absent\n");
	/* The C library's pthread tid: glibc 2.36's struct pthread keeps it at 720. */
	fd = open("/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY | O_CLOEXEC);
	CHECK(fd != -1 && pf_py_elf_pthread_tid(fd, &off) == 0 && off > 0 && off < 4096,
	    "libc: pthread tid offset: %s", strerror(errno));
	if (fd != -1)
		close(fd);
	fd = open("/bin/sh", O_RDONLY | O_CLOEXEC);
	CHECK(fd != -1 && pf_py_elf_pthread_tid(fd, &off) == -1 && errno == ENOENT,
	    "/bin/sh has a pthread tid descriptor");
	if (fd != -1)
		close(fd);
}

/* Live interpreters */

/* The script each interpreter runs: its first lines are the test's. */
static const char script[] =
    "import sys, threading\n"				/* 1 */
    "\n"
    "def checksum(data):\n"				/* 3 */
    "    n = 0\n"
    "    while True:\n"
    "        n += 1\n"
    "\n"
    "class Server:\n"
    "    def handler(self, data):\n"			/* 9 */
    "        return checksum(data)\n"
    "\n"
    "def serve():\n"					/* 12 */
    "    return Server().handler(b'x')\n"
    "\n"
    "def other():\n"					/* 15 */
    "    while True:\n"
    "        pass\n"
    "\n"
    "def worker():\n"					/* 19 */
    "    other()\n"
    "\n"
    "def main():\n"					/* 22 */
    "    t = threading.Thread(target=worker, daemon=True)\n"
    "    t.start()\n"
    "    sys.stdout.write('%d %d\\n' % (threading.get_native_id(), t.native_id))\n"
    "    sys.stdout.flush()\n"
    "    serve()\n"
    "\n"
    "main()\n";

struct want {
	const char *name, *name39;	/* 3.11+, 3.9 and 3.10 */
	bool ours;			/* in the script (else threading.py) */
	int line;			/* 0: threading.py's, not checked */
	bool entry11, entry12;		/* an entry frame in 3.11, in 3.12+ */
	int at_lo, at_hi;		/* the line it is at (0: threading.py's, any) */
};

static const struct want want_main[] = {
	{ "checksum", "checksum", true, 3, false, false, 5, 6 },
	{ "Server.handler", "handler", true, 9, false, false, 10, 10 },
	{ "serve", "serve", true, 12, false, false, 13, 13 },
	{ "main", "main", true, 22, false, false, 27, 27 },
	{ "<module>", "<module>", true, 1, true, true, 29, 29 },
};

static const struct want want_worker[] = {
	{ "other", "other", true, 15, false, false, 16, 17 },
	/* 3.11 calls the target of Thread.run (CALL_FUNCTION_EX) through C; 3.12 inline. */
	{ "worker", "worker", true, 19, true, false, 20, 20 },
	{ "Thread.run", "run", false, 0, false, false, 0, 0 },
	{ "Thread._bootstrap_inner", "_bootstrap_inner", false, 0, false, false, 0, 0 },
	{ "Thread._bootstrap", "_bootstrap", false, 0, true, true, 0, 0 },
};

struct live {
	pid_t pid;
};

static int
live_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct live *lv = ctx;
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(lv->pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

/*
 * The interpreter's runtime in pid and the C library's tid offset, from
 * its maps: the first file mapped at offset 0 holding _PyRuntime.
 */
static bool
find_runtime(pid_t pid, struct pf_py_elf *e, uint64_t *runtime, uint32_t *tid_off)
{
	char path[64], line[4096], file[4096];
	unsigned long start, end, off;
	FILE *f;
	bool found = false;

	*tid_off = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		const char *base;
		int fd;

		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &start, &end, &off, file) != 4 ||
		    off != 0 || file[0] != '/')
			continue;
		base = strrchr(file, '/') + 1;
		if ((fd = open(file, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		if (strncmp(base, "libc.so", 7) == 0 && pf_py_elf_pthread_tid(fd, tid_off) != 0)
			*tid_off = 0;
		if (!found && pf_py_elf_probe(fd, file, e) == 0) {
			*runtime = start - e->vaddr0 + e->runtime;
			found = true;
		}
		close(fd);
	}
	fclose(f);
	return found;
}

/* The line frame f is at, from its code's line table: 0 when none. */
static int32_t
frame_line(const struct pf_py *py, const struct pf_py_frame *f)
{
	static unsigned char tab[PF_PY_LINETABLE_MAX];
	size_t len;

	if (pf_py_code_linetable(py, f->code, tab, &len) != 0)
		return 0;
	return pf_py_addr2line(py->lay.minor, tab, len, f->firstline, f->lasti);
}

/* Whether the walk matches want; why not in why. */
static bool
walk_is(const struct pf_py *py, const struct pf_py_stack *st, const struct want *w, size_t nw,
    int minor, const char *spath, char *why, size_t whylen)
{
	size_t i;

	if (st->end != PF_PY_END_DONE || st->n != nw) {
		snprintf(why, whylen, "%zu frames, end %d (first %s)", st->n, st->end,
		    st->n > 0 ? st->frame[0].name : "none");
		return false;
	}
	for (i = 0; i < nw; i++) {
		const struct pf_py_frame *f = &st->frame[i];
		const char *name = minor >= 11 ? w[i].name : w[i].name39;
		size_t fl = f->filelen;
		int32_t line;

		if (f->name_st != PF_PY_NAME_OK || strcmp(f->name, name) != 0 ||
		    f->file_st != PF_PY_NAME_OK ||
		    (w[i].ours ? strcmp(f->file, spath) != 0 :
		    fl < 12 || strcmp(f->file + fl - 12, "threading.py") != 0) ||
		    (w[i].line != 0 ? f->firstline != w[i].line : f->firstline <= 0)) {
			snprintf(why, whylen, "frame %zu: %s in %s at %d, not %s", i, f->name, f->file,
			    f->firstline, name);
			return false;
		}
		/* Before 3.11 every Python call is a call of the C evaluator. */
		if (f->entry != (minor < 11 ? true : minor == 11 ? w[i].entry11 : w[i].entry12)) {
			snprintf(why, whylen, "frame %zu (%s): entry %d", i, f->name, f->entry);
			return false;
		}
		/* Callers at their call's line, the loops within theirs. */
		line = frame_line(py, f);
		if (w[i].at_lo != 0 ? line < w[i].at_lo || line > w[i].at_hi : line <= 0) {
			snprintf(why, whylen, "frame %zu (%s): at line %d (lasti %lld), not %d-%d", i,
			    f->name, line, (long long)f->lasti, w[i].at_lo, w[i].at_hi);
			return false;
		}
	}
	return true;
}

/* The interpreter ip running the script at spath (-S): its output, *pid; NULL when it cannot start. */
static FILE *
start_script(const struct interp *ip, const char *spath, pid_t *pid)
{
	int out[2], status;
	FILE *f;

	if (pipe2(out, O_CLOEXEC) == -1 || (*pid = fork()) == -1) {
		CHECK(0, "%s: cannot start: %s", ip->exe, strerror(errno));
		return NULL;
	}
	if (*pid == 0) {
		dup2(out[1], 1);
		execl(ip->exe, ip->exe, "-S", spath, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	if ((f = fdopen(out[0], "r")) == NULL) {
		CHECK(0, "%s: fdopen: %s", ip->exe, strerror(errno));
		close(out[0]);
		kill(*pid, SIGKILL);
		waitpid(*pid, &status, 0);
	}
	return f;
}

static void
live_one(const struct interp *ip, const char *spath)
{
	int status, minor = ip->minor;
	pid_t pid;
	FILE *f;
	unsigned tid_main = 0, tid_worker = 0;
	struct pf_py_elf e;
	struct pf_py py;
	struct pf_py_thread th[16];
	struct live lv;
	uint64_t runtime = 0, ts_main = 0, ts_worker = 0;
	uint32_t tid_off;
	size_t n, i;
	int end, tries;
	bool ok_main = false, ok_worker = false;
	char why_main[4096] = "", why_worker[4096] = "";

	if ((f = start_script(ip, spath, &pid)) == NULL)
		return;
	lv.pid = pid;
	if (fscanf(f, "%u %u", &tid_main, &tid_worker) != 2) {
		CHECK(0, "%s: no thread ids from the script", ip->exe);
		goto done;
	}
	CHECK(find_runtime(pid, &e, &runtime, &tid_off) && e.minor == minor,
	    "%s: no _PyRuntime of 3.%d in its maps", ip->exe, minor);
	if (runtime == 0)
		goto done;
	if (pf_py_init(&py, minor, runtime, tid_off, live_read, &lv) != 0) {
		CHECK(0, "%s: init: %s", ip->exe, strerror(errno));
		goto done;
	}
	/* Until both threads are in their loops: at most 10 s, the machine may be loaded. */
	for (tries = 0; tries < 500 && !(ok_main && ok_worker); tries++) {
		if (tries > 0)
			usleep(20000);
		if (pf_py_find_thread(&py, tid_main, &ts_main) != 0 ||
		    pf_py_find_thread(&py, tid_worker, &ts_worker) != 0) {
			snprintf(why_main, sizeof(why_main), "threads %u, %u not found", tid_main,
			    tid_worker);
			continue;
		}
		pf_py_thread_frames(&py, ts_main, &stack);
		ok_main = walk_is(&py, &stack, want_main, 5, minor, spath, why_main, sizeof(why_main));
		pf_py_thread_frames(&py, ts_worker, &stack);
		ok_worker = walk_is(&py, &stack, want_worker, 5, minor, spath, why_worker,
		    sizeof(why_worker));
	}
	CHECK(ok_main, "%s: main thread: %s", ip->exe, why_main);
	CHECK(ok_worker, "%s: worker thread: %s", ip->exe, why_worker);
	CHECK(pf_py_threads(&py, th, 16, &n, &end) == 0 && end == PF_PY_END_DONE && n == 2,
	    "%s: %zu thread states, end %d", ip->exe, n, end);
	for (i = 0; i < n && i < 16; i++)
		CHECK((th[i].tid == tid_main && th[i].tstate == ts_main) ||
		    (th[i].tid == tid_worker && th[i].tstate == ts_worker),
		    "%s: thread state %zu: tid %u", ip->exe, i, th[i].tid);
	fprintf(stderr, "%s: 3.%d, main and worker threads walked (%d tries)\n", ip->exe, minor, tries);
done:
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	fclose(f);
}

/*
 * The script text, written as NAME in a directory of its own, run by fn
 * under each interpreter present (an absent pyenv one said and skipped).
 */
static void
each_interp(const char *name, const char *text, void (*fn)(const struct interp *, const char *))
{
	const char *tmp = getenv("BATS_TEST_TMPDIR");
	char dir[4096], spath[4200];
	FILE *f;
	size_t k;

	snprintf(dir, sizeof(dir), "%s/pyframe.XXXXXX", tmp != NULL ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		CHECK(0, "%s: %s", dir, strerror(errno));
		return;
	}
	snprintf(spath, sizeof(spath), "%s/%s", dir, name);
	if ((f = fopen(spath, "w")) == NULL || fputs(text, f) == EOF || fclose(f) != 0) {
		CHECK(0, "%s: cannot write", spath);
		return;
	}
	for (k = 0; k < sizeof(interps) / sizeof(interps[0]); k++) {
		if (!interps[k].must && access(interps[k].exe, X_OK) != 0) {
			fprintf(stderr, "skip %s: absent\n", interps[k].exe);
			continue;
		}
		fn(&interps[k], spath);
	}
	unlink(spath);
	rmdir(dir);
}

/* Line tables */

/* Each code object of some modules: "C firstline units hex-table", then each unit's line. */
static const char lines_script[] =
    "import sys, dis, importlib.util\n"
    "def units(co):\n"
    "    n = len(co.co_code) // 2\n"
    "    if sys.version_info >= (3, 11):\n"
    "        return [p[0] or 0 for p in co.co_positions()]\n"
    "    out = [0] * n\n"
    "    if sys.version_info >= (3, 10):\n"
    "        for s, e, l in co.co_lines():\n"
    "            for a in range(s, e, 2):\n"
    "                if a // 2 < n: out[a // 2] = l or 0\n"
    "        return out\n"
    "    starts = list(dis.findlinestarts(co))\n"
    "    for i in range(n):\n"
    "        l = co.co_firstlineno\n"
    "        for a, sl in starts:\n"
    "            if a <= 2 * i: l = sl\n"
    "        out[i] = l\n"
    "    return out\n"
    "def dump(co):\n"
    "    tab = co.co_linetable if sys.version_info >= (3, 10) else co.co_lnotab\n"
    "    u = units(co)\n"
    "    print('C', co.co_firstlineno, len(u), tab.hex() or '-')\n"
    "    print(' '.join(map(str, u)) or '-')\n"
    "    for c in co.co_consts:\n"
    "        if hasattr(c, 'co_code'): dump(c)\n"
    "for m in ('json.decoder', 'argparse', 'threading', 'asyncio.base_events', 'dataclasses'):\n"
    "    path = importlib.util.find_spec(m).origin\n"
    "    with open(path, 'rb') as f:\n"
    "        dump(compile(f.read(), path, 'exec'))\n";

static int
hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Run one interpreter on the script at spath and check every code object it dumps. */
static void
lines_one(const struct interp *ip, const char *spath)
{
	int status;
	pid_t pid;
	FILE *f;
	char *line = NULL;
	size_t cap = 0, codes = 0, units = 0, bad = 0;
	unsigned char *tab = malloc(PF_PY_LINETABLE_MAX);

	if (tab == NULL || (f = start_script(ip, spath, &pid)) == NULL) {
		CHECK(tab != NULL, "%s: out of memory", ip->exe);
		free(tab);
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		long first, n, i;
		size_t len = 0;
		char hex[2 * 65536 + 2], *p, *end;

		if (sscanf(line, "C %ld %ld %131073s", &first, &n, hex) != 3) {
			CHECK(0, "%s: not a code line: %.80s", ip->exe, line);
			break;
		}
		for (p = hex; strcmp(hex, "-") != 0 && p[0] != '\0' && p[1] != '\0' &&
		    len < PF_PY_LINETABLE_MAX; p += 2)
			tab[len++] = (unsigned char)(hexval(p[0]) << 4 | hexval(p[1]));
		if (getline(&line, &cap, f) <= 0) {
			CHECK(0, "%s: no lines after a code object", ip->exe);
			break;
		}
		codes++;
		/* At its entry (before its first instruction), the first line. */
		if (pf_py_addr2line(ip->minor, tab, len, (int32_t)first, ip->minor == 9 ? -1 : -2) !=
		    first && bad++ < 5)
			CHECK(0, "%s: code at %ld: entry gives line %d", ip->exe, first,
			    pf_py_addr2line(ip->minor, tab, len, (int32_t)first, -2));
		for (i = 0, p = line; i < n; i++, p = end) {
			long want = strtol(p, &end, 10);
			int32_t got;

			if (end == p) {
				CHECK(0, "%s: code at %ld: %ld lines, not %ld", ip->exe, first, i, n);
				break;
			}
			units++;
			got = pf_py_addr2line(ip->minor, tab, len, (int32_t)first, 2 * i);
			if (got != want && bad++ < 5)
				CHECK(0, "%s: code at %ld: unit %ld: line %d, its interpreter says %ld",
				    ip->exe, first, i, got, want);
		}
	}
	free(line);
	fclose(f);
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: the dump failed", ip->exe);
	CHECK(codes > 400 && bad == 0, "%s: %zu code objects, %zu instructions, %zu wrong",
	    ip->exe, codes, units, bad);
	fprintf(stderr, "%s: 3.%d, %zu code objects, %zu instructions, %zu wrong\n", ip->exe,
	    ip->minor, codes, units, bad);
	free(tab);
}

static void
test_pylines(void)
{
	static const unsigned char zeros[8], loop39[] = { 0, 1, 0, 1 };
	static const unsigned char noline310[] = { 4, 0x80, 4, 2 };
	static const unsigned char long311[] = { 0xf0, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f,
		0x7f, 0x7f, 0x7f, 0x7f, 0x3f, 0x80 | 13 << 3, 0x02, 0x80 | 15 << 3 };

	/* Hostile tables: no line, never a read past their length. */
	CHECK(pf_py_addr2line(11, zeros, sizeof(zeros), 7, 0) == 0,
	    "3.11: a table without an entry's top bit gives a line");
	CHECK(pf_py_addr2line(11, NULL, 0, 7, 0) == 0 && pf_py_addr2line(10, NULL, 0, 7, 4) == 0,
	    "an empty table gives a line");
	CHECK(pf_py_addr2line(11, NULL, 0, 7, -2) == 7 && pf_py_addr2line(9, NULL, 0, 7, -1) == 7,
	    "before the first instruction: not the first line");
	CHECK(pf_py_addr2line(12, zeros, 0, 7, PF_PY_LASTI_NONE) == 0, "an unknown lasti gives a line");
	CHECK(pf_py_addr2line(9, loop39, sizeof(loop39), 7, 1000) == 9,
	    "3.9: empty steps of a line: %d", pf_py_addr2line(9, loop39, sizeof(loop39), 7, 1000));
	CHECK(pf_py_addr2line(10, noline310, sizeof(noline310), 7, 2) == 0 &&
	    pf_py_addr2line(10, noline310, sizeof(noline310), 7, 6) == 9,
	    "3.10: a range without a line, then +2");
	/* A varint of 72 bits, cut; then -1; then no line. */
	CHECK(pf_py_addr2line(11, long311, sizeof(long311), 7, 0) == 0,
	    "3.11: a line past belief is a line");
	CHECK(pf_py_addr2line(11, long311, 13, 7, 2) == 0, "3.11: a table cut short holds unit 1");
	each_interp("lines.py", lines_script, lines_one);
}

static void
test_pylive(void)
{
	each_interp("app.py", script, live_one);
}

/* The fake interpreter */

/* Start PF_PY_FAKE in mode: its pid and the tid it prints, or false. */
static bool
fake_start(const char *fake, const char *mode, pid_t *pid, unsigned *tid, FILE **out)
{
	int p[2];

	*out = NULL;
	if (pipe2(p, O_CLOEXEC) == -1 || (*pid = fork()) == -1) {
		CHECK(0, "%s %s: cannot start: %s", fake, mode, strerror(errno));
		return false;
	}
	if (*pid == 0) {
		dup2(p[1], 1);
		execl(fake, fake, mode, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if ((*out = fdopen(p[0], "r")) == NULL) {
		close(p[0]);
		CHECK(0, "%s %s: fdopen: %s", fake, mode, strerror(errno));
		return false;
	}
	if (fscanf(*out, "ready %u", tid) != 1) {
		CHECK(0, "%s %s: no ready line", fake, mode);
		return false;
	}
	return true;
}

/*
 * Walk the fake in mode: found as 3.11.7 by Py_Version, one thread, its
 * tid the one printed; the walk's frames into stack, in *secs.
 */
static bool
fake_walk(const char *fake, const char *mode, double *secs)
{
	pid_t pid;
	unsigned tid = 0;
	FILE *out;
	struct pf_py_elf e;
	struct pf_py py;
	struct pf_py_thread th[4];
	struct live lv;
	struct timespec t0, t1;
	uint64_t runtime = 0, ts = 0;
	uint32_t tid_off;
	size_t n;
	int end, status;
	bool ok = false;

	if (!fake_start(fake, mode, &pid, &tid, &out))
		goto done;
	lv.pid = pid;
	CHECK(find_runtime(pid, &e, &runtime, &tid_off) && e.from == PF_PY_VER_PY_VERSION &&
	    e.hexversion == 0x030b07f0, "%s: not found as 3.11.7 (from %d, %#x)", mode, e.from,
	    e.hexversion);
	if (runtime == 0)
		goto done;
	if (pf_py_init(&py, 11, runtime, tid_off, live_read, &lv) != 0) {
		CHECK(0, "%s: init: %s", mode, strerror(errno));
		goto done;
	}
	CHECK(pf_py_threads(&py, th, 4, &n, &end) == 0 && n == 1 && end == PF_PY_END_DONE &&
	    th[0].tid == tid, "%s: %zu threads, end %d, tid %u (want %u)", mode, n, end,
	    n > 0 ? th[0].tid : 0, tid);
	if (pf_py_find_thread(&py, tid, &ts) != 0) {
		CHECK(0, "%s: thread %u not found", mode, tid);
		goto done;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pf_py_thread_frames(&py, ts, &stack);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	ok = true;
done:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	if (out != NULL)
		fclose(out);
	return ok;
}

static void
test_pyfake(void)
{
	const char *fake = getenv("PF_PY_FAKE");
	double secs = 0;

	if (fake == NULL || access(fake, X_OK) != 0) {
		CHECK(0, "PF_PY_FAKE (the fake interpreter, build/workloads/py-fake/python3.11) "
		    "not set or not executable: %s", fake != NULL ? fake : "unset");
		return;
	}
	/* a -> b -> a: both frames, then the loop, at once. */
	if (fake_walk(fake, "cycle", &secs)) {
		CHECK(stack.end == PF_PY_END_LOOP && stack.n == 2 && stack.n <= PF_PY_FRAMES_MAX,
		    "cycle: %zu frames, end %d", stack.n, stack.end);
		CHECK(stack.n == 2 && strcmp(stack.frame[0].name, "spin_a") == 0 &&
		    strcmp(stack.frame[1].name, "spin_b") == 0 &&
		    strcmp(stack.frame[1].file, "/fake/cycle.py") == 0 &&
		    stack.frame[0].firstline == 3 && stack.frame[1].firstline == 7 &&
		    !stack.frame[0].entry && stack.frame[1].entry,
		    "cycle: frames %s, %s", stack.n > 0 ? stack.frame[0].name : "-",
		    stack.n > 1 ? stack.frame[1].name : "-");
		CHECK(secs < 0.5, "cycle: the walk took %.3f s", secs);
		fprintf(stderr, "pyfake cycle: %zu frames, end %d, %.6f s\n", stack.n, stack.end,
		    secs);
	}
	/* A name 2^40 characters long, a file name that is no str: both marked. */
	if (fake_walk(fake, "badlen", &secs)) {
		CHECK(stack.end == PF_PY_END_DONE && stack.n == 2, "badlen: %zu frames, end %d",
		    stack.n, stack.end);
		CHECK(stack.n == 2 && stack.frame[0].name_st == PF_PY_NAME_LONG &&
		    strcmp(stack.frame[0].name, "[name too long]") == 0 &&
		    stack.frame[0].file_st == PF_PY_NAME_OK &&
		    strcmp(stack.frame[0].file, "/fake/badlen.py") == 0,
		    "badlen: frame 0: %s (%d) in %s", stack.frame[0].name, stack.frame[0].name_st,
		    stack.frame[0].file);
		CHECK(stack.n == 2 && stack.frame[1].name_st == PF_PY_NAME_OK &&
		    strcmp(stack.frame[1].name, "bad_file") == 0 &&
		    stack.frame[1].file_st == PF_PY_NAME_NOTSTR &&
		    strcmp(stack.frame[1].file, "[not a string]") == 0,
		    "badlen: frame 1: %s in %s (%d)", stack.frame[1].name, stack.frame[1].file,
		    stack.frame[1].file_st);
		CHECK(secs < 0.5, "badlen: the walk took %.3f s", secs);
		fprintf(stderr, "pyfake badlen: %zu frames, end %d, %.6f s\n", stack.n, stack.end,
		    secs);
	}
}

int
main(int argc, char **argv)
{
	static const struct unit_group groups[] = {
		{ "pyelf", test_pyelf },
		{ "pylive", test_pylive },
		{ "pylines", test_pylines },
		{ "pyhostile", test_pyhostile },
		{ "pyfake", test_pyfake },
	};

	return unit_main(argc, argv, groups, sizeof(groups) / sizeof(groups[0]));
}
