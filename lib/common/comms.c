/*
 * comms: thread names in an array, indexed by tid through htab.h.
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
#include "grow.h"
#include "hash.h"
#include "htab.h"
#include "parse.h"

struct pf_comm_ent {
	uint32_t tid;
	char name[16];
};

/*
 * The entry of tid, or with create a new one (name empty) when there is
 * none; NULL when tid is 0 (never stored: perf names it "swapper"), when
 * it is absent and !create, or when memory runs out.  Creating one may
 * move every entry.
 */
static struct pf_comm_ent *
comm_slot(struct pf_comms *c, uint32_t tid, bool create)
{
	uint64_t h = pf_hash_u64(tid);
	struct pf_htab_slot *s;

	if (tid == 0)
		return NULL;
	if (c->index.nslots == 0) {
		if (!create || pf_htab_init(&c->index, 256) == -1)
			return NULL;
	}
	if (!create) {
		s = pf_htab_find(&c->index, h, pf_htab_u64_eq, NULL);
		return s->idx ? &c->v[s->idx - 1] : NULL;
	}
	if ((s = pf_htab_claim(&c->index, h, pf_htab_u64_eq, NULL)) == NULL)
		return NULL;
	if (s->idx)
		return &c->v[s->idx - 1];
	if (pf_grow(&c->v, &c->cap, c->n + 1, sizeof(*c->v)) == -1)
		return NULL;
	c->v[c->n].tid = tid;
	c->v[c->n].name[0] = '\0';
	pf_htab_set(&c->index, s, h, c->n);
	return &c->v[c->n++];
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
	char name[16] = "";

	/*
	 * Whatever tid was called before belonged to an earlier thread of
	 * that number: an unknown creator leaves it unnamed, not misnamed.
	 * Copied first: growing the table for tid moves pc.
	 */
	if (pc != NULL)
		memcpy(name, pc->name, sizeof(name));
	else if (comm_slot(c, tid, false) == NULL)
		return;
	pf_comms_set(c, tid, name);
}

const char *
pf_comms_get(struct pf_comms *c, uint32_t pid, uint32_t tid, char *buf, size_t len)
{
	struct pf_comm_ent *e = comm_slot(c, tid, false);
	char path[64];

	if (e && e->name[0] != '\0')
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
pf_comms_read_all(struct pf_comms *c)
{
	DIR *d;
	struct dirent *de;
	uint64_t pid;

	if ((d = opendir("/proc")) == NULL)
		return;
	while ((de = readdir(d)) != NULL)
		if (pf_parse_u64(de->d_name, 1, INT_MAX, &pid) == 0)
			pf_comms_read_proc(c, (pid_t)pid);
	closedir(d);
}

void
pf_comms_free(struct pf_comms *c)
{
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
	pf_htab_free(&c->index);
}
