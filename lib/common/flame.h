/*
 * flame: folded stacks in, an interactive flame graph SVG out.
 *
 * Stacks are merged into a frame tree (a trie keyed by frame sequence) as
 * they arrive, so memory grows with the number of distinct frames, never
 * with the number of input lines, and a parent is never split by how whole
 * lines happen to sort.  Rendering lays children out by frame name
 * (byte-wise) or, for a flame chart, in input order; prunes frames
 * narrower than the minimum width; and writes one self-contained SVG in
 * which every user string is cleaned and escaped (see xmlesc.h), so the
 * document is always well-formed XML.  The output is a pure function of
 * the input and the options: no randomness, no hash order.
 */
#ifndef PF_FLAME_H
#define PF_FLAME_H

#include <stddef.h>
#include <stdint.h>

struct pf_flame;

enum pf_flame_palette {
	PF_FLAME_HOT, PF_FLAME_MEM, PF_FLAME_IO, PF_FLAME_WAKEUP, PF_FLAME_CHAIN, PF_FLAME_JAVA,
	PF_FLAME_JS, PF_FLAME_PERL, PF_FLAME_RED, PF_FLAME_GREEN, PF_FLAME_BLUE, PF_FLAME_AQUA,
	PF_FLAME_YELLOW, PF_FLAME_PURPLE, PF_FLAME_ORANGE
};

/* Per-frame extras from --nameattr; every field may be NULL. */
struct pf_flame_nameattr {
	const char *title;	/* replaces the tooltip (raw; escaped here) */
	const char *href;	/* makes the frame a link (raw; escaped here) */
	const char *target;	/* link target, default "_top" (raw) */
	const char *gattrs;	/* extra attributes, already valid and escaped,
				   each starting with a space */
	const char *aattrs;	/* as gattrs, only on a link */
};

struct pf_flame_opts {
	const char *title;	/* NULL: by mode ("Flame Graph", ...) */
	const char *subtitle;	/* NULL: none */
	const char *countname;	/* "samples" */
	const char *nametype;	/* "Function:" */
	const char *notes;	/* NULL: none */
	const char *fonttype;	/* "Verdana" */
	const char *encoding;	/* NULL: "UTF-8"; only named in the declaration */
	const char *bgcolor;	/* NULL: by palette; yellow blue green grey #rrggbb */
	double width;		/* image width, px */
	double frameheight;	/* px per row */
	double fontsize, fontwidth;
	double minwidth;	/* px, or percent of the total when minwidth_pct */
	int minwidth_pct;
	double factor;		/* multiplies the counts shown */
	int time_ns;		/* counts are nanoseconds: tooltips show ms or s,
				   not countname (factor still applies) */
	uint64_t total;		/* 0: the sum of the counts */
	enum pf_flame_palette palette;
	int hash;		/* similar names, similar colours */
	int inverted;		/* icicle: root at the top */
	int negate;		/* swap red and blue of a differential */
	/*
	 * Optional hooks, given the frame's display name (annotation removed,
	 * raw bytes): color may replace the computed rgb (--cp); nameattr
	 * returns extras or NULL.
	 */
	void (*color)(void *arg, const char *name, size_t len,
	    unsigned char rgb[3]);
	const struct pf_flame_nameattr *(*nameattr)(void *arg, const char *name,
	    size_t len);
	void *hook_arg;
};

/* Fill o with flamegraph.pl's defaults. */
void pf_flame_opts_init(struct pf_flame_opts *o);

/*
 * A new empty graph.  flamechart keeps input order (only consecutive
 * identical prefixes merge); reverse reverses each stack before merging.
 * NULL with ENOMEM.
 */
struct pf_flame *pf_flame_new(int flamechart, int reverse);

/*
 * Merge one stack ("root;...;leaf", len bytes) with its count.  For a
 * differential line ncounts is 2, c1 the before and c2 the after count
 * (c2 is the width); otherwise c2 is the count and c1 is ignored.
 * Returns 0, or -1 with errno ENOMEM, or EOVERFLOW when the total would
 * pass 2^64-1 (the graph is unchanged then).
 */
int pf_flame_add(struct pf_flame *f, const char *stack, size_t len, int ncounts,
    uint64_t c1, uint64_t c2);

/* Sum of the counts merged so far (the root's width). */
uint64_t pf_flame_total(const struct pf_flame *f);

/* Number of frames (trie nodes, root included). */
size_t pf_flame_nframes(const struct pf_flame *f);

/*
 * The writer every render goes through: write n bytes, 0 or -1 (errno).
 */
typedef int (*pf_flame_sink)(void *ctx, const void *p, size_t n);

/*
 * Render f as SVG to sink.  Returns 0, or -1 with errno from the sink or
 * ENOMEM.  f is not changed.  On ENOMEM the sink has either nothing (the
 * caller may still write a document that says why) or a whole well-formed
 * document: what went out is closed with a line saying the graph is cut.
 */
int pf_flame_render(const struct pf_flame *f, const struct pf_flame_opts *o,
    pf_flame_sink sink, void *ctx);

/*
 * A small valid SVG saying that there is no graph to draw, and msg
 * (cleaned and escaped) why.  0, also when memory ran out and a fixed
 * document saying only that went out instead; -1 with errno from the sink.
 */
int pf_flame_render_empty(const struct pf_flame_opts *o, const char *msg,
    pf_flame_sink sink, void *ctx);

void pf_flame_free(struct pf_flame *f);

#endif
