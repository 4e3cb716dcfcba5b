/*
 * fuzz-pprof: lib/common/pprof.c on arbitrary sample streams, fed as
 * pf-fold --pprof feeds it: each line to perfscript (keep_frames), each
 * sample it emits to pf_pprof_add_sample, each '#' line to pf_pprof_comment.
 * Every string perfscript hands over is read whole (ASan sees a read past
 * its buffer).  The encoded profile is then read back with a wire-format reader
 * of its own and checked: it parses to its end, string 0 is empty, every
 * id a sample or location names exists, and the samples' values sum to
 * what was added.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "perfscript.h"
#include "pprof.h"

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

static bool
varint(const char *d, size_t len, size_t *pos, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (*pos < len && shift < 64) {
		unsigned char c = (unsigned char)d[(*pos)++];

		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return true;
		shift += 7;
	}
	return false;
}

/* One field: its number, wire type and value or bytes; false at the end or on garbage. */
static bool
field(const char *d, size_t len, size_t *pos, unsigned *fno, uint64_t *v, const char **p)
{
	uint64_t k;

	if (*pos >= len)
		return false;
	if (!varint(d, len, pos, &k))
		abort();
	*fno = (unsigned)(k >> 3);
	if ((k & 7) == 0) {
		if (!varint(d, len, pos, v))
			abort();
		*p = NULL;
		return true;
	}
	if ((k & 7) != 2 || !varint(d, len, pos, v) || *v > len - *pos)
		abort();
	*p = d + *pos;
	*pos += (size_t)*v;
	return true;
}

static void
check(const struct pf_buf *b, const struct run *r)
{
	size_t pos = 0, nstr = 0, nloc = 0, nfn = 0, nmap = 0, maxloc = 0, maxfn = 0, maxmap = 0;
	uint64_t v, count = 0, weight = 0;
	const char *p;
	unsigned f;

	while (field(b->data, b->len, &pos, &f, &v, &p)) {
		size_t sp = 0, n = (size_t)v;
		const char *sub = p;
		unsigned g;
		uint64_t w;
		const char *q;

		switch (f) {
		case 2:		/* sample: packed location ids, packed values */
			while (field(sub, n, &sp, &g, &w, &q)) {
				size_t vp = 0;
				uint64_t x, y;

				if (g == 1)
					while (vp < w && varint(q, (size_t)w, &vp, &x))
						maxloc = x > maxloc ? x : maxloc;
				if (g == 2) {
					if (!varint(q, (size_t)w, &vp, &x) || !varint(q, (size_t)w, &vp, &y) ||
					    vp != w)
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
			while (field(sub, n, &sp, &g, &w, &q)) {
				size_t lp = 0;
				unsigned h;
				uint64_t x;
				const char *z;

				if (g == 2)
					maxmap = w > maxmap ? w : maxmap;
				if (g == 4)
					while (field(q, (size_t)w, &lp, &h, &x, &z))
						if (h == 1)
							maxfn = x > maxfn ? x : maxfn;
			}
			break;
		case 5:
			nfn++;
			break;
		case 6:
			if (nstr++ == 0 && n != 0)
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
	const char *p = (const char *)data, *end = p + size, *nl;

	if ((r.pp = pf_pprof_new()) == NULL)
		return 0;
	if ((ps = pf_ps_new(&cfg, add, &r)) == NULL)
		abort();
	pf_ps_on_comment(ps, comment);
	while (p < end) {
		size_t n;
		char *line;

		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		/* A copy of exactly n bytes, so ASan sees any read past the line. */
		if ((line = malloc(n ? n : 1)) == NULL)
			abort();
		memcpy(line, p, n);
		if (pf_ps_line(ps, line, n) == -1 && errno != EBADMSG)
			abort();
		free(line);
		p += n + 1;
	}
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
