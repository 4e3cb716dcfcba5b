/*
 * jitmap: symbols a JIT publishes in /tmp/perf-PID.map, lines of
 * "START SIZE name" (hex without 0x, the name is the rest of the line),
 * as documented in perf's jit-interface.txt.
 *
 * The file is the target's, in a world-writable directory, so it is
 * trusted only when owned by root or by the target's user, and read with
 * caps on bytes, entries and line length.
 */
#ifndef PF_JITMAP_H
#define PF_JITMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Reading stops after this many bytes; what was parsed is kept. */
#define PF_JITMAP_MAX_BYTES	(64u << 20)
/* Parsing stops at this many symbols. */
#define PF_JITMAP_MAX_ENTRIES	(1u << 20)
/* A longer line is skipped (a JIT name is a method signature, not a book). */
#define PF_JITMAP_MAX_LINE	8192

struct pf_jitmap;

/*
 * Open the map at path for reading: O_NOFOLLOW, O_NONBLOCK (a FIFO must
 * not hang us), then checked on the opened descriptor: a regular file
 * owned by root or by owner ((uid_t)-1 when the target's uid is unknown:
 * root only).  The descriptor, or -1 with errno: ENOENT and the like from
 * open(2), EPERM when refused, with the reason in why (a short phrase
 * such as "owned by uid 65534, not root or the target's uid 0").
 */
int pf_jitmap_open(const char *path, uid_t owner, char *why, size_t whylen);

/*
 * pf_jitmap_open's checks on a map opened elsewhere (by a recorder's
 * file helper): fd itself, or -1 with it closed, errno and why as there.
 */
int pf_jitmap_vet(int fd, uid_t owner, char *why, size_t whylen);

/*
 * Parse the map read from fd (the caller keeps fd), within the caps
 * above.  Malformed lines are skipped: the file belongs to the target,
 * not to us.  NULL with errno.
 */
struct pf_jitmap *pf_jitmap_load(int fd);

/*
 * The symbol covering addr and *off into it, or NULL.  When entries
 * overlap (a JIT reuses code space), the one written last wins.
 */
const char *pf_jitmap_lookup(const struct pf_jitmap *m, uint64_t addr, uint64_t *off);

uint64_t pf_jitmap_count(const struct pf_jitmap *m);

/* True when a cap stopped the parse early (the map is partial). */
int pf_jitmap_truncated(const struct pf_jitmap *m);

void pf_jitmap_free(struct pf_jitmap *m);

#endif
