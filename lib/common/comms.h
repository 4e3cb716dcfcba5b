/*
 * comms: thread names by tid, as a recording names its samples: what
 * COMM records said, what /proc said while the thread lived, else ":tid"
 * as perf prints it.
 */
#ifndef PF_COMMS_H
#define PF_COMMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "htab.h"

/* Thread names by tid (htab.h over an array of names).  Zero-initialise. */
struct pf_comms {
	struct pf_comm_ent *v;
	size_t n, cap;		/* names in v, room in v */
	struct pf_htab index;	/* tid -> entry of v; set up on the first name */
};

/* Name tid: remembered, else /proc (if alive), else ":tid" as perf prints. */
const char *pf_comms_get(struct pf_comms *c, uint32_t pid, uint32_t tid, char *buf,
    size_t len);

/* Remember tid's name (truncated to 15 bytes, as the kernel keeps it). */
void pf_comms_set(struct pf_comms *c, uint32_t tid, const char *name);

/*
 * A new thread starts with its creator's name; the name an earlier thread
 * of the same number had is forgotten (unnamed when the creator is unknown).
 */
void pf_comms_inherit(struct pf_comms *c, uint32_t parent, uint32_t tid);

/* Remember the names of pid's threads now, while /proc is readable. */
void pf_comms_read_proc(struct pf_comms *c, pid_t pid);

/*
 * The same for every process: -a names one that ends during the window by
 * what it was called at the start.
 */
void pf_comms_read_all(struct pf_comms *c);

void pf_comms_free(struct pf_comms *c);

#endif
