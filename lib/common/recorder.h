/*
 * recorder: what pf-record and pf-offcpu share, from the command line to
 * the exit status: the common options, the checks of the kernel's
 * settings and capabilities, the output and its disk floor, the target,
 * the privileged set-up before the capabilities are dropped, the header,
 * the window, the symbols after it, the trailer and the end-of-run
 * status.  A tool supplies only what differs through struct
 * pf_recorder_ops: its event, its own options, its header words, how its
 * samples become text, and its --stats line.
 *
 * This module neither prints nor exits.  Warnings and the progress line
 * go through the tool's say callback (pf_say from msg.h prints them); a
 * failure comes back as a struct pf_result the tool reports with
 * pf_result_exit.
 */
#ifndef PF_RECORDER_H
#define PF_RECORDER_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <linux/perf_event.h>

#include "comms.h"
#include "kallsyms.h"
#include "msg.h"
#include "outfile.h"
#include "perfring.h"
#include "privs.h"
#include "rawrec.h"
#include "stop.h"
#include "symbolize.h"
#include "target.h"
#include "writer.h"

/*
 * The recorders' limits, in one place: pf-precheck sizes its memlock and
 * stack checks from the same numbers.
 */
#define PF_REC_SIZE_DEFAULT	(64ULL << 20)	/* --max-size */
#define PF_REC_SIZE_CEILING	(1ULL << 30)
#define PF_REC_SIZE_MIN		4096
#define PF_REC_MAX_STACK	127		/* frames, at most, whatever the sysctl */
#define PF_RECORD_RING_PAGES	128		/* data pages per CPU ring */
#define PF_RECORD_FREQ_DEFAULT	99		/* Hz */
#define PF_RECORD_FREQ_CEILING	999
#define PF_RECORD_FREQ_CEILING_DWARF_ALL 99	/* -g dwarf -a: every sample is unwound */
/*
 * -g dwarf: the bytes of user stack each sample copies from the stack
 * pointer up; a deeper stack ends in a [truncated] frame.  pf-record
 * copies the kernel's ceiling (65528) from a target: compilers and
 * interpreters run deeper than 16 KiB (clang++ -O2 on a big file: 99.8%
 * of its stacks were cut at 16 KiB, 2% at 65528), for some 20% more of
 * pf-record's CPU a sample and no loss (pf-record(8), make bench).
 * Under -a, where every CPU's ring takes copies, and in pf-offcpu, whose
 * samples come at every switch, 16 KiB.
 */
#define PF_RECORD_DWARF_STACK	65528
#define PF_REC_DWARF_STACK	16384
/* -g dwarf rings: a sample is 16 KiB and more, 2 MiB hold some 120 of them. */
#define PF_REC_DWARF_RING_PAGES	512
#define PF_RECORD_DUR_DEFAULT	15		/* seconds */
#define PF_RECORD_DUR_DEFAULT_ALL 10		/* with -a */
#define PF_RECORD_DUR_CEILING	120
#define PF_RECORD_DUR_CEILING_ALL 30
#define PF_OFFCPU_RING_PAGES	256		/* a switch record at every switch */
#define PF_OFFCPU_DUR_DEFAULT	10
#define PF_OFFCPU_DUR_CEILING	60
#define PF_OFFCPU_RATE_CEILING	50000		/* context switches per second */
/*
 * pf-offcpu -g auto -p: above this many context switches a second of the
 * targets, measured over PF_OFFCPU_AUTO_PROBE_MS before the window, fp,
 * not dwarf: a stack copy and unwind at each switch cost 18 us more than
 * fp's sample here (pf-offcpu.8), 90% of a CPU at this rate, the rate
 * cap's ceiling.  Below it, a service whose threads queue on a lock held
 * across fdatasync made 10,000 to 28,000 switches a second here: the
 * kind of target whose callers only dwarf finds.
 */
#define PF_OFFCPU_AUTO_RATE	PF_OFFCPU_RATE_CEILING
#define PF_OFFCPU_AUTO_PROBE_MS	100
/*
 * Descriptors a recorder holds besides its events (stdio, the output,
 * kallsyms, a maps file, pipes): the events are one per CPU per thread
 * (per CPU with -a or a command, whose threads inherit them).
 */
#define PF_REC_FD_RESERVE	16

/* The processes of a --cgroup target its file helper answers for at the start. */
#define PF_REC_CGROUP_PROCS	4096

/*
 * The common long options, for the tool's getopt_long table; a tool
 * numbers its own long options from PF_REC_OPT_TOOL.  The short ones are
 * PF_REC_SHORTOPTS; a tool's string starts "+:" (stop at the command, and
 * report a missing value as ':').
 */
enum {
	PF_REC_OPT_FORCE = 256, PF_REC_OPT_MAX_SIZE, PF_REC_OPT_MIN_FREE,
	PF_REC_OPT_NO_PROGRESS, PF_REC_OPT_STATS, PF_REC_OPT_VERSION,
	PF_REC_OPT_NO_INLINE, PF_REC_OPT_CMD_OUTPUT, PF_REC_OPT_CGROUP,
	PF_REC_OPT_PYTHON, PF_REC_OPT_NO_PYTHON, PF_REC_OPT_PYTHON_LINES,
	PF_REC_OPT_TOOL = 300
};
#define PF_REC_SHORTOPTS "ad:g:ho:p:"
#define PF_REC_LONGOPTS							\
	{ "all-cpus", no_argument, NULL, 'a' },				\
	{ "call-graph", required_argument, NULL, 'g' },			\
	{ "cgroup", required_argument, NULL, PF_REC_OPT_CGROUP },	\
	{ "cmd-output", required_argument, NULL, PF_REC_OPT_CMD_OUTPUT },	\
	{ "duration", required_argument, NULL, 'd' },			\
	{ "force", no_argument, NULL, PF_REC_OPT_FORCE },		\
	{ "help", no_argument, NULL, 'h' },				\
	{ "max-size", required_argument, NULL, PF_REC_OPT_MAX_SIZE },	\
	{ "min-free", required_argument, NULL, PF_REC_OPT_MIN_FREE },	\
	{ "no-inline", no_argument, NULL, PF_REC_OPT_NO_INLINE },	\
	{ "no-progress", no_argument, NULL, PF_REC_OPT_NO_PROGRESS },	\
	{ "no-python", no_argument, NULL, PF_REC_OPT_NO_PYTHON },	\
	{ "output", required_argument, NULL, 'o' },			\
	{ "pid", required_argument, NULL, 'p' },			\
	{ "python", no_argument, NULL, PF_REC_OPT_PYTHON },		\
	{ "python-lines", no_argument, NULL, PF_REC_OPT_PYTHON_LINES },	\
	{ "stats", no_argument, NULL, PF_REC_OPT_STATS },		\
	{ "version", no_argument, NULL, PF_REC_OPT_VERSION }

/*
 * -g: what the user stack is unwound by.  auto chooses fp or dwarf at the
 * start from the target's executable files (fpcheck.h): dwarf as soon as
 * one lacks frame pointers; fp under -a, where a stack copy per sample on
 * every CPU is -g dwarf's explicit choice.
 */
enum pf_rec_callgraph { PF_CG_FP, PF_CG_DWARF, PF_CG_AUTO };

/* The common options, as parsed. */
struct pf_rec_opts {
	const char *pids;
	/*
	 * Every CPU: -a, or --cgroup (cgroup set), whose events count only
	 * the cgroup's tasks and which is otherwise recorded as -a is.
	 */
	bool all;
	const char *cgroup;
	char **cmd;
	uint64_t duration_ns;	/* 0: the tool's default for the mode */
	uint64_t max_size;
	uint64_t min_free_bytes;
	double min_free_pct;	/* < 0: bytes, or the default when bytes is 0 too */
	const char *output;
	bool force;
	bool progress;
	bool stats;
	bool inlines;		/* inlined functions as frames (--no-inline: off) */
	/*
	 * Python frames (pyrec.h): -1 the default (on for -p and a command,
	 * off for -a and --cgroup), 0 --no-python, 1 --python.
	 */
	int python;
	bool python_lines;	/* --python-lines: names end in the first line */
	/*
	 * --cmd-output: where the command's standard output goes; NULL: the
	 * standard error when the stream is on the standard output, else
	 * the recorder's own standard output.
	 */
	const char *cmd_output;
};

struct pf_recorder;

/*
 * A recorder's words and limits: pf-record's and pf-offcpu's are here,
 * beside each other, and pf-precheck reads them too.
 */
struct pf_rec_tool {
	const char *name;		/* "pf-record": header, trailer */
	const char *unit;		/* what the progress line counts: "samples" */
	const char *doing;		/* "sampling": "system-wide sampling not permitted" */
	const char *evname;		/* the samples' event name, unless kernel() sets one */
	unsigned ring_pages;
	unsigned dur_default, dur_default_all;	/* seconds */
	unsigned dur_ceiling, dur_ceiling_all;
	uint64_t rate_cap;		/* the default of r->rate_cap; 0: none */
	const char *rate_what;		/* "context switches", for the rate-cap warning */
	enum pf_rec_callgraph callgraph;	/* without -g */
	bool auto_all;			/* -g auto -a judges the host's C library (else fp) */
	uint64_t auto_rate_max;		/* -g auto -p: fp above this many switches/s; 0: none */
	unsigned dwarf_stack, dwarf_stack_all;	/* -g dwarf's stack copy, bytes; with -a */
	/*
	 * Python frames (pyrec.h): read as each sample arrives (the rings wake
	 * the recorder at every sample), or, for a tool whose samples come
	 * as threads stop running (whose Python frames then hold still),
	 * with the rings drained every py_poll_ms.
	 */
	bool py_wake_each;
	unsigned py_poll_ms;
};

/* The bytes of user stack a -g dwarf sample of tool copies, with -a or not. */
unsigned pf_rec_dwarf_stack(const struct pf_rec_tool *tool, bool all);

extern const struct pf_rec_tool pf_rec_record, pf_rec_offcpu;

struct pf_recorder_ops {
	const struct pf_rec_tool *tool;
	const char *shortopts;		/* PF_REC_SHORTOPTS and the tool's own */
	const struct option *longopts;	/* PF_REC_LONGOPTS and the tool's own */
	/* Prints warnings and the progress line (pf_say). */
	void (*say)(enum pf_say kind, int err, const char *text);
	/*
	 * A tool's own option.  0, or -1 with st set, or 1 when ch is not one
	 * (getopt's '?': it has said why).
	 */
	int (*option)(struct pf_recorder *r, int ch, const char *arg, struct pf_result *st);
	/*
	 * Whether to go on, after the options (NULL: nothing to check) and
	 * after the kernel's settings are read: 0, or -1 with st set.
	 */
	int (*check_options)(struct pf_recorder *r, struct pf_result *st);
	int (*check_privileges)(struct pf_recorder *r, struct pf_result *st);
	/* Decide on kernel symbols (pf_recorder_open_kallsyms). */
	void (*kernel)(struct pf_recorder *r);
	/* The tool's event; the core sets the sample layout and the target's bits. */
	void (*attr)(struct pf_recorder *r, struct pf_perf_attr *a);
	/* The tool's words of a refused perf_event_open on pid, for EACCES/EPERM. */
	void (*denied)(struct pf_recorder *r, pid_t pid, struct pf_result *st);
	/*
	 * The rest of the header's first line after the target (up to and
	 * with start=when and the newline) and any line of its own.
	 */
	void (*header)(struct pf_recorder *r, struct pf_buf *h, const char *when);
	/*
	 * The samples to write, in output order, each with the period to
	 * write (the caller frees).  NULL with errno when they could not be
	 * listed.
	 */
	struct pf_rawref *(*samples)(struct pf_recorder *r, size_t *n);
	/*
	 * The tool's own figures for the --stats line ("samples N", ...),
	 * appended to b; the core adds the timing, raw bytes and symbol cache.
	 */
	void (*stats)(struct pf_recorder *r, struct pf_buf *b);
	/*
	 * Optional (NULL: none), during the window: drained after every
	 * drain of the rings (-1 with errno fails the run); over_rate once,
	 * when r->rate_cap is first exceeded: true to go on at a bounded cost
	 * instead of stopping at the cap.
	 */
	int (*drained)(struct pf_recorder *r, bool last);
	bool (*over_rate)(struct pf_recorder *r);
};

/* One run.  The tool reads these from its callbacks. */
struct pf_recorder {
	const struct pf_recorder_ops *ops;
	void *tool;			/* the tool's own state, as given to pf_recorder_main */
	struct pf_rec_opts opt;
	struct pf_caps caps;
	long paranoid, kptr, max_rate, max_stack;	/* max_rate: -1 unknown */
	int kallsyms_fd;		/* -1: kernel frames stay unnamed */
	struct pf_target t;
	struct pf_perf *perf;
	struct pf_symbolizer *sym;
	struct pf_mapfiles *mf;		/* the file helper (mapfile.h), NULL: files by path */
	int mf_err;			/* why there is none: 0 or an errno */
	int cgroup_fd;			/* --cgroup: its directory, else -1 */
	char cgroup_dir[4096];		/* ... and its path */
	struct pf_kallsyms *ksyms;
	struct pf_comms comms;
	struct pf_rawrec rec;
	enum pf_rec_callgraph callgraph;	/* as asked (-g, else the tool's default) */
	bool dwarf;			/* what the samples carry: -g dwarf, or auto's choice */
	char auto_why[80];		/* -g auto: why it chose, for the header ("" otherwise) */
	struct pf_outfile out;		/* -o: under a temporary name until published */
	int out_fd;			/* out.fd, or stdout */
	uint64_t min_free;
	bool floor_applies;
	const char *evname;		/* the samples' event name */
	uint64_t rate_cap;		/* stop above this many samples a second; 0: none */
	bool py_wake;			/* Python frames read at every sample */
	bool aggregated;		/* over_rate took the cap: the trailer says so */
	uint64_t naggregated;		/* ... with this count */
	enum pf_stop stop;		/* the window's */
	uint64_t dur_ns;		/* the window's length */
	uint64_t win_start;		/* pf_now_ns() as the window opened */
	uint64_t written;		/* samples written to the stream */
	bool kernel_sampled;		/* the events take kernel frames too */
	struct timespec start_wall;
	/* What confinement got, for the header: 0 or an errno each. */
	int seccomp_err, landlock_err;
	int landlock_abi;		/* 0: Landlock not applied */
	size_t landlock_paths;		/* the allow-list's length */
};

/*
 * The whole run of a recorder (one a process), argv to exit status: st,
 * returned, holds the PF_EXIT_* code, what to say (text empty when
 * nothing) and kind for -h and --version, for the tool to report with
 * pf_result_exit.  tool is the tool's own state (NULL: none), r->tool in
 * its callbacks; the tool frees it.
 */
const struct pf_result *pf_recorder_main(const struct pf_recorder_ops *ops, void *tool,
    int argc, char **argv, struct pf_result *st);

/*
 * Open /proc/kallsyms into r->kallsyms_fd for naming kernel frames after
 * the window.  1 when it shows addresses, 0 when it hides them (closed
 * again), -1 with errno when it cannot be opened.
 */
int pf_recorder_open_kallsyms(struct pf_recorder *r);

/*
 * The header's call-graph words: "callgraph=fp", or "callgraph=dwarf
 * stack=N", then " auto=WHY" when -g auto chose.
 */
void pf_recorder_callgraph(const struct pf_recorder *r, struct pf_buf *h);

/*
 * -a without the permission for it: -1 with st saying what would allow
 * it ("system-wide <doing> not permitted..."); 0 otherwise.
 */
int pf_recorder_check_all(struct pf_recorder *r, struct pf_result *st);

#endif
