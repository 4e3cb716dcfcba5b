/*
 * fuzz-perfscript: lib/common/perfscript.c on arbitrary sample streams.
 * The first byte picks the options, the size's low three bits three more;
 * the rest is split into lines and fed to the parser, and every folded
 * stack it emits is checked: non-empty, NUL-terminated at its length, no
 * newline, weight at least 1.  With the size's third bit, the '#' lines
 * go through the build-id line reader (lib/common/buildid.c) as pf-fold
 * --debug-dir reads them, and the [unknown] frames of the module the last
 * good line names are renamed as pf-fold would, through its segments:
 * names with the tidy rules' bytes, and inlined functions, folded in
 * their place.  A line read as a build-id line must hold what buildid.h
 * says: a build-id of 1 to PF_BUILDID_MAX bytes, a path within the line
 * without a blank or control byte, segments whose ranges fit.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buildid.h"
#include "perfscript.h"

#include "lines.h"

static const uint64_t pids[] = { 0, 1, 42, 4242 };

struct run {
	uint64_t total;
	struct pf_buildid id;	/* the last good build-id line's */
	char path[256];
	size_t pathlen;		/* 0: none */
	struct pf_ps_names out;
	const char *inl[3];
};

static int
check(const struct pf_ps_sample *s, void *arg)
{
	struct run *r = arg;

	if (s->len == 0 || s->stack[s->len] != '\0' ||
	    memchr(s->stack, '\n', s->len) != NULL || s->weight == 0)
		abort();
	r->total += s->weight;
	return 0;
}

static int
comment(const char *l, size_t n, void *arg)
{
	struct run *r = arg;
	struct pf_buildid id;
	const char *path = NULL;
	size_t plen = 0, i;
	uint64_t va;
	int rc;

	errno = 0;
	rc = pf_buildid_parse(l, n, &id, &path, &plen);
	if (rc == 0)
		return 0;
	if (rc == -1) {
		if (errno != EBADMSG)
			abort();
		return 0;
	}
	if (rc != 1 || id.idlen == 0 || id.idlen > PF_BUILDID_MAX || id.nseg > PF_BUILDID_SEGS ||
	    path < l || plen == 0 || path + plen > l + n)
		abort();
	for (i = 0; i < plen; i++)
		if ((unsigned char)path[i] <= ' ' || path[i] == 0x7f)
			abort();
	for (i = 0; i < id.nseg; i++)
		if (id.seg[i].offset + id.seg[i].size < id.seg[i].offset ||
		    id.seg[i].vaddr + id.seg[i].size < id.seg[i].vaddr ||
		    (id.seg[i].size > 0 && !pf_buildid_vaddr(&id, id.seg[i].offset, &va)))
			abort();
	if (plen < sizeof(r->path)) {
		r->id = id;
		memcpy(r->path, path, plen);
		r->pathlen = plen;
	}
	return 0;
}

/* pf-fold's renaming, with names that hold what the tidy rules change. */
static const struct pf_ps_names *
unknown(const char *mod, size_t n, uint64_t addr, int retaddr, void *arg)
{
	static const char *const names[] = {
		"fz_plain", "a;b", "ns::f(int)", "x->y->", "Lcom/a/B;.m", "[unknown]", "(p)",
		"\\x0a\\\\", "",
	};
	struct run *r = arg;
	uint64_t va;

	if (mod == NULL || n == 0 || memchr(mod, '\n', n) != NULL || (retaddr != 0 && retaddr != 1))
		abort();
	if (r->pathlen == 0 || !pf_buildid_path_is(r->path, r->pathlen, mod, n) ||
	    !pf_buildid_vaddr(&r->id, addr, &va) || va % 11 == 10)
		return NULL;
	r->out.name = names[va % (sizeof(names) / sizeof(names[0]))];
	r->inl[0] = names[(va >> 4) % (sizeof(names) / sizeof(names[0]))];
	r->inl[1] = names[(va >> 8) % (sizeof(names) / sizeof(names[0]))];
	r->inl[2] = "fz_inl";
	r->out.inl = r->inl;
	r->out.ninl = (size_t)(va % 4);
	return &r->out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pf_ps_config cfg = { 0 };
	struct pf_perfscript *ps;
	struct pf_ps_stats st;
	struct run run = { 0 };
	uint8_t o;

	if (size < 1)
		return 0;
	o = data[0];
	cfg.include_pid = o & 1;
	cfg.include_tid = (o >> 1) & 1;
	cfg.annotate_kernel = (o >> 2) & 1;
	cfg.annotate_jit = (o >> 3) & 1;
	cfg.include_addrs = (o >> 4) & 1;
	/*
	 * The option byte is full: the size's second bit turns on the two
	 * annotations that hold (inlined) lines back or mark them.
	 */
	cfg.annotate_libc = cfg.annotate_inline = (int)((size >> 1) & 1);
	if (o & 0x20)
		cfg.event_filter = "cycles";
	if (o & 0x40) {
		cfg.pids = pids;
		cfg.npids = 4;
	}
	if (o & 0x80) {
		cfg.use_time = 1;
		cfg.time_start_ns = 1000000000ULL;
		cfg.time_end_ns = 5000000000ULL;
	}
	cfg.keep_frames = (int)((size >> 2) & 1);
	if ((ps = pf_ps_new(&cfg, check, &run)) == NULL)
		return 0;
	if ((size >> 2) & 1) {
		pf_ps_on_comment(ps, comment);
		pf_ps_on_unknown(ps, unknown);
	}
	/* An odd size reads as a version 2 pf stream's (one-byte comms). */
	pf_ps_names_escaped(ps, (int)(size & 1));
	fuzz_each_line((const char *)data + 1, size - 1, fuzz_ps_line, ps);
	pf_ps_finish(ps);
	pf_ps_get_stats(ps, &st);
	if (st.samples > 0 && run.total == 0)
		abort();
	pf_ps_free(ps);
	return 0;
}
