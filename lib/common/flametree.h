/*
 * flametree: how the frame tree of a struct pf_flame lies in memory, for the
 * flame modules only (flame.c builds it; flamelayout.c and flamesvg.c
 * read it).  Everyone else sees struct pf_flame through flame.h alone.
 *
 * Nodes live in one array and refer to each other by 32-bit index; frame
 * names are interned once (intern.h).
 */
#ifndef PF_FLAMETREE_H
#define PF_FLAMETREE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "flame.h"
#include "intern.h"

/* No node: the root's parent, the end of a sibling list. */
#define PF_FLAME_NONE UINT32_MAX

struct pf_flame_node {
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
struct pf_flame_slot {
	uint32_t tag;
	uint32_t node;		/* 0: empty (the root is nobody's child) */
};

struct pf_flame {
	int flamechart, reverse, diff;
	struct pf_flame_node *nodes;	/* nodes[0] is the root, "all" */
	uint32_t nnodes;
	size_t capnodes;
	/* path hash -> node */
	struct pf_flame_slot *child_tab;
	uint32_t child_mask;
	struct pf_intern names;	/* frame names; id 0 is the root's "all" */
	/* the previous stack, its path and path hashes, for prefix reuse */
	struct pf_buf prev;
	uint32_t *prev_nodes, *prev_end;
	uint64_t *prev_path;
	size_t nprev, capprev;
	struct pf_buf rev;	/* scratch for --reverse */
};

/* The bytes of name id (not NUL-terminated: see pf_flame_name_len). */
static inline const char *
pf_flame_name(const struct pf_flame *f, uint32_t id)
{
	size_t len;

	return pf_intern_key(&f->names, id, &len);
}

static inline size_t
pf_flame_name_len(const struct pf_flame *f, uint32_t id)
{
	return pf_intern_len(&f->names, id);
}

#endif
