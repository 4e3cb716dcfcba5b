/*
 * pf-fold: collapse sample streams (`perf script` text, or pf-record's and
 * pf-offcpu's output, which is the same text) into folded stacks,
 * "root;...;leaf COUNT", sorted byte-wise with identical stacks summed.
 * Option for option it does what stackcollapse-perf.pl does, with the
 * improvements listed in the man page; it also filters by pid, comm and
 * time, sums folded files (--folded) and makes a two-count differential
 * from two folded files (--diff).  Input is streamed: memory grows with the
 * number of unique stacks, never with the size of the input.  With
 * --debug-dir it names the [unknown] frames of a recording of stripped
 * files from their debug files, found by the build-ids the recording's
 * header lists.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "buildid.h"
#include "fileio.h"
#include "folded.h"
#include "grow.h"
#include "hash.h"
#include "htab.h"
#include "linereader.h"
#include "msg.h"
#include "parse.h"
#include "perfscript.h"
#include "pf.h"
#include "pprof.h"
#include "provenance.h"
#include "stackmap.h"
#include "symbolize.h"
#include "xmlesc.h"

#define MAX_WARNINGS 10
#define BINARY_PROBE (64 * 1024)	/* bytes of each input looked at for NULs */
#define DEBUG_LINES 65536	/* --debug-dir: build-id lines kept of one recording */
#define DEBUG_FILES 256		/* --debug-dir: debug files opened (each keeps a descriptor) */

static const char synopsis[] =
    "usage: pf-fold [--pid | --tid] [--kernel] [--jit] [--all] [--inline] [--libc]\n"
    "               [--addrs] [--event-filter EVENT] [--filter-pid PID[,PID...]]\n"
    "               [--filter-comm NAME] [--time START,END] [--debug-dir DIR]\n"
    "               [--strict] [FILE ...]\n"
    "       pf-fold --pprof [--event-filter EVENT] [--filter-pid PID[,PID...]]\n"
    "               [--filter-comm NAME] [--time START,END] [--debug-dir DIR]\n"
    "               [--strict] [FILE ...]\n"
    "       pf-fold --folded [--strict] [FILE ...]\n"
    "       pf-fold --diff [--normalize] [--strip-hex] [--strict] BEFORE AFTER\n";

enum {
	OPT_ADDRS = 256, OPT_ALL, OPT_DEBUG_DIR, OPT_DIFF, OPT_EVENT_FILTER, OPT_FILTER_COMM,
	OPT_FILTER_PID, OPT_FOLDED, OPT_INLINE, OPT_JIT, OPT_KERNEL, OPT_LIBC, OPT_NORMALIZE, OPT_PID, OPT_PPROF,
	OPT_STRICT, OPT_STRIP_HEX, OPT_TID, OPT_TIME, OPT_VERSION
};

static struct options {
	struct pf_ps_config ps;
	uint64_t *pids;
	int folded;
	int diff;
	int normalize;
	int strip_hex;
	int strict;
	int perf_only;		/* an option that only means something for sample streams */
	int pprof;
	const char *naming;	/* an option that shapes folded names, which --pprof has not */
	const char *debug_dir;	/* --debug-dir */
} opt = {
	.ps = { .time_end_ns = UINT64_MAX },
};

/* What reading all inputs leaves behind. */
struct state {
	struct pf_stackmap *map;
	struct pf_perfscript *ps;	/* NULL with --folded and --diff */
	uint64_t malformed;
	int ncounts;		/* --folded: 1 or 2 once the first line decided it */
	int column;		/* --diff: 0 reading BEFORE, 1 reading AFTER */
	struct pf_buf tmp;
	struct pf_pprof *pp;	/* --pprof: the profile, fed every sample and comment */
	const char *file;	/* for messages */
	uint64_t line;
	uint64_t data_lines;	/* of this input, neither blank nor a comment, up to 2 */
	size_t probed;		/* bytes of this input checked for binary */
	/* The recordings read (a sample stream) or their lines (--folded). */
	struct pf_prov *prov;
	size_t nprov, capprov;
	/*
	 * Where a recording's lines are trusted: its header is the comments
	 * before its first data line, its trailer the last line.  A comment
	 * after data is held in trailer, and kept only if no data follows.
	 */
	int in_body;		/* the latest recording has had data lines */
	struct pf_buf trailer;	/* held comment, len 0 when none */
	struct pf_buf provout;	/* the provenance lines to write, distinct */
};

static void
usage(void)
{
	fputs(synopsis, stdout);
	fputs("\n"
	    "  --pid                root frame is comm-PID\n"
	    "  --tid                root frame is comm-PID/TID\n"
	    "  --kernel             annotate kernel frames with _[k]\n"
	    "  --jit                annotate JIT frames with _[j]\n"
	    "  --all                --kernel and --jit\n"
	    "  --inline             annotate inlined frames with _[i]\n"
	    "  --libc               annotate the C library's frames with _[l]\n"
	    "  --addrs              unknown symbols as [module <address>]\n"
	    "  --event-filter EVENT keep only samples of EVENT (default: the first event seen)\n"
	    "  --filter-pid PID,... keep only samples of these processes\n"
	    "  --filter-comm NAME   keep only samples of this command name\n"
	    "  --time START,END     keep only samples with START <= time < END (seconds)\n"
	    "  --debug-dir DIR      name [unknown] frames from the debug files of DIR's\n"
	    "                       .build-id tree, by the recording's build-ids\n"
	    "  --folded             inputs are folded stacks: sum them\n"
	    "  --pprof              write a pprof profile (profile.proto) instead\n"
	    "  --diff               two folded files in, \"stack BEFORE AFTER\" out\n"
	    "  --normalize          --diff: scale BEFORE to the total of AFTER\n"
	    "  --strip-hex          --diff: merge stacks that differ only in 0x addresses\n"
	    "  --strict             the first malformed line is fatal\n"
	    "  -h, --help           this text\n"
	    "      --version        print the version\n", stdout);
}

static void
parse_pids(const char *arg)
{
	pid_t *v;
	char bad[32];
	size_t n, i;

	/* Every field is a pid: "1,,2" is a typo, not two pids. */
	if ((v = calloc(strlen(arg) + 1, sizeof(*v))) == NULL ||
	    (opt.pids = calloc(strlen(arg) + 1, sizeof(*opt.pids))) == NULL)
		pf_die(PF_EXIT_FAIL, "memory");
	if (pf_parse_pid_list(arg, 0, v, strlen(arg) + 1, &n, bad, sizeof(bad)) == -1)
		pf_usage_error(synopsis, "--filter-pid: '%s': not a process id", bad);
	for (i = 0; i < n; i++)
		opt.pids[i] = (uint64_t)v[i];
	free(v);
	opt.ps.pids = opt.pids;
	opt.ps.npids = n;
}

static void
parse_time(const char *arg)
{
	const char *comma = strchr(arg, ',');
	char *start;
	uint64_t v;

	if (comma == NULL)
		pf_usage_error(synopsis, "--time: '%s': want START,END (either may be empty)", arg);
	if ((start = strndup(arg, (size_t)(comma - arg))) == NULL)
		pf_die(PF_EXIT_FAIL, "memory");
	if (*start != '\0') {
		if (pf_parse_duration(start, 1000000000ULL, 0, UINT64_MAX - 1, &v) == -1)
			pf_usage_error(synopsis, "--time: '%s': not a time in seconds", start);
		opt.ps.time_start_ns = v;
	}
	if (comma[1] != '\0') {
		if (pf_parse_duration(comma + 1, 1000000000ULL, 0, UINT64_MAX - 1, &v) == -1)
			pf_usage_error(synopsis, "--time: '%s': not a time in seconds", comma + 1);
		opt.ps.time_end_ns = v;
	}
	if (opt.ps.time_end_ns <= opt.ps.time_start_ns)
		pf_usage_error(synopsis, "--time: '%s': the end must come after the start", arg);
	free(start);
	opt.ps.use_time = 1;
}

/* A malformed line: warn (the first few), or die with --strict. */
static void
malformed(struct state *st, const char *why)
{
	if (opt.strict)
		pf_diex(PF_EXIT_FAIL, "%s:%llu: %s", st->file,
		    (unsigned long long)st->line, why);
	if (st->malformed++ < MAX_WARNINGS)
		pf_warnx("%s:%llu: %s", st->file, (unsigned long long)st->line, why);
}

static void
add_or_die(struct state *st, const char *key, size_t len, uint64_t c0, uint64_t c1)
{
	if (pf_stackmap_add(st->map, key, len, c0, c1) == -1) {
		if (errno == EOVERFLOW)
			pf_diex(PF_EXIT_FAIL, "%s:%llu: count overflows 64 bits",
			    st->file, (unsigned long long)st->line);
		pf_die(PF_EXIT_FAIL, "%s", st->file);
	}
}

static int
emit_sample(const struct pf_ps_sample *s, void *arg)
{
	struct state *st = arg;

	if (st->pp != NULL) {
		if (pf_pprof_add_sample(st->pp, s) == -1) {
			if (errno == EOVERFLOW)
				pf_diex(PF_EXIT_FAIL, "%s:%llu: --pprof: total weight "
				    "overflows 63 bits", st->file, (unsigned long long)st->line);
			pf_die(PF_EXIT_FAIL, "%s", st->file);
		}
		return 0;
	}
	add_or_die(arg, s->stack, s->len, s->weight, 0);
	return 0;
}

/* Replace every 0x<hex> with "0x..." (difffolded.pl -s). */
static const char *
strip_hex(struct pf_buf *b, const char *s, size_t *len)
{
	size_t i = 0, n = *len;

	pf_buf_reset(b);
	while (i < n) {
		const char *z = memmem(s + i, n - i, "0x", 2);
		size_t j;

		if (z == NULL) {
			if (pf_buf_append(b, s + i, n - i) == -1)
				pf_die(PF_EXIT_FAIL, "memory");
			break;
		}
		j = (size_t)(z - s) + 2;
		while (j < n && ((s[j] >= '0' && s[j] <= '9') ||
		    ((s[j] | 0x20) >= 'a' && (s[j] | 0x20) <= 'f')))
			j++;
		if (pf_buf_append(b, s + i, (size_t)(z - s) - i) == -1 ||
		    pf_buf_append(b, "0x", 2) == -1 ||
		    (j > (size_t)(z - s) + 2 && pf_buf_append(b, "...", 3) == -1))
			pf_die(PF_EXIT_FAIL, "memory");
		i = j;
	}
	*len = b->len;
	return b->data;
}

/* One more provenance line, unless the same line is there already. */
static void
add_prov_line(struct state *st, const struct pf_prov *p)
{
	struct pf_buf one = { 0 };
	const char *at, *end;

	if (pf_prov_format(p, &one) == -1)
		pf_die(PF_EXIT_FAIL, "memory");
	end = st->provout.data + st->provout.len;
	for (at = st->provout.data; at != NULL && at < end; at = strchr(at, '\n') + 1)
		if (strncmp(at, one.data, one.len) == 0)
			break;
	if ((at == NULL || at >= end) && pf_buf_append(&st->provout, one.data, one.len) == -1)
		pf_die(PF_EXIT_FAIL, "memory");
	pf_buf_free(&one);
}

/*
 * --debug-dir: the build-id lines of the recording being read (its
 * header's, reset at each header and each input), and per distinct
 * build-id what its debug file gave (kept for the run, so each file is
 * opened, and each refusal said, once).
 */
struct bidline {
	char *path;		/* as written: escaped, blanks as \x20 */
	size_t pathlen;
	struct pf_buildid id;
	size_t debug;		/* its entry in dd.debugs */
	int ambiguous;		/* a second line named the path with another build-id */
};

struct debugfile {
	unsigned char id[PF_BUILDID_MAX];
	size_t idlen;
	int handle;		/* pf_sym_debug_add's, or -1 */
	int tried;
};

static struct debugdir {
	struct pf_symbolizer *sym;
	struct bidline *lines;
	size_t nlines, caplines;
	struct pf_htab lindex;		/* lines by path */
	struct debugfile *debugs;
	size_t ndebugs, capdebugs;
	struct pf_htab dindex;		/* debugs by build-id */
	uint64_t opened;
	int said_lines, said_files;
	struct pf_buf key;		/* a module, as a line writes paths */
	struct pf_buf names;		/* the names handed over, NUL-separated */
	const char **inl;		/* the inlined ones, in names */
	size_t *inloff;			/* their offsets there while it grows */
	size_t inlcap;
	struct pf_ps_names out;
} dd;

struct bid_key {
	const void *p;
	size_t n;
};

static bool
line_eq(const void *arg, size_t idx)
{
	const struct bid_key *k = arg;

	return dd.lines[idx].pathlen == k->n && memcmp(dd.lines[idx].path, k->p, k->n) == 0;
}

static bool
debug_eq(const void *arg, size_t idx)
{
	const struct bid_key *k = arg;

	return dd.debugs[idx].idlen == k->n && memcmp(dd.debugs[idx].id, k->p, k->n) == 0;
}

static void
debug_init(void)
{
	int fd;

	/* A directory that is not there is said at once, not per file. */
	if ((fd = open(opt.debug_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		pf_die(PF_EXIT_FAIL, "--debug-dir %s", opt.debug_dir);
	close(fd);
	/* libdwfl must never reach the network (it is not asked to search). */
	unsetenv("DEBUGINFOD_URLS");
	if ((dd.sym = pf_sym_new(NULL)) == NULL || pf_htab_init(&dd.lindex, 64) == -1 ||
	    pf_htab_init(&dd.dindex, 64) == -1)
		pf_die(PF_EXIT_FAIL, "memory");
	pf_sym_set_inlines(dd.sym, true);
}

/* A new recording, or a new input: its own build-ids only. */
static void
debug_reset(void)
{
	size_t i;

	if (dd.sym == NULL)
		return;
	for (i = 0; i < dd.nlines; i++)
		free(dd.lines[i].path);
	dd.nlines = 0;
	memset(dd.lindex.slots, 0, dd.lindex.nslots * sizeof(*dd.lindex.slots));
	dd.lindex.n = 0;
}

static void
debug_free(void)
{
	debug_reset();
	free(dd.lines);
	free(dd.debugs);
	free(dd.inl);
	free(dd.inloff);
	pf_htab_free(&dd.lindex);
	pf_htab_free(&dd.dindex);
	pf_buf_free(&dd.key);
	pf_buf_free(&dd.names);
	pf_sym_free(dd.sym);
}

/* The entry of build-id id in dd.debugs, made when new. */
static size_t
debug_entry(const struct pf_buildid *id)
{
	struct bid_key k = { id->id, id->idlen };
	uint64_t h = pf_hash(id->id, id->idlen);
	struct pf_htab_slot *sl = pf_htab_claim(&dd.dindex, h, debug_eq, &k);
	struct debugfile *v;

	if (sl == NULL)
		pf_die(PF_EXIT_FAIL, "memory");
	if (sl->idx != 0)
		return sl->idx - 1;
	if (pf_grow(&dd.debugs, &dd.capdebugs, dd.ndebugs + 1, sizeof(*dd.debugs)) == -1)
		pf_die(PF_EXIT_FAIL, "memory");
	v = dd.debugs;
	memset(&v[dd.ndebugs], 0, sizeof(*v));
	memcpy(v[dd.ndebugs].id, id->id, id->idlen);
	v[dd.ndebugs].idlen = id->idlen;
	v[dd.ndebugs].handle = -1;
	pf_htab_set(&dd.dindex, sl, h, dd.ndebugs);
	return dd.ndebugs++;
}

/* A build-id line of the recording's header. */
static void
debug_line(struct state *st, const char *l, size_t len)
{
	struct pf_buildid id;
	struct bid_key k;
	struct pf_htab_slot *sl;
	struct bidline *b;
	const char *path;
	size_t plen;
	uint64_t h;

	switch (pf_buildid_parse(l, len, &id, &path, &plen)) {
	case 0:
		return;
	case -1:
		malformed(st, "malformed build-id line");
		return;
	}
	if (dd.nlines == DEBUG_LINES) {
		if (!dd.said_lines++)
			pf_warnx("%s:%llu: --debug-dir: more than %d build-id lines in one recording: "
			    "the rest are not read", st->file, (unsigned long long)st->line, DEBUG_LINES);
		return;
	}
	k = (struct bid_key){ path, plen };
	h = pf_hash(path, plen);
	if ((sl = pf_htab_claim(&dd.lindex, h, line_eq, &k)) == NULL)
		pf_die(PF_EXIT_FAIL, "memory");
	if (sl->idx != 0) {
		/* One path, two files (replaced in the window): which one a frame is in is unknown. */
		b = &dd.lines[sl->idx - 1];
		if (b->id.idlen != id.idlen || memcmp(b->id.id, id.id, id.idlen) != 0)
			b->ambiguous = 1;
		return;
	}
	if (pf_grow(&dd.lines, &dd.caplines, dd.nlines + 1, sizeof(*dd.lines)) == -1)
		pf_die(PF_EXIT_FAIL, "memory");
	b = &dd.lines[dd.nlines];
	if ((b->path = strndup(path, plen)) == NULL)
		pf_die(PF_EXIT_FAIL, "memory");
	b->pathlen = plen;
	b->id = id;
	b->ambiguous = 0;
	b->debug = debug_entry(&id);
	pf_htab_set(&dd.lindex, sl, h, dd.nlines++);
}

/*
 * Open the debug file of line b's build-id, once: a regular file, opened
 * without blocking, whose own build-id is the one recorded.  Each refusal
 * and each build-id without a debug file is said once.
 */
static void
debug_open(const struct bidline *b, struct debugfile *d)
{
	char path[PATH_MAX], got[2 * PF_BUILDID_MAX + 1], hex[2 * PF_BUILDID_MAX + 1];
	struct stat sb;
	int fd;

	d->tried = 1;
	pf_buildid_hex(d->id, d->idlen, hex);
	if (pf_buildid_debug_path(path, sizeof(path), opt.debug_dir, d->id, d->idlen) == -1) {
		pf_warn("--debug-dir: %.*s: build-id %s", (int)b->pathlen, b->path, hex);
		return;
	}
	if (dd.opened == DEBUG_FILES) {
		if (!dd.said_files++)
			pf_warnx("--debug-dir: more than %d debug files: the frames of the others stay "
			    "[unknown]", DEBUG_FILES);
		return;
	}
	/* The user's tree, but a FIFO or a device there must not block or feed us. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1) {
		if (errno == ENOENT || errno == ENOTDIR)
			pf_warnx("%.*s: no debug file for build-id %s in %s (looked for %s)",
			    (int)b->pathlen, b->path, hex, opt.debug_dir, path);
		else
			pf_warn("%s", path);
		return;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		pf_warnx("%s: not a regular file: not used", path);
		close(fd);
		return;
	}
	(void)fcntl(fd, F_SETFL, 0);
	dd.opened++;
	if ((d->handle = pf_sym_debug_add(dd.sym, fd, path, d->id, d->idlen, got,
	    sizeof(got))) != -1)
		return;
	if (errno == ESTALE)
		pf_warnx("%s: build-id %s, not %s as recorded for %.*s: refused", path, got, hex,
		    (int)b->pathlen, b->path);
	else if (errno == ENODATA)
		pf_warnx("%s: no build-id note: refused", path);
	else if (errno == EINVAL)
		pf_warnx("%s: not an ELF file: refused", path);
	else
		pf_die(PF_EXIT_FAIL, "%s", path);
}

/* A name into dd.names as a stream writes names; its offset there. */
static size_t
debug_name(const char *name)
{
	size_t at = dd.names.len;

	if (pf_name_escape_str(&dd.names, name, 0) == -1 || pf_buf_putc(&dd.names, '\0') == -1)
		pf_die(PF_EXIT_FAIL, "memory");
	return at;
}

/* perfscript's unknown callback: the names of an [unknown] frame, or NULL. */
static const struct pf_ps_names *
debug_frame(const char *mod, size_t modlen, uint64_t addr, int retaddr, void *arg)
{
	struct pf_frame_out out;
	struct pf_htab_slot *sl;
	struct bid_key k;
	struct bidline *b;
	struct debugfile *d;
	size_t i, at;
	uint64_t va;

	(void)arg;
	if (dd.nlines == 0)
		return NULL;
	/* The module with its blanks as a line writes them. */
	pf_buf_reset(&dd.key);
	for (i = 0; i < modlen; i++)
		if ((mod[i] == ' ' ? pf_buf_puts(&dd.key, "\\x20") : pf_buf_putc(&dd.key, mod[i])) == -1)
			pf_die(PF_EXIT_FAIL, "memory");
	k = (struct bid_key){ dd.key.data, dd.key.len };
	sl = pf_htab_find(&dd.lindex, pf_hash(dd.key.data, dd.key.len), line_eq, &k);
	if (sl->idx == 0)
		return NULL;
	b = &dd.lines[sl->idx - 1];
	d = &dd.debugs[b->debug];
	if (b->ambiguous || !pf_buildid_vaddr(&b->id, addr, &va))
		return NULL;
	if (!d->tried)
		debug_open(b, d);
	if (d->handle == -1)
		return NULL;
	pf_sym_debug_frame(dd.sym, d->handle, va, retaddr != 0, &out);
	if (out.sym == NULL)
		return NULL;
	pf_buf_reset(&dd.names);
	if (out.ninl > dd.inlcap) {
		size_t c = dd.inlcap;

		/* Side by side: one capacity, and a failure is fatal. */
		if (pf_grow(&dd.inl, &c, out.ninl, sizeof(*dd.inl)) == -1 ||
		    pf_grow(&dd.inloff, &dd.inlcap, out.ninl, sizeof(*dd.inloff)) == -1)
			pf_die(PF_EXIT_FAIL, "memory");
	}
	/* Offsets first: the buffer may move while it grows. */
	for (i = 0; i < out.ninl; i++)
		dd.inloff[i] = debug_name(out.inl[i]);
	at = debug_name(out.sym);
	for (i = 0; i < out.ninl; i++)
		dd.inl[i] = dd.names.data + dd.inloff[i];
	dd.out.name = dd.names.data + at;
	dd.out.inl = dd.inl;
	dd.out.ninl = out.ninl;
	return &dd.out;
}

/*
 * A comment of a sample stream (perfscript's comment callback): a
 * recorder's header starts a recording; --pprof keeps the recorder's
 * lines as the profile's comments.
 */
/* The held comment was the latest recording's last line: take it. */
static void
take_trailer(struct state *st)
{
	if (st->trailer.len > 0 && st->nprov > 0)
		(void)pf_prov_note(&st->prov[st->nprov - 1], st->trailer.data, st->trailer.len);
	pf_buf_reset(&st->trailer);
}

static int
stream_comment(const char *l, size_t len, void *arg)
{
	struct state *st = arg;
	struct pf_prov p;

	if (pf_prov_header(&p, l, len)) {
		take_trailer(st);
		debug_reset();
		/* A version 2 stream's comms are escaped: one byte is a comm. */
		pf_ps_names_escaped(st->ps, p.version >= 2);
		if (pf_grow(&st->prov, &st->capprov, st->nprov + 1, sizeof(*st->prov)) == -1)
			pf_die(PF_EXIT_FAIL, "memory");
		st->prov[st->nprov++] = p;
		st->in_body = 0;
	} else if (st->nprov > 0 && !st->in_body) {
		(void)pf_prov_note(&st->prov[st->nprov - 1], l, len);
		/* Build-ids only from a recording's header, as every header line. */
		if (opt.debug_dir != NULL)
			debug_line(st, l, len);
	} else if (st->nprov > 0) {
		pf_buf_reset(&st->trailer);
		if (pf_buf_append(&st->trailer, l, len) == -1)
			pf_die(PF_EXIT_FAIL, "memory");
	}
	return st->pp != NULL ? pf_pprof_comment(st->pp, l, len) : 0;
}

/*
 * Input that is no text: perf.data itself (its magic), or any NUL byte
 * early on.  Said once, as what to do, instead of a warning per line.
 */
static void
check_binary(struct state *st, const char *l, size_t len)
{
	if (st->probed >= BINARY_PROBE)
		return;
	if (st->probed == 0 && len >= 8 &&
	    (memcmp(l, "PERFILE2", 8) == 0 || memcmp(l, "PERFFILE", 8) == 0))
		pf_diex(PF_EXIT_FAIL, "%s is perf.data: run perf script first "
		    "(perf script -i FILE | pf-fold)", st->file);
	if (memchr(l, '\0', len) != NULL)
		pf_diex(PF_EXIT_FAIL, "%s:%llu: binary input (a NUL byte): pf-fold reads text",
		    st->file, (unsigned long long)st->line);
	st->probed += len + 1;
}

static void
folded_line(struct state *st, const char *l, size_t len)
{
	struct pf_folded_line fl;
	const char *key;
	size_t klen;
	struct pf_prov p;

	if (!opt.diff && pf_prov_parse(&p, l, len)) {
		add_prov_line(st, &p);
		return;
	}
	switch (pf_folded_parse(l, len, &fl)) {
	case 0:
		break;
	case 1:
		return;	/* blank or a comment */
	default:
		malformed(st, errno == EDOM ? "count is not a whole number" :
		    errno == ERANGE ? "count out of range" : "no count or no stack");
		return;
	}
	key = fl.stack;
	klen = fl.stack_len;
	if (opt.diff) {
		if (fl.ncounts != 1) {
			malformed(st, "two counts in an input of --diff");
			return;
		}
		if (opt.strip_hex)
			key = strip_hex(&st->tmp, key, &klen);
		add_or_die(st, key, klen, st->column == 0 ? fl.count[0] : 0,
		    st->column == 1 ? fl.count[0] : 0);
		return;
	}
	if (st->ncounts == 0)
		st->ncounts = fl.ncounts;
	if (fl.ncounts != st->ncounts) {
		malformed(st, st->ncounts == 1 ? "two counts in a one-count input" :
		    "one count in a two-count input");
		return;
	}
	add_or_die(st, key, klen, fl.count[0], fl.ncounts == 2 ? fl.count[1] : 0);
}

static void
read_input(struct state *st, struct pf_perfscript *ps, const char *path)
{
	struct pf_linereader *lr;
	char *l;
	size_t len;
	int fd, r;

	if (strcmp(path, "-") == 0) {
		fd = STDIN_FILENO;
		st->file = "<stdin>";
	} else {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			pf_die(PF_EXIT_FAIL, "%s", path);
		st->file = path;
	}
	if ((lr = pf_lr_new(fd, st->file)) == NULL)
		pf_die(PF_EXIT_FAIL, "%s", st->file);
	st->probed = 0;
	st->data_lines = 0;
	if (ps != NULL)
		pf_ps_names_escaped(ps, 0);
	/* An input's frames are named by its own recordings' build-ids only. */
	debug_reset();
	while ((r = pf_lr_next(lr, &l, &len)) == 1) {
		st->line = pf_lr_lineno(lr);
		check_binary(st, l, len);
		if (ps == NULL) {
			folded_line(st, l, len);
			continue;
		}
		if (len > 0 && l[0] != '#' && strspn(l, " \t\r\v\f") < len) {
			/* Only the first data line is looked at again, below. */
			if (st->data_lines < 2)
				st->data_lines++;
			/* A comment that data follows is no trailer. */
			st->in_body = 1;
			pf_buf_reset(&st->trailer);
		}
		if (pf_ps_line(ps, l, len) == -1) {
			struct pf_folded_line fl;

			if (errno != EBADMSG)
				pf_die(PF_EXIT_FAIL, "%s:%llu", st->file,
				    (unsigned long long)st->line);
			/* Folded stacks already: no sample stream starts so. */
			if (st->data_lines == 1 && pf_folded_parse(l, len, &fl) == 0)
				pf_diex(PF_EXIT_FAIL, "%s:%llu: folded stacks, not a sample "
				    "stream: pf-fold --folded reads (and sums) these",
				    st->file, (unsigned long long)st->line);
			malformed(st, pf_ps_malformed(ps));
		}
	}
	if (r == -1) {
		if (errno == E2BIG)
			pf_diex(PF_EXIT_FAIL, "%s:%llu: line longer than %u bytes",
			    st->file, (unsigned long long)pf_lr_lineno(lr) + 1, PF_LR_MAX_LINE);
		pf_die(PF_EXIT_FAIL, "%s", st->file);
	}
	if (ps != NULL && pf_ps_finish(ps) == -1)
		pf_die(PF_EXIT_FAIL, "%s", st->file);
	pf_lr_free(lr);
	if (fd != STDIN_FILENO)
		close(fd);
}

/*
 * c * num / den, truncated, in *out; -1 when c * num does not fit in 128
 * bits or the result does not fit in 64.  (c <= den holds for a count and
 * its total, but the totals themselves may pass 2^64.)
 */
static int
scale_count(uint64_t c, unsigned __int128 num, unsigned __int128 den, uint64_t *out)
{
	unsigned __int128 r;

	if (c != 0 && num > ~(unsigned __int128)0 / c)
		return -1;
	r = (unsigned __int128)c * num / den;
	if (r > UINT64_MAX)
		return -1;
	*out = (uint64_t)r;
	return 0;
}

/*
 * Write the map sorted byte-wise: "stack C" or "stack C1 C2".  With
 * --normalize, C1 is scaled by total(C2)/total(C1) and truncated, as
 * difffolded.pl -n does; an empty BEFORE has nothing to scale.  Counts
 * too large to scale exactly are refused before anything is written,
 * never wrapped.
 */
static void
print_map(const struct pf_stackmap *m, int two, int scale)
{
	const struct pf_stackmap_entry **v;
	unsigned __int128 t1 = 0, t2 = 0;
	char num[48];
	size_t n, i;

	if ((v = pf_stackmap_sorted(m, &n)) == NULL)
		pf_die(PF_EXIT_FAIL, "memory");
	if (scale) {
		for (i = 0; i < n; i++) {
			t1 += v[i]->count[0];
			t2 += v[i]->count[1];
		}
		if (t1 == 0)
			scale = 0;
		for (i = 0; scale && i < n; i++) {
			uint64_t c0;

			if (scale_count(v[i]->count[0], t2, t1, &c0) == -1)
				pf_diex(PF_EXIT_FAIL, "--normalize: counts too large to scale "
				    "exactly: %.*s has %llu of a BEFORE total %.6Lg, AFTER total %.6Lg",
				    (int)(v[i]->len < 200 ? v[i]->len : 200), v[i]->key,
				    (unsigned long long)v[i]->count[0], (long double)t1,
				    (long double)t2);
		}
	}
	for (i = 0; i < n; i++) {
		uint64_t c0 = v[i]->count[0];
		int k;

		if (scale)
			(void)scale_count(c0, t2, t1, &c0);	/* checked above */
		if (two)
			k = snprintf(num, sizeof(num), " %llu %llu\n",
			    (unsigned long long)c0, (unsigned long long)v[i]->count[1]);
		else
			k = snprintf(num, sizeof(num), " %llu\n", (unsigned long long)c0);
		fwrite(v[i]->key, 1, v[i]->len, stdout);
		if (fwrite(num, 1, (size_t)k, stdout) != (size_t)k)
			break;
	}
	free(v);
}

/* The profile, uncompressed: pprof reads it as it is. */
static void
write_pprof(struct pf_pprof *pp, const struct pf_perfscript *ps)
{
	struct pf_buf out = { 0 };
	struct pf_ps_stats pst;

	pf_ps_get_stats(ps, &pst);
	if (pf_pprof_encode(pp, pst.event, &out) == -1)
		pf_die(PF_EXIT_FAIL, "--pprof");
	if (fflush(stdout) == EOF || pf_write_all(STDOUT_FILENO, out.data, out.len) == -1) {
		if (errno == EPIPE)
			exit(PF_EXIT_OK);
		pf_die(PF_EXIT_FAIL, "stdout");
	}
	pf_buf_free(&out);
	pf_pprof_free(pp);
}

static const struct option longopts[] = {
	{ "addrs", no_argument, NULL, OPT_ADDRS },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "diff", no_argument, NULL, OPT_DIFF },
	{ "event-filter", required_argument, NULL, OPT_EVENT_FILTER },
	{ "filter-comm", required_argument, NULL, OPT_FILTER_COMM },
	{ "filter-pid", required_argument, NULL, OPT_FILTER_PID },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "help", no_argument, NULL, 'h' },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "jit", no_argument, NULL, OPT_JIT },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "libc", no_argument, NULL, OPT_LIBC },
	{ "normalize", no_argument, NULL, OPT_NORMALIZE },
	{ "pid", no_argument, NULL, OPT_PID },
	{ "pprof", no_argument, NULL, OPT_PPROF },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "strip-hex", no_argument, NULL, OPT_STRIP_HEX },
	{ "tid", no_argument, NULL, OPT_TID },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 }
};

/* ':' first: a missing value comes back as ':', not '?' (pf_usage_getopt). */
static const char shortopts[] = ":h";

/*
 * The options into opt, each misuse a usage error (exit 2): the first
 * operand's index in argv.
 */
static int
parse_options(int argc, char *argv[])
{
	const char *const *ops;
	int c, nops;

	opterr = 0;	/* one line of our own, from pf_usage_getopt */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage();
			pf_exit_checked(PF_EXIT_OK);
		case OPT_ADDRS:
			opt.naming = "--addrs";
			opt.ps.include_addrs = opt.perf_only = 1;
			break;
		case OPT_ALL:
			opt.naming = "--all";
			opt.ps.annotate_kernel = opt.ps.annotate_jit = opt.perf_only = 1;
			break;
		case OPT_DEBUG_DIR:
			if (opt.debug_dir != NULL)
				pf_usage_error(synopsis, "--debug-dir: given twice");
			if (*optarg == '\0')
				pf_usage_error(synopsis, "--debug-dir: empty directory name");
			opt.debug_dir = optarg;
			opt.perf_only = 1;
			break;
		case OPT_DIFF:
			opt.diff = 1;
			break;
		case OPT_EVENT_FILTER:
			if (*optarg == '\0')
				pf_usage_error(synopsis, "--event-filter: empty event name");
			opt.ps.event_filter = optarg;
			opt.perf_only = 1;
			break;
		case OPT_FILTER_COMM:
			opt.ps.comm = optarg;
			opt.perf_only = 1;
			break;
		case OPT_FILTER_PID:
			parse_pids(optarg);
			opt.perf_only = 1;
			break;
		case OPT_FOLDED:
			opt.folded = 1;
			break;
		case OPT_INLINE:
			opt.naming = "--inline";
			opt.ps.annotate_inline = opt.perf_only = 1;
			break;
		case OPT_JIT:
			opt.naming = "--jit";
			opt.ps.annotate_jit = opt.perf_only = 1;
			break;
		case OPT_KERNEL:
			opt.naming = "--kernel";
			opt.ps.annotate_kernel = opt.perf_only = 1;
			break;
		case OPT_LIBC:
			opt.naming = "--libc";
			opt.ps.annotate_libc = opt.perf_only = 1;
			break;
		case OPT_NORMALIZE:
			opt.normalize = 1;
			break;
		case OPT_PID:
			opt.naming = "--pid";
			opt.ps.include_pid = opt.perf_only = 1;
			break;
		case OPT_PPROF:
			opt.pprof = 1;
			break;
		case OPT_STRICT:
			opt.strict = 1;
			break;
		case OPT_STRIP_HEX:
			opt.strip_hex = 1;
			break;
		case OPT_TID:
			opt.naming = "--tid";
			opt.ps.include_tid = opt.perf_only = 1;
			break;
		case OPT_TIME:
			parse_time(optarg);
			opt.perf_only = 1;
			break;
		case OPT_VERSION:
			pf_print_version();
		default:
			pf_usage_getopt(synopsis, shortopts, c, argv);
		}
	}
	ops = (const char *const *)(argv + optind);
	nops = argc - optind;
	if ((opt.folded || opt.diff) && opt.perf_only)
		pf_usage_error(synopsis, "%s reads folded stacks: sample-stream options do not apply",
		    opt.diff ? "--diff" : "--folded");
	if (opt.pprof && (opt.folded || opt.diff))
		pf_usage_error(synopsis, "--pprof reads a sample stream, not folded stacks");
	if (opt.pprof && opt.naming != NULL)
		pf_usage_error(synopsis, "--pprof: %s shapes folded names; a profile keeps "
		    "pid, tid and comm as labels and frames as they are", opt.naming);
	if (opt.pprof && isatty(STDOUT_FILENO))
		pf_usage_error(synopsis, "--pprof: the profile is binary: redirect it to a file");
	if ((opt.normalize || opt.strip_hex) && !opt.diff)
		pf_usage_error(synopsis, "%s: only with --diff",
		    opt.normalize ? "--normalize" : "--strip-hex");
	if (opt.diff && nops != 2)
		pf_usage_error(synopsis, "--diff: want two files, BEFORE and AFTER");
	if (opt.diff && strcmp(ops[0], "-") == 0 && strcmp(ops[1], "-") == 0)
		pf_usage_error(synopsis, "--diff: BEFORE and AFTER cannot both be stdin");
	return optind;
}

int
main(int argc, char *argv[])
{
	static const char *const stdin_only[] = { "-", NULL };
	struct state st = { 0 };
	struct pf_perfscript *ps = NULL;
	const char *const *inputs;
	int first, i, ninputs;

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	first = parse_options(argc, argv);
	inputs = (const char *const *)(argv + first);
	ninputs = argc - first;
	if (ninputs == 0) {
		inputs = stdin_only;
		ninputs = 1;
	}

	if ((st.map = pf_stackmap_new()) == NULL)
		pf_die(PF_EXIT_FAIL, "memory");
	/* --pprof: perfscript reads the stream, each sample with its frames, for the builder. */
	opt.ps.keep_frames = opt.pprof;
	if (!opt.folded && !opt.diff) {
		if ((ps = pf_ps_new(&opt.ps, emit_sample, &st)) == NULL)
			pf_die(PF_EXIT_FAIL, "memory");
		pf_ps_on_comment(ps, stream_comment);
		st.ps = ps;
		if (opt.debug_dir != NULL) {
			debug_init();
			pf_ps_on_unknown(ps, debug_frame);
		}
	}
	if (opt.pprof && (st.pp = pf_pprof_new()) == NULL)
		pf_die(PF_EXIT_FAIL, "memory");
	for (i = 0; i < ninputs; i++) {
		st.column = i;
		read_input(&st, ps, inputs[i]);
	}
	if (st.malformed > MAX_WARNINGS)
		pf_warnx("%llu malformed lines ignored, %llu of them not shown",
		    (unsigned long long)st.malformed,
		    (unsigned long long)(st.malformed - MAX_WARNINGS));
	if (ps != NULL) {
		struct pf_ps_stats pst;

		pf_ps_get_stats(ps, &pst);
		/* Text, but nothing of a sample stream in it: say so, not "done". */
		if (pst.events == 0 && st.malformed > 0)
			pf_diex(PF_EXIT_FAIL, "no sample stream in the input: none of its %llu "
			    "unrecognized lines is an event line of perf script text (perf report "
			    "output? run perf script)", (unsigned long long)st.malformed);
		if (pst.event_defaulted && pst.other_events > 0)
			pf_warnx("note: kept only events of type '%s', the first seen; "
			    "%llu samples of other events left out (--event-filter chooses)",
			    pst.event, (unsigned long long)pst.other_events);
	}
	take_trailer(&st);
	if (st.pp != NULL)
		write_pprof(st.pp, ps);
	else {
		for (i = 0; i < (int)st.nprov; i++)
			add_prov_line(&st, &st.prov[i]);
		/*
		 * No stack, no provenance: an empty output stays empty, which is
		 * how a script tells that there is no graph to draw.
		 */
		if (st.provout.len > 0 && pf_stackmap_size(st.map) > 0)
			fwrite(st.provout.data, 1, st.provout.len, stdout);
		print_map(st.map, opt.diff || st.ncounts == 2, opt.normalize);
	}
	pf_ps_free(ps);
	debug_free();
	pf_stackmap_free(st.map);
	pf_buf_free(&st.tmp);
	pf_buf_free(&st.provout);
	pf_buf_free(&st.trailer);
	free(st.prov);
	free(opt.pids);
	pf_exit_checked(PF_EXIT_OK);
}
