/*
 * parse: the one checked parser for numbers: sizes and durations on pf
 * command lines, and the numbers inside the lines the readers parse (the
 * pf_span_ functions, which stop at the first byte that is no digit).
 * The others reject empty strings, leading signs and white space, trailing
 * junk and values outside [min, max]; on error every function (NULL for
 * a span one) returns -1 with errno EINVAL (malformed) or ERANGE (out of
 * range) and leaves *out untouched.  On success it returns 0.
 */
#ifndef PF_PARSE_H
#define PF_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The one rule for a number inside a line a reader parses: digits from p
 * up to end or the first byte that is not one.  The value in *out and the
 * end of the digits; NULL with errno EINVAL when there is no digit at p,
 * ERANGE when the value is above UINT64_MAX: such a field is malformed,
 * never wrapped nor cut to its leading digits.  No sign, no blank, no
 * "0x"; a caller wanting the whole span checks the end it gets back.
 */
const char *pf_span_u64(const char *p, const char *end, uint64_t *out);

/* pf_span_u64 for hex digits, either case ("ffff8000", "DEAD"). */
const char *pf_span_x64(const char *p, const char *end, uint64_t *out);

/* The whole span [p, end) as decimal or hex: 0, or -1 (EINVAL, ERANGE). */
int pf_parse_u64_span(const char *p, const char *end, uint64_t *out);
int pf_parse_x64_span(const char *p, const char *end, uint64_t *out);

/* Decimal unsigned integer. */
int pf_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Decimal signed integer (a leading '-' allowed). */
int pf_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out);

/* Finite decimal number, e.g. "0.5", "12", "1e3" not accepted. */
int pf_parse_double(const char *s, double min, double max, double *out);

/*
 * Size in bytes: a decimal integer with an optional binary suffix
 * K, M, G, T (KiB, MiB...; case-insensitive, an optional trailing "B"
 * or "iB"), e.g. "64M", "1G", "512k", "4096".
 */
int pf_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/*
 * Duration in nanoseconds: a decimal number (fractions allowed) with an
 * optional unit ns, us, ms, s, m, h; a bare number is in default_unit_ns
 * (1000000000 for seconds).  "15", "15s", "1.5s", "250ms", "2m".
 */
int pf_parse_duration(const char *s, uint64_t default_unit_ns,
    uint64_t min_ns, uint64_t max_ns, uint64_t *out_ns);

/*
 * A size or a percentage ("5%", "0.5%", "1G").  On success exactly one of
 * *bytes (percent < 0) or *percent (bytes == 0) is set: *percent is set
 * to -1 for a size, *bytes to 0 for a percentage.  Percent must be in
 * [0, 100].
 */
int pf_parse_size_or_percent(const char *s, uint64_t *bytes, double *percent);

/*
 * A comma-separated list of process ids, each in [min, INT_MAX]: "12",
 * "12,34".  Every field must be a number: an empty one ("1,,2", "1,",
 * ",1", "") is a typo, never skipped.  Stores at most max ids in out and
 * their count in *n.  -1 with errno EINVAL (bad, badlen > 0, gets a copy
 * of the bad field, "" for an empty one) or E2BIG (more than max ids);
 * *n is then the count parsed before the error.
 */
int pf_parse_pid_list(const char *s, uint64_t min, pid_t *out, size_t max, size_t *n,
    char *bad, size_t badlen);

/*
 * The -p PID[,PID...] option of every tool that takes a process list
 * (pf-record, pf-offcpu, pf-precheck, pf-classify): pf_parse_pid_list
 * from pid 1, at most max pids.  0, or -1 with the usage error in why
 * (whylen bytes), worded alike for all of them: "-p: no pid given",
 * "-p: empty field in 'S'", "-p: invalid pid 'F'", "-p: more than MAX
 * pids".
 */
int pf_parse_pid_arg(const char *s, pid_t *out, size_t max, size_t *n, char *why,
    size_t whylen);

/*
 * Drop the repeats from pids (n of them), keeping each pid's first place:
 * a process given twice is one target.  The count left.
 */
size_t pf_pid_list_unique(pid_t *pids, size_t n);

/* The value of hex digit c (0-15), or -1 when c is not one. */
static inline int
pf_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
