/*
 * buildid: the sample stream's "# build-id" lines (pf-formats(5)), one
 * per file the recording mapped: the file's GNU build-id, its path as the
 * frames name it, and the executable loadable segments that turn a
 * frame's address (an offset in the file) into the file's own virtual
 * address, the one its symbol table speaks of.  The recorders write them
 * (pf_buildid_format); pf-fold --debug-dir reads them back
 * (pf_buildid_parse) to name a recording's [unknown] frames afterwards
 * from the debug file a debug directory keeps for that build-id
 * (pf_buildid_debug_path).  Pure functions: no I/O.
 */
#ifndef PF_BUILDID_H
#define PF_BUILDID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/*
 * The longest build-id kept, in bytes: the GNU note is 20 (SHA-1) or 16
 * (MD5, UUID) as ld writes it; ld --build-id=0xHEX may choose another
 * length.
 */
#define PF_BUILDID_MAX 64

/* The most executable loadable segments one line holds (one, nearly always). */
#define PF_BUILDID_SEGS 16

/* One PT_LOAD segment: the file's bytes [offset, offset + size) at vaddr. */
struct pf_buildid_seg {
	uint64_t offset;	/* p_offset */
	uint64_t vaddr;		/* p_vaddr, as the ELF file says (no load bias) */
	uint64_t size;		/* p_filesz */
};

struct pf_buildid {
	unsigned char id[PF_BUILDID_MAX];
	size_t idlen;		/* 1 to PF_BUILDID_MAX */
	struct pf_buildid_seg seg[PF_BUILDID_SEGS];
	size_t nseg;
};

/*
 * Append the line "# build-id HEX PATH OFFSET:VADDR:SIZE ...\n" for the
 * file at path: the build-id in lowercase hex, the path escaped as a
 * header word (pf_name_escape, PF_ESC_TOKEN: no blank, control byte or
 * ';' left in it), then one word per segment, each number in lowercase
 * hex.  0, or -1 with EINVAL (no build-id, too long, too many segments)
 * or ENOMEM.
 */
int pf_buildid_format(struct pf_buf *b, const char *path, const struct pf_buildid *id);

/*
 * One stream line (len bytes, without its newline).  1: a build-id line,
 * *id filled and *path, *pathlen the path's span in line, as written
 * (escaped); 0: not one (it does not start "# build-id "); -1 with
 * EBADMSG: it starts so but is malformed (the build-id is not an even
 * number of lowercase hex digits, or too long; no path; a segment word
 * that is not three hex numbers below 2^64 whose range fits in 64 bits;
 * more than PF_BUILDID_SEGS segments; blanks other than single spaces
 * between words).  Words holding '=' are skipped: later versions may add
 * key=value words.
 */
int pf_buildid_parse(const char *line, size_t len, struct pf_buildid *id, const char **path,
    size_t *pathlen);

/*
 * The file's own (virtual) address of offset off in the file: true with
 * *va when a segment holds off, false when none does.
 */
bool pf_buildid_vaddr(const struct pf_buildid *id, uint64_t off, uint64_t *va);

/* The same through any n segments (the symbolizer's of a mapped file). */
bool pf_buildid_seg_vaddr(const struct pf_buildid_seg *seg, size_t n, uint64_t off,
    uint64_t *va);

/*
 * Whether a frame's module, as a stream prints it (pf_name_escape without
 * flags: blanks as they are), names the file at path as a build-id line
 * writes it (blanks escaped): the same bytes, each ' ' of mod standing
 * for "\x20" in path.
 */
bool pf_buildid_path_is(const char *path, size_t pathlen, const char *mod, size_t modlen);

/* idlen bytes of id as lowercase hex, NUL-terminated, in out (2 * idlen + 1 bytes). */
void pf_buildid_hex(const unsigned char *id, size_t idlen, char *out);

/*
 * Where a debug directory keeps the debug file of a build-id, as
 * /usr/lib/debug does: DIR/.build-id/XX/REST.debug, XX the first byte in
 * hex, REST the others.  0, or -1 with EINVAL (a build-id of less than
 * two bytes has no such name) or ENAMETOOLONG (outlen is too small).
 */
int pf_buildid_debug_path(char *out, size_t outlen, const char *dir, const unsigned char *id,
    size_t idlen);

#endif
