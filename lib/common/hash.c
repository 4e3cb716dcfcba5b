/*
 * hash: the one hash function of pf's tables.  Keys are bytes (stack
 * strings, names, paths) or integers (tids, addresses); both go through
 * the same 64-bit mix so every table spreads its keys the same way.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"

uint64_t pf_hash_seed;

/*
 * Before main, so before any table is made and before the recorders
 * confine themselves (getrandom may not be allowed then).  A seed that
 * cannot be drawn falls back to the clock and the pid: still unknown to a
 * target that cannot read our memory.
 */
__attribute__((constructor)) static void
seed_init(void)
{
	const char *e = getenv("PF_HASH_SEED");
	struct timespec ts;

	if (e != NULL && *e != '\0') {
		pf_hash_seed = strtoull(e, NULL, 0);
		return;
	}
	if (getrandom(&pf_hash_seed, sizeof(pf_hash_seed), GRND_NONBLOCK) ==
	    (ssize_t)sizeof(pf_hash_seed))
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	pf_hash_seed = pf_hash_u64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^
	    (uint64_t)getpid());
}

uint64_t
pf_hash(const void *p, size_t len)
{
	/*
	 * A multiply-xorshift mix over 8-byte words, fast on long keys,
	 * starting from the seed: which keys collide depends on it.
	 */
	const unsigned char *c = p;
	uint64_t h = (0x9e3779b97f4a7c15ULL ^ pf_hash_seed) * 0xff51afd7ed558ccdULL ^
	    (len * 0xff51afd7ed558ccdULL);
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
