/*
 * linereader: the line splitting of lib/common.  pf_lr_new/pf_lr_next read
 * lines from a file descriptor, for the streaming parsers (pf-fold,
 * pf-svg) and the /proc files read in pieces (maps, kallsyms); memory is
 * bounded by the longest line, never by the input size.  pf_lr_text_next
 * walks the lines of text already in memory, for the /proc files read
 * whole with one read(2).
 */
#ifndef PF_LINEREADER_H
#define PF_LINEREADER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct pf_linereader;

/* Longest line accepted; a longer one makes pf_lr_next() fail with E2BIG. */
#define PF_LR_MAX_LINE (64u << 20)

/*
 * Read lines from fd (not closed by pf_lr_free).  name is used in messages
 * (copied).  NULL with errno on failure.
 */
struct pf_linereader *pf_lr_new(int fd, const char *name);

/*
 * Next line, without its '\n' (a trailing '\r' is kept), NUL-terminated,
 * writable and valid until the next call.  The last line is returned even
 * without a final newline.  Returns 1 for a line, 0 at end of input, -1
 * on a read error or an over-long line (errno set).
 */
int pf_lr_next(struct pf_linereader *lr, char **line, size_t *len);

/* Number of the line last returned (first is 1), and the name given. */
uint64_t pf_lr_lineno(const struct pf_linereader *lr);
const char *pf_lr_name(const struct pf_linereader *lr);

void pf_lr_free(struct pf_linereader *lr);

/*
 * The next line of the NUL-terminated text at *pos: *line and *len (the
 * line without its '\n', not NUL-terminated there), and *pos moves past
 * it.  The last line counts without a final newline.  1 for a line, 0
 * at the end of the text.  The text is not modified.
 */
static inline int
pf_lr_text_next(const char **pos, const char **line, size_t *len)
{
	const char *nl;

	if (**pos == '\0')
		return 0;
	*line = *pos;
	if ((nl = strchr(*pos, '\n')) != NULL) {
		*len = (size_t)(nl - *pos);
		*pos = nl + 1;
	} else {
		*len = strlen(*pos);
		*pos += *len;
	}
	return 1;
}

#endif
