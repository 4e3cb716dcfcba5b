/*
 * fsfree: statvfs in bytes, and the floor formula kept apart from it so
 * tests can check the formula without a filesystem of a given size.
 */
#include <sys/statvfs.h>

#include "fsfree.h"

int
pf_fs_space(const char *path, uint64_t *avail, uint64_t *total)
{
	struct statvfs sv;

	if (statvfs(path, &sv) == -1)
		return -1;
	*avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	*total = (uint64_t)sv.f_blocks * sv.f_frsize;
	return 0;
}

uint64_t
pf_min_free(uint64_t total, uint64_t bytes, double percent)
{
	uint64_t five;

	if (percent >= 0)
		return (uint64_t)((double)total * percent / 100.0);
	if (bytes > 0)
		return bytes;
	five = total / 20;
	return five > (1ULL << 30) ? five : (1ULL << 30);
}
