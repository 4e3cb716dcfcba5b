/*
 * mapfile: the one way pf opens a file a target maps, and the helper
 * process that opens such files for a recorder that has dropped its
 * privileges.
 *
 * A target's file is reached through the target's own view of the file
 * system, in this order:
 *
 *  1. /proc/PID/map_files/START-END: the mapped object itself, whatever
 *     its path, its directory's mode or the mount namespace it lives in.
 *     Opening it takes CAP_SYS_ADMIN (or CAP_CHECKPOINT_RESTORE), and
 *     CAP_SYS_PTRACE for another user's process.  A recorder holds none
 *     of these once it confines itself, so there it asks its helper;
 *  2. /proc/PID/root/PATH: the path as the target sees it;
 *  3. PATH as this process sees it.
 *
 * The last two are names, not the object: a file found there is taken
 * only when its inode is the one the mapping named (when that is known;
 * the unwinder also compares build-ids).  Each candidate is opened
 * without blocking (a FIFO put at a mapped path blocked a recorder as
 * root, for good) and only a regular file is taken.
 *
 * The helper (privilege separation).  Before a recorder drops its
 * capabilities it forks a helper that keeps only CAP_SYS_ADMIN,
 * CAP_CHECKPOINT_RESTORE, CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH, holds
 * no other descriptor, sets no_new_privs and installs a seccomp filter
 * that allows some twenty system calls.  It parses nothing the recorder or a
 * target wrote: a request is a fixed-size (pid, start, end) record; the
 * helper builds the map_files name itself, opens it, takes it only when
 * it is a regular file and passes the descriptor back (SCM_RIGHTS).  It
 * answers only for the processes it was started for, their descendants
 * (by the kernel's parent links), or any process under -a; each by its
 * PID and start time, so another process given an ended one's PID is not
 * one of them.
 *
 * It also reads a target's memory (for the Python frames of a running
 * interpreter, which only the target's memory names): a fixed-size
 * (pid, address, length) request, the length at most
 * PF_MAPFILES_READ_MAX, read with process_vm_readv (CAP_SYS_PTRACE) and
 * answered with the bytes, all of them or none; or up to
 * PF_MAPFILES_PAGES_MAX whole pages at once, each read or not.  That is a bigger power
 * than opening mapped files, so its starter says whom it covers: no one,
 * the targets and their descendants only (even under -a, where then there
 * are none), or every process the files are answered for.
 *
 * A recorder taken over by a hostile target could thus get from it
 * read-only descriptors of files those processes map and, where allowed,
 * the memory of the targets, and nothing else.  It ends when the
 * recorder closes its end, or dies.
 */
#ifndef PF_MAPFILE_H
#define PF_MAPFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* A recorder's side of the helper; NULL (no helper) opens directly. */
struct pf_mapfiles;

/*
 * A descriptor (close-on-exec, blocking) of the file process pid maps at
 * [start, end), named path in its maps, or -1.  start == end == 0 when
 * the mapping is not known: then only the paths are tried.  ino is the
 * mapped file's inode, 0 when not known.  proc_root is "/proc" but for
 * tests; mf may be NULL.
 */
int pf_mapfile_open(struct pf_mapfiles *mf, const char *proc_root, pid_t pid, uint64_t start,
    uint64_t end, const char *path, uint64_t ino);

/* Whose memory the helper reads (pf_mapfiles_read). */
enum pf_mapfiles_mem {
	PF_MAPFILES_MEM_NONE,		/* no one's: every read is refused (EPERM) */
	PF_MAPFILES_MEM_TARGETS,	/* the processes it was started for and their
					   descendants, even under any */
	PF_MAPFILES_MEM_ALL,		/* every process it opens files for: under any,
					   any process */
};

/*
 * Start the helper for the n processes pids (any process with any), which
 * reads the memory of those mem says: its process name is comm (at most 15
 * bytes are kept).  NULL with errno when this process has not the
 * capabilities it would keep (EPERM) or the helper could not be started.
 * Call it before dropping privileges and before opening what the helper
 * must not hold: it closes every descriptor but its socket.
 */
struct pf_mapfiles *pf_mapfiles_start(const pid_t *pids, size_t n, bool any,
    enum pf_mapfiles_mem mem, const char *comm);

/*
 * The JIT map (perf-N.map) a process in a container writes in its own
 * /tmp, N its PID there: opened by the helper through /proc/PID/root,
 * which Landlock refuses a confined recorder.  A descriptor (the caller
 * vets it, pf_jitmap_vet), or -1 with errno (ELOOP for a symbolic link,
 * ENOENT when there is no helper or no map).
 */
int pf_mapfiles_open_jit(struct pf_mapfiles *mf, pid_t pid);

/*
 * The len bytes at addr in process pid's memory (pid the process's ID, a
 * sample's pid, not one of its threads'), read by the helper into buf: 0,
 * or -1 with errno and buf untouched.  All or nothing: a range
 * that is partly unmapped is refused whole (EFAULT), as is an unmapped one.
 * The helper decides, never the caller: EINVAL for a len of 0 or over
 * PF_MAPFILES_READ_MAX, EPERM for a process it does not read (see enum
 * pf_mapfiles_mem), process_vm_readv's errno otherwise (ESRCH for a process
 * gone).  EIO when there is no helper, or it stopped answering (as for
 * files: nothing more is asked of it).
 */
int pf_mapfiles_read(struct pf_mapfiles *mf, pid_t pid, uint64_t addr, void *buf, size_t len);

/*
 * The n pages (n from 1 to PF_MAPFILES_PAGES_MAX) at the page-aligned
 * addresses pages[] of process pid, in one request: page i, each read
 * whole (PF_MAPFILES_READ_MAX bytes) or not at all, into buf + i *
 * PF_MAPFILES_READ_MAX, ok[i] saying whether it was.  0, or -1 with errno
 * as pf_mapfiles_read (EINVAL, from the helper, for an n out of range or
 * an address not page-aligned).  The walks of a Python thread's frames
 * ask at once for the pages its last walk read.
 */
#define PF_MAPFILES_PAGES_MAX 8
int pf_mapfiles_read_pages(struct pf_mapfiles *mf, pid_t pid, const uint64_t *pages, size_t n,
    void *buf, bool *ok);

/* The helper's process ID. */
pid_t pf_mapfiles_pid(const struct pf_mapfiles *mf);

/*
 * What the helper did for files: requests sent, descriptors received (no
 * memory read is counted), and whether it stopped answering (a request of
 * either kind timed out or the helper is gone: no more are sent).
 */
void pf_mapfiles_stats(const struct pf_mapfiles *mf, uint64_t *asked, uint64_t *got,
    bool *broken);

/* Close the recorder's end (the helper then exits) and reap it; NULL is allowed. */
void pf_mapfiles_free(struct pf_mapfiles *mf);

/*
 * How long a recorder waits for one answer.  A helper that does not
 * answer in time (a target's file on a hung network or FUSE mount keeps
 * its open waiting) is asked nothing more.
 */
#define PF_MAPFILES_TIMEOUT_MS	1000

/* The most one memory read may ask for: what the helper's answer holds. */
#define PF_MAPFILES_READ_MAX	4096

#endif
