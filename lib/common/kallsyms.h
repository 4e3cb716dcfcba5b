/*
 * kallsyms: kernel symbols from /proc/kallsyms.
 *
 * The kernel decides whether a reader sees real addresses when the file
 * is opened (f_cred), so a tool opens it before dropping privileges and
 * hands the fd here, possibly much later.
 */
#ifndef PF_KALLSYMS_H
#define PF_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

struct pf_kallsyms;

/*
 * Whether the kallsyms text behind fd shows non-zero addresses (reads the
 * first lines, then rewinds).  1 yes, 0 no, -1 with errno on I/O error.
 */
int pf_kallsyms_fd_visible(int fd);

/*
 * Read every text symbol (types t, T, w, W) with a non-zero address from
 * fd (rewound first; the caller keeps ownership of fd).  NULL with errno
 * on failure.
 */
struct pf_kallsyms *pf_kallsyms_load(int fd);

/*
 * Load from len bytes of kallsyms text in memory (lines split at '\n',
 * the last one with or without it; any bytes).  What pf_kallsyms_load
 * keeps of the same text.  NULL with errno.
 */
struct pf_kallsyms *pf_kallsyms_load_text(const char *text, size_t len);

/* Load from a file of kallsyms text (tests, fixtures).  NULL with errno. */
struct pf_kallsyms *pf_kallsyms_load_path(const char *path);

/*
 * The symbol containing addr: its name, with *off the offset into it and
 * *module the module name or NULL for the core kernel.  NULL when addr is
 * below the first symbol or beyond the last.
 */
const char *pf_kallsyms_lookup(const struct pf_kallsyms *k, uint64_t addr,
    uint64_t *off, const char **module);

/* Number of symbols loaded. */
uint64_t pf_kallsyms_count(const struct pf_kallsyms *k);

void pf_kallsyms_free(struct pf_kallsyms *k);

#endif
