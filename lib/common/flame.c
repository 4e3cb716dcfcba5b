/*
 * flame: the frame trie and the SVG writer behind pf-svg.
 *
 * Nodes live in one array and refer to each other by 32-bit index; frame
 * names are interned once.  A node is found while merging by a hash of
 * its path (the names from the root down to it), not of (parent, name):
 * a path hash depends only on the input bytes, so every frame of a stack
 * can have its table slot fetched before the walk needs it, and the cache
 * misses of a deep stack overlap instead of following one another.  The
 * node found is then checked exactly (parent and name id), so a hash
 * collision costs a probe, never a wrong merge.  A flame chart instead
 * only looks at the parent's newest child.  Consecutive input lines
 * usually share a long prefix (pf-fold sorts its output), so the nodes of
 * the previous line's path are remembered and the shared frames cost a
 * byte comparison instead of look-ups.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "flame.h"
#include "pf.h"
#include "xmlesc.h"

#define NONE UINT32_MAX
#define XPAD 10.0
#define FLUSH_AT (256u << 10)
/*
 * Frames hashed and prefetched ahead of the walk: enough to cover a
 * typical stack and keep many misses in flight, small enough for the
 * stack.
 */
#define BATCH 32

struct node {
	uint32_t parent, name;
	uint32_t first_child;	/* newest child first */
	uint32_t next_sibling;
	uint64_t value;		/* inclusive count (C2 for a differential) */
	int64_t delta;		/* inclusive C2 - C1, saturated */
};

/*
 * A slot of the child table keeps 32 bits of the path hash beside the
 * node, so a probe rejects other paths without reading their nodes; the
 * same bits place the slot, so the table grows without reading nodes.
 */
struct slot {
	uint32_t tag;
	uint32_t node;		/* 0: empty (the root is nobody's child) */
};

/* A slot of the name table: the hash beside the id, for the same reason. */
struct name_slot {
	uint32_t hash;
	uint32_t id1;		/* id + 1; 0: empty */
};

struct flame {
	int flamechart, reverse, diff;
	struct node *nodes;
	uint32_t nnodes, capnodes;
	/* path hash -> node */
	struct slot *child_tab;
	uint32_t child_mask;
	/* interned names */
	struct pf_buf arena;
	uint64_t *name_off;
	uint32_t *name_len;
	uint32_t nnames, capnames;
	struct name_slot *name_tab;
	uint32_t name_mask;
	/* the previous stack, its path and path hashes, for prefix reuse */
	struct pf_buf prev;
	uint32_t *prev_nodes, *prev_end;
	uint64_t *prev_path;
	size_t nprev, capprev;
	struct pf_buf rev;	/* scratch for --reverse */
};

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
fmix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
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
	return fmix64(h ^ (i - pos));
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
	return fmix64(p ^ name_hash);
}

/* The bits of a path hash that tag and place a child slot. */
static inline uint32_t
path_tag(uint64_t p)
{
	return (uint32_t)(p >> 32);
}

struct flame *
flame_new(int flamechart, int reverse)
{
	struct flame *f;

	if ((f = calloc(1, sizeof(*f))) == NULL)
		return NULL;
	f->flamechart = flamechart;
	f->reverse = reverse;
	f->capnodes = 1024;
	f->nodes = malloc(f->capnodes * sizeof(*f->nodes));
	f->child_mask = 2047;
	f->child_tab = calloc(f->child_mask + 1, sizeof(*f->child_tab));
	f->capnames = 256;
	f->name_off = malloc(f->capnames * sizeof(*f->name_off));
	f->name_len = malloc(f->capnames * sizeof(*f->name_len));
	f->name_mask = 511;
	f->name_tab = calloc(f->name_mask + 1, sizeof(*f->name_tab));
	if (f->nodes == NULL || f->child_tab == NULL || f->name_off == NULL ||
	    f->name_len == NULL || f->name_tab == NULL ||
	    pf_buf_reserve(&f->arena, 4096) == -1) {
		flame_free(f);
		errno = ENOMEM;
		return NULL;
	}
	/* The root: name "all" (id 0), never looked up as a child. */
	f->nodes[0] = (struct node){ NONE, 0, NONE, NONE, 0, 0 };
	f->nnodes = 1;
	pf_buf_puts(&f->arena, "all");
	f->name_off[0] = 0;
	f->name_len[0] = 3;
	/* "all" is never in name_tab: a frame named "all" is its own. */
	f->nnames = 1;
	return f;
}

void
flame_free(struct flame *f)
{
	if (f == NULL)
		return;
	free(f->nodes);
	free(f->child_tab);
	free(f->name_off);
	free(f->name_len);
	free(f->name_tab);
	free(f->prev_nodes);
	free(f->prev_end);
	free(f->prev_path);
	pf_buf_free(&f->arena);
	pf_buf_free(&f->prev);
	pf_buf_free(&f->rev);
	free(f);
}

uint64_t
flame_total(const struct flame *f)
{
	return f->nodes[0].value;
}

size_t
flame_nframes(const struct flame *f)
{
	return f->nnodes;
}

static const char *
name_ptr(const struct flame *f, uint32_t id)
{
	return f->arena.data + f->name_off[id];
}

static int
grow_names(struct flame *f)
{
	uint32_t ncap = f->capnames * 2, i, h, mask;
	uint64_t *off;
	uint32_t *len;
	struct name_slot *tab;

	if (ncap < f->capnames) {
		errno = ENOMEM;
		return -1;
	}
	if ((off = realloc(f->name_off, ncap * sizeof(*off))) == NULL)
		return -1;
	f->name_off = off;
	if ((len = realloc(f->name_len, ncap * sizeof(*len))) == NULL)
		return -1;
	f->name_len = len;
	f->capnames = ncap;
	/* Keep the table at most half full. */
	mask = f->name_mask * 2 + 1;
	if ((tab = calloc((size_t)mask + 1, sizeof(*tab))) == NULL)
		return -1;
	for (i = 0; i <= f->name_mask; i++) {
		if (f->name_tab[i].id1 == 0)
			continue;
		for (h = f->name_tab[i].hash & mask; tab[h].id1 != 0;
		    h = (h + 1) & mask)
			;
		tab[h] = f->name_tab[i];
	}
	free(f->name_tab);
	f->name_tab = tab;
	f->name_mask = mask;
	return 0;
}

/*
 * The id of name s (n bytes, hashed h by scan_frame), interning it.  NONE
 * on ENOMEM.
 */
static uint32_t
intern(struct flame *f, const char *s, size_t n, uint32_t h)
{
	uint32_t i, id;

	if (n > UINT32_MAX) {
		errno = ENOMEM;
		return NONE;
	}
	for (i = h & f->name_mask; f->name_tab[i].id1 != 0;
	    i = (i + 1) & f->name_mask) {
		if (f->name_tab[i].hash != h)
			continue;
		id = f->name_tab[i].id1 - 1;
		if (f->name_len[id] == n && memcmp(name_ptr(f, id), s, n) == 0)
			return id;
	}
	if (f->nnames == f->capnames || f->nnames * 2 > f->name_mask) {
		if (f->nnames >= NONE - 1 || grow_names(f) == -1)
			return NONE;
		for (i = h & f->name_mask; f->name_tab[i].id1 != 0;
		    i = (i + 1) & f->name_mask)
			;
	}
	id = f->nnames;
	f->name_off[id] = f->arena.len;
	f->name_len[id] = (uint32_t)n;
	if (pf_buf_append(&f->arena, s, n) == -1)
		return NONE;
	f->name_tab[i] = (struct name_slot){ h, id + 1 };
	f->nnames++;
	return id;
}

static int
grow_children(struct flame *f)
{
	uint32_t mask = f->child_mask * 2 + 1, i, h;
	struct slot *tab;

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
child(struct flame *f, uint32_t parent, uint32_t id, uint32_t tag)
{
	uint32_t h = 0, c;
	struct node *n;

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
	if (f->nnodes == f->capnodes) {
		struct node *p;
		uint32_t ncap = f->capnodes * 2;

		if (f->capnodes >= NONE / 2) {
			errno = ENOMEM;
			return NONE;
		}
		if ((p = realloc(f->nodes, (size_t)ncap * sizeof(*p))) == NULL)
			return NONE;
		f->nodes = p;
		f->capnodes = ncap;
	}
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
		f->child_tab[h] = (struct slot){ tag, c };
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
reverse_frames(struct flame *f, const char *s, size_t len)
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
remember(struct flame *f, size_t depth, uint32_t node, size_t end,
    uint64_t path)
{
	if (depth >= f->capprev) {
		size_t ncap = f->capprev ? f->capprev * 2 : 64;
		uint32_t *a, *b;
		uint64_t *p;

		if ((a = realloc(f->prev_nodes, ncap * sizeof(*a))) == NULL)
			return -1;
		f->prev_nodes = a;
		if ((b = realloc(f->prev_end, ncap * sizeof(*b))) == NULL)
			return -1;
		f->prev_end = b;
		if ((p = realloc(f->prev_path, ncap * sizeof(*p))) == NULL)
			return -1;
		f->prev_path = p;
		f->capprev = ncap;
	}
	f->prev_nodes[depth] = node;
	f->prev_end[depth] = (uint32_t)end;
	f->prev_path[depth] = path;
	return 0;
}

int
flame_add(struct flame *f, const char *stack, size_t len, int ncounts,
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
			__builtin_prefetch(&f->name_tab[nh[nb] & f->name_mask]);
			if (!f->flamechart)
				__builtin_prefetch(&f->child_tab[tag[nb] &
				    f->child_mask]);
			pos = e + 1;
		}
		for (b = 0; b < nb; b++) {
			const struct name_slot *s =
			    &f->name_tab[nh[b] & f->name_mask];
			if (s->hash == nh[b] && s->id1 != 0)
				__builtin_prefetch(name_ptr(f, s->id1 - 1));
		}
		for (b = 0; b < nb; b++)
			if ((id[b] = intern(f, stack + start[b],
			    end[b] - start[b], nh[b])) == NONE)
				goto fail;
		if (!f->flamechart) {
			for (b = 0; b < nb; b++) {
				const struct slot *s =
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
		struct node *n = &f->nodes[f->prev_nodes[k]];
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

/* ---- rendering ---------------------------------------------------- */

struct out {
	struct pf_buf b;
	flame_sink sink;
	void *ctx;
	int err;
	struct pf_buf tmp;	/* scratch for cleaned names */
};

static void
out_flush(struct out *o)
{
	if (o->err == 0 && o->b.len > 0 &&
	    o->sink(o->ctx, o->b.data, o->b.len) == -1)
		o->err = errno ? errno : EIO;
	pf_buf_reset(&o->b);
}

static void
oputs(struct out *o, const char *s)
{
	if (pf_buf_puts(&o->b, s) == -1)
		o->err = ENOMEM;
}

static void
oprintf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
oprintf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	char small[256];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->err = EINVAL;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		if (pf_buf_append(&o->b, small, (size_t)n) == -1)
			o->err = ENOMEM;
		return;
	}
	if (pf_buf_reserve(&o->b, (size_t)n) == -1) {
		o->err = ENOMEM;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(o->b.data + o->b.len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	o->b.len += (size_t)n;
}

static void
oesc(struct out *o, const char *s, size_t n, int flags)
{
	if (xmlesc_append(&o->b, s, n, flags) == -1)
		o->err = ENOMEM;
}

static void
oesc_str(struct out *o, const char *s, int flags)
{
	oesc(o, s, strlen(s), flags);
}

/* Annotation suffix of a name: 'k', 'j', 'i', 'w', or 0. */
static char
annotation(const char *s, size_t n)
{
	if (n >= 4 && s[n - 4] == '_' && s[n - 3] == '[' && s[n - 1] == ']' &&
	    strchr("kjiw", s[n - 2]) != NULL && s[n - 2] != '\0')
		return s[n - 2];
	return 0;
}

/* u64 with thousands separators. */
static void
put_grouped(struct out *o, const char *digits)
{
	size_t n = strlen(digits), i;
	char buf[128];
	size_t k = 0;

	for (i = 0; i < n && k + 2 < sizeof(buf); i++) {
		if (i > 0 && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = '\0';
	oputs(o, buf);
}

static void
put_count(struct out *o, uint64_t v, double factor)
{
	char d[64];

	if (factor == 1.0)
		snprintf(d, sizeof(d), "%llu", (unsigned long long)v);
	else
		snprintf(d, sizeof(d), "%.0f", (double)v * factor);
	put_grouped(o, d);
}

/* ---- colours ------------------------------------------------------ */

/* Three numbers in [0, 1] from a name, the same on every run. */
static void
name_randoms(const char *s, size_t n, int weighted, double v[3])
{
	if (weighted) {
		/*
		 * Early characters count most, so names sharing a prefix
		 * (a module, a package) get neighbouring colours.
		 */
		double a = 0, b = 0, wa = 1, wb = 1, ta = 0, tb = 0;
		size_t i;

		for (i = 0; i < n && i < 12; i++) {
			a += wa * (double)((unsigned char)s[i] % 16) / 15.0;
			ta += wa;
			wa *= 0.6;
			b += wb * (double)((unsigned char)s[n - 1 - i] % 16) / 15.0;
			tb += wb;
			wb *= 0.6;
		}
		v[0] = ta > 0 ? a / ta : 0;
		v[1] = tb > 0 ? b / tb : 0;
		v[2] = v[1];
	} else {
		uint64_t h = 1469598103934665603ull;
		size_t i;

		for (i = 0; i < n; i++) {
			h ^= (unsigned char)s[i];
			h *= 1099511628211ull;
		}
		h ^= h >> 29;
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= h >> 32;
		v[0] = (double)(h & 0xffff) / 65535.0;
		v[1] = (double)((h >> 16) & 0xffff) / 65535.0;
		v[2] = (double)((h >> 32) & 0xffff) / 65535.0;
	}
}

static void
rgb_set(unsigned char rgb[3], double r, double g, double b)
{
	rgb[0] = (unsigned char)r;
	rgb[1] = (unsigned char)g;
	rgb[2] = (unsigned char)b;
}

static void
plain_color(enum flame_palette p, const double v[3], unsigned char rgb[3])
{
	switch (p) {
	case FLAME_HOT:
	default:
		rgb_set(rgb, 205 + 50 * v[2], 230 * v[0], 55 * v[1]);
		break;
	case FLAME_MEM:
		rgb_set(rgb, 0, 190 + 50 * v[1], 210 * v[0]);
		break;
	case FLAME_IO:
	case FLAME_BLUE:
		rgb_set(rgb, 80 + 60 * v[0], 80 + 60 * v[0], 190 + 55 * v[1]);
		break;
	case FLAME_RED:
		rgb_set(rgb, 200 + 55 * v[0], 50 + 80 * v[0], 50 + 80 * v[0]);
		break;
	case FLAME_GREEN:
		rgb_set(rgb, 50 + 60 * v[0], 200 + 55 * v[0], 50 + 60 * v[0]);
		break;
	case FLAME_AQUA:
	case FLAME_WAKEUP:
		rgb_set(rgb, 50 + 60 * v[0], 165 + 55 * v[0], 165 + 55 * v[0]);
		break;
	case FLAME_YELLOW:
		rgb_set(rgb, 175 + 55 * v[0], 175 + 55 * v[0], 50 + 20 * v[0]);
		break;
	case FLAME_PURPLE:
		rgb_set(rgb, 190 + 65 * v[0], 80 + 60 * v[0], 190 + 65 * v[0]);
		break;
	case FLAME_ORANGE:
		rgb_set(rgb, 190 + 65 * v[0], 90 + 65 * v[0], 0);
		break;
	}
}

static int
contains(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle)) != NULL;
}

/* The colour of a frame: by its annotation and name, then the palette. */
static void
frame_color(const struct flame_opts *o, const char *s, size_t n, char ann,
    unsigned char rgb[3])
{
	enum flame_palette p = o->palette, use = p;
	double v[3];

	if (n == 2 && s[0] == '-' && s[1] == '-') {
		rgb_set(rgb, 160, 160, 160);
		return;
	}
	if (n == 1 && s[0] == '-') {
		rgb_set(rgb, 200, 200, 200);
		return;
	}
	name_randoms(s, n, o->hash, v);
	switch (p) {
	case FLAME_CHAIN:
		use = ann == 'w' ? FLAME_AQUA : FLAME_BLUE;
		break;
	case FLAME_JAVA:
	case FLAME_JS:
	case FLAME_PERL:
		if (ann == 'k')
			use = FLAME_ORANGE;
		else if (ann == 'j')
			use = FLAME_GREEN;
		else if (ann == 'i')
			use = FLAME_AQUA;
		else if (p == FLAME_JAVA)
			use = contains(s, n, "/") || (contains(s, n, ".") &&
			    !contains(s, n, "::")) ? FLAME_GREEN :
			    contains(s, n, "::") ? FLAME_YELLOW : FLAME_RED;
		else if (p == FLAME_JS)
			use = contains(s, n, ".js") || contains(s, n, "/") ?
			    FLAME_GREEN : contains(s, n, "::") ? FLAME_YELLOW :
			    FLAME_RED;
		else
			use = contains(s, n, ".pl") || contains(s, n, "Perl") ||
			    contains(s, n, "perl") ? FLAME_GREEN :
			    contains(s, n, "::") ? FLAME_YELLOW : FLAME_RED;
		break;
	default:
		break;
	}
	plain_color(use, v, rgb);
}

static void
diff_color(int64_t d, int64_t maxd, int negate, unsigned char rgb[3])
{
	double r;

	if (negate)
		d = d == INT64_MIN ? INT64_MAX : -d;
	if (d > 0) {
		r = 210.0 * (double)(maxd - d) / (double)maxd;
		rgb_set(rgb, 255, r, r);
	} else if (d < 0) {
		r = 210.0 * ((double)maxd + (double)d) / (double)maxd;
		if (r < 0)
			r = 0;
		rgb_set(rgb, r, r, 255);
	} else {
		rgb_set(rgb, 255, 255, 255);
	}
}

static void
background(const struct flame_opts *o, const char **c1, const char **c2)
{
	const char *bg = o->bgcolor;
	static char flat[8];

	if (bg == NULL) {
		switch (o->palette) {
		case FLAME_MEM: bg = "green"; break;
		case FLAME_IO: case FLAME_WAKEUP: case FLAME_CHAIN: bg = "blue"; break;
		case FLAME_RED: case FLAME_GREEN: case FLAME_BLUE: case FLAME_AQUA:
		case FLAME_YELLOW: case FLAME_PURPLE: case FLAME_ORANGE:
			bg = "grey";
			break;
		default: bg = "yellow"; break;
		}
	}
	if (strcmp(bg, "blue") == 0) {
		*c1 = "#eeeeee"; *c2 = "#e0e0ff";
	} else if (strcmp(bg, "green") == 0) {
		*c1 = "#eef2ee"; *c2 = "#e0ffe0";
	} else if (strcmp(bg, "grey") == 0) {
		*c1 = "#f8f8f8"; *c2 = "#e8e8e8";
	} else if (bg[0] == '#' && strlen(bg) == 7 &&
	    strspn(bg + 1, "0123456789abcdefABCDEF") == 6) {
		memcpy(flat, bg, 8);
		*c1 = *c2 = flat;
	} else {
		*c1 = "#eeeeee"; *c2 = "#eeeeb0";
	}
}

void
flame_opts_init(struct flame_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->countname = "samples";
	o->nametype = "Function:";
	o->fonttype = "Verdana";
	o->width = 1200;
	o->frameheight = 16;
	o->fontsize = 12;
	o->fontwidth = 0.59;
	o->minwidth = 0.1;
	o->factor = 1;
	o->palette = FLAME_HOT;
}

/* ---- layout ------------------------------------------------------- */

struct placed {
	uint32_t node, depth;
	uint64_t start;
};


static int
cmp_names(const void *a, const void *b, void *arg)
{
	const struct flame *f = arg;
	uint32_t x = f->nodes[*(const uint32_t *)a].name;
	uint32_t y = f->nodes[*(const uint32_t *)b].name;
	size_t lx = f->name_len[x], ly = f->name_len[y];
	int c = memcmp(name_ptr(f, x), name_ptr(f, y), lx < ly ? lx : ly);

	if (c != 0)
		return c;
	return lx < ly ? -1 : lx > ly;
}

struct work {
	uint32_t node, depth;
	uint64_t start;
};

/*
 * The frames that survive pruning, in pre-order (a frame, then its
 * children left to right), with their depth and start.  Children are
 * placed at their parent's start plus the widths of every sibling before
 * them, pruned ones included, so pruning never moves a frame.
 */
static struct placed *
layout(const struct flame *f, double threshold, size_t *np, uint32_t *maxdepth)
{
	struct placed *pl = NULL;
	struct work *st = NULL;
	uint32_t *kids = NULL;
	size_t npl = 0, cappl = 0, nst = 0, capst = 0, capk = 0;

	*maxdepth = 0;
	if ((st = malloc(sizeof(*st) * (capst = 64))) == NULL)
		return NULL;
	st[nst++] = (struct work){ 0, 0, 0 };
	while (nst > 0) {
		struct work w = st[--nst];
		const struct node *n = &f->nodes[w.node];
		size_t nk = 0, i;
		uint64_t off;
		uint32_t c;

		if (npl == cappl) {
			size_t ncap = cappl ? cappl * 2 : 1024;
			struct placed *p = realloc(pl, ncap * sizeof(*p));
			if (p == NULL)
				goto fail;
			pl = p;
			cappl = ncap;
		}
		pl[npl++] = (struct placed){ w.node, w.depth, w.start };
		if (w.depth > *maxdepth)
			*maxdepth = w.depth;
		for (c = n->first_child; c != NONE; c = f->nodes[c].next_sibling) {
			if (nk == capk) {
				size_t ncap = capk ? capk * 2 : 64;
				uint32_t *p = realloc(kids, ncap * sizeof(*p));
				if (p == NULL)
					goto fail;
				kids = p;
				capk = ncap;
			}
			kids[nk++] = c;
		}
		if (nk == 0)
			continue;
		if (f->flamechart) {
			for (i = 0; i < nk / 2; i++) {
				uint32_t t = kids[i];
				kids[i] = kids[nk - 1 - i];
				kids[nk - 1 - i] = t;
			}
		} else if (nk > 1) {
			qsort_r(kids, nk, sizeof(*kids), cmp_names, (void *)f);
		}
		/* Push survivors right to left so they pop left to right. */
		off = w.start;
		for (i = 0; i < nk; i++)
			off += f->nodes[kids[i]].value;
		for (i = nk; i-- > 0;) {
			const struct node *k = &f->nodes[kids[i]];
			off -= k->value;
			if (k->value == 0 || (double)k->value < threshold)
				continue;
			if (nst == capst) {
				struct work *p = realloc(st, capst * 2 * sizeof(*p));
				if (p == NULL)
					goto fail;
				st = p;
				capst *= 2;
			}
			st[nst++] = (struct work){ kids[i], w.depth + 1, off };
		}
	}
	free(st);
	free(kids);
	*np = npl;
	return pl;
fail:
	free(st);
	free(kids);
	free(pl);
	errno = ENOMEM;
	return NULL;
}

/* UTF-16 length of clean UTF-8 (what JavaScript's String.length counts). */
static size_t
utf16_units(const char *s, size_t n)
{
	size_t i, u = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c & 0xc0) != 0x80)
			u += c >= 0xf0 ? 2 : 1;
	}
	return u;
}

/*
 * Byte length of the longest prefix of clean UTF-8 s that has at most
 * units UTF-16 units.
 */
static size_t
utf16_prefix(const char *s, size_t n, size_t units)
{
	size_t i = 0, u = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		size_t len = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
		size_t w = c >= 0xf0 ? 2 : 1;

		if (u + w > units || i + len > n)
			break;
		u += w;
		i += len;
	}
	return i;
}

/*
 * The label that fits width px: the whole name, or a prefix and "..",
 * or nothing under 3 characters.  The same rule as the script's fit().
 */
static void
put_label(struct out *o, const char *clean, size_t n, double width,
    double charw)
{
	double c = floor(width / charw);
	size_t chars, cut;

	if (!(c >= 3))
		return;
	chars = c > 1e9 ? 1000000000 : (size_t)c;
	if (utf16_units(clean, n) <= chars) {
		oesc(o, clean, n, 0);
		return;
	}
	cut = utf16_prefix(clean, n, chars - 2);
	oesc(o, clean, cut, 0);
	oputs(o, "..");
}

/* ---- the document ------------------------------------------------- */

static const char script[] =
"(function () {\n"
"\"use strict\";\n"
"/*\n"
" * Zoom moves one transform, not 30,000 rectangles: the frames group is\n"
" * scaled and shifted so the target spans the view, the view clips the\n"
" * rest, and only the labels that are visible get rewritten (each\n"
" * counter-scaled so text is never stretched).  Labels are fitted by\n"
" * character count, never measured, so nothing forces a layout per frame.\n"
" */\n"
"var svg = document.documentElement;\n"
"var fr = document.getElementById(\"frames\");\n"
"var details = document.getElementById(\"details\");\n"
"var unzoomBtn = document.getElementById(\"unzoom\");\n"
"var searchBtn = document.getElementById(\"search\");\n"
"var icBtn = document.getElementById(\"ignorecase\");\n"
"var matchedEl = document.getElementById(\"matched\");\n"
"var XPAD = +fr.getAttribute(\"data-xpad\");\n"
"var CW = +fr.getAttribute(\"data-fontsize\") * +fr.getAttribute(\"data-fontwidth\");\n"
"var TOTAL = +fr.getAttribute(\"data-total\");\n"
"var W = +svg.getAttribute(\"width\") - 2 * XPAD;\n"
"var WPT = TOTAL > 0 ? W / TOTAL : 0;\n"
"var nametype = details.getAttribute(\"data-nametype\");\n"
"var SEARCH_FILL = \"rgb(230,0,230)\";\n"
"var els = Array.prototype.slice.call(fr.children);\n"
"var N = els.length;\n"
"var s = new Float64Array(N), n = new Float64Array(N);\n"
"var parent = new Int32Array(N), end = new Int32Array(N);\n"
"var matched = new Uint8Array(N), exact = new Uint8Array(N);\n"
"var rect = new Array(N), text = new Array(N), name = new Array(N);\n"
"var tip = new Array(N), fill = new Array(N), label = new Array(N);\n"
"var olabel = new Array(N), tx = new Float64Array(N);\n"
"var moved = [], dimmed = [], hidden = [];\n"
"var zoomed = 0, term = null, ic = false;\n"
"var stack = [], i;\n"
"for (i = 0; i < N; i++) {\n"
"  var g = els[i], t = g.firstElementChild;\n"
"  g._pf = i;\n"
"  s[i] = +g.getAttribute(\"data-s\");\n"
"  n[i] = +g.getAttribute(\"data-n\");\n"
"  rect[i] = t.nextElementSibling;\n"
"  text[i] = rect[i].nextElementSibling;   /* null when no label fits */\n"
"  tip[i] = t.textContent;\n"
"  var dn = g.getAttribute(\"data-name\");\n"
"  name[i] = dn !== null ? dn : tip[i].slice(0, tip[i].lastIndexOf(\" (\"));\n"
"  fill[i] = rect[i].getAttribute(\"fill\");\n"
"  label[i] = olabel[i] = text[i] ? text[i].textContent : \"\";\n"
"  tx[i] = +rect[i].getAttribute(\"x\") + 3;\n"
"  while (stack.length > 0) {\n"
"    var p = stack[stack.length - 1];\n"
"    if (s[i] >= s[p] && s[i] + n[i] <= s[p] + n[p]) break;\n"
"    end[stack.pop()] = i;\n"
"  }\n"
"  parent[i] = stack.length > 0 ? stack[stack.length - 1] : -1;\n"
"  stack.push(i);\n"
"}\n"
"while (stack.length > 0) end[stack.pop()] = N;\n"
"\n"
"/* The label that fits w px: the name, a prefix and \"..\", or nothing. */\n"
"function fit(i, w) {\n"
"  var c = Math.floor(w / CW), nm = name[i];\n"
"  if (!(c >= 3)) return \"\";\n"
"  if (nm.length <= c) return nm;\n"
"  var k = c - 2, code = nm.charCodeAt(k - 1);\n"
"  if (code >= 0xd800 && code <= 0xdbff) k--;\n"
"  return nm.slice(0, k) + \"..\";\n"
"}\n"
"function setLabel(i, l) {\n"
"  if (label[i] === l) return;\n"
"  if (text[i] === null) {\n"
"    /* Frames too narrow for a label have no text element until needed. */\n"
"    var r = rect[i], e = document.createElementNS(\"http://www.w3.org/2000/svg\", \"text\");\n"
"    e.setAttribute(\"x\", tx[i].toFixed(2));\n"
"    e.setAttribute(\"y\", (+r.getAttribute(\"y\") + +r.getAttribute(\"height\") / 2 + 3).toFixed(2));\n"
"    els[i].appendChild(e);\n"
"    text[i] = e;\n"
"  }\n"
"  text[i].textContent = l;\n"
"  label[i] = l;\n"
"}\n"
"/* Put frame i's label at screen x under group scale sx and shift gx. */\n"
"function moveLabel(i, x, sx, gx) {\n"
"  text[i].setAttribute(\"transform\", \"matrix(\" + (1 / sx) + \" 0 0 1 \" +\n"
"      ((x + 3 - tx[i] - gx) / sx) + \" 0)\");\n"
"  moved.push(i);\n"
"}\n"
"/* Frame t fills the width; its ancestors dim; the view clips the rest. */\n"
"function zoom(t) {\n"
"  var st = s[t], sc = W / n[t], sx = sc / WPT, gx = XPAD - sx * (XPAD + st * WPT);\n"
"  var i, a, l;\n"
"  for (i = 0; i < dimmed.length; i++) els[dimmed[i]].classList.remove(\"parent\");\n"
"  dimmed = [];\n"
"  fr.setAttribute(\"transform\", \"matrix(\" + sx + \" 0 0 1 \" + gx + \" 0)\");\n"
"  for (i = t; i < end[t]; i++) {\n"
"      /* Rounded coordinates drift by 0.05 px times sx: use exact ones. */\n"
"    if (sx > 10 && !exact[i]) {\n"
"      rect[i].setAttribute(\"x\", XPAD + s[i] * WPT);\n"
"      rect[i].setAttribute(\"width\", n[i] * WPT);\n"
"      exact[i] = 1;\n"
"    }\n"
"    l = fit(i, n[i] * sc);\n"
"    if (l !== \"\") {\n"
"      setLabel(i, l);\n"
"      moveLabel(i, XPAD + (s[i] - st) * sc, sx, gx);\n"
"      /* Keep the corners round, not stretched, where they show. */\n"
"      rect[i].setAttribute(\"rx\", 2 / sx);\n"
"    } else {\n"
"      setLabel(i, \"\");\n"
"    }\n"
"  }\n"
"  /*\n"
"   * Neighbours outside the target are clipped, but their rounded\n"
"   * coordinates may poke into the view by 0.05 px times sx: hide those.\n"
"   */\n"
"  for (i = 0; i < hidden.length; i++) els[hidden[i]].classList.remove(\"hide\");\n"
"  hidden = [];\n"
"  if (sx > 10) {\n"
"    var slack = 0.1 * sx / sc;\n"
"    for (i = 0; i < N; i++) {\n"
"      if ((i >= t && i < end[t]) || s[i] + n[i] < st - slack || s[i] > st + n[t] + slack ||\n"
"          (s[i] <= st && s[i] + n[i] >= st + n[t])) continue;\n"
"      els[i].classList.add(\"hide\");\n"
"      hidden.push(i);\n"
"    }\n"
"  }\n"
"  for (a = parent[t]; a >= 0; a = parent[a]) {\n"
"    els[a].classList.add(\"parent\");\n"
"    dimmed.push(a);\n"
"    setLabel(a, fit(a, W));\n"
"    moveLabel(a, XPAD, sx, gx);\n"
"  }\n"
"  zoomed = t;\n"
"  unzoomBtn.classList.remove(\"hide\");\n"
"  save();\n"
"}\n"
"function unzoom() {\n"
"  var i;\n"
"  fr.removeAttribute(\"transform\");\n"
"  for (i = 0; i < hidden.length; i++) els[hidden[i]].classList.remove(\"hide\");\n"
"  hidden = [];\n"
"  for (i = 0; i < dimmed.length; i++) els[dimmed[i]].classList.remove(\"parent\");\n"
"  dimmed = [];\n"
"  for (i = 0; i < moved.length; i++) {\n"
"    if (text[moved[i]]) text[moved[i]].removeAttribute(\"transform\");\n"
"    rect[moved[i]].setAttribute(\"rx\", \"2\");\n"
"  }\n"
"  moved = [];\n"
"  for (i = 0; i < N; i++) setLabel(i, olabel[i]);\n"
"  zoomed = 0;\n"
"  unzoomBtn.classList.add(\"hide\");\n"
"  save();\n"
"}\n"
"/* Recolour frames whose name matches; count nested matches once. */\n"
"function search(t) {\n"
"  var re;\n"
"  try { re = new RegExp(t, ic ? \"i\" : \"\"); }\n"
"  catch (e) { matchedEl.textContent = \"Invalid regex\"; return; }\n"
"  var count = 0, skipEnd = -1;\n"
"  for (var i = 0; i < N; i++) {\n"
"    if (re.test(name[i])) {\n"
"      if (!matched[i]) { rect[i].setAttribute(\"fill\", SEARCH_FILL); matched[i] = 1; }\n"
"      if (i >= skipEnd) { count += n[i]; skipEnd = end[i]; }\n"
"    } else if (matched[i]) {\n"
"      rect[i].setAttribute(\"fill\", fill[i]);\n"
"      matched[i] = 0;\n"
"    }\n"
"  }\n"
"  term = t;\n"
"  searchBtn.classList.add(\"show\");\n"
"  searchBtn.textContent = \"Reset Search\";\n"
"  matchedEl.textContent = \"Matched: \" + (TOTAL > 0 ? 100 * count / TOTAL : 0).toFixed(1) + \"%\";\n"
"  save();\n"
"}\n"
"function resetSearch() {\n"
"  for (var i = 0; i < N; i++)\n"
"    if (matched[i]) { rect[i].setAttribute(\"fill\", fill[i]); matched[i] = 0; }\n"
"  term = null;\n"
"  searchBtn.classList.remove(\"show\");\n"
"  searchBtn.textContent = \"Search\";\n"
"  matchedEl.textContent = \"\";\n"
"  save();\n"
"}\n"
"function askSearch() {\n"
"  var t = prompt(\"Search frames (regular expression, e.g. ^ext4_)\" +\n"
"      (ic ? \" [ignoring case]\" : \"\"), term !== null ? term : \"\");\n"
"  if (t === null) return;\n"
"  if (t === \"\") resetSearch(); else search(t);\n"
"}\n"
"function toggleCase() {\n"
"  ic = !ic;\n"
"  if (ic) icBtn.classList.add(\"show\"); else icBtn.classList.remove(\"show\");\n"
"  if (term !== null) search(term); else save();\n"
"}\n"
"/* Zoom and search live in the URL fragment, so a link reopens the view. */\n"
"function save() {\n"
"  var p = [];\n"
"  if (zoomed > 0) p.push(\"z=\" + zoomed);\n"
"  if (term !== null) p.push(\"s=\" + encodeURIComponent(term));\n"
"  if (ic) p.push(\"i=1\");\n"
"  var base = location.href.split(\"#\")[0];\n"
"  try { history.replaceState(null, \"\", p.length ? base + \"#\" + p.join(\"&\") : base); }\n"
"  catch (e) { /* some viewers forbid it; the view still works */ }\n"
"}\n"
"function frameOf(el) {\n"
"  while (el && el.parentNode !== fr) el = el.parentNode;\n"
"  return el && el._pf !== undefined ? el._pf : -1;\n"
"}\n"
"window.addEventListener(\"click\", function (e) {\n"
"  var i = frameOf(e.target);\n"
"  if (i >= 0) {\n"
"    if (els[i].localName === \"a\") {\n"
"      if (!e.ctrlKey) return;   /* a plain click follows the link */\n"
"      e.preventDefault();\n"
"    }\n"
"    if (i === 0) unzoom(); else zoom(i);\n"
"    return;\n"
"  }\n"
"  if (e.target === unzoomBtn) unzoom();\n"
"  else if (e.target === searchBtn) { if (term !== null) resetSearch(); else askSearch(); }\n"
"  else if (e.target === icBtn) toggleCase();\n"
"}, false);\n"
"fr.addEventListener(\"mouseover\", function (e) {\n"
"  var i = frameOf(e.target);\n"
"  if (i >= 0) details.textContent = nametype + \" \" + tip[i];\n"
"}, false);\n"
"fr.addEventListener(\"mouseout\", function () { details.textContent = \" \"; }, false);\n"
"window.addEventListener(\"keydown\", function (e) {\n"
"  var k = e.key;\n"
"  if (k === \"F3\" || ((e.ctrlKey || e.metaKey) && (k === \"f\" || k === \"F\"))) {\n"
"    e.preventDefault();\n"
"    askSearch();\n"
"  } else if ((e.ctrlKey || e.metaKey) && (k === \"i\" || k === \"I\")) {\n"
"    e.preventDefault();\n"
"    toggleCase();\n"
"  } else if (k === \"Escape\") {\n"
"    if (term !== null) resetSearch();\n"
"    if (zoomed !== 0) unzoom();\n"
"  }\n"
"}, false);\n"
"/* Reopen the view the URL names. */\n"
"(function () {\n"
"  var h = location.hash.replace(/^#/, \"\").split(\"&\"), z = 0, st = null, j;\n"
"  for (j = 0; j < h.length; j++) {\n"
"    var kv = h[j].split(\"=\"), v;\n"
"    try { v = decodeURIComponent(kv.slice(1).join(\"=\")); } catch (e) { continue; }\n"
"    if (kv[0] === \"z\" && /^[0-9]+$/.test(v) && +v < N) z = +v;\n"
"    else if (kv[0] === \"s\") st = v;\n"
"    else if (kv[0] === \"i\" && v === \"1\") { ic = true; icBtn.classList.add(\"show\"); }\n"
"  }\n"
"  if (z > 0) zoom(z);\n"
"  if (st !== null && st !== \"\") search(st);\n"
"})();\n"
"})();\n"
;

static void
put_header(struct out *o, const struct flame_opts *fo, double height,
    const char *kind)
{
	const char *c1, *c2;

	oputs(o, "<?xml version=\"1.0\" encoding=\"");
	oesc_str(o, fo->encoding ? fo->encoding : "UTF-8", XMLESC_ATTR);
	oputs(o, "\" standalone=\"no\"?>\n");
	oprintf(o, "<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
	    "viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\" "
	    "xmlns:xlink=\"http://www.w3.org/1999/xlink\" font-family=\"",
	    fo->width, height, fo->width, height);
	oesc_str(o, fo->fonttype, XMLESC_ATTR);
	oprintf(o, "\" font-size=\"%g\">\n", fo->fontsize);
	oprintf(o, "<!-- %s rendered by pf-svg " PF_VERSION " -->\n", kind);
	if (fo->notes != NULL) {
		/* A comment may not hold "--" nor end in "-". */
		struct pf_buf t = { 0 };
		size_t i;

		oputs(o, "<!-- NOTES: ");
		if (xmlesc_append(&t, fo->notes, strlen(fo->notes), XMLESC_RAW) == -1)
			o->err = ENOMEM;
		for (i = 0; i < t.len; i++) {
			if (pf_buf_putc(&o->b, t.data[i]) == -1)
				o->err = ENOMEM;
			if (t.data[i] == '-' && (i + 1 == t.len || t.data[i + 1] == '-'))
				oputs(o, " ");
		}
		pf_buf_free(&t);
		oputs(o, " -->\n");
	}
	background(fo, &c1, &c2);
	oprintf(o, "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" "
	    "x1=\"0\" x2=\"0\"><stop stop-color=\"%s\" offset=\"5%%\"/>"
	    "<stop stop-color=\"%s\" offset=\"95%%\"/></linearGradient>"
	    "<clipPath id=\"view\"><rect x=\"%.1f\" y=\"0\" width=\"%.1f\" "
	    "height=\"%.0f\"/></clipPath></defs>\n", c1, c2, XPAD,
	    fo->width - 2 * XPAD, height);
}

static void
put_style(struct out *o, const struct flame_opts *fo)
{
	oprintf(o, "<style type=\"text/css\">\n"
	    "text { fill: rgb(0,0,0); }\n"
	    "#title { text-anchor: middle; font-size: %gpx; }\n"
	    "#subtitle { text-anchor: middle; }\n"
	    "#search, #ignorecase { opacity: 0.1; cursor: pointer; }\n"
	    "#search:hover, #search.show, #ignorecase:hover, #ignorecase.show "
	    "{ opacity: 1; }\n"
	    "#unzoom { cursor: pointer; }\n"
	    "#frames > *:hover { stroke: black; stroke-width: 0.5; cursor: pointer; }\n"
	    /*
	     * Only the hovered frame's rect keeps its stroke unscaled: on
	     * every rect, a zoom's new transform made Chromium lay out each
	     * of them again (60-90 ms on 30,000 frames, against 10).
	     */
	    "#frames > *:hover rect { vector-effect: non-scaling-stroke; }\n"
	    ".hide { display: none; }\n"
	    ".parent { opacity: 0.5; }\n"
	    "</style>\n", fo->fontsize + 5);
}

static void
put_controls(struct out *o, const struct flame_opts *fo, double height,
    double ypad2, const char *title)
{
	oprintf(o, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
	    "fill=\"url(#background)\"/>\n", fo->width, height);
	oprintf(o, "<text id=\"title\" x=\"%.2f\" y=\"%.2f\">",
	    fo->width / 2, fo->fontsize * 2);
	oesc_str(o, title, 0);
	oputs(o, "</text>\n");
	if (fo->subtitle != NULL) {
		oprintf(o, "<text id=\"subtitle\" x=\"%.2f\" y=\"%.2f\">",
		    fo->width / 2, fo->fontsize * 4);
		oesc_str(o, fo->subtitle, 0);
		oputs(o, "</text>\n");
	}
	oprintf(o, "<text id=\"details\" x=\"%.2f\" y=\"%.2f\" data-nametype=\"",
	    XPAD, height - ypad2 / 2);
	oesc_str(o, fo->nametype, XMLESC_ATTR);
	oputs(o, "\"> </text>\n");
	oprintf(o, "<text id=\"unzoom\" class=\"hide\" x=\"%.2f\" y=\"%.2f\">"
	    "Reset Zoom</text>\n", XPAD, fo->fontsize * 2);
	oprintf(o, "<text id=\"search\" x=\"%.2f\" y=\"%.2f\">Search</text>\n",
	    fo->width - XPAD - 100, fo->fontsize * 2);
	oprintf(o, "<text id=\"ignorecase\" x=\"%.2f\" y=\"%.2f\">ic</text>\n",
	    fo->width - XPAD - 16, fo->fontsize * 2);
	oprintf(o, "<text id=\"matched\" x=\"%.2f\" y=\"%.2f\"> </text>\n",
	    fo->width - XPAD - 100, height - ypad2 / 2);
}

static const char *
default_title(const struct flame *f, const struct flame_opts *fo)
{
	if (f != NULL && f->flamechart)
		return "Flame Chart";
	return fo->inverted ? "Icicle Graph" : "Flame Graph";
}

static char *fixed(char *q, double v, int dec);

static void
put_pct(struct out *o, double num, double den)
{
	char b[64], *q = fixed(b, den > 0 ? 100.0 * num / den : 0.0, 2);

	if (pf_buf_append(&o->b, b, (size_t)(q - b)) == -1)
		o->err = ENOMEM;
}

/*
 * Number formatting for the per-frame hot path: printf's %f is a large
 * share of the render time.  fixed() rounds half to even at the given
 * decimals, as printf does for exactly representable values.
 */
static char *
cat(char *q, const char *s)
{
	while (*s)
		*q++ = *s++;
	return q;
}

static char *
u64(char *q, uint64_t v)
{
	char t[24];
	int k = 0;

	do {
		t[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	while (k > 0)
		*q++ = t[--k];
	return q;
}

static char *
fixed(char *q, double v, int dec)
{
	double scale = dec == 1 ? 10.0 : 100.0, r;
	uint64_t s, div = dec == 1 ? 10 : 100, fp;

	if (!(v >= 0 && v < 1e15))
		return q + sprintf(q, "%.*f", dec, v);
	r = nearbyint(v * scale);
	s = (uint64_t)r;
	q = u64(q, s / div);
	*q++ = '.';
	fp = s % div;
	if (dec == 2)
		*q++ = (char)('0' + fp / 10);
	*q++ = (char)('0' + fp % 10);
	return q;
}

static void
put_frame(struct out *o, const struct flame *f, const struct flame_opts *fo,
    const struct placed *p, double timemax, double wpt, double height,
    double ypad1, double ypad2, int64_t maxd)
{
	const struct node *n = &f->nodes[p->node];
	const char *raw = name_ptr(f, n->name);
	size_t rawlen = f->name_len[n->name];
	char ann = p->node == 0 ? 0 : annotation(raw, rawlen);
	size_t dlen = ann ? rawlen - 4 : rawlen;
	const struct flame_nameattr *na = NULL;
	unsigned char rgb[3];
	double x1, x2, y1, y2;
	int link;
	size_t label_at, text_at;

	x1 = XPAD + (double)p->start * wpt;
	x2 = XPAD + (double)(p->start + n->value) * wpt;
	if (!fo->inverted) {
		y1 = height - ypad2 - (p->depth + 1) * fo->frameheight + 1;
		y2 = height - ypad2 - p->depth * fo->frameheight;
	} else {
		y1 = ypad1 + p->depth * fo->frameheight;
		y2 = ypad1 + (p->depth + 1) * fo->frameheight - 1;
	}
	if (fo->nameattr != NULL)
		na = fo->nameattr(fo->hook_arg, raw, dlen);
	link = na != NULL && na->href != NULL;

	/* The clean name, once: tooltip, label and data-name use it. */
	pf_buf_reset(&o->tmp);
	if (xmlesc_append(&o->tmp, raw, dlen, XMLESC_RAW) == -1) {
		o->err = ENOMEM;
		return;
	}

	oputs(o, link ? "<a" : "<g");
	{
		char b[96], *q = b;

		q = cat(q, " data-s=\"");
		q = u64(q, p->start);
		q = cat(q, "\" data-n=\"");
		q = u64(q, n->value);
		*q++ = '"';
		if (pf_buf_append(&o->b, b, (size_t)(q - b)) == -1)
			o->err = ENOMEM;
	}
	if (na != NULL && na->title != NULL) {
		oputs(o, " data-name=\"");
		oesc(o, o->tmp.data, o->tmp.len, XMLESC_ATTR);
		oputs(o, "\"");
	}
	if (na != NULL && na->gattrs != NULL)
		oputs(o, na->gattrs);
	if (link) {
		oputs(o, " xlink:href=\"");
		oesc_str(o, na->href, XMLESC_ATTR);
		oputs(o, "\" target=\"");
		oesc_str(o, na->target ? na->target : "_top", XMLESC_ATTR);
		oputs(o, "\"");
		if (na->aattrs != NULL)
			oputs(o, na->aattrs);
	}
	oputs(o, "><title>");
	if (na != NULL && na->title != NULL) {
		oesc_str(o, na->title, 0);
	} else {
		oesc(o, o->tmp.data, o->tmp.len, 0);
		oputs(o, " (");
		put_count(o, n->value, fo->factor);
		oputs(o, " ");
		oesc_str(o, fo->countname, 0);
		oputs(o, ", ");
		if (p->node == 0 && (double)n->value == timemax)
			oputs(o, "100");
		else
			put_pct(o, (double)n->value, timemax);
		oputs(o, "%");
		if (f->diff) {
			int64_t d = fo->negate ? -n->delta : n->delta;
			oputs(o, "; ");
			if (d > 0)
				oputs(o, "+");
			put_pct(o, (double)d, timemax);
			oputs(o, "%");
		}
		oputs(o, ")");
	}
	oputs(o, "</title>");
	if (f->diff)
		diff_color(n->delta, maxd, fo->negate, rgb);
	else
		frame_color(fo, raw, dlen, ann, rgb);
	if (fo->color != NULL && !f->diff)
		fo->color(fo->hook_arg, raw, dlen, rgb);
	{
		char b[320], *q = b;

		q = cat(q, "<rect x=\"");
		q = fixed(q, x1, 1);
		q = cat(q, "\" y=\"");
		q = fixed(q, y1, 1);
		q = cat(q, "\" width=\"");
		q = fixed(q, x2 - x1, 1);
		q = cat(q, "\" height=\"");
		q = fixed(q, y2 - y1, 1);
		q = cat(q, "\" fill=\"rgb(");
		q = u64(q, rgb[0]);
		*q++ = ',';
		q = u64(q, rgb[1]);
		*q++ = ',';
		q = u64(q, rgb[2]);
		q = cat(q, ")\" rx=\"2\" ry=\"2\"/>");
		if (pf_buf_append(&o->b, b, (size_t)(q - b)) == -1)
			o->err = ENOMEM;
	}
	/* No text element when no label fits: the script adds one on zoom. */
	label_at = o->b.len;
	{
		char b[128], *q = b;

		q = cat(q, "<text x=\"");
		q = fixed(q, x1 + 3, 2);
		q = cat(q, "\" y=\"");
		q = fixed(q, 3 + (y1 + y2) / 2, 2);
		q = cat(q, "\">");
		if (pf_buf_append(&o->b, b, (size_t)(q - b)) == -1)
			o->err = ENOMEM;
	}
	text_at = o->b.len;
	put_label(o, o->tmp.data, o->tmp.len, x2 - x1,
	    fo->fontsize * fo->fontwidth);
	if (o->b.len == text_at) {
		o->b.len = label_at;
		o->b.data[label_at] = '\0';
	} else {
		oputs(o, "</text>");
	}
	oputs(o, link ? "</a>\n" : "</g>\n");
}

static int
finish(struct out *o)
{
	int err;

	out_flush(o);
	err = o->err;
	pf_buf_free(&o->b);
	pf_buf_free(&o->tmp);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

int
flame_render(const struct flame *f, const struct flame_opts *fo,
    flame_sink sink, void *ctx)
{
	struct out o = { .sink = sink, .ctx = ctx };
	struct placed *pl;
	size_t npl, i;
	uint32_t maxdepth;
	double timemax, wpt, threshold, ypad1, ypad2, height;
	int64_t maxd = 1;
	const char *title;

	timemax = (double)f->nodes[0].value;
	if (fo->total > f->nodes[0].value)
		timemax = (double)fo->total;
	wpt = timemax > 0 ? (fo->width - 2 * XPAD) / timemax : 0;
	if (fo->minwidth_pct)
		threshold = timemax * fo->minwidth / 100.0;
	else
		threshold = wpt > 0 ? fo->minwidth / wpt : 0;
	if ((pl = layout(f, threshold, &npl, &maxdepth)) == NULL)
		return -1;
	for (i = 0; i < npl; i++) {
		int64_t d = f->nodes[pl[i].node].delta;
		if (d == INT64_MIN)
			d = INT64_MAX;
		if (d < 0)
			d = -d;
		if (d > maxd)
			maxd = d;
	}
	ypad1 = fo->fontsize * 3 + (fo->subtitle != NULL ? fo->fontsize * 2 : 0);
	ypad2 = fo->fontsize * 2 + 10;
	height = (maxdepth + 1) * fo->frameheight + ypad1 + ypad2;
	title = fo->title != NULL ? fo->title : default_title(f, fo);

	put_header(&o, fo, height, f->flamechart ? "Flame chart" :
	    fo->inverted ? "Icicle graph" : "Flame graph");
	put_style(&o, fo);
	put_controls(&o, fo, height, ypad2, title);
	oprintf(&o, "<g clip-path=\"url(#view)\">\n<g id=\"frames\" data-xpad=\"%g\" data-fontsize=\"%g\" "
	    "data-fontwidth=\"%g\" data-total=\"%.0f\">\n", XPAD, fo->fontsize,
	    fo->fontwidth, timemax);
	for (i = 0; i < npl && o.err == 0; i++) {
		put_frame(&o, f, fo, &pl[i], timemax, wpt, height, ypad1, ypad2,
		    maxd);
		if (o.b.len >= FLUSH_AT)
			out_flush(&o);
	}
	free(pl);
	oputs(&o, "</g>\n</g>\n<script type=\"text/ecmascript\"><![CDATA[\n");
	oputs(&o, script);
	oputs(&o, "]]></script>\n</svg>\n");
	return finish(&o);
}

int
flame_render_empty(const struct flame_opts *fo, const char *msg,
    flame_sink sink, void *ctx)
{
	struct out o = { .sink = sink, .ctx = ctx };
	double height = fo->fontsize * 6;

	put_header(&o, fo, height, "Empty flame graph");
	oprintf(&o, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
	    "fill=\"url(#background)\"/>\n", fo->width, height);
	oprintf(&o, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">"
	    "ERROR: ", fo->width / 2, fo->fontsize * 3);
	oesc_str(&o, msg, 0);
	oputs(&o, "</text>\n</svg>\n");
	return finish(&o);
}
