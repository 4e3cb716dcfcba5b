/*
 * recorder: the lifecycle pf-record and pf-offcpu share.  The order is
 * the safety argument: everything that needs privilege (events, rings,
 * kallsyms, the output, module files) is opened first, then every
 * capability is dropped; nothing heavy runs in the window, symbols come
 * after it; the header goes out before the window, so even a run stopped
 * at once says what it was.  The output is written under a temporary
 * name and renamed into place only once the events (or the child) have
 * started, just before the window: a start refused or failed before that
 * leaves no file and any old one untouched.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "buf.h"
#include "cgroup.h"
#include "confine.h"
#include "fileio.h"
#include "fpcheck.h"
#include "mapfile.h"
#include "msg.h"
#include "outfile.h"
#include "parse.h"
#include "pf.h"
#include "procmaps.h"
#include "procstat.h"
#include "pyrec.h"
#include "recorder.h"
#include "replay.h"
#include "spawn.h"
#include "sysctl.h"
#include "unwind.h"
#include "window.h"
#include "xmlesc.h"

#define SECOND 1000000000ULL

const struct pf_rec_tool pf_rec_record = {
	.name = "pf-record", .unit = "samples", .doing = "sampling", .evname = "cpu-clock:u",
	.ring_pages = PF_RECORD_RING_PAGES,
	.dur_default = PF_RECORD_DUR_DEFAULT, .dur_default_all = PF_RECORD_DUR_DEFAULT_ALL,
	.dur_ceiling = PF_RECORD_DUR_CEILING, .dur_ceiling_all = PF_RECORD_DUR_CEILING_ALL,
	.callgraph = PF_CG_AUTO, .auto_all = true,
	.dwarf_stack = PF_RECORD_DWARF_STACK, .dwarf_stack_all = PF_REC_DWARF_STACK,
	.py_wake_each = true,
};

const struct pf_rec_tool pf_rec_offcpu = {
	.name = "pf-offcpu", .unit = "switches", .doing = "recording", .evname = "offcpu-time",
	.ring_pages = PF_OFFCPU_RING_PAGES,
	.dur_default = PF_OFFCPU_DUR_DEFAULT, .dur_default_all = PF_OFFCPU_DUR_DEFAULT,
	.dur_ceiling = PF_OFFCPU_DUR_CEILING, .dur_ceiling_all = PF_OFFCPU_DUR_CEILING,
	.rate_cap = PF_OFFCPU_RATE_CEILING, .rate_what = "context switches",
	/*
	 * A sample at every switch: a stack copy each costs in proportion to
	 * the switch rate, so auto keeps fp above PF_OFFCPU_AUTO_RATE, and
	 * under -a.
	 */
	.callgraph = PF_CG_AUTO, .auto_rate_max = PF_OFFCPU_AUTO_RATE,
	.dwarf_stack = PF_REC_DWARF_STACK, .dwarf_stack_all = PF_REC_DWARF_STACK,
	/*
	 * A switch-out sample's thread is off a CPU: its Python frames wait
	 * for the next drain, 10 ms at most (a wake-up at every switch would
	 * cost as much as the switches).
	 */
	.py_poll_ms = 10,
};

unsigned
pf_rec_dwarf_stack(const struct pf_rec_tool *tool, bool all)
{
	return all ? tool->dwarf_stack_all : tool->dwarf_stack;
}

static volatile sig_atomic_t got_signal;

static void
on_signal(int sig)
{
	got_signal = sig;
}

static void
say(const struct pf_recorder *r, enum pf_say kind, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
say(const struct pf_recorder *r, enum pf_say kind, int err, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	r->ops->say(kind, err, text);
}

static int
common_option(struct pf_recorder *r, int ch, const char *arg, struct pf_result *st)
{
	struct pf_rec_opts *o = &r->opt;
	uint64_t v;
	int rc;

	switch (ch) {
	case 'a':
		o->all = true;
		return 0;
	case PF_REC_OPT_CGROUP:
		o->cgroup = arg;
		return 0;
	case 'd':
		if (pf_parse_duration(arg, SECOND, 1000000ULL, UINT64_MAX / 2, &v) == -1)
			return pf_result_set(st, PF_EXIT_USAGE, 0, "-d: invalid duration '%s'", arg);
		o->duration_ns = v;
		return 0;
	case 'o':
		o->output = arg;
		return 0;
	case 'p':
		o->pids = arg;
		return 0;
	case PF_REC_OPT_FORCE:
		o->force = true;
		return 0;
	case PF_REC_OPT_CMD_OUTPUT:
		if (strcmp(arg, "stderr") != 0 && strcmp(arg, "null") != 0)
			return pf_result_set(st, PF_EXIT_USAGE, 0,
			    "--cmd-output: unknown destination '%s' (stderr, null)", arg);
		o->cmd_output = arg;
		return 0;
	case PF_REC_OPT_MAX_SIZE:
		if (pf_parse_size(arg, 0, UINT64_MAX, &v) == -1)
			return pf_result_set(st, PF_EXIT_USAGE, 0, "--max-size: invalid size '%s'",
			    arg);
		o->max_size = v;
		return 0;
	case PF_REC_OPT_MIN_FREE:
		if (pf_parse_size_or_percent(arg, &o->min_free_bytes, &o->min_free_pct) == -1)
			return pf_result_set(st, PF_EXIT_USAGE, 0,
			    "--min-free: invalid size or percentage '%s'", arg);
		/* "0" means no floor, not the default. */
		if (o->min_free_pct < 0 && o->min_free_bytes == 0)
			o->min_free_pct = 0;
		return 0;
	case PF_REC_OPT_NO_PROGRESS:
		o->progress = false;
		return 0;
	case PF_REC_OPT_STATS:
		o->stats = true;
		return 0;
	case 'g':
		/*
		 * pf-offcpu too: its switch-out sample is taken in the kernel, but
		 * the user registers and stack it copies are those saved on entry.
		 */
		if (strcmp(arg, "dwarf") == 0)
			r->callgraph = PF_CG_DWARF;
		else if (strcmp(arg, "fp") == 0)
			r->callgraph = PF_CG_FP;
		else if (strcmp(arg, "auto") == 0)
			r->callgraph = PF_CG_AUTO;
		else
			return pf_result_set(st, PF_EXIT_USAGE, 0,
			    "-g: unknown call graph '%s' (fp, dwarf, auto)", arg);
		r->dwarf = r->callgraph == PF_CG_DWARF;
		return 0;
	case PF_REC_OPT_NO_INLINE:
		o->inlines = false;
		return 0;
	case PF_REC_OPT_PYTHON:
		o->python = 1;
		return 0;
	case PF_REC_OPT_NO_PYTHON:
		o->python = 0;
		return 0;
	case PF_REC_OPT_PYTHON_LINES:
		o->python_lines = true;
		return 0;
	case 'h':
		st->kind = PF_RESULT_HELP;
		return -1;
	case PF_REC_OPT_VERSION:
		st->kind = PF_RESULT_VERSION;
		return -1;
	}
	if ((rc = r->ops->option(r, ch, arg, st)) == 1)	/* getopt said why */
		return pf_result_set(st, PF_EXIT_USAGE, 0, "%s", "");
	return rc;
}

/*
 * -g auto under -a: every process on the host maps the host's C library,
 * and a sample in it (a system call's wrapper, memcpy, malloc) loses its
 * callers to a frame-pointer walk when it has none, so dwarf then (the
 * tool holds it to its -a rate).  A tool that samples at every context
 * switch keeps fp: a stack copy each is for its user to choose.
 */
static void
choose_callgraph_all(struct pf_recorder *r)
{
	char file[56];
	int rc;

	if (!r->ops->tool->auto_all) {
		snprintf(r->auto_why, sizeof(r->auto_why), "all-cpus");
		return;
	}
	rc = pf_fp_lacking_libc("/proc", file, sizeof(file));
	r->dwarf = rc == PF_FP_LACKING;
	if (r->dwarf)
		snprintf(r->auto_why, sizeof(r->auto_why), "%s:%s", pf_fp_word(rc), file);
	else if (rc == 0)
		snprintf(r->auto_why, sizeof(r->auto_why), "frame-pointers");
	else
		snprintf(r->auto_why, sizeof(r->auto_why), "all-cpus");
}

static int
parse_options(struct pf_recorder *r, int argc, char **argv, struct pf_result *st)
{
	const struct pf_recorder_ops *ops = r->ops;
	const struct pf_rec_tool *tool = ops->tool;
	struct pf_rec_opts *o = &r->opt;
	unsigned ceiling;
	int ch;

	opterr = 0;	/* one line of our own, from pf_getopt_why */
	while ((ch = getopt_long(argc, argv, ops->shortopts, ops->longopts, NULL)) != -1) {
		if (ch == '?' || ch == ':') {
			char why[256];

			return pf_result_set(st, PF_EXIT_USAGE, 0, "%s",
			    pf_getopt_why(why, sizeof(why), ops->shortopts, ch, argv));
		}
		if (common_option(r, ch, optarg, st) == -1)
			return -1;
	}
	if (optind < argc)
		o->cmd = argv + optind;
	if ((o->pids != NULL) + o->all + (o->cmd != NULL) + (o->cgroup != NULL) != 1)
		return pf_result_set(st, PF_EXIT_USAGE, 0,
		    "give exactly one target: -p PID, -a, --cgroup PATH or -- COMMAND");
	/* A cgroup is recorded on every CPU, as -a, its events counting its tasks only. */
	if (o->cgroup != NULL)
		o->all = true;
	/* -a decides here, before the tool checks its rate against -g dwarf -a. */
	if (r->callgraph == PF_CG_AUTO && o->all)
		choose_callgraph_all(r);
	if (ops->check_options && ops->check_options(r, st) == -1)
		return -1;
	ceiling = o->all ? tool->dur_ceiling_all : tool->dur_ceiling;
	if (o->duration_ns > ceiling * SECOND)
		return pf_result_set(st, PF_EXIT_USAGE, 0, "-d: %.3gs is above the ceiling of %us%s",
		    (double)o->duration_ns / 1e9, ceiling,
		    o->all && tool->dur_ceiling_all != tool->dur_ceiling ? " for -a" : "");
	if (o->max_size > PF_REC_SIZE_CEILING)
		return pf_result_set(st, PF_EXIT_USAGE, 0, "--max-size %llu: above the ceiling of 1G",
		    (unsigned long long)o->max_size);
	if (o->max_size < PF_REC_SIZE_MIN)
		return pf_result_set(st, PF_EXIT_USAGE, 0,
		    "--max-size %llu: below the minimum of 4K", (unsigned long long)o->max_size);
	r->dur_ns = o->duration_ns ? o->duration_ns :
	    (o->all ? tool->dur_default_all : tool->dur_default) * SECOND;
	return 0;
}

/*
 * Text meant for pf-fold would flood a terminal (and the sample stream
 * must hold nothing but samples): where the stream and the command's
 * output may go.
 */
static int
check_streams(struct pf_recorder *r, struct pf_result *st)
{
	const char *tool = r->ops->tool->name;

	if (r->opt.cmd_output && !r->opt.cmd)
		return pf_result_set(st, PF_EXIT_USAGE, 0, "--cmd-output: only with -- COMMAND");
	if (!r->opt.output && isatty(STDOUT_FILENO))
		return pf_result_set(st, PF_EXIT_USAGE, 0, "the stream is not for a terminal: "
		    "write it to a file with -o FILE, or pipe it: %s ... | pf-fold", tool);
	return 0;
}

/* What the command's standard output becomes: never the stream. */
static enum pf_spawn_stdout
cmd_stdout(const struct pf_recorder *r)
{
	const char *to = r->opt.cmd_output;

	if (to == NULL)
		return r->opt.output ? PF_SPAWN_STDOUT_KEEP : PF_SPAWN_STDOUT_STDERR;
	return strcmp(to, "null") == 0 ? PF_SPAWN_STDOUT_NULL : PF_SPAWN_STDOUT_STDERR;
}

static int
parse_pids(struct pf_recorder *r, struct pf_result *st)
{
	char why[sizeof(st->text)];

	if (pf_parse_pid_arg(r->opt.pids, r->t.pids, PF_TARGET_MAX_PIDS, &r->t.npids, why,
	    sizeof(why)) == 0)
		return 0;
	return pf_result_set(st, PF_EXIT_USAGE, 0, "%s", why);
}

/*
 * -g auto for a -p or -- CMD target, before anything is opened: dwarf as
 * soon as one of its executable files has no frame pointers (on Debian,
 * libc alone is enough: an fp walk from inside it loses callers, or
 * reads data as frames where it keeps data in rbp), or is Go code, whose
 * assembly keeps data in rbp.
 * A target whose mappings cannot be read is left to frame pointers:
 * the unwinder would need those mappings too.
 */
static void
choose_callgraph(struct pf_recorder *r)
{
	char file[56];
	size_t i;
	int rc = 0;

	if (r->callgraph != PF_CG_AUTO || r->opt.all)
		return;
	if (r->opt.cmd)
		rc = pf_fp_lacking_cmd(r->opt.cmd[0], file, sizeof(file));
	for (i = 0; rc <= PF_FP_WALKS && i < r->t.npids; i++) {
		int k = pf_fp_lacking_proc("/proc", r->t.pids[i], file, sizeof(file));

		if (k > PF_FP_WALKS || (k == -1 && rc == 0))
			rc = k;
	}
	r->dwarf = rc > PF_FP_WALKS;
	/*
	 * A stack copy at each switch, past the tool's rate: fp, saying the
	 * rate.  A command's rate cannot be weighed before it runs: fp (its
	 * 16 KiB copies at 100,000 switches a second filled the rings, so
	 * that the rate cap never saw the rate and the size cap stopped it).
	 */
	if (r->dwarf && r->ops->tool->auto_rate_max != 0 && r->opt.cmd != NULL) {
		r->dwarf = false;
		snprintf(r->auto_why, sizeof(r->auto_why), "switch-rate-unknown");
		return;
	}
	if (r->dwarf && r->ops->tool->auto_rate_max != 0 && r->t.npids > 0) {
		double rate = pf_switch_rate("/proc", r->t.pids, r->t.npids,
		    PF_OFFCPU_AUTO_PROBE_MS);

		if (rate > (double)r->ops->tool->auto_rate_max) {
			r->dwarf = false;
			snprintf(r->auto_why, sizeof(r->auto_why), "switch-rate:%.0f", rate);
			return;
		}
	}
	if (r->dwarf)
		snprintf(r->auto_why, sizeof(r->auto_why), "%s:%s", pf_fp_word(rc), file);
	else if (rc == -1)
		snprintf(r->auto_why, sizeof(r->auto_why), "maps-unreadable");
	else
		snprintf(r->auto_why, sizeof(r->auto_why), "frame-pointers");
}

void
pf_recorder_callgraph(const struct pf_recorder *r, struct pf_buf *h)
{
	pf_buf_puts(h, "callgraph=");
	if (r->dwarf)
		pf_buf_printf(h, "dwarf stack=%u", pf_rec_dwarf_stack(r->ops->tool, r->opt.all));
	else
		pf_buf_puts(h, "fp");
	if (r->auto_why[0] != '\0') {
		pf_buf_puts(h, " auto=");
		pf_name_escape_str(h, r->auto_why, PF_ESC_TOKEN);
	}
}

/* The kernel's settings and the caller's capabilities. */
static int
read_settings(struct pf_recorder *r, struct pf_result *st)
{
	if (pf_sysctl_long(NULL, "sys/kernel/perf_event_paranoid", &r->paranoid) == -1)
		return pf_result_set(st, PF_EXIT_FAIL, 0, "perf events not available: "
		    "/proc/sys/kernel/perf_event_paranoid: %s", strerror(errno));
	if (pf_sysctl_long(NULL, "sys/kernel/kptr_restrict", &r->kptr) == -1)
		r->kptr = 2;
	if (pf_sysctl_long(NULL, "sys/kernel/perf_event_max_sample_rate", &r->max_rate) == -1)
		r->max_rate = -1;
	if (pf_sysctl_long(NULL, "sys/kernel/perf_event_max_stack", &r->max_stack) == -1)
		r->max_stack = PF_REC_MAX_STACK;
	if (pf_caps_get(&r->caps) == -1)
		return pf_result_set(st, PF_EXIT_FAIL, errno, "capabilities");
	return 0;
}

static int
all_refused(const struct pf_recorder *r, struct pf_result *st)
{
	return pf_result_set(st, PF_EXIT_FAIL, 0, "system-wide %s not permitted: needs "
	    "CAP_PERFMON (or CAP_SYS_ADMIN) or kernel.perf_event_paranoid <= 0 (it is %ld)",
	    r->ops->tool->doing, r->paranoid);
}

int
pf_recorder_check_all(struct pf_recorder *r, struct pf_result *st)
{
	if (!r->opt.all || pf_may_sample_cpu(r->paranoid, &r->caps))
		return 0;
	return all_refused(r, st);
}

int
pf_recorder_open_kallsyms(struct pf_recorder *r)
{
	if ((r->kallsyms_fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	if (pf_kallsyms_fd_visible(r->kallsyms_fd) == 1)
		return 1;
	close(r->kallsyms_fd);
	r->kallsyms_fd = -1;
	return 0;
}

/*
 * The output first, so a bad path fails before anything runs; then where
 * it lands and whether the disk floor holds there.  It is written under a
 * temporary name beside the output (same filesystem, so the floor is
 * measured where the file will be) until publish_output: a start refused
 * or failed from here on removes that file and leaves any old one alone.
 */
static int
open_output(struct pf_recorder *r, struct pf_result *st)
{
	const struct pf_rec_opts *o = &r->opt;
	const char *name = o->output ? o->output : "stdout";
	uint64_t avail;
	int rc;

	r->out_fd = STDOUT_FILENO;
	if (o->output) {
		if (pf_outfile_open(&r->out, o->output, o->force) == -1) {
			if (o->force && (errno == EINVAL || errno == EISDIR || errno == ELOOP))
				return pf_result_set(st, PF_EXIT_FAIL, 0, "%s: %s, not a regular "
				    "file: --force replaces only a regular file", o->output,
				    pf_outfile_kind(o->output));
			if (!o->force && errno == EEXIST)
				return pf_result_set(st, PF_EXIT_FAIL, 0, "%s: %s (--force "
				    "replaces it)", o->output, strerror(EEXIST));
			return pf_result_set(st, PF_EXIT_FAIL, errno, "%s", o->output);
		}
		r->out_fd = r->out.fd;
	}
	rc = pf_output_floor(r->out_fd, o->min_free_bytes, o->min_free_pct, &r->min_free, &avail);
	if (rc == -1)
		return pf_result_set(st, PF_EXIT_FAIL, errno, "%s", name);
	if (rc != 1 || r->min_free == 0)
		return 0;
	if (avail < r->min_free)
		return pf_result_set(st, PF_EXIT_FINDING, 0, "%s: %llu bytes free, below the floor "
		    "of %llu (--min-free): not starting", name, (unsigned long long)avail,
		    (unsigned long long)r->min_free);
	r->floor_applies = true;
	return 0;
}

/*
 * The recording runs: give the output its name.  Nothing after this may
 * create or rename a file (the confinement that follows forbids it).
 */
static int
publish_output(struct pf_recorder *r, struct pf_result *st)
{
	if (r->opt.output && pf_outfile_publish(&r->out) == -1)
		return pf_result_set(st, PF_EXIT_FAIL, errno, "%s", r->opt.output);
	return 0;
}

/*
 * Out of descriptors: how many the events needed (one per online CPU per
 * thread of a -p target; per CPU for -a and a command, whose threads
 * inherit), against the hard RLIMIT_NOFILE the soft one was raised to.
 */
static int
too_many_files(const struct pf_recorder *r, int e, struct pf_result *st)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long threads = 0, need;
	struct pf_taskstat ts;
	struct rlimit rl;
	char hard[32];
	size_t i;

	for (i = 0; i < r->t.npids; i++)
		if (pf_taskstat_read("/proc", r->t.pids[i], 0, &ts) == 0 && ts.num_threads > 0)
			threads += (unsigned long long)ts.num_threads;
	if (threads == 0)
		threads = 1;
	if (ncpu < 1)
		ncpu = 1;
	need = threads * (unsigned long long)ncpu + PF_REC_FD_RESERVE;
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_max == RLIM_INFINITY)
		snprintf(hard, sizeof(hard), "unlimited");
	else
		snprintf(hard, sizeof(hard), "%llu", (unsigned long long)rl.rlim_max);
	if (e == ENFILE)
		return pf_result_set(st, PF_EXIT_FAIL, 0, "perf_event_open: the system's file "
		    "table is full (fs.file-max) with %llu descriptors needed (%llu threads x "
		    "%ld CPUs, and %d of its own; RLIMIT_NOFILE hard limit %s)", need, threads,
		    ncpu, PF_REC_FD_RESERVE, hard);
	return pf_result_set(st, PF_EXIT_FAIL, 0, "perf_event_open: too many open files: "
	    "%llu descriptors needed (%llu threads x %ld CPUs, and %d of its own), above "
	    "RLIMIT_NOFILE's hard limit %s: raise the hard limit: prlimit --nofile=%llu:%llu "
	    "-p $$ or ulimit -Hn %llu as root", need, threads, ncpu, PF_REC_FD_RESERVE, hard,
	    need, need, need);
}

/* A refused perf_event_open named by what would allow it. */
static int
denied(struct pf_recorder *r, pid_t pid, int e, struct pf_result *st)
{
	const char *call = pf_perf_failed_call(r->perf);

	if (strcmp(call, "mmap") == 0 && e == EPERM)
		return pf_result_set(st, PF_EXIT_FAIL, 0, "ring buffer: mmap refused by the "
		    "locked-memory limit: needs CAP_IPC_LOCK, a larger RLIMIT_MEMLOCK or "
		    "kernel.perf_event_mlock_kb");
	if (e == ESRCH)
		return pf_result_set(st, PF_EXIT_FAIL, 0, "pid %d: no such process", (int)pid);
	if (e == EMFILE || e == ENFILE)
		return too_many_files(r, e, st);
	if (e == EACCES || e == EPERM) {
		if (r->opt.all)
			return all_refused(r, st);
		r->ops->denied(r, pid, st);
		return -1;
	}
	return pf_result_set(st, PF_EXIT_FAIL, e, "%s (pid %d)", call, (int)pid);
}

/* Whether the Python frames are read: --python, or by default for -p and a command. */
static bool
python_on(const struct pf_recorder *r)
{
	if (r->opt.python >= 0)
		return r->opt.python == 1;
	return !r->opt.all && r->cgroup_fd == -1;
}

/*
 * The interpreters already running in the targets (every process's with
 * -a), which no MMAP2 record will announce: their executable file
 * mappings, as /proc/PID/maps lists them.
 */
struct py_maps_arg {
	struct pf_pyrec *py;
	pid_t pid;
};

static int
py_map(const struct pf_maps_entry *e, void *arg)
{
	const struct py_maps_arg *a = arg;

	if (e->exec && pf_maps_file_path(e->path))
		(void)pf_pyrec_map(a->py, a->pid, e->start, e->end, e->pgoff, e->path, e->ino, 0);
	return 0;
}

static void
py_maps_of(struct pf_recorder *r, pid_t pid)
{
	struct py_maps_arg a = { r->rec.py, pid };
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	(void)pf_maps_read(fd, py_map, &a);
	close(fd);
}

/*
 * The targets' own executables (-p: as /proc says; a command: where
 * execvp will find it), probed for an interpreter whatever their names:
 * not under -a and --cgroup, where that would be every program's.
 */
static void
py_exes(struct pf_recorder *r)
{
	char link[64], path[PATH_MAX];
	ssize_t n;
	size_t i;

	if (r->opt.all || r->cgroup_fd != -1)
		return;
	for (i = 0; i < r->t.npids; i++) {
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)r->t.pids[i]);
		if ((n = readlink(link, path, sizeof(path) - 1)) <= 0)
			continue;
		path[n] = '\0';
		(void)pf_pyrec_exe(r->rec.py, r->t.pids[i], path);
	}
	if (r->opt.cmd != NULL && r->t.child > 0 && pf_spawn_path(r->opt.cmd[0], path) == 0)
		(void)pf_pyrec_exe(r->rec.py, r->t.child, path);
}

static void
py_maps(struct pf_recorder *r)
{
	struct dirent *d;
	DIR *dir;
	size_t i;

	for (i = 0; i < r->t.npids; i++)
		py_maps_of(r, r->t.pids[i]);
	if (!r->opt.all || (dir = opendir("/proc")) == NULL)
		return;
	while ((d = readdir(dir)) != NULL) {
		uint64_t pid;

		if (pf_parse_u64(d->d_name, 1, INT_MAX, &pid) == 0 && pid != (uint64_t)getpid())
			py_maps_of(r, (pid_t)pid);
	}
	closedir(dir);
}

/*
 * -g dwarf: the mappings of the processes already running, which no
 * MMAP2 record will announce.  One that cannot be read is unwound from
 * the mappings it makes from now on, or falls back to frame pointers.
 */
static void
unwind_maps(struct pf_recorder *r)
{
	struct dirent *d;
	DIR *dir;
	size_t i;

	for (i = 0; i < r->t.npids; i++)
		(void)pf_unwind_load_proc(r->rec.unwind, r->t.pids[i]);
	if (!r->opt.all || (dir = opendir("/proc")) == NULL)
		return;
	while ((d = readdir(dir)) != NULL) {
		uint64_t pid;

		if (pf_parse_u64(d->d_name, 1, INT_MAX, &pid) == 0 && pid != (uint64_t)getpid())
			(void)pf_unwind_load_proc(r->rec.unwind, (pid_t)pid);
	}
	closedir(dir);
}

/*
 * The events on the targets, then the pids' mappings and thread names:
 * after the events, so a mapping made in between is in both, not neither.
 */
static int
attach(struct pf_recorder *r, struct pf_result *st)
{
	pid_t failed;
	size_t i;

	/* A zombie has no thread left: there would be nothing to sample. */
	for (i = 0; i < r->t.npids; i++)
		if (pf_pid_state(r->t.pids[i]) == 'Z')
			return pf_result_set(st, PF_EXIT_FAIL, 0, "pid %d: a zombie (it exited and "
			    "its parent has not reaped it): nothing to sample", (int)r->t.pids[i]);
	if (r->cgroup_fd != -1) {
		failed = -1;
		if (pf_perf_open_cgroup(r->perf, r->cgroup_fd) == -1)
			return denied(r, failed, errno, st);
	} else if (pf_target_attach(&r->t, r->opt.all, r->perf, &failed) == -1)
		return denied(r, failed, errno, st);
	if (r->opt.all) {
		(void)pf_sym_load_all(r->sym, "/proc");
		pf_comms_read_all(&r->comms);
	}
	if (r->rec.unwind != NULL)
		unwind_maps(r);
	for (i = 0; i < r->t.npids; i++) {
		if (pf_sym_load_proc(r->sym, "/proc", r->t.pids[i], true) == -1 && errno != ENOENT)
			say(r, PF_SAY_WARN, errno, "pid %d: maps (symbols will be missing)",
			    (int)r->t.pids[i]);
		pf_comms_read_proc(&r->comms, r->t.pids[i]);
	}
	return 0;
}

/*
 * The file helper (mapfile.h), forked before the events are opened so it
 * holds none of them, and before the drop: it keeps the capabilities
 * that reach a target's mapped files wherever they are, which the
 * recorder gives up.  None (unprivileged, or it failed): files are
 * reached by their paths, and the header says so.
 */
static void
start_helper(struct pf_recorder *r)
{
	pid_t pids[PF_REC_CGROUP_PROCS];
	char comm[16];
	size_t n = 0, i;

	for (i = 0; i < r->t.npids && n < PF_ARRAY_LEN(pids); i++)
		pids[n++] = r->t.pids[i];
	if (r->t.child > 0 && n < PF_ARRAY_LEN(pids))
		pids[n++] = r->t.child;
	/* A cgroup's processes now, and what they start: not every process's. */
	if (r->cgroup_fd != -1)
		n = pf_cgroup_procs(r->cgroup_fd, pids, PF_ARRAY_LEN(pids));
	snprintf(comm, sizeof(comm), "%s-files", r->ops->tool->name);
	/*
	 * Memory it reads for the unwinder (a JIT's trampolines) and the
	 * Python frames: the targets' (and their descendants') with -p and a
	 * command; under -a and --cgroup no one's, unless --python asks: then
	 * every process it answers for.
	 */
	if ((r->mf = pf_mapfiles_start(pids, n, r->opt.all && r->cgroup_fd == -1,
	    !r->opt.all && r->cgroup_fd == -1 ? PF_MAPFILES_MEM_TARGETS : python_on(r) ?
	    PF_MAPFILES_MEM_ALL : PF_MAPFILES_MEM_NONE, comm)) == NULL)
		r->mf_err = errno;
}

/* --cgroup PATH: its directory, opened before anything else is. */
static int
open_cgroup(struct pf_recorder *r, struct pf_result *st)
{
	if (r->opt.cgroup == NULL)
		return 0;
	if ((r->cgroup_fd = pf_cgroup_open_target("/sys", r->opt.cgroup, r->cgroup_dir,
	    sizeof(r->cgroup_dir))) != -1)
		return 0;
	if (errno == EINVAL)
		return pf_result_set(st, PF_EXIT_USAGE, 0, "--cgroup %s: a path with '..' in it "
		    "is refused", r->opt.cgroup);
	return pf_result_set(st, PF_EXIT_USAGE, 0, "--cgroup %s: no such cgroup in the v2 tree "
	    "(/sys/fs/cgroup, or /sys/fs/cgroup/unified) nor in a perf_event hierarchy",
	    r->opt.cgroup);
}

/* A file mapped during the window: opened while it is mapped. */
static int
preopen_map(void *arg, pid_t pid, uint64_t start, uint64_t end, const char *path,
    uint32_t maj, uint32_t min, uint64_t ino)
{
	return pf_sym_preopen(arg, pid, start, end, path, maj, min, ino);
}

/* Events, rings and the symbolizer, everything opened before the drop. */
static int
open_events(struct pf_recorder *r, struct pf_result *st)
{
	struct pf_perf_attr a = { 0 };
	long stack = r->max_stack < PF_REC_MAX_STACK ? r->max_stack : PF_REC_MAX_STACK;

	r->ops->attr(r, &a);
	a.sample_type = PF_RAWREC_SAMPLE_TYPE;
	a.inherit = !r->opt.all;
	a.enable_on_exec = r->opt.cmd != NULL;
	a.max_stack = (uint16_t)stack;
	if (r->dwarf) {
		a.sample_type = PF_RAWREC_SAMPLE_TYPE_DWARF;
		a.regs_user = PF_UNWIND_REGS_MASK;
		a.stack_user = pf_rec_dwarf_stack(r->ops->tool, r->opt.all);
		/* The unwinder reads only the file the mapping named. */
		a.build_id = true;
		if ((r->rec.unwind = pf_unwind_new()) == NULL)
			return pf_result_set(st, PF_EXIT_FAIL, errno, "unwinder");
		pf_unwind_set_mapfiles(r->rec.unwind, r->mf);
	}
	/*
	 * Python frames are read through the helper as each sample is
	 * drained: the rings wake the reader at every sample, and clock by
	 * CLOCK_MONOTONIC, so that how late a read came can be told.
	 */
	if (python_on(r) && r->mf != NULL) {
		if ((r->rec.py = pf_pyrec_new(r->mf, r->opt.python_lines)) == NULL)
			return pf_result_set(st, PF_EXIT_FAIL, errno, "python frames");
		/*
		 * The running targets' interpreters now: none, and none is
		 * looked for, unless --python asked (then one that starts
		 * during the window is found as it maps, as a command's is).
		 */
		py_exes(r);
		py_maps(r);
		if (r->opt.cmd == NULL && r->opt.python != 1 && !pf_pyrec_found(r->rec.py)) {
			pf_pyrec_free(r->rec.py);
			r->rec.py = NULL;
		} else {
			a.clock_monotonic = true;
			a.wake_each = r->py_wake = r->ops->tool->py_wake_each;
		}
	} else if (python_on(r))
		say(r, PF_SAY_WARN, r->mf_err, "no file helper: Python frames will not be read");
	if ((r->perf = pf_perf_new(&a, r->dwarf ? PF_REC_DWARF_RING_PAGES :
	    r->ops->tool->ring_pages)) == NULL)
		return pf_result_set(st, PF_EXIT_FAIL, errno, "perf events");
	if ((r->sym = pf_sym_new(NULL)) == NULL)
		return pf_result_set(st, PF_EXIT_FAIL, errno, "symbolizer");
	pf_sym_set_inlines(r->sym, r->opt.inlines);
	/* perf script names -g dwarf stacks by their DWARF, frame-pointer ones by the symbols. */
	pf_sym_set_dwarf_names(r->sym, r->dwarf);
	pf_sym_set_mapfiles(r->sym, r->mf);
	r->rec.on_map = preopen_map;
	r->rec.on_map_arg = r->sym;
	r->rec.cap_bytes = r->opt.max_size;
	r->rec.keep_switches = a.context_switch;
	r->kernel_sampled = !a.exclude_kernel;
	return attach(r, st);
}

/*
 * Confine the rest of the run: seccomp always, Landlock where the kernel
 * has it.  Called once the output is in place (Landlock forbids renaming
 * it later) and just before the window.  Neither failure stops the run:
 * the header says what was applied.
 */
static void
confine(struct pf_recorder *r)
{
	struct pf_confine_allow *a;

#ifdef PF_SANITIZE
	/* LeakSanitizer stops the threads with ptrace at exit. */
	r->seccomp_err = pf_confine_seccomp(true) == -1 ? errno : 0;
#else
	r->seccomp_err = pf_confine_seccomp(false) == -1 ? errno : 0;
#endif
	if (r->seccomp_err)
		say(r, PF_SAY_WARN, r->seccomp_err, "seccomp filter not installed");

	if ((a = pf_confine_allow_new()) == NULL) {
		r->landlock_err = errno;
	} else {
		size_t i;

		pf_sym_foreach_file(r->sym, pf_confine_allow_mapped, a);
		if (r->opt.cmd)
			(void)pf_confine_allow_command(a, r->opt.cmd[0]);
		for (i = 0; i < r->t.npids; i++)
			pf_confine_allow_root_of(a, r->t.pids[i]);
		if (r->opt.all)
			pf_confine_allow_all_roots(a);
		if (pf_confine_allow_apply(a, &r->landlock_abi, &r->landlock_paths) == -1)
			r->landlock_err = errno;
		pf_confine_allow_free(a);
	}
	if (r->landlock_err && r->landlock_err != ENOSYS && r->landlock_err != EOPNOTSUPP)
		say(r, PF_SAY_WARN, r->landlock_err, "Landlock not applied");
#ifdef PF_TEST_HOOKS
	/* Test builds only (pf-record-hook): what can the confined run still open? */
	{
		const char *t = getenv("PF_TEST_OPEN");
		int fd;

		if (t != NULL) {
			fd = open(t, O_RDONLY | O_CLOEXEC);
			/* Through the tool's say, as every message: "prog: test-hook: ..." */
			say(r, PF_SAY_WARN, 0, "test-hook: open %s: %s", t,
			    fd == -1 ? strerrorname_np(errno) : "ok");
			if (fd != -1)
				close(fd);
		}
	}
#endif
}

#ifdef PF_TEST_HOOKS
/*
 * Test builds only (pf-record-hook): PF_TEST_ABORT=N[,ENOMEM] aborts
 * where sample N+1 is formatted, as libdw's assertion on a failed
 * allocation does there (with errno ENOMEM when asked).
 */
static void
test_abort(uint64_t written)
{
	const char *t = getenv("PF_TEST_ABORT");

	if (t == NULL || strtoull(t, NULL, 10) != written)
		return;
	errno = strstr(t, ",ENOMEM") != NULL ? ENOMEM : EINVAL;
	abort();
}
#endif

/* The header's confinement line. */
static void
confine_line(const struct pf_recorder *r, struct pf_buf *h)
{
	const char *tool = r->ops->tool->name;
	int e = r->landlock_err;

	pf_buf_printf(h, "# %s: confined seccomp=", tool);
	if (r->seccomp_err)
		pf_buf_printf(h, "no (%s: %s)", strerrorname_np(r->seccomp_err),
		    strerror(r->seccomp_err));
	else
		pf_buf_puts(h, "yes");
	if (r->landlock_abi > 0)
		pf_buf_printf(h, " landlock=abi%d paths=%zu", r->landlock_abi,
		    r->landlock_paths);
	else
		pf_buf_printf(h, " landlock=no (%s: %s)", strerrorname_np(e),
		    e == ENOSYS ? "the kernel has no Landlock" :
		    e == EOPNOTSUPP ? "Landlock is disabled on this kernel" : strerror(e));
	/* How the targets' files are reached: their mappings, or their paths. */
	if (r->mf != NULL)
		pf_buf_printf(h, " files=helper\n");
	else
		pf_buf_printf(h, " files=paths (%s: %s)\n", strerrorname_np(r->mf_err),
		    r->mf_err == EPERM ? "no capability to open another process's mappings" :
		    strerror(r->mf_err));
}

static enum pf_stop
write_header(struct pf_recorder *r, struct pf_writer *w)
{
	const struct pf_rec_opts *o = &r->opt;
	const char *tool = r->ops->tool->name;
	struct pf_buf h = { 0 };
	struct utsname u;
	struct tm tm;
	char when[32];
	enum pf_stop st;
	size_t i;

	uname(&u);
	gmtime_r(&r->start_wall.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	/*
	 * Version 2: every name in the stream is escaped (pf_name_escape);
	 * version 1 wrote them raw.
	 */
	pf_buf_printf(&h, "# %s %d host=", tool, PF_STREAM_VERSION);
	pf_name_escape_str(&h, u.nodename, PF_ESC_TOKEN);
	pf_buf_puts(&h, " kernel=");
	pf_name_escape_str(&h, u.release, PF_ESC_TOKEN);
	pf_buf_puts(&h, " target=");
	if (o->cgroup) {
		pf_buf_puts(&h, "cgroup:");
		pf_name_escape_str(&h, r->cgroup_dir, PF_ESC_TOKEN);
	} else if (o->all)
		pf_buf_puts(&h, "all");
	else if (o->cmd) {
		const char *b = strrchr(o->cmd[0], '/');

		pf_buf_puts(&h, "cmd:");
		pf_name_escape_str(&h, b ? b + 1 : o->cmd[0], PF_ESC_TOKEN);
	} else
		for (i = 0; i < r->t.npids; i++)
			pf_buf_printf(&h, "%s%d", i ? "," : "pid:", (int)r->t.pids[i]);
	r->ops->header(r, &h, when);
	/*
	 * Each pid's comm, so that what the graph names survives the pipe;
	 * never the command line, which may hold secrets.  Escaped to one
	 * token; a pid gone already has none.
	 */
	for (i = 0; !o->all && !o->cmd && i < r->t.npids; i++) {
		char path[64], comm[64];
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)r->t.pids[i]);
		if ((n = pf_read_small(path, comm, sizeof(comm))) <= 0)
			continue;
		if (comm[n - 1] == '\n')
			comm[--n] = '\0';
		if (n == 0)
			continue;
		pf_buf_printf(&h, "# %s: target pid=%d comm=", tool, (int)r->t.pids[i]);
		pf_name_escape(&h, comm, (size_t)n, PF_ESC_TOKEN);
		pf_buf_putc(&h, '\n');
	}
	/* A JIT map refused now (foreign owner, not a regular file) says so. */
	for (i = 0; !o->all && !o->cmd && i < r->t.npids; i++) {
		char why[128];

		if (pf_sym_jit_vet(r->t.pids[i], why, sizeof(why)) == -1)
			pf_buf_printf(&h, "# %s: jit map /tmp/perf-%d.map refused: %s\n", tool,
			    (int)r->t.pids[i], why);
	}
	pf_buf_printf(&h, "# %s: caps duration=%.3gs max-size=%llu min-free=%llu ", tool,
	    (double)r->dur_ns / 1e9, (unsigned long long)o->max_size,
	    (unsigned long long)(r->floor_applies ? r->min_free : 0));
	if (r->rate_cap)
		pf_buf_printf(&h, "rate-cap=%llu/s ", (unsigned long long)r->rate_cap);
	pf_buf_printf(&h, "rings=%zux%u pages fds=%zu\n", pf_perf_nrings(r->perf),
	    pf_perf_ring_pages(r->perf), pf_perf_nfds(r->perf));
	confine_line(r, &h);
	st = pf_writer_header(w, h.data, h.len);
	pf_buf_free(&h);
	return st;
}

/* --stats: the window's end to the last byte (tail, s), the tool's figures, symbols. */
static void
stats_line(struct pf_recorder *r, double tail)
{
	struct pf_sym_stats ss;
	struct pf_buf b = { 0 };
	uint64_t asked, got;
	bool broken;

	pf_sym_stats(r->sym, &ss);
	pf_buf_printf(&b, "stats: window-end-to-last-byte %.3fs ", tail);
	r->ops->stats(r, &b);
	if (r->dwarf)
		pf_buf_printf(&b, " unwound %llu unwind-ns-per-sample %.0f fp-fallbacks %llu "
		    "truncated %llu deferred %llu modules-refused %llu cfi-refused %llu",
		    (unsigned long long)r->rec.unwound,
		    r->rec.unwound ? (double)r->rec.unwind_ns / (double)r->rec.unwound : 0.0,
		    (unsigned long long)r->rec.fp_fallback, (unsigned long long)r->rec.truncated,
		    (unsigned long long)r->rec.deferred,
		    (unsigned long long)(r->rec.unwind ? pf_unwind_refused(r->rec.unwind) : 0),
		    (unsigned long long)(r->rec.unwind ? pf_unwind_cfi_refused(r->rec.unwind) : 0));
	if (r->rec.py != NULL) {
		uint64_t nlag = 0, sum = 0, over = 0;
		size_t off = 0;

		pf_pyrec_stats(r->rec.py, &b);
		/* How long after its sample a sample's Python frames were read. */
		while (off < r->rec.samples.len) {
			const struct pf_rawsample *s = pf_rawrec_sample(&r->rec, off);

			if (s->py != PF_PYREC_NONE) {
				nlag++;
				sum += s->py_lag_us;
				over += s->py_lag_us > 1000;
			}
			off += pf_rawsample_size(s);
		}
		pf_buf_printf(&b, " py-lag-us-mean %.0f py-lag-over-1ms %llu py-stale %llu",
		    nlag ? (double)sum / (double)nlag : 0.0, (unsigned long long)over,
		    (unsigned long long)r->rec.py_stale);
	}
	pf_mapfiles_stats(r->mf, &asked, &got, &broken);
	pf_buf_printf(&b, " helper-asked %llu helper-opened %llu%s",
	    (unsigned long long)asked, (unsigned long long)got, broken ? " helper-stopped" : "");
	pf_buf_printf(&b, " raw-bytes %zu files %llu files-failed %llu lookups %llu "
	    "cache-hits %llu inline-lookups %llu inline-frames %llu",
	    r->rec.samples.len + r->rec.events.len + r->rec.switches.len,
	    (unsigned long long)ss.files, (unsigned long long)ss.files_failed,
	    (unsigned long long)ss.lookups, (unsigned long long)ss.cache_hits,
	    (unsigned long long)ss.inline_lookups, (unsigned long long)ss.inline_frames);
	if (b.data != NULL)
		say(r, PF_SAY_WARN, 0, "%s", b.data);
	pf_buf_free(&b);
}

/*
 * The run's last word on stderr, as perf's: what was written, how long,
 * why it stopped, where to.  Not after EPIPE: the reader went away.
 */
static void
closing_line(struct pf_recorder *r, enum pf_stop fin, double secs)
{
	say(r, PF_SAY_WARN, 0, "%llu %s (%llu lost) in %.1fs, stop=%s, kernel frames %s, "
	    "written to %s", (unsigned long long)r->written, r->ops->tool->unit,
	    (unsigned long long)r->rec.lost, secs, pf_stop_name(fin),
	    !r->kernel_sampled ? "no" : r->ksyms != NULL ? "yes" : "unnamed",
	    r->opt.output ? r->opt.output : "stdout");
}

static void
progress(void *arg, uint64_t elapsed, bool last)
{
	const struct pf_recorder *r = arg;

	say(r, last ? PF_SAY_PROGRESS_END : PF_SAY_PROGRESS, 0, "%.1fs of %.0fs, %llu %s",
	    (double)elapsed / 1e9, (double)r->dur_ns / 1e9,
	    (unsigned long long)r->rec.nsamples, r->ops->tool->unit);
}

static int
drained(void *arg, bool last)
{
	struct pf_recorder *r = arg;

	return r->ops->drained(r, last);
}

static bool
over_rate(void *arg)
{
	struct pf_recorder *r = arg;

	return r->ops->over_rate(r);
}

/* Start the events, or let the held child exec (the events count from it). */
static int
start_recording(struct pf_recorder *r, struct pf_result *st)
{
	if (r->opt.cmd) {
		if (pf_spawn_start(&r->t) == -1)
			return pf_result_set(st, PF_EXIT_FAIL, errno, "%s", r->opt.cmd[0]);
	} else if (pf_perf_enable(r->perf) == -1)
		return pf_result_set(st, PF_EXIT_FAIL, errno, "enabling perf events");
	/*
	 * -a: every process's name, before the events start (attach) and once
	 * they record the forks and execs that change them: one that ends
	 * in the window, even at its start, is not left ":pid".
	 */
	if (r->opt.all)
		pf_comms_read_all(&r->comms);
	return 0;
}

/*
 * Confine the rest of the run, write the header (it says what the
 * confinement got) and run the window to its stop.
 */
static int
run_window(struct pf_recorder *r, struct pf_writer *w, enum pf_stop *hst,
    struct pf_result *st)
{
	struct pf_window win = {
		.perf = r->perf, .rec = &r->rec, .target = &r->t,
		.duration_ns = r->dur_ns, .rate_cap = r->rate_cap,
		.floor = r->floor_applies, .out_fd = r->out_fd, .min_free = r->min_free,
		.signal = &got_signal, .arg = r,
	};

	if (r->opt.progress && isatty(STDERR_FILENO))
		win.progress = progress;
	if (r->ops->drained)
		win.drained = drained;
	if (r->ops->over_rate)
		win.over_rate = over_rate;
	if (r->rec.py != NULL && !r->py_wake)
		win.poll_ms = r->ops->tool->py_poll_ms;
	confine(r);
	*hst = write_header(r, w);
	r->win_start = pf_now_ns();
	if (pf_window_run(&win, &r->stop) == -1)
		return pf_result_set(st, PF_EXIT_FAIL, errno, "raw records");
	return 0;
}

/*
 * The stream being written, from the moment it has its name until its
 * trailer: a run that ends before then still ends it with a trailer.
 * libdw, out of memory, prints its own message and calls exit(1); the
 * atexit handler below writes the trailer (stop=memory) and turns the
 * exit into pf's: exit 3 with pf's own message.
 */
static struct {
	struct pf_recorder *r;
	struct pf_writer *w;
} open_stream;

static void
end_open_stream(void)
{
	struct pf_recorder *r = open_stream.r;
	enum pf_stop fin;

	if (r == NULL)
		return;
	open_stream.r = NULL;
	fin = pf_writer_finish(open_stream.w, r->ops->tool->name, r->rec.lost, r->rec.throttled,
	    PF_STOP_MEMORY);
	say(r, PF_SAY_WARN, 0, "out of memory: the stream ends here (stop=%s), %llu %s written",
	    pf_stop_name(fin), (unsigned long long)pf_writer_samples(open_stream.w),
	    r->ops->tool->unit);
}

/* exit() from inside a library (libdw's out-of-memory handler): exit 3. */
static bool
exit_in_library(void)
{
	if (open_stream.r == NULL)
		return false;
	end_open_stream();
	return true;
}

struct buildid_lines {
	struct pf_writer *w;
	struct pf_buf b;
	enum pf_stop st;
	bool nomem;
};

static void
buildid_line(const char *path, const struct pf_buildid *id, void *arg)
{
	struct buildid_lines *c = arg;

	if (c->st != PF_STOP_NONE || c->nomem)
		return;
	pf_buf_reset(&c->b);
	if (pf_buildid_format(&c->b, path, id) == -1) {
		c->nomem = errno == ENOMEM;
		return;
	}
	c->st = pf_writer_comment(c->w, c->b.data, c->b.len);
}

/*
 * A "# build-id" line for every file the samples ran in that could be
 * read, after the header and before the first sample: what names their
 * [unknown] frames later from the debug files (pf-fold --debug-dir), and
 * which debug files to fetch.  Only those: a target that maps 10,000
 * libraries would otherwise have each opened after the window.  Under
 * the caps like every line: *hst says whether the samples may follow.
 * -1 when memory ran out.
 */
static int
write_buildids(struct pf_recorder *r, struct pf_writer *w, const struct pf_rawref *refs,
    size_t n, enum pf_stop *hst)
{
	struct buildid_lines c = { .w = w, .st = PF_STOP_NONE };

	if (pf_replay_mark_files(&r->rec, r->sym, refs, n) == -1)
		c.nomem = true;
	else
		pf_sym_foreach_buildid(r->sym, buildid_line, &c);
	pf_buf_free(&c.b);
	*hst = c.st;
	return c.nomem ? -1 : 0;
}

/*
 * The trailer's incomplete-causes, "CAUSE:N,...", the most frequent cause
 * first (ties in the order of enum pf_incomplete), into out; returns
 * the count of incomplete stacks.
 */
static uint64_t
incomplete_causes(const uint64_t why[PF_INCOMPLETE_CAUSES], char *out, size_t size)
{
	bool done[PF_INCOMPLETE_CAUSES] = { false };
	uint64_t total = 0;
	size_t len = 0;
	int k, best;

	out[0] = '\0';
	for (k = PF_INCOMPLETE_NONE + 1; k < PF_INCOMPLETE_CAUSES; k++)
		total += why[k];
	for (;;) {
		best = -1;
		for (k = PF_INCOMPLETE_NONE + 1; k < PF_INCOMPLETE_CAUSES; k++)
			if (!done[k] && why[k] > 0 && (best == -1 || why[k] > why[best]))
				best = k;
		if (best == -1 || len >= size)
			break;
		done[best] = true;
		len += (size_t)snprintf(out + len, size - len, "%s%s:%llu", len ? "," : "",
		    pf_incomplete_name((enum pf_incomplete)best), (unsigned long long)why[best]);
	}
	return total;
}

/* The samples and the trailer, and what the end of the run says. */
static int
emit(struct pf_recorder *r, struct pf_writer *w, enum pf_stop hst, enum pf_stop *fin,
    struct pf_result *st)
{
	const char *name = r->opt.output ? r->opt.output : "stdout";
	struct pf_buf b = { 0 };
	struct pf_rawref *refs;
	uint64_t ntrunc = 0, nchains = 0, why[PF_INCOMPLETE_CAUSES] = { 0 }, npy[3] = { 0 };
	char causes[PF_WRITER_CAUSES_MAX + 1];
	size_t n, i;

	if ((refs = r->ops->samples(r, &n)) == NULL)
		return pf_result_set(st, PF_EXIT_FAIL, errno, "samples");
	if (pf_replay_begin(&r->rec) == -1) {
		free(refs);
		return pf_result_set(st, PF_EXIT_FAIL, ENOMEM, "samples");
	}
	/* Memory out already: the stream ends at its header, saying so. */
	if (hst == PF_STOP_NONE && write_buildids(r, w, refs, n, &hst) == -1) {
		r->stop = PF_STOP_MEMORY;
		n = 0;
	}
	if (hst == PF_STOP_NONE && r->rec.py != NULL) {
		pf_buf_reset(&b);
		if (pf_pyrec_header(r->rec.py, &b) == -1) {
			r->stop = PF_STOP_MEMORY;
			n = 0;
		} else if (b.len > 0)
			hst = pf_writer_comment(w, b.data, b.len);
	}
	for (i = 0; hst == PF_STOP_NONE && i < n; i++) {
		const struct pf_rawsample *s = pf_rawrec_sample(&r->rec, refs[i].off);
		struct pf_stack_end end;

		pf_replay_to(&r->rec, r->sym, &r->comms, s->time);
#ifdef PF_TEST_HOOKS
		test_abort(r->written);
#endif
		pf_buf_reset(&b);
		if (pf_replay_format(r->sym, &r->comms, r->rec.py, s, refs[i].period, r->evname,
		    &b, &end) == -1) {
			/* The stream ends at the last whole sample, saying why. */
			r->stop = PF_STOP_MEMORY;
			break;
		}
		hst = pf_writer_sample(w, b.data, b.len);
		if (hst != PF_STOP_NONE)
			break;
		r->written++;
		npy[end.py]++;
		nchains += end.cut;
		why[end.why]++;
		/* truncated= counts the [truncated] stacks the chain cut did not end first. */
		if (s->nr > 0 && !end.cut) {
			const char *ips = (const char *)(s + 1);
			uint32_t k;

			for (k = s->nr; k-- > 0;) {
				uint64_t ip;

				memcpy(&ip, ips + (size_t)k * 8, sizeof(ip));
				if (ip == PF_RAWREC_TRUNCATED) {
					ntrunc++;
					break;
				}
				if (ip < PF_RAWREC_TRUNCATED || ip > PF_RAWREC_BUDGET)
					break;
			}
		}
	}
	free(refs);
	pf_buf_free(&b);
	if (r->dwarf)
		pf_writer_trailer_truncated(w, ntrunc);
	if (r->aggregated)
		pf_writer_trailer_aggregated(w, r->naggregated);
	pf_writer_trailer_chains(w, nchains);
	pf_writer_trailer_incomplete(w, incomplete_causes(why, causes, sizeof(causes)), causes);
	if (r->rec.py != NULL && pf_pyrec_found(r->rec.py))
		pf_writer_trailer_python(w, npy[PF_PY_MERGE_DONE], npy[PF_PY_MERGE_MISMATCH]);
	*fin = pf_writer_finish(w, r->ops->tool->name, r->rec.lost, r->rec.throttled, r->stop);
	open_stream.r = NULL;	/* it has its trailer, or cannot have one */
	if (*fin == PF_STOP_MEMORY)
		return pf_result_set(st, PF_EXIT_FAIL, ENOMEM, "samples: the stream ends at the last "
		    "whole sample (stop=memory)");
	if (*fin == PF_STOP_IO)
		return pf_result_set(st, PF_EXIT_FAIL, pf_writer_errno(w), "%s", name);
	if (*fin == PF_STOP_DISK_FULL)
		say(r, PF_SAY_WARN, 0, "%s: %s: stopped, what was written is complete up to the "
		    "last sample", name, strerror(pf_writer_errno(w)));
	else if (*fin == PF_STOP_SIZE_CAP)
		say(r, PF_SAY_WARN, 0, "stopped at the size cap (--max-size %llu)",
		    (unsigned long long)r->opt.max_size);
	else if (*fin == PF_STOP_DISK_FLOOR)
		say(r, PF_SAY_WARN, 0, "stopped at the disk floor: keeping %llu bytes free "
		    "(--min-free)", (unsigned long long)r->min_free);
	else if (*fin == PF_STOP_RATE_CAP)
		say(r, PF_SAY_WARN, 0, "stopped at the rate cap: more than %llu %s in one "
		    "second (--rate-cap)", (unsigned long long)r->rate_cap, r->ops->tool->rate_what);
	return 0;
}

static int
run(struct pf_recorder *r, int argc, char **argv, struct pf_result *st)
{
	struct sigaction sa;
	struct pf_writer *w;
	struct rlimit rl;
	enum pf_stop hst = PF_STOP_NONE, fin = PF_STOP_NONE;
	uint64_t t_end;
	int rc;

	if (parse_options(r, argc, argv, st) == -1 || check_streams(r, st) == -1)
		return -1;
	/*
	 * An ssh drop (SIGHUP) ends the window like Ctrl-C or SIGTERM: the
	 * stream is kept, with its trailer.  Caught from here on, a signal
	 * during the set-up ends the window at once.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* libdwfl must never reach the network. */
	unsetenv("DEBUGINFOD_URLS");
	/* A core dump would hold what was read from the targets. */
	rl.rlim_cur = rl.rlim_max = 0;
	(void)setrlimit(RLIMIT_CORE, &rl);
	/* One fd per CPU x thread: a busy server needs more than the soft limit. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (read_settings(r, st) == -1 || (r->opt.pids && parse_pids(r, st) == -1) ||
	    open_cgroup(r, st) == -1 ||
	    r->ops->check_privileges(r, st) == -1 || open_output(r, st) == -1)
		return -1;
	choose_callgraph(r);

	r->ops->kernel(r);
	if (r->opt.cmd && pf_spawn_cmd(&r->t, r->opt.cmd, cmd_stdout(r)) == -1)
		return pf_result_set(st, PF_EXIT_FAIL, errno, "starting %s", r->opt.cmd[0]);
	start_helper(r);
	if (open_events(r, st) == -1)
		return -1;
	if (pf_drop_privileges() == -1)
		return pf_result_set(st, PF_EXIT_FAIL, errno, "dropping privileges");

	clock_gettime(CLOCK_REALTIME, &r->start_wall);
	if ((w = pf_writer_new(r->out_fd, r->opt.max_size,
	    r->floor_applies ? r->min_free : 0)) == NULL)
		return pf_result_set(st, PF_EXIT_FAIL, errno, "output");
	/*
	 * Started, then named, then confined, then the window: a failed start
	 * leaves no file, and nothing is renamed once Landlock forbids it.
	 */
	if (start_recording(r, st) == -1)
		goto fail;
	if (publish_output(r, st) == -1)
		goto fail;
	open_stream.r = r;
	open_stream.w = w;
	if (run_window(r, w, &hst, st) == -1)
		goto fail;
	t_end = pf_now_ns();
	pf_spawn_kill(&r->t);
	if (pf_rawrec_flush(&r->rec) == -1) {
		pf_result_set(st, PF_EXIT_FAIL, ENOMEM, "samples");
		goto fail;
	}
	/* The files the unwinder read, as they were: one may be replaced on disk by now. */
	if (r->rec.unwind != NULL)
		pf_unwind_foreach_file(r->rec.unwind, pf_sym_offer_file, r->sym);

	/* Symbolize after the window: nothing heavy ran while sampling. */
	if (r->kallsyms_fd != -1) {
		r->ksyms = pf_kallsyms_load(r->kallsyms_fd);
		close(r->kallsyms_fd);
		pf_sym_set_kallsyms(r->sym, r->ksyms);
	}
	rc = emit(r, w, hst, &fin, st);
	if (rc == -1 && st->err == ENOMEM && open_stream.r != NULL)
		end_open_stream();
	open_stream.r = NULL;
	/*
	 * What the file holds, as the trailer says: after a failed flush
	 * (ENOSPC) the samples accepted since the last whole write were cut
	 * back.
	 */
	r->written = pf_writer_samples(w);
	pf_writer_free(w);
	if (r->rec.unwind != NULL && pf_unwind_refused(r->rec.unwind) > 0)
		say(r, PF_SAY_WARN, 0, "%llu mappings past the unwinder's budget of %d modules "
		    "per process were not read: stacks through them end there",
		    (unsigned long long)pf_unwind_refused(r->rec.unwind), PF_UNWIND_MODULES_MAX);
	/* One refused after the header (a command's, or made during the window). */
	if (pf_sym_jit_refusal(r->sym) != NULL)
		say(r, PF_SAY_WARN, 0, "JIT map refused, its frames stay [unknown]: %s",
		    pf_sym_jit_refusal(r->sym));
	if (rc == -1)
		return -1;
	if (r->opt.stats)
		stats_line(r, (double)(pf_now_ns() - t_end) / 1e9);
	if (fin == PF_STOP_PIPE)
		return 0;
	if (r->opt.output && pf_outfile_close(&r->out) == -1)
		return pf_result_set(st, PF_EXIT_FAIL, errno, "%s", r->opt.output);
	closing_line(r, fin, (double)(t_end - r->win_start) / 1e9);
	st->code = pf_stop_is_cap(fin) ? PF_EXIT_FINDING : PF_EXIT_OK;
	return 0;
fail:
	/* Memory that ran out in our own code ends the stream alike. */
	if (open_stream.r != NULL && st->err == ENOMEM)
		end_open_stream();
	open_stream.r = NULL;
	pf_writer_free(w);
	return -1;
}

const struct pf_result *
pf_recorder_main(const struct pf_recorder_ops *ops, void *tool, int argc, char **argv,
    struct pf_result *st)
{
	static struct pf_recorder rec;
	struct pf_recorder *r = &rec;

	memset(st, 0, sizeof(*st));
	st->code = PF_EXIT_OK;
	r->ops = ops;
	r->tool = tool;
	r->opt.max_size = PF_REC_SIZE_DEFAULT;
	r->opt.min_free_pct = -1;
	r->opt.progress = true;
	r->opt.inlines = true;
	r->opt.python = -1;
	r->kallsyms_fd = -1;
	r->cgroup_fd = -1;
	r->out_fd = STDOUT_FILENO;
	r->out.fd = -1;
	r->evname = ops->tool->evname;
	r->rate_cap = ops->tool->rate_cap;
	r->callgraph = ops->tool->callgraph;
	pf_exit_hook(exit_in_library, PF_EXIT_FAIL);
	(void)run(r, argc, argv, st);
	/* A failed run: no orphaned child, no temporary file left behind. */
	pf_spawn_kill(&r->t);
	pf_outfile_discard(&r->out);
	pf_perf_free(r->perf);
	pf_sym_free(r->sym);
	pf_kallsyms_free(r->ksyms);
	pf_unwind_free(r->rec.unwind);
	r->rec.unwind = NULL;
	pf_pyrec_free(r->rec.py);
	r->rec.py = NULL;
	pf_mapfiles_free(r->mf);
	r->mf = NULL;
	if (r->cgroup_fd != -1)
		close(r->cgroup_fd);
	r->cgroup_fd = -1;
	pf_rawrec_free(&r->rec);
	pf_comms_free(&r->comms);
	return st;
}
