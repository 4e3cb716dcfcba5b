/*
 * perfring: cpu-clock (or other software) sampling events through
 * perf_event_open(2), one fd per CPU x thread, one mmapped ring per CPU
 * (PERF_EVENT_IOC_SET_OUTPUT), and the ring read protocol.
 *
 * inherit=1 with cpu=-1 cannot be mmapped, so a task target gets one fd
 * per online CPU for each of its threads; all fds of one CPU write into
 * that CPU's ring.  When the memlock limit refuses a ring, the page count
 * is halved and the mmap retried (down to one data page).
 */
#ifndef PF_PERFRING_H
#define PF_PERFRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

struct pf_perf;

/* What every event of the set is opened with. */
struct pf_perf_attr {
	uint32_t type;		/* PERF_TYPE_SOFTWARE */
	uint64_t config;	/* PERF_COUNT_SW_CPU_CLOCK */
	uint64_t freq;		/* sample_freq (Hz), or 0 with period */
	uint64_t period;	/* sample_period when freq == 0 */
	uint64_t sample_type;
	bool exclude_kernel;	/* also excludes kernel callchains */
	bool inherit;		/* follow threads/children created later */
	bool enable_on_exec;	/* start counting at the target's exec */
	bool context_switch;	/* PERF_RECORD_SWITCH records (pf-offcpu) */
	uint16_t max_stack;	/* sample_max_stack, 0 = the sysctl */
	uint64_t regs_user;	/* sample_regs_user (PERF_SAMPLE_REGS_USER) */
	uint32_t stack_user;	/* sample_stack_user (PERF_SAMPLE_STACK_USER) */
	bool build_id;		/* MMAP2 records carry the file's build-id (Linux
				   5.12); dropped by itself on a kernel without */
	bool clock_monotonic;	/* times by CLOCK_MONOTONIC (use_clockid), as the reader's clock */
	bool wake_each;		/* wake the reader at every sample, not at a quarter of the ring */
};

/*
 * A new, empty set for attr; rings get pages data pages (a power of two)
 * at most.  NULL with errno on failure.
 */
struct pf_perf *pf_perf_new(const struct pf_perf_attr *attr, unsigned pages);

/*
 * Open the events of thread tid (pid >= 0) on every CPU, or with tid -1
 * one CPU-wide event per CPU.  The first fd of a CPU gets the ring; the
 * others are redirected into it.  0, or -1 with errno from
 * perf_event_open (EACCES, EPERM, ESRCH, EINVAL) or mmap (EPERM when even
 * one page exceeds the memlock limit).  Opening the same tid twice is a
 * no-op.
 */
int pf_perf_open_task(struct pf_perf *p, pid_t tid);

/*
 * One event per CPU counting only the tasks of a cgroup (a container, a
 * systemd unit), as perf record --cgroup: cgroup_fd is the cgroup's
 * directory, opened read-only.  It takes what a CPU-wide event takes
 * (CAP_PERFMON, or perf_event_paranoid <= 0).  0, or -1 as above.
 */
int pf_perf_open_cgroup(struct pf_perf *p, int cgroup_fd);

/* Number of fds and rings, and the data pages per ring finally used. */
size_t pf_perf_nfds(const struct pf_perf *p);
size_t pf_perf_nrings(const struct pf_perf *p);
unsigned pf_perf_ring_pages(const struct pf_perf *p);

/* PERF_EVENT_IOC_ENABLE / DISABLE on every fd.  -1 with errno. */
int pf_perf_enable(struct pf_perf *p);
int pf_perf_disable(struct pf_perf *p);

/*
 * Wait up to timeout_ms for a ring to pass its watermark.  Returns the
 * poll(2) result; EINTR is returned as 0.
 */
int pf_perf_poll(struct pf_perf *p, int timeout_ms);

/*
 * Read every complete record in every ring, calling cb for each with a
 * copy of its header and its bytes (header included, no alignment
 * promised: copy fields out); a record that wraps the end of a ring is
 * copied so cb always sees it contiguous.  The bytes are valid only
 * during the call.  Returns the number of records, or -1 if cb returned
 * -1 (the rest stays in the ring).
 */
typedef int (*pf_perf_record_cb)(const struct perf_event_header *h, const char *rec,
    void *arg);
long pf_perf_drain(struct pf_perf *p, pf_perf_record_cb cb, void *arg);

/* After a failure: "perf_event_open", "mmap" or "ioctl". */
const char *pf_perf_failed_call(const struct pf_perf *p);

/* Close every fd and unmap every ring.  NULL is a no-op. */
void pf_perf_free(struct pf_perf *p);

#endif
