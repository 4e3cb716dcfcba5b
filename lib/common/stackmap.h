/*
 * stackmap: a hash table from stack strings ("root;...;leaf") to one or two
 * counts, the aggregate behind every folded output.  Memory grows with the
 * number of unique stacks, not with how often they are added.
 */
#ifndef PF_STACKMAP_H
#define PF_STACKMAP_H

#include <stddef.h>
#include <stdint.h>

struct pf_stackmap;

struct pf_stackmap_entry {
	const char *key;	/* owned by the map; NUL-terminated */
	size_t len;
	uint64_t count[2];
};

/* An empty map, or NULL with ENOMEM. */
struct pf_stackmap *pf_stackmap_new(void);

/*
 * Add c0 and c1 to the counts of key (len bytes; need not be
 * NUL-terminated), inserting it at 0 first.  Returns 0, or -1 with ENOMEM,
 * or EOVERFLOW when a count would wrap (the counts are left unchanged).
 */
int pf_stackmap_add(struct pf_stackmap *m, const char *key, size_t len,
    uint64_t c0, uint64_t c1);

/* The entry for key, or NULL. */
const struct pf_stackmap_entry *pf_stackmap_get(const struct pf_stackmap *m,
    const char *key, size_t len);

/* Number of unique keys. */
size_t pf_stackmap_size(const struct pf_stackmap *m);

/*
 * All entries sorted byte-wise by key (memcmp, shorter first on a tie),
 * as a malloc'd array of *n pointers the caller frees; the entries stay
 * owned by the map and valid until the next add or pf_stackmap_free.
 * NULL with ENOMEM (or *n == 0 and a valid empty array).
 */
const struct pf_stackmap_entry **pf_stackmap_sorted(const struct pf_stackmap *m,
    size_t *n);

/* Visit entries in table order (fast, unsorted). */
void pf_stackmap_foreach(const struct pf_stackmap *m,
    void (*fn)(const struct pf_stackmap_entry *e, void *arg), void *arg);

void pf_stackmap_free(struct pf_stackmap *m);

#endif
