/*
 * pf-svg: render folded stacks as an interactive flame graph.
 *
 * Reads "root;...;leaf COUNT" (or "... C1 C2" for a differential) lines
 * from files or stdin, merges them into a frame tree as they stream in,
 * and writes one self-contained SVG to stdout: hover details, click to
 * zoom, regex search, state kept in the URL, no server.  Options follow
 * flamegraph.pl's names and meanings.  Unlike it, the output is
 * byte-identical for identical input, always well-formed XML whatever the
 * names and titles hold, and a parent frame is never split in two.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <iconv.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "fileio.h"
#include "flame.h"
#include "folded.h"
#include "grow.h"
#include "linereader.h"
#include "msg.h"
#include "nameattr.h"
#include "parse.h"
#include "pf.h"
#include "provenance.h"
#include "stackmap.h"
#include "xmlesc.h"

#define MAX_SHOWN_INVALID 10
#define MAX_NAMED_RECORDINGS 3	/* in the title; the others are counted */
#define PALETTE_MAP "palette.map"

static const char synopsis[] =
    "usage: pf-svg [--title TEXT] [--subtitle TEXT] [--width PX] [--height PX]\n"
    "              [--minwidth PX|N%] [--fonttype FONT] [--fontsize N]\n"
    "              [--fontwidth F] [--countname NAME] [--nametype TEXT]\n"
    "              [--colors PALETTE] [--bgcolors COLOR] [--hash] [--cp]\n"
    "              [--reverse] [--inverted] [--flamechart] [--negate]\n"
    "              [--notes TEXT] [--total N] [--factor F] [--nameattr FILE]\n"
    "              [--encoding ENC] [file ...]\n";

static const char *const palettes[] = {
	[PF_FLAME_HOT] = "hot", [PF_FLAME_MEM] = "mem", [PF_FLAME_IO] = "io",
	[PF_FLAME_WAKEUP] = "wakeup", [PF_FLAME_CHAIN] = "chain",
	[PF_FLAME_JAVA] = "java", [PF_FLAME_JS] = "js", [PF_FLAME_PERL] = "perl",
	[PF_FLAME_RED] = "red", [PF_FLAME_GREEN] = "green", [PF_FLAME_BLUE] = "blue",
	[PF_FLAME_AQUA] = "aqua", [PF_FLAME_YELLOW] = "yellow",
	[PF_FLAME_PURPLE] = "purple", [PF_FLAME_ORANGE] = "orange",
};

static struct options {
	struct pf_flame_opts fo;
	int cp;
	int flamechart;
	int reverse;
	const char *nameattr;
	const char *encoding;
	int colors_set;		/* --colors given: the unit does not choose */
	int countname_set;	/* --countname given: no time unit either */
} opt;

/*
 * What went to stdout: once a document began there, a failure must not
 * start a second one (pf_flame_render closes what it began).
 */
static struct {
	int begun;
	int failed;
} sout;

static int
write_stdout(void *ctx, const void *p, size_t n)
{
	(void)ctx;
	sout.begun = 1;
	if (pf_write_all(STDOUT_FILENO, p, n) == -1) {
		sout.failed = 1;
		return -1;
	}
	return 0;
}

static void vfail(int with_errno, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0), noreturn));
static void fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
static void failx(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/*
 * A runtime failure (exit 3), worded as pf_die and pf_diex word it.  The
 * promise is a well-formed document on stdout whatever happens, so that
 * `... | pf-svg > out.svg` never leaves an empty or cut file: unless one
 * was begun there already, a small SVG saying "pf-svg: why" goes out
 * first.  Only a failing stdout itself gets nothing.  No allocation here
 * (memory may be what ran out): the message is built on the stack.
 */
static void
vfail(int with_errno, const char *fmt, va_list ap)
{
	int saved = errno;
	char why[8192];
	size_t n;

	n = (size_t)snprintf(why, sizeof(why), "%s: ",
	    program_invocation_short_name);
	if (n < sizeof(why))
		vsnprintf(why + n, sizeof(why) - n, fmt, ap);
	if (with_errno && (n = strlen(why)) < sizeof(why))
		snprintf(why + n, sizeof(why) - n, ": %s", strerror(saved));
	fprintf(stderr, "%s\n", why);
	if (!sout.begun)
		(void)pf_flame_render_empty(&opt.fo, why, write_stdout, NULL);
	exit(PF_EXIT_FAIL);
}

static void
fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(1, fmt, ap);
}

static void
failx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(0, fmt, ap);
}

enum {
	OPT_BGCOLORS = 256, OPT_COLORS, OPT_COUNTNAME, OPT_CP, OPT_ENCODING,
	OPT_FACTOR, OPT_FLAMECHART, OPT_FONTSIZE, OPT_FONTTYPE, OPT_FONTWIDTH,
	OPT_HASH, OPT_HEIGHT, OPT_INVERTED, OPT_MINWIDTH, OPT_NAMEATTR,
	OPT_NAMETYPE, OPT_NEGATE, OPT_NOTES, OPT_REVERSE, OPT_SUBTITLE,
	OPT_TITLE, OPT_TOTAL, OPT_VERSION, OPT_WIDTH
};

static const struct option longopts[] = {
	{ "bgcolors", required_argument, NULL, OPT_BGCOLORS },
	{ "colors", required_argument, NULL, OPT_COLORS },
	{ "countname", required_argument, NULL, OPT_COUNTNAME },
	{ "cp", no_argument, NULL, OPT_CP },
	{ "encoding", required_argument, NULL, OPT_ENCODING },
	{ "factor", required_argument, NULL, OPT_FACTOR },
	{ "flamechart", no_argument, NULL, OPT_FLAMECHART },
	{ "fontsize", required_argument, NULL, OPT_FONTSIZE },
	{ "fonttype", required_argument, NULL, OPT_FONTTYPE },
	{ "fontwidth", required_argument, NULL, OPT_FONTWIDTH },
	{ "hash", no_argument, NULL, OPT_HASH },
	{ "height", required_argument, NULL, OPT_HEIGHT },
	{ "help", no_argument, NULL, 'h' },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "minwidth", required_argument, NULL, OPT_MINWIDTH },
	{ "nameattr", required_argument, NULL, OPT_NAMEATTR },
	{ "nametype", required_argument, NULL, OPT_NAMETYPE },
	{ "negate", no_argument, NULL, OPT_NEGATE },
	{ "notes", required_argument, NULL, OPT_NOTES },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "subtitle", required_argument, NULL, OPT_SUBTITLE },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "total", required_argument, NULL, OPT_TOTAL },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ NULL, 0, NULL, 0 }
};

static void
usage(void)
{
	fputs(synopsis, stdout);
	fputs("\n"
	    "      --title TEXT       the heading (default: the target and host the input's\n"
	    "                         provenance names, else by mode: Flame Graph, ...)\n"
	    "      --subtitle TEXT    a second heading below the title (default: the\n"
	    "                         recording the provenance describes, else none)\n"
	    "      --width PX         image width (default 1200)\n"
	    "      --height PX        height of each frame row (default 16)\n"
	    "      --minwidth PX|N%   prune frames under PX px or N% of all (default 0.1 px)\n"
	    "      --fonttype FONT    font family (default Verdana)\n"
	    "      --fontsize N       text size in px (default 12)\n"
	    "      --fontwidth F      character width, a fraction of the size (default 0.59)\n"
	    "      --countname NAME   the unit in tooltips (default samples; ms or s for a\n"
	    "                         pf-record or pf-offcpu recording)\n"
	    "      --nametype TEXT    the prefix of the details line (default Function:)\n"
	    "      --colors PALETTE   hot mem io wakeup chain java js perl red green blue\n"
	    "                         aqua yellow purple orange (default hot; io off CPU)\n"
	    "      --bgcolors COLOR   background: yellow blue green grey or #rrggbb\n"
	    "      --hash             colour by a hash weighing the first characters most\n"
	    "      --cp               keep colours across graphs in ./palette.map\n"
	    "      --reverse          reverse each stack before merging (merge from the leaf)\n"
	    "      --inverted         an icicle graph: the root at the top\n"
	    "      --flamechart       keep input order along x; merge only neighbours\n"
	    "      --negate           swap a differential's colours and signs\n"
	    "      --notes TEXT       put TEXT in an XML comment at the top of the document\n"
	    "      --total N          scale widths to N samples instead of the sum\n"
	    "      --factor F         multiply the counts shown in tooltips by F\n"
	    "      --nameattr FILE    tooltips, links and attributes by function name\n"
	    "      --encoding ENC     the input's character encoding (default UTF-8)\n"
	    "  -h, --help             this help\n"
	    "      --version          print the version\n", stdout);
	pf_exit_checked(PF_EXIT_OK);
}

static double
num_arg(const char *name, const char *s, double min, double max)
{
	double v;

	if (pf_parse_double(s, min, max, &v) == -1)
		pf_usage_error(synopsis, "--%s: %s: %s (want %g to %g)", name, s,
		    errno == ERANGE ? "out of range" : "not a number", min, max);
	return v;
}

static uint64_t
int_arg(const char *name, const char *s, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (pf_parse_u64(s, min, max, &v) == -1)
		pf_usage_error(synopsis, "--%s: %s: %s", name, s,
		    errno == ERANGE ? "out of range" : "not a whole number");
	return v;
}

static void
minwidth_arg(const char *s)
{
	size_t n = strlen(s);

	if (n > 0 && s[n - 1] == '%') {
		char *t = strndup(s, n - 1);
		if (t == NULL)
			fail("minwidth");
		opt.fo.minwidth = num_arg("minwidth", t, 0, 100);
		opt.fo.minwidth_pct = 1;
		free(t);
	} else {
		opt.fo.minwidth = num_arg("minwidth", s, 0, 1e9);
		opt.fo.minwidth_pct = 0;
	}
}

static void
colors_arg(const char *s)
{
	size_t i;

	for (i = 0; i < PF_ARRAY_LEN(palettes); i++) {
		if (strcmp(s, palettes[i]) == 0) {
			opt.fo.palette = (enum pf_flame_palette)i;
			return;
		}
	}
	pf_usage_error(synopsis, "--colors: %s: unknown palette (hot mem io "
	    "wakeup chain java js perl red green blue aqua yellow purple "
	    "orange)", s);
}

static void
bgcolors_arg(const char *s)
{
	if (strcmp(s, "yellow") == 0 || strcmp(s, "blue") == 0 ||
	    strcmp(s, "green") == 0 || strcmp(s, "grey") == 0 ||
	    (s[0] == '#' && strlen(s) == 7 &&
	    strspn(s + 1, "0123456789abcdefABCDEF") == 6)) {
		opt.fo.bgcolor = s;
		return;
	}
	pf_usage_error(synopsis, "--bgcolors: %s: want yellow, blue, green, "
	    "grey or #rrggbb", s);
}

/* An XML EncName: [A-Za-z] ([A-Za-z0-9._] | '-')*. */
static void
encoding_arg(const char *s)
{
	iconv_t cd;

	if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')) ||
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789._-") != strlen(s))
		pf_usage_error(synopsis, "--encoding: %s: not an encoding name", s);
	if ((cd = iconv_open("UTF-8", s)) == (iconv_t)-1) {
#ifdef PF_STATIC
		/* Only glibc's built-in converters live in the binary; the rest are gconv modules. */
		pf_usage_error(synopsis, "--encoding: %s: unknown, or not built in and no gconv "
		    "module for it on this host (this is the static build): convert the input "
		    "to UTF-8 with iconv(1) first", s);
#else
		pf_usage_error(synopsis, "--encoding: %s: unknown encoding", s);
#endif
	}
	iconv_close(cd);
	opt.encoding = s;
}

static int
is_utf8_name(const char *s)
{
	return strcasecmp(s, "UTF-8") == 0 || strcasecmp(s, "UTF8") == 0;
}

/* ---- --cp: palette.map ------------------------------------------- */

/* errno of the first name --cp could not keep, or 0. */
static int cp_lost;

/*
 * The map holds name -> rgb in count[0] (0xRRGGBB) and 1 in count[1] once
 * the entry came from the file or was used, so the file written back holds
 * every name it had plus the new ones.
 */
static void
cp_color(void *arg, const char *name, size_t len, unsigned char rgb[3])
{
	struct pf_stackmap *m = arg;
	const struct pf_stackmap_entry *e = pf_stackmap_get(m, name, len);

	if (e != NULL) {
		rgb[0] = (unsigned char)(e->count[0] >> 16);
		rgb[1] = (unsigned char)(e->count[0] >> 8);
		rgb[2] = (unsigned char)e->count[0];
		return;
	}
	/*
	 * Mid-render, with part of the document out: dying here would cut
	 * it.  The frame keeps its computed colour; main reports the loss
	 * after the document is whole.
	 */
	if (cp_lost == 0 && pf_stackmap_add(m, name, len,
	    (uint64_t)rgb[0] << 16 | (uint64_t)rgb[1] << 8 | rgb[2], 1) == -1)
		cp_lost = errno;
}

/* "name->rgb(r,g,b)": 0 and the parts, or -1. */
static int
parse_palette_line(const char *line, size_t len, size_t *namelen,
    uint64_t *rgb)
{
	const char *p = NULL, *q;
	unsigned v[3];
	int i;
	size_t k;

	/* The last "->rgb(" separates: a name may itself hold "->". */
	for (k = 0; k + 6 <= len; k++)
		if (memcmp(line + k, "->rgb(", 6) == 0)
			p = line + k;
	if (p == NULL || len == 0 || line[len - 1] != ')')
		return -1;
	q = p + 6;
	for (i = 0; i < 3; i++) {
		char num[8];
		size_t d = strspn(q, "0123456789");
		uint64_t x;

		if (d == 0 || d >= sizeof(num))
			return -1;
		memcpy(num, q, d);
		num[d] = '\0';
		if (pf_parse_u64(num, 0, 255, &x) == -1)
			return -1;
		v[i] = (unsigned)x;
		q += d;
		if (*q != (i < 2 ? ',' : ')'))
			return -1;
		q++;
	}
	if ((size_t)(q - line) != len)
		return -1;
	*namelen = (size_t)(p - line);
	*rgb = (uint64_t)v[0] << 16 | (uint64_t)v[1] << 8 | v[2];
	return 0;
}

/* Read ./palette.map if there is one; never through a symlink. */
static void
cp_read(struct pf_stackmap *m)
{
	int fd;
	struct stat st;
	struct pf_linereader *lr;
	char *line;
	size_t len, namelen;
	uint64_t rgb;
	int r;

	fd = open(PALETTE_MAP, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd == -1) {
		if (errno == ENOENT)
			return;
		if (errno == ELOOP)
			failx("%s: is a symbolic link; refusing "
			    "to follow it", PALETTE_MAP);
		fail("%s", PALETTE_MAP);
	}
	if (fstat(fd, &st) == -1)
		fail("%s", PALETTE_MAP);
	if (!S_ISREG(st.st_mode))
		failx("%s: not a regular file", PALETTE_MAP);
	if ((lr = pf_lr_new(fd, PALETTE_MAP)) == NULL)
		fail("%s", PALETTE_MAP);
	while ((r = pf_lr_next(lr, &line, &len)) == 1) {
		if (len == 0)
			continue;
		if (parse_palette_line(line, len, &namelen, &rgb) == -1) {
			pf_warnx("%s:%llu: ignored: not name->rgb(r,g,b)",
			    PALETTE_MAP, (unsigned long long)pf_lr_lineno(lr));
			continue;
		}
		if (pf_stackmap_get(m, line, namelen) == NULL &&
		    pf_stackmap_add(m, line, namelen, rgb, 1) == -1)
			fail("%s", PALETTE_MAP);
	}
	if (r == -1)
		fail("%s", PALETTE_MAP);
	pf_lr_free(lr);
	close(fd);
}

/*
 * Write the map back: a new file next to it, then rename(2) over the old
 * name, which replaces a planted symlink instead of following it.
 */
static void
cp_write(struct pf_stackmap *m)
{
	char tmp[] = PALETTE_MAP ".XXXXXX";
	const struct pf_stackmap_entry **v;
	struct pf_buf b = { 0 };
	size_t n, i;
	int fd;

	if ((v = pf_stackmap_sorted(m, &n)) == NULL)
		fail("%s", PALETTE_MAP);
	for (i = 0; i < n; i++) {
		uint64_t c = v[i]->count[0];
		if (pf_buf_append(&b, v[i]->key, v[i]->len) == -1 ||
		    pf_buf_printf(&b, "->rgb(%u,%u,%u)\n", (unsigned)(c >> 16) & 255,
		    (unsigned)(c >> 8) & 255, (unsigned)c & 255) == -1)
			fail("%s", PALETTE_MAP);
	}
	free(v);
	if ((fd = mkstemp(tmp)) == -1)
		fail("%s", tmp);
	if (pf_write_all(fd, b.data, b.len) == -1 || fsync(fd) == -1 ||
	    close(fd) == -1) {
		unlink(tmp);
		fail("%s", tmp);
	}
	if (rename(tmp, PALETTE_MAP) == -1) {
		unlink(tmp);
		fail("%s", PALETTE_MAP);
	}
	pf_buf_free(&b);
}

/* ---- --nameattr --------------------------------------------------- */

/* The hooks share one argument: the palette map or the attributes. */
struct hooks {
	struct pf_stackmap *cp;
	struct pf_nameattr *na;
};

static void
hook_color(void *arg, const char *name, size_t len, unsigned char rgb[3])
{
	cp_color(((struct hooks *)arg)->cp, name, len, rgb);
}

static const struct pf_flame_nameattr *
hook_nameattr(void *arg, const char *name, size_t len)
{
	return pf_nameattr_get(((struct hooks *)arg)->na, name, len);
}

static void
nameattr_warning(void *arg, const char *why)
{
	const struct pf_linereader *lr = arg;

	pf_warnx("%s:%llu: %s", pf_lr_name(lr), (unsigned long long)pf_lr_lineno(lr),
	    why);
}

/* The --nameattr file: NAME<TAB>KEY=VALUE[<TAB>KEY=VALUE...] lines. */
static struct pf_nameattr *
nameattr_read(const char *path)
{
	struct pf_nameattr *na;
	struct pf_linereader *lr;
	char *line;
	size_t len;
	int fd, r;

	if ((na = pf_nameattr_new()) == NULL)
		fail("%s", path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		fail("%s", path);
	if ((lr = pf_lr_new(fd, path)) == NULL)
		fail("%s", path);
	while ((r = pf_lr_next(lr, &line, &len)) == 1)
		if (pf_nameattr_line(na, line, len, nameattr_warning, lr) == -1)
			fail("%s:%llu", path, (unsigned long long)pf_lr_lineno(lr));
	if (r == -1)
		fail("%s", path);
	pf_lr_free(lr);
	close(fd);
	return na;
}

/* ---- input -------------------------------------------------------- */

struct reader {
	struct pf_flame *f;
	iconv_t cd;		/* (iconv_t)-1 unless --encoding converts */
	struct pf_buf conv;
	uint64_t invalid;
	struct pf_prov *prov;	/* the recordings the input says it holds, distinct */
	size_t nprov, capprov;
};

/*
 * Convert stack bytes from --encoding to UTF-8; bad bytes become U+FFFD.
 * s is not const only because iconv(3) takes a char **: it is not
 * written.
 */
static void
convert(struct reader *rd, char *s, size_t n)
{
	char *in = s;
	size_t left = n;

	pf_buf_reset(&rd->conv);
	iconv(rd->cd, NULL, NULL, NULL, NULL);
	while (left > 0) {
		char *out;
		size_t room, r;

		if (pf_buf_reserve(&rd->conv, left * 4 + 16) == -1)
			fail("encoding");
		out = rd->conv.data + rd->conv.len;
		room = rd->conv.cap - rd->conv.len - 1;
		r = iconv(rd->cd, &in, &left, &out, &room);
		rd->conv.len = (size_t)(out - rd->conv.data);
		if (r == (size_t)-1 && errno != E2BIG) {
			if (pf_buf_puts(&rd->conv, "\xef\xbf\xbd") == -1)
				fail("encoding");
			in++;
			left--;
		}
	}
}

/* A provenance line: one more recording, unless it is one already seen. */
static void
add_prov(struct reader *rd, const char *line, size_t len)
{
	struct pf_prov p;
	size_t i;

	if (!pf_prov_parse(&p, line, len))
		return;
	for (i = 0; i < rd->nprov; i++)
		if (memcmp(&rd->prov[i], &p, sizeof(p)) == 0)
			return;
	if (pf_grow(&rd->prov, &rd->capprov, rd->nprov + 1, sizeof(*rd->prov)) == -1)
		fail("memory");
	memset(&rd->prov[rd->nprov], 0, sizeof(rd->prov[0]));
	rd->prov[rd->nprov++] = p;
}

/*
 * What the provenance lines tell the graph, where no option said it: the
 * title names the target and the host, the subtitle the recording; counts
 * in nanoseconds (both recorders) show as time in the tooltips, and time
 * off the CPU (pf-offcpu) gets the I/O palette.
 */
static void
apply_prov(const struct reader *rd, struct pf_buf *title, struct pf_buf *subtitle)
{
	size_t i, ns = 0, off = 0;

	if (rd->nprov == 0)
		return;
	for (i = 0; i < rd->nprov; i++) {
		ns += rd->prov[i].unit_ns != 0;
		off += pf_prov_offcpu(&rd->prov[i]) != 0;
	}
	if (ns > 0 && ns < rd->nprov)
		pf_warnx("the input mixes samples and nanoseconds: its counts do not add up");
	if (off > 0 && off < rd->nprov)
		pf_warnx("the input mixes time on and off the CPU: its counts do not add up");
	if (ns == rd->nprov && !opt.countname_set)
		opt.fo.time_ns = 1;
	if (off == rd->nprov && !opt.colors_set)
		opt.fo.palette = PF_FLAME_IO;
	/* A fleet's graph names a few recordings and counts the rest. */
	for (i = 0; i < rd->nprov && i < MAX_NAMED_RECORDINGS; i++) {
		if (i == 0 ? pf_prov_describe(&rd->prov[0], title, NULL) == -1 :
		    pf_buf_puts(title, "; ") == -1 || pf_prov_who(&rd->prov[i], title) == -1)
			fail("memory");
		if ((i > 0 && pf_buf_puts(subtitle, " | ") == -1) ||
		    pf_prov_describe(&rd->prov[i], NULL, subtitle) == -1)
			fail("memory");
	}
	if (rd->nprov > MAX_NAMED_RECORDINGS &&
	    (pf_buf_printf(title, "; and %zu more", rd->nprov - MAX_NAMED_RECORDINGS) == -1 ||
	    pf_buf_puts(subtitle, " | ...") == -1))
		fail("memory");
	if (opt.fo.title == NULL)
		opt.fo.title = title->data;
	if (opt.fo.subtitle == NULL && subtitle->len > 0)
		opt.fo.subtitle = subtitle->data;
}

/*
 * The length of the stack of a parsed line, as flamegraph.pl cuts it: one
 * white-space character separates the stack from its count (the first of
 * two), and any more before it stay at the end of the last frame's name.
 * So "a;  3" ends in a frame named by one space (what a perf frame
 * printed without a symbol can fold to), which the stack pf_folded_parse
 * gives, all the white space left out, would lose as an empty last frame;
 * and "a;b  3" ends in "b ".  line[fl->stack_len] is white space: the
 * stack ends where the white space before the count begins.
 */
static size_t
stack_len_as_perl(const char *line, size_t len, const struct pf_folded_line *fl)
{
	size_t e = fl->stack_len;

	while (e < len && (line[e] == ' ' || line[e] == '\t'))
		e++;
	return e - 1;
}

static void
read_input(struct reader *rd, int fd, const char *name)
{
	struct pf_linereader *lr;
	char *line;
	size_t len;
	int r;

	if ((lr = pf_lr_new(fd, name)) == NULL)
		fail("%s", name);
	while ((r = pf_lr_next(lr, &line, &len)) == 1) {
		struct pf_folded_line fl;
		const char *stack;
		size_t slen;

		r = pf_folded_parse(line, len, &fl);
		if (r == 1) {
			if (len > 0 && line[0] == '#')
				add_prov(rd, line, len);
			continue;
		}
		if (r == -1) {
			if (++rd->invalid <= MAX_SHOWN_INVALID)
				pf_warnx("%s:%llu: ignored: %s", name,
				    (unsigned long long)pf_lr_lineno(lr), pf_folded_why(errno));
			continue;
		}
		stack = fl.stack;
		slen = stack_len_as_perl(line, len, &fl);
		if (rd->cd != (iconv_t)-1) {
			/*
			 * convert() takes a char * (iconv(3) wants char **), but
			 * fl.stack is const.  It points into line, which pf_lr_next
			 * hands us writable, so the same address is made from
			 * line instead of casting the const away (the build
			 * forbids that); convert() only reads it.
			 */
			convert(rd, line + (fl.stack - line), slen);
			stack = rd->conv.data;
			slen = rd->conv.len;
		}
		if (pf_flame_add(rd->f, stack, slen, fl.ncounts, fl.count[0],
		    fl.ncounts == 2 ? fl.count[1] : fl.count[0]) == -1) {
			if (errno == EOVERFLOW)
				failx("%s:%llu: total count over "
				    "2^64-1", name, (unsigned long long)pf_lr_lineno(lr));
			fail("%s:%llu", name,
			    (unsigned long long)pf_lr_lineno(lr));
		}
	}
	if (r == -1)
		fail("%s:%llu", name,
		    (unsigned long long)pf_lr_lineno(lr) + 1);
	pf_lr_free(lr);
}

/* ':' first: a missing value comes back as ':', not '?' (pf_usage_getopt). */
static const char shortopts[] = ":h";

/* One option (getopt_long's c and optarg) into opt. */
static void
set_option(int c, const char *arg, char *const argv[])
{
	switch (c) {
	case 'h':
		usage();
		break;
	case OPT_BGCOLORS:
		bgcolors_arg(arg);
		break;
	case OPT_COLORS:
		colors_arg(arg);
		opt.colors_set = 1;
		break;
	case OPT_COUNTNAME:
		opt.fo.countname = arg;
		opt.countname_set = 1;
		break;
	case OPT_CP:
		opt.cp = 1;
		break;
	case OPT_ENCODING:
		encoding_arg(arg);
		break;
	case OPT_FACTOR:
		opt.fo.factor = num_arg("factor", arg, 1e-9, 1e12);
		break;
	case OPT_FLAMECHART:
		opt.flamechart = 1;
		break;
	case OPT_FONTSIZE:
		opt.fo.fontsize = num_arg("fontsize", arg, 1, 1000);
		break;
	case OPT_FONTTYPE:
		opt.fo.fonttype = arg;
		break;
	case OPT_FONTWIDTH:
		opt.fo.fontwidth = num_arg("fontwidth", arg, 0.01, 10);
		break;
	case OPT_HASH:
		opt.fo.hash = 1;
		break;
	case OPT_HEIGHT:
		opt.fo.frameheight = (double)int_arg("height", arg, 2, 1000);
		break;
	case OPT_INVERTED:
		opt.fo.inverted = 1;
		break;
	case OPT_MINWIDTH:
		minwidth_arg(arg);
		break;
	case OPT_NAMEATTR:
		opt.nameattr = arg;
		break;
	case OPT_NAMETYPE:
		opt.fo.nametype = arg;
		break;
	case OPT_NEGATE:
		opt.fo.negate = 1;
		break;
	case OPT_NOTES:
		opt.fo.notes = arg;
		break;
	case OPT_REVERSE:
		opt.reverse = 1;
		break;
	case OPT_SUBTITLE:
		opt.fo.subtitle = arg;
		break;
	case OPT_TITLE:
		opt.fo.title = arg;
		break;
	case OPT_TOTAL:
		opt.fo.total = int_arg("total", arg, 1, UINT64_MAX);
		break;
	case OPT_VERSION:
		pf_print_version();
		break;
	case OPT_WIDTH:
		opt.fo.width = (double)int_arg("width", arg, 100, 1000000);
		break;
	default:
		pf_usage_getopt(synopsis, shortopts, c, argv);
	}
}

/* The options into opt; returns the index of the first operand. */
static int
parse_options(int argc, char *argv[])
{
	int c;

	pf_flame_opts_init(&opt.fo);
	opterr = 0;	/* one message, in the house format */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1)
		set_option(c, optarg, argv);
	return optind;
}

/*
 * The hooks pf_flame_render calls for --nameattr and --cp, set in opt.fo;
 * the palette map, to write back after rendering, in *cpmap.
 */
static void
set_hooks(struct hooks *hooks, struct pf_stackmap **cpmap)
{
	if (opt.nameattr != NULL) {
		hooks->na = nameattr_read(opt.nameattr);
		opt.fo.nameattr = hook_nameattr;
		opt.fo.hook_arg = hooks;
	}
	if (opt.cp) {
		if ((*cpmap = pf_stackmap_new()) == NULL)
			fail("memory");
		cp_read(*cpmap);
		hooks->cp = *cpmap;
		opt.fo.color = hook_color;
		opt.fo.hook_arg = hooks;
	}
}

/* Every file operand ("-" is stdin), or stdin when there is none. */
static void
read_inputs(struct reader *rd, int nfiles, char *files[])
{
	int i, fd;

	if (nfiles == 0)
		read_input(rd, STDIN_FILENO, "-");
	for (i = 0; i < nfiles; i++) {
		if (strcmp(files[i], "-") == 0) {
			read_input(rd, STDIN_FILENO, "-");
			continue;
		}
		if ((fd = open(files[i], O_RDONLY | O_CLOEXEC)) == -1)
			fail("%s", files[i]);
		read_input(rd, fd, files[i]);
		close(fd);
	}
	if (rd->invalid > MAX_SHOWN_INVALID)
		pf_warnx("ignored %llu invalid lines in all (the first %d shown)",
		    (unsigned long long)rd->invalid, MAX_SHOWN_INVALID);
}

/*
 * The graph to stdout.  Nothing to draw still gives a valid SVG that
 * says so, and exits 3; a --total below the sum is dropped.
 */
static void
render(const struct pf_flame *f)
{
	if (pf_flame_total(f) == 0) {
		pf_warnx("no stack counts found in the input");
		if (pf_flame_render_empty(&opt.fo, "no stack counts found in the "
		    "input of pf-svg", write_stdout, NULL) == -1)
			fail("stdout");
		pf_exit_checked(PF_EXIT_FAIL);
	}
	if (opt.fo.total != 0 && opt.fo.total < pf_flame_total(f)) {
		pf_warnx("--total %llu is below the sum of the counts (%llu); "
		    "ignored", (unsigned long long)opt.fo.total,
		    (unsigned long long)pf_flame_total(f));
		opt.fo.total = 0;
	}
	if (pf_flame_render(f, &opt.fo, write_stdout, NULL) == -1)
		fail("%s", sout.failed ? "stdout" : "rendering the graph");
	if (cp_lost != 0) {
		errno = cp_lost;
		fail("%s: not written back", PALETTE_MAP);
	}
}

int
main(int argc, char *argv[])
{
	struct reader rd = { .cd = (iconv_t)-1 };
	struct pf_stackmap *cpmap = NULL;
	struct hooks hooks = { 0 };
	struct pf_buf title = { 0 }, subtitle = { 0 };
	int first;

	first = parse_options(argc, argv);
	if (opt.encoding != NULL && !is_utf8_name(opt.encoding) &&
	    (rd.cd = iconv_open("UTF-8", opt.encoding)) == (iconv_t)-1)
		pf_die(PF_EXIT_USAGE, "--encoding: %s", opt.encoding);
	if ((rd.f = pf_flame_new(opt.flamechart, opt.reverse)) == NULL)
		fail("memory");
	set_hooks(&hooks, &cpmap);
	read_inputs(&rd, argc - first, argv + first);
	apply_prov(&rd, &title, &subtitle);
	render(rd.f);
	if (cpmap != NULL)
		cp_write(cpmap);

	pf_flame_free(rd.f);
	pf_stackmap_free(cpmap);
	pf_nameattr_free(hooks.na);
	pf_buf_free(&rd.conv);
	pf_buf_free(&title);
	pf_buf_free(&subtitle);
	free(rd.prov);
	if (rd.cd != (iconv_t)-1)
		iconv_close(rd.cd);
	pf_exit_checked(PF_EXIT_OK);
}
