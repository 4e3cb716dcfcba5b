/*
 * xmlesc: turn arbitrary bytes into text that is always valid inside an
 * XML document.  Invalid UTF-8, control characters and code points XML 1.0
 * forbids become U+FFFD; markup characters become entities.  The same
 * rules of what is a character make a name safe to print on a terminal
 * (pf_name_clean).
 */
#ifndef PF_XMLESC_H
#define PF_XMLESC_H

#include <stddef.h>

#include "buf.h"

#define PF_XMLESC_ATTR	0x1	/* also escape " and ' (attribute values) */
#define PF_XMLESC_RAW	0x2	/* clean only: no entities (for comments, CDATA) */

/*
 * Append s (len bytes, need not be NUL-terminated) to b as XML text:
 * every byte sequence that is not well-formed UTF-8 (overlong, surrogate,
 * above U+10FFFF, truncated) and every C0/C1 control character, DEL, U+FFFE
 * and U+FFFF is replaced by U+FFFD; then, unless PF_XMLESC_RAW, & < > (and
 * " ' with PF_XMLESC_ATTR) become entities.  Returns 0, or -1 with ENOMEM.
 */
int pf_xmlesc_append(struct pf_buf *b, const char *s, size_t len, int flags);

/*
 * Length of the well-formed UTF-8 sequence at s (at most n bytes) and its
 * code point in *cp; 0 when the bytes there are not well-formed UTF-8.
 */
size_t pf_xmlesc_utf8_decode(const unsigned char *s, size_t n, unsigned *cp);

/*
 * Clean s (len bytes, need not be NUL-terminated) in place for a
 * terminal: every byte that does not start a well-formed UTF-8 sequence
 * becomes '?', and so does every C0 or C1 control character and DEL
 * (the whole sequence of a C1 control: one '?').  Returns the new length,
 * never longer than len.  Cannot fail.
 */
size_t pf_name_clean(char *s, size_t len);

/*
 * How a name from the target (a function, a mapped file's path, a comm)
 * is written into a sample stream, so that it can neither end its line
 * nor split its field: every control byte (below 0x20, and DEL) and ';'
 * (the folded format's frame separator) become \xHH, and the backslash
 * itself \\.  Nothing else changes, so an ordinary name is written as it
 * is, and an escaped name is never turned back: readers keep the escaped
 * form.  PF_ESC_TOKEN also escapes every space (a header's key=value
 * token); PF_ESC_COMM a space that a digit follows (a sample line's comm,
 * which would otherwise read as the start of its pid/tid field), and a
 * space or '#' that starts it (the comm starts its line, which would
 * then be no event line, or a comment).
 */
#define PF_ESC_TOKEN	0x1
#define PF_ESC_COMM	0x2

/*
 * Append s (len bytes, need not be NUL-terminated) to b escaped as above.
 * 0, or -1 with ENOMEM.
 */
int pf_name_escape(struct pf_buf *b, const char *s, size_t len, int flags);

/* The same for a NUL-terminated name. */
int pf_name_escape_str(struct pf_buf *b, const char *s, int flags);

#endif
