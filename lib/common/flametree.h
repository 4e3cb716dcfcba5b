/*
 * flametree: how the frame tree of a struct flame lies in memory, for the
 * flame modules only (flame.c builds it; flamelayout.c and flamesvg.c
 * read it).  Everyone else sees struct flame through flame.h alone.
 *
 * Nodes live in one array and refer to each other by 32-bit index; frame
 * names are interned once, their bytes in one arena.
 */
#ifndef PF_FLAMETREE_H
#define PF_FLAMETREE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "flame.h"

/* No node: the root's parent, the end of a sibling list. */
#define FLAME_NONE UINT32_MAX

struct flame_node {
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
struct flame_slot {
	uint32_t tag;
	uint32_t node;		/* 0: empty (the root is nobody's child) */
};

/* A slot of the name table: the hash beside the id, for the same reason. */
struct flame_name_slot {
	uint32_t hash;
	uint32_t id1;		/* id + 1; 0: empty */
};

struct flame {
	int flamechart, reverse, diff;
	struct flame_node *nodes;	/* nodes[0] is the root, "all" */
	uint32_t nnodes;
	size_t capnodes;
	/* path hash -> node */
	struct flame_slot *child_tab;
	uint32_t child_mask;
	/* interned names */
	struct pf_buf arena;
	uint64_t *name_off;
	uint32_t *name_len;
	uint32_t nnames;
	size_t capnames;
	struct flame_name_slot *name_tab;
	uint32_t name_mask;
	/* the previous stack, its path and path hashes, for prefix reuse */
	struct pf_buf prev;
	uint32_t *prev_nodes, *prev_end;
	uint64_t *prev_path;
	size_t nprev, capprev;
	struct pf_buf rev;	/* scratch for --reverse */
};

/* The bytes of name id (not NUL-terminated: see flame_name_len). */
static inline const char *
flame_name(const struct flame *f, uint32_t id)
{
	return f->arena.data + f->name_off[id];
}

static inline size_t
flame_name_len(const struct flame *f, uint32_t id)
{
	return f->name_len[id];
}

#endif
