/*
 * pyframe: the Python functions a running CPython 3.9 to 3.13 is in,
 * read from its memory without stopping it: the runtime (_PyRuntime),
 * each thread state by its native thread id, and that thread's chain of
 * frames, each named from its code object (qualified name, file, first
 * line).  The module never touches a process: every read of the
 * target's memory goes through the caller's callback, so that the
 * recorder reads through its file helper and the tests and the fuzz
 * harness read from a process or from an image of their own.
 *
 * The target is hostile (SAFETY.md): every pointer it holds is read
 * through the callback, which may fail; the walks stop at a fixed
 * number of interpreters, thread states and frames, and on a loop; a
 * name is read at most PF_PY_NAME_MAX characters long and refused whole
 * beyond, never cut.  Names are the target's bytes (UTF-8 as CPython
 * would encode them), unescaped: the writer of a stream escapes them.
 *
 * Finding the interpreter (pf_py_elf_probe): _PyRuntime by the dynamic
 * symbol table, else the static one (Debian's python3.11 exports it).
 * The version: Py_Version, a hex version 3.11 and later export, read
 * from the file's own data; for the versions before it, the file's
 * DT_SONAME (libpython3.N.so.1.0), else its file name (python3.N, as
 * a non-shared build installs it).  The soname is the library's ABI
 * name, the one the loader and every program linked to it go by, and a
 * program named python3.N that holds _PyRuntime is that minor version's
 * interpreter as its build installs it; the version string in .rodata
 * would need a pattern search over data, and a pattern may match
 * anything.  A file that says none of them has no version: it is never
 * guessed.  Only the minor version matters: struct layouts hold within
 * one.
 *
 * Offsets: 3.13's runtime carries its own (_Py_DebugOffsets, cookie
 * "xdebugpy", at the start of _PyRuntime), read by pf_py_init; 3.9 to
 * 3.12 take a table made from each version's headers
 * (scripts/py-offsets.sh, committed in pyframe.c).
 *
 * Lines: a walk gives each frame's first line (co_firstlineno) and where
 * in its code it is (lasti); the line it is at is its code's line table
 * (pf_py_code_linetable) looked up at lasti (pf_py_addr2line), a step
 * of its own for the caller that keeps tables by code object.
 */
#ifndef PF_PYFRAME_H
#define PF_PYFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most frames one walk returns; the walk visits at most twice as many (3.12+ shims). */
#define PF_PY_FRAMES_MAX	256
/* The most thread states (over every interpreter) and interpreters walked. */
#define PF_PY_THREADS_MAX	1024
#define PF_PY_INTERPS_MAX	64
/* The longest name kept, in bytes of UTF-8: a longer one is refused whole. */
#define PF_PY_NAME_MAX		1024

/* The oldest and newest minor versions of 3 read. */
#define PF_PY_MINOR_MIN		9
#define PF_PY_MINOR_MAX		13

/*
 * Read len bytes of the target's memory at addr into buf: 0, or -1 when
 * any of them cannot be read (the module then takes the pointer for
 * garbage).  len is at most 4 * PF_PY_NAME_MAX.
 */
typedef int (*pf_py_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/*
 * Where a version keeps what the walk reads: byte offsets, -1 for a
 * field the version lacks.  From the table (3.9 to 3.12) or the
 * runtime's debug offsets (3.13).
 */
struct pf_py_layout {
	int minor;
	int64_t rt_interp_head;	/* _PyRuntimeState: interpreters.head */
	int64_t is_next;	/* PyInterpreterState: next */
	int64_t is_threads_head; /* threads.head (3.9, 3.10: tstate_head) */
	int64_t ts_tid;		/* PyThreadState: native_thread_id (3.9, 3.10: thread_id) */
	int ts_tid_pthread;	/* ts_tid is a pthread_t: the tid is in libc's struct pthread */
	int64_t ts_next;
	int64_t ts_frame;	/* frame (3.9, 3.10), cframe (3.11, 3.12), current_frame (3.13) */
	int64_t cf_frame;	/* _PyCFrame: current_frame (3.11, 3.12) */
	int64_t fr_previous;	/* f_back (3.9, 3.10), previous */
	int64_t fr_code;	/* f_code (3.13: f_executable) */
	int64_t fr_owner;	/* 3.11+: a byte */
	int64_t fr_instr;	/* 3.11, 3.12: prev_instr; 3.13: instr_ptr; -1 before */
	int64_t fr_is_entry;	/* 3.11: a bool */
	int owner_cstack;	/* 3.12+: the owner of a C stack's shim frame */
	int64_t co_name;	/* co_qualname (3.9, 3.10: co_name) */
	int64_t co_filename;
	int64_t co_firstlineno;	/* an int */
	int64_t co_linetable;	/* bytes: the line table (3.9: co_lnotab) */
	int64_t co_code;	/* 3.11+: co_code_adaptive, the instructions; -1 before */
	int64_t fr_lasti;	/* 3.9, 3.10: the frame object's f_lasti (an int); -1 after */
	int64_t bytes_size;	/* PyBytesObject: ob_size */
	int64_t bytes_data;	/* ob_sval */
	int64_t uni_length;	/* PyASCIIObject: length */
	int64_t uni_state;	/* the 32-bit word of its state bits */
	int64_t uni_ascii_size;	/* sizeof(PyASCIIObject): a compact ASCII string's data */
	int64_t uni_compact_size; /* sizeof(PyCompactUnicodeObject): other compact data */
	uint32_t uni_kind, uni_compact, uni_ascii, uni_ready;	/* masks of the state word */
};

/*
 * The table's row for 3.minor (3.13's as its headers say, before the
 * runtime's own offsets replace it), or NULL (ENOTSUP) for a minor
 * version outside PF_PY_MINOR_MIN..PF_PY_MINOR_MAX.
 */
const struct pf_py_layout *pf_py_layout(int minor);

/* What an ELF file says of the interpreter in it. */
#define PF_PY_VER_NONE		0	/* no version found: unknown */
#define PF_PY_VER_PY_VERSION	1	/* Py_Version (3.11+): major, minor and patch */
#define PF_PY_VER_SONAME	2	/* DT_SONAME libpython3.N[d].so...: major and minor */
#define PF_PY_VER_FILENAME	3	/* the file's name python3.N[d]: major and minor */

struct pf_py_elf {
	uint64_t runtime;	/* _PyRuntime, the file's own virtual address */
	uint64_t vaddr0;	/* the file's address of file offset 0 (first PT_LOAD, page-aligned) */
	uint64_t eval, eval_size;	/* _PyEval_EvalFrameDefault's address and size; 0: not found */
	uint32_t hexversion;	/* as PY_VERSION_HEX; only major and minor unless from Py_Version */
	int major, minor;	/* 0 when unknown */
	int from;		/* PF_PY_VER_* */
};

/*
 * Look at the ELF file open on fd (the caller keeps fd; name is its path
 * or file name, for the name rule only): where _PyRuntime is and which
 * version the file is.  0 with *e filled (from PF_PY_VER_NONE when no
 * version was found: the caller reports it unknown), or -1: EINVAL (not
 * ELF), ENOENT (no _PyRuntime: not an interpreter).  The process's
 * address of the runtime is the mapping's bias (start of the mapping of
 * file offset 0, less vaddr0) plus runtime.
 */
int pf_py_elf_probe(int fd, const char *name, struct pf_py_elf *e);

/*
 * 3.9 and 3.10 name a thread by its pthread_t, the address of glibc's
 * struct pthread, whose tid lies at an offset glibc publishes for
 * debuggers: _thread_db_pthread_tid, in libc's dynamic symbol table, a
 * descriptor of three 32-bit words (bits, count, offset).  From the C
 * library open on fd: 0 with *off, or -1: EINVAL (not ELF), ENOENT (no
 * such symbol), EPROTO (a descriptor that is not of one 32-bit field
 * within 64 KiB).
 */
int pf_py_elf_pthread_tid(int fd, uint32_t *off);

/* One interpreter to read: the caller's, filled by pf_py_init. */
struct pf_py {
	pf_py_read_fn read;
	void *ctx;
	uint64_t runtime;	/* the process's address of _PyRuntime */
	uint32_t tid_off;	/* 3.9, 3.10: pf_py_elf_pthread_tid's offset */
	/*
	 * pf_py_thread_frames leaves each frame's names unread (names
	 * marked PF_PY_NAME_UNREADABLE, empty), only code, name_obj,
	 * file_obj and firstline read: the caller that caches names by code
	 * object reads those it lacks with pf_py_frame_names.  Set after
	 * pf_py_init.
	 */
	bool lazy_names;
	struct pf_py_layout lay;
};

/*
 * Set up py to read the interpreter 3.minor whose runtime is at runtime
 * in the target, through read(ctx, ...).  3.13 reads the runtime's
 * debug offsets.  tid_off is pf_py_elf_pthread_tid's offset (3.9 and
 * 3.10 need it; ignored after).  0, or -1: ENOTSUP (a minor version
 * not read, or 3.13's free-threaded build), EINVAL (3.9 or 3.10 without
 * tid_off), EIO (3.13's offsets unreadable), EPROTO (they are not the
 * debug offsets of a 3.13, or out of bounds).
 */
int pf_py_init(struct pf_py *py, int minor, uint64_t runtime, uint32_t tid_off,
    pf_py_read_fn read, void *ctx);

/* How a walk ended. */
#define PF_PY_END_DONE	0	/* at the end of the chain or list */
#define PF_PY_END_READ	1	/* a pointer could not be read: garbage */
#define PF_PY_END_LOOP	2	/* an address came round again */
#define PF_PY_END_DEPTH	3	/* more than the fixed most */

struct pf_py_thread {
	uint64_t tstate;	/* the thread state's address in the target */
	uint32_t tid;		/* its native thread id (0 when unreadable) */
};

/*
 * Every thread state of every interpreter, in list order, into t (at
 * most max, and at most PF_PY_THREADS_MAX), for the recorder to cache by
 * tid.  0 with *n and *end (PF_PY_END_*: DEPTH when more were there),
 * whatever the target holds.
 */
int pf_py_threads(const struct pf_py *py, struct pf_py_thread *t, size_t max, size_t *n,
    int *end);

/* The thread state of native thread tid: 0 with *tstate, or -1 (ENOENT). */
int pf_py_find_thread(const struct pf_py *py, uint32_t tid, uint64_t *tstate);

/* What a name holds. */
#define PF_PY_NAME_OK		0	/* decoded whole */
#define PF_PY_NAME_MARKED	1	/* decoded, some characters '?' (not UTF-8 able) */
#define PF_PY_NAME_LONG		2	/* refused: longer than PF_PY_NAME_MAX; text "[name too long]" */
#define PF_PY_NAME_UNREADABLE	3	/* the object could not be read; text "[unreadable]" */
#define PF_PY_NAME_NOTSTR	4	/* not a compact, ready str; text "[not a string]" */

struct pf_py_frame {
	uint64_t addr;		/* the frame's address in the target */
	uint64_t code;		/* its code object's (0 when unreadable) */
	uint64_t name_obj, file_obj;	/* the code's name and file objects (0 when unreadable) */
	uint64_t instr;		/* 3.11+: where in its code it is (prev_instr, instr_ptr); 0: not known */
	/*
	 * The byte offset in its code of the instruction it is at (3.11,
	 * 3.12: the last one run; 3.13: the one running; before: f_lasti);
	 * negative before its first; PF_PY_LASTI_NONE when not known.
	 */
	int64_t lasti;
	int32_t firstline;	/* co_firstlineno (0 when unreadable) */
	bool entry;		/* the first frame its _PyEval_EvalFrameDefault call ran (every frame before 3.11) */
	unsigned char name_st, file_st;	/* PF_PY_NAME_* */
	size_t namelen, filelen;
	char name[PF_PY_NAME_MAX + 1];	/* qualified name (3.9, 3.10: the name), NUL-terminated */
	char file[PF_PY_NAME_MAX + 1];	/* co_filename */
};

struct pf_py_stack {
	size_t n;
	int end;		/* PF_PY_END_* */
	struct pf_py_frame frame[PF_PY_FRAMES_MAX];	/* innermost first */
};

/*
 * The frames of the thread whose thread state is at tstate, innermost
 * first, into *st (some 512 KiB: the caller's, reused from walk to
 * walk); 3.12's and 3.13's shim frames are left out, marking the frame
 * above them as an entry.  A frame whose code cannot be read is kept,
 * its names so marked.  Always 0, with st->end saying how the walk
 * ended: at most PF_PY_FRAMES_MAX frames, a bounded number of reads,
 * whatever the target holds.
 */
int pf_py_thread_frames(const struct pf_py *py, uint64_t tstate, struct pf_py_stack *st);

/* A frame's lasti when not known. */
#define PF_PY_LASTI_NONE	INT64_MIN

/* The longest line table read, in bytes: a longer one is refused whole. */
#define PF_PY_LINETABLE_MAX	65536

/*
 * The line table of the code object at code into buf (PF_PY_LINETABLE_MAX
 * bytes): 0 with *len, or -1: EIO (unreadable), E2BIG (longer than
 * PF_PY_LINETABLE_MAX).
 */
int pf_py_code_linetable(const struct pf_py *py, uint64_t code, unsigned char *buf, size_t *len);

/*
 * The line of the instruction at byte offset lasti of a code object of
 * 3.minor whose line table is tab (len bytes) and first line firstline,
 * as CPython's PyCode_Addr2Line gives it: firstline for a negative
 * lasti, else the line of the table's entry holding it; 0 when the
 * entry has no line or none holds it (a table cut short, or not one).
 * Pure: reads only tab, at most len bytes, whatever they hold.
 */
int32_t pf_py_addr2line(int minor, const unsigned char *tab, size_t len, int32_t firstline,
    int64_t lasti);

/* Read frame f's names from its name_obj and file_obj (lazy_names): as the walk would. */
void pf_py_frame_names(const struct pf_py *py, struct pf_py_frame *f);

/*
 * The native thread id the thread state at tstate holds now, or 0: a
 * caller that keeps thread states by tid checks its entry with it.
 */
uint32_t pf_py_tstate_tid(const struct pf_py *py, uint64_t tstate);

#endif
