/*
 * writer: buffered writes of whole samples under size and disk caps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "buf.h"
#include "fileio.h"
#include "writer.h"

struct pf_writer {
	int fd;
	bool regular;
	bool can_falloc;
	uint64_t max_size, min_free;
	uint64_t committed;	/* bytes safely in the output */
	uint64_t allocated;	/* file blocks reserved up to here */
	uint64_t avail;		/* free bytes at the last statvfs, minus what we wrote since */
	uint64_t samples;	/* samples in the output */
	uint64_t bsamples;	/* samples in the buffer */
	uint64_t truncated;	/* for the trailer, when has_truncated */
	bool has_truncated;
	uint64_t aggregated;	/* for the trailer, when has_aggregated */
	bool has_aggregated;
	uint64_t chains;	/* for the trailer, when has_chains */
	bool has_chains;
	uint64_t py_merged, py_mismatch;	/* for the trailer, when has_py */
	bool has_py;
	uint64_t incomplete;	/* for the trailer, when has_incomplete */
	bool has_incomplete;
	char causes[PF_WRITER_CAUSES_MAX + 1];
	enum pf_stop stop;
	int err;
	struct pf_buf b;	/* whole samples not yet written */
};

static int
refresh_avail(struct pf_writer *w)
{
	struct statvfs sv;

	if (!w->regular || w->min_free == 0)
		return 0;
	if (fstatvfs(w->fd, &sv) == -1)
		return -1;
	w->avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	return 0;
}

/* Keep the file's blocks allocated up to end, so the trailer always has room. */
static int
reserve_to(struct pf_writer *w, uint64_t end)
{
	if (!w->can_falloc || end <= w->allocated)
		return 0;
	if (fallocate(w->fd, FALLOC_FL_KEEP_SIZE, (off_t)w->allocated,
	    (off_t)(end - w->allocated)) == -1) {
		if (errno == EOPNOTSUPP || errno == ENOSYS) {
			w->can_falloc = false;
			return 0;
		}
		return -1;
	}
	w->allocated = end;
	return 0;
}

struct pf_writer *
pf_writer_new(int fd, uint64_t max_size, uint64_t min_free)
{
	struct pf_writer *w;
	struct stat st;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return NULL;
	w->fd = fd;
	w->max_size = max_size;
	w->min_free = min_free;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		off_t pos = lseek(fd, 0, SEEK_CUR);

		w->regular = true;
		w->can_falloc = true;
		w->committed = pos > 0 ? (uint64_t)pos : 0;
		w->allocated = w->committed;
	}
	if (refresh_avail(w) == -1) {
		free(w);
		return NULL;
	}
	return w;
}

static enum pf_stop
fail_stop(struct pf_writer *w, int e)
{
	w->err = e;
	if (e == EPIPE)
		return PF_STOP_PIPE;
	if (e == ENOSPC || e == EDQUOT || e == EFBIG)
		return PF_STOP_DISK_FULL;
	return PF_STOP_IO;
}

/*
 * Whether writing n more bytes now would take the filesystem below the
 * floor, looking again at its free space: another writer may have filled
 * it since the last look.
 */
static bool
below_floor(struct pf_writer *w, size_t n)
{
	if (!w->regular || w->min_free == 0 || refresh_avail(w) == -1)
		return false;
	return w->avail < w->min_free + n + PF_WRITER_TRAILER_MAX;
}

/*
 * Write the buffer in pieces of at most PF_WRITER_PIECE bytes, the disk
 * floor checked afresh before each (unless floor is false: the header,
 * written on the start-up check's word).  On a failure or the floor,
 * cut the file back to the last whole sample, so what is there stays a
 * valid stream, and drop the buffer.
 */
static enum pf_stop
flush(struct pf_writer *w, bool floor)
{
	uint64_t at = w->committed;
	enum pf_stop r = PF_STOP_NONE;
	size_t off, n;

	for (off = 0; off < w->b.len; off += n, at += n) {
		n = w->b.len - off < PF_WRITER_PIECE ? w->b.len - off : PF_WRITER_PIECE;
		if (floor && below_floor(w, n)) {
			r = PF_STOP_DISK_FLOOR;
			break;
		}
		if (reserve_to(w, at + n + PF_WRITER_TRAILER_MAX) == -1 ||
		    pf_write_all(w->fd, w->b.data + off, n) == -1) {
			r = fail_stop(w, errno);
			break;
		}
	}
	if (r != PF_STOP_NONE) {
		/* A failed write may have left part of its piece. */
		if (w->regular) {
			(void)!ftruncate(w->fd, (off_t)w->committed);
			(void)lseek(w->fd, (off_t)w->committed, SEEK_SET);
		}
		pf_buf_reset(&w->b);
		w->bsamples = 0;
		return r;
	}
	w->committed = at;
	w->samples += w->bsamples;
	w->bsamples = 0;
	w->avail = w->avail > w->b.len ? w->avail - w->b.len : 0;
	pf_buf_reset(&w->b);
	if (refresh_avail(w) == -1)
		return fail_stop(w, errno);
	return PF_STOP_NONE;
}

/* Whether len more bytes (plus the trailer) fit under both caps. */
static enum pf_stop
fits(const struct pf_writer *w, size_t len)
{
	uint64_t after = w->committed + w->b.len + len + PF_WRITER_TRAILER_MAX;

	if (after > w->max_size)
		return PF_STOP_SIZE_CAP;
	if (w->regular && w->min_free) {
		uint64_t need = w->b.len + len + PF_WRITER_TRAILER_MAX;

		if (w->avail < need || w->avail - need < w->min_free)
			return PF_STOP_DISK_FLOOR;
	}
	return PF_STOP_NONE;
}

/* What add is given: header lines go out at once, comments and samples are buffered. */
enum kind { HEADER, COMMENT, SAMPLE };

static enum pf_stop
add(struct pf_writer *w, const char *text, size_t len, enum kind kind)
{
	enum pf_stop r;

	if (w->stop != PF_STOP_NONE)
		return w->stop;
	/* A piece holds whole samples: write what is buffered before it would overflow. */
	if (w->b.len > 0 && w->b.len + len > PF_WRITER_PIECE &&
	    (w->stop = flush(w, true)) != PF_STOP_NONE)
		return w->stop;
	if ((r = fits(w, len)) != PF_STOP_NONE) {
		/* The floor is checked against a possibly stale figure: look again. */
		if (r == PF_STOP_DISK_FLOOR && refresh_avail(w) == 0)
			r = fits(w, len);
		if (r != PF_STOP_NONE)
			return w->stop = r;
	}
	/* Out of memory: no more samples, but the trailer needs none. */
	if (pf_buf_append(&w->b, text, len) == -1)
		return w->stop = errno == ENOMEM ? PF_STOP_MEMORY : fail_stop(w, errno);
	if (kind == SAMPLE)
		w->bsamples++;
	/* The header goes out at once, so even a run stopped at once says what it was. */
	if (kind == HEADER || w->b.len >= PF_WRITER_PIECE)
		w->stop = flush(w, kind != HEADER);
	return w->stop;
}

enum pf_stop
pf_writer_header(struct pf_writer *w, const char *text, size_t len)
{
	return add(w, text, len, HEADER);
}

enum pf_stop
pf_writer_comment(struct pf_writer *w, const char *text, size_t len)
{
	return add(w, text, len, COMMENT);
}

enum pf_stop
pf_writer_sample(struct pf_writer *w, const char *text, size_t len)
{
	return add(w, text, len, SAMPLE);
}

static int
digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

void
pf_writer_trailer_truncated(struct pf_writer *w, uint64_t n)
{
	w->has_truncated = true;
	w->truncated = n;
}

void
pf_writer_trailer_aggregated(struct pf_writer *w, uint64_t n)
{
	w->has_aggregated = true;
	w->aggregated = n;
}

void
pf_writer_trailer_chains(struct pf_writer *w, uint64_t n)
{
	w->has_chains = true;
	w->chains = n;
}

void
pf_writer_trailer_incomplete(struct pf_writer *w, uint64_t n, const char *causes)
{
	w->has_incomplete = true;
	w->incomplete = n;
	snprintf(w->causes, sizeof(w->causes), "%s", causes ? causes : "");
}

void
pf_writer_trailer_python(struct pf_writer *w, uint64_t merged, uint64_t mismatch)
{
	w->has_py = true;
	w->py_merged = merged;
	w->py_mismatch = mismatch;
}

enum pf_stop
pf_writer_finish(struct pf_writer *w, const char *tool, uint64_t lost, uint64_t throttled, enum pf_stop reason)
{
	char line[PF_WRITER_TRAILER_MAX + 64];
	enum pf_stop r = w->stop, f;
	uint64_t total;
	int n, prev = 0;

	/* Samples accepted before a cap was hit are still written, above the floor. */
	if ((f = flush(w, true)) != PF_STOP_NONE)
		r = f;
	if (r == PF_STOP_PIPE || r == PF_STOP_IO)
		return r;
	if (r == PF_STOP_NONE)
		r = reason;
	/* bytes= counts the trailer too: settle its own digit count. */
	n = snprintf(line, sizeof(line), "# %s: samples=%llu lost=%llu throttled=%llu ",
	    tool, (unsigned long long)w->samples, (unsigned long long)lost,
	    (unsigned long long)throttled);
	if (w->has_truncated)
		n += snprintf(line + n, sizeof(line) - (size_t)n, "truncated=%llu ",
		    (unsigned long long)w->truncated);
	if (w->has_aggregated)
		n += snprintf(line + n, sizeof(line) - (size_t)n, "aggregated=%llu ",
		    (unsigned long long)w->aggregated);
	if (w->has_chains)
		n += snprintf(line + n, sizeof(line) - (size_t)n, "unknown-chain=%llu ",
		    (unsigned long long)w->chains);
	if (w->has_incomplete) {
		n += snprintf(line + n, sizeof(line) - (size_t)n, "incomplete=%llu ",
		    (unsigned long long)w->incomplete);
		if (w->incomplete > 0 && w->causes[0] != '\0')
			n += snprintf(line + n, sizeof(line) - (size_t)n, "incomplete-causes=%s ",
			    w->causes);
	}
	if (w->has_py)
		n += snprintf(line + n, sizeof(line) - (size_t)n, "py-merged=%llu py-mismatch=%llu ",
		    (unsigned long long)w->py_merged, (unsigned long long)w->py_mismatch);
	n += snprintf(line + n, sizeof(line) - (size_t)n, "stop=%s bytes=", pf_stop_name(r));
	total = w->committed + (uint64_t)n + 1;
	while (digits(total + (uint64_t)prev) != prev)
		prev = digits(total + (uint64_t)prev);
	total += (uint64_t)prev;
	n += snprintf(line + n, sizeof(line) - (size_t)n, "%llu\n", (unsigned long long)total);
	if ((size_t)n > PF_WRITER_TRAILER_MAX)	/* cannot happen with short tool names */
		n = PF_WRITER_TRAILER_MAX;
	if (pf_write_all(w->fd, line, (size_t)n) == -1) {
		int e = errno;

		if (w->regular)
			(void)!ftruncate(w->fd, (off_t)w->committed);
		if (r == PF_STOP_DISK_FULL || r == PF_STOP_DISK_FLOOR)
			return r;
		return fail_stop(w, e);
	}
	w->committed += (uint64_t)n;
	/* Give back what fallocate kept beyond the end (a same-size truncate may not). */
	if (w->regular && w->allocated > w->committed) {
		(void)!ftruncate(w->fd, (off_t)w->committed + 1);
		(void)!ftruncate(w->fd, (off_t)w->committed);
	}
	return r;
}

uint64_t
pf_writer_samples(const struct pf_writer *w)
{
	return w->samples;
}

uint64_t
pf_writer_bytes(const struct pf_writer *w)
{
	return w->committed + w->b.len;
}

int
pf_writer_errno(const struct pf_writer *w)
{
	return w->err;
}

void
pf_writer_free(struct pf_writer *w)
{
	if (w == NULL)
		return;
	pf_buf_free(&w->b);
	free(w);
}
