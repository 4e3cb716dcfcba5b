/*
 * pf-record: on-CPU sampling of a process, a command or the whole system
 * through perf_event_open(2), written as perf-script text under hard caps.
 *
 * The cpu-clock software event samples each target thread on every CPU
 * (one fd per CPU x thread, one ring per CPU) with frame-pointer
 * callchains.  The sampling window only drains the rings into compact raw
 * records; symbols are resolved after it (libdwfl per file, kallsyms,
 * /tmp/perf-PID.map) and the stream is written through lib/common/script,
 * which enforces the size cap and the disk floor before every write.
 * Privileged resources (events, rings, kallsyms, output, module files) are
 * opened first; then every capability is dropped and no_new_privs set.
 */
#define _GNU_SOURCE
#include <dirent.h>
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
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
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
#include "target.h"
#include "window.h"

#define FREQ_CEILING	999
#define DUR_CEILING	120
#define DUR_CEILING_ALL	30
#define SIZE_CEILING	(1ULL << 30)
#define SIZE_MIN	4096
#define RING_PAGES	128
#define MAX_STACK	127

static const char synopsis[] =
    "usage: pf-record [-F hz] [-d seconds] [-g fp] [-o file [--force]]\n"
    "                 [--max-size size] [--min-free size|N%] [--no-progress] [--stats]\n"
    "                 -p pid[,pid...] | -a | -- command [arg...]\n";

static struct {
	const char *pids;
	bool all;
	char **cmd;
	uint64_t freq;
	uint64_t duration_ns;	/* 0: the default for the mode */
	uint64_t max_size;
	uint64_t min_free_bytes;
	double min_free_pct;	/* < 0: bytes, or the default when bytes is 0 too */
	const char *output;
	bool force;
	bool progress;
	bool stats;
} opt = {
	.freq = 99,
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
	    "  -p, --pid PID[,PID...]  sample these processes (all threads, present and future)\n"
	    "  -a, --all-cpus          sample the whole system\n"
	    "  -- COMMAND [ARG...]     run COMMAND and sample it from its exec\n"
	    "  -F, --freq HZ           sampling rate (default 99, ceiling 999)\n"
	    "  -d, --duration SECONDS  window (default 15, -a 10; ceiling 120, -a 30)\n"
	    "  -g, --call-graph fp     stacks from frame pointers (the default)\n"
	    "  -o, --output FILE       write to FILE (created 0600) instead of stdout\n"
	    "      --force             replace an existing FILE\n"
	    "      --max-size SIZE     cap on the output, trailer included (default 64M, ceiling 1G)\n"
	    "      --min-free SIZE|N%%  keep this much free on the output filesystem\n"
	    "                          (default the larger of 1G and 5%%)\n"
	    "      --no-progress       no progress line on a terminal\n"
	    "      --stats             print timing and symbol-cache figures to stderr at the end\n"
	    "  -h, --help              this help\n"
	    "      --version           print the version\n");
}

static void
on_signal(int sig)
{
	got_signal = sig;
}

/* ------------------------------------------------------------------ */

struct ctx {
	struct pf_caps caps;
	long paranoid, kptr, max_rate, max_stack;
	bool kernel;
	char excluded[256];
	int kallsyms_fd;
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
	uint64_t dur_ns;
};

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
			pf_diex(PF_EXIT_FAIL, "system-wide sampling not permitted: needs CAP_PERFMON "
			    "(or CAP_SYS_ADMIN) or kernel.perf_event_paranoid <= 0 (it is %ld)",
			    c->paranoid);
		if (c->paranoid > 2)
			pf_diex(PF_EXIT_FAIL, "perf events refused: kernel.perf_event_paranoid=%ld "
			    "forbids unprivileged use: needs CAP_PERFMON (or CAP_SYS_ADMIN) or "
			    "kernel.perf_event_paranoid <= 2", c->paranoid);
		pf_diex(PF_EXIT_FAIL, "pid %d: not permitted to sample this process "
		    "(another user's or not dumpable): needs CAP_PERFMON (or CAP_SYS_ADMIN) "
		    "or CAP_SYS_PTRACE", (int)pid);
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

static void
decide_kernel(struct ctx *c)
{
	bool may = pf_may_sample_kernel(c->paranoid, &c->caps);
	int vis;

	c->kallsyms_fd = -1;
	if (!may) {
		snprintf(c->excluded, sizeof(c->excluded),
		    "kernel.perf_event_paranoid=%ld and no CAP_PERFMON or CAP_SYS_ADMIN "
		    "(kernel sampling needs one of them, or paranoid <= 1)", c->paranoid);
		return;
	}
	if ((c->kallsyms_fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(c->excluded, sizeof(c->excluded), "/proc/kallsyms: %s", strerror(errno));
		return;
	}
	vis = pf_kallsyms_fd_visible(c->kallsyms_fd);
	if (vis != 1) {
		snprintf(c->excluded, sizeof(c->excluded),
		    "/proc/kallsyms shows no addresses (kernel.kptr_restrict=%ld; "
		    "needs CAP_SYSLOG, or kptr_restrict 0 with paranoid <= 1)", c->kptr);
		close(c->kallsyms_fd);
		c->kallsyms_fd = -1;
		return;
	}
	c->kernel = true;
}

static void
write_header(struct ctx *c, struct pf_script *w, enum pf_stop *st)
{
	struct pf_buf h = { 0 };
	struct utsname u;
	struct tm tm;
	char when[32];
	size_t i;

	uname(&u);
	gmtime_r(&c->start_wall.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	pf_buf_printf(&h, "# pf-record 1 host=%s kernel=%s target=", u.nodename, u.release);
	if (opt.all)
		pf_buf_puts(&h, "all");
	else if (opt.cmd) {
		const char *b = strrchr(opt.cmd[0], '/');

		pf_buf_printf(&h, "cmd:%s", b ? b + 1 : opt.cmd[0]);
	} else
		for (i = 0; i < c->t.npids; i++)
			pf_buf_printf(&h, "%s%d", i ? "," : "pid:", (int)c->t.pids[i]);
	pf_buf_printf(&h, " freq=%llu callgraph=fp kernel-stacks=%s start=%s\n",
	    (unsigned long long)opt.freq, c->kernel ? "yes" : "no", when);
	if (!c->kernel)
		pf_buf_printf(&h, "# pf-record: kernel frames excluded: %s\n", c->excluded);
	for (i = 0; !opt.all && !opt.cmd && i < c->t.npids; i++) {
		char why[128];

		if (pf_sym_jit_vet(c->t.pids[i], why, sizeof(why)) == -1)
			pf_buf_printf(&h, "# pf-record: jit map /tmp/perf-%d.map refused: %s\n",
			    (int)c->t.pids[i], why);
	}
	pf_buf_printf(&h, "# pf-record: caps duration=%.3gs max-size=%llu min-free=%llu "
	    "rings=%zux%u pages fds=%zu\n", (double)c->dur_ns / 1e9,
	    (unsigned long long)opt.max_size,
	    (unsigned long long)(c->floor_applies ? c->min_free : 0),
	    pf_perf_nrings(c->perf), pf_perf_ring_pages(c->perf), pf_perf_nfds(c->perf));
	*st = pf_script_header(w, h.data, h.len);
	pf_buf_free(&h);
}

/*
 * The samples and the trailer; the header went out before the window (so
 * even a run stopped at once by the disk floor says what it was).
 */
static enum pf_stop
emit(struct ctx *c, struct pf_script *w, enum pf_stop st)
{
	struct pf_buf b = { 0 };
	const char *evname = c->kernel ? "cpu-clock" : "cpu-clock:u";
	enum pf_stop fin;
	uint64_t *order;
	size_t n, i;

	if ((order = pf_rawrec_sample_order(&c->rec, &n)) == NULL ||
	    pf_rawrec_replay_begin(&c->rec) == -1)
		pf_die(PF_EXIT_FAIL, "samples");
	for (i = 0; st == PF_STOP_NONE && i < n; i++) {
		const struct pf_rawsample *s = (const void *)(c->rec.samples.data + order[i]);

		pf_rawrec_replay_to(&c->rec, c->sym, &c->comms, s->time);
		pf_buf_reset(&b);
		pf_rawrec_format(c->sym, &c->comms, s, s->period, evname, &b);
		st = pf_script_sample(w, b.data, b.len);
	}
	free(order);
	pf_buf_free(&b);
	fin = pf_script_finish(w, "pf-record", c->rec.lost,
	    c->rec.throttled, c->stop);
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
	pf_script_free(w);
	return fin;
}

/* ------------------------------------------------------------------ */

static void
parse_options(int argc, char **argv)
{
	enum { OPT_FORCE = 256, OPT_MAX_SIZE, OPT_MIN_FREE, OPT_NO_PROGRESS, OPT_STATS,
	    OPT_VERSION };
	static const struct option longopts[] = {
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "call-graph", required_argument, NULL, 'g' },
		{ "duration", required_argument, NULL, 'd' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "freq", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "min-free", required_argument, NULL, OPT_MIN_FREE },
		{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t v;
	int ch;

	while ((ch = getopt_long(argc, argv, "+F:ad:g:ho:p:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'F':
			if (pf_parse_u64(optarg, 1, UINT32_MAX, &v) == -1)
				pf_usage_error(synopsis, "-F: invalid rate '%s'", optarg);
			opt.freq = v;
			break;
		case 'a':
			opt.all = true;
			break;
		case 'd':
			if (pf_parse_duration(optarg, 1000000000ULL, 1000000ULL,
			    UINT64_MAX / 2, &v) == -1)
				pf_usage_error(synopsis, "-d: invalid duration '%s'", optarg);
			opt.duration_ns = v;
			break;
		case 'g':
			if (strcmp(optarg, "dwarf") == 0)
				pf_usage_error(synopsis, "-g dwarf: not supported yet; use -g fp");
			if (strcmp(optarg, "fp") != 0)
				pf_usage_error(synopsis, "-g: unknown call graph '%s' (fp)", optarg);
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
		case OPT_MAX_SIZE:
			if (pf_parse_size(optarg, 0, UINT64_MAX, &v) == -1)
				pf_usage_error(synopsis, "--max-size: invalid size '%s'", optarg);
			opt.max_size = v;
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
	if (opt.freq > FREQ_CEILING)
		pf_usage_error(synopsis, "-F %llu: above the ceiling of %d Hz",
		    (unsigned long long)opt.freq, FREQ_CEILING);
	v = opt.all ? DUR_CEILING_ALL : DUR_CEILING;
	if (opt.duration_ns > v * 1000000000ULL)
		pf_usage_error(synopsis, "-d: %.3gs is above the ceiling of %llus%s",
		    (double)opt.duration_ns / 1e9, (unsigned long long)v,
		    opt.all ? " for -a" : "");
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
	enum pf_stop fin;
	enum pf_stop hst = PF_STOP_NONE;
	uint64_t t_end;
	struct pf_script *w;
	struct rlimit rl;
	pid_t failed;

	parse_options(argc, argv);
	/* libdwfl must never reach the network. */
	unsetenv("DEBUGINFOD_URLS");
	/* One fd per CPU x thread: a busy server needs more than the soft limit. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}

	c.dur_ns = opt.duration_ns ? opt.duration_ns : (opt.all ? 10 : 15) * 1000000000ULL;
	if (pf_sysctl_long(NULL, "sys/kernel/perf_event_paranoid", &c.paranoid) == -1)
		pf_diex(PF_EXIT_FAIL, "perf events not available: "
		    "/proc/sys/kernel/perf_event_paranoid: %s", strerror(errno));
	if (pf_sysctl_long(NULL, "sys/kernel/kptr_restrict", &c.kptr) == -1)
		c.kptr = 2;
	if (pf_sysctl_long(NULL, "sys/kernel/perf_event_max_sample_rate", &c.max_rate) == 0 &&
	    (long)opt.freq > c.max_rate)
		pf_usage_error(synopsis, "-F %llu: above kernel.perf_event_max_sample_rate (%ld)",
		    (unsigned long long)opt.freq, c.max_rate);
	if (pf_sysctl_long(NULL, "sys/kernel/perf_event_max_stack", &c.max_stack) == -1)
		c.max_stack = MAX_STACK;
	if (pf_caps_get(&c.caps) == -1)
		pf_die(PF_EXIT_FAIL, "capabilities");
	if (opt.pids)
		parse_pids(opt.pids, &c.t);
	if (opt.all && !pf_may_sample_cpu(c.paranoid, &c.caps))
		pf_diex(PF_EXIT_FAIL, "system-wide sampling not permitted: needs CAP_PERFMON "
		    "(or CAP_SYS_ADMIN) or kernel.perf_event_paranoid <= 0 (it is %ld)", c.paranoid);
	if (!pf_may_sample_user(c.paranoid, &c.caps))
		pf_diex(PF_EXIT_FAIL, "perf events refused: kernel.perf_event_paranoid=%ld forbids "
		    "unprivileged use: needs CAP_PERFMON (or CAP_SYS_ADMIN)", c.paranoid);

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

	decide_kernel(&c);
	if (opt.cmd)
		if (pf_target_spawn(&c.t, opt.cmd) == -1)
			pf_die(PF_EXIT_FAIL, "starting %s", opt.cmd[0]);

	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = opt.freq;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	a.exclude_kernel = !c.kernel;
	a.inherit = !opt.all;
	a.enable_on_exec = opt.cmd != NULL;
	a.max_stack = (uint16_t)(c.max_stack < MAX_STACK ? c.max_stack : MAX_STACK);
	if ((c.perf = pf_perf_new(&a, RING_PAGES)) == NULL)
		pf_die(PF_EXIT_FAIL, "perf events");
	if ((c.sym = pf_sym_new(NULL)) == NULL)
		pf_die(PF_EXIT_FAIL, "symbolizer");
	c.rec.cap_bytes = opt.max_size;

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
			.duration_ns = c.dur_ns, .rate_cap = 0,
			.floor = c.floor_applies, .out_fd = c.out_fd, .min_free = c.min_free,
			.signal = &got_signal, .progress = opt.progress,
			.tool = "pf-record", .unit = "samples",
		};

		c.stop = pf_window_run(&win);
	}
	t_end = pf_now_ns();
	pf_target_kill(&c.t);

	/* Symbolize after the window: nothing heavy ran while sampling. */
	if (c.kernel && c.kallsyms_fd != -1) {
		c.ksyms = pf_kallsyms_load(c.kallsyms_fd);
		close(c.kallsyms_fd);
		pf_sym_set_kallsyms(c.sym, c.ksyms);
	}
	fin = emit(&c, w, hst);
	if (pf_sym_jit_refusal(c.sym))
		pf_warnx("JIT map refused, its frames stay [unknown]: %s", pf_sym_jit_refusal(c.sym));
	if (opt.stats) {
		struct pf_sym_stats ss;

		pf_sym_stats(c.sym, &ss);
		pf_warnx("stats: window-end-to-last-byte %.3fs samples %llu raw-bytes %zu "
		    "files %llu files-failed %llu lookups %llu cache-hits %llu",
		    (double)(pf_now_ns() - t_end) / 1e9, (unsigned long long)c.rec.nsamples,
		    c.rec.samples.len + c.rec.events.len, (unsigned long long)ss.files,
		    (unsigned long long)ss.files_failed, (unsigned long long)ss.lookups,
		    (unsigned long long)ss.cache_hits);
	}
	pf_perf_free(c.perf);
	pf_sym_free(c.sym);
	pf_kallsyms_free(c.ksyms);
	if (fin == PF_STOP_PIPE)
		exit(PF_EXIT_OK);
	if (opt.output && close(c.out_fd) == -1)
		pf_die(PF_EXIT_FAIL, "%s", opt.output);
	pf_exit_checked(pf_stop_is_cap(fin) ? PF_EXIT_FINDING : PF_EXIT_OK);
}
