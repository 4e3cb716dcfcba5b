/*
 * xmlesc: a byte-at-a-time validator.  ASCII runs are copied in bulk,
 * since nearly every frame name is plain ASCII.
 */
#include <errno.h>
#include <string.h>

#include "xmlesc.h"

#define REPLACEMENT "\xef\xbf\xbd"	/* U+FFFD */

size_t
pf_xmlesc_utf8_decode(const unsigned char *s, size_t n, unsigned *cp)
{
	unsigned c = s[0], v;
	size_t len, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		v = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		v = c & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF. */
	if ((len == 3 && v < 0x800) || (len == 4 && v < 0x10000) ||
	    (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff)
		return 0;
	*cp = v;
	return len;
}

size_t
pf_name_clean(char *s, size_t len)
{
	size_t i = 0, o = 0, n;
	unsigned cp;

	while (i < len) {
		n = pf_xmlesc_utf8_decode((const unsigned char *)s + i, len - i, &cp);
		if (n == 0 || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) {
			s[o++] = '?';
			i += n ? n : 1;
			continue;
		}
		memmove(s + o, s + i, n);
		o += n;
		i += n;
	}
	return o;
}

/* Whether byte c of a name needs escaping in a stream (pf_name_escape). */
static int
stream_special(const char *s, size_t i, size_t len, int flags)
{
	unsigned char c = (unsigned char)s[i];

	if (c < 0x20 || c == 0x7f || c == '\\' || c == ';')
		return 1;
	/*
	 * A comm starts its line: a space there would make the line no
	 * event line, a '#' a comment (a recorder's header, even); either
	 * way the sample would be lost.
	 */
	if ((flags & PF_ESC_COMM) && i == 0 && (c == ' ' || c == '#'))
		return 1;
	if (c != ' ')
		return 0;
	if (flags & PF_ESC_TOKEN)
		return 1;
	return (flags & PF_ESC_COMM) && i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '9';
}

int
pf_name_escape(struct pf_buf *b, const char *s, size_t len, int flags)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, run;

	while (i < len) {
		/* Plain bytes are copied as one run. */
		for (run = i; run < len && !stream_special(s, run, len, flags); run++)
			;
		if (run > i && pf_buf_append(b, s + i, run - i) == -1)
			return -1;
		if ((i = run) == len)
			break;
		if (s[i] == '\\') {
			if (pf_buf_append(b, "\\\\", 2) == -1)
				return -1;
		} else {
			char e[4] = { '\\', 'x', hex[(unsigned char)s[i] >> 4],
				      hex[(unsigned char)s[i] & 0xf] };

			if (pf_buf_append(b, e, sizeof(e)) == -1)
				return -1;
		}
		i++;
	}
	return 0;
}

int
pf_name_escape_str(struct pf_buf *b, const char *s, int flags)
{
	return pf_name_escape(b, s, strlen(s), flags);
}

/* Characters XML 1.0 allows, less the controls we never want in a label. */
static int
acceptable(unsigned cp)
{
	if (cp < 0x20 || cp == 0x7f)
		return 0;
	if (cp >= 0x80 && cp <= 0x9f)
		return 0;
	if (cp == 0xfffe || cp == 0xffff)
		return 0;
	return 1;
}

static const char *
entity(unsigned char c, int flags)
{
	if (flags & PF_XMLESC_RAW)
		return NULL;
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return (flags & PF_XMLESC_ATTR) ? "&quot;" : NULL;
	case '\'': return (flags & PF_XMLESC_ATTR) ? "&apos;" : NULL;
	default: return NULL;
	}
}

/*
 * Which bytes end a plain ASCII run, by what they are, so that the loop
 * over a run is one table look-up a byte: everything that is not printable
 * ASCII, the markup characters, and the quotes (in attributes).  It must
 * agree with entity().
 */
#define STOP_ALWAYS	0x1
#define STOP_MARKUP	0x2
#define STOP_QUOTE	0x4
static const unsigned char stop[256] = {
	[0x00 ... 0x1f] = STOP_ALWAYS,
	['&'] = STOP_MARKUP, ['<'] = STOP_MARKUP, ['>'] = STOP_MARKUP,
	['"'] = STOP_QUOTE, ['\''] = STOP_QUOTE,
	[0x7f ... 0xff] = STOP_ALWAYS,
};

int
pf_xmlesc_append(struct pf_buf *b, const char *s, size_t len, int flags)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0, n;
	unsigned cp;
	unsigned char mask = STOP_ALWAYS;

	if ((flags & PF_XMLESC_RAW) == 0)
		mask |= (flags & PF_XMLESC_ATTR) ? STOP_MARKUP | STOP_QUOTE :
		    STOP_MARKUP;

	if (pf_buf_reserve(b, len) == -1)
		return -1;
	while (i < len) {
		unsigned char c = p[i];

		if ((stop[c] & mask) == 0) {
			i++;
			continue;
		}
		if (i > run && pf_buf_append(b, s + run, i - run) == -1)
			return -1;
		if (c < 0x80 && c >= 0x20 && c != 0x7f) {
			if (pf_buf_puts(b, entity(c, flags)) == -1)
				return -1;
			i++;
		} else if ((n = pf_xmlesc_utf8_decode(p + i, len - i, &cp)) > 0 &&
		    acceptable(cp)) {
			if (pf_buf_append(b, s + i, n) == -1)
				return -1;
			i += n;
		} else {
			if (pf_buf_puts(b, REPLACEMENT) == -1)
				return -1;
			i += n > 0 ? n : 1;
		}
		run = i;
	}
	if (i > run && pf_buf_append(b, s + run, i - run) == -1)
		return -1;
	return 0;
}
