/*
 * procmaps: parse /proc/PID/maps lines.
 */
#ifndef PF_PROCMAPS_H
#define PF_PROCMAPS_H

#include <stdbool.h>
#include <stdint.h>

struct pf_maps_entry {
	uint64_t start, end, pgoff;
	uint32_t maj, min;
	uint64_t ino;
	bool exec;		/* 'x' in the permissions */
	bool deleted;		/* path ended in " (deleted)", stripped */
	const char *path;	/* "" for anonymous; valid during the callback */
};

/*
 * Parse one maps line (without its newline) into *e; line is modified
 * (the path is NUL-terminated in place).  0, or -1 with EINVAL.
 */
int pf_maps_parse_line(char *line, struct pf_maps_entry *e);

/*
 * Read maps text from fd (the caller keeps fd) and call cb for each
 * well-formed line; cb returning -1 stops.  0, or -1 with errno.
 */
int pf_maps_read(int fd, int (*cb)(const struct pf_maps_entry *e, void *arg), void *arg);

/*
 * Whether a mapping's path (as maps or a ring's MMAP2 record give it)
 * names a file that can be opened and read as the mapped object: not
 * perf's "//anon" for anonymous memory (a JIT's code, CPython's -X perf
 * trampolines), a memfd, /dev/zero or System V shared memory.
 */
bool pf_maps_file_path(const char *path);

#endif
