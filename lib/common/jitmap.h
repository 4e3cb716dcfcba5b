/*
 * jitmap: symbols a JIT publishes in /tmp/perf-PID.map, lines of
 * "START SIZE name" (hex without 0x, the name is the rest of the line),
 * as documented in perf's jit-interface.txt.
 */
#ifndef PF_JITMAP_H
#define PF_JITMAP_H

#include <stdint.h>

struct pf_jitmap;

/*
 * Parse the map read from fd (the caller keeps fd).  Malformed lines are
 * skipped: the file belongs to the target, not to us.  NULL with errno.
 */
struct pf_jitmap *pf_jitmap_load(int fd);

/*
 * The symbol covering addr and *off into it, or NULL.  When entries
 * overlap (a JIT reuses code space), the one written last wins.
 */
const char *pf_jitmap_lookup(const struct pf_jitmap *m, uint64_t addr, uint64_t *off);

uint64_t pf_jitmap_count(const struct pf_jitmap *m);

void pf_jitmap_free(struct pf_jitmap *m);

#endif
