/*
 * provenance: the recorders' comment lines are read by token, never by
 * position, so a header that gains a key (or loses one) still gives what
 * it has; a line of another tool or version is simply not ours.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "provenance.h"

static const char *const names[PF_PROV_NKEYS] = {
	[PF_PROV_TOOL] = "tool", [PF_PROV_HOST] = "host", [PF_PROV_TARGET] = "target",
	[PF_PROV_PID] = "pid", [PF_PROV_EVENT] = "event", [PF_PROV_START] = "start",
	[PF_PROV_WINDOW] = "window", [PF_PROV_FREQ] = "freq",
	[PF_PROV_SAMPLES] = "samples", [PF_PROV_LOST] = "lost",
	[PF_PROV_TRUNCATED] = "truncated", [PF_PROV_INCOMPLETE] = "incomplete",
	[PF_PROV_INCOMPLETE_CAUSE] = "incomplete-cause", [PF_PROV_STOP] = "stop",
	[PF_PROV_KSTACKS] = "kernel-stacks", [PF_PROV_CALLGRAPH] = "callgraph",
};

static const char *const tools[] = { "pf-record", "pf-offcpu" };

struct tok {
	const char *k, *v;
	size_t kn, vn;
};

/*
 * The next space-separated "key=value" token of [*s, end) in t; a token
 * without '=' has an empty value.  0 at the end.
 */
static int
next_tok(const char **s, const char *end, struct tok *t)
{
	const char *p = *s, *q, *eq;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end)
		return 0;
	for (q = p; q < end && *q != ' ' && *q != '\t'; q++)
		;
	eq = memchr(p, '=', (size_t)(q - p));
	t->k = p;
	t->kn = eq ? (size_t)(eq - p) : (size_t)(q - p);
	t->v = eq ? eq + 1 : q;
	t->vn = eq ? (size_t)(q - eq - 1) : 0;
	*s = q;
	return 1;
}

static int
tok_is(const struct tok *t, const char *k)
{
	return strlen(k) == t->kn && memcmp(t->k, k, t->kn) == 0;
}

/*
 * Values go into a line that is split at spaces and read as a folded
 * stack by tools that know nothing of it: nothing that could split it,
 * end it or make a frame of it survives.
 */
static void
set_str(char d[PF_PROV_VALMAX + 1], const char *v, size_t n)
{
	size_t i;

	if (n > PF_PROV_VALMAX)
		n = PF_PROV_VALMAX;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];

		d[i] = c <= ' ' || c == 0x7f || c == ';' ? '_' : (char)c;
	}
	/* Zeros to the end: two recordings compare equal as whole arrays. */
	memset(d + n, 0, PF_PROV_VALMAX + 1 - n);
}

static void
set(struct pf_prov *p, enum pf_prov_key k, const char *v, size_t n)
{
	set_str(p->val[k], v, n);
}

/* "a" then "a,b": each distinct comm joins the list, within the cap. */
static void
add_target(struct pf_prov *p, const char *v, size_t n)
{
	char one[PF_PROV_VALMAX + 1], *cur = p->val[PF_PROV_TARGET];
	size_t cl = strlen(cur), ol;
	const char *s;

	set_str(one, v, n);
	ol = strlen(one);
	if (ol == 0)
		return;
	for (s = cur; *s != '\0'; s += strcspn(s, ","), s += *s == ',') {
		if (strcspn(s, ",") == ol && memcmp(s, one, ol) == 0)
			return;
	}
	if (cl == 0) {
		memcpy(cur, one, ol + 1);
		return;
	}
	if (cl + 1 + ol > PF_PROV_VALMAX)
		return;
	cur[cl] = ',';
	memcpy(cur + cl + 1, one, ol + 1);
}

int
pf_prov_header(struct pf_prov *p, const char *line, size_t len)
{
	const char *end = line + len, *s;
	struct tok t;
	size_t i, tl;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		tl = strlen(tools[i]);
		if (len > tl + 5 && memcmp(line, "# ", 2) == 0 &&
		    memcmp(line + 2, tools[i], tl) == 0 && line[2 + tl] == ' ' &&
		    (line[3 + tl] == '1' || line[3 + tl] == '2') && line[4 + tl] == ' ')
			break;
	}
	if (i == sizeof(tools) / sizeof(tools[0]))
		return 0;
	memset(p, 0, sizeof(*p));
	set(p, PF_PROV_TOOL, tools[i], strlen(tools[i]));
	p->version = line[3 + tl] - '0';
	/*
	 * pf-fold weighs each sample by its period, and both recorders'
	 * periods are nanoseconds: cpu-clock's of CPU time, pf-offcpu's of
	 * time blocked.  pf-offcpu's header says so; pf-record's cannot say
	 * otherwise.
	 */
	p->unit_ns = 1;
	s = line + 2 + tl + 3;
	while (next_tok(&s, end, &t)) {
		if (tok_is(&t, "host"))
			set(p, PF_PROV_HOST, t.v, t.vn);
		else if (tok_is(&t, "freq"))
			set(p, PF_PROV_FREQ, t.v, t.vn);
		else if (tok_is(&t, "callgraph"))
			set(p, PF_PROV_CALLGRAPH, t.v, t.vn);
		else if (tok_is(&t, "kernel-stacks"))
			set(p, PF_PROV_KSTACKS, t.v, t.vn);
		else if (tok_is(&t, "start"))
			set(p, PF_PROV_START, t.v, t.vn);
		else if (tok_is(&t, "event"))
			set(p, PF_PROV_EVENT, t.v, t.vn);
		else if (tok_is(&t, "unit"))
			p->unit_ns = t.vn == 2 && memcmp(t.v, "ns", 2) == 0;
		else if (tok_is(&t, "target")) {
			/* Never a command line: only the base name the header has. */
			if (t.vn >= 4 && memcmp(t.v, "cmd:", 4) == 0)
				set(p, PF_PROV_TARGET, t.v + 4, t.vn - 4);
			else if (t.vn >= 4 && memcmp(t.v, "pid:", 4) == 0) {
				set(p, PF_PROV_PID, t.v + 4, t.vn - 4);
				p->targets_pids = 1;
			} else
				set(p, PF_PROV_TARGET, t.v, t.vn);
		}
	}
	return 1;
}

int
pf_prov_note(struct pf_prov *p, const char *line, size_t len)
{
	const char *tool = p->val[PF_PROV_TOOL], *end = line + len, *s;
	size_t tl = strlen(tool);
	struct tok t;

	if (tl == 0 || len < tl + 4 || memcmp(line, "# ", 2) != 0 ||
	    memcmp(line + 2, tool, tl) != 0 || memcmp(line + 2 + tl, ": ", 2) != 0)
		return 0;
	s = line + 2 + tl + 2;
	if (!next_tok(&s, end, &t))
		return 0;
	if (tok_is(&t, "target") && t.vn == 0) {
		if (!p->targets_pids)
			return 1;
		while (next_tok(&s, end, &t))
			if (tok_is(&t, "comm"))
				add_target(p, t.v, t.vn);
		return 1;
	}
	if (tok_is(&t, "caps") && t.vn == 0) {
		while (next_tok(&s, end, &t))
			if (tok_is(&t, "duration"))
				set(p, PF_PROV_WINDOW, t.v, t.vn);
		return 1;
	}
	if (!tok_is(&t, "samples"))
		return 0;
	set(p, PF_PROV_SAMPLES, t.v, t.vn);
	while (next_tok(&s, end, &t)) {
		if (tok_is(&t, "lost"))
			set(p, PF_PROV_LOST, t.v, t.vn);
		else if (tok_is(&t, "truncated"))
			set(p, PF_PROV_TRUNCATED, t.v, t.vn);
		else if (tok_is(&t, "incomplete"))
			set(p, PF_PROV_INCOMPLETE, t.v, t.vn);
		else if (tok_is(&t, "incomplete-causes")) {
			/* The main cause comes first: its name, without its count. */
			const char *c = memchr(t.v, ':', t.vn), *comma = memchr(t.v, ',', t.vn);
			size_t n = c ? (size_t)(c - t.v) : comma ? (size_t)(comma - t.v) : t.vn;

			set(p, PF_PROV_INCOMPLETE_CAUSE, t.v, n);
		} else if (tok_is(&t, "stop"))
			set(p, PF_PROV_STOP, t.v, t.vn);
	}
	return 1;
}

int
pf_prov_parse(struct pf_prov *p, const char *line, size_t len)
{
	const size_t pl = sizeof(PF_PROV_PREFIX) - 1;
	const char *end = line + len, *s;
	struct tok t;
	size_t k;

	if (len < pl || memcmp(line, PF_PROV_PREFIX, pl) != 0)
		return 0;
	if (line[len - 1] == '\r')	/* a CRLF file's line */
		end--;
	memset(p, 0, sizeof(*p));
	s = line + pl;
	while (next_tok(&s, end, &t)) {
		if (tok_is(&t, "unit")) {
			p->unit_ns = t.vn == 2 && memcmp(t.v, "ns", 2) == 0;
			p->unit_known = p->unit_ns || (t.vn == 7 && memcmp(t.v, "samples", 7) == 0);
			continue;
		}
		for (k = 0; k < PF_PROV_NKEYS; k++)
			if (tok_is(&t, names[k])) {
				set(p, (enum pf_prov_key)k, t.v, t.vn);
				break;
			}
	}
	return 1;
}

int
pf_prov_offcpu(const struct pf_prov *p)
{
	const char *tool = pf_prov_get(p, PF_PROV_TOOL), *ev = pf_prov_get(p, PF_PROV_EVENT);

	return (tool != NULL && strcmp(tool, "pf-offcpu") == 0) ||
	    (ev != NULL && strcmp(ev, "offcpu-time") == 0);
}

int
pf_prov_format(const struct pf_prov *p, struct pf_buf *out)
{
	size_t k;

	if (pf_buf_puts(out, PF_PROV_PREFIX) == -1)
		return -1;
	for (k = 0; k < PF_PROV_NKEYS; k++) {
		if (p->val[k][0] == '\0')
			continue;
		if (pf_buf_printf(out, "%s=%s ", names[k], p->val[k]) == -1)
			return -1;
	}
	return pf_buf_puts(out, p->unit_ns ? "unit=ns\n" : "unit=samples\n");
}

const char *
pf_prov_key_name(enum pf_prov_key key)
{
	return (unsigned)key < PF_PROV_NKEYS ? names[key] : "";
}

const char *
pf_prov_get(const struct pf_prov *p, enum pf_prov_key key)
{
	if ((unsigned)key >= PF_PROV_NKEYS || p->val[key][0] == '\0')
		return NULL;
	return p->val[key];
}

int
pf_prov_who(const struct pf_prov *p, struct pf_buf *b)
{
	const char *target = pf_prov_get(p, PF_PROV_TARGET);
	const char *pid = pf_prov_get(p, PF_PROV_PID);
	const char *host = pf_prov_get(p, PF_PROV_HOST);
	size_t start = b->len;

	if (target != NULL && pf_buf_puts(b, strcmp(target, "all") == 0 ?
	    "all processes" : target) == -1)
		return -1;
	if (pid != NULL && pf_buf_printf(b, "%s%s %s%s", target ? " (" : "",
	    strchr(pid, ',') ? "pids" : "pid", pid, target ? ")" : "") == -1)
		return -1;
	if (host != NULL && pf_buf_printf(b, "%son %s", b->len > start ? " " : "", host) == -1)
		return -1;
	return pf_buf_reserve(b, 0);
}

/* A whole unsigned decimal of at most 19 digits into *out: 0, or -1. */
static int
prov_u64(const char *v, unsigned long long *out)
{
	unsigned long long n = 0;
	size_t i;

	if (v == NULL || v[0] == '\0' || strlen(v) > 19)
		return -1;
	for (i = 0; v[i]; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		n = n * 10 + (unsigned long long)(v[i] - '0');
	}
	*out = n;
	return 0;
}

double
pf_prov_incomplete_pct(const struct pf_prov *p)
{
	unsigned long long inc, n;

	if (prov_u64(pf_prov_get(p, PF_PROV_INCOMPLETE), &inc) == -1 ||
	    prov_u64(pf_prov_get(p, PF_PROV_SAMPLES), &n) == -1 || n == 0 || inc > n)
		return -1;
	return 100.0 * (double)inc / (double)n;
}

int
pf_prov_incomplete_say(const struct pf_prov *p, struct pf_buf *b)
{
	/* The trailer's causes (man/pf-formats.5) in words. */
	static const char *const words[][2] = {
		{ "stack-copy", "stack copy too short" },
		{ "fp-into-data", "frame-pointer chain into data" },
		{ "no-unwind-info", "no unwind information" },
		{ "unreadable", "file unreadable" },
		{ "budget", "a cost budget" },
	};
	const char *cause = pf_prov_get(p, PF_PROV_INCOMPLETE_CAUSE), *w = cause;
	double pct = pf_prov_incomplete_pct(p);
	size_t i;

	if (pct <= PF_PROV_INCOMPLETE_SAY)
		return 0;
	for (i = 0; cause != NULL && i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(cause, words[i][0]) == 0)
			w = words[i][1];
	if (pf_buf_printf(b, "%.0f%% of stacks incomplete", pct) == -1)
		return -1;
	return w == NULL ? 0 : pf_buf_printf(b, " (mostly: %s)", w);
}

int
pf_prov_describe(const struct pf_prov *p, struct pf_buf *title, struct pf_buf *subtitle)
{
	static const struct {
		enum pf_prov_key k;
		const char *before, *after;
	} parts[] = {
		{ PF_PROV_START, "start ", "" }, { PF_PROV_WINDOW, "window ", "" },
		{ PF_PROV_FREQ, "", " Hz" }, { PF_PROV_SAMPLES, "", NULL },
		{ PF_PROV_LOST, "", " lost" }, { PF_PROV_TRUNCATED, "", " truncated" },
		{ PF_PROV_CALLGRAPH, "call graph ", "" }, { PF_PROV_STOP, "stopped by ", "" },
	};
	size_t i, start;

	if (title != NULL) {
		if (pf_buf_puts(title, pf_prov_offcpu(p) ? "Off-CPU time: " : "CPU: ") == -1 ||
		    pf_prov_who(p, title) == -1)
			return -1;
	}
	if (subtitle == NULL)
		return 0;
	start = subtitle->len;
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		const char *v = pf_prov_get(p, parts[i].k);

		/* No loss and a full window are no news: only what went wrong is said. */
		if (v == NULL || ((parts[i].k == PF_PROV_LOST ||
		    parts[i].k == PF_PROV_TRUNCATED) && strcmp(v, "0") == 0) ||
		    (parts[i].k == PF_PROV_STOP && strcmp(v, "duration") == 0))
			continue;
		if (subtitle->len > start && pf_buf_puts(subtitle, ", ") == -1)
			return -1;
		if (pf_buf_printf(subtitle, "%s%s%s", parts[i].before, v, parts[i].after ?
		    parts[i].after : pf_prov_offcpu(p) ? " blocked intervals" : " samples") == -1)
			return -1;
	}
	/* What the graph's width holds of stacks that do not reach their start. */
	if (pf_prov_incomplete_pct(p) > PF_PROV_INCOMPLETE_SAY &&
	    ((subtitle->len > start && pf_buf_puts(subtitle, ", ") == -1) ||
	    pf_prov_incomplete_say(p, subtitle) == -1))
		return -1;
	return pf_buf_reserve(subtitle, 0);
}
