/*
 * outfile: the file a recorder writes, put in place safely.  The stream
 * is written under a temporary name in the output's directory and only
 * given its name once the recording has started, so a start that is
 * refused or fails leaves nothing behind and never touches an old file.
 */
#ifndef PF_OUTFILE_H
#define PF_OUTFILE_H

#include <stdbool.h>
#include <stdint.h>

/* The temporary names are this prefix and 16 random hex digits. */
#define PF_OUTFILE_TMP_PREFIX ".pf-out."

struct pf_outfile {
	int fd;			/* -1: none */
	char *path;		/* the name asked for */
	char *tmp;		/* the temporary name; NULL once published or discarded */
	bool force;
};

/*
 * Check path and create its temporary file beside it, mode 0600,
 * O_CREAT|O_EXCL|O_NOFOLLOW, for writing (of->fd, O_CLOEXEC).  An
 * existing path is an error (EEXIST) without force; with force it must be
 * a regular file (ELOOP for a symbolic link, EISDIR for a directory,
 * EINVAL for a FIFO, socket or device: it is never opened, so a FIFO
 * cannot block).  0, or -1 with errno and nothing created.
 */
int pf_outfile_open(struct pf_outfile *of, const char *path, bool force);

/*
 * Give the temporary file its name: rename(2) over an old file with force
 * (a hard link to the old file keeps the old content), and never replace
 * a name that appeared meanwhile without it (EEXIST).  0, or -1 with
 * errno and the temporary file still there for pf_outfile_discard.
 */
int pf_outfile_publish(struct pf_outfile *of);

/*
 * Close the file and remove the temporary name if it was never
 * published.  Safe on a zeroed or already discarded pf_outfile.
 */
void pf_outfile_discard(struct pf_outfile *of);

/* Close the published file (the name stays).  0, or -1 with close's errno. */
int pf_outfile_close(struct pf_outfile *of);

/* The kind of a non-regular file, for a message: "a FIFO", "a directory"... */
const char *pf_outfile_kind(const char *path);

/*
 * The free-space floor where fd's output lands.  0 when fd is not a
 * regular file (a pipe or a terminal fills no filesystem): no floor.
 * Otherwise 1, with *min_free the floor for bytes/percent as
 * pf_min_free() computes it and *avail the bytes free now.  -1 with errno.
 */
int pf_output_floor(int fd, uint64_t bytes, double percent, uint64_t *min_free,
    uint64_t *avail);

/* Whether the filesystem holding fd now has less than min_free bytes free. */
bool pf_output_below(int fd, uint64_t min_free);

#endif
