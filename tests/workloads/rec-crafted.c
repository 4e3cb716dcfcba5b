/*
 * rec-crafted: CPU work in a function whose symbol is a crafted C++ name
 * (given with an asm label): 229 bytes that demangle to 365 MB, because
 * each template argument repeats the one before it four times through
 * substitutions (S0_, S2_, ...), thirteen levels deep.  A demangler
 * without a cap spends seconds and gigabytes on this one name.  Runs for
 * SECONDS (default 3).
 */
#include <stdlib.h>
#include <time.h>

#include "wl-now.h"

#define SPIN 200000UL

void crafted_spin(void) __asm__(
    "_Z1fI1a1bIS0_S0_S0_S0_ES1_IS2_S2_S2_S2_E"
    "S1_IS3_S3_S3_S3_ES1_IS4_S4_S4_S4_E"
    "S1_IS5_S5_S5_S5_ES1_IS6_S6_S6_S6_E"
    "S1_IS7_S7_S7_S7_ES1_IS8_S8_S8_S8_E"
    "S1_IS9_S9_S9_S9_ES1_ISA_SA_SA_SA_E"
    "S1_ISB_SB_SB_SB_ES1_ISC_SC_SC_SC_E"
    "S1_ISD_SD_SD_SD_EEv");

__attribute__((noinline, aligned(64))) void
crafted_spin(void)
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
		crafted_spin();
	} while (now() < end);
	return 0;
}
