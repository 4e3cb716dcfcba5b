/*
 * psi: pressure files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "linereader.h"
#include "parse.h"
#include "psi.h"

static int
parse_line(const char *p, double *avg10, uint64_t *total)
{
	const char *a, *t;
	char *end;
	uint64_t v;

	if ((a = strstr(p, "avg10=")) == NULL || (t = strstr(p, "total=")) == NULL)
		return -1;
	*avg10 = strtod(a + 6, &end);
	if (end == a + 6)
		return -1;
	if (pf_span_u64(t + 6, t + 6 + strlen(t + 6), &v) == NULL)
		return -1;
	*total = v;
	return 0;
}

int
pf_psi_parse(const char *text, struct pf_psi *p)
{
	const char *pos, *line;
	size_t len;

	memset(p, 0, sizeof(*p));
	for (pos = text; pf_lr_text_next(&pos, &line, &len) == 1;) {
		if (strncmp(line, "some ", 5) == 0)
			p->have_some = parse_line(line, &p->some_avg10, &p->some_total) == 0;
		else if (strncmp(line, "full ", 5) == 0)
			p->have_full = parse_line(line, &p->full_avg10, &p->full_total) == 0;
	}
	if (!p->have_some) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
pf_psi_read(const char *path, struct pf_psi *p)
{
	char buf[512];

	if (pf_read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	return pf_psi_parse(buf, p);
}

int
pf_psi_read_system(const char *proc_root, const char *resource, struct pf_psi *p)
{
	char path[PATH_MAX];
	int n;

	n = snprintf(path, sizeof(path), "%s/pressure/%s", proc_root, resource);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return pf_psi_read(path, p);
}

double
pf_psi_pct(uint64_t t0, uint64_t t1, double interval_us)
{
	if (t1 < t0 || interval_us <= 0)
		return 0;
	/* Totals are folded in lazily: never report more than the interval. */
	return fmin(100.0, 100.0 * (double)(t1 - t0) / interval_us);
}
