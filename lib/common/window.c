/*
 * window: the sampling window shared by pf-record and pf-offcpu.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "msg.h"
#include "outfile.h"
#include "pf.h"
#include "window.h"

#define SECOND 1000000000ULL

uint64_t
pf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SECOND + (uint64_t)ts.tv_nsec;
}

static void
progress(const struct pf_window *w, uint64_t elapsed, bool last)
{
	fprintf(stderr, "\r%s: %.1fs of %.0fs, %llu %s%s", w->tool,
	    (double)elapsed / 1e9, (double)w->duration_ns / 1e9,
	    (unsigned long long)w->rec->nsamples, w->unit, last ? "\033[K\n" : "\033[K");
}

static void
drain(const struct pf_window *w)
{
	if (pf_perf_drain(w->perf, pf_rawrec_on_record, w->rec) == -1)
		pf_die(PF_EXIT_FAIL, "raw records");
}

enum pf_stop
pf_window_run(const struct pf_window *w)
{
	bool tty = w->progress && isatty(2);
	uint64_t t0 = pf_now_ns(), last_disk = t0, last_prog = 0, t;
	uint64_t rate_t = t0, rate_n = 0;
	enum pf_stop stop;

	for (;;) {
		/* The rings wake us at a quarter full; the clock every 100 ms. */
		pf_perf_poll(w->perf, 100);
		drain(w);
		t = pf_now_ns();
		if (*w->signal) {
			stop = PF_STOP_SIGNAL;
			break;
		}
		if (w->rec->over) {
			stop = PF_STOP_SIZE_CAP;
			break;
		}
		if (w->rate_cap != 0) {
			/* Samples since the start of the current second. */
			if (w->rec->nsamples - rate_n > w->rate_cap) {
				stop = PF_STOP_RATE_CAP;
				break;
			}
			if (t - rate_t >= SECOND) {
				rate_t = t;
				rate_n = w->rec->nsamples;
			}
		}
		if (t - t0 >= w->duration_ns) {
			stop = PF_STOP_DURATION;
			break;
		}
		if (pf_target_gone(w->target)) {
			stop = PF_STOP_TARGET_EXIT;
			break;
		}
		if (w->floor && t - last_disk >= SECOND) {
			last_disk = t;
			if (pf_output_below(w->out_fd, w->min_free)) {
				stop = PF_STOP_DISK_FLOOR;
				break;
			}
		}
		if (tty && t - last_prog >= SECOND / 4) {
			last_prog = t;
			progress(w, t - t0, false);
		}
	}
	pf_perf_disable(w->perf);
	drain(w);
	if (tty)
		progress(w, pf_now_ns() - t0, true);
	return stop;
}
