/*
 * procmaps: "start-end perms offset maj:min inode   path".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "linereader.h"
#include "procmaps.h"
#include "parse.h"

/* HEX then stop: after the stop, or NULL (no digit, junk, above 2^64). */
static char *
hexfield(char *s, uint64_t *out, char stop)
{
	const char *e = pf_span_x64(s, s + strlen(s), out);

	if (e == NULL || *e != stop)
		return NULL;
	return s + (e - s) + 1;
}

int
pf_maps_parse_line(char *line, struct pf_maps_entry *e)
{
	char *p = line, *end;
	uint64_t v, ino = 0;
	size_t n;

	memset(e, 0, sizeof(*e));
	if ((p = hexfield(p, &e->start, '-')) == NULL ||
	    (p = hexfield(p, &e->end, ' ')) == NULL)
		goto bad;
	if (strlen(p) < 5 || p[4] != ' ')
		goto bad;
	e->exec = p[2] == 'x';
	p += 5;
	if ((p = hexfield(p, &e->pgoff, ' ')) == NULL ||
	    (p = hexfield(p, &v, ':')) == NULL)
		goto bad;
	e->maj = (uint32_t)v;
	if ((p = hexfield(p, &v, ' ')) == NULL)
		goto bad;
	e->min = (uint32_t)v;
	/* The inode: decimal, 0 when absent; one above 2^64 is malformed. */
	if (*p >= '0' && *p <= '9') {
		const char *q = pf_span_u64(p, p + strlen(p), &ino);

		if (q == NULL)
			goto bad;
		p += q - p;
	}
	e->ino = ino;
	while (*p == ' ')
		p++;
	n = strlen(p);
	end = p + n;
	if (n > 10 && strcmp(end - 10, " (deleted)") == 0) {
		e->deleted = true;
		end[-10] = '\0';
	}
	e->path = p;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

int
pf_maps_read(int fd, int (*cb)(const struct pf_maps_entry *e, void *arg), void *arg)
{
	struct pf_linereader *lr;
	struct pf_maps_entry e;
	char *line;
	size_t len;
	int r = 0, rc = 0, err;

	if ((lr = pf_lr_new(fd, "maps")) == NULL)
		return -1;
	while (rc == 0 && (r = pf_lr_next(lr, &line, &len)) == 1)
		if (pf_maps_parse_line(line, &e) == 0)
			rc = cb(&e, arg);
	err = errno;
	pf_lr_free(lr);
	if (rc == -1)
		return -1;
	if (r == -1) {
		errno = err;
		return -1;
	}
	return 0;
}

bool
pf_maps_file_path(const char *path)
{
	return path[0] == '/' && strncmp(path, "//anon", 6) != 0 &&
	    strncmp(path, "/memfd:", 7) != 0 && strncmp(path, "/dev/zero", 9) != 0 &&
	    strncmp(path, "/SYSV", 5) != 0;
}
