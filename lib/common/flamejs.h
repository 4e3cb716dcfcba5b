/*
 * flamejs: the flame graph's script (zoom, search, the view in the URL).
 * It lives in flame.js beside this header, where node can check it; the
 * build turns that file into the flame-js.c that defines these, and the
 * SVG writer copies the bytes verbatim into a CDATA section.
 */
#ifndef PF_FLAMEJS_H
#define PF_FLAMEJS_H

#include <stddef.h>

/* The bytes of flame.js: pf_flame_js_len of them, no NUL after. */
extern const char pf_flame_js[];
extern const size_t pf_flame_js_len;

#endif
