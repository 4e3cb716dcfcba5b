/*
 * outfile: O_EXCL|O_NOFOLLOW creation, so a recording run as root can
 * never be pointed at /etc/passwd through a planted symlink, and never
 * silently clobbers yesterday's evidence.  The stream starts under a
 * temporary name beside the output and is renamed into place only once
 * the recording runs: a refused start (disk floor, no such pid) leaves
 * the old file as it was, and rename(2) replaces the name, not the
 * content, so another hard link to the old file keeps the old content.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fsfree.h"
#include "outfile.h"

/* Whether an existing path may be replaced: 0, or -1 with errno. */
static int
check_existing(const char *path, bool force)
{
	struct stat st;

	if (lstat(path, &st) == -1)
		return errno == ENOENT ? 0 : -1;
	if (!force)
		errno = EEXIST;
	else if (S_ISLNK(st.st_mode))
		errno = ELOOP;
	else if (S_ISDIR(st.st_mode))
		errno = EISDIR;
	else if (!S_ISREG(st.st_mode))
		errno = EINVAL;
	else
		return 0;
	return -1;
}

/* dir/PF_OUTFILE_TMP_PREFIX and 16 random hex digits, in the output's directory. */
static char *
tmp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	unsigned char rnd[8];
	char *s;
	int dlen = slash == NULL ? 1 : slash == path ? 0 : (int)(slash - path);

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return NULL;
	if (asprintf(&s, "%.*s/%s%02x%02x%02x%02x%02x%02x%02x%02x", dlen,
	    slash == NULL ? "." : path, PF_OUTFILE_TMP_PREFIX, rnd[0], rnd[1], rnd[2],
	    rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]) == -1)
		return NULL;
	return s;
}

int
pf_outfile_open(struct pf_outfile *of, const char *path, bool force)
{
	const char *base = strrchr(path, '/');
	int tries, e;

	memset(of, 0, sizeof(*of));
	of->fd = -1;
	of->force = force;
	if (*path == '\0' || (base != NULL && base[1] == '\0')) {
		errno = *path == '\0' ? ENOENT : EISDIR;
		return -1;
	}
	if (check_existing(path, force) == -1)
		return -1;
	if ((of->path = strdup(path)) == NULL)
		return -1;
	for (tries = 0; tries < 16; tries++) {
		if ((of->tmp = tmp_name(path)) == NULL)
			break;
		of->fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (of->fd != -1)
			return 0;
		e = errno;
		free(of->tmp);
		of->tmp = NULL;
		errno = e;
		if (e != EEXIST)
			break;
	}
	e = errno;
	free(of->path);
	of->path = NULL;
	errno = e;
	return -1;
}

int
pf_outfile_publish(struct pf_outfile *of)
{
	if (of->tmp == NULL)
		return 0;
	if (of->force) {
		if (rename(of->tmp, of->path) == -1)
			return -1;
	} else if (renameat2(AT_FDCWD, of->tmp, AT_FDCWD, of->path, RENAME_NOREPLACE) == -1) {
		/* A filesystem without RENAME_NOREPLACE: link(2) never replaces either. */
		if ((errno != EINVAL && errno != ENOSYS) || link(of->tmp, of->path) == -1)
			return -1;
		(void)unlink(of->tmp);
	}
	free(of->tmp);
	of->tmp = NULL;
	return 0;
}

void
pf_outfile_discard(struct pf_outfile *of)
{
	int e = errno;

	if (of->fd != -1)
		close(of->fd);
	of->fd = -1;
	if (of->tmp != NULL)
		(void)unlink(of->tmp);
	free(of->tmp);
	free(of->path);
	of->tmp = of->path = NULL;
	errno = e;
}

int
pf_outfile_close(struct pf_outfile *of)
{
	int rc = 0;

	if (of->fd != -1)
		rc = close(of->fd);
	of->fd = -1;
	return rc;
}

const char *
pf_outfile_kind(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == -1)
		return "not a regular file";
	switch (st.st_mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFLNK:
		return "a symbolic link";
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	}
	return "not a regular file";
}

int
pf_output_floor(int fd, uint64_t bytes, double percent, uint64_t *min_free,
    uint64_t *avail)
{
	struct statvfs sv;
	struct stat st;

	*min_free = 0;
	*avail = 0;
	if (fstat(fd, &st) == -1)
		return -1;
	if (!S_ISREG(st.st_mode))
		return 0;
	if (fstatvfs(fd, &sv) == -1)
		return -1;
	*avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	*min_free = pf_min_free((uint64_t)sv.f_blocks * sv.f_frsize, bytes, percent);
	return 1;
}

bool
pf_output_below(int fd, uint64_t min_free)
{
	struct statvfs sv;

	return fstatvfs(fd, &sv) == 0 && (uint64_t)sv.f_bavail * sv.f_frsize < min_free;
}
