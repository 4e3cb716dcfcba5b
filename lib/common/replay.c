/*
 * replay: tracking records in time order, and samples as perf-script text.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyframe.h"
#include "replay.h"
#include "unwind.h"
#include "xmlesc.h"

static int
cmp_ev(const void *a, const void *b)
{
	const struct pf_rawevent *x = *(const struct pf_rawevent *const *)a;
	const struct pf_rawevent *y = *(const struct pf_rawevent *const *)b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	/* Same time: the order they were read in, within a ring. */
	return x < y ? -1 : x > y;
}

int
pf_replay_begin(struct pf_rawrec *c)
{
	size_t off = 0;

	free(c->ev);
	c->nev = c->evi = 0;
	if ((c->ev = calloc(c->nevents + 1, sizeof(*c->ev))) == NULL)
		return -1;
	while (off < c->events.len) {
		const struct pf_rawevent *e = (const void *)(c->events.data + off);

		c->ev[c->nev++] = e;
		off += pf_rawevent_size(e);
	}
	qsort(c->ev, c->nev, sizeof(*c->ev), cmp_ev);
	return 0;
}

void
pf_replay_to(struct pf_rawrec *c, struct pf_symbolizer *sym,
    struct pf_comms *comms, uint64_t t)
{
	for (; c->evi < c->nev && c->ev[c->evi]->time <= t; c->evi++) {
		const struct pf_rawevent *e = c->ev[c->evi];
		const char *str = (const char *)(e + 1);

		switch (e->type) {
		case PF_EV_MMAP:
			pf_sym_add_map(sym, (pid_t)e->pid, e->addr, e->addr + e->len,
			    e->pgoff, str, e->maj, e->min, e->ino);
			break;
		case PF_EV_COMM:
			if (e->exec)
				pf_sym_exec(sym, (pid_t)e->pid);
			if (comms != NULL)
				pf_comms_set(comms, e->tid, str);
			break;
		case PF_EV_FORK:
			if (e->pid != e->ppid)
				pf_sym_fork(sym, (pid_t)e->ppid, (pid_t)e->pid);
			if (comms != NULL)
				pf_comms_inherit(comms, e->ptid, e->tid);
			break;
		default:
			break;
		}
	}
}

/*
 * Whether ip is one of a call chain's markers rather than an address.
 * The kernel's and the user's open a context (kernel set to match), and
 * the truncation marker a new run: the address after either is the one
 * interrupted there, not a return address (first_in_ctx).  A hypervisor
 * or guest marker, never sampled here, changes neither, nor do the
 * markers of how an unwind ended (PF_RAWREC_OUTERMOST...), which come
 * after the last frame.  The writing and
 * the marking of files read a chain through this one rule, so that both
 * look each address up alike.
 */
static bool
chain_marker(uint64_t ip, bool *kernel, bool *first_in_ctx)
{
	if (ip < (uint64_t)PERF_CONTEXT_MAX)
		return false;
	if (ip == (uint64_t)PERF_CONTEXT_KERNEL)
		*kernel = true;
	else if (ip == (uint64_t)PERF_CONTEXT_USER)
		*kernel = false;
	else if (ip != PF_RAWREC_TRUNCATED)
		return true;
	*first_in_ctx = true;
	return true;
}

int
pf_replay_mark_files(struct pf_rawrec *c, struct pf_symbolizer *sym,
    const struct pf_rawref *refs, size_t n)
{
	struct pf_sym_saved *sv;
	size_t evi = c->evi, i;
	uint32_t k;

	if ((sv = pf_sym_save(sym)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		const struct pf_rawsample *s = pf_rawrec_sample(c, refs[i].off);
		const char *ips = (const char *)(s + 1);
		bool kernel = false, first_in_ctx = true;

		pf_replay_to(c, sym, NULL, s->time);
		/* The contexts as pf_replay_format reads them. */
		for (k = 0; k < s->nr; k++) {
			struct pf_frame_in in;
			uint64_t ip;

			memcpy(&ip, ips + (size_t)k * 8, sizeof(ip));
			if (chain_marker(ip, &kernel, &first_in_ctx))
				continue;
			in.addr = ip;
			in.kernel = kernel;
			in.retaddr = !first_in_ctx;
			first_in_ctx = false;
			pf_sym_mark(sym, (pid_t)s->pid, &in);
		}
	}
	pf_sym_restore(sym, sv);
	c->evi = evi;
	return 0;
}

static const char *const incomplete_names[PF_INCOMPLETE_CAUSES] = {
	[PF_INCOMPLETE_STACK_COPY] = "stack-copy",
	[PF_INCOMPLETE_FP_DATA] = "fp-into-data",
	[PF_INCOMPLETE_NO_UNWIND] = "no-unwind-info",
	[PF_INCOMPLETE_UNREADABLE] = "unreadable",
	[PF_INCOMPLETE_BUDGET] = "budget",
};

const char *
pf_incomplete_name(enum pf_incomplete why)
{
	if ((unsigned)why >= PF_INCOMPLETE_CAUSES || incomplete_names[why] == NULL)
		return "none";
	return incomplete_names[why];
}

bool
pf_entry_frame(const char *name)
{
	/*
	 * Where a program's or a thread's stack starts: the ELF entry and the
	 * C library's start of main, main itself (what is above it is the
	 * C library's), a thread's start, and Go's goroutine and thread
	 * entries.  Compared without leading underscores, glibc's __GI_
	 * prefix and a symbol version: __GI___clone3 and clone3@GLIBC are
	 * clone3, _start is start.  man/pf-formats.5 lists them.
	 */
	static const char *const entries[] = {
		"start", "libc_start_main", "libc_start_main_impl", "libc_start_call_main",
		"main", "start_thread", "clone", "clone3", "dl_start", "dl_start_user",
		"runtime.goexit", "runtime.main", "runtime.mstart", "runtime.rt0_go",
	};
	size_t i, n;

	if (name == NULL)
		return false;
	/* A PLT stub (clone@plt) only jumps to the function: no stack starts there. */
	n = strlen(name);
	if (n >= 4 && strcmp(name + n - 4, "@plt") == 0)
		return false;
	if (strncmp(name, "__GI_", 5) == 0)
		name += 5;
	while (*name == '_')
		name++;
	n = strcspn(name, "@");
	for (i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if (strlen(entries[i]) == n && memcmp(entries[i], name, n) == 0)
			return true;
	return false;
}

/* Whether sym is CPython's evaluation function (or a part of it a compiler split off). */
static bool
eval_frame(const char *sym)
{
	static const char ev[] = "_PyEval_EvalFrameDefault";

	return sym != NULL && strncmp(sym, ev, sizeof(ev) - 1) == 0 &&
	    (sym[sizeof(ev) - 1] == '\0' || sym[sizeof(ev) - 1] == '.');
}

/* Where the merge puts Python frames in, and what it leaves out: lines of b. */
struct py_lines {
	size_t ev_at[PF_PY_MERGE_MAX], ev_end[PF_PY_MERGE_MAX];
	size_t nev;
	bool ev_over;			/* more evaluation frames than kept */
	size_t drop_at[PF_PY_MERGE_MAX], drop_end[PF_PY_MERGE_MAX];
	size_t ndrop;
};

static int
py_line(struct pf_buf *b, const struct pf_pyrec *py, uint32_t k)
{
	size_t len;
	const char *name = pf_pyrec_name(py, k, &len);
	int bad = 0;

	bad |= pf_buf_printf(b, "\t%16x py::", 0) == -1;
	bad |= pf_name_escape(b, name, len, 0) == -1;
	bad |= pf_buf_puts(b, "+0x0 (python)\n") == -1;
	return bad ? -1 : 0;
}

static int
py_marker(struct pf_buf *b, int end)
{
	const char *m = end == PF_PY_END_LOOP ? "[py-loop]" : end == PF_PY_END_DEPTH ?
	    "[py-depth]" : "[py-unreadable]";

	return pf_buf_printf(b, "\t%16x %s ([unknown])\n", 0, m);
}

/* Copy b[from, to) to t without the dropped lines. */
static int
copy_kept(struct pf_buf *t, const struct pf_buf *b, const struct py_lines *pl, size_t from,
    size_t to)
{
	size_t i;

	for (i = 0; i < pl->ndrop && from < to; i++) {
		if (pl->drop_end[i] <= from || pl->drop_at[i] >= to)
			continue;
		if (pl->drop_at[i] > from && pf_buf_append(t, b->data + from,
		    pl->drop_at[i] - from) == -1)
			return -1;
		from = pl->drop_end[i];
	}
	if (from < to && pf_buf_append(t, b->data + from, to - from) == -1)
		return -1;
	return 0;
}

/*
 * Merge the sample's Python frames into its lines b[start, b->len) (the
 * rules are pf_replay_format's): PF_PY_MERGE_*, or -1 with ENOMEM.
 */
static int
py_merge(const struct pf_pyrec *py, const struct pf_rawsample *s, struct pf_buf *b,
    size_t start, const struct py_lines *pl, bool native_cut)
{
	const unsigned char *fr;
	size_t n, i, g, ngroups = 0, partial, first[PF_PY_FRAMES_MAX + 1], nev = pl->nev;
	struct pf_buf t = { 0 };
	int end, rc = -1;
	bool ok, walk_cut;

	/*
	 * No thread state of its thread: a thread running no Python (no
	 * evaluation frame) stays native; one that was, but ended before
	 * the read, is a mismatch.
	 */
	if (s->py == PF_PYREC_UNFOUND) {
		if (nev == 0)
			return PF_PY_MERGE_NONE;
		ok = false;
		goto mismatch;
	}
	if (s->py == PF_PYREC_LATE || s->py == PF_PYREC_STALE ||
	    (fr = pf_pyrec_stack(py, s->py, &n, &end)) == NULL) {
		if (s->py != PF_PYREC_LATE && s->py != PF_PYREC_STALE)
			return PF_PY_MERGE_NONE;
		ok = false;
		goto mismatch;
	}
	/* Groups: first[g] is group g's innermost frame; each ends at an entry frame. */
	first[0] = 0;
	for (i = 0; i < n; i++)
		if (pf_pyrec_frame(fr, i) & PF_PYREC_ENTRY)
			first[++ngroups] = i + 1;
	partial = n - first[ngroups];
	walk_cut = end != PF_PY_END_DONE;
	if (pl->ev_over)
		ok = false;
	else if (!walk_cut)
		ok = partial == 0 && (nev == ngroups || (native_cut && nev < ngroups));
	else
		ok = nev >= ngroups || native_cut;
	if (!ok)
		goto mismatch;
	{
		size_t at = start;

		for (g = 0; g < nev; g++) {
			if (copy_kept(&t, b, pl, at, pl->ev_at[g]) == -1)
				goto out;
			at = pl->ev_end[g];
			if (g < ngroups) {
				for (i = first[g]; i < first[g + 1]; i++)
					if (py_line(&t, py, pf_pyrec_frame(fr, i)) == -1)
						goto out;
			} else if (g == ngroups && walk_cut) {
				for (i = first[ngroups]; i < n; i++)
					if (py_line(&t, py, pf_pyrec_frame(fr, i)) == -1)
						goto out;
				if (py_marker(&t, end) == -1)
					goto out;
				walk_cut = false;
			} else if (pf_buf_append(&t, b->data + pl->ev_at[g],
			    pl->ev_end[g] - pl->ev_at[g]) == -1)
				goto out;
		}
		if (copy_kept(&t, b, pl, at, b->len) == -1)
			goto out;
		/* The outer groups a cut native stack did not reach end it. */
		for (g = nev; g < ngroups; g++)
			for (i = first[g]; i < first[g + 1]; i++)
				if (py_line(&t, py, pf_pyrec_frame(fr, i)) == -1)
					goto out;
		if (walk_cut) {
			for (i = first[ngroups]; i < n; i++)
				if (py_line(&t, py, pf_pyrec_frame(fr, i)) == -1)
					goto out;
			if (py_marker(&t, end) == -1)
				goto out;
		}
	}
	b->len = start;
	if (pf_buf_append(b, t.data, t.len) == -1)
		goto out;
	rc = PF_PY_MERGE_DONE;
	goto out;
mismatch:
	if (pf_buf_printf(b, "\t%16x [py-mismatch] ([unknown])\n", 0) == -1)
		goto out;
	rc = PF_PY_MERGE_MISMATCH;
out:
	pf_buf_free(&t);
	if (rc == -1)
		errno = ENOMEM;
	return rc;
}

int
pf_replay_format(struct pf_symbolizer *sym, struct pf_comms *comms,
    const struct pf_pyrec *py, const struct pf_rawsample *s, uint64_t period,
    const char *evname, struct pf_buf *b, struct pf_stack_end *end)
{
	static struct py_lines pl;
	bool merging = py != NULL && s->py != PF_PYREC_NONE, trunc = false;
	size_t start;
	const char *ips = (const char *)(s + 1);
	char cbuf[32], tbuf[32];
	const char *comm = pf_comms_get(comms, s->pid, s->tid, cbuf, sizeof(cbuf));
	bool kernel = false, first_in_ctx = true, user_mapped = false, cut = false;
	bool user = false, entry = false;
	enum pf_incomplete why = PF_INCOMPLETE_NO_UNWIND;
	int bad = 0;	/* an append that ran out of memory */
	uint32_t i, nentries = 0;

	snprintf(tbuf, sizeof(tbuf), "%llu.%06llu",
	    (unsigned long long)(s->time / 1000000000ULL),
	    (unsigned long long)(s->time % 1000000000ULL / 1000));
	/*
	 * PID/TID, as perf script -F pid,tid prints it: with the pid in the
	 * stream, pf-fold --pid and --filter-pid work for every thread of a
	 * multi-process recording, not only for main threads.
	 */
	bad |= pf_name_escape_str(b, comm, PF_ESC_COMM) == -1;
	bad |= pf_buf_printf(b, " %5u/%-5u [%03u] %12s: %10llu %s: \n", s->pid, s->tid,
	    s->cpu, tbuf, (unsigned long long)period, evname) == -1;
	start = b->len;
	pl.nev = pl.ndrop = 0;
	pl.ev_over = false;
	for (i = 0; i < s->nr; i++) {
		struct pf_frame_in in;
		struct pf_frame_out out;
		uint64_t ip;
		size_t j;

		memcpy(&ip, ips + (size_t)i * 8, sizeof(ip));
		if (ip == PF_RAWREC_TRUNCATED) {
			bad |= pf_buf_printf(b, "\t%16x [truncated] ([unknown])\n", 0) == -1;
			why = PF_INCOMPLETE_STACK_COPY;
			trunc = true;
		} else if (ip == PF_RAWREC_BUDGET) {
			/* After the last frame: a stack that reached its entry lost nothing. */
			if (!entry)
				bad |= pf_buf_printf(b, "\t%16x [budget] ([unknown])\n", 0) == -1;
			why = PF_INCOMPLETE_BUDGET;
		} else if (ip == PF_RAWREC_UNREADABLE)
			why = PF_INCOMPLETE_UNREADABLE;
		else if (ip == PF_RAWREC_OUTERMOST)
			entry = true;
		else
			nentries++;	/* the kernel's: an address or a context marker */
		if (chain_marker(ip, &kernel, &first_in_ctx))
			continue;
		in.addr = ip;
		in.kernel = kernel;
		/* The first address of a context is where it was interrupted. */
		in.retaddr = !first_in_ctx;
		first_in_ctx = false;
		pf_sym_frame(sym, (pid_t)s->pid, &in, &out);
		/*
		 * A user return address outside every executable mapping (and
		 * no JIT symbol) is not one: a frame-pointer walk went through
		 * code that uses rbp as a general register, and all it reads
		 * from there on is data.  The rest of the chain is dropped for
		 * one marker.  An address in anonymous executable memory is
		 * code (a JIT's, named or not) and goes on.  Only where the
		 * interrupted address itself was mapped: a process whose
		 * mappings are unknown is left alone.
		 */
		if (!kernel && !in.retaddr)
			user_mapped = out.mapped || out.dso != NULL;
		else if (!kernel && user_mapped && !out.mapped && out.dso == NULL &&
		    out.sym == NULL) {
			bad |= pf_buf_printf(b, "\t%16x [unknown-chain] ([unknown])\n", 0) == -1;
			cut = true;
			break;
		}
		if (!kernel) {
			user = true;
			entry = entry || pf_entry_frame(out.sym);
		}
		/*
		 * Each function inlined here is a frame of its own above the
		 * one it was inlined into, as perf prints them: the same
		 * address and offset, "(inlined)" where the DSO goes.
		 */
		for (j = 0; j < out.ninl; j++) {
			entry = entry || (!kernel && pf_entry_frame(out.inl[j]));
			bad |= pf_buf_printf(b, "\t%16llx ", (unsigned long long)out.addr) == -1;
			bad |= pf_name_escape_str(b, out.inl[j], 0) == -1;
			bad |= pf_buf_printf(b, "+0x%llx (inlined)\n", (unsigned long long)out.off) == -1;
		}
		if (merging && !kernel && eval_frame(out.sym)) {
			if (pl.nev < PF_PY_MERGE_MAX)
				pl.ev_at[pl.nev] = b->len;
			else
				pl.ev_over = true;
		} else if (merging && !kernel && out.sym != NULL && strncmp(out.sym, "py::", 4) == 0 &&
		    pl.ndrop < PF_PY_MERGE_MAX)
			pl.drop_at[pl.ndrop] = b->len;
		bad |= pf_buf_printf(b, "\t%16llx ", (unsigned long long)out.addr) == -1;
		if (out.sym) {
			bad |= pf_name_escape_str(b, out.sym, 0) == -1;
			bad |= pf_buf_printf(b, "+0x%llx (", (unsigned long long)out.off) == -1;
		} else
			bad |= pf_buf_puts(b, "[unknown] (") == -1;
		if (out.dso)
			bad |= pf_name_escape_str(b, out.dso, 0) == -1;
		else
			bad |= pf_buf_puts(b, "[unknown]") == -1;
		bad |= pf_buf_puts(b, ")\n") == -1;
		if (merging && !kernel && eval_frame(out.sym)) {
			if (pl.nev < PF_PY_MERGE_MAX)
				pl.ev_end[pl.nev++] = b->len;
		} else if (merging && !kernel && out.sym != NULL &&
		    strncmp(out.sym, "py::", 4) == 0 && pl.ndrop < PF_PY_MERGE_MAX)
			pl.drop_end[pl.ndrop++] = b->len;
	}
	end->py = PF_PY_MERGE_NONE;
	if (merging && !bad) {
		int m = py_merge(py, s, b, start, &pl, trunc || cut ||
		    nentries >= PF_UNWIND_MAX_FRAMES);

		if (m == -1)
			bad = 1;
		else
			end->py = m;
	}
	bad |= pf_buf_putc(b, '\n') == -1;
	if (bad) {
		errno = ENOMEM;
		return -1;
	}
	/*
	 * The user stack's end, for incomplete=: complete at an entry frame
	 * (or where the unwind met an outermost frame), and a sample without
	 * one has nothing to cut.  Else the first cause that holds: the
	 * chain cut into data, the copy or the frame limit reached (a chain
	 * of as many entries as the kernel gives, its context markers
	 * counted, was cut there: PF_REC_MAX_STACK), a file or a budget the
	 * walk stopped at; any other end is code without unwind information
	 * (a frame without a frame pointer, or no call-frame information).
	 */
	end->cut = cut;
	if (!user || entry)
		end->why = PF_INCOMPLETE_NONE;
	else if (cut)
		end->why = PF_INCOMPLETE_FP_DATA;
	else if (why == PF_INCOMPLETE_NO_UNWIND && nentries >= PF_UNWIND_MAX_FRAMES)
		end->why = PF_INCOMPLETE_STACK_COPY;
	else
		end->why = why;
	return 0;
}
