/*
 * test-common: table-driven checks of lib/common, one group per module,
 * run by tests/bats/lib-common.bats as "test-common GROUP".  Each failed
 * check prints what it expected and what it got; the exit status is the
 * number of failures (capped), so a crash or a wrong value fails the test.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "addrsearch.h"
#include "buf.h"
#include "buildid.h"
#include "classify.h"
#include "comms.h"
#include "demangle.h"
#include "fileio.h"
#include "folded.h"
#include "fsfree.h"
#include "grow.h"
#include "hash.h"
#include "htab.h"
#include "intern.h"
#include "jitmap.h"
#include "kallsyms.h"
#include "linereader.h"
#include "outfile.h"
#include "parse.h"
#include "procmaps.h"
#include "perfscript.h"
#include "pf.h"
#include "pprof.h"
#include "privs.h"
#include "procstat.h"
#include "provenance.h"
#include "spawn.h"
#include "stackmap.h"
#include "symbolize.h"
#include "sysctl.h"
#include "xmlesc.h"

#include "pbread.h"
#include "unit.h"


/*
 * The -p option's words, the same in every tool that takes a list, and
 * the repeats of a list dropped in place.
 */
static void
test_pid_arg(void)
{
	static const struct {
		const char *s, *why;
		size_t n;
	} t[] = {
		{ "12", NULL, 1 },
		{ "12,34,56", NULL, 3 },
		{ "", "-p: no pid given", 0 },
		{ "1,,2", "-p: empty field in '1,,2'", 0 },
		{ "1,", "-p: empty field in '1,'", 0 },
		{ "1,x", "-p: invalid pid 'x'", 0 },
		{ "0", "-p: invalid pid '0'", 0 },
		{ "1,2,3,4", "-p: more than 3 pids", 0 },
	};
	pid_t out[3], rep[] = { 7, 3, 7, 7, 9, 3 };
	char why[64];
	size_t k, n;
	int rc;

	for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		strcpy(why, "?");
		rc = pf_parse_pid_arg(t[k].s, out, 3, &n, why, sizeof(why));
		if (t[k].why == NULL)
			CHECK(rc == 0 && n == t[k].n && strcmp(why, "?") == 0,
			    "-p %s: rc %d, %zu pids", t[k].s, rc, n);
		else
			CHECK(rc == -1 && strcmp(why, t[k].why) == 0, "-p '%s': rc %d, '%s'",
			    t[k].s, rc, why);
	}
	n = pf_pid_list_unique(rep, 6);
	CHECK(n == 3 && rep[0] == 7 && rep[1] == 3 && rep[2] == 9,
	    "repeats dropped, first places kept: %zu: %d %d %d", n, (int)rep[0], (int)rep[1],
	    (int)rep[2]);
	CHECK(pf_pid_list_unique(rep, 0) == 0, "an empty list stays empty");
}

/* One rule for every tool's pid list: each field a pid, none empty. */
static void
test_pid_list(void)
{
	static const struct {
		const char *s;
		int rc, err;
		size_t n;
		pid_t first, last;
		const char *bad;
	} t[] = {
		{ "1", 0, 0, 1, 1, 1, NULL },
		{ "12,34", 0, 0, 2, 12, 34, NULL },
		{ "2147483647", 0, 0, 1, 2147483647, 2147483647, NULL },
		{ "1,2,3,4", -1, E2BIG, 3, 1, 3, NULL },
		{ "1,,2", -1, EINVAL, 1, 1, 1, "" },
		{ "1,", -1, EINVAL, 1, 1, 1, "" },
		{ ",1", -1, EINVAL, 0, 0, 0, "" },
		{ "", -1, EINVAL, 0, 0, 0, "" },
		{ ",", -1, EINVAL, 0, 0, 0, "" },
		{ "0", -1, EINVAL, 0, 0, 0, "0" },
		{ "12,x", -1, EINVAL, 1, 12, 12, "x" },
		{ "-1", -1, EINVAL, 0, 0, 0, "-1" },
		{ "1 ,2", -1, EINVAL, 0, 0, 0, "1 " },
		{ "2147483648", -1, EINVAL, 0, 0, 0, "2147483648" },
		{ "123456789012345678901234567890", -1, EINVAL, 0, 0, 0,
		    "12345678901234567890123" },
	};
	pid_t out[3];
	char bad[32];
	size_t k, n;

	for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		int rc;

		memset(out, 0, sizeof(out));
		strcpy(bad, "?");
		errno = 0;
		rc = pf_parse_pid_list(t[k].s, 1, out, 3, &n, bad, sizeof(bad));
		CHECK(rc == t[k].rc, "pid list '%s': rc %d", t[k].s, rc);
		if (rc == -1)
			CHECK(errno == t[k].err, "pid list '%s': errno %d", t[k].s, errno);
		CHECK(n == t[k].n, "pid list '%s': %zu pids", t[k].s, n);
		if (n > 0)
			CHECK(out[0] == t[k].first && out[n - 1] == t[k].last,
			    "pid list '%s': %d..%d", t[k].s, (int)out[0], (int)out[n - 1]);
		if (t[k].bad)
			CHECK(strcmp(bad, t[k].bad) == 0, "pid list '%s': bad '%s'", t[k].s, bad);
	}
	/* pf-fold filters on pid 0 too (the idle task's samples). */
	CHECK(pf_parse_pid_list("0,7", 0, out, 3, &n, bad, sizeof(bad)) == 0 && n == 2 &&
	    out[0] == 0 && out[1] == 7, "pid list with min 0");
	test_pid_arg();
}

/* The span parsers: the one overflow rule of every reader's numbers. */
static void
test_spans(void)
{
	static const struct {
		const char *s;
		int hex;
		size_t used;	/* digits taken; 0: refused */
		int err;
		uint64_t v;
	} t[] = {
		{ "18446744073709551615", 0, 20, 0, UINT64_MAX },
		{ "18446744073709551616", 0, 0, ERANGE, 0 },
		{ "99999999999999999999", 0, 0, ERANGE, 0 },
		{ "000000000000000000000018446744073709551615", 0, 42, 0, UINT64_MAX },
		{ "0", 0, 1, 0, 0 },
		{ "12 34", 0, 2, 0, 12 },
		{ "7x", 0, 1, 0, 7 },
		{ "", 0, 0, EINVAL, 0 },
		{ " 1", 0, 0, EINVAL, 0 },
		{ "-1", 0, 0, EINVAL, 0 },
		{ "+1", 0, 0, EINVAL, 0 },
		{ "a1", 0, 0, EINVAL, 0 },
		{ "ffffffffffffffff", 1, 16, 0, UINT64_MAX },
		{ "FFFFFFFFFFFFFFFF", 1, 16, 0, UINT64_MAX },
		{ "10000000000000000", 1, 0, ERANGE, 0 },
		{ "1ffffffff81000000", 1, 0, ERANGE, 0 },
		{ "00000000000000000001", 1, 20, 0, 1 },
		{ "DeadBeef-", 1, 8, 0, 0xdeadbeef },
		{ "0x10", 1, 1, 0, 0 },
		{ "", 1, 0, EINVAL, 0 },
		{ " a", 1, 0, EINVAL, 0 },
		{ "g", 1, 0, EINVAL, 0 },
		{ "-f", 1, 0, EINVAL, 0 },
	};
	static const char dec[] = "12345", hex[] = "abcdef", max[] = "184467440737095516150";
	const char *e;
	uint64_t v;
	size_t k, n;
	int rc;

	for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		n = strlen(t[k].s);
		v = 12345;
		errno = 0;
		e = t[k].hex ? pf_span_x64(t[k].s, t[k].s + n, &v) : pf_span_u64(t[k].s, t[k].s + n, &v);
		if (t[k].used == 0) {
			CHECK(e == NULL && errno == t[k].err && v == 12345,
			    "span '%s': not refused with %d (errno %d, out %llx)", t[k].s, t[k].err,
			    errno, (unsigned long long)v);
		} else {
			CHECK(e == t[k].s + t[k].used && v == t[k].v, "span '%s': %llx, %td used",
			    t[k].s, (unsigned long long)v, e ? e - t[k].s : -1);
		}
		/* The whole-span forms: only a span of digits alone. */
		v = 12345;
		rc = t[k].hex ? pf_parse_x64_span(t[k].s, t[k].s + n, &v) :
		    pf_parse_u64_span(t[k].s, t[k].s + n, &v);
		if (t[k].used == n && n > 0)
			CHECK(rc == 0 && v == t[k].v, "whole '%s': rc %d", t[k].s, rc);
		else
			CHECK(rc == -1 && (errno == (t[k].err ? t[k].err : EINVAL)) && v == 12345,
			    "whole '%s': rc %d errno %d", t[k].s, rc, errno);
	}
	/* The end bounds the span: no byte past it is read. */
	CHECK(pf_span_u64(dec, dec + 2, &v) == dec + 2 && v == 12, "end bounds decimal");
	CHECK(pf_span_x64(hex, hex + 3, &v) == hex + 3 && v == 0xabc, "end bounds hex");
	CHECK(pf_span_u64(max, max + 20, &v) == max + 20 && v == UINT64_MAX,
	    "max, the digit past end unread");
}

static void
test_parse(void)
{
	static const struct { const char *s; int rc; int err; uint64_t v; } u64[] = {
		{ "0", 0, 0, 0 }, { "99", 0, 0, 99 }, { "999", 0, 0, 999 },
		{ "1000", -1, ERANGE, 0 }, { "", -1, EINVAL, 0 }, { "abc", -1, EINVAL, 0 },
		{ "12abc", -1, EINVAL, 0 }, { " 1", -1, EINVAL, 0 }, { "-1", -1, EINVAL, 0 },
		{ "+1", -1, EINVAL, 0 }, { "1 ", -1, EINVAL, 0 },
		{ "99999999999999999999999", -1, ERANGE, 0 },
	};
	static const struct { const char *s; int rc; uint64_t v; } sizes[] = {
		{ "64M", 0, 64ULL << 20 }, { "1G", 0, 1ULL << 30 }, { "512k", 0, 512ULL << 10 },
		{ "4096", 0, 4096 }, { "1GiB", 0, 1ULL << 30 }, { "10MB", 0, 10ULL << 20 },
		{ "2T", 0, 2ULL << 40 }, { "100B", 0, 100 }, { "1X", -1, 0 }, { "M", -1, 0 },
		{ "1.5G", -1, 0 }, { "-1M", -1, 0 }, { "1Gx", -1, 0 },
		{ "17179869184G", -1, 0 },
	};
	static const struct { const char *s; int rc; uint64_t ns; } durs[] = {
		{ "15", 0, 15000000000ULL }, { "15s", 0, 15000000000ULL },
		{ "1.5s", 0, 1500000000ULL }, { "250ms", 0, 250000000ULL },
		{ "2m", 0, 120000000000ULL }, { "10us", 0, 10000ULL }, { "1h", 0, 3600000000000ULL },
		{ "15x", -1, 0 }, { "s", -1, 0 }, { "-1s", -1, 0 }, { "1.s", -1, 0 },
		{ "", -1, 0 }, { "1e3", -1, 0 },
	};
	uint64_t v;
	int64_t i;
	double d, pct;
	size_t k;

	for (k = 0; k < sizeof(u64) / sizeof(u64[0]); k++) {
		v = 12345;
		errno = 0;
		int rc = pf_parse_u64(u64[k].s, 0, 999, &v);
		CHECK(rc == u64[k].rc, "u64 '%s': rc %d", u64[k].s, rc);
		if (rc == 0)
			CHECK(v == u64[k].v, "u64 '%s': %llu", u64[k].s, (unsigned long long)v);
		else
			CHECK(errno == u64[k].err && v == 12345, "u64 '%s': errno %d, out touched", u64[k].s, errno);
	}
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		int rc = pf_parse_size(sizes[k].s, 0, UINT64_MAX, &v);
		CHECK(rc == sizes[k].rc, "size '%s': rc %d", sizes[k].s, rc);
		if (rc == 0)
			CHECK(v == sizes[k].v, "size '%s': %llu", sizes[k].s, (unsigned long long)v);
	}
	CHECK(pf_parse_size("2G", 0, 1ULL << 30, &v) == -1 && errno == ERANGE, "size above max");
	for (k = 0; k < sizeof(durs) / sizeof(durs[0]); k++) {
		int rc = pf_parse_duration(durs[k].s, 1000000000ULL, 0, UINT64_MAX / 2, &v);
		CHECK(rc == durs[k].rc, "duration '%s': rc %d", durs[k].s, rc);
		if (rc == 0)
			CHECK(v == durs[k].ns, "duration '%s': %llu", durs[k].s, (unsigned long long)v);
	}
	CHECK(pf_parse_duration("121", 1000000000ULL, 1000000000ULL, 120000000000ULL, &v) == -1 &&
	    errno == ERANGE, "duration above ceiling");
	CHECK(pf_parse_i64("-1", -1, 4, &i) == 0 && i == -1, "i64 -1");
	CHECK(pf_parse_i64("-2", -1, 4, &i) == -1 && errno == ERANGE, "i64 below min");
	CHECK(pf_parse_i64("-9223372036854775808", INT64_MIN, INT64_MAX, &i) == 0 &&
	    i == INT64_MIN, "i64 min");
	CHECK(pf_parse_i64("9223372036854775808", INT64_MIN, INT64_MAX, &i) == -1, "i64 overflow");
	CHECK(pf_parse_double("0.5", 0, 1, &d) == 0 && d == 0.5, "double 0.5");
	CHECK(pf_parse_double("nan", 0, 1, &d) == -1, "double nan");
	CHECK(pf_parse_double("1e3", 0, 1e6, &d) == -1, "double exponent");
	CHECK(pf_parse_size_or_percent("5%", &v, &pct) == 0 && pct == 5 && v == 0, "5%%");
	CHECK(pf_parse_size_or_percent("0.5%", &v, &pct) == 0 && pct == 0.5, "0.5%%");
	CHECK(pf_parse_size_or_percent("1G", &v, &pct) == 0 && pct < 0 && v == 1ULL << 30, "1G");
	CHECK(pf_parse_size_or_percent("101%", &v, &pct) == -1, "101%%");
	CHECK(pf_parse_size_or_percent("%", &v, &pct) == -1, "bare %%");
	test_spans();
	test_pid_list();
}

static void
test_folded(void)
{
	static const struct {
		const char *line; int rc; const char *stack; int n; uint64_t c0, c1; int err;
	} cases[] = {
		{ "a;b;c 10", 0, "a;b;c", 1, 10, 0, 0 },
		{ "a;b;c\t10", 0, "a;b;c", 1, 10, 0, 0 },
		{ "a;b 10 20", 0, "a;b", 2, 10, 20, 0 },
		{ "a b;c d 7", 0, "a b;c d", 1, 7, 0, 0 },
		{ "a;b 10\r", 0, "a;b", 1, 10, 0, 0 },
		{ "a;b  10  ", 0, "a;b", 1, 10, 0, 0 },
		{ "12 5", 0, "12", 1, 5, 0, 0 },
		{ "a;b", -1, NULL, 0, 0, 0, EINVAL },
		{ "a;b -5", -1, NULL, 0, 0, 0, EINVAL },
		{ "a;b 1.5", -1, NULL, 0, 0, 0, EDOM },
		{ "a;b 5x", -1, NULL, 0, 0, 0, EINVAL },
		{ "a;b5", -1, NULL, 0, 0, 0, EINVAL },
		{ "5", -1, NULL, 0, 0, 0, EINVAL },
		{ "   7", -1, NULL, 0, 0, 0, EINVAL },
		{ "a 99999999999999999999999", -1, NULL, 0, 0, 0, ERANGE },
		{ "", 1, NULL, 0, 0, 0, 0 },
		{ "   ", 1, NULL, 0, 0, 0, 0 },
		{ "# comment 5", 1, NULL, 0, 0, 0, 0 },
	};
	struct pf_folded_line fl;
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		errno = 0;
		int rc = pf_folded_parse(cases[k].line, strlen(cases[k].line), &fl);
		CHECK(rc == cases[k].rc, "folded '%s': rc %d", cases[k].line, rc);
		if (rc == 0 && cases[k].rc == 0) {
			CHECK(fl.stack_len == strlen(cases[k].stack) &&
			    memcmp(fl.stack, cases[k].stack, fl.stack_len) == 0,
			    "folded '%s': stack '%.*s'", cases[k].line, (int)fl.stack_len, fl.stack);
			CHECK(fl.ncounts == cases[k].n && fl.count[0] == cases[k].c0 &&
			    fl.count[1] == cases[k].c1, "folded '%s': counts %d %llu %llu",
			    cases[k].line, fl.ncounts, (unsigned long long)fl.count[0],
			    (unsigned long long)fl.count[1]);
		}
		if (rc == -1 && cases[k].rc == -1)
			CHECK(errno == cases[k].err, "folded '%s': errno %d want %d",
			    cases[k].line, errno, cases[k].err);
	}
}

static void
test_stackmap(void)
{
	struct pf_stackmap *m = pf_stackmap_new();
	const struct pf_stackmap_entry **v, *e;
	size_t n, k;
	char key[32];

	CHECK(m != NULL, "pf_stackmap_new");
	CHECK(pf_stackmap_add(m, "b;c", 3, 2, 0) == 0, "add");
	CHECK(pf_stackmap_add(m, "a", 1, 1, 5) == 0, "add");
	CHECK(pf_stackmap_add(m, "b;c", 3, 3, 1) == 0, "add again");
	CHECK(pf_stackmap_add(m, "a;", 2, 1, 0) == 0, "add");
	CHECK(pf_stackmap_size(m) == 3, "size %zu", pf_stackmap_size(m));
	e = pf_stackmap_get(m, "b;c", 3);
	CHECK(e && e->count[0] == 5 && e->count[1] == 1, "summed counts");
	CHECK(pf_stackmap_get(m, "b", 1) == NULL, "absent key");
	CHECK(pf_stackmap_add(m, "a", 1, UINT64_MAX, 0) == -1 && errno == EOVERFLOW, "overflow");
	CHECK(pf_stackmap_get(m, "a", 1)->count[0] == 1, "unchanged after overflow");
	/* Enough keys to force several rehashes. */
	int bulk_ok = 1;
	for (k = 0; k < 50000; k++) {
		int len = snprintf(key, sizeof(key), "k%zu", k);
		if (pf_stackmap_add(m, key, (size_t)len, k, 0) != 0)
			bulk_ok = 0;
	}
	CHECK(bulk_ok, "bulk add");
	CHECK(pf_stackmap_size(m) == 50003, "bulk size %zu", pf_stackmap_size(m));
	e = pf_stackmap_get(m, "k4242", 5);
	CHECK(e && e->count[0] == 4242, "bulk lookup");
	v = pf_stackmap_sorted(m, &n);
	CHECK(v && n == 50003, "sorted");
	CHECK(strcmp(v[0]->key, "a") == 0 && strcmp(v[1]->key, "a;") == 0 &&
	    strcmp(v[2]->key, "b;c") == 0, "byte order: %s %s %s", v[0]->key, v[1]->key, v[2]->key);
	for (k = 1; v && k < n; k++)
		if (strcmp(v[k - 1]->key, v[k]->key) >= 0) {
			CHECK(0, "not sorted at %zu", k);
			break;
		}
	free(v);
	pf_stackmap_free(m);
	pf_stackmap_free(NULL);
}

static void
test_linereader(void)
{
	char path[] = "/tmp/pf-unit-lr-XXXXXX";
	int fd = mkstemp(path);
	struct pf_linereader *lr;
	char *line, *big;
	size_t len, bigl = 3u << 20;

	CHECK(fd != -1, "mkstemp");
	big = malloc(bigl);
	memset(big, 'x', bigl);
	CHECK(write(fd, "one\n\ntwo\r\n", 10) == 10, "write");
	CHECK(write(fd, big, bigl) == (ssize_t)bigl, "write big");
	CHECK(write(fd, "\nlast", 5) == 5, "write last");
	lseek(fd, 0, SEEK_SET);
	lr = pf_lr_new(fd, "unit");
	CHECK(pf_lr_next(lr, &line, &len) == 1 && len == 3 && strcmp(line, "one") == 0, "line 1");
	CHECK(pf_lr_next(lr, &line, &len) == 1 && len == 0, "empty line");
	CHECK(pf_lr_next(lr, &line, &len) == 1 && len == 4 && strcmp(line, "two\r") == 0, "cr kept");
	CHECK(pf_lr_next(lr, &line, &len) == 1 && len == bigl && line[bigl - 1] == 'x', "3 MiB line");
	CHECK(pf_lr_next(lr, &line, &len) == 1 && strcmp(line, "last") == 0, "last line without newline");
	CHECK(pf_lr_lineno(lr) == 5, "lineno %llu", (unsigned long long)pf_lr_lineno(lr));
	CHECK(pf_lr_next(lr, &line, &len) == 0, "eof");
	CHECK(strcmp(pf_lr_name(lr), "unit") == 0, "name");
	pf_lr_free(lr);
	pf_lr_free(NULL);
	free(big);
	close(fd);
	unlink(path);
}

/* Whether dir holds a leftover temporary output file. */
static int
tmp_left(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		n += strncmp(de->d_name, PF_OUTFILE_TMP_PREFIX, strlen(PF_OUTFILE_TMP_PREFIX)) == 0;
	closedir(d);
	return n;
}

static void
test_outfile(void)
{
	char dir[] = "/tmp/pf-unit-of-XXXXXX", p[256], l[256], h[256], f[256], buf[8];
	struct pf_outfile of;
	struct stat st;
	int fd;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(p, sizeof(p), "%s/out", dir);
	snprintf(l, sizeof(l), "%s/link", dir);
	snprintf(h, sizeof(h), "%s/hard", dir);
	snprintf(f, sizeof(f), "%s/fifo", dir);
	CHECK(pf_outfile_open(&of, p, false) == 0, "create");
	CHECK(fstat(of.fd, &st) == 0 && (st.st_mode & 0777) == 0600, "mode 0600");
	CHECK(lstat(p, &st) == -1 && errno == ENOENT, "no name before publishing");
	CHECK(write(of.fd, "abc", 3) == 3, "write");
	CHECK(pf_outfile_publish(&of) == 0, "publish");
	CHECK(pf_outfile_close(&of) == 0, "close");
	pf_outfile_discard(&of);
	CHECK(stat(p, &st) == 0 && st.st_size == 3, "published under its name");
	CHECK(tmp_left(dir) == 0, "no temporary file left after publishing");
	CHECK(pf_outfile_open(&of, p, false) == -1 && errno == EEXIST, "no overwrite without force");
	/* Discarded with force: the old file is as it was. */
	CHECK(link(p, h) == 0, "hard link");
	CHECK(pf_outfile_open(&of, p, true) == 0, "force");
	CHECK(write(of.fd, "xy", 2) == 2, "write the new one");
	pf_outfile_discard(&of);
	CHECK(stat(p, &st) == 0 && st.st_size == 3, "a discarded start leaves the old file");
	CHECK(tmp_left(dir) == 0, "no temporary file left after discarding");
	/* Published with force: the name is replaced, the hard link keeps the old content. */
	CHECK(pf_outfile_open(&of, p, true) == 0, "force again");
	CHECK(write(of.fd, "xy", 2) == 2, "write the new one");
	CHECK(pf_outfile_publish(&of) == 0, "publish over");
	pf_outfile_discard(&of);
	CHECK(stat(p, &st) == 0 && st.st_size == 2, "replaced");
	fd = open(h, O_RDONLY);
	CHECK(fd != -1 && read(fd, buf, sizeof(buf)) == 3 && memcmp(buf, "abc", 3) == 0,
	    "the hard link keeps the old content");
	close(fd);
	/* A name that appears before publishing is not replaced without force. */
	CHECK(pf_outfile_open(&of, l, false) == 0, "create beside");
	fd = open(l, O_WRONLY | O_CREAT | O_EXCL, 0600);
	close(fd);
	CHECK(pf_outfile_publish(&of) == -1 && errno == EEXIST, "a name made meanwhile is kept");
	pf_outfile_discard(&of);
	CHECK(tmp_left(dir) == 0, "no temporary file left after a refused publish");
	unlink(l);
	CHECK(symlink(p, l) == 0, "symlink");
	CHECK(pf_outfile_open(&of, l, false) == -1 && errno == EEXIST, "symlink refused");
	CHECK(pf_outfile_open(&of, l, true) == -1 && errno == ELOOP, "symlink refused with force");
	CHECK(pf_outfile_open(&of, dir, true) == -1 && errno == EISDIR, "directory refused");
	CHECK(mkfifo(f, 0600) == 0, "mkfifo");
	CHECK(pf_outfile_open(&of, f, true) == -1 && errno == EINVAL, "FIFO refused, not opened");
	CHECK(strcmp(pf_outfile_kind(f), "a FIFO") == 0, "FIFO named");
	CHECK(tmp_left(dir) == 0, "no temporary file left after a refusal");
	unlink(f);
	unlink(l);
	unlink(h);
	unlink(p);
	rmdir(dir);
}

static void
test_privs(void)
{
	struct pf_caps none = { 0 }, perfmon = { 0 }, syslog = { 0 };
	char dir[] = "/tmp/pf-unit-pr-XXXXXX", p[256];
	long v;
	FILE *f;

	perfmon.perfmon = 1;
	syslog.syslog = 1;
	CHECK(pf_may_sample_user(2, &none) && !pf_may_sample_user(3, &none), "user rule");
	CHECK(pf_may_sample_user(4, &perfmon), "user with CAP_PERFMON");
	CHECK(pf_may_sample_kernel(1, &none) && !pf_may_sample_kernel(2, &none), "kernel rule");
	CHECK(pf_may_sample_kernel(2, &perfmon), "kernel with CAP_PERFMON");
	CHECK(pf_may_sample_cpu(0, &none) && !pf_may_sample_cpu(1, &none), "cpu rule");
	CHECK(pf_kallsyms_visible(0, 1, &none) && !pf_kallsyms_visible(0, 2, &none), "kallsyms 0");
	CHECK(pf_kallsyms_visible(1, 2, &syslog) && !pf_kallsyms_visible(1, 1, &none), "kallsyms 1");
	CHECK(!pf_kallsyms_visible(2, -1, &syslog), "kallsyms 2");
	CHECK(pf_min_free(10ULL << 30, 0, -1) == 1ULL << 30, "floor: 1G beats 5%% of 10G");
	CHECK(pf_min_free(100ULL << 30, 0, -1) == 5ULL << 30, "floor: 5%% of 100G");
	CHECK(pf_min_free(100ULL << 30, 0, 10) == 10ULL << 30, "floor: 10%%");
	CHECK(pf_min_free(100ULL << 30, 42, -1) == 42, "floor: bytes");
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(p, sizeof(p), "%s/sys", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/sys/kernel", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/sys/kernel/perf_event_paranoid", dir);
	f = fopen(p, "w");
	fputs("-1\n", f);
	fclose(f);
	CHECK(pf_sysctl_long(dir, "sys/kernel/perf_event_paranoid", &v) == 0 && v == -1, "sysctl -1");
	f = fopen(p, "w");
	fputs("junk\n", f);
	fclose(f);
	CHECK(pf_sysctl_long(dir, "sys/kernel/perf_event_paranoid", &v) == -1 && errno == EINVAL, "sysctl junk");
	CHECK(pf_sysctl_long(dir, "sys/kernel/nope", &v) == -1 && errno == ENOENT, "sysctl missing");
	unlink(p);
	snprintf(p, sizeof(p), "%s/sys/kernel", dir);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/sys", dir);
	rmdir(p);
	rmdir(dir);
}

static void
test_buf(void)
{
	struct pf_buf b = { 0 };
	int k;

	CHECK(pf_buf_puts(&b, "ab") == 0 && b.len == 2, "puts");
	CHECK(pf_buf_putc(&b, 'c') == 0 && strcmp(b.data, "abc") == 0, "putc");
	CHECK(pf_buf_put_u64(&b, 0) == 0 && pf_buf_put_u64(&b, UINT64_MAX) == 0 &&
	    strcmp(b.data, "abc018446744073709551615") == 0, "u64: %s", b.data);
	pf_buf_reset(&b);
	CHECK(b.len == 0 && b.data[0] == '\0', "reset");
	for (k = 0; k < 100000; k++)
		pf_buf_printf(&b, "%d;", k % 10);
	CHECK(b.len == 200000 && b.data[b.len] == '\0', "grow");
	pf_buf_free(&b);
	CHECK(b.data == NULL && b.len == 0, "free");

	char small[8];
	CHECK(pf_read_small("/proc/self/stat", small, sizeof(small)) == 7 &&
	    small[7] == '\0', "read_small truncates to cap - 1: '%s'", small);
	CHECK(pf_read_small("/nonexistent/pf", small, sizeof(small)) == -1 &&
	    errno == ENOENT, "read_small missing file");
	CHECK(pf_read_small("/proc/self/stat", small, 0) == -1 && errno == EINVAL,
	    "read_small cap 0");
}

/*
 * The growable array: the capacity rule alone (the sizes past SIZE_MAX
 * cannot be allocated to see them), then growth through realloc.
 */
static void
test_grow(void)
{
	static const struct {
		size_t cap, need, size, want;
	} t[] = {
		{ 0, 1, 8, PF_GROW_MIN },		/* from empty: the minimum */
		{ 0, 0, 8, 0 },				/* nothing asked, nothing given */
		{ 16, 16, 8, 16 },			/* room already */
		{ 40, 3, 8, 40 },			/* never shrinks */
		{ 16, 17, 8, 32 },			/* doubles */
		{ 24, 25, 4, 48 },			/* from any capacity */
		{ 0, 1000, 4, 1024 },			/* doubles until it holds need */
		{ 5, 6, 1, 16 },			/* below the minimum: the minimum */
		{ (size_t)1 << 62, ((size_t)1 << 62) + 1, 1, (size_t)1 << 63 },
		/* Doubling would pass SIZE_MAX bytes: as many as fit. */
		{ (size_t)1 << 63, ((size_t)1 << 63) + 1, 1, SIZE_MAX },
		{ (size_t)1 << 60, ((size_t)1 << 60) + 1, 8, SIZE_MAX / 8 },
		{ 0, 1, SIZE_MAX / 2, 2 },		/* the minimum too is cut */
		{ 0, 1, SIZE_MAX, 1 },
		/* need elements are more than SIZE_MAX bytes. */
		{ 0, 3, SIZE_MAX / 2, 0 },
		{ 0, 2, SIZE_MAX, 0 },
		{ 0, SIZE_MAX / 8 + 1, 8, 0 },
		{ 7, 1, 0, 0 },				/* no size */
	};
	size_t k, cap, got, was;
	int *v = NULL, *keep;
	char *p, *p0;
	int rc;
	bool ok;

	for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		got = pf_grow_cap(t[k].cap, t[k].need, t[k].size);
		CHECK(got == t[k].want, "cap %zu need %zu size %zu: %zu, want %zu", t[k].cap,
		    t[k].need, t[k].size, got, t[k].want);
	}

	/* From empty, one at a time: never below need, contents kept. */
	cap = 0;
	CHECK(pf_grow(&v, &cap, 0, sizeof(*v)) == 0 && v == NULL && cap == 0,
	    "nothing asked of an empty array: %zu", cap);
	ok = true;
	for (k = 0; k < 100000; k++) {
		was = cap;
		if (pf_grow(&v, &cap, k + 1, sizeof(*v)) == -1 || cap < k + 1 ||
		    (cap != was && cap != (was ? 2 * was : PF_GROW_MIN))) {
			ok = false;
			break;
		}
		v[k] = (int)k;
	}
	CHECK(ok && cap == 131072, "appends: at %zu, capacity %zu", k, cap);
	for (k = 0; ok && k < 100000; k++)
		ok = v[k] == (int)k;
	CHECK(ok, "contents kept through growth: element %zu", k);
	keep = v;
	CHECK(pf_grow(&v, &cap, 131072, sizeof(*v)) == 0 && v == keep && cap == 131072,
	    "room already: nothing moves");
	CHECK(pf_grow(&v, &cap, 300000, sizeof(*v)) == 0 && cap == 524288 &&
	    v[99999] == 99999, "a jump: %zu", cap);

	/* Refused: the array and the capacity as they were. */
	keep = v;
	errno = 0;
	rc = pf_grow(&v, &cap, (size_t)3 << 62, 4);
	CHECK(rc == -1 && errno == EOVERFLOW && v == keep && cap == 524288 && v[7] == 7,
	    "need x size past SIZE_MAX: rc %d, %s, capacity %zu", rc, strerror(errno), cap);
	free(v);

	if ((p0 = p = malloc(2)) == NULL) {
		CHECK(0, "malloc");
		return;
	}
	p[0] = 'a';
	p[1] = 'b';
	cap = 2;
	errno = 0;
	rc = pf_grow(&p, &cap, 3, SIZE_MAX / 2);
	CHECK(rc == -1 && errno == EOVERFLOW && p == p0 && cap == 2 && memcmp(p, "ab", 2) == 0,
	    "3 of SIZE_MAX / 2: rc %d, %s, capacity %zu", rc, strerror(errno), cap);
	errno = 0;
	rc = pf_grow(&p, &cap, 3, 0);
	CHECK(rc == -1 && errno == EINVAL && cap == 2, "size 0: rc %d, %s", rc,
	    strerror(errno));
#ifndef __SANITIZE_ADDRESS__
	/* ASan's allocator aborts on a request this large instead of failing it. */
	errno = 0;
	rc = pf_grow(&p, &cap, 3, SIZE_MAX / 4);
	CHECK(rc == -1 && errno == ENOMEM && p == p0 && cap == 2 && memcmp(p, "ab", 2) == 0,
	    "realloc refused: rc %d, %s, capacity %zu", rc, strerror(errno), cap);
#endif
	free(p);
}

static void
test_addrsearch(void)
{
	static const struct { uint32_t pad; uint64_t start; } r[] = {
		{ 0, 10 }, { 0, 20 }, { 0, 20 }, { 0, 30 }, { 0, UINT64_MAX },
	};
	static const struct { uint64_t addr; size_t want; } cases[] = {
		{ 0, SIZE_MAX }, { 9, SIZE_MAX }, { 10, 0 }, { 19, 0 },
		{ 20, 2 },		/* the last of equal starts */
		{ 29, 2 }, { 30, 3 }, { UINT64_MAX - 1, 3 }, { UINT64_MAX, 4 },
	};
	size_t k, got;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		got = PF_ADDR_FLOOR(r, sizeof(r) / sizeof(r[0]), start, cases[k].addr);
		CHECK(got == cases[k].want, "floor(%llu) = %zu, want %zu",
		    (unsigned long long)cases[k].addr, got, cases[k].want);
	}
	CHECK(PF_ADDR_FLOOR(r, 0, start, 50) == SIZE_MAX, "empty array");
	CHECK(PF_ADDR_FLOOR(r, 1, start, 50) == 0, "one element");
}

static uint64_t htab_keys[20000];

static bool
htab_key_eq(const void *arg, size_t idx)
{
	return htab_keys[idx] == *(const uint64_t *)arg;
}

static void
test_htab(void)
{
	struct pf_htab t;
	struct pf_htab_slot *s;
	size_t k, n = 0, bad = 0;
	uint64_t key, saved = pf_hash_seed, h1[2], h2[2];

	/* The hash is keyed: which names and addresses collide follows the seed. */
	pf_hash_seed = 1;
	h1[0] = pf_hash("frame_name", 10);
	h1[1] = pf_hash_u64(0x401000);
	pf_hash_seed = 2;
	h2[0] = pf_hash("frame_name", 10);
	h2[1] = pf_hash_u64(0x401000);
	pf_hash_seed = saved;
	CHECK(h1[0] != h2[0] && h1[1] != h2[1], "the seed changes both hashes");
	CHECK(pf_hash("frame_name", 10) == pf_hash("frame_name", 10), "one seed, one hash");

	CHECK(pf_htab_init(&t, 10) == 0 && t.nslots == 16, "init rounds up to 16");
	/* Every key hashes alike for the first 100: collisions probe on. */
	for (k = 0; k < 20000; k++) {
		key = k * 7919;
		s = pf_htab_find(&t, k < 100 ? 42 : pf_hash_u64(key), htab_key_eq, &key);
		if (s->idx != 0)
			bad++;
		if (pf_htab_reserve(&t) == 1)
			s = pf_htab_find(&t, k < 100 ? 42 : pf_hash_u64(key), htab_key_eq, &key);
		htab_keys[n] = key;
		pf_htab_set(&t, s, k < 100 ? 42 : pf_hash_u64(key), n++);
	}
	CHECK(bad == 0, "%zu new keys found before insertion", bad);
	CHECK(t.n == 20000 && t.n * 4 <= t.nslots * 3, "load %zu/%zu", t.n, t.nslots);
	for (k = 0, bad = 0; k < 20000; k++) {
		key = k * 7919;
		s = pf_htab_find(&t, k < 100 ? 42 : pf_hash_u64(key), htab_key_eq, &key);
		if (s->idx != k + 1)
			bad++;
	}
	CHECK(bad == 0, "%zu keys not found at their entry", bad);
	key = 1;
	CHECK(pf_htab_find(&t, pf_hash_u64(key), htab_key_eq, &key)->idx == 0, "absent key");
	pf_htab_free(&t);
	CHECK(t.slots == NULL && t.n == 0, "free");
}

/*
 * The interning table: keys of any bytes numbered in order of first
 * sight and given back whole, through colliding hashes and growth; a
 * key past the most it may hold refused, the table left as it was.
 */
static void
test_intern(void)
{
	static const struct {
		const char *key;
		size_t len;
		uint32_t want;	/* number, in order of first sight */
		int added;
	} c[] = {
		{ "", 0, 0, 1 },
		{ "main", 4, 1, 1 },
		{ "mai", 3, 2, 1 },		/* a prefix is another key */
		{ "main", 4, 1, 0 },
		{ "a\0b", 3, 3, 1 },		/* a NUL inside a key */
		{ "a", 1, 4, 1 },
		{ "a\0c", 3, 5, 1 },
		{ "", 0, 0, 0 },
		{ "x;y\n", 4, 6, 1 },
		{ "a\0b", 3, 3, 0 },
	};
	struct pf_intern t;
	char key[32];
	const char *p;
	size_t k, len, bad = 0, badkey = 0;
	uint32_t id, n;
	int r;

	CHECK(pf_intern_hash("frame", 5) == (uint32_t)pf_hash("frame", 5),
	    "the hash is pf_hash's low 32 bits");
	CHECK(pf_intern_init(&t, 10) == 0 && t.mask == 31, "init: 10 keys, 32 slots");
	for (k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		id = UINT32_MAX;
		r = pf_intern_add(&t, c[k].key, c[k].len, &id);
		CHECK(r == c[k].added && id == c[k].want, "case %zu: %d, number %u, "
		    "want %d, %u", k, r, id, c[k].added, c[k].want);
		p = pf_intern_key(&t, id, &len);
		CHECK(len == c[k].len && memcmp(p, c[k].key, len) == 0 &&
		    pf_intern_len(&t, id) == len, "case %zu: the key given back", k);
	}
	CHECK(pf_intern_count(&t) == 7, "7 keys, not %u", pf_intern_count(&t));
	/*
	 * 20,000 more, the first 100 all of one hash: they probe past each
	 * other and must stay apart, and the table grows through them.
	 */
	for (k = 0; k < 20000; k++) {
		len = (size_t)snprintf(key, sizeof(key), "f%zu", k);
		r = pf_intern_add_hashed(&t, key, len, k < 100 ? 42 : pf_intern_hash(key, len), &id);
		if (r != 1 || id != 7 + k)
			bad++;
	}
	CHECK(bad == 0, "%zu keys not added in order", bad);
	CHECK(pf_intern_count(&t) == 20007 && (size_t)t.n * 2 <= (size_t)t.mask + 1,
	    "%u keys in %u slots: at most half full", t.n, t.mask + 1);
	for (k = 0, bad = 0; k < 20000; k++) {
		len = (size_t)snprintf(key, sizeof(key), "f%zu", k);
		r = pf_intern_add_hashed(&t, key, len, k < 100 ? 42 : pf_intern_hash(key, len), &id);
		if (r != 0 || id != 7 + k)
			bad++;
		p = pf_intern_key(&t, (uint32_t)(7 + k), &len);
		if (len != strlen(key) || memcmp(p, key, len) != 0)
			badkey++;
	}
	CHECK(bad == 0, "%zu keys not found again at their number", bad);
	CHECK(badkey == 0, "%zu keys not given back whole after growth", badkey);
	CHECK(pf_intern_add(&t, "main", 4, &id) == 0 && id == 1, "an early key after growth");
	/* Full: a new key is refused, a key held is still found. */
	n = t.n;
	t.n = PF_INTERN_MAX;
	errno = 0;
	id = 99;
	CHECK(pf_intern_add(&t, "new", 3, &id) == -1 && errno == ENOMEM && id == 99,
	    "a key past PF_INTERN_MAX: ENOMEM");
	t.n = n;
	CHECK(pf_intern_count(&t) == 20007 && pf_intern_add(&t, "new", 3, &id) == 1 &&
	    id == 20007, "the refused key added once there is room");
	CHECK(pf_intern_add(&t, "x;y\n", 4, &id) == 0 && id == 6, "a key held");
	pf_intern_free(&t);
	CHECK(t.slots == NULL && t.off == NULL && t.n == 0 && t.pool.data == NULL, "free");
	CHECK(pf_intern_init(&t, (size_t)PF_INTERN_MAX + 1) == -1 && errno == ENOMEM,
	    "room for more than PF_INTERN_MAX keys refused");
}

/* Each thread is put in the state it spent most of the interval in. */
static void
test_classify_thread(void)
{
	static const struct {
		const char *what;
		int want;
		struct pf_cls_thread in;
	} t[] = {
		{ "spinner", PF_THR_RUNNING, { .on = 0.9, .rq = 0.1, .woke = true } },
		{ "queued", PF_THR_RUNNABLE, { .on = 0.3, .rq = 0.6, .woke = true } },
		{ "fsync", PF_THR_DISK, { .on = 0.05, .rq = 0.1, .io = 0.6, .woke = true } },
		{ "mutex waiter", PF_THR_LOCK, { .on = 0.01, .rq = 0.1, .lock = true, .woke = true } },
		{ "sleeper", PF_THR_SLEEP, { .on = 0.001, .rq = 0.3, .woke = true } },
		{ "blocked on a lock throughout", PF_THR_LOCK, { .lock = true } },
		{ "asleep throughout", PF_THR_IDLE, { .woke = false } },
		{ "in D throughout", PF_THR_DISK, { .io = 1 } },
		{ "ties go to running", PF_THR_RUNNING, { .on = 0.5, .rq = 0.5, .woke = true } },
	};
	size_t k;
	int got;

	for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		got = pf_cls_thread_state(&t[k].in);
		CHECK(got == t[k].want, "thread %s: %s, want %s", t[k].what,
		    pf_cls_thread_names[got], pf_cls_thread_names[t[k].want]);
	}
}

static void
test_classify(void)
{
	/* Figures left out are 0: a quiet box, PSI available and at 0 %. */
	static const struct {
		const char *what, *want, *next;
		struct pf_cls_system in;
	} sys[] = {
		{ "idle", "IDLE", "none", { .busy = 1, .idle = 99, .ncpu = 4 } },
		{ "steal first", "STARVED_STEAL", "none",
		  { .box.steal = 10, .box.oom_kills = 1, .busy = 95, .runq = 9, .ncpu = 4 } },
		{ "steal below 10", "ON_CPU_USER", "pf-record -a",
		  { .box.steal = 9.99, .busy = 80, .ncpu = 4 } },
		{ "oom kill", "MEMORY", "none", { .box.oom_kills = 1, .busy = 95, .ncpu = 4 } },
		{ "memory full", "MEMORY", "none", { .box.psi_full = { 0, 0, 5 }, .ncpu = 4 } },
		{ "io some", "IO_WAIT", "pf-classify -p PID", { .box.psi_some = { 0, 20, 0 }, .ncpu = 4 } },
		{ "iowait and blocked", "IO_WAIT", "pf-classify -p PID",
		  { .iowait = 10, .blocked = 1, .busy = 20, .ncpu = 4 } },
		{ "iowait alone", "LOW_UTILISATION", "pf-classify -p PID",
		  { .iowait = 10, .blocked = 0.5, .busy = 20, .ncpu = 4 } },
		{ "saturated", "CPU_SATURATED", "pf-record -a", { .runq = 5, .busy = 90, .ncpu = 4 } },
		{ "psi cpu saturated", "CPU_SATURATED", "pf-record -a",
		  { .box.psi_some = { 20, 0, 0 }, .busy = 95, .ncpu = 4 } },
		{ "constrained", "CPU_CONSTRAINED", "pf-record -a",
		  { .runq = 5, .busy = 60, .idle = 20, .ncpu = 4 } },
		{ "kernel", "ON_CPU_KERNEL", "pf-record -a", { .busy = 70, .sys = 20, .ncpu = 4 } },
		{ "irq", "ON_CPU_KERNEL", "pf-record -a", { .busy = 70, .irq_soft = 20, .ncpu = 4 } },
		{ "hot cpu", "ON_CPU_USER", "pf-record -a", { .busy = 30, .hot_busy = 90, .ncpu = 4 } },
		{ "low", "LOW_UTILISATION", "pf-classify -p PID", { .busy = 5, .ncpu = 4 } },
		{ "idle but queued", "LOW_UTILISATION", "pf-classify -p PID",
		  { .busy = 1, .runq = 1, .ncpu = 4 } },
	};
	static const struct {
		const char *what, *want, *next;
		bool competing;
		struct pf_cls_pid in;
	} pid[] = {
		{ "steal first", "STARVED_STEAL", "none", false,
		  { .box.steal = 10, .util = 0.9, .throttled_ratio = 1, .wait_share = 1,
		    .runnable_share = 0.5 } },
		/* One steal rule, for a process that wants a CPU; one that waits is waiting. */
		{ "steal, mostly waiting", "OFF_CPU", "pf-offcpu -p", false,
		  { .box.steal = 30, .throttled_ratio = -1, .on_cpu = 0.04, .util = 0.02,
		    .runnable = 0.1, .runnable_share = 0.49, .have_cs = true, .switches_s = 200 } },
		{ "throttled", "STARVED_THROTTLED", "pf-record -p", false,
		  { .throttled_ratio = 0.2, .wait_share = 0.1, .box.oom_kills = 1 } },
		{ "throttled without waiting", "MEMORY", "none", false,
		  { .throttled_ratio = 0.5, .wait_share = 0.05, .box.oom_kills = 1 } },
		{ "memory some", "MEMORY", "none", false,
		  { .throttled_ratio = -1, .box.psi_some = { 0, 0, 20 }, .d_state = 0.5 } },
		{ "io delay", "IO_WAIT", "pf-offcpu -p", false,
		  { .throttled_ratio = -1, .io_share = 0.2, .util = 0.9 } },
		{ "d state", "IO_WAIT", "pf-offcpu -p", false, { .throttled_ratio = -1, .d_state = 0.2 } },
		{ "oversubscribed", "CPU_BOUND_OVERSUBSCRIBED", "pf-record -p", false,
		  { .throttled_ratio = -1, .wait_share = 0.2, .runq_wait = 0.05,
		    .threads_active = 5, .cpus = 4, .util = 0.9, .runnable = 4.5,
		    .runnable_share = 0.9 } },
		{ "oversubscribed, competing", "CPU_BOUND_OVERSUBSCRIBED", "pf-record -p", true,
		  { .throttled_ratio = -1, .wait_share = 0.2, .runq_wait = 0.05,
		    .threads_active = 5, .cpus = 4, .util = 0.5, .runnable = 4.1,
		    .runnable_share = 0.82 } },
		/* More threads ran than it has CPUs, but fewer wanted one at once. */
		{ "many threads, few runnable", "STARVED_CPU", "pf-record -a", false,
		  { .throttled_ratio = -1, .wait_share = 0.5, .runq_wait = 0.5,
		    .threads_active = 5, .cpus = 4, .util = 0.3, .runnable = 3,
		    .runnable_share = 0.6 } },
		/* One thread cannot queue behind itself, whatever the rounding. */
		{ "one thread, runnable over 1", "STARVED_CPU", "pf-record -a", false,
		  { .throttled_ratio = -1, .wait_share = 0.54, .runq_wait = 0.63,
		    .threads_active = 1, .cpus = 1, .util = 0.53, .on_cpu = 0.53,
		    .runnable = 1.16, .runnable_share = 1.16 } },
		/* Others hold the CPUs it queues for: starved, not oversubscribed. */
		{ "runnable threads, little CPU", "STARVED_CPU", "pf-record -a", false,
		  { .throttled_ratio = -1, .wait_share = 0.9, .runq_wait = 2.7,
		    .threads_active = 4, .cpus = 2, .util = 0.1, .on_cpu = 0.2,
		    .runnable = 2.9, .runnable_share = 0.73 } },
		{ "starved", "STARVED_CPU", "pf-record -a", false,
		  { .throttled_ratio = -1, .wait_share = 0.2, .runq_wait = 0.05,
		    .threads_active = 2, .cpus = 4, .util = 0.5, .runnable = 1.3,
		    .runnable_share = 0.65 } },
		/*
		 * A sleeper woken late on busy CPUs: the old rule (wait share
		 * and run-queue wait, util low) made it STARVED_CPU.
		 */
		{ "sleeper under contention", "OFF_CPU", "pf-offcpu -p", true,
		  { .throttled_ratio = -1, .wait_share = 0.99, .runq_wait = 0.25,
		    .threads_active = 1, .cpus = 2, .util = 0.001, .on_cpu = 0.001,
		    .runnable = 0.25, .runnable_share = 0.25, .have_cs = true,
		    .switches_s = 40 } },
		/*
		 * The drill: a service at 4 % whose threads wait in fsync and on
		 * a mutex, with more active threads than CPUs and others keeping
		 * the CPUs busy (was CPU_BOUND_OVERSUBSCRIBED).
		 */
		{ "waiting service under contention", "OFF_CPU", "pf-offcpu -p", true,
		  { .throttled_ratio = -1, .wait_share = 0.96, .runq_wait = 1.1,
		    .d_state = 0.05, .threads_active = 4, .cpus = 2, .util = 0.02,
		    .on_cpu = 0.04, .runnable = 1.14, .runnable_share = 0.28,
		    .have_cs = true, .switches_s = 3000 } },
		{ "on cpu user", "ON_CPU_USER", "pf-record -p", false,
		  { .throttled_ratio = -1, .util = 0.7, .sysshare = 0.49 } },
		{ "on cpu kernel", "ON_CPU_KERNEL", "pf-record -p", false,
		  { .throttled_ratio = -1, .util = 0.7, .sysshare = 0.5 } },
		{ "mixed", "MIXED", "pf-record -p", false, { .throttled_ratio = -1, .util = 0.3 } },
		{ "idle", "IDLE", "none", false,
		  { .throttled_ratio = -1, .on_cpu = 0.01, .have_cs = true, .switches_s = 9 } },
		{ "idle, switches unknown", "IDLE", "none", false,
		  { .throttled_ratio = -1, .on_cpu = 0.01, .switches_s = 500 } },
		/* Stopped by a signal or a tracer: was IDLE, advice about the load. */
		{ "stopped", "STOPPED", "none", false,
		  { .throttled_ratio = -1, .t_state = 1, .have_cs = true } },
		{ "half stopped, throttled", "STOPPED", "none", false,
		  { .throttled_ratio = 0.5, .wait_share = 0.5, .t_state = 0.5 } },
		{ "a stop now and then", "IDLE", "none", false,
		  { .throttled_ratio = -1, .t_state = 0.4, .on_cpu = 0.01 } },
		{ "off cpu: switching", "OFF_CPU", "pf-offcpu -p", false,
		  { .throttled_ratio = -1, .on_cpu = 0.01, .have_cs = true, .switches_s = 10 } },
		{ "off cpu: some cpu", "OFF_CPU", "pf-offcpu -p", false,
		  { .throttled_ratio = -1, .on_cpu = 0.02, .util = 0.2 } },
	};
	struct pf_cls_verdict v;
	size_t k;

	for (k = 0; k < sizeof(sys) / sizeof(sys[0]); k++) {
		pf_classify_system(&sys[k].in, &v);
		CHECK(strcmp(v.cls, sys[k].want) == 0 && strcmp(v.next, sys[k].next) == 0,
		    "system %s: %s / %s, want %s / %s", sys[k].what, v.cls, v.next,
		    sys[k].want, sys[k].next);
	}
	for (k = 0; k < sizeof(pid) / sizeof(pid[0]); k++) {
		pf_classify_pid(&pid[k].in, &v);
		CHECK(strcmp(v.cls, pid[k].want) == 0 && strcmp(v.next, pid[k].next) == 0 &&
		    v.competing_load == pid[k].competing,
		    "pid %s: %s / %s / competing %d, want %s / %s / %d", pid[k].what, v.cls,
		    v.next, v.competing_load, pid[k].want, pid[k].next, pid[k].competing);
		/*
		 * A verdict about other processes also asks for the process's
		 * own profile; every other names one profile.
		 */
		if (strcmp(v.cls, "STARVED_CPU") == 0)
			CHECK(v.also != NULL && strcmp(v.also, "pf-record -p") == 0,
			    "pid %s: also %s, want pf-record -p", pid[k].what,
			    v.also ? v.also : "(none)");
		else
			CHECK(v.also == NULL, "pid %s: %s also %s", pid[k].what, v.cls, v.also);
	}
	for (k = 0; k < sizeof(sys) / sizeof(sys[0]); k++) {
		pf_classify_system(&sys[k].in, &v);
		CHECK(v.also == NULL, "system %s: also %s", sys[k].what, v.also);
	}
	/* Hints: a steal verdict names the hypervisor in both modes. */
	pf_classify_system(&sys[1].in, &v);
	CHECK(v.hint && strstr(v.hint, "hypervisor"), "system steal hint");
	pf_classify_pid(&pid[0].in, &v);
	CHECK(v.hint && strstr(v.hint, "hypervisor"), "pid steal hint");
	test_classify_thread();
}

/*
 * Names cleaned for a terminal: what is not UTF-8 and every control
 * becomes '?', a byte each, or one for a whole C1 sequence.
 */
static void
test_nameclean(void)
{
	static const struct {
		const char *in;
		size_t len;
		const char *out;
	} t[] = {
#define T(in, out) { in, sizeof(in) - 1, out }
		T("", ""),
		T("main", "main"),
		T("ns::W<double>::spin", "ns::W<double>::spin"),
		T("a\x1b[2Jb", "a?[2Jb"),			/* ESC: a CSI that clears */
		T("\x1b]0;owned\x07x", "?]0;owned?x"),		/* OSC, BEL */
		T("a\nb\tc\rd", "a?b?c?d"),
		T("a\0b", "a?b"),				/* NUL inside */
		T("del\x7f", "del?"),
		T("\xc2\x9b" "c1", "?c1"),			/* U+009B, one '?' */
		T("\xc2\x85", "?"),				/* U+0085 NEL */
		T("\xc2\xa0nbsp", "\xc2\xa0nbsp"),		/* U+00A0 is no control */
		T("caf\xc3\xa9", "caf\xc3\xa9"),
		T("\xf0\x9f\x94\xa5", "\xf0\x9f\x94\xa5"),	/* U+1F525 */
		T("\xef\xbf\xbf", "\xef\xbf\xbf"),		/* U+FFFF: a character, not a control */
		T("bad\xff\xfe", "bad??"),
		T("\xc0\xaf", "??"),				/* overlong '/' */
		T("\xe0\x80\xaf", "???"),			/* overlong, three bytes */
		T("\xed\xa0\x80", "???"),			/* surrogate */
		T("\xf4\x90\x80\x80", "????"),			/* past U+10FFFF */
		T("\xf8\x88\x80\x80\x80", "?????"),		/* five-byte form */
		T("x\xe2\x82", "x??"),				/* cut at the end */
		T("\xe2\x82x", "??x"),				/* cut inside */
		T("\x80\xbf", "??"),				/* lone continuation bytes */
#undef T
	};
	char buf[64], *big;
	size_t i, n, q, bigl = 100000;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memcpy(buf, t[i].in, t[i].len);
		n = pf_name_clean(buf, t[i].len);
		CHECK(n == strlen(t[i].out) && memcmp(buf, t[i].out, n) == 0,
		    "case %zu: got %zu bytes \"%.*s\", want \"%s\"", i, n, (int)n, buf, t[i].out);
		CHECK(n <= t[i].len, "case %zu: never longer", i);
	}
	/* A long name: cleaned in place through its whole length. */
	if ((big = malloc(bigl)) == NULL) {
		CHECK(0, "malloc");
		return;
	}
	for (i = 0; i < bigl; i++)
		big[i] = i % 1000 == 999 ? '\x1b' : 'n';
	n = pf_name_clean(big, bigl);
	for (i = 0, q = 0; i < n; i++)
		q += big[i] == '?';
	CHECK(n == bigl && q == bigl / 1000 && big[999] == '?' && big[bigl - 1] == '?' &&
	    big[0] == 'n', "long name: %zu bytes, %zu '?'", n, q);
	free(big);
}

static void
test_nameescape(void)
{
	static const struct { const char *in; int flags; const char *out; } t[] = {
		{ "main", 0, "main" },
		{ "ns::W<double>::spin(int, char const*)", 0, "ns::W<double>::spin(int, char const*)" },
		{ "/usr/lib/x (deleted)", 0, "/usr/lib/x (deleted)" },
		{ "a\nb", 0, "a\\x0ab" },
		{ "x\n# pf-record: samples=1", 0, "x\\x0a# pf-record: samples=1" },
		{ "\t\r\x1b\x7f", 0, "\\x09\\x0d\\x1b\\x7f" },
		{ "a;b", 0, "a\\x3bb" },
		{ "back\\slash", 0, "back\\\\slash" },
		/* An escape already there is escaped again: never read back. */
		{ "\\x0a", 0, "\\\\x0a" },
		{ "caf\xc3\xa9\xff", 0, "caf\xc3\xa9\xff" },
		{ "a b", 0, "a b" },
		{ "a b", PF_ESC_TOKEN, "a\\x20b" },
		{ "w 7/7 x", PF_ESC_COMM, "w\\x207/7 x" },
		{ "Web Content", PF_ESC_COMM, "Web Content" },
		{ "end ", PF_ESC_COMM, "end " },
		/* A comm starts its line: a leading space or '#' would lose the sample. */
		{ "# pf-record: x", PF_ESC_COMM, "\\x23 pf-record: x" },
		{ " lead", PF_ESC_COMM, "\\x20lead" },
		{ "a#b", PF_ESC_COMM, "a#b" },
		{ "#x", 0, "#x" },
		{ "", 0, "" },
	};
	struct pf_buf b = { 0 };
	size_t i, n, lines;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		pf_buf_reset(&b);
		CHECK(pf_name_escape_str(&b, t[i].in, t[i].flags) == 0, "case %zu: fails", i);
		CHECK(b.len == strlen(t[i].out) && memcmp(b.data, t[i].out, b.len) == 0,
		    "case %zu: got \"%s\", want \"%s\"", i, b.data ? b.data : "", t[i].out);
	}
	/* Every byte value: no control byte, ';' or lone backslash comes out. */
	for (i = 1; i < 256; i++) {
		char in[2] = { (char)i, 0 };

		pf_buf_reset(&b);
		pf_name_escape_str(&b, in, PF_ESC_TOKEN);
		for (n = 0, lines = 0; n < b.len; n++)
			lines += (unsigned char)b.data[n] < 0x20 || b.data[n] == 0x7f ||
			    b.data[n] == ';' || b.data[n] == ' ';
		CHECK(lines == 0, "byte 0x%02zx: escaped as \"%s\"", i, b.data);
		CHECK(b.len == 1 || b.data[0] == '\\', "byte 0x%02zx: an escape starts with a backslash",
		    i);
	}
	/* Bytes with a NUL inside, by length. */
	pf_buf_reset(&b);
	CHECK(pf_name_escape(&b, "a\0b", 3, 0) == 0 && b.len == 6 &&
	    memcmp(b.data, "a\\x00b", 6) == 0, "NUL by length: \"%s\"", b.data);
	pf_buf_free(&b);
}

static void
test_demangle(void)
{
	static const struct { const char *in, *want; int err; } t[] = {
		{ "_ZN2ns1WIdE4spinEd", "ns::W<double>::spin", 0 },
		{ "_ZN2ns1WIdE4spinEd.isra.0", "ns::W<double>::spin", 0 },
		{ "_ZL6helperPiil.constprop.0", "helper", 0 },
		{ "_ZN7mycrate6legacy4spin17h0123456789abcdefE", "mycrate::legacy::spin", 0 },
		{ "_RNvNtCs1234_7mycrate2v04spin", "mycrate::v0::spin", 0 },
		{ "main", NULL, EINVAL },
		{ "finish_task_switch.isra.0", NULL, EINVAL },
		{ "", NULL, EINVAL },
		/* libiberty prints "A<>" before failing: nothing of it is kept. */
		{ "_ZN1AIT_EE", NULL, EINVAL },
		/* 229 bytes that expand to 365 MB. */
		{ "_Z1fI1a1bIS0_S0_S0_S0_ES1_IS2_S2_S2_S2_ES1_IS3_S3_S3_S3_E"
		  "S1_IS4_S4_S4_S4_ES1_IS5_S5_S5_S5_ES1_IS6_S6_S6_S6_E"
		  "S1_IS7_S7_S7_S7_ES1_IS8_S8_S8_S8_ES1_IS9_S9_S9_S9_E"
		  "S1_ISA_SA_SA_SA_ES1_ISB_SB_SB_SB_ES1_ISC_SC_SC_SC_E"
		  "S1_ISD_SD_SD_SD_EEv", NULL, E2BIG },
	};
	static char big[PF_DEMANGLE_MAX_IN + 1];
	struct timespec a, b;
	size_t k;
	char *d;

	for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		errno = 0;
		d = pf_demangle(t[k].in);
		clock_gettime(CLOCK_MONOTONIC, &b);
		if (t[k].want)
			CHECK(d && strcmp(d, t[k].want) == 0, "%s: got %s", t[k].in, d ? d : "NULL");
		else
			CHECK(d == NULL && errno == t[k].err, "%s: got %s, errno %d",
			    t[k].in, d ? d : "NULL", errno);
		CHECK((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 100000000L,
		    "%.20s...: over 100 ms", t[k].in);
		free(d);
	}
	/* _Z + an identifier: only the length decides. */
	memset(big, 'a', PF_DEMANGLE_MAX_IN);
	memcpy(big, "_Z4040", 6);
	errno = 0;
	CHECK(pf_demangle(big) == NULL && errno == E2BIG, "%d bytes refused", PF_DEMANGLE_MAX_IN);
}

/* path holding text, for the JIT map checks. */
static void
put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static struct pf_jitmap *
load_path(const char *path)
{
	struct pf_jitmap *m;
	int fd = open(path, O_RDONLY);

	if (fd == -1)
		return NULL;
	m = pf_jitmap_load(fd);
	close(fd);
	return m;
}

static void
test_jitmap(void)
{
	char dir[] = "/tmp/pf-unit-jm-XXXXXX", p[256], l[256], why[128];
	struct pf_jitmap *m;
	const char *name;
	uint64_t off = 0;
	struct timespec a, b;
	FILE *f;
	int fd, k;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(p, sizeof(p), "%s/map", dir);
	snprintf(l, sizeof(l), "%s/link", dir);
	put_file(p, "1000 100 first\nbad line\n1050 10 second overlaps\n0x2000 0 empty\n"
	    "10000000000000000 10 start past 2^64\n4000 10000000000000010 size past 2^64\n"
	    "3000 10 last");
	m = load_path(p);
	CHECK(m && pf_jitmap_count(m) == 3 && !pf_jitmap_truncated(m), "3 entries");
	name = pf_jitmap_lookup(m, 0x1055, &off);
	CHECK(name && strcmp(name, "second overlaps") == 0 && off == 5, "later line wins");
	name = pf_jitmap_lookup(m, 0x1010, &off);
	CHECK(name && strcmp(name, "first") == 0 && off == 0x10, "first");
	name = pf_jitmap_lookup(m, 0x3009, &off);
	CHECK(name && strcmp(name, "last") == 0, "unterminated last line");
	CHECK(pf_jitmap_lookup(m, 0x2000, &off) == NULL, "size 0 skipped");
	pf_jitmap_free(m);

	/* An over-long line is skipped whole; the next one still counts. */
	f = fopen(p, "w");
	fputs("10 1 a\n20 1 ", f);
	for (k = 0; k < 3 * PF_JITMAP_MAX_LINE; k++)
		fputc('x', f);
	fputs("\n30 1 c\n", f);
	fclose(f);
	m = load_path(p);
	CHECK(m && pf_jitmap_count(m) == 2 && pf_jitmap_lookup(m, 0x30, &off) &&
	    pf_jitmap_lookup(m, 0x20, &off) == NULL, "long line skipped");
	pf_jitmap_free(m);

	/* Entries past the cap are not kept. */
	f = fopen(p, "w");
	for (k = 0; k < (int)PF_JITMAP_MAX_ENTRIES + 10; k++)
		fprintf(f, "%x 1 f\n", k + 1);
	fclose(f);
	m = load_path(p);
	CHECK(m && pf_jitmap_count(m) == PF_JITMAP_MAX_ENTRIES && pf_jitmap_truncated(m),
	    "entry cap: %llu", (unsigned long long)pf_jitmap_count(m));
	pf_jitmap_free(m);

	/* 512 MiB, sparse: read up to the byte cap, quickly, the line before kept. */
	put_file(p, "40 8 before\n");
	CHECK(truncate(p, 512 << 20) == 0, "truncate");
	clock_gettime(CLOCK_MONOTONIC, &a);
	m = load_path(p);
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK(m && pf_jitmap_count(m) == 1 && pf_jitmap_truncated(m), "byte cap");
	CHECK(b.tv_sec - a.tv_sec < 2, "byte cap: %lds", (long)(b.tv_sec - a.tv_sec));
	pf_jitmap_free(m);

	/* Who may be trusted. */
	put_file(p, "1000 10 x\n");
	fd = pf_jitmap_open(p, getuid(), why, sizeof(why));
	CHECK(fd != -1, "own map: %s", why);
	if (fd != -1)
		close(fd);
	CHECK(symlink(p, l) == 0, "symlink");
	CHECK(pf_jitmap_open(l, getuid(), why, sizeof(why)) == -1 && errno == EPERM &&
	    strcmp(why, "a symbolic link") == 0, "symlink refused: %s", why);
	unlink(l);
	CHECK(mkfifo(l, 0600) == 0, "mkfifo");
	CHECK(pf_jitmap_open(l, getuid(), why, sizeof(why)) == -1 && errno == EPERM &&
	    strcmp(why, "not a regular file") == 0, "fifo refused, without blocking: %s", why);
	unlink(l);
	CHECK(pf_jitmap_open(l, getuid(), why, sizeof(why)) == -1 && errno == ENOENT, "absent");
	if (geteuid() == 0) {
		CHECK(chown(p, 65534, 65534) == 0, "chown");
		CHECK(pf_jitmap_open(p, 0, why, sizeof(why)) == -1 && errno == EPERM &&
		    strcmp(why, "owned by uid 65534, not root or the target's uid 0") == 0,
		    "foreign owner refused: %s", why);
		CHECK(pf_jitmap_open(p, (uid_t)-1, why, sizeof(why)) == -1 && errno == EPERM,
		    "unknown target uid: root only");
		fd = pf_jitmap_open(p, 65534, why, sizeof(why));
		CHECK(fd != -1, "the target's own uid is trusted: %s", why);
		if (fd != -1)
			close(fd);
	}
	unlink(p);
	rmdir(dir);
}

/* Thread names by tid through growth: every name kept, inherited, replaced. */
static void
test_comms(void)
{
	struct pf_comms c = { 0 };
	char name[16], buf[32];
	uint32_t tid, bad = 0;
	/* No such process: a tid not remembered is named ":tid". */
	const uint32_t gone = 0x7ffffff0;

	CHECK(strcmp(pf_comms_get(&c, gone, 0, buf, sizeof(buf)), "swapper") == 0, "tid 0");
	CHECK(strcmp(pf_comms_get(&c, gone, 77, buf, sizeof(buf)), ":77") == 0, "unknown tid");
	for (tid = 1; tid <= 5000; tid++) {
		snprintf(name, sizeof(name), "t%u", tid * 7);
		pf_comms_set(&c, tid * 7, name);
	}
	for (tid = 1; tid <= 5000; tid++) {
		snprintf(name, sizeof(name), "t%u", tid * 7);
		bad += strcmp(pf_comms_get(&c, gone, tid * 7, buf, sizeof(buf)), name) != 0;
	}
	CHECK(bad == 0, "%u names of 5000 lost through growth", bad);
	pf_comms_inherit(&c, 7, 100001);
	CHECK(strcmp(pf_comms_get(&c, gone, 100001, buf, sizeof(buf)), "t7") == 0, "inherited");
	/* A FORK of a tid seen before: a new thread of a reused number. */
	pf_comms_inherit(&c, 14, 100001);
	CHECK(strcmp(pf_comms_get(&c, gone, 100001, buf, sizeof(buf)), "t14") == 0,
	    "a reused tid takes its new creator's name");
	pf_comms_inherit(&c, 99999, 100001);
	CHECK(strcmp(pf_comms_get(&c, gone, 100001, buf, sizeof(buf)), ":100001") == 0,
	    "a reused tid of an unknown creator forgets the old name");
	pf_comms_set(&c, 7, "a-very-long-thread-name");
	CHECK(strcmp(pf_comms_get(&c, gone, 7, buf, sizeof(buf)), "a-very-long-thr") == 0,
	    "renamed, truncated to 15 bytes");
	pf_comms_set(&c, 0, "idle");
	CHECK(strcmp(pf_comms_get(&c, gone, 0, buf, sizeof(buf)), "swapper") == 0,
	    "tid 0 is never stored");
	pf_comms_free(&c);
}

/* The symbol check of an ELF file and of a file that is not one. */
static void
test_symfile(void)
{
	struct pf_sym_fileinfo fi;
	char path[] = "/tmp/pf-unit-symfile.XXXXXX";
	int fd;

	unsetenv("DEBUGINFOD_URLS");
	if ((fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) == -1) {
		CHECK(0, "open /proc/self/exe: %s", strerror(errno));
		return;
	}
	CHECK(pf_sym_file_info(fd, "/proc/self/exe", &fi) == 0, "self: %s", strerror(errno));
	CHECK(fi.symtab && !fi.debuginfo, "self has its own symbol table");
	CHECK(fcntl(fd, F_GETFD) != -1, "the fd stays open");
	close(fd);
	if ((fd = mkstemp(path)) == -1) {
		CHECK(0, "mkstemp: %s", strerror(errno));
		return;
	}
	CHECK(write(fd, "#!/bin/sh\n", 10) == 10, "write");
	errno = 0;
	CHECK(pf_sym_file_info(fd, path, &fi) == -1 && errno == EINVAL, "not ELF: EINVAL");
	CHECK(!fi.symtab && !fi.debuginfo && fi.buildid[0] == '\0', "not ELF: nothing found");
	close(fd);
	unlink(path);
}

/* A kallsyms table loaded from text through a memfd, as from the real file. */
static struct pf_kallsyms *
kallsyms_text(const char *text)
{
	struct pf_kallsyms *k;
	int fd = memfd_create("unit-kallsyms", MFD_CLOEXEC);

	if (fd == -1 || pf_write_all(fd, text, strlen(text)) == -1) {
		if (fd != -1)
			close(fd);
		return NULL;
	}
	k = pf_kallsyms_load(fd);
	close(fd);
	return k;
}

static void
test_kallsyms(void)
{
	static const char *const none[] = {
		"",
		/* what a reader without the right to see addresses gets */
		"0000000000000000 T _stext\n0000000000000000 t do_one_initcall\n",
		"ffffffff81000000 D data_only\nnot a line\n",
		/* above 2^64: malformed, not wrapped to ffffffff81000000 */
		"1ffffffff81000000 T wrapped\n",
	};
	static const char text[] = "ffffffff81000100 T second\n\nffffffff81000000 T _stext";
	struct pf_kallsyms *k;
	const char *name, *mod;
	uint64_t off;
	size_t i;

	/* No symbol at all: an empty table (the fuzzer's first find: qsort on NULL). */
	for (i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		k = kallsyms_text(none[i]);
		CHECK(k != NULL, "load of text %zu: %s", i, strerror(errno));
		CHECK(pf_kallsyms_count(k) == 0, "text %zu: %llu symbols", i,
		    (unsigned long long)pf_kallsyms_count(k));
		CHECK(pf_kallsyms_lookup(k, 0xffffffff81000010ULL, &off, &mod) == NULL,
		    "text %zu: lookup in an empty table", i);
		pf_kallsyms_free(k);
	}
	/* Out of order, with a module, data symbols skipped. */
	k = kallsyms_text("ffffffff81000100 T second\n"
	    "ffffffffc0201000 t mod_fn\t[mymod]\n"
	    "ffffffff81000000 T _stext\n"
	    "ffffffff81000080 D some_data\n");
	CHECK(k != NULL && pf_kallsyms_count(k) == 3, "three text symbols");
	name = pf_kallsyms_lookup(k, 0xffffffff81000090ULL, &off, &mod);
	CHECK(name && strcmp(name, "_stext") == 0 && off == 0x90 && mod == NULL,
	    "_stext+0x90: %s", name ? name : "(null)");
	name = pf_kallsyms_lookup(k, 0xffffffffc0201004ULL, &off, &mod);
	CHECK(name && strcmp(name, "mod_fn") == 0 && off == 4 && mod && strcmp(mod, "mymod") == 0,
	    "mod_fn+4 [mymod]: %s", name ? name : "(null)");
	CHECK(pf_kallsyms_lookup(k, 0xffffffff80000000ULL, &off, &mod) == NULL, "below the first");
	pf_kallsyms_free(k);

	/* The same from text in memory, the last line without its newline. */
	k = pf_kallsyms_load_text(text, strlen(text));
	CHECK(k != NULL && pf_kallsyms_count(k) == 2, "text: two symbols");
	name = pf_kallsyms_lookup(k, 0xffffffff81000104ULL, &off, &mod);
	CHECK(name && strcmp(name, "second") == 0 && off == 4, "text: second+4");
	name = pf_kallsyms_lookup(k, 0xffffffff81000004ULL, &off, &mod);
	CHECK(name && strcmp(name, "_stext") == 0 && off == 4, "text: the last line whole");
	pf_kallsyms_free(k);
	k = pf_kallsyms_load_text("", 0);
	CHECK(k != NULL && pf_kallsyms_count(k) == 0 &&
	    pf_kallsyms_lookup(k, 1, &off, &mod) == NULL, "text: empty");
	pf_kallsyms_free(k);
}

/*
 * /proc/PID/maps lines: the fields, and a number above 2^64 (an address,
 * an offset, a device, the inode) refuses the line, never wraps.
 */
static void
test_procmaps(void)
{
	static const char *const bad[] = {
		"100007ffffffff000-7ffffffff000 r-xp 00000000 08:01 1 /bin/x",
		"7ffffffff000-1ffffffffffff0000 r-xp 00000000 08:01 1 /bin/x",
		"1000-2000 r-xp 10000000000000000 08:01 1 /bin/x",
		"1000-2000 r-xp 00000000 100000000000000008:01 1 /bin/x",
		"1000-2000 r-xp 00000000 08:01 18446744073709551616 /bin/x",
		"1000-2000 r-xp 00000000 08:01 99999999999999999999 /bin/x",
		"-2000 r-xp 00000000 08:01 1 /bin/x",
		"1000-2000",
		"10g0-2000 r-xp 00000000 08:01 1 /bin/x",
	};
	struct pf_maps_entry e;
	char line[256];
	size_t i;

	snprintf(line, sizeof(line), "%s",
	    "7f0000001000-7f0000002000 r-xp 00001000 fd:01 18446744073709551615   /usr/lib/libc.so.6");
	CHECK(pf_maps_parse_line(line, &e) == 0 && e.start == 0x7f0000001000ULL &&
	    e.end == 0x7f0000002000ULL && e.exec && e.pgoff == 0x1000 && e.maj == 0xfd &&
	    e.min == 1 && e.ino == UINT64_MAX && strcmp(e.path, "/usr/lib/libc.so.6") == 0,
	    "a whole line, the largest inode");
	snprintf(line, sizeof(line), "%s", "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 ");
	CHECK(pf_maps_parse_line(line, &e) == 0 && e.start == 0xffffffffff600000ULL &&
	    e.ino == 0 && *e.path == '\0', "the vsyscall page, no path");
	snprintf(line, sizeof(line), "%s", "1000-2000 rw-p 00000000 00:00 0 /x (deleted)");
	CHECK(pf_maps_parse_line(line, &e) == 0 && e.deleted && strcmp(e.path, "/x") == 0 &&
	    !e.exec, "deleted");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(line, sizeof(line), "%s", bad[i]);
		errno = 0;
		CHECK(pf_maps_parse_line(line, &e) == -1 && errno == EINVAL, "not refused: %s", bad[i]);
	}
}

/* Per-thread files opened below a task directory and re-read in place. */
static void
test_procstat(void)
{
	char path[64], buf[1024], want[32];
	long n, m;
	pid_t child;
	int dir, fd;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)getpid());
	dir = open(path, O_RDONLY | O_DIRECTORY);
	CHECK(dir != -1, "open %s", path);
	fd = pf_proc_openat(dir, (int)getpid(), "stat");
	CHECK(fd != -1, "openat own stat");
	snprintf(want, sizeof(want), "%d (", (int)getpid());
	n = pf_proc_pread(fd, buf, sizeof(buf));
	CHECK(n > 0 && strncmp(buf, want, strlen(want)) == 0, "first read: %s", buf);
	m = pf_proc_pread(fd, buf, sizeof(buf));
	CHECK(m > 0 && strncmp(buf, want, strlen(want)) == 0, "second read from the start: %s", buf);
	CHECK(pf_proc_pread(fd, buf, 8) == 7 && buf[7] == '\0', "a short buffer is NUL-terminated");
	CHECK(pf_proc_pread(fd, buf, 0) == -1 && errno == EINVAL, "no room: EINVAL");
	close(fd);
	close(dir);
	CHECK(pf_proc_openat(-1, 1, "stat") == -1, "bad directory descriptor");

	/* A kept descriptor belongs to its task: ESRCH once it is gone. */
	if ((child = fork()) == 0) {
		pause();
		_exit(0);
	}
	CHECK(child > 0, "fork");
	snprintf(path, sizeof(path), "/proc/%d/task", (int)child);
	dir = open(path, O_RDONLY | O_DIRECTORY);
	fd = pf_proc_openat(dir, (int)child, "schedstat");
	CHECK(fd != -1 && pf_proc_pread(fd, buf, sizeof(buf)) > 0, "child schedstat");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	CHECK(pf_proc_pread(fd, buf, sizeof(buf)) == -1 && errno == ESRCH,
	    "read after exit: %s", strerror(errno));
	close(fd);
	close(dir);
}

/* The wire format against bytes from the protocol buffers encoding guide. */
static void
check_bytes(const struct pf_buf *b, const char *want, size_t n, const char *what)
{
	CHECK(b->len == n && memcmp(b->data, want, n) == 0, "%s: %zu bytes, want %zu",
	    what, b->len, n);
}

/* What perfscript hands over besides the folded stack: fields and frames as printed. */
struct ps_seen {
	char text[8][512];	/* one line per sample: fields and frames */
	size_t n, comments;
	char comment[64];
};

static int
ps_seen_sample(const struct pf_ps_sample *s, void *arg)
{
	struct ps_seen *sn = arg;
	char *t;
	size_t i, k;

	if (sn->n == PF_ARRAY_LEN(sn->text))
		return 0;
	t = sn->text[sn->n++];
	k = (size_t)snprintf(t, sizeof(sn->text[0]), "%.*s|%.*s|%d:%llu|%d:%llu|%d:%llu|w%llu",
	    (int)s->comm_len, s->comm, s->event ? (int)s->event_len : 4,
	    s->event ? s->event : "NULL", s->has_pid, (unsigned long long)s->pid,
	    s->has_tid, (unsigned long long)s->tid, s->has_time,
	    (unsigned long long)s->time_ns, (unsigned long long)s->weight);
	for (i = 0; i < s->nframes && k < sizeof(sn->text[0]); i++)
		k += (size_t)snprintf(t + k, sizeof(sn->text[0]) - k, "|%llx %.*s (%.*s)",
		    (unsigned long long)s->frames[i].addr, (int)s->frames[i].func_len,
		    s->frames[i].func, (int)s->frames[i].module_len, s->frames[i].module);
	return 0;
}

static int
ps_seen_comment(const char *l, size_t len, void *arg)
{
	struct ps_seen *sn = arg;

	if (sn->comments++ == 0)
		snprintf(sn->comment, sizeof(sn->comment), "%.*s", (int)len, l);
	return 0;
}

static void
test_perfscript(void)
{
	static const char *const stream[] = {
		"# pf-record 1 host=web1",
		"my app 42/43 [001] 262.240843:   10101010 cpu-clock: ",
		"\t            1267 inl_spin+0x27 (inlined)",
		"\t ffffffffffffffffff1267 outer+0x27   (/usr/bin/app (deleted))",
		"\t           2724a [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)",
		"\t           zz12 (process) (/usr/bin/app)",
		"# a comment inside a sample does not end it",
		"\t           1 +0x1 (m)",
		"",
		"          sleeper    77 12.5: 3 cpu-clock:u:  7f0 nanosleep+0x5 (/lib/libc.so.6)",
		"ww 99999999999999999999999/8 [000] x:  cpu-clock: ",
		"\t1 f (m)",
		"",
	};
	/* Each sample's fields: comm|event|has_pid:pid|has_tid:tid|has_time:ns|weight. */
	static const char *const fields[] = {
		"my app|cpu-clock|1:42|1:43|1:262240843000|w10101010",
		"sleeper|cpu-clock:u|0:0|1:77|1:12500000000|w3",
		"ww|cpu-clock|0:0|1:8|0:0|w1",
	};
	/*
	 * And its frames, leaf first, those folding leaves out too; an
	 * address past 64 bits is 0, as one that is no hex, not its last 16
	 * digits.
	 */
	static const char *const frames[] = {
		"|1267 inl_spin (inlined)|0 outer (/usr/bin/app)"
		    "|2724a [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)"
		    "|0 (process) (/usr/bin/app)|1  (m)",
		"|7f0 nanosleep (/lib/libc.so.6)",
		"|1 f (m)",
	};
	struct pf_ps_config cfg = { 0 };
	struct ps_seen sn;
	struct pf_perfscript *ps;
	char want[512];
	size_t i;
	int keep;

	for (keep = 1; keep >= 0; keep--) {
		memset(&sn, 0, sizeof(sn));
		cfg.keep_frames = keep;
		if ((ps = pf_ps_new(&cfg, ps_seen_sample, &sn)) == NULL) {
			CHECK(0, "pf_ps_new: %s", strerror(errno));
			return;
		}
		pf_ps_on_comment(ps, ps_seen_comment);
		for (i = 0; i < PF_ARRAY_LEN(stream); i++)
			CHECK(pf_ps_line(ps, stream[i], strlen(stream[i])) == 0, "line %zu: %s", i,
			    pf_ps_malformed(ps));
		CHECK(pf_ps_finish(ps) == 0, "finish");
		pf_ps_free(ps);
		CHECK(sn.n == PF_ARRAY_LEN(fields), "%zu samples, want %zu", sn.n,
		    PF_ARRAY_LEN(fields));
		for (i = 0; i < sn.n && i < PF_ARRAY_LEN(fields); i++) {
			snprintf(want, sizeof(want), "%s%s", fields[i], keep ? frames[i] : "");
			CHECK(strcmp(sn.text[i], want) == 0,
			    "keep_frames %d, sample %zu:\n  got  %s\n  want %s", keep, i,
			    sn.text[i], want);
		}
		CHECK(sn.comments == 2 && strcmp(sn.comment, "# pf-record 1 host=web1") == 0,
		    "%zu comments, the first \"%s\"", sn.comments, sn.comment);
	}
}

/* pf_ps_on_unknown: what the callback was asked, and the names it gives. */
struct ps_asked {
	struct pf_buf log;	/* "module|addr|retaddr" a line */
	struct pf_buf got;	/* "stack weight|frame..." a line */
	const char *inl[1];
	struct pf_ps_names out;
};

static const struct pf_ps_names *
ps_asked_unknown(const char *mod, size_t n, uint64_t addr, int retaddr, void *arg)
{
	struct ps_asked *a = arg;

	pf_buf_printf(&a->log, "%.*s|%llx|%d\n", (int)n, mod, (unsigned long long)addr, retaddr);
	a->inl[0] = "inl_a";
	a->out.inl = a->inl;
	a->out.ninl = addr == 0x1130;
	a->out.name = addr == 0x1130 ? "leaf" : addr == 0x1200 ? "mid;x(int)" : "";
	return addr == 0x1500 || addr == 0 ? NULL : &a->out;
}

static int
ps_asked_fold(const struct pf_ps_sample *s, void *arg)
{
	struct ps_asked *a = arg;
	size_t i;

	pf_buf_printf(&a->got, "%s %llu", s->stack, (unsigned long long)s->weight);
	for (i = 0; i < s->nframes; i++)
		pf_buf_printf(&a->got, "|%llx %.*s (%.*s)", (unsigned long long)s->frames[i].addr,
		    (int)s->frames[i].func_len, s->frames[i].func, (int)s->frames[i].module_len,
		    s->frames[i].module);
	return pf_buf_putc(&a->got, '\n');
}

/*
 * A caller names the [unknown] user frames (pf-fold --debug-dir): asked
 * for each with its module as printed, its address and whether it is a
 * return address; its names fold, and are kept, as printed lines would.
 */
static void
test_ps_unknown(void)
{
	static const char *const stream[] = {
		"kk 1/1 [000] 1.000000: 5 cpu-clock: ",
		"\tffffffff81000010 [unknown] ([kernel.kallsyms])",
		"\t            1130 [unknown] (/opt/my app)",
		"\t            1200 [unknown]   (/opt/my app (deleted))",
		"\t              10 [unknown] ([unknown])",
		"\t            1300 [unknown] ()",
		"\t            1400 main+0x5 (/opt/my app)",
		"\t            1500 [unknown] (/opt/my app)",
		"",
		"vv 2/2 [000] 2.000000: 7 cpu-clock: ",
		"\t             800 __vdso_clock_gettime+0x10 ([vdso])",
		"\t            1130 [unknown] (/opt/my app)",
		"\t      1000000160 [unknown] (/opt/x)",
		"\t 123456789abcdef01 [unknown] (/opt/x)",
		"",
	};
	/*
	 * The kernel's, the unmapped and the moduleless frames are not asked
	 * about; an address past 64 bits is asked, and kept, as 0, never
	 * cut to its last 16 digits.
	 */
	static const char asked[] =
	    "/opt/my app|1130|0\n/opt/my app (deleted)|1200|1\n/opt/my app|1500|1\n"
	    "/opt/my app|1130|1\n/opt/x|1000000160|1\n/opt/x|0|1\n";
	/* Named: as the lines would fold; an empty name is no frame, as a printed one. */
	static const char *const folded[] = {
		"kk;[my app];main;[];[unknown];mid:x;leaf;inl_a_[i];[[kernel.kallsyms]] 5",
		"vv;[x];leaf;inl_a_[i];__vdso_clock_gettime 7",
	};
	static const char *const kept[] = {
		"|ffffffff81000010 [unknown] ([kernel.kallsyms])|1130 inl_a (inlined)"
		    "|1130 leaf (/opt/my app)|1200 mid;x(int) (/opt/my app)"
		    "|10 [unknown] ([unknown])|1300 [unknown] ()|1400 main (/opt/my app)"
		    "|1500 [unknown] (/opt/my app)",
		"|800 __vdso_clock_gettime ([vdso])|1130 inl_a (inlined)|1130 leaf (/opt/my app)"
		    "|1000000160  (/opt/x)|0 [unknown] (/opt/x)",
	};
	struct pf_ps_config cfg = { .annotate_inline = 1 };
	struct ps_asked a = { 0 };
	struct pf_buf want = { 0 };
	struct pf_perfscript *ps;
	size_t i;
	int keep;

	for (keep = 0; keep <= 1; keep++) {
		pf_buf_reset(&a.log);
		pf_buf_reset(&a.got);
		cfg.keep_frames = keep;
		if ((ps = pf_ps_new(&cfg, ps_asked_fold, &a)) == NULL) {
			CHECK(0, "pf_ps_new: %s", strerror(errno));
			break;
		}
		pf_ps_on_unknown(ps, ps_asked_unknown);
		for (i = 0; i < PF_ARRAY_LEN(stream); i++)
			CHECK(pf_ps_line(ps, stream[i], strlen(stream[i])) == 0, "line %zu: %s", i,
			    pf_ps_malformed(ps));
		CHECK(pf_ps_finish(ps) == 0, "finish");
		pf_ps_free(ps);
		CHECK(a.log.len == sizeof(asked) - 1 && memcmp(a.log.data, asked, a.log.len) == 0,
		    "keep_frames %d, asked:\n%.*s", keep, (int)a.log.len, a.log.data);
		pf_buf_reset(&want);
		for (i = 0; i < PF_ARRAY_LEN(folded); i++)
			pf_buf_printf(&want, "%s%s\n", folded[i], keep ? kept[i] : "");
		CHECK(a.got.len == want.len && memcmp(a.got.data, want.data, want.len) == 0,
		    "keep_frames %d:\n  got  %.*s\n  want %.*s", keep, (int)a.got.len, a.got.data,
		    (int)want.len, want.data);
	}
	/* Without a callback, nothing changes. */
	pf_buf_reset(&a.log);
	pf_buf_reset(&a.got);
	if ((ps = pf_ps_new(&cfg, ps_asked_fold, &a)) != NULL) {
		for (i = 0; i < PF_ARRAY_LEN(stream); i++)
			pf_ps_line(ps, stream[i], strlen(stream[i]));
		pf_ps_finish(ps);
		pf_ps_free(ps);
	}
	CHECK(a.log.len == 0 && a.got.len > 0 && memmem(a.got.data, a.got.len, "leaf", 4) == NULL,
	    "no callback: nothing asked, nothing named");
	pf_buf_free(&a.log);
	pf_buf_free(&a.got);
	pf_buf_free(&want);
}

static int
pprof_test_sample(const struct pf_ps_sample *s, void *arg)
{
	return pf_pprof_add_sample(arg, s);
}

static int
pprof_test_comment(const char *l, size_t len, void *arg)
{
	return pf_pprof_comment(arg, l, len);
}

static void
test_pprof(void)
{
	static const char *const stream[] = {
		("# pf-record 1 host=web1 kernel=6.1.0 target=pid:42 freq=99 callgraph=fp "
		    "kernel-stacks=yes start=2026-12-02T11:00:00Z"),
		"# pf-record: caps duration=15s max-size=67108864 min-free=1073741824",
		"# an ordinary comment, not metadata",
		"app 42/43 [001] 262.240843:   10101010 cpu-clock: ",
		"\t            1267 inl_spin+0x27 (inlined)",
		"\t            1267 outer+0x27 (/usr/bin/app)",
		"\t           2724a [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)",
		"",
		"app 42/43 [001] 262.250843:   10101010 cpu-clock: ",
		"\t            1267 inl_spin+0x27 (inlined)",
		"\t            1267 outer+0x27 (/usr/bin/app)",
		"\t           2724a [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)",
		"",
		"my app 42/44 [000] 262.260843:   5 cpu-clock: ",
		"\t            1300 other+0x1 (/usr/bin/app)",
		"",
	};
	static const char *const spans[] = {
		"app 42/43 [001] 10.000000: 1 cpu-clock:",
		"\t1267 outer (/usr/bin/app)",
		"app 42/43 [001] 9.000000: 1 cycles:",
		"\t1267 outer (/usr/bin/app)",
		"app 42/43 [001] 10.250000: 1 cpu-clock:",
		"\t1267 outer (/usr/bin/app)",
		"app 42/43 [001] 12.000000: 1 cycles:",
		"\t1267 outer (/usr/bin/app)",
	};
	struct pf_ps_config cfg = { .keep_frames = 1 };
	struct pf_perfscript *ps;
	struct pf_buf b = { 0 }, tmp = { 0 };
	static const uint64_t packed[] = { 3, 270, 86942 };
	struct pf_pprof *pp;
	struct pbf f, g;
	size_t pos = 0, i, nstr = 0, nsample = 0, nloc = 0, nmap = 0, nfn = 0;
	size_t ncomment = 0;
	uint64_t count = 0, weight = 0, time_ns = 0, period = 0, duration = 0;
	bool first_empty = false, libc = false, inl = false, label_comm = false;
	char want[16];

	/* Varints: 7 bits a byte, low group first, high bit = more. */
	pf_pb_varint(&b, 0);
	pf_pb_varint(&b, 1);
	pf_pb_varint(&b, 127);
	pf_pb_varint(&b, 128);
	pf_pb_varint(&b, 300);
	check_bytes(&b, "\x00\x01\x7f\x80\x01\xac\x02", 7, "varints 0 1 127 128 300");
	pf_buf_reset(&b);
	pf_pb_varint(&b, UINT64_MAX);
	memset(want, 0xff, 9);
	want[9] = 1;
	check_bytes(&b, want, 10, "varint 2^64-1");
	pf_buf_reset(&b);
	pf_pb_uint(&b, 1, 150);
	check_bytes(&b, "\x08\x96\x01", 3, "field 1 = 150");
	pf_buf_reset(&b);
	pf_pb_bytes(&b, 2, "testing", 7);
	check_bytes(&b, "\x12\x07testing", 9, "field 2 = \"testing\"");
	pf_buf_reset(&b);
	pf_pb_bytes(&b, 6, "", 0);
	check_bytes(&b, "\x32\x00", 2, "field 6 = \"\"");
	pf_buf_reset(&b);
	pf_pb_packed(&b, &tmp, 4, packed, 3);
	check_bytes(&b, "\x22\x06\x03\x8e\x02\x9e\xa7\x05", 8, "packed field 4 = 3 270 86942");
	pf_buf_reset(&b);
	pf_pb_packed(&b, &tmp, 4, packed, 0);
	CHECK(b.len == 0, "an empty packed field wrote %zu bytes", b.len);

	/* A profile from a stream: perfscript reads it, as in pf-fold --pprof. */
	if ((pp = pf_pprof_new()) == NULL || (ps = pf_ps_new(&cfg, pprof_test_sample, pp)) == NULL) {
		CHECK(0, "pf_pprof_new, pf_ps_new: %s", strerror(errno));
		pf_pprof_free(pp);
		return;
	}
	pf_ps_on_comment(ps, pprof_test_comment);
	for (i = 0; i < sizeof(stream) / sizeof(stream[0]); i++)
		CHECK(pf_ps_line(ps, stream[i], strlen(stream[i])) == 0, "line %zu", i);
	CHECK(pf_ps_finish(ps) == 0, "finish: %s", strerror(errno));
	pf_ps_free(ps);
	CHECK(pf_pprof_nsamples(pp) == 2, "%zu distinct samples, want 2", pf_pprof_nsamples(pp));
	pf_buf_reset(&b);
	CHECK(pf_pprof_encode(pp, "cpu-clock", &b) == 0, "encode: %s", strerror(errno));
	while (pb_rd(b.data, b.len, &pos, &f)) {
		switch (f.field) {
		case 2: {
			size_t sp = 0;

			nsample++;
			while (pb_rd(f.p, f.n, &sp, &g)) {
				if (g.field == 2 && g.wire == 2) {
					size_t vp = 0;
					uint64_t c = 0, v = 0;

					CHECK(pb_rd_varint(g.p, g.n, &vp, &c) &&
					    pb_rd_varint(g.p, g.n, &vp, &v) && vp == g.n,
					    "a sample's values are not two varints");
					count += c;
					weight += v;
				}
				label_comm |= g.field == 3;
			}
			break;
		}
		case 3: nmap++; break;
		case 4: {
			size_t lp = 0, lines = 0;

			nloc++;
			while (pb_rd(f.p, f.n, &lp, &g))
				lines += g.field == 4;
			inl |= lines == 2;
			break;
		}
		case 5: nfn++; break;
		case 6:
			if (nstr++ == 0)
				first_empty = f.n == 0;
			libc |= f.n == 11 && memcmp(f.p, "[libc.so.6]", 11) == 0;
			break;
		case 9: time_ns = f.v; break;
		case 10: duration = f.v; break;
		case 12: period = f.v; break;
		case 13: {
			size_t cp = 0;
			uint64_t v;

			while (pb_rd_varint(f.p, f.n, &cp, &v))
				ncomment++;
			break;
		}
		}
	}
	CHECK(pos == b.len, "the profile does not parse to its end: %zu of %zu", pos, b.len);
	CHECK(first_empty, "string 0 is not \"\"");
	CHECK(nsample == 2, "%zu samples, want 2 (the two identical merged)", nsample);
	CHECK(count == 3 && weight == 2 * 10101010ULL + 5,
	    "values sum to %llu samples / %llu ns, want 3 / %llu", (unsigned long long)count,
	    (unsigned long long)weight, 2 * 10101010ULL + 5);
	CHECK(label_comm, "the samples carry no labels");
	/* outer with inl_spin inlined, libc's unknown, other. */
	CHECK(nloc == 3 && inl, "%zu locations (want 3), one of two lines: %d", nloc, inl);
	CHECK(nfn == 4, "%zu functions, want 4", nfn);
	CHECK(nmap == 2, "%zu mappings, want 2 (/usr/bin/app, libc)", nmap);
	CHECK(libc, "an unknown symbol in libc is not named [libc.so.6]");
	CHECK(time_ns == 1796209200ULL * 1000000000ULL, "time_nanos %llu",
	    (unsigned long long)time_ns);
	CHECK(duration == 15000000000ULL, "duration_nanos %llu", (unsigned long long)duration);
	CHECK(period == 1000000000ULL / 99, "period %llu", (unsigned long long)period);
	CHECK(ncomment == 2, "%zu comments, want the two pf-record lines", ncomment);
	pf_pprof_free(pp);

	/*
	 * No window in a header: the duration is the span of the samples in
	 * the profile, not of the event lines the filters left out.
	 */
	if ((pp = pf_pprof_new()) == NULL || (ps = pf_ps_new(&cfg, pprof_test_sample, pp)) == NULL) {
		CHECK(0, "pf_pprof_new, pf_ps_new: %s", strerror(errno));
		pf_pprof_free(pp);
		return;
	}
	for (i = 0; i < sizeof(spans) / sizeof(spans[0]); i++)
		CHECK(pf_ps_line(ps, spans[i], strlen(spans[i])) == 0, "spans line %zu", i);
	CHECK(pf_ps_finish(ps) == 0, "finish: %s", strerror(errno));
	pf_ps_free(ps);
	pf_buf_reset(&b);
	CHECK(pf_pprof_encode(pp, "cpu-clock", &b) == 0, "encode: %s", strerror(errno));
	pos = 0;
	duration = 0;
	while (pb_rd(b.data, b.len, &pos, &f))
		if (f.field == 10)
			duration = f.v;
	CHECK(duration == 250000000ULL, "duration_nanos %llu, want the 250 ms between the "
	    "cpu-clock samples", (unsigned long long)duration);
	pf_pprof_free(pp);
	pf_buf_free(&b);
	pf_buf_free(&tmp);
}

/* Header and trailer in, one provenance line out, and back again. */
static void
test_provenance(void)
{
	static const char *const rec[] = {
		("# pf-record 1 host=web1 kernel=6.1.0 target=pid:4242 freq=99 "
		    "callgraph=dwarf stack=16384 kernel-stacks=yes start=2026-12-02T11:00:00Z"),
		"# pf-record: target pid=4242 comm=nginx",
		"# pf-record: caps duration=15s max-size=67108864 min-free=0 rings=2x128 pages fds=2",
		"# pf-record: confined seccomp=yes landlock=abi7 paths=10",
		"# pf-offcpu: samples=7 lost=9 throttled=0 stop=duration bytes=1",
		"# pf-record: samples=2970 lost=0 throttled=0 truncated=3 stop=duration bytes=812345",
	};
	static const char want[] = "# pf-provenance tool=pf-record host=web1 target=nginx "
	    "pid=4242 start=2026-12-02T11:00:00Z window=15s freq=99 samples=2970 lost=0 "
	    "truncated=3 stop=duration kernel-stacks=yes callgraph=dwarf unit=ns\n";
	struct pf_prov p, q;
	struct pf_buf b = { 0 }, t = { 0 }, st = { 0 };
	char big[200];
	size_t i;

	CHECK(pf_prov_header(&p, rec[1], strlen(rec[1])) == 0, "a note is not a header");
	CHECK(pf_prov_header(&p, rec[0], strlen(rec[0])) == 1, "header");
	CHECK(pf_prov_note(&p, rec[0], strlen(rec[0])) == 0, "the header is not a note");
	for (i = 1; i < sizeof(rec) / sizeof(rec[0]); i++)
		(void)pf_prov_note(&p, rec[i], strlen(rec[i]));
	CHECK(pf_prov_format(&p, &b) == 0 && strcmp(b.data, want) == 0, "line: %s", b.data);
	/* flamegraph.pl's rule: a line ending in a number is a stack. */
	CHECK(b.len > 2 && !(b.data[b.len - 2] >= '0' && b.data[b.len - 2] <= '9'),
	    "ends in a digit: %s", b.data);
	CHECK(pf_prov_parse(&q, rec[0], strlen(rec[0])) == 0, "a header is not a provenance line");
	/* cpu-clock's period is CPU time in nanoseconds: not samples, not off CPU. */
	CHECK(pf_prov_parse(&q, b.data, b.len - 1) == 1 && memcmp(&p.val, &q.val, sizeof(p.val)) == 0 &&
	    q.unit_ns == 1 && !pf_prov_offcpu(&q), "round trip");
	CHECK(pf_prov_describe(&q, &t, &st) == 0 && strcmp(t.data, "CPU: nginx (pid 4242) on web1") == 0,
	    "title: %s", t.data);
	CHECK(strcmp(st.data, "start 2026-12-02T11:00:00Z, window 15s, 99 Hz, 2970 samples, "
	    "3 truncated, call graph dwarf") == 0, "subtitle: %s", st.data);

	/* pf-offcpu, -a; unknown keys skipped; values cleaned and capped. */
	pf_buf_reset(&b);
	snprintf(big, sizeof(big), "# pf-offcpu 1 host=a;b\x01 target=all event=offcpu-time "
	    "unit=ns start=%0100d", 7);
	CHECK(pf_prov_header(&p, big, strlen(big)) == 1 && p.unit_ns == 1 && pf_prov_offcpu(&p),
	    "offcpu header");
	CHECK(pf_prov_format(&p, &b) == 0, "offcpu format");
	CHECK(strncmp(b.data, "# pf-provenance tool=pf-offcpu host=a_b_ target=all event=offcpu-time "
	    "start=0000", 70) == 0 && strlen(pf_prov_get(&p, PF_PROV_START)) == PF_PROV_VALMAX &&
	    strcmp(b.data + b.len - 9, " unit=ns\n") == 0, "offcpu line: %s", b.data);
	CHECK(pf_prov_parse(&q, "# pf-provenance x=1 bare host=h unit=ns", strlen("# pf-provenance x=1 bare host=h unit=ns")) == 1 &&
	    strcmp(pf_prov_get(&q, PF_PROV_HOST), "h") == 0 && q.unit_ns &&
	    pf_prov_get(&q, PF_PROV_TOOL) == NULL, "unknown keys skipped");
	pf_buf_reset(&t);
	CHECK(pf_prov_describe(&p, &t, NULL) == 0 && strcmp(t.data, "Off-CPU time: all processes "
	    "on a_b_") == 0, "offcpu title: %s", t.data);

	/* Several pids: their distinct comms, joined; a -- CMD target is its base name. */
	CHECK(pf_prov_header(&p, "# pf-record 1 target=pid:1,2,3", strlen("# pf-record 1 target=pid:1,2,3")) == 1, "pids");
	(void)pf_prov_note(&p, "# pf-record: target pid=1 comm=a_b", strlen("# pf-record: target pid=1 comm=a_b"));
	(void)pf_prov_note(&p, "# pf-record: target pid=2 comm=c", strlen("# pf-record: target pid=2 comm=c"));
	(void)pf_prov_note(&p, "# pf-record: target pid=3 comm=a_b", strlen("# pf-record: target pid=3 comm=a_b"));
	CHECK(strcmp(p.val[PF_PROV_TARGET], "a_b,c") == 0 && strcmp(p.val[PF_PROV_PID], "1,2,3") == 0,
	    "comms: %s pids %s", p.val[PF_PROV_TARGET], p.val[PF_PROV_PID]);
	CHECK(pf_prov_header(&p, "# pf-record 1 target=cmd:make", strlen("# pf-record 1 target=cmd:make")) == 1 &&
	    strcmp(p.val[PF_PROV_TARGET], "make") == 0 && p.val[PF_PROV_PID][0] == '\0', "cmd");
	/* Version 2 (names escaped) reads as 1 did; no other version is known. */
	CHECK(pf_prov_header(&p, "# pf-record 2 target=cmd:ma\\x20ke", strlen("# pf-record 2 target=cmd:ma\\x20ke")) == 1 &&
	    strcmp(p.val[PF_PROV_TARGET], "ma\\x20ke") == 0, "version 2: %s", p.val[PF_PROV_TARGET]);
	CHECK(pf_prov_header(&p, "# pf-record 3 target=cmd:make", strlen("# pf-record 3 target=cmd:make")) == 0, "another version");
	CHECK(pf_prov_header(&p, "# pf-record 12 target=cmd:make", strlen("# pf-record 12 target=cmd:make")) == 0, "a longer version");
	/* A key given twice: the same recording as the line with the last value only. */
	CHECK(pf_prov_parse(&p, "# pf-provenance host=longname host=a unit=ns",
	    strlen("# pf-provenance host=longname host=a unit=ns")) == 1 &&
	    pf_prov_parse(&q, "# pf-provenance host=a unit=ns", strlen("# pf-provenance host=a unit=ns")) == 1 &&
	    memcmp(&p, &q, sizeof(p)) == 0, "a repeated key leaves no trace");
	pf_buf_free(&b);
	pf_buf_free(&t);
	pf_buf_free(&st);
}

/* The descriptors this process has open (below 1024), without /proc. */
static int
open_fds(void)
{
	int fd, n = 0;

	for (fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) != -1)
			n++;
	return n;
}

static pid_t spawn_held;

static void
spawn_release(int sig)
{
	(void)sig;
	kill(spawn_held, SIGCONT);
}

/*
 * pf_spawn_cmd and pf_spawn_start (spawn.c): a command that runs, one
 * that cannot exec, the same while a signal handled without SA_RESTART
 * (as the recorders install theirs) arrives during the start, and a fork
 * that fails (no process left to the user) leaving no descriptor open.
 */
static void
test_spawn(void)
{
	char t0[] = "true", m0[] = "/nonexistent/pf-test-cmd";
	char *truecmd[] = { t0, NULL }, *missing[] = { m0, NULL };
	struct pf_target t;
	struct sigaction sa, old;
	struct itimerval it;
	pid_t p;
	int st;

	memset(&t, 0, sizeof(t));
	CHECK(pf_spawn_cmd(&t, truecmd, PF_SPAWN_STDOUT_NULL) == 0, "spawn true: %s", strerror(errno));
	CHECK(pf_spawn_start(&t) == 0, "start true: %s", strerror(errno));
	CHECK(waitpid(t.child, &st, 0) == t.child && WIFEXITED(st) && WEXITSTATUS(st) == 0, "true's exit");

	memset(&t, 0, sizeof(t));
	CHECK(pf_spawn_cmd(&t, missing, PF_SPAWN_STDOUT_NULL) == 0, "spawn missing: %s", strerror(errno));
	errno = 0;
	CHECK(pf_spawn_start(&t) == -1 && errno == ENOENT, "start missing: %s", strerror(errno));
	CHECK(t.child == 0, "a child that could not exec is reaped");

	/*
	 * The child is stopped before it can exec, so the start waits; 100 ms
	 * in, SIGALRM's handler lets it go on.  A read ended by the signal
	 * took the failed exec for a started command.
	 */
	memset(&t, 0, sizeof(t));
	CHECK(pf_spawn_cmd(&t, missing, PF_SPAWN_STDOUT_NULL) == 0, "spawn missing: %s", strerror(errno));
	spawn_held = t.child;
	kill(t.child, SIGSTOP);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = spawn_release;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	memset(&it, 0, sizeof(it));
	it.it_value.tv_usec = 100000;
	setitimer(ITIMER_REAL, &it, NULL);
	errno = 0;
	CHECK(pf_spawn_start(&t) == -1 && errno == ENOENT,
	    "start interrupted by a signal: %s (want the exec's ENOENT)", strerror(errno));
	sigaction(SIGALRM, &old, NULL);
	if (t.child > 0) {
		kill(t.child, SIGKILL);
		waitpid(t.child, NULL, 0);
	}

	/* fork fails: in a child of ours as another user allowed no process. */
	if ((p = fork()) == 0) {
		struct rlimit none = { 0, 0 };
		int before, rc;

		if ((getuid() == 0 && setuid(65534) == -1) || setrlimit(RLIMIT_NPROC, &none) == -1)
			_exit(3);
		before = open_fds();
		memset(&t, 0, sizeof(t));
		rc = pf_spawn_cmd(&t, truecmd, PF_SPAWN_STDOUT_NULL);
		if (rc != -1 || errno != EAGAIN)
			_exit(1);
		_exit(open_fds() == before ? 0 : 2);
	}
	CHECK(p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st), "the fork-failure child");
	CHECK(WEXITSTATUS(st) == 0, "fork failure: %s", WEXITSTATUS(st) == 1 ?
	    "fork did not fail with EAGAIN" : WEXITSTATUS(st) == 2 ?
	    "the pipes' four descriptors stayed open" : "could not drop to a user without processes");
}

/*
 * The stream's build-id lines: written as pf-formats(5) says, read back
 * to the same build-id, path and segments, malformed ones refused; a
 * file offset through the segments to the file's address; a frame's
 * module against the escaped path; the debug file's name.
 */
static void
test_buildid(void)
{
	static const struct { const char *line; int rc; size_t idlen, nseg; const char *path; } t[] = {
		{ "# build-id 0123abcd /usr/bin/app 1000:1000:13d", 1, 4, 1, "/usr/bin/app" },
		{ "# build-id 00ff /a", 1, 2, 0, "/a" },
		{ "# build-id 00ff /a 0:400000:5e0 1000:401000:119", 1, 2, 2, "/a" },
		/* A later key=value word is passed over. */
		{ "# build-id 00ff /a x=1 0:0:1", 1, 2, 1, "/a" },
		{ "# build-id 00ff /opt/my\\x20app\\x3b/x 0:0:1", 1, 2, 1, "/opt/my\\x20app\\x3b/x" },
		{ "# pf-record: build-id 00ff /a", 0, 0, 0, NULL },
		{ "# build-ids 00ff /a", 0, 0, 0, NULL },
		{ "#build-id 00ff /a", 0, 0, 0, NULL },
		{ "", 0, 0, 0, NULL },
		{ "# build-id ", -1, 0, 0, NULL },
		{ "# build-id 00ff", -1, 0, 0, NULL },
		{ "# build-id 00ff ", -1, 0, 0, NULL },
		{ "# build-id 0ff /a", -1, 0, 0, NULL },
		{ "# build-id 00FF /a", -1, 0, 0, NULL },
		{ "# build-id 00fg /a", -1, 0, 0, NULL },
		{ "# build-id  00ff /a", -1, 0, 0, NULL },
		{ "# build-id 00ff  /a", -1, 0, 0, NULL },
		{ "# build-id 00ff /a ", -1, 0, 0, NULL },
		{ "# build-id 00ff /a  0:0:1", -1, 0, 0, NULL },
		{ "# build-id 00ff /a\t0:0:1", -1, 0, 0, NULL },
		{ "# build-id 00ff /a 0:0", -1, 0, 0, NULL },
		{ "# build-id 00ff /a 0:0:1:2", -1, 0, 0, NULL },
		{ "# build-id 00ff /a 0::1", -1, 0, 0, NULL },
		{ "# build-id 00ff /a 0x0:0:1", -1, 0, 0, NULL },
		{ "# build-id 00ff /a 0:0:1g", -1, 0, 0, NULL },
		{ "# build-id 00ff /a 10000000000000000:0:1", -1, 0, 0, NULL },
		{ "# build-id 00ff /a ffffffffffffffff:0:1", -1, 0, 0, NULL },
		{ "# build-id 00ff /a 0:fffffffffffffff0:10", -1, 0, 0, NULL },
		{ "# build-id 00ff /a 0:fffffffffffffff0:f", 1, 2, 1, "/a" },
	};
	struct pf_buildid id, back;
	struct pf_buf b = { 0 };
	const char *path = NULL;
	char hex[2 * PF_BUILDID_MAX + 1], dp[64], line[2048];
	size_t i, plen = 0;
	uint64_t va;
	int rc;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		errno = 0;
		rc = pf_buildid_parse(t[i].line, strlen(t[i].line), &id, &path, &plen);
		CHECK(rc == t[i].rc && (rc != -1 || errno == EBADMSG), "case %zu (%s): rc %d errno %d, "
		    "want %d", i, t[i].line, rc, errno, t[i].rc);
		if (rc != 1 || t[i].rc != 1)
			continue;
		CHECK(id.idlen == t[i].idlen && id.nseg == t[i].nseg, "case %zu: %zu bytes, %zu "
		    "segments", i, id.idlen, id.nseg);
		CHECK(plen == strlen(t[i].path) && memcmp(path, t[i].path, plen) == 0,
		    "case %zu: path %.*s", i, (int)plen, path);
	}
	/* The longest build-id, and one byte more. */
	snprintf(line, sizeof(line), "# build-id %0*d /a", 2 * PF_BUILDID_MAX, 0);
	CHECK(pf_buildid_parse(line, strlen(line), &id, &path, &plen) == 1 &&
	    id.idlen == PF_BUILDID_MAX, "%d bytes", PF_BUILDID_MAX);
	snprintf(line, sizeof(line), "# build-id %0*d /a", 2 * PF_BUILDID_MAX + 2, 0);
	CHECK(pf_buildid_parse(line, strlen(line), &id, &path, &plen) == -1, "%d bytes",
	    PF_BUILDID_MAX + 1);
	/* As many segments as a line holds, and one more. */
	pf_buf_puts(&b, "# build-id 00ff /a");
	for (i = 0; i < PF_BUILDID_SEGS; i++)
		pf_buf_printf(&b, " %zx:%zx:10", i * 0x1000, i * 0x1000 + 0x400000);
	CHECK(pf_buildid_parse(b.data, b.len, &id, &path, &plen) == 1 &&
	    id.nseg == PF_BUILDID_SEGS, "%d segments", PF_BUILDID_SEGS);
	pf_buf_puts(&b, " 0:0:1");
	CHECK(pf_buildid_parse(b.data, b.len, &id, &path, &plen) == -1, "%d segments",
	    PF_BUILDID_SEGS + 1);

	/* Written, then read back: the same build-id, path and segments. */
	memset(&id, 0, sizeof(id));
	id.idlen = 20;
	for (i = 0; i < id.idlen; i++)
		id.id[i] = (unsigned char)(0xf0 + i * 7);
	id.nseg = 2;
	id.seg[0] = (struct pf_buildid_seg){ 0x1000, 0x401000, 0x119 };
	id.seg[1] = (struct pf_buildid_seg){ 0x3000, 0x7000, 0x20 };
	pf_buf_reset(&b);
	CHECK(pf_buildid_format(&b, "/opt/a b;c\n", &id) == 0, "format");
	pf_buildid_hex(id.id, id.idlen, hex);
	snprintf(line, sizeof(line), "# build-id %s /opt/a\\x20b\\x3bc\\x0a 1000:401000:119 "
	    "3000:7000:20\n", hex);
	CHECK(b.len == strlen(line) && memcmp(b.data, line, b.len) == 0, "formatted \"%.*s\"",
	    (int)b.len, b.data);
	CHECK(pf_buildid_parse(b.data, b.len - 1, &back, &path, &plen) == 1 &&
	    back.idlen == id.idlen && memcmp(back.id, id.id, id.idlen) == 0 &&
	    back.nseg == 2 && memcmp(back.seg, id.seg, sizeof(id.seg[0]) * 2) == 0 &&
	    plen == strlen("/opt/a\\x20b\\x3bc\\x0a") &&
	    memcmp(path, "/opt/a\\x20b\\x3bc\\x0a", plen) == 0, "read back");
	/* A frame prints the module with its blanks; the line escapes them. */
	CHECK(pf_buildid_path_is(path, plen, "/opt/a b\\x3bc\\x0a", 17), "blank for \\x20");
	/* A name that holds the text \x20 prints its backslash doubled. */
	CHECK(!pf_buildid_path_is("/a\\x20b", 7, "/a\\\\x20b", 8), "an escaped backslash");
	CHECK(!pf_buildid_path_is(path, plen, "/opt/a b\\x3bc", 13), "a prefix");
	CHECK(!pf_buildid_path_is(path, plen, "/opt/a b\\x3bc\\x0aa", 18), "longer");
	CHECK(pf_buildid_path_is("/x\\x20(deleted)", 15, "/x (deleted)", 12), "deleted");
	CHECK(!pf_buildid_path_is("/x", 2, "/x ", 3) && !pf_buildid_path_is("/x\\x2", 5, "/x ", 3),
	    "a blank past the end");
	CHECK(pf_buildid_format(&b, "/a", &(struct pf_buildid){ .idlen = 0 }) == -1 &&
	    errno == EINVAL, "no build-id is no line");

	/* File offsets through the segments, the ends of each. */
	CHECK(pf_buildid_vaddr(&id, 0x1000, &va) && va == 0x401000, "first byte");
	CHECK(pf_buildid_vaddr(&id, 0x1118, &va) && va == 0x401118, "last byte");
	CHECK(!pf_buildid_vaddr(&id, 0x1119, &va), "past the end");
	CHECK(!pf_buildid_vaddr(&id, 0xfff, &va), "before the start");
	CHECK(pf_buildid_vaddr(&id, 0x3010, &va) && va == 0x7010, "second segment");
	CHECK(!pf_buildid_vaddr(&(struct pf_buildid){ .idlen = 1 }, 0, &va), "no segment");

	/* Where a .build-id tree keeps its debug file. */
	CHECK(pf_buildid_debug_path(dp, sizeof(dp), "/d", id.id, 3) == 0 &&
	    strcmp(dp, "/d/.build-id/f0/f7fe.debug") == 0, "path %s", dp);
	CHECK(pf_buildid_debug_path(dp, sizeof(dp), "/d", id.id, 1) == -1 && errno == EINVAL,
	    "one byte");
	CHECK(pf_buildid_debug_path(dp, 27, "/d", id.id, 3) == 0, "just fits");
	CHECK(pf_buildid_debug_path(dp, 26, "/d", id.id, 3) == -1 && errno == ENAMETOOLONG,
	    "too long");
	pf_buf_free(&b);
}

int
main(int argc, char **argv)
{
	static const struct unit_group groups[] = {
		{ "parse", test_parse }, { "folded", test_folded }, { "buildid", test_buildid },
		{ "stackmap", test_stackmap }, { "linereader", test_linereader },
		{ "outfile", test_outfile }, { "privs", test_privs }, { "buf", test_buf },
		{ "grow", test_grow },
		{ "addrsearch", test_addrsearch }, { "htab", test_htab }, { "intern", test_intern },
		{ "classify", test_classify },
		{ "demangle", test_demangle }, { "jitmap", test_jitmap },
		{ "nameclean", test_nameclean }, { "nameescape", test_nameescape },
		{ "comms", test_comms }, { "symfile", test_symfile },
		{ "kallsyms", test_kallsyms }, { "procmaps", test_procmaps }, { "procstat", test_procstat },
		{ "perfscript", test_perfscript },
		{ "psunknown", test_ps_unknown }, { "pprof", test_pprof },
		{ "provenance", test_provenance }, { "spawn", test_spawn },
	};

	return unit_main(argc, argv, groups, sizeof(groups) / sizeof(groups[0]));
}
