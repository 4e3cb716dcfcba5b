/*
 * nameattr: allow-lists, not deny-lists.  A browser follows more than
 * href (ping, fill="url(...)", filter, cursor, style with CSS escapes that
 * spell url( in ways no pattern keeps up with) and runs more than on*, so
 * an extra attribute is kept only when its name is one known to be inert,
 * and a link only when its scheme is http or https or it has none.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "grow.h"
#include "nameattr.h"
#include "stackmap.h"
#include "xmlesc.h"

struct entry {
	char *title, *href, *target;
	struct pf_buf g, x;		/* escaped attributes, each " k=\"v\"" */
	struct pf_flame_nameattr view;
};

struct pf_nameattr {
	struct pf_stackmap *map;		/* name -> index + 1 in count[0] */
	struct entry *v;
	size_t n, cap;
};

/* One line being parsed. */
struct line {
	struct entry e;
	struct pf_buf seen;		/* " name " of every attribute set */
	pf_nameattr_warn warn;
	void *arg;
	int nomem;
};

/* Longest piece of the file quoted in a warning. */
#define QUOTE_MAX 64

static void warnf(struct line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Warnings quote the file: only printable ASCII reaches the terminal. */
static void
warnf(struct line *l, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	for (i = 0; why[i] != '\0'; i++)
		if ((unsigned char)why[i] < 0x20 || (unsigned char)why[i] >= 0x7f)
			why[i] = '?';
	l->warn(l->arg, why);
}

static int
quote_len(size_t n)
{
	return n > QUOTE_MAX ? QUOTE_MAX : (int)n;
}

struct pf_nameattr *
pf_nameattr_new(void)
{
	struct pf_nameattr *na = calloc(1, sizeof(*na));

	if (na == NULL)
		return NULL;
	if ((na->map = pf_stackmap_new()) == NULL) {
		free(na);
		return NULL;
	}
	return na;
}

static void
entry_free(struct entry *e)
{
	free(e->title);
	free(e->href);
	free(e->target);
	pf_buf_free(&e->g);
	pf_buf_free(&e->x);
}

void
pf_nameattr_free(struct pf_nameattr *na)
{
	size_t i;

	if (na == NULL)
		return;
	for (i = 0; i < na->n; i++)
		entry_free(&na->v[i]);
	free(na->v);
	pf_stackmap_free(na->map);
	free(na);
}

int
pf_nameattr_href_ok(const char *s, size_t n)
{
	size_t i, path;
	const char *colon;

	/* URL parsers drop these at the ends, and tabs and newlines inside. */
	if (n == 0 || s[0] == ' ' || s[n - 1] == ' ')
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	/* A scheme can only come before the path, query or fragment. */
	for (path = 0; path < n; path++)
		if (s[path] == '/' || s[path] == '?' || s[path] == '#')
			break;
	/* Nothing that a second decoding could turn into a colon or slash. */
	for (i = 0; i < path; i++)
		if (s[i] == '&' || s[i] == '\\' || s[i] == '%')
			return 0;
	if ((colon = memchr(s, ':', path)) == NULL)
		return 1;
	return ((colon - s == 4 && strncasecmp(s, "http", 4) == 0) ||
	    (colon - s == 5 && strncasecmp(s, "https", 5) == 0));
}

/*
 * Inert: none takes a URL or script, none is one the renderer writes
 * itself (data-s, data-n, data-name, xlink:href, target, class, id).
 */
static const char *const inert[] = {
	"fill-opacity", "font-style", "font-weight", "hreflang", "lang",
	"opacity", "referrerpolicy", "rel", "role", "stroke-dasharray",
	"stroke-opacity", "stroke-width", "tabindex", "text-decoration",
	"type", "visibility",
};

static int
is_name(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') ||
	    (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return 0;
	/* No ':': a prefix would need a namespace the document lacks. */
	for (i = 1; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' &&
		    s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '_' || s[i] == '-' || s[i] == '.'))
			return 0;
	return 1;
}

#define IS(s, n, lit) ((n) == sizeof(lit) - 1 && memcmp(s, lit, n) == 0)

int
pf_nameattr_extra_ok(const char *s, size_t n)
{
	size_t i;

	if (!is_name(s, n))
		return 0;
	if (IS(s, n, "data-s") || IS(s, n, "data-n") || IS(s, n, "data-name"))
		return 0;
	if ((n > 5 && memcmp(s, "data-", 5) == 0) ||
	    (n > 5 && memcmp(s, "aria-", 5) == 0))
		return 1;
	for (i = 0; i < sizeof(inert) / sizeof(inert[0]); i++)
		if (strlen(inert[i]) == n && memcmp(inert[i], s, n) == 0)
			return 1;
	return 0;
}

/* Whether an attribute called s (n bytes) was set on this line. */
static int
seen(const struct line *l, const char *s, size_t n)
{
	const char *p = l->seen.data, *end;

	if (l->seen.len == 0)
		return 0;
	end = p + l->seen.len;
	/* Names hold no space, so " name " matches one name only. */
	for (; p + n + 2 <= end; p++) {
		p = memchr(p, ' ', (size_t)(end - p));
		if (p == NULL || p + n + 2 > end)
			break;
		if (memcmp(p + 1, s, n) == 0 && p[n + 1] == ' ')
			return 1;
	}
	return 0;
}

/*
 * Append ` name="value"` to b, escaped.  0, or -1 when the name was set
 * before (a second one would make the element malformed).
 */
static int
put_attr(struct line *l, struct pf_buf *b, const char *name, size_t nlen,
    const char *val, size_t vlen)
{
	if (seen(l, name, nlen))
		return -1;
	if (pf_buf_putc(b, ' ') == -1 || pf_buf_append(b, name, nlen) == -1 ||
	    pf_buf_puts(b, "=\"") == -1 ||
	    pf_xmlesc_append(b, val, vlen, PF_XMLESC_ATTR) == -1 ||
	    pf_buf_putc(b, '"') == -1 ||
	    (l->seen.len == 0 && pf_buf_putc(&l->seen, ' ') == -1) ||
	    pf_buf_append(&l->seen, name, nlen) == -1 ||
	    pf_buf_putc(&l->seen, ' ') == -1)
		l->nomem = 1;
	return 0;
}

/*
 * g_extra / a_extra: `name="value" name='value' ...` into b.  NULL, or
 * why not (then b may hold part: the caller cuts it back).
 */
static const char *
put_extra(struct line *l, struct pf_buf *b, const char *s, size_t n)
{
	size_t i = 0;

	for (;;) {
		size_t ns, ne, vs;
		char q;

		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == n)
			return NULL;
		ns = i;
		while (i < n && s[i] != '=' && s[i] != ' ')
			i++;
		ne = i;
		if (i + 1 >= n || s[i] != '=' ||
		    (s[i + 1] != '"' && s[i + 1] != '\''))
			return "want name=\"value\" pairs";
		q = s[i + 1];
		vs = i + 2;
		i = vs;
		while (i < n && s[i] != q)
			i++;
		if (i == n)
			return "want name=\"value\" pairs";
		if (!pf_nameattr_extra_ok(s + ns, ne - ns))
			return "only data-*, aria-* and inert attributes, "
			    "no event handlers, style or links";
		if (put_attr(l, b, s + ns, ne - ns, s + vs, i - vs) == -1)
			return "an attribute given twice";
		i++;
	}
}

/* A copy of s (n bytes) in *p, replacing what was there. */
static void
set_str(struct line *l, char **p, const char *s, size_t n)
{
	char *c = strndup(s, n);

	if (c == NULL) {
		l->nomem = 1;
		return;
	}
	free(*p);
	*p = c;
}

/* One "key=value" field (f to fe). */
static void
field(struct line *l, const char *f, const char *fe)
{
	const char *eq = memchr(f, '=', (size_t)(fe - f)), *v;
	size_t kl, vl;
	struct entry *e = &l->e;

	if (eq == NULL) {
		warnf(l, "ignored field without '='");
		return;
	}
	kl = (size_t)(eq - f);
	v = eq + 1;
	vl = (size_t)(fe - v);
	if (IS(f, kl, "title")) {
		set_str(l, &e->title, v, vl);
	} else if (IS(f, kl, "href")) {
		if (pf_nameattr_href_ok(v, vl))
			set_str(l, &e->href, v, vl);
		else
			warnf(l, "ignored href %.*s: only http, https and "
			    "relative links", quote_len(vl), v);
	} else if (IS(f, kl, "target")) {
		set_str(l, &e->target, v, vl);
	} else if (IS(f, kl, "class") || IS(f, kl, "id")) {
		if (put_attr(l, &e->g, f, kl, v, vl) == -1)
			warnf(l, "ignored %.*s: given twice", (int)kl, f);
	} else if (IS(f, kl, "g_extra") || IS(f, kl, "a_extra")) {
		struct pf_buf *t = IS(f, kl, "g_extra") ? &e->g : &e->x;
		size_t keep = t->len, keepseen = l->seen.len;
		const char *why;

		if ((why = put_extra(l, t, v, vl)) != NULL) {
			t->len = keep;
			if (t->cap)
				t->data[keep] = '\0';
			l->seen.len = keepseen;
			if (l->seen.cap)
				l->seen.data[keepseen] = '\0';
			warnf(l, "ignored %.*s: %s", (int)kl, f, why);
		}
	} else {
		warnf(l, "ignored unknown key %.*s", quote_len(kl), f);
	}
}

/* Keep l's entry for name (n bytes); 0, or -1 with ENOMEM. */
static int
add(struct pf_nameattr *na, struct line *l, const char *name, size_t n)
{
	struct entry *e;

	if (pf_stackmap_get(na->map, name, n) != NULL) {
		warnf(l, "ignored: %.*s listed before", quote_len(n), name);
		entry_free(&l->e);
		return 0;
	}
	if (pf_grow(&na->v, &na->cap, na->n + 1, sizeof(*na->v)) == -1)
		return -1;
	if (pf_stackmap_add(na->map, name, n, na->n + 1, 0) == -1)
		return -1;
	e = &na->v[na->n++];
	*e = l->e;
	e->view.title = e->title;
	e->view.href = e->href;
	e->view.target = e->target;
	e->view.gattrs = e->g.len ? e->g.data : NULL;
	e->view.aattrs = e->x.len ? e->x.data : NULL;
	return 0;
}

int
pf_nameattr_line(struct pf_nameattr *na, const char *line, size_t len,
    pf_nameattr_warn warn, void *arg)
{
	struct line l = { .warn = warn, .arg = arg };
	const char *tab = memchr(line, '\t', len), *p, *end = line + len;
	int r = 0;

	if (len > 0 && line[len - 1] == '\r')
		end--;
	if (tab == NULL || tab == line) {
		if (end > line)
			warnf(&l, "ignored: want NAME<TAB>KEY=VALUE...");
		return 0;
	}
	for (p = tab + 1; p < end && !l.nomem;) {
		const char *fe = memchr(p, '\t', (size_t)(end - p));

		if (fe == NULL)
			fe = end;
		field(&l, p, fe);
		p = fe + 1;
	}
	if (l.nomem || add(na, &l, line, (size_t)(tab - line)) == -1) {
		entry_free(&l.e);
		errno = ENOMEM;
		r = -1;
	}
	pf_buf_free(&l.seen);
	return r;
}

const struct pf_flame_nameattr *
pf_nameattr_get(const struct pf_nameattr *na, const char *name, size_t len)
{
	const struct pf_stackmap_entry *e = pf_stackmap_get(na->map, name, len);

	return e != NULL ? &na->v[e->count[0] - 1].view : NULL;
}

size_t
pf_nameattr_count(const struct pf_nameattr *na)
{
	return na->n;
}
