/*
 * stackmap: a hash table from stack strings ("root;...;leaf") to one or two
 * counts, the aggregate behind every folded output.  Memory grows with the
 * number of unique stacks, not with how often they are added.
 */
#ifndef PF_STACKMAP_H
#define PF_STACKMAP_H

#include <stddef.h>
#include <stdint.h>

struct stackmap;

struct stackmap_entry {
	const char *key;	/* owned by the map; NUL-terminated */
	size_t len;
	uint64_t count[2];
};

/* An empty map, or NULL with ENOMEM. */
struct stackmap *stackmap_new(void);

/*
 * Add c0 and c1 to the counts of key (len bytes; need not be
 * NUL-terminated), inserting it at 0 first.  Returns 0, or -1 with ENOMEM,
 * or EOVERFLOW when a count would wrap (the counts are left unchanged).
 */
int stackmap_add(struct stackmap *m, const char *key, size_t len,
    uint64_t c0, uint64_t c1);

/* The entry for key, or NULL. */
const struct stackmap_entry *stackmap_get(const struct stackmap *m,
    const char *key, size_t len);

/* Number of unique keys. */
size_t stackmap_size(const struct stackmap *m);

/*
 * All entries sorted byte-wise by key (memcmp, shorter first on a tie),
 * as a malloc'd array of *n pointers the caller frees; the entries stay
 * owned by the map and valid until the next add or stackmap_free.
 * NULL with ENOMEM (or *n == 0 and a valid empty array).
 */
const struct stackmap_entry **stackmap_sorted(const struct stackmap *m,
    size_t *n);

/* Visit entries in table order (fast, unsorted). */
void stackmap_foreach(const struct stackmap *m,
    void (*fn)(const struct stackmap_entry *e, void *arg), void *arg);

void stackmap_free(struct stackmap *m);

#endif
