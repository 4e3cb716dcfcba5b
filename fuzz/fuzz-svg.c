/*
 * fuzz-svg: the whole folded -> SVG path of pf-svg (pf_folded_parse,
 * pf_flame_add, pf_flame_render into memory) on arbitrary bytes, with options
 * and user strings taken from the input too.  Besides the sanitizers'
 * findings it aborts when the document is not clean UTF-8 free of
 * control characters, when a comment holds "--", or when a user string
 * escapes its element.
 *
 * Input: byte 0 and 1 pick options; then up to three NUL-terminated
 * strings (title, subtitle, notes/nametype); the rest is folded text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "flame.h"
#include "folded.h"
#include "xmlesc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
sink(void *ctx, const void *p, size_t n)
{
	return pf_buf_append(ctx, p, n);
}

/* The document must be valid UTF-8 with no control character but \n. */
static void
check_text(const struct pf_buf *b)
{
	size_t i = 0, n;
	unsigned cp;

	while (i < b->len) {
		n = pf_xmlesc_utf8_decode((const unsigned char *)b->data + i,
		    b->len - i, &cp);
		if (n == 0)
			abort();
		if ((cp < 0x20 && cp != '\n') || cp == 0x7f ||
		    (cp >= 0x80 && cp <= 0x9f) || cp == 0xfffe || cp == 0xffff)
			abort();
		i += n;
	}
}

/*
 * Structure: the only elements are the ones pf-svg writes, so an
 * injected "<script" or a second CDATA section means escaping failed.
 */
static void
check_structure(const struct pf_buf *b)
{
	const char *p = b->data, *end = b->data + b->len;
	int scripts = 0, cdata = 0;

	while ((p = memchr(p, '<', (size_t)(end - p))) != NULL) {
		if ((size_t)(end - p) >= 4 && memcmp(p, "<!--", 4) == 0) {
			/* A comment: it must not hold "--" before its end. */
			const char *c = p + 4;

			while (c + 1 < end && !(c[0] == '-' && c[1] == '-'))
				c++;
			if (c + 2 >= end || c[2] != '>')
				abort();
			p = c + 3;
			continue;
		}
		if ((size_t)(end - p) >= 7 && memcmp(p, "<script", 7) == 0)
			scripts++;
		if ((size_t)(end - p) >= 9 && memcmp(p, "<![CDATA[", 9) == 0)
			cdata++;
		p++;
	}
	if (b->len > 0 && (scripts > 1 || cdata > 1))
		abort();
}

static const char *
take_string(const uint8_t **d, size_t *n)
{
	const uint8_t *z = memchr(*d, '\0', *n);
	const char *s;

	if (z == NULL)
		return NULL;
	s = (const char *)*d;
	*n -= (size_t)(z - *d) + 1;
	*d = z + 1;
	return s;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pf_flame_opts o;
	struct pf_flame *f;
	struct pf_buf out = { 0 };
	const char *strs[3];
	uint8_t o1, o2;
	size_t i, start;
	char *text;

	if (size < 2)
		return 0;
	o1 = data[0];
	o2 = data[1];
	data += 2;
	size -= 2;
	for (i = 0; i < 3; i++)
		strs[i] = (o1 & (0x20 << (i % 3))) ? take_string(&data, &size) : NULL;

	pf_flame_opts_init(&o);
	o.palette = (enum pf_flame_palette)(o2 % (PF_FLAME_ORANGE + 1));
	o.hash = (o2 >> 4) & 1;
	o.inverted = o1 & 1;
	o.negate = (o1 >> 3) & 1;
	if (o2 & 0x40) {
		o.minwidth = (o2 >> 5) & 3;
		o.minwidth_pct = 1;
	} else if (o2 & 0x80) {
		o.minwidth = 0;
	}
	if (o1 & 0x10)
		o.total = 1000;
	o.title = strs[0];
	o.subtitle = strs[1];
	o.notes = strs[2];
	o.nametype = strs[2] ? strs[2] : o.nametype;
	o.countname = strs[1] ? strs[1] : o.countname;

	if ((f = pf_flame_new((o1 >> 1) & 1, (o1 >> 2) & 1)) == NULL)
		return 0;
	/* A writable, NUL-free-terminated copy: lines are cut in place. */
	if ((text = malloc(size + 1)) == NULL) {
		pf_flame_free(f);
		return 0;
	}
	memcpy(text, data, size);
	text[size] = '\0';
	for (start = 0, i = 0; i <= size; i++) {
		if (i == size || text[i] == '\n') {
			struct pf_folded_line fl;

			if (pf_folded_parse(text + start, i - start, &fl) == 0)
				(void)pf_flame_add(f, fl.stack, fl.stack_len, fl.ncounts,
				    fl.count[0], fl.ncounts == 2 ? fl.count[1] :
				    fl.count[0]);
			start = i + 1;
		}
	}
	if (pf_flame_total(f) == 0) {
		if (pf_flame_render_empty(&o, "nothing", sink, &out) == 0) {
			check_text(&out);
			check_structure(&out);
		}
	} else if (pf_flame_render(f, &o, sink, &out) == 0) {
		check_text(&out);
		check_structure(&out);
	}
	pf_buf_free(&out);
	free(text);
	pf_flame_free(f);
	return 0;
}
