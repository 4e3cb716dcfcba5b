/*
 * fuzz-nameattr: pf-svg's --nameattr parser (pf_nameattr_line) on arbitrary
 * lines, then a graph of the names it kept rendered with their extras.
 * Besides the sanitizers' findings it aborts when a warning is not
 * printable ASCII, or when a frame's start tag in the document is not a
 * clean run of name="value" attributes, sets one twice, holds an event
 * handler, a style, an href other than xlink:href, or a link whose scheme
 * is not http or https.
 *
 * Input: folded-style text, one --nameattr line per '\n'.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "flame.h"
#include "nameattr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
sink(void *ctx, const void *p, size_t n)
{
	return pf_buf_append(ctx, p, n);
}

static void
warn(void *arg, const char *why)
{
	(void)arg;
	for (; *why != '\0'; why++)
		if ((unsigned char)*why < 0x20 || (unsigned char)*why >= 0x7f)
			abort();
}

static const struct pf_flame_nameattr *
lookup(void *arg, const char *name, size_t len)
{
	return pf_nameattr_get(arg, name, len);
}

/* The scheme of an escaped link value v (n bytes) must be http(s) or none. */
static void
check_link(const char *v, size_t n)
{
	size_t i;

	for (i = 0; i < n && v[i] != '/' && v[i] != '?' && v[i] != '#'; i++) {
		if (v[i] == ':') {
			if (!((i == 4 && strncasecmp(v, "http", 4) == 0) ||
			    (i == 5 && strncasecmp(v, "https", 5) == 0)))
				abort();
			return;
		}
		/*
		 * Before the path only the entities escaping adds for quotes
		 * and markup: a raw '&' (now "&amp;") could hide a scheme.
		 */
		if (v[i] == '&' && !(n - i >= 6 && (memcmp(v + i, "&quot;", 6) == 0 ||
		    memcmp(v + i, "&apos;", 6) == 0)) && !(n - i >= 4 &&
		    (memcmp(v + i, "&lt;", 4) == 0 || memcmp(v + i, "&gt;", 4) == 0)))
			abort();
	}
}

/* The attributes of one start tag, p just past "<g" or "<a", up to '>'. */
static const char *
check_tag(const char *p, const char *end)
{
	const char *names[64];
	size_t lens[64], k = 0, i;

	while (p < end && *p == ' ') {
		const char *ns = ++p, *vs, *ve;
		size_t nl;

		while (p < end && *p != '=' && *p != ' ' && *p != '>')
			p++;
		nl = (size_t)(p - ns);
		if (nl == 0 || p + 1 >= end || p[0] != '=' || p[1] != '"')
			abort();
		vs = p + 2;
		if ((ve = memchr(vs, '"', (size_t)(end - vs))) == NULL)
			abort();
		/* A value holds no markup: '<' is always escaped. */
		if (memchr(vs, '<', (size_t)(ve - vs)) != NULL)
			abort();
		if (nl > 2 && (ns[0] == 'o' || ns[0] == 'O') &&
		    (ns[1] == 'n' || ns[1] == 'N'))
			abort();
		if ((nl == 5 && memcmp(ns, "style", 5) == 0) ||
		    (nl == 4 && memcmp(ns, "href", 4) == 0) ||
		    memchr(ns, ':', nl) != NULL) {
			if (!(nl == 10 && memcmp(ns, "xlink:href", 10) == 0))
				abort();
			check_link(vs, (size_t)(ve - vs));
		}
		for (i = 0; i < k; i++)
			if (lens[i] == nl && memcmp(names[i], ns, nl) == 0)
				abort();
		if (k == 64)
			abort();
		names[k] = ns;
		lens[k++] = nl;
		p = ve + 1;
	}
	if (p >= end || *p != '>')
		abort();
	return p;
}

static void
check_doc(const struct pf_buf *b)
{
	const char *p = b->data, *end = b->data + b->len;

	while ((p = memchr(p, '<', (size_t)(end - p))) != NULL) {
		if (end - p > 3 && (p[1] == 'g' || p[1] == 'a') && p[2] == ' ' &&
		    memcmp(p + 3, "data-s=", 7) == 0)
			p = check_tag(p + 2, end);
		else
			p++;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *nl, *tab;
	struct pf_nameattr *na;
	struct pf_flame *f;
	struct pf_flame_opts o;
	struct pf_buf out = { 0 }, stack = { 0 };
	size_t left = size, n;

	if ((na = pf_nameattr_new()) == NULL)
		return 0;
	if ((f = pf_flame_new(0, 0)) == NULL) {
		pf_nameattr_free(na);
		return 0;
	}
	while (left > 0) {
		nl = memchr(s, '\n', left);
		n = nl != NULL ? (size_t)(nl - s) : left;
		if (pf_nameattr_line(na, s, n, warn, NULL) == 0 &&
		    (tab = memchr(s, '\t', n)) != NULL && tab > s &&
		    memchr(s, ';', (size_t)(tab - s)) == NULL) {
			/* The name as a frame, so its extras are drawn. */
			pf_buf_reset(&stack);
			if (pf_buf_puts(&stack, "root;") == 0 &&
			    pf_buf_append(&stack, s, (size_t)(tab - s)) == 0)
				(void)pf_flame_add(f, stack.data, stack.len, 1, 1, 1);
		}
		s += n + (nl != NULL);
		left -= n + (nl != NULL);
	}
	pf_flame_opts_init(&o);
	o.minwidth = 0;
	o.nameattr = lookup;
	o.hook_arg = na;
	if (pf_flame_total(f) > 0 && pf_flame_render(f, &o, sink, &out) == 0)
		check_doc(&out);
	pf_buf_free(&out);
	pf_buf_free(&stack);
	pf_flame_free(f);
	pf_nameattr_free(na);
	return 0;
}
