/*
 * flamesvg: a flame graph written as one self-contained SVG document.
 *
 * Every user string is cleaned and escaped (see xmlesc.h), so the
 * document is always well-formed XML; numbers on the per-frame path are
 * formatted by hand, since printf's %f would be a large share of the
 * render time.  The script (flame.js, through flamejs.h) is appended
 * verbatim.  The document goes only through the caller's sink (flame.h):
 * it is the product, never a diagnostic, and nothing here prints.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "flame.h"
#include "flamecolor.h"
#include "flamejs.h"
#include "flamelayout.h"
#include "flametree.h"
#include "pf.h"
#include "xmlesc.h"

#define XPAD 10.0
#define FLUSH_AT (256u << 10)

struct out {
	struct pf_buf b;
	pf_flame_sink sink;
	void *ctx;
	int err;
	int sink_failed;	/* err came from the sink */
	size_t sent;		/* bytes the sink took */
	struct pf_buf tmp;	/* scratch for cleaned names */
};

static void
out_flush(struct out *o)
{
	if (o->err == 0 && o->b.len > 0) {
		if (o->sink(o->ctx, o->b.data, o->b.len) == -1) {
			o->err = errno ? errno : EIO;
			o->sink_failed = 1;
		} else {
			o->sent += o->b.len;
		}
	}
	pf_buf_reset(&o->b);
}

static void
oputs(struct out *o, const char *s)
{
	if (pf_buf_puts(&o->b, s) == -1)
		o->err = ENOMEM;
}

static void
oprintf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
oprintf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	char small[256];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->err = EINVAL;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		if (pf_buf_append(&o->b, small, (size_t)n) == -1)
			o->err = ENOMEM;
		return;
	}
	if (pf_buf_reserve(&o->b, (size_t)n) == -1) {
		o->err = ENOMEM;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(o->b.data + o->b.len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	o->b.len += (size_t)n;
}

static void
oesc(struct out *o, const char *s, size_t n, int flags)
{
	if (pf_xmlesc_append(&o->b, s, n, flags) == -1)
		o->err = ENOMEM;
}

static void
oesc_str(struct out *o, const char *s, int flags)
{
	oesc(o, s, strlen(s), flags);
}

/* Annotation suffix of a name: 'k', 'j', 'i', 'w', or 0. */

/* u64 with thousands separators. */
static void
put_grouped(struct out *o, const char *digits)
{
	size_t n = strlen(digits), i;
	char buf[128];
	size_t k = 0;

	for (i = 0; i < n && k + 2 < sizeof(buf); i++) {
		if (i > 0 && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = '\0';
	oputs(o, buf);
}

static void
put_count(struct out *o, uint64_t v, double factor)
{
	char d[64];

	if (factor == 1.0)
		snprintf(d, sizeof(d), "%llu", (unsigned long long)v);
	else
		snprintf(d, sizeof(d), "%.0f", (double)v * factor);
	put_grouped(o, d);
}

/*
 * Nanoseconds as a person reads a wait: seconds from one second up,
 * milliseconds below (to the microsecond under one).
 */
static void
put_time(struct out *o, double ns)
{
	char d[64];

	if (ns >= 1e9)
		snprintf(d, sizeof(d), "%.2f s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(d, sizeof(d), "%.2f ms", ns / 1e6);
	else
		snprintf(d, sizeof(d), "%.3f ms", ns / 1e6);
	oputs(o, d);
}

void
pf_flame_opts_init(struct pf_flame_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->countname = "samples";
	o->nametype = "Function:";
	o->fonttype = "Verdana";
	o->width = 1200;
	o->frameheight = 16;
	o->fontsize = 12;
	o->fontwidth = 0.59;
	o->minwidth = 0.1;
	o->factor = 1;
	o->palette = PF_FLAME_HOT;
}

static size_t
utf16_units(const char *s, size_t n)
{
	size_t i, u = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c & 0xc0) != 0x80)
			u += c >= 0xf0 ? 2 : 1;
	}
	return u;
}

/*
 * Byte length of the longest prefix of clean UTF-8 s that has at most
 * units UTF-16 units.
 */
static size_t
utf16_prefix(const char *s, size_t n, size_t units)
{
	size_t i = 0, u = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		size_t len = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
		size_t w = c >= 0xf0 ? 2 : 1;

		if (u + w > units || i + len > n)
			break;
		u += w;
		i += len;
	}
	return i;
}

/*
 * The label that fits width px: the whole name, or a prefix and "..",
 * or nothing under 3 characters.  The same rule as the script's fit().
 */
static void
put_label(struct out *o, const char *clean, size_t n, double width,
    double charw)
{
	double c = floor(width / charw);
	size_t chars, cut;

	if (!(c >= 3))
		return;
	chars = c > 1e9 ? 1000000000 : (size_t)c;
	if (utf16_units(clean, n) <= chars) {
		oesc(o, clean, n, 0);
		return;
	}
	cut = utf16_prefix(clean, n, chars - 2);
	oesc(o, clean, cut, 0);
	oputs(o, "..");
}

static void
put_header(struct out *o, const struct pf_flame_opts *fo, double height,
    const char *kind)
{
	const char *c1, *c2;

	oputs(o, "<?xml version=\"1.0\" encoding=\"");
	oesc_str(o, fo->encoding ? fo->encoding : "UTF-8", PF_XMLESC_ATTR);
	oputs(o, "\" standalone=\"no\"?>\n");
	oprintf(o, "<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
	    "viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\" "
	    "xmlns:xlink=\"http://www.w3.org/1999/xlink\" font-family=\"",
	    fo->width, height, fo->width, height);
	oesc_str(o, fo->fonttype, PF_XMLESC_ATTR);
	oprintf(o, "\" font-size=\"%g\">\n", fo->fontsize);
	oprintf(o, "<!-- %s rendered by pf-svg " PF_VERSION " -->\n", kind);
	if (fo->notes != NULL) {
		/* A comment may not hold "--" nor end in "-". */
		struct pf_buf t = { 0 };
		size_t i;

		oputs(o, "<!-- NOTES: ");
		if (pf_xmlesc_append(&t, fo->notes, strlen(fo->notes), PF_XMLESC_RAW) == -1)
			o->err = ENOMEM;
		for (i = 0; i < t.len; i++) {
			if (pf_buf_putc(&o->b, t.data[i]) == -1)
				o->err = ENOMEM;
			if (t.data[i] == '-' && (i + 1 == t.len || t.data[i + 1] == '-'))
				oputs(o, " ");
		}
		pf_buf_free(&t);
		oputs(o, " -->\n");
	}
	pf_flame_background(fo, &c1, &c2);
	oprintf(o, "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" "
	    "x1=\"0\" x2=\"0\"><stop stop-color=\"%s\" offset=\"5%%\"/>"
	    "<stop stop-color=\"%s\" offset=\"95%%\"/></linearGradient>"
	    "<clipPath id=\"view\"><rect x=\"%.1f\" y=\"0\" width=\"%.1f\" "
	    "height=\"%.0f\"/></clipPath></defs>\n", c1, c2, XPAD,
	    fo->width - 2 * XPAD, height);
}

static void
put_style(struct out *o, const struct pf_flame_opts *fo)
{
	oprintf(o, "<style type=\"text/css\">\n"
	    "text { fill: rgb(0,0,0); }\n"
	    "#title { text-anchor: middle; font-size: %gpx; }\n"
	    "#subtitle { text-anchor: middle; }\n"
	    "#search, #ignorecase { opacity: 0.1; cursor: pointer; }\n"
	    "#search:hover, #search.show, #ignorecase:hover, #ignorecase.show "
	    "{ opacity: 1; }\n"
	    "#unzoom { cursor: pointer; }\n"
	    "#frames > *:hover { stroke: black; stroke-width: 0.5; cursor: pointer; }\n"
	    /*
	     * Only the hovered frame's rect keeps its stroke unscaled: on
	     * every rect, a zoom's new transform made Chromium lay out each
	     * of them again (60-90 ms on 30,000 frames, against 10).
	     */
	    "#frames > *:hover rect { vector-effect: non-scaling-stroke; }\n"
	    ".hide { display: none; }\n"
	    ".parent { opacity: 0.5; }\n"
	    "</style>\n", fo->fontsize + 5);
}

static void
put_controls(struct out *o, const struct pf_flame_opts *fo, double height,
    double ypad2, const char *title)
{
	oprintf(o, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
	    "fill=\"url(#background)\"/>\n", fo->width, height);
	oprintf(o, "<text id=\"title\" x=\"%.2f\" y=\"%.2f\">",
	    fo->width / 2, fo->fontsize * 2);
	oesc_str(o, title, 0);
	oputs(o, "</text>\n");
	if (fo->subtitle != NULL) {
		oprintf(o, "<text id=\"subtitle\" x=\"%.2f\" y=\"%.2f\">",
		    fo->width / 2, fo->fontsize * 4);
		oesc_str(o, fo->subtitle, 0);
		oputs(o, "</text>\n");
	}
	oprintf(o, "<text id=\"details\" x=\"%.2f\" y=\"%.2f\" data-nametype=\"",
	    XPAD, height - ypad2 / 2);
	oesc_str(o, fo->nametype, PF_XMLESC_ATTR);
	oputs(o, "\"> </text>\n");
	oprintf(o, "<text id=\"unzoom\" class=\"hide\" x=\"%.2f\" y=\"%.2f\">"
	    "Reset Zoom</text>\n", XPAD, fo->fontsize * 2);
	oprintf(o, "<text id=\"search\" x=\"%.2f\" y=\"%.2f\">Search</text>\n",
	    fo->width - XPAD - 100, fo->fontsize * 2);
	oprintf(o, "<text id=\"ignorecase\" x=\"%.2f\" y=\"%.2f\">ic</text>\n",
	    fo->width - XPAD - 16, fo->fontsize * 2);
	/*
	 * Under the Search button, right-aligned, above the frames: at the
	 * bottom, where flamegraph.pl puts it, a graph deeper than about 50
	 * rows had it below a 900 px window.
	 */
	oprintf(o, "<text id=\"matched\" x=\"%.2f\" y=\"%.2f\" "
	    "text-anchor=\"end\"> </text>\n", fo->width - XPAD,
	    fo->fontsize * 3 - 1);
}

static const char *
default_title(const struct pf_flame *f, const struct pf_flame_opts *fo)
{
	if (f != NULL && f->flamechart)
		return "Flame Chart";
	return fo->inverted ? "Icicle Graph" : "Flame Graph";
}

static char *fixed(char *q, double v, int dec);

static void
put_pct(struct out *o, double num, double den)
{
	char b[64], *q = fixed(b, den > 0 ? 100.0 * num / den : 0.0, 2);

	if (pf_buf_append(&o->b, b, (size_t)(q - b)) == -1)
		o->err = ENOMEM;
}

/*
 * Number formatting for the per-frame hot path: printf's %f is a large
 * share of the render time.  fixed() rounds half to even at the given
 * decimals, as printf does for exactly representable values.
 */
static char *
cat(char *q, const char *s)
{
	while (*s)
		*q++ = *s++;
	return q;
}

static char *
u64(char *q, uint64_t v)
{
	char t[24];
	int k = 0;

	do {
		t[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	while (k > 0)
		*q++ = t[--k];
	return q;
}

static char *
fixed(char *q, double v, int dec)
{
	double scale = dec == 1 ? 10.0 : 100.0, r;
	uint64_t s, div = dec == 1 ? 10 : 100, fp;

	if (!(v >= 0 && v < 1e15))
		return q + sprintf(q, "%.*f", dec, v);
	r = nearbyint(v * scale);
	s = (uint64_t)r;
	q = u64(q, s / div);
	*q++ = '.';
	fp = s % div;
	if (dec == 2)
		*q++ = (char)('0' + fp / 10);
	*q++ = (char)('0' + fp % 10);
	return q;
}

/* What drawing any frame needs, worked out once per render. */
struct scene {
	const struct pf_flame *f;
	const struct pf_flame_opts *fo;
	double timemax;		/* the count of the full width */
	double wpt;		/* px per count */
	double height, ypad1, ypad2;
	int64_t maxd;		/* the largest change, for diff colours */
};

/* One frame as its element is written. */
struct frame {
	const struct pf_flame_node *n;
	uint32_t id;		/* the node's index: 0 is the root */
	uint64_t start;
	const char *raw;	/* its name, the annotation cut off */
	size_t len;
	char ann;
	const struct pf_flame_nameattr *na;	/* NULL: none */
	int link;
	double x1, x2, y1, y2;
};

static void
frame_init(struct frame *fr, const struct scene *sc,
    const struct pf_flame_placed *p)
{
	const struct pf_flame *f = sc->f;
	const struct pf_flame_opts *fo = sc->fo;
	size_t rawlen;

	fr->n = &f->nodes[p->node];
	fr->id = p->node;
	fr->start = p->start;
	fr->raw = pf_flame_name(f, fr->n->name);
	rawlen = pf_flame_name_len(f, fr->n->name);
	fr->ann = p->node == 0 ? 0 : pf_flame_annotation(fr->raw, rawlen);
	fr->len = fr->ann ? rawlen - 4 : rawlen;
	fr->na = fo->nameattr != NULL ?
	    fo->nameattr(fo->hook_arg, fr->raw, fr->len) : NULL;
	fr->link = fr->na != NULL && fr->na->href != NULL;
	fr->x1 = XPAD + (double)p->start * sc->wpt;
	fr->x2 = XPAD + (double)(p->start + fr->n->value) * sc->wpt;
	if (!fo->inverted) {
		fr->y1 = sc->height - sc->ypad2 -
		    (p->depth + 1) * fo->frameheight + 1;
		fr->y2 = sc->height - sc->ypad2 - p->depth * fo->frameheight;
	} else {
		fr->y1 = sc->ypad1 + p->depth * fo->frameheight;
		fr->y2 = sc->ypad1 + (p->depth + 1) * fo->frameheight - 1;
	}
}

/* "<g" or "<a", with the frame's data and --nameattr's attributes. */
static void
put_open(struct out *o, const struct frame *fr)
{
	const struct pf_flame_nameattr *na = fr->na;
	char b[96], *q = b;

	oputs(o, fr->link ? "<a" : "<g");
	q = cat(q, " data-s=\"");
	q = u64(q, fr->start);
	q = cat(q, "\" data-n=\"");
	q = u64(q, fr->n->value);
	*q++ = '"';
	if (pf_buf_append(&o->b, b, (size_t)(q - b)) == -1)
		o->err = ENOMEM;
	/* The script searches names; a custom title would hide this one. */
	if (na != NULL && na->title != NULL) {
		oputs(o, " data-name=\"");
		oesc(o, o->tmp.data, o->tmp.len, PF_XMLESC_ATTR);
		oputs(o, "\"");
	}
	if (na != NULL && na->gattrs != NULL)
		oputs(o, na->gattrs);
	if (fr->link) {
		oputs(o, " xlink:href=\"");
		oesc_str(o, na->href, PF_XMLESC_ATTR);
		oputs(o, "\" target=\"");
		oesc_str(o, na->target ? na->target : "_top", PF_XMLESC_ATTR);
		oputs(o, "\"");
		if (na->aattrs != NULL)
			oputs(o, na->aattrs);
	}
	oputs(o, ">");
}

/* The tooltip: "name (count countname, pct%[; change%])" or --nameattr's. */
static void
put_title(struct out *o, const struct scene *sc, const struct frame *fr)
{
	const struct pf_flame_opts *fo = sc->fo;
	uint64_t value = fr->n->value;

	oputs(o, "<title>");
	if (fr->na != NULL && fr->na->title != NULL) {
		oesc_str(o, fr->na->title, 0);
		oputs(o, "</title>");
		return;
	}
	oesc(o, o->tmp.data, o->tmp.len, 0);
	oputs(o, " (");
	if (fo->time_ns) {
		put_time(o, (double)value * fo->factor);
	} else {
		put_count(o, value, fo->factor);
		oputs(o, " ");
		oesc_str(o, fo->countname, 0);
	}
	oputs(o, ", ");
	if (fr->id == 0 && (double)value == sc->timemax)
		oputs(o, "100");
	else
		put_pct(o, (double)value, sc->timemax);
	oputs(o, "%");
	if (sc->f->diff) {
		int64_t d = fo->negate ? -fr->n->delta : fr->n->delta;
		oputs(o, "; ");
		if (d > 0)
			oputs(o, "+");
		put_pct(o, (double)d, sc->timemax);
		oputs(o, "%");
	}
	oputs(o, ")</title>");
}

static void
frame_fill(const struct scene *sc, const struct frame *fr,
    unsigned char rgb[3])
{
	const struct pf_flame_opts *fo = sc->fo;

	if (sc->f->diff) {
		pf_flame_diff_color(fr->n->delta, sc->maxd, fo->negate, rgb);
		return;
	}
	pf_flame_frame_color(fo, fr->raw, fr->len, fr->ann, rgb);
	if (fo->color != NULL)
		fo->color(fo->hook_arg, fr->raw, fr->len, rgb);
}

static void
put_rect(struct out *o, const struct frame *fr, const unsigned char rgb[3])
{
	char b[320], *q = b;

	q = cat(q, "<rect x=\"");
	q = fixed(q, fr->x1, 1);
	q = cat(q, "\" y=\"");
	q = fixed(q, fr->y1, 1);
	q = cat(q, "\" width=\"");
	q = fixed(q, fr->x2 - fr->x1, 1);
	q = cat(q, "\" height=\"");
	q = fixed(q, fr->y2 - fr->y1, 1);
	q = cat(q, "\" fill=\"rgb(");
	q = u64(q, rgb[0]);
	*q++ = ',';
	q = u64(q, rgb[1]);
	*q++ = ',';
	q = u64(q, rgb[2]);
	q = cat(q, ")\" rx=\"2\" ry=\"2\"/>");
	if (pf_buf_append(&o->b, b, (size_t)(q - b)) == -1)
		o->err = ENOMEM;
}

/* The label, or no text element when none fits: the script adds one on zoom. */
static void
put_text(struct out *o, const struct scene *sc, const struct frame *fr)
{
	size_t label_at = o->b.len, text_at;
	char b[128], *q = b;

	q = cat(q, "<text x=\"");
	q = fixed(q, fr->x1 + 3, 2);
	q = cat(q, "\" y=\"");
	q = fixed(q, 3 + (fr->y1 + fr->y2) / 2, 2);
	q = cat(q, "\">");
	if (pf_buf_append(&o->b, b, (size_t)(q - b)) == -1)
		o->err = ENOMEM;
	text_at = o->b.len;
	put_label(o, o->tmp.data, o->tmp.len, fr->x2 - fr->x1,
	    sc->fo->fontsize * sc->fo->fontwidth);
	if (o->b.len == text_at) {
		o->b.len = label_at;
		o->b.data[label_at] = '\0';
	} else {
		oputs(o, "</text>");
	}
}

static void
put_frame(struct out *o, const struct scene *sc, const struct pf_flame_placed *p)
{
	struct frame fr;
	unsigned char rgb[3];

	frame_init(&fr, sc, p);
	/* The clean name, once: tooltip, label and data-name use it. */
	pf_buf_reset(&o->tmp);
	if (pf_xmlesc_append(&o->tmp, fr.raw, fr.len, PF_XMLESC_RAW) == -1) {
		o->err = ENOMEM;
		return;
	}
	put_open(o, &fr);
	put_title(o, sc, &fr);
	frame_fill(sc, &fr, rgb);
	put_rect(o, &fr, rgb);
	put_text(o, sc, &fr);
	oputs(o, fr.link ? "</a>\n" : "</g>\n");
}

static int
finish(struct out *o)
{
	int err;

	out_flush(o);
	err = o->err;
	pf_buf_free(&o->b);
	pf_buf_free(&o->tmp);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/*
 * Memory ran out after part of a graph went to the sink, which was always
 * flushed between whole frames: close the three elements open then (the
 * frames group, the clip group, the document) with a line that says the
 * graph is cut, from the stack, so the reader still gets well-formed XML.
 */
static void
close_cut(struct out *o, const struct pf_flame_opts *fo)
{
	char b[256];
	int n;

	if (o->sink_failed || o->sent == 0)
		return;
	n = snprintf(b, sizeof(b), "</g>\n</g>\n<text x=\"%.2f\" y=\"%.2f\" "
	    "text-anchor=\"middle\">ERROR: out of memory: the graph is "
	    "incomplete</text>\n</svg>\n", fo->width / 2, fo->fontsize * 3);
	if (n > 0 && (size_t)n < sizeof(b))
		(void)o->sink(o->ctx, b, (size_t)n);
}

/* The document when there is not even memory to escape a message. */
static const char oom_doc[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
    "<svg version=\"1.1\" width=\"1200\" height=\"72\" "
    "viewBox=\"0 0 1200 72\" xmlns=\"http://www.w3.org/2000/svg\">\n"
    "<text x=\"600.00\" y=\"36.00\" text-anchor=\"middle\">ERROR: out of "
    "memory</text>\n</svg>\n";

/* The largest change of a placed frame: 1 at least, so it can divide. */
static int64_t
max_delta(const struct pf_flame *f, const struct pf_flame_placed *pl, size_t npl)
{
	int64_t maxd = 1;
	size_t i;

	for (i = 0; i < npl; i++) {
		int64_t d = f->nodes[pl[i].node].delta;
		if (d == INT64_MIN)
			d = INT64_MAX;
		if (d < 0)
			d = -d;
		if (d > maxd)
			maxd = d;
	}
	return maxd;
}

int
pf_flame_render(const struct pf_flame *f, const struct pf_flame_opts *fo,
    pf_flame_sink sink, void *ctx)
{
	struct out o = { .sink = sink, .ctx = ctx };
	struct scene sc = { .f = f, .fo = fo };
	struct pf_flame_placed *pl;
	size_t npl, i;
	uint32_t maxdepth;
	double threshold;
	int err;

	sc.timemax = (double)f->nodes[0].value;
	if (fo->total > f->nodes[0].value)
		sc.timemax = (double)fo->total;
	sc.wpt = sc.timemax > 0 ? (fo->width - 2 * XPAD) / sc.timemax : 0;
	if (fo->minwidth_pct)
		threshold = sc.timemax * fo->minwidth / 100.0;
	else
		threshold = sc.wpt > 0 ? fo->minwidth / sc.wpt : 0;
	/* Nothing went out yet: the caller may still say why in a document. */
	if ((pl = pf_flame_layout(f, threshold, &npl, &maxdepth)) == NULL)
		return -1;
	sc.maxd = max_delta(f, pl, npl);
	sc.ypad1 = fo->fontsize * 3 +
	    (fo->subtitle != NULL ? fo->fontsize * 2 : 0);
	sc.ypad2 = fo->fontsize * 2 + 10;
	sc.height = (maxdepth + 1) * fo->frameheight + sc.ypad1 + sc.ypad2;

	put_header(&o, fo, sc.height, f->flamechart ? "Flame chart" :
	    fo->inverted ? "Icicle graph" : "Flame graph");
	put_style(&o, fo);
	put_controls(&o, fo, sc.height, sc.ypad2,
	    fo->title != NULL ? fo->title : default_title(f, fo));
	oprintf(&o, "<g clip-path=\"url(#view)\">\n<g id=\"frames\" "
	    "data-xpad=\"%g\" data-fontsize=\"%g\" data-fontwidth=\"%g\" "
	    "data-total=\"%.0f\">\n", XPAD, fo->fontsize, fo->fontwidth,
	    sc.timemax);
	for (i = 0; i < npl && o.err == 0; i++) {
		put_frame(&o, &sc, &pl[i]);
		if (o.b.len >= FLUSH_AT)
			out_flush(&o);
	}
	free(pl);
	oputs(&o, "</g>\n</g>\n<script type=\"text/ecmascript\"><![CDATA[\n");
	if (pf_buf_append(&o.b, pf_flame_js, pf_flame_js_len) == -1)
		o.err = ENOMEM;
	oputs(&o, "]]></script>\n</svg>\n");
	if (finish(&o) == 0)
		return 0;
	err = errno;
	close_cut(&o, fo);
	errno = err;
	return -1;
}

int
pf_flame_render_empty(const struct pf_flame_opts *fo, const char *msg,
    pf_flame_sink sink, void *ctx)
{
	struct out o = { .sink = sink, .ctx = ctx };
	double height = fo->fontsize * 6;

	put_header(&o, fo, height, "Empty flame graph");
	oprintf(&o, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
	    "fill=\"url(#background)\"/>\n", fo->width, height);
	oprintf(&o, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">"
	    "ERROR: ", fo->width / 2, fo->fontsize * 3);
	oesc_str(&o, msg, 0);
	oputs(&o, "</text>\n</svg>\n");
	if (finish(&o) == 0)
		return 0;
	if (o.sink_failed)
		return -1;
	/* Out of memory before anything went out: the fixed document. */
	return sink(ctx, oom_doc, sizeof(oom_doc) - 1);
}
