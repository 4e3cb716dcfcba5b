/*
 * rec-demangle: a test driver, not a workload: reads one symbol name per
 * line and prints lib/common/demangle's result (or the name unchanged when
 * it is not demangled), so the demangler can be checked table by table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/common/demangle.c"

int
main(void)
{
	char line[8192];

	while (fgets(line, sizeof(line), stdin)) {
		char *d;

		line[strcspn(line, "\n")] = '\0';
		d = pf_demangle(line);
		puts(d ? d : line);
		free(d);
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
