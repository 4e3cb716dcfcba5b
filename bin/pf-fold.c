/*
 * pf-fold: collapse sample streams (`perf script` text, or pf-record's and
 * pf-offcpu's output, which is the same text) into folded stacks,
 * "root;...;leaf COUNT", sorted byte-wise with identical stacks summed.
 * Option for option it does what stackcollapse-perf.pl does, with the
 * improvements listed in the man page; it also filters by pid, comm and
 * time, sums folded files (--folded) and makes a two-count differential
 * from two folded files (--diff).  Input is streamed: memory grows with the
 * number of unique stacks, never with the size of the input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fileio.h"
#include "folded.h"
#include "linereader.h"
#include "msg.h"
#include "parse.h"
#include "perfscript.h"
#include "pf.h"
#include "pprof.h"
#include "provenance.h"
#include "stackmap.h"

#define MAX_WARNINGS 10
#define BINARY_PROBE (64 * 1024)	/* bytes of each input looked at for NULs */

static const char synopsis[] =
    "usage: pf-fold [--pid | --tid] [--kernel] [--jit] [--all] [--inline] [--libc]\n"
    "               [--addrs] [--event-filter EVENT] [--filter-pid PID[,PID...]]\n"
    "               [--filter-comm NAME] [--time START,END] [--strict] [FILE ...]\n"
    "       pf-fold --pprof [--event-filter EVENT] [--filter-pid PID[,PID...]]\n"
    "               [--filter-comm NAME] [--time START,END] [--strict] [FILE ...]\n"
    "       pf-fold --folded [--strict] [FILE ...]\n"
    "       pf-fold --diff [--normalize] [--strip-hex] [--strict] BEFORE AFTER\n";

enum {
	OPT_ADDRS = 256, OPT_ALL, OPT_DIFF, OPT_EVENT_FILTER, OPT_FILTER_COMM,
	OPT_FILTER_PID, OPT_FOLDED, OPT_INLINE, OPT_JIT, OPT_KERNEL, OPT_LIBC, OPT_NORMALIZE, OPT_PID, OPT_PPROF,
	OPT_STRICT, OPT_STRIP_HEX, OPT_TID, OPT_TIME, OPT_VERSION
};

static struct options {
	struct ps_config ps;
	uint64_t *pids;
	int folded;
	int diff;
	int normalize;
	int strip_hex;
	int strict;
	int perf_only;		/* an option that only means something for sample streams */
	int pprof;
	const char *naming;	/* an option that shapes folded names, which --pprof has not */
} opt = {
	.ps = { .time_end_ns = UINT64_MAX },
};

/* What reading all inputs leaves behind. */
struct state {
	struct stackmap *map;
	struct perfscript *ps;	/* NULL with --folded and --diff */
	uint64_t malformed;
	int ncounts;		/* --folded: 1 or 2 once the first line decided it */
	int column;		/* --diff: 0 reading BEFORE, 1 reading AFTER */
	struct pf_buf tmp;
	struct pprof *pp;	/* --pprof: the profile, fed every sample and comment */
	const char *file;	/* for messages */
	uint64_t line;
	uint64_t data_lines;	/* of this input, neither blank nor a comment, up to 2 */
	size_t probed;		/* bytes of this input checked for binary */
	/* The recordings read (a sample stream) or their lines (--folded). */
	struct pf_prov *prov;
	size_t nprov;
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
	if (stackmap_add(st->map, key, len, c0, c1) == -1) {
		if (errno == EOVERFLOW)
			pf_diex(PF_EXIT_FAIL, "%s:%llu: count overflows 64 bits",
			    st->file, (unsigned long long)st->line);
		pf_die(PF_EXIT_FAIL, "%s", st->file);
	}
}

static int
emit_sample(const struct ps_sample *s, void *arg)
{
	struct state *st = arg;

	if (st->pp != NULL) {
		if (pprof_add_sample(st->pp, s) == -1) {
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
		struct pf_prov *v;

		take_trailer(st);
		/* A version 2 stream's comms are escaped: one byte is a comm. */
		ps_names_escaped(st->ps, p.version >= 2);
		if ((v = reallocarray(st->prov, st->nprov + 1, sizeof(*v))) == NULL)
			pf_die(PF_EXIT_FAIL, "memory");
		v[st->nprov++] = p;
		st->prov = v;
		st->in_body = 0;
	} else if (st->nprov > 0 && !st->in_body) {
		(void)pf_prov_note(&st->prov[st->nprov - 1], l, len);
	} else if (st->nprov > 0) {
		pf_buf_reset(&st->trailer);
		if (pf_buf_append(&st->trailer, l, len) == -1)
			pf_die(PF_EXIT_FAIL, "memory");
	}
	return st->pp != NULL ? pprof_comment(st->pp, l, len) : 0;
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
	struct folded_line fl;
	const char *key;
	size_t klen;
	struct pf_prov p;

	if (!opt.diff && pf_prov_parse(&p, l, len)) {
		add_prov_line(st, &p);
		return;
	}
	switch (folded_parse(l, len, &fl)) {
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
read_input(struct state *st, struct perfscript *ps, const char *path)
{
	struct linereader *lr;
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
	if ((lr = lr_new(fd, st->file)) == NULL)
		pf_die(PF_EXIT_FAIL, "%s", st->file);
	st->probed = 0;
	st->data_lines = 0;
	if (ps != NULL)
		ps_names_escaped(ps, 0);
	while ((r = lr_next(lr, &l, &len)) == 1) {
		st->line = lr_lineno(lr);
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
		if (ps_line(ps, l, len) == -1) {
			struct folded_line fl;

			if (errno != EBADMSG)
				pf_die(PF_EXIT_FAIL, "%s:%llu", st->file,
				    (unsigned long long)st->line);
			/* Folded stacks already: no sample stream starts so. */
			if (st->data_lines == 1 && folded_parse(l, len, &fl) == 0)
				pf_diex(PF_EXIT_FAIL, "%s:%llu: folded stacks, not a sample "
				    "stream: pf-fold --folded reads (and sums) these",
				    st->file, (unsigned long long)st->line);
			malformed(st, ps_malformed(ps));
		}
	}
	if (r == -1) {
		if (errno == E2BIG)
			pf_diex(PF_EXIT_FAIL, "%s:%llu: line longer than %u bytes",
			    st->file, (unsigned long long)lr_lineno(lr) + 1, LR_MAX_LINE);
		pf_die(PF_EXIT_FAIL, "%s", st->file);
	}
	if (ps != NULL && ps_finish(ps) == -1)
		pf_die(PF_EXIT_FAIL, "%s", st->file);
	lr_free(lr);
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
print_map(const struct stackmap *m, int two, int scale)
{
	const struct stackmap_entry **v;
	unsigned __int128 t1 = 0, t2 = 0;
	char num[48];
	size_t n, i;

	if ((v = stackmap_sorted(m, &n)) == NULL)
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
write_pprof(struct pprof *pp, const struct perfscript *ps)
{
	struct pf_buf out = { 0 };
	struct ps_stats pst;

	ps_get_stats(ps, &pst);
	if (pprof_encode(pp, pst.event, &out) == -1)
		pf_die(PF_EXIT_FAIL, "--pprof");
	if (fflush(stdout) == EOF || pf_write_all(STDOUT_FILENO, out.data, out.len) == -1) {
		if (errno == EPIPE)
			exit(PF_EXIT_OK);
		pf_die(PF_EXIT_FAIL, "stdout");
	}
	pf_buf_free(&out);
	pprof_free(pp);
}

static const struct option longopts[] = {
	{ "addrs", no_argument, NULL, OPT_ADDRS },
	{ "all", no_argument, NULL, OPT_ALL },
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
	struct perfscript *ps = NULL;
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

	if ((st.map = stackmap_new()) == NULL)
		pf_die(PF_EXIT_FAIL, "memory");
	/* --pprof: perfscript reads the stream, each sample with its frames, for the builder. */
	opt.ps.keep_frames = opt.pprof;
	if (!opt.folded && !opt.diff) {
		if ((ps = ps_new(&opt.ps, emit_sample, &st)) == NULL)
			pf_die(PF_EXIT_FAIL, "memory");
		ps_on_comment(ps, stream_comment);
		st.ps = ps;
	}
	if (opt.pprof && (st.pp = pprof_new()) == NULL)
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
		struct ps_stats pst;

		ps_get_stats(ps, &pst);
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
		if (st.provout.len > 0 && stackmap_size(st.map) > 0)
			fwrite(st.provout.data, 1, st.provout.len, stdout);
		print_map(st.map, opt.diff || st.ncounts == 2, opt.normalize);
	}
	ps_free(ps);
	stackmap_free(st.map);
	pf_buf_free(&st.tmp);
	pf_buf_free(&st.provout);
	pf_buf_free(&st.trailer);
	free(st.prov);
	free(opt.pids);
	pf_exit_checked(PF_EXIT_OK);
}
