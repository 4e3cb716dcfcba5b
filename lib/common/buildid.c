/*
 * buildid: writing and reading the stream's "# build-id" lines.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "buildid.h"
#include "parse.h"
#include "xmlesc.h"

#define PREFIX "# build-id "
#define PREFIX_LEN (sizeof(PREFIX) - 1)

void
pf_buildid_hex(const unsigned char *id, size_t idlen, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < idlen; i++) {
		out[2 * i] = hex[id[i] >> 4];
		out[2 * i + 1] = hex[id[i] & 0xf];
	}
	out[2 * idlen] = '\0';
}

int
pf_buildid_format(struct pf_buf *b, const char *path, const struct pf_buildid *id)
{
	char hex[2 * PF_BUILDID_MAX + 1];
	size_t i;

	if (id->idlen == 0 || id->idlen > PF_BUILDID_MAX || id->nseg > PF_BUILDID_SEGS ||
	    path[0] == '\0') {
		errno = EINVAL;
		return -1;
	}
	pf_buildid_hex(id->id, id->idlen, hex);
	if (pf_buf_printf(b, PREFIX "%s ", hex) == -1 ||
	    pf_name_escape_str(b, path, PF_ESC_TOKEN) == -1)
		return -1;
	for (i = 0; i < id->nseg; i++)
		if (pf_buf_printf(b, " %llx:%llx:%llx", (unsigned long long)id->seg[i].offset,
		    (unsigned long long)id->seg[i].vaddr, (unsigned long long)id->seg[i].size) == -1)
			return -1;
	return pf_buf_putc(b, '\n');
}

/* Lowercase hex digits p[0, n) as a number below 2^64: 0, or -1. */
static int
hex_u64(const char *p, size_t n, uint64_t *v)
{
	size_t i;

	*v = 0;
	if (n == 0 || n > 16)
		return -1;
	for (i = 0; i < n; i++) {
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return -1;
		*v = *v << 4 | (uint64_t)pf_hexval((unsigned char)p[i]);
	}
	return 0;
}

/* One segment word "OFFSET:VADDR:SIZE": 0, or -1. */
static int
segment(const char *w, size_t n, struct pf_buildid_seg *s)
{
	const char *c1 = memchr(w, ':', n), *c2;

	if (c1 == NULL || (c2 = memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - w))) == NULL)
		return -1;
	if (hex_u64(w, (size_t)(c1 - w), &s->offset) == -1 ||
	    hex_u64(c1 + 1, (size_t)(c2 - c1 - 1), &s->vaddr) == -1 ||
	    hex_u64(c2 + 1, n - (size_t)(c2 + 1 - w), &s->size) == -1)
		return -1;
	/* Both ranges must fit: pf_buildid_vaddr adds within them. */
	if (s->offset + s->size < s->offset || s->vaddr + s->size < s->vaddr)
		return -1;
	return 0;
}

static int
malformed(void)
{
	errno = EBADMSG;
	return -1;
}

int
pf_buildid_parse(const char *line, size_t len, struct pf_buildid *id, const char **path,
    size_t *pathlen)
{
	const char *p = line + PREFIX_LEN, *end = line + len, *w;
	size_t n, i;

	if (len < PREFIX_LEN || memcmp(line, PREFIX, PREFIX_LEN) != 0)
		return 0;
	memset(id, 0, sizeof(*id));
	/* The build-id: pairs of lowercase hex digits up to the next space. */
	for (n = 0; p + n < end && p[n] != ' '; n++)
		;
	if (n == 0 || n % 2 != 0 || n > 2 * PF_BUILDID_MAX)
		return malformed();
	for (i = 0; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return malformed();
	for (i = 0; i < n / 2; i++)
		id->id[i] = (unsigned char)(pf_hexval((unsigned char)p[2 * i]) << 4 |
		    pf_hexval((unsigned char)p[2 * i + 1]));
	id->idlen = n / 2;
	p += n;
	/* The path: one word, no blank or control byte (it is escaped). */
	if (p == end || *p++ != ' ')
		return malformed();
	for (w = p; p < end && *p != ' '; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return malformed();
	if (p == w)
		return malformed();
	*path = w;
	*pathlen = (size_t)(p - w);
	/* The segments, each after one space. */
	while (p < end) {
		if (*p++ != ' ' || p == end || *p == ' ')
			return malformed();
		for (w = p; p < end && *p != ' '; p++)
			;
		n = (size_t)(p - w);
		if (memchr(w, '=', n) != NULL)
			continue;
		if (id->nseg == PF_BUILDID_SEGS || segment(w, n, &id->seg[id->nseg]) == -1)
			return malformed();
		id->nseg++;
	}
	return 1;
}

bool
pf_buildid_vaddr(const struct pf_buildid *id, uint64_t off, uint64_t *va)
{
	return pf_buildid_seg_vaddr(id->seg, id->nseg, off, va);
}

bool
pf_buildid_seg_vaddr(const struct pf_buildid_seg *seg, size_t n, uint64_t off, uint64_t *va)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (off >= seg[i].offset && off - seg[i].offset < seg[i].size) {
			*va = off - seg[i].offset + seg[i].vaddr;
			return true;
		}
	return false;
}

bool
pf_buildid_path_is(const char *path, size_t pathlen, const char *mod, size_t modlen)
{
	size_t i, j;

	for (i = j = 0; i < modlen; i++) {
		if (mod[i] == ' ') {
			if (pathlen - j < 4 || memcmp(path + j, "\\x20", 4) != 0)
				return false;
			j += 4;
		} else {
			if (j == pathlen || path[j] != mod[i])
				return false;
			j++;
		}
	}
	return j == pathlen;
}

int
pf_buildid_debug_path(char *out, size_t outlen, const char *dir, const unsigned char *id,
    size_t idlen)
{
	char hex[2 * PF_BUILDID_MAX + 1];
	int n;

	if (idlen < 2 || idlen > PF_BUILDID_MAX) {
		errno = EINVAL;
		return -1;
	}
	pf_buildid_hex(id, idlen, hex);
	n = snprintf(out, outlen, "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
	if (n < 0 || (size_t)n >= outlen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}
