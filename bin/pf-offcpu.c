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
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "kallsyms.h"
#include "msg.h"
#include "outfile.h"
#include "parse.h"
#include "perfring.h"
#include "pf.h"
#include "privs.h"
#include "rawrec.h"
#include "script.h"
#include "symbolize.h"
#include "sysctl.h"
#include "target.h"
#include "window.h"

#define DUR_DEFAULT	10
#define DUR_CEILING	60
#define RATE_DEFAULT	50000
#define SIZE_CEILING	(1ULL << 30)
#define SIZE_MIN	4096
#define RING_PAGES	256
#define MAX_STACK	127

static const char synopsis[] =
    "usage: pf-offcpu [-d seconds] [-o file [--force]] [--include-preempted]\n"
    "                 [--min-block us] [--max-block us] [--rate-cap n]\n"
    "                 [--max-size size] [--min-free size|N%] [--no-progress] [--stats]\n"
    "                 -p pid[,pid...] | -a | -- command [arg...]\n";

static struct {
	const char *pids;
	bool all;
	char **cmd;
	uint64_t duration_ns;
	uint64_t min_block_ns, max_block_ns;
	uint64_t rate_cap;
	bool include_preempted;
	uint64_t max_size;
	uint64_t min_free_bytes;
	double min_free_pct;	/* < 0: bytes, or the default when bytes is 0 too */
	const char *output;
	bool force;
	bool progress;
	bool stats;
} opt = {
	.duration_ns = DUR_DEFAULT * 1000000000ULL,
	.min_block_ns = 1000,
	.max_block_ns = UINT64_MAX,
	.rate_cap = RATE_DEFAULT,
	.max_size = 64ULL << 20,
	.min_free_pct = -1,
	.progress = true,
};

static volatile sig_atomic_t got_signal;

static void
usage(void)
{
	printf("%s", synopsis);
	printf("\n"
	    "  -p, --pid PID[,PID...]  watch these processes (all threads, present and future)\n"
	    "  -a, --all-cpus          watch the whole system\n"
	    "  -- COMMAND [ARG...]     run COMMAND and watch it from its exec\n"
	    "  -d, --duration SECONDS  window (default 10, ceiling 60)\n"
	    "      --include-preempted count time spent preempted (runnable) too\n"
	    "      --min-block US      ignore blocks shorter than US microseconds (default 1)\n"
	    "      --max-block US      ignore blocks longer than US microseconds\n"
	    "      --rate-cap N        stop above N context switches per second\n"
	    "                          (default and ceiling 50000)\n"
	    "  -o, --output FILE       write to FILE (created 0600) instead of stdout\n"
	    "      --force             replace an existing FILE\n"
	    "      --max-size SIZE     cap on the output, trailer included (default 64M, ceiling 1G)\n"
	    "      --min-free SIZE|N%%  keep this much free on the output filesystem\n"
	    "                          (default the larger of 1G and 5%%)\n"
	    "      --proc              /proc sampling fallback (not in this release)\n"
	    "      --no-progress       no progress line on a terminal\n"
	    "      --stats             print pairing and symbol-cache figures to stderr at the end\n"
	    "  -h, --help              this help\n"
	    "      --version           print the version\n");
}

static void
on_signal(int sig)
{
	got_signal = sig;
}

struct ctx {
	struct pf_caps caps;
	long paranoid, kptr, max_stack;
	int kallsyms_fd;
	bool ksyms_visible;
	struct pf_target t;
	struct pf_perf *perf;
	struct pf_symbolizer *sym;
	struct pf_kallsyms *ksyms;
	struct pf_comms comms;
	struct pf_rawrec rec;
	int out_fd;
	uint64_t min_free;
	bool floor_applies;
	enum pf_stop stop;
	struct timespec start_wall;
	/* pairing figures, for --stats */
	uint64_t paired, preempted, filtered, unpaired, idle;
};

static const char kernel_needed[] =
    "off-CPU stacks start in the kernel scheduler: needs CAP_PERFMON "
    "(or CAP_SYS_ADMIN) or kernel.perf_event_paranoid <= 1";

/* A refused perf_event_open named by what would allow it. */
static void __attribute__((noreturn))
perf_denied(struct ctx *c, pid_t pid, int e)
{
	const char *call = pf_perf_failed_call(c->perf);

	if (strcmp(call, "mmap") == 0 && e == EPERM)
		pf_diex(PF_EXIT_FAIL, "ring buffer: mmap refused by the locked-memory limit: "
		    "needs CAP_IPC_LOCK, a larger RLIMIT_MEMLOCK or kernel.perf_event_mlock_kb");
	if (e == ESRCH)
		pf_diex(PF_EXIT_FAIL, "pid %d: no such process", (int)pid);
	if (e == EACCES || e == EPERM) {
		if (opt.all)
			pf_diex(PF_EXIT_FAIL, "system-wide recording not permitted: needs CAP_PERFMON "
			    "(or CAP_SYS_ADMIN) or kernel.perf_event_paranoid <= 0 (it is %ld)",
			    c->paranoid);
		pf_diex(PF_EXIT_FAIL, "pid %d: not permitted: %s (it is %ld), and for another "
		    "user's process CAP_SYS_PTRACE", (int)pid, kernel_needed, c->paranoid);
	}
	errno = e;
	pf_die(PF_EXIT_FAIL, "%s (pid %d)", call, (int)pid);
}

static void
parse_pids(const char *s, struct pf_target *t)
{
	const char *bad;

	if (pf_target_parse_pids(t, s, &bad) == 0)
		return;
	if (errno == E2BIG)
		pf_usage_error(synopsis, "-p: more than %d pids", PF_TARGET_MAX_PIDS);
	if (bad)
		pf_usage_error(synopsis, "-p: invalid pid '%s'", bad);
	pf_usage_error(synopsis, "-p: no pid given");
}

/*
 * The window: drain, watch the clock, the targets, signals and caps.  The
 * rate cap counts switch-outs in consecutive one-second intervals and
 * stops as soon as one interval holds more than the cap.
 */
/* ------------------------------------------------------------------ */
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

/* An interval to write: the switch-out sample and its blocked time. */
struct block {
	uint64_t off, ns;
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

/* The open interval of tid (open addressing, cap a power of two). */
static struct open *
open_slot(struct open *v, size_t cap, uint32_t tid)
{
	size_t h = (tid * 2654435761u) & (cap - 1);

	while (v[h].tid && v[h].tid != tid)
		h = (h + 1) & (cap - 1);
	v[h].tid = tid;
	return &v[h];
}

static int
cmp_block(const void *a, const void *b, void *arg)
{
	const char *base = arg;
	const struct block *x = a, *y = b;
	uint64_t ta = ((const struct pf_rawsample *)(base + x->off))->time;
	uint64_t tb = ((const struct pf_rawsample *)(base + y->off))->time;

	if (ta != tb)
		return ta < tb ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The blocked intervals that pass the filters, in switch-out time order. */
static struct block *
pair(struct ctx *c, size_t *nblocks)
{
	struct pf_rawrec *r = &c->rec;
	size_t n = 0, cap = 64, i, nb = 0, off;
	struct item *it;
	struct open *slots;
	struct block *bl;
	uint64_t seq = 0;

	it = calloc(r->nsamples + r->nswitches + r->nevents + 1, sizeof(*it));
	bl = calloc(r->nsamples + 1, sizeof(*bl));
	if (it == NULL || bl == NULL)
		pf_die(PF_EXIT_FAIL, "pairing");
	for (off = 0; off < r->samples.len;) {
		const struct pf_rawsample *s = (const void *)(r->samples.data + off);

		it[n++] = (struct item){ s->time, K_SAMPLE, s->tid, off, seq++ };
		off += sizeof(*s) + (size_t)s->nr * 8;
	}
	for (off = 0; off + sizeof(struct pf_rawswitch) <= r->switches.len;
	    off += sizeof(struct pf_rawswitch)) {
		const struct pf_rawswitch *w = (const void *)(r->switches.data + off);

		it[n++] = (struct item){ w->time, w->out ? K_OUT : K_IN, w->tid, w->preempt,
		    seq++ };
	}
	for (off = 0; off < r->events.len;) {
		const struct pf_rawevent *e = (const void *)(r->events.data + off);

		if (e->type == PF_EV_EXIT)
			it[n++] = (struct item){ e->time, K_EXIT, e->tid, 0, seq++ };
		off += sizeof(*e) + e->slen + 1;
		off = (off + 7) & ~(size_t)7;
	}
	qsort(it, n, sizeof(*it), cmp_item);

	while (cap < 2 * (n + 1))
		cap *= 2;
	if ((slots = calloc(cap, sizeof(*slots))) == NULL)
		pf_die(PF_EXIT_FAIL, "pairing");
	for (i = 0; i < n; i++) {
		struct open *o;
		uint64_t ns;

		if (it[i].tid == 0) {	/* the idle task: idle is not blocked */
			c->idle += it[i].kind == K_SAMPLE;
			continue;
		}
		o = open_slot(slots, cap, it[i].tid);
		switch (it[i].kind) {
		case K_SAMPLE:
			if (o->off != UINT64_MAX && o->time)
				c->unpaired++;	/* its switch-in was lost */
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
			if (o->preempt && !opt.include_preempted)
				c->preempted++;
			else if (ns < opt.min_block_ns || ns > opt.max_block_ns)
				c->filtered++;
			else {
				bl[nb].off = o->off;
				bl[nb++].ns = ns;
				c->paired++;
			}
			o->off = UINT64_MAX;
			break;
		case K_EXIT:
			o->off = UINT64_MAX;
			break;
		}
	}
	/* Threads still off-CPU at the end: their interval has no end. */
	for (i = 0; i < cap; i++)
		if (slots[i].tid && slots[i].off != UINT64_MAX && slots[i].time)
			c->unpaired++;
	free(slots);
	free(it);
	qsort_r(bl, nb, sizeof(*bl), cmp_block, r->samples.data);
	*nblocks = nb;
	return bl;
}

/* ------------------------------------------------------------------ */

static void
write_header(struct ctx *c, struct pf_script *w, enum pf_stop *st)
{
	struct pf_buf h = { 0 };
	struct utsname u;
	struct tm tm;
	char when[32], maxb[32];
	size_t i;

	uname(&u);
	gmtime_r(&c->start_wall.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	pf_buf_printf(&h, "# pf-offcpu 1 host=%s kernel=%s target=", u.nodename, u.release);
	if (opt.all)
		pf_buf_puts(&h, "all");
	else if (opt.cmd) {
		const char *b = strrchr(opt.cmd[0], '/');

		pf_buf_printf(&h, "cmd:%s", b ? b + 1 : opt.cmd[0]);
	} else
		for (i = 0; i < c->t.npids; i++)
			pf_buf_printf(&h, "%s%d", i ? "," : "pid:", (int)c->t.pids[i]);
	if (opt.max_block_ns == UINT64_MAX)
		snprintf(maxb, sizeof(maxb), "none");
	else
		snprintf(maxb, sizeof(maxb), "%lluus",
		    (unsigned long long)(opt.max_block_ns / 1000));
	pf_buf_printf(&h, " event=offcpu-time unit=ns callgraph=fp preempted=%s "
	    "min-block=%lluus max-block=%s kernel-symbols=%s start=%s\n",
	    opt.include_preempted ? "included" : "excluded",
	    (unsigned long long)(opt.min_block_ns / 1000), maxb,
	    c->ksyms_visible ? "yes" : "no", when);
	if (!c->ksyms_visible)
		pf_buf_printf(&h, "# pf-offcpu: kernel frames unnamed: /proc/kallsyms shows no "
		    "addresses (kernel.kptr_restrict=%ld; needs CAP_SYSLOG)\n", c->kptr);
	pf_buf_printf(&h, "# pf-offcpu: caps duration=%.3gs max-size=%llu min-free=%llu "
	    "rate-cap=%llu/s rings=%zux%u pages fds=%zu\n", (double)opt.duration_ns / 1e9,
	    (unsigned long long)opt.max_size,
	    (unsigned long long)(c->floor_applies ? c->min_free : 0),
	    (unsigned long long)opt.rate_cap,
	    pf_perf_nrings(c->perf), pf_perf_ring_pages(c->perf), pf_perf_nfds(c->perf));
	*st = pf_script_header(w, h.data, h.len);
	pf_buf_free(&h);
}

/* The samples and the trailer; the header went out before the window. */
static enum pf_stop
emit(struct ctx *c, struct pf_script *w, enum pf_stop st)
{
	struct pf_buf b = { 0 };
	enum pf_stop fin;
	struct block *bl;
	size_t n, i;

	bl = pair(c, &n);
	if (pf_rawrec_replay_begin(&c->rec) == -1)
		pf_die(PF_EXIT_FAIL, "samples");
	for (i = 0; st == PF_STOP_NONE && i < n; i++) {
		const struct pf_rawsample *s = (const void *)(c->rec.samples.data + bl[i].off);

		pf_rawrec_replay_to(&c->rec, c->sym, &c->comms, s->time);
		pf_buf_reset(&b);
		pf_rawrec_format(c->sym, &c->comms, s, bl[i].ns, "offcpu-time", &b);
		st = pf_script_sample(w, b.data, b.len);
	}
	free(bl);
	pf_buf_free(&b);
	fin = pf_script_finish(w, "pf-offcpu", c->rec.lost, c->rec.throttled, c->stop);
	if (fin == PF_STOP_IO) {
		errno = pf_script_errno(w);
		pf_die(PF_EXIT_FAIL, "%s", opt.output ? opt.output : "stdout");
	}
	if (fin == PF_STOP_DISK_FULL)
		pf_warnx("%s: %s: stopped, what was written is complete up to the last sample",
		    opt.output ? opt.output : "stdout", strerror(pf_script_errno(w)));
	else if (fin == PF_STOP_SIZE_CAP)
		pf_warnx("stopped at the size cap (--max-size %llu)",
		    (unsigned long long)opt.max_size);
	else if (fin == PF_STOP_DISK_FLOOR)
		pf_warnx("stopped at the disk floor: keeping %llu bytes free (--min-free)",
		    (unsigned long long)c->min_free);
	else if (fin == PF_STOP_RATE_CAP)
		pf_warnx("stopped at the rate cap: more than %llu context switches in one "
		    "second (--rate-cap)", (unsigned long long)opt.rate_cap);
	pf_script_free(w);
	return fin;
}

/* ------------------------------------------------------------------ */

static void
parse_options(int argc, char **argv)
{
	enum { OPT_FORCE = 256, OPT_INCLUDE_PREEMPTED, OPT_MAX_BLOCK, OPT_MAX_SIZE,
	    OPT_MIN_BLOCK, OPT_MIN_FREE, OPT_NO_PROGRESS, OPT_PROC, OPT_RATE_CAP,
	    OPT_STATS, OPT_VERSION };
	static const struct option longopts[] = {
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "duration", required_argument, NULL, 'd' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "help", no_argument, NULL, 'h' },
		{ "include-preempted", no_argument, NULL, OPT_INCLUDE_PREEMPTED },
		{ "max-block", required_argument, NULL, OPT_MAX_BLOCK },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "min-block", required_argument, NULL, OPT_MIN_BLOCK },
		{ "min-free", required_argument, NULL, OPT_MIN_FREE },
		{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "proc", no_argument, NULL, OPT_PROC },
		{ "rate-cap", required_argument, NULL, OPT_RATE_CAP },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t v;
	int ch;

	while ((ch = getopt_long(argc, argv, "+ad:ho:p:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			opt.all = true;
			break;
		case 'd':
			if (pf_parse_duration(optarg, 1000000000ULL, 1000000ULL,
			    UINT64_MAX / 2, &v) == -1)
				pf_usage_error(synopsis, "-d: invalid duration '%s'", optarg);
			opt.duration_ns = v;
			break;
		case 'h':
			usage();
			pf_exit_checked(PF_EXIT_OK);
		case 'o':
			opt.output = optarg;
			break;
		case 'p':
			opt.pids = optarg;
			break;
		case OPT_FORCE:
			opt.force = true;
			break;
		case OPT_INCLUDE_PREEMPTED:
			opt.include_preempted = true;
			break;
		case OPT_MAX_BLOCK:
			if (pf_parse_u64(optarg, 1, UINT64_MAX / 1000, &v) == -1)
				pf_usage_error(synopsis, "--max-block: invalid microseconds '%s'",
				    optarg);
			opt.max_block_ns = v * 1000;
			break;
		case OPT_MAX_SIZE:
			if (pf_parse_size(optarg, 0, UINT64_MAX, &v) == -1)
				pf_usage_error(synopsis, "--max-size: invalid size '%s'", optarg);
			opt.max_size = v;
			break;
		case OPT_MIN_BLOCK:
			if (pf_parse_u64(optarg, 0, UINT64_MAX / 1000, &v) == -1)
				pf_usage_error(synopsis, "--min-block: invalid microseconds '%s'",
				    optarg);
			opt.min_block_ns = v * 1000;
			break;
		case OPT_MIN_FREE:
			if (pf_parse_size_or_percent(optarg, &opt.min_free_bytes,
			    &opt.min_free_pct) == -1)
				pf_usage_error(synopsis, "--min-free: invalid size or percentage '%s'",
				    optarg);
			/* "0" means no floor, not the default. */
			if (opt.min_free_pct < 0 && opt.min_free_bytes == 0)
				opt.min_free_pct = 0;
			break;
		case OPT_NO_PROGRESS:
			opt.progress = false;
			break;
		case OPT_PROC:
			pf_usage_error(synopsis, "--proc: the /proc sampling fallback is not in "
			    "this release");
		case OPT_RATE_CAP:
			if (pf_parse_u64(optarg, 1, UINT64_MAX, &v) == -1)
				pf_usage_error(synopsis, "--rate-cap: invalid rate '%s'", optarg);
			if (v > RATE_DEFAULT)
				pf_usage_error(synopsis, "--rate-cap %llu: above the ceiling of %d "
				    "switches/s", (unsigned long long)v, RATE_DEFAULT);
			opt.rate_cap = v;
			break;
		case OPT_STATS:
			opt.stats = true;
			break;
		case OPT_VERSION:
			pf_print_version();
		default:
			fputs(synopsis, stderr);
			exit(PF_EXIT_USAGE);
		}
	}
	if (optind < argc)
		opt.cmd = argv + optind;
	if ((opt.pids != NULL) + opt.all + (opt.cmd != NULL) != 1)
		pf_usage_error(synopsis, "give exactly one target: -p PID, -a or -- COMMAND");
	if (opt.duration_ns > DUR_CEILING * 1000000000ULL)
		pf_usage_error(synopsis, "-d: %.3gs is above the ceiling of %ds",
		    (double)opt.duration_ns / 1e9, DUR_CEILING);
	if (opt.min_block_ns > opt.max_block_ns)
		pf_usage_error(synopsis, "--min-block is above --max-block");
	if (opt.max_size > SIZE_CEILING)
		pf_usage_error(synopsis, "--max-size %llu: above the ceiling of 1G",
		    (unsigned long long)opt.max_size);
	if (opt.max_size < SIZE_MIN)
		pf_usage_error(synopsis, "--max-size %llu: below the minimum of 4K",
		    (unsigned long long)opt.max_size);
}

int
main(int argc, char **argv)
{
	static struct ctx c;
	struct pf_perf_attr a = { 0 };
	struct sigaction sa;
	enum pf_stop fin, hst = PF_STOP_NONE;
	struct pf_script *w;
	struct rlimit rl;
	uint64_t t_end;
	pid_t failed;

	parse_options(argc, argv);
	/* libdwfl must never reach the network. */
	unsetenv("DEBUGINFOD_URLS");
	/* One fd per CPU x thread: a busy server needs more than the soft limit. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}

	if (pf_sysctl_long(NULL, "sys/kernel/perf_event_paranoid", &c.paranoid) == -1)
		pf_diex(PF_EXIT_FAIL, "perf events not available: "
		    "/proc/sys/kernel/perf_event_paranoid: %s", strerror(errno));
	if (pf_sysctl_long(NULL, "sys/kernel/kptr_restrict", &c.kptr) == -1)
		c.kptr = 2;
	if (pf_sysctl_long(NULL, "sys/kernel/perf_event_max_stack", &c.max_stack) == -1)
		c.max_stack = MAX_STACK;
	if (pf_caps_get(&c.caps) == -1)
		pf_die(PF_EXIT_FAIL, "capabilities");
	if (opt.pids)
		parse_pids(opt.pids, &c.t);
	if (!pf_may_sample_kernel(c.paranoid, &c.caps))
		pf_diex(PF_EXIT_FAIL, "%s (it is %ld)", kernel_needed, c.paranoid);
	if (opt.all && !pf_may_sample_cpu(c.paranoid, &c.caps))
		pf_diex(PF_EXIT_FAIL, "system-wide recording not permitted: needs CAP_PERFMON "
		    "(or CAP_SYS_ADMIN) or kernel.perf_event_paranoid <= 0 (it is %ld)", c.paranoid);

	/* Output first: a bad path fails before anything runs. */
	c.out_fd = STDOUT_FILENO;
	if (opt.output && (c.out_fd = pf_open_output(opt.output, opt.force)) == -1)
		pf_die(PF_EXIT_FAIL, "%s", opt.output);
	/* Where the output lands and whether the disk floor holds there. */
	c.floor_applies = pf_output_floor_or_die(c.out_fd, opt.output, opt.force,
	    opt.min_free_bytes, opt.min_free_pct, &c.min_free);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* Kernel frames are recorded either way; naming them needs kallsyms. */
	c.kallsyms_fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (c.kallsyms_fd != -1 && pf_kallsyms_fd_visible(c.kallsyms_fd) != 1) {
		close(c.kallsyms_fd);
		c.kallsyms_fd = -1;
	}
	c.ksyms_visible = c.kallsyms_fd != -1;
	if (opt.cmd && pf_target_spawn(&c.t, opt.cmd) == -1)
		pf_die(PF_EXIT_FAIL, "starting %s", opt.cmd[0]);

	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	a.period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	/* With exclude_kernel the switch-out sample is never taken at all. */
	a.exclude_kernel = false;
	a.inherit = !opt.all;
	a.enable_on_exec = opt.cmd != NULL;
	a.context_switch = true;
	a.max_stack = (uint16_t)(c.max_stack < MAX_STACK ? c.max_stack : MAX_STACK);
	if ((c.perf = pf_perf_new(&a, RING_PAGES)) == NULL)
		pf_die(PF_EXIT_FAIL, "perf events");
	if ((c.sym = pf_sym_new(NULL)) == NULL)
		pf_die(PF_EXIT_FAIL, "symbolizer");
	c.rec.cap_bytes = opt.max_size;
	c.rec.keep_switches = true;

	if (pf_target_attach(&c.t, opt.all, c.perf, c.sym, &c.comms, &failed) == -1)
		perf_denied(&c, failed, errno);

	if (pf_drop_privileges() == -1)
		pf_die(PF_EXIT_FAIL, "dropping privileges");

	clock_gettime(CLOCK_REALTIME, &c.start_wall);
	if ((w = pf_script_new(c.out_fd, opt.max_size, c.floor_applies ? c.min_free : 0)) == NULL)
		pf_die(PF_EXIT_FAIL, "output");
	write_header(&c, w, &hst);
	if (opt.cmd) {
		if (pf_target_start(&c.t) == -1)
			pf_die(PF_EXIT_FAIL, "%s", opt.cmd[0]);
	} else if (pf_perf_enable(c.perf) == -1)
		pf_die(PF_EXIT_FAIL, "enabling perf events");

	{
		struct pf_window win = {
			.perf = c.perf, .rec = &c.rec, .target = &c.t,
			.duration_ns = opt.duration_ns, .rate_cap = opt.rate_cap,
			.floor = c.floor_applies, .out_fd = c.out_fd, .min_free = c.min_free,
			.signal = &got_signal, .progress = opt.progress,
			.tool = "pf-offcpu", .unit = "switches",
		};

		c.stop = pf_window_run(&win);
	}
	t_end = pf_now_ns();
	pf_target_kill(&c.t);

	if (c.kallsyms_fd != -1) {
		c.ksyms = pf_kallsyms_load(c.kallsyms_fd);
		close(c.kallsyms_fd);
		pf_sym_set_kallsyms(c.sym, c.ksyms);
	}
	fin = emit(&c, w, hst);
	if (opt.stats) {
		struct pf_sym_stats ss;

		pf_sym_stats(c.sym, &ss);
		pf_warnx("stats: window-end-to-last-byte %.3fs switch-outs %llu switches %llu "
		    "blocks %llu preempted %llu filtered %llu unpaired %llu idle %llu "
		    "raw-bytes %zu lookups %llu cache-hits %llu",
		    (double)(pf_now_ns() - t_end) / 1e9, (unsigned long long)c.rec.nsamples,
		    (unsigned long long)c.rec.nswitches, (unsigned long long)c.paired,
		    (unsigned long long)c.preempted, (unsigned long long)c.filtered,
		    (unsigned long long)c.unpaired, (unsigned long long)c.idle,
		    c.rec.samples.len + c.rec.events.len + c.rec.switches.len,
		    (unsigned long long)ss.lookups, (unsigned long long)ss.cache_hits);
	}
	pf_perf_free(c.perf);
	pf_sym_free(c.sym);
	pf_kallsyms_free(c.ksyms);
	pf_rawrec_free(&c.rec);
	pf_comms_free(&c.comms);
	if (fin == PF_STOP_PIPE)
		exit(PF_EXIT_OK);
	if (opt.output && close(c.out_fd) == -1)
		pf_die(PF_EXIT_FAIL, "%s", opt.output);
	pf_exit_checked(pf_stop_is_cap(fin) ? PF_EXIT_FINDING : PF_EXIT_OK);
}
