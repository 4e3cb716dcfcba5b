/*
 * flamecolor: palettes, and names hashed to colours, for the flame graph.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>

#include "flame.h"
#include "flamecolor.h"

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
plain_color(enum pf_flame_palette p, const double v[3], unsigned char rgb[3])
{
	switch (p) {
	case PF_FLAME_HOT:
	default:
		rgb_set(rgb, 205 + 50 * v[2], 230 * v[0], 55 * v[1]);
		break;
	case PF_FLAME_MEM:
		rgb_set(rgb, 0, 190 + 50 * v[1], 210 * v[0]);
		break;
	case PF_FLAME_IO:
	case PF_FLAME_BLUE:
		rgb_set(rgb, 80 + 60 * v[0], 80 + 60 * v[0], 190 + 55 * v[1]);
		break;
	case PF_FLAME_RED:
		rgb_set(rgb, 200 + 55 * v[0], 50 + 80 * v[0], 50 + 80 * v[0]);
		break;
	case PF_FLAME_GREEN:
		rgb_set(rgb, 50 + 60 * v[0], 200 + 55 * v[0], 50 + 60 * v[0]);
		break;
	case PF_FLAME_AQUA:
	case PF_FLAME_WAKEUP:
		rgb_set(rgb, 50 + 60 * v[0], 165 + 55 * v[0], 165 + 55 * v[0]);
		break;
	case PF_FLAME_YELLOW:
		rgb_set(rgb, 175 + 55 * v[0], 175 + 55 * v[0], 50 + 20 * v[0]);
		break;
	case PF_FLAME_PURPLE:
		rgb_set(rgb, 190 + 65 * v[0], 80 + 60 * v[0], 190 + 65 * v[0]);
		break;
	case PF_FLAME_ORANGE:
		rgb_set(rgb, 190 + 65 * v[0], 90 + 65 * v[0], 0);
		break;
	}
}

static int
contains(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle)) != NULL;
}

/* The suffix is matched by hand: names are not NUL-terminated. */
char
pf_flame_annotation(const char *s, size_t n)
{
	if (n >= 4 && s[n - 4] == '_' && s[n - 3] == '[' && s[n - 1] == ']' &&
	    strchr("kjiwl", s[n - 2]) != NULL && s[n - 2] != '\0')
		return s[n - 2];
	return 0;
}

/*
 * A Python function named from the interpreter's memory ("py::NAME:FILE",
 * pf-record's stream) is a kind of its own, so that where Python ran
 * reads at a glance between the interpreter's C functions: green beside
 * hot's reds and yellows (in java, js and perl the green of a language's
 * own code), purple beside mem's greens and the blues of io, wakeup and
 * chain.  A single-hue palette was asked for one hue and keeps it.  The
 * markers of a walk that ended ("[py-loop]" and the like) are not
 * functions: they are coloured as any other name.  p itself for a frame
 * that is not a Python function.
 */
static enum pf_flame_palette
python_palette(enum pf_flame_palette p, const char *s, size_t n)
{
	if (n < 4 || memcmp(s, "py::", 4) != 0)
		return p;
	switch (p) {
	case PF_FLAME_HOT:
	case PF_FLAME_JAVA:
	case PF_FLAME_JS:
	case PF_FLAME_PERL:
		return PF_FLAME_GREEN;
	case PF_FLAME_MEM:
	case PF_FLAME_IO:
	case PF_FLAME_WAKEUP:
	case PF_FLAME_CHAIN:
		return PF_FLAME_PURPLE;
	default:
		return p;
	}
}

/* By its annotation and name the frame picks a palette, then a colour. */
void
pf_flame_frame_color(const struct pf_flame_opts *o, const char *s, size_t n,
    char ann, unsigned char rgb[3])
{
	enum pf_flame_palette p = o->palette, use = p;
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
	if ((use = python_palette(p, s, n)) != p) {
		plain_color(use, v, rgb);
		return;
	}
	switch (p) {
	case PF_FLAME_CHAIN:
		use = ann == 'w' ? PF_FLAME_AQUA : PF_FLAME_BLUE;
		break;
	case PF_FLAME_JAVA:
	case PF_FLAME_JS:
	case PF_FLAME_PERL:
		if (ann == 'k')
			use = PF_FLAME_ORANGE;
		else if (ann == 'j')
			use = PF_FLAME_GREEN;
		else if (ann == 'i')
			use = PF_FLAME_AQUA;
		else if (p == PF_FLAME_JAVA)
			use = contains(s, n, "/") || (contains(s, n, ".") &&
			    !contains(s, n, "::")) ? PF_FLAME_GREEN :
			    contains(s, n, "::") ? PF_FLAME_YELLOW : PF_FLAME_RED;
		else if (p == PF_FLAME_JS)
			use = contains(s, n, ".js") || contains(s, n, "/") ?
			    PF_FLAME_GREEN : contains(s, n, "::") ? PF_FLAME_YELLOW :
			    PF_FLAME_RED;
		else
			use = contains(s, n, ".pl") || contains(s, n, "Perl") ||
			    contains(s, n, "perl") ? PF_FLAME_GREEN :
			    contains(s, n, "::") ? PF_FLAME_YELLOW : PF_FLAME_RED;
		break;
	default:
		break;
	}
	plain_color(use, v, rgb);
}

void
pf_flame_diff_color(int64_t d, int64_t maxd, int negate, unsigned char rgb[3])
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

void
pf_flame_background(const struct pf_flame_opts *o, const char **c1,
    const char **c2)
{
	const char *bg = o->bgcolor;
	static char flat[8];

	if (bg == NULL) {
		switch (o->palette) {
		case PF_FLAME_MEM: bg = "green"; break;
		case PF_FLAME_IO: case PF_FLAME_WAKEUP: case PF_FLAME_CHAIN: bg = "blue"; break;
		case PF_FLAME_RED: case PF_FLAME_GREEN: case PF_FLAME_BLUE: case PF_FLAME_AQUA:
		case PF_FLAME_YELLOW: case PF_FLAME_PURPLE: case PF_FLAME_ORANGE:
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
