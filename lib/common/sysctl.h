/*
 * sysctl: integer kernel settings read from a proc root ("/proc" on a
 * live system, a fixture tree in tests).
 */
#ifndef PF_SYSCTL_H
#define PF_SYSCTL_H

/*
 * Read the integer in <proc_root>/<rel> (e.g. "sys/kernel/perf_event_paranoid");
 * proc_root NULL means "/proc".  0 on success; -1 with errno (ENOENT,
 * EACCES, ENAMETOOLONG, EINVAL for junk).
 */
int pf_sysctl_long(const char *proc_root, const char *rel, long *out);

#endif
