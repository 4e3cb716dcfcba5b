/*
 * py-fake: a hostile fake CPython 3.11, built as
 * build/workloads/py-fake/python3.11 (the Makefile's own rule: -O0, frame
 * pointers, its symbols in the dynamic table).  It exports _PyRuntime
 * and Py_Version (3.11.7), and its memory follows 3.11's layout (the
 * offsets of pf_py_layout(11), as CPython 3.11.7's headers put them)
 * from the runtime to the frames of its main thread, which spins in a
 * function named _PyEval_EvalFrameDefault.  The frames are made to hurt
 * a reader:
 *
 *   cycle   a chain of frames a -> b -> a: a walk that does not notice
 *           the loop never ends
 *   badlen  the innermost frame's code has a co_qualname whose length
 *           says 2^40 characters (a reader that trusts it allocates or
 *           copies a terabyte), the next one a co_filename whose state
 *           word is no string's (kind 3)
 *
 * usage: python3.11 cycle|badlen [SECONDS]
 * Prints "ready TID" once its memory is built, then spins until killed,
 * or for SECONDS.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* 3.11.7's offsets (lib/common/pyframe.c's table, from the headers). */
#define RT_INTERP_HEAD	40	/* _PyRuntimeState: interpreters.head */
#define IS_THREADS_HEAD	16	/* PyInterpreterState: threads.head */
#define TS_NEXT		8	/* PyThreadState: next */
#define TS_CFRAME	56	/* cframe */
#define TS_TID		160	/* native_thread_id */
#define CF_FRAME	8	/* _PyCFrame: current_frame */
#define FR_CODE		32	/* _PyInterpreterFrame: f_code */
#define FR_PREVIOUS	48	/* previous */
#define FR_IS_ENTRY	68	/* is_entry */
#define FR_OWNER	69	/* owner */
#define CO_FILENAME	112	/* PyCodeObject: co_filename */
#define CO_QUALNAME	128	/* co_qualname */
#define CO_FIRSTLINENO	72	/* co_firstlineno */
#define UNI_LENGTH	16	/* PyASCIIObject: length */
#define UNI_STATE	32	/* its state bits */
#define UNI_ASCII_DATA	48	/* sizeof(PyASCIIObject) */
/* The state word: kind (bits 2-4), compact, ascii, ready. */
#define ST_KIND(k)	((uint32_t)(k) << 2)
#define ST_COMPACT	0x20u
#define ST_ASCII	0x40u
#define ST_READY	0x80u

/* Room enough for each object; zero-filled, 16-byte aligned as CPython's. */
struct obj {
	_Alignas(16) unsigned char b[256];
};

/* What the reader finds first: the symbols, in the dynamic table (-rdynamic). */
unsigned char _PyRuntime[4096] __attribute__((aligned(64)));
const unsigned long Py_Version = 0x030b07f0;

static struct obj interp, tstate, cframe, frames[2], codes[2], strs[4];

static void
put64(struct obj *o, size_t off, uint64_t v)
{
	memcpy(o->b + off, &v, sizeof(v));
}

static uint64_t
addr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* A compact str: its length word as given, its state word, its characters. */
static void
put_str(struct obj *o, int64_t length, uint32_t state, const char *chars)
{
	put64(o, UNI_LENGTH, (uint64_t)length);
	memcpy(o->b + UNI_STATE, &state, sizeof(state));
	if (chars != NULL)
		memcpy(o->b + UNI_ASCII_DATA, chars, strlen(chars));
}

static void
put_code(struct obj *co, struct obj *name, struct obj *file, int line)
{
	int32_t l = line;

	put64(co, CO_QUALNAME, addr(name));
	put64(co, CO_FILENAME, addr(file));
	memcpy(co->b + CO_FIRSTLINENO, &l, sizeof(l));
}

static void
put_frame(struct obj *fr, struct obj *code, struct obj *prev, int entry)
{
	put64(fr, FR_CODE, addr(code));
	put64(fr, FR_PREVIOUS, addr(prev));
	fr->b[FR_IS_ENTRY] = (unsigned char)entry;
	fr->b[FR_OWNER] = 0;	/* FRAME_OWNED_BY_THREAD */
}

static void
ascii(struct obj *o, const char *s)
{
	put_str(o, (int64_t)strlen(s), ST_KIND(1) | ST_COMPACT | ST_ASCII | ST_READY, s);
}

static volatile unsigned long spins;

/*
 * The evaluator's name, so that a recorder puts the fake's Python frames
 * where this frame is; kept out of line with its own frame (-O0).
 */
__attribute__((noinline)) void _PyEval_EvalFrameDefault(double secs);

__attribute__((noinline)) void
_PyEval_EvalFrameDefault(double secs)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		unsigned long i;

		for (i = 0; i < 1000000; i++)
			spins++;
		if (secs <= 0)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 >= secs)
			return;
	}
}

int
main(int argc, char **argv)
{
	double secs = 0;
	pid_t tid = gettid();
	uint64_t head;

	if (argc < 2 || argc > 3 || (strcmp(argv[1], "cycle") != 0 &&
	    strcmp(argv[1], "badlen") != 0)) {
		fprintf(stderr, "usage: python3.11 cycle|badlen [SECONDS]\n");
		return 2;
	}
	if (argc == 3)
		secs = strtod(argv[2], NULL);
	head = addr(&interp);
	memcpy(_PyRuntime + RT_INTERP_HEAD, &head, sizeof(head));
	put64(&interp, IS_THREADS_HEAD, addr(&tstate));
	put64(&tstate, TS_NEXT, 0);
	put64(&tstate, TS_TID, (uint64_t)tid);
	put64(&tstate, TS_CFRAME, addr(&cframe));
	put64(&cframe, CF_FRAME, addr(&frames[0]));
	if (strcmp(argv[1], "cycle") == 0) {
		ascii(&strs[0], "spin_a");
		ascii(&strs[1], "spin_b");
		ascii(&strs[2], "/fake/cycle.py");
		put_code(&codes[0], &strs[0], &strs[2], 3);
		put_code(&codes[1], &strs[1], &strs[2], 7);
		put_frame(&frames[0], &codes[0], &frames[1], 0);
		put_frame(&frames[1], &codes[1], &frames[0], 1);
	} else {
		/* A valid compact ASCII str's state, a length of 2^40. */
		put_str(&strs[0], (int64_t)1 << 40, ST_KIND(1) | ST_COMPACT | ST_ASCII | ST_READY,
		    "x");
		ascii(&strs[1], "/fake/badlen.py");
		ascii(&strs[2], "bad_file");
		/* Kind 3: no str has it. */
		put_str(&strs[3], 15, ST_KIND(3) | ST_COMPACT | ST_READY, "/fake/badlen.py");
		put_code(&codes[0], &strs[0], &strs[1], 3);
		put_code(&codes[1], &strs[2], &strs[3], 9);
		put_frame(&frames[0], &codes[0], &frames[1], 0);
		put_frame(&frames[1], &codes[1], NULL, 1);
	}
	printf("ready %d\n", (int)tid);
	fflush(stdout);
	_PyEval_EvalFrameDefault(secs);
	return 0;
}
