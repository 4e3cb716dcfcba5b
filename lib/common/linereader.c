/*
 * linereader: one large buffer, memchr for newlines, refilled with read(2).
 * stdio's getline() costs a lock and a copy per line, which shows at
 * hundreds of MB/s.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linereader.h"

#define LR_CHUNK (1u << 20)

struct pf_linereader {
	int fd;
	int eof;
	char *buf;
	size_t cap;
	size_t start;	/* first unread byte */
	size_t end;	/* one past the last valid byte */
	uint64_t lineno;
	char *name;
};

struct pf_linereader *
pf_lr_new(int fd, const char *name)
{
	struct pf_linereader *lr;

	if ((lr = calloc(1, sizeof(*lr))) == NULL)
		return NULL;
	lr->fd = fd;
	lr->cap = LR_CHUNK;
	lr->buf = malloc(lr->cap + 1);
	lr->name = strdup(name ? name : "-");
	if (lr->buf == NULL || lr->name == NULL) {
		pf_lr_free(lr);
		errno = ENOMEM;
		return NULL;
	}
	return lr;
}

/* Move unread bytes to the front, grow if full, read more.  -1 on error. */
static int
fill(struct pf_linereader *lr)
{
	ssize_t n;

	if (lr->start > 0) {
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->end -= lr->start;
		lr->start = 0;
	}
	if (lr->end == lr->cap) {
		size_t ncap = lr->cap * 2;
		char *p;

		if (lr->cap >= PF_LR_MAX_LINE) {
			errno = E2BIG;
			return -1;
		}
		if ((p = realloc(lr->buf, ncap + 1)) == NULL)
			return -1;
		lr->buf = p;
		lr->cap = ncap;
	}
	for (;;) {
		n = read(lr->fd, lr->buf + lr->end, lr->cap - lr->end);
		if (n == -1 && errno == EINTR)
			continue;
		break;
	}
	if (n == -1)
		return -1;
	if (n == 0)
		lr->eof = 1;
	lr->end += (size_t)n;
	return 0;
}

int
pf_lr_next(struct pf_linereader *lr, char **line, size_t *len)
{
	char *nl;
	size_t scanned = 0;

	for (;;) {
		nl = memchr(lr->buf + lr->start + scanned, '\n',
		    lr->end - lr->start - scanned);
		if (nl != NULL) {
			*nl = '\0';
			*line = lr->buf + lr->start;
			*len = (size_t)(nl - *line);
			lr->start += *len + 1;
			lr->lineno++;
			return 1;
		}
		if (lr->eof) {
			if (lr->end == lr->start)
				return 0;
			*line = lr->buf + lr->start;
			*len = lr->end - lr->start;
			(*line)[*len] = '\0';
			lr->start = lr->end;
			lr->lineno++;
			return 1;
		}
		scanned = lr->end - lr->start;
		if (fill(lr) == -1)
			return -1;
	}
}

uint64_t
pf_lr_lineno(const struct pf_linereader *lr)
{
	return lr->lineno;
}

const char *
pf_lr_name(const struct pf_linereader *lr)
{
	return lr->name;
}

void
pf_lr_free(struct pf_linereader *lr)
{
	if (lr == NULL)
		return;
	free(lr->buf);
	free(lr->name);
	free(lr);
}
