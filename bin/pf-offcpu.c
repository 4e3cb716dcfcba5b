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
 * thread's next switch-in (lib/common/offcpu.h): the difference is the
 * blocked time, written as the sample's period with event name
 * offcpu-time.  Up to the rate cap the window itself only drains rings;
 * pairing, symbols and text come after it.  Above the cap the intervals
 * are paired and summed per thread and stack during the window, so memory
 * and output stay bounded.  This file holds the options, the recorder's
 * callbacks and the header; its state is main's (struct offcpu).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "offcpu.h"
#include "parse.h"
#include "pf.h"
#include "recorder.h"

static const char synopsis[] =
    "usage: pf-offcpu [-d seconds] [-g fp|dwarf|auto] [-o file [--force]] [--include-preempted]\n"
    "                 [--min-block us] [--max-block us] [--rate-cap n]\n"
    "                 [--max-size size] [--min-free size|N%] [--no-progress] [--stats]\n"
    "                 -p pid[,pid...] | -a | --cgroup path | -- command [arg...]\n";

enum { OPT_INCLUDE_PREEMPTED = PF_REC_OPT_TOOL, OPT_MAX_BLOCK, OPT_MIN_BLOCK, OPT_PROC,
    OPT_RATE_CAP };

/* The tool's state, r->tool: main's, for the one run. */
struct offcpu {
	struct pf_offcpu eng;	/* the pairing, with --include-preempted, --min/max-block */
	bool ksyms_visible;
};

static const char kernel_needed[] =
    "off-CPU stacks start in the kernel scheduler: needs CAP_PERFMON "
    "(or CAP_SYS_ADMIN) or kernel.perf_event_paranoid <= 1";

static const char help[] =
    "\n"
    "  -p, --pid PID[,PID...]  watch these processes (all threads, present and future)\n"
    "  -a, --all-cpus          watch the whole system\n"
    "      --cgroup PATH       watch only the processes of a cgroup (a container, a\n"
    "                          systemd unit) on every CPU, as -a; PATH in the v2\n"
    "                          tree, as /proc/PID/cgroup names it\n"
    "  -- COMMAND [ARG...]     run COMMAND and watch it from its exec\n"
    "  -d, --duration SECONDS  window (default 10, ceiling 60)\n"
    "  -g, --call-graph fp     user stacks from frame pointers\n"
    "  -g, --call-graph dwarf  user stacks unwound from a copy of the user stack with\n"
    "                          the files' unwind tables, for code without frame pointers\n"
    "  -g, --call-graph auto   the default: dwarf if a file the target maps has no frame\n"
    "                          pointers or is Go code, else fp; fp with -a, for a\n"
    "                          command, and for -p targets above 50000 switches a second\n"
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
    "      --no-python         no Python frames (read by default with -p and a command)\n"
    "      --python            Python frames under -a and --cgroup too\n"
    "      --python-lines      a Python frame's name ends in its function's first line\n"
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
	struct offcpu *t = r->tool;
	uint64_t v;

	switch (ch) {
	case OPT_INCLUDE_PREEMPTED:
		t->eng.include_preempted = true;
		return 0;
	case OPT_MAX_BLOCK:
		return parse_us("--max-block", arg, 1, &t->eng.max_block_ns, st);
	case OPT_MIN_BLOCK:
		return parse_us("--min-block", arg, 0, &t->eng.min_block_ns, st);
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
	const struct offcpu *t = r->tool;

	if (t->eng.min_block_ns > t->eng.max_block_ns)
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
	struct offcpu *t = r->tool;

	t->ksyms_visible = pf_recorder_open_kallsyms(r) == 1;
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
	const struct offcpu *t = r->tool;
	uint64_t max_block_ns = t->eng.max_block_ns;
	char maxb[32];

	if (max_block_ns == UINT64_MAX)
		snprintf(maxb, sizeof(maxb), "none");
	else
		snprintf(maxb, sizeof(maxb), "%lluus", (unsigned long long)(max_block_ns / 1000));
	pf_buf_puts(h, " event=offcpu-time unit=ns ");
	pf_recorder_callgraph(r, h);
	pf_buf_printf(h, " preempted=%s min-block=%lluus max-block=%s kernel-symbols=%s "
	    "above-rate-cap=sum start=%s\n", t->eng.include_preempted ? "included" : "excluded",
	    (unsigned long long)(t->eng.min_block_ns / 1000), maxb,
	    t->ksyms_visible ? "yes" : "no", when);
	if (!t->ksyms_visible)
		pf_buf_printf(h, "# pf-offcpu: kernel frames unnamed: /proc/kallsyms shows no "
		    "addresses (kernel.kptr_restrict=%ld; needs CAP_SYSLOG)\n", r->kptr);
}

/* After each drain: above the rate cap the engine pairs and sums as it goes. */
static int
drained(struct pf_recorder *r, bool last)
{
	struct offcpu *t = r->tool;

	return pf_offcpu_drained(&t->eng, &r->rec, last);
}

/* More switches in one second than the rate cap: sum instead of stopping. */
static bool
over_rate(struct pf_recorder *r)
{
	struct offcpu *t = r->tool;

	pf_offcpu_aggregate(&t->eng);
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
	struct offcpu *t = r->tool;
	struct pf_rawref *bl;

	if ((bl = pf_offcpu_blocks(&t->eng, &r->rec, nblocks)) == NULL)
		pf_die(PF_EXIT_FAIL, "pairing");
	if (t->eng.aggregating) {
		r->aggregated = true;
		r->naggregated = t->eng.fig.paired;
		pf_warnx("more than %llu context switches in one second: the blocked time "
		    "of the whole window is summed per thread and stack (--rate-cap)",
		    (unsigned long long)r->rate_cap);
	}
	return bl;
}

static void
stats(struct pf_recorder *r, struct pf_buf *b)
{
	const struct offcpu *t = r->tool;
	const struct pf_offcpu_figures *fig = &t->eng.fig;

	pf_buf_printf(b, "switch-outs %llu switches %llu blocks %llu preempted %llu "
	    "filtered %llu unpaired %llu idle %llu", (unsigned long long)r->rec.nsamples,
	    (unsigned long long)r->rec.nswitches, (unsigned long long)fig->paired,
	    (unsigned long long)fig->preempted, (unsigned long long)fig->filtered,
	    (unsigned long long)fig->unpaired, (unsigned long long)fig->idle);
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
	struct offcpu t = { .ksyms_visible = false };
	struct pf_result st;
	const struct pf_result *res;

	pf_offcpu_init(&t.eng);
	res = pf_recorder_main(&ops, &t, argc, argv, &st);
	pf_offcpu_free(&t.eng);
	pf_result_exit(res, synopsis, help);
}
