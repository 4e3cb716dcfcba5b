/*
 * comms: thread names, an open-addressing table keyed by tid.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "comms.h"
#include "fileio.h"
#include "hash.h"
#include "parse.h"

struct pf_comm_ent {
	uint32_t tid;
	char name[16];
};

static size_t
home(uint32_t tid, size_t cap)
{
	return (size_t)pf_hash_u64(tid) & (cap - 1);
}

static struct pf_comm_ent *
comm_slot(struct pf_comms *c, uint32_t tid, bool create)
{
	size_t h, i;

	if (create && (c->n + 1) * 2 > c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 256;
		struct pf_comm_ent *v = calloc(nc, sizeof(*v));

		if (v == NULL)
			return NULL;
		for (i = 0; i < c->cap; i++)
			if (c->v[i].tid) {
				h = home(c->v[i].tid, nc);
				while (v[h].tid)
					h = (h + 1) & (nc - 1);
				v[h] = c->v[i];
			}
		free(c->v);
		c->v = v;
		c->cap = nc;
	}
	if (c->cap == 0 || tid == 0)
		return NULL;
	h = home(tid, c->cap);
	while (c->v[h].tid) {
		if (c->v[h].tid == tid)
			return &c->v[h];
		h = (h + 1) & (c->cap - 1);
	}
	if (!create)
		return NULL;
	c->v[h].tid = tid;
	c->n++;
	return &c->v[h];
}

void
pf_comms_set(struct pf_comms *c, uint32_t tid, const char *name)
{
	struct pf_comm_ent *e = comm_slot(c, tid, true);

	if (e)
		snprintf(e->name, sizeof(e->name), "%s", name);
}

void
pf_comms_inherit(struct pf_comms *c, uint32_t parent, uint32_t tid)
{
	struct pf_comm_ent *pc = comm_slot(c, parent, false);
	char name[16];

	if (pc == NULL || comm_slot(c, tid, false) != NULL)
		return;
	/* Copied first: growing the table for tid moves pc. */
	memcpy(name, pc->name, sizeof(name));
	pf_comms_set(c, tid, name);
}

const char *
pf_comms_get(struct pf_comms *c, uint32_t pid, uint32_t tid, char *buf, size_t len)
{
	struct pf_comm_ent *e = comm_slot(c, tid, false);
	char path[64];

	if (e)
		return e->name;
	if (tid == 0)		/* the idle task, as perf names it */
		return "swapper";
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	if (pf_read_small(path, buf, len) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		pf_comms_set(c, tid, buf);
		return buf;
	}
	snprintf(buf, len, ":%u", tid);
	pf_comms_set(c, tid, buf);
	return buf;
}

void
pf_comms_read_proc(struct pf_comms *c, pid_t pid)
{
	char path[PATH_MAX], buf[32];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		uint64_t tid;

		if (pf_parse_u64(de->d_name, 1, INT_MAX, &tid) == -1)
			continue;
		(void)pf_comms_get(c, (uint32_t)pid, (uint32_t)tid, buf, sizeof(buf));
	}
	closedir(d);
}

void
pf_comms_free(struct pf_comms *c)
{
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}
