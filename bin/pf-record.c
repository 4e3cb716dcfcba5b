/*
 * pf-record: on-CPU sampling of a process, a command or the whole system
 * through perf_event_open(2), written as perf-script text under hard caps.
 *
 * The cpu-clock software event samples each target thread on every CPU
 * (one fd per CPU x thread, one ring per CPU) with frame-pointer
 * callchains.  The sampling window only drains the rings into compact raw
 * records; symbols are resolved after it (libdwfl per file, kallsyms,
 * /tmp/perf-PID.map) and the stream is written through lib/common/writer,
 * which enforces the size cap and the disk floor before every write.
 * Privileged resources (events, rings, kallsyms, output, module files) are
 * opened first; then every capability is dropped and no_new_privs set.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "msg.h"
#include "parse.h"
#include "pf.h"
#include "recorder.h"

static const char synopsis[] =
    "usage: pf-record [-F hz] [-d seconds] [-g auto|fp|dwarf] [-o file [--force]]\n"
    "                 [--max-size size] [--min-free size|N%] [--no-progress] [--stats]\n"
    "                 -p pid[,pid...] | -a | --cgroup path | -- command [arg...]\n";

static uint64_t freq = PF_RECORD_FREQ_DEFAULT;
static bool kernel;		/* kernel frames sampled and named */
static char excluded[256];	/* why not */

static const char help[] =
    "\n"
    "  -p, --pid PID[,PID...]  sample these processes (all threads, present and future)\n"
    "  -a, --all-cpus          sample the whole system\n"
    "      --cgroup PATH       sample only the processes of a cgroup (a container, a\n"
    "                          systemd unit) on every CPU, as -a; PATH in the v2\n"
    "                          tree, as /proc/PID/cgroup names it\n"
    "  -- COMMAND [ARG...]     run COMMAND and sample it from its exec\n"
    "  -F, --freq HZ           sampling rate (default 99, ceiling 999)\n"
    "  -d, --duration SECONDS  window (default 15, -a 10; ceiling 120, -a 30)\n"
    "  -g, --call-graph auto   dwarf if a file the target maps has no frame pointers\n"
    "                          or is Go code, else fp; with -a, dwarf if the host's\n"
    "                          C library has none, up to 99 Hz (the default)\n"
    "  -g, --call-graph fp     stacks from frame pointers\n"
    "  -g, --call-graph dwarf  stacks unwound from a copy of the user stack with the\n"
    "                          files' unwind tables, for code without frame pointers\n"
    "                          (ceiling 99 Hz with -a)\n"
    "  -o, --output FILE       write to FILE (created 0600) instead of stdout\n"
    "      --cmd-output stderr|null\n"
    "                          where COMMAND's stdout goes (default: stderr, or stdout\n"
    "                          with -o; never into the stream)\n"
    "      --force             replace an existing FILE\n"
    "      --max-size SIZE     cap on the output, trailer included (default 64M, ceiling 1G)\n"
    "      --min-free SIZE|N%  keep this much free on the output filesystem\n"
    "                          (default the larger of 1G and 5%)\n"
    "      --no-inline         no frames for functions the compiler inlined\n"
    "      --no-python         no Python frames (read by default with -p and a command)\n"
    "      --python            Python frames under -a and --cgroup too\n"
    "      --python-lines      a Python frame's name ends in its function's first line\n"
    "      --no-progress       no progress line on a terminal\n"
    "      --stats             print timing and symbol-cache figures to stderr at the end\n"
    "  -h, --help              this help\n"
    "      --version           print the version\n";

static int
option(struct pf_recorder *r, int ch, const char *arg, struct pf_result *st)
{
	uint64_t v;

	(void)r;

	switch (ch) {
	case 'F':
		if (pf_parse_u64(arg, 1, UINT32_MAX, &v) == -1)
			return pf_result_set(st, PF_EXIT_USAGE, 0, "-F: invalid rate '%s'", arg);
		if (v > PF_RECORD_FREQ_CEILING)
			return pf_result_set(st, PF_EXIT_USAGE, 0,
			    "-F %llu: above the ceiling of %d Hz", (unsigned long long)v,
			    PF_RECORD_FREQ_CEILING);
		freq = v;
		return 0;
	}
	return 1;
}

/*
 * Every dwarf sample is unwound as it arrives: the whole system gets less
 * of that.  -g auto, which chose dwarf -a for the host's C library, takes
 * fp at a rate above dwarf's: the rate was asked for, the unwinding not.
 */
static int
check_options(struct pf_recorder *r, struct pf_result *st)
{
	if (r->callgraph == PF_CG_AUTO && r->dwarf && r->opt.all &&
	    freq > PF_RECORD_FREQ_CEILING_DWARF_ALL) {
		r->dwarf = false;
		snprintf(r->auto_why, sizeof(r->auto_why), "freq-above-dwarf-ceiling");
	}
	if (r->dwarf && r->opt.all && freq > PF_RECORD_FREQ_CEILING_DWARF_ALL)
		return pf_result_set(st, PF_EXIT_USAGE, 0,
		    "-F %llu: above the ceiling of %d Hz for -g dwarf -a",
		    (unsigned long long)freq, PF_RECORD_FREQ_CEILING_DWARF_ALL);
	return 0;
}

static int
check_privileges(struct pf_recorder *r, struct pf_result *st)
{
	if (r->max_rate >= 0 && (long)freq > r->max_rate)
		return pf_result_set(st, PF_EXIT_USAGE, 0,
		    "-F %llu: above kernel.perf_event_max_sample_rate (%ld)",
		    (unsigned long long)freq, r->max_rate);
	if (pf_recorder_check_all(r, st) == -1)
		return -1;
	if (!pf_may_sample_user(r->paranoid, &r->caps))
		return pf_result_set(st, PF_EXIT_FAIL, 0, "perf events refused: "
		    "kernel.perf_event_paranoid=%ld forbids unprivileged use: needs CAP_PERFMON "
		    "(or CAP_SYS_ADMIN)", r->paranoid);
	return 0;
}

/* Kernel frames are sampled only when they can be named too. */
static void
decide_kernel(struct pf_recorder *r)
{
	if (!pf_may_sample_kernel(r->paranoid, &r->caps)) {
		snprintf(excluded, sizeof(excluded),
		    "kernel.perf_event_paranoid=%ld and no CAP_PERFMON or CAP_SYS_ADMIN "
		    "(kernel sampling needs one of them, or paranoid <= 1)", r->paranoid);
		return;
	}
	switch (pf_recorder_open_kallsyms(r)) {
	case -1:
		snprintf(excluded, sizeof(excluded), "/proc/kallsyms: %s", strerror(errno));
		return;
	case 0:
		snprintf(excluded, sizeof(excluded),
		    "/proc/kallsyms shows no addresses (kernel.kptr_restrict=%ld; "
		    "needs CAP_SYSLOG, or kptr_restrict 0 with paranoid <= 1)", r->kptr);
		return;
	}
	kernel = true;
	r->evname = "cpu-clock";
}

static void
attr(struct pf_recorder *r, struct pf_perf_attr *a)
{
	(void)r;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->freq = freq;
	a->exclude_kernel = !kernel;
}

static void
denied(struct pf_recorder *r, pid_t pid, struct pf_result *st)
{
	if (r->paranoid > 2)
		pf_result_set(st, PF_EXIT_FAIL, 0, "perf events refused: "
		    "kernel.perf_event_paranoid=%ld forbids unprivileged use: needs CAP_PERFMON "
		    "(or CAP_SYS_ADMIN) or kernel.perf_event_paranoid <= 2", r->paranoid);
	else
		pf_result_set(st, PF_EXIT_FAIL, 0, "pid %d: not permitted to sample this process "
		    "(another user's or not dumpable): needs CAP_PERFMON (or CAP_SYS_ADMIN) "
		    "or CAP_SYS_PTRACE", (int)pid);
}

static void
header(struct pf_recorder *r, struct pf_buf *h, const char *when)
{
	pf_buf_printf(h, " freq=%llu ", (unsigned long long)freq);
	pf_recorder_callgraph(r, h);
	pf_buf_printf(h, " kernel-stacks=%s start=%s\n", kernel ? "yes" : "no", when);
	if (!kernel)
		pf_buf_printf(h, "# pf-record: kernel frames excluded: %s\n", excluded);
}

/* Every sample, in time order, with its own period. */
static struct pf_rawref *
samples(struct pf_recorder *r, size_t *n)
{
	return pf_rawrec_sample_order(&r->rec, n);
}

static void
stats(struct pf_recorder *r, struct pf_buf *b)
{
	pf_buf_printf(b, "samples %llu", (unsigned long long)r->rec.nsamples);
}

static const struct option longopts[] = {
	PF_REC_LONGOPTS,
	{ "freq", required_argument, NULL, 'F' },
	{ NULL, 0, NULL, 0 }
};

static const struct pf_recorder_ops ops = {
	.tool = &pf_rec_record, .shortopts = "+:F:" PF_REC_SHORTOPTS, .longopts = longopts,
	.say = pf_say, .option = option, .check_options = check_options,
	.check_privileges = check_privileges,
	.kernel = decide_kernel, .attr = attr, .denied = denied, .header = header,
	.samples = samples, .stats = stats,
};

int
main(int argc, char **argv)
{
	struct pf_result st;

	pf_result_exit(pf_recorder_main(&ops, NULL, argc, argv, &st), synopsis, help);
}
