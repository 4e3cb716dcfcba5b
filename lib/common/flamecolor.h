/*
 * flamecolor: the colours of a flame graph.  A frame's colour is a pure
 * function of its name, its annotation and the palette (or, in a
 * differential graph, of its change), so the same input always gives the
 * same picture.
 */
#ifndef PF_FLAMECOLOR_H
#define PF_FLAMECOLOR_H

#include <stddef.h>
#include <stdint.h>

#include "flame.h"

/*
 * The annotation a name ends in ("_[k]" kernel, "_[j]" JIT, "_[i]"
 * inlined, "_[w]" waker, "_[l]" the C library's): 'k', 'j', 'i', 'w' or
 * 'l', or 0 for none.
 */
char pf_flame_annotation(const char *s, size_t n);

/*
 * The fill of the frame named s (n bytes, annotation removed; ann as
 * pf_flame_annotation gave) under o's palette and o->hash.  A Python
 * function ("py::...") takes a hue of its own under hot, java, js, perl
 * (green) and mem, io, wakeup, chain (purple).
 */
void pf_flame_frame_color(const struct pf_flame_opts *o, const char *s, size_t n,
    char ann, unsigned char rgb[3]);

/*
 * The fill of a differential frame whose count changed by d, on a scale
 * where maxd (> 0) is the largest change: red grew, blue shrank, white
 * did not change; negate swaps red and blue.
 */
void pf_flame_diff_color(int64_t d, int64_t maxd, int negate,
    unsigned char rgb[3]);

/*
 * The two stops of the background gradient for o (o->bgcolor or, when
 * NULL, the palette's own).  The strings are static: a #rrggbb colour is
 * kept until the next call.
 */
void pf_flame_background(const struct pf_flame_opts *o, const char **c1,
    const char **c2);

#endif
