/*
 * fuzz-pprof: lib/common/pprof.c on arbitrary sample streams, fed as
 * pf-fold --pprof feeds it: each line to perfscript (keep_frames), each
 * sample it emits to pf_pprof_add_sample, each '#' line to pf_pprof_comment.
 * Every string perfscript hands over is read whole (ASan sees a read past
 * its buffer).  The encoded profile is then read back with the drivers'
 * wire-format reader (tests/unit/pbread.h) and checked: it parses to its
 * end, string 0 is empty, every id a sample or location names exists, and
 * the samples' values sum to what was added.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "perfscript.h"
#include "pprof.h"

#include "../tests/unit/pbread.h"
#include "lines.h"

struct run {
	struct pf_pprof *pp;
	uint64_t count, weight;
	bool overflow;
};

/* Read every byte of a string perfscript handed over. */
static void
touch(const char *p, size_t n)
{
	volatile char c = 0;
	size_t i;

	for (i = 0; i < n; i++)
		c ^= p[i];
	(void)c;
}

static int
add(const struct pf_ps_sample *s, void *arg)
{
	struct run *r = arg;
	size_t i;

	if (s->nframes > 0 && s->frames == NULL)
		abort();
	touch(s->comm, s->comm_len);
	if (s->event != NULL)
		touch(s->event, s->event_len);
	for (i = 0; i < s->nframes; i++) {
		touch(s->frames[i].func, s->frames[i].func_len);
		touch(s->frames[i].module, s->frames[i].module_len);
	}
	if (r->overflow)
		return 0;
	if (pf_pprof_add_sample(r->pp, s) == -1) {
		if (errno != EOVERFLOW)
			abort();
		r->overflow = true;
		return 0;
	}
	r->count++;
	r->weight += s->weight;
	return 0;
}

static int
comment(const char *l, size_t len, void *arg)
{
	struct run *r = arg;

	if (pf_pprof_comment(r->pp, l, len) == -1)
		abort();
	return 0;
}

/* One field at *pos: false at the end; garbage aborts (the encoder wrote it). */
static bool
field(const char *d, size_t len, size_t *pos, struct pbf *f)
{
	if (*pos >= len)
		return false;
	if (!pb_rd(d, len, pos, f))
		abort();
	return true;
}

static void
check(const struct pf_buf *b, const struct run *r)
{
	size_t pos = 0, nstr = 0, nloc = 0, nfn = 0, nmap = 0, maxloc = 0, maxfn = 0, maxmap = 0;
	uint64_t count = 0, weight = 0;
	struct pbf f;

	while (field(b->data, b->len, &pos, &f)) {
		size_t sp = 0;
		struct pbf g;

		switch (f.field) {
		case 2:		/* sample: packed location ids, packed values */
			while (field(f.p, f.n, &sp, &g)) {
				size_t vp = 0;
				uint64_t x, y;

				if (g.field == 1)
					while (vp < g.n && pb_rd_varint(g.p, g.n, &vp, &x))
						maxloc = x > maxloc ? x : maxloc;
				if (g.field == 2) {
					if (!pb_rd_varint(g.p, g.n, &vp, &x) ||
					    !pb_rd_varint(g.p, g.n, &vp, &y) || vp != g.n)
						abort();
					count += x;
					weight += y;
				}
			}
			break;
		case 3:
			nmap++;
			break;
		case 4:		/* location: id, mapping, address, lines */
			nloc++;
			while (field(f.p, f.n, &sp, &g)) {
				size_t lp = 0;
				struct pbf h;

				if (g.field == 2)
					maxmap = g.v > maxmap ? g.v : maxmap;
				if (g.field == 4)
					while (field(g.p, g.n, &lp, &h))
						if (h.field == 1)
							maxfn = h.v > maxfn ? h.v : maxfn;
			}
			break;
		case 5:
			nfn++;
			break;
		case 6:
			if (nstr++ == 0 && f.n != 0)
				abort();
			break;
		}
	}
	if (pos != b->len || nstr == 0 || maxloc > nloc || maxfn > nfn || maxmap > nmap)
		abort();
	if (!r->overflow && (count != r->count || weight != r->weight))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pf_ps_config cfg = { .keep_frames = 1 };
	struct run r = { 0 };
	struct pf_perfscript *ps;
	struct pf_ps_stats st;
	struct pf_buf out = { 0 };

	if ((r.pp = pf_pprof_new()) == NULL)
		return 0;
	if ((ps = pf_ps_new(&cfg, add, &r)) == NULL)
		abort();
	pf_ps_on_comment(ps, comment);
	fuzz_each_line((const char *)data, size, fuzz_ps_line, ps);
	if (pf_ps_finish(ps) == -1)
		abort();
	pf_ps_get_stats(ps, &st);
	if (pf_pprof_encode(r.pp, st.event, &out) == -1)
		abort();
	check(&out, &r);
	pf_buf_free(&out);
	pf_ps_free(ps);
	pf_pprof_free(r.pp);
	return 0;
}
