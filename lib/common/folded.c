/*
 * folded: right-to-left scan, so frame names may hold spaces and only the
 * trailing number(s) are special.
 */
#include <errno.h>

#include "folded.h"
#include "parse.h"

static int
is_space(char c)
{
	return c == ' ' || c == '\t';
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Parse the token of digits ending at end (exclusive) back to a space;
 * *start is where it begins.  0 ok, -1 with errno.
 */
static int
count_before(const char *line, size_t end, size_t *start, uint64_t *v)
{
	size_t i = end, j;
	uint64_t n = 0;

	while (i > 0 && is_digit(line[i - 1]))
		i--;
	if (i == end) {
		/* "1.5" or "-3" gives a clearer error than "no count". */
		if (end > 0 && line[end - 1] != ' ' && line[end - 1] != '\t') {
			size_t k = end;
			while (k > 0 && !is_space(line[k - 1]))
				k--;
			for (j = k; j < end && (is_digit(line[j]) || line[j] == '.'); j++)
				;
			if (j == end && j > k && is_digit(line[k])) {
				errno = EDOM;
				return -1;
			}
		}
		errno = EINVAL;
		return -1;
	}
	if (i > 0 && !is_space(line[i - 1])) {
		errno = line[i - 1] == '.' ? EDOM : EINVAL;
		return -1;
	}
	if (pf_parse_u64_span(line + i, line + end, &n) == -1)
		return -1;
	*start = i;
	*v = n;
	return 0;
}

int
pf_folded_parse(const char *line, size_t len, struct pf_folded_line *out)
{
	size_t end = len, s2, s1, k;
	uint64_t c2, c1;

	if (end > 0 && line[end - 1] == '\r')
		end--;
	while (end > 0 && is_space(line[end - 1]))
		end--;
	k = 0;
	while (k < end && is_space(line[k]))
		k++;
	if (k == end || line[k] == '#')
		return 1;
	if (count_before(line, end, &s2, &c2) == -1)
		return -1;
	/* s2 > 0 and line[s2-1] is a space, by count_before's contract. */
	k = s2;
	while (k > 0 && is_space(line[k - 1]))
		k--;
	if (k == 0) {
		errno = EINVAL;	/* a count and no stack */
		return -1;
	}
	out->ncounts = 1;
	out->count[0] = c2;
	out->count[1] = 0;
	if (is_digit(line[k - 1])) {
		int saved = errno;
		if (count_before(line, k, &s1, &c1) == 0) {
			size_t k2 = s1;
			while (k2 > 0 && is_space(line[k2 - 1]))
				k2--;
			if (k2 > 0) {
				out->ncounts = 2;
				out->count[0] = c1;
				out->count[1] = c2;
				k = k2;
			}
		}
		errno = saved;
	}
	out->stack = line;
	out->stack_len = k;
	return 0;
}

const char *
pf_folded_why(int e)
{
	switch (e) {
	case EDOM: return "fractional count (counts are whole numbers)";
	case ERANGE: return "count over 2^64-1";
	default: return "not STACK COUNT or STACK COUNT1 COUNT2";
	}
}
