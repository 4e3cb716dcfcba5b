/*
 * rec-forge: a hostile target whose names try to forge lines of the
 * sample stream written about it.  Spins for SECONDS (default 3) in
 * forge_spin, named in one of three ways by MODE:
 *
 *   sym   forge_spin's symbol is FORGE_SYMBOL below, a placeholder the
 *         test overwrites in a copy of this binary with a name of the same
 *         length holding newlines (a compiler will not emit one);
 *   comm  half a second in, the process renames itself (PR_SET_NAME) to
 *         FORGE_COMM, a newline and the start of a sample line;
 *   path  the spinning code runs from a copy of this binary whose file
 *         name holds newlines and forged lines (FORGE_PATH, in DIR).
 *
 *   rec-forge MODE [SECONDS] [DIR]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wl-text.h"

#define CHUNK	200000UL
#define SPAN	(4UL << 20)	/* more than the file's image */

/* 122 bytes the test finds and overwrites (tests/bats/pf-record.bats). */
#define FORGE_SYMBOL "forge_spin_QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ" \
	"QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ"
/* 15 bytes, all the kernel keeps. */
#define FORGE_COMM "x\nFORGED_COMM "
#define FORGE_PATH "lib\n\nforged 11 [000] 1.000000: 9999999999 cpu-clock: \n" \
	"\tffff FORGED_PATH+0x0 (x)\n\n# pf-record: samples=1 stop=forged\nz"

void forge_spin(unsigned long n) __asm__(FORGE_SYMBOL);

/* No calls and no absolute addresses: it runs as well from a copy. */
__attribute__((noinline)) void
forge_spin(unsigned long n)
{
	for (volatile unsigned long i = 0; i < n; i++)
		;
}

/* forge_spin as it runs from a copy of this binary at DIR/FORGE_PATH. */
static void (*copied_spin(const char *dir))(unsigned long)
{
	char path[4096];
	uintptr_t start, end;
	unsigned long off;
	struct stat st;
	char *base, *copy;
	int in, out;
	off_t o = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, FORGE_PATH);
	if ((in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) == -1 || fstat(in, &st) == -1 ||
	    (out = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0700)) == -1)
		return NULL;
	while (o < st.st_size)
		if (sendfile(out, in, &o, (size_t)(st.st_size - o)) <= 0)
			return NULL;
	close(in);
	if (text_of((uintptr_t)forge_spin, &start, &end, &off) == -1)
		return NULL;
	/* Placed as the loader places a file: the text at its offset from a base. */
	if ((base = mmap(NULL, SPAN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
		return NULL;
	copy = mmap(base + off, end - start, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, out,
	    (off_t)off);
	close(out);
	if (copy == MAP_FAILED)
		return NULL;
	return (void (*)(unsigned long))(uintptr_t)(copy + ((uintptr_t)forge_spin - start));
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	double start = now(), end = start + (argc > 2 ? atof(argv[2]) : 3);
	void (*spin)(unsigned long) = forge_spin;
	int renamed = 0;

	if (strcmp(mode, "path") == 0) {
		if (argc < 4 || (spin = copied_spin(argv[3])) == NULL) {
			perror("rec-forge: the copy");
			return 1;
		}
	} else if (strcmp(mode, "sym") != 0 && strcmp(mode, "comm") != 0) {
		fprintf(stderr, "usage: rec-forge sym|comm|path [SECONDS] [DIR]\n");
		return 2;
	}
	while (now() < end) {
		if (!renamed && strcmp(mode, "comm") == 0 && now() > start + 0.5) {
			prctl(PR_SET_NAME, FORGE_COMM, 0, 0, 0);
			renamed = 1;
		}
		spin(CHUNK);
	}
	return 0;
}
