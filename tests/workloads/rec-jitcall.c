/*
 * rec-jitcall: JIT code without a name in the middle of the stack, as a
 * JavaScript engine's.  A trampoline of x86-64 code in anonymous
 * executable memory (no /tmp/perf-PID.map: nothing names it) keeps a
 * frame pointer and calls jit_callee, a C function that spins; main calls
 * the trampoline until SECONDS (default 3) have passed.  A frame-pointer
 * walk from jit_callee goes through the trampoline's frame to main.
 * Exits 77 on other architectures.
 */
#include <stdlib.h>
#include <time.h>

#include "wl-text.h"

static volatile unsigned long sink;

__attribute__((noinline)) static void
touch(void)
{
	sink++;
}

/* Not a leaf (it calls touch), so that it keeps a frame of its own. */
__attribute__((noinline)) void
jit_callee(void)
{
	unsigned long i;

	touch();
	for (i = 0; i < 200000; i++)
		sink += i;
}

int
main(int argc, char **argv)
{
#if defined(__x86_64__)
	/* push rbp; mov rbp, rsp; call rdi; pop rbp; ret */
	static const unsigned char code[] = {
		0x55, 0x48, 0x89, 0xe5, 0xff, 0xd7, 0x5d, 0xc3
	};
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	double end;
	unsigned char *mem;
	void (*fn)(void (*)(void));

	if ((mem = anon_code(code, sizeof(code))) == NULL)
		return 1;
	fn = (void (*)(void (*)(void)))mem;
	end = now() + seconds;
	do {
		fn(jit_callee);
	} while (now() < end);
	return 0;
#else
	(void)argc;
	(void)argv;
	return 77;
#endif
}
