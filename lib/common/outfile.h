/*
 * outfile: open a file a pf tool writes, safely.
 */
#ifndef PF_OUTFILE_H
#define PF_OUTFILE_H

/*
 * Create path for writing, mode 0600, never following a symlink in the
 * last component.  Without force an existing file is an error (EEXIST);
 * with force an existing regular file is truncated and replaced.
 * Returns the fd (O_CLOEXEC) or -1 with errno set.
 */
int pf_open_output(const char *path, int force);

#endif
