/*
 * fuzz-provenance: lib/common/provenance.c on arbitrary recorder comments.
 * Each line is offered as a header, a note and a provenance line; every
 * line written must keep the contract flamegraph.pl and pf-svg rely on:
 * one line, the prefix, no control byte or ';', values within the cap,
 * the unit last (never a trailing digit), a comment to the folded parser,
 * and read back to the same recording.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "folded.h"
#include "provenance.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check(const struct pf_prov *p)
{
	struct pf_buf b = { 0 }, t = { 0 }, st = { 0 };
	struct pf_folded_line fl;
	struct pf_prov q;
	const char *tail;
	size_t i, k;

	if (pf_prov_format(p, &b) == -1)
		return;
	if (b.len < sizeof(PF_PROV_PREFIX) || memcmp(b.data, PF_PROV_PREFIX,
	    sizeof(PF_PROV_PREFIX) - 1) != 0 || b.data[b.len - 1] != '\n')
		abort();
	for (i = 0; i + 1 < b.len; i++)
		if ((unsigned char)b.data[i] < ' ' || b.data[i] == 0x7f || b.data[i] == ';')
			abort();
	tail = p->unit_ns ? " unit=ns\n" : " unit=samples\n";
	if (b.len < strlen(tail) || strcmp(b.data + b.len - strlen(tail), tail) != 0)
		abort();
	if (pf_folded_parse(b.data, b.len - 1, &fl) != 1)
		abort();
	if (pf_prov_parse(&q, b.data, b.len - 1) != 1 || q.unit_ns != p->unit_ns ||
	    memcmp(q.val, p->val, sizeof(q.val)) != 0)
		abort();
	for (k = 0; k < PF_PROV_NKEYS; k++)
		if (strlen(p->val[k]) > PF_PROV_VALMAX)
			abort();
	if (pf_prov_describe(p, &t, &st) == -1)
		abort();
	pf_buf_free(&b);
	pf_buf_free(&t);
	pf_buf_free(&st);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct pf_prov cur, tmp;
	int have = 0;

	memset(&cur, 0, sizeof(cur));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = malloc(len ? len : 1);

		if (line == NULL)
			abort();
		memcpy(line, p, len);
		if (pf_prov_header(&cur, line, len))
			have = 1;
		else if (have)
			(void)pf_prov_note(&cur, line, len);
		if (pf_prov_parse(&tmp, line, len))
			check(&tmp);
		free(line);
		p += len + (nl != NULL);
	}
	if (have)
		check(&cur);
	return 0;
}
