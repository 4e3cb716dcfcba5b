/*
 * hash: the one hash function of pf's tables.  Keys are bytes (stack
 * strings, names, paths) or integers (tids, addresses); both go through
 * the same 64-bit mix so every table spreads its keys the same way.
 */
#include <string.h>

#include "hash.h"

uint64_t
pf_hash(const void *p, size_t len)
{
	/*
	 * A multiply-xorshift mix over 8-byte words: fast on long keys and
	 * good enough for a table whose keys are not chosen by an attacker
	 * who can see the seed-free output anyway.
	 */
	const unsigned char *c = p;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (len * 0xff51afd7ed558ccdULL);
	uint64_t w;

	while (len >= 8) {
		memcpy(&w, c, 8);
		h = (h ^ (w * 0xc4ceb9fe1a85ec53ULL)) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
		c += 8;
		len -= 8;
	}
	if (len) {
		w = 0;
		memcpy(&w, c, len);
		h = (h ^ (w * 0xc4ceb9fe1a85ec53ULL)) * 0x9e3779b97f4a7c15ULL;
	}
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	h ^= h >> 32;
	return h;
}
