/*
 * fuzz-rawrec: the ring record decoder the recorders run on what the
 * kernel (or a hostile ring) writes.  The input is a stream of records:
 * a perf_event_header and its bytes.  The drain (perfring.c) guarantees
 * only that a record's size covers its header and fits in what is there,
 * so that is all this keeps: every field inside (callchain lengths,
 * string lengths, sizes too small for the type) may lie.  Each record is
 * copied into a buffer of exactly its size, so an overread shows in
 * ASan; then the samples are put in time order and walked.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rawrec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;	/* keeps the walks from being optimised away */

/* Types the decoder knows, for the byte that picks one. */
static const uint32_t types[] = {
	PERF_RECORD_SAMPLE, PERF_RECORD_MMAP2, PERF_RECORD_COMM, PERF_RECORD_FORK,
	PERF_RECORD_EXIT, PERF_RECORD_SWITCH, PERF_RECORD_SWITCH_CPU_WIDE,
	PERF_RECORD_LOST, PERF_RECORD_THROTTLE, PERF_RECORD_MMAP,
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pf_rawrec r;
	struct perf_event_header h;
	struct pf_rawref *refs;
	size_t off = 1, n, i, sum = 0;
	char *rec;

	if (size < 1)
		return 0;
	memset(&r, 0, sizeof(r));
	r.keep_switches = data[0] & 1;
	r.cap_bytes = data[0] & 2 ? 4096 : UINT64_MAX;
	while (size - off >= sizeof(h)) {
		memcpy(&h, data + off, sizeof(h));
		/* A type byte of 0x80 and up picks a known type. */
		if (h.type & 0x80)
			h.type = types[(h.type & 0x7f) % (sizeof(types) / sizeof(types[0]))];
		if (h.size < sizeof(h))
			h.size = sizeof(h);
		if (h.size > size - off)
			h.size = (uint16_t)(size - off);
		if ((rec = malloc(h.size)) == NULL)
			break;
		memcpy(rec, data + off, h.size);
		memcpy(rec, &h, sizeof(h));
		if (pf_rawrec_on_record(&h, rec, &r) == -1) {
			free(rec);
			break;
		}
		free(rec);
		off += h.size;
	}
	if ((refs = pf_rawrec_sample_order(&r, &n)) != NULL) {
		for (i = 0; i < n; i++) {
			const struct pf_rawsample *s;

			if (refs[i].off >= r.samples.len)
				abort();
			s = pf_rawrec_sample(&r, refs[i].off);
			if (refs[i].off + pf_rawsample_size(s) > r.samples.len)
				abort();
			sum += s->nr + (size_t)refs[i].period;
		}
		free(refs);
	}
	/* Walk the events as the replay does: by their own sizes. */
	for (i = 0; i < r.events.len;) {
		const struct pf_rawevent *e = (const void *)(r.events.data + i);

		if (i + sizeof(*e) > r.events.len || i + pf_rawevent_size(e) > r.events.len)
			abort();
		sum += strlen((const char *)(e + 1));
		i += pf_rawevent_size(e);
	}
	pf_rawrec_free(&r);
	sink = sum;
	return 0;
}
