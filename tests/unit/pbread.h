/*
 * pbread.h: a minimal reader of the protocol buffers wire format, for
 * the drivers that read back what lib/common/pprof.c encodes
 * (tests/unit/test-common.c, fuzz/fuzz-pprof.c).  It knows the two wire
 * types the encoder writes: 0 (varint) and 2 (length-delimited).
 * pb_rd reads the field at *pos and moves *pos past it; it returns
 * false at the end of the buffer and on anything it cannot read
 * (a caller that must tell the two apart checks *pos < len first).
 */
#ifndef PF_TESTS_PBREAD_H
#define PF_TESTS_PBREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One field: its number, wire type, value (wire 0) or length and bytes (wire 2). */
struct pbf {
	unsigned field, wire;
	uint64_t v;
	const char *p;
	size_t n;
};

/* A varint at *pos; false if the buffer ends inside it or it runs past 64 bits. */
static inline bool
pb_rd_varint(const char *d, size_t len, size_t *pos, uint64_t *v)
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

static inline bool
pb_rd(const char *d, size_t len, size_t *pos, struct pbf *f)
{
	uint64_t k;

	if (*pos >= len || !pb_rd_varint(d, len, pos, &k))
		return false;
	f->field = (unsigned)(k >> 3);
	f->wire = (unsigned)(k & 7);
	f->p = NULL;
	f->n = 0;
	if (f->wire == 0)
		return pb_rd_varint(d, len, pos, &f->v);
	if (f->wire != 2 || !pb_rd_varint(d, len, pos, &f->v) || f->v > len - *pos)
		return false;
	f->p = d + *pos;
	f->n = (size_t)f->v;
	*pos += f->n;
	return true;
}

#endif
