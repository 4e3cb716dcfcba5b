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
 * the sample's period with event name offcpu-time.  Up to the rate cap the
 * window itself only drains rings; pairing, symbols and text come after
 * it.  Above the cap the intervals are paired and summed per thread and
 * stack during the window, so memory and output stay bounded.
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
    "usage: pf-offcpu [-d seconds] [-g fp|dwarf|auto] [-o file [--force]] [--include-preempted]\n"
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
    "  -g, --call-graph auto   dwarf if a file the target maps has no frame pointers,\n"
    "                          else fp; fp with -a\n"
    "      --include-preempted count time spent preempted (runnable) too\n"
    "      --min-block US      ignore blocks shorter than US microseconds (default 1)\n"
    "      --max-block US      ignore blocks longer than US microseconds\n"
    "      --rate-cap N        above N context switches per second, sum blocked\n"
    "                          time per thread and stack (default and ceiling 50000)\n"
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
	pf_buf_puts(h, " event=offcpu-time unit=ns ");
	pf_recorder_callgraph(r, h);
	pf_buf_printf(h, " preempted=%s min-block=%lluus max-block=%s kernel-symbols=%s "
	    "above-rate-cap=sum start=%s\n", include_preempted ? "included" : "excluded",
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
 *
 * Up to the rate cap this happens once, after the window, and each
 * interval is one sample.  Above it (over_rate) the records are paired
 * during the window, after every drain, up to the newest time the
 * previous drain saw (every ring has passed it since), and each interval
 * is added to the sum of its thread and stack: the records paired are
 * dropped, so what is kept grows with the distinct stacks and the records
 * of one drain, not with the switches.  The whole window is summed then,
 * not only its part above the cap, so every sample of the output means
 * the same.
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
	uint64_t time;		/* 0: no interval open */
};

/* The open intervals, one per thread seen, indexed by tid (htab.h). */
static struct {
	struct open *v;
	size_t n, cap;
	struct pf_htab index;
} opens;

/* Above the rate cap: one sample per thread and stack, with its summed time. */
static struct {
	struct pf_buf samples;	/* the first sample of each, as in pf_rawrec */
	struct pf_rawref *v;	/* its offset there, and the sum */
	size_t n, cap;
	struct pf_htab index;
} sums;

static bool aggregating;
static uint64_t seen_max;	/* the newest record time seen by the last drain */
static uint64_t folded_lo;	/* samples and exits from this time on are not paired yet */
static size_t seen_samples, seen_switches;	/* bytes of rec already looked at */

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

/* The open interval of tid, a new empty one if none.  NULL with ENOMEM. */
static struct open *
open_slot(uint32_t tid)
{
	uint64_t h = pf_hash_u64(tid);
	struct pf_htab_slot *s;

	if (opens.index.slots == NULL && pf_htab_init(&opens.index, 64) == -1)
		return NULL;
	if ((s = pf_htab_claim(&opens.index, h, pf_htab_u64_eq, NULL)) == NULL)
		return NULL;
	if (s->idx)
		return &opens.v[s->idx - 1];
	if (opens.n == opens.cap) {
		size_t c = opens.cap ? 2 * opens.cap : 64;
		struct open *v = reallocarray(opens.v, c, sizeof(*v));

		if (v == NULL)
			return NULL;
		opens.v = v;
		opens.cap = c;
	}
	opens.v[opens.n] = (struct open){ .tid = tid };
	pf_htab_set(&opens.index, s, h, opens.n);
	return &opens.v[opens.n++];
}

static bool
sum_eq(const void *arg, size_t idx)
{
	const struct pf_rawsample *a = arg;
	const struct pf_rawsample *b = (const void *)(sums.samples.data + sums.v[idx].off);

	return a->tid == b->tid && a->pid == b->pid && a->nr == b->nr &&
	    memcmp(a + 1, b + 1, (size_t)a->nr * 8) == 0;
}

/* Add ns to the sum of s's thread and stack.  -1 with ENOMEM. */
static int
sum_add(const struct pf_rawsample *s, uint64_t ns)
{
	uint64_t h = pf_hash_u64(pf_hash(s + 1, (size_t)s->nr * 8) ^
	    ((uint64_t)s->pid << 32 | s->tid));
	struct pf_htab_slot *sl;

	if (sums.index.slots == NULL && pf_htab_init(&sums.index, 1024) == -1)
		return -1;
	if ((sl = pf_htab_claim(&sums.index, h, sum_eq, s)) == NULL)
		return -1;
	if (sl->idx) {
		sums.v[sl->idx - 1].period += ns;
		return 0;
	}
	if (sums.n == sums.cap) {
		size_t c = sums.cap ? 2 * sums.cap : 1024;
		struct pf_rawref *v = reallocarray(sums.v, c, sizeof(*v));

		if (v == NULL)
			return -1;
		sums.v = v;
		sums.cap = c;
	}
	sums.v[sums.n] = (struct pf_rawref){ sums.samples.len, ns };
	if (pf_buf_append(&sums.samples, s, pf_rawsample_size(s)) == -1)
		return -1;
	pf_htab_set(&sums.index, sl, h, sums.n++);
	return 0;
}

/*
 * The records to pair, sorted: the samples and exits timed from lo to hi
 * and the switches up to hi (a switch that came late is still wanted).
 * NULL with ENOMEM.
 */
static struct item *
collect(const struct pf_rawrec *rec, uint64_t lo, uint64_t hi, size_t *np)
{
	size_t n = 0, off;
	struct item *it;
	uint64_t seq = 0;

	it = calloc(rec->samples.len / sizeof(struct pf_rawsample) + rec->switches.len /
	    sizeof(struct pf_rawswitch) + rec->nevents + 1, sizeof(*it));
	if (it == NULL)
		return NULL;
	for (off = 0; off < rec->samples.len;) {
		const struct pf_rawsample *s = pf_rawrec_sample(rec, off);

		if (s->time >= lo && s->time <= hi)
			it[n++] = (struct item){ s->time, K_SAMPLE, s->tid, off, seq++ };
		off += pf_rawsample_size(s);
	}
	for (off = 0; off + sizeof(struct pf_rawswitch) <= rec->switches.len;
	    off += sizeof(struct pf_rawswitch)) {
		const struct pf_rawswitch *w = (const void *)(rec->switches.data + off);

		if (w->time <= hi)
			it[n++] = (struct item){ w->time, w->out ? K_OUT : K_IN, w->tid,
			    w->preempt, seq++ };
	}
	for (off = 0; off < rec->events.len;) {
		const struct pf_rawevent *e = (const void *)(rec->events.data + off);

		if (e->type == PF_EV_EXIT && e->time >= lo && e->time <= hi)
			it[n++] = (struct item){ e->time, K_EXIT, e->tid, 0, seq++ };
		off += pf_rawevent_size(e);
	}
	qsort(it, n, sizeof(*it), cmp_item);
	*np = n;
	return it;
}

/*
 * Walk n sorted records through the open intervals.  Each interval that
 * passes the filters becomes bl[(*nb)++], or with bl NULL goes into its
 * sum.  -1 with ENOMEM.
 */
static int
walk(const struct pf_rawrec *rec, const struct item *it, size_t n, struct pf_rawref *bl,
    size_t *nb)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct open *o;
		uint64_t ns;

		if (it[i].tid == 0) {	/* the idle task: idle is not blocked */
			fig.idle += it[i].kind == K_SAMPLE;
			continue;
		}
		if ((o = open_slot(it[i].tid)) == NULL)
			return -1;
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
			else if (bl != NULL) {
				bl[*nb].off = o->off;
				bl[(*nb)++].period = ns;
				fig.paired++;
			} else {
				if (sum_add(pf_rawrec_sample(rec, o->off), ns) == -1)
					return -1;
				fig.paired++;
			}
			o->off = UINT64_MAX;
			break;
		case K_EXIT:
			o->off = UINT64_MAX;
			break;
		}
	}
	return 0;
}

/*
 * Above the rate cap: pair everything up to time hi into the sums, then
 * keep only what is still to pair (samples of open intervals, later
 * records).  The raw records and the sums together stay under the cap on
 * raw data (--max-size): over it the window stops at the size cap, as it
 * does up to the rate cap.  -1 with ENOMEM.
 */
static int
fold(struct pf_rawrec *rec, uint64_t hi)
{
	struct item *it;
	size_t n, off, dst;

	if ((it = collect(rec, folded_lo, hi, &n)) == NULL)
		return -1;
	if (walk(rec, it, n, NULL, NULL) == -1) {
		free(it);
		return -1;
	}
	free(it);
	folded_lo = hi == UINT64_MAX ? hi : hi + 1;
	/* Offsets only move down: each open interval's sample moves with it. */
	for (off = dst = 0; off < rec->samples.len;) {
		const struct pf_rawsample *s = pf_rawrec_sample(rec, off);
		size_t sz = pf_rawsample_size(s);
		bool keep = s->time > hi;

		if (!keep && s->tid != 0 && opens.index.slots != NULL) {
			struct pf_htab_slot *sl = pf_htab_find(&opens.index,
			    pf_hash_u64(s->tid), pf_htab_u64_eq, NULL);
			struct open *o = sl->idx ? &opens.v[sl->idx - 1] : NULL;

			if (o != NULL && o->time && o->off == off) {
				o->off = dst;
				keep = true;
			}
		}
		if (keep) {
			memmove(rec->samples.data + dst, rec->samples.data + off, sz);
			dst += sz;
		}
		off += sz;
	}
	rec->samples.len = dst;
	for (off = dst = 0; off + sizeof(struct pf_rawswitch) <= rec->switches.len;
	    off += sizeof(struct pf_rawswitch)) {
		const struct pf_rawswitch *w = (const void *)(rec->switches.data + off);

		if (w->time > hi) {
			memmove(rec->switches.data + dst, w, sizeof(*w));
			dst += sizeof(*w);
		}
	}
	rec->switches.len = dst;
	if (sums.samples.len + rec->samples.len + rec->events.len + rec->switches.len >
	    rec->cap_bytes)
		rec->over = true;
	return 0;
}

/* The newest time among the samples and switches drained since the last call. */
static uint64_t
newest(const struct pf_rawrec *rec)
{
	uint64_t t = 0;
	size_t off;

	for (off = seen_samples; off < rec->samples.len;) {
		const struct pf_rawsample *s = pf_rawrec_sample(rec, off);

		if (s->time > t)
			t = s->time;
		off += pf_rawsample_size(s);
	}
	for (off = seen_switches; off + sizeof(struct pf_rawswitch) <= rec->switches.len;
	    off += sizeof(struct pf_rawswitch)) {
		const struct pf_rawswitch *w = (const void *)(rec->switches.data + off);

		if (w->time > t)
			t = w->time;
	}
	return t;
}

/*
 * After each drain.  Rings are read in turn, each up to its end: a record
 * timed before the newest one the previous drain saw was in its ring
 * before this drain began, so everything up to that time is here.
 */
static int
drained(struct pf_recorder *r, bool last)
{
	uint64_t t = newest(&r->rec);

	if (aggregating && fold(&r->rec, last ? UINT64_MAX : seen_max) == -1)
		return -1;
	if (t > seen_max)
		seen_max = t;
	seen_samples = r->rec.samples.len;
	seen_switches = r->rec.switches.len;
	return 0;
}

/* More switches in one second than the rate cap: sum instead of stopping. */
static bool
over_rate(struct pf_recorder *r)
{
	(void)r;
	aggregating = true;
	return true;
}

/*
 * The blocked intervals that pass the filters, in switch-out time order:
 * each the switch-out sample with its blocked time as the period, or
 * above the rate cap each thread's stack with its summed time.
 */
static struct pf_rawref *
pair(struct pf_recorder *r, size_t *nblocks)
{
	struct pf_rawrec *rec = &r->rec;
	struct pf_rawref *bl;
	struct item *it = NULL;
	size_t n = 0, nb = 0, i;

	if (!aggregating) {
		if ((it = collect(rec, 0, UINT64_MAX, &n)) == NULL ||
		    (bl = calloc(rec->nsamples + 1, sizeof(*bl))) == NULL ||
		    walk(rec, it, n, bl, &nb) == -1)
			pf_die(PF_EXIT_FAIL, "pairing");
		free(it);
	} else {
		/* The last drain folded everything; the sums become the samples. */
		pf_buf_free(&rec->samples);
		rec->samples = sums.samples;
		sums.samples = (struct pf_buf){ 0 };
		if ((bl = calloc(sums.n + 1, sizeof(*bl))) == NULL)
			pf_die(PF_EXIT_FAIL, "pairing");
		nb = sums.n;
		memcpy(bl, sums.v, nb * sizeof(*bl));
		r->aggregated = true;
		r->naggregated = fig.paired;
		pf_warnx("more than %llu context switches in one second: the blocked time "
		    "of the whole window is summed per thread and stack (--rate-cap)",
		    (unsigned long long)r->rate_cap);
	}
	/* Threads still off-CPU at the end: their interval has no end. */
	for (i = 0; i < opens.n; i++)
		if (opens.v[i].off != UINT64_MAX && opens.v[i].time)
			fig.unpaired++;
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
	.drained = drained, .over_rate = over_rate,
};

int
main(int argc, char **argv)
{
	struct pf_result st;

	pf_result_exit(pf_recorder_main(&ops, argc, argv, &st), synopsis, help);
}
