/*
 * fuzz-perfscript: lib/common/perfscript.c on arbitrary sample streams.
 * The first byte picks the options, the size's low two bits two more; the
 * rest is split into lines and fed to the parser, and every folded stack
 * it emits is checked: non-empty, NUL-terminated at its length, no
 * newline, weight at least 1.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfscript.h"

static const uint64_t pids[] = { 0, 1, 42, 4242 };

static int
check(const struct ps_sample *s, void *arg)
{
	uint64_t *total = arg;

	if (s->len == 0 || s->stack[s->len] != '\0' ||
	    memchr(s->stack, '\n', s->len) != NULL || s->weight == 0)
		abort();
	*total += s->weight;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_config cfg = { 0 };
	struct perfscript *ps;
	struct ps_stats st;
	uint64_t total = 0;
	const char *p, *end, *nl;
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
	if ((ps = ps_new(&cfg, check, &total)) == NULL)
		return 0;
	/* An odd size reads as a version 2 pf stream's (one-byte comms). */
	ps_names_escaped(ps, (int)(size & 1));
	p = (const char *)data + 1;
	end = (const char *)data + size;
	while (p < end) {
		size_t n;
		char *line;

		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		/* A copy of exactly n bytes, so ASan sees any read past the line. */
		if ((line = malloc(n ? n : 1)) == NULL)
			abort();
		memcpy(line, p, n);
		/* The callback never fails, so the only error is a malformed line. */
		if (ps_line(ps, line, n) == -1 && errno != EBADMSG)
			abort();
		free(line);
		p += n + 1;
	}
	ps_finish(ps);
	ps_get_stats(ps, &st);
	if (st.samples > 0 && total == 0)
		abort();
	ps_free(ps);
	return 0;
}
