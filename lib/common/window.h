/*
 * window: the sampling window pf-record and pf-offcpu both run.  It only
 * drains the rings into raw records (symbols come after it) and watches
 * the caps, the clock, the targets and signals.
 */
#ifndef PF_WINDOW_H
#define PF_WINDOW_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "perfring.h"
#include "rawrec.h"
#include "stop.h"
#include "target.h"

struct pf_window {
	struct pf_perf *perf;
	struct pf_rawrec *rec;
	struct pf_target *target;
	uint64_t duration_ns;
	uint64_t rate_cap;		/* samples per second; 0: none */
	bool floor;			/* keep min_free bytes free under out_fd */
	int out_fd;
	uint64_t min_free;
	const volatile sig_atomic_t *signal;	/* set by the tool's handler */
	unsigned poll_ms;		/* the rings drained at least this often; 0: 100 ms */
	/*
	 * Called about four times a second with the time since the start,
	 * and once more with last set after the final drain; NULL: never.
	 */
	void (*progress)(void *arg, uint64_t elapsed_ns, bool last);
	/*
	 * Called after every drain of the rings (the final one too); -1 with
	 * errno ends the window as a failure.  NULL: never.
	 */
	int (*drained)(void *arg, bool last);
	/*
	 * Called once, when the rate cap is first exceeded: true when the
	 * tool goes on at a bounded cost instead (the window then no longer
	 * counts the rate), false to stop at the cap.  NULL: stop.
	 */
	bool (*over_rate)(void *arg);
	void *arg;
};

/*
 * Run the window until the first stop: a signal, the size cap, the rate
 * cap (unless over_rate takes it), the duration, the targets' exit or the disk floor.  The events are
 * disabled and the rings drained once more before *stop gets the reason.
 * 0, or -1 with errno ENOMEM when the raw records could not be kept.
 */
int pf_window_run(const struct pf_window *w, enum pf_stop *stop);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t pf_now_ns(void);

#endif
