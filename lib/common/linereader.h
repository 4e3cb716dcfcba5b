/*
 * linereader: the line splitting of lib/common.  lr_new/lr_next read
 * lines from a file descriptor, for the streaming parsers (pf-fold,
 * pf-svg) and the /proc files read in pieces (maps, kallsyms); memory is
 * bounded by the longest line, never by the input size.  lr_text_next
 * walks the lines of text already in memory, for the /proc files read
 * whole with one read(2).
 */
#ifndef PF_LINEREADER_H
#define PF_LINEREADER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct linereader;

/* Longest line accepted; a longer one makes lr_next() fail with E2BIG. */
#define LR_MAX_LINE (64u << 20)

/*
 * Read lines from fd (not closed by lr_free).  name is used in messages
 * (copied).  NULL with errno on failure.
 */
struct linereader *lr_new(int fd, const char *name);

/*
 * Next line, without its '\n' (a trailing '\r' is kept), NUL-terminated,
 * writable and valid until the next call.  The last line is returned even
 * without a final newline.  Returns 1 for a line, 0 at end of input, -1
 * on a read error or an over-long line (errno set).
 */
int lr_next(struct linereader *lr, char **line, size_t *len);

/* Number of the line last returned (first is 1), and the name given. */
uint64_t lr_lineno(const struct linereader *lr);
const char *lr_name(const struct linereader *lr);

void lr_free(struct linereader *lr);

/*
 * The next line of the NUL-terminated text at *pos: *line and *len (the
 * line without its '\n', not NUL-terminated there), and *pos moves past
 * it.  The last line counts without a final newline.  1 for a line, 0
 * at the end of the text.  The text is not modified.
 */
static inline int
lr_text_next(const char **pos, const char **line, size_t *len)
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
