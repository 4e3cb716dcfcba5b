/*
 * pf-report: the on-call answer from folded stacks, as text.
 *
 * Reads "root;...;leaf COUNT" lines from files or stdin and prints what
 * perf report --stdio or a profiler's summary tells at a glance: the
 * functions by self share (the leaf frame) and by total share (anywhere
 * in the stack, counted once per stack however often it recurses), the
 * hottest whole stacks, and with -p or -t the processes or threads.  An
 * off-CPU profile also gets its waiting callers: the code below the
 * kernel's frames and the C library's that blocked, and what it waited
 * for.  A profile with Python functions in it (pf-record's "py::" frames)
 * gets them apart: each sample charged to its innermost one, the answer
 * when most samples ran Python.  The layout (man/pf-formats.5) comes in two forms: one for people,
 * cut to the terminal's width, and -r, tab-separated and never cut, for
 * scripts.
 * Names are the input's bytes, so they are cleaned of anything a
 * terminal would obey before they are kept.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "buf.h"
#include "folded.h"
#include "grow.h"
#include "intern.h"
#include "linereader.h"
#include "msg.h"
#include "parse.h"
#include "pf.h"
#include "provenance.h"
#include "stackmap.h"
#include "xmlesc.h"

#define MAX_SHOWN_INVALID 10
#define DEFAULT_ROWS 10
#define DEFAULT_WIDTH 100
#define MIN_WIDTH 40
#define MIN_NAME_ROOM 10
#define GROUP_ROOM 24
#define CUT_MARK "..."
#define MAX_RECORDINGS 64

static const char synopsis[] =
    "usage: pf-report [-r] [-u] [-p | -t] [-n rows] [-s self|total]\n"
    "                 [-w columns] [--offcpu] [file ...]\n";

enum grouping { GROUP_NONE, GROUP_PROCESS, GROUP_THREAD };
enum sortkey { SORT_SELF, SORT_TOTAL };

static struct options {
	int raw;
	int user_only;		/* -u: kernel frames ("_[k]") dropped */
	int offcpu;		/* --offcpu: the waiting callers, whatever the input */
	enum grouping grouping;
	enum sortkey sort;
	size_t rows;		/* 0: all */
	int width_set;
	size_t width;		/* 0: never cut */
} opt = { .rows = DEFAULT_ROWS };

/* ---- names: interned, with counts ----------------------------------- */

/*
 * Entry i of a table counts key i of its names: both are numbered in the
 * order the keys are first seen (lib/common/intern).
 */
struct entry {
	size_t len;		/* the key's length */
	uint64_t self, total;
	uint64_t stamp;		/* the stack that last added to total */
};

struct table {
	struct pf_intern names;
	struct entry *v;
	size_t cap;
};

static void
table_init(struct table *t)
{
	memset(t, 0, sizeof(*t));
	if (pf_intern_init(&t->names, 512) == -1)
		pf_die(PF_EXIT_FAIL, "memory");
}

/* The entry of key, made at zero when new. */
static struct entry *
table_get(struct table *t, const char *key, size_t len)
{
	uint32_t id;
	int r;

	if ((r = pf_intern_add(&t->names, key, len, &id)) == -1)
		pf_die(PF_EXIT_FAIL, "memory");
	if (r == 1) {
		if (pf_grow(&t->v, &t->cap, (size_t)id + 1, sizeof(*t->v)) == -1)
			pf_die(PF_EXIT_FAIL, "memory");
		t->v[id] = (struct entry){ .len = len };
	}
	return &t->v[id];
}

/* The number of entries. */
static size_t
table_n(const struct table *t)
{
	return pf_intern_count(&t->names);
}

static const char *
table_key(const struct table *t, const struct entry *e)
{
	size_t len;

	return pf_intern_key(&t->names, (uint32_t)(e - t->v), &len);
}

static void
table_free(struct table *t)
{
	pf_intern_free(&t->names);
	free(t->v);
}

/* ---- provenance ------------------------------------------------------ */

/*
 * The recordings' provenance lines, read by the one parser
 * (lib/common/provenance); the heading shows these keys, in this order.
 * The incomplete share goes after them, in words, when there is one to
 * say (pf_prov_incomplete_say).
 */
static const struct {
	enum pf_prov_key key;
	const char *label;
} prov_keys[] = {
	{ PF_PROV_TOOL, "tool" }, { PF_PROV_HOST, "host" }, { PF_PROV_TARGET, "target" },
	{ PF_PROV_PID, "pid" }, { PF_PROV_START, "start" }, { PF_PROV_WINDOW, "window" },
	{ PF_PROV_FREQ, "rate" }, { PF_PROV_SAMPLES, "samples" }, { PF_PROV_LOST, "lost" },
	{ PF_PROV_TRUNCATED, "truncated" }, { PF_PROV_INCOMPLETE, NULL },
	{ PF_PROV_INCOMPLETE_CAUSE, NULL },
};

/*
 * Key k of p as the heading prints it, in buf: cleaned for a terminal
 * (the parser made white space, controls and ';' into '_'; pf_name_clean
 * takes what is left that a terminal would act on).  "" when p has none.
 */
static const char *
prov_value(const struct pf_prov *p, enum pf_prov_key k, char buf[PF_PROV_VALMAX + 1])
{
	const char *v = pf_prov_get(p, k);
	size_t n;

	if (v == NULL)
		return "";
	n = strlen(v);
	memcpy(buf, v, n);
	buf[pf_name_clean(buf, n)] = '\0';
	return buf;
}

/* ---- reading ---------------------------------------------------------- */

static struct state {
	struct table funcs;	/* function, or group '\t' function */
	struct table py;	/* the same of the Python functions ("py::") alone */
	struct table groups;	/* -p / -t: process or thread */
	struct table waiters;	/* kind '\t' libc entry '\t' [group '\t'] waiter */
	struct table kinds;	/* a kernel frame's wait_kind + 1, as self */
	int seen_kernel, seen_libc;	/* a "_[k]", a "_[l]" frame was read */
	struct pf_stackmap *stacks;
	struct pf_buf key;
	struct pf_buf user;	/* -u: the stack without its kernel frames */
	uint64_t sum;
	uint64_t pysum;		/* of the stacks that hold a Python function */
	uint64_t nstack;	/* the stamp of the current stack */
	uint64_t invalid;
	int differential;
	struct pf_prov rec[MAX_RECORDINGS];
	size_t nrec, extra_rec;
} st;

/*
 * The part of a --tid root "comm-PID/TID" that names the process: the
 * "/TID" goes when what precedes it ends in "-PID" or "-?".  A comm may
 * hold '/' itself (kworker/0:1), which this leaves alone.
 */
static size_t
process_len(const char *r, size_t len)
{
	size_t i = len, slash;

	while (i > 0 && r[i - 1] >= '0' && r[i - 1] <= '9')
		i--;
	if (i == len || i == 0 || r[i - 1] != '/')
		return len;
	slash = i - 1;
	if (slash >= 2 && r[slash - 1] == '?' && r[slash - 2] == '-')
		return slash;
	i = slash;
	while (i > 0 && r[i - 1] >= '0' && r[i - 1] <= '9')
		i--;
	if (i < slash && i > 0 && r[i - 1] == '-')
		return slash;
	return len;
}

/* Whether a frame is a kernel one: pf-fold --kernel ends its name "_[k]". */
static int
is_kernel(const char *f, size_t len)
{
	return len >= 4 && memcmp(f + len - 4, "_[k]", 4) == 0;
}

/*
 * Whether a frame is a Python function: pf-record names the frames it
 * reads from a CPython's memory "py::QUALNAME:FILE".  The markers of a
 * walk that ended ("[py-loop]") are not.
 */
static int
is_python(const char *f, size_t len)
{
	return len >= 4 && memcmp(f, "py::", 4) == 0;
}

/* Whether a frame is the C library's: pf-fold --libc ends its name "_[l]". */
static int
is_libc(const char *f, size_t len)
{
	return len >= 4 && memcmp(f + len - 4, "_[l]", 4) == 0;
}

/*
 * -u: stack s without its kernel frames, in st.user.  The root frame (the
 * process) always stays; a stack left with the root alone ends in
 * "[kernel]", so that its time is still a function's: the kernel's.
 */
static void
user_only(const char *s, size_t len, const char **out, size_t *outlen)
{
	size_t i, start;
	int dropped = 0, kept = 0;

	pf_buf_reset(&st.user);
	for (start = 0, i = 0; i <= len; i++) {
		if (i < len && s[i] != ';')
			continue;
		if (start > 0 && is_kernel(s + start, i - start)) {
			dropped = 1;
		} else {
			if ((start > 0 && pf_buf_putc(&st.user, ';') == -1) ||
			    pf_buf_append(&st.user, s + start, i - start) == -1)
				pf_die(PF_EXIT_FAIL, "memory");
			kept++;
		}
		start = i + 1;
	}
	if (dropped && kept == 1 && pf_buf_append(&st.user, ";[kernel]", 9) == -1)
		pf_die(PF_EXIT_FAIL, "memory");
	*out = st.user.data;
	*outlen = st.user.len;
}

/*
 * What a blocked thread waited for, named from its kernel frames.  The
 * rules are parts of kernel function names, tried on the kernel frames
 * from the outermost (the system call) in: the first frame that holds one
 * decides, so an fdatasync that waits on a lock inside the file system is
 * the disk's, and a read(2) is whatever it read from.  A futex is a lock
 * (a mutex, a condition variable, a semaphore: the C library's function
 * says which); io_schedule is the kernel's own mark of a wait for I/O.
 */
enum wait_kind {
	WAIT_OTHER, WAIT_LOCK, WAIT_DISK, WAIT_SLEEP, WAIT_POLL, WAIT_PIPE,
	WAIT_NET
};

static const char *const wait_words[] = {
	[WAIT_OTHER] = "other", [WAIT_LOCK] = "lock", [WAIT_DISK] = "disk-io",
	[WAIT_SLEEP] = "sleep", [WAIT_POLL] = "poll", [WAIT_PIPE] = "pipe",
	[WAIT_NET] = "net",
};

static const struct {
	const char *part;
	enum wait_kind kind;
} wait_rules[] = {
	{ "futex", WAIT_LOCK }, { "rwsem_down", WAIT_LOCK },
	{ "mutex_lock", WAIT_LOCK },
	{ "fsync", WAIT_DISK }, { "fdatasync", WAIT_DISK },
	{ "sync_file", WAIT_DISK }, { "sys_sync", WAIT_DISK },
	{ "sync_filesystem", WAIT_DISK }, { "jbd2_", WAIT_DISK },
	{ "io_schedule", WAIT_DISK }, { "folio_wait", WAIT_DISK },
	{ "wait_on_page", WAIT_DISK }, { "wait_on_buffer", WAIT_DISK },
	{ "bit_wait_io", WAIT_DISK }, { "submit_bio_wait", WAIT_DISK },
	{ "fdatawait", WAIT_DISK },
	{ "nanosleep", WAIT_SLEEP }, { "nsleep", WAIT_SLEEP },
	{ "epoll_wait", WAIT_POLL }, { "epoll_pwait", WAIT_POLL },
	{ "ep_poll", WAIT_POLL }, { "sys_poll", WAIT_POLL },
	{ "sys_ppoll", WAIT_POLL }, { "do_select", WAIT_POLL },
	{ "core_sys_select", WAIT_POLL }, { "sys_select", WAIT_POLL },
	{ "sys_pselect", WAIT_POLL },
	{ "pipe_read", WAIT_PIPE }, { "pipe_write", WAIT_PIPE },
	{ "pipe_wait", WAIT_PIPE }, { "wait_for_partner", WAIT_PIPE },
	{ "sk_wait_data", WAIT_NET }, { "sk_stream_wait", WAIT_NET },
	{ "inet_csk_accept", WAIT_NET }, { "inet_wait_for_connect", WAIT_NET },
	{ "unix_stream_data_wait", WAIT_NET },
	{ "skb_wait_for_more_packets", WAIT_NET },
	{ "sock_recvmsg", WAIT_NET }, { "sock_sendmsg", WAIT_NET },
	{ "sys_recv", WAIT_NET }, { "sys_accept", WAIT_NET },
	{ "sys_connect", WAIT_NET },
};

/*
 * The kind a kernel frame (its "_[k]" cut off) names, or WAIT_OTHER.
 * Kept per name: the same few kernel functions end every stack.
 */
static enum wait_kind
frame_wait(const char *f, size_t len)
{
	struct entry *e = table_get(&st.kinds, f, len);
	size_t i;

	if (e->self != 0)
		return (enum wait_kind)(e->self - 1);
	e->self = WAIT_OTHER + 1;
	for (i = 0; i < PF_ARRAY_LEN(wait_rules); i++)
		if (memmem(f, len, wait_rules[i].part,
		    strlen(wait_rules[i].part)) != NULL) {
			e->self = wait_rules[i].kind + 1;
			break;
		}
	return (enum wait_kind)(e->self - 1);
}

/*
 * Count stack s (cleaned, count c) for its waiting caller: the innermost
 * frame that is neither the kernel's ("_[k]") nor the C library's
 * ("_[l]"), or the root when there is none; the C library's function it
 * called (the outermost "_[l]" frame between it and the kernel's); and
 * the kind of wait its kernel frames name.  group: the -p/-t group.
 */
static void
add_waiter(const char *s, size_t len, uint64_t c, const char *group,
    size_t glen)
{
	enum wait_kind kind = WAIT_OTHER;
	const char *entry = NULL, *waiter = s;
	size_t elen = 0, wlen, i, start, end;
	struct pf_buf *k = &st.key;

	wlen = 0;
	/* From the leaf back: past the kernel's frames and the library's. */
	for (end = len; end > 0; end = start - 1) {
		for (start = end; start > 0 && s[start - 1] != ';'; start--)
			;
		if (start == 0) {
			wlen = end;		/* the root */
			break;
		}
		if (is_libc(s + start, end - start)) {
			st.seen_libc = 1;
			entry = s + start;
			elen = end - start - 4;
		} else if (!is_kernel(s + start, end - start)) {
			waiter = s + start;
			wlen = end - start;
			break;
		}
	}
	/* The kind, from the outermost kernel frame in. */
	for (start = 0, i = 0; i <= len; i++) {
		if (i < len && s[i] != ';')
			continue;
		if (start > 0 && is_kernel(s + start, i - start)) {
			st.seen_kernel = 1;
			if (kind == WAIT_OTHER)
				kind = frame_wait(s + start, i - start - 4);
		}
		start = i + 1;
	}
	pf_buf_reset(k);
	if (pf_buf_puts(k, wait_words[kind]) == -1 || pf_buf_putc(k, '\t') == -1 ||
	    pf_buf_append(k, entry, elen) == -1 || pf_buf_putc(k, '\t') == -1 ||
	    (opt.grouping != GROUP_NONE && (pf_buf_append(k, group, glen) == -1 ||
	    pf_buf_putc(k, '\t') == -1)) ||
	    pf_buf_append(k, waiter, wlen) == -1)
		pf_die(PF_EXIT_FAIL, "memory");
	table_get(&st.waiters, k->data, k->len)->self += c;
}

/* Count one function frame of the current stack in t. */
static void
add_frame(struct table *t, const char *group, size_t glen, const char *f, size_t flen,
    uint64_t c, int leaf)
{
	struct entry *e;
	const char *key = f;
	size_t klen = flen;

	if (opt.grouping != GROUP_NONE) {
		pf_buf_reset(&st.key);
		if (pf_buf_append(&st.key, group, glen) == -1 ||
		    pf_buf_putc(&st.key, '\t') == -1 ||
		    pf_buf_append(&st.key, f, flen) == -1)
			pf_die(PF_EXIT_FAIL, "memory");
		key = st.key.data;
		klen = st.key.len;
	}
	e = table_get(t, key, klen);
	if (e->stamp != st.nstack) {
		e->stamp = st.nstack;
		e->total += c;
	}
	if (leaf)
		e->self += c;
}

/*
 * One stack (cleaned) of count c.  The root frame is the process; the
 * functions are the frames below it, or the root itself when it is alone.
 * Its Python functions count again on their own: the innermost one
 * takes the sample as its self (its own code and the C it called), each
 * one its total.  The sum bounds every other count, so only it is
 * checked for overflow.
 */
static void
add_stack(const char *s, size_t len, uint64_t c, const char *name,
    uint64_t lineno)
{
	const char *semi, *py = NULL;
	size_t rlen, glen, i, start, pylen = 0;

	semi = memchr(s, ';', len);
	rlen = semi ? (size_t)(semi - s) : len;
	glen = opt.grouping == GROUP_PROCESS ? process_len(s, rlen) : rlen;
	if (st.sum + c < st.sum)
		pf_diex(PF_EXIT_FAIL, "%s:%llu: total count over 2^64-1", name,
		    (unsigned long long)lineno);
	st.sum += c;
	st.nstack++;
	/*
	 * -u: the waiter now, while the kernel's frames are there to name
	 * the wait; otherwise from the stacks kept, and only when shown.  -u
	 * keeps the root frame as it is, and so rlen and glen.
	 */
	if (opt.user_only) {
		add_waiter(s, len, c, s, glen);
		user_only(s, len, &s, &len);
		semi = memchr(s, ';', len);
	}
	if (pf_stackmap_add(st.stacks, s, len, c, 0) == -1)
		pf_die(PF_EXIT_FAIL, "%s:%llu", name, (unsigned long long)lineno);
	if (opt.grouping != GROUP_NONE)
		table_get(&st.groups, s, glen)->self += c;
	if (semi == NULL) {
		add_frame(&st.funcs, s, glen, s, rlen, c, 1);
		return;
	}
	for (start = rlen + 1, i = start; i <= len; i++) {
		if (i < len && s[i] != ';')
			continue;
		add_frame(&st.funcs, s, glen, s + start, i - start, c, i == len);
		if (is_python(s + start, i - start)) {
			add_frame(&st.py, s, glen, s + start, i - start, c, 0);
			py = s + start;
			pylen = i - start;
		}
		start = i + 1;
	}
	if (py != NULL) {
		add_frame(&st.py, s, glen, py, pylen, c, 1);
		st.pysum += c;
	}
}

static void
read_input(int fd, const char *name)
{
	struct pf_prov prov;
	struct pf_linereader *lr;
	char *line;
	size_t len;
	int r;

	if ((lr = pf_lr_new(fd, name)) == NULL)
		pf_die(PF_EXIT_FAIL, "%s", name);
	while ((r = pf_lr_next(lr, &line, &len)) == 1) {
		struct pf_folded_line fl;
		char *stack;
		uint64_t c;

		if (pf_prov_parse(&prov, line, len)) {
			if (st.nrec < MAX_RECORDINGS)
				st.rec[st.nrec++] = prov;
			else
				st.extra_rec++;
			continue;
		}
		r = pf_folded_parse(line, len, &fl);
		if (r == 1)
			continue;
		if (r == -1) {
			if (++st.invalid <= MAX_SHOWN_INVALID)
				pf_warnx("%s:%llu: ignored: %s", name,
				    (unsigned long long)pf_lr_lineno(lr), pf_folded_why(errno));
			continue;
		}
		c = fl.count[0];
		if (fl.ncounts == 2) {
			if (!st.differential)
				pf_warnx("%s:%llu: a differential line: reporting "
				    "its second count", name,
				    (unsigned long long)pf_lr_lineno(lr));
			st.differential = 1;
			c = fl.count[1];
		}
		/* The stack lies in line, which is ours to clean. */
		stack = line + (fl.stack - line);
		add_stack(stack, pf_name_clean(stack, fl.stack_len), c, name,
		    pf_lr_lineno(lr));
	}
	if (r == -1)
		pf_die(PF_EXIT_FAIL, "%s:%llu", name,
		    (unsigned long long)pf_lr_lineno(lr) + 1);
	pf_lr_free(lr);
}

/* Every file operand ("-" is stdin), or stdin when there is none. */
static void
read_inputs(int nfiles, char *files[])
{
	int i, fd;

	if (nfiles == 0)
		read_input(STDIN_FILENO, "-");
	for (i = 0; i < nfiles; i++) {
		if (strcmp(files[i], "-") == 0) {
			read_input(STDIN_FILENO, "-");
			continue;
		}
		if ((fd = open(files[i], O_RDONLY | O_CLOEXEC)) == -1)
			pf_die(PF_EXIT_FAIL, "%s", files[i]);
		read_input(fd, files[i]);
		close(fd);
	}
	if (st.invalid > MAX_SHOWN_INVALID)
		pf_warnx("ignored %llu invalid lines in all (the first %d shown)",
		    (unsigned long long)st.invalid, MAX_SHOWN_INVALID);
}

/* ---- writing ---------------------------------------------------------- */

/*
 * What a count is.  Only the provenance says: without it, folded counts
 * may be samples or sums of periods (pf-fold weights each sample by its
 * period), so they are shown as plain counts.
 */
enum unit { UNIT_COUNT, UNIT_SAMPLES, UNIT_NS };

static enum unit
input_unit(void)
{
	size_t i, ns = 0, samples = 0;

	for (i = 0; i < st.nrec; i++) {
		if (st.rec[i].unit_known && st.rec[i].unit_ns)
			ns++;
		else if (st.rec[i].unit_known)
			samples++;
	}
	if (ns > 0 && samples > 0)
		pf_warnx("the recordings are in different units (samples and "
		    "ns): shown as plain counts");
	if (st.nrec == 0 || st.extra_rec > 0 ||
	    (ns != st.nrec && samples != st.nrec))
		return UNIT_COUNT;
	return ns ? UNIT_NS : UNIT_SAMPLES;
}

static const char *const unit_words[] = {
	[UNIT_COUNT] = "count", [UNIT_SAMPLES] = "samples", [UNIT_NS] = "ns"
};

static struct view {
	enum unit unit;
	int seconds;		/* UNIT_NS: s rather than ms */
	size_t cw;		/* width of a count column */
	size_t width;		/* 0: never cut */
} vw;

/* A count as the human layout shows it: a number, or a time for ns. */
static void
fmt_count(char *b, size_t n, uint64_t c)
{
	if (vw.unit != UNIT_NS)
		snprintf(b, n, "%llu", (unsigned long long)c);
	else if (vw.seconds)
		snprintf(b, n, "%.2fs", (double)c / 1e9);
	else
		snprintf(b, n, "%.1fms", (double)c / 1e6);
}

/* The head of a count column: time when the counts are ns. */
static const char *
count_label(void)
{
	return vw.unit == UNIT_NS ? "time" : "count";
}

static double
share(uint64_t c)
{
	return 100.0 * (double)c / (double)st.sum;
}

/* Columns a UTF-8 (cleaned) string takes: one per character. */
static size_t
ncols(const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			n++;
	return n;
}

/* The byte offset after the first cols characters of s. */
static size_t
col_bytes(const char *s, size_t len, size_t cols)
{
	size_t i = 0;

	while (i < len && cols > 0) {
		i++;
		while (i < len && ((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		cols--;
	}
	return i;
}

/*
 * Print s in at most room columns (0: no limit): cut at its end with the
 * marker, or, for a stack (keep_end), at its start so the leaf stays.
 */
static void
put_cut(const char *s, size_t len, size_t room, int keep_end)
{
	size_t n = ncols(s, len), mark = sizeof(CUT_MARK) - 1, b;

	if (room == 0 || n <= room) {
		fwrite(s, 1, len, stdout);
		return;
	}
	if (keep_end) {
		b = col_bytes(s, len, n - (room - mark));
		fputs(CUT_MARK, stdout);
		fwrite(s + b, 1, len - b, stdout);
	} else {
		fwrite(s, 1, col_bytes(s, len, room - mark), stdout);
		fputs(CUT_MARK, stdout);
	}
}

/*
 * Print a stack in at most room columns (0: no limit).  Cut, it keeps its
 * leaf end, but not at the price of its user frames: under kernel frames
 * ("_[k]", which an off-CPU stack ends with) the user frames are the part
 * that answers.  So the kernel frames go first, from the middle: the user
 * frames whole, "...", and as much of the kernel end as fits.  When the
 * user frames alone do not fit, they are cut from the root end, down to
 * the innermost user frame, and the kernel leaf follows if there is room.
 * The C library's frames ("_[l]") between the user frames and the
 * kernel's count with the kernel's: the answer is the code that called
 * the library.
 */
static void
put_stack(const char *s, size_t len, size_t room)
{
	size_t mark = sizeof(CUT_MARK) - 1, k, i, end, u, kl, need;

	if (room == 0 || ncols(s, len) <= room) {
		fwrite(s, 1, len, stdout);
		return;
	}
	/* k: where the kernel (and C library) frames at the leaf end begin (len: none). */
	k = end = len;
	while (end > 0) {
		for (i = end; i > 0 && s[i - 1] != ';'; i--)
			;
		if (!is_kernel(s + i, end - i) && !is_libc(s + i, end - i))
			break;
		k = i;
		if (i == 0)
			break;
		end = i - 1;
	}
	if (k == len || k == 0) {
		put_cut(s, len, room, 1);
		return;
	}
	u = ncols(s, k - 1);		/* the user frames, without the ';' */
	if (u + 1 + mark + 1 <= room) {
		/* The user frames whole; the kernel end cut at its start. */
		fwrite(s, 1, k, stdout);
		put_cut(s + k, len - k, room - u - 1, 1);
		return;
	}
	/* The user frames, cut; the kernel leaf if it fits. */
	for (kl = len; kl > k && s[kl - 1] != ';'; kl--)
		;
	need = 1 + mark + 1 + ncols(s + kl, len - kl);	/* ";...;leaf" */
	for (i = k - 1; i > 0 && s[i - 1] != ';'; i--)
		;				/* i: the innermost user frame */
	if (room >= need + mark + ncols(s + i, k - 1 - i)) {
		put_cut(s, k - 1, room - need, 1);
		fputs(";" CUT_MARK ";", stdout);
		fwrite(s + kl, 1, len - kl, stdout);
		return;
	}
	put_cut(s, k - 1, room, 1);
}

/* Print s padded to cols columns, cut when longer. */
static void
put_padded(const char *s, size_t len, size_t cols)
{
	size_t n = ncols(s, len);

	put_cut(s, len, cols, 0);
	for (; n < cols; n++)
		putchar(' ');
}

/* Room left on a row for its last column after prefix columns. */
static size_t
room_after(size_t prefix)
{
	if (vw.width == 0)
		return 0;
	return vw.width > prefix + MIN_NAME_ROOM ? vw.width - prefix :
	    MIN_NAME_ROOM;
}

/*
 * One line per recording: for -r, its keys as key=value fields; for
 * people, "label value" items wrapped at the width under "recording: ".
 */
static void
put_heading(void)
{
	char item[2 * PF_PROV_VALMAX + 16], val[PF_PROV_VALMAX + 1];
	struct pf_buf inc = { 0 };
	size_t i, k, col, n;

	for (i = 0; i < st.nrec; i++) {
		const struct pf_prov *p = &st.rec[i];

		fputs(opt.raw ? "recording" : "recording:", stdout);
		col = 10;
		pf_buf_reset(&inc);
		if (!opt.raw && pf_prov_incomplete_say(p, &inc) == -1)
			pf_die(PF_EXIT_FAIL, "memory");
		for (k = 0; k < PF_ARRAY_LEN(prov_keys) + 2; k++) {
			const char *v;

			if (k == PF_ARRAY_LEN(prov_keys)) {
				/* After the keys, the unit. */
				if (!p->unit_known)
					continue;
				v = p->unit_ns ? "ns" : "samples";
				if (opt.raw) {
					printf("\tunit=%s", v);
					continue;
				}
				snprintf(item, sizeof(item), "unit %s", v);
			} else if (k > PF_ARRAY_LEN(prov_keys)) {
				/* Last, the incomplete share in words, past 5%. */
				if (opt.raw || inc.len == 0)
					continue;
				snprintf(item, sizeof(item), "%.*s", (int)inc.len, inc.data);
			} else {
				v = prov_value(p, prov_keys[k].key, val);
				if (*v == '\0')
					continue;
				if (opt.raw) {
					printf("\t%s=%s", pf_prov_key_name(prov_keys[k].key), v);
					continue;
				}
				if (prov_keys[k].label == NULL)
					continue;
				snprintf(item, sizeof(item), "%s %s%s", prov_keys[k].label, v,
				    prov_keys[k].key == PF_PROV_FREQ ? " Hz" : "");
			}
			n = ncols(item, strlen(item));
			/* A column kept for the comma a wrap would add. */
			if (col > 10 && vw.width != 0 && col + 3 + n > vw.width) {
				fputs(",\n          ", stdout);
				col = 10;
			} else if (col > 10) {
				putchar(',');
				col++;
			}
			putchar(' ');
			put_cut(item, strlen(item), room_after(col + 1), 0);
			col += 1 + n;
		}
		putchar('\n');
	}
	pf_buf_free(&inc);
	if (st.extra_rec > 0 && !opt.raw)
		printf("recording: and %llu more\n",
		    (unsigned long long)st.extra_rec);
}

/* "(top N of M)" or "(all M)": the rows a section shows. */
static size_t
shown(size_t m, char *b, size_t n)
{
	size_t k = opt.rows == 0 || opt.rows > m ? m : opt.rows;

	if (k == m)
		snprintf(b, n, "(all %zu)", m);
	else
		snprintf(b, n, "(top %zu of %zu)", k, m);
	return k;
}

/* By the sort key, then the other count, then by name. */
static const struct table *sort_table;

static int
cmp_entries(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a;
	const struct entry *y = *(const struct entry *const *)b;
	uint64_t x1 = opt.sort == SORT_SELF ? x->self : x->total;
	uint64_t y1 = opt.sort == SORT_SELF ? y->self : y->total;
	uint64_t x2 = opt.sort == SORT_SELF ? x->total : x->self;
	uint64_t y2 = opt.sort == SORT_SELF ? y->total : y->self;
	size_t n = x->len < y->len ? x->len : y->len;
	int c;

	if (x1 != y1)
		return x1 > y1 ? -1 : 1;
	if (x2 != y2)
		return x2 > y2 ? -1 : 1;
	if ((c = memcmp(table_key(sort_table, x), table_key(sort_table, y), n)) != 0)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

static const struct entry **
sorted_entries(const struct table *t)
{
	const struct entry **v;
	size_t i;

	if ((v = calloc(table_n(t) ? table_n(t) : 1, sizeof(*v))) == NULL)
		pf_die(PF_EXIT_FAIL, "memory");
	for (i = 0; i < table_n(t); i++)
		v[i] = &t->v[i];
	sort_table = t;
	qsort(v, table_n(t), sizeof(*v), cmp_entries);
	return v;
}

static void
put_groups(void)
{
	const char *word = opt.grouping == GROUP_PROCESS ? "process" : "thread";
	const struct entry **v;
	enum sortkey saved = opt.sort;
	char what[64], cnt[48];
	size_t k, i;

	opt.sort = SORT_SELF;
	v = sorted_entries(&st.groups);
	opt.sort = saved;
	k = shown(table_n(&st.groups), what, sizeof(what));
	if (!opt.raw) {
		printf("%s %s\n", opt.grouping == GROUP_PROCESS ? "processes" :
		    "threads", what);
		printf(" share%%  %*s  %s\n", (int)vw.cw, count_label(), word);
	}
	for (i = 0; i < k; i++) {
		const struct entry *e = v[i];
		if (opt.raw) {
			printf("%s\t%.2f\t%llu\t%.*s\n", word, share(e->self),
			    (unsigned long long)e->self, (int)e->len,
			    table_key(&st.groups, e));
			continue;
		}
		fmt_count(cnt, sizeof(cnt), e->self);
		printf("%6.1f%%  %*s  ", share(e->self), (int)vw.cw, cnt);
		put_cut(table_key(&st.groups, e), e->len, room_after(11 + vw.cw), 0);
		putchar('\n');
	}
	if (!opt.raw)
		putchar('\n');
	free(v);
}

/*
 * Where the kernel turns interrupts back on.  Without a PMU the sampling
 * clock is a timer interrupt: while interrupts are off it waits, and the
 * sample lands where they come back on.  Such a leaf's self time is the
 * time spent with interrupts off anywhere before it, not its own.
 */
static const char *const irq_enable[] = {
	"pvm_irq_enable", "__raw_callee_save_pvm_irq_enable", "pv_native_irq_enable",
	"native_irq_enable", "arch_local_irq_enable", "arch_local_irq_restore",
	"_raw_spin_unlock_irqrestore", "_raw_spin_unlock_irq",
	"_raw_read_unlock_irqrestore", "_raw_write_unlock_irqrestore",
};

/* Whether a function's name (a kernel one may end in "_[k]") is one of them. */
static bool
is_irq_enable(const char *name, size_t len)
{
	size_t i;

	if (len > 4 && memcmp(name + len - 4, "_[k]", 4) == 0)
		len -= 4;
	for (i = 0; i < sizeof(irq_enable) / sizeof(irq_enable[0]); i++)
		if (strlen(irq_enable[i]) == len && memcmp(irq_enable[i], name, len) == 0)
			return true;
	return false;
}

/* The function of a key of t ("GROUP\tNAME" when grouped). */
static const char *
func_name(const struct table *t, const struct entry *e, size_t *len)
{
	const char *key = table_key(t, e);
	const char *tab = opt.grouping != GROUP_NONE ? memchr(key, '\t', e->len) : NULL;

	*len = tab ? e->len - (size_t)(tab + 1 - key) : e->len;
	return tab ? tab + 1 : key;
}

/*
 * The self time charged to leaves where interrupts were re-enabled: a
 * line after the functions ("artefact" rows with -r, one a function), so
 * that a reader (pf-triage's hot lines) passes over them.
 */
static void
put_artefacts(const struct entry *const *v, size_t n)
{
	uint64_t sum = 0;
	size_t i, len, top = n;
	const char *name;

	for (i = 0; i < n; i++) {
		name = func_name(&st.funcs, v[i], &len);
		if (v[i]->self == 0 || !is_irq_enable(name, len))
			continue;
		if (opt.raw)
			printf("artefact\tirq-enable\t%.2f\t%llu\t%.*s\n", share(v[i]->self),
			    (unsigned long long)v[i]->self, (int)v[i]->len, table_key(&st.funcs, v[i]));
		if (top == n)
			top = i;
		sum += v[i]->self;
	}
	if (sum == 0 || opt.raw)
		return;
	name = func_name(&st.funcs, v[top], &len);
	printf("note: %.1f%% self in leaves where interrupts come back on (", share(sum));
	put_cut(name, len, 40, 0);
	printf("%s): time spent with\n      interrupts off before them, not their own"
	    " (a sampling artefact; see pf-report(1))\n", sum > v[top]->self ? ", ..." : "");
}

/*
 * The functions of t, under the title "TITLE by self (...)", as rows of
 * kind for -r: every function (st.funcs, with the artefacts after them)
 * or the Python functions alone (st.py).
 */
static void
put_functions(const struct table *t, const char *title, const char *kind)
{
	const struct entry **v = sorted_entries(t);
	char what[64], c1[48], c2[48];
	size_t k, i, gw = 0;

	k = shown(table_n(t), what, sizeof(what));
	/* The group column is as wide as its longest shown name, capped. */
	for (i = 0; opt.grouping != GROUP_NONE && i < k; i++) {
		const char *key = table_key(t, v[i]);
		const char *tab = memchr(key, '\t', v[i]->len);
		size_t n = ncols(key, (size_t)(tab - key));
		if (n > gw)
			gw = n > GROUP_ROOM ? GROUP_ROOM : n;
	}
	if (gw > 0 && gw < 7)
		gw = 7;
	if (!opt.raw) {
		printf("%s by %s %s\n", title, opt.sort == SORT_SELF ? "self" :
		    "total", what);
		printf("  self%%  total%%  %*s  %*s  ", (int)vw.cw, "self",
		    (int)vw.cw, "total");
		if (gw > 0)
			printf("%-*s  ", (int)gw, opt.grouping == GROUP_PROCESS ?
			    "process" : "thread");
		puts("function");
	}
	for (i = 0; i < k; i++) {
		const struct entry *e = v[i];
		const char *key = table_key(t, e);
		size_t len = e->len;

		if (opt.raw) {
			printf("%s\t%.2f\t%.2f\t%llu\t%llu\t%.*s\n", kind,
			    share(e->self), share(e->total),
			    (unsigned long long)e->self,
			    (unsigned long long)e->total, (int)len, key);
			continue;
		}
		fmt_count(c1, sizeof(c1), e->self);
		fmt_count(c2, sizeof(c2), e->total);
		printf("%6.1f%%  %5.1f%%  %*s  %*s  ", share(e->self),
		    share(e->total), (int)vw.cw, c1, (int)vw.cw, c2);
		if (gw > 0) {
			const char *tab = memchr(key, '\t', len);
			put_padded(key, (size_t)(tab - key), gw);
			fputs("  ", stdout);
			len -= (size_t)(tab + 1 - key);
			key = tab + 1;
		}
		put_cut(key, len, room_after(21 + 2 * vw.cw + (gw ? gw + 2 : 0)), 0);
		putchar('\n');
	}
	if (t == &st.funcs)
		put_artefacts(v, table_n(t));
	if (!opt.raw)
		putchar('\n');
	free(v);
}

/*
 * The share of the samples that ran Python, and whether that is the
 * profile's answer: when at least half of them did, the hottest Python
 * function by self (its code and the C it called) is named, rather than
 * a leaf of the interpreter's own C that every Python function runs
 * through.  For -r, a "python" row: share, count, and "python" or
 * "native" for the answer (pf-triage's hot lines follow it).
 */
static void
put_python(void)
{
	const struct entry **v;
	enum sortkey saved = opt.sort;
	int answer = st.pysum >= st.sum - st.pysum, n;
	const char *name, *key, *what;
	size_t len;

	if (opt.raw) {
		printf("python\t%.2f\t%llu\t%s\n", share(st.pysum),
		    (unsigned long long)st.pysum, answer ? "python" : "native");
		return;
	}
	what = vw.unit == UNIT_NS ? "time" : "samples";
	if (!answer) {
		printf("python: %.1f%% of the %s in Python functions, under half: the "
		    "functions below answer\n\n", share(st.pysum), what);
		return;
	}
	opt.sort = SORT_SELF;
	v = sorted_entries(&st.py);
	opt.sort = saved;
	name = func_name(&st.py, v[0], &len);
	key = table_key(&st.py, v[0]);
	n = printf("python: %.1f%% of the %s in Python functions; the hottest, %.1f%% "
	    "self: ", share(st.pysum), what, share(v[0]->self));
	put_cut(name, len, room_after(n > 0 ? (size_t)n : 0), 0);
	if (name != key) {
		fputs(" in ", stdout);
		put_cut(key, (size_t)(name - 1 - key), GROUP_ROOM, 0);
	}
	fputs("\n\n", stdout);
	free(v);
}

/*
 * Whether the input is an off-CPU profile: every recording is
 * pf-offcpu's (its provenance says so), or --offcpu says it is.
 */
static int
is_offcpu(void)
{
	size_t i;

	if (opt.offcpu)
		return 1;
	if (st.nrec == 0 || st.extra_rec > 0)
		return 0;
	for (i = 0; i < st.nrec; i++)
		if (!pf_prov_offcpu(&st.rec[i]))
			return 0;
	return 1;
}

/* pf_stackmap_foreach: one stack's waiter (without -u). */
static void
stack_waiter(const struct pf_stackmap_entry *e, void *arg)
{
	const char *semi = memchr(e->key, ';', e->len);
	size_t rlen = semi ? (size_t)(semi - e->key) : e->len;

	(void)arg;
	add_waiter(e->key, e->len, e->count[0], e->key,
	    opt.grouping == GROUP_PROCESS ? process_len(e->key, rlen) : rlen);
}

/*
 * The waiting callers, most blocked time first: the answer to "where does
 * it wait", which in the functions and stacks is the kernel's schedule
 * under the C library's lock or system call.  A row for people reads
 * "waiter (kind: libc-function)"; it is cut at its end, so the waiter
 * stays.
 */
static void
put_waiters(void)
{
	const struct entry **v;
	char what[64], cnt[48];
	struct pf_buf row = { 0 };
	size_t k, i, gw = 0;

	if (!opt.user_only)
		pf_stackmap_foreach(st.stacks, stack_waiter, NULL);
	v = sorted_entries(&st.waiters);
	k = shown(table_n(&st.waiters), what, sizeof(what));
	for (i = 0; opt.grouping != GROUP_NONE && i < k; i++) {
		const char *key = table_key(&st.waiters, v[i]);
		const char *t1 = memchr(key, '\t', v[i]->len);
		const char *t2 = memchr(t1 + 1, '\t', v[i]->len - (size_t)(t1 + 1 - key));
		const char *t3 = memchr(t2 + 1, '\t', v[i]->len - (size_t)(t2 + 1 - key));
		size_t n = ncols(t2 + 1, (size_t)(t3 - t2 - 1));

		if (n > gw)
			gw = n > GROUP_ROOM ? GROUP_ROOM : n;
	}
	if (gw > 0 && gw < 7)
		gw = 7;
	if (!opt.raw) {
		printf("waiting callers by blocked time %s\n", what);
		printf(" share%%  %*s  ", (int)vw.cw, count_label());
		if (gw > 0)
			printf("%-*s  ", (int)gw, opt.grouping == GROUP_PROCESS ?
			    "process" : "thread");
		puts("waiter (wait: C library function)");
	}
	for (i = 0; i < k; i++) {
		const struct entry *e = v[i];
		const char *key = table_key(&st.waiters, e), *end = key + e->len;
		const char *t1 = memchr(key, '\t', e->len);
		const char *t2 = memchr(t1 + 1, '\t', (size_t)(end - t1 - 1));
		const char *name = t2 + 1, *group = NULL;
		size_t glen = 0;

		if (opt.grouping != GROUP_NONE) {
			group = name;
			name = memchr(group, '\t', (size_t)(end - group));
			glen = (size_t)(name - group);
			name++;
		}
		if (opt.raw) {
			/* kind, entry, [group,] waiter: the key's own order. */
			printf("waiter\t%.2f\t%llu\t%.*s\n", share(e->self),
			    (unsigned long long)e->self, (int)e->len, key);
			continue;
		}
		fmt_count(cnt, sizeof(cnt), e->self);
		printf("%6.1f%%  %*s  ", share(e->self), (int)vw.cw, cnt);
		if (gw > 0) {
			put_padded(group, glen, gw);
			fputs("  ", stdout);
		}
		pf_buf_reset(&row);
		if (pf_buf_append(&row, name, (size_t)(end - name)) == -1 ||
		    pf_buf_puts(&row, " (") == -1 ||
		    pf_buf_append(&row, key, (size_t)(t1 - key)) == -1 ||
		    (t2 > t1 + 1 && (pf_buf_puts(&row, ": ") == -1 ||
		    pf_buf_append(&row, t1 + 1, (size_t)(t2 - t1 - 1)) == -1)) ||
		    pf_buf_putc(&row, ')') == -1)
			pf_die(PF_EXIT_FAIL, "memory");
		put_cut(row.data, row.len, room_after(11 + vw.cw + (gw ? gw + 2 : 0)), 0);
		putchar('\n');
	}
	if (!opt.raw && (!st.seen_kernel || !st.seen_libc))
		printf("note: no frame is marked %s: fold with\n"
		    "      pf-fold --kernel --libc to name each wait and the code that called it\n",
		    !st.seen_kernel && !st.seen_libc ? "kernel (_[k]) or C library (_[l])" :
		    !st.seen_kernel ? "kernel (_[k])" : "C library (_[l])");
	if (!opt.raw)
		putchar('\n');
	pf_buf_free(&row);
	free(v);
}

static int
cmp_stacks(const void *a, const void *b)
{
	const struct pf_stackmap_entry *x = *(const struct pf_stackmap_entry *const *)a;
	const struct pf_stackmap_entry *y = *(const struct pf_stackmap_entry *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c;

	if (x->count[0] != y->count[0])
		return x->count[0] > y->count[0] ? -1 : 1;
	if ((c = memcmp(x->key, y->key, n)) != 0)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

static void
put_stacks(void)
{
	const struct pf_stackmap_entry **v;
	char what[64], cnt[48];
	size_t n, k, i;

	if ((v = pf_stackmap_sorted(st.stacks, &n)) == NULL)
		pf_die(PF_EXIT_FAIL, "memory");
	qsort(v, n, sizeof(*v), cmp_stacks);
	k = shown(n, what, sizeof(what));
	if (!opt.raw) {
		printf("stacks %s\n", what);
		printf(" share%%  %*s  stack\n", (int)vw.cw, count_label());
	}
	for (i = 0; i < k; i++) {
		if (opt.raw) {
			printf("stack\t%.2f\t%llu\t%.*s\n", share(v[i]->count[0]),
			    (unsigned long long)v[i]->count[0], (int)v[i]->len,
			    v[i]->key);
			continue;
		}
		fmt_count(cnt, sizeof(cnt), v[i]->count[0]);
		printf("%6.1f%%  %*s  ", share(v[i]->count[0]), (int)vw.cw, cnt);
		put_stack(v[i]->key, v[i]->len, room_after(11 + vw.cw));
		putchar('\n');
	}
	free(v);
}

/* The width to cut to: -w, else the terminal's when stdout is one. */
static size_t
out_width(void)
{
	struct winsize ws;
	const char *c;
	uint64_t v;

	if (opt.width_set)
		return opt.width;
	if (!isatty(STDOUT_FILENO))
		return DEFAULT_WIDTH;
	if ((c = getenv("COLUMNS")) != NULL &&
	    pf_parse_u64(c, MIN_WIDTH, 100000, &v) == 0)
		return (size_t)v;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= MIN_WIDTH)
		return ws.ws_col;
	return DEFAULT_WIDTH;
}

static void
report(void)
{
	char cnt[48];

	vw.unit = input_unit();
	vw.seconds = vw.unit == UNIT_NS && st.sum >= 100000000000ULL;
	vw.width = out_width();
	fmt_count(cnt, sizeof(cnt), st.sum);
	vw.cw = strlen(cnt) < 5 ? 5 : strlen(cnt);

	put_heading();
	if (opt.raw)
		printf("total\t%llu\t%s\n", (unsigned long long)st.sum,
		    unit_words[vw.unit]);
	else
		printf("total: %s%s in %zu stacks\n\n", cnt,
		    vw.unit == UNIT_SAMPLES ? " samples" : "",
		    pf_stackmap_size(st.stacks));
	if (st.pysum > 0)
		put_python();
	if (opt.grouping != GROUP_NONE)
		put_groups();
	/* Off the CPU, the answer is who waited: first. */
	if (is_offcpu())
		put_waiters();
	if (st.pysum > 0)
		put_functions(&st.py, "python functions", "pyfunction");
	put_functions(&st.funcs, "functions", "function");
	put_stacks();
}

/* ---- command line ----------------------------------------------------- */

enum { OPT_OFFCPU = 256, OPT_VERSION };

static const struct option longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "offcpu", no_argument, NULL, OPT_OFFCPU },
	{ "processes", no_argument, NULL, 'p' },
	{ "raw", no_argument, NULL, 'r' },
	{ "rows", required_argument, NULL, 'n' },
	{ "sort", required_argument, NULL, 's' },
	{ "threads", no_argument, NULL, 't' },
	{ "user-only", no_argument, NULL, 'u' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "width", required_argument, NULL, 'w' },
	{ NULL, 0, NULL, 0 }
};

/* ':' first: a missing value comes back as ':', not '?' (pf_usage_getopt). */
static const char shortopts[] = ":hn:prs:tuw:";

static void
usage(void)
{
	fputs(synopsis, stdout);
	fputs("\n"
	    "  -r, --raw              tab-separated rows for scripts, never cut\n"
	    "  -p, --processes        by process: a section of processes, and\n"
	    "                         functions per process (a thread's root\n"
	    "                         comm-PID/TID counts as comm-PID)\n"
	    "  -t, --threads          by thread: each root frame as it is\n"
	    "  -u, --user-only        drop kernel frames (names ending in _[k]);\n"
	    "                         a stack with no other ends in [kernel]\n"
	    "      --offcpu           the waiting callers, as for an off-CPU\n"
	    "                         profile (pf-offcpu's input gets them anyway)\n"
	    "  -n, --rows N           rows per section (default 10; 0: all)\n"
	    "  -s, --sort self|total  order of the functions (default self)\n"
	    "  -w, --width COLUMNS    cut rows to COLUMNS (0: never; default the\n"
	    "                         terminal's, or 100 when not a terminal)\n"
	    "  -h, --help             this help\n"
	    "      --version          print the version\n", stdout);
	pf_exit_checked(PF_EXIT_OK);
}

static int
parse_options(int argc, char *argv[])
{
	uint64_t v;
	int c;

	opterr = 0;	/* one message, in the house format */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage();
			break;
		case 'n':
			if (pf_parse_u64(optarg, 0, 1000000000, &v) == -1)
				pf_usage_error(synopsis, "-n %s: %s", optarg,
				    errno == ERANGE ? "out of range" :
				    "not a whole number");
			opt.rows = (size_t)v;
			break;
		case 'p':
		case 't':
			if (opt.grouping != GROUP_NONE &&
			    opt.grouping != (c == 'p' ? GROUP_PROCESS : GROUP_THREAD))
				pf_usage_error(synopsis, "-p and -t: pick one");
			opt.grouping = c == 'p' ? GROUP_PROCESS : GROUP_THREAD;
			break;
		case 'r':
			opt.raw = 1;
			break;
		case 'u':
			opt.user_only = 1;
			break;
		case 's':
			if (strcmp(optarg, "self") == 0)
				opt.sort = SORT_SELF;
			else if (strcmp(optarg, "total") == 0)
				opt.sort = SORT_TOTAL;
			else
				pf_usage_error(synopsis, "--sort %s: want self "
				    "or total", optarg);
			break;
		case 'w':
			if (pf_parse_u64(optarg, 0, 100000, &v) == -1 ||
			    (v != 0 && v < MIN_WIDTH))
				pf_usage_error(synopsis, "-w %s: want 0 or %d to "
				    "100000 columns", optarg, MIN_WIDTH);
			opt.width = (size_t)v;
			opt.width_set = 1;
			break;
		case OPT_OFFCPU:
			opt.offcpu = 1;
			break;
		case OPT_VERSION:
			pf_print_version();
			break;
		default:
			pf_usage_getopt(synopsis, shortopts, c, argv);
		}
	}
	return optind;
}

int
main(int argc, char *argv[])
{
	int first;

	first = parse_options(argc, argv);
	table_init(&st.funcs);
	table_init(&st.py);
	table_init(&st.groups);
	table_init(&st.waiters);
	table_init(&st.kinds);
	if ((st.stacks = pf_stackmap_new()) == NULL)
		pf_die(PF_EXIT_FAIL, "memory");
	read_inputs(argc - first, argv + first);
	if (st.sum == 0) {
		/* Lines that all failed to parse are bad input, not no work. */
		if (st.invalid > 0)
			pf_diex(PF_EXIT_FAIL, "no valid folded stack in the "
			    "input (%llu invalid lines)",
			    (unsigned long long)st.invalid);
		pf_diex(PF_EXIT_FINDING, "no samples in the input: nothing "
		    "to report");
	}
	report();

	table_free(&st.funcs);
	table_free(&st.py);
	table_free(&st.groups);
	table_free(&st.waiters);
	table_free(&st.kinds);
	pf_stackmap_free(st.stacks);
	pf_buf_free(&st.key);
	pf_buf_free(&st.user);
	pf_exit_checked(PF_EXIT_OK);
}
