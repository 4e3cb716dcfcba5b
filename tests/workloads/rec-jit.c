/*
 * rec-jit: a tiny "JIT" for checking JIT symbolization.  It copies a spin
 * loop of x86-64 machine code into anonymous executable memory, publishes
 * it as "rec_jit_spin" in /tmp/perf-PID.map (the perf JIT interface), runs
 * it for SECONDS (default 3), then removes the map.  Exits 77 on other
 * architectures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "wl-text.h"

int
main(int argc, char **argv)
{
#if defined(__x86_64__)
	/* mov ecx, 200000; 1: dec ecx; jnz 1b; ret */
	static const unsigned char code[] = {
		0xb9, 0x40, 0x0d, 0x03, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0xc3
	};
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	double end;
	char path[64];
	unsigned char *mem;
	void (*fn)(void);
	FILE *f;

	if ((mem = anon_code(code, sizeof(code))) == NULL)
		return 1;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if ((f = fopen(path, "w")) == NULL)
		return 1;
	fprintf(f, "%lx %zx rec_jit_spin\n", (unsigned long)mem, sizeof(code));
	fclose(f);
	fn = (void (*)(void))mem;
	end = now() + seconds;
	do {
		fn();
	} while (now() < end);
	/* Leave the map for a moment: the profiler reads it after its window. */
	if (argc > 2)
		unlink(path);
	return 0;
#else
	(void)argc;
	(void)argv;
	return 77;
#endif
}
