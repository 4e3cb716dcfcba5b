/*
 * perfscript: stackcollapse-perf.pl's three regular expressions written
 * out by hand.  The Perl script's output is the compatibility contract, so
 * each matcher below reproduces what its regex captures, backtracking
 * included (a one-letter comm, a frame without a symbol), and says which
 * regex it stands for.  Perl's \s is [ \t\n\v\f\r], \w is [A-Za-z0-9_]
 * (bytes, no locale), \d is [0-9].
 *
 * One pass per line, no allocation per line: the folded key is built back
 * to front in one reusable buffer as the frame lines arrive leaf first, so
 * a finished sample is handed over without another copy.  The event
 * line's fields, and with keep_frames each frame's, are copied as printed
 * into a second reusable buffer, since the sample is handed over only at
 * the line after its last.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "buf.h"
#include "grow.h"
#include "parse.h"
#include "perfscript.h"

enum state {
	IDLE,		/* between samples: a frame line here is malformed */
	IN_SAMPLE,	/* collecting frames */
	SKIPPING	/* a filtered or unreadable sample: frames are ignored */
};

/* A kept frame while its sample grows: offsets into stext, which may move. */
struct frame_at {
	uint64_t addr;
	size_t func, func_len, module, module_len;
};

struct pf_perfscript {
	struct pf_ps_config cfg;
	pf_ps_emit_fn emit;
	pf_ps_comment_fn comment;
	pf_ps_unknown_fn unknown;
	void *arg;
	enum state state;
	struct pf_buf pname;	/* root frame of the current sample */
	int java;		/* pname starts with "java": Java tidy applies */
	uint64_t weight;
	/*
	 * The folded key, built back to front as frame lines arrive leaf
	 * first: it occupies key[kpos, kcap), and key[kcap] is a NUL.
	 */
	char *key;
	size_t kpos, kcap;
	struct pf_buf grp;	/* a frame line that needs the tidy rules */
	struct pf_buf tmp;
	char *event;		/* the event kept */
	int event_exact;	/* the filter named a modifier: compare whole names */
	int defaulted;
	int inline_sample;	/* the current sample began on its event line */
	int user_seen;		/* the current sample has had a user frame */
	int escaped;		/* pf_ps_names_escaped: a comm may be one byte */
	/* The current sample's fields as printed: comm, event, frames in stext. */
	struct pf_buf stext;
	size_t comm_len, event_off, event_len;
	int has_event, has_pid, has_tid, has_time;
	uint64_t pid, tid, time_ns;
	struct frame_at *fat;
	struct pf_ps_frame *frames;	/* fat as pointers, when handed over */
	size_t nframes, fcap, pcap;
	uint64_t events, samples, other_events;
	const char *reason;
	/*
	 * annotate_libc: the current run of "(inlined)" frame lines, held
	 * until the line of the function they were inlined into says whether
	 * their code is the C library's.  Each is a size_t length, then the
	 * line's bytes.
	 */
	struct pf_buf inl;
};

/* One parsed event line; spans point into the line. */
struct span {
	const char *p;
	size_t n;
};

struct event_line {
	struct span comm, pid, tid;	/* tid.p NULL when perf printed one number */
	struct span event, period, time;	/* .p NULL when absent */
	struct span frame;		/* a frame carried on the line, or .p NULL */
};

/* Perl's character classes as one table lookup each. */
enum { C_S = 1, C_D = 2, C_W = 4, C_HEX = 8 };

static const unsigned char cls[256] = {
	['\t'] = C_S, ['\n'] = C_S, ['\v'] = C_S, ['\f'] = C_S, ['\r'] = C_S, [' '] = C_S,
	['0'] = C_D | C_W | C_HEX, ['1'] = C_D | C_W | C_HEX, ['2'] = C_D | C_W | C_HEX,
	['3'] = C_D | C_W | C_HEX, ['4'] = C_D | C_W | C_HEX, ['5'] = C_D | C_W | C_HEX,
	['6'] = C_D | C_W | C_HEX, ['7'] = C_D | C_W | C_HEX, ['8'] = C_D | C_W | C_HEX,
	['9'] = C_D | C_W | C_HEX,
	['a'] = C_W | C_HEX, ['b'] = C_W | C_HEX, ['c'] = C_W | C_HEX, ['d'] = C_W | C_HEX,
	['e'] = C_W | C_HEX, ['f'] = C_W | C_HEX,
	['g'] = C_W, ['h'] = C_W, ['i'] = C_W, ['j'] = C_W, ['k'] = C_W, ['l'] = C_W,
	['m'] = C_W, ['n'] = C_W, ['o'] = C_W, ['p'] = C_W, ['q'] = C_W, ['r'] = C_W,
	['s'] = C_W, ['t'] = C_W, ['u'] = C_W, ['v'] = C_W, ['w'] = C_W, ['x'] = C_W,
	['y'] = C_W, ['z'] = C_W,
	['A'] = C_W, ['B'] = C_W, ['C'] = C_W, ['D'] = C_W, ['E'] = C_W, ['F'] = C_W,
	['G'] = C_W, ['H'] = C_W, ['I'] = C_W, ['J'] = C_W, ['K'] = C_W, ['L'] = C_W,
	['M'] = C_W, ['N'] = C_W, ['O'] = C_W, ['P'] = C_W, ['Q'] = C_W, ['R'] = C_W,
	['S'] = C_W, ['T'] = C_W, ['U'] = C_W, ['V'] = C_W, ['W'] = C_W, ['X'] = C_W,
	['Y'] = C_W, ['Z'] = C_W, ['_'] = C_W,
};

static inline int
is_s(unsigned char c)
{
	return cls[c] & C_S;
}

static inline int
is_d(unsigned char c)
{
	return cls[c] & C_D;
}

static inline int
is_w(unsigned char c)
{
	return cls[c] & C_W;
}

static int
span_eq(struct span a, const char *s)
{
	return s != NULL && strlen(s) == a.n && memcmp(a.p, s, a.n) == 0;
}

/* Decimal digits to a number; -1 when empty, not all digits or too big. */
static int
span_u64(struct span a, uint64_t *out)
{
	return pf_parse_u64_span(a.p, a.p + a.n, out);
}

/* "secs[.frac]" as printed by perf to nanoseconds; -1 if not that. */
static int
span_time_ns(struct span a, uint64_t *out)
{
	uint64_t s, frac = 0, scale = 1000000000ULL;
	const char *e;
	size_t i;

	if ((e = pf_span_u64(a.p, a.p + a.n, &s)) == NULL)
		return -1;
	i = (size_t)(e - a.p);
	if (i < a.n) {
		if (a.p[i++] != '.' || i == a.n)
			return -1;
		for (; i < a.n; i++) {
			if (!is_d((unsigned char)a.p[i]))
				return -1;
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(a.p[i] - '0') * scale;
			}
		}
	}
	if (s > (UINT64_MAX - frac) / 1000000000ULL)
		return -1;
	*out = s * 1000000000ULL + frac;
	return 0;
}

/* The last " (" whose '(' lies before bound: the index of its space, or -1. */
static ssize_t
open_before(const char *l, size_t bound)
{
	const char *op;

	while ((op = memrchr(l, '(', bound)) != NULL && op > l) {
		bound = (size_t)(op - l);
		if (l[bound - 1] == ' ')
			return (ssize_t)bound - 1;
	}
	return -1;
}

/*
 * The frame regex  ^\s*(\w+)\s*(.+) \((.*)\)  : pc, symbol, module.
 * (.+) is greedy, so the module opens at the last " (" that has a ')'
 * after it, and closes at the line's last ')'.  When that leaves nothing
 * for the symbol, the regex backtracks into \s* and then \w+; the first
 * alternative that works is the one with the longest prefix.
 * Leading white space is skipped from s0 (the caller may have done it).
 */
static int
match_frame(const char *l, size_t len, size_t s0, struct span *pc,
    struct span *sym, struct span *mod)
{
	size_t k = 0, m = 0, r, R, P;
	ssize_t o;
	const char *rp;

	while (s0 < len && is_s((unsigned char)l[s0]))
		s0++;
	while (s0 + k < len && is_w((unsigned char)l[s0 + k]))
		k++;
	if (k == 0)
		return 0;
	while (s0 + k + m < len && is_s((unsigned char)l[s0 + k + m]))
		m++;
	if ((rp = memrchr(l, ')', len)) == NULL)
		return 0;
	R = (size_t)(rp - l);
	if (R < 2)
		return 0;
	if ((o = open_before(l, R)) == -1)
		return 0;
	P = (size_t)o;
	/*
	 * Not in the Perl: perf marks a replaced binary "(/usr/bin/x (deleted))";
	 * the module is then read whole, without the mark, instead of cutting
	 * the symbol at its last " (".
	 */
	if (R >= 12 && memcmp(l + R - 10, " (deleted)", 10) == 0 &&
	    (o = open_before(l, R - 10)) != -1 && (size_t)o >= s0 + 2) {
		P = (size_t)o;
		R -= 10;
	}
	r = s0 + k + m;
	if (r + 1 > P) {
		if (P < s0 + 2)
			return 0;
		r = P - 1;
		if (r < s0 + k)
			k = r - s0;
	}
	pc->p = l + s0;
	pc->n = k;
	sym->p = l + r;
	sym->n = P - r;
	mod->p = l + P + 2;
	mod->n = R - (P + 2);
	return 1;
}

/*
 * The event line.  Header regex  ^(\S.+?)\s+(\d+)\/ *(\d+)*\s+  (no space after
 * the slash in the original): the comm
 * is the shortest prefix of at least two characters (min; one in a pf
 * stream, whose comms are escaped) followed by white space, digits,
 * slashes, digits, white space.  Every start inside one run of white
 * space leads to the same test, so a failed run is skipped whole (linear
 * time on any line).
 */
static int
match_header(const char *l, size_t len, size_t min, struct event_line *ev, size_t *end)
{
	size_t e = min, f, d, s, t;

	if (len < min || len == 0 || is_s((unsigned char)l[0]))
		return 0;
	while (e < len) {
		if (!is_s((unsigned char)l[e])) {
			e++;
			continue;
		}
		for (f = e; f < len && is_s((unsigned char)l[f]); f++)
			;
		for (d = f; d < len && is_d((unsigned char)l[d]); d++)
			;
		if (d > f) {
			for (s = d; s < len && l[s] == '/'; s++)
				;
			for (t = s; t < len && is_d((unsigned char)l[t]); t++)
				;
			if (t < len && is_s((unsigned char)l[t])) {
				ev->comm = (struct span){ l, e };
				ev->pid = (struct span){ l + f, d - f };
				ev->tid = (struct span){ t > s ? l + s : NULL, t - s };
				*end = t;
				return 1;
			}
		}
		e = f;
	}
	return 0;
}

/* The token ending just before the colon at c: the time, if it is one. */
static void
time_before(const char *l, size_t c, struct span *time)
{
	size_t a = c;

	while (a > 0 && !is_s((unsigned char)l[a - 1]))
		a--;
	time->p = l + a;
	time->n = c - a;
}

/*
 * Event regex  :\s*(\d+)*\s+(\S+):\s*$  : the last token ends in ':' and
 * names the event; before it, after white space, an optional period and
 * then the colon that ends the time.
 */
static int
match_event_tail(const char *l, size_t len, struct event_line *ev)
{
	size_t z = len, a, q, d, c;

	while (z > 0 && is_s((unsigned char)l[z - 1]))
		z--;
	for (a = z; a > 0 && !is_s((unsigned char)l[a - 1]); a--)
		;
	if (a == 0 || z - a < 2 || l[z - 1] != ':')
		return 0;
	for (q = a; q > 0 && is_s((unsigned char)l[q - 1]); q--)
		;
	if (q == 0)
		return 0;
	ev->period.p = NULL;
	ev->period.n = 0;
	if (l[q - 1] == ':') {
		c = q - 1;
	} else if (is_d((unsigned char)l[q - 1])) {
		for (d = q; d > 0 && is_d((unsigned char)l[d - 1]); d--)
			;
		for (c = d; c > 0 && is_s((unsigned char)l[c - 1]); c--)
			;
		if (c == 0 || l[c - 1] != ':')
			return 0;
		c--;
		ev->period = (struct span){ l + d, q - d };
	} else {
		return 0;
	}
	ev->event = (struct span){ l + a, z - a - 1 };
	time_before(l, c, &ev->time);
	return 1;
}

/*
 * Not in the Perl: "comm tid time: period event: <frame>", the form perf
 * script prints for samples without a call chain.  After the header, the
 * first colon ends the time; then an optional period, the event token and
 * a frame that the frame regex accepts.
 */
static int
match_event_inline(const char *l, size_t len, size_t h, struct event_line *ev)
{
	const char *cp = memchr(l + h, ':', len - h);
	size_t c, p, p0, pd, a, z;
	struct span pc, sym, mod;

	if (cp == NULL)
		return 0;
	c = (size_t)(cp - l);
	p0 = p = c + 1;
	while (p < len && is_s((unsigned char)l[p]))
		p++;
	ev->period.p = NULL;
	ev->period.n = 0;
	for (pd = p; pd < len && is_d((unsigned char)l[pd]); pd++)
		;
	if (pd > p) {
		if (pd == len || !is_s((unsigned char)l[pd]))
			return 0;
		ev->period = (struct span){ l + p, pd - p };
		for (p = pd; p < len && is_s((unsigned char)l[p]); p++)
			;
	} else if (p == p0) {
		return 0;
	}
	for (a = p; a < len && !is_s((unsigned char)l[a]); a++)
		;
	if (a - p < 2 || l[a - 1] != ':' || a == len)
		return 0;
	ev->event = (struct span){ l + p, a - p - 1 };
	for (z = len; z > a && is_s((unsigned char)l[z - 1]); z--)
		;
	if (z == a || !match_frame(l + a, z - a, 0, &pc, &sym, &mod))
		return 0;
	ev->frame = (struct span){ l + a, z - a };
	time_before(l, c, &ev->time);
	return 1;
}

/* memmem for a two-byte needle: glibc's memmem costs a call setup per use. */
static const char *
find2(const char *s, size_t n, char a, char b)
{
	const char *p = s, *end = s + n;

	while (p + 1 < end && (p = memchr(p, a, (size_t)(end - p - 1))) != NULL) {
		if (p[1] == b)
			return p;
		p++;
	}
	return NULL;
}

static int
is_kernel_module(struct span mod)
{
	const char *base;
	size_t bn;

	if (memmem(mod.p, mod.n, "unknown", 7) != NULL)
		return 0;
	if (mod.n > 0 && mod.p[0] == '[')
		return 1;
	if (mod.n >= 7 && memcmp(mod.p + mod.n - 7, "vmlinux", 7) == 0)
		return 1;
	/* Not in the Perl: kernel modules and versioned kernel images. */
	base = memrchr(mod.p, '/', mod.n);
	base = base ? base + 1 : mod.p;
	bn = mod.n - (size_t)(base - mod.p);
	if (bn >= 8 && memcmp(base, "vmlinux-", 8) == 0)
		return 1;
	if (memmem(base, bn, ".ko", 3) != NULL) {
		static const char *const sfx[] = { ".ko", ".ko.xz", ".ko.gz", ".ko.zst" };
		size_t i, sl;

		for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
			sl = strlen(sfx[i]);
			if (bn > sl && memcmp(base + bn - sl, sfx[i], sl) == 0)
				return 1;
		}
	}
	return 0;
}

static int
is_jit_module(struct span mod)
{
	const char *p = mod.p, *end = mod.p + mod.n, *base;
	size_t bn;

	/* The Perl's  /tmp/perf-\d+\.map  anywhere in the module. */
	while ((p = memmem(p, (size_t)(end - p), "/tmp/perf-", 10)) != NULL) {
		const char *q = p + 10;

		while (q < end && is_d((unsigned char)*q))
			q++;
		if (q > p + 10 && end - q >= 4 && memcmp(q, ".map", 4) == 0)
			return 1;
		p++;
	}
	/* Not in the Perl: perf inject --jit's jitted-PID-N.so images. */
	base = memrchr(mod.p, '/', mod.n);
	base = base ? base + 1 : mod.p;
	bn = mod.n - (size_t)(base - mod.p);
	return bn > 10 && memcmp(base, "jitted-", 7) == 0 &&
	    memcmp(base + bn - 3, ".so", 3) == 0;
}

/* Whether base[0, n) starts with prefix. */
static int
starts(const char *base, size_t n, const char *prefix)
{
	size_t pl = strlen(prefix);

	return n >= pl && memcmp(base, prefix, pl) == 0;
}

/*
 * Whether base[i, n) is a version ("2.31", digits and dots) followed by
 * ".so" and nothing else: the tail of glibc's older names, libc-2.31.so.
 */
static int
version_so(const char *base, size_t i, size_t n)
{
	size_t v = i;

	while (v < n && (is_d((unsigned char)base[v]) || base[v] == '.'))
		v++;
	while (v > i && base[v - 1] == '.')
		v--;
	return v > i && n - v == 3 && memcmp(base + v, ".so", 3) == 0;
}

/*
 * Not in the Perl: whether a frame's module is the C library's own file,
 * by its base name: glibc's libc.so.N, libpthread.so.N and dynamic
 * loader (ld-linux*.so.N), their older libc-2.31.so, libpthread-2.31.so
 * and ld-2.31.so, and musl's ld-musl-ARCH.so.1 (its libc and loader in
 * one) or libc.musl-ARCH.so.1.  By file, not by function name: whatever a
 * symbol is called, code in those files is the library's.
 */
static int
is_libc_module(struct span mod)
{
	const char *base = memrchr(mod.p, '/', mod.n);
	size_t n;

	base = base ? base + 1 : mod.p;
	n = mod.n - (size_t)(base - mod.p);
	if ((n == 7 && memcmp(base, "libc.so", 7) == 0) ||
	    starts(base, n, "libc.so.") || starts(base, n, "libc.musl-") ||
	    starts(base, n, "libpthread.so.") || starts(base, n, "ld-linux") ||
	    starts(base, n, "ld-musl-"))
		return memmem(base, n, ".so", 3) != NULL;
	if (starts(base, n, "libc-"))
		return version_so(base, 5, n);
	if (starts(base, n, "libpthread-"))
		return version_so(base, 11, n);
	if (starts(base, n, "ld-"))
		return version_so(base, 3, n);
	return 0;
}

/*
 * Where the Perl's substitution of  \((?!anonymous namespace\)).*  by nothing
 * cuts the name, or n
 * for no cut.  Not in the Perl: a parenthesis inside C++ template
 * arguments (between '<' and its '>') does not count, so
 * std::function<void (int)>::operator() keeps its argument list; the
 * '<' and '>' of operator<, operator<<= ... are not brackets.
 */
static size_t
paren_cut(const char *s, size_t n)
{
	static const char anon[] = "(anonymous namespace)";
	const char *q = memchr(s, '(', n);
	size_t i, depth = 0;

	/* Fast answer for names without templates before the first parenthesis. */
	if (q == NULL)
		return n;
	if (memchr(s, '<', (size_t)(q - s)) == NULL &&
	    !((size_t)(s + n - q) >= sizeof(anon) - 1 && memcmp(q, anon, sizeof(anon) - 1) == 0))
		return (size_t)(q - s);
	for (i = 0; i < n; i++) {
		switch (s[i]) {
		case '<':
			if (i >= 8 && memcmp(s + i - 8, "operator", 8) == 0) {
				while (i + 1 < n && (s[i + 1] == '<' || s[i + 1] == '=' ||
				    s[i + 1] == '>'))
					i++;
				break;
			}
			depth++;
			break;
		case '>':
			if (i >= 8 && memcmp(s + i - 8, "operator", 8) == 0) {
				while (i + 1 < n && (s[i + 1] == '>' || s[i + 1] == '='))
					i++;
				break;
			}
			if (depth > 0)
				depth--;
			break;
		case '(':
			if (n - i >= sizeof(anon) - 1 &&
			    memcmp(s + i, anon, sizeof(anon) - 1) == 0)
				break;
			if (depth == 0)
				return i;
			break;
		}
	}
	return n;
}

/* The Perl's Go test  \.\(.*\)\.  : keep "pkg.(*T).Method" whole. */
static int
is_go_method(const char *s, size_t n)
{
	const char *a = find2(s, n, '.', '(');
	size_t i;

	if (a == NULL)
		return 0;
	for (i = n - 1; i >= 1; i--) {
		if (s[i - 1] == ')' && s[i] == '.')
			return (size_t)(s + i - 1 - a) >= 2;
	}
	return 0;
}

/*
 * Append one tidied function (one element of a "a->b->c" Java inline
 * chain) to the current group: [unknown] replaced, tidy generic, tidy Java,
 * then the annotation.  libc: the function's code is the C library's
 * (annotate_libc), which its "_[l]" says before any other annotation.
 */
static int
add_function(struct pf_perfscript *ps, const char *f, size_t n, int inlined,
    struct span pc, struct span mod, int libc)
{
	struct pf_buf *out = &ps->grp;
	size_t start, cut, i;
	const char *p;
	char *d;

	if (n == 9 && memcmp(f, "[unknown]", 9) == 0) {
		struct pf_buf *t = &ps->tmp;

		pf_buf_reset(t);
		if (pf_buf_putc(t, '[') == -1)
			return -1;
		if (span_eq(mod, "[unknown]")) {
			if (pf_buf_puts(t, "unknown") == -1)
				return -1;
		} else {
			const char *b = memrchr(mod.p, '/', mod.n);

			b = b ? b + 1 : mod.p;
			if (pf_buf_append(t, b, mod.n - (size_t)(b - mod.p)) == -1)
				return -1;
		}
		if (ps->cfg.include_addrs &&
		    (pf_buf_puts(t, " <") == -1 || pf_buf_append(t, pc.p, pc.n) == -1 ||
		    pf_buf_putc(t, '>') == -1))
			return -1;
		if (pf_buf_putc(t, ']') == -1)
			return -1;
		f = t->data;
		n = t->len;
	}
	cut = is_go_method(f, n) ? n : paren_cut(f, n);
	if (pf_buf_reserve(out, cut + 8) == -1)
		return -1;
	start = out->len;
	d = out->data + start;
	if (memchr(f, '"', cut) == NULL && memchr(f, '\'', cut) == NULL) {
		/* No quotes to drop (the usual case): copy, then swap the ';'s. */
		char *semi = d;

		memcpy(d, f, cut);
		d += cut;
		while ((semi = memchr(semi, ';', (size_t)(d - semi))) != NULL)
			*semi++ = ':';
	} else {
		for (i = 0; i < cut; i++) {
			char c = f[i];

			if (c == '"' || c == '\'')
				continue;
			*d++ = c == ';' ? ':' : c;
		}
	}
	*d = '\0';
	out->len = (size_t)(d - out->data);
	p = out->data + start;
	if (ps->java && out->len > start && p[0] == 'L' &&
	    memchr(p, '/', out->len - start) != NULL) {
		memmove(out->data + start, out->data + start + 1, out->len - start - 1);
		out->len--;
		out->data[out->len] = '\0';
		p = out->data + start;
	}
	if (libc) {
		return pf_buf_append(out, "_[l]", 4);
	} else if (inlined || (ps->cfg.annotate_inline && span_eq(mod, "inlined"))) {
		if (memmem(p, out->len - start, "_[i]", 4) == NULL)
			return pf_buf_append(out, "_[i]", 4);
	} else if (ps->cfg.annotate_kernel && is_kernel_module(mod)) {
		return pf_buf_append(out, "_[k]", 4);
	} else if (ps->cfg.annotate_jit && is_jit_module(mod) &&
	    memmem(p, out->len - start, "_[j]", 4) == NULL) {
		return pf_buf_append(out, "_[j]", 4);
	}
	return 0;
}

/*
 * The common case, a name with nothing for the tidy rules to change and no
 * inline chain: one copy instead of the general path's per-byte work.
 */
static int
is_plain(const char *f, size_t n)
{
	static const unsigned char special[256] = {
		['-'] = 1, ['('] = 1, [';'] = 1, ['"'] = 1, ['\''] = 1,
	};
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	size_t i;

	/* Eight bytes at a time: x has a zero byte iff (x - ones) & ~x & highs. */
	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t w, a, b, c, d, e;

		memcpy(&w, f + i, 8);
		a = w ^ (ones * '-');
		b = w ^ (ones * '(');
		c = w ^ (ones * ';');
		d = w ^ (ones * '"');
		e = w ^ (ones * '\'');
		if ((((a - ones) & ~a) | ((b - ones) & ~b) | ((c - ones) & ~c) |
		    ((d - ones) & ~d) | ((e - ones) & ~e)) & highs)
			return 0;
	}
	for (; i < n; i++)
		if (special[(unsigned char)f[i]])
			return 0;
	return !(n == 9 && memcmp(f, "[unknown]", 9) == 0);
}

/*
 * Put n bytes in front of the key, growing it (at the front) as needed:
 * the contents move to the end of a new block, so not through pf_grow,
 * but its capacity rule, from 4096 bytes, with no size that wraps.
 */
static int
key_prepend(struct pf_perfscript *ps, const void *p, size_t n)
{
	if (n == 0)
		return 0;	/* and ps->key may still be NULL */
	if (ps->kpos < n) {
		size_t used = ps->kcap - ps->kpos;
		/* Under SIZE_MAX / 2, the capacity and its NUL cannot wrap. */
		size_t cap = used < SIZE_MAX / 2 && n < SIZE_MAX / 2 - used ?
		    pf_grow_cap(ps->kcap ? ps->kcap : 4096, used + n, 1) : 0;
		char *k;

		if (cap == 0 || (k = malloc(cap + 1)) == NULL) {
			errno = ENOMEM;
			return -1;
		}
		if (used)
			memcpy(k + cap - used, ps->key + ps->kpos, used);
		k[cap] = '\0';
		free(ps->key);
		ps->key = k;
		ps->kpos = cap - used;
		ps->kcap = cap;
	}
	ps->kpos -= n;
	memcpy(ps->key + ps->kpos, p, n);
	return 0;
}

/*
 * A frame the tidy rules leave alone: the annotation, the name and the ';'
 * go straight in front of the key.  libc as for add_function.
 */
static int
add_plain(struct pf_perfscript *ps, const char *f, size_t n, struct span mod,
    int libc)
{
	const char *suffix = NULL;

	if (ps->java && n > 0 && f[0] == 'L' && memchr(f, '/', n) != NULL) {
		f++;
		n--;
	}
	if (libc)
		suffix = "_[l]";
	else if (ps->cfg.annotate_kernel && is_kernel_module(mod))
		suffix = "_[k]";
	else if (ps->cfg.annotate_jit && is_jit_module(mod) &&
	    memmem(f, n, "_[j]", 4) == NULL)
		suffix = "_[j]";
	else if (ps->cfg.annotate_inline && span_eq(mod, "inlined") &&
	    memmem(f, n, "_[i]", 4) == NULL)
		suffix = "_[i]";
	if (suffix != NULL && key_prepend(ps, suffix, 4) == -1)
		return -1;
	if (key_prepend(ps, f, n) == -1)
		return -1;
	return key_prepend(ps, ";", 1);
}

/* The length of symbol f[0, n) without its "+0x<hex>" (the Perl's s/\+0x[\da-f]+$//). */
static size_t
strip_offset(const char *f, size_t n)
{
	size_t i;

	for (i = n; i > 0 && (cls[(unsigned char)f[i - 1]] & C_HEX); i--)
		;
	if (i < n && i >= 3 && f[i - 1] == 'x' && f[i - 2] == '0' && f[i - 3] == '+')
		return i - 3;
	return n;
}

/* keep_frames: one frame's fields as printed, copied into stext. */
static int
keep_frame(struct pf_perfscript *ps, struct span pc, struct span sym, struct span mod)
{
	struct frame_at *fa;

	if (pf_grow(&ps->fat, &ps->fcap, ps->nframes + 1, sizeof(*ps->fat)) == -1)
		return -1;
	fa = &ps->fat[ps->nframes];
	/* No hex, or above 2^64: no address, never a wrapped one. */
	if (pf_parse_x64_span(pc.p, pc.p + pc.n, &fa->addr) == -1)
		fa->addr = 0;
	while (sym.n > 0 && is_s((unsigned char)sym.p[sym.n - 1]))
		sym.n--;
	sym.n = strip_offset(sym.p, sym.n);
	fa->func = ps->stext.len;
	fa->func_len = sym.n;
	if (pf_buf_append(&ps->stext, sym.p, sym.n) == -1)
		return -1;
	fa->module = ps->stext.len;
	fa->module_len = mod.n;
	if (pf_buf_append(&ps->stext, mod.p, mod.n) == -1)
		return -1;
	ps->nframes++;
	return 0;
}

/*
 * One frame line's fields, folded into one group of frames in front of
 * the key; libc: its code is the C library's (see add_function).
 */
static int
fold_frame(struct pf_perfscript *ps, struct span pc, struct span sym,
    struct span mod, int libc)
{
	size_t n, a, nf, last;
	const char *f;

	f = sym.p;
	n = strip_offset(f, sym.n);
	if (n > 0 && f[0] == '(')
		return 0;	/* the Perl skips these ("process names") */
	/* split /->/, trailing empty fields dropped */
	for (last = n; last >= 2 && f[last - 2] == '-' && f[last - 1] == '>'; last -= 2)
		;
	if (last == 0)
		return 0;
	if (is_plain(f, last))
		return add_plain(ps, f, last, mod, libc);
	pf_buf_reset(&ps->grp);
	for (a = 0, nf = 0; a < last; nf++) {
		const char *arrow = find2(f + a, last - a, '-', '>');
		size_t b = arrow ? (size_t)(arrow - f) : last;

		if (nf > 0 && pf_buf_putc(&ps->grp, ';') == -1)
			return -1;
		if (add_function(ps, f + a, b - a, nf > 0, pc, mod, libc) == -1)
			return -1;
		a = arrow ? b + 2 : last;
	}
	if (key_prepend(ps, ps->grp.data, ps->grp.len) == -1)
		return -1;
	return key_prepend(ps, ";", 1);
}

/*
 * annotate_libc: fold the held "(inlined)" lines, innermost first, as
 * they came; libc: the function they were inlined into is the C
 * library's, and so is their code.
 */
static int
flush_inlined(struct pf_perfscript *ps, int libc)
{
	struct span pc, sym, mod;
	size_t at = 0, n;
	int r = 0;

	while (r == 0 && at + sizeof(n) <= ps->inl.len) {
		memcpy(&n, ps->inl.data + at, sizeof(n));
		at += sizeof(n);
		if (match_frame(ps->inl.data + at, n, 0, &pc, &sym, &mod))
			r = fold_frame(ps, pc, sym, mod, libc);
		at += n;
	}
	pf_buf_reset(&ps->inl);
	return r;
}

/*
 * Whether a frame's module is the kernel's, for the order of a stack's
 * contexts (kernel frames first, then user frames): the Perl's kernel
 * rule, but the vDSO and vsyscall pages are user code.
 */
static int
kernel_frame(struct span mod)
{
	return is_kernel_module(mod) && !span_eq(mod, "[vdso]") && !span_eq(mod, "[vsyscall]");
}

/* The frame's printed symbol, without white space and offset, is "[unknown]". */
static int
unknown_sym(struct span sym)
{
	while (sym.n > 0 && is_s((unsigned char)sym.p[sym.n - 1]))
		sym.n--;
	sym.n = strip_offset(sym.p, sym.n);
	return span_eq(sym, "[unknown]");
}

/* The printed address as a number: 0 if it is no hex or above 2^64. */
static uint64_t
pc_value(struct span pc)
{
	uint64_t v;

	if (pf_parse_x64_span(pc.p, pc.p + pc.n, &v) == -1)
		return 0;
	return v;
}

/*
 * An [unknown] frame the caller named: its inlined functions, then the
 * function, each folded (and kept) as the lines a stream prints for them
 * would be.  libc: the module is the C library's (annotate_libc).
 */
static int
add_named(struct pf_perfscript *ps, struct span pc, struct span mod, const struct pf_ps_names *nm)
{
	static const struct span inlined = { "inlined", 7 };
	struct span f;
	size_t j;
	int libc = ps->cfg.annotate_libc && is_libc_module(mod);

	if (ps->cfg.annotate_libc && flush_inlined(ps, libc) == -1)
		return -1;
	for (j = 0; j <= nm->ninl; j++) {
		const char *name = j < nm->ninl ? nm->inl[j] : nm->name;

		f = (struct span){ name, strlen(name) };
		if (ps->cfg.keep_frames && keep_frame(ps, pc, f, j < nm->ninl ? inlined : mod) == -1)
			return -1;
		if (fold_frame(ps, pc, f, j < nm->ninl ? inlined : mod, libc) == -1)
			return -1;
	}
	return 0;
}

/* One frame line of the current sample: becomes one group of frames. */
static int
add_frame(struct pf_perfscript *ps, const char *l, size_t len, size_t s0)
{
	struct span pc, sym, mod;
	int libc = 0, retaddr;

	if (!match_frame(l, len, s0, &pc, &sym, &mod))
		return 1;
	/*
	 * Which frame is the first user one matters only to the [unknown]
	 * callback (pf-fold --debug-dir): the module checks cost pf-fold a
	 * third of its time on every frame (0.47 -> 0.71 s of CPU for 423 MB).
	 */
	if (ps->unknown != NULL && !span_eq(mod, "inlined") && !kernel_frame(mod)) {
		retaddr = ps->user_seen;
		ps->user_seen = 1;
		if (mod.n > 0 && unknown_sym(sym) && !span_eq(mod, "[unknown]")) {
			const struct pf_ps_names *nm;
			size_t n = mod.n;

			/* The module as printed: perf's mark is part of the name. */
			if ((size_t)(l + len - (mod.p + n)) >= 11 &&
			    memcmp(mod.p + n, " (deleted)", 10) == 0)
				n += 10;
			if ((nm = ps->unknown(mod.p, n, pc_value(pc), retaddr, ps->arg)) != NULL &&
			    nm->name != NULL)
				return add_named(ps, pc, mod, nm);
		}
	}
	if (ps->cfg.keep_frames && keep_frame(ps, pc, sym, mod) == -1)
		return -1;
	if (ps->cfg.annotate_libc) {
		/*
		 * An inlined function's line comes before the line of the one
		 * it was inlined into, whose module says whose code it is.
		 */
		if (span_eq(mod, "inlined")) {
			size_t n = len - s0;

			if (pf_buf_append(&ps->inl, &n, sizeof(n)) == -1 ||
			    pf_buf_append(&ps->inl, l + s0, n) == -1)
				return -1;
			return 0;
		}
		libc = is_libc_module(mod);
		if (flush_inlined(ps, libc) == -1)
			return -1;
	}
	return fold_frame(ps, pc, sym, mod, libc);
}

/* The kept frames as pointers into stext, which no longer moves. */
static int
frame_pointers(struct pf_perfscript *ps)
{
	struct pf_ps_frame *v;
	size_t i;

	if (pf_grow(&ps->frames, &ps->pcap, ps->nframes, sizeof(*ps->frames)) == -1)
		return -1;
	v = ps->frames;
	for (i = 0; i < ps->nframes; i++) {
		const struct frame_at *fa = &ps->fat[i];

		v[i].addr = fa->addr;
		v[i].func = ps->stext.data + fa->func;
		v[i].func_len = fa->func_len;
		v[i].module = ps->stext.data + fa->module;
		v[i].module_len = fa->module_len;
	}
	return 0;
}

static int
finish_sample(struct pf_perfscript *ps)
{
	struct pf_ps_sample s;

	if (ps->state != IN_SAMPLE) {
		ps->state = IDLE;
		pf_buf_reset(&ps->inl);
		return 0;
	}
	ps->state = IDLE;
	/* Inlined lines that no function's line followed: as they are. */
	if (ps->inl.len > 0 && flush_inlined(ps, 0) == -1)
		return -1;
	if (key_prepend(ps, ps->pname.data, ps->pname.len) == -1)
		return -1;
	s.stack = ps->key + ps->kpos;
	s.len = ps->kcap - ps->kpos;
	s.weight = ps->weight;
	s.comm = ps->stext.data;
	s.comm_len = ps->comm_len;
	s.event = ps->has_event ? ps->stext.data + ps->event_off : NULL;
	s.event_len = ps->has_event ? ps->event_len : 0;
	s.pid = ps->pid;
	s.tid = ps->tid;
	s.has_pid = ps->has_pid;
	s.has_tid = ps->has_tid;
	s.time_ns = ps->time_ns;
	s.has_time = ps->has_time;
	s.frames = NULL;
	s.nframes = 0;
	if (ps->cfg.keep_frames && ps->nframes > 0) {
		if (frame_pointers(ps) == -1)
			return -1;
		s.frames = ps->frames;
		s.nframes = ps->nframes;
	}
	ps->samples++;
	return ps->emit(&s, ps->arg);
}

static int
keep_sample(const struct pf_perfscript *ps, const struct event_line *ev)
{
	const struct pf_ps_config *c = &ps->cfg;

	if (c->npids) {
		uint64_t id;
		size_t i;

		if (span_u64(ev->pid, &id) == -1)
			return 0;
		for (i = 0; i < c->npids; i++)
			if (c->pids[i] == id)
				break;
		if (i == c->npids)
			return 0;
	}
	if (c->comm != NULL) {
		size_t i, n = strlen(c->comm);
		int same = n == ev->comm.n;

		for (i = 0; same && i < n; i++) {
			char a = ev->comm.p[i], b = c->comm[i];

			if (a != b && !(a == ' ' && b == '_'))
				same = 0;
		}
		if (!same)
			return 0;
	}
	if (c->use_time) {
		uint64_t t;

		if (ev->time.p == NULL || span_time_ns(ev->time, &t) == -1 ||
		    t < c->time_start_ns || t >= c->time_end_ns)
			return 0;
	}
	return 1;
}

/*
 * The length of an event name without its modifiers, perf's ":u",
 * ":ppp", ":uk"...: the last ':' and what follows, when that is only
 * modifier letters.  A tracepoint's "sched:sched_switch" keeps its name.
 */
static size_t
event_base(const char *s, size_t n)
{
	static const char mods[] = "ukhIGHpPSDWebR";
	const char *c = memrchr(s, ':', n);
	size_t i;

	if (c == NULL || c == s || (size_t)(s + n - c) < 2)
		return n;
	for (i = (size_t)(c - s) + 1; i < n; i++)
		if (strchr(mods, s[i]) == NULL)
			return n;
	return (size_t)(c - s);
}

/* Whether the event line's event is the one kept. */
static int
same_event(const struct pf_perfscript *ps, struct span e)
{
	size_t a, b;

	if (ps->event_exact)
		return span_eq(e, ps->event);
	a = event_base(e.p, e.n);
	b = event_base(ps->event, strlen(ps->event));
	return a == b && memcmp(e.p, ps->event, a) == 0;
}

static int
bad(struct pf_perfscript *ps, const char *why)
{
	ps->reason = why;
	errno = EBADMSG;
	return -1;
}

/* The event line's fields as printed, for the callback; -1 on ENOMEM. */
static int
sample_fields(struct pf_perfscript *ps, const struct event_line *ev)
{
	struct span one = ev->tid.p != NULL ? ev->tid : ev->pid;

	pf_buf_reset(&ps->stext);
	ps->nframes = 0;
	ps->comm_len = ev->comm.n;
	if (pf_buf_append(&ps->stext, ev->comm.p, ev->comm.n) == -1)
		return -1;
	ps->has_event = ev->event.p != NULL;
	ps->event_off = ps->stext.len;
	ps->event_len = ps->has_event ? ev->event.n : 0;
	if (ps->has_event && pf_buf_append(&ps->stext, ev->event.p, ev->event.n) == -1)
		return -1;
	/* "PID/TID", or one number: the thread's. */
	ps->pid = ps->tid = ps->time_ns = 0;
	ps->has_pid = ev->tid.p != NULL && span_u64(ev->pid, &ps->pid) == 0;
	ps->has_tid = span_u64(one, &ps->tid) == 0;
	ps->has_time = ev->time.p != NULL && span_time_ns(ev->time, &ps->time_ns) == 0;
	return 0;
}

static int
event_line(struct pf_perfscript *ps, const char *l, size_t len, size_t h,
    struct event_line *ev, int inline_only)
{
	struct pf_buf *pn = &ps->pname;
	uint64_t period = 1;
	size_t i;
	int inline_frame;

	/*
	 * Not in the Perl: an event line ends the sample before it even
	 * without a blank line (the Perl would glue the two stacks).
	 */
	if (finish_sample(ps) == -1)
		return -1;
	ps->events++;
	ps->state = SKIPPING;
	ev->frame.p = NULL;
	ev->frame.n = 0;
	ev->time.p = NULL;
	inline_frame = 0;
	if (inline_only || !match_event_tail(l, len, ev)) {
		ev->event.p = NULL;
		ev->period.p = NULL;
		if (match_event_inline(l, len, h, ev))
			inline_frame = 1;
		else
			ev->event.p = ev->period.p = ev->time.p = NULL;
	}
	if (ev->event.p != NULL) {
		if (ps->event == NULL) {
			if ((ps->event = strndup(ev->event.p, ev->event.n)) == NULL)
				return -1;
			ps->defaulted = 1;
		} else if (!same_event(ps, ev->event)) {
			ps->other_events++;
			return 0;
		}
	}
	if (!keep_sample(ps, ev))
		return 0;
	if (ev->period.p != NULL && span_u64(ev->period, &period) == -1)
		return bad(ps, "period out of range");
	if (period == 0)
		period = 1;	/* the Perl's "not $period" */
	ps->weight = period;
	pf_buf_reset(pn);
	if (pf_buf_append(pn, ev->comm.p, ev->comm.n) == -1)
		return -1;
	if (ps->cfg.include_tid || ps->cfg.include_pid) {
		int has_tid = ev->tid.p != NULL && !(ev->tid.n == 1 && ev->tid.p[0] == '0');

		if (pf_buf_putc(pn, '-') == -1)
			return -1;
		if (has_tid ? pf_buf_append(pn, ev->pid.p, ev->pid.n) : pf_buf_putc(pn, '?'))
			return -1;
		if (ps->cfg.include_tid) {
			struct span t = has_tid ? ev->tid : ev->pid;

			if (pf_buf_putc(pn, '/') == -1 || pf_buf_append(pn, t.p, t.n) == -1)
				return -1;
		}
	}
	for (i = 0; i < pn->len; i++)
		if (pn->data[i] == ' ')
			pn->data[i] = '_';
	ps->java = pn->len >= 4 && memcmp(pn->data, "java", 4) == 0;
	ps->kpos = ps->kcap;
	if (sample_fields(ps, ev) == -1)
		return -1;
	ps->state = IN_SAMPLE;
	ps->inline_sample = inline_frame;
	ps->user_seen = 0;
	if (inline_frame && add_frame(ps, ev->frame.p, ev->frame.n, 0) == -1)
		return -1;
	return 0;
}

struct pf_perfscript *
pf_ps_new(const struct pf_ps_config *cfg, pf_ps_emit_fn emit, void *arg)
{
	struct pf_perfscript *ps;

	if ((ps = calloc(1, sizeof(*ps))) == NULL)
		return NULL;
	ps->cfg = *cfg;
	ps->emit = emit;
	ps->arg = arg;
	ps->state = IDLE;
	if (cfg->event_filter != NULL &&
	    (ps->event = strdup(cfg->event_filter)) == NULL) {
		free(ps);
		return NULL;
	}
	if (ps->event != NULL)
		ps->event_exact = event_base(ps->event, strlen(ps->event)) !=
		    strlen(ps->event);
	return ps;
}

void
pf_ps_on_comment(struct pf_perfscript *ps, pf_ps_comment_fn comment)
{
	ps->comment = comment;
}

void
pf_ps_on_unknown(struct pf_perfscript *ps, pf_ps_unknown_fn unknown)
{
	ps->unknown = unknown;
}

void
pf_ps_names_escaped(struct pf_perfscript *ps, int on)
{
	ps->escaped = on;
}

int
pf_ps_line(struct pf_perfscript *ps, const char *l, size_t len)
{
	struct event_line ev;
	size_t i, h;
	int r;

	if (len > 0 && l[0] == '#')
		return ps->comment != NULL ? ps->comment(l, len, ps->arg) : 0;
	/* Not quite the Perl (only "" there): white space alone ends a sample too. */
	for (i = 0; i < len && is_s((unsigned char)l[i]); i++)
		;
	if (i == len)
		return finish_sample(ps);
	if (match_header(l, len, ps->escaped ? 1 : 2, &ev, &h))
		return event_line(ps, l, len, h, &ev, 0);
	/*
	 * Not in the Perl: without call chains perf pads the comm to 16
	 * columns, so a one-line sample may start with white space.  The test
	 * is made between samples and after one-line samples (inside a call
	 * chain a line with white space in front is a frame), and only for a
	 * line with ": ", which frame lines seldom have.
	 */
	if (i > 0 && (ps->state != IN_SAMPLE || ps->inline_sample) &&
	    find2(l + i, len - i, ':', ' ') != NULL &&
	    match_header(l + i, len - i, ps->escaped ? 1 : 2, &ev, &h)) {
		struct event_line probe = ev;

		if (match_event_inline(l + i, len - i, h, &probe))
			return event_line(ps, l + i, len - i, h, &ev, 1);
	}
	switch (ps->state) {
	case IN_SAMPLE:
		if ((r = add_frame(ps, l, len, i)) == 1)
			return bad(ps, "unrecognized line");
		return r;
	case SKIPPING:
		if (match_frame(l, len, i, &(struct span){ 0 }, &(struct span){ 0 },
		    &(struct span){ 0 }))
			return 0;
		return bad(ps, "unrecognized line");
	case IDLE:
		break;
	}
	ps->state = SKIPPING;	/* the frames under an unreadable line go with it */
	if (match_frame(l, len, i, &(struct span){ 0 }, &(struct span){ 0 },
	    &(struct span){ 0 }))
		return bad(ps, "frame line outside a sample");
	return bad(ps, "unrecognized line");
}

const char *
pf_ps_malformed(const struct pf_perfscript *ps)
{
	return ps->reason ? ps->reason : "malformed line";
}

int
pf_ps_finish(struct pf_perfscript *ps)
{
	return finish_sample(ps);
}

void
pf_ps_get_stats(const struct pf_perfscript *ps, struct pf_ps_stats *st)
{
	st->events = ps->events;
	st->samples = ps->samples;
	st->other_events = ps->other_events;
	st->event_defaulted = ps->defaulted;
	st->event = ps->event;
}

void
pf_ps_free(struct pf_perfscript *ps)
{
	if (ps == NULL)
		return;
	pf_buf_free(&ps->pname);
	pf_buf_free(&ps->grp);
	free(ps->key);
	pf_buf_free(&ps->tmp);
	pf_buf_free(&ps->stext);
	pf_buf_free(&ps->inl);
	free(ps->fat);
	free(ps->frames);
	free(ps->event);
	free(ps);
}
