/*
 * folded: the parser for one line of the folded-stacks format
 * (man/pf-formats.5): "root;...;leaf COUNT" or "root;...;leaf C1 C2".
 * Shared by pf-fold (--folded, --diff) and pf-svg, and fuzzed.
 */
#ifndef PF_FOLDED_H
#define PF_FOLDED_H

#include <stddef.h>
#include <stdint.h>

struct pf_folded_line {
	const char *stack;	/* points into the parsed line; not NUL-terminated */
	size_t stack_len;
	int ncounts;		/* 1, or 2 for a differential line */
	uint64_t count[2];	/* count[0] = C1 (or the only count), count[1] = C2 */
};

/*
 * Parse line (len bytes, no newline; a trailing '\r' is ignored).
 * The count is the last white-space separated token; when what precedes
 * it also ends in white space and digits, that is C1 and the line is
 * differential (the rule flamegraph.pl applies, so a frame name ending in
 * " 123" is read as a count).  Returns 0 on success; 1 for a line that
 * carries nothing (empty, only white space, or a '#' comment); -1 with
 * errno EINVAL for a malformed line (no count, empty stack, a sign or a
 * fraction in the count: EDOM for a fraction, ERANGE for a count over
 * 2^64-1).
 */
int pf_folded_parse(const char *line, size_t len, struct pf_folded_line *out);

/* Why pf_folded_parse refused a line, from its errno, for a message. */
const char *pf_folded_why(int e);

#endif
