/*
 * window: the sampling window shared by pf-record and pf-offcpu.
 */
#include <errno.h>
#include <time.h>

#include "outfile.h"
#include "window.h"

#define SECOND 1000000000ULL

uint64_t
pf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SECOND + (uint64_t)ts.tv_nsec;
}

int
pf_window_run(const struct pf_window *w, enum pf_stop *stop)
{
	uint64_t t0 = pf_now_ns(), last_disk = t0, last_prog = 0, t;
	uint64_t rate_t = t0, rate_n = 0;
	bool rated = w->rate_cap != 0;

	for (;;) {
		/* The rings wake us at a quarter full; the clock every 100 ms (or poll_ms). */
		pf_perf_poll(w->perf, w->poll_ms ? (int)w->poll_ms : 100);
		if (pf_perf_drain(w->perf, pf_rawrec_on_record, w->rec) == -1)
			goto fail;
		if (w->drained && w->drained(w->arg, false) == -1)
			goto fail;
		t = pf_now_ns();
		if (*w->signal) {
			*stop = PF_STOP_SIGNAL;
			break;
		}
		if (w->rec->over) {
			*stop = PF_STOP_SIZE_CAP;
			break;
		}
		if (rated) {
			/* Samples since the start of the current second. */
			if (w->rec->nsamples - rate_n > w->rate_cap) {
				if (w->over_rate == NULL || !w->over_rate(w->arg)) {
					*stop = PF_STOP_RATE_CAP;
					break;
				}
				rated = false;
			}
			if (t - rate_t >= SECOND) {
				rate_t = t;
				rate_n = w->rec->nsamples;
			}
		}
		if (t - t0 >= w->duration_ns) {
			*stop = PF_STOP_DURATION;
			break;
		}
		if (pf_target_gone(w->target)) {
			*stop = PF_STOP_TARGET_EXIT;
			break;
		}
		if (w->floor && t - last_disk >= SECOND) {
			last_disk = t;
			if (pf_output_below(w->out_fd, w->min_free)) {
				*stop = PF_STOP_DISK_FLOOR;
				break;
			}
		}
		if (w->progress && t - last_prog >= SECOND / 4) {
			last_prog = t;
			w->progress(w->arg, t - t0, false);
		}
	}
	pf_perf_disable(w->perf);
	if (pf_perf_drain(w->perf, pf_rawrec_on_record, w->rec) == -1)
		return -1;
	if (w->drained && w->drained(w->arg, true) == -1)
		return -1;
	if (w->progress)
		w->progress(w->arg, pf_now_ns() - t0, true);
	return 0;
fail:
	{
		int e = errno;

		pf_perf_disable(w->perf);
		errno = e;
	}
	return -1;
}
