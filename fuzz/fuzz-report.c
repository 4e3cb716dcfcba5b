/*
 * fuzz-report: what pf-report (bin/pf-report.c, a tool, so not linked
 * here) does with a folded file that a target's names fill: each line
 * through pf_folded_parse, its stack cleaned in place for the terminal by
 * pf_name_clean (lib/common/xmlesc.c), then added to a stackmap with
 * pf-report's rule for the total (it stops at a sum over 2^64-1, which
 * also keeps every stack's count from wrapping).  pf_folded_parse and the
 * stackmap alone are fuzz-folded's; this adds the cleaning and the
 * aggregation of cleaned stacks.  pf-report's provenance and --process
 * parsing are static in the tool, out of reach.
 *
 * The whole input is first cleaned as one name.  Checks:
 *
 *   - pf_name_clean does what xmlesc.h says, byte for byte, against a
 *     well-formed UTF-8 reader written here from the Unicode table (not
 *     pf_xmlesc_utf8_decode): a well-formed character that is not a C0 or
 *     C1 control nor DEL is kept, anything else becomes one '?' (a
 *     whole C1 sequence; one per byte of what is not UTF-8).  So the
 *     result is well-formed UTF-8 without controls, never longer, and
 *     cleaning it again changes nothing;
 *   - a cleaned stack keeps its frames: as many ';' as before, and
 *     never empty;
 *   - the map holds only clean keys, no more than the stacks added, and
 *     its counts sum to the sum of the counts read (the second one of a
 *     differential line, as pf-report takes), with nothing in the second
 *     column; every stack added is found under its cleaned key.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "stackmap.h"
#include "xmlesc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAXIN = 65536 };

/*
 * The length of the well-formed UTF-8 character at s (n bytes there), or
 * 0: Unicode's table 3-7 of well-formed byte sequences, as ranges.
 */
static size_t
wf_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* Whether the character of len bytes at s is a C0 or C1 control or DEL. */
static bool
control(const unsigned char *s, size_t len)
{
	return (len == 1 && (s[0] < 0x20 || s[0] == 0x7f)) ||
	    (len == 2 && s[0] == 0xc2 && s[1] <= 0x9f);
}

static bool
clean(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i, n;

	for (i = 0; i < len; i += n)
		if ((n = wf_len(p + i, len - i)) == 0 || control(p + i, n))
			return false;
	return true;
}

/* out (olen bytes) must be in (len bytes) cleaned as xmlesc.h says. */
static void
check_clean(const char *in, size_t len, const char *out, size_t olen)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t i = 0, o = 0, n;

	if (olen > len)
		abort();
	while (i < len) {
		if (o >= olen)
			abort();
		n = wf_len(p + i, len - i);
		if (n == 0 || control(p + i, n)) {
			if (out[o] != '?')
				abort();
			i += n ? n : 1;
			o++;
		} else {
			if (olen - o < n || memcmp(out + o, in + i, n) != 0)
				abort();
			i += n;
			o += n;
		}
	}
	if (o != olen || !clean(out, olen))
		abort();
}

static size_t
semis(const char *s, size_t n)
{
	size_t k = 0, i;

	for (i = 0; i < n; i++)
		k += s[i] == ';';
	return k;
}

/* The whole input as one name: cleaned, and cleaned again. */
static void
one_name(const uint8_t *data, size_t size)
{
	char *a, *b;
	size_t n, m;

	if ((a = malloc(size ? size : 1)) == NULL || (b = malloc(size ? size : 1)) == NULL)
		abort();
	memcpy(a, data, size);
	n = pf_name_clean(a, size);
	check_clean((const char *)data, size, a, n);
	memcpy(b, a, n);
	m = pf_name_clean(b, n);
	if (m != n || memcmp(a, b, n) != 0)
		abort();
	free(a);
	free(b);
}

/* The input as a folded file, as pf-report reads one. */
static void
report(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	const struct pf_stackmap_entry **v;
	struct pf_stackmap *m;
	uint64_t sum = 0, listed = 0;
	size_t added = 0, n, i;

	if ((m = pf_stackmap_new()) == NULL)
		abort();
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p), slen;
		char *line = malloc(len ? len : 1), *stack, *orig;
		struct pf_folded_line fl;
		const struct pf_stackmap_entry *e;
		uint64_t c;

		if (line == NULL)
			abort();
		memcpy(line, p, len);
		p += len + 1;
		if (pf_folded_parse(line, len, &fl) != 0) {
			free(line);
			continue;
		}
		c = fl.ncounts == 2 ? fl.count[1] : fl.count[0];
		/* The stack lies in line, cleaned there as pf-report does. */
		stack = line + (fl.stack - line);
		if ((orig = malloc(fl.stack_len)) == NULL)
			abort();
		memcpy(orig, stack, fl.stack_len);
		slen = pf_name_clean(stack, fl.stack_len);
		check_clean(orig, fl.stack_len, stack, slen);
		if (slen == 0 || semis(stack, slen) != semis(orig, fl.stack_len))
			abort();
		free(orig);
		if (sum + c < sum) {		/* pf-report stops here */
			free(line);
			break;
		}
		sum += c;
		if (pf_stackmap_add(m, stack, slen, c, 0) == -1)
			abort();	/* no count can wrap below the sum */
		added++;
		if ((e = pf_stackmap_get(m, stack, slen)) == NULL || e->count[0] < c)
			abort();
		free(line);
	}
	if ((v = pf_stackmap_sorted(m, &n)) == NULL || n > added || n != pf_stackmap_size(m))
		abort();
	for (i = 0; i < n; i++) {
		if (v[i]->len == 0 || !clean(v[i]->key, v[i]->len) || v[i]->count[1] != 0 ||
		    listed + v[i]->count[0] < listed)
			abort();
		listed += v[i]->count[0];
	}
	if (listed != sum)
		abort();
	free(v);
	pf_stackmap_free(m);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAXIN)
		return 0;
	one_name(data, size);
	report(data, size);
	return 0;
}
