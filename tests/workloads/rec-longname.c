/*
 * rec-longname: CPU work split evenly between two functions whose
 * symbols are 5,004 bytes long and share their first 5,000 (given with
 * asm labels): a symbolizer that cuts names at some length merges them
 * into one frame, or prints a cut name.  Runs for SECONDS (default 3).
 */
#include <stdlib.h>
#include <time.h>

#include "wl-now.h"

#define SPIN 200000UL

#define A10	"aaaaaaaaaa"
#define A100	A10 A10 A10 A10 A10 A10 A10 A10 A10 A10
#define A1000	A100 A100 A100 A100 A100 A100 A100 A100 A100 A100
#define A5000	"long_" A1000 A1000 A1000 A1000 A100 A100 A100 A100 A100 A100 A100 A100 A100 \
	A10 A10 A10 A10 A10 A10 A10 A10 A10 "aaaaa"

void long_one(void) __asm__(A5000 "_one");
void long_two(void) __asm__(A5000 "_two");

__attribute__((noinline)) void
long_one(void)
{
	for (volatile unsigned long i = 0; i < SPIN; i++)
		;
}

__attribute__((noinline)) void
long_two(void)
{
	for (volatile unsigned long i = 0; i < SPIN; i++)
		;
}

int
main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	double end;

	end = now() + seconds;
	do {
		long_one();
		long_two();
	} while (now() < end);
	return 0;
}
