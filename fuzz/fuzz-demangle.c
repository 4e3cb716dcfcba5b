/*
 * fuzz-demangle: symbol names come from the target's binaries, so the
 * demangler must survive any bytes: no crash, no leak, no overread.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 3), *d;

	if (s == NULL)
		return 0;
	/* Half the inputs get a mangling prefix so the parsers are reached. */
	if (size && (data[0] & 1)) {
		memcpy(s, (data[0] & 2) ? "_Z" : "_R", 2);
		memcpy(s + 2, data + 1, size - 1);
		s[size + 1] = '\0';
	} else {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	d = pf_demangle(s);
	free(d);
	free(s);
	return 0;
}
