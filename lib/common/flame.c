/*
 * flame: the frame tree behind pf-svg, built as folded stacks stream in
 * (flamelayout.c places its frames, flamecolor.c colours them and
 * flamesvg.c writes the SVG).
 *
 * A node is found while merging by a hash of its path (the names from the
 * root down to it), not of (parent, name): a path hash depends only on
 * the input bytes, so every frame of a stack can have its table slot
 * fetched before the walk needs it, and the cache misses of a deep stack
 * overlap instead of following one another.  The node found is then
 * checked exactly (parent and name id), so a hash collision costs a
 * probe, never a wrong merge.  A flame chart instead only looks at the
 * parent's newest child.  Consecutive input lines usually share a long
 * prefix (pf-fold sorts its output), so the nodes of the previous line's
 * path are remembered and the shared frames cost a byte comparison
 * instead of look-ups.
 *
 * Names are interned in the one interning table (intern.h), hashed here
 * by scan_frame as each frame's end is found, so that the slots of a
 * batch of frames can be fetched before they are probed.  The child
 * table is not htab.h's for the reasons intern.h gives for its own
 * slots: 8 bytes (32 bits of the path hash beside a 32-bit node), every
 * probe of a batch prefetched before it is read; htab.h's 16-byte slots
 * were measured slower on the names, and the child table is the hotter
 * of the two.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "flame.h"
#include "flametree.h"
#include "grow.h"
#include "hash.h"
#include "intern.h"

#define NONE PF_FLAME_NONE
/*
 * Nodes are numbered in 32 bits, NONE among them, and the child table's
 * mask is 32 bits: at most 2^31 of them (where doubling its 32-bit
 * capacity from 1024 stopped), as intern.h allows names.
 */
#define MAX_IDS ((uint32_t)1 << 31)

/*
 * Frames hashed and prefetched ahead of the walk: enough to cover a
 * typical stack and keep many misses in flight, small enough for the
 * stack.
 */
#define BATCH 32

#define ONES8 0x0101010101010101ull
#define HIGH8 0x8080808080808080ull
#define PATH_SEED 0x243f6a8885a308d3ull

/* 8 bytes, the first in the low bits whatever the host's byte order. */
static inline uint64_t
load8(const char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

static inline uint64_t
hstep(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

/*
 * Find the end of the frame starting at s[pos] (the next ';', or len) and
 * hash its bytes, eight at a time: one pass does the split and the hash.
 * The hash depends only on the frame's bytes, never on where it lies, so
 * a name hashes the same in every stack.
 */
static inline uint64_t
scan_frame(const char *s, size_t len, size_t pos, size_t *endp)
{
	uint64_t h = 0, w = 0, z;
	size_t i = pos;
	unsigned b;

	for (; len - i >= 8; i += 8) {
		w = load8(s + i);
		z = w ^ (ONES8 * ';');
		z = (z - ONES8) & ~z & HIGH8;	/* high bit of each ';' byte */
		if (z != 0) {
			/* The lowest flag is exact: borrows only run upwards. */
			b = (unsigned)__builtin_ctzll(z) >> 3;
			if (b > 0)
				h = hstep(h, w & (~0ull >> (64 - 8 * b)));
			i += b;
			goto done;
		}
		h = hstep(h, w);
	}
	/* The last few bytes, packed as the word path packs them. */
	for (w = 0, b = 0; i < len && s[i] != ';'; i++, b++)
		w |= (uint64_t)(unsigned char)s[i] << (8 * b);
	if (b > 0)
		h = hstep(h, w);
done:
	*endp = i;
	return pf_hash_u64(h ^ (i - pos));
}

/*
 * The length of the common prefix of a and b, n bytes at most, compared
 * eight at a time: on sorted input this runs over most of every line.
 */
static size_t
common_prefix(const char *a, const char *b, size_t n)
{
	size_t i = 0;
	uint64_t x;

	for (; n - i >= 8; i += 8) {
		if ((x = load8(a + i) ^ load8(b + i)) != 0)
			return i + ((unsigned)__builtin_ctzll(x) >> 3);
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* The hash of a path one frame longer than the path hashed p. */
static inline uint64_t
path_step(uint64_t p, uint64_t name_hash)
{
	return pf_hash_u64(p ^ name_hash);
}

/* The bits of a path hash that tag and place a child slot. */
static inline uint32_t
path_tag(uint64_t p)
{
	return (uint32_t)(p >> 32);
}

struct pf_flame *
pf_flame_new(int flamechart, int reverse)
{
	struct pf_flame *f;
	size_t end;
	uint32_t id;

	if ((f = calloc(1, sizeof(*f))) == NULL)
		return NULL;
	f->flamechart = flamechart;
	f->reverse = reverse;
	f->capnodes = 1024;
	f->nodes = malloc(f->capnodes * sizeof(*f->nodes));
	f->child_mask = 2047;
	f->child_tab = calloc(f->child_mask + 1, sizeof(*f->child_tab));
	if (f->nodes == NULL || f->child_tab == NULL ||
	    pf_intern_init(&f->names, 256) == -1) {
		pf_flame_free(f);
		errno = ENOMEM;
		return NULL;
	}
	/*
	 * The root: name "all" (id 0), never looked up as a child.  It is
	 * hashed as a frame is, so a frame named "all" is the same name
	 * (but another node).
	 */
	f->nodes[0] = (struct pf_flame_node){ NONE, 0, NONE, NONE, 0, 0 };
	f->nnodes = 1;
	if (pf_intern_add_hashed(&f->names, "all", 3,
	    (uint32_t)scan_frame("all", 3, 0, &end), &id) == -1) {
		pf_flame_free(f);
		errno = ENOMEM;
		return NULL;
	}
	return f;
}

void
pf_flame_free(struct pf_flame *f)
{
	if (f == NULL)
		return;
	free(f->nodes);
	free(f->child_tab);
	pf_intern_free(&f->names);
	free(f->prev_nodes);
	free(f->prev_end);
	free(f->prev_path);
	pf_buf_free(&f->prev);
	pf_buf_free(&f->rev);
	free(f);
}

uint64_t
pf_flame_total(const struct pf_flame *f)
{
	return f->nodes[0].value;
}

size_t
pf_flame_nframes(const struct pf_flame *f)
{
	return f->nnodes;
}

static int
grow_children(struct pf_flame *f)
{
	uint32_t mask = f->child_mask * 2 + 1, i, h;
	struct pf_flame_slot *tab;

	if ((tab = calloc((size_t)mask + 1, sizeof(*tab))) == NULL)
		return -1;
	/* The tags place the slots: no node is read. */
	for (i = 0; i <= f->child_mask; i++) {
		if (f->child_tab[i].node == 0)
			continue;
		for (h = f->child_tab[i].tag & mask; tab[h].node != 0;
		    h = (h + 1) & mask)
			;
		tab[h] = f->child_tab[i];
	}
	free(f->child_tab);
	f->child_tab = tab;
	f->child_mask = mask;
	return 0;
}

/*
 * The child of parent named id, whose path hashes to tag, created (with
 * zero counts) if missing.
 */
static uint32_t
child(struct pf_flame *f, uint32_t parent, uint32_t id, uint32_t tag)
{
	uint32_t h = 0, c;
	struct pf_flame_node *n;

	if (f->flamechart) {
		c = f->nodes[parent].first_child;
		if (c != NONE && f->nodes[c].name == id)
			return c;
	} else {
		/*
		 * A parent without children (most often one created a
		 * moment ago on this same stack) needs no look-up, only a free
		 * slot.
		 */
		int empty = f->nodes[parent].first_child == NONE;

		for (h = tag & f->child_mask; (c = f->child_tab[h].node) != 0;
		    h = (h + 1) & f->child_mask) {
			if (empty || f->child_tab[h].tag != tag)
				continue;
			if (f->nodes[c].parent == parent && f->nodes[c].name == id)
				return c;
		}
	}
	if (f->nnodes >= MAX_IDS) {
		errno = ENOMEM;
		return NONE;
	}
	if (pf_grow(&f->nodes, &f->capnodes, (size_t)f->nnodes + 1, sizeof(*f->nodes)) == -1)
		return NONE;
	c = f->nnodes++;
	n = &f->nodes[c];
	n->parent = parent;
	n->name = id;
	n->first_child = NONE;
	n->next_sibling = f->nodes[parent].first_child;
	n->value = 0;
	n->delta = 0;
	f->nodes[parent].first_child = c;
	if (!f->flamechart) {
		f->child_tab[h] = (struct pf_flame_slot){ tag, c };
		/*
		 * Up to 3/4 full: a probe compares tags, eight to a cache
		 * line, so longer runs cost little, while the table is a
		 * third of the memory of a big graph.
		 */
		if ((uint64_t)f->nnodes * 4 > (uint64_t)f->child_mask * 3 &&
		    grow_children(f) == -1) {
			/* The node stays findable by a full rebuild later. */
			return NONE;
		}
	}
	return c;
}

static int64_t
sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static int64_t
sat_delta(uint64_t c1, uint64_t c2)
{
	if (c2 >= c1)
		return c2 - c1 > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(c2 - c1);
	return c1 - c2 > (uint64_t)INT64_MAX ? INT64_MIN + 1 : -(int64_t)(c1 - c2);
}

/* Reverse the frame order of s into f->rev.  -1 on ENOMEM. */
static int
reverse_frames(struct pf_flame *f, const char *s, size_t len)
{
	size_t end = len, i;

	pf_buf_reset(&f->rev);
	/* Drop trailing empty frames first, as a forward split would. */
	while (end > 0 && s[end - 1] == ';')
		end--;
	i = end;
	while (i > 0) {
		size_t j = i;
		while (j > 0 && s[j - 1] != ';')
			j--;
		if (f->rev.len > 0 && pf_buf_putc(&f->rev, ';') == -1)
			return -1;
		if (pf_buf_append(&f->rev, s + j, i - j) == -1)
			return -1;
		if (j == 0)
			break;
		i = j - 1;
	}
	return pf_buf_reserve(&f->rev, 0);
}

static int
remember(struct pf_flame *f, size_t depth, uint32_t node, size_t end,
    uint64_t path)
{
	if (depth >= f->capprev) {
		size_t ca = f->capprev, cb = f->capprev, cp = f->capprev;

		/*
		 * Side by side, each from the one capacity: the smallest is
		 * kept, so that a failure half-way leaves every array at
		 * least as large as it says (grow.h).
		 */
		if (pf_grow(&f->prev_nodes, &ca, depth + 1, sizeof(*f->prev_nodes)) == -1 ||
		    pf_grow(&f->prev_end, &cb, depth + 1, sizeof(*f->prev_end)) == -1 ||
		    pf_grow(&f->prev_path, &cp, depth + 1, sizeof(*f->prev_path)) == -1)
			return -1;
		ca = ca < cb ? ca : cb;
		f->capprev = ca < cp ? ca : cp;
	}
	f->prev_nodes[depth] = node;
	f->prev_end[depth] = (uint32_t)end;
	f->prev_path[depth] = path;
	return 0;
}

int
pf_flame_add(struct pf_flame *f, const char *stack, size_t len, int ncounts,
    uint64_t c1, uint64_t c2)
{
	size_t common = 0, depth = 0, pos = 0, k, shared = 0;
	uint32_t cur = 0;
	uint64_t path = PATH_SEED;
	int64_t d = ncounts == 2 ? sat_delta(c1, c2) : 0;

	if (f->nodes[0].value + c2 < c2) {
		errno = EOVERFLOW;
		return -1;
	}
	if (f->reverse) {
		if (reverse_frames(f, stack, len) == -1)
			return -1;
		stack = f->rev.data;
		len = f->rev.len;
	}
	/* A forward split drops trailing empty frames. */
	while (len > 0 && stack[len - 1] == ';')
		len--;
	if (len > UINT32_MAX - 1) {
		errno = ENOMEM;
		return -1;
	}
	/* Frames shared with the previous stack keep their nodes. */
	common = common_prefix(stack, f->prev.data,
	    len < f->prev.len ? len : f->prev.len);
	/*
	 * Frame k is shared when its bytes match and the current stack has a
	 * frame boundary where the previous one's frame k ended.
	 */
	for (k = 0; k < f->nprev; k++) {
		size_t e = f->prev_end[k];
		if (e > common || (e < len && stack[e] != ';'))
			break;
		shared = k + 1;
	}
	if (shared > 0) {
		cur = f->prev_nodes[shared - 1];
		depth = shared;
		pos = f->prev_end[shared - 1] + 1;
		path = f->prev_path[shared - 1];
	}
	/*
	 * Walk the rest, creating frames; an empty stack is the root alone.
	 * A batch of frames is split and hashed first; then, a pass each,
	 * the name slots and child slots are fetched, the names' bytes,
	 * the names interned, the nodes fetched, and only then the path
	 * walked.  Each pass starts many independent cache misses that
	 * overlap, where a frame-by-frame walk would wait for each in turn.
	 */
	while (len > 0 && pos <= len) {
		uint32_t start[BATCH], end[BATCH], nh[BATCH], id[BATCH];
		uint32_t tag[BATCH];
		uint64_t ph[BATCH];
		size_t nb, b, e;

		for (nb = 0; nb < BATCH && pos <= len; nb++) {
			uint64_t h = scan_frame(stack, len, pos, &e);

			path = path_step(path, h);
			start[nb] = (uint32_t)pos;
			end[nb] = (uint32_t)e;
			nh[nb] = (uint32_t)h;
			ph[nb] = path;
			tag[nb] = path_tag(path);
			pf_intern_prefetch(&f->names, nh[nb]);
			if (!f->flamechart)
				__builtin_prefetch(&f->child_tab[tag[nb] &
				    f->child_mask]);
			pos = e + 1;
		}
		for (b = 0; b < nb; b++)
			pf_intern_prefetch_key(&f->names, nh[b]);
		for (b = 0; b < nb; b++)
			if (pf_intern_add_hashed(&f->names, stack + start[b],
			    end[b] - start[b], nh[b], &id[b]) == -1)
				goto fail;
		if (!f->flamechart) {
			for (b = 0; b < nb; b++) {
				const struct pf_flame_slot *s =
				    &f->child_tab[tag[b] & f->child_mask];
				if (s->tag == tag[b])
					__builtin_prefetch(&f->nodes[s->node], 1);
			}
		}
		for (b = 0; b < nb; b++) {
			if ((cur = child(f, cur, id[b], tag[b])) == NONE)
				goto fail;
			if (remember(f, depth, cur, end[b], ph[b]) == -1)
				goto fail;
			depth++;
		}
	}
	f->nprev = depth;
	pf_buf_reset(&f->prev);
	if (pf_buf_append(&f->prev, stack, len) == -1) {
		f->nprev = 0;
		goto fail;
	}
	/* Add the count along the path, root included. */
	f->nodes[0].value += c2;
	if (ncounts == 2) {
		f->diff = 1;
		f->nodes[0].delta = sat_add(f->nodes[0].delta, d);
	}
	for (k = 0; k < depth; k++) {
		struct pf_flame_node *n = &f->nodes[f->prev_nodes[k]];
		n->value += c2;
		if (ncounts == 2)
			n->delta = sat_add(n->delta, d);
	}
	return 0;
fail:
	/* The prefix cache may be stale: forget it. */
	f->nprev = 0;
	pf_buf_reset(&f->prev);
	return -1;
}
