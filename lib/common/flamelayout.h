/*
 * flamelayout: where each frame of a flame graph goes.  Children are
 * ordered by name (byte-wise) or, in a flame chart, kept in input order;
 * frames narrower than the threshold are pruned with their subtrees.
 */
#ifndef PF_FLAMELAYOUT_H
#define PF_FLAMELAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "flame.h"

/* A frame that survives pruning: its node, its row, its first count. */
struct pf_flame_placed {
	uint32_t node, depth;
	uint64_t start;
};

/*
 * The frames of f whose count is at least threshold, in pre-order (a
 * frame, then its children left to right).  A frame starts at its
 * parent's start plus the counts of every sibling before it, pruned ones
 * included, so pruning never moves a frame.  Sets *np to their number
 * and *maxdepth to the deepest row.  NULL with ENOMEM; the caller frees.
 */
struct pf_flame_placed *pf_flame_layout(const struct pf_flame *f, double threshold,
    size_t *np, uint32_t *maxdepth);

#endif
