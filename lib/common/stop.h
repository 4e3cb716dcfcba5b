/*
 * stop: why a recording window ended.  The window decides the reason, the
 * writer (writer.h) may override it with its own caps, and the trailer's
 * stop= word and the tool's exit status both come from it.
 */
#ifndef PF_STOP_H
#define PF_STOP_H

#include <stdbool.h>

/* Why a recording stopped; the trailer's stop= word. */
enum pf_stop {
	PF_STOP_NONE = 0,
	PF_STOP_DURATION,
	PF_STOP_SIGNAL,
	PF_STOP_TARGET_EXIT,
	PF_STOP_SIZE_CAP,
	PF_STOP_DISK_FLOOR,
	PF_STOP_DISK_FULL,
	PF_STOP_RATE_CAP,
	PF_STOP_PIPE,		/* downstream closed: no trailer */
	PF_STOP_IO,		/* other write error: errno kept */
	PF_STOP_MEMORY		/* memory ran out (ours or a library's): exit 3 */
};

/* The trailer word for a stop reason ("duration", "size-cap"...). */
const char *pf_stop_name(enum pf_stop r);

/* Whether a stop reason is a safety cap (the tool exits 1). */
bool pf_stop_is_cap(enum pf_stop r);

#endif
