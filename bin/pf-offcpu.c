/*
 * pf-offcpu: off-CPU (blocked) time of a process, a command or the whole
 * system, per stack, through perf_event_open(2) and without BPF, written
 * as perf-script text under the same hard caps as pf-record.
 *
 * A context-switch software event with period 1 samples each target
 * thread as it switches out (the stack then starts in the scheduler, so
 * kernel sampling permission is required); context_switch=1 adds a
 * PERF_RECORD_SWITCH record at every switch-out (which says whether the
 * thread was preempted) and switch-in.  After the window the per-CPU
 * records are merged by time and each switch-out sample is paired with the
 * thread's next switch-in: the difference is the blocked time, written as
 * the sample's period with event name offcpu-time.  The window itself only
 * drains rings; pairing, symbols and text come after it.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "htab.h"
#include "msg.h"
#include "parse.h"
#include "pf.h"
#include "recorder.h"

static const char synopsis[] =
    "usage: pf-offcpu [-d seconds] [-g fp|dwarf] [-o file [--force]] [--include-preempted]\n"
    "                 [--min-block us] [--max-block us] [--rate-cap n]\n"
    "                 [--max-size size] [--min-free size|N%] [--no-progress] [--stats]\n"
    "                 -p pid[,pid...] | -a | -- command [arg...]\n";

enum { OPT_INCLUDE_PREEMPTED = PF_REC_OPT_TOOL, OPT_MAX_BLOCK, OPT_MIN_BLOCK, OPT_PROC,
    OPT_RATE_CAP };

static bool include_preempted;
static uint64_t min_block_ns = 1000, max_block_ns = UINT64_MAX;
static bool ksyms_visible;

/* Pairing figures, for --stats. */
static struct {
	uint64_t paired, preempted, filtered, unpaired, idle;
} fig;

static const char kernel_needed[] =
    "off-CPU stacks start in the kernel scheduler: needs CAP_PERFMON "
    "(or CAP_SYS_ADMIN) or kernel.perf_event_paranoid <= 1";

static const char help[] =
    "\n"
    "  -p, --pid PID[,PID...]  watch these processes (all threads, present and future)\n"
    "  -a, --all-cpus          watch the whole system\n"
    "  -- COMMAND [ARG...]     run COMMAND and watch it from its exec\n"
    "  -d, --duration SECONDS  window (default 10, ceiling 60)\n"
    "  -g, --call-graph fp     user stacks from frame pointers (the default)\n"
    "  -g, --call-graph dwarf  user stacks unwound from a copy of the user stack with\n"
    "                          the files' unwind tables, for code without frame pointers\n"
    "      --include-preempted count time spent preempted (runnable) too\n"
    "      --min-block US      ignore blocks shorter than US microseconds (default 1)\n"
    "      --max-block US      ignore blocks longer than US microseconds\n"
    "      --rate-cap N        stop above N context switches per second\n"
    "                          (default and ceiling 50000)\n"
    "  -o, --output FILE       write to FILE (created 0600) instead of stdout\n"
    "      --cmd-output stderr|null\n"
    "                          where COMMAND's stdout goes (default: stderr, or stdout\n"
    "                          with -o; never into the stream)\n"
    "      --force             replace an existing FILE\n"
    "      --max-size SIZE     cap on the output, trailer included (default 64M, ceiling 1G)\n"
    "      --min-free SIZE|N%  keep this much free on the output filesystem\n"
    "                          (default the larger of 1G and 5%)\n"
    "      --proc              /proc sampling fallback (not in this release)\n"
    "      --no-inline         no frames for functions the compiler inlined\n"
    "      --no-progress       no progress line on a terminal\n"
    "      --stats             print pairing and symbol-cache figures to stderr at the end\n"
    "  -h, --help              this help\n"
    "      --version           print the version\n";

/* Microseconds from the command line, kept in nanoseconds. */
static int
parse_us(const char *name, const char *arg, uint64_t min, uint64_t *ns, struct pf_result *st)
{
	uint64_t v;

	if (pf_parse_u64(arg, min, UINT64_MAX / 1000, &v) == -1)
		return pf_result_set(st, PF_EXIT_USAGE, 0, "%s: invalid microseconds '%s'", name,
		    arg);
	*ns = v * 1000;
	return 0;
}

static int
option(struct pf_recorder *r, int ch, const char *arg, struct pf_result *st)
{
	uint64_t v;

	switch (ch) {
	case OPT_INCLUDE_PREEMPTED:
		include_preempted = true;
		return 0;
	case OPT_MAX_BLOCK:
		return parse_us("--max-block", arg, 1, &max_block_ns, st);
	case OPT_MIN_BLOCK:
		return parse_us("--min-block", arg, 0, &min_block_ns, st);
	case OPT_PROC:
		return pf_result_set(st, PF_EXIT_USAGE, 0, "--proc: the /proc sampling fallback "
		    "is not in this release");
	case OPT_RATE_CAP:
		if (pf_parse_u64(arg, 1, UINT64_MAX, &v) == -1)
			return pf_result_set(st, PF_EXIT_USAGE, 0, "--rate-cap: invalid rate '%s'",
			    arg);
		if (v > PF_OFFCPU_RATE_CEILING)
			return pf_result_set(st, PF_EXIT_USAGE, 0, "--rate-cap %llu: above the "
			    "ceiling of %d switches/s", (unsigned long long)v, PF_OFFCPU_RATE_CEILING);
		r->rate_cap = v;
		return 0;
	}
	return 1;
}

static int
check_options(struct pf_recorder *r, struct pf_result *st)
{
	(void)r;
	if (min_block_ns > max_block_ns)
		return pf_result_set(st, PF_EXIT_USAGE, 0, "--min-block is above --max-block");
	return 0;
}

/* The switch-out sample is taken in the kernel: kernel sampling or nothing. */
static int
check_privileges(struct pf_recorder *r, struct pf_result *st)
{
	if (!pf_may_sample_kernel(r->paranoid, &r->caps))
		return pf_result_set(st, PF_EXIT_FAIL, 0, "%s (it is %ld)", kernel_needed,
		    r->paranoid);
	return pf_recorder_check_all(r, st);
}

/* Kernel frames are recorded either way; naming them needs kallsyms. */
static void
decide_kernel(struct pf_recorder *r)
{
	ksyms_visible = pf_recorder_open_kallsyms(r) == 1;
}

static void
attr(struct pf_recorder *r, struct pf_perf_attr *a)
{
	(void)r;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	a->period = 1;
	/* With exclude_kernel the switch-out sample is never taken at all. */
	a->exclude_kernel = false;
	a->context_switch = true;
}

static void
denied(struct pf_recorder *r, pid_t pid, struct pf_result *st)
{
	pf_result_set(st, PF_EXIT_FAIL, 0, "pid %d: not permitted: %s (it is %ld), and for "
	    "another user's process CAP_SYS_PTRACE", (int)pid, kernel_needed, r->paranoid);
}

static void
header(struct pf_recorder *r, struct pf_buf *h, const char *when)
{
	char maxb[32];

	if (max_block_ns == UINT64_MAX)
		snprintf(maxb, sizeof(maxb), "none");
	else
		snprintf(maxb, sizeof(maxb), "%lluus", (unsigned long long)(max_block_ns / 1000));
	pf_buf_puts(h, " event=offcpu-time unit=ns callgraph=");
	if (r->dwarf)
		pf_buf_printf(h, "dwarf stack=%d", PF_REC_DWARF_STACK);
	else
		pf_buf_puts(h, "fp");
	pf_buf_printf(h, " preempted=%s min-block=%lluus max-block=%s kernel-symbols=%s "
	    "start=%s\n", include_preempted ? "included" : "excluded",
	    (unsigned long long)(min_block_ns / 1000), maxb, ksyms_visible ? "yes" : "no", when);
	if (!ksyms_visible)
		pf_buf_printf(h, "# pf-offcpu: kernel frames unnamed: /proc/kallsyms shows no "
		    "addresses (kernel.kptr_restrict=%ld; needs CAP_SYSLOG)\n", r->kptr);
}

/*
 * Pairing.  Every switch-out sample and every switch record goes into one
 * list sorted by time (a thread may leave on one CPU and come back on
 * another, so the rings only agree after the merge).  Per thread: a
 * sample opens an interval, the SWITCH-OUT record that follows it says
 * whether it was a preemption, the next SWITCH-IN closes it, an EXIT
 * record drops it.
 */

enum { K_SAMPLE, K_OUT, K_IN, K_EXIT };

struct item {
	uint64_t time;
	uint32_t kind, tid;
	uint64_t ref;		/* sample offset, or preempt flag for K_OUT */
	uint64_t seq;		/* read order, to keep ties stable */
};

struct open {
	uint32_t tid;
	bool preempt;
	uint64_t off;		/* the sample's offset; UINT64_MAX when none */
	uint64_t time;
};

static int
cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The open intervals, one per thread seen, indexed by tid (htab.h). */
struct opens {
	struct open *v;		/* room for one per item: no thread more */
	size_t n;
	struct pf_htab index;
};

/* The open interval of tid, a new empty one (off 0, time 0) if none. */
static struct open *
open_slot(struct opens *o, uint32_t tid)
{
	uint64_t h = pf_hash_u64(tid);
	struct pf_htab_slot *s = pf_htab_claim(&o->index, h, pf_htab_u64_eq, NULL);

	if (s == NULL)
		pf_die(PF_EXIT_FAIL, "pairing");
	if (s->idx)
		return &o->v[s->idx - 1];
	o->v[o->n].tid = tid;
	pf_htab_set(&o->index, s, h, o->n);
	return &o->v[o->n++];
}

/*
 * The blocked intervals that pass the filters, in switch-out time order:
 * each the switch-out sample, with its blocked time as the period.
 */
static struct pf_rawref *
pair(struct pf_recorder *r, size_t *nblocks)
{
	struct pf_rawrec *rec = &r->rec;
	size_t n = 0, i, nb = 0, off;
	struct item *it;
	struct opens opens = { 0 };
	struct pf_rawref *bl;
	uint64_t seq = 0;

	it = calloc(rec->nsamples + rec->nswitches + rec->nevents + 1, sizeof(*it));
	bl = calloc(rec->nsamples + 1, sizeof(*bl));
	if (it == NULL || bl == NULL)
		pf_die(PF_EXIT_FAIL, "pairing");
	for (off = 0; off < rec->samples.len;) {
		const struct pf_rawsample *s = pf_rawrec_sample(rec, off);

		it[n++] = (struct item){ s->time, K_SAMPLE, s->tid, off, seq++ };
		off += pf_rawsample_size(s);
	}
	for (off = 0; off + sizeof(struct pf_rawswitch) <= rec->switches.len;
	    off += sizeof(struct pf_rawswitch)) {
		const struct pf_rawswitch *w = (const void *)(rec->switches.data + off);

		it[n++] = (struct item){ w->time, w->out ? K_OUT : K_IN, w->tid, w->preempt,
		    seq++ };
	}
	for (off = 0; off < rec->events.len;) {
		const struct pf_rawevent *e = (const void *)(rec->events.data + off);

		if (e->type == PF_EV_EXIT)
			it[n++] = (struct item){ e->time, K_EXIT, e->tid, 0, seq++ };
		off += pf_rawevent_size(e);
	}
	qsort(it, n, sizeof(*it), cmp_item);

	if ((opens.v = calloc(n + 1, sizeof(*opens.v))) == NULL ||
	    pf_htab_init(&opens.index, 2 * (n + 1)) == -1)
		pf_die(PF_EXIT_FAIL, "pairing");
	for (i = 0; i < n; i++) {
		struct open *o;
		uint64_t ns;

		if (it[i].tid == 0) {	/* the idle task: idle is not blocked */
			fig.idle += it[i].kind == K_SAMPLE;
			continue;
		}
		o = open_slot(&opens, it[i].tid);
		switch (it[i].kind) {
		case K_SAMPLE:
			if (o->off != UINT64_MAX && o->time)
				fig.unpaired++;	/* its switch-in was lost */
			o->off = it[i].ref;
			o->time = it[i].time;
			o->preempt = false;
			break;
		case K_OUT:
			if (o->off != UINT64_MAX && o->time)
				o->preempt = it[i].ref != 0;
			break;
		case K_IN:
			if (o->off == UINT64_MAX || o->time == 0)
				break;
			ns = it[i].time - o->time;
			if (o->preempt && !include_preempted)
				fig.preempted++;
			else if (ns < min_block_ns || ns > max_block_ns)
				fig.filtered++;
			else {
				bl[nb].off = o->off;
				bl[nb++].period = ns;
				fig.paired++;
			}
			o->off = UINT64_MAX;
			break;
		case K_EXIT:
			o->off = UINT64_MAX;
			break;
		}
	}
	/* Threads still off-CPU at the end: their interval has no end. */
	for (i = 0; i < opens.n; i++)
		if (opens.v[i].off != UINT64_MAX && opens.v[i].time)
			fig.unpaired++;
	pf_htab_free(&opens.index);
	free(opens.v);
	free(it);
	pf_rawrec_sort(rec, bl, nb);
	*nblocks = nb;
	return bl;
}

static void
stats(struct pf_recorder *r, struct pf_buf *b)
{
	pf_buf_printf(b, "switch-outs %llu switches %llu blocks %llu preempted %llu "
	    "filtered %llu unpaired %llu idle %llu", (unsigned long long)r->rec.nsamples,
	    (unsigned long long)r->rec.nswitches, (unsigned long long)fig.paired,
	    (unsigned long long)fig.preempted, (unsigned long long)fig.filtered,
	    (unsigned long long)fig.unpaired, (unsigned long long)fig.idle);
}

static const struct option longopts[] = {
	PF_REC_LONGOPTS,
	{ "include-preempted", no_argument, NULL, OPT_INCLUDE_PREEMPTED },
	{ "max-block", required_argument, NULL, OPT_MAX_BLOCK },
	{ "min-block", required_argument, NULL, OPT_MIN_BLOCK },
	{ "proc", no_argument, NULL, OPT_PROC },
	{ "rate-cap", required_argument, NULL, OPT_RATE_CAP },
	{ NULL, 0, NULL, 0 }
};

static const struct pf_recorder_ops ops = {
	.tool = &pf_rec_offcpu, .shortopts = "+:" PF_REC_SHORTOPTS, .longopts = longopts,
	.say = pf_say, .option = option, .check_options = check_options,
	.check_privileges = check_privileges, .kernel = decide_kernel, .attr = attr,
	.denied = denied, .header = header, .samples = pair, .stats = stats,
};

int
main(int argc, char **argv)
{
	struct pf_result st;

	pf_result_exit(pf_recorder_main(&ops, argc, argv, &st), synopsis, help);
}
