/*
 * parse: strict number parsing.  strtoull() alone accepts " -1", "12abc"
 * and silently wraps; every path here checks the whole string.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse.h"

static int
fail(int e)
{
	errno = e;
	return -1;
}

const char *
pf_span_u64(const char *p, const char *end, uint64_t *out)
{
	const char *s = p;
	uint64_t v = 0;
	unsigned d;

	for (; p < end && (d = (unsigned)((unsigned char)*p - '0')) <= 9; p++) {
		if (v > (UINT64_MAX - d) / 10) {
			errno = ERANGE;
			return NULL;
		}
		v = v * 10 + d;
	}
	if (p == s) {
		errno = EINVAL;
		return NULL;
	}
	*out = v;
	return p;
}

const char *
pf_span_x64(const char *p, const char *end, uint64_t *out)
{
	const char *s = p;
	uint64_t v = 0;
	int d;

	for (; p < end && (d = pf_hexval((unsigned char)*p)) >= 0; p++) {
		if (v >> 60) {
			errno = ERANGE;
			return NULL;
		}
		v = v << 4 | (uint64_t)d;
	}
	if (p == s) {
		errno = EINVAL;
		return NULL;
	}
	*out = v;
	return p;
}

int
pf_parse_u64_span(const char *p, const char *end, uint64_t *out)
{
	uint64_t v;
	const char *e = pf_span_u64(p, end, &v);

	if (e == NULL)
		return -1;
	if (e != end)
		return fail(EINVAL);
	*out = v;
	return 0;
}

int
pf_parse_x64_span(const char *p, const char *end, uint64_t *out)
{
	uint64_t v;
	const char *e = pf_span_x64(p, end, &v);

	if (e == NULL)
		return -1;
	if (e != end)
		return fail(EINVAL);
	*out = v;
	return 0;
}

/* Leading decimal digits of a string (at least one); *end after them. */
static int
digits(const char *s, uint64_t *v, const char **end)
{
	const char *p = pf_span_u64(s, s + strlen(s), v);

	if (p == NULL)
		return -1;
	*end = p;
	return 0;
}

int
pf_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	const char *end;

	if (s == NULL || digits(s, &v, &end) == -1)
		return -1;
	if (*end != '\0')
		return fail(EINVAL);
	if (v < min || v > max)
		return fail(ERANGE);
	*out = v;
	return 0;
}

int
pf_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	uint64_t v;
	const char *end;
	int neg = 0;
	int64_t r;

	if (s == NULL)
		return fail(EINVAL);
	if (*s == '-') {
		neg = 1;
		s++;
	}
	if (digits(s, &v, &end) == -1)
		return -1;
	if (*end != '\0')
		return fail(EINVAL);
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return fail(ERANGE);
		r = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		if (v > (uint64_t)INT64_MAX)
			return fail(ERANGE);
		r = (int64_t)v;
	}
	if (r < min || r > max)
		return fail(ERANGE);
	*out = r;
	return 0;
}

/* digits[.digits] with no sign, no exponent; *end after it. */
static int
decimal(const char *s, double *v, const char **end)
{
	const char *p = s;
	char *e;

	if (!isdigit((unsigned char)*p))
		return fail(EINVAL);
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return fail(EINVAL);
		while (isdigit((unsigned char)*p))
			p++;
	}
	errno = 0;
	*v = strtod(s, &e);
	if (e != p || errno != 0 || !isfinite(*v))
		return fail(ERANGE);
	*end = p;
	return 0;
}

int
pf_parse_double(const char *s, double min, double max, double *out)
{
	double v;
	const char *end;

	if (s == NULL || decimal(s, &v, &end) == -1)
		return -1;
	if (*end != '\0')
		return fail(EINVAL);
	if (v < min || v > max)
		return fail(ERANGE);
	*out = v;
	return 0;
}

int
pf_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v, mult = 1;
	const char *end;

	if (s == NULL || digits(s, &v, &end) == -1)
		return -1;
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K': mult = 1ULL << 10; end++; break;
	case 'm': case 'M': mult = 1ULL << 20; end++; break;
	case 'g': case 'G': mult = 1ULL << 30; end++; break;
	case 't': case 'T': mult = 1ULL << 40; end++; break;
	case 'b': case 'B': break;
	default:
		return fail(EINVAL);
	}
	if (mult > 1 && (*end == 'i' || *end == 'I'))
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end != '\0')
		return fail(EINVAL);
	if (v > UINT64_MAX / mult)
		return fail(ERANGE);
	v *= mult;
	if (v < min || v > max)
		return fail(ERANGE);
	*out = v;
	return 0;
}

int
pf_parse_duration(const char *s, uint64_t default_unit_ns,
    uint64_t min_ns, uint64_t max_ns, uint64_t *out_ns)
{
	static const struct { const char *name; uint64_t ns; } units[] = {
		{ "ns", 1ULL }, { "us", 1000ULL }, { "ms", 1000000ULL },
		{ "s", 1000000000ULL }, { "m", 60000000000ULL },
		{ "h", 3600000000000ULL },
	};
	double v, ns;
	const char *end;
	uint64_t unit = default_unit_ns;
	size_t i;

	if (s == NULL || decimal(s, &v, &end) == -1)
		return -1;
	if (*end != '\0') {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strcmp(end, units[i].name) == 0)
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return fail(EINVAL);
		unit = units[i].ns;
	}
	ns = v * (double)unit;
	if (ns >= 18446744073709551615.0)
		return fail(ERANGE);
	if ((uint64_t)ns < min_ns || (uint64_t)ns > max_ns)
		return fail(ERANGE);
	*out_ns = (uint64_t)(ns + 0.5);
	if (*out_ns > max_ns)
		*out_ns = max_ns;
	return 0;
}

int
pf_parse_size_or_percent(const char *s, uint64_t *bytes, double *percent)
{
	size_t n;
	char buf[64];
	double p;
	uint64_t b;

	if (s == NULL)
		return fail(EINVAL);
	n = strlen(s);
	if (n > 0 && s[n - 1] == '%') {
		if (n >= sizeof(buf))
			return fail(EINVAL);
		memcpy(buf, s, n - 1);
		buf[n - 1] = '\0';
		if (pf_parse_double(buf, 0, 100, &p) == -1)
			return -1;
		*percent = p;
		*bytes = 0;
		return 0;
	}
	if (pf_parse_size(s, 0, UINT64_MAX, &b) == -1)
		return -1;
	*bytes = b;
	*percent = -1;
	return 0;
}

int
pf_parse_pid_list(const char *s, uint64_t min, pid_t *out, size_t max, size_t *n,
    char *bad, size_t badlen)
{
	char field[24];
	const char *p = s, *comma;
	size_t len;
	uint64_t v;

	*n = 0;
	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		/* A field too long for any pid is malformed; keep its start. */
		snprintf(field, sizeof(field), "%.*s", (int)(len < sizeof(field) - 1 ?
		    len : sizeof(field) - 1), p);
		if (len >= sizeof(field) || pf_parse_u64(field, min, INT_MAX, &v) == -1) {
			snprintf(bad, badlen, "%s", field);
			return fail(EINVAL);
		}
		if (*n == max)
			return fail(E2BIG);
		out[(*n)++] = (pid_t)v;
		if (comma == NULL)
			return 0;
		p = comma + 1;
	}
}

int
pf_parse_pid_arg(const char *s, pid_t *out, size_t max, size_t *n, char *why,
    size_t whylen)
{
	char bad[32];

	if (pf_parse_pid_list(s, 1, out, max, n, bad, sizeof(bad)) == 0)
		return 0;
	if (errno == E2BIG)
		snprintf(why, whylen, "-p: more than %zu pids", max);
	else if (*s == '\0')
		snprintf(why, whylen, "-p: no pid given");
	else if (*bad == '\0')
		snprintf(why, whylen, "-p: empty field in '%s'", s);
	else
		snprintf(why, whylen, "-p: invalid pid '%s'", bad);
	return -1;
}

size_t
pf_pid_list_unique(pid_t *pids, size_t n)
{
	size_t i, j, kept = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < kept && pids[j] != pids[i]; j++)
			;
		if (j == kept)
			pids[kept++] = pids[i];
	}
	return kept;
}
