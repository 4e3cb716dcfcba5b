/*
 * nameattr: pf-svg's --nameattr file, "NAME<TAB>KEY=VALUE[<TAB>...]" a
 * line, parsed into the per-frame extras the renderer takes (struct
 * flame_nameattr).  The file is data from somewhere else, and what it
 * sets lands in a document people open in a browser, so what could run
 * script, load anything or break the document is refused field by field:
 * links other than http, https and relative ones, event handlers, style,
 * any attribute outside a short list of inert ones, a name given twice.
 */
#ifndef PF_NAMEATTR_H
#define PF_NAMEATTR_H

#include <stddef.h>

#include "flame.h"

struct pf_nameattr;

/* An empty set, or NULL with ENOMEM. */
struct pf_nameattr *pf_nameattr_new(void);

/*
 * Called with why (printable ASCII, no newline) for each line or field
 * that is refused; the rest of the line is kept.
 */
typedef void (*pf_nameattr_warn)(void *arg, const char *why);

/*
 * Parse one line (len bytes, need not be NUL-terminated; no newline, a
 * trailing CR is ignored) and keep its fields for its name, unless the
 * name came before.  Returns 0, or -1 with ENOMEM (the line is dropped).
 */
int pf_nameattr_line(struct pf_nameattr *na, const char *line, size_t len,
    pf_nameattr_warn warn, void *arg);

/* The extras of name (len bytes), or NULL; valid until the next pf_nameattr_line. */
const struct pf_flame_nameattr *pf_nameattr_get(const struct pf_nameattr *na,
    const char *name, size_t len);

/* Number of names kept. */
size_t pf_nameattr_count(const struct pf_nameattr *na);

/*
 * Whether s (n bytes) may be a link: a relative URL, or one whose scheme
 * is http or https (any case).  Control characters and spaces at either
 * end, and '&' or '\' before the path, are refused.
 */
int pf_nameattr_href_ok(const char *s, size_t n);

/*
 * Whether name (n bytes) may be set by g_extra or a_extra: data-* and
 * aria-* names, and a few presentation attributes that take no URL.
 */
int pf_nameattr_extra_ok(const char *name, size_t n);

void pf_nameattr_free(struct pf_nameattr *na);

#endif
