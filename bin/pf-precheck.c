/*
 * pf-precheck: can this caller sample this target safely, right now?
 *
 * One line per check, "ok|warn|fail CHECK DETAIL", and under each warn or
 * fail an indented line saying what to do.  The permission rules are the
 * ones pf-record and pf-offcpu apply (lib/common/privs.c), so the answer
 * here is the answer they will get; a real perf_event_open of the event
 * they use backs the rules up (it catches seccomp filters, containers and
 * LSMs the sysctls do not show).  Exit 0 when the chosen mode is safe to
 * run, 1 when a check failed.
 *
 * pf-precheck only reads: /proc, /sys, the target's executable, the
 * call-frame information of the files it maps and the symbols of those
 * named python (which CPython it runs), and the free space of the output
 * directory.  It never reads a target's memory, and writes nothing
 * anywhere.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "fpcheck.h"
#include "fsfree.h"
#include "mapfile.h"
#include "msg.h"
#include "parse.h"
#include "pf.h"
#include "privs.h"
#include "procmaps.h"
#include "procstat.h"
#include "psi.h"
#include "pyframe.h"
#include "recorder.h"
#include "symbolize.h"
#include "sysctl.h"
#include "target.h"
#include "unwind.h"
#include "xmlesc.h"


enum mode { MODE_ONCPU, MODE_OFFCPU, MODE_SYSTEM };
static const char *const mode_names[] = { "oncpu", "offcpu", "system" };

static const char synopsis[] =
    "usage: pf-precheck [-p PID[,PID...]] [-o DIR] [-g auto|fp|dwarf] [--min-free SIZE|N%]\n"
    "                   [--mode oncpu|offcpu|system] [--cgroup PATH]\n"
    "                   [--no-probe] [--proc-root DIR] [--sys-root DIR]\n";

static struct {
	pid_t pids[PF_TARGET_MAX_PIDS];	/* -p, repeats dropped */
	size_t npids;			/* 0: no -p */
	char pidlist[PF_TARGET_MAX_PIDS * 12];	/* the same, joined by commas */
	const char *outdir;
	const char *cgroup;	/* --cgroup: recorded as --mode system, its tasks only */
	uint64_t min_free_bytes;
	double min_free_pct;
	enum mode mode;
	bool dwarf;		/* the recording is planned with -g dwarf (or auto chose it) */
	bool cg_auto;		/* -g auto: the recorder's choice, made in check_callgraph */
	bool cg_given;		/* -g given; else the planned tool's default */
	bool probe;
	const char *proc_root;
	const char *sys_root;
	bool fixture;		/* a proc or sys root other than the live one */
} opt = {
	.npids = 0,
	.outdir = ".",
	.min_free_bytes = 0,
	.min_free_pct = -1,
	.mode = MODE_ONCPU,
	.probe = true,
	.proc_root = "/proc",
	.sys_root = "/sys",
	.fixture = false,
};

/* The stack copy of a -g dwarf sample in the mode checked, as its recorder takes it. */
static unsigned
dwarf_stack(void)
{
	return pf_rec_dwarf_stack(opt.mode == MODE_OFFCPU ? &pf_rec_offcpu : &pf_rec_record,
	    opt.mode == MODE_SYSTEM);
}

/* One process of -p, and what the target check learnt of it. */
struct target {
	int pid;
	bool ok;		/* alive, and this caller's to sample */
	struct pf_taskstat tst;
	struct pf_status tstatus;
	/*
	 * What names the pid on the lines that do not already: "" for a
	 * single pid, whose lines are as they always were, "pid N: " in a
	 * list.
	 */
	char tag[24];
};

/* What the checks learn and share. */
struct env {
	struct pf_caps caps;
	uid_t uid;
	long paranoid;
	bool have_paranoid;
	int ncpu;
	struct target t[PF_TARGET_MAX_PIDS];	/* opt.npids of them */
	size_t nok;		/* targets ok */
	int failed, warned;
};

static void
usage(void)
{
	fputs(synopsis, stdout);
	fputs("\n"
	    "  -p, --pid PID[,PID...] the processes to be sampled, at most 64 (default: a command\n"
	    "                         pf-record starts)\n"
	    "  -o, --output DIR       where the recording will be written (default .)\n"
	    "  -g, --call-graph auto  the recorder chooses fp or dwarf from the target's files\n"
	    "                         (the default for oncpu and system)\n"
	    "  -g, --call-graph fp    the recording follows frame pointers (the default for\n"
	    "                         offcpu)\n"
	    "  -g, --call-graph dwarf the recording unwinds copied user stacks (-g dwarf)\n"
	    "      --min-free SIZE|N% free-space floor, as pf-record (default max(1G, 5%); 0: none)\n"
	    "      --mode MODE        oncpu (pf-record), offcpu (pf-offcpu) or system (pf-record -a)\n"
	    "      --cgroup PATH      the processes of a cgroup (pf-record --cgroup): checked as\n"
	    "                         --mode system\n"
	    "      --no-probe         skip the live perf_event_open probe\n"
	    "      --proc-root DIR    read /proc from DIR (fixture trees; implies --no-probe)\n"
	    "      --sys-root DIR     read /sys from DIR (fixture trees; implies --no-probe)\n"
	    "  -h, --help             this help\n"
	    "      --version          print the version\n", stdout);
}

/*
 * report(env, "ok"|"warn"|"fail", check, fix, fmt...): one check line and,
 * for warn and fail, the indented fix.  The target names what goes into
 * them (its comm, its files' paths): a control byte or invalid UTF-8 in
 * them is made '?' for the terminal (pf_name_clean) as the line is
 * written, so that no name can end a line or start one of its own (an
 * "ok verdict") or send the terminal an escape sequence.  pf-precheck's
 * own words are plain ASCII, which the cleaning leaves alone.
 */
static void
put_clean(const char *s)
{
	char *c;
	size_t n = strlen(s);

	if ((c = strdup(s)) == NULL) {
		/* Without memory for a copy, a name is dropped, never printed raw. */
		fputs("?", stdout);
		return;
	}
	n = pf_name_clean(c, n);
	fwrite(c, 1, n, stdout);
	free(c);
}

static void __attribute__((format(printf, 5, 6)))
report(struct env *e, const char *level, const char *check, const char *fix,
    const char *fmt, ...)
{
	va_list ap;
	char *line = NULL;
	int n;

	printf("%s %s ", level, check);
	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n >= 0)
		put_clean(line);
	free(n >= 0 ? line : NULL);
	putchar('\n');
	if (strcmp(level, "ok") != 0 && fix != NULL) {
		fputs("  fix: ", stdout);
		put_clean(fix);
		putchar('\n');
	}
	if (strcmp(level, "fail") == 0)
		e->failed++;
	else if (strcmp(level, "warn") == 0)
		e->warned++;
}

static const char *
who(const struct env *e)
{
	static char buf[96];

	if (pf_caps_perf(&e->caps))
		snprintf(buf, sizeof(buf), "uid %u with %s", (unsigned)e->uid,
		    e->caps.perfmon ? "CAP_PERFMON" : "CAP_SYS_ADMIN");
	else
		snprintf(buf, sizeof(buf), "uid %u without CAP_PERFMON", (unsigned)e->uid);
	return buf;
}

static void
check_paranoid(struct env *e)
{
	const char *what, *fix;
	bool user, kern, cpu;

	if (pf_sysctl_long(opt.proc_root, "sys/kernel/perf_event_paranoid", &e->paranoid) == -1) {
		report(e, "fail", "paranoid", "the kernel lacks perf events (CONFIG_PERF_EVENTS), or "
		    "/proc/sys is hidden (container): run on the host",
		    "%s/sys/kernel/perf_event_paranoid: %s", opt.proc_root, strerror(errno));
		return;
	}
	e->have_paranoid = true;
	user = pf_may_sample_user(e->paranoid, &e->caps);
	kern = pf_may_sample_kernel(e->paranoid, &e->caps);
	cpu = pf_may_sample_cpu(e->paranoid, &e->caps);
	if (!user) {
		report(e, "fail", "paranoid",
		    "sysctl -w kernel.perf_event_paranoid=2 (user stacks) or 1 (kernel too), or run as root / with CAP_PERFMON",
		    "%ld: every perf_event_open is refused to %s (a distribution setting above 2)",
		    e->paranoid, who(e));
		return;
	}
	switch (opt.mode) {
	case MODE_SYSTEM:
		if (!cpu) {
			report(e, "fail", "paranoid",
			    "run as root or with CAP_PERFMON, or sysctl -w kernel.perf_event_paranoid=0; or profile one process (-p)",
			    "%ld: system-wide sampling is refused to %s (needs paranoid <= 0)",
			    e->paranoid, who(e));
			return;
		}
		break;
	case MODE_OFFCPU:
		if (!kern) {
			report(e, "fail", "paranoid",
			    "run as root or with CAP_PERFMON, or sysctl -w kernel.perf_event_paranoid=1; or use pf-offcpu --proc",
			    "%ld: off-CPU stacks are kernel samples, refused to %s (needs paranoid <= 1)",
			    e->paranoid, who(e));
			return;
		}
		break;
	case MODE_ONCPU:
		if (!kern) {
			report(e, "warn", "paranoid",
			    "for kernel frames: sysctl -w kernel.perf_event_paranoid=1, or run as root / with CAP_PERFMON",
			    "%ld: user stacks only for %s; kernel frames are not recorded",
			    e->paranoid, who(e));
			return;
		}
		break;
	}
	if (pf_caps_perf(&e->caps))
		what = "capability overrides the sysctl";
	else
		what = e->paranoid <= -1 ? "everything allowed" : e->paranoid == 0 ?
		    "user, kernel and system-wide allowed" : "user and kernel stacks of own processes allowed";
	fix = NULL;
	report(e, "ok", "paranoid", fix, "%ld: %s for %s", e->paranoid, what, who(e));
}

static void
check_kptr(struct env *e)
{
	long k;

	if (pf_sysctl_long(opt.proc_root, "sys/kernel/kptr_restrict", &k) == -1) {
		report(e, "warn", "kptr_restrict", "kernel frames may print as [unknown]",
		    "%s/sys/kernel/kptr_restrict: %s", opt.proc_root, strerror(errno));
		return;
	}
	if (opt.mode == MODE_ONCPU && e->have_paranoid && !pf_may_sample_kernel(e->paranoid, &e->caps)) {
		report(e, "ok", "kptr_restrict", NULL, "%ld: not needed, no kernel frames at this paranoid level", k);
		return;
	}
	if (pf_kallsyms_visible(k, e->have_paranoid ? e->paranoid : 2, &e->caps)) {
		report(e, "ok", "kptr_restrict", NULL, "%ld: /proc/kallsyms addresses visible to uid %u%s",
		    k, (unsigned)e->uid, e->caps.syslog && k > 0 ? " (CAP_SYSLOG)" : "");
		return;
	}
	if (k >= 2)
		report(e, "warn", "kptr_restrict", "sysctl -w kernel.kptr_restrict=1 and run as root (CAP_SYSLOG)",
		    "%ld: /proc/kallsyms addresses hidden from everyone; kernel frames print as [unknown]", k);
	else
		report(e, "warn", "kptr_restrict",
		    k == 1 ? "run as root (CAP_SYSLOG), or sysctl -w kernel.kptr_restrict=0" :
		    "run as root (CAP_SYSLOG), or sysctl -w kernel.perf_event_paranoid=1",
		    "%ld: /proc/kallsyms addresses hidden from uid %u without CAP_SYSLOG; kernel frames print as [unknown]",
		    k, (unsigned)e->uid);
}

static void
check_caps(struct env *e)
{
	const struct pf_caps *c = &e->caps;
	bool any = c->perfmon || c->sys_admin || c->syslog || c->sys_ptrace || c->ipc_lock;

	report(e, "ok", "caps", NULL, "%s%s%s%s%s%s (uid %u)",
	    any ? "" : "none",
	    c->perfmon ? "CAP_PERFMON " : "", c->sys_admin ? "CAP_SYS_ADMIN " : "",
	    c->syslog ? "CAP_SYSLOG " : "", c->sys_ptrace ? "CAP_SYS_PTRACE " : "",
	    c->ipc_lock ? "CAP_IPC_LOCK" : "", (unsigned)e->uid);
}

/* Without -p: what the checks apply to instead. */
static void
check_no_target(struct env *e)
{
	char dir[PATH_MAX];
	pid_t pids[PF_REC_CGROUP_PROCS];
	size_t n;
	int fd;

	if (opt.cgroup != NULL) {
		if ((fd = pf_cgroup_open_target(opt.sys_root, opt.cgroup, dir, sizeof(dir))) == -1) {
			report(e, "fail", "target", "give the path /proc/PID/cgroup shows for a process "
			    "of it (the line starting 0::)", "cgroup %s: %s", opt.cgroup,
			    errno == EINVAL ? "a path with '..' in it is refused" :
			    "no such cgroup in the v2 tree nor in a perf_event hierarchy");
			return;
		}
		n = pf_cgroup_procs(fd, pids, PF_ARRAY_LEN(pids));
		close(fd);
		report(e, n ? "ok" : "warn", "target", n ? NULL : "start the service, or name "
		    "the cgroup it runs in", "cgroup %s: %zu process%s%s", dir, n,
		    n == 1 ? "" : "es", n ? "" : " (nothing to sample yet)");
	} else if (opt.mode == MODE_SYSTEM)
		report(e, "ok", "target", NULL, "system-wide");
	else
		report(e, "ok", "target", NULL, "none given: checks apply to a command pf-record starts");
}

static void
check_target(struct env *e, struct target *t)
{
	char fix[128];

	if (pf_taskstat_read(opt.proc_root, t->pid, 0, &t->tst) == -1) {
		report(e, "fail", "target", "the process is gone: find the current PID (pgrep, systemctl status) and rerun",
		    "pid %d: %s", t->pid, errno == ENOENT || errno == ESRCH ? "no such process" : strerror(errno));
		return;
	}
	(void)pf_status_read(opt.proc_root, t->pid, 0, &t->tstatus);
	if ((t->tst.state == 'Z' && t->tst.num_threads <= 1) || t->tst.state == 'X') {
		char ppid[32] = "its parent";
		char buf[1024], *p;

		/* Field 4 of stat: the parent, which should reap it. */
		if (pf_proc_read(opt.proc_root, t->pid, 0, "stat", buf, sizeof(buf)) > 0 &&
		    (p = strrchr(buf, ')')) != NULL) {
			int pp;

			if (sscanf(p + 1, " %*c %d", &pp) == 1)
				snprintf(ppid, sizeof(ppid), "parent pid %d", pp);
		}
		snprintf(fix, sizeof(fix), "nothing runs to sample: the process exited; %s has not reaped it", ppid);
		report(e, "fail", "target", fix, "pid %d (%s) is a zombie", t->pid, t->tst.comm);
		return;
	}
	if (t->tstatus.uid >= 0 && (uid_t)t->tstatus.uid != e->uid && e->uid != 0 &&
	    !e->caps.perfmon && !e->caps.sys_admin && !e->caps.sys_ptrace) {
		snprintf(fix, sizeof(fix), "run as uid %ld or as root (CAP_PERFMON or CAP_SYS_PTRACE)",
		    t->tstatus.uid);
		report(e, "fail", "target", fix, "pid %d (%s) belongs to uid %ld, not to uid %u",
		    t->pid, t->tst.comm, t->tstatus.uid, (unsigned)e->uid);
		return;
	}
	t->ok = true;
	e->nok++;
	report(e, "ok", "target", NULL, "pid %d (%s) state %c threads %ld", t->pid, t->tst.comm,
	    t->tst.state, t->tst.num_threads);
}

static long
perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static const char *
probe_reason(int e)
{
	switch (e) {
	case EACCES:
	case EPERM:
		return "permission denied (paranoid level, capabilities, another user's process, or a seccomp/LSM policy)";
	case ENOSYS:
		return "perf_event_open is not available (kernel without perf events, or a seccomp filter)";
	case ESRCH:
		return "the target exited";
	case ENOENT:
	case EOPNOTSUPP:
		return "the event is not supported here";
	default:
		return strerror(e);
	}
}

/* Whether the probe is skipped (a fixture root, --no-probe), said once. */
static bool
probe_skipped(struct env *e)
{
	if (!opt.fixture && opt.probe)
		return false;
	report(e, "warn", "probe", "run without --proc-root/--sys-root/--no-probe for a real perf_event_open probe",
	    "skipped: %s", opt.fixture ? "the proc or sys root is not the live system" : "--no-probe");
	return true;
}

/*
 * The probe on target t, or with t NULL on what runs without -p: a
 * command pf-record would start, or the CPUs.
 */
static void
check_probe(struct env *e, const struct target *t)
{
	const char *tag = t != NULL ? t->tag : "";
	struct perf_event_attr a;
	long max_stack;
	pid_t pid;
	int cpu, fd, err;
	bool kern;

	if (t != NULL && !t->ok) {
		report(e, "fail", "probe", "fix the target first", "%snot run: no usable target", tag);
		return;
	}
	kern = e->have_paranoid && pf_may_sample_kernel(e->paranoid, &e->caps);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = 99;
	/* The recorders' own layout and stack limit, capped by the sysctl as they cap it. */
	a.sample_type = PF_RAWREC_SAMPLE_TYPE;
	if (opt.dwarf) {
		a.sample_type = PF_RAWREC_SAMPLE_TYPE_DWARF;
		a.sample_regs_user = PF_UNWIND_REGS_MASK;
		a.sample_stack_user = dwarf_stack();
	}
	if (pf_sysctl_long(opt.proc_root, "sys/kernel/perf_event_max_stack", &max_stack) == -1 ||
	    max_stack > PF_REC_MAX_STACK)
		max_stack = PF_REC_MAX_STACK;
	a.sample_max_stack = (uint16_t)max_stack;
	a.disabled = 1;
	a.exclude_kernel = opt.mode == MODE_ONCPU ? !kern : 0;
	a.exclude_hv = 1;
	if (opt.mode == MODE_SYSTEM) {
		pid = -1;
		cpu = 0;
	} else {
		pid = t != NULL ? t->pid : 0;	/* 0: this process, as a command pf-record would start */
		cpu = -1;
	}
	if (opt.mode != MODE_OFFCPU) {
		fd = (int)perf_open(&a, pid, cpu);
		if (fd == -1) {
			err = errno;
			report(e, "fail", "probe", "see the paranoid, caps and target lines; in a container, run on the host",
			    "%sperf_event_open cpu-clock %s: %s", tag, opt.mode == MODE_SYSTEM ? "on cpu 0" :
			    t != NULL ? "on the target" : "on a command", probe_reason(err));
			return;
		}
		close(fd);
	} else {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
		if (opt.dwarf) {
			a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a.sample_regs_user = PF_UNWIND_REGS_MASK;
			a.sample_stack_user = dwarf_stack();
		}
		a.context_switch = 1;
		a.disabled = 1;
		a.exclude_hv = 1;
		fd = (int)perf_open(&a, pid, cpu);
		if (fd == -1) {
			err = errno;
			report(e, "fail", "probe", "off-CPU stacks need kernel sampling: run as root or with CAP_PERFMON, or pf-offcpu --proc",
			    "%sperf_event_open context-switches with kernel stacks: %s", tag,
			    probe_reason(err));
			return;
		}
		close(fd);
		report(e, "ok", "probe", NULL, "%sperf_event_open context-switches with kernel stacks%s %s succeeded",
		    tag, opt.dwarf ? " and user stack copies" : "", t != NULL ? "on the target" : "on a command");
		return;
	}
	report(e, "ok", "probe", NULL, "%sperf_event_open cpu-clock %s (%s%s) succeeded", tag,
	    opt.mode == MODE_SYSTEM ? "system-wide" : t != NULL ? "on the target" : "on a command",
	    a.exclude_kernel ? "user stacks" : "user and kernel stacks",
	    opt.dwarf ? ", user stack copies" : "");
}

static void
fmt_size(char *buf, size_t n, uint64_t v)
{
	if (v >= (1ULL << 30))
		snprintf(buf, n, "%.1fG", (double)v / (1ULL << 30));
	else if (v >= (1ULL << 20))
		snprintf(buf, n, "%.1fM", (double)v / (1ULL << 20));
	else
		snprintf(buf, n, "%.1fK", (double)v / 1024);
}

static void
check_disk(struct env *e)
{
	uint64_t avail, total, floor;
	char a[32], t[32], f[32];

	if (pf_fs_space(opt.outdir, &avail, &total) == -1) {
		report(e, "fail", "disk", "create the directory, or choose another with -o",
		    "%s: %s", opt.outdir, strerror(errno));
		return;
	}
	if (access(opt.outdir, W_OK) == -1) {
		report(e, "fail", "disk", "choose a directory this user may write with -o",
		    "%s: not writable: %s", opt.outdir, strerror(errno));
		return;
	}
	floor = pf_min_free(total, opt.min_free_bytes, opt.min_free_pct);
	fmt_size(a, sizeof(a), avail);
	fmt_size(t, sizeof(t), total);
	fmt_size(f, sizeof(f), floor);
	if (avail < floor) {
		report(e, "fail", "disk",
		    "free space there, or write elsewhere (-o DIR on a filesystem with room; not the one the service needs)",
		    "%s: %s free of %s, below the floor of %s (%s)", opt.outdir, a, t, f,
		    opt.min_free_pct >= 0 || opt.min_free_bytes ? "--min-free" : "max(1G, 5%)");
		return;
	}
	report(e, "ok", "disk", NULL, "%s: %s free of %s, floor %s", opt.outdir, a, t, f);
}

/*
 * Bytes of one -g dwarf sample in a ring, about: the stack copy with its
 * size words, the registers, the fixed fields and a callchain of 64
 * entries.
 */
#define DWARF_SAMPLE_BYTES \
	(dwarf_stack() + 16 + 8 * (1 + PF_UNWIND_NREGS) + 64 + 8 * 64)

static void
check_memlock(struct env *e)
{
	struct rlimit rl;
	long mlock_kb = 516, pg = sysconf(_SC_PAGESIZE);
	const struct pf_rec_tool *tool = opt.mode == MODE_OFFCPU ? &pf_rec_offcpu : &pf_rec_record;
	unsigned ring_pages = opt.dwarf ? PF_REC_DWARF_RING_PAGES : tool->ring_pages;
	unsigned got, min_pages = 1;
	uint64_t need, need_min, allow;
	char n[32], m[32], al[32], fix[200], held[160] = "";
	int ncpu = e->ncpu > 0 ? e->ncpu : 1;

	if (pg <= 0)
		pg = 4096;
	/* A ring smaller than one dwarf sample loses every sample. */
	while (opt.dwarf && (uint64_t)min_pages * (uint64_t)pg < DWARF_SAMPLE_BYTES)
		min_pages *= 2;
	(void)pf_sysctl_long(opt.proc_root, "sys/kernel/perf_event_mlock_kb", &mlock_kb);
	/* The recorder's rings: 1 + its pages per CPU, halved while refused. */
	need = (uint64_t)ncpu * (1 + ring_pages) * (uint64_t)pg;
	need_min = (uint64_t)ncpu * (1 + min_pages) * (uint64_t)pg;
	fmt_size(n, sizeof(n), need);
	fmt_size(m, sizeof(m), need_min);
	if (e->caps.ipc_lock) {
		report(e, "ok", "memlock", NULL, "%s of rings for %d CPUs: CAP_IPC_LOCK lifts the limit", n, ncpu);
		return;
	}
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == -1 || rl.rlim_cur == RLIM_INFINITY) {
		report(e, "ok", "memlock", NULL, "%s of rings for %d CPUs: RLIMIT_MEMLOCK unlimited", n, ncpu);
		return;
	}
	/* perf_event_mlock_kb per CPU is free of charge; the rest counts against RLIMIT_MEMLOCK. */
	allow = (mlock_kb > 0 ? (uint64_t)mlock_kb * 1024 * (uint64_t)ncpu : 0) + (uint64_t)rl.rlim_cur;
	fmt_size(al, sizeof(al), allow);
	for (got = ring_pages; got > min_pages &&
	    (uint64_t)ncpu * (1 + got) * (uint64_t)pg > allow; got /= 2)
		;
	/* What a ring then holds between two reads, at the -g dwarf stack copy's size. */
	if (opt.dwarf)
		snprintf(held, sizeof(held), "; -g dwarf: rings of %u pages hold some %llu samples "
		    "of %u stack bytes each", got,
		    (unsigned long long)((uint64_t)got * (uint64_t)pg / DWARF_SAMPLE_BYTES),
		    dwarf_stack());
	if (need <= allow) {
		report(e, "ok", "memlock", NULL, "%s of rings for %d CPUs within %s (perf_event_mlock_kb %ld x %d + RLIMIT_MEMLOCK)%s",
		    n, ncpu, al, mlock_kb, ncpu, held);
	} else if (need_min <= allow) {
		snprintf(fix, sizeof(fix), "ulimit -l unlimited (or larger), sysctl -w "
		    "kernel.perf_event_mlock_kb=%llu, or run as root",
		    (unsigned long long)((1 + ring_pages) * (uint64_t)pg / 1024));
		report(e, "warn", "memlock", fix,
		    "%s of rings for %d CPUs exceeds %s (perf_event_mlock_kb %ld x %d + RLIMIT_MEMLOCK): "
		    "%s will use rings of %u pages and may lose samples%s", n, ncpu, al, mlock_kb, ncpu,
		    tool->name, got, held);
	} else {
		snprintf(fix, sizeof(fix), "ulimit -l unlimited (or larger), sysctl -w "
		    "kernel.perf_event_mlock_kb=%llu, or run as root",
		    (unsigned long long)((1 + (opt.dwarf ? ring_pages : 128)) * (uint64_t)pg / 1024));
		report(e, "fail", "memlock", fix, "even the smallest rings%s (%s for %d CPUs) exceed %s",
		    opt.dwarf ? " that hold one -g dwarf sample" : "", m, ncpu, al);
	}
}

/*
 * The recorders open one event descriptor per online CPU for every thread
 * of every -p target (per CPU only for a command, whose threads inherit
 * them, and for -a), and raise their soft RLIMIT_NOFILE to the hard one:
 * the hard limit is what they get.
 */
static void
check_fds(struct env *e)
{
	const char *tool = opt.mode == MODE_OFFCPU ? pf_rec_offcpu.name : pf_rec_record.name;
	long threads = 0;
	int ncpu = e->ncpu > 0 ? e->ncpu : 1;
	uint64_t events, need;
	long nr_open = 0;
	struct rlimit rl;
	char what[96], procs[48] = "", fix[256];
	size_t i;

	for (i = 0; i < opt.npids; i++)
		if (e->t[i].ok && e->t[i].tst.num_threads > 0)
			threads += e->t[i].tst.num_threads;
	if (threads == 0)
		threads = 1;
	events = (uint64_t)threads * (uint64_t)ncpu;
	need = events + PF_REC_FD_RESERVE;
	if (opt.npids > 1)
		snprintf(procs, sizeof(procs), " of %zu processes", e->nok);
	if (e->nok > 0)
		snprintf(what, sizeof(what), "%ld thread%s%s x %d CPU%s", threads,
		    threads == 1 ? "" : "s", procs, ncpu, ncpu == 1 ? "" : "s");
	else
		snprintf(what, sizeof(what), "%d CPU%s", ncpu, ncpu == 1 ? "" : "s");
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_max == RLIM_INFINITY) {
		report(e, "ok", "fds", NULL, "%llu descriptors (%s, and %d of its own): "
		    "RLIMIT_NOFILE unlimited", (unsigned long long)need, what, PF_REC_FD_RESERVE);
		return;
	}
	if (need <= (uint64_t)rl.rlim_max) {
		report(e, "ok", "fds", NULL, "%llu descriptors (%s, and %d of its own) within "
		    "RLIMIT_NOFILE's hard limit %llu", (unsigned long long)need, what,
		    PF_REC_FD_RESERVE, (unsigned long long)rl.rlim_max);
		return;
	}
	(void)pf_sysctl_long(opt.proc_root, "sys/fs/nr_open", &nr_open);
	snprintf(fix, sizeof(fix), "raise the hard limit: prlimit --nofile=%llu:%llu -p $$ or "
	    "ulimit -Hn %llu as root%s", (unsigned long long)need, (unsigned long long)need,
	    (unsigned long long)need, nr_open > 0 && need > (uint64_t)nr_open ?
	    " (above fs.nr_open: sysctl -w fs.nr_open first)" : "");
	report(e, "fail", "fds", fix, "%s needs %llu descriptors (%s, and %d of its own), above "
	    "RLIMIT_NOFILE's hard limit %llu", tool, (unsigned long long)need, what,
	    PF_REC_FD_RESERVE, (unsigned long long)rl.rlim_max);
}

/* Runtimes with a JIT or an interpreter, and how each writes a perf map. */
static const struct runtime {
	const char *prefix;	/* comm or executable name starts with it */
	const char *name;
	const char *fix;	/* NULL: needs none */
} runtimes[] = {
	{ "beam", "Erlang/BEAM", "start the VM with +JPperf map (OTP 24+) to write /tmp/perf-PID.map" },
	{ "dotnet", ".NET", "set DOTNET_PerfMapEnabled=1 in the service's environment and restart it" },
	{ "erl", "Erlang/BEAM", "start the VM with +JPperf map (OTP 24+) to write /tmp/perf-PID.map" },
	{ "java", "Java", "jcmd PID Compiler.perfmap (JDK 17+) writes the map now; or restart with -XX:+PreserveFramePointer and perf-map-agent" },
	{ "node", "Node.js", "restart node with --perf-basic-prof (or --perf-basic-prof-only-functions)" },
	{ "php", "PHP", "PHP 8 JIT: set opcache.jit_debug=0x10 to write /tmp/perf-PID.map" },
	/* The recorders read a CPython's frames from its memory: the python check. */
	{ "python", "Python", NULL },
	{ "ruby", "Ruby", "Ruby 3.3+: restart with --yjit --yjit-perf to write /tmp/perf-PID.map" },
};

static const struct runtime *
find_runtime(const char *name)
{
	size_t i;

	for (i = 0; i < PF_ARRAY_LEN(runtimes); i++)
		if (strncmp(name, runtimes[i].prefix, strlen(runtimes[i].prefix)) == 0)
			return &runtimes[i];
	return NULL;
}

/* The target's executable path (readlink of exe), or "" when hidden. */
static void
target_exe(const struct target *t, char *buf, size_t n)
{
	char link[PATH_MAX];
	ssize_t r;

	buf[0] = '\0';
	snprintf(link, sizeof(link), "%s/%d/exe", opt.proc_root, t->pid);
	r = readlink(link, buf, n - 1);
	if (r < 0)
		r = 0;
	buf[r] = '\0';
}

static void
check_runtime(struct env *e, const struct target *t)
{
	const struct runtime *rt;
	char exe[PATH_MAX], map[PATH_MAX], fix[512];
	const char *base;
	struct stat st;
	bool found = false;

	if (!t->ok)
		return;
	target_exe(t, exe, sizeof(exe));
	base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	rt = find_runtime(t->tst.comm);
	if (rt == NULL && base[0] != '\0')
		rt = find_runtime(base);
	if (rt == NULL) {
		report(e, "ok", "runtime", NULL, "%snative (%s): no JIT map needed", t->tag,
		    t->tst.comm);
		return;
	}
	if (rt->fix == NULL) {
		report(e, "ok", "runtime", NULL, "%s%s (%s): an interpreter, no JIT map needed",
		    t->tag, rt->name, t->tst.comm);
		return;
	}
	/* Inside a container the map is in the target's own /tmp, under its namespace pid. */
	snprintf(map, sizeof(map), "%s/%d/root/tmp/perf-%d.map", opt.proc_root, t->pid,
	    t->tstatus.nspid > 0 ? t->tstatus.nspid : t->pid);
	if (stat(map, &st) == 0)
		found = true;
	if (!found && !opt.fixture) {
		snprintf(map, sizeof(map), "/tmp/perf-%d.map", t->pid);
		found = stat(map, &st) == 0;
	}
	if (found) {
		report(e, "ok", "runtime", NULL, "%s%s (%s): JIT map %s present", t->tag, rt->name,
		    t->tst.comm, map);
		return;
	}
	snprintf(fix, sizeof(fix), "%s", rt->fix);
	report(e, "warn", "runtime", fix, "%s%s (%s): no /tmp/perf-%d.map, JIT frames will show as [unknown]",
	    t->tag, rt->name, t->tst.comm, t->tstatus.nspid > 0 ? t->tstatus.nspid : t->pid);
}

/* Symbols as the recorders would find them (symbolize.c's own search). */
static void
check_symbols(struct env *e, const struct target *t)
{
	char path[PATH_MAX], exe[PATH_MAX];
	struct pf_sym_fileinfo fi;
	int fd, rc;

	if (!t->ok)
		return;
	snprintf(path, sizeof(path), "%s/%d/exe", opt.proc_root, t->pid);
	target_exe(t, exe, sizeof(exe));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		if (t->tst.num_threads > 0 && errno == ENOENT && exe[0] == '\0')
			report(e, "ok", "symbols", NULL, "pid %d has no executable (kernel thread)", t->pid);
		else
			report(e, "warn", "symbols", "run as the process owner or root to read its executable",
			    "%s%s: %s", t->tag, path, strerror(errno));
		return;
	}
	/* As the recorders do: local debuginfo only, never the network. */
	unsetenv("DEBUGINFOD_URLS");
	rc = pf_sym_file_info(fd, exe[0] ? exe : path, &fi);
	close(fd);
	if (rc == -1) {
		report(e, "warn", "symbols", "frames of this executable will print as [unknown]",
		    "%s%s: not an ELF file", t->tag, exe[0] ? exe : path);
		return;
	}
	if (fi.symtab) {
		report(e, "ok", "symbols", NULL, "%s%s: has a symbol table", t->tag, exe);
		return;
	}
	if (fi.debuginfo) {
		report(e, "ok", "symbols", NULL, "%s%s: stripped, debug symbols in %s", t->tag, exe,
		    fi.debugfile);
		return;
	}
	report(e, "warn", "symbols",
	    "install its debug symbols (Debian: the -dbgsym package, dpkg -S to find the package), or rebuild with -g",
	    "%s%s: stripped (no .symtab) and no debuginfo found%s%s; only exported names resolve",
	    t->tag, exe[0] ? exe : path, fi.buildid[0] ? ", build-id " : "", fi.buildid);
}

/*
 * The C runtime: its functions are mostly called as leaves, so a frame-
 * pointer walk from inside one skips only its caller (rbp still holds
 * the caller's frame).  The rest of the target's code loses the stack.
 */
static bool
c_runtime(const char *path)
{
	static const char *const names[] = { "libc.so", "libc-", "libm.so", "libm-",
	    "ld-linux", "libpthread", "libdl.so", "libdl-", "librt.so", "librt-" };
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t i;

	for (i = 0; i < PF_ARRAY_LEN(names); i++)
		if (strncmp(base, names[i], strlen(names[i])) == 0)
			return true;
	return false;
}

#define UNWIND_FILES	64

struct unwind_files {
	char *path[UNWIND_FILES];
	uint64_t start[UNWIND_FILES], end[UNWIND_FILES], ino[UNWIND_FILES];
	size_t n;
	bool more;
};

static int
unwind_map(const struct pf_maps_entry *m, void *arg)
{
	struct unwind_files *u = arg;
	size_t i;

	if (!m->exec || m->path[0] != '/' || m->deleted)
		return 0;
	for (i = 0; i < u->n; i++)
		if (strcmp(u->path[i], m->path) == 0)
			return 0;
	if (u->n == UNWIND_FILES) {
		u->more = true;
		return 0;
	}
	if ((u->path[u->n] = strdup(m->path)) != NULL) {
		u->start[u->n] = m->start;
		u->end[u->n] = m->end;
		u->ino[u->n] = m->ino;
		u->n++;
	}
	return 0;
}

/*
 * The files target t maps executable, into *u (free them with
 * unwind_files_free): 0, or -1 with errno and the maps file's path in
 * path.
 */
static int
exec_files(const struct target *t, struct unwind_files *u, char *path, size_t n)
{
	int fd, rc;

	snprintf(path, n, "%s/%d/maps", opt.proc_root, t->pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	rc = pf_maps_read(fd, unwind_map, u);
	if (rc == -1) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	close(fd);
	return 0;
}

static void
unwind_files_free(struct unwind_files *u)
{
	size_t i;

	for (i = 0; i < u->n; i++)
		free(u->path[i]);
	u->n = 0;
}

/*
 * For each file the target maps executable: whether its code keeps
 * frame pointers, and what that means for the planned -g.
 */
static void
check_unwind(struct env *e, const struct target *t)
{
	struct unwind_files u = { .n = 0 };
	char path[PATH_MAX], exe[PATH_MAX], lacking[256] = "", fix[256], unjudged[256] = "";
	const char *libc = NULL, *libc_state = "not mapped";
	struct pf_fpinfo fi, libc_fi = { 0 };
	size_t i, nlacking = 0, nlibs = 0, nunjudged = 0;
	int fd;

	if (!t->ok)
		return;
	if (exec_files(t, &u, path, sizeof(path)) == -1) {
		report(e, "warn", "unwind", "run as the process owner or root to read its mappings",
		    "%s%s: %s", t->tag, path, strerror(errno));
		unwind_files_free(&u);
		return;
	}
	target_exe(t, exe, sizeof(exe));
	for (i = 0; i < u.n; i++) {
		bool fp, first = strcmp(u.path[i], exe) == 0;
		int rc;

		/*
		 * The mapped file itself (map_files), then its path through the
		 * target's root: in a chroot or a container the path in the maps
		 * is not the host's.
		 */
		if ((fd = pf_mapfile_open(NULL, opt.proc_root, t->pid, u.start[i], u.end[i],
		    u.path[i], u.ino[i])) == -1) {
			size_t l = strlen(unjudged);

			if (nunjudged++ < 4)
				snprintf(unjudged + l, sizeof(unjudged) - l, "%s%s", l ? ", " : "",
				    u.path[i]);
			continue;
		}
		rc = pf_fp_probe(fd, &fi);
		close(fd);
		if (rc == -1) {
			if (first)
				report(e, "warn", "unwind", opt.dwarf ?
				    "-g dwarf cannot unwind it either: rebuild with -fno-omit-frame-pointer, or with unwind tables (-fasynchronous-unwind-tables)" :
				    "rebuild with -fno-omit-frame-pointer if its stacks come out short",
				    "%s%s: no .text or no call-frame information (.eh_frame) to judge its frame pointers by",
				    t->tag, u.path[i]);
			continue;
		}
		fp = pf_fp_verdict(&fi) == PF_FP_WALKS;
		if (first && fi.go) {
			if (opt.dwarf)
				report(e, "ok", "unwind", NULL, "%s%s: Go code (its build-id note or "
				    ".go.buildinfo), whose assembly uses rbp as a general register; "
				    "-g dwarf unwinds it from .debug_frame", t->tag, u.path[i]);
			else {
				snprintf(fix, sizeof(fix), "use %s -g auto or -g dwarf",
				    opt.mode == MODE_OFFCPU ? "pf-offcpu" : "pf-record");
				report(e, "warn", "unwind", fix, "%s%s: Go code (its build-id note or "
				    ".go.buildinfo), whose assembly uses rbp as a general register: "
				    "-g fp stacks lose the callers of a sample there", t->tag, u.path[i]);
			}
			continue;
		}
		if (first) {
			if (fp)
				report(e, "ok", "unwind", NULL, "%s%s: keeps frame pointers (%u of %u probed "
				    "addresses have rbp frames)", t->tag, u.path[i], fi.rbp, fi.probed);
			else if (opt.dwarf)
				report(e, "ok", "unwind", NULL, "%s%s: no frame pointers (%u of %u probed "
				    "addresses have rbp frames); -g dwarf unwinds it from .eh_frame",
				    t->tag, u.path[i], fi.rbp, fi.probed);
			else {
				snprintf(fix, sizeof(fix), "use %s -g auto or -g dwarf (or rebuild "
				    "with -fno-omit-frame-pointer)", opt.mode == MODE_OFFCPU ?
				    "pf-offcpu" : "pf-record");
				report(e, "warn", "unwind", fix, "%s%s: no frame pointers (.eh_frame CFA "
				    "rules never use rbp: %u of %u probed addresses): -g fp stacks lose "
				    "callers", t->tag, u.path[i], fi.rbp, fi.probed);
			}
			continue;
		}
		if (c_runtime(u.path[i])) {
			if (strncmp(strrchr(u.path[i], '/') + 1, "libc", 4) == 0 &&
			    strchr(".-", strrchr(u.path[i], '/')[5]) != NULL) {
				libc = u.path[i];
				libc_fi = fi;
				libc_state = fp ? "keeps frame pointers" : "no frame pointers";
			}
			continue;
		}
		nlibs++;
		if (!fp) {
			size_t l = strlen(lacking);

			if (nlacking++ < 4)
				snprintf(lacking + l, sizeof(lacking) - l, "%s%s", l ? ", " : "",
				    strrchr(u.path[i], '/') + 1);
		}
	}
	if (nlacking > 0 && !opt.dwarf) {
		snprintf(fix, sizeof(fix), "use %s -g auto or -g dwarf", opt.mode == MODE_OFFCPU ?
		    "pf-offcpu" : "pf-record");
		report(e, "warn", "unwind", fix, "%s%zu of %zu libraries without frame pointers (%s%s): "
		    "-g fp stacks through them lose callers", t->tag, nlacking, nlibs, lacking,
		    nlacking > 4 ? ", ..." : "");
	} else if (nlibs > 0)
		report(e, "ok", "unwind", NULL, "%s%zu of %zu libraries without frame pointers%s",
		    t->tag, nlacking, nlibs, nlacking && opt.dwarf ? ": -g dwarf unwinds them" : "");
	/*
	 * libc without frame pointers costs the caller of the function a
	 * sample is in: off-CPU, that is every blocked stack's system call.
	 */
	if (libc != NULL && strcmp(libc_state, "no frame pointers") == 0 && !opt.dwarf &&
	    opt.mode == MODE_OFFCPU)
		report(e, "warn", "unwind", "use pf-offcpu -g auto or -g dwarf",
		    "%s%s: no frame pointers (%u of %u probed addresses have rbp frames): each "
		    "blocked stack loses the caller of its system call wrapper with -g fp", t->tag,
		    libc, libc_fi.rbp, libc_fi.probed);
	else if (libc != NULL)
		report(e, "ok", "unwind", NULL, "%s%s: %s (%u of %u probed addresses have rbp frames)%s",
		    t->tag, libc, libc_state, libc_fi.rbp, libc_fi.probed,
		    strcmp(libc_state, "no frame pointers") == 0 ? (opt.dwarf ?
		    "; -g dwarf unwinds it" : "; with -g fp a sample inside it loses only its caller") : "");
	if (nunjudged > 0)
		report(e, opt.dwarf ? "ok" : "warn", "unwind", opt.dwarf ? NULL :
		    "run as root, which opens a mapping through /proc/PID/map_files",
		    "%s%zu mapped file%s could not be opened to judge (%s%s)%s", t->tag, nunjudged,
		    nunjudged == 1 ? "" : "s", unjudged, nunjudged > 4 ? ", ..." : "",
		    opt.dwarf ? ": -g dwarf unwinds what it can read" : "");
	if (u.more)
		report(e, "ok", "unwind", NULL, "%sonly the first %d files mapped were checked",
		    t->tag, UNWIND_FILES);
	unwind_files_free(&u);
}

/* Append word to the list in buf ("a, b"), the first four only; counts in *n. */
static void
list_add(char *buf, size_t size, size_t *n, const char *word)
{
	size_t l = strlen(buf);

	if ((*n)++ < 4)
		snprintf(buf + l, size - l, "%s%s", l ? ", " : "", word);
}

/*
 * Why the recorders would leave the Python frames of the interpreter
 * 3.minor unnamed for lack of what 3.9 and 3.10 need: libc's offset of
 * a thread's tid in its pthread_t (pf_py_elf_pthread_tid), as the
 * recorder reads it from the C library the target maps (u's file libc,
 * or none).  NULL when they will find it.
 */
static const char *
python_tid_lacking(const struct target *t, const struct unwind_files *u, size_t libc,
    int minor, char *why, size_t n)
{
	uint32_t off;
	int fd, rc;

	if (minor > 10)
		return NULL;
	if (libc == SIZE_MAX) {
		snprintf(why, n, "3.%d knows a thread by its pthread_t, and no C library is "
		    "mapped to find its thread id by (_thread_db_pthread_tid)", minor);
		return why;
	}
	if ((fd = pf_mapfile_open(NULL, opt.proc_root, t->pid, u->start[libc], u->end[libc],
	    u->path[libc], u->ino[libc])) == -1) {
		snprintf(why, n, "its C library %s, where 3.%d's thread ids are found "
		    "(_thread_db_pthread_tid), could not be opened", u->path[libc], minor);
		return why;
	}
	rc = pf_py_elf_pthread_tid(fd, &off);
	close(fd);
	if (rc == -1) {
		snprintf(why, n, "3.%d knows a thread by its pthread_t, and its C library %s "
		    "has no _thread_db_pthread_tid to find the thread's id by", minor,
		    u->path[libc]);
		return why;
	}
	return NULL;
}

/*
 * The line of one CPython found in target t (file path, what its ELF
 * says in pe): whether the recorders will name its Python frames, and
 * if not, why.  What cannot be helped is said first (its version, its C
 * library), then what can (the capabilities of this caller).
 */
static void
python_line(struct env *e, const struct target *t, const struct unwind_files *u, size_t libc,
    const char *path, const struct pf_py_elf *pe)
{
	const char *tool = opt.mode == MODE_OFFCPU ? "pf-offcpu" : "pf-record";
	const struct pf_caps *c = &e->caps;
	char why[PATH_MAX + 160], fix[160], lack[96] = "";

	if (pe->from == PF_PY_VER_NONE || pe->major != 3) {
		report(e, "warn", "python", "pf names the Python functions of a CPython 3.9 to 3.13 "
		    "whose file says its version (Py_Version, the libpython3.N soname, or the name "
		    "python3.N)", "%sCPython of unknown version (%s): its stacks will stay native "
		    "(the interpreter's C functions): no version to read its frames by", t->tag,
		    path);
		return;
	}
	if (pf_py_layout(pe->minor) == NULL) {
		report(e, "warn", "python", "to see its Python functions, run it on CPython 3.9 to "
		    "3.13", "%sCPython 3.%d (%s): its stacks will stay native (the interpreter's C "
		    "functions): pf reads the frames of CPython 3.9 to 3.13", t->tag, pe->minor,
		    path);
		return;
	}
	if (python_tid_lacking(t, u, libc, pe->minor, why, sizeof(why)) != NULL) {
		report(e, "warn", "python", "glibc's libc.so.6 publishes _thread_db_pthread_tid for "
		    "debuggers; with another C library, run it on CPython 3.11 to 3.13",
		    "%sCPython 3.%d (%s): its stacks will stay native: %s", t->tag, pe->minor, path,
		    why);
		return;
	}
	/* The helper starts as mapfile.c's pf_mapfiles_start allows, and reads with ptrace's right. */
	if (!c->sys_ptrace)
		snprintf(lack, sizeof(lack), "CAP_SYS_PTRACE");
	if (!c->sys_admin && !c->checkpoint_restore)
		snprintf(lack + strlen(lack), sizeof(lack) - strlen(lack), "%s%s", lack[0] ? " and " :
		    "", "CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE");
	if (lack[0] != '\0') {
		snprintf(fix, sizeof(fix), "run %s as root, with CAP_SYS_PTRACE and CAP_SYS_ADMIN, "
		    "to name its Python functions", tool);
		report(e, "warn", "python", fix, "%sCPython 3.%d (%s): its stacks will stay native: "
		    "%s reads the frames from its memory through its file helper, which takes "
		    "CAP_SYS_PTRACE to read and CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE to start; "
		    "uid %u lacks %s", t->tag, pe->minor, path, tool, (unsigned)e->uid, lack);
		return;
	}
	report(e, "ok", "python", NULL, "%sCPython 3.%d (%s): its frames will be named (%s reads "
	    "them through its helper)", t->tag, pe->minor, path, tool);
}

/*
 * Which Python target t runs, and whether the recorders will name its
 * frames: each file it maps executable whose name holds "python", and
 * its own executable (an interpreter embedded in a program named
 * otherwise), is looked at for a CPython (pf_py_elf_probe: _PyRuntime
 * and the version, from the file alone; the target's memory is never
 * read), as the recorders look.  A line per interpreter found; when none
 * is, one saying why, if a python file was mapped; no line for a target
 * that maps none.
 */
static void
check_python(struct env *e, const struct target *t)
{
	struct unwind_files u = { .n = 0 };
	struct pf_py_elf pe;
	char path[PATH_MAX], exe[PATH_MAX], unopened[256] = "", plain[256] = "";
	size_t i, libc = SIZE_MAX, nfound = 0, nunopened = 0, nplain = 0;
	ssize_t n;
	int fd, rc;

	/* Maps that cannot be read: the unwind check says so and how to fix it. */
	if (!t->ok || exec_files(t, &u, path, sizeof(path)) == -1) {
		unwind_files_free(&u);
		return;
	}
	for (i = 0; i < u.n; i++) {
		const char *base = strrchr(u.path[i], '/') + 1;

		if (libc == SIZE_MAX && strncmp(base, "libc", 4) == 0 &&
		    (base[4] == '.' || base[4] == '-'))
			libc = i;
	}
	snprintf(path, sizeof(path), "%s/%d/exe", opt.proc_root, t->pid);
	if ((n = readlink(path, exe, sizeof(exe) - 1)) <= 0)
		n = 0;
	exe[n] = '\0';
	for (i = 0; i < u.n; i++) {
		const char *base = strrchr(u.path[i], '/') + 1;
		bool named = strstr(base, "python") != NULL;

		/* Its executable, named otherwise: only an interpreter found is said. */
		if (!named && strcmp(u.path[i], exe) != 0)
			continue;
		if ((fd = pf_mapfile_open(NULL, opt.proc_root, t->pid, u.start[i], u.end[i],
		    u.path[i], u.ino[i])) == -1) {
			if (named)
				list_add(unopened, sizeof(unopened), &nunopened, u.path[i]);
			continue;
		}
		rc = pf_py_elf_probe(fd, u.path[i], &pe);
		close(fd);
		if (rc == -1) {
			if (named)
				list_add(plain, sizeof(plain), &nplain, base);
			continue;
		}
		nfound++;
		python_line(e, t, &u, libc, u.path[i], &pe);
	}
	if (nfound == 0 && nunopened > 0)
		report(e, "warn", "python", "run as root, which opens a mapping through "
		    "/proc/PID/map_files", "%s%zu python file%s it maps could not be opened (%s%s): "
		    "whether its Python functions will be named is not known", t->tag, nunopened,
		    nunopened == 1 ? "" : "s", unopened, nunopened > 4 ? ", ..." : "");
	else if (nfound == 0 && nplain > 0)
		report(e, "warn", "python", "pf names the Python functions of CPython 3.9 to 3.13",
		    "%sno CPython runtime (_PyRuntime) in the python files it maps (%s%s): its "
		    "stacks will stay native", t->tag, plain, nplain > 4 ? ", ..." : "");
	unwind_files_free(&u);
}

/*
 * -g auto, as the recorder will decide it (fpcheck.h), so the probe and
 * the memlock check size what it will use.  pf-record's default is auto,
 * pf-offcpu's fp.  Under -a (system) pf-record judges the host's C
 * library, as it does a command not named yet (with no -p): it is what
 * a dynamically linked one maps.  Of a list, as the recorder does: dwarf
 * when one process has a file without frame pointers or of Go code,
 * else fp (said unreadable when one's mappings could not be read); only
 * the targets found usable are judged.
 */
static void
check_callgraph(struct env *e)
{
	const char *tool = opt.mode == MODE_OFFCPU ? "pf-offcpu" : "pf-record";
	const char *how = opt.cgroup ? "--cgroup" : "-a";
	char file[56], one[56], who[48] = "the target's";
	const struct target *by = NULL;
	size_t i;
	int rc = 0;

	if (!opt.cg_given)
		opt.cg_auto = true;
	if (!opt.cg_auto)
		return;
	if (opt.mode == MODE_SYSTEM) {
		rc = pf_fp_lacking_libc(opt.proc_root, file, sizeof(file));
		opt.dwarf = rc == PF_FP_LACKING;
		if (opt.dwarf)
			report(e, "ok", "unwind", NULL, "-g auto: %s %s will record with -g dwarf "
			    "at up to %d Hz (the host's %s has no frame pointers)", tool, how,
			    PF_RECORD_FREQ_CEILING_DWARF_ALL, file);
		else if (rc == 0)
			report(e, "ok", "unwind", NULL, "-g auto: %s %s will record with -g fp "
			    "(the host's C library keeps frame pointers)", tool, how);
		else
			report(e, "ok", "unwind", NULL, "-g auto: %s %s will record with -g fp "
			    "(no C library of the host's found to judge)", tool, how);
		return;
	}
	if (opt.npids == 0 && pf_fp_lacking_libc(opt.proc_root, file, sizeof(file)) ==
	    PF_FP_LACKING)
		rc = PF_FP_LACKING;
	else if (opt.npids > 0 && e->nok == 0)
		return;
	for (i = 0; i < opt.npids && rc <= PF_FP_WALKS; i++) {
		int k;

		if (!e->t[i].ok)
			continue;
		k = pf_fp_lacking_proc(opt.proc_root, e->t[i].pid, one, sizeof(one));
		if (k > PF_FP_WALKS || (k == -1 && rc == 0)) {
			rc = k;
			by = &e->t[i];
			snprintf(file, sizeof(file), "%s", one);
		}
	}
	opt.dwarf = rc > PF_FP_WALKS;
	if (by != NULL && opt.npids > 1)
		snprintf(who, sizeof(who), "pid %d's", by->pid);
	/*
	 * pf-offcpu's stack copy at each switch: fp past its rate, and for a
	 * command, whose rate is unknown before it runs, as it decides.
	 */
	if (opt.dwarf && opt.mode == MODE_OFFCPU && opt.npids == 0) {
		opt.dwarf = false;
		report(e, "ok", "unwind", NULL, "-g auto: %s will record a command with -g fp "
		    "(its context switches cannot be counted before it runs; -g dwarf if it "
		    "blocks at a modest rate)", tool);
		return;
	}
	if (opt.dwarf && opt.mode == MODE_OFFCPU && opt.npids > 0) {
		int pids[PF_TARGET_MAX_PIDS];
		double rate;
		size_t n = 0;

		for (i = 0; i < opt.npids; i++)
			if (e->t[i].ok)
				pids[n++] = e->t[i].pid;
		rate = pf_switch_rate(opt.proc_root, pids, n, PF_OFFCPU_AUTO_PROBE_MS);
		if (rate > PF_OFFCPU_AUTO_RATE) {
			opt.dwarf = false;
			report(e, "ok", "unwind", NULL, "-g auto: %s will record with -g fp (%.0f "
			    "context switches a second, above %d: a stack copy at each would cost "
			    "too much)", tool, rate, PF_OFFCPU_AUTO_RATE);
			return;
		}
	}
	if (rc == PF_FP_GO)
		report(e, "ok", "unwind", NULL, "-g auto: %s will record with -g dwarf "
		    "(%s%s is Go code, whose assembly uses rbp as a general register)", tool,
		    by != NULL ? by->tag : "", file);
	else if (rc == PF_FP_LACKING)
		report(e, "ok", "unwind", NULL, "-g auto: %s will record with -g dwarf "
		    "(%s%s has no frame pointers)", tool, by != NULL ? by->tag : "", file);
	else if (rc == PF_FP_UNJUDGED)
		report(e, "ok", "unwind", NULL, "-g auto: %s will record with -g dwarf "
		    "(%s%s could not be judged)", tool, by != NULL ? by->tag : "", file);
	else if (rc == 0)
		report(e, "ok", "unwind", NULL, "-g auto: %s will record with -g fp "
		    "(the files judged keep frame pointers)", tool);
	else
		report(e, "ok", "unwind", NULL, "-g auto: %s will record with -g fp "
		    "(%s mappings cannot be read)", tool, who);
}

static void
check_load(struct env *e)
{
	struct pf_sysstat *a, *b;
	struct pf_psi io;
	struct timespec d = { 0, 250000000 };
	double itv, iowait = 0, io10 = -1;
	uint64_t blocked;
	char fix[sizeof(opt.pidlist) + 128];

	a = malloc(sizeof(*a));
	b = malloc(sizeof(*b));
	if (a == NULL || b == NULL || pf_sysstat_read(opt.proc_root, a) == -1) {
		report(e, "warn", "load", "run pf-classify to see what the box is doing",
		    "%s/stat: %s", opt.proc_root, strerror(errno));
		free(a);
		free(b);
		return;
	}
	e->ncpu = a->ncpu;
	if (!opt.fixture)
		nanosleep(&d, NULL);
	if (pf_sysstat_read(opt.proc_root, b) == -1)
		*b = *a;
	itv = (double)((b->all.user + b->all.nice + b->all.system + b->all.idle + b->all.iowait +
	    b->all.irq + b->all.softirq + b->all.steal) -
	    (a->all.user + a->all.nice + a->all.system + a->all.idle + a->all.iowait +
	    a->all.irq + a->all.softirq + a->all.steal));
	if (itv > 0 && b->all.iowait >= a->all.iowait)
		iowait = 100.0 * (double)(b->all.iowait - a->all.iowait) / itv;
	blocked = b->procs_blocked;
	free(a);
	free(b);
	if (pf_psi_read_system(opt.proc_root, "io", &io) == 0)
		io10 = io.some_avg10;
	if (opt.npids > 0)
		snprintf(fix, sizeof(fix), "classify first: pf-classify -p %s (time waiting for I/O is off-CPU: pf-offcpu, not pf-record)", opt.pidlist);
	else
		snprintf(fix, sizeof(fix), "classify first: pf-classify (time waiting for I/O is off-CPU: pf-offcpu, not pf-record)");
	if (iowait >= 10 || blocked >= 2 || io10 >= 10) {
		char psi[48] = "";

		if (io10 >= 0)
			snprintf(psi, sizeof(psi), ", io pressure avg10 %.1f%%", io10);
		report(e, "warn", "load", fix, "iowait %.1f%%, %llu tasks blocked on I/O%s",
		    iowait, (unsigned long long)blocked, psi);
		return;
	}
	report(e, "ok", "load", NULL, "iowait %.1f%%, %llu tasks blocked on I/O", iowait,
	    (unsigned long long)blocked);
}

/* The container of target t, or with t NULL (no usable target) this shell's. */
static void
check_container(struct env *e, const struct target *t)
{
	struct pf_cgroup cg;
	char detail[PATH_MAX + 64] = "";
	bool hint = false;

	if (t == NULL) {
		if (pf_cgroup_find(opt.proc_root, opt.sys_root, 0, &cg) == 0 && cg.nested) {
			report(e, "warn", "container", "run pf tools on the host for whole-box figures",
			    "this shell is in cgroup %s: /proc/stat, PSI and load are host-wide", cg.path);
			return;
		}
		report(e, "ok", "container", NULL, "none seen");
		return;
	}
	if (pf_cgroup_find(opt.proc_root, opt.sys_root, t->pid, &cg) == 0 && cg.nested) {
		snprintf(detail, sizeof(detail), "cgroup %s", cg.path);
		hint = true;
	}
	if (t->tstatus.nspid_levels > 1) {
		size_t l = strlen(detail);

		snprintf(detail + l, sizeof(detail) - l, "%spid namespace (pid %d inside)",
		    l ? ", " : "", t->tstatus.nspid);
		hint = true;
	}
	if (!hint) {
		report(e, "ok", "container", NULL, "pid %d: host cgroup and pid namespace", t->pid);
		return;
	}
	report(e, "warn", "container",
	    "binaries and JIT maps are read through /proc/PID/root; CPU figures in /proc/stat are host-wide (read the cgroup's cpu.stat)",
	    "pid %d: %s", t->pid, detail);
}

/* The command line into opt; any misuse is exit 2 (pf_usage_error). */
static void
parse_options(int argc, char **argv)
{
	enum { OPT_MIN_FREE = 256, OPT_MODE, OPT_NO_PROBE, OPT_PROC_ROOT, OPT_SYS_ROOT, OPT_VERSION,
		OPT_CGROUP };
	static const struct option longopts[] = {
		{ "call-graph", required_argument, NULL, 'g' },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "help", no_argument, NULL, 'h' },
		{ "min-free", required_argument, NULL, OPT_MIN_FREE },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "no-probe", no_argument, NULL, OPT_NO_PROBE },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "proc-root", required_argument, NULL, OPT_PROC_ROOT },
		{ "sys-root", required_argument, NULL, OPT_SYS_ROOT },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	static const char shortopts[] = ":g:ho:p:";
	char why[96];
	size_t i, l;
	int c;

	opterr = 0;	/* one line of our own, from pf_usage_getopt */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'g':
			opt.cg_given = true;
			opt.cg_auto = strcmp(optarg, "auto") == 0;
			if (strcmp(optarg, "dwarf") == 0)
				opt.dwarf = true;
			else if (strcmp(optarg, "fp") == 0 || opt.cg_auto)
				opt.dwarf = false;
			else
				pf_usage_error(synopsis, "-g: unknown call graph '%s' (fp, dwarf, auto)",
				    optarg);
			break;
		case 'h':
			usage();
			pf_exit_checked(PF_EXIT_OK);
		case 'o':
			opt.outdir = optarg;
			break;
		case 'p':
			if (pf_parse_pid_arg(optarg, opt.pids, PF_TARGET_MAX_PIDS, &opt.npids, why,
			    sizeof(why)) == -1)
				pf_usage_error(synopsis, "%s", why);
			opt.npids = pf_pid_list_unique(opt.pids, opt.npids);
			break;
		case OPT_CGROUP:
			opt.cgroup = optarg;
			break;
		case OPT_MIN_FREE:
			if (pf_parse_size_or_percent(optarg, &opt.min_free_bytes, &opt.min_free_pct) == -1)
				pf_usage_error(synopsis, "--min-free: invalid size or percentage '%s'", optarg);
			/* "0" means no floor, as in pf-record. */
			if (opt.min_free_pct < 0 && opt.min_free_bytes == 0)
				opt.min_free_pct = 0;
			break;
		case OPT_MODE:
			for (i = 0; i < PF_ARRAY_LEN(mode_names); i++)
				if (strcmp(optarg, mode_names[i]) == 0)
					break;
			if (i == PF_ARRAY_LEN(mode_names))
				pf_usage_error(synopsis, "--mode %s: want oncpu, offcpu or system", optarg);
			opt.mode = (enum mode)i;
			break;
		case OPT_NO_PROBE:
			opt.probe = false;
			break;
		case OPT_PROC_ROOT:
			opt.proc_root = optarg;
			break;
		case OPT_SYS_ROOT:
			opt.sys_root = optarg;
			break;
		case OPT_VERSION:
			pf_print_version();
		default:
			pf_usage_getopt(synopsis, shortopts, c, argv);
		}
	}
	if (optind != argc)
		pf_usage_error(synopsis, "%s: unexpected argument", argv[optind]);
	if (opt.npids > 0 && opt.mode == MODE_SYSTEM)
		pf_usage_error(synopsis, "--mode system samples every process: drop -p");
	if (opt.cgroup != NULL && opt.npids > 0)
		pf_usage_error(synopsis, "give -p PID or --cgroup PATH, not both");
	/* A cgroup is recorded on every CPU, as -a: what -a needs, it needs. */
	if (opt.cgroup != NULL)
		opt.mode = MODE_SYSTEM;
	for (i = 0, l = 0; i < opt.npids; i++)
		l += (size_t)snprintf(opt.pidlist + l, sizeof(opt.pidlist) - l, "%s%d",
		    i ? "," : "", (int)opt.pids[i]);
	opt.fixture = strcmp(opt.proc_root, "/proc") != 0 || strcmp(opt.sys_root, "/sys") != 0;
}

int
main(int argc, char **argv)
{
	struct env e;
	struct stat st;
	size_t i;

	parse_options(argc, argv);
	if (stat(opt.proc_root, &st) == -1)
		pf_die(PF_EXIT_FAIL, "%s", opt.proc_root);
	if (!S_ISDIR(st.st_mode))
		pf_diex(PF_EXIT_FAIL, "%s: not a directory", opt.proc_root);

	memset(&e, 0, sizeof(e));
	e.uid = geteuid();
	if (pf_caps_get(&e.caps) == -1)
		pf_die(PF_EXIT_FAIL, "capabilities");
	for (i = 0; i < opt.npids; i++) {
		e.t[i].pid = (int)opt.pids[i];
		if (opt.npids > 1)
			snprintf(e.t[i].tag, sizeof(e.t[i].tag), "pid %d: ", e.t[i].pid);
	}
	/*
	 * The host's checks once, the target's for each process of -p; the
	 * verdict is the worst of all.
	 */
	check_paranoid(&e);
	check_kptr(&e);
	check_caps(&e);
	if (opt.npids == 0)
		check_no_target(&e);
	for (i = 0; i < opt.npids; i++)
		check_target(&e, &e.t[i]);
	check_callgraph(&e);
	if (!probe_skipped(&e)) {
		if (opt.npids == 0)
			check_probe(&e, NULL);
		for (i = 0; i < opt.npids; i++)
			check_probe(&e, &e.t[i]);
	}
	check_disk(&e);
	check_load(&e);		/* also counts the CPUs for memlock */
	check_memlock(&e);
	check_fds(&e);
	for (i = 0; i < opt.npids; i++)
		check_runtime(&e, &e.t[i]);
	for (i = 0; i < opt.npids; i++)
		check_python(&e, &e.t[i]);
	for (i = 0; i < opt.npids; i++)
		check_symbols(&e, &e.t[i]);
	for (i = 0; i < opt.npids; i++)
		check_unwind(&e, &e.t[i]);
	if (e.nok == 0)
		check_container(&e, NULL);
	for (i = 0; i < opt.npids; i++)
		if (e.t[i].ok)
			check_container(&e, &e.t[i]);
	if (e.failed)
		printf("fail verdict %s: %d check%s failed, %d warning%s\n", mode_names[opt.mode], e.failed, e.failed == 1 ? "" : "s",
		    e.warned, e.warned == 1 ? "" : "s");
	else
		printf("ok verdict %s: safe to run %s, %d warning%s\n", mode_names[opt.mode],
		    opt.mode == MODE_OFFCPU ? "pf-offcpu" : opt.cgroup ? "pf-record --cgroup" :
		    opt.mode == MODE_SYSTEM ? "pf-record -a" : "pf-record",
		    e.warned, e.warned == 1 ? "" : "s");
	pf_exit_checked(e.failed ? PF_EXIT_FINDING : PF_EXIT_OK);
}
