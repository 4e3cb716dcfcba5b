/*
 * fuzz-folded: lib/common/folded.c's pf_folded_parse on arbitrary lines, and
 * lib/common/stackmap.c fed with what it accepts.  Checks the parser's
 * contract (the stack is a non-empty prefix of the line, not ending in
 * white space; the counts are the digits that follow) and the map's (the
 * sorted listing is in strict byte order, its sums equal what was added).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "stackmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
cmp_key(const struct pf_stackmap_entry *a, const struct pf_stackmap_entry *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->key, b->key, n);

	return c ? c : (a->len > b->len) - (a->len < b->len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pf_stackmap *m;
	const struct pf_stackmap_entry **v;
	const char *p = (const char *)data, *end = p + size;
	unsigned __int128 added[2] = { 0, 0 }, listed[2] = { 0, 0 };
	size_t n, i;

	if ((m = pf_stackmap_new()) == NULL)
		return 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = malloc(len ? len : 1);
		struct pf_folded_line fl;
		int r;

		if (line == NULL)
			abort();
		memcpy(line, p, len);
		r = pf_folded_parse(line, len, &fl);
		if (r == 0) {
			if (fl.stack != line || fl.stack_len == 0 || fl.stack_len > len ||
			    fl.stack[fl.stack_len - 1] == ' ' ||
			    fl.stack[fl.stack_len - 1] == '\t' ||
			    (fl.ncounts != 1 && fl.ncounts != 2))
				abort();
			if (pf_stackmap_add(m, fl.stack, fl.stack_len, fl.count[0],
			    fl.count[1]) == 0) {
				added[0] += fl.count[0];
				added[1] += fl.count[1];
			} else if (errno != EOVERFLOW) {
				abort();
			}
			if (pf_stackmap_get(m, fl.stack, fl.stack_len) == NULL)
				abort();
		} else if (r == -1) {
			if (errno != EINVAL && errno != EDOM && errno != ERANGE)
				abort();
		} else if (r != 1) {
			abort();
		}
		free(line);
		p += len + 1;
	}
	if ((v = pf_stackmap_sorted(m, &n)) == NULL)
		abort();
	if (n != pf_stackmap_size(m))
		abort();
	for (i = 0; i < n; i++) {
		if (i > 0 && cmp_key(v[i - 1], v[i]) >= 0)
			abort();
		if (v[i]->key[v[i]->len] != '\0')
			abort();
		listed[0] += v[i]->count[0];
		listed[1] += v[i]->count[1];
	}
	if (listed[0] != added[0] || listed[1] != added[1])
		abort();
	free(v);
	pf_stackmap_free(m);
	return 0;
}
