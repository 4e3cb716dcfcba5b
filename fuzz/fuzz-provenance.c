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

#include "lines.h"

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

/* The recording the lines so far describe: a header, then its notes. */
struct cur {
	struct pf_prov prov;
	int have;
};

static void
line(const char *l, size_t len, void *arg)
{
	struct cur *c = arg;
	struct pf_prov tmp;

	if (pf_prov_header(&c->prov, l, len))
		c->have = 1;
	else if (c->have)
		(void)pf_prov_note(&c->prov, l, len);
	if (pf_prov_parse(&tmp, l, len))
		check(&tmp);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cur c;

	memset(&c, 0, sizeof(c));
	fuzz_each_line((const char *)data, size, line, &c);
	if (c.have)
		check(&c.prov);
	return 0;
}
