/*
 * procmaps: "start-end perms offset maj:min inode   path".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "procmaps.h"
#include "parse.h"

static char *
hexfield(char *s, uint64_t *out, char stop)
{
	uint64_t v = 0;
	char *p = s;

	for (; *p && *p != stop; p++) {
		int d = pf_hexval((unsigned char)*p);

		if (d < 0)
			return NULL;
		v = v << 4 | (uint64_t)d;
	}
	if (p == s || *p != stop)
		return NULL;
	*out = v;
	return p + 1;
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
	while (*p >= '0' && *p <= '9')
		ino = ino * 10 + (uint64_t)(*p++ - '0');
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
	struct pf_buf all = { 0 };
	char chunk[65536];
	ssize_t n;
	size_t i, start = 0;
	int rc = 0;

	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			pf_buf_free(&all);
			return -1;
		}
		if (pf_buf_append(&all, chunk, (size_t)n) == -1) {
			pf_buf_free(&all);
			return -1;
		}
	}
	for (i = 0; i < all.len && rc == 0; i++)
		if (all.data[i] == '\n') {
			struct pf_maps_entry e;

			all.data[i] = '\0';
			if (pf_maps_parse_line(all.data + start, &e) == 0)
				rc = cb(&e, arg);
			start = i + 1;
		}
	pf_buf_free(&all);
	return rc == -1 ? -1 : 0;
}
