/*
 * stackmap: open addressing with linear probing over a power-of-two slot
 * array of (hash, entry index); entries live in one growing array and
 * keys in large arena blocks, so an insert is one probe and one memcpy and
 * freeing is a handful of free() calls.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>

#include "hash.h"
#include "stackmap.h"

#define ARENA_BLOCK (2u << 20)	/* a huge page on x86-64 and arm64 (4K pages) */
/* The first block is small: most maps in tests and fuzzing hold a few keys. */
#define ARENA_FIRST (16u << 10)

struct slot {
	uint64_t hash;
	size_t idx;	/* entry index + 1; 0 = empty */
};

struct arena {
	struct arena *next;
	size_t used, cap;
	char data[];
};

struct stackmap {
	struct slot *slots;
	size_t nslots;		/* power of two */
	struct stackmap_entry *ents;
	size_t nents, cap_ents;
	struct arena *arena;
};

struct stackmap *
stackmap_new(void)
{
	struct stackmap *m;

	if ((m = calloc(1, sizeof(*m))) == NULL)
		return NULL;
	m->nslots = 1024;
	if ((m->slots = calloc(m->nslots, sizeof(*m->slots))) == NULL) {
		free(m);
		return NULL;
	}
	return m;
}

static char *
arena_copy(struct stackmap *m, const char *key, size_t len)
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

static int
grow(struct stackmap *m)
{
	size_t n = m->nslots * 2, i, j;
	struct slot *s;

	if ((s = calloc(n, sizeof(*s))) == NULL)
		return -1;
	for (i = 0; i < m->nslots; i++) {
		if (m->slots[i].idx == 0)
			continue;
		for (j = m->slots[i].hash & (n - 1); s[j].idx; j = (j + 1) & (n - 1))
			;
		s[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = s;
	m->nslots = n;
	return 0;
}

static struct slot *
lookup(const struct stackmap *m, const char *key, size_t len, uint64_t h)
{
	size_t i;

	for (i = h & (m->nslots - 1); m->slots[i].idx; i = (i + 1) & (m->nslots - 1)) {
		const struct stackmap_entry *e;

		if (m->slots[i].hash != h)
			continue;
		e = &m->ents[m->slots[i].idx - 1];
		if (e->len == len && memcmp(e->key, key, len) == 0)
			return &m->slots[i];
	}
	return &m->slots[i];
}

int
stackmap_add(struct stackmap *m, const char *key, size_t len,
    uint64_t c0, uint64_t c1)
{
	uint64_t h = pf_hash(key, len);
	struct slot *s = lookup(m, key, len, h);
	struct stackmap_entry *e;

	if (s->idx == 0) {
		if ((m->nents + 1) * 4 > m->nslots * 3) {
			if (grow(m) == -1)
				return -1;
			s = lookup(m, key, len, h);
		}
		if (m->nents == m->cap_ents) {
			size_t cap = m->cap_ents ? m->cap_ents * 2 : 1024;
			void *p = realloc(m->ents, cap * sizeof(*m->ents));

			if (p == NULL)
				return -1;
			m->ents = p;
			m->cap_ents = cap;
		}
		e = &m->ents[m->nents];
		if ((e->key = arena_copy(m, key, len)) == NULL)
			return -1;
		e->len = len;
		e->count[0] = e->count[1] = 0;
		s->hash = h;
		s->idx = ++m->nents;
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

const struct stackmap_entry *
stackmap_get(const struct stackmap *m, const char *key, size_t len)
{
	struct slot *s = lookup(m, key, len, pf_hash(key, len));

	return s->idx ? &m->ents[s->idx - 1] : NULL;
}

size_t
stackmap_size(const struct stackmap *m)
{
	return m->nents;
}

static int
cmp_entry(const void *a, const void *b)
{
	const struct stackmap_entry *x = *(const struct stackmap_entry *const *)a;
	const struct stackmap_entry *y = *(const struct stackmap_entry *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->key, y->key, n);

	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

const struct stackmap_entry **
stackmap_sorted(const struct stackmap *m, size_t *n)
{
	const struct stackmap_entry **v;
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
stackmap_foreach(const struct stackmap *m,
    void (*fn)(const struct stackmap_entry *e, void *arg), void *arg)
{
	size_t i;

	for (i = 0; i < m->nents; i++)
		fn(&m->ents[i], arg);
}

void
stackmap_free(struct stackmap *m)
{
	struct arena *a, *next;

	if (m == NULL)
		return;
	for (a = m->arena; a; a = next) {
		next = a->next;
		free(a);
	}
	free(m->ents);
	free(m->slots);
	free(m);
}
