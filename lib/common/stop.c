/*
 * stop: the reasons a recording window ends, as the trailer names them.
 */
#include <stddef.h>

#include "stop.h"

static const char *const stop_names[] = {
	[PF_STOP_NONE] = "none",
	[PF_STOP_DURATION] = "duration",
	[PF_STOP_SIGNAL] = "signal",
	[PF_STOP_TARGET_EXIT] = "target-exit",
	[PF_STOP_SIZE_CAP] = "size-cap",
	[PF_STOP_DISK_FLOOR] = "disk-floor",
	[PF_STOP_DISK_FULL] = "disk-full",
	[PF_STOP_RATE_CAP] = "rate-cap",
	[PF_STOP_PIPE] = "pipe",
	[PF_STOP_IO] = "io-error",
	[PF_STOP_MEMORY] = "memory",
};

const char *
pf_stop_name(enum pf_stop r)
{
	if ((size_t)r >= sizeof(stop_names) / sizeof(stop_names[0]))
		return "unknown";
	return stop_names[r];
}

bool
pf_stop_is_cap(enum pf_stop r)
{
	return r == PF_STOP_SIZE_CAP || r == PF_STOP_DISK_FLOOR ||
	    r == PF_STOP_DISK_FULL || r == PF_STOP_RATE_CAP;
}
