/*
 * stackmap: an htab index over one growing array of entries, with keys in
 * large arena blocks, so an insert is one probe and one memcpy and
 * freeing is a handful of free() calls.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>

#include "grow.h"
#include "hash.h"
#include "htab.h"
#include "stackmap.h"

#define ARENA_BLOCK (2u << 20)	/* a huge page on x86-64 and arm64 (4K pages) */
/* The first block is small: most maps in tests and fuzzing hold a few keys. */
#define ARENA_FIRST (16u << 10)

struct arena {
	struct arena *next;
	size_t used, cap;
	char data[];
};

struct pf_stackmap {
	struct pf_htab index;
	struct pf_stackmap_entry *ents;
	size_t nents, cap_ents;
	struct arena *arena;
};

struct pf_stackmap *
pf_stackmap_new(void)
{
	struct pf_stackmap *m;

	if ((m = calloc(1, sizeof(*m))) == NULL)
		return NULL;
	if (pf_htab_init(&m->index, 1024) == -1) {
		free(m);
		return NULL;
	}
	return m;
}

static char *
arena_copy(struct pf_stackmap *m, const char *key, size_t len)
{
	struct arena *a = m->arena;
	char *p;

	if (a == NULL || a->cap - a->used < len + 1) {
		size_t want = m->arena ? ARENA_BLOCK - sizeof(*a) : ARENA_FIRST;
		size_t cap = len + 1 > want ? len + 1 : want;

		if (cap == ARENA_BLOCK - sizeof(*a)) {
			/*
			 * Full blocks are one aligned huge page where the kernel
			 * allows it: one page fault per block instead of 512,
			 * which is a fifth of the run time of a fold with many
			 * distinct stacks (page faults are dear in VMs).
			 */
			void *blk;

			if (posix_memalign(&blk, ARENA_BLOCK, ARENA_BLOCK) != 0)
				return NULL;
			(void)madvise(blk, ARENA_BLOCK, MADV_HUGEPAGE);
			a = blk;
		} else if ((a = malloc(sizeof(*a) + cap)) == NULL)
			return NULL;
		a->used = 0;
		a->cap = cap;
		a->next = m->arena;
		m->arena = a;
	}
	p = a->data + a->used;
	memcpy(p, key, len);
	p[len] = '\0';
	a->used += len + 1;
	return p;
}

struct key {
	const struct pf_stackmap *m;
	const char *key;
	size_t len;
};

static bool
key_eq(const void *arg, size_t idx)
{
	const struct key *k = arg;
	const struct pf_stackmap_entry *e = &k->m->ents[idx];

	return e->len == k->len && memcmp(e->key, k->key, k->len) == 0;
}

int
pf_stackmap_add(struct pf_stackmap *m, const char *key, size_t len,
    uint64_t c0, uint64_t c1)
{
	uint64_t h = pf_hash(key, len);
	struct key k = { m, key, len };
	struct pf_htab_slot *s = pf_htab_claim(&m->index, h, key_eq, &k);
	struct pf_stackmap_entry *e;

	if (s == NULL)
		return -1;
	if (s->idx == 0) {
		if (pf_grow(&m->ents, &m->cap_ents, m->nents + 1, sizeof(*m->ents)) == -1)
			return -1;
		e = &m->ents[m->nents];
		if ((e->key = arena_copy(m, key, len)) == NULL)
			return -1;
		e->len = len;
		e->count[0] = e->count[1] = 0;
		pf_htab_set(&m->index, s, h, m->nents++);
	}
	e = &m->ents[s->idx - 1];
	if (e->count[0] > UINT64_MAX - c0 || e->count[1] > UINT64_MAX - c1) {
		errno = EOVERFLOW;
		return -1;
	}
	e->count[0] += c0;
	e->count[1] += c1;
	return 0;
}

const struct pf_stackmap_entry *
pf_stackmap_get(const struct pf_stackmap *m, const char *key, size_t len)
{
	struct key k = { m, key, len };
	const struct pf_htab_slot *s = pf_htab_find(&m->index, pf_hash(key, len), key_eq, &k);

	return s->idx ? &m->ents[s->idx - 1] : NULL;
}

size_t
pf_stackmap_size(const struct pf_stackmap *m)
{
	return m->nents;
}

static int
cmp_entry(const void *a, const void *b)
{
	const struct pf_stackmap_entry *x = *(const struct pf_stackmap_entry *const *)a;
	const struct pf_stackmap_entry *y = *(const struct pf_stackmap_entry *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->key, y->key, n);

	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

const struct pf_stackmap_entry **
pf_stackmap_sorted(const struct pf_stackmap *m, size_t *n)
{
	const struct pf_stackmap_entry **v;
	size_t i;

	if ((v = malloc((m->nents ? m->nents : 1) * sizeof(*v))) == NULL)
		return NULL;
	for (i = 0; i < m->nents; i++)
		v[i] = &m->ents[i];
	qsort(v, m->nents, sizeof(*v), cmp_entry);
	*n = m->nents;
	return v;
}

void
pf_stackmap_foreach(const struct pf_stackmap *m,
    void (*fn)(const struct pf_stackmap_entry *e, void *arg), void *arg)
{
	size_t i;

	for (i = 0; i < m->nents; i++)
		fn(&m->ents[i], arg);
}

void
pf_stackmap_free(struct pf_stackmap *m)
{
	struct arena *a, *next;

	if (m == NULL)
		return;
	for (a = m->arena; a; a = next) {
		next = a->next;
		free(a);
	}
	free(m->ents);
	pf_htab_free(&m->index);
	free(m);
}
