/*
 * sysctl: one small read and a strict integer parse; the trailing newline
 * (and the space some files pad with) is not junk.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "fileio.h"
#include "parse.h"
#include "sysctl.h"

int
pf_sysctl_long(const char *proc_root, const char *rel, long *out)
{
	char path[PATH_MAX], buf[64];
	int n;
	ssize_t r;
	int64_t v;

	n = snprintf(path, sizeof(path), "%s/%s", proc_root ? proc_root : "/proc", rel);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((r = pf_read_small(path, buf, sizeof(buf))) < 0)
		return -1;
	while (r > 0 && (buf[r - 1] == '\n' || buf[r - 1] == ' '))
		buf[--r] = '\0';
	if (pf_parse_i64(buf, LONG_MIN, LONG_MAX, &v) == -1) {
		errno = EINVAL;
		return -1;
	}
	*out = (long)v;
	return 0;
}
