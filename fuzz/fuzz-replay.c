/*
 * fuzz-replay: the end of a recording (lib/common/replay.c with comms.c):
 * COMM, FORK, EXIT and non-file MMAP records replayed in time order into
 * the thread names and a symbolizer, and each sample written as
 * perf-script text by pf_replay_format, as the recorders' emit does.
 * Everything in those records is the target's: thread names of any
 * bytes (and any length: the kernel's limit is not trusted), anonymous
 * mapping names ([anon:...] is set by prctl), the pids, tids, times and
 * the call chain with its context markers.  Kernel frames are named from
 * kallsyms text in the input (module names too are anyone's who loads
 * one); a [vdso] mapping of our own vDSO's size names real symbols.
 *
 * Threads and processes are numbered above the kernel's pid limit, so no
 * /proc file nor JIT map is ever found for them: the names are the
 * records' alone.  For each sample this checks:
 *
 *   - the text is one event line, frame lines that each start with a
 *     tab, then one blank line, with no control byte anywhere but that
 *     tab and the newlines;
 *   - the event line starts with the thread's name as a model of
 *     comms.h says it is at that time (the last COMM, truncated to 15
 *     bytes, a FORK's inherited name, "swapper" for tid 0, ":TID" when
 *     unnamed), escaped as xmlesc.h's pf_name_escape says (written out
 *     here again from its comment, not called);
 *   - each frame line is the one replay.h describes, from what
 *     pf_sym_frame answers for that frame, every name escaped as above;
 *     the [unknown-chain] cut happens exactly where replay.h says, and
 *     *end says so and says how the user stack ended (incomplete=);
 *   - pf's own reader of that text (perfscript.c, as pf-fold reads a
 *     recording) accepts every line and reads back the comm, pid, tid,
 *     time, period and one frame per frame line.
 *
 * The reader drops a comm's trailing spaces (they run into the field
 * separator; xmlesc's unit test keeps "end " as it is), down to the two
 * characters it wants at least.  Known, and reported rather than
 * checked: a comm of one byte is not read back at all (the reader wants
 * two characters before the pid, as stackcollapse-perf.pl does), so for
 * one the comm, pid and tid are not compared.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "comms.h"
#include "kallsyms.h"
#include "perfscript.h"
#include "rawrec.h"
#include "replay.h"
#include "symbolize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAXIN = 16384, NT = 16, NP = 8, MAXNAME = 31, MAXNR = 63 };

/* Above PID_MAX_LIMIT (4194304): no such process or thread under /proc. */
#define BASE 0x7fff0000u
#define KBASE 0xffffffff81000000ull
#define UBASE 0x400000ull

static uint32_t
tid_of(unsigned i)
{
	return i == 0 ? 0 : BASE + i;
}

static uint32_t
pid_of(unsigned i)
{
	return i == 0 ? 0 : BASE + 0x100 + i;
}

/* ---- the input ---------------------------------------------------- */

struct in {
	const uint8_t *p;
	size_t left;
};

static bool
take(struct in *in, void *out, size_t n)
{
	if (in->left < n)
		return false;
	memcpy(out, in->p, n);
	in->p += n;
	in->left -= n;
	return true;
}

static uint8_t
byte(struct in *in)
{
	uint8_t b = 0;

	(void)take(in, &b, 1);
	return b;
}

/* ---- the model of comms.h ----------------------------------------- */

struct model {
	bool present[NT];
	char name[NT][16];
};

static int
slot(uint32_t tid)
{
	return tid == 0 ? -1 : (int)(tid - BASE);
}

static void
m_set(struct model *m, uint32_t tid, const char *name)
{
	int i = slot(tid);

	if (i < 0)
		return;
	m->present[i] = true;
	snprintf(m->name[i], sizeof(m->name[i]), "%.15s", name);
}

static void
m_inherit(struct model *m, uint32_t parent, uint32_t tid)
{
	int p = slot(parent), c = slot(tid);
	char name[16];

	if (p >= 0 && m->present[p]) {
		memcpy(name, m->name[p], sizeof(name));
		m_set(m, tid, name);
	} else if (c >= 0 && m->present[c])
		m_set(m, tid, "");
}

/* The name a sample of tid is written with (and remembered, as comms.c does). */
static const char *
m_get(struct model *m, uint32_t tid, char *buf, size_t len)
{
	int i = slot(tid);

	if (i < 0)
		return "swapper";
	if (m->present[i] && m->name[i][0] != '\0')
		return m->name[i];
	snprintf(buf, len, ":%u", tid);
	m_set(m, tid, buf);
	return buf;
}

/* ---- pf_name_escape, as xmlesc.h describes it ---------------------- */

static void
esc(struct pf_buf *b, const char *s, bool comm)
{
	size_t i, n = strlen(s);

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\\')
			pf_buf_puts(b, "\\\\");
		else if (c < 0x20 || c == 0x7f || c == ';' ||
		    (comm && i == 0 && (c == ' ' || c == '#')) ||
		    (comm && c == ' ' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9'))
			pf_buf_printf(b, "\\x%02x", c);
		else
			pf_buf_putc(b, (char)c);
	}
}

/* ---- records ------------------------------------------------------ */

struct ev {
	uint64_t time;
	size_t seq;
	uint8_t type;
	uint32_t tid, ptid;
	char name[MAXNAME + 1];
};

static int
cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void
put_event(struct pf_rawrec *r, const struct pf_rawevent *e, const char *str)
{
	static const char zero[8];

	if (pf_buf_append(&r->events, e, sizeof(*e)) == -1 ||
	    pf_buf_append(&r->events, str, e->slen) == -1 ||
	    pf_buf_append(&r->events, zero, pf_rawevent_size(e) - sizeof(*e) - e->slen) == -1)
		abort();
	r->nevents++;
}

/* A mapping name that is never a file's path: nothing is opened for it. */
static size_t
map_name(struct in *in, unsigned kind, char *name)
{
	static const char *const fixed[] = { "[vdso]", "[heap]", "//anon", "", "[stack]" };
	size_t n, pre;

	switch (kind) {
	case 0: case 1: case 2: case 3: case 4:
		strcpy(name, fixed[kind]);
		return strlen(name);
	case 5:
	case 6:
		strcpy(name, kind == 5 ? "[anon:" : "/memfd:");
		break;
	default:
		strcpy(name, "[");
		break;
	}
	pre = strlen(name);
	n = byte(in) & MAXNAME;
	if (n > in->left)
		n = in->left;
	if (pre + n > 2 * MAXNAME)
		n = 2 * MAXNAME - pre;
	(void)take(in, name + pre, n);
	name[pre + n] = '\0';
	return strlen(name);
}

/* One call chain entry. */
static uint64_t
chain_entry(struct in *in)
{
	static const uint64_t other[] = {
		PERF_CONTEXT_HV, PERF_CONTEXT_GUEST, PERF_CONTEXT_GUEST_KERNEL,
		PERF_CONTEXT_GUEST_USER, PERF_CONTEXT_MAX, UINT64_MAX,
		PF_RAWREC_OUTERMOST, 0, PF_RAWREC_UNREADABLE, PF_RAWREC_BUDGET,
		PF_RAWREC_BUDGET + 1,
	};
	uint8_t e = byte(in);
	uint16_t v = 0;
	uint64_t ip = 0;

	switch (e & 7) {
	case 0: return PERF_CONTEXT_KERNEL;
	case 1: return PERF_CONTEXT_USER;
	case 2: return PF_RAWREC_TRUNCATED;
	case 3: return other[(e >> 3) % (sizeof(other) / sizeof(other[0]))];
	case 4:
	case 5:
		(void)take(in, &v, sizeof(v));
		return UBASE + ((uint64_t)v << 4) + (e >> 4);
	case 6:
		(void)take(in, &v, sizeof(v));
		return KBASE + ((uint64_t)v << 4) + (e >> 4);
	default:
		(void)take(in, &ip, sizeof(ip));
		return ip;
	}
}

/* ---- the checks --------------------------------------------------- */

struct got {
	int n;
	char comm[256];
	size_t comm_len;
	uint64_t pid, tid, time, weight;
	int has_pid, has_tid, has_time;
	size_t nframes;
};

static int
emitted(const struct pf_ps_sample *s, void *arg)
{
	struct got *g = arg;

	g->n++;
	g->comm_len = s->comm_len < sizeof(g->comm) ? s->comm_len : sizeof(g->comm);
	memcpy(g->comm, s->comm, g->comm_len);
	g->pid = s->pid;
	g->tid = s->tid;
	g->has_pid = s->has_pid;
	g->has_tid = s->has_tid;
	g->time = s->time_ns;
	g->has_time = s->has_time;
	g->weight = s->weight;
	g->nframes = s->nframes;
	return 0;
}

/*
 * The frame lines replay.h describes for s's chain, into want; whether
 * the chain is cut, and in *why how its user stack ended, as replay.h
 * says: complete (NONE) at an entry frame or the outermost marker, or
 * with no user frame; else cut into data, else the last of the
 * truncation, budget and unreadable markers, else a chain of the
 * kernel's full length, else no unwind information.  pf_sym_frame
 * answers the same for the same frame.
 */
static bool
want_frames(struct pf_symbolizer *sym, const struct pf_rawsample *s, struct pf_buf *want,
    size_t *nlines, enum pf_incomplete *why)
{
	const char *ips = (const char *)(s + 1);
	bool kernel = false, first = true, mapped = false, user = false, entry = false;
	enum pf_incomplete marker = PF_INCOMPLETE_NO_UNWIND;
	uint32_t i, nentries = 0;

	*nlines = 0;
	*why = PF_INCOMPLETE_NONE;
	for (i = 0; i < s->nr; i++) {
		struct pf_frame_in in;
		struct pf_frame_out out;
		uint64_t ip;
		size_t j;

		memcpy(&ip, ips + (size_t)i * 8, sizeof(ip));
		if (ip < PF_RAWREC_TRUNCATED || ip > PF_RAWREC_BUDGET)
			nentries++;
		if (ip == (uint64_t)PERF_CONTEXT_KERNEL || ip == (uint64_t)PERF_CONTEXT_USER) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
			first = true;
			continue;
		}
		if (ip == PF_RAWREC_TRUNCATED) {
			pf_buf_printf(want, "\t%16x [truncated] ([unknown])\n", 0);
			(*nlines)++;
			first = true;
			marker = PF_INCOMPLETE_STACK_COPY;
			continue;
		}
		if (ip == PF_RAWREC_BUDGET) {
			if (!entry) {
				pf_buf_printf(want, "\t%16x [budget] ([unknown])\n", 0);
				(*nlines)++;
			}
			marker = PF_INCOMPLETE_BUDGET;
			continue;
		}
		if (ip == PF_RAWREC_UNREADABLE)
			marker = PF_INCOMPLETE_UNREADABLE;
		if (ip == PF_RAWREC_OUTERMOST)
			entry = true;
		if (ip >= (uint64_t)PERF_CONTEXT_MAX)
			continue;
		in.addr = ip;
		in.kernel = kernel;
		in.retaddr = !first;
		first = false;
		pf_sym_frame(sym, (pid_t)s->pid, &in, &out);
		/* Anonymous executable memory is mapped too (a JIT's code). */
		if (!kernel && !in.retaddr)
			mapped = out.mapped || out.dso != NULL;
		else if (!kernel && mapped && !out.mapped && out.dso == NULL && out.sym == NULL) {
			pf_buf_printf(want, "\t%16x [unknown-chain] ([unknown])\n", 0);
			(*nlines)++;
			*why = user && !entry ? PF_INCOMPLETE_FP_DATA : PF_INCOMPLETE_NONE;
			return true;
		}
		if (!kernel) {
			user = true;
			entry = entry || pf_entry_frame(out.sym);
			for (j = 0; j < out.ninl; j++)
				entry = entry || pf_entry_frame(out.inl[j]);
		}
		for (j = 0; j < out.ninl; j++) {
			pf_buf_printf(want, "\t%16llx ", (unsigned long long)out.addr);
			esc(want, out.inl[j], false);
			pf_buf_printf(want, "+0x%llx (inlined)\n", (unsigned long long)out.off);
			(*nlines)++;
		}
		pf_buf_printf(want, "\t%16llx ", (unsigned long long)out.addr);
		if (out.sym != NULL) {
			esc(want, out.sym, false);
			pf_buf_printf(want, "+0x%llx", (unsigned long long)out.off);
		} else
			pf_buf_puts(want, "[unknown]");
		pf_buf_puts(want, " (");
		if (out.dso != NULL)
			esc(want, out.dso, false);
		else
			pf_buf_puts(want, "[unknown]");
		pf_buf_puts(want, ")\n");
		(*nlines)++;
	}
	if (user && !entry)
		*why = marker != PF_INCOMPLETE_NO_UNWIND ? marker :
		    nentries >= 127 ? PF_INCOMPLETE_STACK_COPY : PF_INCOMPLETE_NO_UNWIND;
	return false;
}

/*
 * Check one sample's text b, written for s with period; comm is the
 * model's name for it.  Its lines go on to the reader ps.
 */
static void
check(struct pf_symbolizer *sym, const struct pf_rawsample *s, uint64_t period,
    const char *comm, const struct pf_buf *b, const struct pf_stack_end *se,
    struct pf_perfscript *ps, struct got *g)
{
	struct pf_buf want = { 0 }, ename = { 0 };
	const char *p = b->data, *end = b->data + b->len, *nl;
	size_t nlines, frames = 0, i, n, line = 0;
	enum pf_incomplete wwhy;
	bool wcut;

	/* The shape: an event line, tab lines, one blank line at the end. */
	if (b->len < 3 || end[-1] != '\n' || end[-2] != '\n')
		abort();
	for (i = 0; i < b->len; i++) {
		unsigned char c = (unsigned char)b->data[i];

		if (c == '\n')
			continue;
		if (c == '\t' && i > 0 && b->data[i - 1] == '\n')
			continue;
		if (c < 0x20 || c == 0x7f)
			abort();
	}
	g->n = 0;
	for (; p < end; p = nl + 1, line++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == p)
			break;		/* the blank line */
		if ((line == 0) == (*p == '\t') || nl - p < 2)
			abort();
		frames += line > 0;
		if (pf_ps_line(ps, p, (size_t)(nl - p)) == -1)
			abort();	/* pf-fold could not read it */
	}
	if (line == 0 || nl + 1 != end)
		abort();
	if (pf_ps_line(ps, "", 0) == -1 || g->n != 1)
		abort();

	/* The name. */
	esc(&ename, comm, true);
	if (b->len <= ename.len || memcmp(b->data, ename.data, ename.len) != 0 ||
	    b->data[ename.len] != ' ')
		abort();

	/* The frames. */
	wcut = want_frames(sym, s, &want, &nlines, &wwhy);
	if (wcut != se->cut || wwhy != se->why || nlines != frames)
		abort();
	p = memchr(b->data, '\n', b->len) + 1;
	if ((size_t)(end - 1 - p) != want.len ||
	    (want.len > 0 && memcmp(p, want.data, want.len) != 0))
		abort();

	/* What the reader made of it. */
	if (g->nframes != frames || !g->has_time ||
	    g->time != s->time / 1000 * 1000 || g->weight != (period ? period : 1))
		abort();
	/* Its trailing spaces run into the separator; two characters at least. */
	for (n = ename.len; n > 2 && ename.data[n - 1] == ' '; n--)
		;
	if (ename.len >= 2 && (g->comm_len != n || memcmp(g->comm, ename.data, n) != 0 ||
	    !g->has_pid || !g->has_tid || g->pid != s->pid || g->tid != s->tid))
		abort();
	pf_buf_free(&want);
	pf_buf_free(&ename);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const evnames[] = { "cycles", "cpu-clock", "cycles:u", "task-clock" };
	static struct ev evs[MAXIN];
	struct in in = { data, size };
	struct pf_rawrec r = { .cap_bytes = UINT64_MAX };
	struct pf_kallsyms *k = NULL;
	struct pf_symbolizer *sym;
	struct pf_comms comms = { 0 };
	struct model m;
	struct pf_ps_config cfg = { .keep_frames = 1 };
	struct pf_perfscript *ps;
	struct pf_rawref *refs;
	struct pf_buf b = { 0 };
	struct got g;
	uint64_t clock;
	size_t nev = 0, n, i, ei = 0;
	uint8_t f;

	if (size < 1 || size > MAXIN)
		return 0;
	memset(&m, 0, sizeof(m));
	f = byte(&in);
	clock = f & 8 ? UINT64_MAX - (1ull << 40) : 1234567891234ull;
	if (f & 4) {
		uint16_t len = 0;

		(void)take(&in, &len, sizeof(len));
		len = len > in.left ? (uint16_t)in.left : len;
		k = pf_kallsyms_load_text((const char *)in.p, len);
		in.p += len;
		in.left -= len;
	}
	while (in.left > 0) {
		uint8_t a = byte(&in), x = byte(&in);
		uint16_t dt = 0;
		uint64_t t;
		struct pf_rawevent e = { 0 };
		struct ev *v = &evs[nev];
		char name[2 * MAXNAME + 1];

		(void)take(&in, &dt, sizeof(dt));
		t = (uint64_t)dt << (a & 0x40 ? 20 : 0);
		if (a & 0x80)		/* back in time; the clock stays */
			t = clock - t;
		else
			t = clock += t;
		e.time = v->time = t;
		v->seq = nev;
		e.tid = tid_of(x & 15);
		e.pid = pid_of((x >> 4) & 7);
		switch (a & 7) {
		case 0:
		case 1:		/* COMM */
			e.type = PF_EV_COMM;
			e.exec = x >> 7;
			n = byte(&in) & MAXNAME;
			n = n > in.left ? in.left : n;
			memset(name, 0, sizeof(name));
			(void)take(&in, name, n);
			e.slen = (uint32_t)n;
			put_event(&r, &e, name);
			v->type = PF_EV_COMM;
			v->tid = e.tid;
			memcpy(v->name, name, sizeof(v->name));
			nev++;
			break;
		case 2:		/* FORK: x the child, the next byte its creator */
		case 7:		/* EXIT */
			e.type = (a & 7) == 2 ? PF_EV_FORK : PF_EV_EXIT;
			x = byte(&in);
			e.ptid = tid_of(x & 15);
			e.ppid = pid_of((x >> 4) & 7);
			put_event(&r, &e, "");
			v->type = (uint8_t)e.type;
			v->tid = e.tid;
			v->ptid = e.ptid;
			nev++;
			break;
		case 3:		/* MMAP of a non-file mapping */
			e.type = PF_EV_MMAP;
			e.addr = UBASE + ((uint64_t)byte(&in) << 12);
			e.len = ((uint64_t)byte(&in) + 1) << 12;
			e.slen = (uint32_t)map_name(&in, (x >> 4) & 7, name);
			e.pid = pid_of(x & 7);
			put_event(&r, &e, name);
			v->type = PF_EV_MMAP;
			nev++;
			break;
		default: {	/* SAMPLE */
			struct pf_rawsample s = { .pid = e.pid, .tid = e.tid, .time = t };
			uint64_t ip[MAXNR];
			uint8_t c = byte(&in), pm = byte(&in);

			s.cpu = c == 0xff ? UINT32_MAX : c;
			s.period = pm;
			if (pm & 0x80)
				(void)take(&in, &s.period, sizeof(s.period));
			s.nr = byte(&in) & MAXNR;
			for (i = 0; i < s.nr; i++)
				ip[i] = chain_entry(&in);
			if (pf_buf_append(&r.samples, &s, sizeof(s)) == -1 ||
			    pf_buf_append(&r.samples, ip, (size_t)s.nr * 8) == -1)
				abort();
			r.nsamples++;
			break;
		}
		}
	}

	if ((sym = pf_sym_new(k)) == NULL || (ps = pf_ps_new(&cfg, emitted, &g)) == NULL)
		abort();
	if ((refs = pf_rawrec_sample_order(&r, &n)) == NULL || pf_replay_begin(&r) == -1)
		abort();
	qsort(evs, nev, sizeof(evs[0]), cmp_ev);
	for (i = 0; i < n; i++) {
		const struct pf_rawsample *s = pf_rawrec_sample(&r, refs[i].off);
		const char *comm;
		char cbuf[32];
		struct pf_stack_end se;

		/* The model first, as the replay will. */
		for (; ei < nev && evs[ei].time <= s->time; ei++) {
			if (evs[ei].type == PF_EV_COMM)
				m_set(&m, evs[ei].tid, evs[ei].name);
			else if (evs[ei].type == PF_EV_FORK)
				m_inherit(&m, evs[ei].ptid, evs[ei].tid);
		}
		comm = m_get(&m, s->tid, cbuf, sizeof(cbuf));

		pf_replay_to(&r, sym, &comms, s->time);
		pf_buf_reset(&b);
		/* -1 (memory ran out) never here. */
		if (pf_replay_format(sym, &comms, NULL, s, refs[i].period, evnames[f & 3], &b, &se) != 0)
			abort();
		check(sym, s, refs[i].period, comm, &b, &se, ps, &g);
	}
	free(refs);
	pf_buf_free(&b);
	pf_ps_free(ps);
	pf_sym_free(sym);
	pf_kallsyms_free(k);
	pf_comms_free(&comms);
	pf_rawrec_free(&r);
	return 0;
}
